//! Graph instances on bevy_ecs: the [`Graphs`] component (per attached graph its verified module,
//! VM state and pending `flow.delay` continuations), [`attach_graphs`] (subscriptions and the
//! `begin_play`/`tick` registration), and [`VmDispatch`], the [`Dispatch`] that runs handlers on
//! the bytecode VM with a [`Host`] bound to the world.
//!
//! Payload convention (fixed by the compiler): a handler's parameters are its event node's output
//! pins except `then`, in pin order — `tick` → `[dt: float]`; `begin_play` → `[]`;
//! `custom::NAME` → `[sender: entity]`; `animseq::S.N` → `[entity, time, clip_time, cycle,
//! fields…]`.

use std::collections::BTreeMap;
use std::sync::Arc;

use bevy_ecs::prelude::*;

use super::animator::{AnimCommand, Animator};
use super::game_nodes::{self, ImportSlots};
use super::hub::{
    Continuation, Delivery, Dispatch, EventHub, GraphInstances, Payload, Publisher, Value,
};
use super::time::{GameTime, PendingDelays};
use super::trace::{self, TraceKind};
use crate::bytecode::{Type, VerifiedModule};
use crate::vm::{self, Host, InstanceState, Outcome, Vm};

/// One graph attached to an entity.
#[derive(Debug)]
pub struct GraphInstance {
    module: Arc<VerifiedModule>,
    name: Arc<str>,
    /// `None` only while one of its handlers runs.
    state: Option<InstanceState>,
    /// The suspended handlers, by the `flow.delay` each waits on: allocated when a delay starts
    /// (an instance of a 20,000-delay graph costs nothing for delays that never run).
    pending: BTreeMap<usize, vm::Continuation>,
    /// Its module's imports resolved to the world's game node bindings (taken out, like
    /// `state`, while a handler runs).
    slots: ImportSlots,
}

impl GraphInstance {
    /// A fresh instance of `module` on `owner` (variables at their declared values).
    pub fn new(module: Arc<VerifiedModule>, owner: Entity) -> GraphInstance {
        let state = InstanceState::new(&module, owner.to_bits());
        GraphInstance {
            name: Arc::from(module.module().name.as_str()),
            module,
            state: Some(state),
            pending: BTreeMap::new(),
            slots: ImportSlots::default(),
        }
    }

    /// The graph's name (`graph NAME`).
    pub fn name(&self) -> &Arc<str> {
        &self.name
    }

    /// The verified module.
    pub fn module(&self) -> &Arc<VerifiedModule> {
        &self.module
    }

    /// Variables as `(name, type, value)` in declaration order (empty while a handler runs).
    pub fn vars(&self) -> Vec<(&str, Type, &Value)> {
        let Some(st) = &self.state else {
            return Vec::new();
        };
        self.module
            .module()
            .vars
            .iter()
            .zip(st.vars())
            .map(|(d, v)| (d.name.as_str(), d.ty, v))
            .collect()
    }

    /// The value of entity variable `name`, if this instance declares one.
    /// `Some(None)`: declared but unset.
    pub fn entity_var(&self, name: &str) -> Option<Option<u64>> {
        let st = self.state.as_ref()?;
        let i = self
            .module
            .module()
            .vars
            .iter()
            .position(|d| d.name == name && d.ty == Type::Entity)?;
        match st.vars().get(i) {
            Some(Value::Entity(e)) => Some(*e),
            _ => None,
        }
    }

    /// Sets variable `name` to `value` (a scene's per-entity `vars`, set at spawn before any
    /// handler runs); `false` when the instance declares no variable `name` of `value`'s type.
    pub fn set_var(&mut self, name: &str, value: Value) -> bool {
        let Some(st) = self.state.as_mut() else {
            return false;
        };
        let ty = value.ty();
        match self
            .module
            .module()
            .vars
            .iter()
            .position(|d| d.name == name && d.ty == ty)
        {
            Some(i) => st.set_var(i, value),
            None => false,
        }
    }

    /// Number of delays with a suspended handler.
    pub fn pending_delays(&self) -> usize {
        self.pending.len()
    }
}

/// The graph instances on one entity, in attach order (instance index = position).
#[derive(Component, Debug, Default)]
pub struct Graphs {
    instances: Vec<GraphInstance>,
}

impl Graphs {
    /// The instances, in attach order.
    pub fn instances(&self) -> &[GraphInstance] {
        &self.instances
    }

    /// The instances, mutably (in attach order).
    pub fn instances_mut(&mut self) -> &mut [GraphInstance] {
        &mut self.instances
    }

    /// The value of variable `name` in the first instance that declares `name` with type
    /// `entity`: `None` when no instance declares it, `Some(None)` when it is unset.
    pub fn resolve_entity_var(&self, name: &str) -> Option<Option<u64>> {
        self.instances.iter().find_map(|i| i.entity_var(name))
    }
}

/// What switching one instance to a new module did to its variables and delays (hot reload).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModuleSwap {
    /// Variables of the new module that kept their value (same name and type in the old one),
    /// in the new module's declaration order.
    pub kept: Vec<String>,
    /// Variables of the new module that start at their declared value (new, or their type
    /// changed), in declaration order.
    pub reset: Vec<String>,
    /// Variables of the old module that are gone (or changed type), in old declaration order.
    pub removed: Vec<String>,
    /// Suspended `flow.delay` handlers of the old module, dropped.
    pub dropped_delays: usize,
}

impl Graphs {
    /// Switches instance `index` to `module` in one step: variables that keep name and type
    /// keep their value, the others start at their declared value, hidden slots start afresh,
    /// and every suspended delay of the old module is dropped (counted). `None` when there is no
    /// such instance or one of its handlers is running. Subscriptions and the delay queue are
    /// the caller's (see `runtime::reload::swap_graph`).
    pub fn swap_module(
        &mut self,
        index: usize,
        module: Arc<VerifiedModule>,
        owner: Entity,
    ) -> Option<ModuleSwap> {
        let old = self.instances.get_mut(index)?;
        let old_state = old.state.as_ref()?;
        let old_vars = &old.module.module().vars;
        let mut state = InstanceState::new(&module, owner.to_bits());
        let mut swap = ModuleSwap {
            dropped_delays: old.pending_delays(),
            ..ModuleSwap::default()
        };
        for (j, d) in module.module().vars.iter().enumerate() {
            let same = old_vars
                .iter()
                .position(|o| o.name == d.name && o.ty == d.ty)
                .and_then(|k| old_state.vars().get(k));
            match same {
                Some(v) if state.set_var(j, v.clone()) => swap.kept.push(d.name.clone()),
                _ => swap.reset.push(d.name.clone()),
            }
        }
        let new_vars = &module.module().vars;
        swap.removed = old_vars
            .iter()
            .filter(|o| !new_vars.iter().any(|d| d.name == o.name && d.ty == o.ty))
            .map(|o| o.name.clone())
            .collect();
        *old = GraphInstance {
            name: Arc::from(module.module().name.as_str()),
            pending: BTreeMap::new(),
            state: Some(state),
            module,
            slots: ImportSlots::default(),
        };
        Some(swap)
    }
}

/// Why [`attach_graphs`] refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AttachError {
    /// The entity does not exist.
    #[error("entity does not exist")]
    NoEntity,
    /// The world has no [`EventHub`] (call `init_world` first).
    #[error("the world has no event hub")]
    NoHub,
    /// The entity already hosts graph instances.
    #[error("the entity already hosts graph instances")]
    AlreadyAttached,
    /// Interning an identity failed.
    #[error(transparent)]
    Hub(#[from] super::hub::HubError),
    /// A graph calls a game node the world's [`GameNodes`](super::GameNodes) does not bind
    /// (a game never runs a graph whose calls go nowhere).
    #[error(
        "graph `{graph}` calls game node `{kind}`, which the game does not bind (bind it with `GameNodes::bind`)"
    )]
    Unbound { graph: String, kind: String },
    /// A graph imports a game node the world's
    /// [`GameDeclarations`](super::GameDeclarations) lack or declare with another signature
    /// (`E0062`'s message: the graph, its calling nodes, both signatures).
    #[error("{0}")]
    Signature(String),
}

/// Attaches `modules` (in order: instance `i` = `modules[i]`) to `entity`: subscribes every
/// handler to its identity on the entity's own channel, inserts [`Graphs`] and the hub's
/// [`GraphInstances`] marker (which registers the entity for `tick` and queues `begin_play`).
pub fn attach_graphs(
    world: &mut World,
    entity: Entity,
    modules: &[Arc<VerifiedModule>],
) -> Result<(), AttachError> {
    if !world.entities().contains_spawned(entity) {
        return Err(AttachError::NoEntity);
    }
    if world.get::<Graphs>(entity).is_some() || world.get::<GraphInstances>(entity).is_some() {
        return Err(AttachError::AlreadyAttached);
    }
    for m in modules {
        if let Some(bad) = game_nodes::world_mismatch(world, m) {
            return Err(AttachError::Signature(bad.to_string()));
        }
        if let Some(kind) = super::game_nodes::unbound(world, &m.module().imports) {
            return Err(AttachError::Unbound {
                graph: m.module().name.clone(),
                kind,
            });
        }
    }
    let Some(mut hub) = world.get_resource_mut::<EventHub>() else {
        return Err(AttachError::NoHub);
    };
    let mut subs = Vec::new();
    for (i, m) in modules.iter().enumerate() {
        let instance = u32::try_from(i).unwrap_or(u32::MAX);
        for (h, handler) in m.module().handlers.iter().enumerate() {
            let id = hub.intern(&handler.event)?;
            let h = u32::try_from(h).unwrap_or(u32::MAX);
            subs.push((id, instance, h));
        }
    }
    hub.subscribe_own_all(entity, &subs);
    let mut instances: Vec<GraphInstance> = modules
        .iter()
        .map(|m| GraphInstance::new(m.clone(), entity))
        .collect();
    // Each import resolved to its binding once, here (a call then indexes, never hashes).
    if let Some(nodes) = world.get_resource::<game_nodes::GameNodes>() {
        for i in &mut instances {
            i.slots.resolve(nodes, &i.module.module().imports);
        }
    }
    let count = u32::try_from(modules.len()).unwrap_or(u32::MAX);
    world
        .entity_mut(entity)
        .insert((Graphs { instances }, GraphInstances { count }));
    Ok(())
}

/// The value a payload field without one reads: its type's default (`entity`: unset).
pub(crate) fn default_value(ty: Type) -> Value {
    match ty {
        Type::Bool => Value::Bool(false),
        Type::Int => Value::Int(0),
        Type::Float => Value::Float(0.0),
        Type::Vec3 => Value::Vec3([0.0; 3]),
        Type::Str => Value::Str(Arc::from("")),
        Type::Entity => Value::Entity(None),
    }
}

/// The handler parameters for an event payload (see the module docs), appended to `out`.
pub fn payload_params(payload: &Payload, fields: &[Value], out: &mut Vec<Value>) {
    match payload {
        Payload::None => {}
        Payload::Tick { dt } => out.push(Value::Float(*dt)),
        Payload::Custom { sender, values } => {
            out.push(Value::Entity(*sender));
            out.extend(values.iter().cloned());
        }
        Payload::Notify(n) => {
            out.push(Value::Entity(Some(n.source)));
            out.push(Value::Float(n.time));
            out.push(Value::Float(n.clip_time));
            out.push(Value::Int(n.cycle));
            out.push(Value::Float(n.weight));
            if n.edge.is_some() {
                out.push(Value::Bool(n.completed));
            }
            out.extend(fields.iter().cloned());
        }
        Payload::Values(vs) => out.extend(vs.iter().cloned()),
    }
}

/// The [`Dispatch`] that runs graph handlers on the bytecode VM. Runtime errors abort the
/// invocation only and become `error` trace records; `flow.delay` yields become
/// [`PendingDelays`] entries resumed through [`Dispatch::resume`].
#[derive(Debug, Default)]
pub struct VmDispatch {
    vm: Vm,
    params: Vec<Value>,
    /// Record which nodes every invocation runs into the world's [`ExecLog`].
    record: bool,
    /// Also record the values each invocation saw ([`super::values`]).
    values: bool,
}

/// One recorded graph invocation (see [`VmDispatch::recording`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Invocation {
    /// The entity the graph runs on.
    pub entity: Entity,
    /// The graph's name.
    pub graph: Arc<str>,
    /// The identity of the handler's event (`animseq::S.N`, `tick`, …); `None` for a resumed
    /// `flow.delay`.
    pub event: Option<String>,
    /// For a notify delivery: the crossing's clip time and cycle.
    pub notify: Option<(f64, i64)>,
    /// How many trace records the world's [`trace::Trace`] held when it started and ended (the
    /// records it produced are those in between).
    pub trace_span: (usize, usize),
    /// The node names in the order they ran.
    pub nodes: Vec<String>,
    /// The values it saw, when the dispatcher records them
    /// ([`VmDispatch::recording_values`]).
    pub values: Option<Box<super::values::InvocationValues>>,
}

/// Invocations recorded by a [`VmDispatch::recording`] dispatcher while this resource is in
/// the world (drain it as the trace is drained).
#[derive(Resource, Debug, Default, Clone)]
pub struct ExecLog {
    pub invocations: Vec<Invocation>,
}

/// Handler or continuation to run.
enum Entry<'a> {
    Handler(usize, &'a [Value]),
    Resume(vm::Continuation),
}

impl VmDispatch {
    /// A dispatcher with a fresh VM.
    pub fn new() -> VmDispatch {
        VmDispatch::default()
    }

    /// A dispatcher that also records, for every invocation, the nodes it ran (in order) into
    /// the world's [`ExecLog`] (the studio's debugger view). [`VmDispatch::new`] records
    /// nothing and pays nothing for it.
    pub fn recording() -> VmDispatch {
        VmDispatch {
            record: true,
            ..VmDispatch::default()
        }
    }

    /// [`VmDispatch::recording`] that also records the values every invocation saw: the
    /// variables before and after, and the outputs of the nodes that ran
    /// ([`super::values::InvocationValues`]).
    pub fn recording_values() -> VmDispatch {
        VmDispatch {
            record: true,
            values: true,
            ..VmDispatch::default()
        }
    }

    /// Runs `f` on instance `instance` of `entity` with a host bound to the world, then handles
    /// the outcome.
    fn invoke(
        &mut self,
        world: &mut World,
        entity: Entity,
        instance: u32,
        out: &mut Publisher,
        entry: Entry<'_>,
    ) {
        let idx = instance as usize;
        let (module, name, mut state, mut slots) = {
            let Some(mut graphs) = world.get_mut::<Graphs>(entity) else {
                return;
            };
            let Some(inst) = graphs.instances.get_mut(idx) else {
                return;
            };
            let Some(state) = inst.state.take() else {
                return; // re-entrant call: cannot happen (flushes do not nest)
            };
            let slots = std::mem::take(&mut inst.slots);
            (inst.module.clone(), inst.name.clone(), state, slots)
        };
        let trace_len = |w: &World| {
            w.get_resource::<trace::Trace>()
                .map_or(0, |t| t.records.len())
        };
        let start = if self.record { trace_len(world) } else { 0 };
        let mut nodes = self.record.then(vm::NodeTrace::default);
        let mut values = self
            .values
            .then(|| Box::new(super::values::InvocationValues::before(&module, &state)));
        let (event, notify) = match (&entry, self.record) {
            (Entry::Handler(h, params), true) => (
                module.module().handlers.get(*h).map(|x| x.event.clone()),
                match params {
                    [
                        Value::Entity(_),
                        Value::Float(_),
                        Value::Float(ct),
                        Value::Int(c),
                        ..,
                    ] if module
                        .module()
                        .handlers
                        .get(*h)
                        .is_some_and(|x| x.event.starts_with("animseq::")) =>
                    {
                        Some((*ct, *c))
                    }
                    _ => None,
                },
            ),
            _ => (None, None),
        };
        let outcome = {
            let mut host = WorldHost {
                world,
                entity,
                out,
                graph: &name,
                slots: &mut slots,
                imports: &module.module().imports,
            };
            let (vm, m, st, budget) = (&mut self.vm, &*module, &mut state, module.module().budget);
            match (entry, nodes.as_mut()) {
                (Entry::Handler(h, p), None) => vm.run_handler(m, st, h, p, &mut host, budget),
                (Entry::Handler(h, p), Some(t)) => {
                    vm.run_handler_recorded(m, st, h, p, &mut host, budget, t)
                }
                (Entry::Resume(k), None) => vm.resume(m, st, k, &mut host, budget),
                (Entry::Resume(k), Some(t)) => vm.resume_recorded(m, st, k, &mut host, budget, t),
            }
        };
        if let Some(t) = nodes {
            let names = t.names(&module);
            if let Some(v) = values.as_mut() {
                v.after(&state, &names);
            }
            let inv = Invocation {
                entity,
                graph: name.clone(),
                event,
                notify,
                trace_span: (start, trace_len(world)),
                nodes: names.into_iter().map(str::to_string).collect(),
                values,
            };
            if let Some(mut log) = world.get_resource_mut::<ExecLog>() {
                log.invocations.push(inv);
            }
        }
        if let Some(mut graphs) = world.get_mut::<Graphs>(entity)
            && let Some(inst) = graphs.instances.get_mut(idx)
        {
            inst.state = Some(state);
            inst.slots = slots;
        }
        match outcome {
            Outcome::Completed => {}
            Outcome::Error(e) => {
                trace::error(world, Some(entity), Some(name), Some(e.node), e.message);
            }
            Outcome::Yielded {
                delay_seconds,
                continuation,
            } => {
                let delay = continuation.delay();
                if let Some(mut graphs) = world.get_mut::<Graphs>(entity)
                    && let Some(inst) = graphs.instances.get_mut(idx)
                    && delay < module.module().delays.len()
                {
                    inst.pending.insert(delay, continuation);
                }
                if !delay_seconds.is_finite() {
                    return; // an infinite delay never resumes (and stays busy)
                }
                let now = world.get_resource::<GameTime>().map_or(0.0, GameTime::time);
                let c = Continuation {
                    entity,
                    instance,
                    resume: u32::try_from(delay).unwrap_or(u32::MAX),
                };
                let scheduled = match world.get_resource_mut::<PendingDelays>() {
                    Some(mut delays) => delays
                        .schedule(now, delay_seconds, c)
                        .map_err(|e| e.to_string()),
                    None => Err("the world has no pending-delay queue".to_string()),
                };
                if let Err(message) = scheduled {
                    let node = module
                        .module()
                        .delays
                        .get(delay)
                        .and_then(|d| module.module().nodes.get(d.node as usize))
                        .cloned();
                    trace::error(world, Some(entity), Some(name), node, message);
                }
            }
        }
    }
}

impl Dispatch for VmDispatch {
    fn deliver(&mut self, world: &mut World, d: Delivery<'_>, out: &mut Publisher) {
        let mut params = std::mem::take(&mut self.params);
        params.clear();
        payload_params(&d.event.payload, d.fields, &mut params);
        let handler = d.to.handler as usize;
        // A scene's `Send` carries no values: a declared payload's fields read their type's
        // default (`docs/runtime.md`).
        if let Payload::Custom { values, .. } = &d.event.payload
            && values.is_empty()
            && let Some(h) = world
                .get::<Graphs>(d.to.entity)
                .and_then(|g| g.instances.get(d.to.instance as usize))
                .and_then(|i| i.module.module().handlers.get(handler))
            && h.params.len() > params.len()
        {
            let missing = h.params[params.len()..].iter().map(|t| default_value(*t));
            params.extend(missing);
        }
        // A window's begin and end handlers share one identity: run the one of this edge.
        if let Payload::Notify(n) = &d.event.payload
            && n.edge.is_some()
        {
            let edge = world
                .get::<Graphs>(d.to.entity)
                .and_then(|g| g.instances.get(d.to.instance as usize))
                .and_then(|i| i.module.module().handlers.get(handler))
                .map(|h| h.edge);
            if edge.is_some_and(|e| e != n.edge) {
                self.params = params;
                return;
            }
        }
        self.invoke(
            world,
            d.to.entity,
            d.to.instance,
            out,
            Entry::Handler(handler, &params),
        );
        self.params = params;
    }

    fn resume(&mut self, world: &mut World, c: Continuation, out: &mut Publisher) {
        let taken = world.get_mut::<Graphs>(c.entity).and_then(|mut g| {
            g.instances
                .get_mut(c.instance as usize)
                .and_then(|i| i.pending.remove(&(c.resume as usize)))
        });
        let Some(k) = taken else { return };
        self.invoke(world, c.entity, c.instance, out, Entry::Resume(k));
    }
}

/// The VM's view of the world for one invocation.
struct WorldHost<'a> {
    world: &'a mut World,
    entity: Entity,
    out: &'a mut Publisher,
    graph: &'a Arc<str>,
    /// The instance's imports resolved to game node bindings, and its module's import table.
    slots: &'a mut ImportSlots,
    imports: &'a [crate::bytecode::Import],
}

impl WorldHost<'_> {
    fn queue(&mut self, c: AnimCommand) {
        if let Some(mut a) = self.world.get_mut::<Animator>(self.entity) {
            a.queue(c);
        }
    }

    fn animator(&self) -> Option<&Animator> {
        self.world.get::<Animator>(self.entity)
    }
}

impl Host for WorldHost<'_> {
    fn self_entity(&mut self) -> u64 {
        self.entity.to_bits()
    }

    fn log(&mut self, message: &str) {
        trace::record(
            self.world,
            TraceKind::Log {
                entity: self.entity,
                graph: self.graph.clone(),
                message: message.to_string(),
            },
        );
    }

    fn command(&mut self, c: AnimCommand) -> bool {
        // A known state is accepted (queued for the next update); others are refused.
        if let AnimCommand::SetState(state) = &c
            && !self.animator().is_some_and(|a| a.has_state(state))
        {
            return false;
        }
        self.queue(c);
        true
    }

    fn get_param(&mut self, name: &str) -> f64 {
        self.animator().map_or(0.0, |a| a.param(name))
    }

    fn current_state(&mut self) -> Arc<str> {
        self.animator()
            .and_then(|a| a.current_state().cloned())
            .unwrap_or_else(|| Arc::from(""))
    }

    fn curve(&mut self, name: &str) -> f64 {
        self.animator().map_or(0.0, |a| a.curve(name))
    }

    fn game(
        &mut self,
        node: &str,
        index: usize,
        import: &crate::bytecode::Import,
        args: &[Value],
        outputs: &mut Vec<Value>,
    ) -> Result<(), String> {
        let from = game_nodes::Caller {
            entity: self.entity,
            graph: self.graph,
            node,
            slots: self.slots,
            imports: self.imports,
        };
        game_nodes::call(self.world, from, index, import, args, outputs)
    }

    fn send(&mut self, event: &str, target: Option<u64>, payload: &[Value]) {
        let Some(target) = target.and_then(Entity::try_from_bits) else {
            trace::error(
                self.world,
                Some(self.entity),
                Some(self.graph.clone()),
                None,
                format!("event.send {event}: the target entity is unset; event dropped"),
            );
            return;
        };
        let id = match self.world.get_resource_mut::<EventHub>() {
            Some(mut hub) => hub.intern(event),
            None => return,
        };
        match id {
            Ok(id) => {
                if self.out.send(id, target, Some(self.entity), payload.into()) {
                    super::events::record_custom(self.world, event, target, self.entity, payload);
                } else {
                    trace::error(
                        self.world,
                        Some(self.entity),
                        Some(self.graph.clone()),
                        None,
                        format!("event.send {event}: event queue full; event dropped"),
                    );
                }
            }
            Err(e) => trace::error(
                self.world,
                Some(self.entity),
                Some(self.graph.clone()),
                None,
                e.to_string(),
            ),
        }
    }
}
