//! The loaded assets a scene binds to, keyed by the paths as written in the scene, and the
//! rules that pick what each clip slot plays (the clip as loaded, or its retargeted bake).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::AnimatorDef;
use crate::anim::state_machine::StateMachineDef;
use crate::anim::{BoundClip, Skeleton};
use crate::animseq::AnimSeq;
use crate::bytecode::VerifiedModule;
use crate::diag::Diagnostic;

/// The assets a scene needs, already loaded, keyed by the paths as written in the scene.
#[derive(Debug, Default, Clone)]
pub struct SceneAssets {
    /// Graph path → verified module.
    pub graphs: BTreeMap<String, Arc<VerifiedModule>>,
    /// Clip path → sequence.
    pub clips: BTreeMap<String, Arc<AnimSeq>>,
    /// Skeleton path → skeleton.
    pub skeletons: BTreeMap<String, Arc<Skeleton>>,
    /// State-machine path → parsed (and validated) state machine.
    pub machines: BTreeMap<String, Arc<StateMachineDef>>,
    /// Clip path (a key of `clips`) → the skeleton the clip was keyed on, as a normalized
    /// assets-relative path ([`normalize_asset_path`]) and a key of `skeletons` once loaded.
    /// Filled by the loader (`sinew run` resolves each clip's `skeleton` field, else `.skel`
    /// discovery beside the clip); a clip without an entry plays as it always did.
    pub clip_sources: BTreeMap<String, String>,
    /// Retargeted clips already baked (see [`bake_retargeted`]); [`spawn`] bakes any it needs
    /// that are missing.
    pub retargeted: BTreeMap<RetargetKey, Arc<AnimSeq>>,
    /// Custom event name (without `custom::`) → its payload fields in declaration order, as
    /// the scene's graphs agree on them (`compile::payload::agreed`): what a `Send` action's
    /// values are ordered by. Filled by the loader.
    pub payloads: BTreeMap<String, Vec<(String, crate::types::Type)>>,
    /// The game nodes the project declares (kind → signature), as the graphs were compiled
    /// against them: `spawn` refuses a module whose imports differ (`E0062`). Filled by the
    /// loader; `None` (assets put together by hand): the world's `runtime::GameDeclarations`,
    /// if any, are checked instead.
    pub game_nodes: Option<BTreeMap<String, crate::bytecode::Import>>,
}

/// What one retargeted clip is baked from: one per (clip, source skeleton, target skeleton,
/// `bone_map`), shared by every animator slot with the same four.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct RetargetKey {
    /// Clip path (a key of [`SceneAssets::clips`]).
    pub clip: String,
    /// Source skeleton (a key of [`SceneAssets::skeletons`], normalized).
    pub source: String,
    /// The animator's skeleton (its `skeleton` path as written, a key of `skeletons`).
    pub target: String,
    /// The animator's `bone_map` (source → target names).
    pub bone_map: BTreeMap<String, String>,
}

/// The lexical normal form of a `/`-separated path: `.` segments, empty segments and
/// `name/..` pairs removed (a leading `..` is kept, as is a leading `/`). Two paths naming one
/// file through `.`/`..` compare equal; symbolic links are not followed.
pub fn normalize_asset_path(p: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." if parts.last().is_some_and(|l| *l != "..") => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    let joined = parts.join("/");
    if p.starts_with('/') {
        format!("/{joined}")
    } else {
        joined
    }
}

/// `rel`, written inside the file at assets-relative `file`, as a normalized assets-relative
/// path (relative to `file`'s folder; an absolute `rel` stays absolute).
pub fn resolve_beside(file: &str, rel: &str) -> String {
    if rel.starts_with('/') {
        return normalize_asset_path(rel);
    }
    match normalize_asset_path(file).rsplit_once('/') {
        Some((dir, _)) => normalize_asset_path(&format!("{dir}/{rel}")),
        None => normalize_asset_path(rel),
    }
}

/// The bake clip slot `clip` of animator `a` plays, or `None` when it plays the clip as loaded:
/// the clip has no source skeleton, the animator has no skeleton, both name the same file
/// (normalized paths), or the clip or either skeleton is not loaded.
pub fn retarget_key(a: &AnimatorDef, clip: &str, assets: &SceneAssets) -> Option<RetargetKey> {
    let target = a.skeleton.as_ref()?;
    let source = assets.clip_sources.get(clip)?;
    if normalize_asset_path(&target.path) == *source
        || !assets.clips.contains_key(clip)
        || !assets.skeletons.contains_key(source)
        || !assets.skeletons.contains_key(&target.path)
    {
        return None;
    }
    Some(RetargetKey {
        clip: clip.to_string(),
        source: source.clone(),
        target: target.path.clone(),
        bone_map: a.bone_map.clone(),
    })
}

/// What one clip slot plays: the sequence, and whether it is a retargeted bake (its tracks
/// already carry target names, so it binds without `bone_map`).
#[derive(Debug, Clone)]
pub struct SlotSequence {
    /// The sequence sampled for poses and root motion.
    pub seq: Arc<AnimSeq>,
    /// `true` for a retargeted bake.
    pub retargeted: bool,
}

impl SlotSequence {
    /// Compiles the sequence and binds it to `skel`: through `bone_map` unless retargeted.
    pub fn bind(
        &self,
        skel: &Skeleton,
        bone_map: &BTreeMap<String, String>,
        slot: &str,
    ) -> (BoundClip, Vec<Diagnostic>) {
        let none = BTreeMap::new();
        let map = if self.retargeted { &none } else { bone_map };
        BoundClip::new(&self.seq, skel, map, slot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_normalize_lexically() {
        assert_eq!(normalize_asset_path("./a//b/../c.skel"), "a/c.skel");
        assert_eq!(normalize_asset_path("../x/./y"), "../x/y");
        assert_eq!(normalize_asset_path("/abs/../r"), "/r");
        assert_eq!(
            resolve_beside("sub/clip.animseq", "../rig.skel"),
            "rig.skel"
        );
        assert_eq!(resolve_beside("clip.animseq", "rigs/r.skel"), "rigs/r.skel");
        assert_eq!(resolve_beside("a/b.animseq", "/abs.skel"), "/abs.skel");
    }
}
