//! The pure animation core: skeletons (`.skel`), SoA poses, clip sampling, blend weights and
//! pose blending, bone masks and layers, root motion and retargeting. No I/O, no ECS: values in,
//! values out (see `docs/animation.md`). The runtime drives these per animator per update.

pub mod blend;
pub mod mask;
pub mod pose;
pub mod retarget;
pub mod root_motion;
pub mod sample;
pub mod skeleton;
pub mod state_machine;

pub use blend::{
    Blend1D, BlendError, BlendSpace2D, BlendTree, BoundClip, Leaf, SyncedPlayer, TreeError,
    TreeEvaluator, add_difference, heaviest_leaf, lerp_pose,
};
pub use mask::{BoneMask, LayerBlend, apply_additive, apply_override, apply_override_clip};
pub use pose::{Pose, Transform};
pub use retarget::{hips_scale, leg_length, retarget_clip};
pub use root_motion::{RootClip, RootDelta, RootMotionMode, find_root_bone, hold_root};
pub use sample::{Channel, ClipBinding, CompiledClip, CompiledTrack, nlerp};
pub use skeleton::{
    Bone, BoneDef, LoadedSkeleton, Skeleton, SkeletonError, load_skeleton, load_skeleton_bytes,
    names_match, normalize_bone_name,
};

/// `.skel` file is not valid UTF-8.
pub const E_SKEL_NOT_UTF8: &str = "E0500";
/// `.skel` RON syntax error.
pub const E_SKEL_SYNTAX: &str = "E0501";
/// `.skel` value of the wrong type or shape (also unknown/duplicate/missing fields).
pub const E_SKEL_SHAPE: &str = "E0502";
/// A bone with an empty name.
pub const E_SKEL_EMPTY_NAME: &str = "E0503";
/// Two bones whose names match (exactly, or across `:`/`_`/case).
pub const E_SKEL_DUPLICATE_BONE: &str = "E0504";
/// A parent that names no bone of the skeleton.
pub const E_SKEL_UNKNOWN_PARENT: &str = "E0505";
/// Bones whose parents form a cycle (a bone its own ancestor).
pub const E_SKEL_CYCLE: &str = "E0506";
/// A rest transform value that is not finite.
pub const E_SKEL_NON_FINITE: &str = "E0507";
/// A rest rotation of zero length (cannot be normalized).
pub const E_SKEL_ZERO_ROTATION: &str = "E0508";
/// A skeleton without bones, or with more than [`skeleton::MAX_BONES`].
pub const E_SKEL_BONE_COUNT: &str = "E0509";
/// A clip track names a bone the skeleton lacks (warning; the track is ignored).
pub const W_TRACK_UNBOUND: &str = "W0510";
/// A mask entry names a bone the skeleton lacks (warning; the entry is ignored).
pub const W_MASK_UNKNOWN_BONE: &str = "W0511";
/// Blend entries invalid: none, non-finite, 1D thresholds out of order, 2D coincident points.
pub const E_BLEND_ENTRIES: &str = "E0512";
/// A blend tree nested deeper than [`blend::MAX_TREE_DEPTH`] or naming a missing clip.
pub const E_BLEND_TREE: &str = "E0513";
/// Retargeting could not bake a clip (too many keys) or found no usable hips.
pub const E_RETARGET: &str = "E0514";

/// `.animsm` file is not UTF-8 or has a RON syntax error.
pub const E_SM_SYNTAX: &str = "E0515";
/// `.animsm` value of the wrong type or shape (unknown/duplicate/missing fields, bad variant).
pub const E_SM_SHAPE: &str = "E0516";
/// A state name (entry, transition `from`/`to`) that names no state, or no states at all.
pub const E_SM_UNKNOWN_STATE: &str = "E0517";
/// A motion names a clip slot the animator lacks.
pub const E_SM_UNKNOWN_CLIP: &str = "E0518";
/// Two states share a name.
pub const E_SM_DUPLICATE_STATE: &str = "E0519";
/// A transition that can never fire (self, `Finished` on a looping state, contradictory
/// conditions, shadowed by an earlier unconditional transition).
pub const E_SM_NEVER_FIRES: &str = "E0520";
/// Warning: a parameter the scene sets is read by no condition or blend tree.
pub const W_SM_UNREAD_PARAM: &str = "W0521";
/// A number out of range (non-finite speed/threshold/value, negative blend, too many items).
pub const E_SM_BAD_VALUE: &str = "E0522";

/// Every code this module emits, for documentation and tests.
pub const CODES: &[&str] = &[
    E_SKEL_NOT_UTF8,
    E_SKEL_SYNTAX,
    E_SKEL_SHAPE,
    E_SKEL_EMPTY_NAME,
    E_SKEL_DUPLICATE_BONE,
    E_SKEL_UNKNOWN_PARENT,
    E_SKEL_CYCLE,
    E_SKEL_NON_FINITE,
    E_SKEL_ZERO_ROTATION,
    E_SKEL_BONE_COUNT,
    W_TRACK_UNBOUND,
    W_MASK_UNKNOWN_BONE,
    E_BLEND_ENTRIES,
    E_BLEND_TREE,
    E_RETARGET,
    E_SM_SYNTAX,
    E_SM_SHAPE,
    E_SM_UNKNOWN_STATE,
    E_SM_UNKNOWN_CLIP,
    E_SM_DUPLICATE_STATE,
    E_SM_NEVER_FIRES,
    W_SM_UNREAD_PARAM,
    E_SM_BAD_VALUE,
];

#[cfg(test)]
mod tests {
    #[test]
    fn codes_are_unique_and_in_range() {
        let mut v = super::CODES.to_vec();
        v.sort_unstable();
        v.dedup();
        assert_eq!(v.len(), super::CODES.len());
        assert!(
            v.iter()
                .all(|c| (c.starts_with("E05") || c.starts_with("W05")) && c.len() == 5)
        );
    }
}
