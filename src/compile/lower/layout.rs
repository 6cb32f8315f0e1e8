//! The module layout of a graph: flat pin tables (which exec input each exec output leads to,
//! which output feeds each data input, which outputs something reads) and, once the analysis
//! has run, the module's nodes, slots, node state and delays in node order.

use super::{Graph, NodeId, kind_of};
use crate::bytecode::{self as bc, DelayRef, ModuleBuilder, Type};
use crate::nodes::KindId;

/// Per-node module layout: slots for outputs and state, delay entries. Pin-indexed tables are
/// flat vectors addressed by `in_base[node] + pin` / `out_base[node] + pin` (no maps on the
/// compiler's hot path).
pub(super) struct Layout {
    in_base: Vec<u32>,
    out_base: Vec<u32>,
    /// Per output pin: the slot holding its last value (exec/event nodes' data pins that
    /// something reads).
    out_slots: Vec<Option<u16>>,
    /// Per output pin: does a data link read it?
    pub(super) read: Vec<bool>,
    /// Per node: hidden state slots (`do_once`: done; `flip_flop`: next is b; `gate`: open).
    /// A `flow.for`'s counter and bound live in registers reserved for the whole handler, so a
    /// run suspended in the body by `flow.delay` keeps its own (the continuation saves them).
    pub(super) state: Vec<Vec<u16>>,
    pub(super) delays: Vec<Option<DelayRef>>,
    pub(super) node_ids: Vec<bc::NodeId>,
    /// Per output pin: the exec input it leads to.
    exec_next: Vec<Option<(NodeId, u16)>>,
    /// Per input pin: the output feeding it.
    data_src: Vec<Option<(NodeId, u16)>>,
}

impl Layout {
    /// The pin tables and links of `g` (no slots yet: see [`Layout::allocate`]).
    pub(super) fn new(g: &Graph) -> Layout {
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

    /// Number of input pins of the graph (the index space of blocks).
    pub(super) fn inputs(&self) -> usize {
        self.data_src.len()
    }
    /// Number of output pins of the graph.
    pub(super) fn outputs(&self) -> usize {
        self.read.len()
    }
    /// Flat index of input pin `pin` of `n` (a block, when the pin is an exec input).
    pub(super) fn inp(&self, n: NodeId, pin: usize) -> usize {
        self.in_base[n as usize] as usize + pin
    }
    /// Flat index of output pin `pin` of `n`.
    pub(super) fn outp(&self, n: NodeId, pin: usize) -> usize {
        self.out_base[n as usize] as usize + pin
    }
    /// The slot holding output `pin` of `n`, if it has one.
    pub(super) fn slot(&self, n: NodeId, pin: usize) -> Option<u16> {
        self.out_slots[self.outp(n, pin)]
    }
    /// The output feeding data input `pin` of `n`.
    pub(super) fn src(&self, n: NodeId, pin: usize) -> Option<(NodeId, u16)> {
        self.data_src[self.inp(n, pin)]
    }
    /// The exec input exec output `pin` of `n` leads to.
    pub(super) fn next(&self, n: NodeId, pin: usize) -> Option<(NodeId, u16)> {
        self.exec_next[self.outp(n, pin)]
    }

    /// Registers nodes, slots, state and delays with the module builder, in node order. A data
    /// output of an exec or event node gets a slot when something reads it, except a
    /// `flow.for` index that every reader takes from the loop's counter register (`elide`).
    pub(super) fn allocate(&mut self, g: &Graph, mb: &mut ModuleBuilder, elide: &[bool]) {
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
            let kind = kind_of(n);
            self.state.push(match kind {
                Some(KindId::FlowDoOnce) => {
                    vec![b(mb, "done", Type::Bool, bc::Const::Bool(false))]
                }
                Some(KindId::FlowFlipFlop) => {
                    vec![b(mb, "next_b", Type::Bool, bc::Const::Bool(false))]
                }
                Some(KindId::FlowGate) => vec![b(
                    mb,
                    "open",
                    Type::Bool,
                    bc::Const::Bool(n.props.start_open),
                )],
                _ => Vec::new(),
            });
            self.delays
                .push((kind == Some(KindId::FlowDelay)).then(|| mb.delay(id)));
        }
    }
}
