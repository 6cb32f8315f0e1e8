//! Bone entities driven by an animator's pose: a game's joint entity (a skinned mesh's joint, a
//! socket) carries [`SinewBone`] naming the animator entity and the skeleton bone, and
//! [`write_bone_poses`] sets its `Transform` to that bone's local pose on every frame Sinew
//! ticks — the copy every game would otherwise write itself, done in storage order.
//!
//! Architecture invariant: this module reads poses and writes bone `Transform`s, nothing else;
//! it never evaluates a pose (that is `anim`, run by the `animate` step).

use bevy_ecs::prelude::*;
use bevy_math::{Quat, Vec3};
use bevy_reflect::Reflect;
use bevy_transform::components::Transform;

use crate::anim::Pose;
use crate::runtime::Animator;

/// On a bone entity: after each Sinew tick its `Transform` is bone `bone` of `animator`'s
/// local pose (translation, rotation and scale, relative to the bone's parent: the entity
/// should be a child of its parent bone's entity for the hierarchy to mean what the skeleton
/// means). Nothing is written while `animator` is not an [`Animator`] with a pose rig, or when
/// `bone` is not a bone of its skeleton ([`SinewBone::named`] looks a bone up by name).
#[derive(Component, Reflect, Debug, Clone, Copy, PartialEq, Eq)]
#[reflect(Component)]
pub struct SinewBone {
    /// The entity whose [`Animator`] poses this bone.
    pub animator: Entity,
    /// The bone's index in the animator's skeleton.
    pub bone: u32,
}

impl SinewBone {
    /// Bone `bone` (an index in the skeleton) of `animator`'s pose.
    pub fn new(animator: Entity, bone: u32) -> SinewBone {
        SinewBone { animator, bone }
    }

    /// The bone called `name` (matched as the skeleton matches names, `Skeleton::find`) of the
    /// [`Animator`] `a` on entity `animator`; `None` when `a` has no skeleton or no such bone.
    pub fn named(animator: Entity, a: &Animator, name: &str) -> Option<SinewBone> {
        let bone = a.rig()?.skeleton.find(name)?;
        Some(SinewBone::new(animator, u32::try_from(bone).ok()?))
    }
}

/// Writes each [`SinewBone`] entity's `Transform` from its animator's pose (part of
/// [`SinewSystems`](super::SinewSystems), after root motion, on frames where Sinew ticks).
/// Bones are visited in storage order (the order the ECS keeps them, as `bevy_animation`
/// visits its targets) and the animator is looked up once per run of bones that share it, so
/// a character's joints spawned together cost one lookup.
pub fn write_bone_poses(
    animators: Query<&Animator>,
    mut bones: Query<(&SinewBone, &mut Transform)>,
) {
    // `PLACEHOLDER` with no pose: a bone naming it is skipped like any other non-animator.
    let mut current: (Entity, Option<&Pose>) = (Entity::PLACEHOLDER, None);
    for (b, mut t) in &mut bones {
        if b.animator != current.0 {
            let pose = animators.get(b.animator).ok().and_then(Animator::pose);
            current = (b.animator, pose);
        }
        if let Some(local) = current.1.and_then(|p| local_transform(p, b.bone as usize)) {
            *t = local;
        }
    }
}

/// Bone `i` of `pose` as a `Transform` (`None` past the pose's end).
#[inline]
fn local_transform(pose: &Pose, i: usize) -> Option<Transform> {
    let translation = pose.translations.get(i)?;
    let rotation = pose.rotations.get(i)?;
    let scale = pose.scales.get(i)?;
    Some(Transform {
        translation: Vec3::from_array(translation.to_array()),
        rotation: Quat::from_array(rotation.to_array()),
        scale: Vec3::from_array(scale.to_array()),
    })
}
