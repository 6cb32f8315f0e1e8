//! `graph::diff`: one case per kind of change (comment-only and layout-only included), the
//! JSON shape, the `--svg` marks, and properties: a graph against itself (or a reordered,
//! respaced copy) has no differences, and a graph against an edited copy lists exactly the
//! edits.

mod support;

use proptest::prelude::*;
use sinew::diag::SourceFile;
use sinew::graph::Model;
use sinew::graph::diff::{Diff, diff};
use sinew::graph::model::{Link, PinRef, Value};
use std::collections::BTreeSet;

fn model(text: &str) -> Model {
    Model::parse(&SourceFile::new("t.bpg", text)).unwrap_or_else(|d| panic!("{d:?}"))
}

fn d(old: &str, new: &str) -> Diff {
    diff(&model(old), &model(new))
}

const BASE: &str = "// top\ngraph g\n\nvar n: int = 0 // count\n\n\
    node start = event begin_play at (0, 0)\n// logs\nnode log = debug.log { message = \"hi\" } at (220, 0)\n\
    node seq = flow.sequence { count = 2 }\nnode add = int.add { b = 1 }\n\n\
    start.then -> seq.exec\nseq.then_0 -> log.exec // first\n";

fn with(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "{from}");
    BASE.replacen(from, to, 1)
}

#[test]
fn identical_reordered_and_respaced_graphs_have_no_differences() {
    assert!(d(BASE, BASE).is_empty());
    let reordered = "// top\ngraph   g\nstart.then->seq.exec\nnode add = int.add {b=1}\n\
        seq.then_0 -> log.exec // first\nnode seq = flow.sequence {count = 2,}\nvar n :int= 0 // count\n\
        node start = event begin_play at(0,0)\n// logs\nnode log = debug.log\n  { message = \"hi\" }\n  at (220, 0)\n";
    let x = d(BASE, reordered);
    assert!(x.is_empty(), "{x:?}");
    // ARGS order is no difference either.
    let x = d(
        "graph g\nnode a = k { x = 1, y = 2 }\n",
        "graph g\nnode a = k { y = 2, x = 1 }\n",
    );
    assert!(x.is_empty(), "{x:?}");
}

#[test]
fn node_additions_removals_and_changes() {
    let x = d(BASE, &format!("{BASE}node extra = debug.log\n"));
    assert_eq!(x.nodes_added.len(), 1);
    assert_eq!(x.nodes_added[0].id, "extra");
    assert!(x.behaviour_differs());
    let x = d(BASE, &with("node add = int.add { b = 1 }\n", ""));
    assert_eq!(x.nodes_removed[0].id, "add");
    let x = d(BASE, &with("int.add { b = 1 }", "int.sub { b = 1 }"));
    let c = &x.nodes_changed[0];
    assert_eq!(
        (c.id.as_str(), c.kind.as_ref().map(|k| k.new.as_str())),
        ("add", Some("int.sub"))
    );
    // A literal input and a property are told apart by the node table.
    let x = d(BASE, &with("{ b = 1 }", "{ b = 2 }"));
    assert_eq!(x.nodes_changed[0].inputs[0].name, "b");
    assert_eq!(x.nodes_changed[0].inputs[0].old, Some(Value::Int(1)));
    assert_eq!(x.nodes_changed[0].inputs[0].new, Some(Value::Int(2)));
    assert!(x.nodes_changed[0].props.is_empty());
    let x = d(BASE, &with("{ count = 2 }", "{ count = 3 }"));
    assert_eq!(x.nodes_changed[0].props[0].name, "count");
    assert!(x.behaviour_differs());
    // Removing an ARG is a change to "unset"; `1` and `1.0` differ (compared as written).
    let x = d(BASE, &with(" { b = 1 }", ""));
    assert_eq!(x.nodes_changed[0].inputs[0].new, None);
    let x = d(BASE, &with("{ b = 1 }", "{ b = 1.0 }"));
    assert_eq!(x.nodes_changed.len(), 1);
    // A renamed node is one removal and one addition.
    let x = d(BASE, &with("node add = ", "node plus = "));
    assert_eq!((x.nodes_added.len(), x.nodes_removed.len()), (1, 1));
}

#[test]
fn layout_only_and_comment_only_changes_keep_the_behaviour() {
    let x = d(BASE, &with("at (220, 0)", "at (300, 40)"));
    assert!(!x.behaviour_differs() && !x.is_empty());
    assert_eq!(x.nodes_moved.len(), 1);
    let at = x.nodes_moved[0].1.at.clone().unwrap();
    assert_eq!((at.old, at.new), (Some((220, 0)), Some((300, 40))));
    let x = d(
        BASE,
        &with(
            "node seq = flow.sequence { count = 2 }",
            "node seq = flow.sequence { count = 2 } at (5, 5)",
        ),
    );
    assert_eq!(x.nodes_moved[0].1.at.as_ref().unwrap().old, None);
    for (from, to) in [
        ("// logs\n", "// logs the greeting\n"),
        ("// logs\n", ""),
        (
            "seq.then_0 -> log.exec // first",
            "seq.then_0 -> log.exec // the first",
        ),
        ("var n: int = 0 // count", "var n: int = 0"),
        ("// top\n", "// a new top\n"),
        ("graph g\n", "graph g // header\n"),
    ] {
        let x = d(BASE, &with(from, to));
        assert!(!x.behaviour_differs(), "{from:?}: {x:?}");
        assert!(x.has_layout_changes(), "{from:?}");
        assert!(x.clone().without_layout().is_empty(), "{from:?}");
    }
    let x = d(BASE, &format!("{BASE}\n// the end\n"));
    assert!(x.end_comment.is_some() && !x.behaviour_differs());
}

#[test]
fn link_and_variable_changes() {
    let x = d(BASE, &format!("{BASE}seq.then_1 -> log.exec\n"));
    assert_eq!(x.links_added[0].from, PinRef::new("seq", "then_1"));
    let x = d(BASE, &with("start.then -> seq.exec\n", ""));
    assert_eq!(x.links_removed[0].to, PinRef::new("seq", "exec"));
    // A link re-targeted is one removal and one addition.
    let x = d(
        BASE,
        &with("seq.then_0 -> log.exec", "seq.then_1 -> log.exec"),
    );
    assert_eq!((x.links_added.len(), x.links_removed.len()), (1, 1));
    let x = d(BASE, &with("var n: int = 0", "var n: int = 5"));
    assert_eq!(
        x.vars_changed[0].default.as_ref().unwrap().new,
        Value::Int(5)
    );
    let x = d(BASE, &with("var n: int = 0", "var n: float = 0"));
    assert_eq!(x.vars_changed[0].ty.as_ref().unwrap().new, "float");
    let x = d(
        BASE,
        &with(
            "var n: int = 0 // count\n",
            "var n: int = 0 // count\nvar m: bool = true\n",
        ),
    );
    assert_eq!(x.vars_added[0].name, "m");
    let x = d(BASE, &with("var n: int = 0 // count\n", ""));
    assert_eq!(x.vars_removed[0].name, "n");
    let x = d(BASE, &with("graph g", "graph h"));
    assert!(x.name.is_some() && x.behaviour_differs());
}

#[test]
fn reports_have_the_spec_shape() {
    let new = with("{ b = 1 }", "{ b = 2 }")
        .replace("at (220, 0)", "at (240, 10)")
        .replace("node add", "// added a comment\nnode add")
        + "node extra = debug.log\nadd.out -> extra.message\n";
    let new = new.replace("start.then -> seq.exec\n", "");
    let x = d(BASE, &new);
    let json = serde_json::to_string_pretty(&x.to_json()).unwrap();
    let human = x.human("old.bpg", "new.bpg");
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("graph_diff_json", json);
        insta::assert_snapshot!("graph_diff_human", human);
    });
    let j = x.to_json();
    for (k, subs) in [
        ("nodes", &["added", "removed", "changed", "moved"][..]),
        ("links", &["added", "removed"][..]),
        ("vars", &["added", "removed", "changed"][..]),
    ] {
        for s in subs {
            assert!(j[k][s].is_array(), "{k}.{s}");
        }
    }
    assert_eq!(j["same_behaviour"], false);
}

#[test]
fn diff_svg_marks_new_and_ghosts_old() {
    let new = with("{ b = 1 }", "{ b = 2 }")
        .replace("node start = event begin_play at (0, 0)\n", "")
        .replace("start.then -> seq.exec\n", "")
        + "node extra = debug.log at (440, 0)\nlog.then -> extra.exec\n";
    let x = d(BASE, &new);
    let svg = sinew::picture::diff_svg(
        &SourceFile::new("new.bpg", new.as_str()),
        &sinew::catalog::Catalog::default(),
        &x,
    )
    .unwrap();
    assert!(
        svg.contains("d-added\" data-node-id=\"extra\" data-diff=\"added\""),
        "{svg}"
    );
    assert!(svg.contains("d-changed\" data-node-id=\"add\" data-diff=\"changed\""));
    assert!(svg.contains("d-removed ghost\" data-node-id=\"start\" data-diff=\"removed\""));
    assert!(svg.contains("data-link=\"log.then -&gt; extra.exec\" data-diff=\"added\""));
    assert!(svg.contains("data-link=\"start.then -&gt; seq.exec\" data-diff=\"removed\""));
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("graph_diff_svg", svg);
    });
}

/// A model with unique node ids, var names and links (so expected differences are exact).
fn unique(mut m: Model) -> Model {
    let mut seen = BTreeSet::new();
    m.nodes.retain(|n| seen.insert(n.id.clone()));
    let mut seen = BTreeSet::new();
    m.vars.retain(|v| seen.insert(v.name.clone()));
    let mut seen = BTreeSet::new();
    m.links
        .retain(|l| seen.insert((l.from.clone(), l.to.clone())));
    m
}

#[derive(Default, Debug)]
struct Expected {
    nodes_added: BTreeSet<String>,
    nodes_removed: BTreeSet<String>,
    nodes_changed: BTreeSet<String>,
    nodes_moved: BTreeSet<String>,
    links_added: BTreeSet<(PinRef, PinRef)>,
    links_removed: BTreeSet<(PinRef, PinRef)>,
    links_moved: BTreeSet<(PinRef, PinRef)>,
    vars_added: BTreeSet<String>,
    vars_removed: BTreeSet<String>,
    vars_changed: BTreeSet<String>,
}

/// Applies edits (kind, target) to a copy of `m`, each node, link or var edited at most once,
/// and returns the copy with what a diff must report. Names of new parts are longer than any
/// generated name, so they never collide.
fn edit(m: &Model, edits: &[(u8, prop::sample::Index)]) -> (Model, Expected) {
    let mut b = m.clone();
    let mut e = Expected::default();
    let mut touched_nodes = BTreeSet::new();
    let mut touched_links = BTreeSet::new();
    let mut touched_vars = BTreeSet::new();
    let mut removed_nodes = Vec::new();
    let mut removed_links = Vec::new();
    let mut removed_vars = Vec::new();
    for (k, (kind, ix)) in edits.iter().enumerate() {
        let node = (!m.nodes.is_empty()).then(|| ix.index(m.nodes.len()));
        let link = (!m.links.is_empty()).then(|| ix.index(m.links.len()));
        let var = (!m.vars.is_empty()).then(|| ix.index(m.vars.len()));
        match kind % 12 {
            0 => {
                let id = format!("added_node_{k}");
                b.nodes.push(sinew::graph::model::Node {
                    id: id.clone(),
                    kind: "debug.log".into(),
                    x: None,
                    y: None,
                    props: Default::default(),
                    comment: String::new(),
                    line_comment: None,
                });
                e.nodes_added.insert(id);
            }
            1..=5 => {
                let Some(i) = node.filter(|i| touched_nodes.insert(*i)) else {
                    continue;
                };
                let id = m.nodes[i].id.clone();
                let n = b.nodes.iter_mut().find(|n| n.id == id).unwrap();
                match kind % 12 {
                    1 => {
                        removed_nodes.push(id.clone());
                        e.nodes_removed.insert(id);
                    }
                    2 => {
                        n.kind = if n.kind == "edited.kind" {
                            "edited.kind2".into()
                        } else {
                            "edited.kind".into()
                        };
                        e.nodes_changed.insert(id);
                    }
                    3 => {
                        n.props.0.push(("edited_arg".into(), Value::Int(k as i64)));
                        e.nodes_changed.insert(id);
                    }
                    4 => {
                        let (x, y) = n.at().unwrap_or((i64::MIN, 0));
                        n.x = Some(x.wrapping_add(1));
                        n.y = Some(y);
                        e.nodes_moved.insert(id);
                    }
                    _ => {
                        n.comment = if n.comment == "// edited" {
                            "// edited again".into()
                        } else {
                            "// edited".into()
                        };
                        e.nodes_moved.insert(id);
                    }
                }
            }
            6 => {
                let (from, to) = (
                    PinRef::new(&format!("added_from_{k}"), "out"),
                    PinRef::new("added_to", "in"),
                );
                b.links.push(Link {
                    from: from.clone(),
                    to: to.clone(),
                    comment: String::new(),
                    line_comment: None,
                });
                e.links_added.insert((from, to));
            }
            7 | 8 => {
                let Some(i) = link.filter(|i| touched_links.insert(*i)) else {
                    continue;
                };
                let key = (m.links[i].from.clone(), m.links[i].to.clone());
                if kind % 12 == 7 {
                    removed_links.push(key.clone());
                    e.links_removed.insert(key);
                } else {
                    let l = b
                        .links
                        .iter_mut()
                        .find(|l| (l.from.clone(), l.to.clone()) == key)
                        .unwrap();
                    l.line_comment = Some(if l.line_comment.as_deref() == Some("// edited") {
                        "// edited 2".into()
                    } else {
                        "// edited".into()
                    });
                    e.links_moved.insert(key);
                }
            }
            9 => {
                let name = format!("added_var_{k}");
                b.vars.push(sinew::graph::model::Var {
                    name: name.clone(),
                    ty: sinew::graph::ast::Type::Int,
                    default: Value::Int(0),
                    comment: String::new(),
                    line_comment: None,
                });
                e.vars_added.insert(name);
            }
            _ => {
                let Some(i) = var.filter(|i| touched_vars.insert(*i)) else {
                    continue;
                };
                let name = m.vars[i].name.clone();
                if kind % 12 == 10 {
                    removed_vars.push(name.clone());
                    e.vars_removed.insert(name);
                } else {
                    let v = b.vars.iter_mut().find(|v| v.name == name).unwrap();
                    v.default = if v.default == Value::Bool(true) {
                        Value::Bool(false)
                    } else {
                        Value::Bool(true)
                    };
                    e.vars_changed.insert(name);
                }
            }
        }
    }
    b.nodes.retain(|n| !removed_nodes.contains(&n.id));
    b.links
        .retain(|l| !removed_links.contains(&(l.from.clone(), l.to.clone())));
    b.vars.retain(|v| !removed_vars.contains(&v.name));
    // Item order is no difference: list the edited copy backwards.
    b.nodes.reverse();
    b.links.reverse();
    b.vars.reverse();
    (b, e)
}

fn got(x: &Diff) -> Expected {
    let key = |l: &Link| (l.from.clone(), l.to.clone());
    Expected {
        nodes_added: x.nodes_added.iter().map(|n| n.id.clone()).collect(),
        nodes_removed: x.nodes_removed.iter().map(|n| n.id.clone()).collect(),
        nodes_changed: x.nodes_changed.iter().map(|c| c.id.clone()).collect(),
        nodes_moved: x.nodes_moved.iter().map(|(id, _)| id.clone()).collect(),
        links_added: x.links_added.iter().map(key).collect(),
        links_removed: x.links_removed.iter().map(key).collect(),
        links_moved: x.links_moved.iter().map(|(l, _)| key(l)).collect(),
        vars_added: x.vars_added.iter().map(|v| v.name.clone()).collect(),
        vars_removed: x.vars_removed.iter().map(|v| v.name.clone()).collect(),
        vars_changed: x.vars_changed.iter().map(|c| c.name.clone()).collect(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn a_graph_against_itself_or_its_sorted_listing_has_no_differences(m in support::modelgen::model()) {
        prop_assert!(diff(&m, &m).is_empty());
        prop_assert!(diff(&m, &m.sorted()).is_empty());
        let back = Model::parse(&SourceFile::new("m.bpg", m.to_text().as_str())).unwrap();
        prop_assert!(diff(&m, &back).is_empty());
    }

    #[test]
    fn a_graph_against_an_edited_copy_lists_exactly_the_edits(
        m in support::modelgen::model(),
        edits in prop::collection::vec((any::<u8>(), any::<prop::sample::Index>()), 0..10),
    ) {
        let m = unique(m);
        let (b, expected) = edit(&m, &edits);
        let x = diff(&m, &b);
        let g = got(&x);
        prop_assert_eq!(format!("{g:?}"), format!("{expected:?}"));
        let behaviour = !(expected.nodes_added.is_empty() && expected.nodes_removed.is_empty()
            && expected.nodes_changed.is_empty() && expected.links_added.is_empty()
            && expected.links_removed.is_empty() && expected.vars_added.is_empty()
            && expected.vars_removed.is_empty() && expected.vars_changed.is_empty());
        prop_assert_eq!(x.behaviour_differs(), behaviour);
        // Through text: the same report.
        let text = |m: &Model| Model::parse(&SourceFile::new("t.bpg", m.to_text().as_str())).unwrap();
        prop_assert_eq!(diff(&text(&m), &text(&b)), x);
    }
}
