//! Source skeletons: the rig each clip was keyed on, for retargeting (`runtime.md`
//! "Retargeting").

use std::collections::BTreeMap;
use std::sync::Arc;

use super::clip_fields::{ClipFieldMemo, skeleton_field};
use super::load::quoted;
use super::{InputKind, Layout, ProjectPath, Source};
use crate::anim::{Skeleton, load_skeleton_bytes};
use crate::animseq::AnimSeq;
use crate::diag::{Diagnostic, SourceFile};
use crate::scene::{SceneAssets, W_SCENE_SOURCE_SKELETON, normalize_asset_path, resolve_beside};

/// The most `.skel` files discovery reads in one folder.
pub const MAX_DISCOVERY_SKELETONS: usize = 1024;

/// A `.skel` file found by discovery: its assets-relative path and the skeleton if it loads.
type FoundSkeleton = (String, Option<Arc<Skeleton>>);

/// Resolves and loads the source skeletons of a scene's clips, caching per clip, per folder
/// and per skeleton:
///
/// 1. the clip's own `skeleton` field (a path relative to the clip file's folder), if set;
/// 2. otherwise discovery: the `.skel` files in the clip's own folder (not sub- or parent
///    folders), in file-name order, at most [`MAX_DISCOVERY_SKELETONS`]; the first that loads
///    and whose `clips` list (relative to the `.skel` file) names the clip is its source. A
///    `.skel` that does not load is skipped here (`sinew check` reports it).
///
/// Paths are compared as normalized assets-relative paths ([`normalize_asset_path`]); a source
/// skeleton path that leads outside the project is never read.
#[derive(Debug, Default)]
pub(super) struct SourceSkeletons {
    /// Clip path (as written in the scene) → resolved source (`None`: none).
    clips: BTreeMap<String, Option<String>>,
    /// Folder → its `.skel` files (assets-relative path, loaded skeleton if it loads).
    folders: BTreeMap<String, Vec<FoundSkeleton>>,
    /// Source skeletons that cannot be read or load → (message, notes).
    failed: BTreeMap<String, (String, Vec<String>)>,
}

impl SourceSkeletons {
    /// The source skeleton of `clip` (assets-relative, as written in the scene; `seq` is the
    /// loaded clip), recorded in `assets.clip_sources`. A skeleton found by discovery is added
    /// to `assets.skeletons`.
    pub(super) fn resolve(
        &mut self,
        source: &dyn Source,
        layout: &Layout,
        clip: &str,
        seq: &AnimSeq,
        assets: &mut SceneAssets,
    ) -> Option<String> {
        if let Some(r) = self.clips.get(clip) {
            return r.clone();
        }
        let found = match &seq.skeleton {
            Some(s) => Some(resolve_beside(clip, s)),
            None => self.discover(source, layout, clip, assets),
        };
        self.clips.insert(clip.to_string(), found.clone());
        if let Some(f) = &found {
            assets.clip_sources.insert(clip.to_string(), f.clone());
        }
        found
    }

    fn discover(
        &mut self,
        source: &dyn Source,
        layout: &Layout,
        clip: &str,
        assets: &mut SceneAssets,
    ) -> Option<String> {
        let clip = normalize_asset_path(clip);
        let folder = clip.rsplit_once('/').map_or("", |(d, _)| d).to_string();
        let skels = self.folders.entry(folder.clone()).or_insert_with(|| {
            let Ok(dir) = layout.resolve(&layout.assets, &folder) else {
                return Vec::new();
            };
            let mut names: Vec<String> = source
                .list(&dir)
                .into_iter()
                .filter(|n| n.ends_with(".skel"))
                .collect();
            names.sort();
            names.truncate(MAX_DISCOVERY_SKELETONS);
            names
                .into_iter()
                .map(|n| {
                    let rel = if folder.is_empty() {
                        n.clone()
                    } else {
                        format!("{folder}/{n}")
                    };
                    let skel = dir.join(&n).ok().and_then(|p| {
                        let bytes = source.read(&p, InputKind::Skeleton).ok()?;
                        load_skeleton_bytes(&source.display(&p), &bytes).skeleton
                    });
                    (rel, skel.map(Arc::new))
                })
                .collect()
        });
        let (rel, skel) = skels.iter().find_map(|(rel, s)| {
            let s = s.as_ref()?;
            s.clips
                .iter()
                .any(|c| resolve_beside(rel, c) == clip)
                .then(|| (rel.clone(), s.clone()))
        })?;
        assets.skeletons.entry(rel.clone()).or_insert(skel);
        Some(rel)
    }

    /// Loads source skeleton `path` (normalized, assets-relative) into `assets.skeletons`
    /// unless it is there; `Err((message, notes))` when it leads outside the project, cannot
    /// be read or does not load.
    pub(super) fn load(
        &mut self,
        source: &dyn Source,
        layout: &Layout,
        path: &str,
        assets: &mut SceneAssets,
    ) -> Result<(), (String, Vec<String>)> {
        if assets.skeletons.contains_key(path) {
            return Ok(());
        }
        if let Some(f) = self.failed.get(path) {
            return Err(f.clone());
        }
        let result = match layout.resolve(&layout.assets, path) {
            Err(_) => Err((
                format!(
                    "source skeleton path {} leads outside the project",
                    quoted(path)
                ),
                Vec::new(),
            )),
            Ok(full) => load_source(source, &full).map(|s| {
                assets.skeletons.insert(path.to_string(), Arc::new(s));
            }),
        };
        if let Err(f) = &result {
            self.failed.insert(path.to_string(), f.clone());
        }
        result
    }
}

fn load_source(source: &dyn Source, full: &ProjectPath) -> Result<Skeleton, (String, Vec<String>)> {
    let name = source.display(full);
    let bytes = source.read(full, InputKind::Skeleton).map_err(|e| {
        (
            format!("cannot read source skeleton {name}: {e}"),
            Vec::new(),
        )
    })?;
    let loaded = load_skeleton_bytes(&name, &bytes);
    loaded.skeleton.ok_or_else(|| {
        (
            format!("source skeleton {name} does not load"),
            loaded
                .diagnostics
                .iter()
                .filter(|d| d.is_error())
                .take(3)
                .map(|d| d.one_line().to_string())
                .collect(),
        )
    })
}

/// `sinew check` of the clips `clips` (files under the assets folder of `layout`, in order):
/// each clip whose `skeleton` field names a source skeleton that leads outside the project,
/// cannot be read or does not load gets `W0563` at that field, once per clip. Clips that
/// cannot be read or parsed are left to the catalog's own diagnostics.
pub fn check_clip_skeletons(
    source: &dyn Source,
    layout: &Layout,
    clips: &[ProjectPath],
) -> Vec<Diagnostic> {
    check_clip_skeletons_with(source, layout, clips, &ClipFieldMemo::default())
}

/// [`check_clip_skeletons`], parsing again only the clips whose bytes `memo` has not seen (the
/// studio's workspace keeps one memo across its refreshes).
pub fn check_clip_skeletons_with(
    source: &dyn Source,
    layout: &Layout,
    clips: &[ProjectPath],
    memo: &ClipFieldMemo,
) -> Vec<Diagnostic> {
    let mut cache = SourceSkeletons::default();
    let mut loaded = SceneAssets::default();
    let mut diags = Vec::new();
    for f in clips {
        let Some(rel) = f.strip_prefix(&layout.assets) else {
            continue;
        };
        let Ok(bytes) = source.read(f, InputKind::Clip) else {
            continue; // the catalog scan reports unreadable clips
        };
        let Ok(text) = String::from_utf8(bytes) else {
            continue;
        };
        let Some((path, span)) = memo.skeleton_field(f, &text) else {
            continue;
        };
        let skeleton = resolve_beside(rel, &path);
        if let Err((message, notes)) = cache.load(source, layout, &skeleton, &mut loaded) {
            let src = SourceFile::new(source.display(f), text);
            let mut d = Diagnostic::warning(
                W_SCENE_SOURCE_SKELETON,
                format!("{message}; the clip plays un-retargeted on other rigs"),
            )
            .at(
                &src,
                span.or_else(|| skeleton_field(src.text()).map(|f| f.1))
                    .unwrap_or_default(),
            );
            for n in notes {
                d = d.with_note(n);
            }
            diags.push(
                d.with_note("a clip's `skeleton` path is relative to the clip file's folder"),
            );
        }
    }
    diags
}
