//! What a carrier and an actor own (`bridge.md` §4, `docs/bevy.md` "Lifecycle"): the entities a
//! [`SinewScene`](super::SinewScene) spawns are its children (`ChildOf`), each with a `Name`
//! holding its scene name, so despawning the carrier despawns them — Bevy's own recursive
//! despawn, touching nothing else. Removing a [`SinewActor`] from an entity removes Sinew's
//! components from it (the hub drops its subscriptions and queued events with them) and leaves
//! the entity and the game's components.

use bevy_app::App;
use bevy_ecs::lifecycle::Remove;
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;

use super::systems::RootMode;
use super::{SinewActor, SinewRootMotion, SinewSceneFailed, SinewSpawned};
use crate::runtime::scene::Spawned;
use crate::runtime::{Animator, GameReturns, GraphInstances, Graphs};

pub(super) fn build(app: &mut App) {
    app.add_observer(actor_removed);
}

/// Makes the scene entities of `spawned` children of `carrier`, named by their scene names.
pub(super) fn adopt(world: &mut World, carrier: Entity, spawned: &Spawned) {
    for (name, entity, _) in &spawned.entities {
        if let Ok(mut e) = world.get_entity_mut(*entity) {
            e.insert((ChildOf(carrier), Name::new(name.clone())));
        }
    }
}

/// Gives an actor its scene name unless the game named it.
pub(super) fn name_actor(world: &mut World, actor: Entity, name: &str) {
    if let Ok(mut e) = world.get_entity_mut(actor)
        && !e.contains::<Name>()
    {
        e.insert(Name::new(name.to_string()));
    }
}

/// Sinew's components on an actor (what `spawn_into` and the plugin insert).
type SinewParts = (
    Animator,
    Graphs,
    GraphInstances,
    GameReturns,
    RootMode,
    SinewRootMotion,
    SinewSpawned,
    SinewSceneFailed,
);

fn actor_removed(ev: On<Remove<SinewActor>>, mut commands: Commands) {
    // `try_`: the entity may be going away (a despawn removes every component).
    commands.entity(ev.entity).try_remove::<SinewParts>();
}
