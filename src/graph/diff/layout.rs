//! The layout parts of a diff: comment boxes and reroute nodes.
//!
//! Boxes have no name: they are paired by title, occurrence by occurrence (like a name declared
//! twice), and any difference — added, removed, moved, resized, recoloured, re-commented — is
//! reported under `moved`. Reroutes compile to nothing, so two graphs are compared with their
//! reroutes' wires joined ([`joined`], the compiler's rule from `graph::reroute`); what remains
//! of the reroutes — reroute nodes and the wires into and out of them, added or removed — is
//! layout, reported under `moved`, and a reroute's new position is an ordinary node move.

use super::{Change, Diff, Moved, pair};
use crate::graph::model::{BoxDef, Link, Model, Node};
use crate::graph::reroute::{self, Ends, Joined};
use serde_json::{Value as Json, json};
use std::collections::HashSet;

/// A comment box added (`old` none), removed (`new` none) or changed.
#[derive(Clone, Debug, PartialEq)]
pub struct BoxChange {
    pub title: String,
    pub old: Option<BoxDef>,
    pub new: Option<BoxDef>,
}

/// A reroute node, or a wire into or out of one, added or removed.
#[derive(Clone, Debug, PartialEq)]
pub enum RerouteChange {
    Node { id: String, added: bool },
    Link { link: Link, added: bool },
}

impl RerouteChange {
    /// The id of an added reroute node (the diff picture marks it as moved).
    pub fn added_node(&self) -> Option<&str> {
        match self {
            RerouteChange::Node { id, added: true } => Some(id),
            _ => None,
        }
    }
}

fn is_reroute(n: &Node) -> bool {
    n.kind == reroute::KIND
}

/// Does the graph have a reroute node?
pub fn has_reroutes(m: &Model) -> bool {
    m.nodes.iter().any(is_reroute)
}

/// The graph with its reroutes taken out and their wires joined.
pub fn joined(m: &Model) -> Model {
    let names: Vec<&str> = m
        .nodes
        .iter()
        .filter(|n| is_reroute(n))
        .map(|n| n.id.as_str())
        .collect();
    let ends: Vec<Ends> = m
        .links
        .iter()
        .map(|l| Ends {
            from_node: &l.from.node,
            from_pin: &l.from.pin,
            to_node: &l.to.node,
            to_pin: &l.to.pin,
        })
        .collect();
    let joining = reroute::join(&names, &ends);
    let links = joining
        .links
        .iter()
        .map(|j| match *j {
            Joined::Plain(i) => m.links[i].clone(),
            Joined::Through { source, sink, .. } => Link {
                from: m.links[source].from.clone(),
                to: m.links[sink].to.clone(),
                comment: m.links[sink].comment.clone(),
                line_comment: m.links[sink].line_comment.clone(),
            },
        })
        .collect();
    Model {
        nodes: m.nodes.iter().filter(|n| !is_reroute(n)).cloned().collect(),
        links,
        ..m.clone()
    }
}

/// Adds the reroutes' own changes (nodes, their wires, moves) to a diff of the joined graphs.
pub fn reroutes(d: &mut Diff, old: &Model, new: &Model) {
    let ro: Vec<&Node> = old.nodes.iter().filter(|n| is_reroute(n)).collect();
    let rn: Vec<&Node> = new.nodes.iter().filter(|n| is_reroute(n)).collect();
    let (matched, gone, fresh) = pair(&ro, &rn, |n| n.id.as_str());
    for (i, j) in matched {
        let (a, b) = (ro[i], rn[j]);
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
    let node = |n: &Node, added| RerouteChange::Node {
        id: n.id.clone(),
        added,
    };
    d.reroutes
        .extend(gone.into_iter().map(|i| node(ro[i], false)));
    d.reroutes
        .extend(fresh.into_iter().map(|j| node(rn[j], true)));
    // The wires that touch a reroute on either side (linear: the reroutes' ids in a set).
    let ids = |rs: &[&Node]| -> HashSet<String> { rs.iter().map(|n| n.id.clone()).collect() };
    let (io, inew) = (ids(&ro), ids(&rn));
    let touches =
        |ids: &HashSet<String>, l: &Link| ids.contains(&l.from.node) || ids.contains(&l.to.node);
    let lo: Vec<&Link> = old.links.iter().filter(|l| touches(&io, l)).collect();
    let ln: Vec<&Link> = new.links.iter().filter(|l| touches(&inew, l)).collect();
    let (_, gone, fresh) = pair(&lo, &ln, |l| (&l.from, &l.to));
    let link = |l: &Link, added| RerouteChange::Link {
        link: l.clone(),
        added,
    };
    d.reroutes
        .extend(gone.into_iter().map(|i| link(lo[i], false)));
    d.reroutes
        .extend(fresh.into_iter().map(|j| link(ln[j], true)));
}

/// Adds the comment boxes' changes.
pub fn boxes(d: &mut Diff, old: &Model, new: &Model) {
    let (matched, gone, fresh) = pair(&old.boxes, &new.boxes, |b| b.title.as_str());
    for (i, j) in matched {
        let (a, b) = (&old.boxes[i], &new.boxes[j]);
        if a != b {
            d.boxes.push(BoxChange {
                title: b.title.clone(),
                old: Some(a.clone()),
                new: Some(b.clone()),
            });
        }
    }
    for i in gone {
        let a = &old.boxes[i];
        d.boxes.push(BoxChange {
            title: a.title.clone(),
            old: Some(a.clone()),
            new: None,
        });
    }
    for j in fresh {
        let b = &new.boxes[j];
        d.boxes.push(BoxChange {
            title: b.title.clone(),
            old: None,
            new: Some(b.clone()),
        });
    }
}

fn box_json(b: &Option<BoxDef>) -> Json {
    b.as_ref().map_or(
        Json::Null,
        |b| json!({"x": b.x, "y": b.y, "w": b.w, "h": b.h, "color": b.color}),
    )
}

/// Adds the layout parts to the JSON report: `"boxes": {"moved": [...]}` when a box changed,
/// reroutes under `nodes.moved` (`{"id", "reroute": "added" | "removed"}`) and their wires
/// under `links.moved` (`{"from", "to", "reroute": …}`).
pub fn to_json(d: &Diff, out: &mut Json) {
    let word = |added: bool| if added { "added" } else { "removed" };
    for r in &d.reroutes {
        let (section, entry) = match r {
            RerouteChange::Node { id, added } => {
                ("nodes", json!({"id": id, "reroute": word(*added)}))
            }
            RerouteChange::Link { link, added } => (
                "links",
                json!({"from": link.from.to_string(), "to": link.to.to_string(),
                       "reroute": word(*added)}),
            ),
        };
        if let Some(Json::Array(a)) = out.pointer_mut(&format!("/{section}/moved")) {
            a.push(entry);
        }
    }
    if !d.boxes.is_empty()
        && let Json::Object(o) = out
    {
        let moved: Vec<Json> = d
            .boxes
            .iter()
            .map(|b| json!({"title": b.title, "old": box_json(&b.old), "new": box_json(&b.new)}))
            .collect();
        o.insert("boxes".into(), json!({ "moved": moved }));
    }
}

/// The human report's lines for the layout parts (each a `>` line).
pub fn human(d: &Diff) -> Vec<String> {
    let mut out = Vec::new();
    let word = |added: bool| if added { "added" } else { "removed" };
    for b in &d.boxes {
        let title = format!("{:?}", b.title);
        out.push(match (&b.old, &b.new) {
            (None, Some(n)) => format!("> box {title} added at ({}, {})", n.x, n.y),
            (Some(_), None) => format!("> box {title} removed"),
            (Some(o), Some(n)) => {
                let mut what = Vec::new();
                if (o.x, o.y) != (n.x, n.y) {
                    what.push(format!("moved ({}, {}) -> ({}, {})", o.x, o.y, n.x, n.y));
                }
                if (o.w, o.h) != (n.w, n.h) {
                    what.push(format!("resized {}x{} -> {}x{}", o.w, o.h, n.w, n.h));
                }
                if o.color != n.color {
                    what.push("recoloured".into());
                }
                if o.comment != n.comment || o.line_comment != n.line_comment {
                    what.push("comment changed".into());
                }
                format!("> box {title} {}", what.join(", "))
            }
            (None, None) => continue,
        });
    }
    for r in &d.reroutes {
        out.push(match r {
            RerouteChange::Node { id, added } => format!("> reroute {id} {}", word(*added)),
            RerouteChange::Link { link, added } => format!(
                "> wire {} -> {} {} (through a reroute)",
                link.from,
                link.to,
                word(*added)
            ),
        });
    }
    out
}
