//! The run trace: what a headless run reports as it goes (`notify`, `log`, `state`, `error`
//! records), collected in the [`Trace`] resource when present. Rendering to JSON/text is
//! `render`'s job; records carry entities, not names. The record types are owned here: this
//! module names only `time` and `hub`'s value type, and the animator, instances and the notify
//! step name it (`tests/boundaries.rs`).

use std::sync::Arc;

use bevy_ecs::prelude::*;

use super::hub::Value;
use super::time::GameTime;

/// A notify's typed fields by name, in authored order, shared (one copy per clip marker): what
/// a `notify` record prints. The animator builds them once per clip (`animator::Clip`).
pub type NotifyFields = Arc<[(Arc<str>, Value)]>;

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
    /// A notify crossing or window edge was published to `entity`'s channel.
    Notify {
        /// The entity whose channel it was published to.
        entity: Entity,
        /// The entity whose clip fired it.
        source: Entity,
        /// The identity `animseq::S.N`.
        event: Arc<str>,
        /// The animator clip slot that played it.
        clip: Arc<str>,
        /// Clip time of the notify.
        clip_time: f64,
        /// Cycle of the occurrence.
        cycle: i64,
        /// The clip's effective weight at the update that fired it, as the pose uses it (an
        /// `f32`: printed with its own shortest decimal, `crate::number`).
        weight: f32,
        /// A window's edge (`None`: a point notify).
        edge: Option<crate::crossing::Edge>,
        /// An end reached at the window's end edge.
        completed: bool,
        /// The notify's typed fields by name, in authored order (empty when it has none).
        fields: NotifyFields,
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
    /// A state machine changed state.
    State {
        /// The animated entity.
        entity: Entity,
        /// Previous state.
        from: Arc<str>,
        /// New state.
        to: Arc<str>,
    },
    /// Hot reload switched every instance of a graph to its new module (`sinew run --watch`,
    /// the Bevy plugin), or refreshed a clip or state machine (`graph` is then `None`).
    Reload {
        /// The changed file, as the loader names it.
        file: String,
        /// The graph's name (`graph NAME`), for a graph.
        graph: Option<Arc<str>>,
        /// Variables that kept their value (see [`ModuleSwap`](super::instance::ModuleSwap)).
        kept: Vec<String>,
        /// Variables that start at their declared value.
        reset: Vec<String>,
        /// Suspended delays of the old module dropped, over every instance.
        dropped_delays: usize,
    },
    /// A changed file did not load or compile: what was running keeps running.
    ReloadFailed {
        /// The changed file.
        file: String,
        /// Why (errors first).
        diagnostics: Vec<crate::diag::Diagnostic>,
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

/// Most records a [`Trace`] holds between drains by default; later ones are counted, not kept.
pub const DEFAULT_TRACE_LIMIT: usize = 1 << 20;

/// Most reports (see [`report`]) a [`Trace`] keeps beyond its limit between drains.
pub const MAX_REPORTS: usize = 64;

/// Collects trace records while present in the world (insert it to trace; a game normally
/// does not). Drain it after each tick with [`Trace::drain`]; at most `limit` records are kept
/// between drains (a runaway graph cannot allocate without bound), the rest are counted.
/// Reports about the run itself — flush overruns, queue-limit drops: `error` records naming no
/// entity, graph or node — are kept past the limit (up to [`MAX_REPORTS`] more), so the line
/// that says why a tick was cut short is never the one the cut drops.
#[derive(Resource, Debug, Clone)]
pub struct Trace {
    /// Records in the order they happened.
    pub records: Vec<TraceRecord>,
    /// Most records kept between drains.
    pub limit: usize,
    /// Records refused since the last drain because `limit` was reached.
    pub dropped: u64,
    /// Reports kept past `limit` since the last drain (at most [`MAX_REPORTS`]).
    pub reports_over: usize,
}

impl Default for Trace {
    fn default() -> Self {
        Trace {
            records: Vec::new(),
            limit: DEFAULT_TRACE_LIMIT,
            dropped: 0,
            reports_over: 0,
        }
    }
}

impl Trace {
    /// Takes every record collected so far. When records were refused, a final `error`
    /// record (stamped like the last kept one) says how many.
    pub fn drain(&mut self) -> Vec<TraceRecord> {
        let mut out = std::mem::take(&mut self.records);
        if self.dropped > 0 {
            let (tick, time) = out.last().map_or((0, 0.0), |r| (r.tick, r.time));
            out.push(TraceRecord {
                tick,
                time,
                kind: TraceKind::Error {
                    entity: None,
                    graph: None,
                    node: None,
                    message: format!(
                        "{} trace record(s) dropped: more than {} in one tick",
                        self.dropped, self.limit
                    ),
                },
            });
            self.dropped = 0;
        }
        self.reports_over = 0;
        out
    }

    /// Keeps `record` if there is room (a report may use the reserve past the limit).
    fn push(&mut self, record: TraceRecord) {
        let report = is_report(&record.kind);
        if self.records.len() < self.limit {
            self.records.push(record);
        } else if report && self.reports_over < MAX_REPORTS {
            self.reports_over += 1;
            self.records.push(record);
        } else {
            self.dropped = self.dropped.saturating_add(1);
        }
    }
}

/// A report about the run itself: an `error` naming no entity, graph or node.
fn is_report(kind: &TraceKind) -> bool {
    matches!(
        kind,
        TraceKind::Error {
            entity: None,
            graph: None,
            node: None,
            ..
        }
    )
}

/// Appends a record stamped with the current tick, when the world has a [`Trace`].
pub fn record(world: &mut World, kind: TraceKind) {
    let (tick, time) = world
        .get_resource::<GameTime>()
        .map_or((0, 0.0), |t| (t.tick(), t.time()));
    if let Some(mut trace) = world.get_resource_mut::<Trace>() {
        trace.push(TraceRecord { tick, time, kind });
    }
}

/// Appends a report about the run itself (an `error` record naming no entity, graph or node),
/// kept even when the trace is full (see [`Trace`]).
pub fn report(world: &mut World, message: impl Into<String>) {
    error(world, None, None, None, message);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn log(world: &mut World, i: usize) {
        record(
            world,
            TraceKind::Log {
                entity: Entity::PLACEHOLDER,
                graph: "g".into(),
                message: format!("m{i}"),
            },
        );
    }

    fn message(r: &TraceRecord) -> &str {
        match &r.kind {
            TraceKind::Error { message, .. } | TraceKind::Log { message, .. } => message,
            _ => "",
        }
    }

    #[test]
    fn reports_survive_a_full_trace_and_drops_are_counted() {
        let mut world = World::new();
        world.insert_resource(Trace {
            limit: 3,
            ..Trace::default()
        });
        for i in 0..10 {
            log(&mut world, i);
        }
        report(&mut world, "event flush stopped after 16 rounds");
        let got: Vec<String> = world
            .resource_mut::<Trace>()
            .drain()
            .iter()
            .map(|r| message(r).to_string())
            .collect();
        assert_eq!(
            got,
            [
                "m0",
                "m1",
                "m2",
                "event flush stopped after 16 rounds",
                "7 trace record(s) dropped: more than 3 in one tick"
            ]
        );
    }

    #[test]
    fn the_report_reserve_is_bounded_too() {
        let mut world = World::new();
        world.insert_resource(Trace {
            limit: 0,
            ..Trace::default()
        });
        for i in 0..MAX_REPORTS + 5 {
            report(&mut world, format!("r{i}"));
        }
        let drained = world.resource_mut::<Trace>().drain();
        assert_eq!(drained.len(), MAX_REPORTS + 1);
        assert!(message(&drained[MAX_REPORTS]).starts_with("5 trace record(s) dropped"));
        // The reserve is per drain.
        report(&mut world, "again");
        assert_eq!(world.resource_mut::<Trace>().drain().len(), 1);
    }
}
