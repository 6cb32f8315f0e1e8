//! `SinewPlugin` in a real headless `App` on the scene fixtures: root motion reaches Bevy's
//! `Transform` (Transform mode) or `SinewRootMotion` (Extract mode); a scene that does not
//! load spawns nothing at all (its diagnostics on the carrier); an actor (one scene entity's
//! animator and graphs) is built onto the game's own entity only once everything has loaded,
//! and not at all when it cannot be; an import manifest loads with a handle per generated file
//! and reports what is wrong with it.

use std::path::Path;
use std::time::{Duration, Instant};

use bevy_app::App;
use bevy_asset::{AssetServer, Assets, Handle, LoadState};
use bevy_ecs::entity::Entity;
use bevy_transform::components::Transform;
use sinew::bevy::headless_app;
use sinew::bevy::{
    SinewActor, SinewClip, SinewImport, SinewLoadSettings, SinewPlugin, SinewRootMotion,
    SinewScene, SinewSceneAsset, SinewSceneFailed, SinewSkeleton, SinewSpawned,
};
use sinew::runtime::{Animator, GameTime, Graphs, Value};

/// A headless app over Bevy's asset folder `root`, ticking 0.05 s per frame.
fn base(root: &Path) -> App {
    let mut app = headless_app(root, false, Some(Duration::from_millis(50)));
    app.add_plugins(SinewPlugin {
        dt: 0.05,
        ..SinewPlugin::default()
    });
    app
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Loads `path` (assets folder `assets`) through the app's asset server.
fn load<A: sinew::bevy::SinewAsset>(app: &App, path: &str, assets: &'static str) -> Handle<A> {
    app.world()
        .resource::<AssetServer>()
        .load_builder()
        .with_settings(move |s: &mut SinewLoadSettings| s.assets = Some(assets.into()))
        .load::<A>(path.to_string())
}

/// Runs frames until `done` holds (at most 60 s).
fn until(app: &mut App, what: &str, mut done: impl FnMut(&mut App) -> bool) {
    let start = Instant::now();
    loop {
        app.update();
        if done(app) {
            return;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "no {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn settled(app: &App, carrier: Entity) -> bool {
    let w = app.world();
    w.get::<SinewSpawned>(carrier).is_some() || w.get::<SinewSceneFailed>(carrier).is_some()
}

/// An app running `scene` (assets in `assets`) from the repository, ticking 0.05 s per frame,
/// until the scene spawned or failed.
fn app(scene: &'static str, assets: &'static str) -> (App, Entity) {
    let mut app = base(repo());
    let handle = load::<SinewSceneAsset>(&app, scene, assets);
    let carrier = app.world_mut().spawn(SinewScene(handle)).id();
    until(&mut app, "spawn", |app| settled(app, carrier));
    (app, carrier)
}

fn animators(app: &mut App) -> usize {
    let mut q = app.world_mut().query::<&Animator>();
    q.iter(app.world()).count()
}

fn entity(app: &App, carrier: Entity, name: &str) -> Entity {
    let s = app.world().get::<SinewSpawned>(carrier).expect("spawned");
    s.spawned
        .entities
        .iter()
        .find(|(n, _, _)| n == name)
        .map(|(_, e, _)| *e)
        .expect(name)
}

#[test]
fn root_motion_moves_transforms_and_extract_publishes_it() {
    let (mut app, carrier) = app(
        "tests/fixtures/scenes/root_motion.scene.ron",
        "tests/fixtures/scenes/assets",
    );
    while app.world().resource::<GameTime>().tick() < 30 {
        app.update(); // 30 ticks of 0.05 s: 1.5 s
    }
    let w = app.world();
    let t = |name: &str| {
        *w.get::<Transform>(entity(&app, carrier, name))
            .expect("transform")
    };
    let close = |a: f32, b: f32| (a - b).abs() < 1e-3;
    let fwd = t("fwd");
    assert!(close(fwd.translation.z, 3.0), "{fwd:?}");
    let rev = t("rev");
    assert!(
        close(rev.translation.x, 1.0) && close(rev.translation.z, -6.0),
        "{rev:?}"
    );
    // Transform moved as the animator did (`sinew run`'s end line), each tick's delta added
    // to the entity's own `Transform` (so within f32 rounding of the sum).
    let a = w
        .get::<Animator>(entity(&app, carrier, "fwd"))
        .expect("animator");
    assert!((fwd.translation.z - a.position()[2] as f32).abs() < 1e-5);
    // Extract: the entity stays; the last update's motion is published (2 m/s × 0.05 s).
    let ext = entity(&app, carrier, "ext");
    assert!(close(t("ext").translation.z, 5.0), "{:?}", t("ext"));
    let m = w.get::<SinewRootMotion>(ext).expect("published");
    assert!(close(m.translation.z, 0.1), "{m:?}");
    let turn = t("turn");
    let (axis, angle) = turn.rotation.to_axis_angle();
    assert!(
        close(angle, 3.0 * std::f32::consts::FRAC_PI_4) && close(axis.y.abs(), 1.0),
        "{turn:?}"
    );
}

#[test]
fn a_scene_that_does_not_load_spawns_nothing() {
    let (app, carrier) = app(
        "tests/fixtures/scenes/err/missing_files.scene.ron",
        "tests/fixtures/scenes/err/assets",
    );
    let w = app.world();
    let failed = w.get::<SinewSceneFailed>(carrier).expect("failed");
    assert!(
        failed.diagnostics.iter().any(|d| d.is_error()),
        "{failed:?}"
    );
    assert!(w.get::<SinewSpawned>(carrier).is_none());
    let mut app = app;
    let mut q = app.world_mut().query::<&Animator>();
    let animators = q.iter(app.world()).count();
    assert_eq!(animators, 0, "nothing half-spawned");
    assert_eq!(
        app.world().resource::<GameTime>().tick(),
        0,
        "no clock without a scene"
    );
}

#[test]
fn an_actor_is_built_onto_its_own_entity_once_everything_has_loaded() {
    let mut app = base(repo());
    // The demo's graphs call game nodes: run them as `sinew run` does (declared defaults).
    app.insert_resource(sinew::runtime::GameNodes::headless());
    let scene = load::<SinewSceneAsset>(&app, "scenes/demo.scene.ron", "assets");
    let placed = app
        .world_mut()
        .spawn((
            Transform::from_xyz(10.0, 0.0, -2.0),
            SinewActor::new(scene.clone(), "villager"),
        ))
        .id();
    let plain = app
        .world_mut()
        .spawn(SinewActor::new(scene.clone(), "villager"))
        .id();
    until(&mut app, "actors", |app| {
        let w = app.world();
        for e in [placed, plain] {
            // Nothing half-built: an animator or graphs only together with `SinewSpawned`,
            // and only when the scene and every file it names have loaded.
            let built = w.get::<SinewSpawned>(e).is_some();
            assert_eq!(w.get::<Animator>(e).is_some(), built);
            assert_eq!(w.get::<Graphs>(e).is_some(), built);
            if built {
                let server = w.resource::<AssetServer>();
                assert!(server.is_loaded_with_dependencies(&scene));
            }
        }
        settled(app, placed) && settled(app, plain)
    });
    let w = app.world();
    let s = w.get::<SinewSpawned>(placed).expect("built");
    assert_eq!(
        s.spawned.entities,
        vec![("villager".to_string(), placed, [10.0, 0.0, -2.0])]
    );
    assert_eq!(
        w.get::<Transform>(placed).map(|t| t.translation.to_array()),
        Some([10.0, 0.0, -2.0]),
        "the game's placement is kept"
    );
    let s = w.get::<SinewSpawned>(plain).expect("built");
    assert_eq!(
        s.spawned.entities,
        vec![("villager".to_string(), plain, [4.0, 0.0, 1.5])],
        "without a Transform the actor starts at its scene position"
    );
    assert_eq!(
        animators(&mut app),
        2,
        "no other entity of the scene spawned"
    );
    while app.world().resource::<GameTime>().tick() < 60 {
        app.update();
    }
    for e in [placed, plain] {
        let g = app.world().get::<Graphs>(e).expect("graphs");
        let steps = g.instances()[0]
            .vars()
            .iter()
            .find(|v| v.0 == "steps")
            .map(|v| v.2.clone());
        assert!(
            matches!(steps, Some(Value::Int(n)) if n > 0),
            "the actor's own footsteps reach its graph: {steps:?}"
        );
    }
}

#[test]
fn an_actor_that_cannot_be_built_builds_nothing() {
    let mut app = base(repo());
    let demo = load::<SinewSceneAsset>(&app, "scenes/demo.scene.ron", "assets");
    let broken = load::<SinewSceneAsset>(
        &app,
        "tests/fixtures/scenes/err/missing_files.scene.ron",
        "tests/fixtures/scenes/err/assets",
    );
    let unknown = app.world_mut().spawn(SinewActor::new(demo, "nobody")).id();
    let failing = app.world_mut().spawn(SinewActor::new(broken, "hero")).id();
    until(&mut app, "failures", |app| {
        settled(app, unknown) && settled(app, failing)
    });
    let w = app.world();
    let f = w.get::<SinewSceneFailed>(unknown).expect("failed");
    let e = f.error.as_deref().unwrap_or("");
    assert!(
        e.contains("no entity `nobody`") && e.contains("`villager`"),
        "{f:?}"
    );
    let f = w.get::<SinewSceneFailed>(failing).expect("failed");
    assert!(f.diagnostics.iter().any(|d| d.is_error()), "{f:?}");
    assert_eq!(animators(&mut app), 0, "nothing half-built");
    assert_eq!(app.world().resource::<GameTime>().tick(), 0);
}

const FOX: &str = "assets/animations/generated/ded83416-ab6f-474b-9676-de99af79d229";

/// Loads `manifest` as an import until it and its generated files have loaded.
fn import(app: &mut App, manifest: &str) -> SinewImport {
    let h = load::<SinewImport>(app, manifest, "assets");
    until(app, "import", |app| {
        let server = app.world().resource::<AssetServer>();
        assert!(!matches!(server.load_state(&h), LoadState::Failed(_)));
        server.is_loaded_with_dependencies(&h)
    });
    app.world()
        .resource::<Assets<SinewImport>>()
        .get(&h)
        .cloned()
        .expect("loaded")
}

#[test]
fn an_import_manifest_loads_with_a_handle_per_generated_file() {
    let mut app = base(repo());
    let fox = import(&mut app, &format!("{FOX}/manifest.ron"));
    assert!(fox.is_ok(), "{:?}", fox.diagnostics);
    assert!(fox.diagnostics.is_empty(), "{:?}", fox.diagnostics);
    let m = fox.manifest.as_ref().expect("manifest");
    assert_eq!(m.model, "ded83416-ab6f-474b-9676-de99af79d229");
    let labels: Vec<&str> = fox.clips.iter().map(|(c, _)| c.label.as_str()).collect();
    assert_eq!(labels, ["Survey", "Walk", "Run"]);
    let clips = app.world().resource::<Assets<SinewClip>>();
    let walk = clips.get(fox.clip("Walk").expect("Walk")).expect("loaded");
    let seq = walk.seq.as_ref().expect("Walk reads");
    assert!((seq.duration - 0.7083333).abs() < 1e-4, "{}", seq.duration);
    let run_id = &fox.clips[2].0.id;
    assert_eq!(fox.clip(run_id), fox.clip("Run"), "by ID as by label");
    assert!(fox.clip("Gallop").is_none());
    let skeletons = app.world().resource::<Assets<SinewSkeleton>>();
    let skel = skeletons
        .get(fox.skeleton("fox_footsteps").expect("skeleton"))
        .expect("loaded");
    assert!(skel.skeleton.is_some(), "{:?}", skel.diagnostics);
}

#[test]
fn a_broken_import_manifest_reports_what_is_wrong_and_keeps_the_rest() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    let dir = root.join(FOX);
    std::fs::create_dir_all(&dir).expect("folder");
    std::fs::create_dir_all(root.join("assets/models")).expect("models");
    for f in [
        "manifest.ron",
        "Survey.animseq",
        "Run.animseq",
        "fox_footsteps.skel",
    ] {
        std::fs::copy(repo().join(FOX).join(f), dir.join(f)).expect("copy");
    }
    // The source model changed since the import: one byte differs.
    let mut glb = std::fs::read(repo().join("assets/models/fox_footsteps.glb")).expect("glb");
    let last = glb.len() - 1;
    glb[last] ^= 1;
    std::fs::write(root.join("assets/models/fox_footsteps.glb"), glb).expect("write");
    let bad = root.join("assets/animations/generated/bad");
    std::fs::create_dir_all(&bad).expect("folder");
    std::fs::write(bad.join("manifest.ron"), "AnimManifest(format: 1, model: ").expect("bad");

    let mut app = base(root);
    let fox = import(&mut app, &format!("{FOX}/manifest.ron"));
    let codes: Vec<&str> = fox.diagnostics.iter().map(|d| d.code).collect();
    assert!(
        codes.contains(&"E0718") && codes.contains(&"E0717"),
        "{codes:?}"
    );
    assert!(!fox.is_ok());
    let labels: Vec<&str> = fox.clips.iter().map(|(c, _)| c.label.as_str()).collect();
    assert_eq!(labels, ["Survey", "Run"], "the missing Walk has no handle");
    let broken = import(&mut app, "assets/animations/generated/bad/manifest.ron");
    assert!(broken.manifest.is_none() && broken.clips.is_empty());
    let codes: Vec<&str> = broken.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["E0722"]);
}
