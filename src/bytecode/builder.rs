//! `ModuleBuilder`: the assembler API the graph compiler (and the tests) use to emit modules,
//! with typed register allocation, interned constants and node names, and label fix-ups.

use std::collections::HashMap;
use std::fmt;

use super::isa::{ConstRef, DelayRef, Instr, Param, Reg, Slot, Target, Var};
use super::module::{DelayDecl, Handler, Module, VarDecl};
use super::types::{Const, ConstKey, EntityConst, Type, TypeMarker};
use super::verify::DEFAULT_BUDGET;
use crate::crossing::Edge;

/// Index of a node name in the module's debug table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct NodeId(pub u32);

/// A forward- or backward-referenced code position inside one handler.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Label(u32);

impl Label {
    /// The placeholder target to put in an instruction; resolved by [`HandlerBuilder::finish`].
    pub fn target(self) -> Target {
        Target(self.0)
    }
}

/// A builder mistake (the verifier would reject the result).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildError {
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for BuildError {}

/// Builds a [`Module`]. Constants and node names are interned in first-use order, so the same
/// sequence of calls always yields the same module (and bytes).
#[derive(Clone, Debug)]
pub struct ModuleBuilder {
    m: Module,
    node_ids: HashMap<String, u32>,
    const_ids: HashMap<ConstKey, u32>,
}

impl ModuleBuilder {
    /// An empty module for graph `name`, with the default budget metadata.
    pub fn new(name: &str) -> Self {
        ModuleBuilder {
            m: Module {
                name: name.to_string(),
                budget: DEFAULT_BUDGET,
                consts: Vec::new(),
                vars: Vec::new(),
                slots: Vec::new(),
                delays: Vec::new(),
                handlers: Vec::new(),
                code: Vec::new(),
                nodes: Vec::new(),
                debug: Vec::new(),
                fused: Vec::new(),
                imports: Vec::new(),
            },
            node_ids: HashMap::new(),
            const_ids: HashMap::new(),
        }
    }

    /// Interns a game node import (by kind, in first-use order); returns its index.
    pub fn import(&mut self, imp: &super::game::Import) -> super::game::ImportRef {
        let i = match self.m.imports.iter().position(|i| i.kind == imp.kind) {
            Some(i) => i,
            None => {
                self.m.imports.push(imp.clone());
                self.m.imports.len() - 1
            }
        };
        super::game::ImportRef(u16::try_from(i).unwrap_or(u16::MAX))
    }

    /// Sets the budget metadata.
    pub fn set_budget(&mut self, budget: u64) {
        self.m.budget = budget;
    }

    /// Interns a node name for debug info.
    pub fn node(&mut self, name: &str) -> NodeId {
        if let Some(i) = self.node_ids.get(name) {
            return NodeId(*i);
        }
        let i = self.m.nodes.len() as u32;
        self.m.nodes.push(name.to_string());
        self.node_ids.insert(name.to_string(), i);
        NodeId(i)
    }

    /// Interns a constant (bitwise identity); returns its raw index.
    pub fn constant(&mut self, c: Const) -> u32 {
        let key = c.key();
        if let Some(&i) = self.const_ids.get(&key) {
            return i;
        }
        let i = self.m.consts.len() as u32;
        self.m.consts.push(c);
        self.const_ids.insert(key, i);
        i
    }

    /// A bool constant.
    pub fn const_bool(&mut self, v: bool) -> ConstRef<super::types::B> {
        ConstRef::new(self.constant(Const::Bool(v)))
    }
    /// An int constant.
    pub fn const_int(&mut self, v: i64) -> ConstRef<super::types::I> {
        ConstRef::new(self.constant(Const::Int(v)))
    }
    /// A float constant.
    pub fn const_float(&mut self, v: f64) -> ConstRef<super::types::F> {
        ConstRef::new(self.constant(Const::Float(v)))
    }
    /// A vec3 constant.
    pub fn const_vec3(&mut self, v: [f32; 3]) -> ConstRef<super::types::V> {
        ConstRef::new(self.constant(Const::Vec3(v)))
    }
    /// A string constant.
    pub fn const_str(&mut self, v: &str) -> ConstRef<super::types::S> {
        ConstRef::new(self.constant(Const::Str(v.to_string())))
    }
    /// An entity constant.
    pub fn const_entity(&mut self, v: EntityConst) -> ConstRef<super::types::E> {
        ConstRef::new(self.constant(Const::Entity(v)))
    }

    /// Declares a variable of type `T` (the default's type must be `T`; `verify` checks).
    pub fn var<T: TypeMarker>(&mut self, name: &str, default: Const) -> Var<T> {
        self.m.vars.push(VarDecl {
            name: name.to_string(),
            ty: T::TYPE,
            default,
        });
        Var::new((self.m.vars.len() - 1) as u16)
    }

    /// Declares a hidden instance slot of type `T` holding `default` initially.
    pub fn slot<T: TypeMarker>(&mut self, name: &str, default: Const) -> Slot<T> {
        self.m.slots.push(VarDecl {
            name: name.to_string(),
            ty: T::TYPE,
            default,
        });
        Slot::new((self.m.slots.len() - 1) as u16)
    }

    /// Declares a variable of a type known only at run time of the compiler.
    pub fn var_raw(&mut self, name: &str, ty: Type, default: Const) -> u16 {
        self.m.vars.push(VarDecl {
            name: name.to_string(),
            ty,
            default,
        });
        (self.m.vars.len() - 1) as u16
    }
    /// Declares a hidden slot of a type known only at run time of the compiler.
    pub fn slot_raw(&mut self, name: &str, ty: Type, default: Const) -> u16 {
        self.m.slots.push(VarDecl {
            name: name.to_string(),
            ty,
            default,
        });
        (self.m.slots.len() - 1) as u16
    }
    /// Declares a `flow.delay` node (its pending flag is per instance).
    pub fn delay(&mut self, node: NodeId) -> DelayRef {
        self.m.delays.push(DelayDecl { node: node.0 });
        DelayRef((self.m.delays.len() - 1) as u16)
    }

    /// Starts a handler for `event` with the given payload types. Its code is appended after
    /// every earlier handler's; call [`HandlerBuilder::finish`] before starting another.
    pub fn handler(&mut self, event: &str, params: &[Type]) -> HandlerBuilder<'_> {
        self.edge_handler(event, None, params)
    }

    /// Starts a handler for `event` that runs on window edge `edge` (`None`: an ordinary
    /// handler, as [`ModuleBuilder::handler`]).
    pub fn edge_handler(
        &mut self,
        event: &str,
        edge: Option<Edge>,
        params: &[Type],
    ) -> HandlerBuilder<'_> {
        let node = self.node(event);
        let start = self.m.code.len() as u32;
        HandlerBuilder {
            mb: self,
            event: event.to_string(),
            edge,
            params: params.to_vec(),
            start,
            regs: [0; 6],
            next: [0; 6],
            floor: [0; 6],
            free: Default::default(),
            labels: Vec::new(),
            bound_at: None,
            node,
        }
    }

    /// The module built so far.
    pub fn finish(self) -> Module {
        self.m
    }
}

/// Emits one handler's code. Targets in emitted instructions are label placeholders
/// (`label.target()`), resolved by [`HandlerBuilder::finish`].
#[derive(Debug)]
pub struct HandlerBuilder<'a> {
    mb: &'a mut ModuleBuilder,
    event: String,
    edge: Option<Edge>,
    params: Vec<Type>,
    start: u32,
    /// Registers the handler needs per bank (the high-water mark).
    regs: [u16; 6],
    /// Next never-used register per bank (below `regs` after [`HandlerBuilder::release_regs`]).
    next: [u16; 6],
    /// Registers below the floor are reserved for the whole handler (never released).
    floor: [u16; 6],
    /// Registers freed by [`HandlerBuilder::free_reg`], reused before `next` grows.
    free: [Vec<u16>; 6],
    labels: Vec<Option<u32>>,
    /// The pc the latest [`HandlerBuilder::bind`] bound a label to.
    bound_at: Option<u32>,
    node: NodeId,
}

impl HandlerBuilder<'_> {
    /// The module builder (constants, variables, slots, nodes).
    pub fn module(&mut self) -> &mut ModuleBuilder {
        self.mb
    }

    /// Allocates a fresh register of type `T`.
    pub fn reg<T: TypeMarker>(&mut self) -> Reg<T> {
        Reg::new(self.reg_raw(T::TYPE))
    }

    /// Allocates a fresh register in `ty`'s bank; returns its raw index (saturates at the
    /// bank's limit, which the verifier then rejects).
    pub fn reg_raw(&mut self, ty: Type) -> u16 {
        let b = ty.bank();
        if let Some(r) = self.free[b].pop() {
            return r;
        }
        let r = self.next[b];
        self.next[b] = r.saturating_add(1);
        self.regs[b] = self.regs[b].max(self.next[b]);
        r
    }

    /// Makes every register above the floor free again (the compiler calls this where nothing
    /// but reserved registers is live, so registers are reused across blocks); the handler's
    /// register counts keep their maximum.
    pub fn release_regs(&mut self) {
        self.next = self.floor;
        for f in &mut self.free {
            f.clear();
        }
    }

    /// Returns one register to its bank for reuse (the caller guarantees it is dead).
    pub fn free_reg(&mut self, ty: Type, r: u16) {
        let b = ty.bank();
        if r >= self.floor[b] {
            self.free[b].push(r);
        }
    }

    /// Reserves every register allocated so far for the whole handler: later
    /// [`HandlerBuilder::release_regs`] calls keep them (state that must survive calls and
    /// `flow.delay`, such as loop counters).
    pub fn reserve_regs(&mut self) {
        self.floor = self.next;
        for f in &mut self.free {
            f.clear();
        }
    }

    /// Payload parameter `i` (its declared type must be `T`; `verify` checks).
    pub fn param<T: TypeMarker>(&self, i: u16) -> Param<T> {
        Param::new(i)
    }

    /// Sets the node that following instructions belong to (debug info).
    pub fn at(&mut self, node: NodeId) {
        self.node = node;
    }

    /// Sets the current node by name.
    pub fn at_node(&mut self, name: &str) {
        self.node = self.mb.node(name);
    }

    /// A new unbound label.
    pub fn label(&mut self) -> Label {
        self.labels.push(None);
        Label((self.labels.len() - 1) as u32)
    }

    /// Binds `l` to the next instruction emitted.
    pub fn bind(&mut self, l: Label) {
        let pc = self.mb.m.code.len() as u32;
        if let Some(slot) = self.labels.get_mut(l.0 as usize) {
            *slot = Some(pc);
        }
        self.bound_at = Some(pc);
    }

    /// The handler's last `N` instructions, when the next one emitted may replace them by
    /// [`HandlerBuilder::replace_tail`] (a superinstruction of them and what follows): `None`
    /// when the handler has fewer or a label is bound inside them or after them (something
    /// jumps into the middle or to the next instruction without passing through them).
    pub fn tail<const N: usize>(&self) -> Option<[Instr; N]> {
        let len = self.mb.m.code.len();
        let first = len.checked_sub(N)?;
        if first < self.start as usize || self.bound_at.is_some_and(|b| b as usize > first) {
            return None;
        }
        self.mb.m.code[first..].try_into().ok()
    }

    /// The handler's last instruction, as [`HandlerBuilder::tail`].
    pub fn last(&self) -> Option<Instr> {
        self.tail::<1>().map(|[i]| i)
    }

    /// Replaces the last `n` instructions ([`HandlerBuilder::tail`] returned them) with `i`,
    /// attributed to the current node; returns its pc.
    ///
    /// The nodes of the replaced instructions (and of what they had replaced in turn) stay in
    /// the module's debug info as the new instruction's `fused` entries, so a recorded run still
    /// reports every node the instruction stands for.
    pub fn replace_tail(&mut self, n: usize, i: Instr) -> u32 {
        let m = &mut self.mb.m;
        let len = m.code.len();
        let keep = len.saturating_sub(n).max(self.start as usize);
        let first = m.fused.partition_point(|&(pc, _)| (pc as usize) < keep);
        let mut ran: Vec<u32> = Vec::new();
        let mut earlier = m.fused.drain(first..).peekable();
        for pc in keep..len {
            while let Some((_, node)) = earlier.next_if(|&(at, _)| at as usize == pc) {
                ran.push(node);
            }
            ran.push(m.debug[pc]);
        }
        drop(earlier);
        m.code.truncate(keep);
        m.debug.truncate(keep);
        let pc = self.emit(i);
        let own = self.node.0;
        ran.dedup();
        if ran.last() == Some(&own) {
            ran.pop();
        }
        self.mb
            .m
            .fused
            .extend(ran.into_iter().map(|node| (pc, node)));
        pc
    }

    /// [`HandlerBuilder::replace_tail`] of the last instruction.
    pub fn replace_last(&mut self, i: Instr) -> u32 {
        self.replace_tail(1, i)
    }

    /// Drops the last instruction when it is a `jmp` to `l` and `l` is about to be bound at the
    /// next instruction (a jump to the very next instruction is a no-op). Labels bound at the
    /// dropped pc then name the instruction emitted next, which is where the jump went anyway.
    pub fn drop_jmp_to(&mut self, l: Label) {
        let start = self.start as usize;
        if self.mb.m.code.len() > start
            && matches!(self.mb.m.code.last(), Some(Instr::Jmp { target }) if target.0 == l.0)
        {
            self.mb.m.code.pop();
            self.mb.m.debug.pop();
            let len = self.mb.m.code.len() as u32;
            self.mb.m.fused.retain(|&(pc, _)| pc < len);
        }
    }

    /// The pc the next instruction emitted will have.
    pub fn next_pc(&self) -> u32 {
        self.mb.m.code.len() as u32
    }

    /// The instructions emitted from `pc` on (empty when `pc` is not before the end).
    pub fn emitted_since(&self, pc: u32) -> &[Instr] {
        self.mb.m.code.get(pc as usize..).unwrap_or_default()
    }

    /// Appends an instruction attributed to the current node; returns its pc.
    pub fn emit(&mut self, i: Instr) -> u32 {
        let pc = self.mb.m.code.len() as u32;
        self.mb.m.code.push(i);
        self.mb.m.debug.push(self.node.0);
        pc
    }

    /// Resolves labels and records the handler; returns its index.
    pub fn finish(self) -> Result<usize, BuildError> {
        let start = self.start as usize;
        let mut missing = None;
        for ins in &mut self.mb.m.code[start..] {
            ins.map_targets(
                &mut |l| match self.labels.get(l as usize).copied().flatten() {
                    Some(pc) => pc,
                    None => {
                        missing = Some(l);
                        u32::MAX
                    }
                },
            );
        }
        if let Some(l) = missing {
            return Err(BuildError {
                message: format!("handler `{}`: label {l} never bound", self.event),
            });
        }
        let len = self.mb.m.code.len() as u32 - self.start;
        self.mb.m.handlers.push(Handler {
            event: self.event,
            edge: self.edge,
            start: self.start,
            len,
            params: self.params,
            regs: self.regs,
        });
        Ok(self.mb.m.handlers.len() - 1)
    }
}
