//! The animation core's math against hand-computed values: blend weights, clip sync, masks,
//! additive layers, root motion across wraps, retargeting, `.skel` diagnostics, plus properties
//! (2D weights finite and summing to 1, unit rotations, no NaN in poses).

#[path = "support/root_oracle.rs"]
mod root_oracle;

use glam::{Quat, Vec3};
use proptest::prelude::*;
use sinew::anim::*;
use sinew::animseq::{AnimSeq, Axes, RootMotion, Track};
use sinew::diag::SourceFile;
use std::collections::BTreeMap;

const EPS: f32 = 1e-5;

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() <= EPS
}

// ---- boundaries -----------------------------------------------------------------------------

/// 1D weights for `x` must equal `expect`.
fn check_1d(thresholds: &[f32], x: f32, expect: &[f32]) {
    let b = Blend1D::new(thresholds).expect("valid thresholds");
    let mut w = vec![9.0; thresholds.len()];
    b.weights(x, &mut w);
    assert!(
        w.iter().zip(expect).all(|(a, e)| close(*a, *e)),
        "1D {thresholds:?} at {x}: got {w:?}, expected {expect:?}"
    );
}

/// 2D weights at `p` must equal `expect`.
fn check_2d(points: &[[f32; 2]], p: [f32; 2], expect: &[f32]) {
    let s = BlendSpace2D::new(points).expect("valid points");
    let mut w = vec![9.0; points.len()];
    s.weights(p[0], p[1], &mut w);
    assert!(
        w.iter().zip(expect).all(|(a, e)| (a - e).abs() < 1e-4),
        "2D at {p:?}: got {w:?}, expected {expect:?}"
    );
}

fn rest_bone(name: &str, parent: Option<&str>, t: [f32; 3]) -> BoneDef {
    BoneDef {
        name: name.into(),
        parent: parent.map(Into::into),
        rest: Transform {
            translation: Vec3::from_array(t),
            ..Transform::IDENTITY
        },
    }
}

fn hero() -> Skeleton {
    let text = include_str!("../assets/hero.skel");
    let l = load_skeleton(&SourceFile::new("assets/hero.skel", text));
    assert!(l.diagnostics.is_empty(), "{:?}", l.diagnostics);
    l.skeleton.expect("hero loads")
}

/// Mask built from `entries` on the hero rig must include exactly `expect`.
fn check_mask(entries: &[&str], expect: &[&str]) {
    let skel = hero();
    let (m, d) = BoneMask::new(&skel, entries, "layer");
    assert!(d.is_empty(), "{d:?}");
    let mut got: Vec<&str> = skel
        .bones()
        .iter()
        .enumerate()
        .filter(|(i, _)| m.contains(*i))
        .map(|(_, b)| b.name.as_str())
        .collect();
    got.sort_unstable();
    let mut exp = expect.to_vec();
    exp.sort_unstable();
    assert_eq!(got, exp, "mask {entries:?}");
}

/// A `.skel` text must fail with `code` at `line:col` (1-based).
fn check_skel_error(text: &str, code: &str, line: u32, col: u32) {
    let l = load_skeleton(&SourceFile::new("t.skel", text));
    assert!(l.skeleton.is_none(), "{text}");
    assert!(
        l.diagnostics
            .iter()
            .any(|d| d.code == code && d.start.line == line && d.start.column == col),
        "expected {code} at {line}:{col}, got {:#?}",
        l.diagnostics
            .iter()
            .map(|d| (d.code, d.start.line, d.start.column, &d.message))
            .collect::<Vec<_>>()
    );
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

fn track(bone: &str, tr: &[(f64, [f32; 3])], rot: &[(f64, Quat)]) -> Track {
    Track {
        bone: bone.into(),
        translation: tr.to_vec(),
        rotation: rot.iter().map(|(t, q)| (*t, q.to_array())).collect(),
        scale: vec![],
    }
}

fn bound(s: &AnimSeq, skel: &Skeleton) -> BoundClip {
    let (c, d) = BoundClip::new(s, skel, &BTreeMap::new(), "clip");
    assert!(d.is_empty(), "{d:?}");
    c
}

fn deg(d: f32) -> f32 {
    d.to_radians()
}

fn quat_close(a: Quat, b: Quat) -> bool {
    a.dot(b).abs() > 1.0 - 1e-5
}

/// Root motion of `rc` over `from..to` must be `(x, z, yaw)`.
fn check_root(rc: &RootClip, from: f64, to: f64, expect: (f64, f64, f64)) {
    let d = rc.delta(from, to, true);
    // Relative tolerance: key values are f32.
    let near = |a: f64, b: f64| (a - b).abs() <= 1e-5 * b.abs().max(1.0);
    let ok = near(d.translation.x, expect.0)
        && d.translation.y == 0.0
        && near(d.translation.z, expect.1)
        && near(d.yaw, expect.2);
    assert!(ok, "{from}..{to}: got {d:?}, expected {expect:?}");
}

// ---- 1D -------------------------------------------------------------------------------------

#[test]
fn blend_1d_between_on_and_beyond() {
    let t = [0.0, 1.5, 4.0];
    check_1d(&t, 0.75, &[0.5, 0.5, 0.0]);
    check_1d(&t, 3.375, &[0.0, 0.25, 0.75]);
    check_1d(&t, 1.5, &[0.0, 1.0, 0.0]);
    check_1d(&t, 0.0, &[1.0, 0.0, 0.0]);
    check_1d(&t, 4.0, &[0.0, 0.0, 1.0]);
    check_1d(&t, -7.0, &[1.0, 0.0, 0.0]);
    check_1d(&t, 1e30, &[0.0, 0.0, 1.0]);
    check_1d(&t, f32::INFINITY, &[0.0, 0.0, 1.0]);
    check_1d(&t, f32::NEG_INFINITY, &[1.0, 0.0, 0.0]);
    // NaN reads as 0.
    check_1d(&[-1.0, 1.0], f32::NAN, &[0.5, 0.5]);
    check_1d(&[2.0], -5.0, &[1.0]);
}

#[test]
fn blend_1d_duplicates_switch_and_unsorted_is_error() {
    let t = [0.0, 1.0, 1.0, 2.0];
    check_1d(&t, 0.5, &[0.5, 0.5, 0.0, 0.0]);
    check_1d(&t, 1.0, &[0.0, 0.0, 1.0, 0.0]);
    check_1d(&t, 1.5, &[0.0, 0.0, 0.5, 0.5]);
    assert_eq!(Blend1D::new(&[0.0, 2.0, 1.0]), Err(BlendError::Unsorted(2)));
    assert_eq!(Blend1D::new(&[]), Err(BlendError::Count(0)));
    assert_eq!(
        Blend1D::new(&[0.0, f32::NAN]),
        Err(BlendError::NonFinite(1))
    );
    assert_eq!(
        Blend1D::new(&[1.0, 0.0])
            .expect_err("unsorted")
            .diagnostic()
            .code,
        "E0512"
    );
}

// ---- 2D -------------------------------------------------------------------------------------

const CROSS: [[f32; 2]; 5] = [[0.0, 0.0], [0.0, 1.0], [0.0, -1.0], [-1.0, 0.0], [1.0, 0.0]];

#[test]
fn blend_2d_hand_computed() {
    let tri = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]];
    check_2d(&tri, [0.0, 0.0], &[1.0, 0.0, 0.0]);
    check_2d(&tri, [0.5, 0.0], &[0.5, 0.5, 0.0]);
    check_2d(&CROSS, [0.0, 0.5], &[0.5, 0.5, 0.0, 0.0, 0.0]);
    check_2d(
        &CROSS,
        [0.5, 0.5],
        &[1.0 / 3.0, 1.0 / 3.0, 0.0, 0.0, 1.0 / 3.0],
    );
    // Standing on an entry plays it alone.
    check_2d(&CROSS, [-1.0, 0.0], &[0.0, 0.0, 0.0, 1.0, 0.0]);
    // NaN reads as 0.
    check_2d(&CROSS, [f32::NAN, f32::NAN], &[1.0, 0.0, 0.0, 0.0, 0.0]);
}

#[test]
fn blend_2d_far_outside_single_coincident_collinear() {
    let tri = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]];
    check_2d(&tri, [1e30, 0.0], &[0.0, 1.0, 0.0]);
    check_2d(&tri, [f32::INFINITY, 0.0], &[0.0, 1.0, 0.0]);
    check_2d(&CROSS, [0.0, -1e30], &[0.0, 0.0, 1.0, 0.0, 0.0]);
    check_2d(&[[3.0, 4.0]], [-1e30, f32::NAN], &[1.0]);
    assert_eq!(
        BlendSpace2D::new(&[[0.0, 0.0], [1.0, 1.0], [1.0, 1.0]]),
        Err(BlendError::Coincident(1, 2))
    );
    // Collinear entries: the bands follow the position along the line.
    let line = [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]];
    check_2d(&line, [0.5, 5.0], &[0.5, 0.5, 0.0]);
    check_2d(&line, [1.75, -3.0], &[0.0, 0.25, 0.75]);
}

// ---- sync -----------------------------------------------------------------------------------

#[test]
fn clip_sync_uses_weighted_cycle_length() {
    let skel = Skeleton::new(vec![rest_bone("hips", None, [0.0; 3])], vec![]).expect("skel");
    let a = bound(&seq(1.0, vec![]), &skel);
    let b = bound(&seq(2.0, vec![]), &skel);
    let clips = [a, b];
    let tree = BlendTree::Blend1D {
        param: "speed".into(),
        blend: Blend1D::new(&[0.0, 1.0]).expect("valid"),
        clips: vec![0, 1],
    };
    tree.validate(2).expect("valid tree");
    let mut leaves = Vec::new();
    tree.leaves(&|_| 0.5, &mut leaves);
    // L = 0.5·1 + 0.5·2 = 1.5.
    assert!((SyncedPlayer::cycle_length(&leaves, &clips) - 1.5).abs() < 1e-12);
    let mut p = SyncedPlayer::default();
    // One tick per second at speed 0.75.
    let (from, to) = p.advance(1.0, 0.75, &leaves, &clips, true);
    assert_eq!((from, to), (0.0, 0.5));
    // Clip times: 0.5 of 1 s and of 2 s, i.e. speeds 1/1.5 and 2/1.5.
    assert_eq!(SyncedPlayer::clip_time(to, &clips[0]), 0.5);
    assert_eq!(SyncedPlayer::clip_time(to, &clips[1]), 1.0);
    // Speed ×2 (state speed) over 0.75 s moves a full cycle.
    let (_, to) = p.advance(1.0, 1.5, &leaves, &clips, true);
    assert!((to - 1.5).abs() < 1e-12);
    // Non-looping clamps at 1 and reports finished.
    let mut q = SyncedPlayer::default();
    q.advance(1.0, 10.0, &leaves, &clips, false);
    assert!(q.finished() && q.phase() == 1.0);
    assert_eq!(tree.validate(1), Err(TreeError::MissingClip(1)));
}

#[test]
fn heaviest_leaf_fires_ties_to_the_earlier() {
    let leaf = |clip, weight, additive| Leaf {
        clip,
        weight,
        additive,
    };
    let l = [leaf(0, 0.5, false), leaf(1, 0.5, false), leaf(2, 0.9, true)];
    assert_eq!(heaviest_leaf(&l), Some(0));
    let l = [leaf(0, 0.25, false), leaf(1, 0.75, false)];
    assert_eq!(heaviest_leaf(&l), Some(1));
    assert_eq!(heaviest_leaf(&[leaf(0, 0.0, false)]), None);
}

#[test]
fn flat_skeleton_from_track_names() {
    let s = Skeleton::from_track_names(["Hips", "arm", "hips", "mixamorig:Head", ""]);
    let names: Vec<&str> = s.bones().iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["Hips", "arm", "mixamorig:Head"]);
    assert!(s.bones().iter().all(|b| b.parent.is_none()));
    assert_eq!(s.find("MIXAMORIG_head"), Some(2));
}

// ---- masks ----------------------------------------------------------------------------------

const UPPER_RIGHT: [&str; 4] = ["shoulder_r", "upper_arm_r", "lower_arm_r", "hand_r"];

#[test]
fn mask_subtree_and_carve_out() {
    let mut exp = vec!["spine1", "spine2", "neck", "head"];
    exp.extend(UPPER_RIGHT);
    check_mask(&["spine1", "!shoulder_l"], &exp);
    check_mask(&["foot_l"], &["foot_l", "toe_l"]);
    check_mask(&[], &[]);
}

#[test]
fn mask_deepest_entry_wins() {
    // spine includes everything above the legs; !spine2 carves the chest; upper_arm_l is deeper.
    check_mask(
        &["upper_arm_l", "!spine2", "spine"],
        &["spine", "spine1", "upper_arm_l", "lower_arm_l", "hand_l"],
    );
    // Written twice on one bone: the later entry wins.
    check_mask(&["neck", "!neck"], &[]);
}

#[test]
fn mask_names_match_across_separators_and_case() {
    let skel = Skeleton::new(
        vec![
            rest_bone("mixamorig:Hips", None, [0.0; 3]),
            rest_bone("mixamorig:Spine1", Some("mixamorig:Hips"), [0.0; 3]),
            rest_bone("mixamorig:Head", Some("MIXAMORIG_spine1"), [0.0; 3]),
        ],
        vec![],
    )
    .expect("skel");
    let (m, d) = BoneMask::new(&skel, &["mixamorig_spine1", "nope"], "layer");
    assert_eq!(m.weights, vec![0.0, 1.0, 1.0]);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code, "W0511");
    assert!(names_match("mixamorig:Spine1", "MIXAMORIG_SPINE1"));
    assert!(!names_match("spine1", "spine2"));
}

// ---- sampling, layers -----------------------------------------------------------------------

fn two_bone() -> Skeleton {
    Skeleton::new(
        vec![
            rest_bone("hips", None, [0.0, 1.0, 0.0]),
            rest_bone("arm", Some("hips"), [0.5, 0.0, 0.0]),
        ],
        vec![],
    )
    .expect("skel")
}

#[test]
fn local_to_model_composes_parents_first() {
    let skel = two_bone();
    let mut pose = Pose::rest(&skel);
    pose.rotations[0] = Quat::from_rotation_y(deg(90.0));
    pose.scales[0] = Vec3::splat(2.0);
    let mut model = Vec::new();
    pose.to_model(&skel, &mut model);
    // The arm's (0.5, 0, 0), scaled by 2 and turned 90° about Y, hangs off hips at (0, 1, 0).
    let arm = model[1].translation;
    assert!(
        (Vec3::from(arm) - Vec3::new(0.0, 1.0, -1.0)).length() < 1e-5,
        "{arm:?}"
    );
    assert_eq!(model.len(), 2);
}

#[test]
fn sampling_interpolates_clamps_and_reports_unbound() {
    let skel = two_bone();
    let s = seq(
        1.0,
        vec![
            track(
                "HIPS",
                &[(0.0, [0.0, 1.0, 0.0]), (1.0, [2.0, 1.0, 4.0])],
                &[
                    (0.0, Quat::IDENTITY),
                    (1.0, -Quat::from_rotation_y(deg(90.0))),
                ],
            ),
            track("tail", &[(0.0, [0.0; 3])], &[]),
        ],
    );
    let (c, d) = BoundClip::new(&s, &skel, &BTreeMap::new(), "walk.animseq");
    assert_eq!(d.len(), 1);
    assert_eq!((d[0].code, d[0].file.as_str()), ("W0510", "walk.animseq"));
    let mut pose = Pose::rest(&skel);
    c.sample_pose(&skel, 0.25, &mut pose);
    assert_eq!(pose.translations[0], Vec3::new(0.5, 1.0, 1.0));
    // Shortest path despite the negated key: 22.5° about Y (nlerp, not slerp: use the angle).
    let (axis, angle) = pose.rotations[0].to_axis_angle();
    assert!(axis.y > 0.99, "{axis:?}");
    let nl = (Quat::IDENTITY.lerp(Quat::from_rotation_y(deg(90.0)), 0.25)).normalize();
    assert!(quat_close(pose.rotations[0], nl) && angle > 0.0);
    assert_eq!(pose.translations[1], Vec3::new(0.5, 0.0, 0.0));
    assert_eq!(pose.animated, vec![true, false]);
    c.sample_pose(&skel, 7.0, &mut pose);
    assert_eq!(pose.translations[0], Vec3::new(2.0, 1.0, 4.0));
    c.sample_pose(&skel, f64::NAN, &mut pose);
    assert_eq!(pose.translations[0], Vec3::new(0.0, 1.0, 0.0));
}

#[test]
fn degenerate_clips_never_give_nan() {
    let skel = two_bone();
    let mut s = seq(
        f64::NAN,
        vec![track(
            "hips",
            &[
                (f64::NAN, [1.0; 3]),
                (0.5, [f32::INFINITY, 0.0, 0.0]),
                (0.2, [3.0; 3]),
            ],
            &[(0.0, Quat::from_xyzw(0.0, 0.0, 0.0, 0.0))],
        )],
    );
    let c = bound(&s, &skel);
    let mut pose = Pose::rest(&skel);
    c.sample_pose(&skel, 0.3, &mut pose);
    assert!(pose.is_sane());
    assert_eq!(pose.translations[0], Vec3::splat(3.0));
    assert_eq!(pose.rotations[0], Quat::IDENTITY);
    s.duration = 0.0;
    assert_eq!(bound(&s, &skel).clip.clip_time(5.0, true), 0.0);
}

#[test]
fn additive_adds_difference_from_first_frame_to_animated_bones() {
    let skel = two_bone();
    let add = bound(
        &seq(
            1.0,
            vec![
                track(
                    "hips",
                    &[(0.0, [0.0; 3]), (1.0, [1.0, 0.0, 0.0])],
                    &[
                        (0.0, Quat::from_rotation_y(deg(10.0))),
                        (1.0, Quat::from_rotation_y(deg(40.0))),
                    ],
                ),
                track("arm", &[(0.0, [0.0; 3]), (1.0, [1.0, 0.0, 0.0])], &[]),
            ],
        ),
        &skel,
    );
    let mut base = Pose::rest(&skel);
    base.translations[0] = Vec3::new(5.0, 0.0, 0.0);
    base.rotations[0] = Quat::from_rotation_y(deg(20.0));
    base.animated[0] = true; // the arm is not animated below
    apply_additive(&mut base, &add, 1.0, None, 0.5);
    assert!((base.translations[0].x - 5.5).abs() < EPS);
    // Half of the 30° difference: 20° + 15°.
    assert!(quat_close(
        base.rotations[0],
        Quat::from_rotation_y(deg(35.0))
    ));
    assert_eq!(base.translations[1], Vec3::new(0.5, 0.0, 0.0));
    // A mask excluding hips stops it.
    let (m, _) = BoneMask::new(&skel, &["arm"], "l");
    let before = base.clone();
    apply_additive(&mut base, &add, 1.0, Some(&m), 1.0);
    assert_eq!(base, before);
}

#[test]
fn override_layer_replaces_masked_animated_bones() {
    let skel = two_bone();
    let mut base = Pose::rest(&skel);
    let mut layer = Pose::rest(&skel);
    layer.translations[1] = Vec3::new(0.5, 1.0, 0.0);
    layer.translations[0] = Vec3::new(9.0, 9.0, 9.0);
    layer.animated = vec![true, true];
    let (m, _) = BoneMask::new(&skel, &["arm"], "l");
    apply_override(&mut base, &layer, Some(&m), 0.25);
    assert_eq!(base.translations[1], Vec3::new(0.5, 0.25, 0.0));
    assert_eq!(base.translations[0], Vec3::new(0.0, 1.0, 0.0));
}

#[test]
fn override_from_clip_matches_override_from_pose() {
    let skel = two_bone();
    let c = bound(
        &seq(
            1.0,
            vec![track(
                "arm",
                &[(0.0, [0.0; 3]), (1.0, [2.0, 0.0, 0.0])],
                &[(1.0, Quat::from_rotation_z(deg(80.0)))],
            )],
        ),
        &skel,
    );
    let (m, _) = BoneMask::new(&skel, &["arm"], "l");
    let mut base = Pose::rest(&skel);
    base.translations[1] = Vec3::new(1.0, 1.0, 1.0);
    let mut via_pose = base.clone();
    let mut layer = Pose::default();
    c.sample_pose(&skel, 0.5, &mut layer);
    apply_override(&mut via_pose, &layer, Some(&m), 0.5);
    apply_override_clip(&mut base, &c, 0.5, Some(&m), 0.5);
    assert_eq!(base, via_pose);
    // (1,1,1) halfway to (1,0,0): (1, 0.5, 0.5).
    assert_eq!(base.translations[1], Vec3::new(1.0, 0.5, 0.5));
}

#[test]
fn blended_tree_pose_is_weighted() {
    let skel = two_bone();
    let a = bound(
        &seq(1.0, vec![track("arm", &[(0.0, [1.0, 0.0, 0.0])], &[])]),
        &skel,
    );
    let b = bound(
        &seq(
            1.0,
            vec![track(
                "arm",
                &[(0.0, [3.0, 0.0, 0.0])],
                &[(0.0, Quat::from_rotation_x(deg(60.0)))],
            )],
        ),
        &skel,
    );
    let clips = [a, b];
    let tree = BlendTree::Lerp {
        a: Box::new(BlendTree::Clip(0)),
        b: Box::new(BlendTree::Clip(1)),
        param: "t".into(),
    };
    let mut leaves = Vec::new();
    tree.leaves(&|_| 0.25, &mut leaves);
    let mut ev = TreeEvaluator::new();
    let mut pose = Pose::default();
    ev.evaluate(&skel, &leaves, &clips, 0.0, true, &mut pose);
    assert!((pose.translations[1].x - 1.5).abs() < EPS);
    let expect = Quat::IDENTITY
        .lerp(Quat::from_rotation_x(deg(60.0)), 0.25)
        .normalize();
    assert!(quat_close(pose.rotations[1], expect));
    assert_eq!(pose.animated, vec![false, true]);
}

// ---- root motion ----------------------------------------------------------------------------

fn walker() -> (Skeleton, BoundClip) {
    let skel = two_bone();
    let c = bound(
        &seq(
            1.0,
            vec![track(
                "hips",
                &[(0.0, [0.0, 1.0, 0.0]), (1.0, [2.0, 1.5, 4.0])],
                &[
                    (0.0, Quat::IDENTITY),
                    (1.0, Quat::from_rotation_y(deg(90.0))),
                ],
            )],
        ),
        &skel,
    );
    (skel, c)
}

#[test]
fn root_motion_sums_across_wraps_and_reverse() {
    use std::f64::consts::FRAC_PI_2;
    let (skel, c) = walker();
    let bone = find_root_bone(&skel, "").expect("hips");
    let rc = RootClip::new(&c.clip, &c.binding, bone, true);
    // Yaw at 0.25 along a 90° nlerp: atan of the nlerped quaternion (not exactly 22.5°).
    let yaw_at = |t: f32| {
        let q = Quat::IDENTITY
            .lerp(Quat::from_rotation_y(deg(90.0)), t)
            .normalize();
        q.to_euler(glam::EulerRot::YXZ).0 as f64
    };
    check_root(&rc, 0.0, 0.5, (1.0, 2.0, yaw_at(0.5)));
    // 0.5 → 3.25: three whole cycles of (2, 4, π/2) + F(0.25) − F(0.5).
    let y = 3.0 * FRAC_PI_2 + yaw_at(0.25) - yaw_at(0.5);
    check_root(&rc, 0.5, 3.25, (5.5, 11.0, y));
    check_root(&rc, 3.25, 0.5, (-5.5, -11.0, -y));
    // Huge wrap counts are O(1).
    check_root(&rc, 0.0, 1e6, (2e6, 4e6, 1e6 * FRAC_PI_2));
    // Weighted sum of two clips (a crossfade at 0.25 / 0.75).
    let mut sum = RootDelta::ZERO;
    sum.add_weighted(&rc.delta(0.0, 1.0, true), 0.25);
    sum.add_weighted(&rc.delta(0.0, 0.5, true), 0.75);
    assert!((sum.translation.x - (0.5 + 0.75)).abs() < 1e-6, "{sum:?}");
    assert_eq!(rc.delta(f64::NAN, 1.0, true), RootDelta::ZERO);
}

#[test]
fn root_bone_is_held_horizontally_and_found_by_name() {
    let (skel, c) = walker();
    let mut pose = Pose::default();
    c.sample_pose(&skel, 0.5, &mut pose);
    hold_root(&mut pose, &skel, 0, true);
    assert_eq!(pose.translations[0], Vec3::new(0.0, 1.25, 0.0));
    assert!(quat_close(pose.rotations[0], Quat::IDENTITY));
    let s = Skeleton::new(
        vec![
            rest_bone("Armature", None, [0.0; 3]),
            rest_bone("mixamorig:Hips", Some("Armature"), [0.0; 3]),
            rest_bone("Pelvis", Some("Armature"), [0.0; 3]),
        ],
        vec![],
    )
    .expect("skel");
    assert_eq!(
        find_root_bone(&s, "").map(|i| s.bones()[i].name.as_str()),
        Some("mixamorig:Hips")
    );
    assert_eq!(
        find_root_bone(&s, "pelvis").map(|i| s.bones()[i].authored),
        Some(2)
    );
}

// ---- retargeting ----------------------------------------------------------------------------

fn leg_rig(hips: &str, leg: f32, arm_rest: Quat) -> Skeleton {
    let mut arm = rest_bone("arm", Some(hips), [0.3, 0.0, 0.0]);
    arm.rest.rotation = arm_rest;
    Skeleton::new(
        vec![
            rest_bone(hips, None, [0.0, 2.0 * leg, 0.0]),
            rest_bone("upLeg", Some(hips), [0.1, 0.0, 0.0]),
            rest_bone("knee", Some("upLeg"), [0.0, -leg / 2.0, 0.0]),
            rest_bone("foot", Some("knee"), [0.0, -leg / 2.0, 0.0]),
            arm,
        ],
        vec![],
    )
    .expect("skel")
}

#[test]
fn retarget_scales_hips_and_carries_rotation_changes() {
    let source = leg_rig("mixamorig:Hips", 0.9, Quat::from_rotation_z(deg(90.0)));
    let target = leg_rig("pelvis", 0.45, Quat::IDENTITY);
    assert_eq!(leg_length(&source), Some(0.9));
    assert!((hips_scale(&source, &target) - 0.5).abs() < EPS);
    // The source arm turns 30° about X from its (Z-rotated) rest.
    let raised = Quat::from_rotation_x(deg(30.0)) * Quat::from_rotation_z(deg(90.0));
    let clip = seq(
        1.0,
        vec![
            track(
                "mixamorig:Hips",
                &[(0.0, [0.0, 1.8, 2.0])],
                &[(0.0, Quat::IDENTITY)],
            ),
            track("arm", &[(0.0, [9.0, 9.0, 9.0])], &[(0.0, raised)]),
            track("tail", &[(0.0, [1.0; 3])], &[]),
        ],
    );
    let map = BTreeMap::from([("mixamorig:Hips".to_string(), "pelvis".to_string())]);
    let (out, d) = retarget_clip(&clip, &source, &target, &map);
    assert!(d.is_empty(), "{d:?}");
    let get = |n: &str| out.tracks.iter().find(|t| t.bone == n).expect(n);
    assert_eq!(get("pelvis").translation, vec![(0.0, [0.0, 0.9, 1.0])]);
    let arm = get("arm");
    assert!(arm.translation.is_empty(), "target keeps its own lengths");
    assert!(quat_close(
        Quat::from_array(arm.rotation[0].1),
        Quat::from_rotation_x(deg(30.0))
    ));
    // Bones the source skeleton lacks pass through by name.
    assert_eq!(get("tail").translation, vec![(0.0, [1.0; 3])]);
}

#[test]
fn retarget_measures_changes_in_the_hips_parent_space() {
    // Source: a Z-up armature node above the hips (rotated −90° about X); target: none.
    let mut armature = rest_bone("Armature", None, [0.0; 3]);
    armature.rest.rotation = Quat::from_rotation_x(deg(-90.0));
    let source = Skeleton::new(
        vec![
            armature,
            rest_bone("Hips", Some("Armature"), [0.0, 0.0, 1.0]),
            rest_bone("arm", Some("Hips"), [0.3, 0.0, 0.0]),
        ],
        vec![],
    )
    .expect("skel");
    let target = Skeleton::new(
        vec![
            rest_bone("hips", None, [0.0, 1.0, 0.0]),
            rest_bone("arm", Some("hips"), [0.3, 0.0, 0.0]),
        ],
        vec![],
    )
    .expect("skel");
    let clip = seq(
        1.0,
        vec![
            track("Hips", &[(0.0, [0.0, 0.0, 1.0])], &[]),
            track("arm", &[], &[(0.0, Quat::from_rotation_z(deg(30.0)))]),
        ],
    );
    let (out, d) = retarget_clip(&clip, &source, &target, &BTreeMap::new());
    assert!(d.is_empty(), "{d:?}");
    let arm = out.tracks.iter().find(|t| t.bone == "arm").expect("arm");
    assert!(quat_close(
        Quat::from_array(arm.rotation[0].1),
        Quat::from_rotation_z(deg(30.0))
    ));
    // Hips heights 1 (model space) on both sides: ratio 1; Z-up (0, 0, 1) becomes Y-up (0, 1, 0).
    let hips = out.tracks.iter().find(|t| t.bone == "hips").expect("hips");
    let v = Vec3::from_array(hips.translation[0].1);
    assert!((v - Vec3::new(0.0, 1.0, 0.0)).length() < 1e-5, "{v:?}");
}

// ---- .skel loading --------------------------------------------------------------------------

#[test]
fn skel_parents_after_children_are_ordered_internally() {
    let text = r#"Skeleton(bones: [
        (name: "Spine", parent: Some("hips"), translation: (0.0, 0.1, 0.0), rotation: (0.0, 0.0, 0.0, 2.0)),
        (name: "hips", parent: None, translation: (0.0, 1.0, 0.0), rotation: (0.0, 0.0, 0.0, 1.0), scale: (1.0, 1.0, 1.0)),
    ], clips: ["a.animseq"])"#;
    let l = load_skeleton(&SourceFile::new("t.skel", text));
    let s = l.skeleton.expect("loads");
    assert_eq!(s.bones()[0].name, "hips");
    assert_eq!(s.bones()[1].parent, Some(0));
    assert_eq!(s.bones()[1].authored, 0);
    assert_eq!(s.bones()[1].rest.rotation, Quat::IDENTITY);
    assert_eq!(s.clips, vec!["a.animseq".to_string()]);
    assert_eq!(hero().len(), 22);
}

#[test]
fn skel_errors_are_located() {
    let b = |name: &str, parent: &str| {
        format!(
            "(name: \"{name}\", parent: {parent}, translation: (0.0, 0.0, 0.0), rotation: (0.0, 0.0, 0.0, 1.0)),\n"
        )
    };
    let unknown = format!(
        "(bones: [\n{}{}])",
        b("hips", "None"),
        b("spine", "Some(\"chest\")")
    );
    check_skel_error(&unknown, "E0505", 3, 25);
    let cycle = format!(
        "(bones: [\n{}{}])",
        b("a", "Some(\"b\")"),
        b("b", "Some(\"a\")")
    );
    check_skel_error(&cycle, "E0506", 2, 21);
    let dup = format!(
        "(bones: [\n{}{}])",
        b("mixamorig:Hips", "None"),
        b("MIXAMORIG_hips", "None")
    );
    check_skel_error(&dup, "E0504", 3, 8);
    let nonfinite = "(bones: [(name: \"h\", parent: None, translation: (inf, 0.0, 0.0), rotation: (0.0, 0.0, 0.0, 1.0))])";
    check_skel_error(nonfinite, "E0507", 1, 49);
    let zero = "(bones: [(name: \"h\", parent: None, translation: (0.0, 0.0, 0.0), rotation: (0.0, 0.0, 0.0, 0.0))])";
    check_skel_error(zero, "E0508", 1, 76);
    check_skel_error("(bones: [])", "E0509", 1, 1);
    check_skel_error("(bones: [(name: \"h\", parent: None)])", "E0502", 1, 10);
    check_skel_error("(bones: [", "E0501", 1, 10);
    let self_parent = format!("(bones: [\n{}])", b("a", "Some(\"A\")"));
    check_skel_error(&self_parent, "E0506", 2, 21);
}

// ---- the bundled rig ------------------------------------------------------------------------

#[test]
fn hero_clips_bind_fully_and_walk_moves_forward() {
    let skel = hero();
    for name in ["hero_idle", "hero_walk", "hero_run", "hero_turn"] {
        let text = std::fs::read_to_string(format!(
            "{}/assets/{name}.animseq",
            env!("CARGO_MANIFEST_DIR")
        ))
        .expect("asset");
        let l = sinew::animseq::load(&SourceFile::new(name, text));
        let s = l.seq.expect("loads");
        let c = bound(&s, &skel);
        assert!(c.binding.pairs.len() >= 7, "{name}");
        if name == "hero_walk" || name == "hero_run" {
            let hips = find_root_bone(&skel, "").expect("hips");
            let d = RootClip::new(&c.clip, &c.binding, hips, false).delta(0.0, s.duration, true);
            assert!(d.translation.z > 1.0, "{name}: {d:?}");
        }
    }
}

// ---- properties -----------------------------------------------------------------------------

fn point() -> impl Strategy<Value = [f32; 2]> {
    [-100.0f32..100.0, -100.0f32..100.0]
}

fn param() -> impl Strategy<Value = f32> {
    prop_oneof![
        -1e3f32..1e3,
        Just(1e30),
        Just(-1e30),
        Just(f32::NAN),
        Just(f32::INFINITY),
        Just(f32::NEG_INFINITY),
        Just(f32::MAX),
    ]
}

fn unit_quat() -> impl Strategy<Value = Quat> {
    [-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0].prop_map(|v| {
        let q = Quat::from_array(v);
        if q.length_squared() < 1e-6 {
            Quat::IDENTITY
        } else {
            q.normalize()
        }
    })
}

/// The same checks as `fuzz/fuzz_targets/skel_load.rs`.
fn check_skel_bytes(data: &[u8]) {
    let loaded = load_skeleton_bytes("fuzz.skel", data);
    match &loaded.skeleton {
        Some(s) => {
            for (i, b) in s.bones().iter().enumerate() {
                assert!(b.parent.is_none_or(|p| p < i));
                assert_eq!(s.find(&b.name), Some(i));
            }
            let pose = Pose::rest(s);
            assert!(pose.is_sane() || pose.translations.iter().all(|v| v.is_finite()));
            let mut model = Vec::new();
            pose.to_model(s, &mut model);
            assert_eq!(model.len(), s.len());
        }
        None => assert!(loaded.diagnostics.iter().any(|d| d.is_error())),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn skel_loader_survives_random_bytes(data in prop::collection::vec(any::<u8>(), 0..200)) {
        check_skel_bytes(&data);
    }

    #[test]
    fn skel_loader_survives_mutations(at in 0usize..2000, len in 0usize..40, with in prop::collection::vec(prop_oneof![Just(b'('), Just(b')'), Just(b'"'), Just(b','), Just(b'x'), any::<u8>()], 0..8)) {
        let mut text = include_bytes!("../assets/hero.skel").to_vec();
        let at = at.min(text.len());
        let end = (at + len).min(text.len());
        text.splice(at..end, with);
        check_skel_bytes(&text);
    }

    #[test]
    fn weights_2d_finite_and_sum_to_one(pts in prop::collection::vec(point(), 1..9), x in param(), y in param()) {
        let Ok(space) = BlendSpace2D::new(&pts) else { return Ok(()); };
        let mut w = vec![0.0; pts.len()];
        space.weights(x, y, &mut w);
        prop_assert!(w.iter().all(|v: &f32| v.is_finite() && *v >= 0.0 && *v <= 1.0 + 1e-6), "{w:?}");
        let s: f32 = w.iter().sum();
        prop_assert!((s - 1.0).abs() < 1e-4, "sum {s}: {w:?}");
    }

    #[test]
    fn weights_1d_sum_to_one(mut ts in prop::collection::vec(-100.0f32..100.0, 1..8), x in param()) {
        ts.sort_by(f32::total_cmp);
        let b = Blend1D::new(&ts).expect("sorted");
        let mut w = vec![0.0; ts.len()];
        b.weights(x, &mut w);
        let s: f32 = w.iter().sum();
        prop_assert!((s - 1.0).abs() < 1e-5 && w.iter().all(|v| v.is_finite()));
    }

    #[test]
    fn blended_rotations_are_unit(qs in prop::collection::vec(unit_quat(), 2..5), t in param()) {
        let skel = two_bone();
        let clips: Vec<BoundClip> = qs.iter().map(|q| bound(&seq(1.0, vec![track("arm", &[], &[(0.0, *q)])]), &skel)).collect();
        let ts: Vec<f32> = (0..clips.len()).map(|i| i as f32).collect();
        let tree = BlendTree::Blend1D { param: "p".into(), blend: Blend1D::new(&ts).expect("sorted"), clips: (0..clips.len()).collect() };
        let mut leaves = Vec::new();
        tree.leaves(&|_| t, &mut leaves);
        let mut pose = Pose::default();
        TreeEvaluator::new().evaluate(&skel, &leaves, &clips, 0.0, true, &mut pose);
        prop_assert!(pose.is_sane(), "{pose:?}");
        let mut a = Pose::rest(&skel);
        a.rotations[1] = qs[0];
        let mut b = Pose::rest(&skel);
        b.rotations[1] = qs[1];
        lerp_pose(&mut a, &b, t);
        prop_assert!((a.rotations[1].length() - 1.0).abs() < 1e-4);
    }

    #[test]
    fn poses_never_nan(
        keys in prop::collection::vec((0.0f64..2.0, [-1e30f32..1e30, -1e3f32..1e3, -1e30f32..1e30], unit_quat()), 1..6),
        t in prop_oneof![-5.0f64..5.0, Just(f64::NAN), Just(f64::INFINITY)],
        w in param(),
        x in param(),
    ) {
        let skel = two_bone();
        let tr: Vec<(f64, [f32; 3])> = keys.iter().map(|k| (k.0, k.1)).collect();
        let rot: Vec<(f64, Quat)> = keys.iter().map(|k| (k.0, k.2)).collect();
        let s = seq(1.0, vec![track("hips", &tr, &rot), track("arm", &tr, &rot)]);
        let c = bound(&s, &skel);
        let clips = [c.clone(), c];
        let tree = BlendTree::Additive {
            base: Box::new(BlendTree::Blend1D { param: "x".into(), blend: Blend1D::new(&[0.0, 1.0]).expect("ok"), clips: vec![0, 1] }),
            overlay: Box::new(BlendTree::Clip(1)),
            param: "w".into(),
        };
        let mut leaves = Vec::new();
        tree.leaves(&|n| if n == "x" { x } else { w }, &mut leaves);
        let mut pose = Pose::default();
        TreeEvaluator::new().evaluate(&skel, &leaves, &clips, t, true, &mut pose);
        prop_assert!(pose.is_sane(), "{pose:?}");
        apply_additive(&mut pose, &clips[0], t, None, w);
        let mut layer = Pose::default();
        clips[1].sample_pose(&skel, t, &mut layer);
        apply_override(&mut pose, &layer, None, w);
        hold_root(&mut pose, &skel, 0, true);
        prop_assert!(pose.is_sane(), "{pose:?}");
        let rc = RootClip::new(&clips[0].clip, &clips[0].binding, 0, true);
        let d = rc.delta(0.0, t, true);
        prop_assert!(d.translation.is_finite() && d.yaw.is_finite());
    }
}

// ---- root motion against the oracle ---------------------------------------------------------

/// A clip whose hips move along X/Z and turn about +Y, with the oracle's root-motion block.
fn oracle_clip(duration: f64, keys: &[(f64, [f32; 3], f32)]) -> AnimSeq {
    let tr: Vec<(f64, [f32; 3])> = keys.iter().map(|k| (k.0, k.1)).collect();
    let rot: Vec<(f64, Quat)> = keys
        .iter()
        .map(|k| (k.0, Quat::from_rotation_y(k.2)))
        .collect();
    let mut s = seq(duration, vec![track("hips", &tr, &rot)]);
    s.root_motion = Some(RootMotion {
        bone: "hips".into(),
        translation: Axes {
            x: true,
            y: false,
            z: true,
        },
        yaw: true,
    });
    s
}

#[test]
fn root_oracle_hand_computed() {
    use root_oracle::root_motion_delta as delta;
    use std::f64::consts::{FRAC_PI_2, PI};
    let close = |a: f64, b: f64| (a - b).abs() < 1e-6;
    let s = oracle_clip(
        1.0,
        &[
            (0.0, [0.0, 1.0, 0.0], 0.0),
            (1.0, [2.0, 1.0, 4.0], FRAC_PI_2 as f32),
        ],
    );
    let d = delta(&s, 0.25, 0.75, true).expect("delta");
    assert!(
        close(d.translation[0], 1.0) && close(d.translation[2], 2.0),
        "{d:?}"
    );
    assert!(close(d.yaw, PI / 4.0), "{d:?}");
    // 0.5 → 3.25: three cycles of (2, 4) + F(0.25) − F(0.5).
    let d = delta(&s, 0.5, 3.25, true).expect("delta");
    assert!(
        close(d.translation[0], 5.5) && close(d.translation[2], 11.0),
        "{d:?}"
    );
    assert!(close(d.yaw, 3.0 * FRAC_PI_2 - PI / 8.0), "{d:?}");
    let r = delta(&s, 3.25, 0.5, true).expect("reverse");
    assert_eq!(r.translation, d.translation.map(|x| -x));
    let d = delta(&s, -5.0, 7.0, false).expect("clamped");
    assert_eq!(d.translation, [2.0, 0.0, 4.0]);
    let turn: Vec<(f64, [f32; 3], f32)> = (0..=4)
        .map(|i| (f64::from(i) * 0.25, [0.0; 3], i as f32 * FRAC_PI_2 as f32))
        .collect();
    let d = delta(&oracle_clip(1.0, &turn), 0.0, 2.0, true).expect("turns");
    assert!((d.yaw - 4.0 * PI).abs() < 1e-5, "{d:?}");
    assert!(delta(&s, f64::NAN, 1.0, true).is_none());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// `RootClip::delta` (the runtime's) equals the oracle over any interval, across wraps, in
    /// both directions: translations at any times, the unwrapped yaw between key times (where
    /// the runtime's nlerp and the oracle's slerp agree).
    #[test]
    fn root_clip_matches_the_oracle(
        d in 0.2f64..3.0,
        raw in prop::collection::vec((0.0f64..1.0, [-10.0f32..10.0, -1.0f32..1.0, -10.0f32..10.0], -0.7f32..0.7), 1..6),
        from in -10.0f64..10.0,
        len in -10.0f64..10.0,
        k0 in 0usize..6,
        k1 in 0usize..6,
        c0 in -3i32..3,
        c1 in 0i32..4,
        looping in any::<bool>(),
    ) {
        // Sorted, distinct key times in [0, d]; yaw steps below 0.7 rad.
        let mut keys: Vec<(f64, [f32; 3], f32)> = Vec::new();
        let mut times: Vec<f64> = raw.iter().map(|k| (k.0 * d * 1e6).round() / 1e6).collect();
        times.sort_by(f64::total_cmp);
        times.dedup();
        let mut yaw = 0.0f32;
        for (t, k) in times.iter().zip(&raw) {
            yaw += k.2;
            keys.push((*t, k.1, yaw));
        }
        let s = oracle_clip(d, &keys);
        let skel = two_bone();
        let c = bound(&s, &skel);
        let rc = RootClip::new(&c.clip, &c.binding, 0, true);
        let near = |a: f64, b: f64, scale: f64| (a - b).abs() <= 1e-4 * (scale.abs() + 1.0);
        // Translation over an arbitrary interval.
        let (a, b) = (from, from + len);
        let got = rc.delta(a, b, looping);
        let want = root_oracle::root_motion_delta(&s, a, b, looping).expect("oracle");
        let scale = 20.0 * (1.0 + (b - a).abs() / d);
        prop_assert!(near(got.translation.x, want.translation[0], scale), "{got:?} vs {want:?}");
        prop_assert_eq!(got.translation.y, 0.0);
        prop_assert!(near(got.translation.z, want.translation[2], scale), "{got:?} vs {want:?}");
        // Yaw between key times (plus whole cycles).
        let at = |k: usize, c: i32| keys[k % keys.len()].0 + f64::from(c) * d;
        let (a, b) = (at(k0, c0), at(k1, c0 + c1));
        let got = rc.delta(a, b, looping);
        let want = root_oracle::root_motion_delta(&s, a, b, looping).expect("oracle");
        prop_assert!(near(got.yaw, want.yaw, 4.0 * (1.0 + (b - a).abs() / d)), "{a}..{b}: {got:?} vs {want:?}");
    }
}
