//! The clip editor's measurements for `docs/benchmarks.md` (issue 28), on a real studio server:
//!
//! - `GET /api/poses` of a 64-bone clip at 60 fps over 10 s (601 frames), beside the same
//!   frames sampled in process and one `sinew sample`-sized pose;
//! - `PUT /api/clip` of one edit on a 5 MB `.animseq`, beside `animseq::apply_edits` alone.
//!
//!   cargo run --release --example clips_measure
//!
//! Prints one line per measurement: the median of the runs, in milliseconds.

use sinew::anim::preview::{PosePlayer, Scratch};
use sinew::animseq::{self, ClipEdit, MarkerPatch};
use sinew::diag::SourceFile;
use std::path::Path;
use std::time::Instant;

#[path = "support/studio.rs"]
mod support;
use support::http;

fn rig(dir: &Path) {
    let mut bones = String::new();
    let mut tracks = String::new();
    for i in 0..64 {
        let parent = match i {
            0 => "None".to_string(),
            i if i % 16 == 0 => "Some(\"b0\")".to_string(),
            i => format!("Some(\"b{}\")", i - 1),
        };
        bones.push_str(&format!(
            "        (name: \"b{i}\", parent: {parent}, translation: (0.0, 0.06, 0.0), rotation: (0.0, 0.0, 0.0, 1.0), scale: (1.0, 1.0, 1.0)),\n"
        ));
        let keys: Vec<String> = (0..=300)
            .map(|k| {
                let a = ((k as f64) / 9.0 + i as f64).sin() * 0.1;
                format!(
                    "({}, ({a:.4}, 0.0, 0.0, {:.6}))",
                    k as f64 / 30.0,
                    (1.0 - a * a).sqrt()
                )
            })
            .collect();
        tracks.push_str(&format!(
            "        (bone: \"b{i}\", translation: [], rotation: [{}], scale: []),\n",
            keys.join(", ")
        ));
    }
    std::fs::write(
        dir.join("rig64.skel"),
        format!("Skeleton(\n    bones: [\n{bones}    ],\n)\n"),
    )
    .unwrap();
    std::fs::write(
        dir.join("rig64.animseq"),
        format!(
            "AnimSeq(\n    format: 2,\n    id: \"rig64\",\n    name: \"Rig 64\",\n    duration: 10.0,\n    skeleton: Some(\"rig64.skel\"),\n    tracks: [\n{tracks}    ],\n    notifies: [\n        (id: \"step\", name: \"Step\", time: 0.5),\n    ],\n)\n"
        ),
    )
    .unwrap();
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn time(runs: usize, mut f: impl FnMut()) -> f64 {
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64() * 1000.0
            })
            .collect(),
    )
}

fn main() {
    let (dir, assets) = support::project();
    rig(&assets);
    let size = support::big_clip(&assets, 2000).len();
    let running = support::start(&dir);
    let (port, token) = (running.addr.port(), running.token.clone());

    // Poses: the endpoint, the library alone, and one pose (what `sinew sample` computes).
    let text = std::fs::read_to_string(assets.join("rig64.animseq")).unwrap();
    let seq = animseq::load(&SourceFile::new("rig64.animseq", text.as_str()))
        .seq
        .unwrap();
    let skel_text = std::fs::read(assets.join("rig64.skel")).unwrap();
    let skel = sinew::anim::load_skeleton_bytes("rig64.skel", &skel_text).skeleton;
    let mut bytes = 0;
    let api = time(21, || {
        let (s, b) = http(
            port,
            "GET",
            "/api/poses?path=rig64.animseq&from=0&to=10&fps=60",
            &token,
            "",
        );
        assert_eq!(s, 200);
        bytes = b.len();
    });
    let player = PosePlayer::new(&seq, skel, "rig64.animseq");
    let lib = time(21, || {
        let mut o = String::new();
        let mut sc = Scratch::default();
        for t in PosePlayer::frame_times(0.0, 10.0, 60.0).unwrap() {
            player.write_frame(&mut o, t, None, &mut sc);
        }
        std::hint::black_box(o);
    });
    let one = time(201, || {
        let (s, _) = http(
            port,
            "GET",
            "/api/pose?path=rig64.animseq&t=3.3",
            &token,
            "",
        );
        assert_eq!(s, 200);
    });
    println!(
        "GET /api/poses 64 bones, 601 frames: {api:.1} ms ({} KiB of JSON)",
        bytes / 1024
    );
    println!("  the same frames sampled and written in process: {lib:.1} ms");
    println!("GET /api/pose one frame (sinew sample's work, over HTTP): {one:.2} ms");

    // One edit on a 5 MB clip.
    let big_text = std::fs::read_to_string(assets.join("big.animseq")).unwrap();
    let src = SourceFile::new("big.animseq", big_text.as_str());
    let edit = |t: f64| ClipEdit::SetNotify {
        id: "step".into(),
        patch: MarkerPatch {
            time: Some(t),
            ..MarkerPatch::default()
        },
    };
    let alone = time(11, || {
        std::hint::black_box(animseq::apply_edits(&src, &[edit(0.75)]).unwrap());
    });
    // The PUT alone (the GET for the base version excluded).
    let mut puts = Vec::new();
    for k in 0..11 {
        let (_, b) = http(port, "GET", "/api/clip?path=big.animseq", &token, "");
        let v: serde_json::Value = serde_json::from_slice(&b).unwrap();
        let base = v["version"].as_str().unwrap().to_string();
        let body = serde_json::json!({"base": base, "edits": [
            {"op": "set_notify", "id": "step", "notify": {"time": 0.25 + k as f64 / 100.0}}
        ]})
        .to_string();
        let t = Instant::now();
        let (s, _) = http(port, "PUT", "/api/clip?path=big.animseq", &token, &body);
        puts.push(t.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(s, 200);
    }
    println!(
        "PUT /api/clip one edit on a {:.1} MB clip: {:.1} ms (apply_edits alone: {alone:.1} ms)",
        size as f64 / 1e6,
        median(puts)
    );
    running.stop();
}
