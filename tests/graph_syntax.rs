//! Tests of the `.bpg` front end at its public boundary: parse → diagnostics, parse → format.

use proptest::prelude::*;
use sinew::diag::render::{human, to_json};
use sinew::diag::{Diagnostic, SourceFile};
use sinew::graph::ast::{EventRef, File, Item, LitValue, Number, Subject};
use sinew::graph::fmt::check_round_trip;
use sinew::graph::{expr, format, format_source, parse};
use std::path::Path;

/// Syntax diagnostics of `text` as the compiler would report them: the parser's, plus those of
/// every `expr` string (which the resolver parses), in canonical order.
fn diagnose(name: &str, text: &str) -> Vec<Diagnostic> {
    let src = SourceFile::new(name, text);
    let (file, mut diags) = parse(&src);
    for node in file.nodes() {
        if node.kind.text() == "expr"
            && let Some(Subject::String(s)) = &node.subject
            && let Err(d) = expr::parse_lit(&src, s)
        {
            diags.extend(d);
        }
    }
    sinew::diag::sort(&mut diags);
    diags
}

/// Asserts the diagnostics of `text` as `(code, line, column)` of their primary spans.
fn check(text: &str, expected: &[(&str, u32, u32)]) {
    let got: Vec<(&str, u32, u32)> = diagnose("t.bpg", text)
        .iter()
        .map(|d| (d.code, d.start.line, d.start.column))
        .collect();
    let shown: String = text.chars().take(300).collect();
    assert_eq!(got, expected, "diagnostics of:\n{shown}");
}

/// Asserts that `text` formats to exactly `expected`.
fn check_fmt(text: &str, expected: &str) {
    let out = format_source(&SourceFile::new("t.bpg", text))
        .unwrap_or_else(|d| panic!("does not parse: {d:?}"));
    assert_eq!(out, expected);
    assert_eq!(check_round_trip(text), Ok(()));
}

fn render(name: &str, text: &str) -> String {
    let diags = diagnose(name, text);
    let json = serde_json::to_string_pretty(&to_json(&diags)).unwrap_or_default();
    format!("{}\n---- json ----\n{json}\n", human(&diags, false))
}

fn fixtures(dir: &str) -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out: Vec<(String, String)> = std::fs::read_dir(root.join(dir))
        .expect("fixture folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "bpg"))
        .map(|p| {
            let name = format!(
                "{dir}/{}",
                p.file_name().unwrap_or_default().to_string_lossy()
            );
            (name, std::fs::read_to_string(&p).expect("utf-8 fixture"))
        })
        .collect();
    out.sort();
    out
}

fn snapshot(name: &str, value: &str) {
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(name, value);
    });
}

#[test]
fn every_error_fixture_reports_only_syntax_codes_and_all_codes_are_covered() {
    let mut seen = std::collections::BTreeSet::new();
    // Semantic fixtures (no `syntax_` prefix) belong to `tests/compile.rs`.
    for (name, text) in fixtures("tests/fixtures/graphs/err")
        .into_iter()
        .filter(|(n, _)| n.starts_with("tests/fixtures/graphs/err/syntax_"))
    {
        let diags = diagnose(&name, &text);
        assert!(!diags.is_empty(), "{name} has no diagnostics");
        for d in &diags {
            assert!(d.code.starts_with("E04"), "{name}: {d:?}");
            seen.insert(d.code);
        }
        let stem = name
            .trim_start_matches("tests/fixtures/graphs/err/")
            .trim_end_matches(".bpg");
        snapshot(&format!("graph_err_{stem}"), &render(&name, &text));
    }
    let all: Vec<String> = (1..=16).map(|i| format!("E04{i:02}")).collect();
    let missing: Vec<&String> = all.iter().filter(|c| !seen.contains(c.as_str())).collect();
    assert!(missing.is_empty(), "codes without a fixture: {missing:?}");
}

#[test]
fn ok_fixtures_parse_cleanly_and_format_stably() {
    for (name, text) in fixtures("tests/fixtures/graphs/ok") {
        assert_eq!(diagnose(&name, &text), Vec::new(), "{name}");
        assert_eq!(check_round_trip(&text), Ok(()), "{name}");
        let out = format_source(&SourceFile::new(name.as_str(), text.as_str())).expect("clean");
        let stem = name
            .trim_start_matches("tests/fixtures/graphs/ok/")
            .trim_end_matches(".bpg");
        snapshot(&format!("graph_fmt_{stem}"), &out);
    }
}

#[test]
fn hero_example_formats_to_single_spaced_sections() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("tests/fixtures/graphs/ok/hero_footsteps.bpg"))
        .expect("read");
    check_fmt(
        &text,
        "// graphs/hero_footsteps.bpg
graph hero_footsteps

var steps: int = 0
var last_surface: string = \"\"

node step = event animseq::5c1e8d0a-3f2b-4a51-9c67-2b8e4d7f1a10.footstep_l at (0, 0)
node get = var.get steps at (0, 160)
node inc = int.add { b = 1 } at (220, 160)
node set = var.set steps at (440, 0)
node say = debug.log { message = \"step\" } at (660, 0)

step.then -> set.exec
get.value -> inc.a
inc.out -> set.value
set.then -> say.exec
",
    );
}

#[test]
fn formatter_groups_sections_keeps_comments_and_normalizes_literals() {
    check_fmt(
        "// top\ngraph g // h\nnode a = int.add {} // t\n// about x\nvar x: float = 1.50\na.out -> a.b\n\n\nvar y: vec3 = (1,2.0,-0.0)\n// end\n",
        "// top\ngraph g // h\n\n// about x\nvar x: float = 1.5\nvar y: vec3 = (1, 2.0, -0.0)\n\nnode a = int.add // t\n\na.out -> a.b\n\n// end\n",
    );
    check_fmt("graph g", "graph g\n");
    check_fmt(
        "graph g\nvar s: string = \"a\\\\b\\\"c\\nd\"",
        "graph g\n\nvar s: string = \"a\\\\b\\\"c\\nd\"\n",
    );
    check_fmt(
        "graph g\nvar f: float = 1e16\nvar e: float = 0.0000001",
        "graph g\n\nvar f: float = 1e16\nvar e: float = 1e-7\n",
    );
}

#[test]
fn keywords_are_contextual() {
    let src = SourceFile::new(
        "k.bpg",
        "graph graph\nvar var: int = 1\nnode tick = event tick\nnode node = var.get var\nnode at = var.get at\nbr.true -> log.exec\nvar.x -> node.at\ngraph.a -> at.b\n",
    );
    let (file, diags) = parse(&src);
    assert_eq!(diags, Vec::new());
    assert_eq!(file.name.name, "graph");
    let nodes: Vec<_> = file.nodes().collect();
    assert!(matches!(
        nodes[0].subject,
        Some(Subject::Event(EventRef::Tick(_)))
    ));
    assert!(matches!(&nodes[1].subject, Some(Subject::Ident(i)) if i.name == "var"));
    assert!(matches!(&nodes[2].subject, Some(Subject::Ident(i)) if i.name == "at"));
    assert_eq!(nodes[2].at, None);
    let links: Vec<String> = file
        .links()
        .map(|l| {
            format!(
                "{}.{}>{}.{}",
                l.from_node.name, l.from_pin.name, l.to_node.name, l.to_pin.name
            )
        })
        .collect();
    assert_eq!(links, ["br.true>log.exec", "var.x>node.at", "graph.a>at.b"]);
}

#[test]
fn tick_is_an_event_only_after_kind_event() {
    let (file, _) = parse(&SourceFile::new(
        "t.bpg",
        "graph g\nnode a = var.get tick\nnode b = event begin_play",
    ));
    let subjects: Vec<_> = file.nodes().map(|n| n.subject.clone()).collect();
    assert!(matches!(&subjects[0], Some(Subject::Ident(i)) if i.name == "tick"));
    assert!(matches!(
        subjects[1],
        Some(Subject::Event(EventRef::BeginPlay(_)))
    ));
}

#[test]
fn spans_point_at_their_text() {
    let text = "graph g\nnode step = event animseq::5c1e-8d.foot_l { x = (1, -2.5, 3) } at (4, -5)\nvar v: vec3 = (0, 0, 0)\nstep.then -> b.exec\nnode e = expr \"a\\\"+b\"";
    let (file, diags) = parse(&SourceFile::new("t.bpg", text));
    assert_eq!(diags, Vec::new());
    let at = |s: sinew::diag::Span| &text[s.range()];
    let n = file.nodes().next().expect("node");
    assert_eq!(at(n.name.span), "step");
    assert_eq!(at(n.kind.span), "event");
    let Some(Subject::Event(EventRef::Animseq {
        sequence,
        notify,
        span,
    })) = &n.subject
    else {
        panic!("{:?}", n.subject)
    };
    assert_eq!((at(sequence.span), at(notify.span)), ("5c1e-8d", "foot_l"));
    assert_eq!(at(*span), "animseq::5c1e-8d.foot_l");
    assert_eq!(at(n.args[0].name.span), "x");
    assert_eq!(at(n.args[0].value.span), "(1, -2.5, 3)");
    let LitValue::Vec3(c) = &n.args[0].value.value else {
        panic!()
    };
    assert_eq!(c[1], (Number::Float(-2.5), c[1].1));
    assert_eq!(at(c[1].1), "-2.5");
    assert_eq!(at(n.at.expect("at").span), "at (4, -5)");
    assert_eq!(at(n.span), &text[8..text.find("\nvar").expect("var")]);
    let v = file.vars().next().expect("var");
    assert_eq!(
        (at(v.name.span), at(v.ty_span), at(v.span)),
        ("v", "vec3", "var v: vec3 = (0, 0, 0)")
    );
    let l = file.links().next().expect("link");
    assert_eq!(
        (at(l.from_pin.span), at(l.to_node.span), at(l.span)),
        ("then", "b", "step.then -> b.exec")
    );
    let e = file.nodes().nth(1).expect("expr");
    let Some(Subject::String(s)) = &e.subject else {
        panic!()
    };
    assert_eq!(
        (s.value.as_str(), at(s.span), at(s.content_span)),
        ("a\"+b", "\"a\\\"+b\"", "a\\\"+b")
    );
}

#[test]
fn syntax_errors_point_at_the_offending_token_and_recover_per_line() {
    check("", &[("E0406", 1, 1)]);
    check("node a = int.add", &[("E0406", 1, 1)]);
    check("graph\n", &[("E0405", 1, 6)]);
    check("graph g h", &[("E0405", 1, 9)]);
    check(
        "graph g\nnode a int.add\nnode b = \nvar x: int = \"s\" 3\nx.y -> z\nnode ok = int.add\nnode c = int.add { a = 1 b = 2 }",
        &[
            ("E0405", 2, 8),
            ("E0405", 3, 9),
            ("E0405", 4, 18),
            ("E0405", 5, 9),
            ("E0405", 7, 26),
        ],
    );
    check("graph g\nvar x: int = 1.5.2", &[("E0405", 2, 17)]);
    check("graph g\nnode a = event animseq::x", &[("E0405", 2, 16)]);
    check(
        "graph g\nnode a = event.send custom:: x",
        &[("E0405", 2, 21)],
    );
    check(
        "graph g\nnode a = int.add { b = 1\nnode b = int.add",
        &[("E0405", 2, 25)],
    );
    check("graph g\nnode a = x \"\\q\"", &[("E0403", 2, 13)]);
    check(
        "graph g\nnode a = x \"open\nnode b = x",
        &[("E0402", 2, 12)],
    );
    check("graph g\nnode a = x { s = \"open }", &[("E0402", 2, 18)]);
    check(
        "graph g\nnode α = x\n\u{0}\nnode b = x €",
        &[("E0401", 2, 6), ("E0401", 3, 1), ("E0401", 4, 12)],
    );
    check("graph g\nvar v: number = 1", &[("E0408", 2, 8)]);
    check("graph g\ngraph h", &[("E0407", 2, 1)]);
    check(
        "graph g\nvar x: int = 99999999999999999999",
        &[("E0404", 2, 14)],
    );
    check("graph g\nnode f = expr \"sin(1, 2)\"", &[("E0413", 2, 16)]);
    check("graph g\nnode f = expr \"a\\\" + b\"", &[("E0401", 2, 17)]);
    check("graph g\nnode f = expr \"\\n\\n x $\"", &[("E0401", 2, 23)]);
}

#[test]
fn syntax_errors_are_capped() {
    // 500 lines `node`: each of the first 498 is a node whose name is missing (the next line
    // looks like an item); the last two read as `node node` (newlines are whitespace) missing
    // `=`: 499 errors.
    let text = format!("graph g\n{}", "node\n".repeat(500));
    let diags = diagnose("t.bpg", &text);
    assert_eq!(diags.len(), sinew::graph::parser::MAX_DIAGNOSTICS + 1);
    assert_eq!(diags.last().map(|d| d.code), Some("E0410"));
    assert!(
        diags
            .last()
            .is_some_and(|d| d.message.starts_with("399 more"))
    );
}

#[test]
fn fmt_refuses_files_with_syntax_errors() {
    let err = format_source(&SourceFile::new("t.bpg", "graph g\nnode a =\n")).expect_err("refused");
    assert_eq!(err.iter().map(|d| d.code).collect::<Vec<_>>(), ["E0405"]);
}

// ---- items spanning lines (newlines are ordinary whitespace) ----

#[test]
fn items_may_span_lines() {
    // Multi-line args, `at` on its own line, a link split after `->`, a subject on the next line.
    check_fmt(
        "graph g\nnode a = int.add {\n    a = 1,\n    b = 2,\n}\n    at (10, 20)\nnode log = debug.log { message = \"hi\" }\nnode s = var.get\n  steps\nstep.then ->\n    log.exec\na\n.out\n->\nb\n.c\n",
        "graph g\n\nnode a = int.add { a = 1, b = 2 } at (10, 20)\nnode log = debug.log { message = \"hi\" }\nnode s = var.get steps\n\nstep.then -> log.exec\na.out -> b.c\n",
    );
    check_fmt(
        "graph\n  g\nvar\n x\n :\n int\n =\n -3\nnode k =\n  int\n  .add\n  at\n  (\n1\n,\n2\n)\n",
        "graph g\n\nvar x: int = -3\n\nnode k = int.add at (1, 2)\n",
    );
}

#[test]
fn items_may_share_a_line() {
    // Item boundaries come from the grammar, so keywords stay usable as identifiers.
    check_fmt(
        "graph g var x: int = 1 var y: int = 2 node n = var.get var node m = var.get node a.b -> c.d e.f -> g.h\n",
        "graph g\n\nvar x: int = 1\nvar y: int = 2\n\nnode n = var.get var\nnode m = var.get node\n\na.b -> c.d\ne.f -> g.h\n",
    );
    check_fmt(
        "graph g\nnode a = flow.branch\nb.x -> c.y\nnode t = event tick.then -> c.exec",
        "graph g\n\nnode a = flow.branch\nnode t = event\n\nb.x -> c.y\ntick.then -> c.exec\n",
    );
}

#[test]
fn multi_line_item_spans_cover_all_their_lines() {
    let text = "graph g\nnode a = int.add {\n  b = 2,\n}\n  at (1, 2)\nx.y ->\n  z.w\n";
    let (file, diags) = parse(&SourceFile::new("t.bpg", text));
    assert_eq!(diags, Vec::new());
    let at = |s: sinew::diag::Span| &text[s.range()];
    let n = file.nodes().next().expect("node");
    assert_eq!(at(n.span), "node a = int.add {\n  b = 2,\n}\n  at (1, 2)");
    assert_eq!(at(n.args[0].span), "b = 2");
    let l = file.links().next().expect("link");
    assert_eq!(at(l.span), "x.y ->\n  z.w");
}

#[test]
fn comments_inside_multi_line_items_move_above_them() {
    check_fmt(
        "graph // h1\n  g // h2\n// above\nnode a = int.add { // opens\n    a = 1, // first\n    // own line inside\n    b = 2,\n} at (1, 2) // end\na.out -> // arrow\n  b.a // after\n// tail\n",
        "// h1\ngraph g // h2\n\n// above\n// opens\n// first\n// own line inside\nnode a = int.add { a = 1, b = 2 } at (1, 2) // end\n\n// arrow\na.out -> b.a // after\n\n// tail\n",
    );
    // Items sharing a line: the end-of-line comment belongs to the last one.
    check_fmt(
        "graph g\nvar x: int = 1 var y: int = 2 // y\n",
        "graph g\n\nvar x: int = 1\nvar y: int = 2 // y\n",
    );
}

#[test]
fn a_line_that_looks_like_an_item_starts_one() {
    // The layout rule: `var IDENT`, `node IDENT`, `graph IDENT` or `IDENT . IDENT ->` at the start
    // of a line begins a new item, so here the node has no subject and `var node` is a broken var.
    check(
        "graph g\nnode a = var.get\nvar\nnode b = x",
        &[("E0405", 3, 4)],
    );
    // Mid-line, `var node b = x` would be a subject `var` then a node (no `:` after `var node`).
    check("graph g\nnode a = var.get var\n  node b = x", &[]);
    check("graph g\nnode a = var.get var node b = x", &[]);
}

#[test]
fn errors_in_multi_line_items_recover_at_the_next_item() {
    check(
        "graph g\nnode a = int.add {\n    a = 1\n    b = 2\n}\nnode ok = int.add\nnode c = int.add { a = }\nok.out ->\n  c.a\nvar v: int =\nnode d = x at (1.5, 2)\nnode e =\n  int.add { a = 1 }\n  at (x, 1)\nvar w: int = 1",
        &[
            ("E0405", 4, 5),
            ("E0405", 7, 24),
            ("E0405", 10, 13),
            ("E0405", 11, 16),
            ("E0405", 14, 7),
        ],
    );
    let (file, _) = parse(&SourceFile::new(
        "t.bpg",
        "graph g\nnode a = int.add {\n  a = 1\n  b = 2\n}\nnode ok = int.add\nok.out ->\n  c.a\nvar w: int = 1",
    ));
    let names: Vec<String> = file
        .items
        .iter()
        .map(|i| match i {
            Item::Var(v) => v.name.name.clone(),
            Item::Node(n) => n.name.name.clone(),
            Item::Link(l) => format!("{}.{}", l.from_node.name, l.from_pin.name),
            Item::Event(e) => format!("custom::{}", e.name.name),
            Item::Box(b) => format!("box {}", b.title.value),
        })
        .collect();
    assert_eq!(names, ["ok", "ok.out", "w"]);
    // Broken item starts are recovery points too, so their errors are not hidden.
    check(
        "graph g\nnode a = x y z\nnode é = x\na.out - b.a\n\u{0}\nvar v int = 1\nnode\n  b = 1,\n}\nvar ok: int = 1",
        &[
            ("E0405", 2, 14),
            ("E0401", 3, 6),
            ("E0401", 4, 7),
            ("E0401", 5, 1),
            ("E0405", 6, 7),
            ("E0405", 8, 7),
        ],
    );
}

/// Inserts `lines` after the first line equal to `anchor`.
fn insert_after(text: &str, anchor: &str, lines: &[&str]) -> String {
    let mut out = Vec::new();
    let mut done = false;
    for line in text.lines() {
        out.push(line.to_string());
        if !done && line == anchor {
            out.extend(lines.iter().map(|l| l.to_string()));
            done = true;
        }
    }
    assert!(done, "anchor {anchor:?} not found");
    out.join("\n") + "\n"
}

#[test]
fn independent_additions_merge_into_a_valid_graph() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let raw = std::fs::read_to_string(root.join("tests/fixtures/graphs/ok/hero_footsteps.bpg"))
        .expect("read");
    let base = format_source(&SourceFile::new("b.bpg", raw.as_str())).expect("clean");
    // Two editors, each adding a node and a link, in canonical form (what `fmt` writes).
    let a_node = "node a_very_long_node_name = debug.log { message = \"a\" } at (0, 300)";
    let a_link = "say.then -> a_very_long_node_name.exec";
    let b_node = "node b = int.add { b = 2 }";
    let b_link = "inc.out -> b.a";
    let edit_a = insert_after(
        &insert_after(&base, "node get = var.get steps at (0, 160)", &[a_node]),
        "set.then -> say.exec",
        &[a_link],
    );
    let edit_b = insert_after(
        &insert_after(
            &base,
            "node step = event animseq::5c1e8d0a-3f2b-4a51-9c67-2b8e4d7f1a10.footstep_l at (0, 0)",
            &[b_node],
        ),
        "step.then -> set.exec",
        &[b_link],
    );
    // Canonical form touches no neighbouring line (no alignment), so each edit is pure insertion.
    for edit in [&edit_a, &edit_b] {
        assert_eq!(
            &format_source(&SourceFile::new("e.bpg", edit.as_str())).expect("clean"),
            edit
        );
    }
    // A three-way merge of two pure insertions in different regions applies both.
    let merged = insert_after(
        &insert_after(
            &edit_a,
            "node step = event animseq::5c1e8d0a-3f2b-4a51-9c67-2b8e4d7f1a10.footstep_l at (0, 0)",
            &[b_node],
        ),
        "step.then -> set.exec",
        &[b_link],
    );
    let (file, diags) = parse(&SourceFile::new("m.bpg", merged.as_str()));
    assert_eq!(diags, Vec::new());
    assert_eq!((file.nodes().count(), file.links().count()), (7, 6));
    assert_eq!(check_round_trip(&merged), Ok(()));
}

#[test]
fn adversarial_inputs_end_in_diagnostics() {
    // A 1 MB string on one line parses; a 1 MB line of garbage is one diagnostic.
    let long = format!(
        "graph g\nnode a = debug.log {{ message = \"{}\" }}\n",
        "x".repeat(1 << 20)
    );
    assert_eq!(diagnose("t.bpg", &long), Vec::new());
    let garbage = format!("graph g\n{}\nnode b = x\n", "é(".repeat(1 << 19));
    check(&garbage, &[("E0401", 2, 1)]);
    let parens = format!("graph g\nnode a = x {}\n", "(".repeat(1 << 20));
    check(&parens, &[("E0405", 2, 12)]);
    // Unterminated strings, non-ASCII and NUL bytes anywhere.
    check("graph g\nvar s: string = \"", &[("E0402", 2, 17)]);
    check("graph g\n\"", &[("E0402", 2, 1)]);
    check(
        "graph g\nnode a = x // ünïcödé \u{0} ok\nvar s: string = \"\u{0}ü\"",
        &[],
    );
    check("\u{0}", &[("E0406", 1, 1)]);
    // Deep nesting inside an expr is a diagnostic, not a stack overflow.
    let deep = format!("graph g\nnode f = expr \"{}\"\n", "(".repeat(100_000));
    check(&deep, &[("E0414", 2, 16 + 64)]);
    let unary = format!("graph g\nnode f = expr \"{}1\"\n", "-".repeat(100_000));
    assert_eq!(
        diagnose("t.bpg", &unary)
            .iter()
            .map(|d| d.code)
            .collect::<Vec<_>>(),
        ["E0414"]
    );
}

#[test]
fn hundred_thousand_nodes_parse_and_format() {
    let mut text = String::from("graph big\n");
    for i in 0..100_000 {
        text.push_str(&format!("node n{i} = int.add {{ b = {i} }} at ({i}, 0)\n"));
    }
    for i in 1..100_000 {
        text.push_str(&format!("n{}.out -> n{i}.a\n", i - 1));
    }
    let (file, diags) = parse(&SourceFile::new("big.bpg", text.as_str()));
    assert_eq!(diags, Vec::new());
    assert_eq!(file.items.len(), 199_999);
    let out = format(&file);
    let expected_nodes = out.lines().filter(|l| l.starts_with("node ")).count();
    assert_eq!(expected_nodes, 100_000);
}

// ---- properties ----

fn ident() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-z_][a-z0-9_]{0,6}",
        1 => prop::sample::select(vec!["graph", "var", "node", "at", "event", "true", "false", "begin_play", "tick", "custom", "animseq"]).prop_map(String::from),
    ]
}

fn ws() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["", " ", "  ", "\t"])
}

fn ws1() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![" ", "  ", "\t "])
}

fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|i| i.to_string()),
        (
            any::<f64>().prop_filter("finite", |f| f.is_finite()),
            any::<bool>()
        )
            .prop_map(|(f, exp)| if exp {
                format!("{f:e}")
            } else {
                format!("{f:?}")
            }),
    ]
}

fn literal() -> impl Strategy<Value = String> {
    prop_oneof![
        number(),
        // Any text but a CR, which ends a line like LF and has no escape.
        "[^\r]*".prop_map(|s: String| format!("\"{}\"", sinew::graph::lexer::escape(&s))),
        prop::sample::select(vec!["true", "false"]).prop_map(String::from),
        (number(), number(), number(), ws())
            .prop_map(|(a, b, c, w)| format!("({w}{a},{w}{b} ,{c})")),
    ]
}

fn subject() -> impl Strategy<Value = String> {
    prop_oneof![
        ident(),
        (
            "[A-Za-z0-9][A-Za-z0-9_-]{0,12}",
            "[A-Za-z0-9][A-Za-z0-9_-]{0,12}"
        )
            .prop_map(|(a, b)| format!("animseq::{a}.{b}")),
        "[A-Za-z_][A-Za-z0-9_]{0,8}".prop_map(|n| format!("custom::{n}")),
        "[ -~]{0,12}".prop_map(|s| format!("\"{}\"", sinew::graph::lexer::escape(&s))),
    ]
}

fn item() -> impl Strategy<Value = String> {
    let ty = prop::sample::select(vec!["bool", "int", "float", "vec3", "string", "entity"]);
    let var = (ident(), ty, literal(), ws(), ws())
        .prop_map(|(n, t, l, a, b)| format!("var {n}{a}:{b}{t}{a}={b}{l}"));
    let args = prop::collection::vec((ident(), literal()), 0..3).prop_map(|a| {
        let parts: Vec<String> = a.into_iter().map(|(n, l)| format!("{n} = {l}")).collect();
        format!("{{{}}}", parts.join(","))
    });
    let path = prop::collection::vec(ident(), 1..3).prop_map(|p| p.join("."));
    let node = (
        ident(),
        path,
        prop::option::of(subject()),
        prop::option::of(args),
        prop::option::of((any::<i64>(), any::<i64>())),
        ws1(),
        ws(),
    )
        .prop_map(|(n, k, s, a, at, w, w0)| {
            let mut line = format!("node{w}{n}{w0}={w0}{k}");
            for part in [s, a, at.map(|(x, y)| format!("at{w0}({x},{w0}{y})"))]
                .into_iter()
                .flatten()
            {
                line.push_str(w);
                line.push_str(&part);
            }
            line
        });
    let link = (ident(), ident(), ident(), ident(), ws())
        .prop_map(|(a, b, c, d, w)| format!("{a}.{b}{w}->{w}{c}.{d}"));
    let comment = "[^\n\r]{0,20}".prop_map(|c| format!("//{c}"));
    (
        prop_oneof![var, node, link],
        prop::collection::vec(comment.clone(), 0..2),
        prop::option::of(comment),
        ws(),
        prop::sample::select(vec!["\n", "\n\n", "\r\n"]),
    )
        .prop_map(|(item, leading, trailing, indent, nl)| {
            let mut s = String::new();
            for c in leading {
                s.push_str(&format!("{indent}{c}\n"));
            }
            s.push_str(indent);
            s.push_str(&item);
            if let Some(t) = trailing {
                s.push(' ');
                s.push_str(&t);
            }
            s.push_str(nl);
            s
        })
}

/// `file` without spans and comments (what must survive re-spacing).
fn bare(file: &File) -> File {
    let mut f = file.without_spans();
    f.header_comments = Default::default();
    f.trailing_comments.clear();
    for item in &mut f.items {
        match item {
            Item::Var(v) => v.comments = Default::default(),
            Item::Node(n) => n.comments = Default::default(),
            Item::Link(l) => l.comments = Default::default(),
            Item::Event(e) => e.comments = Default::default(),
            Item::Box(b) => b.comments = Default::default(),
        }
    }
    f
}

/// Every comment attached anywhere in `file`.
fn comment_count(file: &File) -> usize {
    let c = |c: &sinew::graph::ast::Comments| c.leading.len() + usize::from(c.trailing.is_some());
    c(&file.header_comments)
        + file.trailing_comments.len()
        + file.items.iter().map(|i| c(i.comments())).sum::<usize>()
}

/// Rewrites the whitespace between the tokens of `text` as `choices` say (0 keep, 1 newline,
/// 2 newline and indent, 3 one space), within the documented rule: a newline is never put before
/// a token that looks like an item start (`var IDENT`, `node IDENT`, `graph IDENT`,
/// `IDENT . IDENT ->`) unless one was there, and a comment keeps the newline after it.
fn respace(text: &str, choices: &[u8]) -> String {
    use sinew::graph::lexer::{Tok, lex};
    let toks = lex(text);
    let word = |i: usize| toks.tokens.get(i).map(|t| &text[t.span.range()]);
    let kind = |i: usize| toks.tokens.get(i).map(|t| t.kind);
    let looks_like_item = |i: usize| {
        (matches!(word(i), Some("var" | "node" | "graph")) && kind(i + 1) == Some(Tok::Ident))
            || (word(i) == Some("event") && kind(i + 1) == Some(Tok::CustomRef))
            || (kind(i) == Some(Tok::Ident)
                && kind(i + 1) == Some(Tok::Dot)
                && kind(i + 2) == Some(Tok::Ident)
                && kind(i + 3) == Some(Tok::Arrow))
    };
    // Tokens and comments in source order: (span, token index or None for a comment).
    let mut all: Vec<(sinew::diag::Span, Option<usize>)> = toks
        .tokens
        .iter()
        .enumerate()
        .map(|(i, t)| (t.span, Some(i)))
        .chain(toks.comments.iter().map(|c| (c.span, None)))
        .collect();
    all.sort_by_key(|(s, _)| s.start);
    let mut out = String::new();
    let mut prev_end = 0usize;
    let mut prev_comment = false;
    for (k, (span, tok)) in all.iter().enumerate() {
        let gap = &text[prev_end..span.start as usize];
        let choice = choices.get(k).copied().unwrap_or(0);
        let newline_ok = tok.is_none_or(|i| !looks_like_item(i));
        if k == 0 {
            out.push_str(gap);
        } else if gap.contains('\n') {
            out.push_str(match choice {
                3 if !prev_comment => " ",
                2 => "\n  ",
                _ => "\n",
            });
        } else {
            out.push_str(match choice {
                1 if newline_ok => "\n",
                2 if newline_ok => "\n    ",
                3 => " ",
                _ => gap,
            });
        }
        out.push_str(&text[span.range()]);
        prev_end = span.end as usize;
        prev_comment = tok.is_none();
    }
    out.push_str(&text[prev_end..]);
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn generated_graphs_parse_and_format_idempotently(name in ident(), items in prop::collection::vec(item(), 0..12)) {
        let text = format!("graph {name}\n{}", items.concat());
        let (file, diags) = parse(&SourceFile::new("p.bpg", text.as_str()));
        prop_assert_eq!(diags, Vec::new(), "{}", text);
        prop_assert_eq!(file.items.len(), items.len());
        prop_assert_eq!(check_round_trip(&text), Ok(()));
    }

    #[test]
    fn token_soup_never_breaks_the_formatter_contract(parts in prop::collection::vec(prop::sample::select(vec![
        "graph", "node", "var", "g", "a", "at", "true", "tick", "event", "=", "{", "}", "(", ")", ",", ".",
        ":", "::", "->", "\"s\"", "\"open", "\"\\q\"", "1", "-2.5", "1e999", "animseq::a.b", "custom::x",
        "// c", "\n", " ", "\n", "é", "\u{0}", "-", "int", "string",
    ]), 0..40)) {
        let text = parts.concat();
        prop_assert_eq!(check_round_trip(&text), Ok(()));
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let text = String::from_utf8_lossy(&bytes);
        prop_assert_eq!(check_round_trip(&text), Ok(()));
        let _ = expr::parse(&text);
    }

    #[test]
    fn newlines_between_tokens_do_not_change_the_tree(
        name in ident(),
        items in prop::collection::vec(item(), 0..8),
        choices in prop::collection::vec(0u8..4, 0..300),
    ) {
        let text = format!("graph {name}\n{}", items.concat());
        let (file, diags) = parse(&SourceFile::new("p.bpg", text.as_str()));
        prop_assert_eq!(diags, Vec::new(), "{}", text);
        let canonical = format(&file);
        let (expected, _) = parse(&SourceFile::new("c.bpg", canonical.as_str()));
        let spaced = respace(&canonical, &choices);
        let (got, diags) = parse(&SourceFile::new("s.bpg", spaced.as_str()));
        prop_assert_eq!(diags, Vec::new(), "{}", spaced);
        prop_assert_eq!(bare(&got), bare(&expected), "{}", spaced);
        // Comments may move between items, but none is lost, and formatting stays a fixpoint.
        prop_assert_eq!(comment_count(&got), comment_count(&expected), "{}", spaced);
        prop_assert_eq!(check_round_trip(&spaced), Ok(()));
    }
}

#[test]
fn a_lone_cr_is_a_line_break_in_comments_and_strings() {
    // Issue 24, item 5: every editor shows a lone CR as a line break, so the lexer ends a
    // comment or a string there too; what follows is never comment or string text.
    check_fmt(
        "graph g\r// note\rnode evil = debug.log\r",
        "graph g\n\n// note\nnode evil = debug.log\n",
    );
    check_fmt(
        "graph g\r\n// note\r\nnode a = k // end\r\n",
        "graph g\n\n// note\nnode a = k // end\n",
    );
    check("graph g\nnode a = x { s = \"open\r}", &[("E0402", 2, 18)]);
}
