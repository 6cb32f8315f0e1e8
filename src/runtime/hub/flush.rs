//! The round-based flush: delivers the queue through a [`Dispatch`] within the round and
//! delivery bounds.

use std::fmt;
use std::sync::Arc;

use bevy_ecs::prelude::*;

use super::{
    Delivery, Dispatch, Dispatcher, EventHub, MAX_FLUSH_ROUNDS, NoopDispatch, Payload, Publisher,
    Value,
};

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
    let (mut current, mut deliveries, mut next, delivery_limit, limit) = {
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
        (current, deliveries, next, hub.delivery_limit, limit)
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

        // Resolve this round's deliveries while the hub is borrowed, as far as the delivery
        // limit reaches (`stop`: the first event not delivered; the flush stops between two
        // events once the limit is reached). Work is proportional to the events taken off the
        // queue, never to what waits behind them.
        deliveries.clear();
        let mut stop = None;
        let mut hub_gone = false;
        {
            let Some(hub) = world.get_resource::<EventHub>() else {
                current.clear();
                break;
            };
            let budget = delivery_limit.saturating_sub(report.delivered + report.dropped);
            for (index, event) in current.iter().enumerate() {
                if deliveries.len() as u64 >= budget {
                    stop = Some(index);
                    break;
                }
                let list = hub.subs.get(event.id, event.channel);
                deliveries.extend(list.iter().map(|s| (index, s.who)));
            }
        }
        let taken = stop.unwrap_or(current.len());
        report.events = report.events.saturating_add(taken as u64);

        // … then run handlers with the world free. The rest of this round, the main queue and
        // what handlers publish (`next`) are one queue under one limit: handlers get only the
        // room the others leave.
        let mut last = usize::MAX;
        for (at, &(index, to)) in deliveries.iter().enumerate() {
            if index != last {
                last = index;
                let waiting = current.len() - index - 1;
                let Some(hub) = world.get_resource::<EventHub>() else {
                    hub_gone = true;
                    break;
                };
                next.limit = limit.saturating_sub(waiting + hub.queue.events.len());
            }
            if !world.entities().contains_spawned(to.entity) {
                report.dropped += 1;
                if dead.last() != Some(&to.entity) {
                    dead.push(to.entity);
                }
            } else {
                let event = &current[index];
                let fields: &[Value] = match event.payload {
                    Payload::Notify(_) => fields.get(event.id.0 as usize).map_or(&[], |f| &f[..]),
                    _ => &[],
                };
                dispatch.deliver(world, Delivery { to, event, fields }, &mut next);
                report.delivered += 1;
            }
            // After an event's last delivery: anything published straight to the hub past the
            // shared limit is dropped like a refused publish (the newest first).
            if deliveries.get(at + 1).is_none_or(|&(i, _)| i != index) {
                let room = limit.saturating_sub(current.len() - index - 1 + next.events.len());
                if let Some(mut hub) = world.get_resource_mut::<EventHub>() {
                    hub.queue.truncate_to(room);
                }
            }
        }
        if hub_gone {
            current.clear();
            break;
        }
        if let Some(first) = stop {
            // The undelivered rest of this round, then what this round published.
            current.drain(..first);
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
