//! `examples/bevy_headless.rs` (a scene in a real Bevy `App` through `SinewPlugin`: asset
//! loaders, spawn on load, `bevy_time` as the clock) prints exactly what `sinew run` prints, on
//! every scene fixture, in both trace formats.

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
        for (format, dt) in [("human", "0.05"), ("json", "0.016666666666666666")] {
            let argv = [
                scene.as_str(),
                "--assets",
                assets,
                "--ticks",
                "40",
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
                "{scene} --format {format} --dt {dt}\n{err}"
            );
            if status == 0 {
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

#[test]
fn bevy_headless_takes_the_arguments_sinew_run_takes() {
    let o = bevy_headless::parse_args(
        [
            "s.scene.ron",
            "--assets",
            "a",
            "--ticks",
            "3",
            "--dt",
            "0.5",
            "--format",
            "json",
        ]
        .map(String::from),
    )
    .expect("arguments");
    assert_eq!(
        (o.scene.to_str(), o.assets.to_str(), o.ticks, o.dt),
        (Some("s.scene.ron"), Some("a"), 3, 0.5)
    );
    assert_eq!(o.format, sinew::runtime::TraceFormat::Json);
    for bad in [
        &[][..],
        &["s", "--ticks"],
        &["s", "--ticks", "x"],
        &["s", "t"],
        &["s", "--format", "xml"],
        &["s", "--dt", "0"],
    ] {
        assert!(
            bevy_headless::parse_args(bad.iter().map(|s| s.to_string())).is_err(),
            "{bad:?}"
        );
    }
}
