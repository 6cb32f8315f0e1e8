//! Game nodes at run time (`bridge.md` §1): the game binds each declared `game.*` kind to an
//! implementation in the [`GameNodes`] resource; a graph's call reaches it through the VM's
//! `Host::game` with a typed [`GameCall`] (inputs by name, output setters, `&mut World`).
//!
//! Without a binding — the headless runner ([`GameNodes::headless`], `sinew run`, the studio)
//! or a world without the resource — a call returns the declared output defaults, overridden
//! per entity by the scene's `returns` ([`GameReturns`]). When the world traces, every call adds
//! one `call` record (inputs in declaration order, the outputs it returned).

mod declared;
mod io;

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use bevy_ecs::prelude::*;

use super::hub::Value;
use super::trace::{self, TraceKind};
use crate::bytecode::{Const, Import};

pub use declared::GameDeclarations;
pub(crate) use declared::{scene_mismatch, world_mismatch};
pub use io::{CallIo, GameCall};

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
///
/// Bindings live in a vector that only grows (a kind keeps its slot when it is bound again);
/// the kind → slot map is read when a graph instance resolves its module's imports
/// ([`ImportSlots`]: at attach, and again only after a new kind is bound), never per call.
#[derive(Resource)]
pub struct GameNodes {
    bindings: Vec<Binding>,
    slots: HashMap<String, u32>,
    headless: bool,
    /// Changes whenever the kind → slot map does; unique across every `GameNodes` value, so a
    /// resolution made against one is never taken for another's.
    generation: u64,
}

struct Binding {
    kind: String,
    /// `None` while its implementation runs (a call of the same kind from inside it fails
    /// instead of running it re-entrantly).
    f: Option<GameNodeFn>,
}

/// The next [`GameNodes::generation`] (0 is never handed out: an unresolved [`ImportSlots`]).
fn next_generation() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl Default for GameNodes {
    fn default() -> Self {
        GameNodes {
            bindings: Vec::new(),
            slots: HashMap::new(),
            headless: false,
            generation: next_generation(),
        }
    }
}

impl fmt::Debug for GameNodes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GameNodes")
            .field("bound", &self.kinds())
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
            headless: true,
            ..GameNodes::default()
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
        let kind = kind.into();
        let f: GameNodeFn = Box::new(f);
        match self.slots.get(&kind) {
            Some(&i) => self.bindings[i as usize].f = Some(f),
            None => {
                let i = u32::try_from(self.bindings.len()).unwrap_or(u32::MAX);
                self.slots.insert(kind.clone(), i);
                self.bindings.push(Binding { kind, f: Some(f) });
                self.generation = next_generation();
            }
        }
        self
    }

    /// Whether `kind` has a binding.
    pub fn is_bound(&self, kind: &str) -> bool {
        self.slots.contains_key(kind)
    }

    /// The bound kinds, sorted.
    pub fn kinds(&self) -> Vec<&str> {
        let mut k: Vec<&str> = self.bindings.iter().map(|b| b.kind.as_str()).collect();
        k.sort_unstable();
        k
    }
}

/// Per graph instance: each import of its module resolved to its binding's slot in the
/// world's [`GameNodes`] (`None`: unbound), for the `GameNodes` generation it was made against.
/// Resolved at attach and again only when the bindings' kinds change, so a call indexes a
/// vector instead of hashing its kind.
#[derive(Debug, Default)]
pub(crate) struct ImportSlots {
    generation: u64,
    slots: Vec<Option<u32>>,
}

impl ImportSlots {
    /// Resolves `imports` against `nodes` (when not already resolved against this generation).
    pub(crate) fn resolve(&mut self, nodes: &GameNodes, imports: &[Import]) {
        if self.generation == nodes.generation {
            return;
        }
        self.slots.clear();
        self.slots
            .extend(imports.iter().map(|i| nodes.slots.get(&i.kind).copied()));
        self.generation = nodes.generation;
    }

    /// Import `index`'s slot in `nodes`.
    fn slot(&mut self, nodes: &GameNodes, imports: &[Import], index: usize) -> Option<usize> {
        self.resolve(nodes, imports);
        self.slots.get(index).copied().flatten().map(|s| s as usize)
    }
}

/// Per entity: what the headless recorder returns instead of the declared defaults, by kind
/// and output (a scene entity's `returns`).
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct GameReturns(pub Vec<(String, Vec<(String, Value)>)>);

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

/// Where a call comes from: the calling entity, its graph and node, and the instance's
/// resolved imports.
pub(crate) struct Caller<'a> {
    pub entity: Entity,
    pub graph: &'a Arc<str>,
    pub node: &'a str,
    pub slots: &'a mut ImportSlots,
    /// The calling module's import table.
    pub imports: &'a [Import],
}

/// What a call runs: the binding taken out of its slot, or the headless recorder.
enum Target {
    Bound(usize, GameNodeFn),
    Running,
    Unbound,
    Recorder,
}

/// Runs a call of import `index` (`import`) for `from`: the binding, or the recorder's
/// defaults and `returns`; then the `call` record when the world traces.
pub(crate) fn call(
    world: &mut World,
    from: Caller<'_>,
    index: usize,
    import: &Import,
    args: &[Value],
    outputs: &mut Vec<Value>,
) -> Result<(), String> {
    outputs.clear();
    outputs.extend(import.outputs.iter().map(|(_, _, d)| default_value(d)));
    // One resource access takes the binding out of its slot (found by index: the kind is
    // hashed only when the instance resolves its imports).
    let target = match world.get_resource_mut::<GameNodes>() {
        None => Target::Recorder,
        Some(mut nodes) => {
            let nodes = &mut *nodes;
            match from.slots.slot(nodes, from.imports, index) {
                Some(s) => match nodes.bindings[s].f.take() {
                    Some(f) => Target::Bound(s, f),
                    None => Target::Running,
                },
                None if nodes.headless => Target::Recorder,
                None => Target::Unbound,
            }
        }
    };
    let result = match target {
        Target::Bound(slot, mut f) => {
            let mut call = GameCall::new(world, from.entity, import, args, outputs);
            let r = f(&mut call);
            let misuse = call.io.misuse.take();
            // Back into its slot, unless the implementation bound the kind anew meanwhile.
            if let Some(mut nodes) = world.get_resource_mut::<GameNodes>()
                && let Some(b) = nodes.bindings.get_mut(slot)
                && b.f.is_none()
                && b.kind == import.kind
            {
                b.f = Some(f);
            }
            r.and(misuse.map_or(Ok(()), Err)).map_err(|e| e.0)
        }
        Target::Running => Err(format!(
            "`{}` called again while its implementation runs",
            import.kind
        )),
        Target::Unbound => Err(format!(
            "no binding for `{}` (bind it with `GameNodes::bind`)",
            import.kind
        )),
        Target::Recorder => {
            returns(world, from.entity, import, outputs);
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
                entity: from.entity,
                graph: from.graph.clone(),
                node: from.node.to_string(),
                call: Arc::from(import.kind.as_str()),
                inputs,
                outputs: outs,
            },
        );
    }
    result
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
