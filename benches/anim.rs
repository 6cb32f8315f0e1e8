//! Benchmarks of the animation core: per-bone sampling + blending cost, and one frame of
//! 1,000 animators (64-bone rigs, a 2-clip 1D blend, one masked override layer, root motion),
//! each on the SoA/SIMD path (the default), on today's scalar path (`anim::scalar`), and, for
//! the 2-clip blend, against a memory floor (one pass reading the same key blocks and writing
//! the pose, no math) — side by side in one run.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use glam::{Quat, Vec3};
use sinew::anim::*;
use sinew::animseq::{AnimSeq, Track};
use std::collections::BTreeMap;
use std::hint::black_box;

const BONES: usize = 64;
const KEYS: usize = 9;

fn rig() -> Skeleton {
    let defs = (0..BONES)
        .map(|i| BoneDef {
            name: if i == 0 {
                "hips".into()
            } else {
                format!("b{i}")
            },
            parent: match i {
                0 => None,
                1 => Some("hips".into()),
                _ => Some(if (i - 1) / 2 == 0 {
                    "hips".into()
                } else {
                    format!("b{}", (i - 1) / 2)
                }),
            },
            rest: Transform {
                translation: Vec3::new(0.0, 0.1, 0.0),
                ..Transform::IDENTITY
            },
        })
        .collect();
    Skeleton::new(defs, vec![]).expect("rig")
}

fn clip(duration: f64, amp: f32, forward: f32) -> AnimSeq {
    let tracks = (0..BONES)
        .map(|b| {
            let keys = |f: &dyn Fn(f32) -> [f32; 4]| {
                (0..KEYS)
                    .map(|k| {
                        let p = k as f32 / (KEYS - 1) as f32;
                        (duration * f64::from(p), f(p))
                    })
                    .collect::<Vec<_>>()
            };
            let axis = Vec3::new(1.0, (b % 3) as f32, (b % 5) as f32).normalize();
            Track {
                bone: if b == 0 {
                    "hips".into()
                } else {
                    format!("b{b}")
                },
                translation: keys(&|p| {
                    let y = 0.1 + 0.02 * (p * std::f32::consts::TAU).sin();
                    let z = if b == 0 { forward * p } else { 0.0 };
                    [0.0, y, z, 0.0]
                })
                .into_iter()
                .map(|(t, v)| (t, [v[0], v[1], v[2]]))
                .collect(),
                rotation: keys(&|p| {
                    Quat::from_axis_angle(axis, amp * (p * std::f32::consts::TAU + b as f32).sin())
                        .to_array()
                }),
                scale: vec![],
            }
        })
        .collect();
    AnimSeq {
        id: "c".into(),
        name: "c".into(),
        duration,
        skeleton: None,
        tracks,
        notifies: vec![],
        windows: vec![],
        curves: vec![],
        root_motion: None,
    }
}

struct Assets {
    skel: Skeleton,
    clips: Vec<BoundClip>,
    tree: BlendTree,
    mask: BoneMask,
    roots: Vec<RootClip>,
    hips: usize,
}

fn assets() -> Assets {
    let skel = rig();
    let none = BTreeMap::new();
    let clips: Vec<BoundClip> = [
        clip(1.0, 0.4, 1.6),
        clip(0.7, 0.8, 2.8),
        clip(2.0, 0.3, 0.0),
    ]
    .iter()
    .map(|s| BoundClip::new(s, &skel, &none, "c").0)
    .collect();
    let tree = BlendTree::Blend1D {
        param: "speed".into(),
        blend: Blend1D::new(&[1.5, 4.0]).expect("sorted"),
        clips: vec![0, 1],
    };
    let (mask, _) = BoneMask::new(&skel, &["b1", "!b7"], "upper");
    let hips = find_root_bone(&skel, "").expect("hips");
    let roots = clips
        .iter()
        .map(|c| RootClip::new(&c.clip, &c.binding, hips, true))
        .collect();
    Assets {
        skel,
        clips,
        tree,
        mask,
        roots,
        hips,
    }
}

/// Per-animator state (what the runtime would keep in a component).
struct Animator {
    eval: TreeEvaluator,
    speed: f32,
    player: SyncedPlayer,
    layer_time: f64,
    leaves: Vec<Leaf>,
    pose: Pose,
    motion: RootDelta,
}

/// Which path a frame takes.
#[derive(Clone, Copy, PartialEq)]
enum Path {
    Soa,
    Scalar,
}

fn update(a: &Assets, touched: &mut Vec<bool>, an: &mut Animator, dt: f64, path: Path) {
    let speed = an.speed;
    a.tree.leaves(&|_| speed, &mut an.leaves);
    let (from, to) = an.player.advance(1.0 / dt, 1.0, &an.leaves, &a.clips, true);
    match path {
        Path::Soa => an
            .eval
            .evaluate(&a.skel, &an.leaves, &a.clips, to, true, &mut an.pose),
        Path::Scalar => scalar::evaluate(
            touched,
            &a.skel,
            &an.leaves,
            &a.clips,
            to,
            true,
            &mut an.pose,
        ),
    }
    // Root motion: weighted sum of every playing clip's motion over its interval.
    an.motion = RootDelta::ZERO;
    for lf in an.leaves.iter().filter(|l| l.weight > 0.0) {
        let c = &a.clips[lf.clip];
        let d = a.roots[lf.clip].delta(
            SyncedPlayer::clip_time(from, c),
            SyncedPlayer::clip_time(to, c),
            true,
        );
        an.motion.add_weighted(&d, lf.weight);
    }
    hold_root(&mut an.pose, &a.skel, a.hips, true);
    // One masked override layer.
    an.layer_time += dt;
    let lc = &a.clips[2];
    let lt = lc.clip.clip_time(an.layer_time, true);
    match path {
        Path::Soa => an
            .eval
            .apply_layer(&mut an.pose, 2, lc, lt, Some(&a.mask), 0.8, false),
        Path::Scalar => {
            scalar::apply_override_clip(&mut an.pose, lc, lt, Some(&a.mask.weights), 0.8)
        }
    }
}

fn benches(c: &mut Criterion) {
    let a = assets();
    let mut ev = TreeEvaluator::new();
    let mut touched = Vec::new();

    let mut g = c.benchmark_group("anim");
    g.throughput(Throughput::Elements(BONES as u64));
    let mut leaves = Vec::new();
    a.tree.leaves(&|_| 2.5, &mut leaves);
    let mut pose = Pose::rest(&a.skel);
    let mut phase = 0.0;
    g.bench_function("sample_blend_2_clips_64_bones", |b| {
        b.iter(|| {
            phase += 0.0123;
            ev.evaluate(
                &a.skel,
                black_box(&leaves),
                &a.clips,
                phase,
                true,
                &mut pose,
            );
            black_box(&pose);
        })
    });
    g.bench_function("sample_blend_2_clips_64_bones_scalar", |b| {
        b.iter(|| {
            phase += 0.0123;
            scalar::evaluate(
                &mut touched,
                &a.skel,
                black_box(&leaves),
                &a.clips,
                phase,
                true,
                &mut pose,
            );
            black_box(&pose);
        })
    });
    // The floor: the rest reset (the pose written once) and exactly the key blocks the 2-clip
    // sample reads, summed, with no interpolation or blending.
    let mut hints = [vec![0u32; 8], vec![0u32; 8]];
    g.bench_function("floor_2_clips_64_bones", |b| {
        b.iter(|| {
            phase += 0.0123;
            pose.set_rest(&a.skel);
            let mut acc = glam::Vec4::ZERO;
            for (lf, h) in black_box(&leaves).iter().zip(hints.iter_mut()) {
                let c = &a.clips[lf.clip];
                let t = c.clip.clip_time(SyncedPlayer::clip_time(phase, c), true);
                acc += c.soa().stream_floor(t, h);
            }
            black_box((&pose, acc));
        })
    });
    g.bench_function("sample_1_clip_64_bones", |b| {
        b.iter(|| {
            phase += 0.0123;
            a.clips[0].sample_pose(&a.skel, black_box(phase % 1.0), &mut pose);
            black_box(&pose);
        })
    });
    g.bench_function("sample_1_clip_64_bones_scalar", |b| {
        b.iter(|| {
            phase += 0.0123;
            pose.set_rest(&a.skel);
            scalar::sample(&a.clips[0], black_box(phase % 1.0), &mut pose);
            black_box(&pose);
        })
    });

    let mut animators: Vec<Animator> = (0..1000)
        .map(|i| Animator {
            eval: TreeEvaluator::new(),
            speed: 1.0 + (i % 40) as f32 * 0.1,
            player: SyncedPlayer::at(i as f64 * 0.013),
            layer_time: i as f64 * 0.007,
            leaves: Vec::new(),
            pose: Pose::rest(&a.skel),
            motion: RootDelta::ZERO,
        })
        .collect();
    g.throughput(Throughput::Elements(1000));
    for (name, path) in [
        ("frame_1000_animators_64_bones", Path::Soa),
        ("frame_1000_animators_64_bones_scalar", Path::Scalar),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| {
                for an in animators.iter_mut() {
                    update(&a, &mut touched, an, 1.0 / 60.0, path);
                }
                black_box(&animators);
            })
        });
    }
    g.finish();
}

criterion_group!(anim, benches);
criterion_main!(anim);
