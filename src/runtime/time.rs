//! Game time, the bottom layer of the runtime: [`GameTime`] (which tick runs, when it started,
//! how long it is), [`TimedQueue`] (items keyed by due time), the timed [`SceneActions`] and the
//! pending `flow.delay` continuations ([`PendingDelays`]), and the two steps that only touch them
//! ([`advance_time`], [`apply_scene_actions`]). A leaf: it names nothing else of the runtime
//! (`tests/boundaries.rs`), and every other runtime module may name it.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use bevy_ecs::prelude::*;

/// Tolerance of the "first tick whose start time is ≥ due" rule, in seconds: a tick starting at
/// `t` satisfies due time `d` when `t ≥ d − TIME_EPSILON`. It absorbs the rounding of `start + s`
/// versus `(n − 1) / rate` (e.g. `0.1 + 0.2` lands an ulp above `18 / 60`),
/// and is far below any real tick length, so it never makes something fire a tick early unless
/// the due time lies within a nanosecond after a tick start.
pub const TIME_EPSILON: f64 = 1e-9;

/// The default tick length (60 Hz).
pub const DEFAULT_DT: f64 = 1.0 / 60.0;

/// True when a tick starting at `tick_start` satisfies due time `due` (see [`TIME_EPSILON`]).
#[inline]
pub fn is_due(tick_start: f64, due: f64) -> bool {
    tick_start >= due - TIME_EPSILON
}

/// Errors of time bookkeeping.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum TimeError {
    /// A tick length that is not finite and strictly positive.
    #[error("tick length must be finite and > 0, got {0}")]
    BadDt(f64),
    /// A time or duration that is NaN or infinite (or overflows when added).
    #[error("time must be finite, got {0}")]
    NotFinite(f64),
}

/// Game time: which tick is running, when it started and how long it is.
///
/// Before the first update `tick() == 0`. With `rate = 1 / dt` ticks per second,
/// [`advance_time`] starts tick `n` at `base_time + (n − 1 − base_tick) / rate`; with a constant
/// `dt` that is `(n − 1) / rate` and tick `n` ends at `n / rate` — one division, never a sum, so
/// there is no drift (`runtime.md`, "No drift"). [`GameTime::set_dt`] rebases at the end of
/// the running tick so variable tick lengths stay consistent.
#[derive(Resource, Debug, Clone, Copy, PartialEq)]
pub struct GameTime {
    tick: u64,
    time: f64,
    dt: f64,
    /// `1 / dt`.
    rate: f64,
    base_tick: u64,
    base_time: f64,
}

impl Default for GameTime {
    fn default() -> Self {
        GameTime {
            tick: 0,
            time: 0.0,
            dt: DEFAULT_DT,
            rate: 1.0 / DEFAULT_DT,
            base_tick: 0,
            base_time: 0.0,
        }
    }
}

impl GameTime {
    /// Game time before tick 1 with tick length `dt`.
    pub fn new(dt: f64) -> Result<GameTime, TimeError> {
        let mut t = GameTime::default();
        t.set_dt(dt)?;
        Ok(t)
    }

    /// The running tick (1-based; 0 before the first update).
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// Start time of the running tick, in seconds.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Tick length, in seconds.
    pub fn dt(&self) -> f64 {
        self.dt
    }

    /// Ticks per second (`1 / dt`): what the animators' clocks divide by.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// End time of the running tick (`n / rate` while `dt` is constant; 0 before tick 1).
    pub fn end(&self) -> f64 {
        self.base_time + self.tick.saturating_sub(self.base_tick) as f64 / self.rate
    }

    /// Changes the tick length from the next tick on.
    pub fn set_dt(&mut self, dt: f64) -> Result<(), TimeError> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(TimeError::BadDt(dt));
        }
        let rate = 1.0 / dt;
        if !(rate.is_finite() && rate > 0.0) {
            return Err(TimeError::BadDt(dt));
        }
        if self.tick > 0 {
            // The next tick (tick + 1) starts where this one ends.
            self.base_time = self.end();
            self.base_tick = self.tick;
        }
        self.dt = dt;
        self.rate = rate;
        Ok(())
    }

    /// Starts the next tick.
    pub fn advance(&mut self) {
        self.tick = self.tick.saturating_add(1);
        let steps = self.tick.saturating_sub(1).saturating_sub(self.base_tick);
        self.time = self.base_time + steps as f64 / self.rate;
    }
}

/// `f64` ordered by `total_cmp` (only finite values are stored).
#[derive(Debug, Clone, Copy)]
struct Due(f64);

impl PartialEq for Due {
    fn eq(&self, other: &Self) -> bool {
        self.0.total_cmp(&other.0) == Ordering::Equal
    }
}
impl Eq for Due {}
impl PartialOrd for Due {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Due {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Items keyed by due time; equal due times keep insertion order.
#[derive(Debug)]
pub struct TimedQueue<T> {
    items: BTreeMap<(Due, u64), T>,
    seq: u64,
}

impl<T> Default for TimedQueue<T> {
    fn default() -> Self {
        TimedQueue {
            items: BTreeMap::new(),
            seq: 0,
        }
    }
}

impl<T> TimedQueue<T> {
    /// Adds `item` due at `due` (finite).
    pub fn push(&mut self, due: f64, item: T) -> Result<(), TimeError> {
        if !due.is_finite() {
            return Err(TimeError::NotFinite(due));
        }
        // -0.0 and 0.0 must order equal.
        let due = if due == 0.0 { 0.0 } else { due };
        self.items.insert((Due(due), self.seq), item);
        self.seq = self.seq.wrapping_add(1);
        Ok(())
    }

    /// Removes and returns, in (due, insertion) order, every item due at `tick_start`
    /// (per [`is_due`]).
    pub fn take_due(&mut self, tick_start: f64) -> Vec<T> {
        let mut out = Vec::new();
        while let Some(entry) = self.items.first_entry() {
            if !is_due(tick_start, entry.key().0.0) {
                break;
            }
            out.push(entry.remove());
        }
        out
    }

    /// Number of waiting items.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when nothing waits.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The earliest due time, if any.
    pub fn next_due(&self) -> Option<f64> {
        self.items.keys().next().map(|(d, _)| d.0)
    }

    /// Drops every item `keep` rejects.
    pub fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        self.items.retain(|_, v| keep(v));
    }
}

/// A timed action applied at step 1 (e.g. a headless scene's `SetParam`). Any
/// `FnOnce(&mut World) + Send + Sync + 'static` closure is one.
pub trait SceneAction: Send + Sync + 'static {
    /// Applies the action.
    fn apply(self: Box<Self>, world: &mut World);
}

impl<F> SceneAction for F
where
    F: FnOnce(&mut World) + Send + Sync + 'static,
{
    fn apply(self: Box<Self>, world: &mut World) {
        (*self)(world)
    }
}

/// Queued scene actions: each applies at the first tick whose start time is ≥ its `at`.
#[derive(Resource, Default)]
pub struct SceneActions(pub TimedQueue<Box<dyn SceneAction>>);

impl SceneActions {
    /// Schedules `action` at game time `at` seconds (finite; a time before tick 1 applies at
    /// tick 1).
    pub fn schedule(&mut self, at: f64, action: impl SceneAction) -> Result<(), TimeError> {
        self.0.push(at, Box::new(action))
    }
}

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

/// Pending `flow.delay` continuations, keyed by due time.
#[derive(Resource, Default, Debug)]
pub struct PendingDelays(pub TimedQueue<Continuation>);

impl PendingDelays {
    /// Schedules `continuation` for a delay of `seconds` started in the tick that started at
    /// `started_at` ([`GameTime::time`]). It resumes at step 2 of the first tick whose start time
    /// is ≥ `started_at + seconds` (per [`is_due`]) whose step 2 begins after this call — so a
    /// delay started by a handler (step 5) or by resumed code (step 2) never resumes in the same
    /// tick. Negative `seconds` count as 0; NaN or infinite is an error. Returns the due time.
    pub fn schedule(
        &mut self,
        started_at: f64,
        seconds: f64,
        continuation: Continuation,
    ) -> Result<f64, TimeError> {
        if !seconds.is_finite() {
            return Err(TimeError::NotFinite(seconds));
        }
        if !started_at.is_finite() {
            return Err(TimeError::NotFinite(started_at));
        }
        let due = started_at + seconds.max(0.0);
        self.0.push(due, continuation)?;
        Ok(due)
    }
}

/// Step 0: starts the next tick.
pub fn advance_time(mut time: ResMut<GameTime>) {
    time.advance();
}

/// The running tick's start time ([`GameTime::time`]; 0 without a [`GameTime`]).
pub(crate) fn now(world: &World) -> f64 {
    world.get_resource::<GameTime>().map_or(0.0, GameTime::time)
}

/// Step 1: applies every scene action due at this tick's start, in (time, schedule) order.
pub fn apply_scene_actions(world: &mut World) {
    let start = now(world);
    let due = match world.get_resource_mut::<SceneActions>() {
        Some(mut actions) if !actions.0.is_empty() => actions.0.take_due(start),
        _ => return,
    };
    for action in due {
        action.apply(world);
    }
}
