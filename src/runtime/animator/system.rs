//! The `animate` system: every [`Animator`] applies its queued commands and advances by the
//! tick's `dt`; its state changes, errors and fired crossings are queued, in order, to the
//! [`AnimatorOutput`] resource. The runtime's notify step (`runtime::notify`) then traces them
//! and publishes each crossing to its target, resolved there (a graph variable can name the
//! target), so the animator never depends on graph instances.

use std::sync::Arc;

use bevy_ecs::prelude::*;

use super::{Animator, Clip, StateChange};
use crate::crossing::{Crossing, DEFAULT_LIMIT};
use crate::runtime::schedule::{DEFAULT_DT, GameTime};

/// A crossing ready to publish: the animated entity, the clip slot and the crossing.
#[derive(Debug, Clone)]
pub(crate) struct Fired {
    pub(crate) owner: Entity,
    pub(crate) slot: Arc<str>,
    pub(crate) clip: Arc<Clip>,
    pub(crate) crossing: Crossing,
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
/// every [`Animator`] applies its queued requests and advances by the tick's `dt`, in entity
/// order; what it produced goes to [`AnimatorOutput`] for the notify step
/// ([`add_sinew_systems`](crate::runtime::add_sinew_systems) schedules it right after the
/// animation set).
pub fn animate(world: &mut World) {
    let dt = world
        .get_resource::<GameTime>()
        .map_or(DEFAULT_DT, GameTime::dt);
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
        a.advance(dt);
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
        for f in &a.fires {
            let Some((slot, clip)) = a.slots.get(f.slot) else {
                continue;
            };
            crossings.clear();
            match clip
                .index
                .query_into(&mut crossings, &f.interval, DEFAULT_LIMIT)
            {
                Ok(truncated) => {
                    fired.extend(crossings.iter().map(|c| {
                        AnimatorRecord::Notify(Fired {
                            owner,
                            slot: slot.clone(),
                            clip: clip.clone(),
                            crossing: *c,
                        })
                    }));
                    if truncated {
                        records.push(AnimatorRecord::Error(
                            owner,
                            format!(
                                "clip `{slot}` crossed more than {DEFAULT_LIMIT} notifies in one update; the rest were dropped"
                            ),
                        ));
                    }
                }
                Err(e) => records.push(AnimatorRecord::Error(owner, e.to_string())),
            }
        }
        // Crossings after the errors (a truncation error precedes what was published).
        records.append(&mut fired);
    }
    world.insert_resource(out);
}
