//! Model import against its parse floor, side by side in one run: `gltf::Gltf::from_slice`
//! alone (JSON parse, validation, BIN chunk); the SHA-256 fingerprint alone; Sinew's whole
//! import (parse, fingerprint, buffers, skeletons, every clip converted and written as text,
//! manifest); the same import handing out clips as values (no text), also with the fingerprint
//! known beforehand (the import's own thread alone); and the float text
//! floor (only the numbers the `.animseq` texts hold, formatted with `zmij` on one thread).
//! Throughput is the model file's bytes. See `docs/benchmarks.md` ("Import").

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
        // The numbers the `.animseq` texts hold (key times as `f64`, values as `f32`), each
        // written as its shortest round-trip digits with `zmij` and nothing else: what any
        // writer of this text must at least do.
        // Collected only when this benchmark runs (a filter that skips it imports nothing
        // outside the measured routines, so profiles of the others see only them).
        g.bench_with_input(
            BenchmarkId::new("float text floor", name),
            bytes,
            |b, bytes| {
                let (times, values) = numbers(bytes, &id, &ext);
                let mut out = String::with_capacity(16 * (times.len() + values.len()));
                b.iter(|| {
                    out.clear();
                    let mut buf = zmij::Buffer::new();
                    for &t in &times {
                        out.push_str(buf.format_finite(t));
                    }
                    for &v in &values {
                        out.push_str(buf.format_finite(v));
                    }
                    out.len()
                })
            },
        );
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
        // The same with the fingerprint computed beforehand (outside the measurement): the
        // import's own thread alone, which shows what the hash beside it adds.
        g.bench_with_input(
            BenchmarkId::new("sinew import, values, fingerprint known", name),
            bytes,
            |b, bytes| {
                b.iter_batched(
                    || {
                        let p = prepare("m.glb", bytes);
                        let _ = p.fingerprint();
                        p
                    },
                    |p| {
                        let mut clips = 0usize;
                        let out = p.import(&id, &ext, &mut |a| {
                            clips +=
                                usize::from(matches!(a.content, sinew::import::Content::Clip(_)));
                            drop(black_box(a));
                        });
                        assert!(out.manifest.runtime_supported);
                        clips
                    },
                    criterion::BatchSize::SmallInput,
                )
            },
        );
    }
    g.finish();
}

/// Every key time and value of the model's clips, as the importer makes them.
fn numbers(bytes: &[u8], id: &Identity, ext: &BTreeMap<String, Vec<u8>>) -> (Vec<f64>, Vec<f32>) {
    let (mut times, mut values) = (Vec::new(), Vec::new());
    prepare("m.glb", bytes).import(id, ext, &mut |a| {
        let sinew::import::Content::Clip(seq) = a.content else {
            return;
        };
        for tr in &seq.tracks {
            for (t, v) in &tr.translation {
                times.push(*t);
                values.extend_from_slice(v);
            }
            for (t, v) in &tr.rotation {
                times.push(*t);
                values.extend_from_slice(v);
            }
            for (t, v) in &tr.scale {
                times.push(*t);
                values.extend_from_slice(v);
            }
        }
        for c in &seq.curves {
            for (t, v) in &c.keys {
                times.push(*t);
                match v {
                    sinew::animseq::CurveValue::Float(x) => times.push(*x),
                    sinew::animseq::CurveValue::Vec3(v) => values.extend_from_slice(v),
                }
            }
        }
    });
    (times, values)
}

criterion_group!(benches, bench);
criterion_main!(benches);
