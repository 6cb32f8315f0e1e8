//! Game nodes at run time (`bridge.md` §1): the game binds each declared `game.*` kind to an
//! implementation in the [`GameNodes`] resource; a graph's call reaches it through the VM's
//! `Host::game` with a typed [`GameCall`] (inputs by name, output setters, `&mut World`).
//!
//! Without a binding — the headless runner ([`GameNodes::headless`], `sinew run`, the studio)
//! or a world without the resource — a call returns the declared output defaults, overridden
//! per entity by the scene's `returns` ([`GameReturns`]). When the world traces, every call adds
//! one `call` record (inputs in declaration order, the outputs it returned).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use bevy_ecs::prelude::*;

use super::hub::Value;
use super::trace::{self, TraceKind};
use crate::bytecode::{Const, Import, Type};

/// Why a game node implementation failed (an `error` record on the calling entity; the handler
/// stops, the game keeps running).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameNodeError(pub String);

impl fmt::Display for GameNodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for GameNodeError {}

impl From<String> for GameNodeError {
    fn from(s: String) -> Self {
        GameNodeError(s)
    }
}

impl From<&str> for GameNodeError {
    fn from(s: &str) -> Self {
        GameNodeError(s.to_string())
    }
}

/// An implementation of a game node.
pub type GameNodeFn =
    Box<dyn FnMut(&mut GameCall<'_>) -> Result<(), GameNodeError> + Send + Sync + 'static>;

/// The game's bindings: kind → implementation. Insert it into the world (spawning then refuses
/// a graph that calls a declared node with no binding, naming it), or insert
/// [`GameNodes::headless`] to run every unbound node as the headless recorder does.
#[derive(Resource, Default)]
pub struct GameNodes {
    bindings: HashMap<String, GameNodeFn>,
    headless: bool,
}

impl fmt::Debug for GameNodes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut kinds: Vec<&str> = self.bindings.keys().map(String::as_str).collect();
        kinds.sort_unstable();
        f.debug_struct("GameNodes")
            .field("bound", &kinds)
            .field("headless", &self.headless)
            .finish()
    }
}

impl GameNodes {
    /// No bindings; unbound nodes refuse to spawn.
    pub fn new() -> GameNodes {
        GameNodes::default()
    }

    /// No bindings required: every unbound node returns its declared defaults (the scene's
    /// `returns` overriding them) — the headless runner's mode.
    pub fn headless() -> GameNodes {
        GameNodes {
            bindings: HashMap::new(),
            headless: true,
        }
    }

    /// Whether unbound nodes are allowed (they return their defaults).
    pub fn is_headless(&self) -> bool {
        self.headless
    }

    /// Binds `kind` to `f` (replacing an earlier binding).
    pub fn bind(
        &mut self,
        kind: impl Into<String>,
        f: impl FnMut(&mut GameCall<'_>) -> Result<(), GameNodeError> + Send + Sync + 'static,
    ) -> &mut Self {
        self.bindings.insert(kind.into(), Box::new(f));
        self
    }

    /// Whether `kind` has a binding.
    pub fn is_bound(&self, kind: &str) -> bool {
        self.bindings.contains_key(kind)
    }

    /// The bound kinds, sorted.
    pub fn kinds(&self) -> Vec<&str> {
        let mut k: Vec<&str> = self.bindings.keys().map(String::as_str).collect();
        k.sort_unstable();
        k
    }
}

/// Per entity: what the headless recorder returns instead of the declared defaults, by kind
/// and output (a scene entity's `returns`).
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct GameReturns(pub Vec<(String, Vec<(String, Value)>)>);

/// One call of a game node, as its implementation sees it: the call's inputs and outputs
/// ([`CallIo`], through `Deref`: `call.f32("volume")?`, `call.set_bool("played", true)`) and
/// the game's world ([`GameCall::world`]).
pub struct GameCall<'w> {
    world: &'w mut World,
    io: CallIo<'w>,
}

impl fmt::Debug for GameCall<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.io.fmt(f)
    }
}

impl<'w> GameCall<'w> {
    /// A call of `import` by `entity` with `args` (inputs in declaration order); `outputs`
    /// holds the declared defaults and receives what the setters write.
    pub fn new(
        world: &'w mut World,
        entity: Entity,
        import: &'w Import,
        args: &'w [Value],
        outputs: &'w mut Vec<Value>,
    ) -> GameCall<'w> {
        GameCall {
            world,
            io: CallIo {
                entity,
                import: Cow::Borrowed(import),
                args: Cow::Borrowed(args),
                outputs: Outputs::Borrowed(outputs),
                misuse: None,
            },
        }
    }

    /// The game's world.
    pub fn world(&mut self) -> &mut World {
        self.world
    }

    /// The world and the call's inputs and outputs at once.
    pub fn split(&mut self) -> (&mut World, &mut CallIo<'w>) {
        (self.world, &mut self.io)
    }
}

impl<'w> std::ops::Deref for GameCall<'w> {
    type Target = CallIo<'w>;
    fn deref(&self) -> &CallIo<'w> {
        &self.io
    }
}

impl<'w> std::ops::DerefMut for GameCall<'w> {
    fn deref_mut(&mut self) -> &mut CallIo<'w> {
        &mut self.io
    }
}

enum Outputs<'a> {
    Borrowed(&'a mut Vec<Value>),
    Owned(Vec<Value>),
}

impl Outputs<'_> {
    fn slots(&self) -> &[Value] {
        match self {
            Outputs::Borrowed(v) => v,
            Outputs::Owned(v) => v,
        }
    }
    fn slots_mut(&mut self) -> &mut [Value] {
        match self {
            Outputs::Borrowed(v) => v,
            Outputs::Owned(v) => v,
        }
    }
}

/// A game node call's inputs and outputs: the calling entity, typed getters of the inputs by
/// name and typed setters of the outputs. [`GameCall`] derefs to it; `CallIo<'static>` is the
/// owned form a Bevy system bound with `add_sinew_node` receives and returns (it has no world:
/// the system takes what it needs as its own parameters; `docs/bridge.md`).
pub struct CallIo<'a> {
    entity: Entity,
    import: Cow<'a, Import>,
    args: Cow<'a, [Value]>,
    outputs: Outputs<'a>,
    /// A setter's misuse (unknown output, wrong type): the call fails with it.
    misuse: Option<GameNodeError>,
}

impl fmt::Debug for CallIo<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GameCall")
            .field("kind", &self.import.kind)
            .field("entity", &self.entity)
            .field("args", &self.args)
            .field("outputs", &self.outputs.slots())
            .finish()
    }
}

impl CallIo<'_> {
    /// An owned copy (the import and inputs copied, the outputs as set so far).
    pub fn to_owned_call(&self) -> CallIo<'static> {
        CallIo {
            entity: self.entity,
            import: Cow::Owned(self.import.clone().into_owned()),
            args: Cow::Owned(self.args.to_vec()),
            outputs: Outputs::Owned(self.outputs.slots().to_vec()),
            misuse: self.misuse.clone(),
        }
    }

    /// Takes the outputs (and any setter misuse) of `other`, a call of the same node (its
    /// owned copy, after an implementation ran on it).
    pub fn take_outputs(&mut self, other: CallIo<'_>) {
        let n = self.outputs.slots().len();
        if other.import.kind == self.import.kind && other.outputs.slots().len() == n {
            self.outputs
                .slots_mut()
                .clone_from_slice(other.outputs.slots());
        }
        if let Some(m) = other.misuse {
            self.misuse.get_or_insert(m);
        }
    }

    /// The outputs as they stand (declaration order).
    pub fn outputs(&self) -> &[Value] {
        self.outputs.slots()
    }

    /// The calling entity (the graph's own).
    pub fn entity(&self) -> Entity {
        self.entity
    }

    /// The node's kind (`game.play_sound`).
    pub fn kind(&self) -> &str {
        &self.import.kind
    }

    fn input(&self, name: &str, ty: Type) -> Result<&Value, GameNodeError> {
        let Some(i) = self.import.inputs.iter().position(|(n, _)| n == name) else {
            let names: Vec<&str> = self.import.inputs.iter().map(|p| p.0.as_str()).collect();
            return Err(GameNodeError(format!(
                "`{}` has no input `{name}` (inputs: {})",
                self.import.kind,
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            )));
        };
        let declared = self.import.inputs[i].1;
        if declared != ty {
            return Err(GameNodeError(format!(
                "input `{name}` of `{}` is {declared}, read as {ty}",
                self.import.kind
            )));
        }
        self.args
            .get(i)
            .ok_or_else(|| GameNodeError(format!("input `{name}` is missing")))
    }

    /// A `String` input.
    pub fn str(&self, name: &str) -> Result<&str, GameNodeError> {
        match self.input(name, Type::Str)? {
            Value::Str(s) => Ok(s),
            _ => Err(mismatch(name)),
        }
    }

    /// An `Int` input.
    pub fn int(&self, name: &str) -> Result<i64, GameNodeError> {
        match self.input(name, Type::Int)? {
            Value::Int(i) => Ok(*i),
            _ => Err(mismatch(name)),
        }
    }

    /// A `Float` input (the VM's `f64` rounded to `f32`).
    pub fn f32(&self, name: &str) -> Result<f32, GameNodeError> {
        self.f64(name).map(|x| x as f32)
    }

    /// A `Float` input at the VM's precision.
    pub fn f64(&self, name: &str) -> Result<f64, GameNodeError> {
        match self.input(name, Type::Float)? {
            Value::Float(x) => Ok(*x),
            _ => Err(mismatch(name)),
        }
    }

    /// A `Bool` input.
    pub fn bool(&self, name: &str) -> Result<bool, GameNodeError> {
        match self.input(name, Type::Bool)? {
            Value::Bool(b) => Ok(*b),
            _ => Err(mismatch(name)),
        }
    }

    /// A `Vec3` input.
    pub fn vec3(&self, name: &str) -> Result<glam::Vec3, GameNodeError> {
        match self.input(name, Type::Vec3)? {
            Value::Vec3(v) => Ok(glam::Vec3::from_array(*v)),
            _ => Err(mismatch(name)),
        }
    }

    /// An `Entity` input (the graph's own entity when the input is unlinked; an error when a
    /// linked value is unset).
    pub fn entity_in(&self, name: &str) -> Result<Entity, GameNodeError> {
        match self.input(name, Type::Entity)? {
            Value::Entity(Some(bits)) => Entity::try_from_bits(*bits)
                .ok_or_else(|| GameNodeError(format!("input `{name}` is not an entity"))),
            Value::Entity(None) => Err(GameNodeError(format!(
                "input `{name}` of `{}` is an unset entity",
                self.import.kind
            ))),
            _ => Err(mismatch(name)),
        }
    }

    fn set(&mut self, name: &str, v: Value) {
        match self.import.outputs.iter().position(|o| o.0 == name) {
            Some(i) if self.import.outputs[i].1 == v.ty() => {
                if let Some(slot) = self.outputs.slots_mut().get_mut(i) {
                    *slot = v;
                }
            }
            Some(i) => {
                self.misuse.get_or_insert(GameNodeError(format!(
                    "output `{name}` of `{}` is {}, set as {}",
                    self.import.kind,
                    self.import.outputs[i].1,
                    v.ty()
                )));
            }
            None => {
                let names: Vec<&str> = self.import.outputs.iter().map(|o| o.0.as_str()).collect();
                self.misuse.get_or_insert(GameNodeError(format!(
                    "`{}` has no output `{name}` (outputs: {})",
                    self.import.kind,
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                )));
            }
        }
    }

    /// Sets a `Float` output (a misnamed or mistyped output fails the call).
    pub fn set_f32(&mut self, name: &str, v: f32) {
        self.set(name, Value::Float(f64::from(v)));
    }
    /// Sets a `Float` output at the VM's precision.
    pub fn set_f64(&mut self, name: &str, v: f64) {
        self.set(name, Value::Float(v));
    }
    /// Sets an `Int` output.
    pub fn set_int(&mut self, name: &str, v: i64) {
        self.set(name, Value::Int(v));
    }
    /// Sets a `Bool` output.
    pub fn set_bool(&mut self, name: &str, v: bool) {
        self.set(name, Value::Bool(v));
    }
    /// Sets a `String` output.
    pub fn set_str(&mut self, name: &str, v: &str) {
        self.set(name, Value::Str(Arc::from(v)));
    }
    /// Sets a `Vec3` output.
    pub fn set_vec3(&mut self, name: &str, v: glam::Vec3) {
        self.set(name, Value::Vec3(v.to_array()));
    }
    /// Sets an `Entity` output (`None`: unset).
    pub fn set_entity(&mut self, name: &str, v: Option<Entity>) {
        self.set(name, Value::Entity(v.map(Entity::to_bits)));
    }
}

fn mismatch(name: &str) -> GameNodeError {
    GameNodeError(format!("input `{name}` does not hold its declared type"))
}

/// Why a graph cannot be spawned in a world that binds game nodes: a kind it calls has no
/// binding (`None` when every call is bound, or the world runs headless).
pub fn unbound<'a>(world: &World, imports: impl IntoIterator<Item = &'a Import>) -> Option<String> {
    let nodes = world.get_resource::<GameNodes>()?;
    if nodes.headless {
        return None;
    }
    imports
        .into_iter()
        .find(|i| !nodes.is_bound(&i.kind))
        .map(|i| i.kind.clone())
}

/// Runs one game node call for `entity`'s graph `graph` (node `node`): the binding, or the
/// recorder's defaults and `returns`; then the `call` record when the world traces.
pub(crate) fn call(
    world: &mut World,
    entity: Entity,
    graph: &Arc<str>,
    node: &str,
    import: &Import,
    args: &[Value],
    outputs: &mut Vec<Value>,
) -> Result<(), String> {
    outputs.clear();
    outputs.extend(import.outputs.iter().map(|(_, _, d)| default_value(d)));
    let bound = world
        .get_resource::<GameNodes>()
        .map(|n| (n.is_bound(&import.kind), n.headless));
    let result = match bound {
        Some((true, _)) => {
            // The binding is taken out for the call (a zero-sized stand-in, no allocation)
            // rather than the whole resource (`resource_scope` costs more than the call).
            let Some(mut f) = world.get_resource_mut::<GameNodes>().and_then(|mut n| {
                n.bindings
                    .get_mut(&import.kind)
                    .map(|slot| std::mem::replace(slot, Box::new(running)))
            }) else {
                return Ok(());
            };
            let mut call = GameCall::new(world, entity, import, args, outputs);
            let r = f(&mut call);
            let misuse = call.io.misuse.take();
            if let Some(mut nodes) = world.get_resource_mut::<GameNodes>()
                && let Some(slot) = nodes.bindings.get_mut(&import.kind)
            {
                *slot = f;
            }
            r.and(misuse.map_or(Ok(()), Err)).map_err(|e| e.0)
        }
        Some((false, false)) => Err(format!(
            "no binding for `{}` (bind it with `GameNodes::bind`)",
            import.kind
        )),
        _ => {
            returns(world, entity, import, outputs);
            Ok(())
        }
    };
    if world.contains_resource::<trace::Trace>() {
        let named = |names: &mut dyn Iterator<Item = &String>, values: &[Value]| {
            names
                .zip(values)
                .map(|(n, v)| (Arc::<str>::from(n.as_str()), v.clone()))
                .collect::<Vec<_>>()
        };
        let inputs = named(&mut import.inputs.iter().map(|p| &p.0), args);
        let outs = named(&mut import.outputs.iter().map(|p| &p.0), outputs);
        trace::record(
            world,
            TraceKind::Call {
                entity,
                graph: graph.clone(),
                node: node.to_string(),
                call: Arc::from(import.kind.as_str()),
                inputs,
                outputs: outs,
            },
        );
    }
    result
}

/// What a binding's slot holds while its implementation runs: a call of the same kind from
/// inside it fails instead of running it re-entrantly.
fn running(call: &mut GameCall<'_>) -> Result<(), GameNodeError> {
    Err(GameNodeError(format!(
        "`{}` called again while its implementation runs",
        call.kind()
    )))
}

/// The scene's `returns` for this entity and kind, over the defaults.
fn returns(world: &World, entity: Entity, import: &Import, outputs: &mut [Value]) {
    let Some(r) = world.get::<GameReturns>(entity) else {
        return;
    };
    let Some((_, values)) = r.0.iter().find(|(k, _)| *k == import.kind) else {
        return;
    };
    for (name, v) in values {
        if let Some(i) = import.outputs.iter().position(|o| o.0 == *name)
            && import.outputs[i].1 == v.ty()
        {
            outputs[i] = v.clone();
        }
    }
}

fn default_value(c: &Const) -> Value {
    c.to_value(None)
}
