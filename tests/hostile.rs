//! Hostile inputs (issue 17): each case shows its growth as a ratio between two input sizes —
//! output bytes or bytes allocated, never wall time — or a bound that must hold.
//! The limits themselves (each with its message) are walked by `tests/limits.rs`.

use sinew::bytecode::{self, Const, Instr, ModuleBuilder};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::Path;
use std::process::Command;

// ---------------------------------------------------------------------------------------------
// Allocation accounting: per thread, so tests running in parallel do not disturb each other.
// ---------------------------------------------------------------------------------------------

struct Counting;

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn on_alloc(n: usize) {
    let _ = LIVE.try_with(|l| {
        let v = l.get() + n;
        l.set(v);
        let _ = PEAK.try_with(|p| p.set(p.get().max(v)));
    });
}

fn on_free(n: usize) {
    let _ = LIVE.try_with(|l| l.set(l.get().saturating_sub(n)));
}

// SAFETY: delegates every call to `System`; the counters are thread-local cells that never
// allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        on_alloc(layout.size());
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        on_free(layout.size());
        // SAFETY: forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
        on_free(layout.size());
        on_alloc(new);
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `f` and returns its result with the peak of bytes it held live at once (this thread).
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let r = f();
    (r, PEAK.with(Cell::get) - base)
}

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
    // One overrun line per tick plus the `end` line: output grows with ticks, nothing else.
    assert_eq!((short.len(), long.len()), (3, 5), "{long:#?}");
    assert!(long[0].contains("stopped after 16 rounds"), "{}", long[0]);
    for line in &long[1..4] {
        assert!(
            line.contains("stopped after 65536 deliveries (the limit per update)"),
            "{line}"
        );
    }
}
