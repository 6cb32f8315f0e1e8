//! The `animate` system: every [`Animator`] applies its queued commands and advances one tick
//! at the game's tick rate ([`GameTime::rate`]); its state changes, errors and fired crossings are queued, in order, to the
//! [`AnimatorOutput`] resource. The runtime's notify step (`runtime::notify`) then traces them
//! and publishes each crossing to its target, resolved there (a graph variable can name the
//! target), so the animator never depends on graph instances.

use std::sync::Arc;

use bevy_ecs::prelude::*;

use super::{Animator, Clip, StateChange};
use crate::anim::soa::LanePose;
use crate::crossing::Crossing;
use crate::runtime::time::{DEFAULT_DT, GameTime};

/// A crossing ready to publish: the animated entity, the clip slot and the crossing (a point
/// notify, or a window's begin or end — a cut end is a synthesized crossing at the cut).
#[derive(Debug, Clone)]
pub(crate) struct Fired {
    pub(crate) owner: Entity,
    pub(crate) slot: Arc<str>,
    pub(crate) clip: Arc<Clip>,
    pub(crate) crossing: Crossing,
    /// The clip instance's effective weight at the update that fired it (at a cut: then).
    pub(crate) weight: f64,
    /// An end reached at its end edge (false on points, begins and cuts).
    pub(crate) completed: bool,
    /// The clip instance (an end goes where its begin went).
    pub(crate) instance: u64,
}

/// One thing an animator's update produced, in trace order.
#[derive(Debug, Clone)]
pub(crate) enum AnimatorRecord {
    /// A state change (the `state` trace line).
    State(Entity, StateChange),
    /// A rejected request or playback error (an `error` trace line).
    Error(Entity, String),
    /// A crossing to publish.
    Notify(Fired),
}

/// What the animators produced in this tick's update, in order (per animator, in entity order:
/// state changes, errors, crossings), waiting for the notify step. Reused every tick.
#[derive(Resource, Debug, Default)]
pub struct AnimatorOutput {
    pub(crate) records: Vec<AnimatorRecord>,
}

impl AnimatorOutput {
    /// Whether nothing is waiting.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
}

/// The animation update (exclusive system, runs in [`AnimationSet`](crate::runtime::AnimationSet)):
/// every [`Animator`] applies its queued requests and advances one tick at
/// [`GameTime::rate`], in entity order (one pose-evaluation scratch for all, kept between runs);
/// what it produced goes to [`AnimatorOutput`] for the notify step
/// ([`add_sinew_systems`](crate::runtime::add_sinew_systems) schedules it right after the
/// animation set).
pub fn animate(world: &mut World, mut lanes: Local<LanePose>) {
    let rate = world
        .get_resource::<GameTime>()
        .map_or(1.0 / DEFAULT_DT, GameTime::rate);
    let mut entities: Vec<Entity> = world
        .query_filtered::<Entity, With<Animator>>()
        .iter(world)
        .collect();
    entities.sort_by_key(|e| (e.index_u32(), e.to_bits()));
    let mut out = world
        .remove_resource::<AnimatorOutput>()
        .unwrap_or_default();
    let mut crossings = Vec::new();
    let mut fired = Vec::new();
    for owner in entities {
        let Some(mut a) = world.get_mut::<Animator>(owner) else {
            continue;
        };
        let a = &mut *a;
        a.advance(rate, &mut lanes);
        let records = &mut out.records;
        if !a.changes.is_empty() {
            records.extend(a.changes.drain(..).map(|c| AnimatorRecord::State(owner, c)));
        }
        if !a.rejected.is_empty() {
            records.extend(
                a.rejected
                    .drain(..)
                    .map(|e| AnimatorRecord::Error(owner, e)),
            );
        }
        a.evaluate_fires(owner, &mut crossings, &mut fired, records);
        // Crossings after the errors (a truncation error precedes what was published).
        records.append(&mut fired);
    }
    world.insert_resource(out);
}

/// The `on_remove` hook of [`Animator`]: its open windows end now (`completed: false`), queued
/// for the next notify step. Ends addressed to the entity itself are dropped there once it is
/// gone; ends addressed to others are delivered.
pub(crate) fn animator_removed(
    mut world: bevy_ecs::world::DeferredWorld,
    ctx: bevy_ecs::lifecycle::HookContext,
) {
    let cuts = match world.get_mut::<Animator>(ctx.entity) {
        Some(mut a) if !a.open.is_empty() => a.cut_all(ctx.entity),
        _ => return,
    };
    if let Some(mut out) = world.get_resource_mut::<AnimatorOutput>() {
        out.records.extend(cuts);
    }
}
