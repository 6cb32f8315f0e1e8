//! The event hub: interned event identities, per-entity channels, subscriptions, the deferred
//! publish queue and the round-based flush that hands each delivery to a pluggable [`Dispatch`].
//!
//! # Model
//!
//! * An event is an identity ([`EventId`], interned from names such as `animseq::S.N`,
//!   `custom::NAME`, `tick`, `begin_play`), a [`Channel`] and a [`Payload`].
//! * A [`Subscriber`] (entity, graph instance index, handler index) subscribes to one exact
//!   `(identity, channel)` pair. Publishing to `Entity(e)` reaches only the subscribers of that
//!   pair; publishing to `Global` reaches only the `Global` subscribers of that identity.
//! * Every publish is deferred into a queue. [`flush`] delivers the queue in publish order; events
//!   published by handlers during a flush are delivered in later rounds of the same flush, up to
//!   [`MAX_FLUSH_ROUNDS`] rounds and up to the hub's delivery limit (handler invocations per
//!   flush, [`DEFAULT_FLUSH_DELIVERIES`] unless set; the flush stops between two events, never
//!   between two subscribers of one). Whatever is left stays queued (at the front, in order) for
//!   the next flush and the flush reports an [`Overrun`]. So an event storm — a handler sending
//!   to itself twice — costs at most the delivery limit per flush, however long it runs.
//! * Despawning an entity that carries [`GraphInstances`] clears its channel: its subscriptions
//!   are removed and queued events for it are dropped, silently. Deliveries to an entity that
//!   died during the current round are skipped (counted in [`FlushReport::dropped`]).
//!
//! # Hot path
//!
//! Identities are `u32`. Entity channels live in a dense table indexed by entity index (a hash
//! map only for indices ≥ 2²⁰), each holding its subscriptions sorted by identity; `Global`
//! subscriptions are in a small integer-keyed map. Notify fields are registered once per
//! identity, so events carry no reference counts. Queues, the per-round delivery list and the
//! spare round buffer are reused between flushes: a steady-state flush allocates nothing per
//! event.

mod flush;
mod queue;
mod steps;
mod table;

use std::collections::HashMap;
use std::collections::HashSet;
use std::sync::Arc;

use bevy_ecs::lifecycle::HookContext;
use bevy_ecs::prelude::*;
use bevy_ecs::world::DeferredWorld;

pub use crate::runtime::time::Continuation;
pub use flush::{FlushLimit, FlushReport, LastFlush, Overrun, flush, flush_events};
pub use queue::{Delivery, Dispatch, Dispatcher, NoopDispatch, Publisher};
pub use steps::{publish_tick, resume_delays};
use table::{IntMap, IntSet, SubEntry, SubKey, SubTable};

/// Maximum number of delivery rounds in one flush (round 1 is the queue as it stood when the
/// flush began; later rounds carry events published by handlers).
pub const MAX_FLUSH_ROUNDS: u32 = 16;

/// Default bound on the number of events one queue may hold; further publishes are dropped and
/// counted (see [`Publisher::dropped`]). Keeps a runaway graph from allocating without bound.
pub const DEFAULT_QUEUE_LIMIT: usize = 1 << 20;

/// Default bound on handler invocations in one flush (see [`EventHub::set_delivery_limit`]).
pub const DEFAULT_FLUSH_DELIVERIES: u64 = 1 << 16;

/// Maximum number of distinct interned identities.
pub const MAX_IDENTITIES: usize = 1 << 24;

// ---------------------------------------------------------------------------------------------
// Values and payloads
// ---------------------------------------------------------------------------------------------

/// A runtime value carried by events. Maps one-to-one onto graph data types (`graph.md`):
///
/// | graph type | variant |
/// | --- | --- |
/// | `bool` | `Bool` |
/// | `int` (i64) | `Int` |
/// | `float` (f64) | `Float` |
/// | `vec3` (three f32) | `Vec3` |
/// | `string` | `Str` (shared, cloning is a reference-count increment) |
/// | `entity` | `Entity` (`Some(Entity::to_bits())`, or `None` for "no entity") |
pub use crate::bytecode::Value;

/// Runtime context of a notify crossing or window edge (`event animseq::S.N` output pins
/// `entity`, `time`, `clip_time`, `cycle`, `clip_weight`, and a window's `completed`). The typed
/// fields are constant per identity: register them once with [`EventHub::set_notify_fields`];
/// handlers receive them as [`Delivery::fields`]. Keeping them out of the payload makes a
/// crossing a plain value (no reference counting).
#[derive(Debug, Clone, PartialEq)]
pub struct Notify {
    /// The entity playing the sequence (`entity` pin), as [`Entity::to_bits`].
    pub source: u64,
    /// Canonical unwrapped playback time of the occurrence (`time` pin); for an end that cut
    /// a window short, the playback time at the cut.
    pub time: f64,
    /// Clip time of the notify (`clip_time` pin).
    pub clip_time: f64,
    /// Cycle index `k` (`cycle` pin).
    pub cycle: i64,
    /// The clip's effective weight at the update that fired it (`clip_weight` pin).
    pub weight: f64,
    /// A window's edge (runs the begin or the end handler); `None` for a point notify.
    pub edge: Option<crate::crossing::Edge>,
    /// An end reached at the window's end edge (`completed` pin; false on begins and cuts).
    pub completed: bool,
}

impl Notify {
    /// A point notify's context (weight 1, no edge).
    pub fn point(source: u64, time: f64, clip_time: f64, cycle: i64) -> Notify {
        Notify {
            source,
            time,
            clip_time,
            cycle,
            weight: 1.0,
            edge: None,
            completed: false,
        }
    }
}

/// What an event carries. The VM maps each variant onto the event node's output pins.
#[derive(Debug, Clone, PartialEq)]
pub enum Payload {
    /// No data (`begin_play`).
    None,
    /// `tick`: the update's `dt` in seconds (`dt` pin).
    Tick {
        /// Seconds this update advances.
        dt: f64,
    },
    /// `animseq::S.N`: a notify crossing.
    Notify(Notify),
    /// `custom::NAME`: the sending entity (`sender` pin), `None` when sent by the host/scene,
    /// and the payload's typed fields in declaration order (the pins after `sender`).
    Custom {
        /// [`Entity::to_bits`] of the sender.
        sender: Option<u64>,
        /// The declared fields' values (empty without a payload: no allocation).
        values: Box<[Value]>,
    },
    /// Free-form values for host-defined events.
    Values(Arc<[Value]>),
}

// ---------------------------------------------------------------------------------------------
// Identities, channels, events, subscribers
// ---------------------------------------------------------------------------------------------

/// An interned event identity. Obtain one with [`EventHub::intern`]; compare integers, not names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventId(pub u32);

impl EventId {
    /// The built-in `tick` identity (always interned first).
    pub const TICK: EventId = EventId(0);
    /// The built-in `begin_play` identity (always interned second).
    pub const BEGIN_PLAY: EventId = EventId(1);
}

/// Where an event is published and what subscribers listen on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Channel {
    /// The world-wide channel.
    Global,
    /// One entity's channel, keyed by [`Entity::to_bits`].
    Entity(u64),
}

impl Channel {
    /// The channel of `entity`.
    pub fn of(entity: Entity) -> Channel {
        Channel::Entity(entity.to_bits())
    }
}

/// One published event.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// Interned identity.
    pub id: EventId,
    /// Channel it was published to.
    pub channel: Channel,
    /// Data it carries.
    pub payload: Payload,
}

/// A handler of one graph instance on one entity: the unit that receives deliveries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Subscriber {
    /// Entity hosting the graph instance.
    pub entity: Entity,
    /// Index of the graph instance on that entity.
    pub instance: u32,
    /// Index of the handler in the instance's compiled module.
    pub handler: u32,
}

// ---------------------------------------------------------------------------------------------
// Graph instance marker
// ---------------------------------------------------------------------------------------------

/// Marks an entity that hosts graph instances (the VM keeps the instances' state itself).
///
/// Inserting it (with the [`EventHub`] present) registers the entity for `tick` (in attach order)
/// and queues `begin_play` on its channel; removing it or despawning the entity clears the
/// entity's channel (subscriptions removed, queued events for it dropped).
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
#[component(on_add = graph_instances_added, on_remove = graph_instances_removed)]
pub struct GraphInstances {
    /// Number of graph instances on the entity (informational).
    pub count: u32,
}

fn graph_instances_added(mut world: DeferredWorld, ctx: HookContext) {
    if let Some(mut hub) = world.get_resource_mut::<EventHub>() {
        hub.host_attached(ctx.entity);
    }
}

fn graph_instances_removed(mut world: DeferredWorld, ctx: HookContext) {
    if let Some(mut hub) = world.get_resource_mut::<EventHub>() {
        hub.host_detached(ctx.entity);
    }
}

// ---------------------------------------------------------------------------------------------
// The hub
// ---------------------------------------------------------------------------------------------

/// Errors of hub operations.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HubError {
    /// More than [`MAX_IDENTITIES`] identities were interned.
    #[error("too many event identities (limit {MAX_IDENTITIES})")]
    TooManyIdentities,
}

/// The event hub resource: interner, subscription table and the deferred queue.
#[derive(Resource)]
pub struct EventHub {
    ids: HashMap<Arc<str>, EventId>,
    names: Vec<Arc<str>>,
    subs: SubTable,
    /// For channel clearing: every key each entity subscribed under.
    keys_of: IntMap<u64, HashSet<SubKey>>,
    queue: Publisher,
    /// Typed notify fields per identity (index = `EventId.0`); shared with a running flush.
    fields: Arc<Vec<Box<[Value]>>>,
    /// Entities with [`GraphInstances`], in attach order (tick order).
    hosts: Vec<Entity>,
    /// Hosts removed since the last compaction of `hosts`.
    removed_hosts: IntSet<u64>,
    /// Reused buffers for [`flush`].
    spare: Vec<Event>,
    deliveries: Vec<(usize, Subscriber)>,
    /// Most handler invocations one flush makes.
    delivery_limit: u64,
    /// Set while [`flush`] runs: a re-entrant flush does nothing.
    flushing: bool,
}

impl Default for EventHub {
    fn default() -> Self {
        EventHub::new()
    }
}

impl EventHub {
    /// A hub with `tick` and `begin_play` interned and the default queue limit.
    pub fn new() -> EventHub {
        let mut hub = EventHub {
            ids: HashMap::new(),
            names: Vec::new(),
            subs: SubTable::default(),
            keys_of: IntMap::default(),
            queue: Publisher::default(),
            fields: Arc::new(Vec::new()),
            hosts: Vec::new(),
            removed_hosts: IntSet::default(),
            spare: Vec::new(),
            deliveries: Vec::new(),
            delivery_limit: DEFAULT_FLUSH_DELIVERIES,
            flushing: false,
        };
        // The first two interns cannot fail (limit is far above 2).
        let tick = hub.intern("tick");
        let begin = hub.intern("begin_play");
        debug_assert_eq!(tick, Ok(EventId::TICK));
        debug_assert_eq!(begin, Ok(EventId::BEGIN_PLAY));
        hub
    }

    /// Sets the bound on queued events (applies to the main queue and to each flush round).
    pub fn set_queue_limit(&mut self, limit: usize) {
        self.queue.limit = limit;
    }

    /// Sets the most handler invocations (deliveries, including ones skipped for a despawned
    /// target) one flush makes; at least 1. The flush stops at the first event boundary at or
    /// past it and reports an [`Overrun`].
    pub fn set_delivery_limit(&mut self, limit: u64) {
        self.delivery_limit = limit.max(1);
    }

    /// Interns `name` (e.g. `animseq::S.N`), returning its stable id for this hub.
    pub fn intern(&mut self, name: &str) -> Result<EventId, HubError> {
        if let Some(&id) = self.ids.get(name) {
            return Ok(id);
        }
        if self.names.len() >= MAX_IDENTITIES {
            return Err(HubError::TooManyIdentities);
        }
        let raw = u32::try_from(self.names.len()).map_err(|_| HubError::TooManyIdentities)?;
        let id = EventId(raw);
        let name: Arc<str> = Arc::from(name);
        self.names.push(name.clone());
        self.ids.insert(name, id);
        Ok(id)
    }

    /// Registers the typed fields of notify identity `id` (authored order = catalog schema
    /// order), replacing earlier ones (hot reload). Delivered as [`Delivery::fields`].
    pub fn set_notify_fields(&mut self, id: EventId, fields: Vec<Value>) {
        let idx = id.0 as usize;
        if idx >= self.names.len() {
            return; // not an id of this hub
        }
        let table = Arc::make_mut(&mut self.fields);
        if table.len() <= idx {
            table.resize_with(idx + 1, Default::default);
        }
        table[idx] = fields.into_boxed_slice();
    }

    /// The typed fields registered for `id` (empty when none).
    pub fn notify_fields(&self, id: EventId) -> &[Value] {
        self.fields.get(id.0 as usize).map_or(&[], |f| &f[..])
    }

    /// The id of an already interned name.
    pub fn lookup(&self, name: &str) -> Option<EventId> {
        self.ids.get(name).copied()
    }

    /// The name of `id` (`None` for an id this hub never issued).
    pub fn name(&self, id: EventId) -> Option<&str> {
        self.names.get(id.0 as usize).map(|n| &**n)
    }

    /// Subscribes `who` to `(id, channel)`. Subscribing the same subscriber twice to the same
    /// pair is a no-op. Subscribers of one pair are delivered to in subscription order.
    pub fn subscribe(&mut self, id: EventId, channel: Channel, who: Subscriber) {
        if !self.subs.add(id, channel, who) {
            return;
        }
        let key = SubKey { id, channel };
        self.keys_of
            .entry(who.entity.to_bits())
            .or_default()
            .insert(key);
    }

    /// Subscribes every `(id, instance, handler)` of `subs` on `entity`'s own channel, as
    /// [`EventHub::subscribe_own`] one at a time would, in time O(n log n) for n subscriptions
    /// (what [`crate::runtime::attach_graphs`] uses: one graph may be attached thousands of
    /// times).
    pub fn subscribe_own_all(&mut self, entity: Entity, subs: &[(EventId, u32, u32)]) {
        let new: Vec<SubEntry> = subs
            .iter()
            .map(|&(id, instance, handler)| SubEntry {
                id,
                who: Subscriber {
                    entity,
                    instance,
                    handler,
                },
            })
            .collect();
        let bits = entity.to_bits();
        let added = self.subs.add_all(bits, &new);
        let keys = self.keys_of.entry(bits).or_default();
        for e in added {
            keys.insert(SubKey {
                id: e.id,
                channel: Channel::Entity(bits),
            });
        }
    }

    /// Subscribes `(entity, instance, handler)` to `id` on `entity`'s own channel — the usual
    /// subscription of a graph handler.
    pub fn subscribe_own(&mut self, id: EventId, entity: Entity, instance: u32, handler: u32) {
        self.subscribe(
            id,
            Channel::of(entity),
            Subscriber {
                entity,
                instance,
                handler,
            },
        );
    }

    /// Subscribers of the exact pair `(id, channel)`, in delivery order.
    pub fn subscribers(&self, id: EventId, channel: Channel) -> Vec<Subscriber> {
        self.subs.get(id, channel).iter().map(|e| e.who).collect()
    }

    /// Removes every subscription whose subscriber is `entity` (on any channel).
    pub fn unsubscribe_entity(&mut self, entity: Entity) {
        let Some(keys) = self.keys_of.remove(&entity.to_bits()) else {
            return;
        };
        for key in keys {
            self.subs.remove(key, entity);
        }
    }

    /// Clears `entity`'s channel: removes its subscriptions and drops queued events published to
    /// it. Called automatically when [`GraphInstances`] is removed or its entity despawned.
    pub fn clear_channel(&mut self, entity: Entity) {
        self.unsubscribe_entity(entity);
        let bits = entity.to_bits();
        self.subs.clear_channel(bits);
        let channel = Channel::Entity(bits);
        self.queue.events.retain(|e| e.channel != channel);
    }

    /// The main queue, for publishers outside a flush (animators, scene actions, the host).
    pub fn publisher(&mut self) -> &mut Publisher {
        &mut self.queue
    }

    /// Shortcut for `self.publisher().publish(..)`.
    #[inline]
    pub fn publish(&mut self, id: EventId, channel: Channel, payload: Payload) -> bool {
        self.queue.publish(id, channel, payload)
    }

    /// Events waiting for the next flush, in delivery order.
    pub fn queued(&self) -> &[Event] {
        self.queue.events()
    }

    /// Events refused because a queue was full, since the hub was created.
    pub fn dropped_by_limit(&self) -> u64 {
        self.queue.dropped
    }

    /// Entities hosting graph instances, in attach order (tick delivery order).
    pub fn hosts(&mut self) -> &[Entity] {
        self.compact_hosts();
        &self.hosts
    }

    /// Publishes `tick { dt }` to every host's channel, in attach order.
    pub fn publish_tick(&mut self, dt: f64) {
        self.compact_hosts();
        self.queue.reserve(self.hosts.len());
        for &e in &self.hosts {
            self.queue
                .publish(EventId::TICK, Channel::of(e), Payload::Tick { dt });
        }
    }

    fn compact_hosts(&mut self) {
        if !self.removed_hosts.is_empty() {
            let removed = &self.removed_hosts;
            self.hosts.retain(|e| !removed.contains(&e.to_bits()));
            self.removed_hosts.clear();
        }
    }

    fn host_attached(&mut self, entity: Entity) {
        // Removed and re-added before compaction: it is still in `hosts`, keep its place.
        if !self.removed_hosts.remove(&entity.to_bits()) {
            self.hosts.push(entity);
        }
        self.queue
            .publish(EventId::BEGIN_PLAY, Channel::of(entity), Payload::None);
    }

    fn host_detached(&mut self, entity: Entity) {
        self.removed_hosts.insert(entity.to_bits());
        self.clear_channel(entity);
    }

    /// Takes the main queue out (for code that publishes while holding `&mut World`).
    pub(crate) fn take_queue(&mut self) -> Publisher {
        let limit = self.queue.limit;
        std::mem::replace(&mut self.queue, Publisher::with_limit(limit))
    }

    /// Puts a queue taken with [`EventHub::take_queue`] back; events published to the hub in the
    /// meantime follow it, as far as the one queue limit leaves room (the rest is dropped and
    /// counted).
    pub(crate) fn restore_queue(&mut self, mut taken: Publisher) {
        taken.dropped = taken.dropped.saturating_add(self.queue.dropped);
        let room = taken.limit.saturating_sub(taken.events.len());
        self.queue.dropped = 0;
        self.queue.truncate_to(room);
        taken.dropped = taken.dropped.saturating_add(self.queue.dropped);
        taken.events.append(&mut self.queue.events);
        self.queue = taken;
    }
}

// ---------------------------------------------------------------------------------------------
