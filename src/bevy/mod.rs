//! Sinew as a Bevy plugin (cargo feature `bevy`; `docs/bevy.md`). [`SinewPlugin`] registers
//! Sinew's assets and loaders ([`assets`]), adds the runtime's systems to `Update` in their
//! sets ([`SinewSet`], [`AnimationSet`]), drives Sinew's clock from `bevy_time`, spawns scenes
//! named by a [`SinewScene`] handle (and actors named by a [`SinewActor`]) once everything they
//! need has loaded, writes root motion to `Transform` (or publishes it as [`SinewRootMotion`]) and poses to bone
//! entities ([`SinewBone`]), and hot-reloads scenes through the
//! library's reload core ([`crate::reload`]).
//!
//! Needs `TaskPoolPlugin`, `TimePlugin` and `AssetPlugin` (added before it); nothing renders.

pub mod assets;
mod bones;
mod events;
mod gather;
mod lifecycle;
mod log;
mod nodes;
mod systems;

use std::collections::BTreeMap;

use bevy_app::{App, Plugin};
use bevy_asset::{AssetApp, AssetServer, Handle};
use bevy_ecs::prelude::*;
use bevy_reflect::Reflect;

pub use assets::{
    SinewAsset, SinewClip, SinewFile, SinewGraph, SinewImport, SinewLoadError, SinewLoadSettings,
    SinewLoader, SinewSceneAsset, SinewSkeleton, SinewStateMachine,
};
pub use bones::{SinewBone, write_bone_poses};
pub use events::{IntoValue, SinewCustom, SinewNotify, SinewSend, SinewWindow, WindowEdge};
pub use gather::{MAX_DEPTH, MAX_FILES, MAX_ROUNDS};
pub use nodes::{GameCall, SinewAppExt};
pub use systems::{SinewClock, SinewRootMotion, SinewSchedule, SinewSpawnSet, SinewSystems};

use crate::diag::Diagnostic;
use crate::reload::Reloader;
use crate::runtime::scene::Spawned;
pub use crate::runtime::{AnimationSet, SinewSet};
use crate::runtime::{TraceKind, time::DEFAULT_DT};

/// The plugin. `SinewPlugin::default()`: the assets folder is Bevy's asset folder itself,
/// first tick 1/60 s, no trace.
#[derive(Debug, Clone)]
pub struct SinewPlugin {
    /// The assets folder inside Bevy's asset folder (clip, skeleton and state-machine paths
    /// are relative to it; its `.animseq` and `*.nodes.ron` files make the catalog); empty
    /// (the default): Bevy's asset folder itself, so a game laid out as Bevy's default
    /// (`assets/` holding scenes, graphs and clips) needs no setting. A load can override it
    /// with [`SinewLoadSettings`].
    pub assets: String,
    /// Sinew's tick length until `bevy_time` reports a different frame delta. A frame delta
    /// equal to this at nanosecond resolution keeps it exact (so `TimeUpdateStrategy::
    /// ManualDuration(Duration::from_secs_f64(dt))` ticks exactly as `sinew run --dt dt`).
    pub dt: f64,
    /// Collect Sinew's trace records in a [`Trace`](crate::runtime::Trace) resource (the
    /// `bevy_headless` example prints them as `sinew run` does).
    pub trace: bool,
}

impl Default for SinewPlugin {
    fn default() -> Self {
        SinewPlugin {
            assets: String::new(),
            dt: DEFAULT_DT,
            trace: false,
        }
    }
}

/// Spawns the scene of this asset (see [`systems`]): once it and every file it names have
/// loaded and it is ready (no errors), its entities are spawned and [`SinewSpawned`] is
/// inserted on this entity; if it cannot be, [`SinewSceneFailed`] is. Nothing is half-spawned.
#[derive(Component, Debug, Clone, Reflect)]
#[reflect(Component, Debug, Clone)]
pub struct SinewScene(pub Handle<SinewSceneAsset>);

/// Makes this entity an *actor*: entity `entity` of the scene asset `scene` (its animator and
/// graph instances, loaded and checked exactly as in a scene) built onto this entity itself
/// once the scene and every file it names have loaded and it is ready. A scene file with one
/// entity is then a reusable actor definition: many entities can name it. The actor starts at
/// this entity's `Transform` (else at the scene entity's position); the scene's other entities
/// and its timed actions are not spawned. Success and failure are reported as for a
/// [`SinewScene`] ([`SinewSpawned`] with one entity, this one; [`SinewSceneFailed`]): nothing
/// is half-built. Hot reload applies to actors as to scenes.
#[derive(Component, Debug, Clone, Reflect)]
#[reflect(Component, Debug, Clone)]
pub struct SinewActor {
    /// The scene holding the actor's definition.
    pub scene: Handle<SinewSceneAsset>,
    /// The name of the entity in that scene.
    pub entity: String,
}

impl SinewActor {
    /// Entity `entity` of `scene`.
    pub fn new(scene: Handle<SinewSceneAsset>, entity: impl Into<String>) -> SinewActor {
        SinewActor {
            scene,
            entity: entity.into(),
        }
    }
}

/// A spawned scene, on the entity carrying its [`SinewScene`] (or a built actor, on its
/// [`SinewActor`]).
/// (Reflected: the event names and the actor's start; the spawned list and the reload state
/// are not reflectable.)
#[derive(Component, Debug, Reflect)]
#[reflect(Component, Debug, from_reflect = false)]
pub struct SinewSpawned {
    /// The scene's entities, in scene order, with their names (an actor: itself).
    #[reflect(ignore)]
    pub spawned: Spawned,
    /// Event identity → catalog display name (for human traces).
    pub event_names: BTreeMap<String, String>,
    #[reflect(ignore)]
    reloader: Reloader,
    /// An actor: the entity's name in its scene and where it started.
    actor: Option<(String, [f32; 3])>,
}

/// A scene (or actor) that did not spawn: its diagnostics, or why it could not be read.
/// (Reflected: the error; diagnostics are not reflectable.)
#[derive(Component, Debug, Clone, Reflect)]
#[reflect(Component, Debug, Clone, from_reflect = false)]
pub struct SinewSceneFailed {
    /// What the loader reported (errors and warnings, canonical order).
    #[reflect(ignore)]
    pub diagnostics: Vec<Diagnostic>,
    /// The read or spawn error, when there was one.
    pub error: Option<String>,
}

/// What the plugin reports to the game, one message per occurrence.
#[derive(Message, Debug, Clone)]
pub enum SinewMessage {
    /// A scene spawned (the entity carrying its [`SinewScene`]), or an actor was built.
    Spawned(Entity),
    /// A scene could not spawn (see [`SinewSceneFailed`] on the entity).
    Failed(Entity),
    /// Hot reload of a spawned scene reported something (`reload`, `reload_failed` or
    /// `error` records, as `sinew run --watch` traces them).
    Reload(Entity, TraceKind),
    /// A game node binding names a kind no `*.nodes.ron` of a spawned scene's assets folder
    /// declares (the message names the declared kinds; once per kind).
    Binding(String),
}

impl Plugin for SinewPlugin {
    fn build(&self, app: &mut App) {
        let server = app
            .world()
            .get_resource::<AssetServer>()
            .cloned()
            .expect("SinewPlugin needs AssetPlugin (add it first)");
        fn register<A: SinewAsset>(app: &mut App, server: &AssetServer, assets: &str) {
            app.init_asset::<A>()
                .register_asset_loader(SinewLoader::<A>::new(server, assets));
        }
        register::<SinewClip>(app, &server, &self.assets);
        register::<SinewSkeleton>(app, &server, &self.assets);
        register::<SinewStateMachine>(app, &server, &self.assets);
        register::<SinewGraph>(app, &server, &self.assets);
        register::<SinewSceneAsset>(app, &server, &self.assets);
        register::<SinewImport>(app, &server, &self.assets);
        app.add_message::<SinewMessage>();
        app.register_type::<SinewScene>()
            .register_type::<SinewActor>()
            .register_type::<SinewSpawned>()
            .register_type::<SinewSceneFailed>()
            .register_type::<SinewClock>()
            .register_type::<SinewRootMotion>()
            .register_type::<SinewBone>();
        // Bindings are required (a graph calling an unbound game node does not spawn) unless
        // the game inserted `GameNodes::headless()` itself.
        app.world_mut()
            .get_resource_or_insert_with(crate::runtime::GameNodes::new);
        systems::build(app, self);
        lifecycle::build(app);
        events::build(app);
    }
}

/// Every entity the plugin spawned or built, named, over all carriers and actors (scenes in
/// spawn order, then their entities in scene order): give it to
/// [`TraceWriter`](crate::runtime::TraceWriter) so one trace names every scene entity and
/// every actor (a writer built from one carrier's [`SinewSpawned`] names only that carrier's).
/// Returns the event names of all of them too.
pub fn spawned_entities(world: &mut World) -> (Spawned, BTreeMap<String, String>) {
    let mut all = Spawned::default();
    let mut names = BTreeMap::new();
    let mut q = world.query::<&SinewSpawned>();
    for s in q.iter(world) {
        all.entities.extend(s.spawned.entities.iter().cloned());
        names.extend(s.event_names.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    (all, names)
}

/// A headless [`App`] with the base plugins [`SinewPlugin`] needs and nothing else: the task
/// pool, `bevy_time` (stepped by exactly `step` per frame, or by the wall clock with `None`) and
/// assets read from the folder `root` (no `.meta` files; Bevy's file watcher on with `watch`,
/// which needs Sinew's cargo feature `bevy-watch`: without it Bevy warns and does not watch).
/// Add [`SinewPlugin`] to it. The examples, tests and benchmarks build their apps with it.
pub fn headless_app(root: &std::path::Path, watch: bool, step: Option<std::time::Duration>) -> App {
    let mut app = App::new();
    app.add_plugins((
        bevy_app::TaskPoolPlugin::default(),
        bevy_time::TimePlugin,
        bevy_asset::AssetPlugin {
            file_path: root.to_string_lossy().into_owned(),
            watch_for_changes_override: Some(watch),
            meta_check: bevy_asset::AssetMetaCheck::Never,
            ..bevy_asset::AssetPlugin::default()
        },
    ));
    if let Some(step) = step {
        app.insert_resource(bevy_time::TimeUpdateStrategy::ManualDuration(step));
    }
    app
}
