//! Test oracle for root motion: a straightforward extraction over an `.animseq` clip's own
//! tracks and `root_motion` block (axes, yaw), written independently of `anim::RootClip` (f64
//! slerp, a linear walk over the rotation keys for the unwrapped yaw, loop wraps by whole-cycle
//! multiples). `tests/anim_math.rs` checks `RootClip::delta` against it. Formerly
//! `animseq::root_motion_delta`; the runtime never used it (see `docs/animation.md`).

#![allow(dead_code)]

use sinew::animseq::{AnimSeq, RootMotion, Track};

/// The root bone's motion between two playback times.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct RootDelta {
    /// Translation delta, clip space, only the selected axes (others 0).
    pub translation: [f64; 3],
    /// Rotation about +Y in radians (0 unless `yaw` is selected).
    pub yaw: f64,
}

/// The root bone's rigid motion from unwrapped playback time `from` to `to`: a looping clip
/// adds the full-cycle delta per whole cycle crossed, a non-looping one clamps to `[0, D]`,
/// reverse is the exact negative. `None` without root motion, for non-finite times or an
/// unusable duration, or when the result overflows.
pub fn root_motion_delta(seq: &AnimSeq, from: f64, to: f64, looping: bool) -> Option<RootDelta> {
    let rm = seq.root_motion.as_ref()?;
    let d = seq.duration;
    if !(from.is_finite() && to.is_finite() && d.is_finite() && d > 0.0) {
        return None;
    }
    let Some(track) = seq.tracks.iter().find(|t| t.bone == rm.bone) else {
        return Some(RootDelta::default());
    };
    if to < from {
        let f = root_motion_delta(seq, to, from, looping)?;
        return Some(RootDelta {
            translation: f.translation.map(|x| -x),
            yaw: -f.yaw,
        });
    }
    let at = |c: f64| sample(track, rm, c);
    let delta = if looping {
        let (k0, c0) = split(from, d);
        let (k1, c1) = split(to, d);
        if !(k0.is_finite() && k1.is_finite()) {
            return None;
        }
        let cycle = sub(at(d), at(0.0));
        let whole = k1 - k0;
        let part = sub(at(c1), at(c0));
        (
            [0, 1, 2].map(|i| part.0[i] + cycle.0[i] * whole),
            part.1 + cycle.1 * whole,
        )
    } else {
        sub(at(to.clamp(0.0, d)), at(from.clamp(0.0, d)))
    };
    (delta.0.iter().all(|x| x.is_finite()) && delta.1.is_finite()).then_some(RootDelta {
        translation: delta.0,
        yaw: delta.1,
    })
}

type At = ([f64; 3], f64);

fn sub(a: At, b: At) -> At {
    ([0, 1, 2].map(|i| a.0[i] - b.0[i]), a.1 - b.1)
}

/// Unwrapped time `u` → (cycle index, clip time in `[0, D)`).
fn split(u: f64, d: f64) -> (f64, f64) {
    let k = (u / d).floor();
    let c = (u - k * d).max(0.0);
    if c >= d { (k + 1.0, 0.0) } else { (k, c) }
}

/// Selected translation axes and unwrapped yaw at clip time `c`.
fn sample(track: &Track, rm: &RootMotion, c: f64) -> At {
    let tr = bracket(&track.translation, c).map_or([0.0; 3], |(a, b, s)| {
        [0, 1, 2].map(|i| f64::from(a[i]) + (f64::from(b[i]) - f64::from(a[i])) * s)
    });
    let a = rm.translation;
    let pick = |on: bool, v: f64| if on { v } else { 0.0 };
    let t = [pick(a.x, tr[0]), pick(a.y, tr[1]), pick(a.z, tr[2])];
    (t, if rm.yaw { unwrapped_yaw(track, c) } else { 0.0 })
}

/// Yaw at `c` relative to the first key, summing per-segment changes wrapped into `(-π, π]`.
fn unwrapped_yaw(track: &Track, c: f64) -> f64 {
    let keys = &track.rotation;
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
    if let Some((a, b, s)) = bracket(keys, c) {
        acc += wrap_angle(yaw_of(slerp(q64(a), q64(b), s)) - prev);
    }
    acc
}

fn bracket<V: Copy>(keys: &[(f64, V)], t: f64) -> Option<(V, V, f64)> {
    let first = keys.first()?;
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

fn q64(q: [f32; 4]) -> [f64; 4] {
    normalize(q.map(f64::from))
}

fn normalize(q: [f64; 4]) -> [f64; 4] {
    let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    if n > 0.0 && n.is_finite() {
        q.map(|x| x / n)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

fn slerp(a: [f64; 4], mut b: [f64; 4], s: f64) -> [f64; 4] {
    let mut dot: f64 = (0..4).map(|i| a[i] * b[i]).sum();
    if dot < 0.0 {
        b = b.map(|x| -x);
        dot = -dot;
    }
    let (wa, wb) = if dot > 0.9995 {
        (1.0 - s, s)
    } else {
        let theta = dot.clamp(-1.0, 1.0).acos();
        let sin = theta.sin();
        (((1.0 - s) * theta).sin() / sin, (s * theta).sin() / sin)
    };
    normalize([0, 1, 2, 3].map(|i| wa * a[i] + wb * b[i]))
}

/// Heading about +Y: `atan2` of the rotated +Z's horizontal projection (0 when it vanishes).
pub fn yaw_of(q: [f64; 4]) -> f64 {
    let [x, y, z, w] = q;
    let fx = 2.0 * (x * z + w * y);
    let fz = 1.0 - 2.0 * (x * x + y * y);
    if (fx == 0.0 && fz == 0.0) || !fx.is_finite() || !fz.is_finite() {
        0.0
    } else {
        fx.atan2(fz)
    }
}

fn wrap_angle(a: f64) -> f64 {
    use std::f64::consts::{PI, TAU};
    let r = (a + PI).rem_euclid(TAU) - PI;
    if r <= -PI { r + TAU } else { r }
}
