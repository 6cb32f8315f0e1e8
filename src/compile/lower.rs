//! Lower: a checked, error-free IR graph → a bytecode [`Module`] (then verified by the caller).
//!
//! Layout: variables become module variables; every data output of an exec or event node
//! becomes a hidden per-instance slot ("holds the last value it produced"), as do the
//! `do_once`/`flip_flop`/`gate`/`for` states. Each event node becomes one handler whose
//! parameters are its data outputs in pin order. Inside a handler every reachable exec input is
//! a block emitted once; an exec link is a `call` (or a `jmp` in tail position), so merges in the
//! exec graph never duplicate code. Pure nodes are evaluated per exec node that needs them (each
//! once per such use, in dependency order, iteratively — deep chains cannot overflow the stack).

use std::collections::{BTreeMap, BTreeSet};

use super::ir::{Const, Graph, Node, NodeId, Op};
use crate::bytecode::{
    self as bc, BuildError, DelayRef, HandlerBuilder, Instr, Label, Module, ModuleBuilder, Type,
};
use crate::graph::expr::{BinOp, Expr, ExprKind, Func};
use crate::nodes::PinType;

fn bc_const(c: &Const, ty: Type) -> bc::Const {
    match c {
        Const::Bool(b) => bc::Const::Bool(*b),
        Const::Int(i) if ty == Type::Float => bc::Const::Float(*i as f64),
        Const::Int(i) => bc::Const::Int(*i),
        Const::Float(f) => bc::Const::Float(*f),
        Const::Vec3(v) => bc::Const::Vec3(*v),
        Const::String(s) => bc::Const::Str(s.clone()),
        // An `entity` variable declared `""` starts unset (pins default to the own entity,
        // which `input_at` emits as `entity.self`).
        Const::Entity(_) if ty == Type::Entity => bc::Const::Entity(bc::EntityConst::None),
        Const::Entity(_) | Const::None => bc::Const::default_of(ty),
    }
}

/// Builds a typed instruction from raw register/slot/var indices, by bytecode type.
macro_rules! typed {
    ($ty:expr, [$b:ident, $i:ident, $f:ident, $v:ident, $s:ident, $e:ident] { $($field:ident : $wrap:ident ($val:expr)),* $(,)? }) => {
        match $ty {
            Type::Bool => Instr::$b { $($field: bc::$wrap::new($val)),* },
            Type::Int => Instr::$i { $($field: bc::$wrap::new($val)),* },
            Type::Float => Instr::$f { $($field: bc::$wrap::new($val)),* },
            Type::Vec3 => Instr::$v { $($field: bc::$wrap::new($val)),* },
            Type::Str => Instr::$s { $($field: bc::$wrap::new($val)),* },
            Type::Entity => Instr::$e { $($field: bc::$wrap::new($val)),* },
        }
    };
}

/// Per-node module layout: slots for outputs and state, delay entries. Pin-indexed tables are
/// flat vectors addressed by `in_base[node] + pin` / `out_base[node] + pin` (no maps on the
/// compiler's hot path).
struct Layout {
    in_base: Vec<u32>,
    out_base: Vec<u32>,
    /// Per output pin: the slot holding its last value (exec/event nodes' data pins that
    /// something reads).
    out_slots: Vec<Option<u16>>,
    /// Per output pin: does a data link read it?
    read: Vec<bool>,
    /// Per node: hidden state slots (`do_once`: done; `flip_flop`: next is b; `gate`: open).
    /// A `flow.for`'s counter and bound live in registers reserved for the whole handler, so a
    /// run suspended in the body by `flow.delay` keeps its own (the continuation saves them).
    state: Vec<Vec<u16>>,
    delays: Vec<Option<DelayRef>>,
    node_ids: Vec<bc::NodeId>,
    /// Per output pin: the exec input it leads to.
    exec_next: Vec<Option<(NodeId, u16)>>,
    /// Per input pin: the output feeding it.
    data_src: Vec<Option<(NodeId, u16)>>,
    /// Per node: a `flow.for` whose body never reaches a delay (see [`forwardable_loops`]).
    for_fwd: Vec<bool>,
}

impl Layout {
    fn inp(&self, n: NodeId, pin: usize) -> usize {
        self.in_base[n as usize] as usize + pin
    }
    fn outp(&self, n: NodeId, pin: usize) -> usize {
        self.out_base[n as usize] as usize + pin
    }
    fn slot(&self, n: NodeId, pin: usize) -> Option<u16> {
        self.out_slots[self.outp(n, pin)]
    }
    fn src(&self, n: NodeId, pin: usize) -> Option<(NodeId, u16)> {
        self.data_src[self.inp(n, pin)]
    }
    fn next(&self, n: NodeId, pin: usize) -> Option<(NodeId, u16)> {
        self.exec_next[self.outp(n, pin)]
    }
}

fn builtin(n: &Node) -> &str {
    match &n.op {
        Op::Builtin(k) => k.kind,
        _ => "",
    }
}

/// The pin tables and links of `g` (no slots yet: see [`Layout::allocate`]).
fn layout(g: &Graph) -> Layout {
    let mut lay = Layout {
        in_base: Vec::with_capacity(g.nodes.len() + 1),
        out_base: Vec::with_capacity(g.nodes.len() + 1),
        out_slots: Vec::new(),
        read: Vec::new(),
        state: Vec::with_capacity(g.nodes.len()),
        delays: Vec::with_capacity(g.nodes.len()),
        node_ids: Vec::with_capacity(g.nodes.len()),
        exec_next: Vec::new(),
        data_src: Vec::new(),
        for_fwd: vec![false; g.nodes.len()],
    };
    let (mut ins, mut outs) = (0u32, 0u32);
    for n in &g.nodes {
        lay.in_base.push(ins);
        lay.out_base.push(outs);
        ins += n.inputs.len() as u32;
        outs += n.outputs.len() as u32;
    }
    lay.exec_next = vec![None; outs as usize];
    lay.data_src = vec![None; ins as usize];
    lay.read = vec![false; outs as usize];
    for l in &g.links {
        let o = lay.outp(l.from, l.from_pin as usize);
        if g.is_exec(l) {
            lay.exec_next[o] = Some((l.to, l.to_pin));
        } else {
            let i = lay.inp(l.to, l.to_pin as usize);
            lay.data_src[i] = Some((l.from, l.from_pin));
            lay.read[o] = true;
        }
    }
    lay
}

impl Layout {
    /// Registers nodes, slots, state and delays with the module builder, in node order. A data
    /// output of an exec or event node gets a slot when something reads it, except a
    /// `flow.for` index that every reader takes from the loop's counter register (`elide`).
    fn allocate(&mut self, g: &Graph, mb: &mut ModuleBuilder, elide: &[bool]) {
        self.out_slots = vec![None; self.read.len()];
        for (i, n) in g.nodes.iter().enumerate() {
            let id = mb.node(&n.name);
            self.node_ids.push(id);
            let pure = n.is_pure();
            for (pin, p) in n.outputs.iter().enumerate() {
                let o = self.outp(i as NodeId, pin);
                let elided = elide[i] && p.name == "index";
                self.out_slots[o] = match p.ty.data() {
                    Some(t) if !pure && self.read[o] && !elided => Some(mb.slot_raw(
                        &format!("{}.{}", n.name, p.name),
                        t,
                        bc::Const::default_of(t),
                    )),
                    _ => None,
                };
            }
            let b = |mb: &mut ModuleBuilder, what: &str, ty: Type, c: bc::Const| {
                mb.slot_raw(&format!("{}#{what}", n.name), ty, c)
            };
            self.state.push(match builtin(n) {
                "flow.do_once" => vec![b(mb, "done", Type::Bool, bc::Const::Bool(false))],
                "flow.flip_flop" => vec![b(mb, "next_b", Type::Bool, bc::Const::Bool(false))],
                "flow.gate" => vec![b(
                    mb,
                    "open",
                    Type::Bool,
                    bc::Const::Bool(n.props.start_open),
                )],
                _ => Vec::new(),
            });
            self.delays
                .push((builtin(n) == "flow.delay").then(|| mb.delay(id)));
        }
    }
}

/// The exec outputs the lowering follows from block (`n`, `in_pin`), each with whether it is
/// in tail position (`jmp`/`ret`) or a call site (a `flow.for` body, a `flow.sequence` output
/// before the last). Mirrors [`Emitter::block`].
fn followed(g: &Graph, n: NodeId, in_pin: u16) -> Vec<(u16, bool)> {
    let node = &g.nodes[n as usize];
    let in_name = node.inputs.get(in_pin as usize).map_or("", |p| &p.name[..]);
    let kind = builtin(node);
    if (kind == "flow.do_once" && in_name == "reset") || (kind == "flow.gate" && in_name != "enter")
    {
        return Vec::new();
    }
    (0..node.outputs.len() as u16)
        .filter(|&p| node.outputs[p as usize].ty == PinType::Exec)
        .map(|p| (p, !node.is_call_output(p as usize)))
        .collect()
}

/// A block's call context: where the `ret` ending its tail chain returns to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    /// Not reached in this handler.
    Unseen,
    /// Only ever entered from one site: 0 is the handler's entry, any other value a call site
    /// (an exec output pin index + 1).
    One(u32),
    /// Entered from several sites: its chain ends in a real `ret`.
    Many,
}

/// Deepest nesting of inlined call sites (deeper sites stay `call`s), so emission recursion is
/// bounded whatever the graph.
const MAX_INLINE_DEPTH: u32 = 32;
/// Longest context chain [`Contexts::inside`] walks before answering "no".
const MAX_CONTEXT_WALK: usize = 4096;

/// Per handler: every reachable block's call context and the call sites that can be inlined
/// (their callee chain is entered from nowhere else, so its `ret`s become jumps back).
#[derive(Default)]
struct Contexts {
    /// Per exec input pin (`Layout::inp`): (stamp, context).
    state: Vec<(u32, Ctx)>,
    stamp: u32,
    /// Call sites reached in this handler: site → (node, output pin, block holding the site).
    sites: BTreeMap<u32, (NodeId, u16, usize)>,
    /// Call sites whose callee chain is shared with another site (never inlined).
    tainted: BTreeSet<u32>,
}

impl Contexts {
    fn ctx(&self, block: usize) -> Ctx {
        match self.state.get(block) {
            Some(&(st, c)) if st == self.stamp => c,
            _ => Ctx::Unseen,
        }
    }

    /// Computes the contexts of handler `ev`'s blocks (a fixed point: each block's context
    /// only moves Unseen → One → Many, so it is reached at most three times).
    fn analyze(&mut self, g: &Graph, lay: &Layout, ev: NodeId) {
        self.state.resize(lay.data_src.len(), (0, Ctx::Unseen));
        self.stamp += 1;
        self.sites.clear();
        self.tainted.clear();
        let mut work: Vec<(NodeId, u16)> = Vec::new();
        let node = &g.nodes[ev as usize];
        if let Some(then) = node.output("then")
            && let Some(t) = lay.next(ev, then)
        {
            self.merge(lay, t, Ctx::One(0), &mut work);
        }
        while let Some((n, in_pin)) = work.pop() {
            let here = self.ctx(lay.inp(n, in_pin as usize));
            for (out, tail) in followed(g, n, in_pin) {
                let Some(t) = lay.next(n, out as usize) else {
                    continue;
                };
                let incoming = if tail {
                    here
                } else {
                    let site = lay.outp(n, out as usize) as u32 + 1;
                    self.sites
                        .insert(site, (n, out, lay.inp(n, in_pin as usize)));
                    Ctx::One(site)
                };
                self.merge(lay, t, incoming, &mut work);
            }
        }
    }

    fn merge(
        &mut self,
        lay: &Layout,
        t: (NodeId, u16),
        incoming: Ctx,
        work: &mut Vec<(NodeId, u16)>,
    ) {
        let at = lay.inp(t.0, t.1 as usize);
        let old = self.ctx(at);
        let new = match (old, incoming) {
            (_, Ctx::Unseen) => old,
            (Ctx::Unseen, x) => x,
            (Ctx::One(a), Ctx::One(b)) if a == b => old,
            (Ctx::One(a), Ctx::One(b)) => {
                self.tainted.insert(a);
                self.tainted.insert(b);
                Ctx::Many
            }
            (Ctx::One(a), Ctx::Many) | (Ctx::Many, Ctx::One(a)) => {
                self.tainted.insert(a);
                Ctx::Many
            }
            (Ctx::Many, Ctx::Many) => Ctx::Many,
        };
        if new != old {
            self.state[at] = (self.stamp, new);
            work.push(t);
        }
    }

    /// Can call site `site`, whose callee block is `target`, be emitted inline?
    fn inlinable(&self, site: u32, target: usize) -> bool {
        self.ctx(target) == Ctx::One(site) && !self.tainted.contains(&site)
    }

    /// Does `block` only ever run inside the body of `flow.for` node `l` (within one
    /// iteration's call of it)?
    fn inside(&self, g: &Graph, mut block: usize, l: NodeId) -> bool {
        let body = g.nodes[l as usize].output("body").map(|p| p as u16);
        for _ in 0..MAX_CONTEXT_WALK {
            let Ctx::One(site) = self.ctx(block) else {
                return false;
            };
            let Some(&(n, pin, parent)) = self.sites.get(&site) else {
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
                let r = builtin(node) == "flow.delay"
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
            builtin(node) == "flow.for"
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

/// Per node: a `flow.for` whose index needs no slot — forwardable, and every block that reads
/// it (in every handler) runs inside its body.
fn elided_index_slots(g: &Graph, lay: &Layout, cx: &mut Contexts) -> Vec<bool> {
    let mut elide = vec![false; g.nodes.len()];
    let loops: Vec<NodeId> = (0..g.nodes.len() as NodeId)
        .filter(|&i| lay.for_fwd[i as usize])
        .filter(|&i| {
            g.nodes[i as usize]
                .output("index")
                .is_some_and(|p| lay.read[lay.outp(i, p)])
        })
        .collect();
    if loops.is_empty() {
        return elide;
    }
    let mut consumers: Vec<Vec<NodeId>> = vec![Vec::new(); lay.read.len()];
    for l in &g.links {
        if !g.is_exec(l) {
            consumers[lay.outp(l.from, l.from_pin as usize)].push(l.to);
        }
    }
    let readers: Vec<(NodeId, Vec<NodeId>)> = loops
        .iter()
        .map(|&l| (l, index_readers(g, lay, &consumers, l)))
        .collect();
    let mut needed = vec![false; g.nodes.len()];
    for (ev, node) in g.nodes.iter().enumerate() {
        if !node.is_event() {
            continue;
        }
        cx.analyze(g, lay, ev as NodeId);
        for (l, rs) in &readers {
            for &r in rs {
                for (pin, p) in g.nodes[r as usize].inputs.iter().enumerate() {
                    if p.ty != PinType::Exec {
                        continue;
                    }
                    let b = lay.inp(r, pin);
                    if cx.ctx(b) != Ctx::Unseen && !cx.inside(g, b, *l) {
                        needed[*l as usize] = true;
                    }
                }
            }
        }
    }
    for (l, _) in &readers {
        elide[*l as usize] = !needed[*l as usize];
    }
    elide
}

/// Lowers a checked graph without errors. `reachable` (from `check::Facts`) limits which
/// event nodes get handlers (all of them) and is otherwise informational.
pub fn lower(g: &Graph) -> Result<Module, BuildError> {
    let mut mb = ModuleBuilder::new(&g.name);
    for v in &g.vars {
        mb.var_raw(&v.name, v.ty, bc_const(&v.init, v.ty));
    }
    let mut lay = layout(g);
    lay.for_fwd = forwardable_loops(g, &lay);
    let mut cx = Contexts::default();
    let elide = elided_index_slots(g, &lay, &mut cx);
    lay.allocate(g, &mut mb, &elide);
    let mut scratch = Scratch {
        blocks: vec![(0, Label::default()); lay.data_src.len()],
        handler_stamp: 0,
        memo: vec![(0, 0); g.nodes.len()],
        memo_regs: Vec::new(),
        block_stamp: 0,
        seen: vec![0; g.nodes.len()],
        seen_stamp: 0,
        uses: vec![0; g.nodes.len()],
        dag: vec![0; g.nodes.len()],
        for_regs: vec![(0, 0, 0); g.nodes.len()],
    };
    for (i, n) in g.nodes.iter().enumerate() {
        let Op::Event(key) = &n.op else { continue };
        let params: Vec<Type> = n.outputs.iter().filter_map(|p| p.ty.data()).collect();
        let identity = key.identity();
        let hb = mb.handler(&identity, &params);
        scratch.handler_stamp += 1;
        cx.analyze(g, &lay, i as NodeId);
        let mut e = Emitter {
            g,
            lay: &lay,
            hb,
            s: &mut scratch,
            cx: &cx,
            pending: Vec::new(),
            current: lay.node_ids[i],
            cur_block: usize::MAX,
            ret_to: None,
            conts: BTreeMap::new(),
            depth: 0,
            internal: None,
        };
        e.handler(i as NodeId)?;
        e.hb.finish()?;
    }
    Ok(mb.finish())
}

/// Per-lowering scratch tables, indexed flat and invalidated by bumping a stamp.
struct Scratch {
    /// Per exec input pin (`Layout::inp`): (handler stamp, block label) — each block is emitted
    /// once per handler.
    blocks: Vec<(u32, Label)>,
    handler_stamp: u32,
    /// Per node: (block stamp, start in `memo_regs`) of a pure node evaluated in this block.
    memo: Vec<(u32, u32)>,
    memo_regs: Vec<u16>,
    block_stamp: u32,
    /// Per node: visit stamp of the dependency walk in `pure`.
    seen: Vec<u32>,
    seen_stamp: u32,
    /// Per node: reads left by the current exec node's dependency graph (see `count_uses`).
    uses: Vec<u32>,
    /// Per node: the block stamp of the dependency graph it belongs to.
    dag: Vec<u32>,
    /// Per `flow.for` node: (handler stamp, counter and bound registers).
    for_regs: Vec<(u32, u16, u16)>,
}

struct Emitter<'a, 'b> {
    g: &'a Graph,
    lay: &'a Layout,
    hb: HandlerBuilder<'b>,
    /// Tables reused across handlers and blocks (reset by stamps, never cleared).
    s: &'a mut Scratch,
    /// This handler's call contexts.
    cx: &'a Contexts,
    pending: Vec<(NodeId, u16)>,
    /// The exec node whose block is being emitted (debug info returns to it after pure nodes).
    current: bc::NodeId,
    /// The block being emitted (`Layout::inp`), `usize::MAX` for the handler's entry.
    cur_block: usize,
    /// Where the current block's chain ends: `None` is a real `ret`; inside an inlined call
    /// site, a jump to the code after the site.
    ret_to: Option<Label>,
    /// Inlined call sites of this handler → the label after them.
    conts: BTreeMap<u32, Label>,
    /// Inlined call sites currently being emitted (bounded by [`MAX_INLINE_DEPTH`]).
    depth: u32,
    /// The first internal error met where no `Result` can carry it (pure node emission).
    internal: Option<BuildError>,
}

macro_rules! bin {
    ($e:expr, $op:ident, $dst:expr, $a:expr, $b:expr) => {
        $e.hb.emit(Instr::$op {
            dst: bc::Reg::new($dst),
            a: bc::Reg::new($a),
            b: bc::Reg::new($b),
        })
    };
}

macro_rules! un {
    ($e:expr, $op:ident, $dst:expr, $a:expr) => {
        $e.hb.emit(Instr::$op {
            dst: bc::Reg::new($dst),
            a: bc::Reg::new($a),
        })
    };
}

impl<'a> Emitter<'a, '_> {
    fn node(&self, n: NodeId) -> &'a Node {
        &self.g.nodes[n as usize]
    }

    fn at(&mut self, n: NodeId) {
        self.hb.at(self.lay.node_ids[n as usize]);
    }

    fn at_exec(&mut self, n: NodeId) {
        self.current = self.lay.node_ids[n as usize];
        self.hb.at(self.current);
    }

    fn reg(&mut self, ty: Type) -> u16 {
        self.hb.reg_raw(ty)
    }

    /// The value type of a pin the lowering reads or writes as data. Resolve and check admit
    /// only data links into data pins, so an exec pin here is a compiler bug: reported as an
    /// internal error (the placeholder type never reaches a module).
    fn data_type(&mut self, ty: PinType) -> Type {
        match ty {
            PinType::Data(t) => t,
            PinType::Exec => {
                self.internal.get_or_insert_with(|| BuildError {
                    message: "an exec pin was lowered as data".into(),
                });
                Type::Int
            }
        }
    }

    fn handler(&mut self, ev: NodeId) -> Result<(), BuildError> {
        self.at_exec(ev);
        self.reserve_loop_registers(ev);
        let outputs = &self.node(ev).outputs;
        let mut param = 0u16;
        for (pin, p) in outputs.iter().enumerate() {
            let Some(ty) = p.ty.data() else { continue };
            // A payload value nothing reads is not loaded.
            if let Some(slot) = self.lay.slot(ev, pin) {
                let r = self.reg(ty);
                self.hb.emit(typed!(ty, [ParamB, ParamI, ParamF, ParamV, ParamS, ParamE] { dst: Reg(r), p: Param(param) }));
                self.hb.emit(typed!(ty, [SlotSetB, SlotSetI, SlotSetF, SlotSetV, SlotSetS, SlotSetE] { slot: Slot(slot), src: Reg(r) }));
            }
            param += 1;
        }
        self.follow(ev, "then", true)?;
        while let Some((n, pin)) = self.pending.pop() {
            let at = self.lay.inp(n, pin as usize);
            let label = self.s.blocks[at].1;
            self.hb.drop_jmp_to(label);
            self.hb.bind(label);
            self.hb.release_regs();
            self.s.block_stamp += 1;
            self.s.memo_regs.clear();
            self.cur_block = at;
            self.ret_to = match self.cx.ctx(at) {
                Ctx::One(site) => self.conts.get(&site).copied(),
                _ => None,
            };
            self.block(n, pin)?;
        }
        match self.internal.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Reserves counter and bound registers for every `flow.for` this handler can reach.
    fn reserve_loop_registers(&mut self, ev: NodeId) {
        self.s.seen_stamp += 1;
        let stamp = self.s.seen_stamp;
        let mut stack = vec![ev];
        self.s.seen[ev as usize] = stamp;
        while let Some(n) = stack.pop() {
            if builtin(self.node(n)) == "flow.for" {
                let (c, l) = (self.reg(Type::Int), self.reg(Type::Int));
                self.s.for_regs[n as usize] = (self.s.handler_stamp, c, l);
            }
            for pin in 0..self.node(n).outputs.len() {
                if let Some((t, _)) = self.lay.next(n, pin)
                    && self.s.seen[t as usize] != stamp
                {
                    self.s.seen[t as usize] = stamp;
                    stack.push(t);
                }
            }
        }
        self.hb.reserve_regs();
    }

    /// Continues along exec output `out` of `n`: `call` (or `jmp` in tail position) to the
    /// linked block; in tail position with nothing linked, the end of the chain (`ret`, or a
    /// jump out of an inlined call). A call whose callee chain nothing else enters is emitted
    /// inline instead (see [`Contexts`]).
    fn follow(&mut self, n: NodeId, out: &str, tail: bool) -> Result<(), BuildError> {
        let pin = self.node(n).output(out);
        let target = pin.and_then(|p| self.lay.next(n, p));
        match (target, pin) {
            (Some(t), Some(p)) => {
                let at = self.lay.inp(t.0, t.1 as usize);
                let site = self.lay.outp(n, p) as u32 + 1;
                if !tail
                    && self.depth < MAX_INLINE_DEPTH
                    && self.s.blocks[at].0 != self.s.handler_stamp
                    && self.cx.inlinable(site, at)
                {
                    return self.inline(t, site);
                }
                let label = if self.s.blocks[at].0 == self.s.handler_stamp {
                    self.s.blocks[at].1
                } else {
                    let l = self.hb.label();
                    self.s.blocks[at] = (self.s.handler_stamp, l);
                    self.pending.push(t);
                    l
                };
                if tail {
                    self.hb.emit(Instr::Jmp {
                        target: label.target(),
                    });
                } else {
                    self.hb.emit(Instr::Call {
                        target: label.target(),
                    });
                }
            }
            _ if tail => self.ret(),
            _ => {}
        }
        Ok(())
    }

    /// Emits the callee block of call site `site` in place: its chain's ends jump to the code
    /// right after it (the last such jump falls through). The calling block has no live
    /// temporaries at a call site (`flow.for` keeps its state in reserved registers,
    /// `flow.sequence` has none), so the callee starts from released registers.
    fn inline(&mut self, t: (NodeId, u16), site: u32) -> Result<(), BuildError> {
        let at = self.lay.inp(t.0, t.1 as usize);
        let entry = self.hb.label();
        self.s.blocks[at] = (self.s.handler_stamp, entry);
        let cont = self.hb.label();
        self.conts.insert(site, cont);
        self.hb.bind(entry);
        let saved = (self.current, self.cur_block, self.ret_to);
        self.hb.release_regs();
        self.s.block_stamp += 1;
        self.s.memo_regs.clear();
        self.cur_block = at;
        self.ret_to = Some(cont);
        self.depth += 1;
        let r = self.block(t.0, t.1);
        self.depth -= 1;
        r?;
        self.hb.drop_jmp_to(cont);
        self.hb.bind(cont);
        (self.current, self.cur_block, self.ret_to) = saved;
        self.hb.at(self.current);
        Ok(())
    }

    /// The end of a chain: `ret`, or inside an inlined call a jump to the code after it.
    fn ret(&mut self) {
        match self.ret_to {
            Some(l) => self.hb.emit(Instr::Jmp { target: l.target() }),
            None => self.hb.emit(Instr::Ret {}),
        };
    }

    fn ldc(&mut self, c: bc::Const) -> u16 {
        let ty = c.ty();
        let r = self.reg(ty);
        let k = self.hb.module().constant(c);
        self.hb
            .emit(typed!(ty, [LdcB, LdcI, LdcF, LdcV, LdcS, LdcE] { dst: Reg(r), c: ConstRef(k) }));
        r
    }

    fn slot_get(&mut self, ty: Type, slot: u16) -> u16 {
        let r = self.reg(ty);
        self.hb.emit(typed!(ty, [SlotGetB, SlotGetI, SlotGetF, SlotGetV, SlotGetS, SlotGetE] { dst: Reg(r), slot: Slot(slot) }));
        r
    }

    fn slot_set(&mut self, ty: Type, slot: u16, r: u16) {
        self.hb.emit(typed!(ty, [SlotSetB, SlotSetI, SlotSetF, SlotSetV, SlotSetS, SlotSetE] { slot: Slot(slot), src: Reg(r) }));
    }

    /// The register holding input `name` of `n` (linked value, ARGS value or default).
    fn input(&mut self, n: NodeId, name: &str) -> u16 {
        match self.node(n).input(name) {
            Some(pin) => self.input_at(n, pin),
            // Resolve guarantees the pin exists; fall back to a harmless zero.
            None => self.ldc(bc::Const::Int(0)),
        }
    }

    /// The register holding input pin `pin` of `n`.
    fn input_at(&mut self, n: NodeId, pin: usize) -> u16 {
        self.input_temp(n, pin).0
    }

    /// The register holding input pin `pin` of `n`, and whether it is a temporary the caller
    /// may free after use (a constant, slot read or conversion — not a pure node's result).
    fn input_temp(&mut self, n: NodeId, pin: usize) -> (u16, bool) {
        let node = self.node(n);
        let want = self.data_type(node.inputs[pin].ty);
        match self.lay.src(n, pin) {
            Some((src, out)) => {
                let src_node = self.node(src);
                let have = self.data_type(src_node.outputs[out as usize].ty);
                let (r, temp) = if src_node.is_pure() {
                    self.pure(src);
                    let at = self.s.memo[src as usize].1 as usize + out as usize;
                    (self.s.memo_regs[at], false)
                } else if let Some(c) = self.forwarded_index(src, out) {
                    (c, false)
                } else {
                    let slot = self.lay.slot(src, out as usize).unwrap_or(0);
                    (self.slot_get(have, slot), true)
                };
                if have == Type::Int && want == Type::Float {
                    let f = self.reg(Type::Float);
                    un!(self, IntToFloat, f, r);
                    if temp {
                        self.hb.free_reg(Type::Int, r);
                    }
                    (f, true)
                } else {
                    (r, temp)
                }
            }
            None => match (want, node.defaults.get(pin)) {
                (Type::Entity, _) => {
                    let r = self.reg(Type::Entity);
                    self.hb.emit(Instr::EntitySelf {
                        dst: bc::Reg::new(r),
                    });
                    (r, true)
                }
                (_, Some(default)) => (self.ldc(bc_const(default, want)), true),
                (_, None) => (self.ldc(bc::Const::default_of(want)), true),
            },
        }
    }

    /// The counter register of `flow.for` node `src` when output `out` is its `index` and the
    /// current block only runs inside its body (the stored index would equal the counter).
    fn forwarded_index(&self, src: NodeId, out: u16) -> Option<u16> {
        let node = self.node(src);
        let (stamp, c, _) = self.s.for_regs[src as usize];
        (self.lay.for_fwd[src as usize]
            && stamp == self.s.handler_stamp
            && node
                .outputs
                .get(out as usize)
                .is_some_and(|p| p.name == "index")
            && self.cx.inside(self.g, self.cur_block, src))
        .then_some(c)
    }

    /// Evaluates pure node `root` and every pure node it depends on (not yet evaluated for the
    /// current exec node), in dependency order, without recursion.
    fn pure(&mut self, root: NodeId) {
        if self.evaluated(root) {
            return;
        }
        self.s.seen_stamp += 1;
        let stamp = self.s.seen_stamp;
        let mut order = Vec::new();
        let mut stack = vec![(root, false)];
        while let Some((n, expanded)) = stack.pop() {
            if expanded {
                order.push(n);
                continue;
            }
            if self.evaluated(n) || self.s.seen[n as usize] == stamp {
                continue;
            }
            self.s.seen[n as usize] = stamp;
            stack.push((n, true));
            // Reverse pin order onto the stack: inputs are evaluated left to right.
            for pin in (0..self.node(n).inputs.len()).rev() {
                if let Some((src, _)) = self.lay.src(n, pin)
                    && self.node(src).is_pure()
                    && !self.evaluated(src)
                {
                    stack.push((src, false));
                }
            }
        }
        for n in order {
            self.at(n);
            let regs = self.emit_pure(n);
            let start = self.s.memo_regs.len() as u32;
            self.s.memo_regs.extend_from_slice(&regs);
            self.s.memo[n as usize] = (self.s.block_stamp, start);
            // A register is freed after its last use by a pure node of this exec node's
            // dependency graph (counted by `count_uses`); the exec node's own sources are
            // counted once more and never reach zero, so nothing it reads is freed.
            for pin in 0..self.node(n).inputs.len() {
                let Some((src, _)) = self.lay.src(n, pin) else {
                    continue;
                };
                if self.s.dag[src as usize] != self.s.block_stamp || self.s.uses[src as usize] == 0
                {
                    continue;
                }
                self.s.uses[src as usize] -= 1;
                if self.s.uses[src as usize] == 0 {
                    self.release_pure(src);
                }
            }
        }
        self.hb.at(self.current);
    }

    /// Counts, for the exec node `n` about to be emitted, how often each pure node of its
    /// dependency graph is read: by other pure nodes of that graph and by `n` itself. Every pure
    /// node is then evaluated once for `n` (never again after its register is freed).
    fn count_uses(&mut self, n: NodeId) {
        let stamp = self.s.block_stamp;
        let mut stack = Vec::new();
        for pin in 0..self.node(n).inputs.len() {
            if let Some((src, _)) = self.lay.src(n, pin)
                && self.node(src).is_pure()
            {
                if self.s.dag[src as usize] != stamp {
                    self.s.dag[src as usize] = stamp;
                    self.s.uses[src as usize] = 0;
                    stack.push(src);
                }
                self.s.uses[src as usize] += 1;
            }
        }
        while let Some(x) = stack.pop() {
            for pin in 0..self.node(x).inputs.len() {
                if let Some((src, _)) = self.lay.src(x, pin)
                    && self.node(src).is_pure()
                {
                    if self.s.dag[src as usize] != stamp {
                        self.s.dag[src as usize] = stamp;
                        self.s.uses[src as usize] = 0;
                        stack.push(src);
                    }
                    self.s.uses[src as usize] += 1;
                }
            }
        }
    }

    /// Frees a pure node's output registers (its last reader has been emitted).
    fn release_pure(&mut self, n: NodeId) {
        let start = self.s.memo[n as usize].1 as usize;
        for (i, p) in self.node(n).outputs.iter().enumerate() {
            if let Some(ty) = p.ty.data() {
                let r = self.s.memo_regs[start + i];
                self.hb.free_reg(ty, r);
            }
        }
        self.s.memo[n as usize].0 = 0;
    }

    /// Was pure node `n` already evaluated for the current exec node?
    fn evaluated(&self, n: NodeId) -> bool {
        self.s.memo[n as usize].0 == self.s.block_stamp
    }

    /// Emits one pure node (its inputs are ready); returns its output registers.
    fn emit_pure(&mut self, n: NodeId) -> Vec<u16> {
        let node = self.node(n);
        match &node.op {
            Op::VarGet(v) => {
                let ty = self.data_type(node.outputs[0].ty);
                let r = self.reg(ty);
                let v = *v as u16;
                self.hb.emit(typed!(ty, [VarGetB, VarGetI, VarGetF, VarGetV, VarGetS, VarGetE] { dst: Reg(r), var: Var(v) }));
                vec![r]
            }
            Op::Expr(parsed) => {
                // Expression inputs are the node's input pins, in order.
                let inputs: Vec<(u16, bool)> = (0..node.inputs.len())
                    .map(|pin| self.input_temp(n, pin))
                    .collect();
                let regs: Vec<u16> = inputs.iter().map(|i| i.0).collect();
                let out = self.expr(&parsed.root, &regs);
                self.free_temps(&inputs, Type::Float, out);
                vec![out]
            }
            Op::Builtin(k) => self.pure_builtin(n, k.kind),
            // Events, exec nodes and error nodes are never evaluated as pure.
            _ => Vec::new(),
        }
    }

    fn pure_builtin(&mut self, n: NodeId, kind: &str) -> Vec<u16> {
        let inputs: Vec<(u16, bool)> = (0..self.node(n).inputs.len())
            .map(|pin| self.input_temp(n, pin))
            .collect();
        let args: Vec<u16> = inputs.iter().map(|i| i.0).collect();
        let result = self.pure_op(n, kind, &args);
        for (pin, &(r, temp)) in inputs.iter().enumerate() {
            if temp
                && !result.contains(&r)
                && let Some(ty) = self.node(n).inputs[pin].ty.data()
            {
                self.hb.free_reg(ty, r);
            }
        }
        result
    }

    /// Frees the temporary input registers of an expression (never its result).
    fn free_temps(&mut self, inputs: &[(u16, bool)], ty: Type, keep: u16) {
        for &(r, temp) in inputs {
            if temp && r != keep {
                self.hb.free_reg(ty, r);
            }
        }
    }

    /// Emits the instruction of a pure built-in over ready argument registers. Every pure
    /// built-in is the instruction of the same name in the ISA table, whose register operands
    /// are the node's outputs then its inputs, each in pin order (`int.clamp`: `dst, value,
    /// min, max`; `vec3.break`: `x, y, z, v`), so the table is the one place that maps them.
    fn pure_op(&mut self, n: NodeId, kind: &str, args: &[u16]) -> Vec<u16> {
        let outs: Vec<u16> = self
            .node(n)
            .outputs
            .iter()
            .filter_map(|p| p.ty.data())
            .map(|t| self.reg(t))
            .collect();
        let ops: Vec<u32> = outs.iter().chain(args).map(|&r| u32::from(r)).collect();
        match Instr::opcode_of(kind).and_then(|op| Instr::from_operands(op, &ops)) {
            Some(ins) => {
                self.hb.emit(ins);
            }
            // Resolve only admits kinds from the node table; a pure kind without an
            // instruction of its name is a compiler bug, reported rather than mis-compiled.
            None if self.internal.is_none() => {
                self.internal = Some(BuildError {
                    message: format!("pure node kind `{kind}` has no instruction of that name"),
                });
            }
            None => {}
        }
        outs
    }

    /// Lowers an `expr` tree (height bounded by the expr parser, so recursion is safe).
    fn expr(&mut self, e: &Expr, inputs: &[u16]) -> u16 {
        match &e.kind {
            ExprKind::Num(v) => self.ldc(bc::Const::Float(*v)),
            ExprKind::Pi => self.ldc(bc::Const::Float(std::f64::consts::PI)),
            ExprKind::Input(i) => match inputs.get(*i) {
                Some(&r) => r,
                None => self.ldc(bc::Const::Float(0.0)),
            },
            ExprKind::Neg(a) => {
                let a = self.expr(a, inputs);
                self.free_expr_temp(a, inputs);
                let d = self.reg(Type::Float);
                un!(self, FloatNeg, d, a);
                d
            }
            ExprKind::Binary(op, a, b) => {
                let (a, b) = (self.expr(a, inputs), self.expr(b, inputs));
                // Operands are read by the instruction below, so their registers may be the
                // destination's: free them first (expression size is bounded by the string,
                // register use by the tree's height).
                self.free_expr_temp(a, inputs);
                self.free_expr_temp(b, inputs);
                let d = self.reg(Type::Float);
                match op {
                    BinOp::Add => bin!(self, FloatAdd, d, a, b),
                    BinOp::Sub => bin!(self, FloatSub, d, a, b),
                    BinOp::Mul => bin!(self, FloatMul, d, a, b),
                    BinOp::Div => bin!(self, FloatDiv, d, a, b),
                    BinOp::Rem => bin!(self, FloatRem, d, a, b),
                };
                d
            }
            ExprKind::Call(f, args) => {
                let r: Vec<u16> = args.iter().map(|a| self.expr(a, inputs)).collect();
                for &t in &r {
                    self.free_expr_temp(t, inputs);
                }
                let x = |i: usize| r.get(i).copied().unwrap_or(0);
                let d = self.reg(Type::Float);
                match f {
                    Func::Sin => un!(self, FloatSin, d, x(0)),
                    Func::Cos => un!(self, FloatCos, d, x(0)),
                    Func::Tan => un!(self, FloatTan, d, x(0)),
                    Func::Abs => un!(self, FloatAbs, d, x(0)),
                    Func::Sqrt => un!(self, FloatSqrt, d, x(0)),
                    Func::Floor => un!(self, FloatFloor, d, x(0)),
                    Func::Ceil => un!(self, FloatCeil, d, x(0)),
                    Func::Min => bin!(self, FloatMin, d, x(0), x(1)),
                    Func::Max => bin!(self, FloatMax, d, x(0), x(1)),
                    Func::Pow => bin!(self, FloatPow, d, x(0), x(1)),
                    Func::Clamp => self.hb.emit(Instr::FloatClamp {
                        dst: bc::Reg::new(d),
                        value: bc::Reg::new(x(0)),
                        min: bc::Reg::new(x(1)),
                        max: bc::Reg::new(x(2)),
                    }),
                    Func::Lerp => self.hb.emit(Instr::FloatLerp {
                        dst: bc::Reg::new(d),
                        a: bc::Reg::new(x(0)),
                        b: bc::Reg::new(x(1)),
                        t: bc::Reg::new(x(2)),
                    }),
                };
                d
            }
        }
    }

    /// Frees an expression intermediate (never an input register, which other references of
    /// the same input still read).
    fn free_expr_temp(&mut self, r: u16, inputs: &[u16]) {
        if !inputs.contains(&r) {
            self.hb.free_reg(Type::Float, r);
        }
    }

    /// Emits the block of exec input `pin` of node `n`; every path ends in `ret` or `jmp`.
    fn block(&mut self, n: NodeId, pin: u16) -> Result<(), BuildError> {
        self.at_exec(n);
        self.count_uses(n);
        let node = self.node(n);
        let in_pin: &str = &node.inputs[pin as usize].name;
        let kind = builtin(node);
        let state = &self.lay.state[n as usize];
        let out_slot = |e: &Self, name: &str| e.node(n).output(name).and_then(|p| e.lay.slot(n, p));
        match (&node.op, kind, in_pin) {
            (Op::VarSet(v), _, _) => {
                let v = *v as u16;
                let ty = self.data_type(node.inputs[1].ty);
                let r = self.input(n, "value");
                self.hb.emit(typed!(ty, [VarSetB, VarSetI, VarSetF, VarSetV, VarSetS, VarSetE] { var: Var(v), src: Reg(r) }));
                if let Some(s) = out_slot(self, "value") {
                    self.slot_set(ty, s, r);
                }
                self.follow(n, "then", true)?;
            }
            (Op::Send(name), _, _) => {
                let t = self.input(n, "target");
                let k = self.hb.module().const_str(&format!("custom::{name}"));
                self.hb.emit(Instr::EventSend {
                    event: k,
                    target: bc::Reg::new(t),
                });
                self.follow(n, "then", true)?;
            }
            (_, "flow.branch", _) => {
                let c = self.input(n, "condition");
                let f = self.hb.label();
                self.hb.emit(Instr::JmpIfNot {
                    cond: bc::Reg::new(c),
                    target: f.target(),
                });
                self.follow(n, "true", true)?;
                self.hb.bind(f);
                self.follow(n, "false", true)?;
            }
            (_, "flow.sequence", _) => {
                let count = self.node(n).outputs.len();
                for i in 0..count {
                    self.follow(n, &format!("then_{i}"), i + 1 == count)?;
                }
                if count == 0 {
                    self.ret();
                }
            }
            (_, "flow.for", _) => {
                // Counter and bound live in handler-reserved registers (a run suspended in the
                // body by `flow.delay` keeps its own: the continuation saves them).
                // Bottom-tested: per iteration the `index` store (when a slot holds it), the
                // body, and one `for.next` (compare, increment, branch).
                let (_, c, l) = self.s.for_regs[n as usize];
                let index = out_slot(self, "index");
                let first = self.input(n, "first");
                let lastv = self.input(n, "last");
                let done = self.hb.label();
                let looptop = self.hb.label();
                let gt = self.reg(Type::Bool);
                bin!(self, IntGt, gt, first, lastv);
                self.hb.emit(Instr::JmpIf {
                    cond: bc::Reg::new(gt),
                    target: done.target(),
                });
                self.hb.emit(Instr::MovI {
                    dst: bc::Reg::new(c),
                    src: bc::Reg::new(first),
                });
                self.hb.emit(Instr::MovI {
                    dst: bc::Reg::new(l),
                    src: bc::Reg::new(lastv),
                });
                self.hb.bind(looptop);
                if let Some(index) = index {
                    self.slot_set(Type::Int, index, c);
                }
                self.follow(n, "body", false)?;
                self.hb.emit(Instr::ForNext {
                    counter: bc::Reg::new(c),
                    last: bc::Reg::new(l),
                    target: looptop.target(),
                });
                self.hb.bind(done);
                self.follow(n, "completed", true)?;
            }
            (_, "flow.do_once", "reset") => {
                let f = self.ldc(bc::Const::Bool(false));
                self.slot_set(Type::Bool, state[0], f);
                self.ret();
            }
            (_, "flow.do_once", _) => {
                let d = self.slot_get(Type::Bool, state[0]);
                let skip = self.hb.label();
                self.hb.emit(Instr::JmpIf {
                    cond: bc::Reg::new(d),
                    target: skip.target(),
                });
                let t = self.ldc(bc::Const::Bool(true));
                self.slot_set(Type::Bool, state[0], t);
                self.follow(n, "then", true)?;
                self.hb.bind(skip);
                self.ret();
            }
            (_, "flow.flip_flop", _) => {
                let is_a = out_slot(self, "is_a");
                let next_b = self.slot_get(Type::Bool, state[0]);
                let b_side = self.hb.label();
                self.hb.emit(Instr::JmpIf {
                    cond: bc::Reg::new(next_b),
                    target: b_side.target(),
                });
                let t = self.ldc(bc::Const::Bool(true));
                if let Some(is_a) = is_a {
                    self.slot_set(Type::Bool, is_a, t);
                }
                self.slot_set(Type::Bool, state[0], t);
                self.follow(n, "a", true)?;
                self.hb.bind(b_side);
                let f = self.ldc(bc::Const::Bool(false));
                if let Some(is_a) = is_a {
                    self.slot_set(Type::Bool, is_a, f);
                }
                self.slot_set(Type::Bool, state[0], f);
                self.follow(n, "b", true)?;
            }
            (_, "flow.gate", "enter") => {
                let o = self.slot_get(Type::Bool, state[0]);
                let closed = self.hb.label();
                self.hb.emit(Instr::JmpIfNot {
                    cond: bc::Reg::new(o),
                    target: closed.target(),
                });
                self.follow(n, "exit", true)?;
                self.hb.bind(closed);
                self.ret();
            }
            (_, "flow.gate", which) => {
                let v = match which {
                    "open" => self.ldc(bc::Const::Bool(true)),
                    "close" => self.ldc(bc::Const::Bool(false)),
                    _ => {
                        let o = self.slot_get(Type::Bool, state[0]);
                        let d = self.reg(Type::Bool);
                        un!(self, BoolNot, d, o);
                        d
                    }
                };
                self.slot_set(Type::Bool, state[0], v);
                self.ret();
            }
            (_, "flow.delay", _) => {
                let s = self.input(n, "seconds");
                let busy = self.hb.label();
                let delay = self.lay.delays[n as usize].unwrap_or(DelayRef(0));
                self.hb.emit(Instr::Delay {
                    delay,
                    seconds: bc::Reg::new(s),
                    busy: busy.target(),
                });
                self.follow(n, "then", true)?;
                self.hb.bind(busy);
                self.ret();
            }
            (_, "anim.set_state", _) => {
                let s = self.input(n, "state");
                let ok = self.reg(Type::Bool);
                self.hb.emit(Instr::AnimSetState {
                    ok: bc::Reg::new(ok),
                    state: bc::Reg::new(s),
                });
                if let Some(slot) = out_slot(self, "ok") {
                    self.slot_set(Type::Bool, slot, ok);
                }
                self.follow(n, "then", true)?;
            }
            (
                _,
                "anim.set_param"
                | "anim.play_on_layer"
                | "anim.stop_layer"
                | "anim.set_layer_weight"
                | "debug.log",
                _,
            ) => {
                // Host commands: the data inputs in pin order (pin 0 is `exec`), one
                // instruction, then `then`.
                let a: Vec<u16> = (1..node.inputs.len())
                    .map(|p| self.input_at(n, p))
                    .collect();
                let r = |i: usize| a.get(i).copied().unwrap_or(0);
                let ins = match kind {
                    "anim.set_param" => Instr::AnimSetParam {
                        name: bc::Reg::new(r(0)),
                        value: bc::Reg::new(r(1)),
                    },
                    "anim.play_on_layer" => Instr::AnimPlayOnLayer {
                        layer: bc::Reg::new(r(0)),
                        clip: bc::Reg::new(r(1)),
                    },
                    "anim.stop_layer" => Instr::AnimStopLayer {
                        layer: bc::Reg::new(r(0)),
                    },
                    "anim.set_layer_weight" => Instr::AnimSetLayerWeight {
                        layer: bc::Reg::new(r(0)),
                        weight: bc::Reg::new(r(1)),
                    },
                    _ => Instr::Log {
                        message: bc::Reg::new(r(0)),
                    },
                };
                self.hb.emit(ins);
                self.follow(n, "then", true)?;
            }
            _ => {
                return Err(BuildError {
                    message: format!("node `{}` ({kind}) has no exec lowering", self.node(n).name),
                });
            }
        }
        Ok(())
    }
}
