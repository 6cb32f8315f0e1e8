//! Memory of every `.animseq` reader, as a multiple of the file (issue 24, item 2): loading a
//! clip took about 30× its size (53 MB → 1.27 GB). The loader, `migrate` and the catalog entry
//! hold at most 4× the file's bytes at once, measured with a counting allocator.

#[path = "support/alloc.rs"]
mod alloc;
use alloc::peak_of;
use sinew::diag::SourceFile;
use std::fmt::Write;

/// A format-3 clip of about `tracks` × 2 400 keys and as many notifies and curve keys: the
/// shapes a large exported clip has (key lists, notify structs with fields, curves).
fn big_clip(tracks: usize, notifies: usize) -> String {
    let keys = 600;
    let duration = keys as f64 / 60.0;
    let mut s = String::from(
        "AnimSeq(\n    format: 3,\n    id: \"6f445aa3-c53f-4364-8e31-6cfd2d513bbd\",\n    name: \"Big\",\n",
    );
    let _ = writeln!(s, "    duration: {duration:?},\n    tracks: [");
    for b in 0..tracks {
        let _ = writeln!(
            s,
            "        (\n            bone: \"bone_{b}\",\n            translation: ["
        );
        for k in 0..keys {
            let t = k as f64 / 60.0;
            let _ = writeln!(
                s,
                "                ({t:?}, ({:?}, {:?}, 0.0)),",
                0.01 * k as f32,
                1.0 - 0.001 * b as f32
            );
        }
        let _ = writeln!(s, "            ],\n            rotation: [");
        for k in 0..keys {
            let t = k as f64 / 60.0;
            let _ = writeln!(
                s,
                "                ({t:?}, (0.0, 0.0, {:?}, 1.0)),",
                0.0001 * k as f32
            );
        }
        let _ = writeln!(
            s,
            "            ],\n            scale: [(0.0, (1.0, 1.0, 1.0))],\n        ),"
        );
    }
    s.push_str("    ],\n    notifies: [\n");
    for n in 0..notifies {
        let t = (n % keys) as f64 / 60.0;
        let _ = writeln!(
            s,
            "        (id: \"n{n}\", name: \"Step {n}\", time: {t:?}, fields: [(\"volume\", Float(0.6))]),"
        );
    }
    s.push_str(
        "    ],\n    curves: [\n        (name: \"fatigue\", interpolation: Linear, keys: [\n",
    );
    for k in 0..keys * tracks {
        let t = (k % keys) as f64 / 60.0 + (k / keys) as f64 * 0.0;
        if k % keys == 0 && k > 0 {
            break;
        }
        let _ = writeln!(s, "            ({t:?}, Float({:?})),", 0.001 * k as f32);
    }
    s.push_str("        ]),\n    ],\n)\n");
    s
}

/// Asserts that `what` held at most 4× the file at once.
fn check(what: &str, bytes: usize, peak: usize) {
    let ratio = peak as f64 / bytes as f64;
    eprintln!("{what}: {bytes} B file, peak {peak} B ({ratio:.2}×)");
    assert!(
        peak <= 4 * bytes,
        "{what} held {peak} bytes for a {bytes}-byte file ({ratio:.1}×; at most 4×)"
    );
}

#[test]
fn every_reader_holds_at_most_four_times_the_file() {
    let text = big_clip(60, 6_000);
    let bytes = text.as_bytes();
    assert!(bytes.len() > 4 << 20, "{}", bytes.len());
    let (loaded, peak) = peak_of(|| sinew::animseq::load_bytes("big.animseq", bytes));
    assert!(
        loaded.seq.is_some() && loaded.diagnostics.is_empty(),
        "{:?}",
        loaded.diagnostics.first()
    );
    drop(loaded);
    check("load", bytes.len(), peak);
    let (entry, peak) = peak_of(|| sinew::catalog::FileEntry::from_bytes("big.animseq", bytes));
    drop(entry);
    check("catalog", bytes.len(), peak);
    let (migrated, peak) = peak_of(|| {
        let src = SourceFile::new("big.animseq", text.as_str());
        sinew::animseq::migrate(&src, Some(4)).map(|_| ())
    });
    assert!(migrated.is_ok(), "{migrated:?}");
    check("migrate", bytes.len(), peak);
}

/// A clip made mostly of notifies (40 tracks, 24,000 notifies): each notify becomes a published
/// event, so the catalog must not hold the loaded sequence and its events at once.
#[test]
fn a_notify_heavy_clip_stays_within_four_times_too() {
    let text = big_clip(40, 24_000);
    let bytes = text.as_bytes();
    assert!(bytes.len() > 4 << 20, "{}", bytes.len());
    let (loaded, peak) = peak_of(|| sinew::animseq::load_bytes("heavy.animseq", bytes));
    assert!(loaded.seq.is_some(), "{:?}", loaded.diagnostics.first());
    drop(loaded);
    check("load", bytes.len(), peak);
    let (entry, peak) = peak_of(|| sinew::catalog::FileEntry::from_bytes("heavy.animseq", bytes));
    assert!(entry.sequence.is_some() && entry.diagnostics.is_empty());
    drop(entry);
    check("catalog", bytes.len(), peak);
}
