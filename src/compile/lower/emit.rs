//! Emission: one handler per event node, each reachable exec input one block, read from the
//! analysis' result (call contexts decide which call sites are laid out inline, loop analysis
//! which `flow.for` index is read from its counter register). Pure nodes: `pure.rs`.

use std::collections::BTreeMap;

use super::analysis::{Analysis, ContextTable, Contexts, Ctx};
use super::layout::Layout;
use super::{Graph, Node, NodeId, Op, bc_const, bin, kind_of, typed, un};
use crate::bytecode::{
    self as bc, BuildError, DelayRef, HandlerBuilder, Instr, Label, ModuleBuilder, Type,
};
use crate::nodes::{Flow, KindId, PinType};

/// Deepest nesting of inlined call sites (deeper sites stay `call`s), so emission recursion is
/// bounded whatever the graph.
const MAX_INLINE_DEPTH: u32 = 32;

/// Emits every handler of `g` into `mb` (in event-node order), each with the call contexts
/// the analysis computed for it.
pub(super) fn handlers(
    g: &Graph,
    lay: &Layout,
    an: &Analysis,
    table: &mut ContextTable,
    mb: &mut ModuleBuilder,
) -> Result<(), BuildError> {
    let mut scratch = Scratch {
        blocks: vec![(0, Label::default()); lay.inputs()],
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
    for (ev, (start, edge), h) in &an.handlers {
        let n = &g.nodes[*ev as usize];
        let Op::Event(key) = &n.op else { continue };
        let params: Vec<Type> = n.outputs.iter().filter_map(|p| p.ty.data()).collect();
        let identity = key.identity();
        let hb = mb.edge_handler(&identity, *edge, &params);
        scratch.handler_stamp += 1;
        table.load(h, lay.inputs());
        let mut e = Emitter {
            g,
            lay,
            an,
            hb,
            s: &mut scratch,
            cx: Contexts { table, h },
            pending: Vec::new(),
            current: lay.node_ids[*ev as usize],
            cur_block: usize::MAX,
            ret_to: None,
            conts: BTreeMap::new(),
            depth: 0,
            internal: None,
        };
        e.handler(*ev, start)?;
        e.hb.finish()?;
    }
    Ok(())
}

/// Per-lowering scratch tables, indexed flat and invalidated by bumping a stamp.
pub(super) struct Scratch {
    /// Per exec input pin (`Layout::inp`): (handler stamp, block label) — each block is emitted
    /// once per handler.
    pub(super) blocks: Vec<(u32, Label)>,
    pub(super) handler_stamp: u32,
    /// Per node: (block stamp, start in `memo_regs`) of a pure node evaluated in this block.
    pub(super) memo: Vec<(u32, u32)>,
    pub(super) memo_regs: Vec<u16>,
    pub(super) block_stamp: u32,
    /// Per node: visit stamp of the dependency walk in `pure`.
    pub(super) seen: Vec<u32>,
    pub(super) seen_stamp: u32,
    /// Per node: reads left by the current exec node's dependency graph (see `count_uses`).
    pub(super) uses: Vec<u32>,
    /// Per node: the block stamp of the dependency graph it belongs to.
    pub(super) dag: Vec<u32>,
    /// Per `flow.for` node: (handler stamp, counter and bound registers).
    pub(super) for_regs: Vec<(u32, u16, u16)>,
}

pub(super) struct Emitter<'a, 'b> {
    pub(super) g: &'a Graph,
    pub(super) lay: &'a Layout,
    /// The analysis' result (loop forwarding; per-handler contexts are in `cx`).
    pub(super) an: &'a Analysis,
    pub(super) hb: HandlerBuilder<'b>,
    /// Tables reused across handlers and blocks (reset by stamps, never cleared).
    pub(super) s: &'a mut Scratch,
    /// This handler's call contexts.
    pub(super) cx: Contexts<'a>,
    pub(super) pending: Vec<(NodeId, u16)>,
    /// The exec node whose block is being emitted (debug info returns to it after pure nodes).
    pub(super) current: bc::NodeId,
    /// The block being emitted (`Layout::inp`), `usize::MAX` for the handler's entry.
    pub(super) cur_block: usize,
    /// Where the current block's chain ends: `None` is a real `ret`; inside an inlined call
    /// site, a jump to the code after the site.
    pub(super) ret_to: Option<Label>,
    /// Inlined call sites of this handler → the label after them.
    pub(super) conts: BTreeMap<u32, Label>,
    /// Inlined call sites currently being emitted (bounded by [`MAX_INLINE_DEPTH`]).
    pub(super) depth: u32,
    /// The first internal error met where no `Result` can carry it (pure node emission).
    pub(super) internal: Option<BuildError>,
}

impl<'a> Emitter<'a, '_> {
    pub(super) fn node(&self, n: NodeId) -> &'a Node {
        &self.g.nodes[n as usize]
    }

    pub(super) fn at(&mut self, n: NodeId) {
        self.hb.at(self.lay.node_ids[n as usize]);
    }

    fn at_exec(&mut self, n: NodeId) {
        self.current = self.lay.node_ids[n as usize];
        self.hb.at(self.current);
    }

    pub(super) fn reg(&mut self, ty: Type) -> u16 {
        self.hb.reg_raw(ty)
    }

    /// The value type of a pin the lowering reads or writes as data. Resolve and check admit
    /// only data links into data pins, so an exec pin here is a compiler bug: reported as an
    /// internal error (the placeholder type never reaches a module).
    pub(super) fn data_type(&mut self, ty: PinType) -> Type {
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

    /// Emits the handler that starts at exec output `start` of event node `ev`.
    fn handler(&mut self, ev: NodeId, start: &str) -> Result<(), BuildError> {
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
        self.follow(ev, start, true)?;
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
            if kind_of(self.node(n)) == Some(KindId::FlowFor) {
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

    pub(super) fn ldc(&mut self, c: bc::Const) -> u16 {
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
    pub(super) fn input_temp(&mut self, n: NodeId, pin: usize) -> (u16, bool) {
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
                (_, Some(Some(default))) => (self.ldc(bc_const(default, want)), true),
                (_, _) => (self.ldc(bc::Const::default_of(want)), true),
            },
        }
    }

    /// The counter register of `flow.for` node `src` when output `out` is its `index` and the
    /// current block only runs inside its body (the stored index would equal the counter).
    pub(super) fn forwarded_index(&self, src: NodeId, out: u16) -> Option<u16> {
        let node = self.node(src);
        let (stamp, c, _) = self.s.for_regs[src as usize];
        (self.an.for_fwd[src as usize]
            && stamp == self.s.handler_stamp
            && node
                .outputs
                .get(out as usize)
                .is_some_and(|p| p.name == "index")
            && self.cx.inside(self.g, self.cur_block, src))
        .then_some(c)
    }

    /// Emits the block of exec input `pin` of node `n`; every path ends in `ret` or `jmp`.
    fn block(&mut self, n: NodeId, pin: u16) -> Result<(), BuildError> {
        self.at_exec(n);
        self.count_uses(n);
        let node = self.node(n);
        let in_pin: &str = &node.inputs[pin as usize].name;
        let kind = kind_of(node);
        let state = &self.lay.state[n as usize];
        let out_slot = |e: &Self, name: &str| e.node(n).output(name).and_then(|p| e.lay.slot(n, p));
        match (&node.op, kind, in_pin) {
            (Op::VarSet(v), _, _) => {
                let v = *v as u16;
                let ty = self.data_type(node.inputs[1].ty);
                let r = self.input(n, "value");
                match self.var_update(v, r) {
                    Some(i) => self.hb.replace_tail(2, i),
                    None => self.hb.emit(typed!(ty, [VarSetB, VarSetI, VarSetF, VarSetV, VarSetS, VarSetE] { var: Var(v), src: Reg(r) })),
                };
                if let Some(s) = out_slot(self, "value") {
                    self.slot_set(ty, s, r);
                }
                self.follow(n, "then", true)?;
            }
            (Op::Send(name), _, _) => {
                let t = self.input(n, "target");
                // The payload's fields (inputs after `exec` and `target`), in declaration order,
                // each pushed onto the send's payload.
                for pin in 2..node.inputs.len() {
                    let ty = self.data_type(self.node(n).inputs[pin].ty);
                    let r = self.input_at(n, pin);
                    self.hb.emit(typed!(ty, [SendArgB, SendArgI, SendArgF, SendArgV, SendArgS, SendArgE] { src: Reg(r) }));
                }
                let k = self.hb.module().const_str(&format!("custom::{name}"));
                self.hb.emit(Instr::EventSend {
                    event: k,
                    target: bc::Reg::new(t),
                });
                self.follow(n, "then", true)?;
            }
            (_, Some(KindId::FlowBranch), _) => {
                let c = self.input(n, "condition");
                let side = self.hb.label();
                // An `if` without `else` jumps to its true side and falls into the end of the
                // chain, so the taken side costs no `jmp` of its own; otherwise the false side
                // is jumped to and the true side falls through.
                let if_only = node
                    .output("false")
                    .is_none_or(|p| self.lay.next(n, p).is_none());
                self.branch(c, if_only, side);
                let (first, second) = if if_only {
                    ("false", "true")
                } else {
                    ("true", "false")
                };
                self.follow(n, first, true)?;
                self.hb.bind(side);
                self.follow(n, second, true)?;
            }
            (_, Some(KindId::FlowSequence), _) => {
                let count = self.node(n).outputs.len();
                for i in 0..count {
                    self.follow(n, &format!("then_{i}"), i + 1 == count)?;
                }
                if count == 0 {
                    self.ret();
                }
            }
            (_, Some(KindId::FlowFor), _) => {
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
                let top = self.hb.next_pc();
                if let Some(index) = index {
                    self.slot_set(Type::Int, index, c);
                }
                self.follow(n, "body", false)?;
                let (counter, last) = (bc::Reg::new(c), bc::Reg::new(l));
                // A body of one variable update loops on itself (`for.var.add.i`): nothing but
                // `for.next` jumps to `top`, and the inlined body has no other instruction
                // that could jump past it.
                match *self.hb.emitted_since(top) {
                    [Instr::VarAddI { dst, var, b }] => {
                        self.hb.replace_tail(
                            1,
                            Instr::ForVarAddI {
                                dst,
                                var,
                                b,
                                counter,
                                last,
                            },
                        );
                    }
                    _ => {
                        self.hb.emit(Instr::ForNext {
                            counter,
                            last,
                            target: looptop.target(),
                        });
                    }
                }
                self.hb.bind(done);
                self.follow(n, "completed", true)?;
            }
            (_, Some(KindId::FlowDoOnce), "reset") => {
                let f = self.ldc(bc::Const::Bool(false));
                self.slot_set(Type::Bool, state[0], f);
                self.ret();
            }
            (_, Some(KindId::FlowDoOnce), _) => {
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
            (_, Some(KindId::FlowFlipFlop), _) => {
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
            (_, Some(KindId::FlowGate), "enter") => {
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
            (_, Some(KindId::FlowGate), which) => {
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
            (_, Some(KindId::FlowDelay), _) => {
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
            (Op::Game(imp), _, _) => {
                self.game_exec(n, imp);
                self.follow(n, "then", true)?;
            }
            // Every other exec built-in is a host call: the instruction of its name in the ISA
            // table, then `then`.
            (Op::Builtin(k), _, _) if k.flow == Flow::Exec => {
                self.host_call(n, k.kind);
                self.follow(n, "then", true)?;
            }
            _ => {
                return Err(BuildError {
                    message: format!(
                        "node `{}` ({}) has no exec lowering",
                        self.node(n).name,
                        self.node(n).kind
                    ),
                });
            }
        }
        Ok(())
    }

    /// The variable-update superinstruction (`var.add.i`, …) that replaces the last two
    /// instructions and the `var.set` of `v` from register `r` about to follow: `var.get r0, v`
    /// then an add, subtract or (float) multiply into `r` reading `r0` once (as its left
    /// operand for a subtraction or a constant operand). `r0` is read by nothing else: it is
    /// this `var.set`'s own dependency, evaluated for it alone.
    fn var_update(&self, v: u16, r: u16) -> Option<Instr> {
        use Instr as I;
        let [get, op] = self.hb.tail::<2>()?;
        let own = |var: u16, ok: bool| var == v && ok;
        match (get, op) {
            (I::VarGetI { dst: g, var }, I::IntAdd { dst, a, b }) if dst.0 == r => {
                let other = if a == g { b } else { a };
                own(var.0, (a == g) != (b == g)).then_some(I::VarAddI { dst, var, b: other })
            }
            (I::VarGetI { dst: g, var }, I::IntSub { dst, a, b }) if dst.0 == r => {
                own(var.0, a == g && b != g).then_some(I::VarSubI { dst, var, b })
            }
            (I::VarGetI { dst: g, var }, I::IntAddK { dst, a, b }) if dst.0 == r => {
                own(var.0, a == g).then_some(I::VarAddIK { dst, var, b })
            }
            (I::VarGetI { dst: g, var }, I::IntSubK { dst, a, b }) if dst.0 == r => {
                own(var.0, a == g).then_some(I::VarSubIK { dst, var, b })
            }
            (I::VarGetF { dst: g, var }, I::FloatAdd { dst, a, b }) if dst.0 == r => {
                let other = if a == g { b } else { a };
                own(var.0, (a == g) != (b == g)).then_some(I::VarAddF { dst, var, b: other })
            }
            (I::VarGetF { dst: g, var }, I::FloatMul { dst, a, b }) if dst.0 == r => {
                let other = if a == g { b } else { a };
                own(var.0, (a == g) != (b == g)).then_some(I::VarMulF { dst, var, b: other })
            }
            (I::VarGetF { dst: g, var }, I::FloatAddK { dst, a, b }) if dst.0 == r => {
                own(var.0, a == g).then_some(I::VarAddFK { dst, var, b })
            }
            (I::VarGetF { dst: g, var }, I::FloatSubK { dst, a, b }) if dst.0 == r => {
                own(var.0, a == g).then_some(I::VarSubFK { dst, var, b })
            }
            (I::VarGetF { dst: g, var }, I::FloatMulK { dst, a, b }) if dst.0 == r => {
                own(var.0, a == g).then_some(I::VarMulFK { dst, var, b })
            }
            _ => None,
        }
    }

    /// Jumps to `to` when bool register `c` is `when`. When `c` was just computed by an int
    /// comparison (the last instruction, nothing bound after it), the two become one
    /// compare-and-branch (`jmp.int.*`, relation negated for `when == false`): `c` is the
    /// branch's own condition, read by nothing after it.
    fn branch(&mut self, c: u16, when: bool, to: Label) {
        use Instr as I;
        let target = to.target();
        let fused = match self.hb.last() {
            Some(last) => {
                let cmp = |rel: usize, d: bc::Reg<bc::B>| (d.0 == c).then_some(rel);
                // Relations in the order eq, ne, lt, le, gt, ge; `NOT[r]` is r's negation.
                const NOT: [usize; 6] = [1, 0, 5, 4, 3, 2];
                let (rel, regs) = match last {
                    I::IntEq { dst, a, b } => (cmp(0, dst), Ok((a, b))),
                    I::IntNe { dst, a, b } => (cmp(1, dst), Ok((a, b))),
                    I::IntLt { dst, a, b } => (cmp(2, dst), Ok((a, b))),
                    I::IntLe { dst, a, b } => (cmp(3, dst), Ok((a, b))),
                    I::IntGt { dst, a, b } => (cmp(4, dst), Ok((a, b))),
                    I::IntGe { dst, a, b } => (cmp(5, dst), Ok((a, b))),
                    I::IntEqK { dst, a, b } => (cmp(0, dst), Err((a, b))),
                    I::IntNeK { dst, a, b } => (cmp(1, dst), Err((a, b))),
                    I::IntLtK { dst, a, b } => (cmp(2, dst), Err((a, b))),
                    I::IntLeK { dst, a, b } => (cmp(3, dst), Err((a, b))),
                    I::IntGtK { dst, a, b } => (cmp(4, dst), Err((a, b))),
                    I::IntGeK { dst, a, b } => (cmp(5, dst), Err((a, b))),
                    _ => (None, Ok((bc::Reg::new(0), bc::Reg::new(0)))),
                };
                rel.map(|r| if when { r } else { NOT[r] })
                    .map(|r| match regs {
                        Ok((a, b)) => [
                            I::JmpIntEq { a, b, target },
                            I::JmpIntNe { a, b, target },
                            I::JmpIntLt { a, b, target },
                            I::JmpIntLe { a, b, target },
                            I::JmpIntGt { a, b, target },
                            I::JmpIntGe { a, b, target },
                        ][r],
                        Err((a, b)) => [
                            I::JmpIntEqK { a, b, target },
                            I::JmpIntNeK { a, b, target },
                            I::JmpIntLtK { a, b, target },
                            I::JmpIntLeK { a, b, target },
                            I::JmpIntGtK { a, b, target },
                            I::JmpIntGeK { a, b, target },
                        ][r],
                    })
            }
            None => None,
        };
        let cond = bc::Reg::new(c);
        match fused {
            Some(i) => self.hb.replace_last(i),
            None if when => self.hb.emit(I::JmpIf { cond, target }),
            None => self.hb.emit(I::JmpIfNot { cond, target }),
        };
    }

    /// Emits a host call: the instruction of the same name in the ISA table, whose register
    /// operands are the node's data outputs then its data inputs, each in pin order
    /// (`anim.set_state`: `ok, state`; `anim.set_param`: `name, value`), exactly as pure
    /// built-ins lower. Inputs are evaluated first; each output something reads is stored in
    /// its slot.
    fn host_call(&mut self, n: NodeId, kind: &str) {
        let node = self.node(n);
        let args: Vec<u16> = (0..node.inputs.len())
            .filter(|&p| !node.inputs[p].ty.is_exec())
            .map(|p| self.input_at(n, p))
            .collect();
        let outs = self.op_by_name(n, kind, &args);
        let mut r = outs.iter();
        for (pin, p) in node.outputs.iter().enumerate() {
            let Some(ty) = p.ty.data() else { continue };
            let Some(&reg) = r.next() else { break };
            if let Some(slot) = self.lay.slot(n, pin) {
                self.slot_set(ty, slot, reg);
            }
        }
    }
}
