//! `SinewPlugin` in a real headless `App` on the scene fixtures: root motion reaches Bevy's
//! `Transform` (Transform mode) or `SinewRootMotion` (Extract mode), and a scene that does not
//! load spawns nothing at all (its diagnostics on the carrier).

use std::time::{Duration, Instant};

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::{AssetMetaCheck, AssetPlugin, AssetServer};
use bevy_ecs::entity::Entity;
use bevy_time::{TimePlugin, TimeUpdateStrategy};
use bevy_transform::components::Transform;
use sinew::bevy::{
    SinewLoadSettings, SinewPlugin, SinewRootMotion, SinewScene, SinewSceneAsset, SinewSceneFailed,
    SinewSpawned,
};
use sinew::runtime::{Animator, GameTime};

/// An app running `scene` (assets in `assets`) from the repository, ticking 0.05 s per frame,
/// until the scene spawned or failed.
fn app(scene: &'static str, assets: &'static str) -> (App, Entity) {
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        TimePlugin,
        AssetPlugin {
            file_path: env!("CARGO_MANIFEST_DIR").into(),
            watch_for_changes_override: Some(false),
            meta_check: AssetMetaCheck::Never,
            ..AssetPlugin::default()
        },
    ));
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
        50,
    )));
    app.add_plugins(SinewPlugin {
        dt: 0.05,
        ..SinewPlugin::default()
    });
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load_builder()
        .with_settings(move |s: &mut SinewLoadSettings| s.assets = Some(assets.into()))
        .load::<SinewSceneAsset>(scene);
    let carrier = app.world_mut().spawn(SinewScene(handle)).id();
    let start = Instant::now();
    loop {
        app.update();
        let w = app.world();
        if w.get::<SinewSpawned>(carrier).is_some() || w.get::<SinewSceneFailed>(carrier).is_some()
        {
            return (app, carrier);
        }
        assert!(start.elapsed() < Duration::from_secs(60), "no spawn");
        std::thread::sleep(Duration::from_millis(1));
    }
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
    // Transform is the animator's position, exactly as `sinew run`'s end line reports it.
    let a = w
        .get::<Animator>(entity(&app, carrier, "fwd"))
        .expect("animator");
    assert_eq!(fwd.translation.z, a.position()[2] as f32);
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
