//! Sampling curves and bone tracks at a clip time, and root-motion extraction over a playback
//! interval (unwrapped times, loop wraps composed in O(1)).
//!
//! Conventions (see `docs/animseq.md`): sampling clamps outside the keys (the end value holds);
//! rotations interpolate by shortest-path slerp and come out normalized; root-motion deltas are
//! summed in clip space (a full cycle's translation is *not* rotated by the yaw accumulated in
//! earlier cycles); yaw is rotation about +Y in radians, unwrapped key to key.

use super::*;

impl Curve {
    /// The curve's value at clip time `t`: `Step` holds the last key at or before `t`, `Linear`
    /// interpolates; before the first / after the last key that key's value holds. `None` for a
    /// curve without keys or a NaN `t`.
    pub fn sample(&self, t: f64) -> Option<CurveValue> {
        if t.is_nan() {
            return None;
        }
        let keys = &self.keys;
        let first = keys.first()?;
        let i = keys.partition_point(|k| k.0 <= t);
        if i == 0 {
            return Some(first.1);
        }
        let (t0, v0) = keys[i - 1];
        let Some(&(t1, v1)) = keys.get(i) else {
            return Some(v0);
        };
        if self.interpolation == Interpolation::Step {
            return Some(v0);
        }
        let s = (t - t0) / (t1 - t0);
        match (v0, v1) {
            // `a(1-s) + bs` cannot overflow for finite keys (unlike `a + (b-a)s`) and is exact
            // at both ends.
            (CurveValue::Float(a), CurveValue::Float(b)) => {
                Some(CurveValue::Float(a * (1.0 - s) + b * s))
            }
            (CurveValue::Vec3(a), CurveValue::Vec3(b)) => Some(CurveValue::Vec3(lerp3(a, b, s))),
            // Mixed types never pass validation; hold the earlier key.
            _ => Some(v0),
        }
    }
}

fn lerp3(a: [f32; 3], b: [f32; 3], s: f64) -> [f32; 3] {
    let l = |x: f32, y: f32| (f64::from(x) + (f64::from(y) - f64::from(x)) * s) as f32;
    [l(a[0], b[0]), l(a[1], b[1]), l(a[2], b[2])]
}

/// The keys around `t`: `(a, b, s)` with `s` in `[0, 1]`; `b == a` when clamped.
fn bracket<V: Copy>(keys: &[(f64, V)], t: f64) -> Option<(V, V, f64)> {
    let first = keys.first()?;
    if t.is_nan() {
        return None;
    }
    let i = keys.partition_point(|k| k.0 <= t);
    if i == 0 {
        return Some((first.1, first.1, 0.0));
    }
    let (t0, v0) = keys[i - 1];
    match keys.get(i) {
        None => Some((v0, v0, 0.0)),
        Some(&(t1, v1)) => Some((v0, v1, ((t - t0) / (t1 - t0)).clamp(0.0, 1.0))),
    }
}

impl Track {
    /// Translation at clip time `t` (linear, clamped). `None` without keys or for NaN `t`.
    pub fn sample_translation(&self, t: f64) -> Option<[f32; 3]> {
        bracket(&self.translation, t).map(|(a, b, s)| lerp3(a, b, s))
    }

    /// Scale at clip time `t` (linear, clamped). `None` without keys or for NaN `t`.
    pub fn sample_scale(&self, t: f64) -> Option<[f32; 3]> {
        bracket(&self.scale, t).map(|(a, b, s)| lerp3(a, b, s))
    }

    /// Rotation `(x, y, z, w)` at clip time `t`: shortest-path slerp, normalized, clamped.
    pub fn sample_rotation(&self, t: f64) -> Option<[f32; 4]> {
        let q = self.rotation_f64(t)?;
        Some([q[0] as f32, q[1] as f32, q[2] as f32, q[3] as f32])
    }

    fn rotation_f64(&self, t: f64) -> Option<[f64; 4]> {
        let (a, b, s) = bracket(&self.rotation, t)?;
        Some(slerp(q64(a), q64(b), s))
    }
}

fn q64(q: [f32; 4]) -> [f64; 4] {
    normalize([
        f64::from(q[0]),
        f64::from(q[1]),
        f64::from(q[2]),
        f64::from(q[3]),
    ])
}

fn normalize(q: [f64; 4]) -> [f64; 4] {
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    if n > 0.0 && n.is_finite() {
        [q[0] / n, q[1] / n, q[2] / n, q[3] / n]
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

/// Shortest-path spherical interpolation of unit quaternions (nlerp when nearly parallel).
fn slerp(a: [f64; 4], mut b: [f64; 4], s: f64) -> [f64; 4] {
    let mut dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if dot < 0.0 {
        b = [-b[0], -b[1], -b[2], -b[3]];
        dot = -dot;
    }
    let (wa, wb) = if dot > 0.9995 {
        (1.0 - s, s)
    } else {
        let theta = dot.clamp(-1.0, 1.0).acos();
        let sin = theta.sin();
        (((1.0 - s) * theta).sin() / sin, (s * theta).sin() / sin)
    };
    normalize([
        wa * a[0] + wb * b[0],
        wa * a[1] + wb * b[1],
        wa * a[2] + wb * b[2],
        wa * a[3] + wb * b[3],
    ])
}

/// Heading of a unit quaternion: the angle about +Y that turns +Z toward the rotated +Z's
/// horizontal projection (`atan2(fx, fz)`), in `(-π, π]`; 0 when that projection vanishes or
/// is not finite. Shared with `anim::root_motion`.
pub(crate) fn yaw_of(q: [f64; 4]) -> f64 {
    let [x, y, z, w] = q;
    let fx = 2.0 * (x * z + w * y);
    let fz = 1.0 - 2.0 * (x * x + y * y);
    if (fx == 0.0 && fz == 0.0) || !fx.is_finite() || !fz.is_finite() {
        0.0
    } else {
        fx.atan2(fz)
    }
}

/// Wraps an angle difference into `(-π, π]`.
pub(crate) fn wrap_angle(a: f64) -> f64 {
    use std::f64::consts::{PI, TAU};
    let r = (a + PI).rem_euclid(TAU) - PI;
    if r <= -PI { r + TAU } else { r }
}

/// The root bone's motion between two playback times.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct RootDelta {
    /// Translation delta, clip space, only the selected axes (others 0).
    pub translation: [f64; 3],
    /// Rotation about +Y in radians (0 unless `yaw` is selected).
    pub yaw: f64,
}

/// The root bone's rigid motion from unwrapped playback time `from` to `to`.
///
/// A looping clip at unwrapped time `u` shows clip time `u mod D`; each whole cycle adds the
/// full-cycle delta `F(D) - F(0)` (computed once, multiplied by the cycle count: O(1) in the
/// number of wraps). A non-looping clip clamps both times to `[0, D]`. Reverse playback
/// (`to < from`) gives the exact negative of the forward delta over the same span. `None`
/// when there is no root motion, a time is NaN or infinite, the duration is not usable, or the
/// delta itself is not finite (overflow over astronomically many cycles).
/// A root bone without a track (it lives in the skeleton's rest pose) does not move.
pub fn root_motion_delta(seq: &AnimSeq, from: f64, to: f64, looping: bool) -> Option<RootDelta> {
    let rm = seq.root_motion.as_ref()?;
    let d = seq.duration;
    if !(from.is_finite() && to.is_finite() && d.is_finite() && d > 0.0) {
        return None;
    }
    let Some(track) = seq.tracks.iter().find(|t| t.bone == rm.bone) else {
        return Some(RootDelta::default());
    };
    let sampler = RootSampler { track, rm };
    if to < from {
        // Exactly the negative of the forward delta over the same span.
        let f = root_motion_delta(seq, to, from, looping)?;
        return Some(RootDelta {
            translation: f.translation.map(|x| -x),
            yaw: -f.yaw,
        });
    }
    let delta = if looping {
        let (k0, c0) = split(from, d);
        let (k1, c1) = split(to, d);
        if !(k0.is_finite() && k1.is_finite()) {
            return None;
        }
        let cycle = sampler.at(d).sub(sampler.at(0.0));
        let whole = k1 - k0;
        sampler.at(c1).sub(sampler.at(c0)).add(cycle.scale(whole))
    } else {
        let c0 = from.clamp(0.0, d);
        let c1 = to.clamp(0.0, d);
        sampler.at(c1).sub(sampler.at(c0)).add(Pose::ZERO)
    };
    // Astronomically many cycles of motion can overflow: say so rather than return inf/NaN.
    (delta.translation.iter().all(|x| x.is_finite()) && delta.yaw.is_finite()).then_some(delta)
}

/// Unwrapped time `u` → (cycle index as f64, clip time in `[0, D)`).
fn split(u: f64, d: f64) -> (f64, f64) {
    let k = (u / d).floor();
    let mut c = u - k * d;
    // Rounding can land a hair outside the cycle; fold it back.
    if c < 0.0 {
        c = 0.0;
    }
    if c >= d {
        return (k + 1.0, 0.0);
    }
    (k, c)
}

#[derive(Clone, Copy)]
struct Pose {
    t: [f64; 3],
    yaw: f64,
}

impl Pose {
    const ZERO: Pose = Pose {
        t: [0.0; 3],
        yaw: 0.0,
    };
    fn sub(self, o: Pose) -> Pose {
        Pose {
            t: [self.t[0] - o.t[0], self.t[1] - o.t[1], self.t[2] - o.t[2]],
            yaw: self.yaw - o.yaw,
        }
    }
    fn add(self, o: Pose) -> RootDelta {
        RootDelta {
            translation: [self.t[0] + o.t[0], self.t[1] + o.t[1], self.t[2] + o.t[2]],
            yaw: self.yaw + o.yaw,
        }
    }
    fn scale(self, k: f64) -> Pose {
        Pose {
            t: self.t.map(|x| x * k),
            yaw: self.yaw * k,
        }
    }
}

struct RootSampler<'a> {
    track: &'a Track,
    rm: &'a RootMotion,
}

impl RootSampler<'_> {
    /// Selected translation and unwrapped yaw at clip time `c`.
    fn at(&self, c: f64) -> Pose {
        let tr = self.track.sample_translation(c).unwrap_or([0.0; 3]);
        let a = self.rm.translation;
        let pick = |on: bool, v: f32| if on { f64::from(v) } else { 0.0 };
        Pose {
            t: [pick(a.x, tr[0]), pick(a.y, tr[1]), pick(a.z, tr[2])],
            yaw: if self.rm.yaw {
                self.unwrapped_yaw(c)
            } else {
                0.0
            },
        }
    }

    /// Yaw at `c` relative to the first key, unwrapped by summing per-segment changes (each
    /// wrapped into `(-π, π]`), so a clip that turns a full circle reports 2π, not 0.
    fn unwrapped_yaw(&self, c: f64) -> f64 {
        let keys = &self.track.rotation;
        let Some(first) = keys.first() else {
            return 0.0;
        };
        let mut prev = yaw_of(q64(first.1));
        let mut acc = 0.0;
        for k in keys.iter().skip(1) {
            if k.0 > c {
                break;
            }
            let y = yaw_of(q64(k.1));
            acc += wrap_angle(y - prev);
            prev = y;
        }
        if let Some(q) = self.track.rotation_f64(c) {
            acc += wrap_angle(yaw_of(q) - prev);
        }
        acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::{FRAC_PI_2, PI};

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    fn curve(interpolation: Interpolation, keys: &[(f64, f64)]) -> Curve {
        Curve {
            name: "c".into(),
            interpolation,
            keys: keys
                .iter()
                .map(|&(t, v)| (t, CurveValue::Float(v)))
                .collect(),
        }
    }

    fn f(v: Option<CurveValue>) -> f64 {
        match v {
            Some(CurveValue::Float(x)) => x,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn step_and_linear_curves() {
        let keys = [(0.5, 1.0), (1.0, 3.0), (2.0, -1.0)];
        let step = curve(Interpolation::Step, &keys);
        let lin = curve(Interpolation::Linear, &keys);
        assert_eq!(f(step.sample(0.0)), 1.0);
        assert_eq!(f(step.sample(0.99)), 1.0);
        assert_eq!(f(step.sample(1.0)), 3.0);
        assert_eq!(f(step.sample(5.0)), -1.0);
        assert_eq!(f(lin.sample(0.0)), 1.0);
        assert_eq!(f(lin.sample(0.75)), 2.0);
        assert_eq!(f(lin.sample(1.5)), 1.0);
        assert_eq!(f(lin.sample(9.0)), -1.0);
        assert_eq!(lin.sample(f64::NAN), None);
        let wide = curve(Interpolation::Linear, &[(0.0, -f64::MAX), (1.0, f64::MAX)]);
        assert_eq!(f(wide.sample(0.5)), 0.0);
        assert_eq!(f(wide.sample(1.0)), f64::MAX);
        assert_eq!(curve(Interpolation::Linear, &[]).sample(0.0), None);
        let v = Curve {
            name: "v".into(),
            interpolation: Interpolation::Linear,
            keys: vec![
                (0.0, CurveValue::Vec3([0.0, 2.0, 4.0])),
                (1.0, CurveValue::Vec3([1.0, 0.0, 4.0])),
            ],
        };
        assert_eq!(v.sample(0.5), Some(CurveValue::Vec3([0.5, 1.0, 4.0])));
    }

    fn yaw_q(theta: f64) -> [f32; 4] {
        [
            0.0,
            (theta / 2.0).sin() as f32,
            0.0,
            (theta / 2.0).cos() as f32,
        ]
    }

    fn track() -> Track {
        Track {
            bone: "hips".into(),
            translation: vec![(0.0, [0.0, 1.0, 0.0]), (1.0, [2.0, 1.0, 4.0])],
            rotation: vec![(0.0, yaw_q(0.0)), (1.0, yaw_q(FRAC_PI_2))],
            scale: vec![],
        }
    }

    #[test]
    fn track_sampling_clamps_and_normalizes() {
        let t = track();
        assert_eq!(t.sample_translation(-1.0), Some([0.0, 1.0, 0.0]));
        assert_eq!(t.sample_translation(0.25), Some([0.5, 1.0, 1.0]));
        assert_eq!(t.sample_translation(3.0), Some([2.0, 1.0, 4.0]));
        assert_eq!(t.sample_scale(0.5), None);
        let q = t.sample_rotation(0.5).expect("keys");
        let expect = yaw_q(PI / 4.0);
        for i in 0..4 {
            assert!((q[i] - expect[i]).abs() < 1e-6, "{q:?} vs {expect:?}");
        }
        // Shortest path: -q is the same rotation; halfway between q and -q' stays small.
        let mut t2 = track();
        t2.rotation[1].1 = yaw_q(FRAC_PI_2).map(|x| -x);
        let q2 = t2.sample_rotation(0.5).expect("keys");
        assert!((yaw_of(q64(q2)) - PI / 4.0).abs() < 1e-6);
        // Non-normalized keys come out normalized.
        let mut t3 = track();
        t3.rotation = vec![(0.0, [0.0, 0.0, 0.0, 2.0])];
        assert_eq!(t3.sample_rotation(0.3), Some([0.0, 0.0, 0.0, 1.0]));
    }

    fn seq(looping_axes: Axes, yaw: bool) -> AnimSeq {
        AnimSeq {
            id: "s".into(),
            name: "S".into(),
            duration: 1.0,
            skeleton: None,
            tracks: vec![track()],
            notifies: vec![],
            windows: vec![],
            curves: vec![],
            root_motion: Some(RootMotion {
                bone: "hips".into(),
                translation: looping_axes,
                yaw,
            }),
        }
    }

    const XZ: Axes = Axes {
        x: true,
        y: false,
        z: true,
    };

    #[test]
    fn root_motion_within_one_cycle() {
        let s = seq(XZ, true);
        let d = root_motion_delta(&s, 0.25, 0.75, true).expect("delta");
        assert!(close(d.translation[0], 1.0));
        assert_eq!(d.translation[1], 0.0);
        assert!(close(d.translation[2], 2.0));
        assert!(close(d.yaw, PI / 4.0), "{}", d.yaw);
    }

    #[test]
    fn root_motion_across_loop_wraps() {
        let s = seq(XZ, true);
        // 0.5 → 3.25: (3 - 0) cycles of (2, 4) + F(0.25) - F(0.5) = (6 - 0.5, 12 - 1).
        let d = root_motion_delta(&s, 0.5, 3.25, true).expect("delta");
        assert!(close(d.translation[0], 5.5), "{d:?}");
        assert!(close(d.translation[2], 11.0), "{d:?}");
        assert!(close(d.yaw, 3.0 * FRAC_PI_2 - PI / 8.0), "{d:?}");
        // Huge wrap counts cost O(1) and scale linearly.
        let d = root_motion_delta(&s, 0.0, 1e9, true).expect("delta");
        assert!((d.translation[0] - 2e9).abs() < 1e-3, "{d:?}");
        // Negative unwrapped times are fine: -2.0 → 0.0 is two cycles.
        let d = root_motion_delta(&s, -2.0, 0.0, true).expect("delta");
        assert!(close(d.translation[2], 8.0), "{d:?}");
    }

    #[test]
    fn reverse_is_negative_of_forward() {
        let s = seq(XZ, true);
        let f = root_motion_delta(&s, 0.3, 2.7, true).expect("delta");
        let r = root_motion_delta(&s, 2.7, 0.3, true).expect("delta");
        assert_eq!(r.translation, f.translation.map(|x| -x));
        assert_eq!(r.yaw, -f.yaw);
    }

    #[test]
    fn split_intervals_compose() {
        let s = seq(XZ, true);
        let ab = root_motion_delta(&s, 0.1, 1.7, true).expect("delta");
        let bc = root_motion_delta(&s, 1.7, 4.2, true).expect("delta");
        let ac = root_motion_delta(&s, 0.1, 4.2, true).expect("delta");
        for i in 0..3 {
            assert!(close(
                ab.translation[i] + bc.translation[i],
                ac.translation[i]
            ));
        }
        assert!(close(ab.yaw + bc.yaw, ac.yaw));
    }

    #[test]
    fn non_looping_clamps() {
        let s = seq(XZ, false);
        let d = root_motion_delta(&s, -5.0, 7.0, false).expect("delta");
        assert_eq!(d.translation, [2.0, 0.0, 4.0]);
        assert_eq!(d.yaw, 0.0);
    }

    #[test]
    fn full_turn_unwraps_to_two_pi() {
        let mut s = seq(Axes::default(), true);
        s.tracks[0].rotation = (0..=4)
            .map(|i| (f64::from(i) * 0.25, yaw_q(f64::from(i) * FRAC_PI_2)))
            .collect();
        let d = root_motion_delta(&s, 0.0, 1.0, true).expect("delta");
        assert!((d.yaw - 2.0 * PI).abs() < 1e-6, "{d:?}");
        let d = root_motion_delta(&s, 0.0, 2.0, true).expect("delta");
        assert!((d.yaw - 4.0 * PI).abs() < 1e-6, "{d:?}");
        assert_eq!(d.translation, [0.0; 3]);
    }

    #[test]
    fn bad_inputs_give_none() {
        let s = seq(XZ, true);
        let mut tiny = s.clone();
        tiny.duration = 5e-324;
        assert!(root_motion_delta(&tiny, 0.0, 1e308, true).is_none());
        assert!(root_motion_delta(&s, f64::NAN, 1.0, true).is_none());
        assert!(root_motion_delta(&s, 0.0, f64::INFINITY, false).is_none());
        let mut no_rm = s.clone();
        no_rm.root_motion = None;
        assert!(root_motion_delta(&no_rm, 0.0, 1.0, true).is_none());
        let mut no_track = s;
        no_track.tracks.clear();
        assert_eq!(
            root_motion_delta(&no_track, 0.0, 1.0, true),
            Some(RootDelta::default())
        );
    }
}
