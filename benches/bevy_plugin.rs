//! The Bevy plugin's costs (feature `bevy`), each measured side by side in one run:
//!
//! * `plugin_overhead`: one frame of 1,000 entities each playing `assets/run.animseq` with the
//!   demo villager graph (as `benches/run.rs`'s `tick_1000_entities`), on the bare runtime
//!   (`runtime::scene::headless`: `schedule.run`) and in a headless Bevy `App` through
//!   `SinewPlugin` (`app.update()`: Bevy's time, asset and message upkeep, the plugin's spawn,
//!   reload and clock systems, root motion to `Transform`). Goal: ≤ 10 % over the bare runtime.
//!   `base_app_update_without_sinew` is the same app without the plugin: Bevy's own per-frame
//!   upkeep, which splits the difference into Bevy's share and the plugin's.
//!   `base_app_with_six_asset_types` adds only Sinew's six asset types (Bevy's per-type upkeep);
//!   `plugin_app_update_no_scene` is the plugin with nothing spawned (its systems idle);
//!   `runtime_in_app_without_plugin` is the bare runtime's systems in the same `App`'s
//!   `Update`, the scene spawned directly: Bevy's frame around a real Sinew frame, so the plugin
//!   app minus it is what the plugin itself adds while Sinew ticks.
//! * `reload_latency`: a 1,000-node graph changed on disk → its new module running: the work
//!   after the watcher's event (`project::load` of the scene again — read, catalog, compile —
//!   and `reload::Reloader::apply` switching the instance). Goal: < 50 ms.
//!   `plugin_graph_1000_nodes_change_to_running` is the same change through a real `App`: the
//!   file rewritten, `AssetServer::reload` (what the file watcher calls), frames until the
//!   `reload` record — the plugin's scene loader reads every file through Bevy again.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use bevy_app::App;
use bevy_asset::{AssetApp, AssetServer};
use bevy_ecs::message::{MessageCursor, Messages};
use bevy_ecs::schedule::IntoScheduleConfigs;
use criterion::{Criterion, criterion_group, criterion_main};
use sinew::bevy::headless_app;
use sinew::bevy::{
    SinewClip, SinewGraph, SinewImport, SinewLoadSettings, SinewMessage, SinewPlugin, SinewScene,
    SinewSceneAsset, SinewSkeleton, SinewSpawned, SinewStateMachine,
};
use sinew::project::{self, FsSource, Layout, MemSource, ProjectPath};
use sinew::reload::Reloader;
use sinew::runtime::TraceKind;
use sinew::runtime::scene::{headless, spawn};

const ENTITIES: usize = 1_000;

/// A project folder with the repository's `assets/` and `graphs/demo/` and a scene of
/// `ENTITIES` villagers at `scenes/bench.scene.ron`.
fn project_folder() -> tempfile::TempDir {
    let root = env!("CARGO_MANIFEST_DIR");
    let tmp = tempfile::tempdir().expect("tempdir");
    for dir in ["assets", "graphs/demo", "scenes"] {
        std::fs::create_dir_all(tmp.path().join(dir)).expect("folder");
    }
    for dir in ["assets", "graphs/demo"] {
        for e in std::fs::read_dir(format!("{root}/{dir}")).expect("folder") {
            let p = e.expect("entry").path();
            if p.is_file() {
                let to = tmp.path().join(dir).join(p.file_name().expect("name"));
                std::fs::copy(&p, to).expect("copy");
            }
        }
    }
    let entities: Vec<String> = (0..ENTITIES)
        .map(|i| {
            format!(
                r#"(name: "v{i}", animator: Some((clips: {{"run": "run.animseq"}}, default_clip: Some("run"))), graphs: ["../graphs/demo/villager.bpg"])"#
            )
        })
        .collect();
    std::fs::write(
        tmp.path().join("scenes/bench.scene.ron"),
        format!("Scene(entities: [{}])", entities.join(",\n")),
    )
    .expect("scene");
    tmp
}

/// A headless app with the base plugins the plugin needs (task pool, time stepped by 1/60 s,
/// assets from `root` without watching), nothing else.
fn base_app(root: &Path) -> App {
    headless_app(root, false, Some(Duration::from_secs_f64(1.0 / 60.0)))
}

fn app_for(root: &Path) -> App {
    let mut app = base_app(root);
    // The villager graph calls game nodes: their declared defaults, as the bare runtime's.
    app.insert_resource(sinew::runtime::GameNodes::headless());
    app.add_plugins(SinewPlugin::default());
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load_builder()
        .with_settings(|s: &mut SinewLoadSettings| s.assets = Some("assets".into()))
        .load::<SinewSceneAsset>("scenes/bench.scene.ron");
    let carrier = app.world_mut().spawn(SinewScene(handle)).id();
    for _ in 0..100_000 {
        app.update();
        if app.world().get::<SinewSpawned>(carrier).is_some() {
            return app;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    panic!("the bench scene did not spawn");
}

fn plugin_overhead(c: &mut Criterion) {
    let tmp = project_folder();
    let (source, layout) = FsSource::open(
        Some(tmp.path()),
        Path::new("scenes/bench.scene.ron"),
        Path::new("assets"),
    )
    .expect("project");
    let loaded = project::load(&source, &layout).expect("readable");
    let (def, assets) = loaded.ready().expect("the bench scene loads");
    let (mut world, mut schedule) = headless(1.0 / 60.0).expect("dt");
    world.remove_resource::<sinew::runtime::Trace>();
    spawn(&mut world, def, assets).expect("spawn");
    let mut app = app_for(tmp.path());
    let mut empty = base_app(tmp.path());
    // The base app with Sinew's six asset types registered and nothing else of the plugin:
    // Bevy's upkeep per asset type (`track_assets`, `asset_events`' condition, two message
    // types), which any plugin with six asset types pays.
    let mut typed = base_app(tmp.path());
    typed
        .init_asset::<SinewClip>()
        .init_asset::<SinewSkeleton>()
        .init_asset::<SinewStateMachine>()
        .init_asset::<SinewGraph>()
        .init_asset::<SinewSceneAsset>()
        .init_asset::<SinewImport>();
    // Sinew's runtime in the same `App` without the plugin: the bare runtime's systems in
    // `Update`, the scene spawned directly. Bevy's frame around a real Sinew frame (its task-pool
    // ticking runs with the caches the frame left), so `plugin_app − this` is the plugin's own.
    let mut hosted = base_app(tmp.path());
    {
        let w = hosted.world_mut();
        sinew::runtime::init_world(w);
        w.insert_resource(sinew::runtime::GameTime::new(1.0 / 60.0).expect("dt"));
        w.insert_resource(sinew::runtime::Dispatcher::new(
            sinew::runtime::VmDispatch::new(),
        ));
        w.insert_resource(sinew::runtime::scene::QueueDrops(0));
        spawn(w, def, assets).expect("spawn");
    }
    hosted.edit_schedule(bevy_app::Update, |s| {
        sinew::runtime::add_sinew_systems(s);
        s.add_systems(sinew::runtime::animate.in_set(sinew::runtime::AnimationSet));
        s.add_systems(sinew::runtime::scene::report_flush.after(sinew::runtime::SinewSet::Flush));
    });
    // The plugin with no scene: its per-frame cost while nothing ticks.
    let mut idle = base_app(tmp.path());
    idle.add_plugins(SinewPlugin::default());
    for _ in 0..10 {
        empty.update();
        typed.update();
        idle.update();
    }
    hosted.update();

    let mut g = c.benchmark_group("plugin_overhead");
    g.bench_function("bare_runtime_1000_entities", |b| {
        b.iter(|| schedule.run(&mut world))
    });
    g.bench_function("plugin_app_update_1000_entities", |b| {
        b.iter(|| app.update())
    });
    // Bevy's own upkeep of the same base plugins without Sinew (what any such app pays).
    g.bench_function("base_app_update_without_sinew", |b| {
        b.iter(|| empty.update())
    });
    g.bench_function("base_app_with_six_asset_types", |b| {
        b.iter(|| typed.update())
    });
    g.bench_function("plugin_app_update_no_scene", |b| b.iter(|| idle.update()));
    g.bench_function("runtime_in_app_without_plugin", |b| {
        b.iter(|| hosted.update())
    });
    g.finish();
}

/// A graph of 1,000 nodes: 250 chains tick → log ← concat ← from_int ← add; `tag` goes into
/// every log text (a changed tag is a changed module).
fn big_graph(tag: &str) -> String {
    let mut s = String::from("graph big\n\nvar total: int = 0\n\nnode tick = event tick\n");
    let groups = 250;
    for i in 0..groups {
        writeln!(s, "node log{i} = debug.log").unwrap();
        writeln!(s, "node cat{i} = string.concat {{ a = \"{tag} \" }}").unwrap();
        writeln!(s, "node str{i} = string.from_int").unwrap();
        writeln!(s, "node add{i} = int.add {{ a = {i}, b = 1 }}").unwrap();
    }
    writeln!(s, "tick.then -> log0.exec").unwrap();
    for i in 0..groups {
        writeln!(s, "add{i}.out -> str{i}.a").unwrap();
        writeln!(s, "str{i}.out -> cat{i}.b").unwrap();
        writeln!(s, "cat{i}.out -> log{i}.message").unwrap();
        if i + 1 < groups {
            writeln!(s, "log{i}.then -> log{}.exec", i + 1).unwrap();
        }
    }
    s
}

fn reload_latency(c: &mut Criterion) {
    let path = |p: &str| ProjectPath::new(p).expect(p);
    let mut mem = MemSource::new();
    mem.insert(
        path("s.scene.ron"),
        r#"Scene(entities: [(name: "e", graphs: ["big.bpg"])])"#,
    );
    mem.insert(path("big.bpg"), big_graph("step"));
    let layout = Layout::new(path("s.scene.ron"), path("assets"));
    let loaded = project::load(&mem, &layout).expect("readable");
    let (def, assets) = loaded.ready().expect("the big graph compiles");
    let (mut world, mut schedule) = headless(1.0 / 60.0).expect("dt");
    world.remove_resource::<sinew::runtime::Trace>();
    let spawned = spawn(&mut world, def, assets).expect("spawn");
    let mut reloader = Reloader::new(&loaded, &mem, &layout).expect("ready");
    schedule.run(&mut world);
    let mut n = 0u64;
    let mut g = c.benchmark_group("reload_latency");
    g.sample_size(20);
    g.bench_function("graph_1000_nodes_change_to_running", |b| {
        b.iter(|| {
            n += 1;
            mem.insert(path("big.bpg"), big_graph(&format!("step {n}")));
            let new = project::load(&mem, &layout).expect("readable");
            let records = reloader.apply(&mut world, &spawned, &new);
            assert!(matches!(records.as_slice(), [TraceKind::Reload { .. }]));
        })
    });
    g.finish();
    schedule.run(&mut world);
}

/// The same change through the plugin: the graph file rewritten, Bevy told it changed (what its
/// file watcher does after its debounce), then frames until the new module runs — the scene
/// loader reading every file through Bevy's asset reader again, `project::load`, the reload.
fn plugin_reload_latency(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    std::fs::create_dir(root.join("assets")).expect("assets");
    std::fs::write(
        root.join("s.scene.ron"),
        r#"Scene(entities: [(name: "e", graphs: ["big.bpg"])])"#,
    )
    .expect("scene");
    std::fs::write(root.join("big.bpg"), big_graph("step")).expect("graph");
    let mut app = base_app(root);
    app.add_plugins(SinewPlugin::default());
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load::<SinewSceneAsset>("s.scene.ron");
    let carrier = app.world_mut().spawn(SinewScene(handle)).id();
    for _ in 0..100_000 {
        app.update();
        if app.world().get::<SinewSpawned>(carrier).is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(
        app.world().get::<SinewSpawned>(carrier).is_some(),
        "spawned"
    );
    let mut n = 0u64;
    let mut cursor = MessageCursor::<SinewMessage>::default();
    let mut g = c.benchmark_group("reload_latency");
    g.sample_size(20);
    g.bench_function("plugin_graph_1000_nodes_change_to_running", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                n += 1;
                std::fs::write(root.join("big.bpg"), big_graph(&format!("step {n}")))
                    .expect("edit");
                let start = std::time::Instant::now();
                app.world().resource::<AssetServer>().reload("s.scene.ron");
                loop {
                    app.update();
                    let messages = app.world().resource::<Messages<SinewMessage>>();
                    if cursor
                        .read(messages)
                        .any(|m| matches!(m, SinewMessage::Reload(_, TraceKind::Reload { .. })))
                    {
                        break;
                    }
                    assert!(start.elapsed() < Duration::from_secs(10), "no reload");
                }
                total += start.elapsed();
            }
            total
        })
    });
    g.finish();
}

criterion_group!(
    benches,
    plugin_overhead,
    reload_latency,
    plugin_reload_latency
);
criterion_main!(benches);
