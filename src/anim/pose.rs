//! Poses: local bone transforms stored as structure-of-arrays buffers that are reused across
//! frames (no per-frame allocation once sized), plus the local-to-model pass.

use super::skeleton::Skeleton;
use glam::{Affine3A, Quat, Vec3};

/// One local transform (translation, rotation, scale).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    /// Translation.
    pub translation: Vec3,
    /// Rotation (unit quaternion).
    pub rotation: Quat,
    /// Non-uniform scale.
    pub scale: Vec3,
}

impl Transform {
    /// The identity transform.
    pub const IDENTITY: Transform = Transform {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    /// `self ∘ child`: the child's transform expressed in this transform's parent space
    /// (scale applied component-wise before rotation, as in Bevy's `Transform::mul_transform`).
    pub fn mul(&self, child: &Transform) -> Transform {
        Transform {
            translation: self.translation + self.rotation * (self.scale * child.translation),
            rotation: (self.rotation * child.rotation).normalize(),
            scale: self.scale * child.scale,
        }
    }

    /// As an affine matrix.
    pub fn to_affine(&self) -> Affine3A {
        Affine3A::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }
}

impl Default for Transform {
    fn default() -> Transform {
        Transform::IDENTITY
    }
}

/// Local transforms of every bone, one array per channel, plus which bones an animation wrote.
///
/// Invariant: all four arrays have the same length; rotations are unit quaternions and every
/// value is finite once a pose has gone through this module's samplers and blenders.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pose {
    /// Per-bone local translation.
    pub translations: Vec<Vec3>,
    /// Per-bone local rotation.
    pub rotations: Vec<Quat>,
    /// Per-bone local scale.
    pub scales: Vec<Vec3>,
    /// Per-bone: some clip animates this bone (used by additive layers).
    pub animated: Vec<bool>,
}

impl Pose {
    /// The skeleton's rest pose (nothing animated).
    pub fn rest(skel: &Skeleton) -> Pose {
        let mut p = Pose::default();
        p.set_rest(skel);
        p
    }

    /// A pose of `n` identity bones.
    pub fn identity(n: usize) -> Pose {
        Pose {
            translations: vec![Vec3::ZERO; n],
            rotations: vec![Quat::IDENTITY; n],
            scales: vec![Vec3::ONE; n],
            animated: vec![false; n],
        }
    }

    /// Number of bones.
    pub fn len(&self) -> usize {
        self.translations.len()
    }

    /// Whether the pose has no bones.
    pub fn is_empty(&self) -> bool {
        self.translations.is_empty()
    }

    /// Resets to the skeleton's rest pose, reusing the buffers (allocates only when the bone
    /// count grows).
    pub fn set_rest(&mut self, skel: &Skeleton) {
        let n = skel.len();
        let (t, r, sc) = skel.rest_arrays();
        self.translations.clear();
        self.translations.extend_from_slice(t);
        self.rotations.clear();
        self.rotations.extend_from_slice(r);
        self.scales.clear();
        self.scales.extend_from_slice(sc);
        self.animated.clear();
        self.animated.resize(n, false);
    }

    /// Copies `other` into this pose, reusing the buffers.
    pub fn copy_from(&mut self, other: &Pose) {
        self.translations.clone_from(&other.translations);
        self.rotations.clone_from(&other.rotations);
        self.scales.clone_from(&other.scales);
        self.animated.clone_from(&other.animated);
    }

    /// Bone `i`'s local transform.
    pub fn local(&self, i: usize) -> Transform {
        Transform {
            translation: self.translations[i],
            rotation: self.rotations[i],
            scale: self.scales[i],
        }
    }

    /// Writes bone `i`'s local transform.
    pub fn set_local(&mut self, i: usize, t: Transform) {
        self.translations[i] = t.translation;
        self.rotations[i] = t.rotation;
        self.scales[i] = t.scale;
    }

    /// Local-to-model: `out[i]` becomes bone `i`'s transform in model space (parents first, so
    /// one pass). `out` is resized to the bone count (allocates only when it grows). Bones past
    /// the pose's length are ignored.
    pub fn to_model(&self, skel: &Skeleton, out: &mut Vec<Affine3A>) {
        let n = skel.len().min(self.len());
        out.clear();
        for (i, b) in skel.bones().iter().take(n).enumerate() {
            let local = self.local(i).to_affine();
            let m = match b.parent {
                Some(p) if p < out.len() => out[p] * local,
                _ => local,
            };
            out.push(m);
        }
    }

    /// Whether every value is finite and every rotation is unit length (within 1e-3).
    pub fn is_sane(&self) -> bool {
        self.translations.iter().all(|v| v.is_finite())
            && self.scales.iter().all(|v| v.is_finite())
            && self
                .rotations
                .iter()
                .all(|q| q.is_finite() && (q.length() - 1.0).abs() < 1e-3)
    }
}
