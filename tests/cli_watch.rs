//! Drives `sinew watch` for real: start it, change files on disk, read the JSON lines it prints.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

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
    /// `sinew watch PATHS... --assets ASSETS` in the folder holding ASSETS.
    fn start_with(assets: &Path, paths: &[&Path]) -> Watch {
        let mut args: Vec<&std::ffi::OsStr> = paths.iter().map(|p| p.as_os_str()).collect();
        args.push("--assets".as_ref());
        args.push(assets.as_os_str());
        Watch::start_in(assets.parent().unwrap(), &args)
    }

    /// `sinew watch --format json ARGS…` in `dir`.
    fn start_in<S: AsRef<std::ffi::OsStr>>(dir: &Path, args: &[S]) -> Watch {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sinew"))
            .args(["watch", "--format", "json"])
            .args(args)
            .current_dir(dir)
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

    /// Nothing more within `d` (the watch is idle).
    fn quiet(&self, d: Duration) {
        if let Ok(v) = self.lines.recv_timeout(d) {
            panic!("unexpected line {v}");
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
    let assets = &dir.path().join("assets");
    std::fs::create_dir_all(dir.path().join("graphs")).unwrap();
    std::fs::create_dir(assets).unwrap();
    std::fs::write(assets.join("run.animseq"), seq("Run", &["a"])).unwrap();
    let w = Watch::start_in(dir.path(), &[] as &[&str]);
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
    std::fs::create_dir(dir.path().join("graphs")).unwrap();
    std::fs::write(assets.join("run.animseq"), seq("Run", &["a"])).unwrap();
    let w = Watch::start_in(dir.path(), &["--assets", "assets"]);
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

/// A little project: `assets/steps.animseq` (notifies `a`, `b`), `graphs/steps.bpg` counting
/// `a`, `scenes/hero.scene.ron` attaching it to an entity that plays the clip.
fn project(dir: &Path) {
    for d in ["assets", "graphs", "scenes"] {
        std::fs::create_dir_all(dir.join(d)).unwrap();
    }
    std::fs::write(
        dir.join("assets/steps.animseq"),
        seq_with_id("steps", "Steps", &["a", "b"]),
    )
    .unwrap();
    std::fs::write(dir.join("graphs/steps.bpg"), STEPS_GRAPH).unwrap();
    std::fs::write(
        dir.join("scenes/hero.scene.ron"),
        "Scene(entities: [(name: \"hero\", animator: Some((clips: {\"steps\": \"steps.animseq\"}, \
         default_clip: Some(\"steps\"))), graphs: [\"../graphs/steps.bpg\"])])\n",
    )
    .unwrap();
}

const STEPS_GRAPH: &str = "graph steps\n\nvar n: int = 0\n\nnode on_a = event animseq::steps.a\n\
    node get  = var.get n\nnode inc  = int.add { b = 1 }\nnode set  = var.set n\n\n\
    on_a.then -> set.exec\nget.value -> inc.a\ninc.out   -> set.value\n";

fn codes(check: &serde_json::Value) -> Vec<String> {
    check["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

/// The files a diagnostic list names, sorted and deduplicated.
fn files(check: &serde_json::Value) -> Vec<String> {
    let mut f: Vec<String> = check["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["file"].as_str().unwrap().to_string())
        .collect();
    f.sort();
    f.dedup();
    f
}

/// The next `check` line, and how long after `since` it came.
fn check_after(w: &Watch, since: Instant) -> (serde_json::Value, Duration) {
    let c = w.next("check");
    (c, since.elapsed())
}

#[test]
fn watch_rechecks_graphs_and_scenes_when_a_notify_is_renamed_and_fixed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    project(root);
    let w = Watch::start_in(root, &["graphs", "scenes"]);
    assert_eq!(w.next("ready")["events"], 2);
    let c = w.next("check");
    assert_eq!(
        (
            c["errors"].as_u64(),
            c["graphs"].as_u64(),
            c["scenes"].as_u64()
        ),
        (Some(0), Some(1), Some(1)),
        "{c}"
    );

    // Rename the notify the graph uses: red, the graph's unknown event reported once (the
    // graph checked on its own and for the scene), within a second of the save.
    let t = Instant::now();
    std::fs::write(
        root.join("assets/steps.animseq"),
        seq_with_id("steps", "Steps", &["a_renamed", "b"]),
    )
    .unwrap();
    let (c, red_after) = check_after(&w, t);
    assert_eq!(codes(&c), ["E0312", "E0562"], "{c}");
    assert_eq!(
        files(&c),
        ["graphs/steps.bpg", "scenes/hero.scene.ron"],
        "{c}"
    );
    assert!(
        red_after < Duration::from_secs(1),
        "red after {red_after:?}"
    );

    // Fix it: green again.
    let t = Instant::now();
    std::fs::write(
        root.join("assets/steps.animseq"),
        seq_with_id("steps", "Steps", &["a", "b"]),
    )
    .unwrap();
    let (c, green_after) = check_after(&w, t);
    assert_eq!(c["errors"], 0, "{c}");
    assert!(
        green_after < Duration::from_secs(1),
        "green after {green_after:?}"
    );
    eprintln!("red after {red_after:?}, green after {green_after:?}");

    // A graph edit re-checks the graph and the scene that uses it.
    std::fs::write(
        root.join("graphs/steps.bpg"),
        STEPS_GRAPH.replace("var.set n", "var.set m"),
    )
    .unwrap();
    let c = w.next("check");
    assert!(c["errors"].as_u64() > Some(0), "{c}");
    assert_eq!(
        files(&c),
        ["graphs/steps.bpg", "scenes/hero.scene.ron"],
        "{c}"
    );
    std::fs::write(root.join("graphs/steps.bpg"), STEPS_GRAPH).unwrap();
    assert_eq!(w.next("check")["errors"], 0);
    w.quiet(Duration::from_millis(600));
}

#[test]
fn watch_reports_folders_that_vanish_and_picks_them_up_when_they_return() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    project(root);
    let w = Watch::start_in(root, &["graphs", "scenes"]);
    w.next("ready");
    assert_eq!(w.next("check")["errors"], 0);

    // The graphs folder goes: it is reported, and the scene cannot read its graph.
    std::fs::rename(root.join("graphs"), root.join("graphs.away")).unwrap();
    let c = loop {
        let c = w.next("check");
        if codes(&c).contains(&"E0001".to_string()) {
            break c;
        }
    };
    assert_eq!(c["graphs"], 0, "{c}");
    assert_eq!(codes(&c), ["E0001", "E0561"], "{c}");
    assert_eq!(files(&c), ["graphs", "scenes/hero.scene.ron"], "{c}");

    // It returns: watched and checked again.
    std::fs::rename(root.join("graphs.away"), root.join("graphs")).unwrap();
    let c = loop {
        let c = w.next("check");
        if c["errors"] == 0 {
            break c;
        }
    };
    assert_eq!(
        (c["graphs"].as_u64(), c["scenes"].as_u64()),
        (Some(1), Some(1)),
        "{c}"
    );
    // ... and changes inside it are seen again.
    std::fs::write(
        root.join("graphs/steps.bpg"),
        "graph steps\nnode x = nope.nope\n",
    )
    .unwrap();
    let c = w.next("check");
    assert!(c["errors"].as_u64() > Some(0), "{c}");
    std::fs::write(root.join("graphs/steps.bpg"), STEPS_GRAPH).unwrap();
    assert_eq!(w.next("check")["errors"], 0);

    // The assets folder goes and returns.
    std::fs::rename(root.join("assets"), root.join("assets.away")).unwrap();
    let c = loop {
        let c = w.next("check");
        if files(&c).contains(&"assets".to_string()) {
            break c;
        }
    };
    assert!(codes(&c).contains(&"E0001".to_string()), "{c}");
    std::fs::rename(root.join("assets.away"), root.join("assets")).unwrap();
    let c = loop {
        let c = w.next("check");
        if c["errors"] == 0 {
            break c;
        }
    };
    assert_eq!(c["scenes"], 1);
}

#[test]
fn watch_of_scenes_follows_the_graphs_they_use_outside_the_paths() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    project(root);
    let w = Watch::start_in(root, &["scenes"]);
    w.next("ready");
    let c = w.next("check");
    assert_eq!(
        (c["errors"].as_u64(), c["graphs"].as_u64()),
        (Some(0), Some(0)),
        "{c}"
    );
    // graphs/ is not a PATH, but the scene reads graphs/steps.bpg: an edit there re-checks it.
    std::fs::write(
        root.join("graphs/steps.bpg"),
        STEPS_GRAPH.replace("steps.a", "steps.zz"),
    )
    .unwrap();
    let c = w.next("check");
    assert_eq!(codes(&c), ["E0312", "E0562"], "{c}");
    // A change elsewhere in that folder concerns nothing: no report.
    std::fs::write(root.join("graphs/notes.txt"), "hello").unwrap();
    w.quiet(Duration::from_millis(800));
    std::fs::write(root.join("graphs/steps.bpg"), STEPS_GRAPH).unwrap();
    let c = w.next("check");
    assert_eq!(c["errors"], 0, "{c}");
}
