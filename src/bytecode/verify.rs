//! The verifier: the only way to obtain a [`VerifiedModule`], which the VM trusts for register,
//! constant, variable, slot, parameter and delay indices, operand types and jump targets.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use super::isa::OperandKind;
use super::module::Module;
use super::types::{Const, Type, Value};
use crate::crossing::Edge;

/// Instructions one invocation (a handler run or a resume) may execute by default; also the
/// builder's default budget metadata.
pub const DEFAULT_BUDGET: u64 = 100_000;
/// Largest register count per bank per handler.
pub const MAX_REGS_PER_BANK: u16 = 4096;
/// Largest number of instructions in a module.
pub const MAX_CODE: usize = 1 << 20;
/// Largest accepted budget metadata.
pub const MAX_BUDGET: u64 = 100_000_000;
/// Largest string constant, variable default or runtime string, in bytes.
pub const MAX_STRING_LEN: usize = 1 << 16;
/// Largest number of event payload parameters per handler.
pub const MAX_PARAMS: usize = 64;
/// Most typed fields a custom event's payload has: its handler's parameters are the sender
/// and the fields, so one fewer than [`MAX_PARAMS`]. The VM refuses an `event.send` whose
/// `send.arg.*` pushed more.
pub const MAX_PAYLOAD_FIELDS: usize = MAX_PARAMS - 1;

/// Why a module was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// What is wrong.
    pub message: String,
    /// The offending handler, if any.
    pub handler: Option<usize>,
    /// The offending instruction (absolute pc), if any.
    pub pc: Option<u32>,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid module")?;
        if let Some(h) = self.handler {
            write!(f, ", handler {h}")?;
        }
        if let Some(pc) = self.pc {
            write!(f, ", pc {pc}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for VerifyError {}

/// A module that passed [`verify`]. Only `verify` can build one.
#[derive(Clone, Debug)]
pub struct VerifiedModule {
    module: Module,
    /// Constants as runtime values (strings shared, so `ldc.s` never allocates).
    values: Vec<Value>,
    /// Per event identity: its handler index per edge slot (plain, begin, end).
    by_event: BTreeMap<String, [Option<usize>; 3]>,
    /// Per pc: starts a variable update the VM may run as one step (see [`fusable`]).
    fused: Vec<bool>,
    /// Per constant index: the constant when it is an int (0 otherwise), so an instruction
    /// with a verified int constant operand reads it without a type test.
    ints: Vec<i64>,
    /// Per constant index: the constant when it is a float (0.0 otherwise).
    floats: Vec<f64>,
    /// Per handler: may it read a register before writing it ([`super::defined`])? Only then
    /// does the VM zero its registers before a run.
    reset: Vec<bool>,
}

impl VerifiedModule {
    /// The verified module (read-only).
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// The handler index for an event identity (its plain handler, not a window's edges).
    pub fn handler_index(&self, event: &str) -> Option<usize> {
        self.edge_handler_index(event, None)
    }

    /// The handler index for an event identity on window edge `edge` (`None`: the plain
    /// handler).
    pub fn edge_handler_index(&self, event: &str, edge: Option<Edge>) -> Option<usize> {
        self.by_event.get(event)?[edge_slot(edge)]
    }

    /// Constant `i` as a runtime value (entity constants resolve to `None` here; the VM
    /// resolves `self`).
    pub(crate) fn const_value(&self, i: u32) -> Option<&Value> {
        self.values.get(i as usize)
    }

    /// Int constant `c` (the verifier checked its type).
    #[inline(always)]
    pub(crate) fn int_k(&self, c: super::isa::ConstRef<super::types::I>) -> i64 {
        self.ints.get(c.0 as usize).copied().unwrap_or(0)
    }

    /// Float constant `c` (the verifier checked its type).
    #[inline(always)]
    pub(crate) fn float_k(&self, c: super::isa::ConstRef<super::types::F>) -> f64 {
        self.floats.get(c.0 as usize).copied().unwrap_or(0.0)
    }

    /// Must handler `h`'s registers be zeroed before it runs (some path may read one before
    /// writing it)?
    #[inline]
    pub fn needs_reset(&self, h: usize) -> bool {
        self.reset.get(h).copied().unwrap_or(true)
    }

    /// Does a variable update the VM may run as one step start at `pc` (see [`fusable`])?
    #[inline]
    pub(crate) fn fused(&self, pc: u32) -> bool {
        self.fused.get(pc as usize).copied().unwrap_or(false)
    }

    /// The node name debug info gives for `pc` (empty when out of range).
    pub fn node_at(&self, pc: u32) -> &str {
        self.module
            .debug
            .get(pc as usize)
            .and_then(|n| self.module.nodes.get(*n as usize))
            .map_or("", String::as_str)
    }
}

fn err(message: impl Into<String>, handler: Option<usize>, pc: Option<u32>) -> VerifyError {
    VerifyError {
        message: message.into(),
        handler,
        pc,
    }
}

fn check_const(what: &str, c: &Const, ty: Type) -> Result<(), VerifyError> {
    if c.ty() != ty {
        return Err(err(
            format!("{what}: default has type {}, declared {ty}", c.ty()),
            None,
            None,
        ));
    }
    if let Const::Str(s) = c
        && s.len() > MAX_STRING_LEN
    {
        return Err(err(format!("{what}: string too long"), None, None));
    }
    Ok(())
}

/// The builder interns constants, so no two constants of a module are equal (floats by bits).
/// Refusing duplicates also bounds a module's memory by a small multiple of its bytes: without
/// it, a file of 2-byte `bool` constants would take ~28× its size once decoded.
fn distinct_constants(consts: &[Const]) -> Result<(), VerifyError> {
    use super::types::EntityConst;
    fn key(c: &Const) -> (u8, u64, [u32; 3], &str) {
        match c {
            Const::Bool(b) => (0, u64::from(*b), [0; 3], ""),
            Const::Int(i) => (1, *i as u64, [0; 3], ""),
            Const::Float(f) => (2, f.to_bits(), [0; 3], ""),
            Const::Vec3(v) => (3, 0, v.map(f32::to_bits), ""),
            Const::Str(s) => (4, 0, [0; 3], s.as_str()),
            Const::Entity(EntityConst::None) => (5, 0, [0; 3], ""),
            Const::Entity(EntityConst::Owner) => (5, 1, [0; 3], ""),
        }
    }
    let mut order: Vec<u32> = (0..consts.len() as u32).collect();
    order.sort_unstable_by(|&a, &b| {
        key(&consts[a as usize])
            .cmp(&key(&consts[b as usize]))
            .then(a.cmp(&b))
    });
    for w in order.windows(2) {
        if key(&consts[w[0] as usize]) == key(&consts[w[1] as usize]) {
            return Err(err(
                format!(
                    "constants c{} and c{} are equal (a module's constants are distinct)",
                    w[0], w[1]
                ),
                None,
                None,
            ));
        }
    }
    Ok(())
}

/// Checks everything the VM relies on; see `docs/bytecode.md` ("Verifier rules").
pub fn verify(m: Module) -> Result<VerifiedModule, VerifyError> {
    if m.budget == 0 || m.budget > MAX_BUDGET {
        return Err(err(
            format!("budget {} outside 1..={MAX_BUDGET}", m.budget),
            None,
            None,
        ));
    }
    if m.code.len() > MAX_CODE {
        return Err(err("too many instructions", None, None));
    }
    use super::module::limits;
    for (what, n, max) in [
        ("constants", m.consts.len(), limits::CONSTS),
        ("delays", m.delays.len(), limits::CODE),
        ("handlers", m.handlers.len(), limits::CODE),
        ("node names", m.nodes.len(), limits::CODE),
    ] {
        if n > max {
            return Err(err(
                format!("{n} {what}; a module holds at most {max}"),
                None,
                None,
            ));
        }
    }
    for (i, c) in m.consts.iter().enumerate() {
        check_const(&format!("constant c{i}"), c, c.ty())?;
    }
    distinct_constants(&m.consts)?;
    super::game::check_imports(&m.imports).map_err(|msg| err(msg, None, None))?;
    for (what, decls) in [("variable", &m.vars), ("slot", &m.slots)] {
        let mut seen = BTreeMap::new();
        for (i, d) in decls.iter().enumerate() {
            check_const(&format!("{what} `{}`", d.name), &d.default, d.ty)?;
            if seen.insert(d.name.as_str(), i).is_some() {
                return Err(err(
                    format!("duplicate {what} name `{}`", d.name),
                    None,
                    None,
                ));
            }
        }
    }
    if m.vars.len() > usize::from(u16::MAX) + 1 || m.slots.len() > usize::from(u16::MAX) + 1 {
        return Err(err("too many variables or slots", None, None));
    }
    for (i, d) in m.delays.iter().enumerate() {
        if d.node as usize >= m.nodes.len() {
            return Err(err(
                format!("delay d{i} names node {} of {}", d.node, m.nodes.len()),
                None,
                None,
            ));
        }
    }
    if m.debug.len() != m.code.len() {
        return Err(err(
            format!(
                "debug info covers {} instructions, code has {}",
                m.debug.len(),
                m.code.len()
            ),
            None,
            None,
        ));
    }
    for (pc, n) in m.debug.iter().enumerate() {
        if *n as usize >= m.nodes.len() {
            return Err(err(
                format!("debug info names node {n} of {}", m.nodes.len()),
                None,
                Some(pc as u32),
            ));
        }
    }
    let mut last_pc = 0;
    for &(pc, n) in &m.fused {
        if pc as usize >= m.code.len() || pc < last_pc || n as usize >= m.nodes.len() {
            return Err(err(
                format!(
                    "fused debug entry ({pc}, {n}) is out of order or out of range ({} \
                     instructions, {} nodes)",
                    m.code.len(),
                    m.nodes.len()
                ),
                None,
                None,
            ));
        }
        last_pc = pc;
    }

    let mut by_event = BTreeMap::new();
    let mut ranges = Vec::new();
    for (hi, h) in m.handlers.iter().enumerate() {
        let here = Some(hi);
        if h.event.is_empty() {
            return Err(err("empty event identity", here, None));
        }
        if h.edge.is_some() && !h.event.starts_with("animseq::") {
            return Err(err(
                format!(
                    "event `{}` has a window edge handler, but only `animseq::` windows have edges",
                    h.event
                ),
                here,
                None,
            ));
        }
        let slots = by_event.entry(h.event.clone()).or_insert([None; 3]);
        if slots[edge_slot(h.edge)].replace(hi).is_some() {
            let what = match h.edge {
                None => "",
                Some(Edge::Begin) => " on its begin edge",
                Some(Edge::End) => " on its end edge",
            };
            return Err(err(
                format!("event `{}` handled twice{what}", h.event),
                here,
                None,
            ));
        }
        // A window's edge handlers: no plain handler beside them, one payload shape for both.
        if slots[0].is_some() && slots[1..].iter().any(Option::is_some) {
            return Err(err(
                format!(
                    "event `{}` has both a plain handler and window edge handlers",
                    h.event
                ),
                here,
                None,
            ));
        }
        if let [_, Some(b), Some(e)] = *slots
            && m.handlers[b].params != m.handlers[e].params
        {
            return Err(err(
                format!(
                    "the begin and end handlers of window `{}` take different payloads",
                    h.event
                ),
                here,
                None,
            ));
        }
        if h.params.len() > MAX_PARAMS {
            return Err(err("too many payload parameters", here, None));
        }
        if let Some(t) = Type::ALL
            .iter()
            .find(|t| h.regs[t.bank()] > MAX_REGS_PER_BANK)
        {
            return Err(err(
                format!(
                    "{} {t} registers (max {MAX_REGS_PER_BANK})",
                    h.regs[t.bank()]
                ),
                here,
                None,
            ));
        }
        let end = h
            .start
            .checked_add(h.len)
            .filter(|e| *e as usize <= m.code.len() && h.len > 0)
            .ok_or_else(|| {
                err(
                    format!(
                        "code range {}+{} outside the {} instructions",
                        h.start,
                        h.len,
                        m.code.len()
                    ),
                    here,
                    None,
                )
            })?;
        ranges.push((h.start, end, hi));
    }
    // Overlaps first, so the operand pass below is linear in the code size.
    ranges.sort_unstable();
    for w in ranges.windows(2) {
        if w[1].0 < w[0].1 {
            return Err(err(
                format!("code overlaps handler {}", w[0].2),
                Some(w[1].2),
                Some(w[1].0),
            ));
        }
    }
    for &(start, end, hi) in &ranges {
        let (h, here) = (&m.handlers[hi], Some(hi));
        for pc in start..end {
            let ins = &m.code[pc as usize];
            let mut bad: Option<String> = None;
            ins.for_each_operand(&mut |name, kind, idx| {
                if bad.is_some() {
                    return;
                }
                let problem = check_operand(&m, h, kind, idx, start, end);
                if let Some(p) = problem {
                    bad = Some(format!("`{}` operand `{name}`: {p}", ins.mnemonic()));
                }
            });
            if let Some(b) = bad {
                return Err(err(b, here, Some(pc)));
            }
        }
        super::game::check_calls(&m.imports, &m.code, start, end)
            .map_err(|(pc, msg)| err(msg, here, Some(pc)))?;
        let last = end - 1;
        if !m.code[last as usize].is_terminator() {
            return Err(err(
                "handler's last instruction can fall through (must be `ret` or `jmp`)",
                here,
                Some(last),
            ));
        }
    }

    let values = m
        .consts
        .iter()
        .map(|c| match c {
            Const::Str(s) => Value::Str(Arc::from(s.as_str())),
            c => c.to_value(None),
        })
        .collect();
    let fused = fusable(&m.code);
    let ints = m
        .consts
        .iter()
        .map(|c| if let Const::Int(i) = c { *i } else { 0 })
        .collect();
    let floats = m
        .consts
        .iter()
        .map(|c| if let Const::Float(f) = c { *f } else { 0.0 })
        .collect();
    let reset = m
        .handlers
        .iter()
        .map(|h| super::defined::reads_unwritten(&m.code, h.start, h.start + h.len, h.regs))
        .collect();
    Ok(VerifiedModule {
        module: m,
        values,
        by_event,
        fused,
        ints,
        floats,
        reset,
    })
}

/// The index of an edge in a `by_event` entry: plain, begin, end.
fn edge_slot(e: Option<Edge>) -> usize {
    match e {
        None => 0,
        Some(Edge::Begin) => 1,
        Some(Edge::End) => 2,
    }
}

fn check_operand(
    m: &Module,
    h: &super::module::Handler,
    kind: OperandKind,
    idx: u32,
    start: u32,
    end: u32,
) -> Option<String> {
    let typed = |what: &str, found: Option<Type>, want: Type, count: usize| match found {
        None => Some(format!("{what} {idx} out of range ({count} declared)")),
        Some(t) if t != want => Some(format!("{what} {idx} has type {t}, expected {want}")),
        Some(_) => None,
    };
    let i = idx as usize;
    match kind {
        OperandKind::Reg(t) => {
            let n = h.regs[t.bank()];
            (idx >= u32::from(n))
                .then(|| format!("register {idx} out of range ({n} {t} registers)"))
        }
        OperandKind::Const(t) => typed(
            "constant",
            m.consts.get(i).map(Const::ty),
            t,
            m.consts.len(),
        ),
        OperandKind::Var(t) => typed("variable", m.vars.get(i).map(|d| d.ty), t, m.vars.len()),
        OperandKind::Slot(t) => typed("slot", m.slots.get(i).map(|d| d.ty), t, m.slots.len()),
        OperandKind::Param(t) => typed("parameter", h.params.get(i).copied(), t, h.params.len()),
        OperandKind::Delay => (i >= m.delays.len()).then(|| format!("delay {idx} out of range")),
        OperandKind::Import => (i >= m.imports.len())
            .then(|| format!("import {idx} out of range ({} imports)", m.imports.len())),
        OperandKind::Target => (idx < start || idx >= end)
            .then(|| format!("jump target {idx} outside the handler ({start}..{end})")),
    }
}

/// Marks each pc where a variable update starts: `var.get.T r, v`, then an add, subtract or
/// (float) multiply reading `r`, then `var.set.T v` of that result — the shape a graph's
/// "variable = variable op x" lowers to. The VM runs the three as one step (same effects,
/// registers, budget and debug info; a jump into the middle still runs them one by one),
/// keeping the value in a machine register instead of passing it through two register-bank
/// round trips. The three instructions always lie in one handler: neither of the first two is
/// a terminator.
fn fusable(code: &[super::isa::Instr]) -> Vec<bool> {
    use super::isa::Instr as I;
    let mut out = vec![false; code.len()];
    for (pc, w) in code.windows(3).enumerate() {
        out[pc] = match *w {
            [
                I::VarGetI { dst, var },
                I::IntAdd { dst: d, a, b } | I::IntSub { dst: d, a, b },
                I::VarSetI { var: v2, src },
            ] => (a == dst || b == dst) && v2 == var && src == d,
            [
                I::VarGetI { dst, var },
                I::IntAddK { dst: d, a, .. } | I::IntSubK { dst: d, a, .. },
                I::VarSetI { var: v2, src },
            ] => a == dst && v2 == var && src == d,
            [
                I::VarGetF { dst, var },
                I::FloatAddK { dst: d, a, .. }
                | I::FloatSubK { dst: d, a, .. }
                | I::FloatMulK { dst: d, a, .. },
                I::VarSetF { var: v2, src },
            ] => a == dst && v2 == var && src == d,
            [
                I::VarGetF { dst, var },
                I::FloatAdd { dst: d, a, b }
                | I::FloatSub { dst: d, a, b }
                | I::FloatMul { dst: d, a, b },
                I::VarSetF { var: v2, src },
            ] => (a == dst || b == dst) && v2 == var && src == d,
            _ => false,
        };
    }
    out
}
