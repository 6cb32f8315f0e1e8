//! Sampling curves and bone tracks at a clip time (the runtime's `anim.curve`; retargeting's
//! source rotations), and the quaternion heading shared with `anim::root_motion`. Pose
//! sampling and root motion live in `anim` (`CompiledClip`, `RootClip`); the former
//! `root_motion_delta` here is now a test oracle (`tests/support/root_oracle.rs`).
//!
//! Conventions (see `docs/animseq.md`): sampling clamps outside the keys (the end value holds);
//! rotations interpolate by shortest-path slerp and come out normalized.

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

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::{FRAC_PI_2, PI};

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
}
