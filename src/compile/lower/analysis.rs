//! The lowering's analysis, run once per graph before anything is emitted: which `flow.for`
//! loops can hand their index over in a register, each handler's call contexts (computed once
//! per handler and kept for the emission), and which loop index slots are never needed.

use std::collections::{BTreeMap, BTreeSet};

use super::layout::Layout;
use super::{Graph, HandlerEntry, NodeId, Op, kind_of};
use crate::nodes::KindId;

/// The analysis' result, read by the slot allocation and the emission.
pub(super) struct Analysis {
    /// Per node: a `flow.for` whose body can never reach a `flow.delay` (see
    /// [`forwardable_loops`]).
    pub(super) for_fwd: Vec<bool>,
    /// Per node: a `flow.for` whose index needs no slot — forwardable, and every block that
    /// reads it (in every handler) runs inside its body.
    pub(super) elide: Vec<bool>,
    /// Per handler, in node order (a window's node: its `begin`, then its `end` handler):
    /// the event node, where the handler starts on it, and its call contexts.
    pub(super) handlers: Vec<(NodeId, HandlerEntry, HandlerContexts)>,
}

/// Analyzes `g` over its pin tables.
pub(super) fn analyze(g: &Graph, lay: &Layout, table: &mut ContextTable) -> Analysis {
    let for_fwd = forwardable_loops(g, lay);
    // Loops whose index is read at all, each with the exec nodes reading it.
    let loops: Vec<NodeId> = (0..g.nodes.len() as NodeId)
        .filter(|&i| for_fwd[i as usize])
        .filter(|&i| {
            g.nodes[i as usize]
                .output("index")
                .is_some_and(|p| lay.read[lay.outp(i, p)])
        })
        .collect();
    let readers: Vec<(NodeId, Vec<NodeId>)> = if loops.is_empty() {
        Vec::new()
    } else {
        let mut consumers: Vec<Vec<NodeId>> = vec![Vec::new(); lay.outputs()];
        for l in &g.links {
            if !g.is_exec(l) {
                consumers[lay.outp(l.from, l.from_pin as usize)].push(l.to);
            }
        }
        loops
            .iter()
            .map(|&l| (l, index_readers(g, lay, &consumers, l)))
            .collect()
    };
    let mut needed = vec![false; g.nodes.len()];
    let mut handlers = Vec::new();
    for (ev, node) in g.nodes.iter().enumerate() {
        let Op::Event(key) = &node.op else {
            continue;
        };
        for &entry in key.entries() {
            let h = analyze_handler(g, lay, table, ev as NodeId, entry.0);
            let cx = Contexts { table, h: &h };
            for (l, rs) in &readers {
                for &r in rs {
                    for (pin, p) in g.nodes[r as usize].inputs.iter().enumerate() {
                        if !p.ty.is_exec() {
                            continue;
                        }
                        let b = lay.inp(r, pin);
                        if cx.ctx(b) != Ctx::Unseen && !cx.inside(g, b, *l) {
                            needed[*l as usize] = true;
                        }
                    }
                }
            }
            handlers.push((ev as NodeId, entry, h));
        }
    }
    let mut elide = vec![false; g.nodes.len()];
    for (l, _) in &readers {
        elide[*l as usize] = !needed[*l as usize];
    }
    Analysis {
        for_fwd,
        elide,
        handlers,
    }
}

/// The exec outputs the lowering follows from block (`n`, `in_pin`), each with whether it is
/// in tail position (`jmp`/`ret`) or a call site (a `flow.for` body, a `flow.sequence` output
/// before the last). Mirrors the emission's exec lowering (`Emitter::block`).
fn followed(g: &Graph, n: NodeId, in_pin: u16) -> Vec<(u16, bool)> {
    let node = &g.nodes[n as usize];
    let in_name = node.inputs.get(in_pin as usize).map_or("", |p| &p.name[..]);
    match kind_of(node) {
        Some(KindId::FlowDoOnce) if in_name == "reset" => return Vec::new(),
        Some(KindId::FlowGate) if in_name != "enter" => return Vec::new(),
        _ => {}
    }
    (0..node.outputs.len() as u16)
        .filter(|&p| node.outputs[p as usize].ty.is_exec())
        .map(|p| (p, !node.is_call_output(p as usize)))
        .collect()
}

/// A block's call context: where the `ret` ending its tail chain returns to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ctx {
    /// Not reached in this handler.
    Unseen,
    /// Only ever entered from one site: 0 is the handler's entry, any other value a call site
    /// (an exec output pin index + 1).
    One(u32),
    /// Entered from several sites: its chain ends in a real `ret`.
    Many,
}

/// Longest context chain [`Contexts::inside`] walks before answering "no".
const MAX_CONTEXT_WALK: usize = 4096;

/// A dense per-block table of call contexts, holding one handler's at a time (entries of other
/// handlers are invalidated by a stamp, never cleared).
#[derive(Default)]
pub(super) struct ContextTable {
    /// Per exec input pin (`Layout::inp`): (stamp, context).
    state: Vec<(u32, Ctx)>,
    stamp: u32,
}

impl ContextTable {
    fn ctx(&self, block: usize) -> Ctx {
        match self.state.get(block) {
            Some(&(st, c)) if st == self.stamp => c,
            _ => Ctx::Unseen,
        }
    }

    /// Starts a new handler: every block reads `Unseen`.
    fn begin(&mut self, blocks: usize) {
        self.state.resize(blocks, (0, Ctx::Unseen));
        self.stamp += 1;
    }

    /// Loads a handler's stored contexts (for the emission).
    pub(super) fn load(&mut self, h: &HandlerContexts, blocks: usize) {
        self.begin(blocks);
        for &(b, c) in &h.reached {
            self.state[b as usize] = (self.stamp, c);
        }
    }
}

/// One handler's call contexts, computed once by the analysis: every reached block's context,
/// the call sites reached and those that cannot be inlined (their callee chain is shared).
#[derive(Default)]
pub(super) struct HandlerContexts {
    /// Every block the handler reaches, with its context.
    reached: Vec<(u32, Ctx)>,
    /// Call sites reached in this handler: site → (node, output pin, block holding the site).
    sites: BTreeMap<u32, (NodeId, u16, usize)>,
    /// Call sites whose callee chain is shared with another site (never inlined).
    tainted: BTreeSet<u32>,
}

/// Computes the contexts of the blocks of the handler that starts at exec output `start` of
/// event node `ev` (a fixed point: each block's context only moves Unseen → One → Many, so it
/// is reached at most three times). Leaves them loaded in `table`.
fn analyze_handler(
    g: &Graph,
    lay: &Layout,
    table: &mut ContextTable,
    ev: NodeId,
    start: &str,
) -> HandlerContexts {
    table.begin(lay.inputs());
    let mut h = HandlerContexts::default();
    let mut work: Vec<(NodeId, u16)> = Vec::new();
    let node = &g.nodes[ev as usize];
    if let Some(then) = node.output(start)
        && let Some(t) = lay.next(ev, then)
    {
        merge(table, &mut h, lay, t, Ctx::One(0), &mut work);
    }
    while let Some((n, in_pin)) = work.pop() {
        let here = table.ctx(lay.inp(n, in_pin as usize));
        for (out, tail) in followed(g, n, in_pin) {
            let Some(t) = lay.next(n, out as usize) else {
                continue;
            };
            let incoming = if tail {
                here
            } else {
                let site = lay.outp(n, out as usize) as u32 + 1;
                h.sites.insert(site, (n, out, lay.inp(n, in_pin as usize)));
                Ctx::One(site)
            };
            merge(table, &mut h, lay, t, incoming, &mut work);
        }
    }
    for r in &mut h.reached {
        r.1 = table.ctx(r.0 as usize);
    }
    h
}

fn merge(
    table: &mut ContextTable,
    h: &mut HandlerContexts,
    lay: &Layout,
    t: (NodeId, u16),
    incoming: Ctx,
    work: &mut Vec<(NodeId, u16)>,
) {
    let at = lay.inp(t.0, t.1 as usize);
    let old = table.ctx(at);
    let new = match (old, incoming) {
        (_, Ctx::Unseen) => old,
        (Ctx::Unseen, x) => x,
        (Ctx::One(a), Ctx::One(b)) if a == b => old,
        (Ctx::One(a), Ctx::One(b)) => {
            h.tainted.insert(a);
            h.tainted.insert(b);
            Ctx::Many
        }
        (Ctx::One(a), Ctx::Many) | (Ctx::Many, Ctx::One(a)) => {
            h.tainted.insert(a);
            Ctx::Many
        }
        (Ctx::Many, Ctx::Many) => Ctx::Many,
    };
    if new != old {
        if old == Ctx::Unseen {
            h.reached.push((at as u32, new));
        }
        table.state[at] = (table.stamp, new);
        work.push(t);
    }
}

/// A handler's call contexts, ready for queries (its table loaded).
#[derive(Clone, Copy)]
pub(super) struct Contexts<'a> {
    pub(super) table: &'a ContextTable,
    pub(super) h: &'a HandlerContexts,
}

impl Contexts<'_> {
    pub(super) fn ctx(&self, block: usize) -> Ctx {
        self.table.ctx(block)
    }

    /// Can call site `site`, whose callee block is `target`, be emitted inline?
    pub(super) fn inlinable(&self, site: u32, target: usize) -> bool {
        self.ctx(target) == Ctx::One(site) && !self.h.tainted.contains(&site)
    }

    /// Does `block` only ever run inside the body of `flow.for` node `l` (within one
    /// iteration's call of it)?
    pub(super) fn inside(&self, g: &Graph, mut block: usize, l: NodeId) -> bool {
        let body = g.nodes[l as usize].output("body").map(|p| p as u16);
        for _ in 0..MAX_CONTEXT_WALK {
            let Ctx::One(site) = self.ctx(block) else {
                return false;
            };
            let Some(&(n, pin, parent)) = self.h.sites.get(&site) else {
                return false;
            };
            if n == l && Some(pin) == body {
                return true;
            }
            block = parent;
        }
        false
    }
}

/// Which `flow.for` loops can hand their `index` to readers in the counter register: those
/// whose body can never reach a `flow.delay` (a delay could let another invocation run the loop
/// and move the stored index before the suspended reader resumes).
fn forwardable_loops(g: &Graph, lay: &Layout) -> Vec<bool> {
    // reaches_delay over the exec DAG (cycles are errors before lowering), iteratively.
    let n = g.nodes.len();
    let mut reaches: Vec<Option<bool>> = vec![None; n];
    for start in 0..n {
        if reaches[start].is_some() {
            continue;
        }
        let mut stack = vec![(start as NodeId, false)];
        while let Some((x, expanded)) = stack.pop() {
            if reaches[x as usize].is_some() {
                continue;
            }
            let node = &g.nodes[x as usize];
            let succ = (0..node.outputs.len()).filter_map(|p| lay.next(x, p).map(|t| t.0));
            if expanded {
                let r = kind_of(node) == Some(KindId::FlowDelay)
                    || succ.into_iter().any(|t| reaches[t as usize] == Some(true));
                reaches[x as usize] = Some(r);
            } else {
                stack.push((x, true));
                for t in succ {
                    if reaches[t as usize].is_none() {
                        stack.push((t, false));
                    }
                }
            }
        }
    }
    (0..n)
        .map(|i| {
            let node = &g.nodes[i];
            kind_of(node) == Some(KindId::FlowFor)
                && node.output("body").is_some_and(|b| {
                    lay.next(i as NodeId, b)
                        .is_none_or(|t| reaches[t.0 as usize] != Some(true))
                })
        })
        .collect()
}

/// The exec nodes whose blocks read `flow.for` node `l`'s `index`, directly or through pure
/// nodes.
fn index_readers(g: &Graph, lay: &Layout, consumers: &[Vec<NodeId>], l: NodeId) -> Vec<NodeId> {
    let Some(index) = g.nodes[l as usize].output("index") else {
        return Vec::new();
    };
    let mut seen = BTreeSet::new();
    let mut readers = BTreeSet::new();
    let mut stack: Vec<NodeId> = consumers[lay.outp(l, index)].clone();
    while let Some(x) = stack.pop() {
        if !seen.insert(x) {
            continue;
        }
        let node = &g.nodes[x as usize];
        if node.is_pure() {
            for p in 0..node.outputs.len() {
                stack.extend_from_slice(&consumers[lay.outp(x, p)]);
            }
        } else {
            readers.insert(x);
        }
    }
    readers.into_iter().collect()
}
