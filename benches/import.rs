//! Model import against its parse floor, side by side in one run: `gltf::Gltf::from_slice`
//! alone (JSON parse, validation, BIN chunk); the SHA-256 fingerprint alone; Sinew's whole
//! import (parse, fingerprint, buffers, skeletons, every clip converted and written as text,
//! manifest); and the same import handing out clips as values (no text). Throughput is the
//! model file's bytes. See `docs/benchmarks.md` ("Import").

#[path = "../tests/support/big_model.rs"]
mod big_model;
#[path = "../tests/support/gltf_gen.rs"]
mod gltf_gen;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sinew::import::{Identity, prepare};
use std::collections::BTreeMap;
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let fox = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/models/Fox.glb"
    ))
    .expect("fox");
    let big = big_model::big_model();
    let id = Identity {
        model: uuid::Uuid::from_u128(1),
        source: "m.glb".to_string(),
    };
    let ext = BTreeMap::new();
    let mut g = c.benchmark_group("import");
    g.sample_size(20);
    for (name, bytes) in [("Fox.glb", &fox), ("generated 100j 20c 60k/s", &big)] {
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_with_input(BenchmarkId::new("parse floor", name), bytes, |b, bytes| {
            b.iter(|| gltf::Gltf::from_slice(black_box(bytes)).expect("parses"))
        });
        g.bench_with_input(BenchmarkId::new("fingerprint", name), bytes, |b, bytes| {
            b.iter(|| sinew::import::identity::fingerprint(black_box(bytes)))
        });
        g.bench_with_input(BenchmarkId::new("sinew import", name), bytes, |b, bytes| {
            b.iter(|| {
                let mut written = 0usize;
                let out = prepare("m.glb", black_box(bytes))
                    .import(&id, &ext, &mut |a| written += a.text().len());
                assert!(out.manifest.runtime_supported);
                written
            })
        });
        g.bench_with_input(
            BenchmarkId::new("sinew import, values", name),
            bytes,
            |b, bytes| {
                b.iter(|| {
                    let mut clips = 0usize;
                    let out = prepare("m.glb", black_box(bytes)).import(&id, &ext, &mut |a| {
                        clips += usize::from(matches!(a.content, sinew::import::Content::Clip(_)));
                        drop(black_box(a));
                    });
                    assert!(out.manifest.runtime_supported);
                    clips
                })
            },
        );
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
