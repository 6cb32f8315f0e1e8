//! `sinew check` over animation assets and scenes: every `.skel` and `.animsm` on its own, and
//! every `.scene.ron` through the project loader exactly as `sinew run` loads it.

use super::Ctx;
use crate::anim::load_skeleton_bytes;
use crate::anim::state_machine as sm;
use crate::catalog::Catalog;
use crate::catalog::scan::E_UNREADABLE;
use crate::diag::{Diagnostic, SourceFile};
use crate::fsutil::{InputKind, read_input};
use crate::project::{self, FsSource, LoadError};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Whether `sinew check` treats `p` as an animation asset (`.skel`, `.animsm`, `.scene.ron`)
/// rather than a graph.
pub fn is_animation_file(p: &Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.ends_with(".skel") || name.ends_with(".animsm") || is_scene(p)
}

fn is_scene(p: &Path) -> bool {
    p.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with(".scene.ron"))
}

/// The most directory entries one walk visits.
const MAX_WALK_ENTRIES: usize = 1_000_000;

/// The regular files under `root` (or `root` itself when it is a file) that `keep` accepts, at
/// most [`MAX_WALK_ENTRIES`] entries visited; symbolic links are not followed.
fn walk(root: &Path, keep: &dyn Fn(&Path) -> bool, files: &mut BTreeSet<PathBuf>) {
    if root.is_file() {
        if keep(root) {
            files.insert(root.to_path_buf());
        }
        return;
    }
    let mut stack = vec![root.to_path_buf()];
    let mut seen = 0usize;
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for ent in rd.flatten() {
            seen += 1;
            if seen > MAX_WALK_ENTRIES {
                return;
            }
            let path = ent.path();
            let Ok(ft) = ent.file_type() else { continue };
            if ft.is_dir() {
                stack.push(path);
            } else if ft.is_file() && keep(&path) {
                files.insert(path);
            }
        }
    }
}

/// What [`check_animation_files`] found.
pub struct Checked {
    /// The sources read (for snippets).
    pub sources: Vec<SourceFile>,
    /// Their diagnostics (a file checked twice reports each problem once).
    pub diagnostics: Vec<Diagnostic>,
    /// How many scenes were checked.
    pub scenes: usize,
}

/// `sinew check` over animation assets: every `.skel`, `.animsm` and `.scene.ron` named in or
/// found under `paths`, plus the `.skel`/`.animsm` files under `assets`. Skeletons and state
/// machines are validated on their own; each scene is loaded with [`project::load_with_catalog`]
/// against `catalog` — exactly as `sinew run` loads it: every file it names read, its graphs
/// compiled, its state machines checked against its animators, its clips retargeted — so
/// `check` fails exactly when `run` would not start. Finally the source skeletons the
/// `.animseq` files under `assets` name are checked ([`project::check_clip_skeletons`]).
pub fn check_animation_files(
    ctx: &Ctx,
    paths: &[PathBuf],
    assets: &Path,
    catalog: &Catalog,
) -> Checked {
    let mut files = BTreeSet::new();
    for p in paths {
        walk(p, &is_animation_file, &mut files);
    }
    walk(
        assets,
        &|p| is_animation_file(p) && !is_scene(p),
        &mut files,
    );
    let mut out = Checked {
        sources: Vec::new(),
        diagnostics: Vec::new(),
        scenes: 0,
    };
    for f in files {
        let name = ctx.display(&f);
        let unreadable = |e: &dyn std::fmt::Display| {
            Diagnostic::error(E_UNREADABLE, format!("cannot read file: {e}")).in_file(&name)
        };
        if is_scene(&f) {
            out.scenes += 1;
            let loaded = FsSource::open(ctx.cwd.as_deref(), &f, assets)
                .map_err(|error| LoadError::Scene {
                    name: name.clone(),
                    error,
                })
                .and_then(|(source, layout)| project::load_with_catalog(&source, &layout, catalog));
            match loaded {
                Ok(l) => {
                    out.diagnostics.extend(l.diagnostics);
                    out.sources.push(l.source);
                }
                Err(LoadError::Scene { error, .. } | LoadError::Assets { error, .. }) => {
                    out.diagnostics.push(unreadable(&error));
                }
            }
            continue;
        }
        let kind = if f.extension().is_some_and(|e| e == "skel") {
            InputKind::Skeleton
        } else {
            InputKind::StateMachine
        };
        let bytes = match read_input(&f, kind) {
            Ok(b) => b,
            Err(e) => {
                out.diagnostics.push(unreadable(&e));
                continue;
            }
        };
        let src = SourceFile::new(name.clone(), String::from_utf8_lossy(&bytes).into_owned());
        if kind == InputKind::Skeleton {
            out.diagnostics
                .extend(load_skeleton_bytes(&name, &bytes).diagnostics);
        } else {
            let parsed = sm::parse_state_machine_bytes(&name, &bytes);
            out.diagnostics.extend(parsed.diagnostics);
            if let Some(d) = parsed.def {
                out.diagnostics.extend(sm::validate(&d, &src, None));
            }
        }
        out.sources.push(src);
    }
    out.diagnostics.extend(check_clip_skeletons(ctx, assets));
    out.diagnostics.extend(check_imports(ctx, assets));
    out
}

/// The diagnostics of every imported model's manifest under `assets` (`project::check_imports`).
pub fn check_imports(ctx: &Ctx, assets: &Path) -> Vec<Diagnostic> {
    match FsSource::open(ctx.cwd.as_deref(), assets, assets) {
        Ok((source, layout)) => project::check_imports(&source, &layout),
        Err(_) => Vec::new(),
    }
}

/// Every `.animseq` under `assets` whose `skeleton` field names a source skeleton that leads
/// outside the project, cannot be read or does not load: `W0563` at that field, once per clip.
pub fn check_clip_skeletons(ctx: &Ctx, assets: &Path) -> Vec<Diagnostic> {
    let mut clips = BTreeSet::new();
    walk(
        assets,
        &|p| p.extension().is_some_and(|e| e == "animseq"),
        &mut clips,
    );
    let Ok((source, layout)) = FsSource::open(ctx.cwd.as_deref(), assets, assets) else {
        return Vec::new();
    };
    let clips: Vec<_> = clips
        .iter()
        .filter_map(|c| source.project_path(c))
        .collect();
    project::check_clip_skeletons(&source, &layout, &clips)
}
