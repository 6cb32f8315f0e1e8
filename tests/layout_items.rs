//! Comment boxes and reroute nodes are layout only (`spec/studio.md`, "Format: comment boxes and
//! reroute nodes"): over every compiling fixture and demo graph, adding boxes, and putting one
//! or two reroutes into any wire, builds the same bytes; `sinew diff` reports both as layout.

use sinew::catalog::scan::LiveCatalog;
use sinew::compile;
use sinew::diag::SourceFile;
use sinew::graph::diff::diff;
use sinew::graph::model::{BoxDef, Link, Model, Node, PinRef, Props};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn catalog(dir: &'static str) -> &'static LiveCatalog {
    static FIXTURES: OnceLock<LiveCatalog> = OnceLock::new();
    static ASSETS: OnceLock<LiveCatalog> = OnceLock::new();
    let cell = if dir == "assets" { &ASSETS } else { &FIXTURES };
    cell.get_or_init(|| LiveCatalog::scan(Path::new(dir), None, None).expect("catalog"))
}

/// Every graph that compiles, with the catalog it compiles against.
fn graphs() -> Vec<(PathBuf, &'static LiveCatalog)> {
    let mut out = Vec::new();
    for (dir, cat) in [
        ("tests/fixtures/graphs/ok", "tests/fixtures/catalog"),
        ("graphs/demo", "assets"),
    ] {
        let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "bpg"))
            .collect();
        v.sort();
        out.extend(v.into_iter().map(|p| (p, catalog(cat))));
    }
    out
}

fn bytes(text: &str, cat: &LiveCatalog) -> Option<Vec<u8>> {
    let c = compile::compile(&SourceFile::new("g.bpg", text), cat.catalog());
    c.module.map(|m| m.module().encode())
}

fn reroute(id: &str) -> Node {
    Node {
        id: id.into(),
        kind: "reroute".into(),
        x: Some(10),
        y: Some(20),
        props: Props::default(),
        comment: String::new(),
        line_comment: None,
    }
}

/// The model with link `k` split by `n` reroutes in a chain (`from -> r0.in`, `r0.out ->
/// r1.in`, …, `rN.out -> to`), the new links where the old one was.
fn rerouted(m: &Model, k: usize, n: usize, tag: &str) -> Model {
    let mut out = m.clone();
    let old = out.links.remove(k);
    let ids: Vec<String> = (0..n).map(|i| format!("rr_{tag}_{i}")).collect();
    let mut chain = Vec::new();
    let mut from = old.from.clone();
    for id in &ids {
        chain.push(Link {
            from,
            to: PinRef::new(id, "in"),
            comment: String::new(),
            line_comment: None,
        });
        from = PinRef::new(id, "out");
    }
    chain.push(Link { from, ..old });
    for (i, l) in chain.into_iter().enumerate() {
        out.links.insert(k + i, l);
    }
    // Reroutes go anywhere among the nodes: first, last, in the middle.
    for (i, id) in ids.iter().enumerate() {
        let at = (k + i) % (out.nodes.len() + 1);
        out.nodes.insert(at, reroute(id));
    }
    out
}

#[test]
fn boxes_and_reroutes_build_the_same_bytes_over_every_graph() {
    let mut checked = 0;
    for (path, cat) in graphs() {
        let text = std::fs::read_to_string(&path).unwrap();
        let Some(want) = bytes(&text, cat) else {
            continue;
        };
        let m = Model::parse(&SourceFile::new("g.bpg", text.as_str())).unwrap();
        // Boxes: anywhere, any size, coloured or not.
        let mut boxed = m.clone();
        boxed.boxes = (0..3)
            .map(|i| BoxDef {
                title: format!("Box {i}"),
                x: -100 * i,
                y: 50 * i,
                w: 300 + i,
                h: 200,
                color: (i % 2 == 0).then(|| "#336699".into()),
                comment: String::new(),
                line_comment: None,
            })
            .collect();
        assert_eq!(
            bytes(&boxed.to_text(), cat).as_deref(),
            Some(&want[..]),
            "{} with boxes",
            path.display()
        );
        // Every wire, split by one reroute and by a chain of two.
        for k in 0..m.links.len() {
            for n in 1..=2 {
                let r = rerouted(&m, k, n, &k.to_string());
                let got = bytes(&r.to_text(), cat);
                assert_eq!(
                    got.as_deref(),
                    Some(&want[..]),
                    "{}: link {k} through {n} reroutes:\n{}",
                    path.display(),
                    r.to_text()
                );
            }
        }
        // All wires at once.
        let mut all = m.clone();
        for k in (0..m.links.len()).rev() {
            all = rerouted(&all, k, 1, &format!("all{k}"));
        }
        assert_eq!(bytes(&all.to_text(), cat).as_deref(), Some(&want[..]));
        checked += 1;
    }
    assert!(checked >= 8, "{checked}");
}

#[test]
fn the_layout_fixture_builds_the_bytes_of_its_joined_graph() {
    let text =
        std::fs::read_to_string("tests/fixtures/graphs/ok/layout_boxes_reroutes.bpg").unwrap();
    let joined = "graph layout\nvar steps: int = 0\n\
        node step = event animseq::run.footstep_l\nnode get = var.get steps\n\
        node inc = int.add { b = 1 }\nnode set = var.set steps\nnode say = debug.log\n\
        node text = string.from_int\n\
        step.then -> set.exec\nget.value -> inc.a\ninc.out -> set.value\n\
        set.value -> text.a\nset.then -> say.exec\ntext.out -> say.message\n";
    let cat = catalog("tests/fixtures/catalog");
    let want = bytes(joined, cat).expect("the joined graph compiles");
    assert_eq!(bytes(&text, cat), Some(want));
}

#[test]
fn diff_reports_boxes_and_reroutes_as_layout() {
    let text = std::fs::read_to_string("graphs/demo/guard.bpg")
        .or_else(|_| std::fs::read_to_string("tests/fixtures/graphs/ok/hero_footsteps.bpg"))
        .unwrap();
    let m = Model::parse(&SourceFile::new("g.bpg", text.as_str())).unwrap();
    let mut new = rerouted(&m, 0, 2, "d");
    new.boxes.push(BoxDef {
        title: "Notes".into(),
        x: 0,
        y: 0,
        w: 100,
        h: 100,
        color: None,
        comment: String::new(),
        line_comment: None,
    });
    let d = diff(&m, &new);
    assert!(!d.behaviour_differs(), "{}", d.human("a", "b"));
    assert!(d.has_layout_changes());
    let human = d.human("a", "b");
    assert!(human.contains("> reroute rr_d_0 added"), "{human}");
    assert!(human.contains("> box \"Notes\" added at (0, 0)"), "{human}");
    let json = d.to_json();
    assert_eq!(json["same_behaviour"], true);
    assert_eq!(json["boxes"]["moved"][0]["title"], "Notes");
    assert_eq!(json["boxes"]["moved"][0]["old"], serde_json::Value::Null);
    let moved = json["nodes"]["moved"].as_array().unwrap();
    assert!(moved.iter().any(|e| e["reroute"] == "added"), "{json}");
    assert!(d.clone().without_layout().is_empty());

    // A reroute that joins to another graph is a behaviour change.
    let mut other = new.clone();
    let last = other
        .links
        .iter()
        .position(|l| l.from.node.starts_with("rr_d_1"))
        .unwrap();
    other.links[last].from = PinRef::new("rr_d_0", "out");
    other.links[last].to.pin.push_str("_x");
    assert!(diff(&m, &other).behaviour_differs());

    // Moving a reroute, and moving, resizing and recolouring a box, are moves.
    let mut moved = new.clone();
    let r = moved.nodes.iter_mut().find(|n| n.id == "rr_d_1").unwrap();
    r.x = Some(999);
    moved.boxes[0].w = 640;
    moved.boxes[0].color = Some("#AABBCC".into());
    let d = diff(&new, &moved);
    assert!(!d.behaviour_differs());
    let human = d.human("a", "b");
    assert!(human.contains("> node rr_d_1 moved"), "{human}");
    assert!(
        human.contains("> box \"Notes\" resized 100x100 -> 640x100, recoloured"),
        "{human}"
    );
}

#[test]
fn box_json_round_trips_and_refuses_absurd_boxes() {
    let text = "graph g\n\nbox \"A & B\" at (-5, 7) size (30, 40) { color = \"#a0B1c2\" }\n";
    let m = Model::parse(&SourceFile::new("g.bpg", text)).unwrap();
    let json = serde_json::to_value(&m).unwrap();
    assert_eq!(
        json["boxes"],
        serde_json::json!([{"title": "A & B", "x": -5, "y": 7, "w": 30, "h": 40, "color": "#a0B1c2"}])
    );
    let back: Model = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(back.to_text(), text);
    for (field, bad) in [
        ("x", serde_json::json!(4_000_000_000i64)),
        ("w", serde_json::json!(0)),
        ("h", serde_json::json!(2_000_000)),
        ("color", serde_json::json!("blue")),
    ] {
        let mut j = json.clone();
        j["boxes"][0][field] = bad;
        let err = serde_json::from_value::<Model>(j).unwrap_err().to_string();
        assert!(err.contains("boxes[0]"), "{field}: {err}");
    }
}

#[test]
fn long_chains_and_many_reroutes_compile_in_linear_time() {
    // 20,000 reroutes in one chain between a log and its event, and 20,000 unconnected ones:
    // joined iteratively (no recursion), every lookup by set (no quadratic scan).
    let n = 20_000;
    let mut text = String::from(
        "graph big\nnode start = event begin_play\nnode log = debug.log { message = \"x\" }\n",
    );
    for i in 0..n {
        text.push_str(&format!("node c{i} = reroute\nnode u{i} = reroute\n"));
    }
    text.push_str("start.then -> c0.in\n");
    for i in 1..n {
        text.push_str(&format!("c{}.out -> c{i}.in\n", i - 1));
    }
    text.push_str(&format!("c{}.out -> log.exec\n", n - 1));
    let c = compile::compile(
        &SourceFile::new("big.bpg", text.as_str()),
        catalog("tests/fixtures/catalog").catalog(),
    );
    let warnings = c.diagnostics().iter().filter(|d| d.code == "W0340").count();
    assert_eq!(warnings, n);
    assert!(c.module.is_some(), "{:?}", c.diagnostics().first());
    let plain = "graph big\nnode start = event begin_play\nnode log = debug.log { message = \"x\" }\nstart.then -> log.exec\n";
    let cat = catalog("tests/fixtures/catalog");
    assert_eq!(c.module.map(|m| m.module().encode()), bytes(plain, cat));
}
