//! Pose evaluation: the skeleton, each slot bound to it, per layer its mask and blend mode,
//! and reused buffers. After each update the base motion is evaluated (a crossfade blends both
//! sides), the layers are stacked in order, and with root motion the root bone is held.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::Animator;
use super::playback::{Motion, Playback};
use crate::anim::soa::LanePose;
use crate::anim::state_machine::Machine;
use crate::anim::{BoneMask, BoundClip, Pose, Skeleton, TreeEvaluator, hold_root, lerp_pose};

/// Pose evaluation of an animator: the skeleton, each slot bound to it, per layer its mask and
/// blend mode, the root bone, and reused pose buffers (no allocation once sized).
#[derive(Debug, Clone)]
pub struct PoseRig {
    /// The skeleton poses are evaluated on.
    pub skeleton: Arc<Skeleton>,
    /// Per slot index, the clip bound to the skeleton; shared by every animator with the same
    /// clips, skeleton and bone map (bound once per scene, not once per animator).
    pub clips: Arc<[BoundClip]>,
    /// Per layer name: mask (`None` = every bone) and whether it is additive.
    pub layers: BTreeMap<Arc<str>, (Option<BoneMask>, bool)>,
    /// Root bone held in place when root motion is on (with yaw).
    pub root: Option<(usize, bool)>,
    eval: TreeEvaluator,
    pose: Pose,
    scratch: Pose,
}

impl PoseRig {
    /// A rig over `skeleton` with `clips` bound per slot index (a `Vec` or a shared slice).
    pub fn new(
        skeleton: Arc<Skeleton>,
        clips: impl Into<Arc<[BoundClip]>>,
        layers: BTreeMap<Arc<str>, (Option<BoneMask>, bool)>,
        root: Option<(usize, bool)>,
    ) -> PoseRig {
        let pose = Pose::rest(&skeleton);
        PoseRig {
            scratch: pose.clone(),
            pose,
            skeleton,
            clips: clips.into(),
            layers,
            root,
            eval: TreeEvaluator::new(),
        }
    }

    /// The last evaluated local pose.
    pub fn pose(&self) -> &Pose {
        &self.pose
    }
}

/// Clip time `t` wrapped into `[0, duration)` (0 for a degenerate clip or non-finite time).
fn wrapped(t: f64, c: &BoundClip) -> f64 {
    let d = c.clip.duration;
    if d.is_finite() && d > 0.0 && t.is_finite() {
        t.rem_euclid(d)
    } else {
        0.0
    }
}

/// Evaluates `motion` of `m` into `out` (a single clip at its own time, a blend at its phase).
fn evaluate_motion(
    eval: &mut TreeEvaluator,
    lanes: &mut LanePose,
    skeleton: &Skeleton,
    clips: &[BoundClip],
    m: &Machine,
    motion: &Motion,
    out: &mut Pose,
) {
    let looping = m.states.get(motion.state).is_none_or(|s| s.looping);
    let len = match motion.leaves.as_slice() {
        [only] => clips.get(only.clip).map_or(0.0, |c| c.clip.duration),
        _ => 1.0,
    };
    eval.evaluate_with(
        lanes,
        skeleton,
        &motion.leaves,
        clips,
        motion.phase(len),
        looping,
        out,
    );
}

impl Animator {
    /// Evaluates the pose into the rig's reused buffers, blending in `lanes` (scratch shared by
    /// every animator the animation step updates).
    pub(super) fn evaluate_pose(&mut self, lanes: &mut LanePose) {
        let hold = self.has_root_motion();
        let Some(rig) = self.rig.as_deref_mut() else {
            return;
        };
        let PoseRig {
            skeleton,
            clips,
            layers,
            root,
            eval,
            pose,
            scratch,
        } = rig;
        match &self.base {
            Some(b) => {
                evaluate_motion(eval, lanes, skeleton, clips, &b.machine, &b.current, pose);
                if let Some(f) = &b.fade {
                    evaluate_motion(eval, lanes, skeleton, clips, &b.machine, &f.from, scratch);
                    // `f.elapsed` already includes this update.
                    lerp_pose(scratch, pose, f.weight_in(f.elapsed()) as f32);
                    std::mem::swap(pose, scratch);
                }
            }
            None => pose.set_rest(skeleton),
        }
        for l in &self.layers {
            let (mask, additive) = layers
                .get(&l.name)
                .map_or((None, false), |(m, a)| (m.as_ref(), *a));
            let w = l.weight as f32;
            let mut apply = |p: &Playback, w: f32| {
                let Some(c) = clips.get(p.slot) else {
                    return;
                };
                let t = wrapped(p.time(), c);
                eval.apply_layer(pose, p.slot, c, t, mask, w, additive);
            };
            let fade_in = match &l.fade {
                Some(f) if f.duration > 0.0 => {
                    apply(&f.from, w);
                    f.weight_in(f.elapsed()) as f32
                }
                _ => 1.0,
            };
            if let Some(p) = &l.clip {
                apply(p, w * fade_in);
            }
        }
        if hold && let Some((bone, yaw)) = *root {
            hold_root(pose, skeleton, bone, yaw);
        }
    }
}
