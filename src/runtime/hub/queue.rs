//! The deferred queue ([`Publisher`]) and the seam to the VM ([`Dispatch`], [`Dispatcher`]).

use bevy_ecs::prelude::*;

use super::{Channel, DEFAULT_QUEUE_LIMIT, Event, EventId, Notify, Payload, Subscriber, Value};
use crate::runtime::time::Continuation;

// ---------------------------------------------------------------------------------------------
// Publisher
// ---------------------------------------------------------------------------------------------

/// A bounded, append-only event queue: what animators (through [`EventHub::publisher`]) and
/// handlers (through the `out` argument of [`Dispatch::deliver`]) publish into.
#[derive(Debug)]
pub struct Publisher {
    pub(super) events: Vec<Event>,
    pub(super) limit: usize,
    pub(super) dropped: u64,
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

    /// Queues `custom::NAME` (interned as `id`) to `target`, sent by `sender`, carrying the
    /// payload's field `values` (in declaration order).
    #[inline]
    pub fn send(
        &mut self,
        id: EventId,
        target: Entity,
        sender: Option<Entity>,
        values: Box<[Value]>,
    ) -> bool {
        let sender = sender.map(Entity::to_bits);
        self.publish(id, Channel::of(target), Payload::Custom { sender, values })
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

    /// Drops the newest events beyond `len`, counting them in [`Publisher::dropped`].
    pub(super) fn truncate_to(&mut self, len: usize) {
        if self.events.len() > len {
            let excess = self.events.len() - len;
            self.dropped = self.dropped.saturating_add(excess as u64);
            self.events.truncate(len);
        }
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
