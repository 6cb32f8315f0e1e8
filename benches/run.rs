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
    let root = env!("CARGO_MANIFEST_DIR");
    let mut mem = MemSource::new();
    for dir in ["assets", "graphs/demo"] {
        for e in std::fs::read_dir(format!("{root}/{dir}")).expect("folder") {
            let p = e.expect("entry").path();
            let name = p.file_name().expect("name").to_string_lossy().into_owned();
            mem.insert(
                path(&format!("{dir}/{name}")),
                std::fs::read(&p).expect("file"),
            );
        }
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

criterion_group!(benches, bench_run, bench_heroes);
criterion_main!(benches);
