//! The run trace: what a headless run reports as it goes (`notify`, `log`, `state`, `error`
//! records), collected in the [`Trace`] resource when present. Rendering to JSON/text is the
//! CLI's job; records carry entities, not names.

use std::sync::Arc;

use bevy_ecs::prelude::*;

use super::schedule::GameTime;

/// One trace record of one tick.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceRecord {
    /// The tick it happened in (1-based; 0 = before tick 1, during scene load).
    pub tick: u64,
    /// That tick's start time in seconds.
    pub time: f64,
    /// What happened.
    pub kind: TraceKind,
}

/// What a trace record reports.
#[derive(Debug, Clone, PartialEq)]
pub enum TraceKind {
    /// A notify crossing was published to `entity`'s channel.
    Notify {
        /// The entity whose channel it was published to.
        entity: Entity,
        /// The identity `animseq::S.N`.
        event: Arc<str>,
        /// The animator clip slot that played it.
        clip: Arc<str>,
        /// Clip time of the notify.
        clip_time: f64,
        /// Cycle of the occurrence.
        cycle: i64,
    },
    /// `debug.log`.
    Log {
        /// The entity the graph runs on.
        entity: Entity,
        /// The graph's name.
        graph: Arc<str>,
        /// The message.
        message: String,
    },
    /// A state machine changed state (not produced by the minimal animator).
    State {
        /// The animated entity.
        entity: Entity,
        /// Previous state.
        from: Arc<str>,
        /// New state.
        to: Arc<str>,
    },
    /// A runtime error (budget overrun, division by zero, dropped delivery, flush overrun…).
    Error {
        /// The entity concerned, if any.
        entity: Option<Entity>,
        /// The graph concerned, if any.
        graph: Option<Arc<str>>,
        /// The graph node concerned, if any.
        node: Option<String>,
        /// What happened.
        message: String,
    },
}

/// Collects trace records while present in the world (insert it to trace; a game normally
/// does not). Drain it after each tick with [`Trace::drain`] to keep memory bounded.
#[derive(Resource, Debug, Default, Clone)]
pub struct Trace {
    /// Records in the order they happened.
    pub records: Vec<TraceRecord>,
}

impl Trace {
    /// Takes every record collected so far.
    pub fn drain(&mut self) -> Vec<TraceRecord> {
        std::mem::take(&mut self.records)
    }
}

/// Appends a record stamped with the current tick, when the world has a [`Trace`].
pub fn record(world: &mut World, kind: TraceKind) {
    let (tick, time) = world
        .get_resource::<GameTime>()
        .map_or((0, 0.0), |t| (t.tick(), t.time()));
    if let Some(mut trace) = world.get_resource_mut::<Trace>() {
        trace.records.push(TraceRecord { tick, time, kind });
    }
}

/// Appends an `error` record.
pub fn error(
    world: &mut World,
    entity: Option<Entity>,
    graph: Option<Arc<str>>,
    node: Option<String>,
    message: impl Into<String>,
) {
    record(
        world,
        TraceKind::Error {
            entity,
            graph,
            node,
            message: message.into(),
        },
    );
}
