//! Root motion: per clip slot the prepared root track, the weighted sum of every playing base
//! clip's delta over its interval, and moving the entity (`Transform`) or publishing the delta
//! (`Extract`).

use glam::DVec3;

use super::Animator;
use crate::anim::{RootClip, RootDelta, RootMotionMode};
use crate::crossing::PlaybackInterval;

/// Root motion of an animator: per clip slot index, the prepared root track.
#[derive(Debug, Clone)]
pub struct RootMotion {
    /// Mode (`Off` disables).
    pub mode: RootMotionMode,
    /// Per slot (authored order of [`Animator::add_clip`]), the root track (`None`: the clip
    /// does not animate the root bone).
    pub clips: Vec<Option<RootClip>>,
}

/// Adds slot `slot`'s root delta over `i`, weighted by `w`, to `out`.
#[inline]
pub(super) fn add_root(
    root: &Option<RootMotion>,
    slot: usize,
    i: &PlaybackInterval,
    w: f32,
    out: &mut RootDelta,
) {
    let Some(r) = root else { return };
    if r.mode == RootMotionMode::Off || w <= 0.0 {
        return;
    }
    let Some(Some(rc)) = r.clips.get(slot) else {
        return;
    };
    let (from, to, looping) = match *i {
        PlaybackInterval::Start { at, to, looping } => (at, to, looping),
        PlaybackInterval::Advance { from, to, looping } => (from, to, looping),
        _ => return,
    };
    out.add_weighted(&rc.delta(from, to, looping), w);
}

impl Animator {
    /// Applies the update's summed clip-space delta: rotated by the yaw before this update
    /// into the entity's parent space (what `Extract` publishes and `Transform` applies).
    /// Non-finite results are dropped.
    pub(super) fn apply_root(&mut self, delta: RootDelta) {
        let Some(r) = self.root.as_ref().filter(|r| r.mode != RootMotionMode::Off) else {
            return; // no motion to apply (and no sin/cos per update)
        };
        if !(delta.translation.is_finite() && delta.yaw.is_finite()) {
            return;
        }
        let (s, c) = self.yaw.sin_cos();
        let t = delta.translation;
        let moved = DVec3::new(c * t.x + s * t.z, 0.0, -s * t.x + c * t.z);
        self.last_delta = RootDelta {
            translation: moved,
            yaw: delta.yaw,
        };
        if r.mode == RootMotionMode::Transform {
            let p = self.position + moved;
            let y = self.yaw + delta.yaw;
            if p.is_finite() && y.is_finite() {
                self.position = p;
                self.yaw = y;
            }
        }
    }
}
