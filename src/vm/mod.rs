//! The bytecode VM: runs handlers of a [`VerifiedModule`] against one instance's state under an
//! instruction budget, yielding continuations at `flow.delay`. No I/O; the world is reached only
//! through [`Host`].
#![forbid(unsafe_code)]

#[macro_use]
mod dispatch;
mod exec;
mod game;
mod loops;
mod rare;
mod regs;

use std::fmt;
use std::sync::Arc;

use crate::anim::command::AnimCommand;
use crate::bytecode::isa::Instr;
use crate::bytecode::types::Value;
use crate::bytecode::verify::VerifiedModule;

pub use exec::MAX_CALL_DEPTH;
use exec::{Frame, exec};
use regs::{Banks, Regs};

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
    /// `event.send`: deliver `event` (`custom::NAME`) to `target` at the next flush, carrying
    /// `payload`: the event's declared fields, in declaration order (empty without any).
    fn send(&mut self, event: &str, target: Option<u64>, payload: &[Value]);
    /// A game node call (`game.call`, `bytecode::game`) by graph node `node`: `import` is its kind and
    /// signature, `index` its place in the module's import table, `args` its inputs in
    /// declaration order (an unlinked entity input is the calling entity). Push its outputs, in
    /// declaration order and of the declared types, onto `outputs`; an `Err` aborts the
    /// invocation with that message (an `error` record).
    /// Without a binding (this default): the declared output defaults.
    fn game(
        &mut self,
        node: &str,
        index: usize,
        import: &crate::bytecode::Import,
        args: &[Value],
        outputs: &mut Vec<Value>,
    ) -> Result<(), String> {
        let _ = (node, index, args);
        outputs.extend(import.outputs.iter().map(|(_, _, d)| d.to_value(None)));
        Ok(())
    }
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
    fn send(&mut self, _: &str, _: Option<u64>, _: &[Value]) {}
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
        let module = m.module();
        let Some(&node) = module.debug.get(pc as usize) else {
            return;
        };
        // A superinstruction stands for the nodes whose instructions it replaced, first.
        if !module.fused.is_empty() {
            let first = module.fused.partition_point(|&(at, _)| at < pc);
            for &(_, n) in module.fused[first..]
                .iter()
                .take_while(|&&(at, _)| at == pc)
            {
                self.push(n);
            }
        }
        self.push(node);
    }
}

impl NodeTrace {
    fn push(&mut self, node: u32) {
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
        // A handler that writes every register before reading it (the verifier's definite
        // assignment; what the compiler emits) sees no earlier invocation's values.
        if m.needs_reset(handler) {
            self.regs.reset(h.regs.map(usize::from), &self.empty);
        } else {
            self.regs.send.clear();
            self.regs.game.clear();
        }
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
