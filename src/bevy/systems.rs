//! The plugin's systems. Everything Sinew does in a frame runs as one unit, [`SinewSystems`] in
//! `Update`: an exclusive step running [`SinewSchedule`] (single-threaded, so its order never
//! depends on what else is in the app) — [`SinewSpawnSet`] (reload changed scenes, spawn ready
//! ones, read the clock), then Sinew's own chain (`Time → SceneActions → Delays → AnimationSet
//! → Notify → Tick → Flush`, only on frames where Sinew ticks: a scene has spawned and the
//! frame's delta is not zero) — then root motion written to `Transform` and poses to bone
//! entities' `Transform`s (ordinary systems with their real data access, so a game system
//! writing `Transform` unordered is reported by Bevy's ambiguity detection).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use bevy_app::{App, Update};
use bevy_asset::{
    AssetEvent, AssetId, AssetLoadFailedEvent, AssetServer, Assets, Handle, LoadState,
};
use bevy_ecs::message::{MessageCursor, Messages};
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::{ScheduleLabel, SingleThreadedExecutor};
use bevy_math::{Quat, Vec3};
use bevy_time::Time;
use bevy_transform::components::Transform;

use super::{
    SinewActor, SinewMessage, SinewPlugin, SinewScene, SinewSceneAsset, SinewSceneFailed,
    SinewSpawned,
};
use crate::anim::RootMotionMode;
use crate::diag::Diagnostic;
use crate::project::{LoadedScene, MemSource};
use crate::reload::Reloader;
use crate::runtime::scene::{QueueDrops, report_flush, spawn, spawn_into};
use crate::runtime::{
    AnimationSet, Animator, Dispatcher, EventHub, GameNodes, GameTime, Graphs, PendingDelays,
    SceneActions, SinewSet, Trace, VmDispatch, add_sinew_systems, animate, init_world,
};

/// The plugin's steps before Sinew's tick, in [`SinewSchedule`]: reload, spawn, clock (in that
/// order).
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SinewSpawnSet;

/// Sinew's per-frame work in `Update`, as one unit: order game systems with
/// `.before(SinewSystems)` / `.after(SinewSystems)`. It runs [`SinewSchedule`], then writes
/// root motion to `Transform` and poses to [`SinewBone`](super::SinewBone) entities.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SinewSystems;

/// The schedule [`SinewSystems`] runs once per frame (single-threaded): [`SinewSpawnSet`],
/// then `SinewSet::Time → SceneActions → Delays → AnimationSet → Notify → Tick → Flush`. A game
/// that needs a system at an exact step adds it here (`app.add_systems(SinewSchedule,
/// my_system.after(AnimationSet).before(SinewSet::Tick))`).
#[derive(ScheduleLabel, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SinewSchedule;

/// Everything that runs only when Sinew ticks: its sets, the flush report, root motion.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Ticking;

/// Whether Sinew ticks this frame: it starts with the first spawned scene (so a scene's timed
/// actions count from its spawn, as in `sinew run`) and never ticks with a zero delta (the
/// first frame, paused virtual time).
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq, bevy_reflect::Reflect)]
#[reflect(Resource, Debug, PartialEq, Clone)]
pub struct SinewClock {
    /// A scene has spawned.
    pub started: bool,
    /// Sinew ticks in this frame.
    pub runs: bool,
}

/// The last update's root motion of an entity whose animator extracts it (`root_motion: (mode:
/// Extract)`), in the entity's parent space: for the game's own character controller.
/// (Reflected as one opaque value: Sinew builds `bevy_math` without its reflection feature.)
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, bevy_reflect::Reflect)]
#[reflect(opaque)]
#[reflect(Component, Debug, PartialEq, Clone)]
pub struct SinewRootMotion {
    /// Horizontal translation of the last update.
    pub translation: Vec3,
    /// Turn about +Y of the last update, in radians.
    pub yaw: f32,
}

/// Root-motion mode of a spawned animator (`Transform` or `Extract`).
#[derive(Component, Debug, Clone, Copy)]
pub(super) struct RootMode(RootMotionMode);

fn clock_runs(clock: Res<SinewClock>) -> bool {
    clock.runs
}

pub(super) fn build(app: &mut App, plugin: &SinewPlugin) {
    let world = app.world_mut();
    init_world(world);
    let time = GameTime::new(plugin.dt).unwrap_or_default();
    world.insert_resource(time);
    world.insert_resource(Dispatcher::new(VmDispatch::new()));
    world.insert_resource(QueueDrops(0));
    world.init_resource::<SinewClock>();
    if plugin.trace {
        world.insert_resource(Trace::default());
    }
    let mut s = Schedule::new(SinewSchedule);
    // One thread: Sinew's steps are exclusive or chained; nothing is gained by the
    // multi-threaded executor but its overhead and an order that could vary.
    s.set_executor(SingleThreadedExecutor::new());
    add_sinew_systems(&mut s);
    s.add_systems(animate.in_set(AnimationSet));
    // One run condition for everything that ticks (evaluated once per frame, not per set).
    s.configure_sets(
        (
            SinewSet::Time,
            SinewSet::SceneActions,
            SinewSet::Delays,
            AnimationSet,
            SinewSet::Notify,
            SinewSet::Tick,
            SinewSet::Flush,
        )
            .in_set(Ticking),
    );
    s.configure_sets(Ticking.run_if(clock_runs));
    s.configure_sets(SinewSpawnSet.before(SinewSet::Time));
    s.add_systems(
        (
            reload_scenes.run_if(scene_loads),
            spawn_ready.run_if(any_pending),
            sync_clock,
        )
            .chain()
            .in_set(SinewSpawnSet),
    );
    s.add_systems(report_flush.after(SinewSet::Flush).in_set(Ticking));
    app.add_schedule(s);
    app.add_systems(
        Update,
        (
            declared_access,
            // Exclusive, so Bevy would report it against every unordered game system, whatever
            // that system touches; `declared_access` stands for what it touches instead
            // (`docs/bevy.md`, "Ordering your systems").
            run_sinew.ambiguous_with_all(),
            apply_root_motion.run_if(clock_runs),
            super::bones::write_bone_poses.run_if(clock_runs),
        )
            .chain()
            .in_set(SinewSystems),
    );
    // The runtime's set names keep their meaning for game systems in `Update`: ordering
    // before a step is ordering before the unit, after a step after it.
    app.configure_sets(
        Update,
        (
            SinewSpawnSet,
            SinewSet::Time,
            SinewSet::SceneActions,
            SinewSet::Delays,
            AnimationSet,
        )
            .before(SinewSystems),
    );
    app.configure_sets(
        Update,
        (SinewSet::Notify, SinewSet::Tick, SinewSet::Flush).after(SinewSystems),
    );
}

/// Does nothing; its parameters are the data [`run_sinew`] reads and writes that a game can
/// touch too (Sinew's components and resources, Bevy's clock), so Bevy's ambiguity detection
/// reports a game system touching them unordered against [`SinewSystems`] — and nothing for a
/// game whose systems touch only their own data.
#[allow(clippy::type_complexity)]
fn declared_access(
    _: Query<(&mut Animator, &mut Graphs)>,
    _: Query<(&mut SinewSpawned, &mut SinewSceneFailed)>,
    _: Query<(&SinewScene, &SinewActor)>,
    _: (
        ResMut<GameTime>,
        ResMut<EventHub>,
        ResMut<SceneActions>,
        ResMut<PendingDelays>,
        ResMut<SinewClock>,
        Option<ResMut<Trace>>,
        Option<ResMut<GameNodes>>,
        Res<Time>,
    ),
) {
}

/// [`SinewSystems`]' step: one run of [`SinewSchedule`].
fn run_sinew(world: &mut World) {
    world.run_schedule(SinewSchedule);
}

/// Reads `bevy_time`'s frame delta into [`GameTime`]: a delta equal to the current tick length
/// at nanosecond resolution keeps it exact; another delta becomes the tick length from this
/// tick on (`GameTime::set_dt` rebases, so times never accumulate error).
fn sync_clock(time: Res<Time>, mut game: ResMut<GameTime>, mut clock: ResMut<SinewClock>) {
    let d = time.delta();
    clock.runs = clock.started && !d.is_zero();
    if clock.runs && Duration::try_from_secs_f64(game.dt()).ok() != Some(d) {
        let _ = game.set_dt(d.as_secs_f64());
    }
}

fn fail(world: &mut World, carrier: Entity, diagnostics: Vec<Diagnostic>, error: Option<String>) {
    super::log::spawn_failed(world, carrier, &diagnostics, error.as_deref());
    world
        .entity_mut(carrier)
        .insert(SinewSceneFailed { diagnostics, error });
    world.write_message(SinewMessage::Failed(carrier));
}

/// Carriers of a scene that has neither spawned nor failed yet.
type PendingScenes = (Without<SinewSpawned>, Without<SinewSceneFailed>);

/// Whether a [`SinewScene`] or [`SinewActor`] waits to spawn (so [`spawn_ready`] costs nothing
/// on the frames where none does).
fn any_pending(
    scenes: Query<(), (With<SinewScene>, PendingScenes)>,
    actors: Query<(), (With<SinewActor>, PendingScenes)>,
) -> bool {
    !scenes.is_empty() || !actors.is_empty()
}

/// Spawns every [`SinewScene`] whose asset and dependencies have loaded, and builds every
/// [`SinewActor`] whose scene has.
fn spawn_ready(
    world: &mut World,
    scenes: &mut QueryState<(Entity, &SinewScene), PendingScenes>,
    actors: &mut QueryState<(Entity, &SinewActor), PendingScenes>,
) {
    let mut pending: Vec<(Entity, Handle<SinewSceneAsset>, Option<String>)> = scenes
        .iter(world)
        .map(|(e, s)| (e, s.0.clone(), None))
        .collect();
    pending.extend(
        actors
            .iter(world)
            .map(|(e, a)| (e, a.scene.clone(), Some(a.entity.clone()))),
    );
    for (carrier, handle, actor) in pending {
        spawn_one(world, carrier, &handle, actor);
    }
}

/// The actor `name` of `loaded` as a scene of its own: that entity alone (starting at `at`
/// when given), no timed actions. A scene that does not parse is returned as it is (it is not
/// ready, which the caller reports).
fn actor_scene(
    loaded: &LoadedScene,
    name: &str,
    at: Option<[f32; 3]>,
) -> Result<(LoadedScene, [f32; 3]), String> {
    let mut one = loaded.clone();
    let Some(def) = one.def.as_mut() else {
        return Ok((one, at.unwrap_or_default()));
    };
    let Some(i) = def.entities.iter().position(|e| e.name == name) else {
        let names: Vec<String> = def
            .entities
            .iter()
            .take(16)
            .map(|e| format!("`{}`", e.name))
            .collect();
        return Err(format!(
            "{}: no entity `{name}` to build an actor from (its entities: {})",
            loaded.source.name(),
            names.join(", ")
        ));
    };
    let mut entity = def.entities.swap_remove(i);
    if let Some(p) = at {
        entity.position = p;
    }
    let pos = entity.position;
    def.entities = vec![entity];
    def.actions.clear();
    Ok((one, pos))
}

/// Spawns the scene of `handle` (or builds its entity `actor` onto `carrier`) when it and
/// every file it names have loaded; reports a failure on the carrier.
fn spawn_one(
    world: &mut World,
    carrier: Entity,
    handle: &Handle<SinewSceneAsset>,
    actor: Option<String>,
) {
    let server = world.resource::<AssetServer>();
    if let LoadState::Failed(e) = server.load_state(handle) {
        // A scene that is not ready fails its load; its diagnostics ride in the error.
        let (diagnostics, error) = match super::assets::load_failure(&e) {
            Ok(loaded) => (loaded.run_diagnostics(), None),
            Err(message) => (Vec::new(), Some(message)),
        };
        fail(world, carrier, diagnostics, error);
        return;
    }
    if !server.is_loaded_with_dependencies(handle) {
        return;
    }
    let Some(asset) = world
        .resource::<Assets<SinewSceneAsset>>()
        .get(handle)
        .cloned()
    else {
        return;
    };
    let loaded = match asset.loaded {
        Ok(l) => l,
        Err(e) => {
            fail(world, carrier, Vec::new(), Some(e));
            return;
        }
    };
    let (loaded, actor) = match actor {
        None => (loaded, None),
        Some(name) => {
            let at = world
                .get::<Transform>(carrier)
                .map(|t| t.translation.to_array());
            match actor_scene(&loaded, &name, at) {
                Ok((one, pos)) => (Arc::new(one), Some((name, pos))),
                Err(e) => {
                    fail(world, carrier, Vec::new(), Some(e));
                    return;
                }
            }
        }
    };
    let (Some((def, assets)), Some(reloader)) = (
        loaded.ready(),
        Reloader::new(&loaded, &MemSource::new(), &asset.layout),
    ) else {
        fail(world, carrier, loaded.run_diagnostics(), None);
        return;
    };
    let spawned = match actor {
        None => spawn(world, def, assets),
        Some(_) => spawn_into(world, def, assets, &[carrier]),
    };
    let spawned = match spawned {
        Ok(s) => s,
        Err(e) => {
            fail(
                world,
                carrier,
                loaded.run_diagnostics(),
                Some(e.to_string()),
            );
            return;
        }
    };
    for ((_, entity, p), d) in spawned.entities.iter().zip(&def.entities) {
        let mut e = world.entity_mut(*entity);
        if actor.is_none() || !e.contains::<Transform>() {
            e.insert(Transform::from_xyz(p[0], p[1], p[2]));
        }
        match d.animator.as_ref().map(|a| a.root_motion.mode) {
            Some(RootMotionMode::Transform) => {
                e.insert(RootMode(RootMotionMode::Transform));
            }
            Some(RootMotionMode::Extract) => {
                e.insert((
                    RootMode(RootMotionMode::Extract),
                    SinewRootMotion::default(),
                ));
            }
            _ => {}
        }
    }
    super::nodes::check_bindings(world, &asset.game_nodes);
    match &actor {
        None => super::lifecycle::adopt(world, carrier, &spawned),
        Some((name, _)) => super::lifecycle::name_actor(world, carrier, name),
    }
    world.entity_mut(carrier).insert(SinewSpawned {
        spawned,
        event_names: loaded.event_names.clone(),
        reloader,
        actor,
    });
    world.resource_mut::<SinewClock>().started = true;
    world.write_message(SinewMessage::Spawned(carrier));
}

/// Where [`reload_scenes`] is in the scene assets' events and failed loads.
type SceneCursors = (
    MessageCursor<AssetEvent<SinewSceneAsset>>,
    MessageCursor<AssetLoadFailedEvent<SinewSceneAsset>>,
);

/// A scene as a failed reload left it: loaded with errors, or unreadable (the message).
type Reloaded = Result<Arc<LoadedScene>, String>;

/// Whether a scene asset loaded, changed or failed to load since the last frame.
fn scene_loads(
    mut loaded: MessageReader<AssetEvent<SinewSceneAsset>>,
    mut failed: MessageReader<AssetLoadFailedEvent<SinewSceneAsset>>,
) -> bool {
    let (l, f) = (loaded.read().count(), failed.read().count());
    l + f > 0
}

/// Applies reloaded scene assets (Bevy reloads a scene when any file it read changes) to the
/// scenes and actors spawned from them, through [`Reloader::apply`] — a reload that failed its
/// load (the scene is not ready: `SinewLoadError::NotReady`) too, so it is reported as
/// `reload_failed` and the running version is kept; a scene or actor that had failed is tried
/// again when its scene loads.
fn reload_scenes(world: &mut World, mut cursors: Local<SceneCursors>) {
    let mut changed: BTreeMap<AssetId<SinewSceneAsset>, Option<Reloaded>> = BTreeMap::new();
    if let Some(messages) = world.get_resource::<Messages<AssetEvent<SinewSceneAsset>>>() {
        for e in cursors.0.read(messages) {
            if let AssetEvent::Modified { id } | AssetEvent::Added { id } = e {
                changed.insert(*id, None);
            }
        }
    }
    if let Some(messages) = world.get_resource::<Messages<AssetLoadFailedEvent<SinewSceneAsset>>>()
    {
        for e in cursors.1.read(messages) {
            let failed = super::assets::load_failure(&e.error).map(Arc::clone);
            changed.insert(e.id, Some(failed));
        }
    }
    if changed.is_empty() {
        return;
    }
    let mut carriers: Vec<(Entity, Handle<SinewSceneAsset>)> = world
        .query::<(Entity, &SinewScene)>()
        .iter(world)
        .filter(|(_, s)| changed.contains_key(&s.0.id()))
        .map(|(e, s)| (e, s.0.clone()))
        .collect();
    carriers.extend(
        world
            .query::<(Entity, &SinewActor)>()
            .iter(world)
            .filter(|(_, a)| changed.contains_key(&a.scene.id()))
            .map(|(e, a)| (e, a.scene.clone())),
    );
    for (carrier, handle) in carriers {
        let failed = changed.get(&handle.id()).cloned().flatten();
        if world.get::<SinewSceneFailed>(carrier).is_some() {
            if failed.is_none() {
                world.entity_mut(carrier).remove::<SinewSceneFailed>();
            }
            continue; // spawn_ready tries again once the scene loads
        }
        let loaded = match failed {
            Some(f) => f,
            None => match world.resource::<Assets<SinewSceneAsset>>().get(&handle) {
                Some(asset) => asset.loaded.clone(),
                None => continue,
            },
        };
        let Some(mut spawned) = world.entity_mut(carrier).take::<SinewSpawned>() else {
            continue;
        };
        let new = loaded.and_then(|new| match &spawned.actor {
            None => Ok(new),
            Some((name, at)) => actor_scene(&new, name, Some(*at)).map(|(one, _)| Arc::new(one)),
        });
        let records = match &new {
            Ok(new) => spawned.reloader.apply(world, &spawned.spawned, new),
            Err(e) => {
                let kind = crate::runtime::TraceKind::Error {
                    entity: None,
                    graph: None,
                    node: None,
                    message: format!("reload: {e}"),
                };
                crate::runtime::trace::record(world, kind.clone());
                vec![kind]
            }
        };
        world.entity_mut(carrier).insert(spawned);
        for r in records {
            super::log::reload_record(carrier, &r);
            world.write_message(SinewMessage::Reload(carrier, r));
        }
    }
}

/// Root motion out. `Transform` mode adds the last update's motion to the entity's current
/// `Transform`, in the entity's own facing (the animator's delta is in its parent space, turned
/// by the animator's yaw before the update: it is turned back to the clip's frame, then by the
/// entity's rotation), and turns the entity by the update's yaw — so a rotation given at
/// spawn, a teleport and the game's own movement are kept. `Extract` mode publishes the delta
/// as [`SinewRootMotion`].
fn apply_root_motion(
    mut q: Query<(
        &Animator,
        &RootMode,
        &mut Transform,
        Option<&mut SinewRootMotion>,
    )>,
) {
    for (a, mode, mut t, extracted) in &mut q {
        let d = a.root_motion_delta();
        let moved = Vec3::new(
            d.translation.x as f32,
            d.translation.y as f32,
            d.translation.z as f32,
        );
        match mode.0 {
            RootMotionMode::Transform if moved == Vec3::ZERO && d.yaw == 0.0 => {}
            RootMotionMode::Transform => {
                let clip = Quat::from_rotation_y(-(a.yaw() - d.yaw) as f32) * moved;
                let rotation = t.rotation;
                t.translation += rotation * clip;
                t.rotation = rotation * Quat::from_rotation_y(d.yaw as f32);
            }
            RootMotionMode::Extract => {
                if let Some(mut m) = extracted {
                    m.translation = moved;
                    m.yaw = d.yaw as f32;
                }
            }
            RootMotionMode::Off => {}
        }
    }
}
