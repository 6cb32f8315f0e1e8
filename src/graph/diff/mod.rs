//! Graph-aware differences between two versions of a graph (`sinew diff`): nodes added,
//! removed, changed (kind, properties, literal inputs) and moved (position or comments only);
//! links added and removed; variables added, removed and changed. Pure: two models in.
//!
//! Parts are matched by name — nodes by id, variables by name, links by their two ends — so
//! item order and whitespace are no difference at all. A name declared twice is matched
//! occurrence by occurrence. Literals compare as written (`1` and `1.0` differ). Comment
//! changes count as layout: they are reported under `moved` and never make the behaviour
//! differ; everything else does ([`Diff::behaviour_differs`]).
//!
//! Comment boxes and reroute nodes are layout (`layout.rs`): boxes are paired by title and
//! reported under `moved`; graphs with reroutes are compared with their reroutes' wires joined
//! (`graph::reroute`, the compiler's rule), and reroutes added, removed or moved — with the
//! wires into and out of them — are reported under `moved` too.

use super::model::{Link, Model, Node, PinRef, Value, Var};
use serde_json::{Value as Json, json};
use std::collections::HashMap;

mod layout;

pub use layout::{BoxChange, RerouteChange};

/// A change of one thing from `old` to `new`.
#[derive(Clone, Debug, PartialEq)]
pub struct Change<T> {
    pub old: T,
    pub new: T,
}

/// One ARG of a node that differs; `None` where it is not set.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgChange {
    pub name: String,
    pub old: Option<Value>,
    pub new: Option<Value>,
}

/// A node whose behaviour changed.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeChange {
    pub id: String,
    pub kind: Option<Change<String>>,
    /// Node properties (`count`, `start_open`, …, as the node table names them).
    pub props: Vec<ArgChange>,
    /// Literal values of input pins (every other ARG).
    pub inputs: Vec<ArgChange>,
}

/// Layout-only changes of an item: position and comments.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Moved {
    pub at: Option<Change<Option<(i64, i64)>>>,
    pub comment: Option<Change<String>>,
    pub line_comment: Option<Change<Option<String>>>,
}

impl Moved {
    fn of(
        at: Option<Change<Option<(i64, i64)>>>,
        (c0, l0): (&str, &Option<String>),
        (c1, l1): (&str, &Option<String>),
    ) -> Option<Moved> {
        let m = Moved {
            at,
            comment: (c0 != c1).then(|| Change {
                old: c0.to_string(),
                new: c1.to_string(),
            }),
            line_comment: (l0 != l1).then(|| Change {
                old: l0.clone(),
                new: l1.clone(),
            }),
        };
        (m != Moved::default()).then_some(m)
    }
}

/// A variable whose declaration changed.
#[derive(Clone, Debug, PartialEq)]
pub struct VarChange {
    pub name: String,
    pub ty: Option<Change<String>>,
    pub default: Option<Change<Value>>,
}

/// Every difference between two graphs.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Diff {
    /// The `graph NAME` changed.
    pub name: Option<Change<String>>,
    /// Comments above or at the end of the `graph` line.
    pub file_comments: Option<Moved>,
    /// The comments after the last item.
    pub end_comment: Option<Change<String>>,
    pub nodes_added: Vec<Node>,
    pub nodes_removed: Vec<Node>,
    pub nodes_changed: Vec<NodeChange>,
    pub nodes_moved: Vec<(String, Moved)>,
    pub links_added: Vec<Link>,
    pub links_removed: Vec<Link>,
    pub links_moved: Vec<(Link, Moved)>,
    pub vars_added: Vec<Var>,
    pub vars_removed: Vec<Var>,
    pub vars_changed: Vec<VarChange>,
    pub vars_moved: Vec<(String, Moved)>,
    /// Custom event declarations added, removed or with another payload: (event name, the
    /// declaration's text before and after, `""` when absent).
    pub events: Vec<(String, Change<String>)>,
    /// Comment boxes added, removed or changed (layout).
    pub boxes: Vec<BoxChange>,
    /// Reroute nodes and the wires into and out of them, added or removed (layout).
    pub reroutes: Vec<RerouteChange>,
}

/// Pairs items by key, occurrence by occurrence: `(old index, new index)` for matches, then
/// unmatched old and new indexes, each in file order.
fn pair<'a, T, K: Eq + std::hash::Hash>(
    old: &'a [T],
    new: &'a [T],
    key: impl Fn(&'a T) -> K,
) -> (Vec<(usize, usize)>, Vec<usize>, Vec<usize>) {
    // Most names occur once: the first occurrence lives in the map, later ones in a queue.
    let mut by_key: HashMap<K, (usize, std::collections::VecDeque<usize>)> =
        HashMap::with_capacity(new.len());
    for (i, x) in new.iter().enumerate() {
        match by_key.entry(key(x)) {
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert((i, Default::default()));
            }
            std::collections::hash_map::Entry::Occupied(mut e) => e.get_mut().1.push_back(i),
        }
    }
    let mut matched = Vec::new();
    let mut gone = Vec::new();
    let mut used = vec![false; new.len()];
    let mut take = |k: &K| -> Option<usize> {
        let (first, rest) = by_key.get_mut(k)?;
        if *first != usize::MAX {
            return Some(std::mem::replace(first, usize::MAX));
        }
        rest.pop_front()
    };
    for (i, x) in old.iter().enumerate() {
        match take(&key(x)) {
            Some(j) => {
                used[j] = true;
                matched.push((i, j));
            }
            None => gone.push(i),
        }
    }
    let fresh = (0..new.len()).filter(|&j| !used[j]).collect();
    (matched, gone, fresh)
}

fn arg_changes(a: &Node, b: &Node) -> (Vec<ArgChange>, Vec<ArgChange>) {
    if a.props == b.props {
        return (Vec::new(), Vec::new());
    }
    fn sorted(n: &Node) -> Vec<(&str, &Value)> {
        let mut v: Vec<(&str, &Value)> = n.props.iter().collect();
        v.sort_by(|x, y| x.0.cmp(y.0));
        v
    }
    let (pa, pb) = (sorted(a), sorted(b));
    if pa == pb {
        return (Vec::new(), Vec::new());
    }
    let mut names: Vec<&str> = pa.iter().chain(&pb).map(|(n, _)| *n).collect();
    names.sort_unstable();
    names.dedup();
    let table = crate::nodes::lookup_written(b.kind_path(), b.subject())
        .or_else(|| crate::nodes::lookup_written(a.kind_path(), a.subject()));
    let (mut props, mut inputs) = (Vec::new(), Vec::new());
    for name in names {
        let all = |v: &[(&str, &Value)]| -> Vec<Value> {
            v.iter()
                .filter(|(n, _)| *n == name)
                .map(|(_, v)| (*v).clone())
                .collect()
        };
        let (va, vb) = (all(&pa), all(&pb));
        if va == vb {
            continue;
        }
        let c = ArgChange {
            name: name.to_string(),
            old: va.last().cloned(),
            new: vb.last().cloned(),
        };
        if table.is_some_and(|k| k.property(name).is_some()) {
            props.push(c);
        } else {
            inputs.push(c);
        }
    }
    (props, inputs)
}

/// Compares two graphs.
pub fn diff(old: &Model, new: &Model) -> Diff {
    let mut d = if layout::has_reroutes(old) || layout::has_reroutes(new) {
        let mut d = diff_items(&layout::joined(old), &layout::joined(new));
        layout::reroutes(&mut d, old, new);
        d
    } else {
        diff_items(old, new)
    };
    layout::boxes(&mut d, old, new);
    d
}

/// Compares two graphs' items (boxes left aside; reroutes as any node).
fn diff_items(old: &Model, new: &Model) -> Diff {
    let mut d = Diff {
        name: (old.graph != new.graph).then(|| Change {
            old: old.graph.clone(),
            new: new.graph.clone(),
        }),
        ..Diff::default()
    };
    d.file_comments = Moved::of(
        None,
        (&old.comment, &old.line_comment),
        (&new.comment, &new.line_comment),
    );
    d.end_comment = (old.end_comment != new.end_comment).then(|| Change {
        old: old.end_comment.clone(),
        new: new.end_comment.clone(),
    });

    let (matched, gone, fresh) = pair(&old.nodes, &new.nodes, |n| n.id.as_str());
    for (i, j) in matched {
        let (a, b) = (&old.nodes[i], &new.nodes[j]);
        let (props, inputs) = arg_changes(a, b);
        let kind = (a.kind != b.kind).then(|| Change {
            old: a.kind.clone(),
            new: b.kind.clone(),
        });
        if kind.is_some() || !props.is_empty() || !inputs.is_empty() {
            d.nodes_changed.push(NodeChange {
                id: b.id.clone(),
                kind,
                props,
                inputs,
            });
        }
        let at = (a.at() != b.at()).then(|| Change {
            old: a.at(),
            new: b.at(),
        });
        if let Some(m) = Moved::of(
            at,
            (&a.comment, &a.line_comment),
            (&b.comment, &b.line_comment),
        ) {
            d.nodes_moved.push((b.id.clone(), m));
        }
    }
    d.nodes_removed = gone.into_iter().map(|i| old.nodes[i].clone()).collect();
    d.nodes_added = fresh.into_iter().map(|j| new.nodes[j].clone()).collect();

    let (matched, gone, fresh) = pair(&old.links, &new.links, |l| (&l.from, &l.to));
    for (i, j) in matched {
        let (a, b) = (&old.links[i], &new.links[j]);
        if let Some(m) = Moved::of(
            None,
            (&a.comment, &a.line_comment),
            (&b.comment, &b.line_comment),
        ) {
            d.links_moved.push((b.clone(), m));
        }
    }
    d.links_removed = gone.into_iter().map(|i| old.links[i].clone()).collect();
    d.links_added = fresh.into_iter().map(|j| new.links[j].clone()).collect();

    let (matched, gone, fresh) = pair(&old.vars, &new.vars, |v| v.name.as_str());
    for (i, j) in matched {
        let (a, b) = (&old.vars[i], &new.vars[j]);
        let ty = (a.ty != b.ty).then(|| Change {
            old: a.ty.name().to_string(),
            new: b.ty.name().to_string(),
        });
        let default = (a.default != b.default).then(|| Change {
            old: a.default.clone(),
            new: b.default.clone(),
        });
        if ty.is_some() || default.is_some() {
            d.vars_changed.push(VarChange {
                name: b.name.clone(),
                ty,
                default,
            });
        }
        if let Some(m) = Moved::of(
            None,
            (&a.comment, &a.line_comment),
            (&b.comment, &b.line_comment),
        ) {
            d.vars_moved.push((b.name.clone(), m));
        }
    }
    d.vars_removed = gone.into_iter().map(|i| old.vars[i].clone()).collect();
    d.vars_added = fresh.into_iter().map(|j| new.vars[j].clone()).collect();

    let decl = |e: &crate::graph::model::EventDecl| {
        let mut e = e.clone();
        e.comment.clear();
        e.line_comment = None;
        let mut t = String::new();
        e.write(&mut t);
        t.trim_end().to_string()
    };
    let (matched, gone, fresh) = pair(&old.events, &new.events, |e| e.name.as_str());
    for (i, j) in matched {
        let (a, b) = (&old.events[i], &new.events[j]);
        if a.fields != b.fields {
            d.events.push((
                b.name.clone(),
                Change {
                    old: decl(a),
                    new: decl(b),
                },
            ));
        }
    }
    for i in gone {
        let a = &old.events[i];
        let change = Change {
            old: decl(a),
            new: String::new(),
        };
        d.events.push((a.name.clone(), change));
    }
    for j in fresh {
        let b = &new.events[j];
        let change = Change {
            old: String::new(),
            new: decl(b),
        };
        d.events.push((b.name.clone(), change));
    }
    d
}

impl Diff {
    /// Does the new graph behave differently (anything but positions and comments changed)?
    pub fn behaviour_differs(&self) -> bool {
        self.name.is_some()
            || !self.nodes_added.is_empty()
            || !self.nodes_removed.is_empty()
            || !self.nodes_changed.is_empty()
            || !self.links_added.is_empty()
            || !self.links_removed.is_empty()
            || !self.vars_added.is_empty()
            || !self.vars_removed.is_empty()
            || !self.vars_changed.is_empty()
            || !self.events.is_empty()
    }

    /// Only positions or comments changed (or nothing).
    pub fn has_layout_changes(&self) -> bool {
        self.file_comments.is_some()
            || self.end_comment.is_some()
            || !self.nodes_moved.is_empty()
            || !self.links_moved.is_empty()
            || !self.vars_moved.is_empty()
            || !self.boxes.is_empty()
            || !self.reroutes.is_empty()
    }

    /// No difference at all.
    pub fn is_empty(&self) -> bool {
        !self.behaviour_differs() && !self.has_layout_changes()
    }

    /// Drops the layout-only changes (`--ignore-layout`).
    pub fn without_layout(mut self) -> Diff {
        self.file_comments = None;
        self.end_comment = None;
        self.nodes_moved.clear();
        self.links_moved.clear();
        self.vars_moved.clear();
        self.boxes.clear();
        self.reroutes.clear();
        self
    }

    /// The JSON report (`spec/studio.md`, with the additions `docs/graphs.md` lists).
    pub fn to_json(&self) -> Json {
        let change = |c: &Change<String>| json!({"old": c.old, "new": c.new});
        let opt_at = |a: Option<(i64, i64)>| a.map_or(Json::Null, |(x, y)| json!({"x": x, "y": y}));
        let moved = |m: &Moved| {
            let mut o = serde_json::Map::new();
            if let Some(a) = &m.at {
                o.insert(
                    "at".into(),
                    json!({"old": opt_at(a.old), "new": opt_at(a.new)}),
                );
            }
            if let Some(c) = &m.comment {
                o.insert("comment".into(), change(c));
            }
            if let Some(c) = &m.line_comment {
                o.insert("line_comment".into(), json!({"old": c.old, "new": c.new}));
            }
            o
        };
        let args = |v: &[ArgChange]| -> Json {
            v.iter()
                .map(|c| json!({"name": c.name, "old": c.old, "new": c.new}))
                .collect()
        };
        let link = |l: &Link| json!({"from": l.from.to_string(), "to": l.to.to_string()});
        let with = |mut head: serde_json::Map<String, Json>, m: &Moved| {
            head.extend(moved(m));
            Json::Object(head)
        };
        let one = |k: &str, v: Json| {
            let mut m = serde_json::Map::new();
            m.insert(k.into(), v);
            m
        };
        let mut graph = serde_json::Map::new();
        graph.insert(
            "changed".into(),
            self.name
                .iter()
                .map(|c| json!({"field": "name", "old": c.old, "new": c.new}))
                .collect(),
        );
        let mut file_moved = Vec::new();
        if let Some(m) = &self.file_comments {
            if let Some(c) = &m.comment {
                file_moved.push(json!({"field": "comment", "old": c.old, "new": c.new}));
            }
            if let Some(c) = &m.line_comment {
                file_moved.push(json!({"field": "line_comment", "old": c.old, "new": c.new}));
            }
        }
        if let Some(c) = &self.end_comment {
            file_moved.push(json!({"field": "end_comment", "old": c.old, "new": c.new}));
        }
        graph.insert("moved".into(), Json::Array(file_moved));
        let mut out = json!({
            "same_behaviour": !self.behaviour_differs(),
            "graph": graph,
            "nodes": {
                "added": self.nodes_added,
                "removed": self.nodes_removed,
                "changed": self.nodes_changed.iter().map(|c| {
                    let mut o = one("id", json!(c.id));
                    if let Some(k) = &c.kind { o.insert("kind".into(), change(k)); }
                    if !c.props.is_empty() { o.insert("props".into(), args(&c.props)); }
                    if !c.inputs.is_empty() { o.insert("inputs".into(), args(&c.inputs)); }
                    Json::Object(o)
                }).collect::<Json>(),
                "moved": self.nodes_moved.iter().map(|(id, m)| with(one("id", json!(id)), m)).collect::<Json>(),
            },
            "links": {
                "added": self.links_added.iter().map(link).collect::<Json>(),
                "removed": self.links_removed.iter().map(link).collect::<Json>(),
                "moved": self.links_moved.iter().map(|(l, m)| {
                    let Json::Object(head) = link(l) else { unreachable!() };
                    with(head, m)
                }).collect::<Json>(),
            },
            "vars": {
                "added": self.vars_added,
                "removed": self.vars_removed,
                "changed": self.vars_changed.iter().map(|c| {
                    let mut o = one("name", json!(c.name));
                    if let Some(t) = &c.ty { o.insert("type".into(), change(t)); }
                    if let Some(v) = &c.default { o.insert("default".into(), json!({"old": v.old, "new": v.new})); }
                    Json::Object(o)
                }).collect::<Json>(),
                "moved": self.vars_moved.iter().map(|(n, m)| with(one("name", json!(n)), m)).collect::<Json>(),
            },
        });
        layout::to_json(self, &mut out);
        // Only when some declaration changed (the studio contract's shape stays as it was).
        if !self.events.is_empty()
            && let Json::Object(o) = &mut out
        {
            o.insert(
                "events".into(),
                self.events
                    .iter()
                    .map(|(n, c)| json!({"name": n, "old": c.old, "new": c.new}))
                    .collect::<Json>(),
            );
        }
        out
    }

    /// The report for people: a summary line, then one line per difference (`+` added,
    /// `-` removed, `~` changed, `>` moved or re-commented), then the verdict.
    pub fn human(&self, old_name: &str, new_name: &str) -> String {
        // Every line goes through the one escaping rule (`crate::escape`): names, string
        // literals and file names come from files, and a raw ESC, CR or U+202E in them could
        // forge a line (`+ node backdoor`) or drive the terminal.
        macro_rules! say {
            ($o:expr, $($t:tt)*) => {{
                let line = format!($($t)*);
                $o.push_str(&crate::escape::escape(&line));
                $o.push('\n');
                Ok::<(), std::fmt::Error>(())
            }};
        }
        let mut out = String::new();
        let _ = say!(out, "--- {old_name}");
        let _ = say!(out, "+++ {new_name}");
        let opt = |v: &Option<Value>| v.as_ref().map_or("(unset)".to_string(), Value::text);
        let at = |a: Option<(i64, i64)>| {
            a.map_or("(no position)".to_string(), |(x, y)| format!("({x}, {y})"))
        };
        let moved = |out: &mut String, what: &str, m: &Moved| {
            if let Some(a) = &m.at {
                let _ = say!(out, "> {what} moved {} -> {}", at(a.old), at(a.new));
            }
            if m.comment.is_some() || m.line_comment.is_some() {
                let _ = say!(out, "> {what} comment changed");
            }
        };
        if let Some(c) = &self.name {
            let _ = say!(out, "~ graph renamed {} -> {}", c.old, c.new);
        }
        if let Some(m) = &self.file_comments {
            moved(&mut out, "graph", m);
        }
        if self.end_comment.is_some() {
            let _ = say!(out, "> comments after the last item changed");
        }
        for (_, c) in &self.events {
            match (c.old.is_empty(), c.new.is_empty()) {
                (true, _) => say!(out, "+ {}", c.new),
                (_, true) => say!(out, "- {}", c.old),
                _ => say!(out, "~ {} -> {}", c.old, c.new),
            }
            .ok();
        }
        for v in &self.vars_added {
            let _ = say!(out, "+ var {}: {} = {}", v.name, v.ty, v.default.text());
        }
        for v in &self.vars_removed {
            let _ = say!(out, "- var {}: {} = {}", v.name, v.ty, v.default.text());
        }
        for c in &self.vars_changed {
            if let Some(t) = &c.ty {
                let _ = say!(out, "~ var {} type {} -> {}", c.name, t.old, t.new);
            }
            if let Some(v) = &c.default {
                let _ = say!(
                    out,
                    "~ var {} default {} -> {}",
                    c.name,
                    v.old.text(),
                    v.new.text()
                );
            }
        }
        for (n, m) in &self.vars_moved {
            moved(&mut out, &format!("var {n}"), m);
        }
        let node_line = |n: &Node| {
            let mut s = String::new();
            n.write(&mut s);
            s.lines().last().unwrap_or("").to_string()
        };
        for n in &self.nodes_added {
            let _ = say!(out, "+ {}", node_line(n));
        }
        for n in &self.nodes_removed {
            let _ = say!(out, "- {}", node_line(n));
        }
        for c in &self.nodes_changed {
            if let Some(k) = &c.kind {
                let _ = say!(out, "~ node {} kind {} -> {}", c.id, k.old, k.new);
            }
            for (what, list) in [("property", &c.props), ("input", &c.inputs)] {
                for a in list {
                    let _ = say!(
                        out,
                        "~ node {} {what} {} {} -> {}",
                        c.id,
                        a.name,
                        opt(&a.old),
                        opt(&a.new)
                    );
                }
            }
        }
        for (id, m) in &self.nodes_moved {
            moved(&mut out, &format!("node {id}"), m);
        }
        for l in &self.links_added {
            let _ = say!(out, "+ {} -> {}", l.from, l.to);
        }
        for l in &self.links_removed {
            let _ = say!(out, "- {} -> {}", l.from, l.to);
        }
        for (l, m) in &self.links_moved {
            moved(&mut out, &format!("link {} -> {}", l.from, l.to), m);
        }
        for line in layout::human(self) {
            let _ = say!(out, "{line}");
        }
        let _ = say!(
            out,
            "nodes: {} added, {} removed, {} changed, {} moved; links: {} added, {} removed; \
             vars: {} added, {} removed, {} changed",
            self.nodes_added.len(),
            self.nodes_removed.len(),
            self.nodes_changed.len(),
            self.nodes_moved.len(),
            self.links_added.len(),
            self.links_removed.len(),
            self.vars_added.len(),
            self.vars_removed.len(),
            self.vars_changed.len(),
        );
        out.push_str(if self.behaviour_differs() {
            "behaviour differs\n"
        } else if self.has_layout_changes() {
            "same behaviour (only positions and comments changed)\n"
        } else {
            "no differences\n"
        });
        out
    }

    /// The node ids the diff marks in NEW, and the ghosts of OLD's removed parts.
    pub fn marks(&self) -> Marks<'_> {
        Marks {
            added: self.nodes_added.iter().map(|n| n.id.as_str()).collect(),
            changed: self.nodes_changed.iter().map(|c| c.id.as_str()).collect(),
            moved: self
                .nodes_moved
                .iter()
                .map(|(id, _)| id.as_str())
                .chain(self.reroutes.iter().filter_map(RerouteChange::added_node))
                .collect(),
            links_added: self.links_added.iter().map(|l| (&l.from, &l.to)).collect(),
            removed_nodes: &self.nodes_removed,
            removed_links: &self.links_removed,
        }
    }
}

/// What `sinew diff --svg` highlights.
pub struct Marks<'a> {
    pub added: Vec<&'a str>,
    pub changed: Vec<&'a str>,
    pub moved: Vec<&'a str>,
    pub links_added: Vec<(&'a PinRef, &'a PinRef)>,
    pub removed_nodes: &'a [Node],
    pub removed_links: &'a [Link],
}
