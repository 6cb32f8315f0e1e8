//! What a picture shows: nodes with titles, typed pins, literal values, properties, comments,
//! diagnostics and diff marks, built from a [`Model`] and (when compiled) the typed IR.

use super::{MAX_COMMENT_LINES, MAX_LINE_CHARS, MAX_LINKS, MAX_NODES};
use crate::compile::ir::{self, Op};
use crate::diag::{Diagnostic, Severity};
use crate::graph::ast::{File, Item};
use crate::graph::model::{Model, Node, PinRef, Value};
use crate::nodes::{self, Flow, NodeKind, PinSpec, PinType};
use crate::types::Type;
use std::collections::{HashMap, HashSet};

/// The header colour group of a node (Blueprint conventions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Starts a handler (red).
    Event,
    /// `flow.*` control (grey).
    Flow,
    /// Pure maths, strings, entities, `expr` (green).
    Math,
    /// `anim.*` (purple).
    Animation,
    /// `var.get` / `var.set` (teal).
    Variable,
    /// Other exec nodes: `debug.log`, `event.send` (blue).
    Function,
    /// A kind the node table does not know (dark grey).
    Unknown,
    /// A reroute node: drawn as a small dot, typed by the wire into it.
    Reroute,
}

impl Family {
    pub fn name(self) -> &'static str {
        match self {
            Family::Event => "event",
            Family::Flow => "flow",
            Family::Math => "math",
            Family::Animation => "animation",
            Family::Variable => "variable",
            Family::Function => "function",
            Family::Unknown => "unknown",
            Family::Reroute => "reroute",
        }
    }
}

/// A diff mark (see `graph::diff`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mark {
    #[default]
    None,
    Added,
    Changed,
    /// Drawn as a ghost: the part is in OLD only.
    Removed,
    /// Only its position or comments changed.
    Moved,
}

impl Mark {
    pub fn name(self) -> Option<&'static str> {
        match self {
            Mark::None => None,
            Mark::Added => Some("added"),
            Mark::Changed => Some("changed"),
            Mark::Removed => Some("removed"),
            Mark::Moved => Some("moved"),
        }
    }
}

/// One pin of a drawn node.
#[derive(Clone, Debug, PartialEq)]
pub struct PinView {
    pub name: String,
    /// `None` when the compiler could not type it (unknown kind or pin).
    pub ty: Option<PinType>,
    /// The literal the node's ARGS give an unlinked input, as written.
    pub literal: Option<String>,
    pub linked: bool,
    /// A pin only a link names (the node has no such pin).
    pub error: bool,
}

/// A diagnostic shown on a node, wire or variable.
#[derive(Clone, Debug, PartialEq)]
pub struct Badge {
    pub severity: Severity,
    pub code: String,
    pub message: String,
}

/// One drawn node.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeView {
    pub id: String,
    pub title: String,
    /// `id · kind` (or what the kind applies to).
    pub subtitle: String,
    pub family: Family,
    pub inputs: Vec<PinView>,
    pub outputs: Vec<PinView>,
    /// ARGS that are not input pins (`count = 3`), as `(name, literal)`.
    pub props: Vec<(String, String)>,
    /// Comment lines (without `//`), the end-of-line comment last.
    pub comment: Vec<String>,
    pub at: Option<(i64, i64)>,
    pub mark: Mark,
    pub badges: Vec<Badge>,
}

/// One drawn wire.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkView {
    pub from: PinRef,
    pub to: PinRef,
    pub exec: bool,
    pub ty: Option<PinType>,
    pub comment: Vec<String>,
    pub mark: Mark,
    pub badges: Vec<Badge>,
}

/// One variable in the picture's variable list.
#[derive(Clone, Debug, PartialEq)]
pub struct VarView {
    pub name: String,
    pub ty: PinType,
    pub default: String,
    pub comment: Vec<String>,
    pub mark: Mark,
    pub badges: Vec<Badge>,
}

/// One comment box: a titled rectangle behind the nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct BoxView {
    pub title: String,
    pub x: i64,
    pub y: i64,
    pub w: i64,
    pub h: i64,
    /// `#RRGGBB`, when the box sets one.
    pub color: Option<String>,
}

/// Everything one graph picture shows.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Picture {
    /// The graph's name.
    pub title: String,
    /// Comments above and at the end of the `graph` line.
    pub comment: Vec<String>,
    pub vars: Vec<VarView>,
    pub nodes: Vec<NodeView>,
    pub links: Vec<LinkView>,
    /// Comments after the last item.
    pub end_comment: Vec<String>,
    /// Comment boxes, drawn behind the nodes.
    pub boxes: Vec<BoxView>,
    /// Diagnostics that belong to no item, and what the limits left out.
    pub notes: Vec<String>,
}

/// Truncates to [`MAX_LINE_CHARS`] characters (`…` at the end when cut).
pub fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Display lines of a stored comment block plus an end-of-line comment (without `//`).
pub fn comment_lines(block: &str, line: Option<&str>) -> Vec<String> {
    comment_lines_max(block, line, MAX_LINE_CHARS)
}

/// [`comment_lines`] with lines cut at `max` characters.
pub fn comment_lines_max(block: &str, line: Option<&str>, max: usize) -> Vec<String> {
    let all: Vec<&str> = block
        .split('\n')
        .filter(|l| !l.is_empty())
        .chain(line)
        .collect();
    let mut out: Vec<String> = all
        .iter()
        .take(MAX_COMMENT_LINES)
        .map(|l| {
            let t = l.strip_prefix("//").unwrap_or(l);
            clip(t.strip_prefix(' ').unwrap_or(t), max)
        })
        .collect();
    if all.len() > MAX_COMMENT_LINES {
        out.push(format!("… {} more lines", all.len() - MAX_COMMENT_LINES));
    }
    out
}

/// The node table's entry for a model node (events by their subject), if any.
pub fn table_kind(n: &Node) -> Option<&'static NodeKind> {
    nodes::lookup_written(n.kind_path(), n.subject())
}

fn family(n: &Node, kind: Option<&NodeKind>) -> Family {
    let path = n.kind_path();
    if path == "event" {
        return Family::Event;
    }
    if path == crate::graph::reroute::KIND && n.subject().is_none() {
        return Family::Reroute;
    }
    let Some(k) = kind else {
        return Family::Unknown;
    };
    match path.split('.').next().unwrap_or("") {
        "flow" => Family::Flow,
        "var" => Family::Variable,
        "anim" => Family::Animation,
        _ if k.flow == Flow::Pure => Family::Math,
        _ => Family::Function,
    }
}

fn unquote(s: &str) -> String {
    let inner = s
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(s);
    crate::graph::lexer::unescape(inner).unwrap_or_else(|_| inner.to_string())
}

fn titles(n: &Node, kind: Option<&NodeKind>) -> (String, String) {
    let path = n.kind_path();
    let subject = n.subject().unwrap_or("");
    let sub = |what: &str| format!("{} · {what}", n.id);
    match (path, kind) {
        ("event", _) => {
            if let Some(rest) = subject.strip_prefix("animseq::") {
                let (seq, notify) = rest.split_once('.').unwrap_or((rest, ""));
                (notify.to_string(), sub(&format!("notify of {seq}")))
            } else if let Some(name) = subject.strip_prefix("custom::") {
                (format!("Event {name}"), sub("custom event"))
            } else if let Some(k) = kind {
                (format!("Event {}", k.name), sub("event"))
            } else {
                (format!("Event {subject}"), sub("event"))
            }
        }
        ("var.get", _) => (format!("Get {subject}"), sub("var.get")),
        ("var.set", _) => (format!("Set {subject}"), sub("var.set")),
        ("expr", _) => (unquote(subject), sub("expr")),
        ("event.send", _) => (
            format!(
                "Send {}",
                subject.strip_prefix("custom::").unwrap_or(subject)
            ),
            sub("event.send"),
        ),
        (_, Some(k)) => (k.name.to_string(), sub(k.kind)),
        (_, None) => (n.kind.clone(), sub("unknown kind")),
    }
}

fn pin(name: &str, ty: Option<PinType>) -> PinView {
    PinView {
        name: name.to_string(),
        ty,
        literal: None,
        linked: false,
        error: false,
    }
}

/// Pins from the node table when the compiler has none (not compiled, or the node failed).
fn table_pins(n: &Node, kind: Option<&NodeKind>) -> (Vec<PinView>, Vec<PinView>) {
    let var_ty = |t: PinSpec| t.resolve(None);
    if n.kind_path() == "event" && n.subject().is_some_and(|s| s.starts_with("animseq::")) {
        let outs = nodes::NOTIFY_CONTEXT_PINS
            .iter()
            .map(|p| pin(p.name, p.ty.resolve(None)))
            .collect();
        return (Vec::new(), outs);
    }
    if n.kind_path() == "expr" {
        let inputs = crate::graph::expr::parse(&unquote(n.subject().unwrap_or("")))
            .map(|p| {
                p.inputs
                    .iter()
                    .map(|i| pin(&i.name, Some(PinType::Data(Type::Float))))
                    .collect()
            })
            .unwrap_or_default();
        return (inputs, vec![pin("out", Some(PinType::Data(Type::Float)))]);
    }
    let Some(k) = kind else {
        return (Vec::new(), Vec::new());
    };
    let ins = k.inputs.iter().map(|p| pin(p.name, var_ty(p.ty))).collect();
    let mut outs: Vec<PinView> = k
        .outputs
        .iter()
        .map(|p| pin(p.name, var_ty(p.ty)))
        .collect();
    if k.kind == "flow.sequence" {
        let count = match n.props.get("count") {
            Some(Value::Int(c)) => (*c).clamp(1, nodes::SEQUENCE_MAX) as usize,
            _ => 2,
        };
        outs.truncate(count);
    }
    (ins, outs)
}

fn node_view(n: &Node, resolved: Option<&ir::Node>) -> NodeView {
    let kind = table_kind(n);
    let (title, subtitle) = titles(n, kind);
    let (mut inputs, outputs) = match resolved {
        Some(r) if !matches!(r.op, Op::Error) => (
            r.inputs.iter().map(|p| pin(&p.name, Some(p.ty))).collect(),
            r.outputs.iter().map(|p| pin(&p.name, Some(p.ty))).collect(),
        ),
        _ => table_pins(n, kind),
    };
    let mut props = Vec::new();
    for (name, value) in n.props.iter() {
        let text = clip(&value.text(), 24);
        match inputs.iter_mut().find(|p| p.name == name) {
            Some(p) if p.literal.is_none() => p.literal = Some(text),
            _ => props.push((name.to_string(), text)),
        }
    }
    NodeView {
        id: n.id.clone(),
        title,
        subtitle,
        family: family(n, kind),
        inputs,
        outputs,
        props,
        comment: comment_lines(&n.comment, n.line_comment.as_deref()),
        at: n.at(),
        mark: Mark::None,
        badges: Vec::new(),
    }
}

/// Marks a picture of NEW with a diff against OLD: added, changed and moved nodes and added
/// wires are marked; OLD's removed nodes and wires are added as ghosts (at their old
/// positions; unplaced ones are laid out with the rest).
pub fn apply_diff(p: &mut Picture, d: &crate::graph::diff::Diff) {
    let m = d.marks();
    let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<HashSet<String>>();
    let (added, changed, moved) = (set(&m.added), set(&m.changed), set(&m.moved));
    let links_added: HashSet<(&PinRef, &PinRef)> = m.links_added.iter().copied().collect();
    for n in &mut p.nodes {
        let id = n.id.as_str();
        n.mark = if added.contains(id) {
            Mark::Added
        } else if changed.contains(id) {
            Mark::Changed
        } else if moved.contains(id) {
            Mark::Moved
        } else {
            Mark::None
        };
    }
    for l in &mut p.links {
        if links_added.contains(&(&l.from, &l.to)) {
            l.mark = Mark::Added;
        }
    }
    for n in m.removed_nodes {
        let mut v = node_view(n, None);
        v.mark = Mark::Removed;
        p.nodes.push(v);
    }
    let ends = link_ends(p, m.removed_links.iter().map(|l| (&l.from, &l.to)));
    for (l, ends) in m.removed_links.iter().zip(ends) {
        add_link(
            p,
            ends,
            l.from.clone(),
            l.to.clone(),
            Vec::new(),
            Mark::Removed,
        );
    }
}

/// Builds the picture of a model; `graph` (the compiler's IR of the same file) types the pins.
pub fn build(model: &Model, graph: Option<&ir::Graph>) -> Picture {
    let resolved: HashMap<&str, &ir::Node> = graph
        .map(|g| g.nodes.iter().map(|n| (n.name.as_str(), n)).collect())
        .unwrap_or_default();
    let mut seen = HashSet::new();
    let mut p = Picture {
        title: model.graph.clone(),
        comment: comment_lines_max(
            &model.comment,
            model.line_comment.as_deref(),
            2 * MAX_LINE_CHARS,
        ),
        end_comment: comment_lines_max(&model.end_comment, None, 2 * MAX_LINE_CHARS),
        ..Picture::default()
    };
    for v in &model.vars {
        p.vars.push(VarView {
            name: v.name.clone(),
            ty: PinType::Data(v.ty),
            default: clip(&v.default.text(), 24),
            comment: comment_lines(&v.comment, v.line_comment.as_deref()),
            mark: Mark::None,
            badges: Vec::new(),
        });
    }
    p.boxes = model
        .boxes
        .iter()
        .take(MAX_NODES)
        .map(|b| BoxView {
            title: clip(&b.title, 2 * MAX_LINE_CHARS),
            x: b.x,
            y: b.y,
            w: b.w,
            h: b.h,
            color: b.color.clone(),
        })
        .collect();
    for n in model.nodes.iter().take(MAX_NODES) {
        let first = seen.insert(n.id.as_str());
        let r = if first {
            resolved.get(n.id.as_str()).copied()
        } else {
            None
        };
        p.nodes.push(node_view(n, r));
    }
    if model.nodes.len() > MAX_NODES {
        p.notes.push(format!(
            "{} more nodes not drawn (a picture draws at most {MAX_NODES})",
            model.nodes.len() - MAX_NODES
        ));
    }
    let links: Vec<(PinRef, PinRef, Vec<String>)> = model
        .links
        .iter()
        .take(MAX_LINKS)
        .map(|l| {
            (
                l.from.clone(),
                l.to.clone(),
                comment_lines(&l.comment, l.line_comment.as_deref()),
            )
        })
        .collect();
    let ends = link_ends(&p, links.iter().map(|(f, t, _)| (f, t)));
    for ((from, to, comment), ends) in links.into_iter().zip(ends) {
        add_link(&mut p, ends, from, to, comment, Mark::None);
    }
    if model.links.len() > MAX_LINKS {
        p.notes.push(format!(
            "{} more links not drawn (a picture draws at most {MAX_LINKS})",
            model.links.len() - MAX_LINKS
        ));
    }
    type_reroutes(&mut p);
    p
}

/// Gives each reroute's pins (and the wires out of it) the type of the wire into it, along
/// chains of reroutes in any order (one pass per link of the longest chain, at most as many
/// passes as there are reroutes, and at most 64: a longer chain is only drawn partly untyped).
fn type_reroutes(p: &mut Picture) {
    let reroutes = p
        .nodes
        .iter()
        .filter(|n| n.family == Family::Reroute)
        .count()
        .min(64);
    let index: HashMap<String, usize> = node_index(p)
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    for _ in 0..reroutes {
        let mut changed = false;
        for li in 0..p.links.len() {
            let (Some(&from), Some(&to)) = (
                index.get(&p.links[li].from.node),
                index.get(&p.links[li].to.node),
            ) else {
                continue;
            };
            let ty = p.links[li].ty;
            if p.nodes[from].family == Family::Reroute && ty.is_none() {
                let t = p.nodes[from].inputs.first().and_then(|q| q.ty);
                if t.is_some() {
                    p.links[li].ty = t;
                    p.links[li].exec = t == Some(PinType::Exec);
                    changed = true;
                }
            }
            let ty = p.links[li].ty;
            let n = &mut p.nodes[to];
            if n.family == Family::Reroute && ty.is_some() {
                for q in n.inputs.iter_mut().chain(n.outputs.iter_mut()) {
                    if q.ty.is_none() {
                        q.ty = ty;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
}

/// Node id → index of its first drawn node.
pub fn node_index(p: &Picture) -> HashMap<&str, usize> {
    let mut index = HashMap::with_capacity(p.nodes.len());
    for (i, n) in p.nodes.iter().enumerate() {
        index.entry(n.id.as_str()).or_insert(i);
    }
    index
}

/// The drawn nodes at both ends of each link (by [`node_index`]).
pub fn link_ends<'a>(
    p: &Picture,
    links: impl Iterator<Item = (&'a PinRef, &'a PinRef)>,
) -> Vec<(Option<usize>, Option<usize>)> {
    let index = node_index(p);
    links
        .map(|(f, t)| {
            (
                index.get(f.node.as_str()).copied(),
                index.get(t.node.as_str()).copied(),
            )
        })
        .collect()
}

/// Adds a wire, giving its end nodes a pin of that name when they lack one (marked as an
/// error pin), so a link the compiler refused still shows where it goes. `ends` are the drawn
/// nodes at its ends ([`link_ends`]).
pub fn add_link(
    p: &mut Picture,
    (from_node, to_node): (Option<usize>, Option<usize>),
    from: PinRef,
    to: PinRef,
    comment: Vec<String>,
    mark: Mark,
) {
    let mut ty = None;
    let ghost = mark == Mark::Removed;
    if ghost {
        // A removed wire only shows where it went: it adds no pins and links none.
        let find = |i: Option<usize>, pin: &str, out: bool| {
            let n = &p.nodes[i?];
            let pins = if out { &n.outputs } else { &n.inputs };
            pins.iter().find(|q| q.name == pin).and_then(|q| q.ty)
        };
        ty = find(from_node, &from.pin, true).or_else(|| find(to_node, &to.pin, false));
    }
    if let Some(i) = from_node.filter(|_| !ghost) {
        let outs = &mut p.nodes[i].outputs;
        let pin = match outs.iter().position(|q| q.name == from.pin) {
            Some(k) => &mut outs[k],
            None => {
                outs.push(PinView {
                    error: true,
                    ..pin(&from.pin, None)
                });
                outs.last_mut().expect("pushed")
            }
        };
        pin.linked = true;
        ty = pin.ty;
    }
    if let Some(i) = to_node.filter(|_| !ghost) {
        let ins = &mut p.nodes[i].inputs;
        let pin = match ins.iter().position(|q| q.name == to.pin) {
            Some(k) => &mut ins[k],
            None => {
                ins.push(PinView {
                    error: true,
                    ..pin(&to.pin, None)
                });
                ins.last_mut().expect("pushed")
            }
        };
        pin.linked = true;
        ty = ty.or(pin.ty);
    }
    p.links.push(LinkView {
        exec: ty == Some(PinType::Exec),
        ty,
        from,
        to,
        comment,
        mark,
        badges: Vec::new(),
    });
}

/// Puts each diagnostic on the node, wire or variable whose text holds its primary span;
/// others become notes. `file` is the parsed tree of the source the diagnostics are about.
pub fn attach_diagnostics(p: &mut Picture, file: &File, diags: &[Diagnostic]) {
    let mut counts = [0usize; 4];
    // (span start, span end, section, index in section) in source order.
    let items: Vec<(u32, u32, usize, usize)> = file
        .items
        .iter()
        .map(|item| {
            let s = match item {
                Item::Var(_) => 0,
                Item::Node(_) => 1,
                Item::Link(_) => 2,
                // Not drawn as parts of their own: their diagnostics become notes.
                Item::Event(_) | Item::Box(_) => 3,
            };
            counts[s] += 1;
            let span = item.span();
            (span.start, span.end, s, counts[s] - 1)
        })
        .collect();
    let drawn: Vec<bool> = link_ends(p, p.links.iter().map(|l| (&l.from, &l.to)))
        .into_iter()
        .map(|(a, b)| a.is_some() || b.is_some())
        .collect();
    for d in diags {
        let at = d.span.start;
        let k = items.partition_point(|i| i.0 <= at);
        let badge = Badge {
            severity: d.severity,
            code: d.code.to_string(),
            message: if d.notes.is_empty() {
                d.message.clone()
            } else {
                format!("{} ({})", d.message, d.notes.join("; "))
            },
        };
        let target = k.checked_sub(1).map(|k| items[k]).filter(|i| at <= i.1);
        let slot = match target {
            Some((_, _, 0, i)) => p.vars.get_mut(i).map(|v| &mut v.badges),
            Some((_, _, 1, i)) => p.nodes.get_mut(i).map(|n| &mut n.badges),
            Some((_, _, 3, _)) => None,
            // A wire with neither end drawn cannot carry its message: it becomes a note.
            Some((_, _, _, i)) => p
                .links
                .get_mut(i)
                .filter(|_| drawn[i])
                .map(|l| &mut l.badges),
            None => None,
        };
        match slot {
            Some(b) => b.push(badge),
            None => p
                .notes
                .push(format!("{} {}: {}", d.severity, d.code, d.message)),
        }
    }
}
