//! glTF sampler semantics turned into keys Sinew's samplers reproduce:
//!
//! - `LINEAR` translation/scale/weights: the keys as they are (Sinew interpolates linearly).
//! - `LINEAR` rotation: glTF asks for slerp, Sinew's runtime nlerps; a segment whose keys are
//!   more than [`NLERP_MAX_ANGLE`] apart (4-D angle) gets slerp keys in between, so nlerp and
//!   slerp both stay within [`TOLERANCE`] of the glTF value everywhere.
//! - `STEP`: each key held until just before the next one (a key at the next key time's
//!   predecessor `f64`, so the jump happens exactly at the next key); float curves keep
//!   `Step` interpolation instead.
//! - `CUBICSPLINE`: the glTF Hermite spline (rotations normalized) resampled to linear keys
//!   until every checked point is within [`TOLERANCE`] (at most [`MAX_SUBDIVISIONS`] keys per
//!   segment).

use glam::{Quat, Vec4};

/// How close every sampled value stays to the glTF value (per component).
pub const TOLERANCE: f64 = 1e-4;
/// The error the resampler aims for, leaving room for `f32` rounding of stored keys.
const TARGET: f64 = 5e-5;
/// Most linear keys per cubic or slerp segment.
pub const MAX_SUBDIVISIONS: usize = 256;
/// Largest 4-D angle (radians) between rotation keys for which nlerp stays within [`TARGET`]
/// of slerp (the error is about `φ³/62`: 4.4e-5 at 0.14).
pub const NLERP_MAX_ANGLE: f64 = 0.14;

/// A sampler's interpolation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interp {
    /// `LINEAR` (also when `interpolation` is absent).
    Linear,
    /// `STEP`.
    Step,
    /// `CUBICSPLINE`.
    Cubic,
}

/// Which part of a cubic key: in-tangent, value, out-tangent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// `a_k`.
    In,
    /// `v_k`.
    Value,
    /// `b_k`.
    Out,
}

/// The outcome of converting one channel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Converted {
    /// Some cubic segment could not reach the tolerance within the subdivision limit.
    pub inexact: bool,
    /// The most keys the channel held while it was converted (before a constant channel was
    /// cut to one key): the conversion succeeds exactly when `max_keys` is at least this.
    pub peak: usize,
}

/// A vector value type: 1 (weights), 3 (translation, scale) or 4 (rotation) components.
pub trait Kind<const N: usize> {
    /// Rotations are normalized and interpolated on the sphere.
    const QUAT: bool;
}

/// Translation, scale and weights.
pub struct Linear;
impl<const N: usize> Kind<N> for Linear {
    const QUAT: bool = false;
}
/// Rotation quaternions.
pub struct Rotation;
impl Kind<4> for Rotation {
    const QUAT: bool = true;
}

/// Why a channel could not be converted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fail {
    /// A non-finite value, a zero rotation, a spline that overflows.
    Invalid(String),
    /// More keys than the caller allows.
    Limit,
}

/// Converts one channel's keys: `times` (strictly increasing, shifted to clip time) and
/// `value(k, part)` (the k-th kept key) into keys Sinew interpolates linearly, appending at
/// most `max_keys` to `out`.
pub fn convert<const N: usize, K: Kind<N>>(
    times: &[f64],
    interp: Interp,
    value: impl Fn(usize, Part) -> [f32; N],
    out: &mut Vec<(f64, [f32; N])>,
    max_keys: usize,
) -> Result<Converted, Fail> {
    let mut res = Converted::default();
    let start = out.len();
    let n = times.len();
    // The value as Sinew keeps it (finite; rotations normalized), the error built out of line.
    let check = |k: usize, v: [f32; N]| -> Result<[f32; N], Fail> {
        match checked::<N, K>(v) {
            Some(v) => Ok(v),
            None => Err(invalid::<N>(k, v)),
        }
    };
    let full = |out: &Vec<(f64, [f32; N])>| out.len() - start > max_keys;
    // A constant LINEAR or STEP channel (baked scale, mostly) becomes its first key: what the
    // general path below ends in, with the same errors, without converting every key.
    if interp != Interp::Cubic && n > 1 {
        let first = value(0, Part::Value);
        if (1..n).all(|k| value(k, Part::Value) == first) {
            let v = check(0, first)?;
            if n > max_keys {
                return Err(Fail::Limit);
            }
            out.push((times[0], v));
            res.peak = n;
            return Ok(res);
        }
    }
    match interp {
        Interp::Linear | Interp::Step => {
            out.reserve(n);
            let mut prev: Option<[f32; N]> = None;
            for k in 0..n {
                let v = check(k, value(k, Part::Value))?;
                if let Some(p) = prev {
                    let (t0, t1) = (times[k - 1], times[k]);
                    if interp == Interp::Step {
                        let hold = t1.next_down();
                        if p != v && hold > t0 {
                            out.push((hold, p));
                        }
                    } else if K::QUAT && !nlerp_is_close(p, v) {
                        slerp_fill(t0, t1, p, v, out);
                    }
                }
                out.push((times[k], v));
                prev = Some(v);
                if full(out) {
                    return Err(Fail::Limit);
                }
            }
        }
        Interp::Cubic => {
            for k in 0..n {
                let v = check(k, value(k, Part::Value))?;
                if k + 1 == n {
                    out.push((times[k], v));
                    break;
                }
                let raw = |x: [f32; N]| x.map(f64::from);
                let td = times[k + 1] - times[k];
                let p0 = raw(value(k, Part::Value));
                let m0 = raw(value(k, Part::Out)).map(|x| x * td);
                let p1 = raw(value(k + 1, Part::Value));
                let m1 = raw(value(k + 1, Part::In)).map(|x| x * td);
                if [p0, m0, p1, m1].iter().flatten().any(|x| !x.is_finite()) {
                    return Err(Fail::Invalid(format!(
                        "key {k} or {} has a value or tangent that is not finite",
                        k + 1
                    )));
                }
                let seg = Segment::<N, K> {
                    p0,
                    m0,
                    p1,
                    m1,
                    _k: std::marker::PhantomData,
                };
                let (subs, exact) = seg.subdivisions();
                res.inexact |= !exact;
                out.push((times[k], v));
                for i in 1..subs {
                    let s = i as f64 / subs as f64;
                    let p = seg.at(s).map(|x| x as f32);
                    if p.iter().any(|x| !x.is_finite()) {
                        return Err(Fail::Invalid(format!("the spline after key {k} overflows")));
                    }
                    push_between(out, times[k] + td * s, times[k + 1], p);
                }
                if full(out) {
                    return Err(Fail::Limit);
                }
            }
        }
    }
    res.peak = out.len() - start;
    drop_repeats(out, start);
    Ok(res)
}

/// A channel that never changes keeps only its first key (sampling holds it: exact). Baked
/// exports key constant channels (scale, mostly) on every frame. Channels that do change keep
/// every key, so channels baked at one rate keep sharing one key-time list (the runtime then
/// locates a time once per list, not once per channel).
fn drop_repeats<const N: usize>(out: &mut Vec<(f64, [f32; N])>, start: usize) {
    if let Some(first) = out.get(start).map(|k| k.1)
        && out[start..].iter().all(|k| k.1 == first)
    {
        out.truncate(start + 1);
    }
}

/// `v` finite (and for rotations normalized), or `None`.
#[inline(always)]
fn checked<const N: usize, K: Kind<N>>(v: [f32; N]) -> Option<[f32; N]> {
    if v.iter().any(|x| !x.is_finite()) {
        return None;
    }
    if K::QUAT { normalize(v) } else { Some(v) }
}

/// Why [`checked`] refused key `k`'s value `v`.
#[cold]
#[inline(never)]
fn invalid<const N: usize>(k: usize, v: [f32; N]) -> Fail {
    Fail::Invalid(if v.iter().any(|x| !x.is_finite()) {
        format!("key {k} has a value that is not finite")
    } else {
        format!("key {k} is a zero rotation")
    })
}

#[inline(always)]
fn normalize<const N: usize>(v: [f32; N]) -> Option<[f32; N]> {
    let l = v
        .iter()
        .map(|&x| f64::from(x) * f64::from(x))
        .sum::<f64>()
        .sqrt();
    (l > 1e-12 && l.is_finite()).then(|| v.map(|x| (f64::from(x) / l) as f32))
}

fn as_quat<const N: usize>(v: [f32; N]) -> Quat {
    Quat::from_xyzw(v[0], v[1], v[2], v[N - 1])
}

/// The 4-D dot product of two rotation keys, in `f64`.
#[inline(always)]
fn dot64<const N: usize>(a: [f32; N], b: [f32; N]) -> f64 {
    (0..N).map(|i| f64::from(a[i]) * f64::from(b[i])).sum()
}

/// cos(NLERP_MAX_ANGLE).
const COS_MAX: f64 = 0.990_215_996_212_637_1;

/// Whether rotation keys `a` and `b` are close enough for nlerp (most segments are, and need
/// no [`slerp_fill`]): computed in the conversion loop, on values still in registers.
#[inline(always)]
fn nlerp_is_close<const N: usize>(a: [f32; N], b: [f32; N]) -> bool {
    dot64(a, b).abs() >= COS_MAX
}

/// Inserts slerp keys strictly between `(t0, a)` and `(t1, b)`, keys too far apart for nlerp
/// (the caller checked: `!nlerp_is_close(a, b)`).
#[inline(never)]
fn slerp_fill<const N: usize>(
    t0: f64,
    t1: f64,
    a: [f32; N],
    b: [f32; N],
    out: &mut Vec<(f64, [f32; N])>,
) {
    let dot = dot64(a, b);
    let phi = dot.abs().min(1.0).acos();
    let n = ((phi / NLERP_MAX_ANGLE).ceil() as usize).clamp(2, MAX_SUBDIVISIONS);
    let arc = Slerp::new(a.map(f64::from), b.map(f64::from));
    for i in 1..n {
        let s = i as f64 / n as f64;
        let q = arc.at(s);
        let mut v = [0f32; N];
        for c in 0..N {
            v[c] = q[c] as f32;
        }
        push_between(out, t0 + (t1 - t0) * s, t1, v);
    }
}

/// Pushes an inserted key only when its time lies strictly between the last key and `next`
/// (rounding on very close keys could otherwise repeat a time).
fn push_between<const N: usize>(out: &mut Vec<(f64, [f32; N])>, t: f64, next: f64, v: [f32; N]) {
    if out.last().is_none_or(|l| l.0 < t) && t < next {
        out.push((t, v));
    }
}

/// Shortest-path slerp in `f64` (the glTF reference), normalized.
pub fn slerp64<const N: usize>(a: [f64; N], b: [f64; N], s: f64) -> [f64; N] {
    Slerp::new(a, b).at(s)
}

/// The arc [`slerp64`] follows from `a` to `b`, set up once for many points on it.
struct Slerp<const N: usize> {
    a: [f64; N],
    /// `b`, negated when that is the shorter way.
    b: [f64; N],
    /// The angle and its sine; `None` when the keys are so close that lerp is used.
    arc: Option<(f64, f64)>,
}

impl<const N: usize> Slerp<N> {
    fn new(a: [f64; N], mut b: [f64; N]) -> Self {
        let mut dot: f64 = (0..N).map(|i| a[i] * b[i]).sum();
        if dot < 0.0 {
            b = b.map(|x| -x);
            dot = -dot;
        }
        #[allow(clippy::neg_cmp_op_on_partial_ord)] // NaN takes the arc, as it always did
        let arc = (!(dot > 0.999_999)).then(|| {
            let th = dot.min(1.0).acos();
            (th, th.sin())
        });
        Slerp { a, b, arc }
    }

    fn at(&self, s: f64) -> [f64; N] {
        let (wa, wb) = match self.arc {
            None => (1.0 - s, s),
            Some((th, sin)) => (((1.0 - s) * th).sin() / sin, (s * th).sin() / sin),
        };
        let r: [f64; N] = std::array::from_fn(|i| wa * self.a[i] + wb * self.b[i]);
        let l = r.iter().map(|x| x * x).sum::<f64>().sqrt();
        if l > 0.0 { r.map(|x| x / l) } else { self.a }
    }
}

/// One cubic Hermite segment in `f64`, parameter `s ∈ [0, 1]`.
struct Segment<const N: usize, K> {
    p0: [f64; N],
    m0: [f64; N],
    p1: [f64; N],
    m1: [f64; N],
    _k: std::marker::PhantomData<K>,
}

impl<const N: usize, K: Kind<N>> Segment<N, K> {
    /// The glTF value at `s` (normalized for rotations).
    fn at(&self, s: f64) -> [f64; N] {
        let s2 = s * s;
        let s3 = s2 * s;
        let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
        let h10 = s3 - 2.0 * s2 + s;
        let h01 = -2.0 * s3 + 3.0 * s2;
        let h11 = s3 - s2;
        let mut r: [f64; N] = std::array::from_fn(|i| {
            h00 * self.p0[i] + h10 * self.m0[i] + h01 * self.p1[i] + h11 * self.m1[i]
        });
        if K::QUAT {
            let l = r.iter().map(|x| x * x).sum::<f64>().sqrt();
            if l > 1e-12 && l.is_finite() {
                r = r.map(|x| x / l);
            }
        }
        r
    }

    /// How many linear pieces reproduce the segment within the target, and whether the
    /// limit was enough.
    fn subdivisions(&self) -> (usize, bool) {
        // Linear interpolation error ≤ max|p''| h² / 8; p'' is linear in s, so its largest
        // magnitude is at an end.
        let mut m = 0.0f64;
        for i in 0..N {
            let (p0, m0, p1, m1) = (self.p0[i], self.m0[i], self.p1[i], self.m1[i]);
            let d0 = -6.0 * p0 - 4.0 * m0 + 6.0 * p1 - 2.0 * m1;
            let d1 = 6.0 * p0 + 2.0 * m0 - 6.0 * p1 + 4.0 * m1;
            m = m.max(d0.abs()).max(d1.abs());
        }
        let est = (m / (8.0 * TARGET)).sqrt().ceil();
        let mut n = if est.is_finite() {
            (est as usize).clamp(1, MAX_SUBDIVISIONS)
        } else {
            MAX_SUBDIVISIONS
        };
        loop {
            if self.fits(n) {
                return (n, true);
            }
            if n >= MAX_SUBDIVISIONS {
                return (n, false);
            }
            n = (n * 2).min(MAX_SUBDIVISIONS);
        }
    }

    /// Whether `n` equal pieces interpolated the way Sinew does stay within the target.
    fn fits(&self, n: usize) -> bool {
        let keys: Vec<[f32; N]> = (0..=n)
            .map(|i| self.at(i as f64 / n as f64).map(|x| x as f32))
            .collect();
        for i in 0..n {
            for f in [0.25, 0.5, 0.75] {
                let s = (i as f64 + f) / n as f64;
                let truth = self.at(s);
                let (a, b) = (keys[i], keys[i + 1]);
                let close = |got: [f64; N]| {
                    (0..N).all(|c| (got[c] - truth[c]).abs() <= TARGET.max(truth[c].abs() * 2e-6))
                };
                if K::QUAT {
                    let q = crate::anim::nlerp(as_quat(a), as_quat(b), f as f32);
                    let nl = Vec4::from(q).to_array();
                    let mut got = [0.0; N];
                    for c in 0..N {
                        got[c] = f64::from(nl[c.min(3)]);
                    }
                    if !close(got) || !close(slerp64(a.map(f64::from), b.map(f64::from), f)) {
                        return false;
                    }
                } else {
                    let mut got = [0.0; N];
                    for c in 0..N {
                        got[c] = f64::from(a[c]) * (1.0 - f) + f64::from(b[c]) * f;
                    }
                    if !close(got) {
                        return false;
                    }
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lin(times: &[f64], vals: &[[f32; 3]], interp: Interp) -> Vec<(f64, [f32; 3])> {
        let mut out = Vec::new();
        convert::<3, Linear>(times, interp, |k, _| vals[k], &mut out, usize::MAX)
            .expect("converts");
        out
    }

    #[test]
    fn step_holds_until_the_next_key() {
        let out = lin(&[0.0, 1.0], &[[0.0; 3], [1.0; 3]], Interp::Step);
        assert_eq!(
            out,
            vec![
                (0.0, [0.0; 3]),
                (1.0f64.next_down(), [0.0; 3]),
                (1.0, [1.0; 3])
            ]
        );
        // Equal neighbours need no hold key.
        let out = lin(&[0.0, 1.0], &[[2.0; 3], [2.0; 3]], Interp::Step);
        assert_eq!(out, vec![(0.0, [2.0; 3])]);
    }

    #[test]
    fn cos_of_the_largest_nlerp_angle() {
        let c: f64 = 0.990_215_996_212_637_1;
        assert!((c - NLERP_MAX_ANGLE.cos()).abs() < 1e-15);
    }

    #[test]
    fn constant_channels_keep_one_key() {
        let v = |x: f32| [x; 3];
        let out = lin(
            &[0.0, 1.0, 2.0, 3.0],
            &[v(1.0), v(1.0), v(2.0), v(2.0)],
            Interp::Linear,
        );
        assert_eq!(out.len(), 4, "changing channels keep every key");
        let out = lin(&[0.0, 1.0, 2.0], &[v(1.0); 3], Interp::Linear);
        assert_eq!(out, vec![(0.0, v(1.0))]);
    }

    #[test]
    fn linear_is_unchanged() {
        let out = lin(
            &[0.0, 0.5, 1.0],
            &[[0.0; 3], [1.0; 3], [3.0; 3]],
            Interp::Linear,
        );
        assert_eq!(out.len(), 3);
    }

    #[test]
    fn slerp_keys_fill_wide_rotation_segments() {
        let a = [0.0, 0.0, 0.0, 1.0f32];
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let b = [0.0, h, 0.0, h]; // 90° about Y: 4-D angle π/4
        let mut out = Vec::new();
        convert::<4, Rotation>(&[0.0, 1.0], Interp::Linear, |k, _| [a, b][k], &mut out, 100)
            .expect("converts");
        let n = ((std::f64::consts::FRAC_PI_4 / NLERP_MAX_ANGLE).ceil()) as usize;
        assert_eq!(out.len(), n + 1);
        // Nlerp between the new keys stays within tolerance of the true slerp.
        for w in out.windows(2) {
            let ((t0, q0), (t1, q1)) = (w[0], w[1]);
            for f in [0.25f32, 0.5, 0.75] {
                let got = crate::anim::nlerp(as_quat(q0), as_quat(q1), f);
                let t = t0 + (t1 - t0) * f64::from(f);
                let truth = slerp64(a.map(f64::from), b.map(f64::from), t);
                for (g, w) in got.to_array().iter().zip(truth) {
                    assert!((f64::from(*g) - w).abs() < TOLERANCE);
                }
            }
        }
    }

    #[test]
    fn cubic_resamples_within_tolerance() {
        // p(s) = s³ style curve: p0 = 0, p1 = 1, steep tangents.
        let vals = |k: usize, p: Part| -> [f32; 3] {
            match (k, p) {
                (0, Part::Value) => [0.0; 3],
                (1, Part::Value) => [1.0; 3],
                (_, Part::In) => [3.0; 3],
                _ => [0.0; 3],
            }
        };
        let mut out = Vec::new();
        let r = convert::<3, Linear>(&[0.0, 1.0], Interp::Cubic, vals, &mut out, 1000).expect("ok");
        assert!(!r.inexact);
        assert!(out.len() > 10);
        let seg = Segment::<3, Linear> {
            p0: [0.0; 3],
            m0: [0.0; 3],
            p1: [1.0; 3],
            m1: [3.0; 3],
            _k: std::marker::PhantomData,
        };
        for i in 0..=1000 {
            let t = i as f64 / 1000.0;
            let j = out.partition_point(|k| k.0 <= t).clamp(1, out.len() - 1);
            let ((t0, a), (t1, b)) = (out[j - 1], out[j]);
            let s = ((t - t0) / (t1 - t0)).clamp(0.0, 1.0);
            let got = f64::from(a[0]) * (1.0 - s) + f64::from(b[0]) * s;
            assert!((got - seg.at(t)[0]).abs() < TOLERANCE, "t = {t}");
        }
    }

    #[test]
    fn bad_values_are_errors() {
        let mut out = Vec::new();
        assert!(
            convert::<3, Linear>(&[0.0], Interp::Linear, |_, _| [f32::NAN; 3], &mut out, 9)
                .is_err()
        );
        let mut out = Vec::new();
        assert!(
            convert::<4, Rotation>(&[0.0], Interp::Linear, |_, _| [0.0; 4], &mut out, 9).is_err()
        );
        // The key limit stops a channel early.
        let mut out = Vec::new();
        let r = convert::<3, Linear>(
            &[0.0, 1.0, 2.0],
            Interp::Linear,
            |k, _| [k as f32; 3],
            &mut out,
            2,
        );
        assert_eq!(r, Err(Fail::Limit));
    }
}
