//! Hostile inputs to the graph compiler: huge, deep, wide, cyclic, garbled and mutated graphs.
//! `compile::compile` must return diagnostics or a verified module without panicking, hanging
//! or overflowing the stack (tests run on 2 MiB test threads), and every module it returns must
//! run each handler under a budget on a no-op host without panicking.

mod support;

use proptest::prelude::*;
use sinew::bytecode::{Type, Value};
use sinew::catalog::scan::LiveCatalog;
use sinew::compile;
use sinew::diag::SourceFile;
use sinew::vm::{InstanceState, NullHost, Outcome, Vm};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::OnceLock;

fn catalog() -> &'static LiveCatalog {
    static C: OnceLock<LiveCatalog> = OnceLock::new();
    C.get_or_init(|| {
        LiveCatalog::scan(Path::new("tests/fixtures/catalog"), None, None).expect("fixture catalog")
    })
}

/// What compiling and running one source gave.
#[derive(Debug)]
struct Report {
    module: bool,
    errors: usize,
    /// Diagnostic codes, for assertions.
    codes: Vec<&'static str>,
    /// Outcomes of running each handler once (and resuming its delays).
    runs: Vec<String>,
}

fn default_value(t: Type) -> Value {
    match t {
        Type::Bool => Value::Bool(true),
        Type::Int => Value::Int(-1),
        Type::Float => Value::Float(0.5),
        Type::Vec3 => Value::Vec3([1.0, 0.0, -1.0]),
        Type::Str => Value::Str("s".into()),
        Type::Entity => Value::Entity(Some(3)),
    }
}

/// Compiles `text`; a module must come with no error and vice versa; runs every handler of a
/// module once under `budget` on a no-op host, resuming yields a few times.
fn check(text: &str, budget: u64) -> Report {
    let src = SourceFile::new("hostile.bpg", text);
    let c = compile::compile(&src, catalog().catalog());
    let errors = c.diagnostics().iter().filter(|d| d.is_error()).count();
    assert_eq!(
        c.module.is_some(),
        errors == 0,
        "module iff no errors: {:?}",
        c.diagnostics()
            .iter()
            .map(|d| (d.code, &d.message))
            .collect::<Vec<_>>()
    );
    let mut runs = Vec::new();
    if let Some(m) = &c.module {
        let mut st = InstanceState::new(m, 1);
        let mut vm = Vm::new();
        for (h, handler) in m.module().handlers.iter().enumerate() {
            let payload: Vec<Value> = handler.params.iter().map(|t| default_value(*t)).collect();
            let mut out = vm.run_handler(m, &mut st, h, &payload, &mut NullHost, budget);
            for _ in 0..3 {
                let Outcome::Yielded { continuation, .. } = out else {
                    break;
                };
                out = vm.resume(m, &mut st, continuation, &mut NullHost, budget);
            }
            runs.push(match out {
                Outcome::Completed => "completed".to_string(),
                Outcome::Yielded { .. } => "yielded".to_string(),
                Outcome::Error(e) => format!("error: {}", e.message),
            });
        }
    }
    Report {
        module: c.module.is_some(),
        errors,
        codes: c.diagnostics().iter().map(|d| d.code).collect(),
        runs,
    }
}

const BUDGET: u64 = 100_000;

// ---------------------------------------------------------------------------------------------
// Big graphs.

/// `start → l0 → l1 → … → l{n-1}`, all `debug.log`.
fn exec_chain(n: usize) -> String {
    let mut t = String::from("graph chain\nnode start = event begin_play\n");
    for i in 0..n {
        writeln!(t, "node l{i} = debug.log").ok();
    }
    t.push_str("start.then -> l0.exec\n");
    for i in 1..n {
        writeln!(t, "l{}.then -> l{i}.exec", i - 1).ok();
    }
    t
}

/// `var.get x → a0 → a1 → … → a{n-1} → var.set x`, all `int.add { b = 1 }`.
fn pure_chain(n: usize) -> String {
    let mut t = String::from(
        "graph pure\nvar x: int = 0\nnode start = event begin_play\nnode set = var.set x\nnode g = var.get x\n",
    );
    for i in 0..n {
        writeln!(t, "node a{i} = int.add {{ b = 1 }}").ok();
    }
    t.push_str("start.then -> set.exec\ng.value -> a0.a\n");
    for i in 1..n {
        writeln!(t, "a{}.out -> a{i}.a", i - 1).ok();
    }
    writeln!(t, "a{}.out -> set.value", n - 1).ok();
    t
}

/// Chain length the always-on tests use: deep enough to matter, shallow enough for today's
/// recursive cycle check in a debug build on a 2 MiB test thread (see the ignored 100k tests).
const CHAIN: usize = 2_000;

#[test]
fn long_exec_chain_runs() {
    let r = check(&exec_chain(CHAIN), BUDGET);
    assert!(r.module, "{:?}", &r.codes[..r.codes.len().min(5)]);
    assert_eq!(r.runs, ["completed"]);
}

#[test]
fn long_exec_chain_of_100k_nodes() {
    let r = check(&exec_chain(100_000), BUDGET);
    assert!(r.module, "{:?}", &r.codes[..r.codes.len().min(5)]);
    assert!(r.runs[0].contains("budget"), "{:?}", r.runs);
}

/// More pure nodes feeding one exec node than a handler has registers: a diagnostic, never a
/// panic.
#[test]
fn long_pure_chain_over_the_register_limit_never_panics() {
    let r = check(&pure_chain(CHAIN * 2), BUDGET);
    assert!(r.module || r.errors > 0);
}

#[test]
fn long_pure_chain_of_100k_int_adds() {
    let r = check(&pure_chain(100_000), BUDGET);
    assert!(r.module || r.errors > 0);
}

/// A graph that passes every check must lower: 2 100 pure nodes feeding one exec node need
/// more than 4 096 int registers.
#[test]
fn pure_chain_over_the_register_limit_is_not_an_internal_error() {
    let r = check(&pure_chain(2_100), BUDGET);
    assert!(!r.codes.contains(&compile::E_INTERNAL), "{:?}", r.codes);
}

/// A pure chain just inside the register limit computes the right value.
#[test]
fn pure_chain_of_2000_int_adds_runs() {
    let n = CHAIN;
    let src = SourceFile::new("p.bpg", pure_chain(n));
    let c = compile::compile(&src, catalog().catalog());
    let Some(m) = c.module else {
        panic!(
            "{:?}",
            c.diagnostics()
                .iter()
                .map(|d| (d.code, &d.message))
                .collect::<Vec<_>>()
        );
    };
    let mut st = InstanceState::new(&m, 1);
    let out = Vm::new().run_handler(&m, &mut st, 0, &[], &mut NullHost, BUDGET);
    assert_eq!(out, Outcome::Completed);
    assert_eq!(st.vars()[0], Value::Int(n as i64));
}

#[test]
fn wide_exec_fan_in_of_100k_links() {
    let n = 100_000;
    let mut t = String::from("graph fan\nnode start = event begin_play\nnode sink = debug.log\n");
    for i in 0..n {
        writeln!(t, "node d{i} = debug.log").ok();
    }
    t.push_str("start.then -> d0.exec\n");
    for i in 0..n {
        writeln!(t, "d{i}.then -> sink.exec").ok();
    }
    let r = check(&t, BUDGET);
    assert!(r.module);
    assert_eq!(r.runs, ["completed"]);
}

#[test]
fn wide_data_fan_out_of_one_pure_node() {
    let n = CHAIN;
    let mut t = String::from(
        "graph fanout\nvar s: string = \"\"\nnode start = event begin_play\nnode src = string.from_int { a = 5 }\n",
    );
    for i in 0..n {
        writeln!(t, "node c{i} = string.eq").ok();
        writeln!(t, "node b{i} = flow.branch").ok();
    }
    t.push_str("start.then -> b0.exec\n");
    for i in 0..n {
        writeln!(
            t,
            "src.out -> c{i}.a\nsrc.out -> c{i}.b\nc{i}.out -> b{i}.condition"
        )
        .ok();
        if i + 1 < n {
            writeln!(t, "b{i}.true -> b{}.exec", i + 1).ok();
        }
    }
    let r = check(&t, BUDGET);
    assert!(r.module);
}

// ---------------------------------------------------------------------------------------------
// Deep and long.

#[test]
fn deep_expression_nesting_is_a_diagnostic() {
    for e in [
        "(".repeat(100_000) + "1" + &")".repeat(100_000),
        "-".repeat(100_000) + "x",
        "sin(".repeat(50_000) + "1" + &")".repeat(50_000),
        "1".to_string() + &"+x".repeat(200_000),
    ] {
        let t = format!(
            "graph deep\nvar f: float = 0\nnode start = event begin_play\nnode e = expr \"{e}\"\nnode set = var.set f\nstart.then -> set.exec\ne.out -> set.value\n"
        );
        let r = check(&t, BUDGET);
        assert!(!r.module && r.errors > 0);
        assert!(r.codes.contains(&"E0414"), "{:?}", r.codes);
    }
}

/// One `flow.sequence` nested in another, deeper than the VM's call limit: a diagnostic at the
/// link one level too deep (check is iterative: no recursion however deep), and exactly at the
/// limit the graph compiles and runs to completion.
#[test]
fn deep_sequence_nesting_is_a_diagnostic_at_the_limit() {
    let chain = |n: usize| {
        let mut t = String::from("graph deep\nnode start = event begin_play\n");
        for i in 0..n {
            writeln!(t, "node s{i} = flow.sequence").ok();
        }
        t.push_str("start.then -> s0.exec\n");
        for i in 1..n {
            writeln!(t, "s{}.then_0 -> s{i}.exec", i - 1).ok();
        }
        t
    };
    // s0 … s{n-1}: n - 1 nested call outputs are used (the last node's outputs are unlinked).
    let limit = sinew::compile::check::MAX_NESTING;
    let r = check(&chain(limit + 1), BUDGET);
    assert!(r.module, "{:?}", r.codes);
    assert_eq!(r.runs, ["completed"]);
    let r = check(&chain(limit + 2), BUDGET);
    assert!(!r.module);
    assert_eq!(r.codes, ["E0321"]);
    let r = check(&chain(CHAIN * 10), BUDGET);
    assert_eq!(r.codes, ["E0321"]);
}

/// A literal longer than the bytecode's string limit must be a diagnostic at the literal, not
/// an internal compiler error (see report).
#[test]
fn huge_string_literal_is_a_proper_diagnostic() {
    let big = "a".repeat(1 << 20);
    let t = format!(
        "graph big\nnode start = event begin_play\nnode l = debug.log {{ message = \"{big}\" }}\nstart.then -> l.exec\n"
    );
    let r = check(&t, BUDGET);
    assert!(!r.codes.contains(&compile::E_INTERNAL), "{:?}", r.codes);
}

#[test]
fn megabyte_lines_never_panic() {
    let big = "a".repeat(1 << 20);
    let digits = "9".repeat(1 << 20);
    for t in [
        format!("graph {big}\nnode start = event begin_play\n"),
        format!("graph g\nnode {big} = event begin_play\n"),
        format!(
            "graph g\nnode s = event begin_play\nnode l = debug.log {{ message = \"{big}\" }}\ns.then -> l.exec\n"
        ),
        format!("graph g\nvar x: int = {digits}\n"),
        format!("graph g\nvar x: float = {digits}.5\n"),
        format!("graph g\nnode s = event custom::{big}\n"),
        format!("graph g\nnode s = event animseq::{big}.{big}\n"),
        format!("graph g\nnode s = {big}.{big}\n"),
        format!("graph g\nnode s = event begin_play\ns.{big} -> {big}.{big}\n"),
        format!(
            "graph g\n{}",
            "node x = int.add { a = 1, b = 2 } ".repeat(30_000)
        ),
        format!("graph g\nnode e = expr \"{}\"", "x + ".repeat(250_000)),
        "\"".repeat(1 << 20),
        "/".repeat(1 << 20),
    ] {
        let _ = check(&t, BUDGET);
    }
}

// ---------------------------------------------------------------------------------------------
// Cycles everywhere.

/// Every output of every node linked to every input of every node (including itself).
#[test]
fn everything_linked_to_everything() {
    let kinds = [
        "event begin_play",
        "event tick",
        "flow.sequence",
        "flow.branch",
        "int.add",
        "float.mul",
        "var.set x",
        "var.get x",
        "flow.for",
        "flow.gate",
        "flow.delay",
        "expr \"a + b\"",
        "debug.log",
        "vec3.break",
        "string.concat",
        "bool.not",
    ];
    let pins_out = [
        "then",
        "then_0",
        "then_1",
        "true",
        "false",
        "out",
        "value",
        "body",
        "index",
        "completed",
        "exit",
        "x",
        "dt",
    ];
    let pins_in = [
        "exec",
        "a",
        "b",
        "value",
        "condition",
        "first",
        "last",
        "enter",
        "open",
        "toggle",
        "seconds",
        "message",
        "v",
    ];
    let n = 48;
    let mut t = String::from("graph cyc\nvar x: int = 0\n");
    for i in 0..n {
        writeln!(t, "node n{i} = {}", kinds[i % kinds.len()]).ok();
    }
    for i in 0..n {
        for j in 0..n {
            for o in pins_out {
                for p in pins_in {
                    writeln!(t, "n{i}.{o} -> n{j}.{p}").ok();
                }
            }
        }
    }
    let r = check(&t, BUDGET);
    assert!(r.errors > 0);
}

/// Only valid links, in a complete DAG-violating pattern: every exec node's `then` to the next,
/// and the last back to the first; every pure node fed by the next one.
#[test]
fn rings_of_exec_and_data_links_are_cycle_errors() {
    let n = 2_000;
    let mut t = String::from("graph ring\nnode start = event begin_play\n");
    for i in 0..n {
        writeln!(t, "node l{i} = debug.log\nnode a{i} = int.add").ok();
    }
    t.push_str("start.then -> l0.exec\n");
    for i in 0..n {
        let j = (i + 1) % n;
        writeln!(t, "l{i}.then -> l{j}.exec\na{j}.out -> a{i}.a").ok();
    }
    let r = check(&t, BUDGET);
    assert!(r.codes.contains(&"E0314") || r.errors > 0, "{:?}", r.codes);
    assert!(!r.module);
}

// ---------------------------------------------------------------------------------------------
// Garbage and mutations.

const TOKENS: &[&str] = &[
    "graph",
    "var",
    "node",
    "at",
    "event",
    "true",
    "false",
    "begin_play",
    "tick",
    "=",
    "{",
    "}",
    "(",
    ")",
    ",",
    ".",
    ":",
    "::",
    "->",
    "\n",
    "\n",
    "\n",
    " ",
    "x",
    "y",
    "then",
    "exec",
    "int.add",
    "flow.for",
    "flow.sequence",
    "var.set",
    "var.get",
    "debug.log",
    "expr",
    "\"a+b\"",
    "\"",
    "1",
    "-1",
    "2.5",
    "1e309",
    "99999999999999999999",
    "custom::p",
    "animseq::run.footstep_l",
    "animseq::5c1e8d0a-3f2b-4a51-9c67-2b8e4d7f1a10.footstep_l",
    "event.send",
    "flow.delay",
    "int",
    "float",
    "vec3",
    "string",
    "entity",
    "bool",
    "//",
    "é",
    "\u{0}",
    "count",
    "16",
    "17",
];

fn soup(picks: &[u8]) -> String {
    picks
        .iter()
        .map(|&p| TOKENS[p as usize % TOKENS.len()])
        .collect::<Vec<_>>()
        .join(" ")
}

fn fixtures() -> &'static Vec<String> {
    static F: OnceLock<Vec<String>> = OnceLock::new();
    F.get_or_init(|| {
        let mut v: Vec<_> = std::fs::read_dir("tests/fixtures/graphs/ok")
            .expect("tests/fixtures/graphs/ok")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "bpg"))
            .collect();
        v.sort();
        v.iter()
            .map(|p| std::fs::read_to_string(p).expect("read"))
            .collect()
    })
}

/// Applies one mutation (`op`, `a`, `b` choose what and where) to `text`'s lines.
fn mutate(text: &str, op: u8, a: usize, b: usize) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if lines.is_empty() {
        return text.to_string();
    }
    let n = lines.len();
    let (i, j) = (a % n, b % n);
    let words: Vec<String> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == ':'))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    match op % 9 {
        0 => {
            lines.remove(i);
        }
        1 => {
            let l = lines[i].clone();
            lines.insert(j, l);
        }
        2 => lines.swap(i, j),
        3 => {
            // Replace one word of line i with a word from anywhere in the file.
            let w = &words[b % words.len().max(1)];
            let mut parts: Vec<String> = lines[i].split(' ').map(str::to_string).collect();
            let k = a % parts.len();
            parts[k] = w.clone();
            lines[i] = parts.join(" ");
        }
        4 => {
            // Cut line i at a byte boundary.
            let l = &lines[i];
            let mut k = b % (l.len() + 1);
            while !l.is_char_boundary(k) {
                k -= 1;
            }
            lines[i] = l[..k].to_string();
        }
        5 => {
            // Retarget a link to another line's first word.
            if let Some((from, _)) = lines[i].split_once("->") {
                let to = lines[j]
                    .split_whitespace()
                    .nth(1)
                    .unwrap_or("x")
                    .to_string();
                lines[i] = format!("{from}-> {to}.exec");
            }
        }
        6 => lines[i].push_str(" { count = 0, b = \"z\", start_open = 3 }"),
        7 => {
            let k = lines[i].find('.').unwrap_or(0);
            lines[i].insert_str(k, "_x");
        }
        _ => {
            // Link two random pins.
            let w1 = &words[a % words.len().max(1)];
            let w2 = &words[b % words.len().max(1)];
            lines.push(format!("{w1}.then -> {w2}.exec"));
            lines.push(format!("{w2}.out -> {w1}.a"));
        }
    }
    lines.join("\n")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn token_soup_never_panics(picks in proptest::collection::vec(any::<u8>(), 0..200)) {
        let r = check(&soup(&picks), 10_000);
        prop_assert!(r.module || r.errors > 0);
    }

    #[test]
    fn mutated_fixtures_never_panic(
        which in any::<usize>(),
        muts in proptest::collection::vec((any::<u8>(), any::<usize>(), any::<usize>()), 1..6),
    ) {
        let f = fixtures();
        let mut text = f[which % f.len()].clone();
        for (op, a, b) in muts {
            text = mutate(&text, op, a, b);
        }
        let _ = check(&text, 10_000);
    }

    #[test]
    fn mutated_random_graphs_never_panic(
        choices in proptest::collection::vec(any::<u16>(), 0..300),
        muts in proptest::collection::vec((any::<u8>(), any::<usize>(), any::<usize>()), 0..4),
    ) {
        let mut text = support::graphgen::graph(&choices);
        for (op, a, b) in muts {
            text = mutate(&text, op, a, b);
        }
        let _ = check(&text, 10_000);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = check(&text, 10_000);
    }
}
