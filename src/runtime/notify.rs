//! The notify step (right after [`AnimationSet`](super::AnimationSet)): traces what the
//! animators produced ([`AnimatorOutput`]) in order and publishes each fired crossing to its
//! target, resolved now — `Owner` is the animated entity; `Variable(v)` is the entity in
//! variable `v` of the first graph instance on the animated entity that declares `v` as an
//! `entity`. This is the one place where animation meets graph instances.

use bevy_ecs::prelude::*;

use super::animator::{AnimatorOutput, AnimatorRecord, Fired};
use super::hub::{EventHub, Notify};
use super::instance::Graphs;
use super::trace::{self, TraceKind};
use crate::animseq::Target;

/// Traces and publishes everything the animators queued this tick (exclusive system in
/// [`SinewSet::Notify`](super::SinewSet::Notify)).
pub fn publish_notifies(world: &mut World) {
    let Some(mut out) = world.get_resource_mut::<AnimatorOutput>() else {
        return;
    };
    if out.is_empty() {
        return;
    }
    let mut records = std::mem::take(&mut out.records);
    for r in records.drain(..) {
        match r {
            AnimatorRecord::State(entity, c) => trace::record(
                world,
                TraceKind::State {
                    entity,
                    from: c.from,
                    to: c.to,
                },
            ),
            AnimatorRecord::Error(entity, message) => {
                trace::error(world, Some(entity), None, None, message)
            }
            AnimatorRecord::Notify(f) => publish(world, f),
        }
    }
    // Hand the (empty) buffer back so its capacity is reused next tick.
    if let Some(mut out) = world.get_resource_mut::<AnimatorOutput>()
        && out.records.is_empty()
    {
        out.records = records;
    }
}

/// Resolves a crossing's target and publishes it (or traces why it was dropped).
fn publish(world: &mut World, f: Fired) {
    let Some(notify) = f.clip.notifies.get(f.crossing.notify as usize) else {
        return;
    };
    let target = match &notify.target {
        Target::Owner => Ok(f.owner),
        Target::Variable(v) => {
            let declared = world
                .get::<Graphs>(f.owner)
                .and_then(|g| g.resolve_entity_var(v));
            let id = &notify.identity;
            match declared {
                None => Err(format!(
                    "notify `{id}` targets variable `{v}`, which no graph on this entity declares as an entity; dropped"
                )),
                Some(None) => Err(format!(
                    "notify `{id}` targets variable `{v}`, which is unset; dropped"
                )),
                Some(Some(bits)) => match Entity::try_from_bits(bits) {
                    Some(e) if world.entities().contains_spawned(e) => Ok(e),
                    _ => Err(format!(
                        "notify `{id}` targets variable `{v}`, whose entity no longer exists; dropped"
                    )),
                },
            }
        }
    };
    let target = match target {
        Ok(t) => t,
        Err(message) => {
            trace::error(world, Some(f.owner), None, None, message);
            return;
        }
    };
    let n = Notify {
        source: f.owner.to_bits(),
        time: f.crossing.time,
        clip_time: f.crossing.clip_time,
        cycle: f.crossing.cycle,
    };
    let (id, identity) = (notify.id, notify.identity.clone());
    let ok = world
        .get_resource_mut::<EventHub>()
        .is_some_and(|mut hub| hub.publisher().notify(id, target, n));
    if ok {
        trace::record(
            world,
            TraceKind::Notify {
                entity: target,
                event: identity,
                clip: f.slot,
                clip_time: f.crossing.clip_time,
                cycle: f.crossing.cycle,
            },
        );
    } else {
        trace::error(
            world,
            Some(f.owner),
            None,
            None,
            format!("notify `{identity}` dropped: event queue full"),
        );
    }
}
