//! Reference dispatchers for tests, benches and examples: one that records what it is asked to
//! run into a [`DeliveryLog`] resource, and one that republishes along configured rules.

use bevy_ecs::prelude::*;

use super::hub::Value;
use super::hub::{
    Channel, Continuation, Delivery, Dispatch, Event, EventId, Publisher, Subscriber,
};
use super::time::GameTime;

/// One thing a recording dispatcher was asked to run.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    /// A handler delivery.
    Delivered {
        /// Tick during which it ran ([`GameTime::tick`]).
        tick: u64,
        /// Who received it.
        to: Subscriber,
        /// The event.
        event: Event,
        /// Its notify fields.
        fields: Vec<Value>,
    },
    /// A resumed `flow.delay` continuation.
    Resumed {
        /// Tick during which it ran.
        tick: u64,
        /// Start time of that tick.
        time: f64,
        /// The continuation.
        continuation: Continuation,
    },
    /// A free-form note, e.g. a test system marking when it ran (see [`note`]).
    Note {
        /// Tick during which it was written.
        tick: u64,
        /// The text.
        text: String,
    },
}

/// Resource the recording dispatchers append to (created on first use).
#[derive(Resource, Debug, Default, Clone)]
pub struct DeliveryLog(pub Vec<Record>);

fn log(world: &mut World, record: Record) {
    match world.get_resource_mut::<DeliveryLog>() {
        Some(mut l) => l.0.push(record),
        None => world.insert_resource(DeliveryLog(vec![record])),
    }
}

fn tick_of(world: &World) -> (u64, f64) {
    world
        .get_resource::<GameTime>()
        .map_or((0, 0.0), |t| (t.tick(), t.time()))
}

/// Records every delivery and resume into [`DeliveryLog`].
#[derive(Debug, Default, Clone, Copy)]
pub struct RecordingDispatch;

impl Dispatch for RecordingDispatch {
    fn deliver(&mut self, world: &mut World, d: Delivery<'_>, _: &mut Publisher) {
        let (tick, _) = tick_of(world);
        let record = Record::Delivered {
            tick,
            to: d.to,
            event: d.event.clone(),
            fields: d.fields.to_vec(),
        };
        log(world, record);
    }

    fn resume(&mut self, world: &mut World, continuation: Continuation, _: &mut Publisher) {
        let (tick, time) = tick_of(world);
        log(
            world,
            Record::Resumed {
                tick,
                time,
                continuation,
            },
        );
    }
}

/// Records like [`RecordingDispatch`], then for each rule `(on, publish)` whose `on` matches the
/// delivered identity publishes `publish` to the receiving entity's channel with the same
/// payload — a way to build republish chains.
#[derive(Debug, Default, Clone)]
pub struct RepublishDispatch {
    /// `(received identity, identity to publish)` pairs.
    pub rules: Vec<(EventId, EventId)>,
}

impl Dispatch for RepublishDispatch {
    fn deliver(&mut self, world: &mut World, d: Delivery<'_>, out: &mut Publisher) {
        RecordingDispatch.deliver(world, d, out);
        for &(on, publish) in &self.rules {
            if on == d.event.id {
                out.publish(publish, Channel::of(d.to.entity), d.event.payload.clone());
            }
        }
    }
}

/// Appends a [`Record::Note`] to the [`DeliveryLog`].
pub fn note(world: &mut World, text: impl Into<String>) {
    let (tick, _) = tick_of(world);
    let text = text.into();
    log(world, Record::Note { tick, text });
}
