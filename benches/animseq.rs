//! Benchmarks of `.animseq` loading, writing and root-motion extraction.

use criterion::{Criterion, criterion_group, criterion_main};
use sinew::animseq;
use sinew::diag::SourceFile;
use std::hint::black_box;

fn walk() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/walk.animseq"))
        .expect("asset")
}

/// A sequence with many keys and notifies, to see per-element cost.
fn big() -> String {
    let mut seq = animseq::load(&SourceFile::new("walk", walk()))
        .seq
        .expect("walk loads");
    let n = 1000;
    let d = seq.duration;
    seq.tracks[0].translation = (0..n)
        .map(|i| (d * f64::from(i) / f64::from(n), [0.0, 1.0, i as f32 * 0.01]))
        .collect();
    let proto = seq.notifies[0].clone();
    seq.notifies = (0..n)
        .map(|i| animseq::Notify {
            id: format!("n{i}"),
            time: d * f64::from(i) / f64::from(n),
            ..proto.clone()
        })
        .collect();
    animseq::to_ron(&seq)
}

fn bench(c: &mut Criterion) {
    let walk = walk();
    c.bench_function("animseq/load walk.animseq", |b| {
        b.iter(|| animseq::load(&SourceFile::new("walk", black_box(walk.as_str()))))
    });
    let big = big();
    c.bench_function("animseq/load 1000 keys + 1000 notifies", |b| {
        b.iter(|| animseq::load(&SourceFile::new("big", black_box(big.as_str()))))
    });
    c.bench_function("ron_span/parse 1000 keys + 1000 notifies", |b| {
        b.iter(|| sinew::ron_span::parse(black_box(big.as_str())))
    });
    let seq = animseq::load(&SourceFile::new("big", big.as_str()))
        .seq
        .expect("big loads");
    c.bench_function("animseq/to_ron 1000 keys + 1000 notifies", |b| {
        b.iter(|| animseq::to_ron(black_box(&seq)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
