//! `examples/embed.rs` (the embedding walkthrough: the library loader, the game's own world
//! and schedule, the VM and the animator) prints exactly what `sinew run` prints, on every
//! scene fixture, in both trace formats.

#[allow(dead_code)] // `main` is the example's entry point, not called here
#[path = "../examples/embed.rs"]
mod embed;

#[path = "support/scenes.rs"]
mod scenes;

use scenes::sinew_run;

/// The example on ARGV…: (status, stdout, stderr).
fn embed_run(argv: &[&str]) -> (u8, String, String) {
    let o = embed::parse_args(argv.iter().map(|s| s.to_string())).expect("arguments");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = embed::run(&o, &mut out, &mut err).unwrap_or(2);
    (
        status,
        String::from_utf8(out).expect("UTF-8 trace"),
        String::from_utf8(err).expect("UTF-8 diagnostics"),
    )
}

#[test]
fn embed_prints_what_sinew_run_prints_on_every_scene_fixture() {
    let scenes = scenes::fixtures();
    assert!(scenes.len() > 25, "{scenes:?}");
    let mut ran = 0;
    for (scene, assets) in &scenes {
        for format in ["human", "json"] {
            let argv = [
                scene.as_str(),
                "--assets",
                assets,
                "--ticks",
                "40",
                "--dt",
                "0.05",
                "--format",
                format,
            ];
            let (status, run_out) = sinew_run(&argv);
            let (embed_status, embed_out, embed_err) = embed_run(&argv);
            assert_eq!(
                (embed_status, embed_out.as_str()),
                (status, run_out.as_str()),
                "{scene} --format {format}"
            );
            if status == 0 {
                ran += 1;
                assert!(run_out.lines().count() > 1, "{scene}: {run_out}");
                assert!(embed_err.ends_with("embed: 40 frames\n"), "{embed_err}");
            } else {
                assert!(run_out.is_empty() && embed_err.contains("error"), "{scene}");
            }
        }
    }
    assert!(ran >= 40, "only {ran} runs started");
}

#[test]
fn embed_takes_the_arguments_sinew_run_takes() {
    let o = embed::parse_args(
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
        &["s", "--dt", "NaN"],
    ] {
        assert!(
            embed::parse_args(bad.iter().map(|s| s.to_string())).is_err(),
            "{bad:?}"
        );
    }
}
