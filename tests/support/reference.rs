//! Tree-walking reference evaluator of compiled graph IR (`sinew::compile::ir::Graph`), written
//! from graph.md's semantics independently of lowering and the bytecode VM. Shared by
//! `tests/differential.rs`.
//!
//! Execution walks exec links from the event node with an explicit continuation stack (a
//! `flow.sequence` output still to run, a `flow.for` iteration still to run), so a `flow.delay`
//! can suspend the whole invocation and resume it later. Pure nodes are evaluated recursively,
//! once per exec node that needs them (memoized per exec node). One step is counted per exec
//! node run, per pure node evaluated and per loop iteration; past the bound the invocation aborts
//! with [`ErrorKind::Budget`].
#![allow(dead_code)]

use sinew::anim::AnimCommand;
use sinew::bytecode::Value;
use sinew::compile::ir::{Const, EventKey, Graph, Node, NodeId, Op};
use sinew::crossing::Edge;
use sinew::graph::expr;
use sinew::nodes::PinType;
use sinew::types::Type;
use sinew::vm::Host;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The import index the reference passes to `Host::game`: it evaluates graphs, not modules,
/// so it has no import table (the differential host does not read it).
const NO_INDEX: usize = usize::MAX;

/// Deepest nesting of pending continuations (sequence outputs / loop bodies) allowed.
pub const MAX_NESTING: usize = 1024;
/// Longest string a `string.concat` may produce.
pub const MAX_STRING: usize = 65_536;
/// Deepest pure-node recursion the reference supports (beyond: [`ErrorKind::TooDeep`]).
pub const MAX_PURE_DEPTH: usize = 2_000;

/// Per-node runtime state.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeState {
    None,
    DoOnce { done: bool },
    FlipFlop { next_is_b: bool },
    Gate { open: bool },
    Delay { pending: bool },
}

/// One graph instance: variables, the last value of every exec/event data output, node states.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub vars: Vec<Value>,
    /// Per node, per output pin: the last value (exec and event nodes' data outputs only).
    pub outputs: Vec<Vec<Option<Value>>>,
    pub nodes: Vec<NodeState>,
}

/// Why an invocation aborted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    DivByZero,
    RemByZero,
    StringTooLong,
    Nesting,
    Budget,
    /// The reference's own recursion limit (not a graph semantics error).
    TooDeep,
    /// Payload or graph shape the reference cannot run.
    Invalid(String),
    /// A game node's implementation returned an error (`Host::game`).
    Game,
}

/// An aborted invocation: the error and the node it happened at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefError {
    pub kind: ErrorKind,
    pub node: String,
    /// For a pure-node error: every (error, node) that evaluating the same exec node's inputs
    /// could abort at (the order pure inputs are evaluated in is unspecified).
    pub alternatives: Vec<(ErrorKind, String)>,
}

/// What still has to run after the current exec chain ends.
#[derive(Clone, Debug, PartialEq)]
enum Frame {
    /// Continue `flow.sequence` node at output index `next`.
    Seq { node: NodeId, next: usize },
    /// Continue `flow.for` node after a body run.
    Loop {
        node: NodeId,
        counter: i64,
        last: i64,
    },
}

/// A suspended invocation.
#[derive(Clone, Debug, PartialEq)]
pub struct Continuation {
    /// Where execution continues (the delay's `then` target), if anything.
    next: Option<(NodeId, u16)>,
    stack: Vec<Frame>,
    /// The delay node that suspended.
    pub delay: NodeId,
}

/// How an invocation ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Completed,
    Suspended {
        seconds: f64,
        continuation: Continuation,
    },
    Error(RefError),
}

fn const_value(c: &Const, ty: Type, owner: u64, for_var: bool) -> Value {
    match (c, ty) {
        (Const::Bool(b), _) => Value::Bool(*b),
        (Const::Int(i), Type::Float) => Value::Float(*i as f64),
        (Const::Int(i), _) => Value::Int(*i),
        (Const::Float(f), _) => Value::Float(*f),
        (Const::Vec3(v), _) => Value::Vec3(*v),
        (Const::Str(s), _) => Value::Str(Arc::from(s.as_str())),
        // graph.md: an entity pin defaults to the graph's own entity; a variable declared ""
        // starts unset.
        (Const::Entity(_), _) if for_var => Value::Entity(None),
        (Const::Entity(_), _) => Value::Entity(Some(owner)),
    }
}

/// The default value of a data type (`entity`: the own entity).
pub fn default_value(ty: Type, owner: u64) -> Value {
    match ty {
        Type::Bool => Value::Bool(false),
        Type::Int => Value::Int(0),
        Type::Float => Value::Float(0.0),
        Type::Vec3 => Value::Vec3([0.0; 3]),
        Type::Str => Value::Str(Arc::from("")),
        Type::Entity => Value::Entity(Some(owner)),
    }
}

fn kind(n: &Node) -> &str {
    match &n.op {
        Op::Builtin(k) => k.kind,
        _ => "",
    }
}

impl State {
    /// Fresh instance state of `g` on entity `owner`.
    pub fn new(g: &Graph, owner: u64) -> State {
        State {
            vars: g
                .vars
                .iter()
                .map(|v| const_value(&v.init, v.ty, owner, true))
                .collect(),
            outputs: g
                .nodes
                .iter()
                .map(|n| {
                    n.outputs
                        .iter()
                        .map(|p| {
                            p.ty.data()
                                .filter(|_| !n.is_pure())
                                .map(|t| default_value(t, owner))
                        })
                        .collect()
                })
                .collect(),
            nodes: g
                .nodes
                .iter()
                .map(|n| match kind(n) {
                    "flow.do_once" => NodeState::DoOnce { done: false },
                    "flow.flip_flop" => NodeState::FlipFlop { next_is_b: false },
                    "flow.gate" => NodeState::Gate {
                        open: n.props.start_open,
                    },
                    "flow.delay" => NodeState::Delay { pending: false },
                    _ => NodeState::None,
                })
                .collect(),
        }
    }
}

/// The reference interpreter for one graph.
pub struct Reference<'g> {
    g: &'g Graph,
    /// (node, output pin) → (node, input pin), exec links.
    exec_next: BTreeMap<(NodeId, u16), (NodeId, u16)>,
    /// (node, input pin) → (node, output pin), data links.
    data_src: BTreeMap<(NodeId, u16), (NodeId, u16)>,
}

struct Run<'a, 'g> {
    r: &'a Reference<'g>,
    st: &'a mut State,
    host: &'a mut dyn Host,
    steps: u64,
    budget: u64,
    /// Pure values computed for the current exec node.
    memo: BTreeMap<NodeId, Vec<Value>>,
    depth: usize,
    /// While probing for alternative errors: pure errors are collected here, not raised.
    lenient: Option<Vec<(ErrorKind, String)>>,
}

type R<T> = Result<T, RefError>;

impl<'g> Reference<'g> {
    /// Indexes the links of `g`.
    pub fn new(g: &'g Graph) -> Self {
        let mut exec_next = BTreeMap::new();
        let mut data_src = BTreeMap::new();
        for l in &g.links {
            if g.is_exec(l) {
                exec_next.insert((l.from, l.from_pin), (l.to, l.to_pin));
            } else {
                data_src.insert((l.to, l.to_pin), (l.from, l.from_pin));
            }
        }
        Reference {
            g,
            exec_next,
            data_src,
        }
    }

    /// The event node handling `identity`, if any.
    pub fn event_node(&self, identity: &str) -> Option<NodeId> {
        self.g
            .nodes
            .iter()
            .position(|n| match &n.op {
                Op::Event(k) => k.identity() == identity,
                _ => false,
            })
            .map(|i| i as NodeId)
    }

    /// Payload types of the handler of event node `ev` (its data outputs in pin order).
    pub fn payload_types(&self, ev: NodeId) -> Vec<Type> {
        self.g.nodes[ev as usize]
            .outputs
            .iter()
            .filter_map(|p| p.ty.data())
            .collect()
    }

    /// Runs the handler of event node `ev` with `payload` for at most `budget` steps.
    pub fn run_event(
        &self,
        st: &mut State,
        ev: NodeId,
        payload: &[Value],
        host: &mut dyn Host,
        budget: u64,
    ) -> (Outcome, u64) {
        self.run_edge(st, ev, None, payload, host, budget)
    }

    /// Runs event node `ev` for one window edge (`graph.md`: a window's node continues at its
    /// `begin` or `end` output; every other event at `then`).
    pub fn run_edge(
        &self,
        st: &mut State,
        ev: NodeId,
        edge: Option<Edge>,
        payload: &[Value],
        host: &mut dyn Host,
        budget: u64,
    ) -> (Outcome, u64) {
        let start = match edge {
            None => "then",
            Some(Edge::Begin) => "begin",
            Some(Edge::End) => "end",
        };
        let mut run = Run {
            r: self,
            st,
            host,
            steps: 0,
            budget,
            memo: BTreeMap::new(),
            depth: 0,
            lenient: None,
        };
        let node = &self.g.nodes[ev as usize];
        let out = (|| {
            if !matches!(node.op, Op::Event(_)) {
                return Err(run.err(ev, ErrorKind::Invalid("not an event node".into())));
            }
            run.step(ev)?;
            let mut values = payload.iter();
            for (pin, p) in node.outputs.iter().enumerate() {
                let PinType::Data(ty) = p.ty else {
                    continue;
                };
                let Some(v) = values.next() else {
                    return Err(run.err(ev, ErrorKind::Invalid("payload too short".into())));
                };
                if !same_type(v, ty) {
                    return Err(run.err(ev, ErrorKind::Invalid("payload type".into())));
                }
                run.st.outputs[ev as usize][pin] = Some(v.clone());
            }
            if values.next().is_some() {
                return Err(run.err(ev, ErrorKind::Invalid("payload too long".into())));
            }
            let next = self.follow(ev, start);
            run.exec(next, Vec::new())
        })();
        let steps = run.steps;
        (out.unwrap_or_else(Outcome::Error), steps)
    }

    /// Resumes a suspended invocation (clearing its delay's pending flag).
    pub fn resume(
        &self,
        st: &mut State,
        k: Continuation,
        host: &mut dyn Host,
        budget: u64,
    ) -> (Outcome, u64) {
        if let Some(NodeState::Delay { pending }) = st.nodes.get_mut(k.delay as usize) {
            *pending = false;
        }
        let mut run = Run {
            r: self,
            st,
            host,
            steps: 0,
            budget,
            memo: BTreeMap::new(),
            depth: 0,
            lenient: None,
        };
        let out = run.exec(k.next, k.stack);
        let steps = run.steps;
        (out.unwrap_or_else(Outcome::Error), steps)
    }

    fn follow(&self, n: NodeId, out: &str) -> Option<(NodeId, u16)> {
        let pin = self.g.nodes[n as usize].output(out)?;
        self.exec_next.get(&(n, pin as u16)).copied()
    }
}

fn is_pure_error(k: &ErrorKind) -> bool {
    matches!(
        k,
        ErrorKind::DivByZero | ErrorKind::RemByZero | ErrorKind::StringTooLong | ErrorKind::Game
    )
}

fn same_type(v: &Value, t: Type) -> bool {
    matches!(
        (v, t),
        (Value::Bool(_), Type::Bool)
            | (Value::Int(_), Type::Int)
            | (Value::Float(_), Type::Float)
            | (Value::Vec3(_), Type::Vec3)
            | (Value::Str(_), Type::Str)
            | (Value::Entity(_), Type::Entity)
    )
}

fn as_bool(v: &Value) -> bool {
    matches!(v, Value::Bool(true))
}
fn as_int(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        _ => 0,
    }
}
fn as_float(v: &Value) -> f64 {
    match v {
        Value::Float(f) => *f,
        Value::Int(i) => *i as f64,
        _ => 0.0,
    }
}
fn as_vec(v: &Value) -> [f32; 3] {
    match v {
        Value::Vec3(x) => *x,
        _ => [0.0; 3],
    }
}
fn as_str(v: &Value) -> Arc<str> {
    match v {
        Value::Str(s) => s.clone(),
        _ => Arc::from(""),
    }
}
fn as_entity(v: &Value) -> Option<u64> {
    match v {
        Value::Entity(e) => *e,
        _ => None,
    }
}

impl<'g> Run<'_, 'g> {
    fn node(&self, n: NodeId) -> &'g Node {
        &self.r.g.nodes[n as usize]
    }

    fn err(&self, n: NodeId, kind: ErrorKind) -> RefError {
        RefError {
            kind,
            alternatives: Vec::new(),
            node: self
                .r
                .g
                .nodes
                .get(n as usize)
                .map_or(String::new(), |n| n.name.clone()),
        }
    }

    fn step(&mut self, n: NodeId) -> R<()> {
        self.steps += 1;
        if self.steps > self.budget {
            return Err(self.err(n, ErrorKind::Budget));
        }
        Ok(())
    }

    fn push(&mut self, stack: &mut Vec<Frame>, n: NodeId, f: Frame) -> R<()> {
        if stack.len() >= MAX_NESTING {
            return Err(self.err(n, ErrorKind::Nesting));
        }
        stack.push(f);
        Ok(())
    }

    /// Runs from exec input `cur`, then whatever `stack` still holds.
    fn exec(&mut self, mut cur: Option<(NodeId, u16)>, mut stack: Vec<Frame>) -> R<Outcome> {
        loop {
            let Some((n, pin)) = cur else {
                match stack.pop() {
                    None => return Ok(Outcome::Completed),
                    Some(Frame::Seq { node, next }) => {
                        cur = self.sequence_from(node, next, &mut stack)?;
                    }
                    Some(Frame::Loop {
                        node,
                        counter,
                        last,
                    }) => {
                        if counter >= last {
                            cur = self.r.follow(node, "completed");
                        } else {
                            cur = self.iterate(node, counter + 1, last, &mut stack)?;
                        }
                    }
                }
                continue;
            };
            self.step(n)?;
            self.memo.clear();
            let node = self.node(n);
            let in_pin = node.inputs[pin as usize].name.to_string();
            let k = kind(node).to_string();
            cur = match (&node.op, k.as_str(), in_pin.as_str()) {
                (Op::VarSet(v), _, _) => {
                    let v = *v as usize;
                    let value = self.input(n, "value")?;
                    let value = match (self.r.g.vars[v].ty, value) {
                        (Type::Float, Value::Int(i)) => Value::Float(i as f64),
                        (_, x) => x,
                    };
                    self.st.vars[v] = value.clone();
                    self.set_out(n, "value", value);
                    self.r.follow(n, "then")
                }
                (Op::Send(name), _, _) => {
                    let t = as_entity(&self.input(n, "target")?);
                    // The payload: the inputs after `exec` and `target`, converted to the
                    // declared field type (an `int` feeding a `float` field).
                    let node = &self.r.g.nodes[n as usize];
                    let fields: Vec<(String, Option<Type>)> = node.inputs[2..]
                        .iter()
                        .map(|p| (p.name.to_string(), p.ty.data()))
                        .collect();
                    let mut payload = Vec::with_capacity(fields.len());
                    for (pin, ty) in fields {
                        let v = match (ty, self.input(n, &pin)?) {
                            (Some(Type::Float), Value::Int(i)) => Value::Float(i as f64),
                            (_, x) => x,
                        };
                        payload.push(v);
                    }
                    self.host.send(&format!("custom::{name}"), t, &payload);
                    self.r.follow(n, "then")
                }
                (Op::Game(imp), _, _) => {
                    // Inputs after `exec`, in declaration order; outputs after `then`.
                    let mut args = Vec::with_capacity(imp.inputs.len());
                    for (pin, _) in &imp.inputs {
                        args.push(self.input(n, pin)?);
                    }
                    let mut outs = Vec::new();
                    if self
                        .host
                        .game(&self.node(n).name.clone(), NO_INDEX, imp, &args, &mut outs)
                        .is_err()
                    {
                        return Err(self.err(n, ErrorKind::Game));
                    }
                    for ((pin, _, _), v) in imp.outputs.iter().zip(outs) {
                        self.set_out(n, pin, v);
                    }
                    self.r.follow(n, "then")
                }
                (_, "flow.branch", _) => {
                    if as_bool(&self.input(n, "condition")?) {
                        self.r.follow(n, "true")
                    } else {
                        self.r.follow(n, "false")
                    }
                }
                (_, "flow.sequence", _) => self.sequence_from(n, 0, &mut stack)?,
                (_, "flow.for", _) => {
                    let first = as_int(&self.input(n, "first")?);
                    let last = as_int(&self.input(n, "last")?);
                    if first > last {
                        self.r.follow(n, "completed")
                    } else {
                        self.iterate(n, first, last, &mut stack)?
                    }
                }
                (_, "flow.do_once", "reset") => {
                    self.st.nodes[n as usize] = NodeState::DoOnce { done: false };
                    None
                }
                (_, "flow.do_once", _) => {
                    if self.st.nodes[n as usize] == (NodeState::DoOnce { done: true }) {
                        None
                    } else {
                        self.st.nodes[n as usize] = NodeState::DoOnce { done: true };
                        self.r.follow(n, "then")
                    }
                }
                (_, "flow.flip_flop", _) => {
                    let b = self.st.nodes[n as usize] == (NodeState::FlipFlop { next_is_b: true });
                    self.st.nodes[n as usize] = NodeState::FlipFlop { next_is_b: !b };
                    self.set_out(n, "is_a", Value::Bool(!b));
                    self.r.follow(n, if b { "b" } else { "a" })
                }
                (_, "flow.gate", which) => {
                    let open = self.st.nodes[n as usize] == (NodeState::Gate { open: true });
                    let new = match which {
                        "enter" => {
                            cur = if open { self.r.follow(n, "exit") } else { None };
                            continue;
                        }
                        "open" => true,
                        "close" => false,
                        _ => !open,
                    };
                    self.st.nodes[n as usize] = NodeState::Gate { open: new };
                    None
                }
                (_, "flow.delay", _) => {
                    let s = as_float(&self.input(n, "seconds")?);
                    if self.st.nodes[n as usize] == (NodeState::Delay { pending: true }) {
                        None
                    } else {
                        self.st.nodes[n as usize] = NodeState::Delay { pending: true };
                        let seconds = if s.is_nan() || s < 0.0 { 0.0 } else { s };
                        return Ok(Outcome::Suspended {
                            seconds,
                            continuation: Continuation {
                                next: self.r.follow(n, "then"),
                                stack,
                                delay: n,
                            },
                        });
                    }
                }
                (_, "anim.set_state", _) => {
                    let s = as_str(&self.input(n, "state")?);
                    let ok = self.host.command(AnimCommand::SetState(s));
                    self.set_out(n, "ok", Value::Bool(ok));
                    self.r.follow(n, "then")
                }
                (_, "anim.set_param", _) => {
                    let name = as_str(&self.input(n, "name")?);
                    let v = as_float(&self.input(n, "value")?);
                    self.host.command(AnimCommand::SetParam(name, v));
                    self.r.follow(n, "then")
                }
                (_, "anim.play_on_layer", _) => {
                    let layer = as_str(&self.input(n, "layer")?);
                    let clip = as_str(&self.input(n, "clip")?);
                    self.host.command(AnimCommand::PlayOnLayer(layer, clip));
                    self.r.follow(n, "then")
                }
                (_, "anim.play", _) => {
                    let clip = as_str(&self.input(n, "clip")?);
                    let at = as_float(&self.input(n, "at")?);
                    self.host.command(AnimCommand::Play(clip, at));
                    self.r.follow(n, "then")
                }
                (_, "anim.stop_layer", _) => {
                    let layer = as_str(&self.input(n, "layer")?);
                    self.host.command(AnimCommand::StopLayer(layer));
                    self.r.follow(n, "then")
                }
                (_, "anim.set_layer_weight", _) => {
                    let layer = as_str(&self.input(n, "layer")?);
                    let w = as_float(&self.input(n, "weight")?);
                    self.host.command(AnimCommand::SetLayerWeight(layer, w));
                    self.r.follow(n, "then")
                }
                (_, "anim.set_speed", _) => {
                    let speed = as_float(&self.input(n, "speed")?);
                    self.host.command(AnimCommand::SetSpeed(speed));
                    self.r.follow(n, "then")
                }
                (_, "debug.log", _) => {
                    let m = as_str(&self.input(n, "message")?);
                    self.host.log(&m);
                    self.r.follow(n, "then")
                }
                _ => {
                    return Err(self.err(n, ErrorKind::Invalid(format!("cannot run `{k}`"))));
                }
            };
        }
    }

    /// Runs `flow.sequence` node `n` from output `from`: the first linked output runs now, the
    /// rest is pushed (a non-last output runs nested, the last one in place).
    fn sequence_from(
        &mut self,
        n: NodeId,
        from: usize,
        stack: &mut Vec<Frame>,
    ) -> R<Option<(NodeId, u16)>> {
        let count = self.node(n).outputs.len();
        for i in from..count {
            let Some(t) = self.r.follow(n, &format!("then_{i}")) else {
                continue;
            };
            if i + 1 < count {
                self.push(
                    stack,
                    n,
                    Frame::Seq {
                        node: n,
                        next: i + 1,
                    },
                )?;
            }
            return Ok(Some(t));
        }
        Ok(None)
    }

    /// Starts iteration `counter` of `flow.for` node `n`.
    fn iterate(
        &mut self,
        n: NodeId,
        counter: i64,
        last: i64,
        stack: &mut Vec<Frame>,
    ) -> R<Option<(NodeId, u16)>> {
        self.step(n)?;
        self.set_out(n, "index", Value::Int(counter));
        let body = self.r.follow(n, "body");
        let frame = Frame::Loop {
            node: n,
            counter,
            last,
        };
        if body.is_some() {
            self.push(stack, n, frame)?;
        } else {
            stack.push(frame);
        }
        Ok(body)
    }

    fn set_out(&mut self, n: NodeId, pin: &str, v: Value) {
        if let Some(p) = self.node(n).output(pin) {
            self.st.outputs[n as usize][p] = Some(v);
        }
    }

    /// The value of input `name` of node `n`.
    fn input(&mut self, n: NodeId, name: &str) -> R<Value> {
        let Some(p) = self.node(n).input(name) else {
            return Err(self.err(n, ErrorKind::Invalid(format!("no input `{name}`"))));
        };
        match self.input_at(n, p) {
            Err(mut e) if is_pure_error(&e.kind) => {
                e.alternatives = self.probe(n);
                Err(e)
            }
            r => r,
        }
    }

    /// Evaluates every data input of exec node `n` again, collecting each pure error instead
    /// of stopping at the first.
    fn probe(&mut self, n: NodeId) -> Vec<(ErrorKind, String)> {
        self.memo.clear();
        self.lenient = Some(Vec::new());
        for p in 0..self.node(n).inputs.len() {
            if !self.node(n).inputs[p].ty.is_exec() {
                let _ = self.input_at(n, p);
            }
        }
        self.lenient.take().unwrap_or_default()
    }

    /// A pure-node error: raised, or collected while probing (the node then yields a default).
    fn pure_error(&mut self, n: NodeId, kind: ErrorKind, default: Value) -> R<Vec<Value>> {
        let name = self.node(n).name.clone();
        match &mut self.lenient {
            Some(found) => {
                found.push((kind, name));
                Ok(vec![default])
            }
            None => Err(self.err(n, kind)),
        }
    }

    fn input_at(&mut self, n: NodeId, pin: usize) -> R<Value> {
        let Some(want) = self.node(n).inputs[pin].ty.data() else {
            return Err(self.err(n, ErrorKind::Invalid("exec pin read as data".into())));
        };
        let v = match self.r.data_src.get(&(n, pin as u16)).copied() {
            Some((src, out)) => {
                if self.node(src).is_pure() {
                    let vals = self.pure(src)?;
                    vals.get(out as usize).cloned().ok_or_else(|| {
                        self.err(src, ErrorKind::Invalid("missing pure output".into()))
                    })?
                } else {
                    match self.st.outputs[src as usize].get(out as usize) {
                        Some(Some(v)) => v.clone(),
                        _ => {
                            return Err(
                                self.err(src, ErrorKind::Invalid("no stored output".into()))
                            );
                        }
                    }
                }
            }
            None => {
                if want == Type::Entity {
                    Value::Entity(Some(self.host.self_entity()))
                } else {
                    let owner = self.host.self_entity();
                    match self.node(n).defaults.get(pin) {
                        Some(Some(c)) => const_value(c, want, owner, false),
                        _ => default_value(want, owner),
                    }
                }
            }
        };
        Ok(match (want, v) {
            (Type::Float, Value::Int(i)) => Value::Float(i as f64),
            (_, v) => v,
        })
    }

    /// Evaluates pure node `n` (memoized for the current exec node).
    fn pure(&mut self, n: NodeId) -> R<Vec<Value>> {
        if let Some(v) = self.memo.get(&n) {
            return Ok(v.clone());
        }
        if self.depth >= MAX_PURE_DEPTH {
            return Err(self.err(n, ErrorKind::TooDeep));
        }
        self.depth += 1;
        let r = self.pure_inner(n);
        self.depth -= 1;
        let v = r?;
        self.memo.insert(n, v.clone());
        Ok(v)
    }

    fn pure_inner(&mut self, n: NodeId) -> R<Vec<Value>> {
        let nin = self.node(n).inputs.len();
        let mut args = Vec::with_capacity(nin);
        for p in 0..nin {
            args.push(self.input_at(n, p)?);
        }
        self.step(n)?;
        let node = self.node(n);
        if let Op::Game(imp) = &node.op {
            // A pure game node: called once per use, its outputs in declaration order.
            let mut outs = Vec::new();
            if self
                .host
                .game(&self.node(n).name.clone(), NO_INDEX, imp, &args, &mut outs)
                .is_err()
            {
                let defaults: Vec<Value> =
                    imp.outputs.iter().map(|o| default_value(o.1, 0)).collect();
                return match &mut self.lenient {
                    Some(found) => {
                        found.push((ErrorKind::Game, node.name.clone()));
                        Ok(defaults)
                    }
                    None => Err(self.err(n, ErrorKind::Game)),
                };
            }
            return Ok(outs);
        }
        let v = match &node.op {
            Op::VarGet(v) => self.st.vars[*v as usize].clone(),
            Op::Expr(parsed) => {
                let xs: Vec<f64> = args.iter().map(as_float).collect();
                Value::Float(expr::eval(&parsed.root, &xs))
            }
            Op::Builtin(k) => {
                let k = k.kind;
                let i = |j: usize| args.get(j).map_or(0, as_int);
                let f = |j: usize| args.get(j).map_or(0.0, as_float);
                let b = |j: usize| args.get(j).is_some_and(as_bool);
                let v = |j: usize| args.get(j).map_or([0.0; 3], as_vec);
                let s = |j: usize| args.get(j).map_or(Arc::from(""), as_str);
                match k {
                    "int.add" => Value::Int(i(0).wrapping_add(i(1))),
                    "int.sub" => Value::Int(i(0).wrapping_sub(i(1))),
                    "int.mul" => Value::Int(i(0).wrapping_mul(i(1))),
                    "int.div" => {
                        if i(1) == 0 {
                            return self.pure_error(n, ErrorKind::DivByZero, Value::Int(0));
                        }
                        Value::Int(i(0).wrapping_div(i(1)))
                    }
                    "int.rem" => {
                        if i(1) == 0 {
                            return self.pure_error(n, ErrorKind::RemByZero, Value::Int(0));
                        }
                        Value::Int(i(0).wrapping_rem(i(1)))
                    }
                    "int.min" => Value::Int(i(0).min(i(1))),
                    "int.max" => Value::Int(i(0).max(i(1))),
                    "int.neg" => Value::Int(i(0).wrapping_neg()),
                    "int.abs" => Value::Int(i(0).wrapping_abs()),
                    "int.eq" => Value::Bool(i(0) == i(1)),
                    "int.ne" => Value::Bool(i(0) != i(1)),
                    "int.lt" => Value::Bool(i(0) < i(1)),
                    "int.le" => Value::Bool(i(0) <= i(1)),
                    "int.gt" => Value::Bool(i(0) > i(1)),
                    "int.ge" => Value::Bool(i(0) >= i(1)),
                    "int.clamp" => Value::Int(i(0).max(i(1)).min(i(2))),
                    "int.to_float" => Value::Float(i(0) as f64),
                    "float.add" => Value::Float(f(0) + f(1)),
                    "float.sub" => Value::Float(f(0) - f(1)),
                    "float.mul" => Value::Float(f(0) * f(1)),
                    "float.div" => Value::Float(f(0) / f(1)),
                    "float.min" => Value::Float(f(0).min(f(1))),
                    "float.max" => Value::Float(f(0).max(f(1))),
                    "float.neg" => Value::Float(-f(0)),
                    "float.abs" => Value::Float(f(0).abs()),
                    "float.sqrt" => Value::Float(f(0).sqrt()),
                    "float.sin" => Value::Float(f(0).sin()),
                    "float.cos" => Value::Float(f(0).cos()),
                    "float.floor" => Value::Float(f(0).floor()),
                    "float.lt" => Value::Bool(f(0) < f(1)),
                    "float.le" => Value::Bool(f(0) <= f(1)),
                    "float.gt" => Value::Bool(f(0) > f(1)),
                    "float.ge" => Value::Bool(f(0) >= f(1)),
                    "float.clamp" => Value::Float(f(0).max(f(1)).min(f(2))),
                    "float.lerp" => Value::Float(f(0) + (f(1) - f(0)) * f(2)),
                    "float.to_int" => Value::Int(f(0) as i64),
                    "bool.and" => Value::Bool(b(0) && b(1)),
                    "bool.or" => Value::Bool(b(0) || b(1)),
                    "bool.xor" => Value::Bool(b(0) != b(1)),
                    "bool.not" => Value::Bool(!b(0)),
                    "vec3.make" => Value::Vec3([f(0) as f32, f(1) as f32, f(2) as f32]),
                    "vec3.break" => {
                        let x = v(0);
                        return Ok(x.iter().map(|c| Value::Float(f64::from(*c))).collect());
                    }
                    "vec3.add" => {
                        let (a, c) = (v(0), v(1));
                        Value::Vec3([a[0] + c[0], a[1] + c[1], a[2] + c[2]])
                    }
                    "vec3.sub" => {
                        let (a, c) = (v(0), v(1));
                        Value::Vec3([a[0] - c[0], a[1] - c[1], a[2] - c[2]])
                    }
                    "vec3.scale" => {
                        let (a, k) = (v(0), f(1));
                        Value::Vec3([
                            (f64::from(a[0]) * k) as f32,
                            (f64::from(a[1]) * k) as f32,
                            (f64::from(a[2]) * k) as f32,
                        ])
                    }
                    "vec3.length" => {
                        let a = v(0).map(f64::from);
                        Value::Float((a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt())
                    }
                    "vec3.dot" => {
                        let (a, c) = (v(0).map(f64::from), v(1).map(f64::from));
                        Value::Float(a[0] * c[0] + a[1] * c[1] + a[2] * c[2])
                    }
                    "string.concat" => {
                        let (a, c) = (s(0), s(1));
                        if a.len() + c.len() > MAX_STRING {
                            let empty = Value::Str(Arc::from(""));
                            return self.pure_error(n, ErrorKind::StringTooLong, empty);
                        }
                        Value::Str(Arc::from(format!("{a}{c}")))
                    }
                    "string.eq" => Value::Bool(s(0) == s(1)),
                    "string.from_int" => Value::Str(Arc::from(i(0).to_string())),
                    "string.from_float" => Value::Str(Arc::from(format!("{:?}", f(0)))),
                    "entity.self" => Value::Entity(Some(self.host.self_entity())),
                    "anim.get_param" => Value::Float(self.host.get_param(&s(0))),
                    "anim.current_state" => Value::Str(self.host.current_state()),
                    "anim.curve" => Value::Float(self.host.curve(&s(0))),
                    other => {
                        return Err(
                            self.err(n, ErrorKind::Invalid(format!("no pure kind `{other}`")))
                        );
                    }
                }
            }
            _ => return Err(self.err(n, ErrorKind::Invalid("not pure".into()))),
        };
        Ok(vec![v])
    }
}

/// The identity a handler event node answers (for harnesses).
pub fn identity(k: &EventKey) -> String {
    k.identity()
}
