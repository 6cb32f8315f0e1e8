//! Headless run throughput, scenes loaded through the project loader (`sinew::project`) from
//! the repository's `assets/` and `graphs/demo/` read into memory, one tick of 1/60 s per
//! iteration: time, scene actions, delays, animation with crossing queries, `tick` publishing,
//! flush and VM dispatch. Reported per tick and as entity-updates per second.
//!
//! `tick_1000_entities`: 1,000 entities each playing `assets/run.animseq` (0.8 s, two
//! footsteps) with the demo villager graph (counts footsteps).
//!
//! `tick_1000_heroes`: 1,000 demo heroes (assets/hero.skel, hero.animsm in its walk/run blend,
//! a masked upper-body layer, root motion) — state machine, clip sync, crossings, root motion
//! and pose evaluation per animator per tick, no graphs.
//!
//! `windows`: the window bookkeeping, side by side in one run. `windows_1000x4`: 1,000
//! animators each looping a 0.5 s clip with 4 windows, each opening and closing every cycle
//! (8 edges per cycle through the open/closed state, gating and publishing); `points_1000x8`:
//! the same clip with 8 point notifies at the same clip times instead (as many crossings
//! published, no window state). No graphs: the difference is the bookkeeping.

use bevy_ecs::prelude::*;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sinew::project::{self, Layout, MemSource, ProjectPath};
use sinew::runtime::scene::{headless, spawn};

const ENTITIES: usize = 1_000;

fn path(p: &str) -> ProjectPath {
    ProjectPath::new(p).expect(p)
}

/// A world and schedule running `scene` (scene text at `scenes/bench.scene.ron`) with the
/// repository's assets and demo graphs, without a trace.
fn world_for(scene: String) -> (World, Schedule) {
    world_with(scene, &[])
}

/// As [`world_for`], with extra assets `(name under assets/, text)`.
fn world_with(scene: String, extra: &[(&str, String)]) -> (World, Schedule) {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut mem = MemSource::new();
    // Every file under the two folders, subfolders included (`assets/` holds the imported
    // fox's `animations/generated/<uuid>/`).
    let mut dirs = vec!["assets".to_string(), "graphs/demo".to_string()];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(format!("{root}/{dir}")).expect("folder") {
            let p = e.expect("entry").path();
            let name = p.file_name().expect("name").to_string_lossy().into_owned();
            if p.is_dir() {
                dirs.push(format!("{dir}/{name}"));
            } else {
                mem.insert(
                    path(&format!("{dir}/{name}")),
                    std::fs::read(&p).expect("file"),
                );
            }
        }
    }
    for (name, text) in extra {
        mem.insert(path(&format!("assets/{name}")), text.as_str());
    }
    mem.insert(path("scenes/bench.scene.ron"), scene);
    let layout = Layout::new(path("scenes/bench.scene.ron"), path("assets"));
    let loaded = project::load(&mem, &layout).expect("readable");
    let (def, assets) = loaded.ready().expect("the bench scene loads");
    let (mut world, schedule) = headless(1.0 / 60.0).expect("dt");
    world.remove_resource::<sinew::runtime::Trace>();
    spawn(&mut world, def, assets).expect("spawn");
    (world, schedule)
}

/// `Scene(entities: [...], actions: [...])` of `ENTITIES` copies of `entity` (named `hN`)
/// and of `action` (on `hN`, if any).
fn scene(entity: &str, action: Option<&str>) -> String {
    let entities: Vec<String> = (0..ENTITIES)
        .map(|i| entity.replace("hN", &format!("h{i}")))
        .collect();
    let actions: Vec<String> = match action {
        Some(a) => (0..ENTITIES)
            .map(|i| a.replace("hN", &format!("h{i}")))
            .collect(),
        None => Vec::new(),
    };
    format!(
        "Scene(entities: [{}], actions: [{}])",
        entities.join(","),
        actions.join(",")
    )
}

fn bench_run(c: &mut Criterion) {
    let (mut world, mut schedule) = world_for(scene(
        r#"(name: "hN", animator: Some((clips: {"run": "run.animseq"}, default_clip: Some("run"))),
            graphs: ["../graphs/demo/villager.bpg"])"#,
        None,
    ));
    let mut g = c.benchmark_group("run");
    g.throughput(Throughput::Elements(ENTITIES as u64));
    g.bench_function("tick_1000_entities", |b| {
        b.iter(|| schedule.run(&mut world))
    });
    g.finish();
}

fn bench_heroes(c: &mut Criterion) {
    let (mut world, mut schedule) = world_for(scene(
        r#"(name: "hN", animator: Some((
        skeleton: Some("hero.skel"),
        clips: {"idle": "hero_idle.animseq", "walk": "hero_walk.animseq", "run": "run.animseq", "wave": "hero_turn.animseq"},
        state_machine: Some("hero.animsm"),
        layers: [(name: "upper_body", weight: 0.8, mask: Some(["spine1"]), clip: Some("wave"))],
        root_motion: (mode: Transform, bone: "hips"),
    )))"#,
        Some(r#"(at: 0.0, entity: "hN", action: SetParam("speed", 2.5))"#),
    ));
    for _ in 0..30 {
        schedule.run(&mut world); // into the move state, past the crossfade
    }
    let mut g = c.benchmark_group("run");
    g.throughput(Throughput::Elements(ENTITIES as u64));
    g.bench_function("tick_1000_heroes", |b| b.iter(|| schedule.run(&mut world)));
    g.finish();
}

/// The edge times of the window bench: 4 windows of a 0.5 s clip.
const SPANS: [(f64, f64); 4] = [(0.02, 0.12), (0.1, 0.3), (0.22, 0.4), (0.35, 0.48)];

fn bench_windows(c: &mut Criterion) {
    let windows: Vec<String> = SPANS
        .iter()
        .enumerate()
        .map(|(i, (b, e))| format!("(id: \"w{i}\", name: \"W{i}\", begin: {b:?}, end: {e:?})"))
        .collect();
    let points: Vec<String> = SPANS
        .iter()
        .flat_map(|(b, e)| [*b, *e])
        .enumerate()
        .map(|(i, t)| format!("(id: \"p{i}\", name: \"P{i}\", time: {t:?})"))
        .collect();
    let clip = |id: &str, notifies: &[String], windows: &[String]| {
        format!(
            "AnimSeq(format: 4, id: \"{id}\", name: \"{id}\", duration: 0.5, tracks: [], \
             notifies: [{}], windows: [{}])",
            notifies.join(","),
            windows.join(",")
        )
    };
    let extra = [
        (
            "bench_windows.animseq",
            clip("bench_windows", &[], &windows),
        ),
        ("bench_points.animseq", clip("bench_points", &points, &[])),
    ];
    let entity = |file: &str| {
        format!(
            r#"(name: "hN", animator: Some((clips: {{"c": "{file}"}}, default_clip: Some("c"))))"#
        )
    };
    let mut g = c.benchmark_group("windows");
    g.throughput(Throughput::Elements(ENTITIES as u64));
    for (name, file) in [
        ("windows_1000x4", "bench_windows.animseq"),
        ("points_1000x8", "bench_points.animseq"),
    ] {
        let (mut world, mut schedule) = world_with(scene(&entity(file), None), &extra);
        g.bench_function(name, |b| b.iter(|| schedule.run(&mut world)));
    }
    g.finish();
}

criterion_group!(benches, bench_run, bench_heroes, bench_windows);
criterion_main!(benches);
