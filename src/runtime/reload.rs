//! Hot reload on a running world: [`swap_graph`] switches one graph instance to a new module
//! in one step (variables carried over by name and type, old delays dropped, subscriptions
//! rebuilt), between updates. Which instances to switch, and when a reload failed, is decided
//! by `crate::reload` (shared by `sinew run --watch` and the Bevy plugin).

use std::sync::Arc;

use bevy_ecs::prelude::*;

use super::hub::{EventHub, HubError};
use super::instance::{Graphs, ModuleSwap};
use super::time::PendingDelays;
use crate::bytecode::VerifiedModule;

/// Switches graph instance `index` of `entity` to `module` (see [`Graphs::swap_module`]): the
/// old module's pending delays leave the delay queue, and the entity's handler subscriptions
/// are rebuilt in attach order so the new handlers receive what the old ones did. Call it
/// between updates (never from inside a handler). `None` when the entity or instance does not
/// exist.
pub fn swap_graph(
    world: &mut World,
    entity: Entity,
    index: usize,
    module: Arc<VerifiedModule>,
) -> Option<ModuleSwap> {
    let swap = world
        .get_mut::<Graphs>(entity)?
        .swap_module(index, module, entity)?;
    let instance = u32::try_from(index).unwrap_or(u32::MAX);
    if let Some(mut delays) = world.get_resource_mut::<PendingDelays>() {
        delays
            .0
            .retain(|c| !(c.entity == entity && c.instance == instance));
    }
    let handlers: Vec<Vec<String>> = world
        .get::<Graphs>(entity)
        .map(|g| {
            g.instances()
                .iter()
                .map(|i| {
                    i.module()
                        .module()
                        .handlers
                        .iter()
                        .map(|h| h.event.clone())
                        .collect()
                })
                .collect()
        })
        .unwrap_or_default();
    let mut failed: Option<HubError> = None;
    if let Some(mut hub) = world.get_resource_mut::<EventHub>() {
        hub.unsubscribe_entity(entity);
        'all: for (i, events) in handlers.iter().enumerate() {
            let i = u32::try_from(i).unwrap_or(u32::MAX);
            for (h, event) in events.iter().enumerate() {
                match hub.intern(event) {
                    Ok(id) => {
                        hub.subscribe_own(id, entity, i, u32::try_from(h).unwrap_or(u32::MAX))
                    }
                    Err(e) => {
                        failed = Some(e);
                        break 'all;
                    }
                }
            }
        }
    }
    if let Some(e) = failed {
        super::trace::error(world, Some(entity), None, None, format!("reload: {e}"));
    }
    Some(swap)
}
