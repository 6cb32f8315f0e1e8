//! Bone masks and layers. A mask lists bone names, each standing for its subtree; `!bone` carves
//! a subtree back out; the deepest entry on a bone's path wins (for one bone written twice, the
//! later entry wins). Names match across `:`/`_`/case; unknown names are reported
//! ([`W_MASK_UNKNOWN_BONE`], a warning) and ignored.
//!
//! Layers: `Override` replaces, by the layer weight, the masked bones the layer's clip animates
//! (bones it does not animate keep the pose below); `Additive` adds the clip's difference from
//! its own first frame, by the layer weight, to masked bones something below animates.

use super::blend::{BoundClip, unit};
use super::evaluate::add_difference;
use super::pose::Pose;
use super::sample::nlerp;
use super::skeleton::{Skeleton, short};
use super::*;
use crate::diag::Diagnostic;

/// How a layer combines with the pose below it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LayerBlend {
    /// Replaces the masked bones.
    #[default]
    Override,
    /// Adds the clip's difference from its first frame.
    Additive,
}

/// Per-bone mask weights (1 = included, 0 = excluded) for one skeleton.
#[derive(Clone, Debug, PartialEq)]
pub struct BoneMask {
    /// One weight per bone, in skeleton order.
    pub weights: Vec<f32>,
}

impl BoneMask {
    /// Every bone included (the mask of a layer without one).
    pub fn all(skel: &Skeleton) -> BoneMask {
        BoneMask {
            weights: vec![1.0; skel.len()],
        }
    }

    /// Builds a mask from entries (`"bone"` includes its subtree, `"!bone"` excludes it).
    /// Returns warnings for entries naming no bone (`context` names the layer or file).
    pub fn new(skel: &Skeleton, entries: &[&str], context: &str) -> (BoneMask, Vec<Diagnostic>) {
        let n = skel.len();
        // Per bone: the entry written on it (Some(true) include, Some(false) exclude).
        let mut own: Vec<Option<bool>> = vec![None; n];
        let mut diags = Vec::new();
        for e in entries {
            let (include, name) = match e.strip_prefix('!') {
                Some(rest) => (false, rest.trim()),
                None => (true, e.trim()),
            };
            match skel.find(name) {
                Some(b) => own[b] = Some(include),
                None => diags.push(
                    Diagnostic::warning(
                        W_MASK_UNKNOWN_BONE,
                        format!("mask entry `{}` matches no bone; ignored", short(e)),
                    )
                    .in_file(context),
                ),
            }
        }
        // Parents come first, so one pass resolves "deepest entry on the path wins".
        let mut inc = vec![false; n];
        for (i, b) in skel.bones().iter().enumerate() {
            inc[i] = match own[i] {
                Some(v) => v,
                None => b.parent.is_some_and(|p| p < i && inc[p]),
            };
        }
        (
            BoneMask {
                weights: inc.into_iter().map(|x| if x { 1.0 } else { 0.0 }).collect(),
            },
            diags,
        )
    }

    /// Whether bone `i` is included.
    pub fn contains(&self, i: usize) -> bool {
        self.weights.get(i).is_some_and(|&w| w > 0.0)
    }
}

/// `Override` layer: for every bone the layer pose animates and the mask includes, moves `base`
/// toward `layer` by `weight` (clamped to 0..1, NaN → 0). `None` mask = every bone.
pub fn apply_override(base: &mut Pose, layer: &Pose, mask: Option<&BoneMask>, weight: f32) {
    let w = unit(weight);
    if w <= 0.0 {
        return;
    }
    let n = base.len().min(layer.len());
    for i in 0..n {
        if !layer.animated[i] {
            continue;
        }
        let wi = match mask {
            Some(m) => w * m.weights.get(i).copied().unwrap_or(0.0),
            None => w,
        };
        if wi <= 0.0 {
            continue;
        }
        base.translations[i] = base.translations[i] * (1.0 - wi) + layer.translations[i] * wi;
        base.scales[i] = base.scales[i] * (1.0 - wi) + layer.scales[i] * wi;
        base.rotations[i] = nlerp(base.rotations[i], layer.rotations[i], wi);
        base.animated[i] = true;
    }
}

/// `Override` layer straight from a clip (no layer pose): for every bone `clip` animates and
/// the mask includes, moves `base` toward the clip's values at clip time `t` (clamped; NaN → 0)
/// by `weight`. Same result as sampling into a rest pose and calling [`apply_override`].
pub fn apply_override_clip(
    base: &mut Pose,
    clip: &BoundClip,
    t: f64,
    mask: Option<&BoneMask>,
    weight: f32,
) {
    let mask = mask.map(|m| m.weights.as_slice());
    super::soa::apply_override(base, clip, t, mask, weight, &mut []);
}

/// `Additive` layer: adds `clip`'s difference at clip time `t` from its first frame, scaled by
/// `weight` and the mask, to bones `base` already animates.
pub fn apply_additive(
    base: &mut Pose,
    clip: &BoundClip,
    t: f64,
    mask: Option<&BoneMask>,
    weight: f32,
) {
    add_difference(clip, t, weight, base, mask.map(|m| m.weights.as_slice()));
}
