//! Differential tests: the compiled bytecode on the VM against the tree-walking reference
//! evaluator (`tests/support/reference.rs`) — on every `tests/fixtures/graphs/ok` and `vm`
//! fixture, on hand-written edge cases and on random well-typed graphs. After every invocation both sides must agree on the
//! outcome (completed / suspended for the same time / aborted by the same error at the same
//! node), the variables, the stored exec-node outputs and the host calls.

mod support;

use proptest::prelude::*;
use sinew::anim::AnimCommand;
use sinew::bytecode::{DEFAULT_BUDGET, Value, VerifiedModule};
use sinew::catalog::scan::LiveCatalog;
use sinew::catalog::{Catalog, FileEntry};
use sinew::compile::{self, ir};
use sinew::crossing::Edge;
use sinew::diag::SourceFile;
use sinew::types::Type;
use sinew::vm::{self, Host, InstanceState, Vm};
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::{Arc, OnceLock};
use support::reference::{self as reference, ErrorKind, Reference};

const OWNER: u64 = 42;
const OTHER: u64 = 7;

/// The fixture catalog plus the game nodes of `tests/fixtures/game/assets/game.nodes.ron`.
fn catalog() -> &'static Catalog {
    static C: OnceLock<Catalog> = OnceLock::new();
    C.get_or_init(|| {
        let live = LiveCatalog::scan(Path::new("tests/fixtures/catalog"), None, None)
            .expect("fixture catalog");
        let game = "tests/fixtures/game/assets/game.nodes.ron";
        let entry = FileEntry::from_bytes(game, &std::fs::read(game).unwrap());
        Catalog::from_entries(live.catalog().files().cloned().chain([entry]))
    })
}

// ---------------------------------------------------------------------------------------------
// A recording, stateful host (one per side, so both see the same world).

/// One host call. Commands keep their order; reads between two commands are compared as a set.
#[derive(Clone, Debug, PartialEq, PartialOrd)]
enum Call {
    Log(String),
    SetState(String, bool),
    SetParam(String, u64),
    PlayOnLayer(String, String),
    Play(String, u64),
    StopLayer(String),
    SetLayerWeight(String, u64),
    SetSpeed(u64),
    /// Event, target and the payload (its values' debug text: `Value` has no order).
    Send(String, Option<u64>, String),
    GetParam(String),
    CurrentState,
    Curve(String),
    /// A game node call: kind and the arguments' debug text.
    Game(String, String),
}

impl Call {
    fn is_read(&self) -> bool {
        matches!(
            self,
            Call::GetParam(_) | Call::CurrentState | Call::Curve(_)
        )
    }
}

#[derive(Debug, Default)]
struct RecHost {
    calls: Vec<Call>,
    /// Every `send`'s payload, in order (delivered back to the graph by `fire`).
    sent: Vec<Vec<Value>>,
    params: Vec<(String, f64)>,
    state: String,
}

/// Float bits for comparison, every NaN the same (NaN payloads and signs are unspecified).
fn bits(f: f64) -> u64 {
    if f.is_nan() {
        f64::NAN.to_bits()
    } else {
        f.to_bits()
    }
}

const STATES: &[&str] = &["idle", "move", "run"];

impl Host for RecHost {
    fn self_entity(&mut self) -> u64 {
        OWNER
    }
    fn log(&mut self, message: &str) {
        self.calls.push(Call::Log(message.into()));
    }
    fn command(&mut self, c: AnimCommand) -> bool {
        match c {
            AnimCommand::SetState(state) => {
                let ok = STATES.contains(&&*state);
                if ok {
                    self.state = state.to_string();
                }
                self.calls.push(Call::SetState(state.to_string(), ok));
                ok
            }
            AnimCommand::SetParam(name, value) => {
                self.calls
                    .push(Call::SetParam(name.to_string(), bits(value)));
                self.params.retain(|(n, _)| **n != *name);
                self.params.push((name.to_string(), value));
                true
            }
            AnimCommand::PlayOnLayer(layer, clip) => {
                self.calls
                    .push(Call::PlayOnLayer(layer.to_string(), clip.to_string()));
                true
            }
            AnimCommand::Play(clip, at) => {
                self.calls.push(Call::Play(clip.to_string(), bits(at)));
                true
            }
            AnimCommand::StopLayer(layer) => {
                self.calls.push(Call::StopLayer(layer.to_string()));
                true
            }
            AnimCommand::SetLayerWeight(layer, weight) => {
                self.calls
                    .push(Call::SetLayerWeight(layer.to_string(), bits(weight)));
                true
            }
            AnimCommand::SetSpeed(speed) => {
                self.calls.push(Call::SetSpeed(bits(speed)));
                true
            }
            other => panic!("graphs cannot issue {other:?}"),
        }
    }
    fn get_param(&mut self, name: &str) -> f64 {
        self.calls.push(Call::GetParam(name.into()));
        self.params
            .iter()
            .find(|(n, _)| n == name)
            .map_or(0.0, |p| p.1)
    }
    fn current_state(&mut self) -> Arc<str> {
        self.calls.push(Call::CurrentState);
        Arc::from(self.state.as_str())
    }
    fn curve(&mut self, name: &str) -> f64 {
        self.calls.push(Call::Curve(name.into()));
        name.len() as f64 * 0.25
    }
    fn send(&mut self, event: &str, target: Option<u64>, payload: &[Value]) {
        self.calls
            .push(Call::Send(event.into(), target, format!("{payload:?}")));
        self.sent.push(payload.to_vec());
    }
    /// Outputs that depend on the arguments and on how many calls came before; a negative
    /// float argument fails the call.
    fn game(
        &mut self,
        _node: &str,
        _index: usize,
        import: &sinew::bytecode::Import,
        args: &[Value],
        outputs: &mut Vec<Value>,
    ) -> Result<(), String> {
        self.calls
            .push(Call::Game(import.kind.clone(), format!("{args:?}")));
        if args
            .iter()
            .any(|a| matches!(a, Value::Float(x) if *x < 0.0))
        {
            return Err("game node failed: negative input".into());
        }
        // Independent of call order: what the arguments say.
        let k = format!("{args:?}").len();
        outputs.extend(import.outputs.iter().map(|o| sample(o.1, k)));
        Ok(())
    }
}

/// Commands in order; the reads between two commands sorted (their order is unspecified).
fn normalize(calls: &[Call]) -> Vec<Call> {
    let mut out = Vec::with_capacity(calls.len());
    let mut reads: Vec<Call> = Vec::new();
    for c in calls {
        if c.is_read() {
            reads.push(c.clone());
        } else {
            reads.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
            out.append(&mut reads);
            out.push(c.clone());
        }
    }
    reads.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    out.append(&mut reads);
    out
}

// ---------------------------------------------------------------------------------------------
// Values.

/// Equality with floats by bits, except that every NaN equals every NaN.
fn same(a: &Value, b: &Value) -> bool {
    fn f64s(a: f64, b: f64) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }
    fn f32s(a: f32, b: f32) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => f64s(*x, *y),
        (Value::Vec3(x), Value::Vec3(y)) => x.iter().zip(y).all(|(p, q)| f32s(*p, *q)),
        _ => a == b,
    }
}

/// A payload value of type `t`, varied by `k`.
fn sample(t: Type, k: usize) -> Value {
    match t {
        Type::Bool => Value::Bool(k.is_multiple_of(2)),
        Type::Int => Value::Int([3, 0, -1, i64::MAX, 12, i64::MIN][k % 6]),
        Type::Float => Value::Float([0.25, -1.5, 0.0, 1e300, 0.016, 3.0][k % 6]),
        Type::Vec3 => Value::Vec3([[0.0, 1.0, 0.0], [1.5, -2.0, 3.25], [1e30, 0.0, -0.0]][k % 3]),
        Type::Str => Value::Str(Arc::from(["grass", "", "stone"][k % 3])),
        Type::Entity => Value::Entity([Some(OWNER), Some(OTHER), None][k % 3]),
    }
}

// ---------------------------------------------------------------------------------------------
// The harness.

/// One script step.
#[derive(Clone, Debug)]
enum Step {
    /// Fire an event by identity (payload sampled from its pin types, varied per firing). A
    /// window's identity alternates begin and end (an end `completed` every other time).
    Fire(String),
    /// Advance game time: resume due delays, then fire `tick` with this `dt`.
    Tick(f64),
}

/// What the run covered.
#[derive(Debug, Default)]
struct Stats {
    invocations: usize,
    errors: usize,
    yields: usize,
    /// Stopped early: a budget error (state after it is not comparable).
    stopped: bool,
    /// The opcodes of the compiled module.
    opcodes: BTreeSet<u16>,
}

struct Harness<'a> {
    m: &'a VerifiedModule,
    g: &'a ir::Graph,
    reference: Reference<'a>,
    vm: Vm,
    vst: InstanceState,
    rst: reference::State,
    vhost: RecHost,
    rhost: RecHost,
    time: f64,
    seq: usize,
    pending: Vec<(f64, usize, vm::Continuation, reference::Continuation)>,
    fired: usize,
    stats: Stats,
    budget: u64,
    log: Vec<String>,
    /// Window identities currently open (the next firing is their end).
    open: BTreeSet<String>,
    /// Window ends fired so far (every other one is `completed`).
    ends: usize,
}

enum Inv {
    Fire(String, Option<Edge>, Vec<Value>),
    Resume(vm::Continuation, reference::Continuation),
}

impl<'a> Harness<'a> {
    fn new(m: &'a VerifiedModule, g: &'a ir::Graph, budget: u64) -> Self {
        Harness {
            m,
            g,
            reference: Reference::new(g),
            vm: Vm::new(),
            vst: InstanceState::new(m, OWNER),
            rst: reference::State::new(g, OWNER),
            vhost: RecHost::default(),
            rhost: RecHost::default(),
            time: 0.0,
            seq: 0,
            pending: Vec::new(),
            fired: 0,
            stats: Stats::default(),
            budget,
            log: Vec::new(),
            open: BTreeSet::new(),
            ends: 0,
        }
    }

    fn run(&mut self, script: &[Step]) -> Result<(), String> {
        for s in script {
            match s {
                Step::Fire(id) => self.fire(id, None)?,
                Step::Tick(dt) => {
                    self.time += dt;
                    loop {
                        let due = self
                            .pending
                            .iter()
                            .enumerate()
                            .filter(|(_, p)| p.0 <= self.time)
                            .min_by(|a, b| a.1.0.total_cmp(&b.1.0).then(a.1.1.cmp(&b.1.1)))
                            .map(|(i, _)| i);
                        let Some(i) = due else { break };
                        let (_, _, vk, rk) = self.pending.remove(i);
                        self.invoke(Inv::Resume(vk, rk))?;
                        if self.stats.stopped {
                            return Ok(());
                        }
                    }
                    if self.m.handler_index("tick").is_some() {
                        self.fire("tick", Some(vec![Value::Float(*dt)]))?;
                    }
                }
            }
            if self.stats.stopped {
                return Ok(());
            }
        }
        Ok(())
    }

    /// Fires an event, then delivers the custom events it sent to this entity (bounded).
    fn fire(&mut self, id: &str, payload: Option<Vec<Value>>) -> Result<(), String> {
        let mut queue = vec![(id.to_string(), payload)];
        let mut delivered = 0;
        while let Some((id, payload)) = queue.pop() {
            let Some(ev) = self.reference.event_node(&id) else {
                if self.m.handler_index(&id).is_some() {
                    return Err(format!(
                        "VM has a handler for `{id}`, the IR has no event node"
                    ));
                }
                continue;
            };
            let window = matches!(
                &self.g.nodes[ev as usize].op,
                ir::Op::Event(ir::EventKey::Window { .. })
            );
            let edge = window.then(|| {
                if self.open.remove(&id) {
                    Edge::End
                } else {
                    self.open.insert(id.clone());
                    Edge::Begin
                }
            });
            let payload = payload.unwrap_or_else(|| {
                self.fired += 1;
                let mut p: Vec<Value> = self
                    .reference
                    .payload_types(ev)
                    .into_iter()
                    .enumerate()
                    .map(|(i, t)| sample(t, self.fired + i))
                    .collect();
                // The sender (the first pin; payload fields follow it).
                if id.starts_with("custom::") && !p.is_empty() {
                    p[0] = Value::Entity(Some(if self.fired.is_multiple_of(2) {
                        OWNER
                    } else {
                        OTHER
                    }));
                }
                // `completed` is false on a begin and on every other end (a cut).
                let completed = self.g.nodes[ev as usize]
                    .outputs
                    .iter()
                    .filter(|p| p.ty.data().is_some())
                    .position(|p| p.name == "completed");
                if let (true, Some(i)) = (window, completed) {
                    let end = edge == Some(Edge::End);
                    self.ends += usize::from(end);
                    p[i] = Value::Bool(end && self.ends % 2 == 1);
                }
                p
            });
            let before = self.vhost.calls.len();
            let sent_before = self.vhost.sent.len();
            self.invoke(Inv::Fire(id.clone(), edge, payload))?;
            if self.stats.stopped {
                return Ok(());
            }
            let sends = self.vhost.calls[before..]
                .iter()
                .filter(|c| matches!(c, Call::Send(..)));
            for (c, values) in sends.zip(&self.vhost.sent[sent_before..]) {
                if let Call::Send(e, Some(OWNER), _) = c
                    && delivered < 4
                {
                    delivered += 1;
                    let mut p = vec![Value::Entity(Some(OWNER))];
                    p.extend(values.iter().cloned());
                    queue.insert(0, (e.clone(), Some(p)));
                }
            }
        }
        Ok(())
    }

    /// A recorded node trace names only the graph's nodes, never the same one twice in a row.
    fn check_trace(&self, t: &vm::NodeTrace) -> Result<(), String> {
        let names = t.names(self.m);
        if names.len() != t.nodes.len() {
            return Err(format!(
                "trace indexes outside the node table: {:?}",
                t.nodes
            ));
        }
        if let Some(n) = names
            .iter()
            .find(|n| !self.g.nodes.iter().any(|g| g.name == **n))
        {
            return Err(format!("trace names `{n}`, not a node of the graph"));
        }
        if t.nodes.windows(2).any(|w| w[0] == w[1]) {
            return Err(format!("trace repeats a node in a row: {names:?}"));
        }
        Ok(())
    }

    fn invoke(&mut self, inv: Inv) -> Result<(), String> {
        let (vcalls, rcalls) = (self.vhost.calls.len(), self.rhost.calls.len());
        let what;
        let (vo, (ro, steps)) = match inv {
            Inv::Fire(id, edge, payload) => {
                what = format!("event `{id}` {edge:?} {payload:?}");
                let Some(h) = self.m.edge_handler_index(&id, edge) else {
                    return Err(format!("no VM handler for `{id}` {edge:?}"));
                };
                let ev = self.reference.event_node(&id).ok_or("no event node")?;
                // Every other invocation runs through the recording entry point: recording
                // which nodes ran must never change what runs.
                let vo = if self.stats.invocations % 2 == 1 {
                    let mut t = vm::NodeTrace::default();
                    let o = self.vm.run_handler_recorded(
                        self.m,
                        &mut self.vst,
                        h,
                        &payload,
                        &mut self.vhost,
                        self.budget,
                        &mut t,
                    );
                    self.check_trace(&t)?;
                    o
                } else {
                    self.vm.run_handler(
                        self.m,
                        &mut self.vst,
                        h,
                        &payload,
                        &mut self.vhost,
                        self.budget,
                    )
                };
                let ro = self.reference.run_edge(
                    &mut self.rst,
                    ev,
                    edge,
                    &payload,
                    &mut self.rhost,
                    self.budget,
                );
                (vo, ro)
            }
            Inv::Resume(vk, rk) => {
                what = format!("resume of `{}`", self.g.nodes[rk.delay as usize].name);
                let vo = if self.stats.invocations % 2 == 1 {
                    let mut t = vm::NodeTrace::default();
                    let o = self.vm.resume_recorded(
                        self.m,
                        &mut self.vst,
                        vk,
                        &mut self.vhost,
                        self.budget,
                        &mut t,
                    );
                    self.check_trace(&t)?;
                    o
                } else {
                    self.vm
                        .resume(self.m, &mut self.vst, vk, &mut self.vhost, self.budget)
                };
                let ro = self
                    .reference
                    .resume(&mut self.rst, rk, &mut self.rhost, self.budget);
                (vo, ro)
            }
        };
        self.stats.invocations += 1;
        self.log.push(format!("{what}: vm {vo:?} / ref {ro:?}"));
        let ctx = |msg: String| format!("{msg}\nat {what}");
        let mut aborted = false;
        match (vo, ro) {
            (vm::Outcome::Completed, reference::Outcome::Completed) => {}
            (
                vm::Outcome::Yielded {
                    delay_seconds,
                    continuation,
                },
                reference::Outcome::Suspended {
                    seconds,
                    continuation: rk,
                },
            ) => {
                if !same(&Value::Float(delay_seconds), &Value::Float(seconds)) {
                    return Err(ctx(format!("delay {delay_seconds} vs reference {seconds}")));
                }
                let vnode = &self.m.module().nodes
                    [self.m.module().delays[continuation.delay()].node as usize];
                if *vnode != self.g.nodes[rk.delay as usize].name {
                    return Err(ctx(format!(
                        "delay node `{vnode}` vs reference `{}`",
                        self.g.nodes[rk.delay as usize].name
                    )));
                }
                self.stats.yields += 1;
                self.seq += 1;
                self.pending
                    .push((self.time + delay_seconds, self.seq, continuation, rk));
            }
            (vm::Outcome::Error(e), reference::Outcome::Error(r)) => {
                self.stats.errors += 1;
                let vk = error_kind(&e.message);
                let alternative = vk
                    .as_ref()
                    .is_some_and(|k| r.alternatives.contains(&(k.clone(), e.node.clone())));
                if vk != Some(r.kind.clone()) && !alternative {
                    return Err(ctx(format!("VM error {e} vs reference {r:?}")));
                }
                if r.kind == ErrorKind::Budget {
                    self.stats.stopped = true;
                    return Ok(());
                }
                let vk = vk.unwrap_or(ErrorKind::Budget);
                if e.node != r.node && !r.alternatives.contains(&(vk, e.node.clone())) {
                    return Err(ctx(format!(
                        "VM error at `{}` vs reference at `{}` ({e})",
                        e.node, r.node
                    )));
                }
                aborted = true;
            }
            (vm::Outcome::Error(e), ro)
                if error_kind(&e.message) == Some(ErrorKind::Budget)
                    && steps.saturating_mul(64) > self.budget =>
            {
                // Between one and ~64 instructions per node: inconclusive, stop comparing.
                let _ = ro;
                self.stats.stopped = true;
                return Ok(());
            }
            (vo, reference::Outcome::Error(r))
                if r.kind == ErrorKind::Budget && steps.saturating_mul(64) > self.budget =>
            {
                // The other way round: a loop run as one instruction per iteration
                // (`for.var.add.i`) costs the VM a few times fewer than the reference's steps.
                let _ = vo;
                self.stats.stopped = true;
                return Ok(());
            }
            (vo, ro) => {
                return Err(ctx(format!(
                    "outcomes differ: VM {vo:?} vs reference {ro:?} ({steps} steps)"
                )));
            }
        }
        // Variables.
        for (i, (a, b)) in self.vst.vars().iter().zip(&self.rst.vars).enumerate() {
            if !same(a, b) {
                return Err(ctx(format!(
                    "variable `{}`: VM {a:?} vs reference {b:?}",
                    self.g.vars[i].name
                )));
            }
        }
        // Stored exec-node outputs (`node.pin` slots).
        for (slot, decl) in self.m.module().slots.iter().enumerate() {
            let Some((node, pin)) = decl.name.split_once('.') else {
                continue;
            };
            let Some(n) = self.g.nodes.iter().position(|x| x.name == node) else {
                return Err(format!("slot `{}` names no node", decl.name));
            };
            let Some(p) = self.g.nodes[n].output(pin) else {
                return Err(format!("slot `{}` names no output", decl.name));
            };
            let (Some(a), Some(Some(b))) = (self.vst.slots().get(slot), self.rst.outputs[n].get(p))
            else {
                return Err(format!("slot `{}` missing on a side", decl.name));
            };
            if !same(a, b) {
                return Err(ctx(format!(
                    "output `{}`: VM {a:?} vs reference {b:?}",
                    decl.name
                )));
            }
        }
        // Host calls.
        // After an abort inside an exec node's inputs the reads made before it depend on the
        // (unspecified) evaluation order: compare commands only.
        let keep = |c: &&Call| !(aborted && c.is_read());
        let (v, r) = (
            normalize(
                &self.vhost.calls[vcalls..]
                    .iter()
                    .filter(keep)
                    .cloned()
                    .collect::<Vec<_>>(),
            ),
            normalize(
                &self.rhost.calls[rcalls..]
                    .iter()
                    .filter(keep)
                    .cloned()
                    .collect::<Vec<_>>(),
            ),
        );
        if v != r {
            return Err(ctx(format!("host calls differ:\n VM  {v:?}\n ref {r:?}")));
        }
        Ok(())
    }
}

fn error_kind(message: &str) -> Option<ErrorKind> {
    Some(if message.contains("division by zero") {
        ErrorKind::DivByZero
    } else if message.contains("remainder by zero") {
        ErrorKind::RemByZero
    } else if message.contains("string longer") {
        ErrorKind::StringTooLong
    } else if message.contains("nesting deeper") {
        ErrorKind::Nesting
    } else if message.contains("budget") {
        ErrorKind::Budget
    } else if message.contains("game node failed") {
        ErrorKind::Game
    } else {
        return None;
    })
}

/// Compiles `text` (which must compile without errors), runs `script` on the VM and the
/// reference and returns the stats, or the first disagreement.
fn check(name: &str, text: &str, script: &[Step], budget: u64) -> Result<Stats, String> {
    let src = SourceFile::new(name, text);
    let c = compile::compile(&src, catalog());
    let Some(m) = &c.module else {
        let errors: Vec<String> = c
            .diagnostics()
            .iter()
            .filter(|d| d.is_error())
            .map(|d| {
                format!(
                    "{} {}:{}: {}",
                    d.code, d.start.line, d.start.column, d.message
                )
            })
            .collect();
        return Err(format!("{name} does not compile: {errors:#?}"));
    };
    let g = &c.checked.graph;
    // Handler parameter types equal the event nodes' data outputs.
    for h in &m.module().handlers {
        let r = Reference::new(g);
        let ev = r
            .event_node(&h.event)
            .ok_or_else(|| format!("handler `{}` has no event node", h.event))?;
        let want: Vec<_> = r.payload_types(ev).into_iter().collect();
        if want != h.params {
            return Err(format!(
                "handler `{}` params {:?} vs {want:?}",
                h.event, h.params
            ));
        }
    }
    let mut h = Harness::new(m, g, budget);
    h.stats.opcodes = m.module().code.iter().map(|i| i.opcode()).collect();
    h.run(script).map_err(|e| {
        let tail: Vec<&String> = h.log.iter().rev().take(6).collect();
        format!("{name}: {e}\nlast invocations (newest first):\n{tail:#?}")
    })?;
    Ok(h.stats)
}

/// A script exercising every handler of a graph: begin_play, ticks of several sizes (resuming
/// delays), every custom and notify event twice, every window twice open and closed.
fn script_for(text: &str) -> Vec<Step> {
    let src = SourceFile::new("script", text);
    let c = compile::check_source(&src, catalog());
    let mut others = BTreeSet::new();
    for n in &c.graph.nodes {
        if let ir::Op::Event(k) = &n.op
            && !matches!(k, ir::EventKey::BeginPlay | ir::EventKey::Tick)
        {
            // A window fires begin and end in every round (ends alternate completed / cut).
            let times = 1 + usize::from(matches!(k, ir::EventKey::Window { .. }));
            others.insert((k.identity(), times));
        }
    }
    let mut s = vec![Step::Fire("begin_play".into()), Step::Tick(0.016)];
    for round in 0..2 {
        for (id, times) in &others {
            for _ in 0..*times {
                s.push(Step::Fire(id.clone()));
            }
        }
        s.push(Step::Tick(if round == 0 { 0.3 } else { 0.25 }));
        s.push(Step::Tick(1.0));
    }
    s.push(Step::Fire("begin_play".into()));
    s.push(Step::Tick(0.5));
    s.push(Step::Tick(f64::INFINITY));
    s
}

fn assert_agree(name: &str, text: &str) -> Stats {
    match check(name, text, &script_for(text), DEFAULT_BUDGET) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    }
}

/// The `ok` fixtures that run (the others are syntax showcases) and the VM's own
/// (`tests/fixtures/graphs/vm`: the benchmark graphs, compare-and-branch shapes) and the game
/// node graphs (`tests/fixtures/game/ok`), with their
/// names.
fn ok_fixtures() -> Vec<(String, String)> {
    let mut paths: Vec<_> = [
        "tests/fixtures/graphs/ok",
        "tests/fixtures/graphs/vm",
        "tests/fixtures/game/ok",
    ]
    .iter()
    .flat_map(|d| std::fs::read_dir(d).expect(d))
    .map(|e| e.expect("entry").path())
    .filter(|p| p.extension().is_some_and(|e| e == "bpg"))
    .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| {
            let file = p.file_name()?.to_string_lossy().to_string();
            let skip = file == "all_forms.bpg" || file == "messy.bpg";
            (!skip).then(|| (file, std::fs::read_to_string(&p).expect("read fixture")))
        })
        .collect()
}

/// Every superinstruction the compiler emits (opcodes from 0xE0: literal operands, compare
/// and branch, variable updates) is in graphs the VM and the reference agree on: the `ok`
/// fixtures and the random graphs of `random_graphs_cover_the_node_library`.
#[test]
fn every_superinstruction_is_differentially_checked() {
    let mut seen = BTreeSet::new();
    for (file, text) in ok_fixtures() {
        let stats = assert_agree(&file, &text);
        assert!(stats.invocations >= 2, "{file}: {stats:?}");
        seen.extend(stats.opcodes);
    }
    for text in random_texts(300) {
        let s = check("random.bpg", &text, &random_script(), DEFAULT_BUDGET)
            .unwrap_or_else(|e| panic!("{e}\n--- graph\n{text}"));
        seen.extend(s.opcodes);
    }
    let missing: Vec<&str> = sinew::bytecode::OPCODES
        .iter()
        .filter(|o| o.opcode >= 0xE0 && !seen.contains(&o.opcode))
        .map(|o| o.mnemonic)
        .collect();
    assert!(missing.is_empty(), "never emitted and checked: {missing:?}");
}

#[test]
fn ok_fixtures_agree() {
    let mut n = 0;
    for (file, text) in ok_fixtures() {
        let stats = assert_agree(&file, &text);
        assert!(stats.invocations >= 2, "{file}: {stats:?}");
        n += 1;
    }
    assert!(n >= 4, "only {n} fixtures ran");
}

// ---------------------------------------------------------------------------------------------
// Hand-written edge cases.

#[test]
fn game_node_calls_agree() {
    // The game fixtures (exec and pure game nodes, several outputs, a node called twice) and
    // a graph whose game call fails on a negative argument (an error at the same node).
    let mut errors = 0;
    let dir = "tests/fixtures/game/ok";
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    for p in paths {
        let text = std::fs::read_to_string(&p).unwrap();
        let s = assert_agree(&p.to_string_lossy(), &text);
        errors += s.errors;
    }
    let text = "graph failing\nnode t = event tick\nnode neg = float.neg\nnode hp = game.health\nnode s = game.play_sound { sound = \"x\" }\nnode lv = game.stats.level\nnode log = debug.log\nt.then -> s.exec\nt.dt -> neg.a\nneg.out -> s.volume\ns.then -> log.exec\nlv.title -> log.message\n";
    errors += assert_agree("failing.bpg", text).errors;
    assert!(errors > 0, "no game call failed");
}

#[test]
fn div_and_rem_by_zero_abort_at_the_same_node() {
    let text = "graph div0\nvar n: int = 0\nvar log: string = \"\"\n\
         node start = event begin_play\nnode tick = event tick\nnode r = event custom::r\n\
         node set0 = var.set log { value = \"before\" }\n\
         node g = var.get n\nnode d = int.div { a = 10 }\nnode m = int.rem { a = 10 }\n\
         node inc = int.add { b = 1 }\nnode setn = var.set n\nnode set1 = var.set n\n\
         node set2 = var.set n\n\
         start.then -> set0.exec\nset0.then -> set1.exec\ng.value -> d.b\nd.out -> set1.value\n\
         r.then -> set2.exec\ng.value -> m.b\nm.out -> set2.value\n\
         tick.then -> setn.exec\ng.value -> inc.a\ninc.out -> setn.value\n";
    let script = [
        Step::Fire("custom::r".into()),
        Step::Fire("begin_play".into()),
        Step::Tick(0.1),
        Step::Fire("begin_play".into()),
        Step::Fire("custom::r".into()),
    ];
    let s = check("div0", text, &script, DEFAULT_BUDGET).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((s.errors, s.invocations), (2, 5), "{s:?}");
    // A literal zero divisor: the constant-operand forms (`int.div.k`, `int.rem.k`) abort too.
    let text = "graph div0k\nvar n: int = 5\n\
         node start = event begin_play\nnode r = event custom::r\n\
         node g = var.get n\nnode d = int.div { b = 0 }\nnode m = int.rem { b = 0 }\n\
         node set1 = var.set n\nnode set2 = var.set n\n\
         start.then -> set1.exec\ng.value -> d.a\nd.out -> set1.value\n\
         r.then -> set2.exec\ng.value -> m.a\nm.out -> set2.value\n";
    let s = check("div0k", text, &script, DEFAULT_BUDGET).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((s.errors, s.invocations), (4, 4), "{s:?}");
    for k in ["int.div.k", "int.rem.k"] {
        let op = sinew::bytecode::Instr::opcode_of(k).expect(k);
        assert!(s.opcodes.contains(&op), "{k} not emitted: {:?}", s.opcodes);
    }
}

/// Chains entered from several places in one handler stay real calls (a sequence output and
/// its tail both reach `shared`; a branch's two sides merge), while chains that are a site's own
/// are inlined; both must behave exactly like the reference.
#[test]
fn shared_and_inlined_chains_agree() {
    let s = assert_agree(
        "shared",
        "graph shared\nvar n: int = 0\nvar log: string = \"\"\n\
         node start = event begin_play\nnode seq = flow.sequence { count = 3 }\n\
         node g = var.get n\nnode inc = int.add { b = 1 }\nnode shared = var.set n\n\
         node tail = var.set n { value = 100 }\nnode br = flow.branch\nnode gt = int.gt { b = 2 }\n\
         node left = debug.log { message = \"left\" }\nnode right = debug.log { message = \"right\" }\n\
         node join = var.set log { value = \"joined\" }\n\
         start.then -> seq.exec\nseq.then_0 -> shared.exec\nseq.then_1 -> br.exec\n\
         seq.then_2 -> shared.exec\ng.value -> inc.a\ninc.out -> shared.value\n\
         shared.then -> tail.exec\ng.value -> gt.a\ngt.out -> br.condition\n\
         br.true -> left.exec\nbr.false -> right.exec\nleft.then -> join.exec\nright.then -> join.exec\n\
         node ping = event custom::ping\nping.then -> shared.exec\n",
    );
    assert_eq!(s.errors, 0, "{s:?}");
}

/// A loop index read inside the body (from the counter register), after the loop (from its
/// slot) and by another handler; nested loops read both indexes; a loop whose body holds a
/// delay keeps reading the slot.
#[test]
fn loop_indexes_read_inside_and_outside_agree() {
    let s = assert_agree(
        "indexes",
        "graph indexes\nvar sum: int = 0\nvar last: int = 0\nvar other: int = 0\n\
         node start = event begin_play\nnode outer = flow.for { first = 1, last = 3 }\n\
         node inner = flow.for { first = 0, last = 2 }\nnode gs = var.get sum\n\
         node mul = int.mul\nnode add = int.add\nnode set = var.set sum\n\
         node after = var.set last\n\
         start.then -> outer.exec\nouter.body -> inner.exec\ninner.body -> set.exec\n\
         outer.index -> mul.a\ninner.index -> mul.b\ngs.value -> add.a\nmul.out -> add.b\n\
         add.out -> set.value\nouter.completed -> after.exec\ninner.index -> after.value\n\
         node ping = event custom::ping\nnode seto = var.set other\nping.then -> seto.exec\n\
         outer.index -> seto.value\n\
         node tick = event tick\nnode dl = flow.for { first = 5, last = 6 }\n\
         node w = flow.delay { seconds = 0.3 }\nnode di = var.set other\n\
         tick.then -> dl.exec\ndl.body -> w.exec\nw.then -> di.exec\ndl.index -> di.value\n",
    );
    assert_eq!(s.errors, 0, "{s:?}");
}

#[test]
fn delays_suspend_and_resume_the_whole_invocation() {
    let s = assert_agree(
        "delays",
        "graph delays\nvar n: int = 0\n\
         node start = event begin_play\nnode seq = flow.sequence { count = 3 }\n\
         node a = debug.log { message = \"a\" }\nnode w = flow.delay { seconds = 0.2 }\n\
         node b = debug.log { message = \"b\" }\nnode c = debug.log { message = \"c\" }\n\
         node tick = event tick\nnode w2 = flow.delay\nnode dt = expr \"-x\"\n\
         node d = debug.log { message = \"after w2\" }\n\
         start.then -> seq.exec\nseq.then_0 -> a.exec\nseq.then_1 -> w.exec\nw.then -> b.exec\n\
         seq.then_2 -> c.exec\ntick.then -> w2.exec\ntick.dt -> dt.x\ndt.out -> w2.seconds\n\
         w2.then -> d.exec\n",
    );
    assert!(s.yields >= 3, "{s:?}");
}

/// A delay inside a `flow.for` body, with the loop re-entered (by another handler) while the
/// first invocation is suspended: graph.md says the body runs last−first+1 times.
#[test]
fn for_loop_state_survives_reentry_during_a_delay() {
    let text = "graph reenter\nvar n: int = 0\n\
         node start = event begin_play\nnode ping = event custom::go\n\
         node loop = flow.for { first = 1, last = 3 }\nnode w = flow.delay { seconds = 1 }\n\
         node g = var.get n\nnode inc = int.add { b = 1 }\nnode set = var.set n\n\
         node idx = string.from_int\nnode log = debug.log\n\
         start.then -> loop.exec\nping.then -> loop.exec\nloop.body -> set.exec\n\
         g.value -> inc.a\ninc.out -> set.value\nset.then -> log.exec\nloop.index -> idx.a\n\
         idx.out -> log.message\nlog.then -> w.exec\n";
    let script = [
        Step::Fire("begin_play".into()),
        Step::Tick(0.5),
        Step::Fire("custom::go".into()),
        Step::Tick(0.6),
        Step::Tick(1.0),
        Step::Tick(1.0),
        Step::Tick(1.0),
    ];
    if let Err(e) = check("reenter", text, &script, DEFAULT_BUDGET) {
        panic!("{e}");
    }
}

#[test]
fn budget_exhaustion_is_reported_by_both() {
    let text = "graph spin\nvar n: int = 0\nnode start = event begin_play\n\
         node outer = flow.for { first = 0, last = 100000 }\n\
         node inner = flow.for { first = 0, last = 100000 }\nnode set = var.set n\n\
         node i = int.add\n\
         start.then -> outer.exec\nouter.body -> inner.exec\ninner.body -> set.exec\n\
         inner.index -> i.a\nouter.index -> i.b\ni.out -> set.value\n";
    let s = check(
        "spin",
        text,
        &[Step::Fire("begin_play".into())],
        DEFAULT_BUDGET,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(s.stopped && s.errors == 1, "{s:?}");
}

/// Nested `flow.sequence` nodes up to the nesting limit: both sides run every level (the VM
/// lays nested chains out inline or as calls; the reference walks them) and agree.
#[test]
fn sequence_nesting_at_the_limit_agrees() {
    let mut t = String::from(
        "graph deep\nvar n: int = 0\nnode start = event begin_play\nnode g = var.get n\n\
         node inc = int.add { b = 1 }\nnode end = var.set n\ng.value -> inc.a\ninc.out -> end.value\n",
    );
    let n = sinew::compile::check::MAX_NESTING;
    for i in 0..n {
        t.push_str(&format!("node s{i} = flow.sequence\n"));
    }
    t.push_str("start.then -> s0.exec\n");
    for i in 0..n - 1 {
        t.push_str(&format!("s{i}.then_0 -> s{}.exec\n", i + 1));
    }
    t.push_str(&format!("s{}.then_0 -> end.exec\n", n - 1));
    let s = assert_agree("deep", &t);
    assert_eq!(s.errors, 0, "{s:?}");
}

#[test]
fn string_growth_hits_the_same_limit() {
    let text = "graph grow\nvar s: string = \"ab\"\nnode start = event begin_play\n\
         node loop = flow.for { first = 0, last = 30 }\nnode g = var.get s\n\
         node cat = string.concat\nnode set = var.set s\n\
         start.then -> loop.exec\nloop.body -> set.exec\ng.value -> cat.a\ng.value -> cat.b\n\
         cat.out -> set.value\n";
    let s = assert_agree("grow", text);
    assert!(s.errors >= 1, "{s:?}");
}

#[test]
fn conversions_nan_and_extremes_agree() {
    assert_agree(
        "conv",
        "graph conv\nvar f: float = 0\nvar i: int = -9223372036854775808\nvar s: string = \"\"\n\
         var v: vec3 = (1e30, -0.0, 3)\n\
         node start = event begin_play\nnode tick = event tick\n\
         node gi = var.get i\nnode gf = var.get f\nnode gv = var.get v\n\
         node nan = expr \"0/0 + x\"\nnode toi = float.to_int\nnode abs = int.abs\n\
         node neg = int.neg\nnode d = int.div { b = -1 }\nnode r = int.rem { b = -1 }\n\
         node sf = string.from_float\nnode si = string.from_int\nnode cat = string.concat\n\
         node len = vec3.length\nnode sc = vec3.scale { s = 1e10 }\nnode mn = float.min { b = 1 }\n\
         node setf = var.set f\nnode seti = var.set i\nnode sets = var.set s\nnode setv = var.set v\n\
         node seti2 = var.set i\nnode setf2 = var.set f\n\
         start.then -> setf.exec\ngi.value -> nan.x\nnan.out -> setf.value\n\
         setf.then -> seti.exec\ngf.value -> toi.a\ntoi.out -> seti.value\n\
         seti.then -> sets.exec\ngf.value -> sf.a\nsf.out -> cat.a\ngi.value -> si.a\nsi.out -> cat.b\n\
         cat.out -> sets.value\nsets.then -> setv.exec\ngv.value -> sc.v\nsc.out -> setv.value\n\
         tick.then -> seti2.exec\ngi.value -> abs.a\nabs.out -> neg.a\nneg.out -> d.a\n\
         d.out -> r.a\nr.out -> seti2.value\nseti2.then -> setf2.exec\ngv.value -> len.v\n\
         len.out -> mn.a\nmn.out -> setf2.value\n",
    );
}

/// A host-reading pure node feeding several inputs of one exec node is evaluated once for it,
/// and again for the next exec node (graph.md: once per use by an exec node).
#[test]
fn pure_reads_are_evaluated_once_per_exec_node() {
    let text = "graph reads\nnode start = event begin_play\n\
         node c = anim.curve { name = \"fatigue\" }\nnode add = float.add\n\
         node p1 = anim.set_param { name = \"a\" }\nnode p2 = anim.set_param { name = \"b\" }\n\
         node w = anim.set_layer_weight { layer = \"upper\" }\n\
         start.then -> p1.exec\nc.value -> add.a\nc.value -> add.b\nadd.out -> p1.value\n\
         p1.then -> p2.exec\nc.value -> p2.value\np2.then -> w.exec\nadd.out -> w.weight\n";
    let src = SourceFile::new("reads", text);
    let c = compile::compile(&src, catalog());
    let m = c.module.as_ref().expect("compiles");
    let mut h = Harness::new(m, &c.checked.graph, DEFAULT_BUDGET);
    h.run(&[Step::Fire("begin_play".into())])
        .unwrap_or_else(|e| panic!("{e}"));
    let curves = h
        .vhost
        .calls
        .iter()
        .filter(|c| matches!(c, Call::Curve(_)))
        .count();
    assert_eq!(curves, 3, "{:?}", h.vhost.calls);
}

#[test]
fn gates_flip_flops_and_do_once_agree() {
    let s = assert_agree(
        "flow",
        "graph flow\nvar n: int = 0\nnode start = event begin_play\nnode tick = event tick\n\
         node ping = event custom::ping\nnode gate = flow.gate\nnode ff = flow.flip_flop\n\
         node once = flow.do_once\nnode la = debug.log { message = \"a\" }\n\
         node lb = debug.log { message = \"b\" }\nnode lo = debug.log { message = \"once\" }\n\
         node seq = flow.sequence { count = 4 }\nnode send = event.send custom::ping\n\
         node g = var.get n\nnode inc = int.add { b = 1 }\nnode set = var.set n\n\
         node br = flow.branch\nnode odd = int.rem { b = 2 }\nnode isodd = int.eq { b = 1 }\n\
         start.then -> gate.close\ntick.then -> seq.exec\nseq.then_0 -> gate.enter\n\
         gate.exit -> ff.exec\nff.a -> la.exec\nff.b -> lb.exec\nseq.then_1 -> set.exec\n\
         g.value -> inc.a\ninc.out -> set.value\nseq.then_2 -> br.exec\ng.value -> odd.a\n\
         odd.out -> isodd.a\nisodd.out -> br.condition\nbr.true -> gate.toggle\n\
         br.false -> once.reset\nseq.then_3 -> send.exec\nping.then -> once.exec\n\
         once.then -> lo.exec\n",
    );
    assert!(s.invocations > 10, "{s:?}");
}

/// A `flow.for` whose body updates one variable (`s = s + x` or `s = x + s`), with random
/// bounds, start value and right operand: the loop index (a one-instruction body, run as
/// `for.var.add.i`), another variable, the index times a literal (`var.add.i` + `for.next`)
/// or the index read again after the loop (kept in a slot: not fused). Bounds up to the
/// extremes (wrapping sums), 20 000 iterations (within both sides' budgets: the reference
/// counts four steps per iteration) and past the budget.
fn update_loop(first: i64, last: i64, init: i64, operand: u8, var_first: bool) -> String {
    let (x, extra) = match operand % 4 {
        0 => ("loop.index", String::new()),
        1 => ("gt.value", "node gt = var.get t\n".to_string()),
        2 => (
            "mul.out",
            "node mul = int.mul { b = 3 }\nloop.index -> mul.a\n".to_string(),
        ),
        _ => (
            "loop.index",
            "node after = var.set t\nloop.completed -> after.exec\nloop.index -> after.value\n"
                .to_string(),
        ),
    };
    let (a, b) = if var_first { ("a", "b") } else { ("b", "a") };
    format!(
        "graph update_loop\nvar s: int = {init}\nvar t: int = -5\n\
         node start = event begin_play\nnode loop = flow.for {{ first = {first}, last = {last} }}\n\
         node g = var.get s\nnode add = int.add\nnode set = var.set s\n{extra}\
         start.then -> loop.exec\nloop.body -> set.exec\ng.value -> add.{a}\n\
         {x} -> add.{b}\nadd.out -> set.value\n"
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    #[test]
    fn random_update_loops_agree(
        first in prop_oneof![-50i64..50, Just(i64::MAX - 3), Just(i64::MIN), Just(0)],
        span in prop_oneof![0i64..40, Just(-1), Just(20_000), Just(2_000_000)],
        init in prop_oneof![any::<i64>(), -10i64..10],
        operand in 0u8..4,
        var_first in any::<bool>(),
    ) {
        let last = first.saturating_add(span);
        let text = update_loop(first, last, init, operand, var_first);
        let script = [Step::Fire("begin_play".into()), Step::Fire("begin_play".into())];
        let stats = check("update_loop.bpg", &text, &script, DEFAULT_BUDGET)
            .map_err(|e| TestCaseError::fail(format!("{e}\n--- graph\n{text}")))?;
        let fused = stats.opcodes.contains(&0x109);
        prop_assert_eq!(fused, operand % 4 == 0, "for.var.add.i emitted: {:?}", stats.opcodes);
    }
}

// ---------------------------------------------------------------------------------------------
// Random well-typed graphs.

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 128,
        max_shrink_iters: 2000,
        .. ProptestConfig::default()
    })]

    #[test]
    fn random_graphs_agree(choices in proptest::collection::vec(any::<u16>(), 0..400)) {
        random_case(&support::graphgen::graph(&choices))?;
    }

    /// Delays inside loop bodies too (re-entry exposes the per-instance loop counter).
    #[test]
    fn random_graphs_with_delays_in_loops_agree(choices in proptest::collection::vec(any::<u16>(), 0..400)) {
        random_case(&support::graphgen::graph_with(&choices, true))?;
    }
}

fn random_case(text: &str) -> Result<(), TestCaseError> {
    {
        let script = [
            Step::Fire("begin_play".into()),
            Step::Tick(0.016),
            Step::Fire("custom::ping".into()),
            Step::Tick(0.5),
            Step::Tick(0.25),
            Step::Fire("custom::ping".into()),
            Step::Tick(1.0),
            Step::Tick(2.0),
        ];
        if let Err(e) = check("random.bpg", text, &script, DEFAULT_BUDGET) {
            prop_assert!(false, "{e}\n--- graph\n{text}");
        }
    }
    Ok(())
}

/// The generator reaches what the differential test is meant to cover: 300 graphs from a fixed
/// pseudo-random choice stream all compile and agree, and together they contain every exec
/// kind, yield, abort, and run a non-trivial number of invocations.
/// `count` random graphs from a fixed pseudo-random choice stream.
fn random_texts(count: usize) -> Vec<String> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..count)
        .map(|_| {
            let choices: Vec<u16> = (0..400)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x >> 16) as u16
                })
                .collect();
            support::graphgen::graph(&choices)
        })
        .collect()
}

/// The script each of [`random_texts`] runs.
fn random_script() -> [Step; 5] {
    [
        Step::Fire("begin_play".into()),
        Step::Tick(0.016),
        Step::Fire("custom::ping".into()),
        Step::Tick(0.5),
        Step::Tick(2.0),
    ]
}

#[test]
fn random_graphs_cover_the_node_library() {
    let mut kinds = BTreeSet::new();
    let (mut invocations, mut errors, mut yields, mut nodes) = (0, 0, 0, 0);
    // Graphs declaring a payload for `custom::ping`, and links out of / into its fields.
    let (mut declared, mut read, mut given) = (0, 0, 0);
    for text in random_texts(300) {
        declared += usize::from(text.contains("event custom::ping {"));
        for line in text.lines() {
            let field = |s: &str| {
                ["f0", "f1", "f2"]
                    .iter()
                    .any(|f| s.ends_with(&format!(".{f}")))
            };
            if let Some((from, to)) = line.split_once(" -> ") {
                read += usize::from(field(from));
                given += usize::from(field(to));
            }
            if let Some(rest) = line.strip_prefix("node ") {
                nodes += 1;
                if let Some(k) = rest.split(" = ").nth(1).and_then(|k| k.split(' ').next()) {
                    kinds.insert(k.to_string());
                }
            }
        }
        let s = check("random.bpg", &text, &random_script(), DEFAULT_BUDGET)
            .unwrap_or_else(|e| panic!("{e}\n--- graph\n{text}"));
        invocations += s.invocations;
        errors += s.errors;
        yields += s.yields;
    }
    for k in [
        "var.set",
        "debug.log",
        "flow.branch",
        "flow.sequence",
        "flow.for",
        "flow.do_once",
        "flow.flip_flop",
        "flow.gate",
        "flow.delay",
        "event.send",
        "anim.set_state",
        "expr",
        "int.div",
        "vec3.break",
        "string.concat",
        "float.to_int",
        "anim.get_param",
        "anim.play",
    ] {
        assert!(kinds.contains(k), "no `{k}` in 300 graphs: {kinds:?}");
    }
    assert!(nodes > 300 * 15, "{nodes} nodes");
    assert!(
        declared > 100 && read > 10 && given > 30,
        "payloads: {declared} declared, {read} field reads, {given} field links into sends"
    );
    assert!(
        invocations > 300 * 4 && errors > 10 && yields > 10,
        "{invocations} {errors} {yields}"
    );
    eprintln!(
        "300 random graphs: {nodes} nodes, {invocations} invocations, {errors} aborted, {yields} yielded; payloads: {declared} declared, {read} field reads, {given} field links into sends"
    );
}
