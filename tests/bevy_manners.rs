//! What a Bevy game can rely on (`bridge.md` §4, `docs/bevy.md`): Sinew's per-frame work is
//! one unit (`SinewSystems`) that unordered game systems change nothing in and that Bevy's
//! ambiguity detection reports nothing about; root motion in `Transform` mode composes with the
//! game's rotation, teleports and movement; bone entities follow their animator's pose.

use std::f32::consts::FRAC_PI_2;
use std::path::Path;
use std::time::{Duration, Instant};

use bevy_app::{App, Update};
use bevy_asset::AssetServer;
use bevy_ecs::message::Messages;
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::{LogLevel, ScheduleBuildSettings, Schedules};
use bevy_math::{Quat, Vec3};
use bevy_time::Time;
use bevy_transform::components::Transform;
use sinew::bevy::{
    GameCall, SinewActor, SinewAppExt, SinewBone, SinewLoadSettings, SinewMessage, SinewPlugin,
    SinewScene, SinewSceneAsset, SinewSceneFailed, SinewSpawned, SinewSystems, headless_app,
};
use sinew::runtime::{Animator, GameTime, Graphs, TraceFormat, TraceWriter};

#[path = "support/wait.rs"]
mod wait;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A headless app over the repository, ticking 0.05 s per frame, tracing.
fn base() -> App {
    let mut app = headless_app(repo(), false, Some(Duration::from_millis(50)));
    app.add_plugins(SinewPlugin {
        dt: 0.05,
        trace: true,
        ..SinewPlugin::default()
    });
    app
}

fn load(app: &App, path: &str, assets: &'static str) -> Handle<SinewSceneAsset> {
    app.world()
        .resource::<AssetServer>()
        .load_builder()
        .with_settings(move |s: &mut SinewLoadSettings| s.assets = Some(assets.into()))
        .load::<SinewSceneAsset>(path.to_string())
}

use bevy_asset::Handle;

/// Runs frames until `done` holds (at most 60 s).
fn until(app: &mut App, what: &str, mut done: impl FnMut(&mut App) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let ok = wait::wait_until(deadline, || {
        app.update();
        done(app).then_some(())
    });
    assert!(ok.is_some(), "no {what}");
}

fn spawned(app: &App, carrier: Entity) -> bool {
    let w = app.world();
    assert!(
        w.get::<SinewSceneFailed>(carrier).is_none(),
        "{:?}",
        w.get::<SinewSceneFailed>(carrier)
    );
    w.get::<SinewSpawned>(carrier).is_some()
}

// A game's own data and systems, none ordered against Sinew.
#[derive(Component, Default)]
struct Score(u64);
#[derive(Component)]
struct Crate;
#[derive(Resource, Default)]
struct Clock(f64);

fn bump_scores(mut q: Query<&mut Score>) {
    for mut s in &mut q {
        s.0 += 1;
    }
}
fn spawn_scores(mut c: Commands, mut n: Local<u32>) {
    if *n < 8 {
        c.spawn(Score::default());
    }
    *n += 1;
}
fn read_time(time: Res<Time>, mut clock: ResMut<Clock>) {
    clock.0 += time.delta_secs_f64();
}
fn push_crates(mut q: Query<&mut Transform, With<Crate>>) {
    for mut t in &mut q {
        t.translation.x += 1.0;
    }
}

fn own_game(app: &mut App) {
    app.init_resource::<Clock>();
    app.world_mut().spawn((Crate, Transform::default()));
    app.add_systems(Update, (bump_scores, spawn_scores, read_time));
}

/// `scene`'s trace over `ticks` ticks (human lines), with or without the unordered game.
fn trace(scene: &str, assets: &'static str, ticks: u64, game: bool) -> String {
    let mut app = base();
    if game {
        own_game(&mut app);
        app.add_systems(Update, push_crates);
    }
    let handle = load(&app, scene, assets);
    let carrier = app.world_mut().spawn(SinewScene(handle)).id();
    let mut out = Vec::new();
    until(&mut app, "spawn", |app| spawned(app, carrier));
    let s = app.world().get::<SinewSpawned>(carrier).expect("spawned");
    let (sp, names) = (s.spawned.clone(), s.event_names.clone());
    let writer = TraceWriter::new(&sp, &names, TraceFormat::Human);
    writer.write_tick(app.world_mut(), &mut out).expect("trace");
    while app.world().resource::<GameTime>().tick() < ticks {
        app.update();
        writer.write_tick(app.world_mut(), &mut out).expect("trace");
    }
    writer.write_end(app.world(), &mut out).expect("trace");
    String::from_utf8(out).expect("UTF-8")
}

#[test]
fn unordered_game_systems_change_no_trace() {
    const A: &str = "tests/fixtures/scenes/assets";
    for scene in [
        "tests/fixtures/scenes/sm_blend.scene.ron",
        "tests/fixtures/scenes/windows.scene.ron",
        "tests/fixtures/scenes/seek_pause.scene.ron",
    ] {
        let alone = trace(scene, A, 60, false);
        assert!(alone.lines().count() > 5, "{scene}: {alone}");
        for _ in 0..3 {
            assert_eq!(trace(scene, A, 60, true), alone, "{scene}");
        }
    }
}

/// The ambiguities Bevy reports in `Update` (empty when there are none).
fn ambiguities(app: &mut App) -> String {
    app.edit_schedule(Update, |s| {
        s.set_build_settings(ScheduleBuildSettings {
            ambiguity_detection: LogLevel::Error,
            ..ScheduleBuildSettings::default()
        });
    });
    let world = app.world_mut();
    let mut s = world
        .resource_mut::<Schedules>()
        .remove(Update)
        .expect("Update");
    let report = match s.initialize(world) {
        Ok(_) => String::new(),
        Err(e) => e.to_string(s.graph(), world),
    };
    world.resource_mut::<Schedules>().insert(s);
    report
}

#[test]
fn ambiguity_detection_reports_nothing_involving_sinew() {
    let mut app = base();
    own_game(&mut app);
    let report = ambiguities(&mut app);
    assert_eq!(report, "", "{report}");

    // A real conflict is still reported: a game system writing every `Transform`, unordered
    // against the root motion and the bone poses Sinew writes; ordered after `SinewSystems` it
    // is not.
    let mut app = base();
    app.add_systems(Update, push_all);
    let report = ambiguities(&mut app);
    assert!(report.starts_with("2 pairs"), "{report}");
    let mut app = base();
    app.add_systems(Update, push_all.after(SinewSystems));
    assert_eq!(ambiguities(&mut app), "");
}

fn push_all(mut q: Query<&mut Transform>) {
    for mut t in &mut q {
        t.translation.y += 0.0;
    }
}

#[derive(Resource, Default)]
struct Walk {
    frames: u32,
    walked: f32,
}

/// The game walks the spawned actor +X 0.1 per frame for 6 frames.
fn walk(mut q: Query<&mut Transform, With<SinewSpawned>>, mut w: ResMut<Walk>) {
    for mut t in &mut q {
        if w.frames < 6 {
            t.translation.x += 0.1;
            w.walked += 0.1;
        }
        w.frames += 1;
    }
}

#[test]
fn transform_root_motion_composes_with_the_games_rotation_teleports_and_movement() {
    // `mover.animseq` moves 2 m/s along its +Z; the actor starts facing +X (90° about +Y) at
    // (10, 0, 0): its own forward is world +X.
    let mut app = base();
    app.init_resource::<Walk>();
    app.add_systems(Update, walk.before(SinewSystems));
    let handle = load(
        &app,
        "tests/fixtures/scenes/root_motion.scene.ron",
        "tests/fixtures/scenes/assets",
    );
    let start = Transform::from_xyz(10.0, 0.0, 0.0).with_rotation(Quat::from_rotation_y(FRAC_PI_2));
    let actor = app
        .world_mut()
        .spawn((SinewActor::new(handle, "fwd"), start))
        .id();
    until(&mut app, "actor", |app| spawned(app, actor));
    let tick0 = app.world().resource::<GameTime>().tick();
    while app.world().resource::<GameTime>().tick() < tick0 + 10 {
        app.update();
    }
    // The animator's own travel along its +Z (it starts at the actor's position).
    let travel = |app: &App| {
        let a = app.world().get::<Animator>(actor).expect("animator");
        a.position()[2] as f32
    };
    let moved = travel(&app);
    assert!(moved > 0.5, "{moved}");
    let walked = app.world().resource::<Walk>().walked;
    assert!((walked - 0.6).abs() < 1e-4, "{walked}");
    let t = *app.world().get::<Transform>(actor).expect("transform");
    // Facing kept; moved along its own forward (world +X) by the animation, plus the game's
    // own walk.
    assert!(t.rotation.abs_diff_eq(start.rotation, 1e-5), "{t:?}");
    let expect_x = 10.0 + moved + walked;
    assert!(
        (t.translation.x - expect_x).abs() < 1e-3 && t.translation.z.abs() < 1e-3,
        "{t:?}: x should be {expect_x}"
    );

    // A teleport is kept: motion continues from there.
    app.world_mut()
        .get_mut::<Transform>(actor)
        .expect("transform")
        .translation = Vec3::new(-50.0, 1.0, 7.0);
    let (before, from) = (app.world().resource::<GameTime>().tick(), travel(&app));
    while app.world().resource::<GameTime>().tick() < before + 10 {
        app.update();
    }
    let d = travel(&app) - from;
    assert!(d > 0.5, "{d}");
    let t = *app.world().get::<Transform>(actor).expect("transform");
    assert!(
        (t.translation - Vec3::new(-50.0 + d, 1.0, 7.0)).length() < 1e-3,
        "{t:?}: moved {d} from the teleport"
    );
}

fn animators(app: &mut App) -> usize {
    let mut q = app.world_mut().query::<&Animator>();
    q.iter(app.world()).count()
}

fn run_ticks(app: &mut App, n: u64) {
    let to = app.world().resource::<GameTime>().tick() + n;
    while app.world().resource::<GameTime>().tick() < to {
        app.update();
    }
}

#[test]
fn a_carrier_owns_its_scene_entities_and_an_actor_keeps_its_entity() {
    let mut app = base();
    let scene = load(
        &app,
        "tests/fixtures/scenes/root_motion.scene.ron",
        "tests/fixtures/scenes/assets",
    );
    let carrier = app.world_mut().spawn(SinewScene(scene.clone())).id();
    let own = app.world_mut().spawn((Score(0), Transform::default())).id();
    let actor = app
        .world_mut()
        .spawn((
            SinewActor::new(scene, "fwd"),
            Transform::default(),
            Score(7),
        ))
        .id();
    until(&mut app, "spawn", |app| {
        spawned(app, carrier) && spawned(app, actor)
    });
    let kids = app
        .world()
        .get::<SinewSpawned>(carrier)
        .expect("spawned")
        .spawned
        .entities
        .clone();
    assert_eq!(kids.len(), 4);
    for (name, e, _) in &kids {
        let w = app.world();
        assert_eq!(
            w.get::<ChildOf>(*e).map(ChildOf::parent),
            Some(carrier),
            "{name}"
        );
        assert_eq!(w.get::<Name>(*e).map(Name::as_str), Some(name.as_str()));
    }
    assert_eq!(
        app.world().get::<Name>(actor).map(Name::as_str),
        Some("fwd")
    );
    assert!(app.world().get::<ChildOf>(actor).is_none());
    assert_eq!(animators(&mut app), 5);
    run_ticks(&mut app, 3);

    // Despawning the carrier despawns its scene, and only it.
    app.world_mut().despawn(carrier);
    run_ticks(&mut app, 5);
    for (name, e, _) in &kids {
        assert!(
            !app.world().entities().contains_spawned(*e),
            "{name} still alive"
        );
    }
    assert_eq!(animators(&mut app), 1);
    assert!(app.world().get::<Score>(own).is_some());
    assert!(app.world().get::<Animator>(actor).is_some());

    // Removing `SinewActor` removes Sinew's components only.
    app.world_mut().entity_mut(actor).remove::<SinewActor>();
    run_ticks(&mut app, 3);
    let w = app.world();
    assert!(w.entities().contains_spawned(actor));
    assert_eq!(w.get::<Score>(actor).map(|s| s.0), Some(7));
    assert!(w.get::<Transform>(actor).is_some());
    assert!(w.get::<Animator>(actor).is_none());
    assert!(w.get::<Graphs>(actor).is_none());
    assert!(w.get::<SinewSpawned>(actor).is_none());
    assert_eq!(animators(&mut app), 0);
}

// ---- Game nodes bound to Bevy systems.

#[derive(Resource)]
struct Health(f32);

/// `game.apply_damage` as an ordinary Bevy system: takes the damage off the game's health and
/// returns what is left.
fn apply_damage(In(mut call): In<GameCall>, mut health: ResMut<Health>) -> GameCall {
    let amount = call.f32("amount").unwrap_or(0.0);
    health.0 -= amount;
    call.set_f32("remaining", health.0);
    call.set_bool("killed", health.0 <= 0.0);
    call
}

/// The log lines of `scene` (assets `tests/fixtures/game/assets`) after a few ticks.
fn bound_app(bind: impl FnOnce(&mut App)) -> (App, Entity) {
    let mut app = base();
    app.insert_resource(Health(100.0));
    bind(&mut app);
    let handle = load(
        &app,
        "tests/fixtures/game/bevy/bound.scene.ron",
        "tests/fixtures/game/assets",
    );
    let carrier = app.world_mut().spawn(SinewScene(handle)).id();
    until(&mut app, "settled", |app| {
        let w = app.world();
        w.get::<SinewSpawned>(carrier).is_some() || w.get::<SinewSceneFailed>(carrier).is_some()
    });
    (app, carrier)
}

fn logs(app: &mut App, carrier: Entity) -> Vec<String> {
    run_ticks(app, 3);
    let s = app.world().get::<SinewSpawned>(carrier).expect("spawned");
    let (sp, names) = (s.spawned.clone(), s.event_names.clone());
    let writer = TraceWriter::new(&sp, &names, TraceFormat::Human);
    let mut out = Vec::new();
    writer.write_tick(app.world_mut(), &mut out).expect("trace");
    String::from_utf8(out)
        .expect("UTF-8")
        .lines()
        .filter(|l| l.contains(" log ") || l.contains("error") || l.contains(" call "))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_graph_calls_a_game_node_bound_to_a_bevy_system() {
    let (mut app, carrier) = bound_app(|app| {
        app.add_sinew_node("game.apply_damage", apply_damage);
    });
    let lines = logs(&mut app, carrier);
    assert_eq!(app.world().resource::<Health>().0, 70.0, "{lines:?}");
    assert!(
        lines.iter().any(|l| l.contains("log") && l.contains("70")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("call") && l.contains("game.apply_damage")),
        "{lines:?}"
    );

    // The library form, with `world()`.
    let (mut app, carrier) = bound_app(|app| {
        app.add_sinew_node_fn("game.apply_damage", |call| {
            let amount = call.f32("amount")?;
            let mut h = call.world().resource_mut::<Health>();
            h.0 -= 2.0 * amount;
            let left = h.0;
            call.set_f32("remaining", left);
            Ok(())
        });
    });
    let lines = logs(&mut app, carrier);
    assert_eq!(app.world().resource::<Health>().0, 40.0, "{lines:?}");
    assert!(
        lines.iter().any(|l| l.contains("log") && l.contains("40")),
        "{lines:?}"
    );
}

#[test]
fn an_unbound_node_refuses_to_spawn_and_a_stray_binding_is_named() {
    // Nothing bound: the scene does not spawn, the error names the kind.
    let (app, carrier) = bound_app(|_| {});
    let failed = app
        .world()
        .get::<SinewSceneFailed>(carrier)
        .expect("failed");
    let e = failed.error.clone().unwrap_or_default();
    assert!(e.contains("game.apply_damage"), "{e}");

    // A binding whose kind nothing declares: reported with the declared kinds and the closest.
    let (app, carrier) = bound_app(|app| {
        app.add_sinew_node("game.apply_damage", apply_damage);
        app.add_sinew_node_fn("game.apply_damag", |_| Ok(()));
    });
    assert!(app.world().get::<SinewSpawned>(carrier).is_some());
    let messages = app.world().resource::<Messages<SinewMessage>>();
    let reported: Vec<String> = messages
        .iter_current_update_messages()
        .chain(messages.iter_current_update_messages())
        .filter_map(|m| match m {
            SinewMessage::Binding(s) => Some(s.clone()),
            _ => None,
        })
        .collect();
    assert!(
        reported.iter().any(|m| m.contains("`game.apply_damag`")
            && m.contains("did you mean `game.apply_damage`")
            && m.contains("`game.health`")),
        "{reported:?}"
    );
}

// ---- Bevy's default layout: `AssetPlugin::default()`, everything under `assets/`.

/// Runs in a child process (`BEVY_ASSET_ROOT` is process-wide): a project whose `assets/`
/// holds the scene, its graph and its clip, loaded with Bevy's default `AssetPlugin` and
/// `SinewPlugin::default()`, spawns and runs.
#[test]
fn a_project_in_bevys_default_layout_runs_without_settings() {
    if std::env::var_os("SINEW_DEFAULT_LAYOUT_CHILD").is_some() {
        return default_layout_child();
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let assets = tmp.path().join("assets");
    for d in ["scenes", "graphs", "clips"] {
        std::fs::create_dir_all(assets.join(d)).expect("folder");
    }
    std::fs::copy(
        repo().join("tests/fixtures/scenes/assets/mover.animseq"),
        assets.join("clips/mover.animseq"),
    )
    .expect("clip");
    std::fs::write(
        assets.join("graphs/hello.bpg"),
        "graph hello\nnode start = event begin_play\nnode log = debug.log { message = \"hello\" }\nstart.then -> log.exec\n",
    )
    .expect("graph");
    std::fs::write(
        assets.join("scenes/walk.scene.ron"),
        "Scene(entities: [(name: \"hero\", graphs: [\"../graphs/hello.bpg\"], animator: Some((clips: {\"m\": \"clips/mover.animseq\"}, default_clip: Some(\"m\"))))])\n",
    )
    .expect("scene");
    let out = std::process::Command::new(std::env::current_exe().expect("exe"))
        .args([
            "--exact",
            "a_project_in_bevys_default_layout_runs_without_settings",
        ])
        .env("SINEW_DEFAULT_LAYOUT_CHILD", "1")
        .env("BEVY_ASSET_ROOT", tmp.path())
        .output()
        .expect("child");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("1 passed"), "{text}");
}

fn default_layout_child() {
    let mut app = App::new();
    app.add_plugins((
        bevy_app::TaskPoolPlugin::default(),
        bevy_time::TimePlugin,
        bevy_asset::AssetPlugin::default(),
    ));
    app.insert_resource(bevy_time::TimeUpdateStrategy::ManualDuration(
        Duration::from_millis(50),
    ));
    app.add_plugins(SinewPlugin {
        trace: true,
        ..SinewPlugin::default()
    });
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load::<SinewSceneAsset>("scenes/walk.scene.ron");
    let carrier = app.world_mut().spawn(SinewScene(handle)).id();
    until(&mut app, "spawn", |app| spawned(app, carrier));
    let lines = logs(&mut app, carrier);
    assert!(lines.iter().any(|l| l.contains("hello")), "{lines:?}");
}

#[test]
fn public_components_and_resources_are_registered_for_reflection() {
    use bevy_ecs::reflect::{AppTypeRegistry, ReflectComponent, ReflectResource};
    use std::any::TypeId;
    let app = base();
    let registry = app.world().resource::<AppTypeRegistry>().read();
    for (name, id) in [
        ("SinewScene", TypeId::of::<SinewScene>()),
        ("SinewActor", TypeId::of::<SinewActor>()),
        ("SinewSpawned", TypeId::of::<SinewSpawned>()),
        ("SinewSceneFailed", TypeId::of::<SinewSceneFailed>()),
        (
            "SinewRootMotion",
            TypeId::of::<sinew::bevy::SinewRootMotion>(),
        ),
        ("SinewBone", TypeId::of::<SinewBone>()),
    ] {
        let r = registry
            .get(id)
            .unwrap_or_else(|| panic!("{name} not registered"));
        assert!(r.data::<ReflectComponent>().is_some(), "{name}");
    }
    let clock = registry
        .get(TypeId::of::<sinew::bevy::SinewClock>())
        .expect("SinewClock registered");
    assert!(clock.data::<ReflectResource>().is_some());
}

#[test]
fn one_trace_writer_names_every_actor() {
    let mut app = base();
    // The demo's graphs call game nodes: their declared defaults here.
    app.insert_resource(sinew::runtime::GameNodes::headless());
    let scene = load(&app, "scenes/demo.scene.ron", "assets");
    let a = app
        .world_mut()
        .spawn(SinewActor::new(scene.clone(), "villager"))
        .id();
    let b = app.world_mut().spawn(SinewActor::new(scene, "hero")).id();
    until(&mut app, "actors", |app| spawned(app, a) && spawned(app, b));
    run_ticks(&mut app, 40);
    let (all, names) = sinew::bevy::spawned_entities(app.world_mut());
    assert_eq!(all.entities.len(), 2);
    let writer = TraceWriter::new(&all, &names, TraceFormat::Human);
    let mut out = Vec::new();
    writer.write_tick(app.world_mut(), &mut out).expect("trace");
    let text = String::from_utf8(out).expect("UTF-8");
    assert!(text.lines().count() > 2, "{text}");
    assert!(!text.contains("  ?  "), "{text}");
    assert!(text.contains("villager") && text.contains("hero"), "{text}");
}

// ---- Bone entities.

/// The scene entity called `name` under `carrier`.
fn scene_entity(app: &App, carrier: Entity, name: &str) -> Entity {
    let spawned = app.world().get::<SinewSpawned>(carrier).expect("spawned");
    let found = spawned.spawned.entities.iter().find(|(n, _, _)| n == name);
    found.unwrap_or_else(|| panic!("no {name}")).1
}

#[test]
fn bone_entities_follow_their_animators_pose_and_bad_ones_are_left_alone() {
    let mut app = base();
    let scene = load(
        &app,
        "tests/fixtures/scenes/retarget.scene.ron",
        "tests/fixtures/scenes/assets",
    );
    let carrier = app.world_mut().spawn(SinewScene(scene)).id();
    until(&mut app, "spawn", |app| spawned(app, carrier));
    let tall = scene_entity(&app, carrier, "tall");
    let plain = scene_entity(&app, carrier, "plain");
    let a = app.world().get::<Animator>(tall).expect("animator");
    let n = a.rig().expect("rig").skeleton.len();
    assert!(n > 3, "{n}");
    let by_name = SinewBone::named(tall, a, "spine").expect("spine");
    assert_eq!(by_name, SinewBone::new(tall, 1));
    assert!(SinewBone::named(tall, a, "tail").is_none());
    // `plain` has no skeleton file: its rig is the clip's own tracks.
    let plain_n = app
        .world()
        .get::<Animator>(plain)
        .and_then(Animator::rig)
        .expect("rig")
        .skeleton
        .len();

    let untouched = Transform::from_xyz(7.0, 8.0, 9.0);
    // Two animators' bones interleaved (each switch of animator is a new lookup).
    let mut bones = Vec::new();
    for i in 0..n.max(plain_n) {
        for (owner, len) in [(tall, n), (plain, plain_n)] {
            if i < len {
                let e = app
                    .world_mut()
                    .spawn((SinewBone::new(owner, i as u32), untouched));
                bones.push((owner, i, e.id()));
            }
        }
    }
    // Past the skeleton's end, on an entity that is no animator, on a despawned one: left as
    // they are.
    let stray = [
        SinewBone::new(tall, n as u32),
        SinewBone::new(tall, u32::MAX),
        SinewBone::new(plain, plain_n as u32),
        SinewBone::new(carrier, 0),
        SinewBone::new(Entity::PLACEHOLDER, 0),
    ]
    .map(|b| app.world_mut().spawn((b, untouched)).id());

    for _ in 0..3 {
        run_ticks(&mut app, 2);
        let w = app.world();
        for &(owner, i, e) in &bones {
            let pose = w
                .get::<Animator>(owner)
                .and_then(Animator::pose)
                .expect("pose");
            let t = w.get::<Transform>(e).expect("transform");
            assert_eq!(
                t.translation.to_array(),
                pose.translations[i].to_array(),
                "bone {i}"
            );
            assert_eq!(
                t.rotation.to_array(),
                pose.rotations[i].to_array(),
                "bone {i}"
            );
            assert_eq!(t.scale.to_array(), pose.scales[i].to_array(), "bone {i}");
        }
        for &e in &stray {
            assert_eq!(*w.get::<Transform>(e).expect("transform"), untouched);
        }
    }
    // The bones really change from tick to tick.
    let all = |app: &App| -> Vec<Transform> {
        let w = app.world();
        bones
            .iter()
            .map(|b| *w.get::<Transform>(b.2).expect("bone"))
            .collect()
    };
    let before = all(&app);
    run_ticks(&mut app, 3);
    assert_ne!(all(&app), before);

    // A despawned animator's bones keep their last pose.
    let last: Vec<Transform> = bones
        .iter()
        .map(|&(_, _, e)| *app.world().get::<Transform>(e).expect("transform"))
        .collect();
    app.world_mut().despawn(tall);
    run_ticks(&mut app, 3);
    for (&(owner, i, e), t) in bones.iter().zip(&last) {
        let now = app.world().get::<Transform>(e).expect("transform");
        if owner == tall {
            assert_eq!(now, t, "bone {i} of the despawned animator");
        }
    }
}
