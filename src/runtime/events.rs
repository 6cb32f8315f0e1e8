//! Events out (`bridge.md` §2): what the game hears. Every notify and window edge the notify
//! step publishes and every graph `event.send custom::NAME` becomes one [`GameEvent`], in the
//! order the trace lists them, exactly once, in the tick it happens, whether or not a graph
//! handles it. They collect in the [`GameEvents`] resource (one tick's worth unless drained,
//! bounded) and are handed to the callbacks registered with [`on_event`] at the end of the
//! tick's flush.
//!
//! Hooks: the notify step ([`record_notify`]) and the VM host's `event.send` ([`record_custom`])
//! push; the schedule clears the previous tick's events at [`SinewSet::Time`](super::SinewSet)
//! ([`begin_tick`]) and runs the callbacks right after the flush ([`run_callbacks`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use bevy_ecs::prelude::*;

use super::animator::{ClipNotify, Fired};
use super::hub::Value;
use super::time::GameTime;
use super::trace::{self, NotifyFields};
use crate::crossing::Edge;
use crate::types::Type;

/// Most events [`GameEvents`] keeps in one tick by default; later ones are counted and
/// reported, not kept.
pub const DEFAULT_GAME_EVENT_LIMIT: usize = 1 << 16;

/// A notify crossing or a window edge, as the game hears it.
#[derive(Debug, Clone, PartialEq)]
pub struct NotifyEvent {
    /// The tick it happened in.
    pub tick: u64,
    /// That tick's start time in seconds.
    pub time: f64,
    /// The entity whose channel it was published to.
    pub entity: Entity,
    /// The entity whose clip fired it.
    pub source: Entity,
    /// The identity `animseq::S.N`.
    pub event: Arc<str>,
    /// The catalog's display name (`Run / Footstep L`).
    pub name: Arc<str>,
    /// The animator clip slot that played it.
    pub clip: Arc<str>,
    /// Clip time of the notify (of the edge, for a window).
    pub clip_time: f64,
    /// Cycle of the occurrence.
    pub cycle: i64,
    /// The clip's effective weight at the update that fired it.
    pub weight: f32,
    /// The typed fields by name, in authored order.
    pub fields: NotifyFields,
    /// The notify's (or window's) ID within its sequence (`footstep_l`).
    pub id: Arc<str>,
}

/// A graph's `event.send custom::NAME`, as the game hears it.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomEvent {
    /// The tick it was sent in.
    pub tick: u64,
    /// That tick's start time in seconds.
    pub time: f64,
    /// The entity it was sent to.
    pub target: Entity,
    /// The entity whose graph sent it.
    pub sender: Option<Entity>,
    /// The identity `custom::NAME`.
    pub event: Arc<str>,
    /// `NAME`.
    pub name: Arc<str>,
    /// The payload's fields by name, in declaration order.
    pub fields: NotifyFields,
}

/// One thing the game hears (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub enum GameEvent {
    /// A point notify delivered to an entity's channel.
    Notify(NotifyEvent),
    /// A window's begin edge.
    WindowBegin(NotifyEvent),
    /// A window's end edge (always after its begin); `completed` when the window reached its
    /// end edge, false when it was cut short.
    WindowEnd {
        /// The window.
        window: NotifyEvent,
        /// Reached its end edge.
        completed: bool,
    },
    /// A graph's `event.send custom::NAME` (handled by a graph or not).
    Custom(CustomEvent),
}

/// Typed reads of a field list: `None` when the field is absent or of another type.
macro_rules! typed_getters {
    () => {
        /// The value of field `name`.
        pub fn field(&self, name: &str) -> Option<&Value> {
            self.fields_ref()
                .iter()
                .find(|(n, _)| &**n == name)
                .map(|(_, v)| v)
        }

        /// A `float` field, as `f32`.
        pub fn f32(&self, name: &str) -> Option<f32> {
            self.f64(name).map(|v| v as f32)
        }

        /// A `float` field.
        pub fn f64(&self, name: &str) -> Option<f64> {
            match self.field(name)? {
                Value::Float(v) => Some(*v),
                _ => None,
            }
        }

        /// An `int` field.
        pub fn int(&self, name: &str) -> Option<i64> {
            match self.field(name)? {
                Value::Int(v) => Some(*v),
                _ => None,
            }
        }

        /// A `bool` field.
        pub fn bool(&self, name: &str) -> Option<bool> {
            match self.field(name)? {
                Value::Bool(v) => Some(*v),
                _ => None,
            }
        }

        /// A `string` field.
        pub fn str(&self, name: &str) -> Option<&str> {
            match self.field(name)? {
                Value::Str(v) => Some(v),
                _ => None,
            }
        }

        /// A `vec3` field.
        pub fn vec3(&self, name: &str) -> Option<glam::Vec3> {
            match self.field(name)? {
                Value::Vec3(v) => Some(glam::Vec3::from_array(*v)),
                _ => None,
            }
        }

        /// An `entity` field that is set (`None` also when it is unset).
        pub fn entity_field(&self, name: &str) -> Option<Entity> {
            match self.field(name)? {
                Value::Entity(Some(bits)) => Entity::try_from_bits(*bits),
                _ => None,
            }
        }
    };
}

impl NotifyEvent {
    fn fields_ref(&self) -> &[(Arc<str>, Value)] {
        &self.fields
    }

    typed_getters!();

    /// Whether this is notify (or window) `id` of its sequence: `ev.is("footstep_l")`.
    pub fn is(&self, id: &str) -> bool {
        *self.id == *id
    }

    /// Whether its identity is `identity` (`animseq::S.N`).
    pub fn is_event(&self, identity: &str) -> bool {
        *self.event == *identity
    }
}

impl CustomEvent {
    fn fields_ref(&self) -> &[(Arc<str>, Value)] {
        &self.fields
    }

    typed_getters!();

    /// Whether this is `custom::NAME` for `name` (`ev.is_custom("hit")`).
    pub fn is_custom(&self, name: &str) -> bool {
        *self.name == *name
    }

    /// Whether its identity is `identity` (`custom::NAME`).
    pub fn is_event(&self, identity: &str) -> bool {
        *self.event == *identity
    }
}

impl GameEvent {
    fn fields_ref(&self) -> &[(Arc<str>, Value)] {
        match self {
            GameEvent::Notify(n) | GameEvent::WindowBegin(n) => &n.fields,
            GameEvent::WindowEnd { window, .. } => &window.fields,
            GameEvent::Custom(c) => &c.fields,
        }
    }

    typed_getters!();

    /// The notify or window edge (`None` for a custom event).
    pub fn notify(&self) -> Option<&NotifyEvent> {
        match self {
            GameEvent::Notify(n) | GameEvent::WindowBegin(n) => Some(n),
            GameEvent::WindowEnd { window, .. } => Some(window),
            GameEvent::Custom(_) => None,
        }
    }

    /// The custom event (`None` for a notify or window edge).
    pub fn custom(&self) -> Option<&CustomEvent> {
        match self {
            GameEvent::Custom(c) => Some(c),
            _ => None,
        }
    }

    /// The entity it concerns: a notify's or window edge's channel, a custom event's target.
    pub fn entity(&self) -> Entity {
        match self {
            GameEvent::Custom(c) => c.target,
            _ => self.notify().map_or(Entity::PLACEHOLDER, |n| n.entity),
        }
    }

    /// The tick it happened in.
    pub fn tick(&self) -> u64 {
        match self {
            GameEvent::Custom(c) => c.tick,
            _ => self.notify().map_or(0, |n| n.tick),
        }
    }

    /// Its identity (`animseq::S.N` or `custom::NAME`).
    pub fn identity(&self) -> &str {
        match self {
            GameEvent::Custom(c) => &c.event,
            _ => self.notify().map_or("", |n| &n.event),
        }
    }

    /// A notify or window edge whose ID within its sequence is `id` (`ev.is("footstep_l")`);
    /// false for custom events (see [`GameEvent::is_custom`]).
    pub fn is(&self, id: &str) -> bool {
        self.notify().is_some_and(|n| n.is(id))
    }

    /// Whether its identity is `identity` (`animseq::S.N`, or `custom::NAME`).
    pub fn is_event(&self, identity: &str) -> bool {
        self.identity() == identity
    }

    /// A custom event `custom::NAME` for `name` (`ev.is_custom("hit")`).
    pub fn is_custom(&self, name: &str) -> bool {
        self.custom().is_some_and(|c| c.is_custom(name))
    }
}

/// The game's events of the current tick (inserted by
/// [`init_world`](super::init_world)). Drain them after [`SinewSet::Flush`](super::SinewSet)
/// with [`GameEvents::drain`]; whatever is not drained is dropped when the next tick begins, so
/// a game that never reads keeps at most one tick's events. At most `limit` are kept per tick;
/// later ones are counted and reported (an `error` record: `N game event(s) dropped: more than
/// LIMIT in one tick`).
#[derive(Resource, Debug, Clone)]
pub struct GameEvents {
    events: Vec<GameEvent>,
    limit: usize,
    dropped: u64,
}

impl Default for GameEvents {
    fn default() -> Self {
        GameEvents::with_limit(DEFAULT_GAME_EVENT_LIMIT)
    }
}

impl GameEvents {
    /// An empty resource keeping at most `limit` events per tick.
    pub fn with_limit(limit: usize) -> GameEvents {
        GameEvents {
            events: Vec::new(),
            limit,
            dropped: 0,
        }
    }

    /// Takes this tick's events, in trace order.
    pub fn drain(&mut self) -> std::vec::Drain<'_, GameEvent> {
        self.events.drain(..)
    }

    /// This tick's events not drained yet, in trace order.
    pub fn events(&self) -> &[GameEvent] {
        &self.events
    }

    /// Most events kept per tick.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Events refused this tick because `limit` was reached.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    fn push(&mut self, event: GameEvent) {
        if self.events.len() < self.limit {
            self.events.push(event);
        } else {
            self.dropped = self.dropped.saturating_add(1);
        }
    }
}

/// A callback registered with [`on_event`].
pub type EventCallback = Box<dyn FnMut(&mut World, &GameEvent) + Send + Sync + 'static>;

/// The callbacks registered with [`on_event`], in registration order.
#[derive(Resource, Default)]
pub struct EventCallbacks(Vec<EventCallback>);

/// Calls `f` with every [`GameEvent`], in trace order, once per event, at the end of the
/// flush of the tick it happened in ([`SinewSet::Flush`](super::SinewSet)); `f` gets the
/// world (so it may [`send`](super::send) events, delivered at the next tick's flush).
pub fn on_event(world: &mut World, f: impl FnMut(&mut World, &GameEvent) + Send + Sync + 'static) {
    world
        .get_resource_or_insert_with(EventCallbacks::default)
        .0
        .push(Box::new(f));
    if !world.contains_resource::<GameEvents>() {
        world.insert_resource(GameEvents::default());
    }
}

/// Per spawned graph entity: the custom event payloads its scene's graphs declare (name →
/// fields in declaration order). Names the fields of the custom events it sends and checks
/// what the game sends it ([`send`](super::send)).
#[derive(Component, Debug, Clone, Default)]
pub struct DeclaredPayloads(pub Arc<BTreeMap<String, PayloadFields>>);

/// A custom event's declared payload: (field, type) in declaration order.
pub type PayloadFields = Arc<[(Arc<str>, Type)]>;

impl DeclaredPayloads {
    /// From the loader's agreed payloads (`SceneAssets::payloads`).
    pub fn new(payloads: &BTreeMap<String, Vec<(String, Type)>>) -> DeclaredPayloads {
        DeclaredPayloads(Arc::new(
            payloads
                .iter()
                .map(|(name, fields)| {
                    let fields: PayloadFields = fields
                        .iter()
                        .map(|(n, t)| (Arc::from(n.as_str()), *t))
                        .collect();
                    (name.clone(), fields)
                })
                .collect(),
        ))
    }

    /// The fields of `custom::NAME` for `name` (`None`: not declared, the empty payload).
    pub fn get(&self, name: &str) -> Option<&[(Arc<str>, Type)]> {
        self.0.get(name).map(|f| &f[..])
    }
}

fn stamp(world: &World) -> (u64, f64) {
    world
        .get_resource::<GameTime>()
        .map_or((0, 0.0), |t| (t.tick(), t.time()))
}

/// The notify step's hook: a published notify or window edge (also one traced but not
/// delivered because its entity is gone), right where its trace record is written.
pub(crate) fn record_notify(world: &mut World, target: Entity, f: &Fired, notify: &ClipNotify) {
    if !world.contains_resource::<GameEvents>() {
        return;
    }
    let (tick, time) = stamp(world);
    let n = NotifyEvent {
        tick,
        time,
        entity: target,
        source: f.owner,
        event: notify.identity.clone(),
        name: notify.name.clone(),
        clip: f.slot.clone(),
        clip_time: f.crossing.clip_time,
        cycle: f.crossing.cycle,
        weight: f.weight as f32,
        fields: notify.fields.clone(),
        id: notify.local.clone(),
    };
    let event = match f.crossing.edge {
        None => GameEvent::Notify(n),
        Some(Edge::Begin) => GameEvent::WindowBegin(n),
        Some(Edge::End) => GameEvent::WindowEnd {
            window: n,
            completed: f.completed,
        },
    };
    if let Some(mut events) = world.get_resource_mut::<GameEvents>() {
        events.push(event);
    }
}

/// The VM host's hook: a graph's `event.send custom::NAME` that was queued.
pub(crate) fn record_custom(
    world: &mut World,
    event: &str,
    target: Entity,
    sender: Entity,
    values: &[Value],
) {
    if !world.contains_resource::<GameEvents>() {
        return;
    }
    let (tick, time) = stamp(world);
    let name = event.strip_prefix("custom::").unwrap_or(event);
    let fields: NotifyFields = match world
        .get::<DeclaredPayloads>(sender)
        .and_then(|d| d.get(name))
    {
        Some(declared) => declared
            .iter()
            .zip(values)
            .map(|((n, _), v)| (n.clone(), v.clone()))
            .collect(),
        None => Arc::new([]),
    };
    let c = CustomEvent {
        tick,
        time,
        target,
        sender: Some(sender),
        event: Arc::from(event),
        name: Arc::from(name),
        fields,
    };
    if let Some(mut events) = world.get_resource_mut::<GameEvents>() {
        events.push(GameEvent::Custom(c));
    }
}

/// Step 0's companion (in [`SinewSet::Time`](super::SinewSet)): the previous tick's events
/// that were not drained are dropped, so nothing grows when nobody reads.
pub fn begin_tick(mut events: Option<ResMut<GameEvents>>) {
    if let Some(events) = events.as_deref_mut()
        && (!events.events.is_empty() || events.dropped > 0)
    {
        events.events.clear();
        events.dropped = 0;
    }
}

/// Right after the flush (in [`SinewSet::Flush`](super::SinewSet)): reports events dropped at
/// the limit and hands this tick's events to the [`on_event`] callbacks, in order.
pub fn run_callbacks(world: &mut World) {
    let Some(mut events) = world.get_resource_mut::<GameEvents>() else {
        return;
    };
    let (dropped, limit) = (events.dropped, events.limit);
    if dropped > 0 {
        // Reported once: the count restarts (the kept events stay).
        events.dropped = 0;
        trace::report(
            world,
            format!("{dropped} game event(s) dropped: more than {limit} in one tick"),
        );
    }
    let has_callbacks = world
        .get_resource::<EventCallbacks>()
        .is_some_and(|c| !c.0.is_empty());
    if !has_callbacks {
        return;
    }
    let Some(mut callbacks) = world
        .get_resource_mut::<EventCallbacks>()
        .map(|mut c| std::mem::take(&mut c.0))
    else {
        return;
    };
    let taken = world
        .get_resource_mut::<GameEvents>()
        .map(|mut e| std::mem::take(&mut e.events))
        .unwrap_or_default();
    for event in &taken {
        for f in callbacks.iter_mut() {
            f(world, event);
        }
    }
    if let Some(mut slot) = world.get_resource_mut::<EventCallbacks>() {
        // Callbacks registered by a callback run from the next tick on.
        callbacks.append(&mut slot.0);
        slot.0 = callbacks;
    }
    if let Some(mut events) = world.get_resource_mut::<GameEvents>() {
        // Still there for a game that drains after the flush.
        let mut taken = taken;
        taken.append(&mut events.events);
        events.events = taken;
    }
}
