//! Headless run throughput: 1,000 entities each playing `assets/run.animseq` (0.8 s, two
//! footsteps) with the demo villager graph (counts footsteps), one tick of 1/60 s per
//! iteration: time, scene actions, delays, animation with crossing queries, `tick` publishing,
//! flush and VM dispatch. Reported per tick and as entity-updates per second.

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

criterion_group!(benches, bench_run);
criterion_main!(benches);
