//! Evaluating weighted blend-tree leaves into a pose (the running weighted mean of
//! [`super::blend`]'s module docs), layers and additive differences, on the SoA path
//! ([`super::soa`]) with per-slot key cursors; [`super::scalar`] is the same on the scalar path.

use super::blend::{BoundClip, Leaf, SyncedPlayer, unit};
use super::mask::BoneMask;
use super::pose::Pose;
use super::sample::nlerp;
use super::skeleton::Skeleton;
use super::soa::{self, Cursors, LanePose, SlotMasks};

/// Reusable scratch for evaluating trees into poses: the scalar fallback's scratch and the key
/// cursors of every clip slot (no allocation once sized).
#[derive(Clone, Debug, Default)]
pub struct TreeEvaluator {
    touched: Vec<bool>,
    /// Cursors of the tree's clips, per slot.
    tree: Cursors,
    /// Cursors of layer clips, per slot (a layer may play a slot the tree plays, elsewhere).
    layers: Cursors,
    /// Layer masks resolved for the clip of each layer slot (once per clip and mask).
    masks: SlotMasks,
    /// The pose the tree's clips are sampled and blended into, in lane groups, for
    /// [`TreeEvaluator::evaluate`] (scratch; empty while the caller gives one, `evaluate_with`).
    lanes: LanePose,
}

impl TreeEvaluator {
    /// A fresh evaluator.
    pub fn new() -> TreeEvaluator {
        TreeEvaluator::default()
    }

    /// Evaluates weighted `leaves` at shared `phase` into `out` (reset to the rest pose first).
    /// Leaves with weight ≤ 0 or naming a missing slot are skipped; base weights are
    /// renormalized; if no base leaf has weight the rest pose remains (additives still apply).
    pub fn evaluate(
        &mut self,
        skel: &Skeleton,
        leaves: &[Leaf],
        clips: &[BoundClip],
        phase: f64,
        looping: bool,
        out: &mut Pose,
    ) {
        let mut lanes = std::mem::take(&mut self.lanes);
        self.evaluate_with(&mut lanes, skel, leaves, clips, phase, looping, out);
        self.lanes = lanes;
    }

    /// [`TreeEvaluator::evaluate`] with the lane-group pose the clips are blended in given by
    /// the caller. That pose is scratch (filled from the rest pose, blended and written into
    /// `out` within the call), so one buffer serves any number of evaluators: the runtime's
    /// animation step evaluates every animator through one, which stays in cache, where a
    /// buffer per animator streamed 2.5 KB per 64-bone character through memory every frame
    /// (`docs/benchmarks.md`, issue 30). It grows to the largest skeleton and is never shrunk.
    #[allow(clippy::too_many_arguments)]
    pub fn evaluate_with(
        &mut self,
        lanes: &mut LanePose,
        skel: &Skeleton,
        leaves: &[Leaf],
        clips: &[BoundClip],
        phase: f64,
        looping: bool,
        out: &mut Pose,
    ) {
        // In lane groups when every base clip fits the skeleton (the pose is written out once,
        // after the blend); else the whole blend on the array-of-structures pose.
        let n = skel.len();
        let on_lanes = leaves
            .iter()
            .filter(|l| !l.additive && l.weight > 0.0)
            .all(|lf| clips.get(lf.clip).is_none_or(|c| soa::fits(c, n)));
        if on_lanes {
            self.evaluate_lanes(lanes, skel, leaves, clips, phase, looping);
            lanes.write_to(out);
        } else {
            out.set_rest(skel);
            for (slot, c, t, step) in base_steps(leaves, clips, phase, looping) {
                let hints = self.tree.for_clip(slot, c.soa());
                match step {
                    None => soa::sample(c, t, hints, out),
                    Some(s) => {
                        soa::blend_step(&mut self.touched, skel.rest_arrays(), c, t, s, hints, out)
                    }
                }
            }
        }
        for lf in leaves.iter().filter(|l| l.additive && l.weight > 0.0) {
            let Some(c) = clips.get(lf.clip) else {
                continue;
            };
            let t = c.clip.clip_time(SyncedPlayer::clip_time(phase, c), looping);
            let hints = self.tree.for_clip(lf.clip, c.soa());
            soa::add_difference(c, t, lf.weight, out, None, hints);
        }
    }

    /// The base leaves of [`TreeEvaluator::evaluate`] on its lane-group pose (every base clip
    /// fits the skeleton).
    fn evaluate_lanes(
        &mut self,
        lanes: &mut LanePose,
        skel: &Skeleton,
        leaves: &[Leaf],
        clips: &[BoundClip],
        phase: f64,
        looping: bool,
    ) {
        let rest = skel.rest_lanes();
        lanes.copy_from(rest);
        for (slot, c, t, step) in base_steps(leaves, clips, phase, looping) {
            let hints = self.tree.for_clip(slot, c.soa());
            match step {
                None => soa::sample_lanes(c, t, hints, lanes),
                Some(s) => soa::blend_step_lanes(rest, c, t, s, hints, lanes),
            }
        }
    }

    /// A layer playing clip slot `slot` (`c`) at clip time `t` on `pose`: additive
    /// ([`super::apply_additive`]) or override ([`super::apply_override_clip`]), with this
    /// evaluator's cursors for the slot.
    #[allow(clippy::too_many_arguments)]
    pub fn apply_layer(
        &mut self,
        pose: &mut Pose,
        slot: usize,
        c: &BoundClip,
        t: f64,
        mask: Option<&BoneMask>,
        weight: f32,
        additive: bool,
    ) {
        let hints = self.layers.for_clip(slot, c.soa());
        let mask = mask.map(|m| m.weights.as_slice());
        match mask {
            Some(m) => {
                let gm = self.masks.resolved(slot, c.soa_arc(), m);
                if additive {
                    soa::add_difference_masked(pose, c, t, gm, m, weight, hints);
                } else {
                    soa::apply_override_masked(pose, c, t, gm, m, weight, hints);
                }
            }
            None if additive => soa::add_difference(c, t, weight, pose, None, hints),
            None => soa::apply_override(pose, c, t, None, weight, hints),
        }
    }
}

/// The base leaves of a tree (not additive, weight > 0, naming a bound slot), in order, each
/// with its slot, clip, clip time at `phase` and blend step. The running weighted mean: the
/// first is sampled straight into the pose (`None`), each later one moves it toward its own
/// values by `Some(wᵢ / Σw so far)` (bones it does not animate move toward the rest pose, which
/// stands for that clip there). Both evaluation paths (lane groups and the whole-pose
/// fallback) walk the leaves through this.
fn base_steps<'a>(
    leaves: &'a [Leaf],
    clips: &'a [BoundClip],
    phase: f64,
    looping: bool,
) -> impl Iterator<Item = (usize, &'a BoundClip, f64, Option<f32>)> + 'a {
    let mut total = 0.0f32;
    leaves
        .iter()
        .filter(|l| !l.additive && l.weight > 0.0)
        .filter_map(move |lf| {
            let c = clips.get(lf.clip)?;
            let t = c.clip.clip_time(SyncedPlayer::clip_time(phase, c), looping);
            let step = if total == 0.0 {
                total = lf.weight;
                None
            } else {
                total += lf.weight;
                Some((lf.weight / total).clamp(0.0, 1.0))
            };
            Some((lf.clip, c, t, step))
        })
}

/// Adds clip `c`'s difference at clip time `t` from its own first frame, scaled by `w`, onto
/// bones `out` marks animated (and, when given, whose `mask` weight is positive, scaled by it):
/// translation and scale add `w·(v(t) − v(0))`; rotation post-multiplies the shortest-path
/// `nlerp(identity, q(0)⁻¹·q(t), w)`. Results that would not be finite leave the bone as it was.
pub fn add_difference(c: &BoundClip, t: f64, w: f32, out: &mut Pose, mask: Option<&[f32]>) {
    soa::add_difference(c, t, w, out, mask, &mut []);
}

/// Blends `b` into `a` by `t` (clamped, NaN → 0): `a = lerp(a, b, t)` per bone, rotations by
/// shortest-path nlerp; `animated` becomes the union of bones either side animates with
/// nonzero weight.
pub fn lerp_pose(a: &mut Pose, b: &Pose, t: f32) {
    let t = unit(t);
    let n = a.len().min(b.len());
    for i in 0..n {
        a.translations[i] = a.translations[i] * (1.0 - t) + b.translations[i] * t;
        a.scales[i] = a.scales[i] * (1.0 - t) + b.scales[i] * t;
        a.rotations[i] = nlerp(a.rotations[i], b.rotations[i], t);
        a.animated[i] = (a.animated[i] && t < 1.0) || (b.animated[i] && t > 0.0);
    }
}
