//! `graph::model`: the graph as data, its `model` JSON, and the one `.bpg` writer it shares with
//! the formatter. Properties: model → text → model is the identity, text → model → text is
//! `fmt`'s output, every comment survives, moving a node changes one line, and nothing a model
//! holds can inject text that reads back as something else.

mod support;

use proptest::prelude::*;
use sinew::diag::SourceFile;
use sinew::graph::model::{Model, Value, normalize_comment};
use sinew::graph::{format_source, parse};
use std::path::Path;
use support::modelgen;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every graph the repository ships that parses cleanly.
fn clean_graphs() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for dir in ["tests/fixtures/graphs/ok", "graphs/demo", "graphs"] {
        let mut names: Vec<_> = std::fs::read_dir(root().join(dir))
            .expect("fixture folder")
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "bpg"))
            .collect();
        names.sort();
        for p in names {
            let text = std::fs::read_to_string(&p).expect("read");
            out.push((p.display().to_string(), text));
        }
    }
    out
}

fn model_of(text: &str) -> Model {
    Model::parse(&SourceFile::new("t.bpg", text)).unwrap_or_else(|d| panic!("{d:?}\n{text}"))
}

fn comment_count_text(text: &str) -> usize {
    sinew::graph::lexer::lex(text).comments.len()
}

fn comment_count_model(m: &Model) -> usize {
    let block = |s: &str| {
        if s.is_empty() {
            0
        } else {
            s.split('\n').count()
        }
    };
    let line = |l: &Option<String>| usize::from(l.is_some());
    block(&m.comment)
        + line(&m.line_comment)
        + block(&m.end_comment)
        + m.events
            .iter()
            .map(|e| block(&e.comment) + line(&e.line_comment))
            .sum::<usize>()
        + m.vars
            .iter()
            .map(|v| block(&v.comment) + line(&v.line_comment))
            .sum::<usize>()
        + m.boxes
            .iter()
            .map(|v| block(&v.comment) + line(&v.line_comment))
            .sum::<usize>()
        + m.nodes
            .iter()
            .map(|v| block(&v.comment) + line(&v.line_comment))
            .sum::<usize>()
        + m.links
            .iter()
            .map(|v| block(&v.comment) + line(&v.line_comment))
            .sum::<usize>()
}

/// The full contract on one clean text.
fn check_text(text: &str) {
    let m = model_of(text);
    let canonical = format_source(&SourceFile::new("t.bpg", text)).expect("clean");
    assert_eq!(
        m.to_text(),
        canonical,
        "text → model → text is fmt's output"
    );
    assert_eq!(model_of(&canonical), m, "model → text → model");
    assert_eq!(m.validate(), Ok(()));
    assert_eq!(comment_count_model(&m), comment_count_text(text), "{text}");
    let json = serde_json::to_string(&m).expect("serialize");
    let back: Model = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}\n{json}"));
    assert_eq!(back, m, "JSON round trip");
}

#[test]
fn shipped_graphs_round_trip_through_the_model() {
    let graphs = clean_graphs();
    assert!(graphs.len() >= 9, "{}", graphs.len());
    for (name, text) in graphs {
        eprintln!("{name}");
        check_text(&text);
    }
}

#[test]
fn hero_model_json_has_the_studio_shape() {
    let text = std::fs::read_to_string(root().join("tests/fixtures/graphs/ok/hero_footsteps.bpg"))
        .unwrap();
    let json = serde_json::to_string_pretty(&model_of(&text)).unwrap();
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("graph_model_hero_footsteps", json);
    });
}

#[test]
fn the_spec_example_reads_and_writes() {
    let json = r#"{"graph": "hero", "vars": [{"name": "steps", "type": "int", "default": 0}],
 "nodes": [{"id": "step_l", "kind": "event animseq::S.footstep_l", "x": 0, "y": 0,
            "props": {"count": 2}, "comment": "..."},
           {"id": "set", "kind": "var.set steps", "x": null, "y": null}],
 "links": [{"from": "step_l.then", "to": "set.exec"}]}"#;
    let m: Model = serde_json::from_str(json).expect("valid");
    assert_eq!(
        m.to_text(),
        "graph hero\n\nvar steps: int = 0\n\n// ...\nnode step_l = event animseq::S.footstep_l \
         { count = 2 } at (0, 0)\nnode set = var.set steps\n\nstep_l.then -> set.exec\n"
    );
    assert_eq!(m.nodes[0].comment, "// ...");
    assert_eq!(m.nodes[0].kind_path(), "event");
    assert_eq!(m.nodes[0].subject(), Some("animseq::S.footstep_l"));
    assert_eq!(m.nodes[1].at(), None);
}

#[test]
fn values_keep_int_float_and_vec3_as_written() {
    let m = model_of(
        "graph g\nvar a: float = 3\nvar b: float = 3.0\nvar c: vec3 = (1, 2.5, -0.0)\nvar d: float = 1e300\n",
    );
    let json = serde_json::to_value(&m).unwrap();
    assert_eq!(
        json["vars"],
        serde_json::json!([
            {"name": "a", "type": "float", "default": 3},
            {"name": "b", "type": "float", "default": 3.0},
            {"name": "c", "type": "vec3", "default": [1, 2.5, -0.0]},
            {"name": "d", "type": "float", "default": 1e300},
        ])
    );
    let back: Model = serde_json::from_value(json).unwrap();
    assert_eq!(back.vars[0].default, Value::Int(3));
    assert_eq!(back.vars[1].default, Value::Float(3.0));
    assert_eq!(back, m);
}

#[test]
fn props_keep_their_authored_order() {
    let m = model_of("graph g\nnode n = k { z = 1, a = 2, m = \"x\" }\n");
    let json = serde_json::to_string(&m.nodes[0].props).unwrap();
    assert_eq!(json, r#"{"z":1,"a":2,"m":"x"}"#);
    let back: Model = serde_json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
    assert_eq!(back.to_text(), m.to_text());
}

#[test]
fn every_comment_of_the_file_is_in_the_model() {
    let text = "// file\n// header too\ngraph g // header\n\n// about v\nvar v: int = 1 // v\n\n\
                // about n\nnode n = k at (1, 2) // n\n\n// about l\nn.a -> n.b // l\n\n// end\n// end 2\n";
    let m = model_of(text);
    assert_eq!(m.comment, "// file\n// header too");
    assert_eq!(m.line_comment.as_deref(), Some("// header"));
    assert_eq!(m.vars[0].comment, "// about v");
    assert_eq!(m.nodes[0].line_comment.as_deref(), Some("// n"));
    assert_eq!(m.links[0].comment, "// about l");
    assert_eq!(m.end_comment, "// end\n// end 2");
    assert_eq!(m.to_text(), text);
    check_text(text);
}

#[test]
fn comments_from_an_editor_are_normalized() {
    assert_eq!(
        normalize_comment("hello\n\n  world  \n//x"),
        "// hello\n// world\n//x"
    );
    assert_eq!(normalize_comment(""), "");
    let json = r#"{"graph": "g", "nodes": [{"id": "a", "kind": "k", "comment": "note\r\nsecond", "line_comment": "end"}]}"#;
    let m: Model = serde_json::from_str(json).expect("normalized");
    assert_eq!(
        m.to_text(),
        "graph g\n\n// note\n// second\nnode a = k // end\n"
    );
}

#[test]
fn a_lone_cr_in_an_editor_comment_is_a_line_break_never_a_forged_line() {
    // Issue 24, item 5: the studio's comment with a lone CR becomes two comment lines; a line
    // comment or a string holding one cannot be written as one line, so it is refused.
    assert_eq!(
        normalize_comment("note\rnode evil = debug.log\r\rgraph h"),
        "// note\n// node evil = debug.log\n// graph h"
    );
    let json = r#"{"graph": "g", "comment": "a\rgraph h", "nodes": [{"id": "a", "kind": "k", "comment": "note\rnode evil = debug.log"}]}"#;
    let m: Model = serde_json::from_str(json).expect("normalized");
    assert_eq!(
        m.to_text(),
        "// a\n// graph h\ngraph g\n\n// note\n// node evil = debug.log\nnode a = k\n"
    );
    let node = |fields: &str| format!(r#"{{"graph": "g", "nodes": [{{"id": "a", {fields}}}]}}"#);
    refused(
        &node(r#""kind": "k", "line_comment": "// a\rnode evil = k""#),
        "nodes[0] (`a`)",
    );
    refused(
        &node(r#""kind": "debug.log", "props": {"message": "a\rnode evil = k"}"#),
        "nodes[0] (`a`)",
    );
}

#[test]
fn moving_a_node_changes_one_line() {
    let text = std::fs::read_to_string(root().join("graphs/demo/hero.bpg")).unwrap();
    let mut m = model_of(&text);
    let before = m.to_text();
    m.nodes[3].x = Some(1234);
    m.nodes[3].y = Some(-5);
    let after = m.to_text();
    let changed: Vec<(&str, &str)> = before
        .lines()
        .zip(after.lines())
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(before.lines().count(), after.lines().count());
    assert_eq!(
        changed,
        [(
            "node remember = var.set friend",
            "node remember = var.set friend at (1234, -5)"
        )]
    );
}

/// Deserializes `json` and expects an error containing `needle`.
fn refused(json: &str, needle: &str) {
    match serde_json::from_str::<Model>(json) {
        Ok(m) => panic!("accepted {json}:\n{}", m.to_text()),
        Err(e) => assert!(
            e.to_string().contains(needle),
            "error {e:?} does not mention {needle:?}"
        ),
    }
}

#[test]
fn models_that_would_inject_text_are_refused_by_name() {
    let node = |fields: &str| format!(r#"{{"graph": "g", "nodes": [{{"id": "a", {fields}}}]}}"#);
    refused(
        &node(r#""kind": "int.add at (1, 2)""#),
        "nodes[0] (`a`): kind",
    );
    refused(
        &node(r#""kind": "int.add\nnode evil = debug.log""#),
        "nodes[0] (`a`)",
    );
    refused(
        &node(r#""kind": "int.add { b = 1 }""#),
        "nodes[0] (`a`): kind",
    );
    refused(&node(r#""kind": "int.add // x""#), "nodes[0] (`a`)");
    refused(&node(r#""kind": "", "x": 1, "y": 2"#), "nodes[0] (`a`)");
    refused(&node(r#""kind": "k", "x": 1"#), "x and y");
    refused(&node(r#""kind": "k", "x": 1.5, "y": 2"#), "");
    refused(
        &node(r#""kind": "k", "line_comment": "// a\n// b""#),
        "nodes[0] (`a`)",
    );
    refused(
        &node(r#""kind": "k", "props": {"b = 1, c": 2}"#),
        "nodes[0] (`a`): props",
    );
    refused(
        &node(r#""kind": "k", "props": {"b": 18446744073709551615}"#),
        "out of range",
    );
    refused(&node(r#""kind": "k", "props": {"b": null}"#), "literal");
    refused(&node(r#""kind": "k", "props": {"b": [1, 2]}"#), "3 numbers");
    refused(&node(r#""kind": "k", "extra": 1"#), "unknown field");
    refused(
        r#"{"graph": "g", "nodes": [{"id": "a b", "kind": "k"}]}"#,
        "nodes[0] (`a b`)",
    );
    refused(r#"{"graph": "g h"}"#, "graph header");
    refused(r#"{"graph": "g\nnode x = k"}"#, "graph header");
    refused(
        r#"{"graph": "g", "vars": [{"name": "v", "type": "double", "default": 0}]}"#,
        "unknown type `double`",
    );
    refused(
        r#"{"graph": "g", "links": [{"from": "a", "to": "b.c"}]}"#,
        "not `node.pin`",
    );
    refused(
        r#"{"graph": "g", "links": [{"from": "a.b.c", "to": "b.c"}]}"#,
        "links[0]",
    );
    // A string value holding quotes and newlines is escaped, not injected.
    let m: Model = serde_json::from_str(
        r#"{"graph": "g", "nodes": [{"id": "a", "kind": "debug.log", "props": {"message": "\" }\nnode x = k"}}]}"#,
    )
    .expect("strings are escaped");
    assert_eq!(
        m.to_text(),
        "graph g\n\nnode a = debug.log { message = \"\\\" }\\nnode x = k\" }\n"
    );
}

#[test]
fn a_file_with_syntax_errors_has_no_model() {
    let err = Model::parse(&SourceFile::new("t.bpg", "graph g\nnode a =\n")).unwrap_err();
    assert_eq!(err[0].code, "E0405");
}

/// Adds positions and comments to a generated graph's lines, driven by `choices`.
fn decorate(text: &str, choices: &[u16]) -> String {
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        let c = choices.get(i).copied().unwrap_or(0);
        if c % 5 == 1 {
            out.push_str(&format!("  // about line {i}\n"));
        }
        out.push_str(line);
        if line.starts_with("node ") && c % 3 != 0 {
            out.push_str(&format!(" at ({}, {})", (c as i64) * 7 - 300, i * 40));
        }
        if c % 7 == 2 {
            out.push_str(" //end");
        }
        out.push('\n');
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn generated_models_write_text_that_reads_back_as_themselves(m in modelgen::model()) {
        let text = m.to_text();
        prop_assert_eq!(m.validate(), Ok(()), "{}", text);
        let (file, diags) = parse(&SourceFile::new("m.bpg", text.as_str()));
        prop_assert!(diags.is_empty(), "{:?}\n{}", diags, text);
        prop_assert_eq!(&Model::from_file(&file), &m);
        // The text is canonical: fmt leaves it alone.
        prop_assert_eq!(format_source(&SourceFile::new("m.bpg", text.as_str())).unwrap(), text.clone());
        prop_assert_eq!(comment_count_model(&m), comment_count_text(&text));
        let json = serde_json::to_string(&m).unwrap();
        let back: Model = serde_json::from_str(&json).map_err(|e| TestCaseError::fail(format!("{e}\n{json}")))?;
        prop_assert_eq!(back, m);
    }

    #[test]
    fn moving_any_node_changes_exactly_its_line(m in modelgen::model(), pick in any::<prop::sample::Index>(), x in -9999i64..9999, y in -9999i64..9999) {
        prop_assume!(!m.nodes.is_empty());
        let i = pick.index(m.nodes.len());
        let before = m.to_text();
        let mut moved = m.clone();
        moved.nodes[i].x = Some(x);
        moved.nodes[i].y = Some(y);
        let after = moved.to_text();
        let a: Vec<&str> = before.lines().collect();
        let b: Vec<&str> = after.lines().collect();
        prop_assert_eq!(a.len(), b.len());
        let changed = a.iter().zip(&b).filter(|(p, q)| p != q).count();
        prop_assert!(changed <= 1, "{}\n---\n{}", before, after);
    }

    #[test]
    fn generated_graphs_with_layout_and_comments_round_trip(
        choices in prop::collection::vec(any::<u16>(), 0..300),
        deco in prop::collection::vec(any::<u16>(), 0..200),
    ) {
        let text = decorate(&support::graphgen::graph(&choices), &deco);
        check_text(&text);
    }
}
