//! Side by side with the peer a Bevy user would pick: 1,000 characters × 64 bones playing a
//! two-clip blend (weights 0.3 / 0.7, both clips 1 s, 31 keys per channel, translation and
//! rotation on every bone), one 1/60 s frame per iteration, in one criterion group.
//!
//! * `bevy_animation` — bevy_animation 0.20 as intended: one `AnimationClip` asset per clip (the
//!   glTF loader's curve types: `AnimatableCurve` over `UnevenSampleAutoCurve`), an
//!   `AnimationGraph` asset with a blend node over the two clip nodes, one `AnimationPlayer` +
//!   `AnimationGraphHandle` per character playing both clips on repeat, one bone entity per bone
//!   with `Transform`, `AnimationTargetId` and `AnimatedBy`; a real `App` with `TaskPoolPlugin`,
//!   `TimePlugin` (manual 1/60 s step), `AssetPlugin` and `AnimationPlugin`; one `App::update`
//!   per frame. The frame includes every system those plugins register (graph threading,
//!   transitions, advancing players, `animate_targets` writing each bone's `Transform`, events).
//! * `sinew_pose` — the same clips (identical keys) through Sinew's animator: per character an
//!   `Animator` whose one-state machine is a `Blend1D` of the two clips at the parameter giving
//!   the same weights, with a `PoseRig` on the same 64-bone skeleton, run by `animate` in
//!   `AnimationSet` inside Sinew's schedule (`add_sinew_systems`: time, actions, delays,
//!   animation, tick, flush) in the `Update` schedule of the same kind of `App`. The pose ends
//!   in the animator's pose buffers.
//! * `sinew_pose_to_transforms` — as `sinew_pose`, plus Sinew's `write_bone_poses` after
//!   `AnimationSet` writing every bone's local pose into its own bone entity's
//!   `bevy_transform::Transform` (each bone entity carries a `SinewBone`; the work
//!   bevy_animation's `animate_targets` does at its end).
//!
//! * `core_shared_clips` / `core_clips_per_character` — attribution only: the pure `anim` core
//!   (clip-synced phase, leaf weights, tree evaluation into a pose buffer) per character in one
//!   system, with one shared copy of the bound clips or a copy per character (the copies share
//!   the SoA sampling data, an `Arc`, so only the scalar path's data is copied); see
//!   `docs/benchmarks.md`.
//! * `core_shared_clips_scalar` — the same on today's scalar path (`anim::scalar::evaluate`);
//!   `core_memory_floor` — the same bookkeeping, the pose written once and exactly the key
//!   blocks the SoA sample reads summed without any math (how close the sampler is to memory).
//!
//! Neither side runs transform propagation (`TransformPlugin`): it is the same work for both
//! once the local transforms are written. `*_1_thread` apps run a 1-thread task pool (the CPU
//! cost of a frame); `bevy_animation_default_threads` uses bevy's default pool (2 cores here),
//! where `animate_targets` evaluates targets in parallel.
//!
//! Before timing, the bench checks that both sides play the same clips at the same clip time
//! with the same weights: translations agree to 1e-5 and rotations to a dot product > 0.9999
//! (bevy interpolates and blends with slerp, Sinew with normalized lerp).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bevy_animation::graph::{AnimationGraph, AnimationGraphHandle, AnimationNodeIndex};
use bevy_animation::{
    AnimatedBy, AnimationClip, AnimationPlayer, AnimationPlugin, AnimationTargetId, animated_field,
    animation_curves::AnimatableCurve,
};
use bevy_app::{App, TaskPoolOptions, TaskPoolPlugin, Update};
use bevy_asset::{AssetPlugin, Assets};
use bevy_curve::UnevenSampleAutoCurve;
use bevy_ecs::prelude::*;
use bevy_math::{Quat as BQuat, Vec3 as BVec3};
use bevy_time::{TimePlugin, TimeUpdateStrategy};
use bevy_transform::components::Transform;
use criterion::{Criterion, Throughput};
use glam::{Quat, Vec3, Vec4};
use sinew::anim::state_machine::{Machine, State};
use sinew::anim::{
    Blend1D, BlendTree, BoneDef, BoundClip, Leaf, Pose, Skeleton, SyncedPlayer,
    Transform as RestTransform, TreeEvaluator, scalar,
};
use sinew::animseq::{AnimSeq, Track};
use sinew::bevy::{SinewBone, write_bone_poses};
use sinew::runtime::animator::PoseRig;
use sinew::runtime::{
    AnimCommand, AnimationSet, Animator, Clip, EventHub, add_sinew_systems, animate, init_world,
};

const CHARACTERS: usize = 1_000;
const BONES: usize = 64;
/// Keys per channel: 30 frames per second over a 1 s clip, both ends included.
const KEYS: usize = 31;
const DT: f64 = 1.0 / 60.0;
/// Weight of the second clip (the first gets `1 − W_B`).
const W_B: f32 = 0.7;

fn bone_name(b: usize) -> String {
    if b == 0 {
        "hips".into()
    } else {
        format!("b{b}")
    }
}

/// A binary tree of 64 bones under `hips`.
fn rig() -> Skeleton {
    let defs = (0..BONES)
        .map(|i| BoneDef {
            name: bone_name(i),
            parent: (i > 0).then(|| bone_name((i - 1) / 2)),
            rest: RestTransform {
                translation: Vec3::new(0.0, 0.1, 0.0),
                ..RestTransform::IDENTITY
            },
        })
        .collect();
    Skeleton::new(defs, vec![]).expect("rig")
}

/// A 1 s clip: every bone bobs (translation) and swings about its own axis (rotation).
fn clip(id: &str, amp: f32, bob: f32) -> AnimSeq {
    let times = (0..KEYS).map(|k| k as f64 / (KEYS - 1) as f64);
    let tracks = (0..BONES)
        .map(|b| {
            let axis = Vec3::new(1.0, (b % 3) as f32, (b % 5) as f32).normalize();
            let phase = |t: f64| (t as f32) * std::f32::consts::TAU + b as f32;
            Track {
                bone: bone_name(b),
                translation: times
                    .clone()
                    .map(|t| (t, [0.0, 0.1 + bob * phase(t).sin(), 0.0]))
                    .collect(),
                rotation: times
                    .clone()
                    .map(|t| {
                        (
                            t,
                            Quat::from_axis_angle(axis, amp * phase(t).sin()).to_array(),
                        )
                    })
                    .collect(),
                scale: vec![],
            }
        })
        .collect();
    AnimSeq {
        id: id.into(),
        name: id.into(),
        duration: 1.0,
        skeleton: None,
        tracks,
        notifies: vec![],
        windows: vec![],
        curves: vec![],
        root_motion: None,
    }
}

fn clips() -> [AnimSeq; 2] {
    [clip("walk", 0.4, 0.02), clip("run", 0.8, 0.05)]
}

fn bvec(v: [f32; 3]) -> BVec3 {
    BVec3::from_array(v)
}

fn bquat(q: [f32; 4]) -> BQuat {
    BQuat::from_array(q)
}

/// The same keys as a bevy clip, built the way bevy's glTF loader builds linear channels.
fn bevy_clip(seq: &AnimSeq) -> AnimationClip {
    let mut clip = AnimationClip::default();
    for t in &seq.tracks {
        let target = AnimationTargetId::from_name(&Name::new(t.bone.clone()));
        let translation =
            UnevenSampleAutoCurve::new(t.translation.iter().map(|&(k, v)| (k as f32, bvec(v))))
                .expect("translation keys");
        clip.add_curve_to_target(
            target,
            AnimatableCurve::new(animated_field!(Transform::translation), translation),
        );
        let rotation =
            UnevenSampleAutoCurve::new(t.rotation.iter().map(|&(k, q)| (k as f32, bquat(q))))
                .expect("rotation keys");
        clip.add_curve_to_target(
            target,
            AnimatableCurve::new(animated_field!(Transform::rotation), rotation),
        );
    }
    clip
}

/// The base plugins both sides run in: task pool, manual time step, assets (no watching).
fn base_app(threads: Option<usize>) -> App {
    let mut app = App::new();
    let task_pool_options = match threads {
        Some(n) => TaskPoolOptions::with_num_threads(n),
        None => TaskPoolOptions::default(),
    };
    app.add_plugins((
        TaskPoolPlugin { task_pool_options },
        TimePlugin,
        AssetPlugin {
            watch_for_changes_override: Some(false),
            ..Default::default()
        },
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        DT,
    )));
    app
}

fn finish(mut app: App) -> App {
    app.finish();
    app.cleanup();
    app
}

/// A character's bone entities, in skeleton order.
#[derive(Component)]
struct Bones(Vec<Entity>);

struct BevySide {
    app: App,
    players: Vec<Entity>,
    nodes: [AnimationNodeIndex; 2],
}

fn bevy_side(seqs: &[AnimSeq; 2], threads: Option<usize>) -> BevySide {
    let mut app = base_app(threads);
    app.add_plugins(AnimationPlugin);
    let mut app = finish(app);
    let world = app.world_mut();
    let handles = {
        let mut assets = world.resource_mut::<Assets<AnimationClip>>();
        seqs.clone().map(|s| assets.add(bevy_clip(&s)))
    };
    let mut graph = AnimationGraph::new();
    let blend = graph.add_blend(1.0, graph.root);
    let nodes = [
        graph.add_clip(handles[0].clone(), 1.0 - W_B, blend),
        graph.add_clip(handles[1].clone(), W_B, blend),
    ];
    let graph = world.resource_mut::<Assets<AnimationGraph>>().add(graph);
    // Bone entities in the skeleton's order (parents first), as Sinew's pose arrays are.
    let targets: Vec<AnimationTargetId> = rig()
        .bones()
        .iter()
        .map(|b| AnimationTargetId::from_name(&Name::new(b.name.clone())))
        .collect();
    let players = (0..CHARACTERS)
        .map(|_| {
            let mut player = AnimationPlayer::default();
            for n in nodes {
                player.play(n).repeat();
            }
            let p = world
                .spawn((player, AnimationGraphHandle(graph.clone())))
                .id();
            let bones = targets
                .iter()
                .map(|&t| {
                    world
                        .spawn((Transform::from_xyz(0.0, 0.1, 0.0), t, AnimatedBy(p)))
                        .id()
                })
                .collect();
            world.entity_mut(p).insert(Bones(bones));
            p
        })
        .collect();
    BevySide {
        app,
        players,
        nodes,
    }
}

struct SinewSide {
    app: App,
    characters: Vec<Entity>,
}

fn sinew_side(seqs: &[AnimSeq; 2], write_out: bool) -> SinewSide {
    let mut app = base_app(Some(1));
    init_world(app.world_mut());
    app.edit_schedule(Update, |s| {
        add_sinew_systems(s);
        s.add_systems(animate.in_set(AnimationSet));
        if write_out {
            s.add_systems(write_bone_poses.after(AnimationSet));
        }
    });
    let mut app = finish(app);
    let world = app.world_mut();
    let skel = Arc::new(rig());
    let none = BTreeMap::new();
    // Bound once, shared by every character's rig (as `runtime::scene::spawn` shares them).
    let bound: Arc<[BoundClip]> = seqs
        .iter()
        .map(|s| BoundClip::new(s, &skel, &none, &s.id).0)
        .collect();
    let prepared: Vec<Arc<Clip>> = seqs
        .iter()
        .map(|s| {
            Arc::new(
                Clip::new(Arc::new(s.clone()), &mut world.resource_mut::<EventHub>())
                    .expect("clip"),
            )
        })
        .collect();
    let machine = Arc::new(Machine {
        states: vec![State {
            name: "move".into(),
            tree: BlendTree::Blend1D {
                param: "w".into(),
                blend: Blend1D::new(&[0.0, 1.0]).expect("sorted"),
                clips: vec![0, 1],
            },
            speed: 1.0,
            looping: true,
            notifies: Default::default(),
        }],
        entry: 0,
        transitions: vec![],
    });
    let characters = (0..CHARACTERS)
        .map(|_| {
            let mut a = Animator::new();
            for (s, c) in seqs.iter().zip(&prepared) {
                a.add_clip(&s.id, c.clone());
            }
            a.set_machine(machine.clone());
            a.set_rig(PoseRig::new(
                skel.clone(),
                bound.clone(),
                BTreeMap::new(),
                None,
            ));
            a.queue(AnimCommand::SetParam("w".into(), f64::from(W_B)));
            let owner = world.spawn(a).id();
            let bones = (0..BONES)
                .map(|i| {
                    world
                        .spawn((
                            Transform::from_xyz(0.0, 0.1, 0.0),
                            SinewBone::new(owner, i as u32),
                        ))
                        .id()
                })
                .collect();
            world.entity_mut(owner).insert(Bones(bones));
            owner
        })
        .collect();
    SinewSide { app, characters }
}

/// Attribution (not the runtime): the pure animation core per character — clip-synced phase,
/// leaf weights, tree evaluation into a pose buffer — as one bevy system, with the characters
/// either sharing one copy of the bound clips or each holding its own (as the runtime's
/// `PoseRig` does today).
#[derive(Component)]
struct CoreCharacter {
    clips: Arc<[BoundClip]>,
    player: SyncedPlayer,
    leaves: Vec<Leaf>,
    pose: Pose,
}

/// Which path the core variants evaluate on.
#[derive(Clone, Copy, PartialEq)]
enum CorePath {
    /// The SoA/SIMD path (`TreeEvaluator`).
    Soa,
    /// Today's scalar path (`anim::scalar::evaluate`).
    Scalar,
    /// The memory floor: the pose written once (rest reset) and exactly the key blocks the
    /// two-clip sample reads, summed, with no interpolation or blending.
    Floor,
}

#[derive(Resource)]
struct Core {
    skel: Arc<Skeleton>,
    tree: BlendTree,
    eval: TreeEvaluator,
    path: CorePath,
    touched: Vec<bool>,
    hints: Vec<u32>,
    sink: Vec4,
}

fn core_update(mut core: ResMut<Core>, mut chars: Query<&mut CoreCharacter>) {
    let Core {
        skel,
        tree,
        eval,
        path,
        touched,
        hints,
        sink,
    } = &mut *core;
    for mut c in &mut chars {
        let c = &mut *c;
        tree.leaves(&|_| W_B, &mut c.leaves);
        let (_, phase) = c.player.advance(1.0 / DT, 1.0, &c.leaves, &c.clips, true);
        match path {
            CorePath::Soa => eval.evaluate(skel, &c.leaves, &c.clips, phase, true, &mut c.pose),
            CorePath::Scalar => {
                scalar::evaluate(touched, skel, &c.leaves, &c.clips, phase, true, &mut c.pose)
            }
            CorePath::Floor => {
                c.pose.set_rest(skel);
                for lf in &c.leaves {
                    let k = &c.clips[lf.clip];
                    let t = k.clip.clip_time(SyncedPlayer::clip_time(phase, k), true);
                    *sink += k.soa().stream_floor(t, hints);
                }
            }
        }
    }
}

fn core_side(seqs: &[AnimSeq; 2], shared: bool) -> App {
    core_side_on(seqs, shared, CorePath::Soa)
}

fn core_side_on(seqs: &[AnimSeq; 2], shared: bool, path: CorePath) -> App {
    let mut app = base_app(Some(1));
    app.add_systems(Update, core_update);
    let mut app = finish(app);
    let skel = Arc::new(rig());
    let none = BTreeMap::new();
    let bound: Arc<[BoundClip]> = seqs
        .iter()
        .map(|s| BoundClip::new(s, &skel, &none, &s.id).0)
        .collect();
    let world = app.world_mut();
    for _ in 0..CHARACTERS {
        let clips = if shared {
            bound.clone()
        } else {
            Arc::from(bound.to_vec())
        };
        world.spawn(CoreCharacter {
            clips,
            player: SyncedPlayer::default(),
            leaves: Vec::new(),
            pose: Pose::rest(&skel),
        });
    }
    world.insert_resource(Core {
        tree: BlendTree::Blend1D {
            param: "w".into(),
            blend: Blend1D::new(&[0.0, 1.0]).expect("sorted"),
            clips: vec![0, 1],
        },
        skel,
        eval: TreeEvaluator::new(),
        path,
        touched: Vec::new(),
        hints: vec![0; 8],
        sink: Vec4::ZERO,
    });
    app
}

/// The reference pose: Sinew's pure blend of the two clips at clip time `t`.
fn reference(skel: &Skeleton, bound: &[BoundClip], t: f64) -> Pose {
    let leaves = [
        Leaf {
            clip: 0,
            weight: 1.0 - W_B,
            additive: false,
        },
        Leaf {
            clip: 1,
            weight: W_B,
            additive: false,
        },
    ];
    let mut pose = Pose::rest(skel);
    TreeEvaluator::new().evaluate(skel, &leaves, bound, t, true, &mut pose);
    pose
}

fn assert_close(what: &str, got: (BVec3, BQuat), want: (Vec3, Quat)) {
    let dt = (got.0 - bvec(want.0.to_array())).abs().max_element();
    let dot = got.1.dot(bquat(want.1.to_array())).abs();
    assert!(
        dt < 1e-5 && dot > 0.9999,
        "{what}: translation off by {dt}, rotation dot {dot}"
    );
}

/// Warm-up frames before timing (past bevy's graph threading on asset events).
const WARM_UP: usize = 40;

/// The skeleton and the two clips bound to it, for reference poses.
fn bound(seqs: &[AnimSeq; 2]) -> (Skeleton, Vec<BoundClip>) {
    let skel = rig();
    let none = BTreeMap::new();
    let bound = seqs
        .iter()
        .map(|s| BoundClip::new(s, &skel, &none, &s.id).0)
        .collect();
    (skel, bound)
}

/// Asserts a pose (by bone: translation, rotation) equals the reference blend at `t`.
fn check_pose(what: &str, seqs: &[AnimSeq; 2], t: f64, got: impl Fn(usize) -> (BVec3, BQuat)) {
    let (skel, clips) = bound(seqs);
    let want = reference(&skel, &clips, t.rem_euclid(1.0));
    for b in 0..BONES {
        assert_close(
            &format!("{what} bone {b}"),
            got(b),
            (want.translations[b], want.rotations[b]),
        );
    }
}

/// bevy_animation plays both clips at one clip time, and its bone entities hold the reference
/// blend of the same keys with the same weights at that time.
fn check_bevy(seqs: &[AnimSeq; 2], bevy: &mut BevySide) {
    for _ in 0..WARM_UP {
        bevy.app.update();
    }
    let world = bevy.app.world();
    let player = world
        .get::<AnimationPlayer>(bevy.players[0])
        .expect("player");
    let times: Vec<f32> = bevy
        .nodes
        .iter()
        .map(|&n| player.animation(n).expect("playing").seek_time())
        .collect();
    assert!(
        (times[0] - times[1]).abs() < 1e-6 && times[0] > 0.0,
        "bevy clip times {times:?}"
    );
    // Whole frames of DT (its first frame may have a zero delta).
    let frames = f64::from(times[0]) / DT;
    assert!(
        (frames - frames.round()).abs() < 1e-2,
        "bevy advanced by a whole number of frames ({frames})"
    );
    for &p in [bevy.players[0], *bevy.players.last().expect("players")].iter() {
        let bones = &world.get::<Bones>(p).expect("bones").0;
        check_pose("bevy", seqs, f64::from(times[0]), |b| {
            let t = world.get::<Transform>(bones[b]).expect("bone transform");
            (t.translation, t.rotation)
        });
    }
}

/// Sinew's animators have advanced by `WARM_UP` frames of DT and hold the reference blend; with
/// the write-out, the bone entities hold exactly the animator's pose.
fn check_sinew(seqs: &[AnimSeq; 2], sinew: &mut SinewSide, written: bool) {
    for _ in 0..WARM_UP {
        sinew.app.update();
    }
    let world = sinew.app.world();
    for &c in [
        sinew.characters[0],
        *sinew.characters.last().expect("characters"),
    ]
    .iter()
    {
        let pose = world
            .get::<Animator>(c)
            .and_then(Animator::pose)
            .expect("pose");
        check_pose("sinew", seqs, WARM_UP as f64 * DT, |b| {
            (
                bvec(pose.translations[b].to_array()),
                bquat(pose.rotations[b].to_array()),
            )
        });
        let bones = &world.get::<Bones>(c).expect("bones").0;
        for (b, &e) in bones.iter().enumerate() {
            let t = world.get::<Transform>(e).expect("bone transform");
            let same = t.translation.to_array() == pose.translations[b].to_array()
                && t.rotation.to_array() == pose.rotations[b].to_array();
            assert_eq!(same, written, "bone {b} written out: {same}");
        }
    }
}

fn check_core(seqs: &[AnimSeq; 2], app: &mut App) {
    for _ in 0..WARM_UP {
        app.update();
    }
    let world = app.world_mut();
    let mut q = world.query::<&CoreCharacter>();
    for c in q.iter(world) {
        check_pose("core", seqs, WARM_UP as f64 * DT, |b| {
            (
                bvec(c.pose.translations[b].to_array()),
                bquat(c.pose.rotations[b].to_array()),
            )
        });
    }
}

/// Benchmarks one frame of `update`, building (and checking) its app only when the benchmark
/// runs (a filtered run or a profile builds one app).
fn bench_app<S>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    build: impl FnOnce() -> S,
    update: impl Fn(&mut S),
) {
    let mut build = Some(build);
    let mut side = None;
    g.bench_function(name, |b| {
        let s = side.get_or_insert_with(|| (build.take().expect("built once"))());
        b.iter(|| update(s))
    });
}

fn benches(c: &mut Criterion) {
    let seqs = clips();
    let mut g = c.benchmark_group("bevy_compare");
    g.throughput(Throughput::Elements((CHARACTERS * BONES) as u64));
    let bevy = |threads| {
        let mut s = bevy_side(&seqs, threads);
        check_bevy(&seqs, &mut s);
        s
    };
    let sinew = |written| {
        let mut s = sinew_side(&seqs, written);
        check_sinew(&seqs, &mut s, written);
        s
    };
    let core = |shared| {
        let mut app = core_side(&seqs, shared);
        check_core(&seqs, &mut app);
        app
    };
    bench_app(
        &mut g,
        "bevy_animation_1_thread",
        || bevy(Some(1)),
        |s| s.app.update(),
    );
    bench_app(
        &mut g,
        "sinew_pose_1_thread",
        || sinew(false),
        |s| s.app.update(),
    );
    bench_app(
        &mut g,
        "sinew_pose_to_transforms_1_thread",
        || sinew(true),
        |s| s.app.update(),
    );
    bench_app(
        &mut g,
        "core_shared_clips_1_thread",
        || core(true),
        App::update,
    );
    bench_app(
        &mut g,
        "core_shared_clips_scalar_1_thread",
        || {
            let mut app = core_side_on(&seqs, true, CorePath::Scalar);
            check_core(&seqs, &mut app);
            app
        },
        App::update,
    );
    bench_app(
        &mut g,
        "core_memory_floor_1_thread",
        || core_side_on(&seqs, true, CorePath::Floor),
        App::update,
    );
    bench_app(
        &mut g,
        "core_clips_per_character_1_thread",
        || core(false),
        App::update,
    );
    bench_app(
        &mut g,
        "bevy_animation_default_threads",
        || bevy(None),
        |s| s.app.update(),
    );
    g.finish();
}

/// The like-for-like pair measured block by block, alternating: `rounds` rounds of `frames`
/// frames of `bevy_animation_1_thread`, then as many of
/// `sinew_pose_to_transforms_1_thread`. On a machine shared with other virtual machines
/// (memory bandwidth and the last-level cache move under both sides by tens of percent from one
/// second to the next), criterion's one variant after the other measures the two sides under
/// different conditions; here the sides of each round run within a few tens of milliseconds of
/// each other, and the median of the per-round ratios is the figure that holds still.
fn paired(rounds: usize, frames: usize) {
    let seqs = clips();
    let mut bevy = bevy_side(&seqs, Some(1));
    check_bevy(&seqs, &mut bevy);
    let mut sinew = sinew_side(&seqs, true);
    check_sinew(&seqs, &mut sinew, true);
    let block = |app: &mut App| {
        let t = Instant::now();
        for _ in 0..frames {
            app.update();
        }
        t.elapsed().as_secs_f64() / frames as f64
    };
    let (mut b, mut s, mut r) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        let tb = block(&mut bevy.app);
        let ts = block(&mut sinew.app);
        b.push(tb);
        s.push(ts);
        r.push(tb / ts);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (mb, ms, mr) = (median(&mut b), median(&mut s), median(&mut r));
    let q = |v: &[f64], p: f64| v[((v.len() - 1) as f64 * p) as usize];
    println!(
        "paired {rounds} rounds x {frames} frames: bevy_animation median {:.3} ms (min {:.3}), \
         sinew_pose_to_transforms median {:.3} ms (min {:.3}); per-round ratio median {mr:.1}x \
         (quartiles {:.1}x / {:.1}x), ratio of minima {:.1}x",
        mb * 1e3,
        b[0] * 1e3,
        ms * 1e3,
        s[0] * 1e3,
        q(&r, 0.25),
        q(&r, 0.75),
        b[0] / s[0],
    );
}

fn main() {
    // `BEVY_COMPARE_PAIRED=ROUNDSxFRAMES`: the alternating like-for-like measurement instead
    // of criterion.
    if let Some((rounds, frames)) = std::env::var("BEVY_COMPARE_PAIRED").ok().and_then(|v| {
        let (r, f) = v.split_once('x')?;
        Some((r.parse::<usize>().ok()?, f.parse::<usize>().ok()?))
    }) && rounds > 0
        && frames > 0
    {
        paired(rounds, frames);
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c);
    c.final_summary();
}
