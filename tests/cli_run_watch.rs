//! `sinew run --watch --realtime`, for real: the binary runs a scene from a temporary folder
//! while the test edits its graph — a new log text appears while the counter keeps counting, a
//! broken graph is reported and the old one keeps running, the fix is picked up, 100 saves in
//! one second end in the last file's state, and Ctrl-C ends the run cleanly with its `end` line.

#![cfg(unix)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

fn graph(message: &str, add: &str) -> String {
    format!(
        r#"graph counter

var count: int = 0

node start = event begin_play
node hold  = flow.delay {{ seconds = 1000 }}
node tick  = event tick
node get   = var.get count
node inc   = {add} {{ b = 1 }}
node set   = var.set count
node say   = debug.log {{ message = "{message}" }}

start.then -> hold.exec
tick.then  -> set.exec
get.value  -> inc.a
inc.out    -> set.value
set.then   -> say.exec
"#
    )
}

struct Run {
    child: Child,
    lines: mpsc::Receiver<Value>,
    seen: Vec<Value>,
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
        Run {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Reads lines until `want` holds for one (returns its index in `seen`).
    fn until(&mut self, what: &str, want: impl Fn(&Value) -> bool) -> usize {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(v) => {
                    self.seen.push(v);
                    if want(self.seen.last().expect("pushed")) {
                        return self.seen.len() - 1;
                    }
                }
                Err(_) => panic!("no {what} within 60 s; saw {:#?}", self.seen),
            }
        }
    }

    /// Waits for `n` more log lines with `message`.
    fn logs(&mut self, message: &str, n: usize) -> usize {
        let mut at = 0;
        for _ in 0..n {
            at = self.until(message, |v| v["kind"] == "log" && v["message"] == message);
        }
        at
    }
}

fn kind(v: &Value) -> &str {
    v["kind"].as_str().unwrap_or("")
}

#[test]
fn watch_reloads_graphs_keeps_state_reports_failures_and_ends_on_ctrl_c() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    std::fs::create_dir(dir.join("assets")).expect("assets");
    std::fs::write(
        dir.join("s.scene.ron"),
        r#"Scene(entities: [(name: "c", graphs: ["counter.bpg"])])"#,
    )
    .expect("scene");
    let bpg = dir.join("counter.bpg");
    std::fs::write(&bpg, graph("hello", "int.add")).expect("graph");
    let mut run = Run::start(dir);
    run.logs("hello", 5);

    // 1. A new log text: the module switches, the counter keeps its value, the pending delay
    //    of the old module is dropped.
    std::fs::write(&bpg, graph("world", "int.add")).expect("edit");
    let r = run.until("reload", |v| kind(v) == "reload");
    let reload = run.seen[r].clone();
    assert_eq!(reload["file"], "counter.bpg", "{reload}");
    assert_eq!(reload["graph"], "counter", "{reload}");
    assert_eq!(reload["kept"], serde_json::json!(["count"]), "{reload}");
    assert_eq!(reload["reset"], serde_json::json!([]), "{reload}");
    assert_eq!(reload["dropped_delays"], 1, "{reload}");
    run.logs("world", 5);

    // 2. Broken: reported, and the old module keeps running.
    std::fs::write(&bpg, graph("broken", "int.nope")).expect("break");
    let f = run.until("reload_failed", |v| kind(v) == "reload_failed");
    let failed = run.seen[f].clone();
    assert_eq!(failed["file"], "counter.bpg", "{failed}");
    let diags = failed["diagnostics"].as_array().expect("diagnostics");
    assert!(diags.iter().any(|d| d["severity"] == "error"), "{failed}");
    run.logs("world", 5);

    // 3. Fixed.
    std::fs::write(&bpg, graph("again", "int.add")).expect("fix");
    run.until("reload", |v| kind(v) == "reload");
    run.logs("again", 3);

    // 4. 100 saves in one second coalesce and end in the last file's state.
    let before = run.seen.len();
    for i in 0..100 {
        let text = if i == 99 {
            "final".to_string()
        } else {
            format!("save {i}")
        };
        std::fs::write(&bpg, graph(&text, "int.add")).expect("save");
        std::thread::sleep(Duration::from_millis(10));
    }
    let first_final = run.logs("final", 1);
    run.logs("final", 10);
    let reloads = run.seen[before..]
        .iter()
        .filter(|v| kind(v) == "reload")
        .count();
    assert!(
        (1..=50).contains(&reloads),
        "{reloads} reloads for 100 saves"
    );
    assert!(
        run.seen[first_final..]
            .iter()
            .filter(|v| kind(v) == "log")
            .all(|v| v["message"] == "final"),
        "a save after the last one showed"
    );
    assert!(
        !run.seen[before..]
            .iter()
            .any(|v| kind(v) == "reload_failed"),
        "a partial save was read"
    );

    // 5. Ctrl-C: a clean end, the counter counted every tick across every reload.
    let pid = i32::try_from(run.child.id()).expect("pid");
    // SAFETY: sending a signal to our own child process.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let end = run.until("end", |v| kind(v) == "end");
    let status = run.child.wait().expect("exits");
    assert!(status.success(), "{status:?}");
    let logs = run.seen.iter().filter(|v| kind(v) == "log").count() as i64;
    let count = run.seen[end]["vars"]["counter"]["count"]
        .as_i64()
        .expect("count");
    assert_eq!(count, logs, "{}", run.seen[end]);
    let ticks: Vec<u64> = run
        .seen
        .iter()
        .filter(|v| kind(v) == "log")
        .filter_map(|v| v["tick"].as_u64())
        .collect();
    assert!(
        ticks.windows(2).all(|w| w[1] == w[0] + 1),
        "a tick was lost"
    );
}
