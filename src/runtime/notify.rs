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
use crate::crossing::Edge;
use std::collections::HashMap;

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

/// Where each open window's begin went, so that its end goes to the same entity even when a
/// variable target changed meanwhile: (animated entity, clip instance, window) → target. Only
/// windows targeting a variable are kept: an `Owner` window's begin and end both go to the
/// animated entity (no map traffic per edge).
#[derive(Resource, Debug, Default)]
pub struct WindowTargets(HashMap<(u64, u64, u32), Entity>);

/// Resolves a crossing's target and publishes it (or traces why it was dropped).
fn publish(world: &mut World, f: Fired) {
    let edge = f.crossing.edge;
    let markers = if edge.is_some() {
        &f.clip.windows
    } else {
        &f.clip.notifies
    };
    let Some(notify) = markers.get(f.crossing.notify as usize) else {
        return;
    };
    let key = (f.owner.to_bits(), f.instance, f.crossing.notify);
    let by_variable = matches!(notify.target, Target::Variable(_));
    let remembered = match edge {
        Some(Edge::End) if by_variable => world
            .get_resource_mut::<WindowTargets>()
            .and_then(|mut t| t.0.remove(&key)),
        _ => None,
    };
    let target = match (remembered, &notify.target) {
        (Some(t), _) => Ok(t),
        (None, Target::Owner) => Ok(f.owner),
        (None, Target::Variable(v)) => {
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
    // An end addressed to an entity that is gone (its despawn ended the window): its channel
    // is cleared, so it is traced but not delivered.
    let deliver = world.entities().contains_spawned(target);
    if edge == Some(Edge::Begin) && by_variable {
        world
            .get_resource_or_insert_with(WindowTargets::default)
            .0
            .insert(key, target);
    }
    let n = Notify {
        source: f.owner.to_bits(),
        time: f.crossing.time,
        clip_time: f.crossing.clip_time,
        cycle: f.crossing.cycle,
        weight: f.weight,
        edge,
        completed: f.completed,
    };
    let (id, identity) = (notify.id, notify.identity.clone());
    let ok = !deliver
        || world
            .get_resource_mut::<EventHub>()
            .is_some_and(|mut hub| hub.publisher().notify(id, target, n));
    if ok {
        super::events::record_notify(world, target, &f, notify);
        trace::record(
            world,
            TraceKind::Notify {
                entity: target,
                source: f.owner,
                event: identity,
                clip: f.slot,
                clip_time: f.crossing.clip_time,
                cycle: f.crossing.cycle,
                weight: f.weight as f32,
                edge,
                completed: f.completed,
                fields: notify.fields.clone(),
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
