//! Bone masks resolved for one clip's lane groups (issue 30): per group, the mask weight of each
//! lane's bone as one `Vec4`, and only the groups where some lane's weight is not `<= 0` — so a
//! masked layer skips fully masked-out groups without sampling them and needs no per-lane
//! lookups in the others. Resolved once per (clip, mask) and kept in a [`GroupMask`] that
//! re-resolves only when the clip or the mask's weights change.

use std::sync::{Arc, Weak};

use glam::Vec4;

use super::ops::{add_group, clamp_time, gather, kept_bits, scatter};
use super::{Group, Kind};
use super::{LANES, SoaClip, lanes, seek};
use crate::anim::blend::{BoundClip, unit};
use crate::anim::pose::Pose;
use crate::anim::sample::KeyPos;
use crate::anim::scalar;

/// A mask resolved for one clip's groups; reused across frames (allocates only when it grows).
#[derive(Clone, Debug, Default)]
pub struct GroupMask {
    /// The clip it was resolved for. A `Weak` keeps the allocation (not the data) alive, so no
    /// other clip can take its address while this is held: the address identifies the clip.
    clip: Weak<SoaClip>,
    /// The mask weights it was resolved from (compared bit for bit).
    weights: Vec<u32>,
    /// Groups with a lane the mask does not exclude, in the clip's group order, with the mask
    /// weight of each lane's bone (0 past the mask's end and in unused lanes).
    groups: Vec<(u32, Vec4)>,
}

impl GroupMask {
    /// Resolves `mask` for `clip` unless it already is.
    pub fn resolve(&mut self, clip: &Arc<SoaClip>, mask: &[f32]) {
        let same_clip = std::ptr::eq(self.clip.as_ptr(), Arc::as_ptr(clip));
        // No early exit, so the comparison vectorizes (it runs every frame).
        let same_mask = self.weights.len() == mask.len()
            && self
                .weights
                .iter()
                .zip(mask)
                .fold(0, |d, (a, b)| d | (a ^ b.to_bits()))
                == 0;
        if same_clip && same_mask {
            return;
        }
        self.clip = Arc::downgrade(clip);
        self.weights.clear();
        self.weights.extend(mask.iter().map(|w| w.to_bits()));
        self.groups.clear();
        for (i, g) in clip.groups.iter().enumerate() {
            let m: [f32; LANES] = std::array::from_fn(|l| {
                if g.is_live(l) {
                    mask.get(g.bones[l] as usize).copied().unwrap_or(0.0)
                } else {
                    0.0
                }
            });
            // For a layer weight in (0, 1], `w·m <= 0` exactly when `m <= 0` (NaN is kept);
            // a positive `m` whose product underflows is caught per frame by `kept_bits`.
            let m = Vec4::from_array(m);
            if kept_bits(m, g.live) != 0 {
                self.groups.push((i as u32, m));
            }
        }
    }

    /// Groups kept (for tests and benches).
    pub fn kept_groups(&self) -> usize {
        self.groups.len()
    }
}

/// `Override` layer of `c` with `raw` mask weights resolved by [`GroupMask::resolve`] for `c`
/// (as [`scalar::apply_override_clip`] with that mask): only the kept groups are sampled.
/// Takes the scalar path when the pose is too short or `mask` was resolved for another clip.
pub fn apply_override_masked(
    base: &mut Pose,
    c: &BoundClip,
    t: f64,
    mask: &GroupMask,
    raw: &[f32],
    weight: f32,
    hints: &mut [u32],
) {
    let w = unit(weight);
    if w <= 0.0 {
        return;
    }
    let soa = c.soa();
    if !soa.fits(base.len()) || !std::ptr::eq(mask.clip.as_ptr(), Arc::as_ptr(c.soa_arc())) {
        return scalar::apply_override_clip(base, c, t, Some(raw), weight);
    }
    each_kept(soa, mask, clamp_time(c, t), w, hints, |g, pos, s| {
        let live = kept_bits(s, g.live);
        if live != 0 {
            blend_group(base, soa, g, pos, s, live);
        }
    });
}

/// Additive layer of `c` with `raw` mask weights resolved by [`GroupMask::resolve`] for `c`
/// (as [`scalar::add_difference`] with that mask): only the kept groups are sampled.
pub fn add_difference_masked(
    out: &mut Pose,
    c: &BoundClip,
    t: f64,
    mask: &GroupMask,
    raw: &[f32],
    weight: f32,
    hints: &mut [u32],
) {
    let w = unit(weight);
    if w <= 0.0 {
        return;
    }
    let soa = c.soa();
    if !soa.fits(out.len()) || !std::ptr::eq(mask.clip.as_ptr(), Arc::as_ptr(c.soa_arc())) {
        return scalar::add_difference(c, t, w, out, Some(raw));
    }
    each_kept(soa, mask, t, w, hints, |g, pos, s| {
        add_group(out, soa, g, pos, s.to_array());
    });
}

/// Calls `f` with every group `mask` keeps, its key position at clip time `t` (each time list
/// located once, only when a kept group uses it) and its lane weights `w · mask[bone]`.
#[inline(always)]
fn each_kept(
    soa: &SoaClip,
    mask: &GroupMask,
    t: f64,
    w: f32,
    hints: &mut [u32],
    mut f: impl FnMut(&Group, KeyPos, Vec4),
) {
    let wv = Vec4::splat(w);
    let mut at = None;
    let mut pos = KeyPos::default();
    for &(gi, m) in &mask.groups {
        let Some(g) = soa.groups.get(gi as usize) else {
            continue;
        };
        if at != Some(g.set) {
            at = Some(g.set);
            pos = match soa.times.get(g.set as usize) {
                Some(times) => seek(times, t, hints.get_mut(g.set as usize)),
                None => KeyPos::default(),
            };
        }
        // The scalar path's weight `w · mask[b]`, per lane.
        f(g, pos, wv * m);
    }
}

/// Moves the live lanes (bits of `live`) of group `g` toward the clip by `s`, marking them
/// animated.
#[inline(always)]
fn blend_group(base: &mut Pose, soa: &SoaClip, g: &Group, pos: KeyPos, s: Vec4, live: u32) {
    let v = soa.values_at(g, pos);
    let cur = gather(base, g);
    let r = match g.kind {
        Kind::Rotation => lanes::nlerp(&cur, &v, s),
        _ => lanes::lerp(&cur, &v, s, 3),
    };
    let on = |l: usize| live & (1 << l) != 0;
    scatter(base, g, &r, on);
    for l in (0..LANES).filter(|&l| on(l)) {
        base.animated[g.bones[l] as usize] = true;
    }
}

/// Per layer slot, the mask resolved for the clip it last played.
#[derive(Clone, Debug, Default)]
pub struct SlotMasks {
    slots: Vec<GroupMask>,
}

impl SlotMasks {
    /// The mask of slot `slot`, resolved for `clip`.
    pub fn resolved(&mut self, slot: usize, clip: &Arc<SoaClip>, mask: &[f32]) -> &GroupMask {
        if self.slots.len() <= slot {
            self.slots.resize_with(slot + 1, GroupMask::default);
        }
        let m = &mut self.slots[slot];
        m.resolve(clip, mask);
        m
    }
}
