//! The hub's scheduled steps besides the flush: resuming due `flow.delay` continuations through
//! the [`Dispatcher`] and publishing `tick`. They read game time (`runtime::time`, the layer
//! below the hub); `runtime::schedule` wires them.

use bevy_ecs::prelude::*;

use super::{Dispatcher, EventHub};
use crate::runtime::time::{self, GameTime, PendingDelays};

/// Step 2: resumes every continuation due at this tick's start, in (due, schedule) order,
/// through the [`Dispatcher`]. Continuations of despawned entities are dropped; what resumed
/// code publishes is delivered at this tick's flush.
pub fn resume_delays(world: &mut World) {
    let start = time::now(world);
    let due = match world.get_resource_mut::<PendingDelays>() {
        Some(mut delays) if !delays.0.is_empty() => delays.0.take_due(start),
        _ => return,
    };
    let Some(mut dispatch) = world
        .get_resource_mut::<Dispatcher>()
        .and_then(|mut d| d.0.take())
    else {
        return;
    };
    if let Some(mut out) = world
        .get_resource_mut::<EventHub>()
        .map(|mut h| h.take_queue())
    {
        for c in due {
            if world.entities().contains_spawned(c.entity) {
                dispatch.resume(world, c, &mut out);
            }
        }
        if let Some(mut hub) = world.get_resource_mut::<EventHub>() {
            hub.restore_queue(out);
        }
    }
    if let Some(mut slot) = world.get_resource_mut::<Dispatcher>()
        && slot.0.is_none()
    {
        slot.0 = Some(dispatch);
    }
}

/// Step 4: publishes `tick { dt }` to every entity with graph instances, in attach order.
pub fn publish_tick(time: Res<GameTime>, mut hub: ResMut<EventHub>) {
    hub.publish_tick(time.dt());
}
