//! `sinew check` of scenes (`cli.md`, amended): every `.scene.ron` named or found under the
//! paths is loaded through the same library loader as `sinew run`, so `check` fails exactly
//! when `run` would refuse to start. Fixture project: `tests/fixtures/check/` (copied to a
//! temporary folder, where the FIFO and symbolic-link cases are made); one snapshot per case.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// The fixture project in a temporary folder: `proj/` (the fixture, plus `graphs/pipe.bpg`, a
/// FIFO, and `graphs/link.bpg`, a symbolic link to `../../secret.bpg`) beside `secret.bpg`.
fn project() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tempdir");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/check");
    let proj = tmp.path().join("proj");
    for dir in ["assets", "graphs", "scenes"] {
        std::fs::create_dir_all(proj.join(dir)).expect("mkdir");
        for e in std::fs::read_dir(src.join(dir)).expect("fixture folder") {
            let e = e.expect("entry");
            std::fs::copy(e.path(), proj.join(dir).join(e.file_name())).expect("copy");
        }
    }
    std::fs::write(tmp.path().join("secret.bpg"), "graph secret // TOPSECRET\n").expect("secret");
    #[cfg(unix)]
    {
        let fifo = proj.join("graphs/pipe.bpg");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).expect("path");
        // SAFETY: `c` is a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
        std::os::unix::fs::symlink("../../secret.bpg", proj.join("graphs/link.bpg"))
            .expect("symlink");
    }
    tmp
}

/// Runs `sinew ARGS` in `dir`: (status, stdout, stderr).
fn sinew(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run sinew");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `sinew check PATHS…` in the fixture project: the human report under snapshot
/// `check_scenes_NAME`, the JSON counts (`scenes`), and — for each scene path — that `check`
/// fails exactly when `sinew run` of that scene refuses to start. Returns the JSON report.
fn check(name: &str, paths: &[&str], scenes: u64) -> Value {
    let tmp = project();
    let dir = tmp.path().join("proj");
    let mut args = vec!["check"];
    args.extend_from_slice(paths);
    let (status, out, err) = sinew(&dir, &args);
    args.extend_from_slice(&["--format", "json"]);
    let (json_status, json, _) = sinew(&dir, &args);
    assert_eq!(status, json_status);
    let v: Value = serde_json::from_str(&json).expect("JSON report");
    assert_eq!(v["scenes"], scenes, "{json}");
    assert!(
        !format!("{out}{err}{json}").contains("TOPSECRET"),
        "a file outside the project was echoed"
    );
    let run_fails = paths
        .iter()
        .filter(|p| p.ends_with(".scene.ron"))
        .map(|p| sinew(&dir, &["run", p, "--ticks", "1"]).0)
        .inspect(|s| assert!(*s == 0 || *s == 1, "run exit {s}"))
        .any(|s| s != 0);
    if paths.iter().all(|p| p.ends_with(".scene.ron")) {
        assert_eq!(
            status != 0,
            run_fails,
            "check and run disagree on {paths:?}"
        );
    }
    let report = format!("status: {status}\n--- stdout\n{out}--- stderr\n{err}");
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(format!("check_scenes_{name}"), report);
    });
    v
}

fn codes(v: &Value) -> Vec<&str> {
    v["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["code"].as_str().unwrap_or_default())
        .collect()
}

#[test]
fn ok_scene_passes() {
    let v = check("ok", &["scenes/ok.scene.ron"], 1);
    assert_eq!(
        (v["errors"].as_u64(), v["graphs"].as_u64()),
        (Some(0), Some(0))
    );
}

#[test]
fn missing_files_are_errors_at_their_paths() {
    let v = check("missing_file", &["scenes/missing_file.scene.ron"], 1);
    assert_eq!(codes(&v), ["E0561", "E0561", "E0561"]);
}

#[test]
fn a_graph_that_does_not_compile() {
    let v = check("bad_graph", &["scenes/bad_graph.scene.ron"], 1);
    assert_eq!(codes(&v), ["E0312", "E0562"]);
}

#[test]
fn paths_leading_outside_the_project_are_never_read() {
    let v = check("escape", &["scenes/escape.scene.ron"], 1);
    assert_eq!(codes(&v), ["E0564", "E0564", "E0564", "E0564"]);
}

#[cfg(unix)]
#[test]
fn a_fifo_is_an_error_never_a_block() {
    let v = check("fifo", &["scenes/fifo.scene.ron"], 1);
    assert_eq!(codes(&v), ["E0561"]);
    assert!(
        v["diagnostics"][0]["message"]
            .as_str()
            .is_some_and(|m| m.ends_with("not a regular file (a FIFO)"))
    );
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_out_of_the_project_is_never_read() {
    let v = check("symlink", &["scenes/symlink.scene.ron"], 1);
    assert_eq!(codes(&v), ["E0564"]);
}

#[cfg(unix)]
#[test]
fn every_scene_under_a_folder_with_the_graphs_once() {
    // The graph check and the scenes both compile graphs/broken.bpg: its E0312 is reported once.
    let v = check("all", &["graphs", "scenes"], 18);
    assert_eq!(v["graphs"], 9);
    assert_eq!(codes(&v).iter().filter(|c| **c == "E0312").count(), 1);
}

#[test]
fn clip_slot_and_action_typos_get_suggestions_and_lists() {
    let v = check("clip_typos", &["scenes/clip_typos.scene.ron"], 1);
    assert_eq!(codes(&v), ["E0559", "E0559", "E0552"]);
    let notes = |i: usize| v["diagnostics"][i]["notes"].to_string();
    assert!(notes(0).contains("did you mean `attack`?"), "{}", notes(0));
    assert!(
        notes(1).contains("clip slots: `idle`, `attack`"),
        "{}",
        notes(1)
    );
    assert!(
        notes(2).contains("did you mean `SetState`?")
            && notes(2).contains("`SetLayerWeight(layer, weight)`")
            && notes(2).contains("`Despawn`"),
        "{}",
        notes(2)
    );
    let v = check("slot_typo", &["scenes/slot_typo.scene.ron"], 1);
    assert_eq!(codes(&v)[0], "E0518");
    let notes = v["diagnostics"][0]["notes"].to_string();
    assert!(
        notes.contains("did you mean `atack`?")
            && notes.contains("the animator's clip slots: `idle`, `atack`"),
        "{notes}"
    );
}

#[test]
fn the_sword_attack_names_exist_in_the_animator() {
    let v = check("sword", &["scenes/sword.scene.ron"], 1);
    assert_eq!(
        (v["errors"].as_u64(), v["warnings"].as_u64()),
        (Some(0), Some(0))
    );
}

#[test]
fn typos_in_actions_and_graph_literals_are_errors_with_suggestions() {
    let v = check("sword_typos", &["scenes/sword_typos.scene.ron"], 1);
    assert_eq!(
        codes(&v),
        [
            "E0567", "E0566", "E0567", "E0565", "W0521", "W0521", "E0565", "E0567", "E0566",
            "E0567"
        ]
    );
    let notes: Vec<String> = v["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            // Labels come first as `file:line:col: message` notes; then the diagnostic's own.
            let notes = d["notes"].as_array().expect("notes");
            let mut own = notes.iter().filter_map(Value::as_str);
            own.find(|n| !n.contains(": the graph is attached"))
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    for (i, want) in [
        (0, "did you mean `upper_body`?"),
        (1, "did you mean `attack`?"),
        (2, "layers: `upper_body`"),
        (3, "did you mean `attack`?"),
        (4, "did you mean `attack`?"),
        (8, "clip slots: `idle`, `attack`"),
    ] {
        assert_eq!(notes[i], want, "{i}: {notes:?}");
    }
}

#[test]
fn scene_vars_of_the_right_names_and_types_pass() {
    let v = check("vars_ok", &["scenes/vars_ok.scene.ron"], 1);
    assert_eq!(codes(&v), Vec::<&str>::new());
}

#[test]
fn scene_vars_written_wrong_are_errors_at_their_tokens() {
    let v = check("vars_shape", &["scenes/vars_shape.scene.ron"], 1);
    assert_eq!(
        codes(&v),
        ["E0557", "E0552", "E0552", "E0554", "E0553", "E0558"]
    );
}

#[test]
fn scene_vars_the_graph_lacks_or_mistypes_are_errors() {
    let v = check("vars_names", &["scenes/vars_names.scene.ron"], 1);
    assert_eq!(codes(&v), ["E0569", "E0570", "E0570", "E0569"]);
    let notes = first_notes(&v);
    assert_eq!(notes[0], "did you mean `threshold`?");
    assert_eq!(notes[1], "write `Float(…)`");
    assert!(
        notes[3].starts_with("its variables: `threshold: float`"),
        "{notes:?}"
    );
}

#[test]
fn a_scenes_graphs_must_agree_on_custom_event_payloads() {
    let v = check(
        "payload_conflict",
        &["scenes/payload_conflict.scene.ron"],
        1,
    );
    assert_eq!(codes(&v), ["E0324", "E0324"]);
}

#[test]
fn requests_an_animator_cannot_serve_are_errors() {
    let v = check(
        "names_no_machine",
        &["scenes/names_no_machine.scene.ron"],
        1,
    );
    assert_eq!(codes(&v), ["E0560", "E0567", "E0567", "E0565", "E0565"]);
}

#[test]
fn play_requests_the_animator_would_refuse_are_errors() {
    let v = check("play_at", &["scenes/play_at.scene.ron"], 1);
    assert_eq!(codes(&v), ["E0568", "E0566", "E0558"]);
}

#[cfg(unix)]
#[test]
fn run_of_a_fifo_scene_is_an_io_error_never_a_block() {
    let tmp = project();
    let dir = tmp.path().join("proj");
    let (status, out, err) = sinew(&dir, &["run", "graphs/pipe.bpg"]);
    assert_eq!((status, out.as_str()), (2, ""));
    assert_eq!(
        err,
        "error: cannot read graphs/pipe.bpg: not a regular file (a FIFO)\n"
    );
    let (status, out, _) = sinew(
        &dir,
        &[
            "check",
            "scenes/ok.scene.ron",
            "--assets",
            "graphs/pipe.bpg",
        ],
    );
    assert_eq!(status, 2, "{out}");
}

#[test]
fn send_payload_values_written_wrong_are_errors_at_their_tokens() {
    let v = check(
        "send_payload_shape",
        &["scenes/send_payload_shape.scene.ron"],
        1,
    );
    assert_eq!(codes(&v), ["E0557", "E0552", "E0552"]);
}

#[test]
fn send_payload_values_the_event_lacks_or_mistypes_are_errors() {
    let v = check(
        "send_payload_names",
        &["scenes/send_payload_names.scene.ron"],
        1,
    );
    assert_eq!(codes(&v), ["E0571", "E0572", "E0571"]);
    let notes = first_notes(&v);
    assert_eq!(
        notes,
        [
            "did you mean `amount`?",
            "write `Float(…)`",
            "no graph of this scene sends or handles `custom::nothing`"
        ]
    );
}

/// Each diagnostic's first note ("" when it has none), in report order.
fn first_notes(v: &Value) -> Vec<&str> {
    v["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["notes"][0].as_str().unwrap_or_default())
        .collect()
}
