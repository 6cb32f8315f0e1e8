//! The ordered update, and only that: the top of the runtime, which wires the systems of the
//! layers below (game time from `time`, delays, `tick` and the flush from `hub`, the notify step)
//! into named bevy_ecs system sets. Nothing else in the runtime names this module but the
//! headless scene (`tests/boundaries.rs` checks the runtime's layering).
//!
//! One run of the schedule is one tick:
//!
//! 0. [`advance_time`] — tick `n` starts at `(n − 1) / rate` (exactly, see [`GameTime`]).
//! 1. [`apply_scene_actions`] — timed actions whose time has come ([`SceneActions`]).
//! 2. [`resume_delays`] — due `flow.delay` continuations ([`PendingDelays`]).
//! 3. [`AnimationSet`] — animators (added by the animation module) advance; Sinew's animator
//!    queues what it produced, and [`SinewSet::Notify`] ([`publish_notifies`])
//!    traces it and publishes its notify crossings through
//!    [`EventHub::publisher`](super::hub::EventHub::publisher), their targets resolved then.
//! 4. [`publish_tick`] — `tick { dt }` to every entity with [`GraphInstances`](super::hub::GraphInstances).
//! 5. [`flush_events`] — deliver the queue; then the [`on_event`](super::on_event) callbacks
//!    hear the tick's [`GameEvents`](super::GameEvents) (cleared again at step 0).

use bevy_ecs::prelude::*;

use super::animator::AnimatorOutput;
use super::hub::{Dispatcher, EventHub, LastFlush, flush_events, publish_tick, resume_delays};
use super::notify::publish_notifies;
use super::time::{GameTime, PendingDelays, SceneActions, advance_time, apply_scene_actions};

/// The system set animators run in (step 3). The animation module adds its systems with
/// `.in_set(AnimationSet)`; they publish crossings via `ResMut<EventHub>`.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AnimationSet;

/// Sinew's other steps, ordered around [`AnimationSet`] by [`add_sinew_systems`].
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SinewSet {
    /// Step 0: [`advance_time`].
    Time,
    /// Step 1: [`apply_scene_actions`].
    SceneActions,
    /// Step 2: [`resume_delays`].
    Delays,
    /// Step 3, after [`AnimationSet`]: [`publish_notifies`].
    Notify,
    /// Step 4: [`publish_tick`].
    Tick,
    /// Step 5: [`flush_events`].
    Flush,
}

/// Adds Sinew's systems to `schedule`, ordered
/// `Time → SceneActions → Delays → AnimationSet → Notify → Tick → Flush`. Call once per schedule; run the
/// schedule once per tick on a world prepared with [`init_world`].
pub fn add_sinew_systems(schedule: &mut Schedule) {
    schedule.configure_sets(
        (
            SinewSet::Time,
            SinewSet::SceneActions,
            SinewSet::Delays,
            AnimationSet,
            SinewSet::Notify,
            SinewSet::Tick,
            SinewSet::Flush,
        )
            .chain(),
    );
    schedule.add_systems((
        advance_time.in_set(SinewSet::Time),
        super::events::begin_tick.in_set(SinewSet::Time),
        apply_scene_actions.in_set(SinewSet::SceneActions),
        resume_delays.in_set(SinewSet::Delays),
        publish_notifies.in_set(SinewSet::Notify),
        publish_tick.in_set(SinewSet::Tick),
        (flush_events, super::events::run_callbacks)
            .chain()
            .in_set(SinewSet::Flush),
    ));
}

/// Inserts Sinew's resources ([`EventHub`], [`GameTime`], [`SceneActions`], [`PendingDelays`],
/// [`Dispatcher`], [`LastFlush`], [`GameEvents`](super::GameEvents)) unless already present. Call it before
/// spawning entities with [`GraphInstances`](super::hub::GraphInstances).
pub fn init_world(world: &mut World) {
    if !world.contains_resource::<EventHub>() {
        world.insert_resource(EventHub::new());
    }
    if !world.contains_resource::<GameTime>() {
        world.insert_resource(GameTime::default());
    }
    if !world.contains_resource::<SceneActions>() {
        world.insert_resource(SceneActions::default());
    }
    if !world.contains_resource::<PendingDelays>() {
        world.insert_resource(PendingDelays::default());
    }
    if !world.contains_resource::<Dispatcher>() {
        world.insert_resource(Dispatcher::default());
    }
    if !world.contains_resource::<AnimatorOutput>() {
        world.insert_resource(AnimatorOutput::default());
    }
    if !world.contains_resource::<LastFlush>() {
        world.insert_resource(LastFlush::default());
    }
    if !world.contains_resource::<super::events::GameEvents>() {
        world.insert_resource(super::events::GameEvents::default());
    }
}
