//! End-to-end tests of `sinew run`: each fixture scene in `tests/fixtures/scenes/` runs through
//! the command (arguments parsed as on the command line, in process); the snapshot holds the
//! exit status, standard error and the JSON trace.

use std::path::Path;

use clap::Parser;
use sinew::cli::{Cli, Command, Ctx};

const FIXTURES: &str = "tests/fixtures/scenes";

/// Runs `sinew run ARGV…` with paths relative to the crate root (cargo runs tests there; the
/// process's current folder is never changed); returns (status, stdout, stderr).
fn sinew_run(argv: &[&str]) -> (u8, String, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
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

/// Per (entity, window event), the edge lines in order: `b` for a begin, `E` for an end at its
/// end edge, `x` for an end cut short.
fn window_edges(lines: &[String]) -> std::collections::BTreeMap<(String, String), String> {
    let mut out: std::collections::BTreeMap<(String, String), String> = Default::default();
    for l in kinds(lines, "window") {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        let key = (
            v["entity"].as_str().unwrap().to_string(),
            v["event"].as_str().unwrap().to_string(),
        );
        let c = match (v["edge"].as_str().unwrap(), v["completed"].as_bool()) {
            ("begin", None) => 'b',
            ("end", Some(true)) => 'E',
            ("end", Some(false)) => 'x',
            other => panic!("bad edge line {other:?}: {l}"),
        };
        out.entry(key).or_default().push(c);
    }
    out
}

/// Begins and ends strictly alternate on every (entity, window) of `edges` but `except`'s.
fn assert_alternate(edges: &std::collections::BTreeMap<(String, String), String>, except: &[&str]) {
    for (k, e) in edges
        .iter()
        .filter(|(k, _)| !except.contains(&k.0.as_str()))
    {
        let alternate = e
            .chars()
            .enumerate()
            .all(|(i, c)| (c == 'b') == (i % 2 == 0));
        assert!(alternate, "{k:?}: {e}");
    }
}

#[test]
fn windows_end_exactly_once_whatever_cuts_them() {
    let lines = check("windows.scene.ron", &["--dt", "0.05", "--ticks", "44"]);
    assert!(lines.iter().any(|l| l.contains("\"kind\":\"window\"")));
    let edges = window_edges(&lines);
    // Begins and ends strictly alternate on every target.
    assert_alternate(&edges, &[]);
    let get = |who: &str, w: &str| {
        edges
            .get(&(who.to_string(), format!("animseq::swing.{w}")))
            .cloned()
            .unwrap_or_default()
    };
    // The crossfade back to idle cuts both windows; a stopped layer and a layer at weight 0 too.
    assert!(get("fader", "hit").starts_with("bx"), "{edges:?}");
    assert!(get("fader", "whole").starts_with("bx"), "{edges:?}");
    assert_eq!(get("stopper", "hit"), "bx");
    // At weight 0.3 `hit` (no threshold) opens and ends at its end edge; weight 0 ends `whole`.
    assert_eq!(get("dimmer", "hit"), "bE");
    assert_eq!(get("dimmer", "whole"), "bx");
    // A seek out of `hit` ends it and keeps `whole`; the seek back opens nothing, the next
    // cycle's begin edge does.
    assert!(get("seeker", "hit").starts_with("bxb"), "{edges:?}");
    assert!(get("seeker", "whole").starts_with("bEb"), "{edges:?}");
    // Reverse playback: windows begin at their end edges and end at their begin edges.
    assert!(get("reverser", "hit").starts_with("bE"), "{edges:?}");
    // A despawn ends what was open, traced although its channel is gone.
    assert_eq!(get("doomed", "hit"), "bx");
    assert_eq!(get("doomed", "whole"), "bx");
    // `mid` (threshold 0.5) never fires on the dimmed layer, always at full weight.
    let mids: Vec<&String> = kinds(&lines, "notify")
        .into_iter()
        .filter(|l| l.contains("swing.mid"))
        .collect();
    assert!(
        !mids.iter().any(|l| l.contains("\"entity\":\"dimmer\"")),
        "{mids:?}"
    );
    assert!(
        mids.iter().any(|l| l.contains("\"entity\":\"seeker\"")),
        "{mids:?}"
    );
    // `notifies: All`: both clips of the blend fire; `Silent`: neither.
    let from = |who: &str, clip: &str| {
        lines
            .iter()
            .filter(|l| l.contains(&format!("\"entity\":\"{who}\"")))
            .filter(|l| l.contains(&format!("\"clip\":\"{clip}\"")))
            .count()
    };
    assert!(from("chorus", "steps") > 0 && from("chorus", "swing") > 0);
    assert!(get("chorus", "hit").starts_with("bE"), "{edges:?}");
    assert!(
        mids.iter().any(|l| l.contains("\"entity\":\"chorus\"")),
        "{mids:?}"
    );
    assert_eq!(from("mute", "steps") + from("mute", "swing"), 0);
}

/// The ticks in which `who`'s notify `event` fired.
fn notify_ticks(lines: &[String], who: &str, event: &str) -> Vec<u64> {
    kinds(lines, "notify")
        .into_iter()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["entity"] == who && v["event"] == event)
        .map(|v| v["tick"].as_u64().unwrap())
        .collect()
}

#[test]
fn no_drift_a_marker_at_one_and_a_half_seconds_fires_in_tick_90() {
    let lines = check("no_drift.scene.ron", &["--ticks", "160"]);
    let mark = "animseq::late.mark";
    // (89/60, 90/60] holds 1.5; so do (44/60·2, 45/60·2], 0.5 + (59/60, 60/60] after the
    // pause, and 0.5 + ((119/60, 120/60])·0.5 after the speed change in tick 31.
    assert_eq!(notify_ticks(&lines, "plain", mark), [90]);
    assert_eq!(notify_ticks(&lines, "fast", mark), [45, 135]);
    assert_eq!(notify_ticks(&lines, "rested", mark), [120]);
    assert_eq!(notify_ticks(&lines, "shifted", mark), [150]);
}

#[test]
fn play_starts_a_clip_at_an_offset_and_opens_its_windows() {
    let lines = check("play_at.scene.ron", &["--dt", "0.05", "--ticks", "30"]);
    let edges = window_edges(&lines);
    let get = |who: &str, w: &str| {
        edges
            .get(&(who.to_string(), format!("animseq::swing.{w}")))
            .cloned()
            .unwrap_or_default()
    };
    let first = |who: &str, w: &str| -> serde_json::Value {
        kinds(&lines, "window")
            .into_iter()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .find(|v| v["entity"] == who && v["event"] == format!("animseq::swing.{w}"))
            .unwrap_or_else(|| panic!("no {w} edge of {who}"))
    };
    // Started at 0.4 in tick 6 (time 0.25): `hit` and `whole` open at once, at clip time 0.4.
    for w in ["hit", "whole"] {
        let b = first("late", w);
        assert_eq!(
            (b["edge"].as_str(), b["tick"].as_u64()),
            (Some("begin"), Some(6)),
            "{b}"
        );
        assert_eq!(b["clip_time"], 0.4, "{b}");
    }
    assert!(get("late", "hit").starts_with("bE"), "{edges:?}");
    assert!(get("fresh", "whole").starts_with("b"), "{edges:?}");
    assert_eq!(first("fresh", "whole")["tick"], 1);
    // Restarted inside `hit` in tick 7: the new instance opens `whole` at 0.9 (not `hit`)
    // while the old one fades out; in tick 8 the new one completes `whole` and opens it again
    // at its loop, and the old instance's windows end cut short (its weight reached 0).
    assert_eq!(first("again", "whole")["tick"], 1);
    assert!(get("again", "hit").starts_with("bx"), "{edges:?}");
    assert!(get("again", "whole").starts_with("bbEbx"), "{edges:?}");
    // The computed 7.5 s is clamped to the clip's end; NaN is refused with an error record.
    let errors: Vec<&String> = kinds(&lines, "error");
    assert!(
        errors
            .iter()
            .any(|l| l.contains("graph") && l.contains("the time must be finite")),
        "{errors:?}"
    );
    // Begins and ends strictly alternate on every target where one instance holds a window.
    assert_alternate(&edges, &["again"]);
}

#[test]
fn error_play_at_a_negative_time() {
    check("err/play_at.scene.ron", &[]);
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
fn entity_payload_values_reach_the_handler() {
    let lines = check(
        "payload_entity.scene.ron",
        &["--dt", "0.01", "--ticks", "3"],
    );
    // The relay sends `custom::relayed` to the payload's entity: the bell, then the gong.
    let logs: Vec<String> = kinds(&lines, "log")
        .into_iter()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["entity"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(logs, ["bell", "gong"], "{lines:#?}");
}

#[test]
fn scene_vars_and_typed_payloads() {
    let lines = check("wiring.scene.ron", &["--dt", "0.01", "--ticks", "2"]);
    // The guard's graph starts with the scene's values and sends them twice; the scene's first
    // `Send` carries none (the fields read their defaults), its second carries two of three.
    let logs: Vec<&String> = kinds(&lines, "log");
    assert_eq!(logs.len(), 4, "{lines:#?}");
    assert!(logs[0].contains("\"hit for 0.0\""), "{}", logs[0]);
    assert!(logs[1].contains("\"hit for 12.5\""), "{}", logs[1]);
    assert!(logs[3].contains("\"hit for 7.0\""), "{}", logs[3]);
    let end = kinds(&lines, "end");
    assert!(end[1].contains("\"health\":68.0"), "{}", end[1]);
    assert!(end[1].contains("\"last_from\":\"scene\""), "{}", end[1]);
    assert!(end[1].contains("\"last_critical\":false"), "{}", end[1]);
    assert!(end[0].contains("\"victim\":\"dummy\""), "{}", end[0]);
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
fn every_animator_feature_at_once() {
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
fn anim_nodes_on_an_animator_without_a_state_machine() {
    check("anim_commands.scene.ron", &["--dt", "0.25", "--ticks", "2"]);
}

#[test]
fn state_machine_transitions_and_requests() {
    let lines = check(
        "sm_transitions.scene.ron",
        &["--dt", "0.05", "--ticks", "50"],
    );
    let states: Vec<String> = kinds(&lines, "state")
        .iter()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            format!(
                "{}:{}->{}",
                v["tick"],
                v["from"].as_str().unwrap(),
                v["to"].as_str().unwrap()
            )
        })
        .collect();
    // go=1 at t=0.65 (tick 14) fires a->b; SetState("b") at t=1.0 is the active state:
    // nothing; go=0 at 1.2 (tick 25): b->a; SetState("once") at 1.5 (tick 31); `short` lasts
    // 0.5 s at speed 1, so `once` is finished after tick 40 and leaves in tick 41.
    assert_eq!(states, ["14:a->b", "25:b->a", "31:a->once", "41:once->a"]);
    // The graph's request for the unknown state `nope` is refused: nothing changes (no state
    // line at tick 22) and its `ok` output is false.
    assert!(kinds(&lines, "error").is_empty());
    let end = kinds(&lines, "end");
    assert!(
        end[0].contains(r#""ask_state":{"want":"nope","accepted":false}"#),
        "{end:?}"
    );
    // During a->b's 0.2 s crossfade (ticks 14..17) both states' clips fire: b's `short` starts
    // (s0 at 0) in tick 14; a's `steps` crosses b at 0.75 in tick 15 (0.70 → 0.75).
    let at = |tick: u32, clip: &str| {
        kinds(&lines, "notify").iter().any(|l| {
            l.contains(&format!("\"tick\":{tick},")) && l.contains(&format!("\"clip\":\"{clip}\""))
        })
    };
    assert!(at(14, "short") && at(15, "steps"));
    assert!(lines.last().unwrap().contains("\"state\":\"a\""));
}

#[test]
fn blend_tree_fires_only_the_heaviest_clip() {
    let lines = check("sm_blend.scene.ron", &["--dt", "0.05", "--ticks", "60"]);
    let notifies = kinds(&lines, "notify");
    // Before t = 1.0 only `steps` (weight 0.75) fires; from t = 1.0 to 2.0 only `short`.
    for l in &notifies {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        let t = v["time"].as_f64().unwrap();
        let clip = v["clip"].as_str().unwrap();
        let expect = if (1.0 - 1e-9..2.0 - 1e-9).contains(&t) {
            "short"
        } else {
            "steps"
        };
        assert_eq!(clip, expect, "{l}");
    }
}

#[test]
fn root_motion_moves_entities_across_wraps() {
    let lines = check("root_motion.scene.ron", &["--dt", "0.05", "--ticks", "30"]);
    let end = kinds(&lines, "end");
    // 30 ticks × 0.05 s = 1.5 s at 2 m/s along +Z.
    assert!(end[0].contains("\"position\":[0.0,0.0,3.0]"), "{}", end[0]);
    assert!(end[1].contains("\"position\":[1.0,0.0,-6.0]"), "{}", end[1]);
    assert!(end[2].contains("\"position\":[0.0,0.0,5.0]"), "{}", end[2]);
    let v: serde_json::Value = serde_json::from_str(end[3]).unwrap();
    let yaw = v["yaw"].as_f64().unwrap();
    assert!(
        (yaw - 3.0 * std::f64::consts::FRAC_PI_4).abs() < 1e-3,
        "{yaw}"
    );
}

#[test]
fn bad_animation_input_has_defined_behaviour() {
    let lines = check("bad_input.scene.ron", &["--dt", "0.05", "--ticks", "20"]);
    let end = kinds(&lines, "end");
    // x = -1e30: steps alone (no root track) for 0.5 s; x = 1e30: tail alone, 0.5 s at 1 m/s.
    assert!(end[0].contains("\"position\":[0.5,0.0,0.0]"), "{}", end[0]);
    assert!(
        !lines
            .iter()
            .any(|l| l.contains("NaN") || l.contains("null,"))
    );
}

#[test]
fn state_machine_in_reverse() {
    let lines = check("sm_reverse.scene.ron", &["--dt", "0.05", "--ticks", "20"]);
    let n: Vec<String> = kinds(&lines, "notify")
        .iter()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            format!("{}:{}", v["tick"], v["event"].as_str().unwrap())
        })
        .collect();
    // -0.05 per tick from 0, as with the default clip (`reverse.scene.ron`): starting at 0
    // backwards meets `end` (1.0 of cycle -1) at once, b (unwrapped -0.25) in tick 5, a (-0.75)
    // in tick 15, and unwrapped -1.0 (zero of cycle -1, end of cycle -2) in tick 20.
    assert_eq!(
        n,
        [
            "1:animseq::steps.end",
            "5:animseq::steps.b",
            "15:animseq::steps.a",
            "20:animseq::steps.zero",
            "20:animseq::steps.end"
        ]
    );
}

/// The `end` line's position of entity `name`.
fn end_position(lines: &[String], name: &str) -> [f64; 3] {
    let line = kinds(lines, "end")
        .into_iter()
        .find(|l| l.contains(&format!("\"entity\":\"{name}\"")))
        .unwrap_or_else(|| panic!("no end line for {name}"));
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    let p = v["position"].as_array().unwrap();
    [0, 1, 2].map(|i| p[i].as_f64().unwrap())
}

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-5
}

#[test]
fn retargeting_scales_hips_motion_by_the_leg_length_ratio() {
    let lines = check("retarget.scene.ron", &["--dt", "0.05", "--ticks", "30"]);
    // 30 × 0.05 s = 1.5 s at 2 m/s along +Z: 3 m un-retargeted. small.skel's legs are
    // 0.25 + 0.25 = 0.5 long, tall.skel's (and mixamo.skel's) 0.5 + 0.5 = 1.0: ratio 0.5.
    let tall = end_position(&lines, "tall");
    let plain = end_position(&lines, "plain");
    assert!(
        near(tall[2], 3.0) && near(plain[2], 3.0),
        "{tall:?} {plain:?}"
    );
    for (name, x) in [("small", 2.0), ("found", 3.0), ("mixamo", 4.0)] {
        let p = end_position(&lines, name);
        assert!(near(p[0], x) && near(p[2], 1.5), "{name}: {p:?}");
        assert!(near(p[2] / tall[2], 0.5), "{name}: {p:?}");
    }
    // Without the bone_map the mixamo hips bind to nothing: no root motion.
    assert_eq!(end_position(&lines, "unmapped"), [5.0, 0.0, 0.0]);
    // Markers are unchanged by retargeting: every entity fires `step` (clip time 0.5) in the
    // ticks ending at 0.5 s and 1.5 s.
    for name in ["tall", "plain", "small", "found", "mixamo", "unmapped"] {
        let ticks: Vec<u64> = kinds(&lines, "notify")
            .iter()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|v| v["entity"] == name)
            .map(|v| v["tick"].as_u64().unwrap())
            .collect();
        assert_eq!(ticks, [10, 30], "{name}");
    }
}

#[test]
fn broken_source_skeletons_warn_and_play_by_name() {
    let lines = check(
        "retarget_broken.scene.ron",
        &["--dt", "0.05", "--ticks", "30"],
    );
    assert!(near(end_position(&lines, "missing")[2], 3.0));
    assert!(near(end_position(&lines, "broken")[2], 3.0));
    assert_eq!(end_position(&lines, "rootless"), [2.0, 0.0, 0.0]);
    let (status, _, stderr) = sinew_run(&[
        "tests/fixtures/scenes/retarget_broken.scene.ron",
        "--assets",
        "tests/fixtures/scenes/assets",
    ]);
    assert_eq!(status, 0);
    assert_eq!(stderr.matches("warning[W0563]").count(), 2, "{stderr}");
    assert_eq!(stderr.matches("warning[E0514]").count(), 1, "{stderr}");
    assert!(
        stderr.contains("E0505: bone `hips` names unknown parent"),
        "{stderr}"
    );
}

#[test]
fn anim_set_speed_matches_the_scene_action_and_refuses_bad_speeds() {
    let lines = check("set_speed.scene.ron", &["--dt", "0.1", "--ticks", "20"]);
    let notifies = |who: &str| -> Vec<(u64, String, String, i64)> {
        kinds(&lines, "notify")
            .into_iter()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|v| v["entity"] == who)
            .map(|v| {
                (
                    v["tick"].as_u64().unwrap(),
                    v["event"].as_str().unwrap().to_string(),
                    v["clip_time"].to_string(),
                    v["cycle"].as_i64().unwrap(),
                )
            })
            .collect()
    };
    let (graph, scene) = (notifies("graph"), notifies("scene"));
    assert!(!graph.is_empty());
    assert_eq!(graph, scene, "the node and the scene action play alike");
    // Over the sped-up span (ticks 2..=11, before the reversal applies in tick 12), each
    // marker of each cycle fires exactly once: cycles 0 and 1 of the 1 s clip are complete.
    let fast: Vec<&(u64, String, String, i64)> = graph.iter().filter(|n| n.0 <= 11).collect();
    for cycle in 0..2 {
        for m in ["zero", "a", "b", "end"] {
            let ev = format!("animseq::steps.{m}");
            let hits = fast.iter().filter(|n| n.3 == cycle && n.1 == ev).count();
            assert_eq!(hits, 1, "{m} in cycle {cycle}: {fast:?}");
        }
    }
    // NaN and 1e9 are refused with `error` records on the graph's entity, nothing else.
    let errors: Vec<&String> = kinds(&lines, "error");
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors.iter().all(|l| l.contains("\"graph\"")
            && l.contains("the speed must be finite and within ±1000000"))
    );
}
