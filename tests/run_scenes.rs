//! End-to-end tests of `sinew run`: each fixture scene in `tests/fixtures/scenes/` runs through
//! the command (arguments parsed as on the command line, in process); the snapshot holds the
//! exit status, standard error and the JSON trace.

use std::path::Path;

use clap::Parser;
use sinew::cli::{Cli, Command, Ctx};

const FIXTURES: &str = "tests/fixtures/scenes";

/// Runs `sinew run ARGV…` from the crate root; returns (status, stdout, stderr).
fn sinew_run(argv: &[&str]) -> (u8, String, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::env::set_current_dir(root).expect("cd to the crate root");
    let ctx = Ctx {
        color: false,
        cwd: Some(root.to_path_buf()),
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = match Cli::try_parse_from(
        std::iter::once("sinew")
            .chain(std::iter::once("run"))
            .chain(argv.iter().copied()),
    ) {
        Ok(Cli {
            command: Command::Run(args),
        }) => sinew::cli::run::execute(&ctx, &args, &mut out, &mut err),
        Ok(_) => unreachable!("parsed `run`"),
        Err(e) => {
            err.extend_from_slice(e.to_string().as_bytes());
            2
        }
    };
    (
        status,
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

/// Runs `sinew run <scene> --format json` plus `args` and snapshots status, stderr and stdout
/// under `run_<scene name>`. Returns the stdout lines.
fn check(scene: &str, args: &[&str]) -> Vec<String> {
    let name = format!(
        "run_{}",
        scene.trim_end_matches(".scene.ron").replace('/', "_")
    );
    check_as(&name, scene, args)
}

/// As [`check`], under snapshot `name`.
fn check_as(name: &str, scene: &str, args: &[&str]) -> Vec<String> {
    let path = format!("{FIXTURES}/{scene}");
    let assets = if scene.starts_with("err/") {
        format!("{FIXTURES}/err/assets")
    } else {
        format!("{FIXTURES}/assets")
    };
    let mut argv = vec![path.as_str(), "--assets", &assets, "--format", "json"];
    argv.extend_from_slice(args);
    let (status, stdout, stderr) = sinew_run(&argv);
    // Every stdout line is one JSON object.
    for line in stdout.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("JSON line");
        assert!(v.is_object(), "{line}");
    }
    let report =
        format!("args: {args:?}\nstatus: {status}\n--- stderr\n{stderr}--- stdout\n{stdout}");
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(name, report);
    });
    stdout.lines().map(str::to_string).collect()
}

fn kinds<'a>(lines: &'a [String], kind: &str) -> Vec<&'a String> {
    lines
        .iter()
        .filter(|l| l.contains(&format!("\"kind\":\"{kind}\"")))
        .collect()
}

#[test]
fn shared_sequence_delivers_per_entity() {
    let lines = check("shared_sequence.scene.ron", &["--ticks", "70"]);
    // hero (speed 1) and villager (speed 2) each count only their own crossings.
    let end = kinds(&lines, "end");
    assert_eq!(end.len(), 3);
    assert!(end[0].contains("\"a\":1") && end[0].contains("\"source\":\"hero\""));
    assert!(end[1].contains("\"a\":3") && end[1].contains("\"source\":\"villager\""));
}

#[test]
fn multi_loop_updates() {
    check("multi_loop.scene.ron", &["--dt", "2.5", "--ticks", "3"]);
}

#[test]
fn reverse_playback() {
    check("reverse.scene.ron", &["--dt", "0.1", "--ticks", "20"]);
}

#[test]
fn seek_and_pause_fire_nothing() {
    check("seek_pause.scene.ron", &["--dt", "0.05", "--ticks", "30"]);
}

#[test]
fn delays() {
    let lines = check("delays.scene.ron", &["--ticks", "20"]);
    assert!(lines[0].contains("\"start\""));
}

#[test]
fn budget_overrun_aborts_only_the_invocation() {
    let lines = check("budget.scene.ron", &["--ticks", "3"]);
    assert_eq!(kinds(&lines, "error").len(), 1);
}

#[test]
fn int_division_by_zero() {
    check("div_zero.scene.ron", &["--dt", "0.25", "--ticks", "9"]);
}

#[test]
fn flush_rounds_overrun() {
    let lines = check("flush_rounds.scene.ron", &["--ticks", "3"]);
    assert_eq!(kinds(&lines, "error").len(), 3);
    // 16 rounds per flush: 8 pings (logged) and 8 pongs.
    assert_eq!(kinds(&lines, "log").len(), 24);
}

#[test]
fn variable_targets() {
    check(
        "variable_targets.scene.ron",
        &["--dt", "0.05", "--ticks", "30"],
    );
}

#[test]
fn despawn_drops_queued_events() {
    let lines = check("despawn.scene.ron", &["--dt", "0.05", "--ticks", "30"]);
    assert_eq!(kinds(&lines, "end").len(), 1);
}

#[test]
fn custom_events() {
    check("custom_events.scene.ron", &["--dt", "0.01", "--ticks", "5"]);
}

#[test]
fn demo_scene() {
    let (status, stdout, stderr) = sinew_run(&[
        "scenes/demo.scene.ron",
        "--ticks",
        "120",
        "--format",
        "json",
    ]);
    assert_eq!(status, 0);
    assert!(stderr.is_empty(), "{stderr}");
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("run_demo", stdout);
    });
}

#[test]
fn error_missing_files() {
    check("err/missing_files.scene.ron", &[]);
}

#[test]
fn error_unknown_entities() {
    check("err/unknown_entities.scene.ron", &[]);
}

#[test]
fn error_unknown_event() {
    check("err/unknown_event.scene.ron", &[]);
}

#[test]
fn error_broken_clip() {
    check("err/broken_clip.scene.ron", &[]);
}

#[test]
fn error_syntax() {
    check("err/syntax.scene.ron", &[]);
}

#[test]
fn error_shapes() {
    check("err/shapes.scene.ron", &[]);
}

#[test]
fn error_not_utf8() {
    check("err/not_utf8.scene.ron", &[]);
}

#[test]
fn unsupported_features_warn() {
    check("err/unsupported.scene.ron", &["--ticks", "2"]);
}

#[test]
fn usage_errors_exit_2() {
    check_as("run_usage_missing_scene", "err/missing.scene.ron", &[]);
    check_as("run_usage_dt_zero", "delays.scene.ron", &["--dt", "0"]);
    check_as("run_usage_dt_nan", "delays.scene.ron", &["--dt", "NaN"]);
    check_as(
        "run_usage_dt_negative",
        "delays.scene.ron",
        &["--dt", "-0.5"],
    );
    check_as(
        "run_usage_too_many_ticks",
        "delays.scene.ron",
        &["--ticks", "1000001"],
    );
}

#[test]
fn human_format() {
    let (status, stdout, stderr) = sinew_run(&[
        "tests/fixtures/scenes/variable_targets.scene.ron",
        "--assets",
        "tests/fixtures/scenes/assets",
        "--dt",
        "0.05",
        "--ticks",
        "20",
    ]);
    assert_eq!((status, stderr.as_str()), (0, ""));
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("run_human_format", stdout);
    });
}

#[test]
fn anim_nodes_against_the_minimal_animator() {
    check("anim_commands.scene.ron", &["--dt", "0.25", "--ticks", "2"]);
}
