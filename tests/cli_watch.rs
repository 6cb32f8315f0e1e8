//! Drives `sinew watch` for real: start it, change files on disk, read the JSON lines it prints.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

struct Watch {
    child: Child,
    lines: Receiver<serde_json::Value>,
    errors: Receiver<String>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Watch {
    fn start(assets: &Path) -> Watch {
        Watch::start_with(assets, &[])
    }

    /// `sinew watch PATHS... --assets ASSETS`.
    fn start_with(assets: &Path, paths: &[&Path]) -> Watch {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sinew"))
            .arg("watch")
            .args(paths)
            .args(["--format", "json", "--assets"])
            .arg(assets)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start sinew watch");
        let out = child.stdout.take().unwrap();
        let err = child.stderr.take().unwrap();
        let (etx, errors) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                if etx.send(line).is_err() {
                    break;
                }
            }
        });
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                let v: serde_json::Value = serde_json::from_str(&line).expect("each line is JSON");
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        Watch {
            child,
            lines: rx,
            errors,
        }
    }

    /// The next stderr line containing `text`, within a generous timeout.
    fn next_error(&self, text: &str) -> String {
        loop {
            let l = self
                .errors
                .recv_timeout(Duration::from_secs(20))
                .unwrap_or_else(|_| panic!("no stderr line with `{text}`"));
            if l.contains(text) {
                return l;
            }
        }
    }

    /// The next line of the given kind (skipping others), within a generous timeout.
    fn next(&self, kind: &str) -> serde_json::Value {
        loop {
            let v = self
                .lines
                .recv_timeout(Duration::from_secs(20))
                .unwrap_or_else(|_| panic!("no `{kind}` line"));
            if v["kind"] == kind {
                return v;
            }
        }
    }

    /// The next palette line that is not empty.
    fn next_palette(&self) -> serde_json::Value {
        loop {
            let v = self.next("palette");
            let empty = ["added", "removed", "changed"]
                .iter()
                .all(|k| v[k].as_array().is_some_and(|a| a.is_empty()));
            if !empty {
                return v;
            }
        }
    }
}

fn seq_with_id(id: &str, name: &str, notifies: &[&str]) -> String {
    let list: Vec<String> = notifies
        .iter()
        .map(|n| format!("(id: \"{n}\", name: \"{n}\", time: 0.5)"))
        .collect();
    format!(
        "AnimSeq(format: 2, id: \"{id}\", name: \"{name}\", duration: 1.0, tracks: [], notifies: [{}])\n",
        list.join(", ")
    )
}

fn seq(name: &str, notifies: &[&str]) -> String {
    seq_with_id("S", name, notifies)
}

fn strings(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn watch_reports_palette_deltas_for_real_file_changes() {
    let dir = tempfile::tempdir().unwrap();
    let assets = dir.path();
    std::fs::write(assets.join("run.animseq"), seq("Run", &["a"])).unwrap();
    let w = Watch::start(assets);
    assert_eq!(w.next("ready")["events"], 1);
    let check = w.next("check");
    assert_eq!(check["errors"], 0);

    // create
    std::fs::write(
        assets.join("walk.animseq"),
        seq_with_id("W", "Walk", &["w"]),
    )
    .unwrap();
    let p = w.next_palette();
    assert_eq!(strings(&p["added"]), ["event animseq::W.w"]);

    // modify the way editors save: write a temporary file, rename it over the original
    std::fs::write(assets.join(".run.animseq.tmp"), seq("Sprint", &["a", "b"])).unwrap();
    std::fs::rename(assets.join(".run.animseq.tmp"), assets.join("run.animseq")).unwrap();
    let p = w.next_palette();
    assert_eq!(strings(&p["added"]), ["event animseq::S.b"]);
    assert_eq!(
        strings(&p["changed"]),
        ["event animseq::S.a"],
        "display name changed once"
    );
    assert!(p["removed"].as_array().unwrap().is_empty());

    // a copy quarantines the shared identities and the check reports the conflict
    std::fs::copy(assets.join("run.animseq"), assets.join("copy.animseq")).unwrap();
    let p = w.next_palette();
    assert_eq!(
        strings(&p["removed"]),
        ["event animseq::S.a", "event animseq::S.b"]
    );
    let check = w.next("check");
    assert_eq!(check["errors"], 2, "{check}");

    // delete the copy: back again
    std::fs::remove_file(assets.join("copy.animseq")).unwrap();
    let p = w.next_palette();
    assert_eq!(
        strings(&p["added"]),
        ["event animseq::S.a", "event animseq::S.b"]
    );

    // delete
    std::fs::remove_file(assets.join("walk.animseq")).unwrap();
    let p = w.next_palette();
    assert_eq!(strings(&p["removed"]), ["event animseq::W.w"]);
}

#[test]
fn watch_rearms_when_the_assets_folder_is_deleted_and_created_again() {
    let dir = tempfile::tempdir().unwrap();
    let assets = dir.path().join("assets");
    std::fs::create_dir(&assets).unwrap();
    std::fs::write(assets.join("run.animseq"), seq("Run", &["a"])).unwrap();
    let w = Watch::start(&assets);
    assert_eq!(w.next("ready")["events"], 1);

    std::fs::remove_dir_all(&assets).unwrap();
    let p = w.next_palette();
    assert_eq!(strings(&p["removed"]), ["event animseq::S.a"]);
    assert!(
        w.next_error("is gone")
            .contains("watching for it to come back")
    );

    // A new folder of the same name, with a file already in it before the watch is armed.
    std::fs::create_dir(&assets).unwrap();
    std::fs::write(
        assets.join("walk.animseq"),
        seq_with_id("W", "Walk", &["w"]),
    )
    .unwrap();
    w.next_error("is back");
    let p = w.next_palette();
    assert_eq!(strings(&p["added"]), ["event animseq::W.w"]);

    // The new folder is watched: a later change is reported like any other.
    std::fs::write(assets.join("run.animseq"), seq("Run", &["a"])).unwrap();
    let p = w.next_palette();
    assert_eq!(strings(&p["added"]), ["event animseq::S.a"]);
}

#[test]
fn watch_rearms_a_graph_folder_and_names_it_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let assets = dir.path().join("assets");
    let graphs = dir.path().join("graphs");
    std::fs::create_dir(&assets).unwrap();
    std::fs::create_dir(&graphs).unwrap();
    std::fs::write(assets.join("run.animseq"), seq("Run", &["a"])).unwrap();
    let w = Watch::start_with(&assets, &[&graphs]);
    assert_eq!(w.next("ready")["events"], 1);
    std::fs::remove_dir_all(&graphs).unwrap();
    let gone = w.next_error("is gone");
    assert!(
        gone.contains("the folder") && !gone.contains("assets folder"),
        "{gone}"
    );
    std::fs::create_dir(&graphs).unwrap();
    w.next_error("is back");
    // The new folder is watched: a graph with an unknown event shows up in the next check.
    std::fs::write(
        graphs.join("g.bpg"),
        "graph g\n\nnode e = event animseq::S.nope\n",
    )
    .unwrap();
    loop {
        let c = w.next("check");
        if c["errors"].as_u64().unwrap_or(0) > 0 {
            break;
        }
    }
}
