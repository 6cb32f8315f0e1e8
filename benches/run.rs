//! Headless run throughput: 1,000 entities each playing `assets/run.animseq` (0.8 s, two
//! footsteps) with the demo villager graph (counts footsteps), one tick of 1/60 s per
//! iteration: time, scene actions, delays, animation with crossing queries, `tick` publishing,
//! flush and VM dispatch. Reported per tick and as entity-updates per second.
//!
//! `tick_1000_heroes`: 1,000 demo heroes (assets/hero.skel, hero.animsm in its walk/run blend,
//! a masked upper-body layer, root motion) — state machine, clip sync, crossings, root motion
//! and pose evaluation per animator per tick, no graphs.

use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sinew::catalog::{Catalog, FileEntry};
use sinew::diag::SourceFile;
use sinew::runtime::scene::headless;
use sinew::runtime::{Animator, Clip, EventHub, attach_graphs};

const ENTITIES: usize = 1_000;

fn bench_run(c: &mut Criterion) {
    let root = env!("CARGO_MANIFEST_DIR");
    let clip_bytes = std::fs::read(format!("{root}/assets/run.animseq")).expect("run.animseq");
    let catalog = Catalog::from_entries([FileEntry::from_bytes("assets/run.animseq", &clip_bytes)]);
    let graph = std::fs::read_to_string(format!("{root}/graphs/demo/villager.bpg")).expect("graph");
    let compiled = sinew::compile::compile(&SourceFile::new("villager.bpg", graph), &catalog);
    let module = Arc::new(compiled.module.expect("the demo graph compiles"));
    let seq = Arc::new(
        sinew::animseq::load_bytes("run.animseq", &clip_bytes)
            .seq
            .expect("run.animseq loads"),
    );

    let (mut world, mut schedule) = headless(1.0 / 60.0).expect("dt");
    world.remove_resource::<sinew::runtime::Trace>();
    let clip = Arc::new(Clip::new(seq, &mut world.resource_mut::<EventHub>()).expect("clip"));
    for _ in 0..ENTITIES {
        let mut a = Animator::new();
        a.add_clip("run", clip.clone());
        a.play("run");
        let e = world.spawn(a).id();
        attach_graphs(&mut world, e, std::slice::from_ref(&module)).expect("attach");
    }
    let mut g = c.benchmark_group("run");
    g.throughput(Throughput::Elements(ENTITIES as u64));
    g.bench_function("tick_1000_entities", |b| {
        b.iter(|| schedule.run(&mut world))
    });
    g.finish();
}

fn bench_heroes(c: &mut Criterion) {
    use sinew::runtime::scene;
    use sinew::scene::SceneAssets;
    let root = env!("CARGO_MANIFEST_DIR");
    let hero = r#"(name: "hN", animator: Some((
        skeleton: Some("hero.skel"),
        clips: {"idle": "hero_idle.animseq", "walk": "hero_walk.animseq", "run": "run.animseq", "wave": "hero_turn.animseq"},
        state_machine: Some("hero.animsm"),
        layers: [(name: "upper_body", weight: 0.8, mask: Some(["spine1"]), clip: Some("wave"))],
        root_motion: (mode: Transform, bone: "hips"),
    )))"#;
    let entities: Vec<String> = (0..ENTITIES)
        .map(|i| hero.replace("hN", &format!("h{i}")))
        .collect();
    let actions: Vec<String> = (0..ENTITIES)
        .map(|i| format!(r#"(at: 0.0, entity: "h{i}", action: SetParam("speed", 2.5))"#))
        .collect();
    let text = format!(
        "Scene(entities: [{}], actions: [{}])",
        entities.join(","),
        actions.join(",")
    );
    let def = sinew::scene::parse(&SourceFile::new("bench.scene.ron", text))
        .scene
        .expect("scene parses");
    let mut assets = SceneAssets::default();
    for p in def.clip_paths() {
        let b = std::fs::read(format!("{root}/assets/{}", p.path)).expect("clip");
        let seq = sinew::animseq::load_bytes(&p.path, &b)
            .seq
            .expect("clip loads");
        assets.clips.insert(p.path.clone(), Arc::new(seq));
    }
    let skel = std::fs::read(format!("{root}/assets/hero.skel")).expect("skel");
    let skel = sinew::anim::load_skeleton_bytes("hero.skel", &skel)
        .skeleton
        .expect("skel loads");
    assets.skeletons.insert("hero.skel".into(), Arc::new(skel));
    let sm = std::fs::read(format!("{root}/assets/hero.animsm")).expect("animsm");
    let sm = sinew::anim::state_machine::parse_state_machine_bytes("hero.animsm", &sm)
        .def
        .expect("animsm parses");
    assets.machines.insert("hero.animsm".into(), Arc::new(sm));
    let (mut world, mut schedule) = headless(1.0 / 60.0).expect("dt");
    world.remove_resource::<sinew::runtime::Trace>();
    scene::spawn(&mut world, &def, &assets).expect("spawn");
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
