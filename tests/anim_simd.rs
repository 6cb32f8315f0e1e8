//! The SoA/SIMD sampling path (`anim::soa`, behind `BoundClip::sample`, `TreeEvaluator`,
//! `apply_override_clip`, `add_difference`) against today's scalar path (`anim::scalar`):
//! bit for bit on x86-64 (the lanes sum quaternion dot products in glam's SSE2 order), within
//! 1e-6 elsewhere. Properties over random rigs and clips (one key, no keys, shared and private
//! key-time lists, extreme finite values, negative and duplicate times, masks of every shape,
//! poses shorter than the clip), plus a 4,096-bone rig, cursors under forward, backward and
//! jumping playback, no allocation per frame, and one evaluation scratch shared across
//! skeletons giving the same poses.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::Arc;

use glam::{Quat, Vec3};
use proptest::prelude::*;
use sinew::anim::*;
use sinew::animseq::{AnimSeq, Track};

// ---- allocation counting (this thread only) ---------------------------------------------------

struct Counting;

thread_local! {
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards to `System` unchanged; only counts calls on the current thread.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocs() -> usize {
    ALLOCS.with(Cell::get)
}

// ---- the one check -------------------------------------------------------------------------

/// Every value of `simd` must equal `scalar`'s (bits on x86-64, 1e-6 elsewhere), and the
/// animated flags must be identical.
fn check_same(what: &str, simd: &Pose, scalar: &Pose) {
    assert_eq!(simd.animated, scalar.animated, "{what}: animated flags");
    let exact = cfg!(target_arch = "x86_64");
    let same = |a: f32, b: f32| {
        if exact {
            a.to_bits() == b.to_bits()
        } else {
            a.to_bits() == b.to_bits() || (a - b).abs() <= 1e-6 * a.abs().max(1.0)
        }
    };
    let n = simd.len();
    assert_eq!(n, scalar.len(), "{what}: length");
    for b in 0..n {
        let pairs = [
            (
                simd.translations[b].to_array().to_vec(),
                scalar.translations[b].to_array().to_vec(),
            ),
            (
                simd.rotations[b].to_array().to_vec(),
                scalar.rotations[b].to_array().to_vec(),
            ),
            (
                simd.scales[b].to_array().to_vec(),
                scalar.scales[b].to_array().to_vec(),
            ),
        ];
        for (x, y) in pairs {
            assert!(
                x.iter().zip(&y).all(|(a, b)| same(*a, *b)),
                "{what}: bone {b}: SoA {x:?} != scalar {y:?}"
            );
        }
    }
}

// ---- inputs --------------------------------------------------------------------------------

fn rig(n: usize, parents: &[usize]) -> Skeleton {
    let defs = (0..n)
        .map(|i| BoneDef {
            name: format!("b{i}"),
            parent: (i > 0).then(|| format!("b{}", parents.get(i).copied().unwrap_or(0) % i)),
            rest: Transform {
                translation: Vec3::new(0.0, 0.1 * i as f32, 0.0),
                rotation: Quat::from_rotation_y(i as f32 * 0.1),
                scale: Vec3::ONE,
            },
        })
        .collect();
    Skeleton::new(defs, vec![]).expect("rig")
}

/// A finite value, often extreme.
fn value() -> impl Strategy<Value = f32> {
    prop_oneof![
        4 => -2.0f32..2.0,
        1 => Just(0.0f32),
        1 => Just(-0.0f32),
        1 => Just(1e30f32),
        1 => Just(-1e30f32),
        1 => Just(1e-30f32),
        1 => Just(3.0e38f32),
        1 => -1e6f32..1e6,
    ]
}

/// Key times: one of a few shared grids, or the channel's own (negative, duplicate, unsorted).
fn times() -> impl Strategy<Value = Vec<f64>> {
    prop_oneof![
        Just(vec![]),
        Just(vec![0.25]),
        Just(vec![0.0, 0.5, 1.0]),
        Just(vec![0.0, 0.1, 0.2, 0.3, 0.5, 0.8, 1.0]),
        Just(vec![-0.5, 0.25, 2.0]),
        prop::collection::vec(-0.5f64..1.5, 0..6),
        prop::collection::vec(prop_oneof![Just(0.0f64), Just(0.5), Just(1.0)], 1..5),
    ]
}

fn track(bones: usize) -> impl Strategy<Value = Track> {
    (
        0..bones + 2,
        times(),
        times(),
        times(),
        prop::collection::vec(prop::array::uniform4(value()), 8),
    )
        .prop_map(|(b, tt, tr, ts, vals)| {
            let v3 = |i: usize| {
                let v = vals[i % vals.len()];
                [v[0], v[1], v[2]]
            };
            Track {
                // Names past the rig are unbound; two tracks may name one bone.
                bone: format!("b{b}"),
                translation: tt.iter().enumerate().map(|(i, &t)| (t, v3(i))).collect(),
                rotation: tr
                    .iter()
                    .enumerate()
                    .map(|(i, &t)| (t, vals[(i + 3) % vals.len()]))
                    .collect(),
                scale: ts
                    .iter()
                    .enumerate()
                    .map(|(i, &t)| (t, v3(i + 5)))
                    .collect(),
            }
        })
}

fn seq(duration: f64, tracks: Vec<Track>) -> AnimSeq {
    AnimSeq {
        id: "s".into(),
        name: "S".into(),
        duration,
        skeleton: None,
        tracks,
        notifies: vec![],
        windows: vec![],
        curves: vec![],
        root_motion: None,
    }
}

fn clip(bones: usize) -> impl Strategy<Value = AnimSeq> {
    (
        prop_oneof![
            Just(1.0f64),
            Just(0.7),
            Just(0.0),
            Just(f64::NAN),
            0.1f64..3.0
        ],
        prop::collection::vec(track(bones), 0..12),
    )
        .prop_map(|(d, tracks)| seq(d, tracks))
}

/// A clip time: ordinary, outside the clip, or not finite.
fn time() -> impl Strategy<Value = f64> {
    prop_oneof![
        6 => -0.2f64..1.7,
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(-1e300),
        1 => Just(0.5),
    ]
}

/// Mask weights of any shape: none, full, holes, fractions, negative, NaN, too short or long.
fn mask(bones: usize) -> impl Strategy<Value = Option<Vec<f32>>> {
    prop_oneof![
        Just(None),
        prop::collection::vec(
            prop_oneof![
                Just(0.0f32),
                Just(1.0),
                Just(0.5),
                Just(-1.0),
                Just(f32::NAN),
                0.0f32..1.0
            ],
            0..bones + 3
        )
        .prop_map(Some),
    ]
}

/// A starting pose: random unit rotations, values and animated flags.
fn pose(bones: usize) -> impl Strategy<Value = Pose> {
    prop::collection::vec(
        (
            prop::array::uniform4(-1.0f32..1.0),
            prop::array::uniform3(value()),
            any::<bool>(),
        ),
        bones,
    )
    .prop_map(|bs| {
        let mut p = Pose::identity(bs.len());
        for (i, (q, v, a)) in bs.into_iter().enumerate() {
            let q = Quat::from_array(q);
            p.rotations[i] = if q.length_squared() > 1e-6 {
                q.normalize()
            } else {
                Quat::IDENTITY
            };
            p.translations[i] = Vec3::from_array(v);
            p.scales[i] = Vec3::from_array(v) * 0.5;
            p.animated[i] = a;
        }
        p
    })
}

fn bind(s: &AnimSeq, skel: &Skeleton) -> BoundClip {
    BoundClip::new(s, skel, &BTreeMap::new(), "clip").0
}

/// Everything one property case needs.
#[derive(Debug)]
struct Case {
    bones: usize,
    parents: Vec<usize>,
    clips: Vec<AnimSeq>,
    leaves: Vec<(usize, f32, bool)>,
    phases: Vec<f64>,
    t: f64,
    weight: f32,
    mask: Option<Vec<f32>>,
    start: Pose,
    short: usize,
}

fn case() -> impl Strategy<Value = Case> {
    (1usize..40).prop_flat_map(|bones| {
        (
            prop::collection::vec(0usize..64, bones),
            prop::collection::vec(clip(bones), 1..4),
            prop::collection::vec(
                (
                    0usize..4,
                    prop_oneof![Just(0.0f32), 0.0f32..1.0, Just(1.0)],
                    any::<bool>(),
                ),
                1..5,
            ),
            prop::collection::vec(time(), 1..6),
            time(),
            prop_oneof![Just(1.0f32), Just(0.0), -0.5f32..1.5, Just(f32::NAN)],
            mask(bones),
            pose(bones),
            0..bones + 1,
        )
            .prop_map(
                move |(parents, clips, leaves, phases, t, weight, mask, start, short)| Case {
                    bones,
                    parents,
                    clips,
                    leaves,
                    phases,
                    t,
                    weight,
                    mask,
                    start,
                    short,
                },
            )
    })
}

/// Runs every operation of `case` on both paths.
fn check_case(k: &Case) {
    let skel = rig(k.bones, &k.parents);
    let clips: Vec<BoundClip> = k.clips.iter().map(|s| bind(s, &skel)).collect();
    let bm = k.mask.clone().map(|weights| BoneMask { weights });
    for (i, c) in clips.iter().enumerate() {
        // Sampling onto an arbitrary pose, and onto a pose shorter than the rig.
        let (mut a, mut b) = (k.start.clone(), k.start.clone());
        c.sample(k.t, &mut a);
        scalar::sample(c, k.t, &mut b);
        check_same(&format!("sample clip {i}"), &a, &b);
        let mut short = k.start.clone();
        short.translations.truncate(k.short);
        short.rotations.truncate(k.short);
        short.scales.truncate(k.short);
        short.animated.truncate(k.short);
        let (mut a, mut b) = (short.clone(), short.clone());
        c.sample(k.t, &mut a);
        scalar::sample(c, k.t, &mut b);
        check_same(&format!("sample clip {i}, short pose"), &a, &b);
        // Override and additive layers with the mask.
        let (mut a, mut b) = (k.start.clone(), k.start.clone());
        apply_override_clip(&mut a, c, k.t, bm.as_ref(), k.weight);
        scalar::apply_override_clip(&mut b, c, k.t, k.mask.as_deref(), k.weight);
        check_same(&format!("override clip {i}"), &a, &b);
        let (mut a, mut b) = (k.start.clone(), k.start.clone());
        apply_additive(&mut a, c, k.t, bm.as_ref(), k.weight);
        scalar::add_difference(c, k.t, k.weight, &mut b, k.mask.as_deref());
        check_same(&format!("additive clip {i}"), &a, &b);
    }
    // Masked override and additive layers through one evaluator on one slot: the mask it resolves per
    // (clip, mask) must follow every change of the clip and of the mask's weights (changed in
    // place, so the same allocation), and any mask length.
    let mut ev = TreeEvaluator::new();
    let mut m = BoneMask {
        weights: k.mask.clone().unwrap_or_else(|| vec![1.0; k.bones]),
    };
    for round in 0..3 {
        for (i, c) in clips.iter().enumerate() {
            let (mut a, mut b) = (k.start.clone(), k.start.clone());
            ev.apply_layer(&mut a, 0, c, k.t, Some(&m), k.weight, false);
            scalar::apply_override_clip(&mut b, c, k.t, Some(&m.weights), k.weight);
            check_same(&format!("layer round {round} clip {i}"), &a, &b);
            let (mut a, mut b) = (k.start.clone(), k.start.clone());
            ev.apply_layer(&mut a, 1, c, k.t, Some(&m), k.weight, true);
            scalar::add_difference(c, k.t, k.weight, &mut b, Some(&m.weights));
            check_same(&format!("additive layer round {round} clip {i}"), &a, &b);
        }
        // The complement, then the complement with one more bone.
        for w in m.weights.iter_mut() {
            *w = if *w > 0.0 { 0.0 } else { 1.0 };
        }
        if round == 1 {
            m.weights.push(1.0);
        }
    }
    // Trees: one evaluator across all phases (its cursors carry over), against the scalar path.
    let leaves: Vec<Leaf> = k
        .leaves
        .iter()
        .map(|&(clip, weight, additive)| Leaf {
            clip,
            weight,
            additive,
        })
        .collect();
    let mut ev = TreeEvaluator::new();
    let mut touched = Vec::new();
    let (mut a, mut b) = (Pose::default(), Pose::default());
    for (f, &phase) in k.phases.iter().enumerate() {
        for looping in [true, false] {
            ev.evaluate(&skel, &leaves, &clips, phase, looping, &mut a);
            scalar::evaluate(&mut touched, &skel, &leaves, &clips, phase, looping, &mut b);
            check_same(&format!("tree frame {f} looping {looping}"), &a, &b);
        }
    }
    // The runtime's form: one lane-group scratch for every animator (`evaluate_with`), left by
    // a larger and by a one-bone skeleton before each frame: the same poses as the evaluator's
    // own scratch.
    let (big, small) = (rig(k.bones + 7, &k.parents), rig(1, &[]));
    let (mut own, mut given) = (TreeEvaluator::new(), TreeEvaluator::new());
    let mut scratch = soa::LanePose::default();
    let (mut a, mut b) = (Pose::default(), Pose::default());
    for (f, &phase) in k.phases.iter().enumerate() {
        for (looping, other) in [(true, &big), (false, &small)] {
            scratch.copy_from(other.rest_lanes());
            own.evaluate(&skel, &leaves, &clips, phase, looping, &mut a);
            given.evaluate_with(&mut scratch, &skel, &leaves, &clips, phase, looping, &mut b);
            check_same(
                &format!("shared scratch frame {f} looping {looping}"),
                &b,
                &a,
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn soa_path_equals_scalar_path(k in case()) {
        check_case(&k);
    }
}

// ---- fixed cases ---------------------------------------------------------------------------

/// A walk-like clip: every bone keyed on one grid of `keys` keys (translation and rotation).
fn grid_clip(bones: usize, keys: usize, duration: f64, amp: f32) -> AnimSeq {
    let tracks = (0..bones)
        .map(|b| {
            let at = |k: usize| duration * k as f64 / (keys - 1).max(1) as f64;
            let axis = Vec3::new(1.0, (b % 3) as f32, (b % 5) as f32).normalize();
            Track {
                bone: format!("b{b}"),
                translation: (0..keys)
                    .map(|k| (at(k), [0.0, 0.1 + 0.02 * (k as f32).sin(), b as f32 * 1e-3]))
                    .collect(),
                rotation: (0..keys)
                    .map(|k| {
                        let q = Quat::from_axis_angle(axis, amp * (k as f32 + b as f32).sin());
                        (at(k), q.to_array())
                    })
                    .collect(),
                scale: if b % 7 == 0 {
                    vec![(0.0, [1.0, 1.0, 1.0]), (duration, [1.2, 0.9, 1.0])]
                } else {
                    vec![]
                },
            }
        })
        .collect();
    seq(duration, tracks)
}

fn leaves(ws: &[(usize, f32, bool)]) -> Vec<Leaf> {
    ws.iter()
        .map(|&(clip, weight, additive)| Leaf {
            clip,
            weight,
            additive,
        })
        .collect()
}

/// Phases: forward in small steps (the cursor's case), then backward, then jumps.
fn playback() -> Vec<f64> {
    let mut p: Vec<f64> = (0..300).map(|i| i as f64 * 0.0123).collect();
    p.extend((0..50).map(|i| 2.0 - i as f64 * 0.031));
    p.extend([0.9, 0.1, 5.5, -3.25, 0.0, 1.0, 0.999_999, 0.5]);
    p
}

#[test]
fn a_4096_bone_rig_with_one_key_and_grid_clips_matches_the_scalar_path() {
    let bones = 4096;
    let parents: Vec<usize> = (0..bones).map(|i| i / 2).collect();
    let skel = rig(bones, &parents);
    let clips = [
        bind(&grid_clip(bones, 1, 1.0, 0.5), &skel),
        bind(&grid_clip(bones, 9, 1.0, 0.4), &skel),
        bind(&grid_clip(bones - 3, 31, 0.7, 0.8), &skel),
    ];
    assert!(
        clips.iter().all(|c| c.soa().fits(bones)),
        "the SoA path is taken"
    );
    let tree = leaves(&[
        (0, 0.2, false),
        (1, 0.5, false),
        (2, 0.3, false),
        (1, 0.6, true),
    ]);
    let mut ev = TreeEvaluator::new();
    let mut touched = Vec::new();
    let (mut a, mut b) = (Pose::default(), Pose::default());
    let (upper, _) = BoneMask::new(&skel, &["b1", "!b6"], "upper");
    for (f, phase) in playback().into_iter().enumerate().step_by(7) {
        ev.evaluate(&skel, &tree, &clips, phase, true, &mut a);
        scalar::evaluate(&mut touched, &skel, &tree, &clips, phase, true, &mut b);
        check_same(&format!("frame {f}"), &a, &b);
        ev.apply_layer(&mut a, 2, &clips[2], phase * 0.7, Some(&upper), 0.8, false);
        scalar::apply_override_clip(&mut b, &clips[2], phase * 0.7, Some(&upper.weights), 0.8);
        check_same(&format!("frame {f} + override"), &a, &b);
    }
}

#[test]
fn cursors_give_the_binary_search_result_forward_backward_and_jumping() {
    let skel = rig(64, &(0..64).map(|i| i / 2).collect::<Vec<_>>());
    // Clip 1 keys each bone on its own times: many lists, one cursor each.
    let own: Vec<Track> = (0..64)
        .map(|b| Track {
            bone: format!("b{b}"),
            translation: (0..5)
                .map(|k| (k as f64 * 0.2 + b as f64 * 1e-3, [k as f32, 0.0, b as f32]))
                .collect(),
            rotation: vec![],
            scale: vec![],
        })
        .collect();
    let clips = [
        bind(&grid_clip(64, 31, 1.0, 0.5), &skel),
        bind(&seq(1.0, own), &skel),
    ];
    assert!(clips[1].soa().time_lists() == 64);
    let tree = leaves(&[(0, 0.3, false), (1, 0.7, false)]);
    let mut ev = TreeEvaluator::new();
    let mut touched = Vec::new();
    let (mut a, mut b) = (Pose::default(), Pose::default());
    for (f, phase) in playback().into_iter().enumerate() {
        ev.evaluate(&skel, &tree, &clips, phase, true, &mut a);
        scalar::evaluate(&mut touched, &skel, &tree, &clips, phase, true, &mut b);
        check_same(&format!("frame {f} at {phase}"), &a, &b);
    }
}

#[test]
fn a_frame_allocates_nothing_once_warm() {
    let skel = rig(64, &(0..64).map(|i| i / 2).collect::<Vec<_>>());
    let clips: Arc<[BoundClip]> = [
        bind(&grid_clip(64, 9, 1.0, 0.4), &skel),
        bind(&grid_clip(64, 9, 0.7, 0.8), &skel),
        bind(&grid_clip(64, 31, 2.0, 0.3), &skel),
    ]
    .into_iter()
    .collect();
    let tree = leaves(&[(0, 0.3, false), (1, 0.7, false), (2, 0.5, true)]);
    let (mask, _) = BoneMask::new(&skel, &["b1", "!b7"], "upper");
    let mut ev = TreeEvaluator::new();
    let mut pose = Pose::default();
    let frame = |ev: &mut TreeEvaluator, pose: &mut Pose, i: usize| {
        let phase = i as f64 * 0.0123;
        ev.evaluate(&skel, &tree, &clips, phase, true, pose);
        ev.apply_layer(pose, 2, &clips[2], phase * 2.0, Some(&mask), 0.8, false);
        ev.apply_layer(pose, 1, &clips[1], phase, Some(&mask), 0.5, true);
    };
    frame(&mut ev, &mut pose, 0);
    let before = allocs();
    for i in 1..200 {
        frame(&mut ev, &mut pose, i);
    }
    assert_eq!(allocs() - before, 0, "allocations in 199 warm frames");
    assert!(pose.is_sane());
}

#[test]
fn clones_of_a_bound_clip_share_one_copy_of_its_sampling_data() {
    let skel = rig(64, &(0..64).map(|i| i / 2).collect::<Vec<_>>());
    let c = bind(&grid_clip(64, 31, 1.0, 0.5), &skel);
    let copies: Vec<BoundClip> = (0..1000).map(|_| c.clone()).collect();
    assert!(copies.iter().all(|k| Arc::ptr_eq(k.soa_arc(), c.soa_arc())));
    // 64 bones × (3 + 4 components) × 31 keys × 4 bytes and their key-time list, plus the
    // scale of every 7th bone (a group covers one quad of bones, bone `b` in lane `b % 4`: one
    // group of 4 lanes, 2 keys, per quad holding such a bone) and its list.
    let quads: std::collections::BTreeSet<usize> = (0..64)
        .step_by(7)
        .filter_map(|b| skel.find(&format!("b{b}")))
        .map(|i| i / 4)
        .collect();
    assert_eq!(
        c.soa().key_bytes(),
        64 * 7 * 31 * 4 + 31 * 8 + quads.len() * 2 * 3 * 16 + 2 * 8
    );
}

/// Clips whose channels cover each quad of bones only in part, and in several key-time lists
/// per quad: the lane-group pose (`TreeEvaluator::evaluate` samples and blends in quads of
/// bones, lanes selected by bit masks, the rest pose as lane groups for what a clip lacks)
/// against the scalar path, on a rig whose last quad is not full.
#[test]
fn partly_covered_quads_blend_in_lane_groups_like_the_scalar_path() {
    let bones = 67;
    let skel = rig(bones, &(0..bones).map(|i| i / 3).collect::<Vec<_>>());
    let keyed = |b: usize, keys: usize, off: f64| -> Vec<(f64, [f32; 3])> {
        (0..keys)
            .map(|k| {
                (
                    k as f64 * 0.25 + off,
                    [b as f32 * 0.01, k as f32 * 0.1, 0.5],
                )
            })
            .collect()
    };
    // Clip 0: even bones only, translation on two interleaved time lists, rotation on odd
    // multiples of 3; clip 1: bones 1..=62 and the last bone, scale on every 5th.
    let c0: Vec<Track> = (0..bones)
        .filter(|b| b % 2 == 0)
        .map(|b| Track {
            bone: format!("b{b}"),
            translation: keyed(b, 5, if b % 4 == 0 { 0.0 } else { 0.01 }),
            rotation: if b % 3 == 1 {
                vec![
                    (0.0, [0.0, 0.0, 0.0, 1.0]),
                    (1.0, Quat::from_rotation_x(0.7).to_array()),
                ]
            } else {
                vec![]
            },
            scale: vec![],
        })
        .collect();
    let c1: Vec<Track> = (1..=62)
        .chain([bones - 1])
        .map(|b| Track {
            bone: format!("b{b}"),
            translation: keyed(b, 3, 0.0),
            rotation: vec![(0.5, Quat::from_rotation_z(0.1 * b as f32).to_array())],
            scale: if b % 5 == 0 { keyed(b, 2, 0.2) } else { vec![] },
        })
        .collect();
    let clips = [
        bind(&seq(1.0, c0), &skel),
        bind(&seq(1.0, c1), &skel),
        bind(&grid_clip(bones - 10, 9, 1.0, 0.4), &skel),
    ];
    assert!(
        clips.iter().all(|c| soa::fits(c, bones)),
        "the lane path is taken"
    );
    let trees = [
        leaves(&[(0, 0.4, false), (1, 0.6, false)]),
        leaves(&[(1, 0.5, false), (0, 0.25, false), (2, 0.25, false)]),
        leaves(&[(2, 1.0, false), (0, 0.5, false), (1, 0.5, true)]),
    ];
    let mut ev = TreeEvaluator::new();
    let mut touched = Vec::new();
    let (mut a, mut b) = (Pose::identity(3), Pose::default());
    for (i, tree) in trees.iter().enumerate() {
        for (f, phase) in playback().into_iter().enumerate().step_by(5) {
            ev.evaluate(&skel, tree, &clips, phase, true, &mut a);
            scalar::evaluate(&mut touched, &skel, tree, &clips, phase, true, &mut b);
            check_same(&format!("tree {i} frame {f}"), &a, &b);
        }
    }
}
