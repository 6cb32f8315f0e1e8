//! Measures `sinew lsp` as an editor uses it (`docs/benchmarks.md`, "Language server"): a
//! generated project of 10,000 `.animseq` (10 notifies each: 100,000 catalog events) and 1,000
//! graphs, plus one 1,000-node graph; the time from a change to its diagnostics, completion
//! times, and the server's peak memory (`VmHWM` of its `/proc/PID/status`) once every graph is
//! open. Drives the real binary over stdio with the tests' JSON-RPC client.
//!
//! `cargo build --release --bin sinew && cargo run --release --example lsp_measure [-- BIN]`
//! (BIN: the `sinew` to measure; default: the one beside this example's folder).

#[path = "../tests/support/lsp_client.rs"]
mod client;

use client::{Client, uri};
use serde_json::json;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const SEQUENCES: usize = 10_000;
const NOTIFIES: usize = 10;
const GRAPHS: usize = 1_000;
const RUNS: usize = 30;

fn sequence(i: usize) -> String {
    let mut s = format!(
        "AnimSeq(\n    format: 3,\n    id: \"seq-{i:05}\",\n    name: \"Séquence {i} 🏃\",\n    duration: 1.0,\n    tracks: [],\n    notifies: [\n"
    );
    for n in 0..NOTIFIES {
        writeln!(
            s,
            "        (id: \"n{n}\", name: \"Pas {n} 👣\", time: {:?}, fields: [(\"surface\", String(\"herbe\")), (\"volume\", Float(0.8))]),",
            n as f64 / NOTIFIES as f64
        )
        .unwrap();
    }
    s.push_str("    ],\n)\n");
    s
}

/// A graph of about 30 nodes handling one catalog event.
fn typical(k: usize) -> String {
    let mut s = format!("graph g{k}\n\nvar steps: int = 0\nvar speed: float = 1.5\n\n");
    writeln!(
        s,
        "node step = event animseq::seq-{:05}.n{}",
        k * 7 % SEQUENCES,
        k % NOTIFIES
    )
    .unwrap();
    s.push_str("node tick = event tick\nnode get = var.get steps\nnode inc = int.add { b = 1 }\nnode set = var.set steps\n");
    for i in 0..12 {
        writeln!(s, "node log{i} = debug.log {{ message = \"pas {i} 👣\" }}").unwrap();
        writeln!(s, "node add{i} = int.add {{ a = {i}, b = 2 }}").unwrap();
    }
    s.push_str("\nstep.then -> set.exec\nget.value -> inc.a\ninc.out -> set.value\nset.then -> log0.exec\n");
    for i in 0..11 {
        writeln!(s, "log{i}.then -> log{}.exec", i + 1).unwrap();
    }
    s
}

/// A graph of `n` nodes: chains of tick → log ← concat ← from_int ← add.
fn big_graph(n: usize) -> String {
    let mut s = String::from("graph big\n\nvar total: int = 0\n\nnode tick = event tick\n");
    let groups = n / 4;
    for i in 0..groups {
        writeln!(s, "node log{i} = debug.log").unwrap();
        writeln!(s, "node cat{i} = string.concat {{ a = \"pas 👣 \" }}").unwrap();
        writeln!(s, "node str{i} = string.from_int").unwrap();
        writeln!(s, "node add{i} = int.add {{ a = {i}, b = 1 }}").unwrap();
    }
    s.push('\n');
    writeln!(s, "tick.then -> log0.exec").unwrap();
    for i in 0..groups {
        writeln!(s, "add{i}.out -> str{i}.a").unwrap();
        writeln!(s, "str{i}.out -> cat{i}.b").unwrap();
        writeln!(s, "cat{i}.out -> log{i}.message").unwrap();
        if i + 1 < groups {
            writeln!(s, "log{i}.then -> log{}.exec", i + 1).unwrap();
        }
    }
    s
}

fn generate(root: &Path) {
    for i in 0..SEQUENCES {
        let dir = root.join(format!("assets/group{:03}", i / 100));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("s{i:05}.animseq")), sequence(i)).unwrap();
    }
    let graphs = root.join("graphs");
    std::fs::create_dir_all(&graphs).unwrap();
    for k in 0..GRAPHS {
        std::fs::write(graphs.join(format!("g{k:04}.bpg")), typical(k)).unwrap();
    }
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

/// Median and maximum of timings.
fn stats(mut v: Vec<Duration>) -> String {
    v.sort();
    format!("median {}, max {}", ms(v[v.len() / 2]), ms(v[v.len() - 1]))
}

fn status_kib(pid: u32, field: &str) -> u64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn main() {
    let bin = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let exe = std::env::current_exe().unwrap();
            exe.parent().unwrap().parent().unwrap().join("sinew")
        });
    let bin = std::path::absolute(bin).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("projet");
    let t = Instant::now();
    generate(&root);
    println!(
        "generated {SEQUENCES} .animseq and {GRAPHS} graphs in {}",
        ms(t.elapsed())
    );
    println!(
        "load average: {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );

    let t = Instant::now();
    let mut c = Client::initialize(Client::start_with(&bin), &root, json!({}));
    let _ = c.request("shutdown-probe/unknown", json!({})); // answered once the scan is done
    println!(
        "initialize (catalog scan of {} events): {}",
        SEQUENCES * NOTIFIES,
        ms(t.elapsed())
    );

    // Every graph open.
    let t = Instant::now();
    for k in 0..GRAPHS {
        let path = root.join(format!("graphs/g{k:04}.bpg"));
        let text = std::fs::read_to_string(&path).unwrap();
        let d = c.open(&uri(&path), &text);
        assert!(d.iter().all(|d| d["severity"] != 1), "g{k}: {d:?}");
    }
    println!("opened {GRAPHS} graphs: {}", ms(t.elapsed()));

    // Diagnostics of a 1,000-node graph after a change.
    let big = big_graph(1000);
    let big_uri = uri(&root.join("graphs/big.bpg"));
    c.open(&big_uri, &big);
    let mut times = Vec::new();
    for v in 0..RUNS {
        let text = big.replace("var total: int = 0", &format!("var total: int = {v}"));
        let t = Instant::now();
        let d = c.change(&big_uri, 2 + v as i64, &text);
        times.push(t.elapsed());
        assert!(d.iter().all(|d| d["severity"] != 1), "{d:?}");
    }
    println!(
        "diagnostics of a 1,000-node graph after a change: {}",
        stats(times)
    );

    // Completion at the end of the big graph.
    let mut version = 100;
    let mut complete = |c: &mut Client, extra: &str| {
        version += 1;
        let text = format!("{big}{extra}");
        c.change(&big_uri, version, &text);
        let line = text.lines().count() - 1;
        let character = extra.encode_utf16().count();
        let mut times = Vec::new();
        let mut n = 0;
        for _ in 0..RUNS {
            let t = Instant::now();
            let r = c.call(
                "textDocument/completion",
                json!({"textDocument": {"uri": big_uri}, "position": {"line": line, "character": character}}),
            );
            times.push(t.elapsed());
            n = r["items"].as_array().map_or(0, Vec::len);
        }
        println!("completion `{extra}` ({n} items): {}", stats(times));
    };
    complete(&mut c, "node z = ");
    complete(&mut c, "node z = event animseq::seq-0420");
    complete(&mut c, "log7.");
    complete(&mut c, "log7.then -> cat9.");

    let pid = c.pid();
    println!(
        "server memory with {GRAPHS} graphs open and {SEQUENCES} .animseq: VmHWM {:.1} MiB, VmRSS {:.1} MiB",
        status_kib(pid, "VmHWM:") as f64 / 1024.0,
        status_kib(pid, "VmRSS:") as f64 / 1024.0
    );
    println!(
        "load average: {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    let st = c.shutdown();
    assert_eq!(st.code(), Some(0));
}
