//! The scalar sampling and blending path: one bone at a time, straight from each
//! [`CompiledClip`](super::CompiledClip)'s channels. It is the fallback of the SoA path
//! ([`super::soa`]) — used whole when a pose is shorter than a clip's bound bones or a binding is
//! not in bone order — and the reference the differential tests (`tests/anim_simd.rs`) hold the
//! SoA path to, bit for bit. Same results, same conventions as the module docs of
//! [`super::sample`] and [`super::blend`].

use super::blend::{BoundClip, Leaf, SyncedPlayer, unit};
use super::pose::Pose;
use super::sample::nlerp;
use super::skeleton::Skeleton;
use glam::{Quat, Vec3};

/// Samples `c` at clip time `t` into `out` (see [`super::ClipBinding::sample`]).
pub fn sample(c: &BoundClip, t: f64, out: &mut Pose) {
    c.binding.sample(&c.clip, t, out);
}

/// Moves `out` toward `c`'s values at clip time `t` by `s` (one step of the running weighted
/// mean of [`super::TreeEvaluator::evaluate`]): bones the clip binds move toward its values (a
/// channel without keys toward the rest pose), animated bones it does not bind toward the rest
/// pose. `touched` is scratch.
pub fn blend_step(
    touched: &mut Vec<bool>,
    rest: (&[Vec3], &[Quat], &[Vec3]),
    c: &BoundClip,
    t: f64,
    s: f32,
    out: &mut Pose,
) {
    let (rest_t, rest_r, rest_s) = rest;
    let n = out.len();
    touched.clear();
    touched.resize(n, false);
    let pos = c.clip.positions(t);
    for &(b, ti) in &c.binding.pairs {
        let (b, ti) = (b as usize, ti as usize);
        let Some(tr) = c.clip.tracks.get(ti) else {
            continue;
        };
        if b >= n {
            continue;
        }
        let v = tr.translation.get(&pos, t).unwrap_or(rest_t[b]);
        let q = tr.rotation.get(&pos, t).unwrap_or(rest_r[b]);
        let sc = tr.scale.get(&pos, t).unwrap_or(rest_s[b]);
        out.translations[b] = out.translations[b] * (1.0 - s) + v * s;
        out.scales[b] = out.scales[b] * (1.0 - s) + sc * s;
        out.rotations[b] = nlerp(out.rotations[b], q, s);
        out.animated[b] = true;
        touched[b] = true;
    }
    for b in 0..n {
        if out.animated[b] && !touched[b] {
            out.translations[b] = out.translations[b] * (1.0 - s) + rest_t[b] * s;
            out.scales[b] = out.scales[b] * (1.0 - s) + rest_s[b] * s;
            out.rotations[b] = nlerp(out.rotations[b], rest_r[b], s);
        }
    }
}

/// [`super::TreeEvaluator::evaluate`] on the scalar path; `touched` is scratch.
pub fn evaluate(
    touched: &mut Vec<bool>,
    skel: &Skeleton,
    leaves: &[Leaf],
    clips: &[BoundClip],
    phase: f64,
    looping: bool,
    out: &mut Pose,
) {
    out.set_rest(skel);
    let mut total = 0.0f32;
    for lf in leaves.iter().filter(|l| !l.additive && l.weight > 0.0) {
        let Some(c) = clips.get(lf.clip) else {
            continue;
        };
        let t = c.clip.clip_time(SyncedPlayer::clip_time(phase, c), looping);
        if total == 0.0 {
            total = lf.weight;
            sample(c, t, out);
            continue;
        }
        total += lf.weight;
        let s = (lf.weight / total).clamp(0.0, 1.0);
        blend_step(touched, skel.rest_arrays(), c, t, s, out);
    }
    for lf in leaves.iter().filter(|l| l.additive && l.weight > 0.0) {
        let Some(c) = clips.get(lf.clip) else {
            continue;
        };
        let t = c.clip.clip_time(SyncedPlayer::clip_time(phase, c), looping);
        add_difference(c, t, lf.weight, out, None);
    }
}

/// [`super::apply_override_clip`] on the scalar path.
pub fn apply_override_clip(
    base: &mut Pose,
    clip: &BoundClip,
    t: f64,
    mask: Option<&[f32]>,
    weight: f32,
) {
    let w = unit(weight);
    if w <= 0.0 {
        return;
    }
    let c = &clip.clip;
    let t = if t.is_nan() || c.duration <= 0.0 {
        0.0
    } else {
        t.clamp(0.0, c.duration)
    };
    let pos = c.positions(t);
    let n = base.len();
    for &(b, ti) in &clip.binding.pairs {
        let (b, ti) = (b as usize, ti as usize);
        if b >= n {
            continue;
        }
        let wi = match mask {
            Some(m) => w * m.get(b).copied().unwrap_or(0.0),
            None => w,
        };
        let Some(tr) = c.tracks.get(ti) else {
            continue;
        };
        if wi <= 0.0 {
            continue;
        }
        if let Some(v) = tr.translation.get(&pos, t) {
            base.translations[b] = base.translations[b] * (1.0 - wi) + v * wi;
        }
        if let Some(v) = tr.scale.get(&pos, t) {
            base.scales[b] = base.scales[b] * (1.0 - wi) + v * wi;
        }
        if let Some(q) = tr.rotation.get(&pos, t) {
            base.rotations[b] = nlerp(base.rotations[b], q, wi);
        }
        base.animated[b] = true;
    }
}

/// [`super::add_difference`] on the scalar path.
pub fn add_difference(c: &BoundClip, t: f64, w: f32, out: &mut Pose, mask: Option<&[f32]>) {
    let n = out.len();
    let w = unit(w);
    if w <= 0.0 {
        return;
    }
    let pos = c.clip.positions(t);
    for &(b, ti) in &c.binding.pairs {
        let (b, ti) = (b as usize, ti as usize);
        let Some(tr) = c.clip.tracks.get(ti) else {
            continue;
        };
        if b >= n || !out.animated[b] {
            continue;
        }
        let wb = match mask {
            Some(m) => w * m.get(b).copied().unwrap_or(0.0),
            None => w,
        };
        if wb <= 0.0 {
            continue;
        }
        if let (Some(v), Some(v0)) = (tr.translation.get(&pos, t), tr.translation.first()) {
            out.translations[b] = add_vec(out.translations[b], v, v0, wb);
        }
        if let (Some(s), Some(s0)) = (tr.scale.get(&pos, t), tr.scale.first()) {
            out.scales[b] = add_vec(out.scales[b], s, s0, wb);
        }
        if let (Some(q), Some(q0)) = (tr.rotation.get(&pos, t), tr.rotation.first()) {
            out.rotations[b] = add_rot(out.rotations[b], q, q0, wb);
        }
    }
}

/// `base + (v − v0)·w`, or `base` when that is not finite.
#[inline]
pub(crate) fn add_vec(base: Vec3, v: Vec3, v0: Vec3, w: f32) -> Vec3 {
    let r = base + (v - v0) * w;
    if r.is_finite() { r } else { base }
}

/// `base · nlerp(identity, q0⁻¹·q, w)`, normalized, or `base` when that is not finite.
#[inline]
pub(crate) fn add_rot(base: Quat, q: Quat, q0: Quat, w: f32) -> Quat {
    let d = nlerp(Quat::IDENTITY, q0.inverse() * q, w);
    let r = (base * d).normalize();
    if r.is_finite() { r } else { base }
}
