//! Sampling, blending, override and additive layers on the SoA path, each with the scalar
//! path's semantics (and falling back to it when the SoA data does not fit the pose).

use glam::{Quat, Vec3, Vec4};

use super::lanes::{self, Lanes};
use super::pose;
use super::{BOUND, Group, Kind, LANES, SoaClip};
use crate::anim::blend::{BoundClip, unit};
use crate::anim::pose::Pose;
use crate::anim::sample::{KeyPos, nlerp};
use crate::anim::scalar;

/// Per clip slot, the key segment each of its time lists was last found in (playback mostly
/// moves forward, so the next sample usually finds its key in the same or the next segment
/// without a search). Reused across frames: allocates only when a slot or a clip's list count
/// is seen for the first time.
#[derive(Clone, Debug, Default)]
pub struct Cursors {
    slots: Vec<Vec<u32>>,
}

impl Cursors {
    /// The cursors of clip slot `slot` playing `clip`.
    pub fn for_clip(&mut self, slot: usize, clip: &SoaClip) -> &mut [u32] {
        if self.slots.len() <= slot {
            self.slots.resize_with(slot + 1, Vec::new);
        }
        let h = &mut self.slots[slot];
        if h.len() < clip.time_lists() {
            h.resize(clip.time_lists(), 0);
        }
        &mut h[..]
    }
}

impl SoaClip {
    /// A group's values at a key position (the key itself when clamped to one key).
    #[inline(always)]
    pub(super) fn values_at(&self, g: &Group, pos: KeyPos) -> Lanes {
        let a = self.block(g, pos.i0);
        if pos.i0 == pos.i1 {
            return a;
        }
        let b = self.block(g, pos.i1);
        let s = Vec4::splat(pos.s);
        match g.kind {
            Kind::Rotation => lanes::nlerp(&a, &b, s),
            _ => lanes::lerp(&a, &b, s, 3),
        }
    }

    /// Key `k` of a group.
    #[inline(always)]
    pub(super) fn block(&self, g: &Group, k: usize) -> Lanes {
        let w = g.kind.width();
        let at = g.start as usize + k * g.stride as usize;
        let v = &self.values[at..at + w];
        [v[0], v[1], v[2], if w == 4 { v[3] } else { Vec4::ZERO }]
    }
}

/// The pose's values of a group's bones.
#[inline(always)]
pub(super) fn gather(out: &Pose, g: &Group) -> Lanes {
    // A full group's bones are its quad's four, side by side: one transpose.
    if g.live == 0xF {
        let at = g.quad as usize * LANES;
        let got = match g.kind {
            Kind::Translation => quad_at(&out.translations, at).map(pose::vec3_lanes),
            Kind::Rotation => quad_at(&out.rotations, at).map(pose::quat_lanes),
            Kind::Scale => quad_at(&out.scales, at).map(pose::vec3_lanes),
        };
        if let Some(v) = got {
            return v;
        }
    }
    let b = g.bones.map(|b| b as usize);
    match g.kind {
        Kind::Translation => lanes::from_vec3(b.map(|i| out.translations[i])),
        Kind::Rotation => lanes::from_quat(b.map(|i| out.rotations[i])),
        Kind::Scale => lanes::from_vec3(b.map(|i| out.scales[i])),
    }
}

/// Writes the live lanes (`live(l)`) of `v` into the pose.
#[inline(always)]
pub(super) fn scatter(out: &mut Pose, g: &Group, v: &Lanes, live: impl Fn(usize) -> bool) {
    // A full quad with every lane written (the common case): one transposed array.
    if g.live == 0xF && (0..LANES).all(&live) && put_quad(out, g.kind, g.quad, v) {
        return;
    }
    let [x, y, z, w] = v.map(|c| c.to_array());
    let put = |l: usize| {
        let b = g.bones[l] as usize;
        match g.kind {
            Kind::Translation => out.translations[b] = Vec3::new(x[l], y[l], z[l]),
            Kind::Rotation => out.rotations[b] = Quat::from_xyzw(x[l], y[l], z[l], w[l]),
            Kind::Scale => out.scales[b] = Vec3::new(x[l], y[l], z[l]),
        }
    };
    (0..LANES)
        .filter(|&l| g.is_live(l) && live(l))
        .for_each(put);
}

/// Writes the four lanes of `v` (channel `kind`) into the bones of quad `quad`; false (nothing
/// written) past the pose's end.
#[inline(always)]
fn put_quad(out: &mut Pose, kind: Kind, quad: u32, v: &Lanes) -> bool {
    let at = quad as usize * LANES;
    match kind {
        Kind::Translation => quad_of(&mut out.translations, at).map(|d| *d = pose::vec3s(v)),
        Kind::Rotation => quad_of(&mut out.rotations, at).map(|d| *d = pose::quats(v)),
        Kind::Scale => quad_of(&mut out.scales, at).map(|d| *d = pose::vec3s(v)),
    }
    .is_some()
}

/// Writes the live lanes of `v` (a group of kind `kind`, a constant where this is inlined)
/// into the pose.
#[inline(always)]
fn put(out: &mut Pose, kind: Kind, g: &Group, v: &Lanes) {
    if g.live == 0xF && put_quad(out, kind, g.quad, v) {
        return;
    }
    scatter(out, g, v, |_| true);
}

/// The four bones of `v` from `at` as an array (`None` past the end), to read.
#[inline(always)]
fn quad_at<T>(v: &[T], at: usize) -> Option<&[T; LANES]> {
    v.get(at..at + LANES)?.try_into().ok()
}

/// The four bones of `v` from `at` as an array (`None` past the end).
#[inline(always)]
fn quad_of<T>(v: &mut [T], at: usize) -> Option<&mut [T; LANES]> {
    v.get_mut(at..at + LANES)?.try_into().ok()
}

/// Clip time as sampling and override layers read it: NaN → 0, clamped to the duration.
pub(super) fn clamp_time(c: &BoundClip, t: f64) -> f64 {
    if t.is_nan() || c.clip.duration <= 0.0 {
        0.0
    } else {
        t.clamp(0.0, c.clip.duration)
    }
}

/// Samples `c` at clip time `t` into `out` (as [`crate::anim::ClipBinding::sample`]).
pub fn sample(c: &BoundClip, t: f64, hints: &mut [u32], out: &mut Pose) {
    let soa = c.soa();
    if !soa.fits(out.len()) {
        return scalar::sample(c, t, out);
    }
    soa.each_value(clamp_time(c, t), hints, |kind, g, v| put(out, kind, g, v));
    for &b in &soa.bound {
        out.animated[b as usize] = true;
    }
}

/// One running-mean step (as [`scalar::blend_step`]; `touched` is its scratch).
pub fn blend_step(
    touched: &mut Vec<bool>,
    rest: (&[Vec3], &[Quat], &[Vec3]),
    c: &BoundClip,
    t: f64,
    s: f32,
    hints: &mut [u32],
    out: &mut Pose,
) {
    let soa = c.soa();
    let n = out.len();
    if !soa.fits(n) || rest.0.len() < n || rest.1.len() < n || rest.2.len() < n {
        return scalar::blend_step(touched, rest, c, t, s, out);
    }
    let sv = Vec4::splat(s);
    soa.each_pos(t, hints, |g, pos| {
        let v = soa.values_at(g, pos);
        let cur = gather(out, g);
        let r = match g.kind {
            Kind::Rotation => lanes::nlerp(&cur, &v, sv),
            _ => lanes::lerp(&cur, &v, sv, 3),
        };
        scatter(out, g, &r, |_| true);
    });
    // Channels the clip lacks on its bones, and animated bones it does not bind, move toward
    // the rest pose (which stands for the clip there).
    let (rest_t, rest_r, rest_s) = rest;
    for b in 0..n {
        let cov = soa.covered.get(b).copied().unwrap_or(0);
        if cov & BOUND == 0 && !out.animated[b] {
            continue;
        }
        if cov & Kind::Translation.bit() == 0 {
            out.translations[b] = out.translations[b] * (1.0 - s) + rest_t[b] * s;
        }
        if cov & Kind::Scale.bit() == 0 {
            out.scales[b] = out.scales[b] * (1.0 - s) + rest_s[b] * s;
        }
        if cov & Kind::Rotation.bit() == 0 {
            out.rotations[b] = nlerp(out.rotations[b], rest_r[b], s);
        }
        if cov & BOUND != 0 {
            out.animated[b] = true;
        }
    }
}

/// Whether a bone with layer weight `w` is blended: the scalar path skips it exactly when
/// `w <= 0` (so a NaN weight is not skipped).
#[inline(always)]
fn kept(w: f32) -> bool {
    !matches!(
        w.partial_cmp(&0.0),
        Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
    )
}

/// Bits of the live lanes (bits of `live`) whose weight in `s` is kept (not `<= 0`; NaN is).
#[inline(always)]
pub(super) fn kept_bits(s: Vec4, live: u8) -> u32 {
    !s.cmple(Vec4::ZERO).bitmask() & u32::from(live)
}

/// Lane weights of a group: the layer weight times the mask's weight of each lane's bone.
#[inline(always)]
fn lane_weights(g: &Group, w: f32, mask: Option<&[f32]>) -> [f32; 4] {
    std::array::from_fn(|l| match mask {
        Some(m) => w * m.get(g.bones[l] as usize).copied().unwrap_or(0.0),
        None => w,
    })
}

/// `Override` layer straight from the clip (as [`scalar::apply_override_clip`]).
pub fn apply_override(
    base: &mut Pose,
    c: &BoundClip,
    t: f64,
    mask: Option<&[f32]>,
    weight: f32,
    hints: &mut [u32],
) {
    let w = unit(weight);
    if w <= 0.0 {
        return;
    }
    let soa = c.soa();
    if !soa.fits(base.len()) {
        return scalar::apply_override_clip(base, c, t, mask, weight);
    }
    soa.each_pos(clamp_time(c, t), hints, |g, pos| {
        let wl = lane_weights(g, w, mask);
        // The scalar path skips a bone exactly when its weight is `<= 0` (NaN is not).
        let live = |l: usize| g.is_live(l) && kept(wl[l]);
        if !(0..LANES).any(live) {
            return;
        }
        let v = soa.values_at(g, pos);
        let cur = gather(base, g);
        let s = Vec4::from_array(wl);
        let r = match g.kind {
            Kind::Rotation => lanes::nlerp(&cur, &v, s),
            _ => lanes::lerp(&cur, &v, s, 3),
        };
        scatter(base, g, &r, live);
        // Every bound bone has a channel in some group, so this marks exactly the bound bones
        // with a weight the scalar path does not skip.
        for l in (0..LANES).filter(|&l| live(l)) {
            base.animated[g.bones[l] as usize] = true;
        }
    });
}

/// Additive difference from the clip's first frame (as [`scalar::add_difference`]); sampled
/// four bones at a time, composed per bone with glam's own quaternion math.
pub fn add_difference(
    c: &BoundClip,
    t: f64,
    w: f32,
    out: &mut Pose,
    mask: Option<&[f32]>,
    hints: &mut [u32],
) {
    let w = unit(w);
    if w <= 0.0 {
        return;
    }
    let soa = c.soa();
    if !soa.fits(out.len()) {
        return scalar::add_difference(c, t, w, out, mask);
    }
    soa.each_pos(t, hints, |g, pos| {
        let wl = lane_weights(g, w, mask);
        add_group(out, soa, g, pos, wl);
    });
}

/// The additive difference of one group at `pos` with lane weights `wl`, onto the lanes whose
/// bone `out` marks animated and whose weight is kept.
#[inline(always)]
pub(super) fn add_group(out: &mut Pose, soa: &SoaClip, g: &Group, pos: KeyPos, wl: [f32; 4]) {
    let live: [bool; 4] =
        std::array::from_fn(|l| g.is_live(l) && out.animated[g.bones[l] as usize] && kept(wl[l]));
    if !live.contains(&true) {
        return;
    }
    let v = soa.values_at(g, pos);
    let v0 = soa.block(g, 0);
    for l in (0..LANES).filter(|&l| live[l]) {
        let b = g.bones[l] as usize;
        match g.kind {
            Kind::Translation => {
                let r = scalar::add_vec(
                    out.translations[b],
                    lanes::vec3(&v, l),
                    lanes::vec3(&v0, l),
                    wl[l],
                );
                out.translations[b] = r;
            }
            Kind::Scale => {
                let r = scalar::add_vec(
                    out.scales[b],
                    lanes::vec3(&v, l),
                    lanes::vec3(&v0, l),
                    wl[l],
                );
                out.scales[b] = r;
            }
            Kind::Rotation => {
                let r = scalar::add_rot(
                    out.rotations[b],
                    lanes::quat(&v, l),
                    lanes::quat(&v0, l),
                    wl[l],
                );
                out.rotations[b] = r;
            }
        }
    }
}
