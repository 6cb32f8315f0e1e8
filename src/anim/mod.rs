//! The pure animation core: skeletons (`.skel`), SoA poses, clip sampling, blend weights and
//! pose blending, bone masks and layers, root motion, retargeting and exact tick clocks. No I/O, no ECS: values in,
//! values out (see `docs/animation.md`). The runtime drives these per animator per update.

pub mod blend;
pub mod clock;
pub mod command;
pub mod evaluate;
pub mod mask;
pub mod pose;
pub mod preview;
pub mod retarget;
pub mod root_motion;
pub mod sample;
pub mod scalar;
pub mod skeleton;
pub mod soa;
pub mod state_machine;

pub use blend::{
    Blend1D, BlendError, BlendSpace2D, BlendTree, BoundClip, Leaf, SyncedPlayer, TreeError,
    heaviest_leaf,
};
pub use clock::TickClock;
pub use command::{AnimCommand, CommandKind, CommandSpec};
pub use evaluate::{TreeEvaluator, add_difference, lerp_pose};
pub use mask::{BoneMask, LayerBlend, apply_additive, apply_override, apply_override_clip};
pub use pose::{Pose, Transform};
pub use retarget::{hips_scale, leg_length, retarget_clip};
pub use root_motion::{RootClip, RootDelta, RootMotionMode, find_root_bone, hold_root};
pub use sample::{Channel, ClipBinding, CompiledClip, CompiledTrack, nlerp};
pub use skeleton::{
    Bone, BoneDef, LoadedSkeleton, Skeleton, SkeletonError, load_skeleton, load_skeleton_bytes,
    names_match, normalize_bone_name,
};
pub use soa::SoaClip;

pub use crate::diag::codes::anim::*;
