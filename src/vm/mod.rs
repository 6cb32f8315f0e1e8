//! The bytecode VM: runs handlers of a [`VerifiedModule`] against one instance's state under an
//! instruction budget, yielding continuations at `flow.delay`. No I/O; the world is reached only
//! through [`Host`].
#![forbid(unsafe_code)]

use std::fmt;
use std::sync::Arc;

use crate::anim::command::{self, AnimCommand, CommandSpec};
use crate::bytecode::isa::{Instr, OperandKind, Reg};
use crate::bytecode::types::{Const, EntityConst, Type, Value};
use crate::bytecode::verify::{MAX_REGS_PER_BANK, MAX_STRING_LEN, VerifiedModule};

pub use crate::bytecode::verify::DEFAULT_BUDGET;

/// The world as seen by a running handler: the instance's entity and its animator, the trace
/// log and the event hub. Implemented by the runtime (and by tests).
pub trait Host {
    /// The entity the instance runs on (`entity.self`, entity constant `self`).
    fn self_entity(&mut self) -> u64;
    /// `debug.log`.
    fn log(&mut self, message: &str);
    /// An animation command from an `anim.*` node (`anim::command`): queued for the next
    /// animation update. Returns whether the animator accepts it — `SetState`: the state
    /// machine has that state (an unknown one is refused and changes nothing); every other
    /// command: true.
    fn command(&mut self, command: AnimCommand) -> bool;
    /// `anim.get_param` (unset parameters read 0).
    fn get_param(&mut self, name: &str) -> f64;
    /// `anim.current_state` (empty when there is none).
    fn current_state(&mut self) -> Arc<str>;
    /// `anim.curve`: 0 when absent.
    fn curve(&mut self, name: &str) -> f64;
    /// `event.send`: deliver `event` (`custom::NAME`) to `target` at the next flush.
    fn send(&mut self, event: &str, target: Option<u64>);
}

/// A host that ignores every command (entity 0, no states, parameters and curves read 0).
#[derive(Clone, Copy, Debug, Default)]
pub struct NullHost;

impl Host for NullHost {
    fn self_entity(&mut self) -> u64 {
        0
    }
    fn log(&mut self, _: &str) {}
    fn command(&mut self, c: AnimCommand) -> bool {
        // No animator: no state exists; other commands are accepted and forgotten.
        !matches!(c, AnimCommand::SetState(_))
    }
    fn get_param(&mut self, _: &str) -> f64 {
        0.0
    }
    fn current_state(&mut self) -> Arc<str> {
        Arc::from("")
    }
    fn curve(&mut self, _: &str) -> f64 {
        0.0
    }
    fn send(&mut self, _: &str, _: Option<u64>) {}
}

/// One graph instance's state: variables, hidden slots and pending-delay flags. Errors never
/// reset it.
#[derive(Clone, Debug, PartialEq)]
pub struct InstanceState {
    vars: Vec<Value>,
    slots: Vec<Value>,
    pending: Vec<bool>,
}

impl InstanceState {
    /// Fresh state: every variable and slot at its declared default (entity `self` = `owner`).
    pub fn new(m: &VerifiedModule, owner: u64) -> Self {
        let m = m.module();
        InstanceState {
            vars: m
                .vars
                .iter()
                .map(|d| d.default.to_value(Some(owner)))
                .collect(),
            slots: m
                .slots
                .iter()
                .map(|d| d.default.to_value(Some(owner)))
                .collect(),
            pending: vec![false; m.delays.len()],
        }
    }

    /// Variable values, in declaration order.
    pub fn vars(&self) -> &[Value] {
        &self.vars
    }

    /// Sets variable `index` to `value` when it exists and `value` has the variable's current
    /// type (hot reload carries values over this way); returns whether it did.
    pub fn set_var(&mut self, index: usize, value: Value) -> bool {
        match self.vars.get_mut(index) {
            Some(v) if std::mem::discriminant(v) == std::mem::discriminant(&value) => {
                *v = value;
                true
            }
            _ => false,
        }
    }

    /// Hidden slot values, in declaration order.
    pub fn slots(&self) -> &[Value] {
        &self.slots
    }

    /// Whether delay `d` is pending (a continuation for it is outstanding).
    pub fn delay_pending(&self, d: usize) -> bool {
        self.pending.get(d).copied().unwrap_or(false)
    }

    /// Clears delay `d`'s pending flag (the host dropped its continuation).
    pub fn cancel_delay(&mut self, d: usize) {
        if let Some(p) = self.pending.get_mut(d) {
            *p = false;
        }
    }
}

/// A runtime error: the invocation is aborted, the instance state is kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeError {
    /// The instruction that failed.
    pub pc: u32,
    /// The graph node that instruction belongs to.
    pub node: String,
    /// What happened.
    pub message: String,
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "node `{}` (pc {}): {}", self.node, self.pc, self.message)
    }
}

impl std::error::Error for RuntimeError {}

/// Registers per bank the VM holds: the verifier's per-handler limit, a power of two so a
/// masked index is always in bounds (no bounds check in the interpreter loop).
const BANK: usize = MAX_REGS_PER_BANK as usize;
const _: () = assert!(BANK.is_power_of_two());

/// A register index, masked into the bank. The verifier guarantees every register operand is
/// below the handler's count (≤ `BANK`), so the mask never changes a verified index.
#[inline(always)]
fn ix(r: u16) -> usize {
    usize::from(r) & (BANK - 1)
}

/// The plain-data register banks in one allocation, so the interpreter addresses every
/// numeric register from a single base pointer.
#[derive(Debug)]
struct Nums {
    i: [i64; BANK],
    f: [f64; BANK],
    v: [[f32; 3]; BANK],
    b: [bool; BANK],
}

/// The live typed register banks, allocated once per VM at the largest size a verified handler
/// may use; a handler only ever touches (and resets) the prefix its counts give.
#[derive(Debug)]
struct Banks {
    n: Box<Nums>,
    s: Box<[Arc<str>; BANK]>,
    e: Box<[Option<u64>; BANK]>,
}

fn bank<T: Clone>(x: T) -> Box<[T; BANK]> {
    match vec![x; BANK].into_boxed_slice().try_into() {
        Ok(b) => b,
        Err(_) => unreachable!("a vector of BANK elements converts to a BANK array"),
    }
}

impl Banks {
    fn new(empty: &Arc<str>) -> Self {
        Banks {
            n: Box::new(Nums {
                i: [0; BANK],
                f: [0.0; BANK],
                v: [[0.0; 3]; BANK],
                b: [false; BANK],
            }),
            s: bank(empty.clone()),
            e: bank(None),
        }
    }

    /// Resets the first `c[k]` registers of each bank to their zero values.
    fn reset(&mut self, c: [usize; 6], empty: &Arc<str>) {
        self.n.b[..c[0].min(BANK)].fill(false);
        self.n.i[..c[1].min(BANK)].fill(0);
        self.n.f[..c[2].min(BANK)].fill(0.0);
        self.n.v[..c[3].min(BANK)].fill([0.0; 3]);
        // Registers past the prefix may keep an earlier handler's strings alive until they
        // are reused; a verified handler never reads them.
        for x in &mut self.s[..c[4].min(BANK)] {
            if !Arc::ptr_eq(x, empty) {
                *x = empty.clone();
            }
        }
        self.e[..c[5].min(BANK)].fill(None);
    }

    /// Copies out the first `c[k]` registers of each bank.
    fn save(&self, c: [usize; 6]) -> Regs {
        Regs {
            b: self.n.b[..c[0].min(BANK)].to_vec(),
            i: self.n.i[..c[1].min(BANK)].to_vec(),
            f: self.n.f[..c[2].min(BANK)].to_vec(),
            v: self.n.v[..c[3].min(BANK)].to_vec(),
            s: self.s[..c[4].min(BANK)].to_vec(),
            e: self.e[..c[5].min(BANK)].to_vec(),
        }
    }

    /// Copies saved registers back in (their counts were checked against the handler's).
    fn restore(&mut self, r: Regs) {
        fn put<T: Clone>(dst: &mut [T], src: Vec<T>) {
            let n = src.len().min(dst.len());
            dst[..n].clone_from_slice(&src[..n]);
        }
        put(&mut self.n.b, r.b);
        put(&mut self.n.i, r.i);
        put(&mut self.n.f, r.f);
        put(&mut self.n.v, r.v);
        put(&mut *self.s, r.s);
        put(&mut *self.e, r.e);
    }
}

/// Saved typed register banks of a suspended handler (exactly its verified counts).
#[derive(Clone, Debug, Default, PartialEq)]
struct Regs {
    b: Vec<bool>,
    i: Vec<i64>,
    f: Vec<f64>,
    v: Vec<[f32; 3]>,
    s: Vec<Arc<str>>,
    e: Vec<Option<u64>>,
}

impl Regs {
    fn counts(&self) -> [usize; 6] {
        [
            self.b.len(),
            self.i.len(),
            self.f.len(),
            self.v.len(),
            self.s.len(),
            self.e.len(),
        ]
    }
}

/// A suspended handler: where to resume, the live registers and the event payload.
#[derive(Clone, Debug, PartialEq)]
pub struct Continuation {
    handler: u32,
    pc: u32,
    delay: u16,
    regs: Regs,
    payload: Vec<Value>,
    /// Return addresses of the `call`s active when the handler yielded.
    stack: Vec<u32>,
}

impl Continuation {
    /// The handler it belongs to.
    pub fn handler(&self) -> usize {
        self.handler as usize
    }
    /// The pc it resumes at.
    pub fn pc(&self) -> u32 {
        self.pc
    }
    /// The delay that created it.
    pub fn delay(&self) -> usize {
        usize::from(self.delay)
    }
}

/// How an invocation ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Reached `ret`.
    Completed,
    /// Reached a `flow.delay`: call [`Vm::resume`] with `continuation` after `delay_seconds`
    /// (finite or +inf, never negative or NaN) of game time.
    Yielded {
        /// Game time to wait.
        delay_seconds: f64,
        /// What to resume.
        continuation: Continuation,
    },
    /// Aborted; the instance state keeps every change made before the error.
    Error(RuntimeError),
}

/// The interpreter. Reuses its register banks across invocations (no per-instruction
/// allocation; allocation per invocation only when a handler needs more registers).
#[derive(Debug)]
pub struct Vm {
    regs: Banks,
    empty: Arc<str>,
}

impl Default for Vm {
    fn default() -> Self {
        Vm::new()
    }
}

fn fail(m: &VerifiedModule, pc: u32, message: impl Into<String>) -> Outcome {
    fail_owned(m, pc, message.into())
}

/// Error paths stay out of the interpreter loop (smaller hot code, fewer spilled registers).
#[cold]
#[inline(never)]
fn fail_owned(m: &VerifiedModule, pc: u32, message: String) -> Outcome {
    Outcome::Error(RuntimeError {
        pc,
        node: m.node_at(pc).to_string(),
        message,
    })
}

#[cold]
#[inline(never)]
fn budget_exhausted(m: &VerifiedModule, pc: u32, budget: u64) -> Outcome {
    fail_owned(m, pc, format!("instruction budget of {budget} exhausted"))
}

const STATE_MISMATCH: &str = "instance state does not match the module";

/// Watches an invocation instruction by instruction. The interpreter is generic over it, so
/// the plain entry points ([`Vm::run_handler`], [`Vm::resume`]) run with [`NoRecord`], whose
/// empty, inlined hook compiles away: recording costs nothing unless asked for.
trait Recorder {
    fn at(&mut self, m: &VerifiedModule, pc: u32);
}

/// Records nothing.
struct NoRecord;

impl Recorder for NoRecord {
    #[inline(always)]
    fn at(&mut self, _: &VerifiedModule, _: u32) {}
}

/// The most node entries one recorded invocation keeps (later ones are counted only).
pub const MAX_RECORDED_NODES: usize = 4096;

/// Which graph nodes an invocation ran, in order, from the module's debug info: one entry
/// (an index into the module's node names) each time execution enters an instruction of a
/// different node than the one before. At most [`MAX_RECORDED_NODES`] entries are kept.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeTrace {
    /// Indices into `Module::nodes`, in the order the nodes ran.
    pub nodes: Vec<u32>,
    /// Entries not kept because the trace was full.
    pub dropped: u64,
}

impl NodeTrace {
    /// The node names, in order.
    pub fn names<'a>(&self, m: &'a VerifiedModule) -> Vec<&'a str> {
        let names = &m.module().nodes;
        self.nodes
            .iter()
            .filter_map(|i| names.get(*i as usize).map(String::as_str))
            .collect()
    }
}

// By reference: the interpreter takes its recorder by value, so the plain loop's `NoRecord`
// (zero-sized) occupies no register at all.
impl Recorder for &mut NodeTrace {
    #[inline]
    fn at(&mut self, m: &VerifiedModule, pc: u32) {
        let Some(&node) = m.module().debug.get(pc as usize) else {
            return;
        };
        if self.nodes.last() == Some(&node) {
            return;
        }
        if self.nodes.len() < MAX_RECORDED_NODES {
            self.nodes.push(node);
        } else {
            self.dropped = self.dropped.saturating_add(1);
        }
    }
}

impl Vm {
    /// A VM with empty register banks.
    pub fn new() -> Self {
        let empty: Arc<str> = Arc::from("");
        Vm {
            regs: Banks::new(&empty),
            empty,
        }
    }

    /// Runs handler `handler` from its entry with `event_payload` (whose types must equal the
    /// handler's parameters) for at most `budget` instructions.
    pub fn run_handler(
        &mut self,
        m: &VerifiedModule,
        st: &mut InstanceState,
        handler: usize,
        event_payload: &[Value],
        host: &mut dyn Host,
        budget: u64,
    ) -> Outcome {
        self.run_handler_with(m, st, handler, event_payload, host, budget, NoRecord)
    }

    /// [`Vm::run_handler`], recording into `trace` which nodes ran, in order (the debugger).
    #[allow(clippy::too_many_arguments)]
    pub fn run_handler_recorded(
        &mut self,
        m: &VerifiedModule,
        st: &mut InstanceState,
        handler: usize,
        event_payload: &[Value],
        host: &mut dyn Host,
        budget: u64,
        trace: &mut NodeTrace,
    ) -> Outcome {
        self.run_handler_with(m, st, handler, event_payload, host, budget, trace)
    }

    #[allow(clippy::too_many_arguments)]
    fn run_handler_with<R: Recorder>(
        &mut self,
        m: &VerifiedModule,
        st: &mut InstanceState,
        handler: usize,
        event_payload: &[Value],
        host: &mut dyn Host,
        budget: u64,
        rec: R,
    ) -> Outcome {
        let Some(h) = m.module().handlers.get(handler) else {
            return Outcome::Error(RuntimeError {
                pc: 0,
                node: String::new(),
                message: format!("no handler {handler}"),
            });
        };
        if h.params.len() != event_payload.len()
            || h.params
                .iter()
                .zip(event_payload)
                .any(|(t, v)| *t != v.ty())
        {
            return fail(
                m,
                h.start,
                "event payload does not match the handler's parameters",
            );
        }
        let c = h.regs.map(usize::from);
        self.regs.reset(c, &self.empty);
        exec(
            m,
            st,
            &mut self.regs,
            Frame {
                handler: handler as u32,
                pc: h.start,
                stack: Vec::new(),
            },
            event_payload,
            host,
            budget,
            rec,
        )
    }

    /// Resumes a continuation from [`Outcome::Yielded`] (clearing its delay's pending flag)
    /// for at most `budget` instructions. A continuation that does not fit `m` is an error.
    pub fn resume(
        &mut self,
        m: &VerifiedModule,
        st: &mut InstanceState,
        continuation: Continuation,
        host: &mut dyn Host,
        budget: u64,
    ) -> Outcome {
        self.resume_with(m, st, continuation, host, budget, NoRecord)
    }

    /// [`Vm::resume`], recording into `trace` which nodes ran, in order (the debugger).
    pub fn resume_recorded(
        &mut self,
        m: &VerifiedModule,
        st: &mut InstanceState,
        continuation: Continuation,
        host: &mut dyn Host,
        budget: u64,
        trace: &mut NodeTrace,
    ) -> Outcome {
        self.resume_with(m, st, continuation, host, budget, trace)
    }

    fn resume_with<R: Recorder>(
        &mut self,
        m: &VerifiedModule,
        st: &mut InstanceState,
        continuation: Continuation,
        host: &mut dyn Host,
        budget: u64,
        rec: R,
    ) -> Outcome {
        let k = continuation;
        let module = m.module();
        let bad = |msg: &str| {
            Outcome::Error(RuntimeError {
                pc: k.pc,
                node: m.node_at(k.pc).to_string(),
                message: format!("invalid continuation: {msg}"),
            })
        };
        let Some(h) = module.handlers.get(k.handler as usize) else {
            return bad("no such handler");
        };
        let end = h.start.saturating_add(h.len);
        if k.pc <= h.start || k.pc >= end {
            return bad("pc outside its handler");
        }
        match module.code.get(k.pc as usize - 1) {
            Some(Instr::Delay { delay, .. }) if delay.0 == k.delay => {}
            _ => return bad("pc does not follow its delay"),
        }
        if k.regs.counts() != h.regs.map(usize::from) {
            return bad("register counts differ from the handler's");
        }
        if h.params.len() != k.payload.len()
            || h.params.iter().zip(&k.payload).any(|(t, v)| *t != v.ty())
        {
            return bad("payload does not match the handler's parameters");
        }
        if k.stack.len() > MAX_CALL_DEPTH
            || k.stack.iter().any(|&ret| {
                ret <= h.start
                    || ret >= end
                    || !matches!(module.code.get(ret as usize - 1), Some(Instr::Call { .. }))
            })
        {
            return bad("return addresses do not follow calls in its handler");
        }
        st.cancel_delay(usize::from(k.delay));
        self.regs.restore(k.regs);
        exec(
            m,
            st,
            &mut self.regs,
            Frame {
                handler: k.handler,
                pc: k.pc,
                stack: k.stack,
            },
            &k.payload,
            host,
            budget,
            rec,
        )
    }
}

macro_rules! var_get {
    ($m:expr, $pc:expr, $store:expr, $idx:expr, $variant:ident) => {
        match $store.get($idx.0 as usize) {
            Some(Value::$variant(x)) => x.clone(),
            _ => return fail($m, $pc, STATE_MISMATCH),
        }
    };
}

macro_rules! var_set {
    ($m:expr, $pc:expr, $store:expr, $idx:expr, $variant:ident, $val:expr) => {
        match $store.get_mut($idx.0 as usize) {
            Some(Value::$variant(x)) => *x = $val,
            _ => return fail($m, $pc, STATE_MISMATCH),
        }
    };
}

macro_rules! param {
    ($m:expr, $pc:expr, $payload:expr, $idx:expr, $variant:ident) => {
        match $payload.get($idx.0 as usize) {
            Some(Value::$variant(x)) => x.clone(),
            _ => {
                return fail(
                    $m,
                    $pc,
                    "event payload does not match the handler's parameters",
                )
            }
        }
    };
}

/// Register `r` of `bank`, or `x` when `r` is `dst` (the value just loaded into it but not yet
/// read back from memory): the operands of a fused variable update.
#[inline(always)]
fn reg_or<T: Copy, M>(bank: &[T; BANK], r: Reg<M>, dst: Reg<M>, x: T) -> T {
    if r == dst { x } else { bank[ix(r.0)] }
}

/// The deepest nesting of `call`s one invocation may reach (exec chains under
/// `flow.sequence`, `flow.for`, `flow.branch`, …); deeper is a runtime error.
pub const MAX_CALL_DEPTH: usize = 1024;

/// Where execution stands: handler, pc and the return addresses of active calls.
struct Frame {
    handler: u32,
    pc: u32,
    stack: Vec<u32>,
}

#[allow(clippy::too_many_arguments)]
fn exec<R: Recorder>(
    m: &VerifiedModule,
    st: &mut InstanceState,
    r: &mut Banks,
    frame: Frame,
    payload: &[Value],
    host: &mut dyn Host,
    budget: u64,
    mut rec: R,
) -> Outcome {
    let code = &m.module().code[..];
    let mut left = budget;
    let counts = m
        .module()
        .handlers
        .get(frame.handler as usize)
        .map(|h| h.regs.map(usize::from))
        .unwrap_or_default();
    let Frame {
        handler,
        mut pc,
        mut stack,
    } = frame;
    let Banks { n, s: rs, e: re } = r;
    let n: &mut Nums = n;
    loop {
        let Some(ins) = code.get(pc as usize) else {
            return fail(m, pc, "pc outside the code");
        };
        if left == 0 {
            return budget_exhausted(m, pc, budget);
        }
        left -= 1;
        let here = pc;
        rec.at(m, here);
        pc += 1;
        macro_rules! konst {
            ($c:expr, $variant:ident) => {
                match m.const_value($c.0) {
                    Some(Value::$variant(x)) => x.clone(),
                    _ => return fail(m, here, "constant type mismatch"),
                }
            };
        }
        match *ins {
            Instr::Ret {} => match stack.pop() {
                Some(ret) => {
                    pc = ret;
                }
                None => return Outcome::Completed,
            },
            Instr::Call { target } => {
                if stack.len() >= MAX_CALL_DEPTH {
                    return fail(
                        m,
                        here,
                        format!("exec nesting deeper than {MAX_CALL_DEPTH} calls"),
                    );
                }
                stack.push(pc);
                pc = target.0;
            }
            Instr::Jmp { target } => {
                pc = target.0;
            }
            Instr::ForNext {
                counter,
                last,
                target,
            } => {
                let c = n.i[ix(counter.0)];
                if c < n.i[ix(last.0)] {
                    n.i[ix(counter.0)] = c + 1;
                    pc = target.0;
                }
            }
            Instr::JmpIf { cond, target } => {
                if n.b[ix(cond.0)] {
                    pc = target.0;
                }
            }
            Instr::JmpIfNot { cond, target } => {
                if !n.b[ix(cond.0)] {
                    pc = target.0;
                }
            }
            Instr::Delay {
                delay,
                seconds,
                busy,
            } => {
                let Some(p) = st.pending.get_mut(usize::from(delay.0)) else {
                    return fail(m, here, STATE_MISMATCH);
                };
                if *p {
                    pc = busy.0;
                    continue;
                }
                *p = true;
                let s = n.f[ix(seconds.0)];
                let delay_seconds = if s.is_nan() || s < 0.0 { 0.0 } else { s };
                return Outcome::Yielded {
                    delay_seconds,
                    continuation: Continuation {
                        handler,
                        pc,
                        delay: delay.0,
                        regs: r.save(counts),
                        payload: payload.to_vec(),
                        stack,
                    },
                };
            }

            Instr::MovB { dst, src } => n.b[ix(dst.0)] = n.b[ix(src.0)],
            Instr::MovI { dst, src } => n.i[ix(dst.0)] = n.i[ix(src.0)],
            Instr::MovF { dst, src } => n.f[ix(dst.0)] = n.f[ix(src.0)],
            Instr::LdcB { dst, c } => n.b[ix(dst.0)] = konst!(c, Bool),
            Instr::LdcI { dst, c } => n.i[ix(dst.0)] = konst!(c, Int),
            Instr::LdcF { dst, c } => n.f[ix(dst.0)] = konst!(c, Float),
            Instr::ParamB { dst, p } => n.b[ix(dst.0)] = param!(m, here, payload, p, Bool),
            Instr::ParamI { dst, p } => n.i[ix(dst.0)] = param!(m, here, payload, p, Int),
            Instr::ParamF { dst, p } => n.f[ix(dst.0)] = param!(m, here, payload, p, Float),
            Instr::VarGetB { dst, var } => n.b[ix(dst.0)] = var_get!(m, here, st.vars, var, Bool),
            Instr::VarGetI { dst, var } => {
                let x = var_get!(m, here, st.vars, var, Int);
                n.i[ix(dst.0)] = x;
                if m.fused(here) && left >= 2 {
                    // A variable update (see `verify::fusable`): the value stays in a machine
                    // register; each of the three instructions' effects and costs remains.
                    let pick = |n: &Nums, r| reg_or(&n.i, r, dst, x);
                    let (d, y) = match code.get(here as usize + 1) {
                        Some(&Instr::IntAdd { dst: d, a, b }) => {
                            (d, pick(n, a).wrapping_add(pick(n, b)))
                        }
                        Some(&Instr::IntSub { dst: d, a, b }) => {
                            (d, pick(n, a).wrapping_sub(pick(n, b)))
                        }
                        _ => continue,
                    };
                    n.i[ix(d.0)] = y;
                    var_set!(m, here + 2, st.vars, var, Int, y);
                    left -= 2;
                    pc = here + 3;
                }
            }
            Instr::VarGetF { dst, var } => {
                let x = var_get!(m, here, st.vars, var, Float);
                n.f[ix(dst.0)] = x;
                if m.fused(here) && left >= 2 {
                    let pick = |n: &Nums, r| reg_or(&n.f, r, dst, x);
                    let (d, y) = match code.get(here as usize + 1) {
                        Some(&Instr::FloatAdd { dst: d, a, b }) => (d, pick(n, a) + pick(n, b)),
                        Some(&Instr::FloatSub { dst: d, a, b }) => (d, pick(n, a) - pick(n, b)),
                        Some(&Instr::FloatMul { dst: d, a, b }) => (d, pick(n, a) * pick(n, b)),
                        _ => continue,
                    };
                    n.f[ix(d.0)] = y;
                    var_set!(m, here + 2, st.vars, var, Float, y);
                    left -= 2;
                    pc = here + 3;
                }
            }
            Instr::VarSetB { var, src } => {
                var_set!(m, here, st.vars, var, Bool, n.b[ix(src.0)])
            }
            Instr::VarSetI { var, src } => {
                var_set!(m, here, st.vars, var, Int, n.i[ix(src.0)])
            }
            Instr::VarSetF { var, src } => {
                var_set!(m, here, st.vars, var, Float, n.f[ix(src.0)])
            }
            Instr::SlotGetB { dst, slot } => {
                n.b[ix(dst.0)] = var_get!(m, here, st.slots, slot, Bool)
            }
            Instr::SlotGetI { dst, slot } => {
                n.i[ix(dst.0)] = var_get!(m, here, st.slots, slot, Int)
            }
            Instr::SlotGetF { dst, slot } => {
                n.f[ix(dst.0)] = var_get!(m, here, st.slots, slot, Float)
            }
            Instr::SlotSetB { slot, src } => {
                var_set!(m, here, st.slots, slot, Bool, n.b[ix(src.0)])
            }
            Instr::SlotSetI { slot, src } => {
                var_set!(m, here, st.slots, slot, Int, n.i[ix(src.0)])
            }
            Instr::SlotSetF { slot, src } => {
                var_set!(m, here, st.slots, slot, Float, n.f[ix(src.0)])
            }
            Instr::IntAdd { dst, a, b } => n.i[ix(dst.0)] = n.i[ix(a.0)].wrapping_add(n.i[ix(b.0)]),
            Instr::IntSub { dst, a, b } => n.i[ix(dst.0)] = n.i[ix(a.0)].wrapping_sub(n.i[ix(b.0)]),
            Instr::IntMul { dst, a, b } => n.i[ix(dst.0)] = n.i[ix(a.0)].wrapping_mul(n.i[ix(b.0)]),
            Instr::IntDiv { dst, a, b } => {
                let d = n.i[ix(b.0)];
                if d == 0 {
                    return fail(m, here, "integer division by zero");
                }
                n.i[ix(dst.0)] = n.i[ix(a.0)].wrapping_div(d);
            }
            Instr::IntRem { dst, a, b } => {
                let d = n.i[ix(b.0)];
                if d == 0 {
                    return fail(m, here, "integer remainder by zero");
                }
                n.i[ix(dst.0)] = n.i[ix(a.0)].wrapping_rem(d);
            }
            Instr::IntMin { dst, a, b } => n.i[ix(dst.0)] = n.i[ix(a.0)].min(n.i[ix(b.0)]),
            Instr::IntMax { dst, a, b } => n.i[ix(dst.0)] = n.i[ix(a.0)].max(n.i[ix(b.0)]),
            Instr::IntNeg { dst, a } => n.i[ix(dst.0)] = n.i[ix(a.0)].wrapping_neg(),
            Instr::IntAbs { dst, a } => n.i[ix(dst.0)] = n.i[ix(a.0)].wrapping_abs(),
            Instr::IntEq { dst, a, b } => n.b[ix(dst.0)] = n.i[ix(a.0)] == n.i[ix(b.0)],
            Instr::IntNe { dst, a, b } => n.b[ix(dst.0)] = n.i[ix(a.0)] != n.i[ix(b.0)],
            Instr::IntLt { dst, a, b } => n.b[ix(dst.0)] = n.i[ix(a.0)] < n.i[ix(b.0)],
            Instr::IntLe { dst, a, b } => n.b[ix(dst.0)] = n.i[ix(a.0)] <= n.i[ix(b.0)],
            Instr::IntGt { dst, a, b } => n.b[ix(dst.0)] = n.i[ix(a.0)] > n.i[ix(b.0)],
            Instr::IntGe { dst, a, b } => n.b[ix(dst.0)] = n.i[ix(a.0)] >= n.i[ix(b.0)],
            Instr::IntToFloat { dst, a } => n.f[ix(dst.0)] = n.i[ix(a.0)] as f64,
            Instr::FloatAdd { dst, a, b } => n.f[ix(dst.0)] = n.f[ix(a.0)] + n.f[ix(b.0)],
            Instr::FloatSub { dst, a, b } => n.f[ix(dst.0)] = n.f[ix(a.0)] - n.f[ix(b.0)],
            Instr::FloatMul { dst, a, b } => n.f[ix(dst.0)] = n.f[ix(a.0)] * n.f[ix(b.0)],
            Instr::FloatDiv { dst, a, b } => n.f[ix(dst.0)] = n.f[ix(a.0)] / n.f[ix(b.0)],
            Instr::FloatRem { dst, a, b } => n.f[ix(dst.0)] = n.f[ix(a.0)] % n.f[ix(b.0)],
            Instr::FloatMin { dst, a, b } => n.f[ix(dst.0)] = n.f[ix(a.0)].min(n.f[ix(b.0)]),
            Instr::FloatMax { dst, a, b } => n.f[ix(dst.0)] = n.f[ix(a.0)].max(n.f[ix(b.0)]),
            Instr::FloatNeg { dst, a } => n.f[ix(dst.0)] = -n.f[ix(a.0)],
            Instr::FloatAbs { dst, a } => n.f[ix(dst.0)] = n.f[ix(a.0)].abs(),
            Instr::FloatSqrt { dst, a } => n.f[ix(dst.0)] = n.f[ix(a.0)].sqrt(),
            Instr::FloatFloor { dst, a } => n.f[ix(dst.0)] = n.f[ix(a.0)].floor(),
            Instr::FloatCeil { dst, a } => n.f[ix(dst.0)] = n.f[ix(a.0)].ceil(),
            Instr::FloatLt { dst, a, b } => n.b[ix(dst.0)] = n.f[ix(a.0)] < n.f[ix(b.0)],
            Instr::FloatLe { dst, a, b } => n.b[ix(dst.0)] = n.f[ix(a.0)] <= n.f[ix(b.0)],
            Instr::FloatGt { dst, a, b } => n.b[ix(dst.0)] = n.f[ix(a.0)] > n.f[ix(b.0)],
            Instr::FloatGe { dst, a, b } => n.b[ix(dst.0)] = n.f[ix(a.0)] >= n.f[ix(b.0)],
            Instr::FloatToInt { dst, a } => n.i[ix(dst.0)] = n.f[ix(a.0)] as i64,
            Instr::BoolAnd { dst, a, b } => n.b[ix(dst.0)] = n.b[ix(a.0)] & n.b[ix(b.0)],
            Instr::BoolOr { dst, a, b } => n.b[ix(dst.0)] = n.b[ix(a.0)] | n.b[ix(b.0)],
            Instr::BoolXor { dst, a, b } => n.b[ix(dst.0)] = n.b[ix(a.0)] ^ n.b[ix(b.0)],
            Instr::BoolNot { dst, a } => n.b[ix(dst.0)] = !n.b[ix(a.0)],
            _ => {
                if let Err(o) = rare(m, st, n, rs, re, payload, host, here, ins) {
                    return o;
                }
            }
        }
    }
}

/// The instructions no hot loop needs (strings, vectors, host calls, wide moves), kept out of
/// [`exec`]'s dispatch loop so the loop keeps its state in registers.
#[inline(never)]
// The error is the very `Outcome` the interpreter returns (built on the cold path only).
#[allow(clippy::too_many_arguments, clippy::result_large_err)]
fn rare(
    m: &VerifiedModule,
    st: &mut InstanceState,
    n: &mut Nums,
    rs: &mut [Arc<str>; BANK],
    re: &mut [Option<u64>; BANK],
    payload: &[Value],
    host: &mut dyn Host,
    here: u32,
    ins: &Instr,
) -> Result<(), Outcome> {
    let consts = &m.module().consts[..];
    macro_rules! var_get {
        ($m:expr, $pc:expr, $store:expr, $idx:expr, $variant:ident) => {
            match $store.get($idx.0 as usize) {
                Some(Value::$variant(x)) => x.clone(),
                _ => return Err(fail($m, $pc, STATE_MISMATCH)),
            }
        };
    }
    macro_rules! var_set {
        ($m:expr, $pc:expr, $store:expr, $idx:expr, $variant:ident, $val:expr) => {
            match $store.get_mut($idx.0 as usize) {
                Some(Value::$variant(x)) => *x = $val,
                _ => return Err(fail($m, $pc, STATE_MISMATCH)),
            }
        };
    }
    macro_rules! param {
        ($m:expr, $pc:expr, $payload:expr, $idx:expr, $variant:ident) => {
            match $payload.get($idx.0 as usize) {
                Some(Value::$variant(x)) => x.clone(),
                _ => {
                    return Err(fail(
                        $m,
                        $pc,
                        "event payload does not match the handler's parameters",
                    ))
                }
            }
        };
    }
    macro_rules! konst {
        ($c:expr, $variant:ident) => {
            match m.const_value($c.0) {
                Some(Value::$variant(x)) => x.clone(),
                _ => return Err(fail(m, here, "constant type mismatch")),
            }
        };
    }
    match *ins {
        Instr::MovV { dst, src } => n.v[ix(dst.0)] = n.v[ix(src.0)],
        Instr::MovS { dst, src } => rs[ix(dst.0)] = rs[ix(src.0)].clone(),
        Instr::MovE { dst, src } => re[ix(dst.0)] = re[ix(src.0)],
        Instr::LdcV { dst, c } => n.v[ix(dst.0)] = konst!(c, Vec3),
        Instr::LdcS { dst, c } => rs[ix(dst.0)] = konst!(c, Str),
        Instr::LdcE { dst, c } => {
            re[ix(dst.0)] = match consts.get(c.0 as usize) {
                Some(Const::Entity(EntityConst::None)) => None,
                Some(Const::Entity(EntityConst::Owner)) => Some(host.self_entity()),
                _ => return Err(fail(m, here, "constant type mismatch")),
            }
        }

        Instr::ParamV { dst, p } => n.v[ix(dst.0)] = param!(m, here, payload, p, Vec3),
        Instr::ParamS { dst, p } => rs[ix(dst.0)] = param!(m, here, payload, p, Str),
        Instr::ParamE { dst, p } => re[ix(dst.0)] = param!(m, here, payload, p, Entity),

        Instr::VarGetV { dst, var } => n.v[ix(dst.0)] = var_get!(m, here, st.vars, var, Vec3),
        Instr::VarGetS { dst, var } => rs[ix(dst.0)] = var_get!(m, here, st.vars, var, Str),
        Instr::VarGetE { dst, var } => re[ix(dst.0)] = var_get!(m, here, st.vars, var, Entity),
        Instr::VarSetV { var, src } => {
            var_set!(m, here, st.vars, var, Vec3, n.v[ix(src.0)])
        }
        Instr::VarSetS { var, src } => {
            var_set!(m, here, st.vars, var, Str, rs[ix(src.0)].clone())
        }
        Instr::VarSetE { var, src } => {
            var_set!(m, here, st.vars, var, Entity, re[ix(src.0)])
        }

        Instr::SlotGetV { dst, slot } => n.v[ix(dst.0)] = var_get!(m, here, st.slots, slot, Vec3),
        Instr::SlotGetS { dst, slot } => rs[ix(dst.0)] = var_get!(m, here, st.slots, slot, Str),
        Instr::SlotGetE { dst, slot } => re[ix(dst.0)] = var_get!(m, here, st.slots, slot, Entity),
        Instr::SlotSetV { slot, src } => {
            var_set!(m, here, st.slots, slot, Vec3, n.v[ix(src.0)])
        }
        Instr::SlotSetS { slot, src } => {
            var_set!(m, here, st.slots, slot, Str, rs[ix(src.0)].clone())
        }
        Instr::SlotSetE { slot, src } => {
            var_set!(m, here, st.slots, slot, Entity, re[ix(src.0)])
        }

        Instr::IntClamp {
            dst,
            value,
            min,
            max,
        } => n.i[ix(dst.0)] = n.i[ix(value.0)].max(n.i[ix(min.0)]).min(n.i[ix(max.0)]),
        Instr::IntToString { dst, a } => rs[ix(dst.0)] = Arc::from(n.i[ix(a.0)].to_string()),

        Instr::FloatPow { dst, a, b } => n.f[ix(dst.0)] = n.f[ix(a.0)].powf(n.f[ix(b.0)]),
        Instr::FloatSin { dst, a } => n.f[ix(dst.0)] = n.f[ix(a.0)].sin(),
        Instr::FloatCos { dst, a } => n.f[ix(dst.0)] = n.f[ix(a.0)].cos(),
        Instr::FloatTan { dst, a } => n.f[ix(dst.0)] = n.f[ix(a.0)].tan(),
        Instr::FloatClamp {
            dst,
            value,
            min,
            max,
        } => n.f[ix(dst.0)] = n.f[ix(value.0)].max(n.f[ix(min.0)]).min(n.f[ix(max.0)]),
        Instr::FloatLerp { dst, a, b, t } => {
            let (a, b, t) = (n.f[ix(a.0)], n.f[ix(b.0)], n.f[ix(t.0)]);
            n.f[ix(dst.0)] = a + (b - a) * t;
        }
        Instr::FloatToString { dst, a } => rs[ix(dst.0)] = Arc::from(format!("{:?}", n.f[ix(a.0)])),

        Instr::Vec3Make { dst, x, y, z } => {
            n.v[ix(dst.0)] = [
                n.f[ix(x.0)] as f32,
                n.f[ix(y.0)] as f32,
                n.f[ix(z.0)] as f32,
            ]
        }
        Instr::Vec3Break { x, y, z, v } => {
            let [a, b, c] = n.v[ix(v.0)];
            n.f[ix(x.0)] = f64::from(a);
            n.f[ix(y.0)] = f64::from(b);
            n.f[ix(z.0)] = f64::from(c);
        }
        Instr::Vec3Add { dst, a, b } => {
            let (a, b) = (n.v[ix(a.0)], n.v[ix(b.0)]);
            n.v[ix(dst.0)] = [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
        }
        Instr::Vec3Sub { dst, a, b } => {
            let (a, b) = (n.v[ix(a.0)], n.v[ix(b.0)]);
            n.v[ix(dst.0)] = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
        }
        Instr::Vec3Scale { dst, v, s } => {
            let (v, s) = (n.v[ix(v.0)], n.f[ix(s.0)]);
            n.v[ix(dst.0)] = v.map(|c| (f64::from(c) * s) as f32);
        }
        Instr::Vec3Length { dst, v } => {
            let v = n.v[ix(v.0)].map(f64::from);
            n.f[ix(dst.0)] = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        }
        Instr::Vec3Dot { dst, a, b } => {
            let (a, b) = (n.v[ix(a.0)].map(f64::from), n.v[ix(b.0)].map(f64::from));
            n.f[ix(dst.0)] = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
        }

        Instr::StrConcat { dst, a, b } => {
            let (a, b) = (&rs[ix(a.0)], &rs[ix(b.0)]);
            if a.len().saturating_add(b.len()) > MAX_STRING_LEN {
                return Err(fail(
                    m,
                    here,
                    format!("string longer than {MAX_STRING_LEN} bytes"),
                ));
            }
            let mut s = String::with_capacity(a.len() + b.len());
            s.push_str(a);
            s.push_str(b);
            rs[ix(dst.0)] = Arc::from(s);
        }
        Instr::StrEq { dst, a, b } => n.b[ix(dst.0)] = rs[ix(a.0)] == rs[ix(b.0)],

        Instr::EntitySelf { dst } => re[ix(dst.0)] = Some(host.self_entity()),
        Instr::Log { message } => host.log(&rs[ix(message.0)]),
        Instr::AnimGetParam { dst, name } => n.f[ix(dst.0)] = host.get_param(&rs[ix(name.0)]),
        Instr::AnimCurrentState { dst } => rs[ix(dst.0)] = host.current_state(),
        Instr::AnimCurve { dst, name } => n.f[ix(dst.0)] = host.curve(&rs[ix(name.0)]),
        Instr::EventSend { event, target } => {
            let Some(Value::Str(ev)) = m.const_value(event.0) else {
                return Err(fail(m, here, "constant type mismatch"));
            };
            host.send(ev, re[ix(target.0)]);
        }
        // Animation commands: every instruction named like a command's node
        // (`anim::command::COMMANDS`) hands its argument registers to the host as one
        // `AnimCommand`, so a new command needs no arm here.
        other => {
            if let Some(spec) = command::by_node(other.mnemonic()) {
                host_command(spec, &other, n, rs, re, host)
                    .ok_or_else(|| fail(m, here, "operands do not match the animation command"))?;
            }
        }
    }
    Ok(())
}

/// Most operands a command instruction has (a result and three arguments).
const MAX_COMMAND_OPERANDS: usize = 4;

/// Runs a command instruction: its operands are the result registers (a `bool`: accepted)
/// then the argument registers, in the command's argument order. `None` when they do not
/// match the command's table row (the tables' agreement is tested).
fn host_command(
    spec: &CommandSpec,
    ins: &Instr,
    n: &mut Nums,
    rs: &[Arc<str>; BANK],
    re: &[Option<u64>; BANK],
    host: &mut dyn Host,
) -> Option<()> {
    let mut ops = [(OperandKind::Delay, 0u32); MAX_COMMAND_OPERANDS];
    let mut count = 0;
    let mut overflow = false;
    ins.for_each_operand(&mut |_, kind, index| match ops.get_mut(count) {
        Some(o) => {
            *o = (kind, index);
            count += 1;
        }
        None => overflow = true,
    });
    let results = count
        .checked_sub(spec.args.len())
        .filter(|&r| !overflow && r <= 1)?;
    let mut args: [Value; MAX_COMMAND_OPERANDS] = std::array::from_fn(|_| Value::Bool(false));
    for (a, &(kind, i)) in args.iter_mut().zip(&ops[results..count]) {
        let r = ix(u16::try_from(i).ok()?);
        *a = match kind {
            OperandKind::Reg(Type::Str) => Value::Str(rs[r].clone()),
            OperandKind::Reg(Type::Float) => Value::Float(n.f[r]),
            OperandKind::Reg(Type::Int) => Value::Int(n.i[r]),
            OperandKind::Reg(Type::Bool) => Value::Bool(n.b[r]),
            OperandKind::Reg(Type::Vec3) => Value::Vec3(n.v[r]),
            OperandKind::Reg(Type::Entity) => Value::Entity(re[r]),
            _ => return None,
        };
    }
    let c = AnimCommand::from_values(spec.kind, &args[..count - results])?;
    let accepted = host.command(c);
    if results == 1 {
        match ops[0] {
            (OperandKind::Reg(Type::Bool), i) => n.b[ix(u16::try_from(i).ok()?)] = accepted,
            _ => return None,
        }
    }
    Some(())
}
