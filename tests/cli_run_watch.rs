//! `sinew run --watch --realtime`, for real: the binary runs a scene from a temporary folder
//! while the test edits its files (`support/watch.rs`, the scenario the Bevy plugin goes
//! through too) — a new log text appears while the counter keeps counting, a broken graph is
//! reported and the old one keeps running, the fix is picked up, 100 saves in one second end
//! in the last file's state, every hostile seed of the fuzz corpora saved over the graph, the
//! clip and the scene is reported without ending the run, and Ctrl-C ends the run cleanly with
//! its `end` line.

#![cfg(unix)]

#[path = "support/watch.rs"]
mod watch;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;
use watch::{Feed, Session, kind};

/// `sinew run s.scene.ron --watch --realtime` in `dir`, its JSON trace lines as a [`Feed`].
struct Run {
    child: Child,
    lines: mpsc::Receiver<Value>,
}

impl Run {
    fn start(dir: &Path) -> Run {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sinew"))
            .args([
                "run",
                "s.scene.ron",
                "--assets",
                "assets",
                "--watch",
                "--realtime",
                "--dt",
                "0.02",
                "--format",
                "json",
            ])
            .current_dir(dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("sinew starts");
        let out = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                let v: Value = serde_json::from_str(&line).expect("one JSON object per line");
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        Run { child, lines }
    }
}

impl Feed for Run {
    fn next(&mut self, left: Duration) -> Option<Value> {
        self.lines.recv_timeout(left).ok()
    }
}

/// Ctrl-C: a clean end with the `end` line; returns it.
fn ctrl_c(s: &mut Session<Run>) -> Value {
    let pid = i32::try_from(s.feed.child.id()).expect("pid");
    // SAFETY: sending a signal to our own child process.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let end = s.until("end", |v| kind(v) == "end");
    let status = s.feed.child.wait().expect("exits");
    assert!(status.success(), "{status:?}");
    s.seen[end].clone()
}

#[test]
fn watch_reloads_graphs_keeps_state_reports_failures_and_ends_on_ctrl_c() {
    let tmp = tempfile::tempdir().expect("tempdir");
    watch::project(tmp.path());
    let mut s = Session::new(Run::start(tmp.path()));
    watch::edit_break_fix(&mut s, tmp.path());
    watch::burst(&mut s, tmp.path());
    // The counter counted every tick across every reload.
    let end = ctrl_c(&mut s);
    let count = end["vars"]["counter"]["count"].as_i64().expect("count");
    assert_eq!(count, s.log_count() as i64, "{end}");
    s.assert_every_tick_logged();
}

#[test]
fn watch_survives_every_hostile_seed_of_the_fuzz_corpora() {
    let tmp = tempfile::tempdir().expect("tempdir");
    watch::project(tmp.path());
    let mut s = Session::new(Run::start(tmp.path()));
    s.logs("hello", 3);
    watch::hostile(&mut s, tmp.path());
    let end = ctrl_c(&mut s);
    assert_eq!(end["entity"], "c", "{end}");
}

/// Issue #24: removing a graph's folder is reported and, when the folder comes back, the run
/// watches it again (a watch dies with its folder; before, later edits were never reloaded).
#[test]
fn watch_resumes_after_a_graph_folder_is_removed_and_created_again() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    std::fs::create_dir(dir.join("assets")).expect("assets");
    let scene = watch::SCENE.replace("\"counter.bpg\"", "\"g/counter.bpg\"");
    std::fs::write(dir.join("s.scene.ron"), scene).expect("scene");
    std::fs::write(dir.join("assets/loop.animseq"), watch::clip(1.0)).expect("clip");
    std::fs::create_dir(dir.join("g")).expect("g");
    let graph = |m: &str| watch::graph(m, "int.add");
    std::fs::write(dir.join("g/counter.bpg"), graph("hello")).expect("graph");
    let mut s = Session::new(Run::start(dir));
    s.logs("hello", 3);
    std::fs::remove_dir_all(dir.join("g")).expect("remove g");
    s.until("the removal reported", |v| {
        matches!(kind(v), "reload_failed" | "error")
    });
    std::fs::create_dir(dir.join("g")).expect("g again");
    std::fs::write(dir.join("g/counter.bpg"), graph("back")).expect("graph again");
    s.logs("back", 3);
    // Edits after the return are reloaded too.
    std::fs::write(dir.join("g/counter.bpg"), graph("later")).expect("edit");
    s.logs("later", 3);
    ctrl_c(&mut s);
}

/// Issue #25: the run watches the folders its load recorded reading from (the workspace's
/// dependencies), not a list of its own: a clip reached through `..` from the assets folder
/// (`clips/`, neither the assets folder nor the scene's or a graph's folder) reloads when it
/// changes. Before, its folder was never watched and the edit was never seen.
#[test]
fn watch_follows_a_file_reached_through_dot_dot() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    std::fs::create_dir(dir.join("assets")).expect("assets");
    std::fs::create_dir(dir.join("clips")).expect("clips");
    let scene = watch::SCENE.replace("\"loop.animseq\"", "\"../clips/loop.animseq\"");
    std::fs::write(dir.join("s.scene.ron"), scene).expect("scene");
    std::fs::write(dir.join("clips/loop.animseq"), watch::clip(1.0)).expect("clip");
    std::fs::write(dir.join("counter.bpg"), watch::graph("hello", "int.add")).expect("graph");
    let mut s = Session::new(Run::start(dir));
    s.logs("hello", 3);
    std::fs::write(dir.join("clips/loop.animseq"), watch::clip(2.0)).expect("edit");
    let r = s.until("the clip's reload", |v| {
        kind(v) == "reload" && v.to_string().contains("loop.animseq")
    });
    assert!(
        s.seen[r].to_string().contains("clips/loop.animseq"),
        "{}",
        s.seen[r]
    );
    ctrl_c(&mut s);
}
