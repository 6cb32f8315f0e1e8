//! `picture`: SVG pictures of graphs and state machines. One insta snapshot (the SVG text) per
//! `tests/fixtures/graphs/ok` fixture and demo graph, checked for determinism, well-formed markup and the test
//! hooks inside `check`; markup characters in names are escaped; erroring nodes are marked.

mod support;

use proptest::prelude::*;
use sinew::catalog::scan::LiveCatalog;
use sinew::diag::SourceFile;
use sinew::graph::Model;
use sinew::picture::{self, state_machine::state_machine_svg};
use std::path::Path;
use std::sync::OnceLock;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn catalog(dir: &str) -> &'static LiveCatalog {
    static FIXTURE: OnceLock<LiveCatalog> = OnceLock::new();
    static ASSETS: OnceLock<LiveCatalog> = OnceLock::new();
    let cell = if dir == "assets" { &ASSETS } else { &FIXTURE };
    cell.get_or_init(|| LiveCatalog::scan(&root().join(dir), None, None).expect("catalog"))
}

/// A minimal well-formedness check: every `<` opens or closes a known element or is a
/// comment, tags balance, and attribute values contain no raw `<`, `>` or `&` that is not an
/// entity.
fn assert_well_formed(svg: &str) {
    let mut stack: Vec<&str> = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find('<') {
        let after = &rest[i + 1..];
        let end = after.find('>').expect("unclosed tag");
        let tag = &after[..end];
        assert!(!tag.contains('<'), "`<` inside a tag: {tag}");
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop(), Some(name), "unbalanced </{name}>");
        } else if !tag.ends_with('/') {
            let name = tag.split([' ', '\n']).next().unwrap_or("");
            stack.push(name);
        }
        // Text between tags: `&` only as an entity.
        let text_end = after[end + 1..]
            .find('<')
            .map_or(after.len(), |k| end + 1 + k);
        let text = &after[end + 1..text_end];
        for (k, _) in text.match_indices('&') {
            let ent = &text[k..];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"]
                    .iter()
                    .any(|e| ent.starts_with(e)),
                "raw & in text: {ent:.20}"
            );
        }
        rest = &after[end + 1..];
    }
    assert!(stack.is_empty(), "unclosed elements: {stack:?}");
}

/// Draws a graph source, checks determinism, markup and hooks, and returns the SVG.
fn check(name: &str, text: &str, assets: &str) -> String {
    let src = SourceFile::new(name, text);
    let svg = picture::graph_svg(&src, catalog(assets).catalog())
        .unwrap_or_else(|d| panic!("{name} does not parse: {d:?}"));
    let again = picture::graph_svg(&src, catalog(assets).catalog()).unwrap();
    assert_eq!(svg, again, "{name}: same input, same bytes");
    assert_well_formed(&svg);
    let model = Model::parse(&src).unwrap();
    for n in &model.nodes {
        let hook = format!("data-node-id=\"{}\"", picture::svg::escape(&n.id));
        assert!(svg.contains(&hook), "{name}: no {hook}");
    }
    for l in &model.links {
        let hook = format!(
            "data-link=\"{} -&gt; {}\"",
            picture::svg::escape(&l.from.to_string()),
            picture::svg::escape(&l.to.to_string())
        );
        assert!(svg.contains(&hook), "{name}: no {hook}");
    }
    // Readable text: no font below 12 px.
    for (k, _) in svg.match_indices("font-size:") {
        let px: String = svg[k + 10..]
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect();
        assert!(px.parse::<u32>().unwrap() >= 12, "{name}: tiny font {px}px");
    }
    svg
}

fn snapshot(name: &str, value: &str) {
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(name, value);
    });
}

fn bpg_files(dir: &str) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(root().join(dir))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "bpg"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_ok_fixture_has_a_reviewed_picture() {
    let files = bpg_files("tests/fixtures/graphs/ok");
    assert!(files.len() >= 6);
    for p in files {
        let stem = p.file_stem().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&p).unwrap();
        let svg = check(
            &format!("tests/fixtures/graphs/ok/{stem}.bpg"),
            &text,
            "tests/fixtures/catalog",
        );
        snapshot(&format!("picture_ok_{stem}"), &svg);
    }
}

#[test]
fn the_demo_graphs_have_reviewed_pictures() {
    let mut files = bpg_files("graphs/demo");
    files.push(root().join("graphs/hero_footsteps.bpg"));
    for p in files {
        let stem = p.file_stem().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&p).unwrap();
        let svg = check(&format!("{stem}.bpg"), &text, "assets");
        snapshot(&format!("picture_demo_{stem}"), &svg);
        // The demo compiles cleanly: nothing is marked.
        assert!(!svg.contains(" has-error"), "{stem}");
    }
}

#[test]
fn the_committed_docs_picture_is_current() {
    let text = std::fs::read_to_string(root().join("graphs/demo/hero.bpg")).unwrap();
    let svg = check("hero.bpg", &text, "assets");
    let committed = std::fs::read_to_string(root().join("docs/hero.svg")).unwrap_or_default();
    assert!(
        committed == svg,
        "docs/hero.svg is stale: run `cargo run -- graph graphs/demo/hero.bpg --svg docs/hero.svg`"
    );
}

#[test]
fn pictures_use_the_blueprint_conventions() {
    let text = "graph g\nnode b = event begin_play at (0, 0)\nnode l = debug.log { message = \"hi\" } at (220, 0)\n\
                node n = int.add { b = 2 } at (0, 120)\nnode s = flow.sequence { count = 3 } at (440, 0)\n\
                node a = anim.set_state { state = \"run\" } at (660, 0)\nvar v: float = 1.5\nnode g = var.get v at (0, 240)\n\
                b.then -> l.exec\nl.then -> s.exec\ns.then_0 -> a.exec\nn.out -> n.a\n";
    let svg = check("g.bpg", text, "tests/fixtures/catalog");
    for family in [
        "f-event",
        "f-function",
        "f-math",
        "f-flow",
        "f-animation",
        "f-variable",
    ] {
        assert!(svg.contains(family), "{family}");
    }
    // Exec wires and data wires differ; literals sit on their pins; properties in rows.
    assert!(svg.contains("class=\"wire t-exec\" data-link=\"b.then -&gt; l.exec\""));
    assert!(svg.contains("class=\"wire t-int"));
    assert!(svg.contains("<tspan class=\"lit\">&quot;hi&quot;</tspan>"));
    assert!(svg.contains("data-prop=\"count\""));
    assert!(svg.contains("data-pin=\"s.then_2\""));
    assert!(
        !svg.contains("data-pin=\"s.then_3\""),
        "count = 3 draws three outputs"
    );
    assert!(svg.contains("data-pin=\"g.value\""));
    assert!(
        svg.contains("class=\"pin out t-float\" data-pin=\"g.value\""),
        "typed from the variable"
    );
    // Nodes at their positions.
    assert!(svg.contains("data-node-id=\"s\" transform=\"translate(440 0)\""));
}

#[test]
fn erroring_nodes_are_marked_with_their_codes() {
    let text =
        std::fs::read_to_string(root().join("tests/fixtures/graphs/err/unknown_kind.bpg")).unwrap();
    let svg = check("unknown_kind.bpg", &text, "tests/fixtures/catalog");
    assert!(svg.contains("class=\"node f-unknown has-error\" data-node-id=\"add\""));
    assert!(svg.contains("data-diagnostic-code=\"E0302\""));
    assert!(svg.contains("did you mean `int.add`?"));
    let text = "graph g\nnode a = event begin_play\nnode b = debug.log\na.then -> b.nope\na.then -> b.exec\n";
    let svg = check("g.bpg", text, "tests/fixtures/catalog");
    assert!(svg.contains("class=\"pin in t-unknown on bad\" data-pin=\"b.nope\""));
    assert!(svg.contains("wire t-exec bad\" data-link=\"a.then -&gt; b.nope\""));
    for p in bpg_files("tests/fixtures/graphs/err") {
        let text = std::fs::read_to_string(&p).unwrap();
        let src = SourceFile::new("e.bpg", text.as_str());
        // Syntax errors refuse; every other erroring graph still draws, marked.
        match picture::graph_svg(&src, catalog("tests/fixtures/catalog").catalog()) {
            Err(d) => assert!(d.iter().all(|d| d.code.starts_with("E04")), "{p:?}"),
            Ok(svg) => {
                assert_well_formed(&svg);
                assert!(svg.contains("data-diagnostic-code"), "{p:?} marks nothing");
            }
        }
    }
}

#[test]
fn markup_characters_in_names_are_escaped() {
    // Identifiers cannot hold markup, but strings, comments and subjects can.
    let text = "// <script>alert(1)</script> & \"x\"\ngraph g // ]]></svg>\n\
                var s: string = \"</text><script>\"\n\
                // </g><g onload='x'>\nnode a = debug.log { message = \"<b>&amp;</b>\" } // '\"<>\n\
                node e = expr \"a < b\"\nnode c = event animseq::x-y.z_\n";
    let svg = check("g.bpg", text, "tests/fixtures/catalog");
    assert!(!svg.contains("<script"));
    assert!(!svg.contains("<b>"));
    assert!(!svg.contains("onload='"));
    assert!(svg.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;"));
    assert!(svg.contains("&lt;/g&gt;&lt;g onload=&#39;x&#39;&gt;"));
    assert_eq!(
        picture::svg::escape("a\u{0}b\u{1b}c\u{fffe}"),
        "a\u{fffd}b\u{fffd}c\u{fffd}"
    );
}

#[test]
fn nodes_without_positions_are_laid_out_left_to_right() {
    let text = "graph g\nnode a = event begin_play\nnode b = debug.log\nnode c = debug.log\n\
                node d = debug.log at (0, 0)\na.then -> b.exec\nb.then -> c.exec\n";
    let p = picture::graph_picture(&SourceFile::new("g.bpg", text), catalog("assets").catalog())
        .unwrap();
    let rects = picture::layout::place(&p);
    assert_eq!((rects[3].x, rects[3].y), (0, 0), "a placed node stays");
    assert!(
        rects[0].x < rects[1].x && rects[1].x < rects[2].x,
        "{rects:?}"
    );
    assert!(
        rects[0].y > rects[3].y + rects[3].h,
        "below the placed nodes"
    );
    for i in 0..3 {
        for j in i + 1..3 {
            let (a, b) = (rects[i], rects[j]);
            let apart =
                a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
            assert!(apart, "{a:?} overlaps {b:?}");
        }
    }
}

#[test]
fn huge_graphs_draw_within_the_limits() {
    let mut text = String::from("graph big\n");
    for i in 0..(picture::MAX_NODES + 5) {
        text.push_str(&format!(
            "node n{i} = debug.log at ({}, {})\n",
            (i % 100) * 220,
            (i / 100) * 120
        ));
    }
    let src = SourceFile::new("big.bpg", text.as_str());
    let svg = picture::graph_svg(&src, catalog("assets").catalog()).unwrap();
    assert!(svg.contains("5 more nodes not drawn"));
    assert_eq!(svg.matches("data-node-id=").count(), picture::MAX_NODES);
    // A long comment is cut to a bounded note.
    let long = format!("graph g\n{}node a = debug.log\n", "// x\n".repeat(500));
    let svg = check("g.bpg", &long, "assets");
    assert!(svg.contains("… 494 more lines"));
    assert!(svg.len() < 8000, "{}", svg.len());
}

#[test]
fn state_machines_draw_states_entry_and_transitions() {
    let text = std::fs::read_to_string(root().join("assets/hero.animsm")).unwrap();
    let svg = state_machine_svg(&SourceFile::new("hero.animsm", text.as_str())).unwrap();
    assert_eq!(
        svg,
        state_machine_svg(&SourceFile::new("hero.animsm", text.as_str())).unwrap()
    );
    assert_well_formed(&svg);
    assert!(svg.contains("data-entry=\"true\""));
    assert!(svg.contains("data-state=\"idle\""));
    assert!(svg.contains("data-transition=\"idle -&gt; move\""));
    assert!(svg.contains("speed &gt; 0.1 · 0.25 s"));
    snapshot("picture_animsm_hero", &svg);
    let odd = "StateMachine(entry: \"a\", states: [(name: \"a\", motion: Clip(\"<x>\"))], \
               transitions: [(from: \"*\", to: \"gone\", blend: 0.1, when: [Finished])])";
    let svg = state_machine_svg(&SourceFile::new("odd.animsm", odd)).unwrap();
    assert_well_formed(&svg);
    assert!(svg.contains("data-state=\"gone\""));
    assert!(svg.contains("no such state"));
    assert!(svg.contains("clip &lt;x&gt;"));
    assert!(state_machine_svg(&SourceFile::new("bad.animsm", "StateMachine(")).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_graphs_draw_deterministically(choices in prop::collection::vec(any::<u16>(), 0..300)) {
        let text = support::graphgen::graph(&choices);
        check("r.bpg", &text, "tests/fixtures/catalog");
    }

    #[test]
    fn random_models_draw_without_panicking(m in support::modelgen::model()) {
        let svg = picture::model_svg(&m);
        assert_well_formed(&svg);
    }
}
