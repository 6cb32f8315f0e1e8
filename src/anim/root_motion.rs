//! Root motion: the root bone's horizontal (X, Z) translation and optional yaw over a playback
//! interval, taken off the bone and handed to the entity.
//!
//! Conventions (checked against the test oracle `tests/support/root_oracle.rs`; compiled clips
//! with the per-key yaw precomputed so each query is O(log keys)): playback times are unwrapped `f64`; a
//! looping clip adds the full-cycle delta once per whole cycle crossed (O(1) for any number of
//! wraps); a non-looping clip clamps to `[0, D]`; reverse playback gives the exact negative of
//! the forward delta; deltas are in the root bone's parent space, summed in clip space (a cycle's
//! translation is not rotated by yaw from earlier cycles); yaw is the heading about +Y in radians,
//! unwrapped key to key. Degenerate input (NaN/infinite times, an overflowing sum) gives a zero
//! delta, never NaN.

use super::pose::Pose;
use super::sample::{Channel, ClipBinding, CompiledClip};
use super::skeleton::Skeleton;
use crate::animseq::wrap_angle;
use glam::{DVec3, Quat, Vec3};

/// What the animator does with root motion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RootMotionMode {
    /// The bone moves as authored.
    #[default]
    Off,
    /// Taken off the bone and applied to the entity's transform.
    Transform,
    /// Taken off the bone and published for the game's own controller.
    Extract,
}

/// Root motion over one interval.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct RootDelta {
    /// Horizontal translation (Y always 0), root bone parent space.
    pub translation: DVec3,
    /// Turn about +Y in radians (0 unless yaw is carried).
    pub yaw: f64,
}

impl RootDelta {
    /// No motion.
    pub const ZERO: RootDelta = RootDelta {
        translation: DVec3::ZERO,
        yaw: 0.0,
    };

    /// Adds `w × d` (the weighted sum across blends and crossfades). A non-finite result leaves
    /// `self` unchanged.
    pub fn add_weighted(&mut self, d: &RootDelta, w: f32) {
        let w = f64::from(w);
        let t = self.translation + d.translation * w;
        let y = self.yaw + d.yaw * w;
        if t.is_finite() && y.is_finite() {
            self.translation = t;
            self.yaw = y;
        }
    }
}

/// The root bone: `name` matched across `:`/`_`/case, or when empty the first bone (in authored
/// order) whose name contains `hips` or `pelvis`, ignoring case.
pub fn find_root_bone(skel: &Skeleton, name: &str) -> Option<usize> {
    if !name.trim().is_empty() {
        return skel.find(name);
    }
    skel.bones()
        .iter()
        .enumerate()
        .filter(|(_, b)| {
            let l = b.name.to_lowercase();
            l.contains("hips") || l.contains("pelvis")
        })
        .min_by_key(|(_, b)| b.authored)
        .map(|(i, _)| i)
}

/// Heading of a unit quaternion about +Y (`atan2` of the rotated +Z's horizontal part; the
/// one definition is `animseq`'s, which clip-level root motion uses too).
pub fn yaw_of(q: Quat) -> f64 {
    crate::animseq::yaw_of([q.x, q.y, q.z, q.w].map(f64::from))
}

/// One clip's root track, prepared for O(1)-in-wraps interval queries.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RootClip {
    duration: f64,
    translation: Channel<Vec3>,
    rotation: Channel<Quat>,
    /// Unwrapped yaw at each rotation key, relative to the first.
    key_yaw: Vec<f64>,
    yaw: bool,
    /// Full-cycle delta `F(D) − F(0)`.
    cycle: (f64, f64, f64),
}

impl RootClip {
    /// Prepares `clip`'s track for skeleton bone `bone` (through `binding`); `yaw` carries the
    /// turn too. A bone the clip does not animate gives zero motion.
    pub fn new(clip: &CompiledClip, binding: &ClipBinding, bone: usize, yaw: bool) -> RootClip {
        let track = binding
            .pairs
            .iter()
            .find(|p| p.0 as usize == bone)
            .and_then(|p| clip.tracks.get(p.1 as usize));
        let (translation, rotation) = match track {
            Some(t) => (t.translation.clone(), t.rotation.clone()),
            None => (Channel::default(), Channel::default()),
        };
        let mut key_yaw = Vec::with_capacity(rotation.values.len());
        let mut acc = 0.0;
        let mut prev = rotation.values.first().map_or(0.0, |q| yaw_of(*q));
        for q in &rotation.values {
            let y = yaw_of(*q);
            acc += wrap_angle(y - prev);
            prev = y;
            key_yaw.push(acc);
        }
        let mut rc = RootClip {
            duration: clip.duration,
            translation,
            rotation,
            key_yaw,
            yaw,
            cycle: (0.0, 0.0, 0.0),
        };
        let a = rc.at(0.0);
        let b = rc.at(rc.duration);
        rc.cycle = (b.0 - a.0, b.1 - a.1, b.2 - a.2);
        rc
    }

    /// `(x, z, unwrapped yaw)` at clip time `c`.
    fn at(&self, c: f64) -> (f64, f64, f64) {
        let (x, z) = match self.translation.sample(c) {
            Some(v) => (f64::from(v.x), f64::from(v.z)),
            None => (0.0, 0.0),
        };
        let yaw = if self.yaw && !self.rotation.times.is_empty() {
            let i = self.rotation.times.partition_point(|&k| k <= c);
            let k = i.saturating_sub(1);
            let base = self.key_yaw.get(k).copied().unwrap_or(0.0);
            let key = self.rotation.values.get(k).map_or(0.0, |q| yaw_of(*q));
            match self.rotation.sample(c) {
                Some(q) => base + wrap_angle(yaw_of(q) - key),
                None => base,
            }
        } else {
            0.0
        };
        (x, z, yaw)
    }

    /// The root motion from unwrapped playback time `from` to `to`.
    pub fn delta(&self, from: f64, to: f64, looping: bool) -> RootDelta {
        let d = self.duration;
        if !(from.is_finite() && to.is_finite() && d > 0.0) {
            return RootDelta::ZERO;
        }
        if to < from {
            let f = self.delta(to, from, looping);
            return RootDelta {
                translation: -f.translation,
                yaw: -f.yaw,
            };
        }
        let (dx, dz, dy) = if looping {
            let (k0, c0) = split(from, d);
            let (k1, c1) = split(to, d);
            let whole = k1 - k0;
            let a = self.at(c0);
            let b = self.at(c1);
            (
                b.0 - a.0 + self.cycle.0 * whole,
                b.1 - a.1 + self.cycle.1 * whole,
                b.2 - a.2 + self.cycle.2 * whole,
            )
        } else {
            let a = self.at(from.clamp(0.0, d));
            let b = self.at(to.clamp(0.0, d));
            (b.0 - a.0, b.1 - a.1, b.2 - a.2)
        };
        if dx.is_finite() && dz.is_finite() && dy.is_finite() {
            RootDelta {
                translation: DVec3::new(dx, 0.0, dz),
                yaw: dy,
            }
        } else {
            RootDelta::ZERO
        }
    }
}

/// Unwrapped time → (cycle index, clip time in `[0, D)`).
fn split(u: f64, d: f64) -> (f64, f64) {
    let k = (u / d).floor();
    let c = (u - k * d).max(0.0);
    if c >= d { (k + 1.0, 0.0) } else { (k, c) }
}

/// Takes root motion off the bone: holds bone `bone` at its rest X and Z (keeping its vertical
/// motion) and, with `yaw`, turns it back to its rest heading about +Y.
pub fn hold_root(pose: &mut Pose, skel: &Skeleton, bone: usize, yaw: bool) {
    let Some(b) = skel.bones().get(bone) else {
        return;
    };
    if bone >= pose.len() {
        return;
    }
    let t = &mut pose.translations[bone];
    t.x = b.rest.translation.x;
    t.z = b.rest.translation.z;
    if yaw {
        let q = pose.rotations[bone];
        let turn = (yaw_of(b.rest.rotation) - yaw_of(q)) as f32;
        let r = (Quat::from_rotation_y(turn) * q).normalize();
        if r.is_finite() {
            pose.rotations[bone] = r;
        }
    }
}
