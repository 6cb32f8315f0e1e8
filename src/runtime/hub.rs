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

use std::collections::HashMap;
use std::collections::HashSet;
use std::fmt;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::Arc;

use bevy_ecs::lifecycle::HookContext;
use bevy_ecs::prelude::*;
use bevy_ecs::world::DeferredWorld;

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
    /// `custom::NAME`: the sending entity (`sender` pin), `None` when sent by the host/scene.
    Custom {
        /// [`Entity::to_bits`] of the sender.
        sender: Option<u64>,
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
// Integer hashing
// ---------------------------------------------------------------------------------------------

/// Multiplicative hasher for integer keys (rustc-hash style). Not DoS resistant: keys are
/// interned ids and entity bits chosen by the runtime, never by input text.
#[derive(Default, Clone, Copy)]
pub(crate) struct IntHasher(u64);

const HASH_K: u64 = 0xf135_7aea_2e62_a9c5;

impl IntHasher {
    #[inline]
    fn add(&mut self, x: u64) {
        self.0 = self.0.wrapping_add(x).wrapping_mul(HASH_K);
    }
}

impl Hasher for IntHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0.rotate_left(26)
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.add(u64::from(b));
        }
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
}

pub(crate) type IntMap<K, V> = HashMap<K, V, BuildHasherDefault<IntHasher>>;
type IntSet<K> = HashSet<K, BuildHasherDefault<IntHasher>>;

/// Subscription key: exact `(identity, channel)` pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct SubKey {
    id: EventId,
    channel: Channel,
}

/// One subscription on a channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SubEntry {
    id: EventId,
    who: Subscriber,
}

/// The subscriptions on one entity channel, sorted by identity (stable: subscription order is
/// kept within an identity).
#[derive(Debug, Default)]
struct ChannelSubs {
    bits: u64,
    entries: Vec<SubEntry>,
}

impl ChannelSubs {
    #[inline]
    fn find(&self, id: EventId) -> &[SubEntry] {
        let e = &self.entries;
        if e.len() <= 8 {
            // Short lists: a linear scan beats a binary search.
            let Some(first) = e.iter().position(|x| x.id == id) else {
                return &[];
            };
            let len = e[first..].iter().take_while(|x| x.id == id).count();
            &e[first..first + len]
        } else {
            let lo = e.partition_point(|x| x.id < id);
            let hi = lo + e[lo..].partition_point(|x| x.id == id);
            &e[lo..hi]
        }
    }
}

/// Entity channels with an index below this live in a dense table indexed by entity index
/// (sequential, cache-friendly lookups); larger indices go to a hash map.
const DENSE_CHANNELS: usize = 1 << 20;

/// Subscriptions: dense per-entity-index table for entity channels, hash maps for the rest.
/// `members` holds every subscription once more, so a duplicate is found in O(1) however many
/// subscribers one pair has (one graph attached 20,000 times to one entity).
#[derive(Debug, Default)]
struct SubTable {
    dense: Vec<ChannelSubs>,
    sparse: IntMap<u64, ChannelSubs>,
    global: IntMap<EventId, Vec<SubEntry>>,
    members: HashSet<(SubKey, Subscriber)>,
}

fn member(channel: Channel, e: &SubEntry) -> (SubKey, Subscriber) {
    (SubKey { id: e.id, channel }, e.who)
}

/// Entity index of channel bits, `None` for bits no entity has.
#[inline]
fn index_of(bits: u64) -> Option<usize> {
    Entity::try_from_bits(bits).map(|e| e.index_u32() as usize)
}

impl SubTable {
    #[inline]
    fn channel(&self, bits: u64) -> Option<&ChannelSubs> {
        let idx = index_of(bits)?;
        let slot = if idx < self.dense.len() {
            &self.dense[idx]
        } else if self.sparse.is_empty() {
            return None;
        } else {
            self.sparse.get(&bits)?
        };
        (slot.bits == bits).then_some(slot)
    }

    /// The slot for `bits`, reset if it held a dead entity with the same index.
    fn channel_mut(&mut self, bits: u64) -> Option<&mut ChannelSubs> {
        let idx = index_of(bits)?;
        let slot = if idx < DENSE_CHANNELS {
            if idx >= self.dense.len() {
                self.dense.resize_with(idx + 1, ChannelSubs::default);
            }
            &mut self.dense[idx]
        } else {
            self.sparse.entry(bits).or_default()
        };
        if slot.bits != bits {
            for e in &slot.entries {
                self.members.remove(&member(Channel::Entity(slot.bits), e));
            }
            slot.bits = bits;
            slot.entries.clear();
        }
        Some(slot)
    }

    #[inline]
    fn get(&self, id: EventId, channel: Channel) -> &[SubEntry] {
        match channel {
            Channel::Global => self.global.get(&id).map_or(&[], |v| v.as_slice()),
            Channel::Entity(bits) => self.channel(bits).map_or(&[], |c| c.find(id)),
        }
    }

    /// The list subscriptions on `channel` live in (`None` when the channel names no entity).
    fn list_mut(&mut self, channel: Channel, id: EventId) -> Option<&mut Vec<SubEntry>> {
        match channel {
            Channel::Global => Some(self.global.entry(id).or_default()),
            Channel::Entity(bits) => self.channel_mut(bits).map(|c| &mut c.entries),
        }
    }

    /// Adds `who`; false when it was already there (or the channel names no entity).
    fn add(&mut self, id: EventId, channel: Channel, who: Subscriber) -> bool {
        let entry = SubEntry { id, who };
        if matches!(channel, Channel::Entity(bits) if index_of(bits).is_none()) {
            return false;
        }
        // Before `list_mut`, which may reset a dead entity's slot (and its members).
        let key = member(channel, &entry);
        if self.list_mut(channel, id).is_none() || self.members.contains(&key) {
            return false;
        }
        self.members.insert(key);
        let Some(list) = self.list_mut(channel, id) else {
            return false;
        };
        let at = list.partition_point(|x| x.id <= id);
        list.insert(at, entry);
        true
    }

    /// Adds every entry of `new` to the entity channel `bits` (those not already there), in one
    /// stable sort: O(n log n) for n subscriptions, where one insertion each would shift the
    /// list n times. Returns the entries added, in `new`'s order.
    fn add_all(&mut self, bits: u64, new: &[SubEntry]) -> Vec<SubEntry> {
        let channel = Channel::Entity(bits);
        if self.channel_mut(bits).is_none() {
            return Vec::new();
        }
        let added: Vec<SubEntry> = new
            .iter()
            .filter(|e| self.members.insert(member(channel, e)))
            .copied()
            .collect();
        if let Some(c) = self.channel_mut(bits) {
            c.entries.extend_from_slice(&added);
            c.entries.sort_by_key(|e| e.id); // stable: subscription order within an identity
        }
        added
    }

    /// Removes every subscription on the channel `bits` (whoever the subscriber).
    fn clear_channel(&mut self, bits: u64) {
        let Some(idx) = index_of(bits) else { return };
        let entries = if idx < self.dense.len() {
            let slot = &mut self.dense[idx];
            if slot.bits == bits {
                std::mem::take(&mut slot.entries)
            } else {
                Vec::new()
            }
        } else {
            self.sparse
                .remove(&bits)
                .map(|c| c.entries)
                .unwrap_or_default()
        };
        for e in &entries {
            self.members.remove(&member(Channel::Entity(bits), e));
        }
    }

    /// Removes every subscription of `entity` under `key`.
    fn remove(&mut self, key: SubKey, entity: Entity) {
        match key.channel {
            Channel::Global => {
                if let Some(list) = self.global.get_mut(&key.id) {
                    let members = &mut self.members;
                    list.retain(|x| {
                        let keep = x.who.entity != entity;
                        if !keep {
                            members.remove(&member(key.channel, x));
                        }
                        keep
                    });
                    if list.is_empty() {
                        self.global.remove(&key.id);
                    }
                }
            }
            Channel::Entity(bits) => {
                let Some(idx) = index_of(bits) else { return };
                let slot = if idx < self.dense.len() {
                    &mut self.dense[idx]
                } else {
                    match self.sparse.get_mut(&bits) {
                        Some(s) => s,
                        None => return,
                    }
                };
                if slot.bits == bits {
                    let members = &mut self.members;
                    slot.entries.retain(|x| {
                        let keep = !(x.id == key.id && x.who.entity == entity);
                        if !keep {
                            members.remove(&member(key.channel, x));
                        }
                        keep
                    });
                }
                if slot.entries.is_empty() && idx >= DENSE_CHANNELS {
                    self.sparse.remove(&bits);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Publisher
// ---------------------------------------------------------------------------------------------

/// A bounded, append-only event queue: what animators (through [`EventHub::publisher`]) and
/// handlers (through the `out` argument of [`Dispatch::deliver`]) publish into.
#[derive(Debug)]
pub struct Publisher {
    events: Vec<Event>,
    limit: usize,
    dropped: u64,
}

impl Default for Publisher {
    fn default() -> Self {
        Publisher::with_limit(DEFAULT_QUEUE_LIMIT)
    }
}

impl Publisher {
    /// An empty publisher holding at most `limit` events.
    pub fn with_limit(limit: usize) -> Publisher {
        Publisher {
            events: Vec::new(),
            limit,
            dropped: 0,
        }
    }

    /// Queues `payload` as event `id` on `channel`. Returns `false` (and counts it in
    /// [`Publisher::dropped`]) when the queue is full.
    #[inline]
    pub fn publish(&mut self, id: EventId, channel: Channel, payload: Payload) -> bool {
        if self.events.len() >= self.limit {
            self.dropped = self.dropped.saturating_add(1);
            return false;
        }
        self.events.push(Event {
            id,
            channel,
            payload,
        });
        true
    }

    /// Queues a notify crossing on `target`'s channel.
    #[inline]
    pub fn notify(&mut self, id: EventId, target: Entity, notify: Notify) -> bool {
        self.publish(id, Channel::of(target), Payload::Notify(notify))
    }

    /// Queues `custom::NAME` (interned as `id`) to `target`, sent by `sender`.
    #[inline]
    pub fn send(&mut self, id: EventId, target: Entity, sender: Option<Entity>) -> bool {
        let sender = sender.map(Entity::to_bits);
        self.publish(id, Channel::of(target), Payload::Custom { sender })
    }

    /// Queued events, in publish order.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Number of queued events.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// True when nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// Events refused because the queue was full, since creation.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Reserves room for `additional` more events (up to the limit).
    pub fn reserve(&mut self, additional: usize) {
        let room = self.limit.saturating_sub(self.events.len());
        self.events.reserve(additional.min(room));
    }
}

// ---------------------------------------------------------------------------------------------
// Dispatch
// ---------------------------------------------------------------------------------------------

/// A pending `flow.delay` continuation: resume `resume` (a VM-defined resume point) of graph
/// instance `instance` on `entity`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Continuation {
    /// Entity hosting the instance.
    pub entity: Entity,
    /// Graph instance index on the entity.
    pub instance: u32,
    /// VM-defined resume point (e.g. the delay node's index).
    pub resume: u32,
}

/// One handler invocation handed to [`Dispatch::deliver`].
#[derive(Debug, Clone, Copy)]
pub struct Delivery<'a> {
    /// Who runs: entity, graph instance index, handler index.
    pub to: Subscriber,
    /// The event.
    pub event: &'a Event,
    /// For [`Payload::Notify`]: the notify's typed fields in catalog schema order (one per
    /// extra output pin), as registered with [`EventHub::set_notify_fields`]; empty otherwise.
    pub fields: &'a [Value],
}

/// Runs handlers: the seam between the hub and the VM.
///
/// [`flush`] calls [`Dispatch::deliver`] once per (event, subscriber) pair with exclusive access
/// to the world; no other borrow of the world (in particular no animation system) is alive.
/// Events a handler publishes go into `out` and are delivered in the next round of the same
/// flush. `resume_delays` calls [`Dispatch::resume`] for due continuations; what it publishes is
/// delivered at this update's flush.
///
/// The world's dispatcher lives in the [`Dispatcher`] resource and is taken out while it runs.
/// A flush started from inside a flush (re-entrancy) returns at once and delivers nothing.
///
/// Any `FnMut(&mut World, Delivery<'_>, &mut Publisher) + Send + Sync + 'static` closure is a
/// `Dispatch` (with a no-op `resume`).
pub trait Dispatch: Send + Sync + 'static {
    /// Runs handler `d.to.handler` of instance `d.to.instance` on `d.to.entity` for `d.event`.
    fn deliver(&mut self, world: &mut World, d: Delivery<'_>, out: &mut Publisher);

    /// Resumes a `flow.delay` continuation. Default: does nothing.
    fn resume(&mut self, world: &mut World, continuation: Continuation, out: &mut Publisher) {
        let _ = (world, continuation, out);
    }
}

impl<F> Dispatch for F
where
    F: FnMut(&mut World, Delivery<'_>, &mut Publisher) + Send + Sync + 'static,
{
    #[inline]
    fn deliver(&mut self, world: &mut World, d: Delivery<'_>, out: &mut Publisher) {
        self(world, d, out)
    }
}

/// A dispatcher that runs nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoopDispatch;

impl Dispatch for NoopDispatch {
    #[inline]
    fn deliver(&mut self, _: &mut World, _: Delivery<'_>, _: &mut Publisher) {}
}

/// Resource holding the world's dispatcher (`None`: deliveries and resumes are dropped).
#[derive(Resource, Default)]
pub struct Dispatcher(pub Option<Box<dyn Dispatch>>);

impl Dispatcher {
    /// Wraps `dispatch`.
    pub fn new(dispatch: impl Dispatch) -> Dispatcher {
        Dispatcher(Some(Box::new(dispatch)))
    }
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
    /// meantime follow it.
    pub(crate) fn restore_queue(&mut self, mut taken: Publisher) {
        taken.dropped = taken.dropped.saturating_add(self.queue.dropped);
        taken.events.append(&mut self.queue.events);
        self.queue = taken;
    }
}

// ---------------------------------------------------------------------------------------------
// Flush
// ---------------------------------------------------------------------------------------------

/// Which bound stopped a flush.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlushLimit {
    /// [`MAX_FLUSH_ROUNDS`] rounds were delivered.
    Rounds,
    /// The hub's delivery limit was reached after this many deliveries.
    Deliveries(u64),
}

/// The flush stopped at [`MAX_FLUSH_ROUNDS`] rounds or at the delivery limit with events left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overrun {
    /// Rounds delivered (or begun) before stopping.
    pub rounds: u32,
    /// Events left queued for the next flush.
    pub pending: usize,
    /// The bound that stopped it.
    pub limit: FlushLimit,
}

impl fmt::Display for Overrun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.limit {
            FlushLimit::Rounds => write!(f, "event flush stopped after {} rounds", self.rounds)?,
            FlushLimit::Deliveries(n) => write!(
                f,
                "event flush stopped after {n} deliveries (the limit per update) in {} round(s)",
                self.rounds
            )?,
        }
        write!(
            f,
            "; {} event(s) stay queued for the next update",
            self.pending
        )
    }
}

/// What one flush did. `overrun` is the caller's cue to write an `error` trace line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FlushReport {
    /// Rounds that delivered at least one queued event.
    pub rounds: u32,
    /// Events taken off the queue (delivered to zero or more subscribers).
    pub events: u64,
    /// Handler invocations.
    pub delivered: u64,
    /// Deliveries skipped because the target entity no longer exists.
    pub dropped: u64,
    /// Set when events were left queued after [`MAX_FLUSH_ROUNDS`] rounds.
    pub overrun: Option<Overrun>,
}

/// Delivers the hub's queue through `dispatch` (see the module docs for the round rules).
/// Does nothing when the world has no [`EventHub`] or when called from inside a flush.
pub fn flush(world: &mut World, dispatch: &mut dyn Dispatch) -> FlushReport {
    let mut report = FlushReport::default();
    let (mut current, mut deliveries, mut next, delivery_limit) = {
        let Some(mut hub) = world.get_resource_mut::<EventHub>() else {
            return report;
        };
        if hub.flushing {
            return report;
        }
        hub.flushing = true;
        let limit = hub.queue.limit;
        let current = std::mem::take(&mut hub.queue.events);
        let deliveries = std::mem::take(&mut hub.deliveries);
        let mut next = Publisher::with_limit(limit);
        next.events = std::mem::take(&mut hub.spare);
        (current, deliveries, next, hub.delivery_limit)
    };
    // Snapshot of the notify field table: one reference-count operation per flush.
    let mut fields = world.resource::<EventHub>().fields.clone();
    let mut dead: Vec<Entity> = Vec::new();

    while !current.is_empty() {
        if report.rounds >= MAX_FLUSH_ROUNDS {
            report.overrun = Some(Overrun {
                rounds: report.rounds,
                pending: current.len(),
                limit: FlushLimit::Rounds,
            });
            break;
        }
        report.rounds += 1;

        // Resolve this round's deliveries while the hub is borrowed …
        deliveries.clear();
        {
            let Some(hub) = world.get_resource::<EventHub>() else {
                current.clear();
                break;
            };
            for (index, event) in current.iter().enumerate() {
                let list = hub.subs.get(event.id, event.channel);
                deliveries.extend(list.iter().map(|s| (index, s.who)));
            }
        }
        report.events = report.events.saturating_add(current.len() as u64);

        // … then run handlers with the world free, stopping between two events once the
        // delivery limit is reached (`stop`: the first event not delivered).
        let mut stop = None;
        let mut last = usize::MAX;
        for &(index, to) in &deliveries {
            if index != last {
                if report.delivered + report.dropped >= delivery_limit {
                    stop = Some(index);
                    break;
                }
                last = index;
            }
            if !world.entities().contains_spawned(to.entity) {
                report.dropped += 1;
                if dead.last() != Some(&to.entity) {
                    dead.push(to.entity);
                }
                continue;
            }
            let event = &current[index];
            let fields: &[Value] = match event.payload {
                Payload::Notify(_) => fields.get(event.id.0 as usize).map_or(&[], |f| &f[..]),
                _ => &[],
            };
            dispatch.deliver(world, Delivery { to, event, fields }, &mut next);
            report.delivered += 1;
        }
        if let Some(first) = stop {
            // The undelivered rest of this round, then what this round published.
            current.drain(..first);
            report.events = report.events.saturating_sub(current.len() as u64);
            current.append(&mut next.events);
            if let Some(mut hub) = world.get_resource_mut::<EventHub>() {
                current.append(&mut hub.queue.events);
            }
            report.overrun = Some(Overrun {
                rounds: report.rounds,
                pending: current.len(),
                limit: FlushLimit::Deliveries(report.delivered + report.dropped),
            });
            break;
        }

        // Next round: what handlers published through `out`, then anything published straight
        // to the hub during this round.
        current.clear();
        std::mem::swap(&mut current, &mut next.events);
        if let Some(mut hub) = world.get_resource_mut::<EventHub>() {
            current.append(&mut hub.queue.events);
            if !Arc::ptr_eq(&fields, &hub.fields) {
                fields = hub.fields.clone();
            }
        }
    }
    drop(fields);

    if let Some(mut hub) = world.get_resource_mut::<EventHub>() {
        hub.flushing = false;
        // Leftovers (overrun) go before anything published since; normally `current` is empty
        // and this just returns its buffer.
        current.append(&mut hub.queue.events);
        hub.queue.events = current;
        hub.queue.dropped = hub.queue.dropped.saturating_add(next.dropped);
        next.events.clear();
        hub.spare = next.events;
        deliveries.clear();
        hub.deliveries = deliveries;
        dead.sort_unstable();
        dead.dedup();
        for e in dead {
            hub.clear_channel(e);
        }
    }
    report
}

/// The last flush's report, written by [`flush_events`].
#[derive(Resource, Debug, Default, Clone, Copy)]
pub struct LastFlush(pub FlushReport);

/// Exclusive system: flushes the hub through the [`Dispatcher`] resource and stores the report
/// in [`LastFlush`]. Without a dispatcher the queue is drained and nothing runs.
pub fn flush_events(world: &mut World) {
    let taken = world
        .get_resource_mut::<Dispatcher>()
        .and_then(|mut d| d.0.take());
    let report = match taken {
        Some(mut dispatch) => {
            let report = flush(world, dispatch.as_mut());
            if let Some(mut slot) = world.get_resource_mut::<Dispatcher>()
                && slot.0.is_none()
            {
                slot.0 = Some(dispatch);
            }
            report
        }
        None => flush(world, &mut NoopDispatch),
    };
    match world.get_resource_mut::<LastFlush>() {
        Some(mut last) => last.0 = report,
        None => world.insert_resource(LastFlush(report)),
    }
}
