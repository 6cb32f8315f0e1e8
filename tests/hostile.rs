//! Hostile inputs (issue 17): each case shows its growth as a ratio between two input sizes —
//! output bytes or bytes allocated, never wall time — or a bound that must hold.
//! The limits themselves (each with its message) are walked by `tests/limits.rs`.

use sinew::bytecode::{self, Const, Instr, ModuleBuilder};
use std::path::Path;
use std::process::Command;

#[path = "support/alloc.rs"]
mod alloc;
use alloc::{allocated_by, peak_of};

// ---------------------------------------------------------------------------------------------
// The binary
// ---------------------------------------------------------------------------------------------

/// Runs `sinew` in `dir`; returns (status, stdout, stderr).
fn sinew(dir: &Path, args: &[&str]) -> (i32, Vec<u8>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run sinew");
    (
        out.status.code().unwrap_or(-1),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn write(dir: &Path, rel: &str, text: impl AsRef<[u8]>) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// An `.animseq` with `n` notifies whose names are `name_len` chars long.
fn animseq(id: &str, n: usize, name_len: usize) -> String {
    let name = "N".repeat(name_len);
    let notifies: Vec<String> = (0..n)
        .map(|i| {
            format!(
                "(id: \"n{i}\", name: \"{name}\", time: {})",
                i as f64 / n.max(1) as f64
            )
        })
        .collect();
    format!(
        "AnimSeq(format: 2, id: \"{id}\", name: \"S\", duration: 1.0, tracks: [], notifies: [{}])\n",
        notifies.join(", ")
    )
}

// ---------------------------------------------------------------------------------------------
// 1. crossings --format json streams, and names are capped
// ---------------------------------------------------------------------------------------------

fn crossings_json_bytes(dir: &Path, name_len: usize, cycles: u32) -> usize {
    write(dir, "a.animseq", animseq("s", 10, name_len));
    let to = format!("--to={cycles}");
    let (code, out, err) = sinew(
        dir,
        &[
            "crossings",
            "a.animseq",
            "--from=0",
            &to,
            "--looping",
            "--limit=1000000",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_slice(&out).expect("one JSON document");
    let n = v["crossings"].as_array().unwrap().len();
    assert!(n.abs_diff(10 * cycles as usize) <= 1, "{n} crossings");
    out.len()
}

#[test]
fn crossings_output_is_linear_in_crossings_and_names_are_capped() {
    let dir = tempfile::tempdir().unwrap();
    let (small, large) = (
        crossings_json_bytes(dir.path(), 10, 100),
        crossings_json_bytes(dir.path(), 10, 400),
    );
    // 4× the crossings: 4× the bytes (a few more for longer times), not more.
    assert!(large * 10 <= small * 42, "{small} → {large}");
    // A 100,000-char name costs no more output per crossing than a 1,000-char one.
    let (short, long) = (
        crossings_json_bytes(dir.path(), 1_000, 10),
        crossings_json_bytes(dir.path(), 100_000, 10),
    );
    assert_eq!(short, long);
}

// ---------------------------------------------------------------------------------------------
// 5. disasm streams its text; a module's memory is a small multiple of its bytes
// ---------------------------------------------------------------------------------------------

/// A valid module with `n` distinct int constants (9 bytes each in the file).
fn module_with_constants(n: usize) -> Vec<u8> {
    let mut mb = ModuleBuilder::new("big");
    for i in 0..n {
        mb.constant(Const::Int(i as i64));
    }
    let mut h = mb.handler("tick", &[]);
    h.emit(Instr::Ret {});
    h.finish().unwrap();
    mb.finish().encode()
}

/// (file bytes, peak bytes held while decoding and verifying, peak extra bytes while writing the
/// text, text bytes).
fn disasm_costs(n: usize) -> (usize, usize, usize, usize) {
    let bytes = module_with_constants(n);
    let (vm, load_peak) =
        peak_of(|| bytecode::verify(bytecode::Module::decode(&bytes).unwrap()).unwrap());
    let mut sink = CountingSink(0);
    let ((), write_peak) = peak_of(|| {
        let mut w = std::io::BufWriter::new(&mut sink);
        bytecode::disasm::disasm_to(&vm, &mut w).unwrap();
    });
    (bytes.len(), load_peak, write_peak, sink.0)
}

struct CountingSink(usize);

impl std::io::Write for CountingSink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len();
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn disasm_streams_and_module_memory_is_a_small_multiple_of_the_file() {
    let (f1, load1, write1, text1) = disasm_costs(20_000);
    let (f2, load2, write2, text2) = disasm_costs(80_000);
    assert!(
        text2 > 3 * text1,
        "the text grows with the module: {text1} → {text2}"
    );
    // Writing the text holds no more than the output buffer, whatever the module's size.
    assert!(
        write1 < 64 * 1024 && write2 < 64 * 1024,
        "{write1}, {write2}"
    );
    // Decoded and verified, a module of int constants takes a small multiple of its bytes.
    eprintln!(
        "disasm: {f1} B file: load peak {load1}, write peak {write1}; {f2} B: {load2}, {write2}"
    );
    for (f, load) in [(f1, load1), (f2, load2)] {
        assert!(load <= 12 * f, "{load} bytes held for a {f}-byte module");
    }
}

#[test]
fn duplicate_constants_are_refused() {
    // The cheapest constants (2-byte bools) cannot be repeated to inflate memory.
    let mut m = bytecode::Module::decode(&module_with_constants(2)).unwrap();
    m.consts = vec![Const::Bool(true); 3];
    let e = bytecode::verify(m).expect_err("refused");
    assert!(e.message.contains("c0 and c1 are equal"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// 21. names from a module cannot forge disasm lines or reach the terminal
// ---------------------------------------------------------------------------------------------

#[test]
fn disasm_escapes_names_from_the_module() {
    let mut mb = ModuleBuilder::new("m\nhandler h9 \"forged\"");
    mb.var_raw(
        "v\u{1b}[2J\nhandler h1 \"forged\" ()",
        bytecode::Type::Int,
        Const::Int(0),
    );
    let mut h = mb.handler("tick", &[]);
    h.at_node("n\u{7}\r\n  0001  forged");
    h.emit(Instr::Ret {});
    h.finish().unwrap();
    let vm = bytecode::verify(mb.finish()).unwrap();
    let text = bytecode::disasm(&vm);
    assert!(!text.contains('\u{1b}') && !text.contains('\u{7}') && !text.contains('\r'));
    let handlers = text.lines().filter(|l| l.starts_with("handler ")).count();
    assert_eq!(handlers, 1, "{text}");
    assert!(!text.lines().any(|l| l.starts_with("  0001")), "{text}");
    assert!(text.contains("v\\u{1b}[2J\\nhandler h1"), "{text}");
}

// ---------------------------------------------------------------------------------------------
// 9. an event storm costs at most the delivery limit per tick, and says so every tick
// ---------------------------------------------------------------------------------------------

fn storm_run(dir: &Path, ticks: u32) -> Vec<String> {
    write(
        dir,
        "graphs/storm.bpg",
        "graph storm\nnode on = event custom::storm\nnode a = event.send custom::storm\n\
         node b = event.send custom::storm\non.then -> a.exec\na.then -> b.exec\n",
    );
    write(
        dir,
        "s.scene.ron",
        "Scene(entities: [(name: \"hero\", graphs: [\"graphs/storm.bpg\"])],\n\
         actions: [(at: 0.0, entity: \"hero\", action: Send(\"hero\", \"custom::storm\"))])\n",
    );
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    let t = format!("--ticks={ticks}");
    let (code, out, err) = sinew(dir, &["run", "s.scene.ron", &t, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn an_event_storm_is_cut_at_the_delivery_limit_every_tick() {
    let dir = tempfile::tempdir().unwrap();
    let (short, long) = (storm_run(dir.path(), 2), storm_run(dir.path(), 4));
    // Every graph send is also a game event (`runtime::GameEvents`, one tick kept): past its
    // bound each tick says once how many it dropped. Set those lines apart, then: one overrun
    // line per tick plus the `end` line — output grows with ticks, nothing else.
    let dropped = |lines: &[String]| {
        lines
            .iter()
            .filter(|l| l.contains("game event(s) dropped: more than 65536 in one tick"))
            .count()
    };
    assert_eq!((dropped(&short), dropped(&long)), (2, 4), "{long:#?}");
    let keep = |lines: Vec<String>| -> Vec<String> {
        lines
            .into_iter()
            .filter(|l| !l.contains("game event(s) dropped"))
            .collect()
    };
    let (short, long) = (keep(short), keep(long));
    assert_eq!((short.len(), long.len()), (3, 5), "{long:#?}");
    assert!(long[0].contains("stopped after 16 rounds"), "{}", long[0]);
    for line in &long[1..4] {
        assert!(
            line.contains("stopped after 65536 deliveries (the limit per update)"),
            "{line}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// 14 and 24. build: colliding outputs are refused, and a build writes every module or none
// ---------------------------------------------------------------------------------------------

const TICKER: &str =
    "graph g\nvar n: int = 0\nnode t = event tick\nnode s = var.set n\nt.then -> s.exec\n";

fn graphs_project(dir: &Path) {
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    write(dir, "g1/hero.bpg", TICKER);
    write(dir, "g2/hero.bpg", TICKER.replace("graph g", "graph h"));
    write(dir, "g1/other.bpg", TICKER.replace("graph g", "graph o"));
}

#[test]
fn build_refuses_two_graphs_for_one_module_path() {
    let dir = tempfile::tempdir().unwrap();
    graphs_project(dir.path());
    for args in [
        &["build", "g1/hero.bpg", "g2/hero.bpg", "--out", "out"][..],
        &["build", "g1", "g2", "--out", "out"],
        &["build", "g1/hero.bpg", "g2/HERO.bpg", "--out", "out"],
    ] {
        if args.contains(&"g2/HERO.bpg") {
            std::fs::rename(
                dir.path().join("g2/hero.bpg"),
                dir.path().join("g2/HERO.bpg"),
            )
            .unwrap();
        }
        let (code, _, err) = sinew(dir.path(), args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("g1/hero.bpg and g2/"), "{err}");
        assert!(err.contains("would both be written to out/"), "{err}");
        assert!(!dir.path().join("out").exists(), "nothing written");
        if args.contains(&"g2/HERO.bpg") {
            std::fs::rename(
                dir.path().join("g2/HERO.bpg"),
                dir.path().join("g2/hero.bpg"),
            )
            .unwrap();
        }
    }
    // The same graph named twice is one graph, one module.
    let (code, out, err) = sinew(dir.path(), &["build", "g1", "g1/hero.bpg", "--out", "out"]);
    assert_eq!(code, 0, "{err}");
    let out = String::from_utf8(out).unwrap();
    assert_eq!(out.matches("wrote ").count(), 2, "{out}");
}

#[test]
fn build_writes_every_module_or_none() {
    let dir = tempfile::tempdir().unwrap();
    graphs_project(dir.path());
    // `out/other.sbc` cannot be written (a folder is in the way); `hero.sbc` sorts first.
    std::fs::create_dir_all(dir.path().join("out/other.sbc")).unwrap();
    let (code, _, err) = sinew(dir.path(), &["build", "g1", "--out", "out"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot write out/other.sbc"), "{err}");
    assert!(err.contains("nothing written"), "{err}");
    assert!(
        !dir.path().join("out/hero.sbc").exists(),
        "the earlier module is not left"
    );
    let mut left: Vec<_> = std::fs::read_dir(dir.path().join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    left.sort();
    assert_eq!(left, ["other.sbc"], "no temporary left either");
    // A folder the build would create is removed again.
    std::fs::remove_dir(dir.path().join("out/other.sbc")).unwrap();
    write(
        dir.path(),
        "g1/sub/x.bpg",
        TICKER.replace("graph g", "graph x"),
    );
    std::fs::write(dir.path().join("out/sub"), "a file where a folder must go").unwrap();
    let (code, _, err) = sinew(dir.path(), &["build", "g1", "--out", "out"]);
    assert_eq!(code, 2, "{err}");
    assert!(!dir.path().join("out/hero.sbc").exists());
}

// ---------------------------------------------------------------------------------------------
// 15 and 24. rewrites keep symlinks, modes and links; stale temporaries are cleaned
// ---------------------------------------------------------------------------------------------

const UNFORMATTED: &str =
    "graph g\nvar n: int = 0\nnode t = event tick\nnode   s = var.set n\nt.then -> s.exec\n";

#[cfg(unix)]
#[test]
fn fmt_writes_through_symlinks_keeps_modes_and_refuses_hard_links() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "real/a.bpg", UNFORMATTED);
    std::fs::set_permissions(d.join("real/a.bpg"), std::fs::Permissions::from_mode(0o600)).unwrap();
    std::os::unix::fs::symlink("../real/a.bpg", {
        std::fs::create_dir_all(d.join("g")).unwrap();
        d.join("g/link.bpg")
    })
    .unwrap();
    let (code, out, err) = sinew(d, &["fmt", "g/link.bpg"]);
    assert_eq!(code, 0, "{err}");
    assert!(String::from_utf8_lossy(&out).contains("formatted g/link.bpg"));
    let link = std::fs::symlink_metadata(d.join("g/link.bpg")).unwrap();
    assert!(link.file_type().is_symlink(), "the link is still a link");
    let real = std::fs::read_to_string(d.join("real/a.bpg")).unwrap();
    assert!(
        real.contains("node s = var.set n"),
        "the target is formatted: {real}"
    );
    let mode = std::fs::metadata(d.join("real/a.bpg"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "mode kept");

    write(d, "h/b.bpg", UNFORMATTED);
    std::fs::hard_link(d.join("h/b.bpg"), d.join("h/twin.bpg")).unwrap();
    let (code, _, err) = sinew(d, &["fmt", "h/b.bpg"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("2 hard links"), "{err}");
    assert_eq!(
        std::fs::read_to_string(d.join("h/twin.bpg")).unwrap(),
        UNFORMATTED
    );
    assert_eq!(
        std::fs::read_to_string(d.join("h/b.bpg")).unwrap(),
        UNFORMATTED
    );
}

#[cfg(unix)]
#[test]
fn a_rewrite_keeps_the_owner_or_refuses() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a.bpg");
    std::fs::write(&p, UNFORMATTED).unwrap();
    // Only a privileged process can give a file away; otherwise the refusal is what we test.
    let given = std::os::unix::fs::chown(&p, Some(4242), Some(4242)).is_ok();
    let r = sinew::fsutil::write_atomic(&p, b"new");
    let m = std::fs::metadata(&p).unwrap();
    if given {
        r.expect("a privileged rewrite keeps the owner");
        assert_eq!((m.uid(), m.gid()), (4242, 4242));
    } else {
        assert_eq!(std::fs::read_to_string(&p).unwrap(), UNFORMATTED);
    }
}

#[test]
fn stale_temporaries_of_a_killed_run_are_removed_by_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "g/a.bpg", UNFORMATTED);
    let stale = d.join("g/.a.bpg.0123456789abcdef0123456789abcdef.tmp");
    let fresh = d.join("g/.a.bpg.fedcba9876543210fedcba9876543210.sinew.tmp");
    for p in [&stale, &fresh] {
        std::fs::write(p, "half a file").unwrap();
    }
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&stale)
        .unwrap()
        .set_modified(hour_ago)
        .unwrap();
    let (code, _, err) = sinew(d, &["fmt", "g"]);
    assert_eq!(code, 0, "{err}");
    assert!(!stale.exists(), "stale temporary removed");
    assert!(fresh.exists(), "a fresh one may belong to a running writer");
}

// ---------------------------------------------------------------------------------------------
// 24. FIFOs are refused, not read; a UTF-8 BOM is accepted by every text input
// ---------------------------------------------------------------------------------------------

#[cfg(unix)]
#[test]
fn a_fifo_on_the_command_line_is_refused_without_opening_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("assets")).unwrap();
    let status = Command::new("mkfifo").arg(d.join("pipe.bpg")).status();
    if !status.is_ok_and(|s| s.success()) {
        return; // no mkfifo on this system
    }
    for cmd in ["check", "fmt"] {
        let (code, _, err) = sinew(d, &[cmd, "pipe.bpg"]);
        assert_eq!(code, 2, "{cmd}: {err}");
        assert!(
            err.contains("pipe.bpg is not a regular file or a folder"),
            "{err}"
        );
    }
}

/// Issue #25: `graph` and `diff` read through the one bounded reader (`fsutil::read_input`):
/// a FIFO is refused without opening it (never a block) and a graph over its limit is refused
/// before it is read whole.
#[cfg(unix)]
#[test]
fn graph_and_diff_read_through_the_bounded_reader() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "ok.bpg", "graph ok\n");
    let status = Command::new("mkfifo").arg(d.join("pipe.bpg")).status();
    if !status.is_ok_and(|s| s.success()) {
        return; // no mkfifo on this system
    }
    let f = std::fs::File::create(d.join("big.bpg")).unwrap();
    f.set_len(17 * 1024 * 1024).unwrap();
    let cases: [(&[&str], &str); 4] = [
        (
            &["graph", "pipe.bpg"],
            "cannot read pipe.bpg: not a regular file (a FIFO)",
        ),
        (
            &["diff", "ok.bpg", "pipe.bpg"],
            "cannot read pipe.bpg: not a regular file (a FIFO)",
        ),
        (&["graph", "big.bpg"], "graph files are limited to 16 MiB"),
        (
            &["diff", "big.bpg", "ok.bpg"],
            "graph files are limited to 16 MiB",
        ),
    ];
    for (args, says) in cases {
        let (code, _, err) = sinew(d, args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn a_bpg_with_a_byte_order_mark_checks_and_formats_like_one_without() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("assets")).unwrap();
    write(d, "g/a.bpg", format!("\u{feff}{UNFORMATTED}"));
    let (code, out, err) = sinew(d, &["check", "g"]);
    assert_eq!(code, 0, "{err}{}", String::from_utf8_lossy(&out));
    let (code, _, err) = sinew(d, &["fmt", "g"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = sinew(d, &["fmt", "--check", "g"]);
    assert_eq!(code, 0, "formatted once, canonical with its BOM: {err}");
    let text = std::fs::read_to_string(d.join("g/a.bpg")).unwrap();
    assert!(
        text.starts_with('\u{feff}') && text.contains("node s = var.set n"),
        "{text:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// 17. a symlink alias inside the assets folder is the file it leads to, not a second claimant
// ---------------------------------------------------------------------------------------------

#[cfg(unix)]
#[test]
fn an_alias_inside_the_assets_folder_is_one_file() {
    use sinew::catalog::scan::LiveCatalog;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "assets/sub/run.animseq", animseq("run", 2, 4));
    std::os::unix::fs::symlink("sub/run.animseq", d.join("assets/alias.animseq")).unwrap();
    std::os::unix::fs::symlink("sub", d.join("assets/dirlink")).unwrap();
    let (code, out, err) = sinew(d, &["catalog", "--format", "json"]);
    assert_eq!(code, 0, "{err}{}", String::from_utf8_lossy(&out));
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let files: Vec<&str> = v["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["file"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["assets/sub/run.animseq"; 2], "{v}");
    assert_eq!(v["quarantined"], serde_json::json!([]));
    assert_eq!(v["diagnostics"], serde_json::json!([]));
    // A change reported under an alias refreshes the one file, and changes nothing else.
    let mut live = LiveCatalog::scan(&d.join("assets"), Some(d), None).unwrap();
    assert_eq!(live.catalog().files().count(), 1);
    let delta = live.refresh(&[d.join("assets/alias.animseq"), d.join("assets/dirlink")]);
    assert!(delta.is_empty(), "{delta:?}");
    assert_eq!(live.catalog().files().count(), 1);
}

// ---------------------------------------------------------------------------------------------
// 20. n copies of one file: each conflict names a bounded set of claimants plus a count
// ---------------------------------------------------------------------------------------------

fn copies_report_bytes(n: usize) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let text = animseq("same", 3, 4);
    for i in 0..n {
        write(dir.path(), &format!("assets/c{i:05}.animseq"), &text);
    }
    let (code, out, err) = sinew(dir.path(), &["catalog", "--format", "json"]);
    assert_eq!(code, 1, "{err}");
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let diags = v["diagnostics"].as_array().unwrap();
    assert_eq!(diags.len(), n, "one E0201 per copy");
    assert!(
        diags[0]["message"]
            .as_str()
            .unwrap()
            .ends_with(&format!("and {} more", n - 6)),
        "{}",
        diags[0]
    );
    // The diagnostics' share of the output (the quarantine list names every claimant, once).
    serde_json::to_vec(&v["diagnostics"]).unwrap().len()
}

#[test]
fn copies_of_one_file_cost_linear_diagnostics() {
    let (small, large) = (copies_report_bytes(100), copies_report_bytes(400));
    assert!(
        large * 10 <= small * 42,
        "100 copies: {small} B, 400 copies: {large} B"
    );
}

// ---------------------------------------------------------------------------------------------
// 4. diagnostics render from what was checked: no file is read again (nor a refused one read)
// ---------------------------------------------------------------------------------------------

#[test]
fn snippets_show_the_checked_text_and_refused_files_are_never_read() {
    use sinew::catalog::scan::LiveCatalog;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "assets/bad.animseq",
        "AnimSeq(format: 2, id: \"x\" name: \"checked\")\n",
    );
    // Larger than the catalog loads, and sparse: reading it would take seconds and 300 MB.
    let huge = std::fs::File::create(d.join("assets/huge.animseq")).unwrap();
    huge.set_len(300 * 1024 * 1024).unwrap();
    let live = LiveCatalog::scan(&d.join("assets"), Some(d), None).unwrap();
    let diags = live.catalog().diagnostics();
    // The file changes after the scan: the snippet is still the text that was checked.
    write(d, "assets/bad.animseq", "// something else entirely\n");
    let text = sinew::diag::render::human(&diags, false);
    assert!(text.contains("id: \"x\" name: \"checked\""), "{text}");
    assert!(!text.contains("something else"), "{text}");
    assert!(text.contains("error[E0003]"), "{text}");
    assert!(text.len() < 2000, "{} bytes:\n{text}", text.len());
}

// ---------------------------------------------------------------------------------------------
// 6. thousands of diagnostics on one long line: clipped snippets, a capped list
// ---------------------------------------------------------------------------------------------

fn one_line_graph_output(n: usize) -> (usize, usize) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("assets")).unwrap();
    // One warning per node (W0301): each log has its message, so W0303 stays silent.
    let nodes: Vec<String> = (0..n)
        .map(|i| format!("node n{i} = debug.log {{ message = \"m\" }}"))
        .collect();
    write(d, "g/a.bpg", format!("graph a\n{}\n", nodes.join(" ")));
    let (code, out, err) = sinew(d, &["check", "g"]);
    assert_eq!(code, 0, "{err}");
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains(&format!("checked 1 graph: 0 errors, {n} warnings")),
        "{out}"
    );
    assert!(
        out.contains(&format!("… and {} more diagnostics", n - 200)),
        "{out}"
    );
    let widest = out.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    (out.len(), widest)
}

#[test]
fn many_warnings_on_one_long_line_cost_bounded_output() {
    let (small, w1) = one_line_graph_output(1_000);
    let (large, w2) = one_line_graph_output(4_000);
    // 4× the nodes (and a 4× longer line): the report stays the same size.
    assert!(large <= small + small / 10, "{small} → {large}");
    assert!(w1 <= 200 && w2 <= 200, "widest lines: {w1}, {w2}");
}

// ---------------------------------------------------------------------------------------------
// 21. names from assets cannot forge lines or reach the terminal in human output
// ---------------------------------------------------------------------------------------------

#[test]
fn catalog_palette_and_crossings_escape_names_from_assets() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let evil = "Step\\u{1b}]0;owned\\u{7}\\n  forged  \\\"Line\\\"  at 0";
    write(
        d,
        "assets/a.animseq",
        format!(
            "AnimSeq(format: 2, id: \"s\", name: \"{evil}\", duration: 1.0, tracks: [], \
             notifies: [(id: \"n\", name: \"{evil}\", time: 0.5)])\n"
        ),
    );
    // The names really hold the control characters (JSON escapes them its own way).
    let (_, json, _) = sinew(d, &["catalog", "--format", "json"]);
    assert!(
        String::from_utf8(json)
            .unwrap()
            .contains("Step\\u001b]0;owned\\u0007\\n")
    );
    for args in [
        &["catalog"][..],
        &["palette"],
        &["crossings", "assets/a.animseq", "--from=0", "--to=1"],
    ] {
        let (code, out, err) = sinew(d, args);
        assert_eq!(code, 0, "{args:?}: {err}");
        let out = String::from_utf8(out).unwrap();
        assert!(
            !out.contains('\u{1b}') && !out.contains('\u{7}'),
            "{args:?}: {out:?}"
        );
        assert!(
            !out.lines().any(|l| l.trim_start().starts_with("forged")),
            "{out}"
        );
        assert!(out.contains("\\u{1b}]0;owned\\u{7}\\n"), "{args:?}: {out}");
    }
}

// ---------------------------------------------------------------------------------------------
// 8. thousands of duplicate notify IDs on one line: linear work, a bounded report
// ---------------------------------------------------------------------------------------------

/// One line declaring the notify ID `n` `n` times.
fn duplicates_line(n: usize) -> String {
    let ns = vec!["(id: \"n\", name: \"N\", time: 0.5)"; n].join(",");
    format!(
        "AnimSeq(format: 2, id: \"s\", name: \"S\", duration: 1.0, tracks: [], notifies: [{ns}])"
    )
}

/// Bytes allocated to load the file, index its notifies and render its report; the human
/// `catalog` and `crossings` outputs' sizes.
fn duplicates_costs(n: usize) -> (usize, usize, usize) {
    let text = duplicates_line(n);
    let (diags, work) = allocated_by(|| {
        let loaded = sinew::animseq::load(&sinew::diag::SourceFile::new("a.animseq", &*text));
        let seq = loaded.seq.expect("duplicates still load");
        let times: Vec<f64> = seq.notifies.iter().map(|n| n.time).collect();
        let index = sinew::crossing::NotifyIndex::new(seq.duration, &times).unwrap();
        assert_eq!(index.len(), n);
        let report = sinew::diag::render::human(&loaded.diagnostics, false);
        assert!(report.contains(&format!("… and {} more diagnostics", n - 1 - 200)));
        loaded.diagnostics.len()
    });
    assert_eq!(diags, n - 1, "one E0110 per duplicate");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "assets/a.animseq", &text);
    let (code, catalog, err) = sinew(d, &["catalog"]);
    assert_eq!(code, 1, "{err}");
    let (code, crossings, err) = sinew(d, &["crossings", "assets/a.animseq", "--from=0", "--to=1"]);
    assert_eq!(code, 1, "{err}"); // E0110 is an error: crossings lists the report only
    (work, catalog.len(), crossings.len() + err.len())
}

#[test]
fn duplicate_notify_ids_on_one_line_cost_linear_work_and_a_bounded_report() {
    let (w1, c1, x1) = duplicates_costs(1_000);
    let (w4, c4, x4) = duplicates_costs(4_000);
    // 4× the duplicates on a 4× longer line: 4× the work (not 16×), the same report.
    assert!(w4 <= w1 * 5, "allocated: {w1} B → {w4} B");
    assert!(c4 <= c1 + c1 / 10, "catalog output: {c1} B → {c4} B");
    assert!(x4 <= x1 + x1 / 10, "crossings output: {x1} B → {x4} B");
}

// ---------------------------------------------------------------------------------------------
// 12. deep nesting in an `.animseq`: one diagnostic at the limit, work linear in the text
// ---------------------------------------------------------------------------------------------

fn deep_animseq_costs(depth: usize) -> (usize, usize) {
    let mut out = (0, 0);
    for (open, close) in [("[", "]"), ("(", ")"), ("Some(", ")"), ("A(x: ", ")")] {
        let text = format!(
            "AnimSeq(format: 2, id: \"s\", name: \"S\", duration: 1.0, tracks: [], \
             notifies: [(id: \"n\", name: \"N\", time: 0.5, fields: {}{})])",
            open.repeat(depth),
            close.repeat(depth)
        );
        let (loaded, work) = allocated_by(|| {
            sinew::animseq::load(&sinew::diag::SourceFile::new("a.animseq", &*text))
        });
        assert!(loaded.seq.is_none());
        assert_eq!(
            loaded.diagnostics.len(),
            1,
            "{open}: {:?}",
            loaded.diagnostics
        );
        assert!(
            loaded.diagnostics[0]
                .message
                .contains("nesting deeper than 128 levels"),
            "{:?}",
            loaded.diagnostics[0]
        );
        out = (out.0.max(work), out.1 + text.len());
    }
    out
}

#[test]
fn deep_nesting_in_an_animseq_is_one_diagnostic_and_linear_work() {
    let (w1, t1) = deep_animseq_costs(1_000);
    let (w2, t2) = deep_animseq_costs(10_000);
    // 10× the depth: at most 10× the work (the text is 10× longer), never 100× or more.
    assert!(w2 * t1 <= w1 * t2 * 2, "allocated: {w1} B → {w2} B");
}

// ---------------------------------------------------------------------------------------------
// 2 and 10. graph instances: delays cost nothing until they start; one graph attached n times
// costs setup linear in n
// ---------------------------------------------------------------------------------------------

/// Loads a memory project of `scene` with the graph `graphs/g.bpg` = `graph`, spawns it and
/// runs `ticks` ticks; returns the `end` lines and the bytes that took (peak held, allocated).
fn spawn_costs(scene: &str, graph: &str, ticks: u32) -> (Vec<String>, usize, usize) {
    use sinew::project::{self, Layout, MemSource, ProjectPath};
    use sinew::runtime::scene::{headless, spawn};
    use sinew::runtime::{TraceFormat, TraceWriter};
    let mem = MemSource::from_files([
        ("s.scene.ron", scene),
        ("graphs/g.bpg", graph),
        ("assets/.keep", ""),
    ])
    .unwrap();
    let layout = Layout::new(
        ProjectPath::new("s.scene.ron").unwrap(),
        ProjectPath::new("assets").unwrap(),
    );
    let loaded = project::load(&mem, &layout).unwrap();
    let (def, assets) = loaded
        .ready()
        .unwrap_or_else(|| panic!("{:?}", loaded.diagnostics));
    let mut allocated = 0;
    let (lines, peak) = peak_of(|| {
        let (lines, bytes) = allocated_by(|| {
            let (mut world, mut schedule) = headless(1.0 / 60.0).unwrap();
            let spawned = spawn(&mut world, def, assets).unwrap();
            for _ in 0..ticks {
                schedule.run(&mut world);
            }
            let names = std::collections::BTreeMap::new();
            TraceWriter::new(&spawned, &names, TraceFormat::Json).end_lines(&world)
        });
        allocated = bytes;
        lines
    });
    (lines, peak, allocated)
}

/// A graph whose `begin_play` chain passes `delays` one-second delays (only the first starts
/// within a tick).
fn delay_chain(delays: usize) -> String {
    let mut g = String::from("graph g\nnode t = event begin_play\n");
    for i in 0..delays {
        g.push_str(&format!("node d{i} = flow.delay {{ seconds = 1.0 }}\n"));
    }
    g.push_str("t.then -> d0.exec\n");
    for i in 1..delays {
        g.push_str(&format!("d{}.then -> d{i}.exec\n", i - 1));
    }
    g
}

#[test]
fn delays_cost_nothing_per_instance_until_they_start() {
    let entities: Vec<String> = (0..200)
        .map(|i| format!("(name: \"e{i}\", graphs: [\"graphs/g.bpg\"])"))
        .collect();
    let scene = format!("Scene(entities: [{}])", entities.join(","));
    let (_, few, _) = spawn_costs(&scene, &delay_chain(10), 2);
    let (_, many, _) = spawn_costs(&scene, &delay_chain(4_000), 2);
    // 3,990 more delays on each of 200 instances: the module is shared, and an instance pays
    // at most a flag per delay (under 8 B), never a continuation slot (~200 B) per delay.
    let per_delay = many.saturating_sub(few) as f64 / (200.0 * 3_990.0);
    assert!(
        per_delay < 8.0,
        "{few} B → {many} B: {per_delay:.1} B per delay and instance"
    );
}

fn attached_costs(n: usize) -> usize {
    let graph = "graph g\nvar n: int = 0\nnode t = event tick\nnode b = event begin_play\n\
                 node s = var.set n\nnode u = var.set n\nt.then -> s.exec\nb.then -> u.exec\n";
    let scene = format!(
        "Scene(entities: [(name: \"hero\", graphs: [{}])])",
        vec!["\"graphs/g.bpg\""; n].join(",")
    );
    let (lines, _, allocated) = spawn_costs(&scene, graph, 1);
    assert_eq!(lines.len(), 1);
    assert!(
        lines[0].contains(&format!("\"g#{n}\":{{\"n\":0}}")),
        "{}",
        &lines[0][..200]
    );
    allocated
}

#[test]
fn one_graph_attached_thousands_of_times_costs_linear_setup() {
    let (small, large) = (attached_costs(1_000), attached_costs(4_000));
    assert!(
        large <= small * 5,
        "1,000 instances: {small} B, 4,000: {large} B"
    );
}

// ---------------------------------------------------------------------------------------------
// 11. a scene at its item limit: 100,000 clip slots and 100,000 layers load, spawn and run
// (slot and layer names are looked up through maps: the lists were searched per item, which
// took minutes at this size); memory linear in the items
// ---------------------------------------------------------------------------------------------

fn many_items_scene(n: usize) -> (usize, Vec<String>) {
    use sinew::project::{self, Layout, MemSource, ProjectPath};
    use sinew::runtime::Animator;
    use sinew::runtime::scene::{headless, spawn};
    let slots: Vec<String> = (0..n).map(|i| format!("\"c{i}\": \"c.animseq\"")).collect();
    let layers: Vec<String> = (0..n)
        .map(|i| format!("(name: \"l{i}\", clip: Some(\"c{}\"))", n - 1 - i))
        .collect();
    let scene = format!(
        "Scene(entities: [(name: \"hero\", animator: Some((clips: {{{}}}, \
         default_clip: Some(\"c{}\"), layers: [{}])))])",
        slots.join(","),
        n - 1,
        layers.join(",")
    );
    let clip = "AnimSeq(format: 2, id: \"steps\", name: \"Steps\", duration: 1.0, tracks: [], \
                notifies: [(id: \"a\", name: \"A\", time: 0.5)])";
    let mem = MemSource::from_files([("s.scene.ron", scene.as_str()), ("assets/c.animseq", clip)])
        .unwrap();
    let layout = Layout::new(
        ProjectPath::new("s.scene.ron").unwrap(),
        ProjectPath::new("assets").unwrap(),
    );
    let ((world, spawned), peak) = peak_of(|| {
        let loaded = project::load(&mem, &layout).unwrap();
        let (def, assets) = loaded
            .ready()
            .unwrap_or_else(|| panic!("{:?}", &loaded.diagnostics[..3]));
        let (mut world, mut schedule) = headless(1.0 / 60.0).unwrap();
        let spawned = spawn(&mut world, def, assets).unwrap();
        for _ in 0..2 {
            schedule.run(&mut world);
        }
        (world, spawned)
    });
    let a = world.get::<Animator>(spawned.entities[0].1).unwrap();
    assert_eq!(a.slot_index(&format!("c{}", n - 1)), Some(n - 1));
    let layers: Vec<String> = a
        .layers()
        .map(|(l, c, _)| format!("{l}:{}", c.unwrap_or("-")))
        .collect();
    (peak, layers)
}

#[test]
fn a_scene_at_its_item_limit_loads_spawns_and_runs() {
    let (small, _) = many_items_scene(25_000);
    let (large, layers) = many_items_scene(100_000);
    assert_eq!(layers.len(), 100_000);
    assert_eq!(
        (layers[0].as_str(), layers[99_999].as_str()),
        ("l0:c99999", "l99999:c0")
    );
    assert!(
        large <= small * 5,
        "25,000 items: {small} B, 100,000: {large} B"
    );
}

// ---------------------------------------------------------------------------------------------
// 22. the human `run` trace escapes log messages and entity names
// ---------------------------------------------------------------------------------------------

#[test]
fn the_human_run_trace_escapes_messages_and_names() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("assets")).unwrap();
    write(
        d,
        "graphs/say.bpg",
        "graph say\nnode t = event tick\nnode l = debug.log { message = \"hi\\nend  forged\" }\n\
         t.then -> l.exec\n",
    );
    let evil = "hero\\u{1b}]0;owned\\u{7}\\nend  forged";
    write(
        d,
        "s.scene.ron",
        format!("Scene(entities: [(name: \"{evil}\", graphs: [\"graphs/say.bpg\"])])\n"),
    );
    // The texts really hold the control characters (JSON escapes them its own way).
    let (code, json, err) = sinew(d, &["run", "s.scene.ron", "--ticks=1", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let json = String::from_utf8(json).unwrap();
    assert!(json.contains("hi\\nend  forged"), "{json}");
    assert!(json.contains("hero\\u001b]0;owned\\u0007\\nend"), "{json}");
    let (code, out, err) = sinew(d, &["run", "s.scene.ron", "--ticks=1"]);
    assert_eq!(code, 0, "{err}");
    let out = String::from_utf8(out).unwrap();
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
    // One log line and one `end` line; nothing forged.
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(!out.lines().any(|l| l.starts_with("end  forged")), "{out}");
    assert!(out.contains("say: hi\\nend  forged"), "{out}");
    assert!(
        out.contains("end  hero\\u{1b}]0;owned\\u{7}\\nend  forged"),
        "{out}"
    );
}

// ---------------------------------------------------------------------------------------------
// Fuzz seeds (`fuzz/seeds/`): the hostile shapes above, run here through the fuzz targets'
// bodies so they stay regression inputs. The `.sbc` seeds are built here; set
// `SINEW_WRITE_SEEDS=1` to (re)write them after a format change.
// ---------------------------------------------------------------------------------------------

#[path = "support/bytecode_exercise.rs"]
mod exercise;
#[path = "support/scene_exercise.rs"]
mod scene_exercise;

fn seed_modules() -> Vec<(&'static str, Vec<u8>)> {
    let base = || bytecode::Module::decode(&module_with_constants(3)).unwrap();
    let mut dup = base();
    dup.consts = vec![Const::Bool(true), Const::Bool(true)];
    let mut names = ModuleBuilder::new("m\u{1b}[2J\nhandler h9");
    names.var_raw("v\n\u{7}", bytecode::Type::Int, Const::Int(0));
    let mut h = names.handler("tick\u{202e}", &[]);
    h.at_node("n\r\n  0001  forged");
    h.emit(Instr::Ret {});
    h.finish().unwrap();
    let mut deep = ModuleBuilder::new("deep");
    let mut h = deep.handler("tick", &[]);
    let top = h.label();
    h.bind(top);
    h.emit(Instr::Call {
        target: top.target(),
    });
    h.emit(Instr::Ret {});
    h.finish().unwrap();
    let mut huge = base().encode();
    let name_len = u32::from_le_bytes(huge[7..11].try_into().unwrap()) as usize;
    let at = 6 + 5 + name_len + 5 + 8 + 5;
    huge[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    vec![
        ("duplicate_constants.sbc", dup.encode()),
        ("control_names.sbc", names.finish().encode()),
        ("self_call.sbc", deep.finish().encode()),
        ("huge_count.sbc", huge),
        ("many_constants.sbc", module_with_constants(2000)),
    ]
}

#[test]
fn fuzz_seeds_run_clean_through_the_fuzz_targets_bodies() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds");
    let write_seeds = std::env::var_os("SINEW_WRITE_SEEDS").is_some();
    for (name, bytes) in seed_modules() {
        let p = root.join("verify").join(name);
        if write_seeds {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, &bytes).unwrap();
        }
        assert_eq!(
            std::fs::read(&p).ok(),
            Some(bytes),
            "{} is stale",
            p.display()
        );
    }
    let raw = |d: &str| -> Vec<(String, Vec<u8>)> {
        let mut v: Vec<_> = std::fs::read_dir(root.join(d))
            .unwrap()
            .map(|e| {
                let p = e.unwrap().path();
                (p.display().to_string(), std::fs::read(&p).unwrap())
            })
            .collect();
        v.sort();
        v
    };
    let clean = |text: &str| {
        !text
            .chars()
            .any(|c| c != '\n' && sinew::escape::needs_escape(c))
    };
    for (_, bytes) in raw("verify") {
        exercise::exercise(&bytes);
    }
    let catalog = sinew::catalog::Catalog::default();
    for (name, bytes) in raw("bpg") {
        let src = sinew::diag::SourceFile::new(&name, String::from_utf8(bytes).unwrap());
        let c = sinew::compile::compile(&src, &catalog);
        let human = sinew::diag::render::human(c.diagnostics(), false);
        assert!(clean(&human), "{name}: {human}");
        assert!(
            sinew::graph::fmt::check_round_trip(src.text()).is_ok(),
            "{name}"
        );
    }
    for (name, bytes) in raw("animseq") {
        let loaded = sinew::animseq::load_bytes(&name, &bytes);
        let human = sinew::diag::render::human(&loaded.diagnostics, false);
        assert!(clean(&human), "{name}: {human}");
    }
    // Scenes: which ones run (and say something) is part of the seed's point.
    let mut ran = Vec::new();
    for (name, bytes) in raw("scene") {
        let trace = scene_exercise::exercise(&bytes);
        let stem = Path::new(&name)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if let Some(t) = trace {
            assert!(t.lines().count() > 1, "{name}: {t}");
            ran.push(stem);
        }
    }
    assert_eq!(
        ran,
        [
            "bom_crlf",
            "controls",
            "counter",
            "delays",
            "many_instances",
            "send_payload",
            "storm"
        ]
    );
}
