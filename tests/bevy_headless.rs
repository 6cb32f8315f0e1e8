//! `examples/bevy_headless.rs` (a scene in a real Bevy `App` through `SinewPlugin`: asset
//! loaders, spawn on load, `bevy_time` as the clock) prints exactly what `sinew run` prints, on
//! every scene fixture, in both trace formats, and with `--ticks 0` (the end lines only). Its
//! arguments are `examples/support/args.rs`, which `tests/runtime_embed.rs` checks.

#[allow(dead_code)] // `main` is the example's entry point, not called here
#[path = "../examples/bevy_headless.rs"]
mod bevy_headless;

#[path = "support/scenes.rs"]
mod scenes;

#[test]
fn bevy_headless_prints_what_sinew_run_prints_on_every_scene_fixture() {
    let scenes = scenes::fixtures();
    assert!(scenes.len() > 25, "{scenes:?}");
    let mut ran = 0;
    for (scene, assets) in &scenes {
        for (format, dt, ticks) in [
            ("human", "0.05", "40"),
            ("json", "0.016666666666666666", "40"),
            ("json", "0.05", "0"),
        ] {
            let argv = [
                scene.as_str(),
                "--assets",
                assets,
                "--ticks",
                ticks,
                "--dt",
                dt,
                "--format",
                format,
            ];
            let (status, run_out) = scenes::sinew_run(&argv);
            let o = bevy_headless::parse_args(argv.iter().map(|s| s.to_string())).expect("args");
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let app_status = bevy_headless::run(&o, &mut out, &mut err).unwrap_or(2);
            let app_out = String::from_utf8(out).expect("UTF-8 trace");
            let err = String::from_utf8(err).expect("UTF-8 diagnostics");
            assert_eq!(
                (app_status, app_out.as_str()),
                (status, run_out.as_str()),
                "{scene} --format {format} --dt {dt} --ticks {ticks}\n{err}"
            );
            if status == 0 && ticks == "0" {
                // Only the end lines: nothing ticked, not even `begin_play`'s handlers.
                assert!(
                    run_out.lines().all(|l| l.contains("\"end\"")),
                    "{scene}: {run_out}"
                );
            } else if status == 0 {
                ran += 1;
                assert!(run_out.lines().count() > 1, "{scene}: {run_out}");
            } else {
                assert!(
                    app_out.is_empty() && err.contains("error"),
                    "{scene}: {err}"
                );
            }
        }
    }
    assert!(ran >= 40, "only {ran} runs started");
}
