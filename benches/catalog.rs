//! Catalog scan and refresh on a generated folder of 10,000 sequences × 10 notifies, with a full
//! rescan measured side by side.

use criterion::{Criterion, criterion_group, criterion_main};
use sinew::catalog::scan::LiveCatalog;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const SEQUENCES: usize = 10_000;
const NOTIFIES: usize = 10;

fn sequence(i: usize, name: &str) -> String {
    let mut s = format!(
        "AnimSeq(\n    format: 3,\n    id: \"seq-{i:05}\",\n    name: \"{name}\",\n    duration: 1.0,\n    tracks: [],\n    notifies: [\n"
    );
    for n in 0..NOTIFIES {
        writeln!(
            s,
            "        (id: \"n{n}\", name: \"Notify {n}\", time: {:?}, fields: [(\"surface\", String(\"grass\")), (\"volume\", Float(0.8))]),",
            n as f64 / NOTIFIES as f64
        )
        .unwrap();
    }
    s.push_str("    ],\n)\n");
    s
}

fn generate(root: &Path) -> PathBuf {
    for i in 0..SEQUENCES {
        let dir = root.join(format!("group{:03}", i / 100));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(format!("s{i:05}.animseq")),
            sequence(i, &format!("Seq {i}")),
        )
        .unwrap();
    }
    root.join("group042").join("s04200.animseq")
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let changed = generate(dir.path());
    let mut g = c.benchmark_group("catalog_10k_sequences");
    g.sample_size(10);
    g.bench_function("full_scan", |b| {
        b.iter(|| LiveCatalog::scan(dir.path(), None, None).unwrap())
    });
    let mut live = LiveCatalog::scan(dir.path(), None, None).unwrap();
    assert_eq!(live.catalog().events().len(), SEQUENCES * NOTIFIES);
    let mut flip = false;
    g.bench_function("refresh_one_changed_file", |b| {
        b.iter(|| {
            flip = !flip;
            let name = if flip { "Renamed" } else { "Seq 4200" };
            std::fs::write(&changed, sequence(4200, name)).unwrap();
            let d = live.refresh(std::slice::from_ref(&changed));
            assert_eq!(d.changed.len(), NOTIFIES);
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
