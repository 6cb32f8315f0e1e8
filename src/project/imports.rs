//! Imported models in a project (`docs/import.md` "Validation"): the generated manifests under
//! the assets folder's `animations/generated/`, read and checked once per load — missing source
//! models (`E0716`), stale fingerprints (`E0717`), missing generated files (`E0718`), two
//! manifests claiming one model UUID (`E0719`), unreadable manifests (`E0722`) — and the two
//! questions the loader asks of them: which clip an `Imported(model, clip)` reference names
//! (`E0720` when none) and which skeleton signature a generated clip or skeleton has (`E0721`
//! is the loader's pass that compares them).

use std::collections::{BTreeMap, BTreeSet};

use super::{InputKind, Layout, ProjectPath, ReadError, Source};
use crate::diag::{Diagnostic, Severity};
use crate::import::diagnostics::{
    E_BAD_MANIFEST, E_DUPLICATE_MANIFEST, E_GENERATED_MISSING, E_SOURCE_MISSING, E_STALE,
    E_UNRESOLVED_CLIP, W_SOURCE_OUTSIDE,
};
use crate::import::identity::fingerprint;
use crate::import::{AnimManifest, ClipEntry, SkeletonEntry};
use crate::ron_span::{closest, short};
use crate::scene::{ImportedClip, SceneDef, normalize_asset_path};

/// Where `sinew import` writes, relative to the assets folder: one folder per model.
pub const GENERATED: &str = "animations/generated";

/// The most clip labels an `E0720` lists.
const MAX_LISTED: usize = 16;

/// One manifest folder.
#[derive(Debug)]
struct Model {
    /// `animations/generated/<folder>`, relative to the assets folder.
    dir: String,
    /// The display name of its `manifest.ron`.
    file: String,
    /// The manifest, when it reads and is valid.
    manifest: Option<AnimManifest>,
    /// Its own diagnostics (everything but `E0719`).
    diagnostics: Vec<Diagnostic>,
}

/// The generated manifests of an assets folder and their diagnostics.
#[derive(Debug, Default)]
pub struct Imports {
    /// In folder-name order.
    models: Vec<Model>,
    /// `E0719`: the manifests (indexes into `models`) claiming one UUID, and the diagnostic.
    duplicates: Vec<(Vec<usize>, Diagnostic)>,
}

/// A manifest's problem that makes it unusable, as the `E0722` message.
fn validate(m: &AnimManifest) -> Result<(), String> {
    if uuid::Uuid::parse_str(&m.model).is_err() {
        return Err(format!("`model` `{}` is not a UUID", short(&m.model)));
    }
    let files = m
        .skeletons
        .iter()
        .map(|s| &s.file)
        .chain(m.clips.iter().map(|c| &c.file));
    for f in files {
        let plain = !f.is_empty()
            && f != "."
            && f != ".."
            && f != "manifest.ron"
            && !f.contains(['/', '\\', '\0']);
        if !plain {
            return Err(format!(
                "file `{}` is not a file name in the manifest's folder",
                short(f)
            ));
        }
    }
    Ok(())
}

impl Imports {
    /// Reads every `animations/generated/*/manifest.ron` under `layout.assets` from `source`
    /// and checks each against the files it names. A folder without `manifest.ron` is not an
    /// import and is skipped.
    pub fn read(source: &dyn Source, layout: &Layout) -> Imports {
        let mut out = Imports::default();
        let Ok(generated) = layout.assets.join(GENERATED) else {
            return out;
        };
        for name in source.folders(&generated) {
            let Ok(dir) = generated.join(&name) else {
                continue;
            };
            if let Some(model) = read_model(source, layout, &dir) {
                out.models.push(model);
            }
        }
        out.find_duplicates();
        out
    }

    fn find_duplicates(&mut self) {
        let mut by_uuid: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (i, m) in self.models.iter().enumerate() {
            if let Some(man) = &m.manifest {
                by_uuid.entry(man.model.as_str()).or_default().push(i);
            }
        }
        let mut dups = Vec::new();
        for (uuid, members) in by_uuid.into_iter().filter(|(_, v)| v.len() > 1) {
            let files: Vec<&str> = members
                .iter()
                .map(|&i| self.models[i].file.as_str())
                .collect();
            for &i in &members[1..] {
                let d = Diagnostic::error(
                    E_DUPLICATE_MANIFEST,
                    format!(
                        "manifests {} and {} both claim model `{uuid}`",
                        files[0], self.models[i].file
                    ),
                )
                .in_file(self.models[i].file.clone())
                .with_note(
                    "a model has one manifest folder, named after its UUID; delete the copied \
                     folder (a clip reference by UUID would be ambiguous)",
                );
                dups.push((members.clone(), d));
            }
        }
        self.duplicates = dups;
    }

    /// Every diagnostic of every manifest, in folder order.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        self.select(|_| true)
    }

    /// The diagnostics of the manifests in `used` (indexes from [`Imports::used_by`]), or of
    /// the others when `used` is `false`.
    pub(super) fn diagnostics_of(&self, set: &BTreeSet<usize>, used: bool) -> Vec<Diagnostic> {
        self.select(|i| set.contains(&i) == used)
    }

    fn select(&self, keep: impl Fn(usize) -> bool) -> Vec<Diagnostic> {
        let mut out: Vec<Diagnostic> = self
            .models
            .iter()
            .enumerate()
            .filter(|(i, _)| keep(*i))
            .flat_map(|(_, m)| m.diagnostics.iter().cloned())
            .collect();
        out.extend(
            self.duplicates
                .iter()
                .filter(|(members, _)| members.iter().any(|&i| keep(i)))
                .map(|(_, d)| d.clone()),
        );
        out
    }

    /// The manifests claiming model `uuid`.
    fn claiming(&self, uuid: &str) -> Vec<usize> {
        self.models
            .iter()
            .enumerate()
            .filter(|(_, m)| m.manifest.as_ref().is_some_and(|m| m.model == uuid))
            .map(|(i, _)| i)
            .collect()
    }

    /// The manifest whose folder holds the assets-relative file `path`, and its file name.
    fn holding(&self, path: &str) -> Option<(usize, &AnimManifest, String)> {
        let norm = normalize_asset_path(path);
        let (dir, name) = norm.rsplit_once('/')?;
        let i = self.models.iter().position(|m| m.dir == dir)?;
        Some((i, self.models[i].manifest.as_ref()?, name.to_string()))
    }

    /// The manifests a scene uses: named by an `Imported` reference, or holding a clip or
    /// skeleton an animator names.
    pub(super) fn used_by(&self, def: &SceneDef) -> BTreeSet<usize> {
        let mut used = BTreeSet::new();
        for an in def.entities.iter().filter_map(|e| e.animator.as_ref()) {
            let paths = an.clips.iter().map(|(_, p)| p).chain(an.skeleton.as_ref());
            for p in paths {
                if let Some(imp) = &p.imported {
                    used.extend(self.claiming(&imp.model));
                }
                if let Some((i, _, _)) = self.holding(&p.path) {
                    used.insert(i);
                }
            }
        }
        used
    }

    /// The generated clip at assets-relative `path`, with its model's UUID.
    pub(super) fn clip_at(&self, path: &str) -> Option<(&ClipEntry, &str)> {
        let (_, m, name) = self.holding(path)?;
        let c = m.clips.iter().find(|c| c.file == name)?;
        Some((c, m.model.as_str()))
    }

    /// The generated skeleton at assets-relative `path`.
    pub(super) fn skeleton_at(&self, path: &str) -> Option<&SkeletonEntry> {
        let (_, m, name) = self.holding(path)?;
        m.skeletons.iter().find(|s| s.file == name)
    }

    /// The clip file (relative to the assets folder) `r` names, or an unlocated `E0720`.
    pub(super) fn resolve(&self, r: &ImportedClip) -> Result<String, Box<Diagnostic>> {
        let unresolved = |m: String| Diagnostic::error(E_UNRESOLVED_CLIP, m);
        let clip = short(&r.clip);
        let claiming = self.claiming(&r.model);
        let i = match claiming.as_slice() {
            [] => {
                return Err(unresolved(format!(
                    "no imported model has UUID `{}` (clip `{clip}`)",
                    r.model
                ))
                .with_note(format!(
                    "`sinew import MODEL` writes `{GENERATED}/<uuid>/manifest.ron` under the \
                     assets folder; the UUID is the one in the model's `.meta` sidecar"
                ))
                .into());
            }
            [i] => *i,
            many => {
                let files: Vec<&str> = many.iter().map(|&i| self.models[i].file.as_str()).collect();
                return Err(unresolved(format!(
                    "model `{}` is claimed by {} manifests ({}): clip `{clip}` is ambiguous",
                    r.model,
                    many.len(),
                    files.join(", ")
                ))
                .into());
            }
        };
        let model = &self.models[i];
        let Some(m) = &model.manifest else {
            return Err(unresolved(format!("model `{}` has no valid manifest", r.model)).into());
        };
        if let Some(c) = m.clips.iter().find(|c| c.label == r.clip || c.id == r.clip) {
            return Ok(format!("{}/{}", model.dir, c.file));
        }
        if m.clips.is_empty() {
            let mut d = unresolved(format!(
                "model `{}` (`{}`) has no clips, so no clip `{clip}`",
                r.model,
                short(&m.source)
            ));
            match m.diagnostics.iter().find(|d| d.severity == Severity::Error) {
                Some(e) if !m.runtime_supported => {
                    d = d.with_note(format!(
                        "its import was blocked: {}: {}; fix the model and re-import it",
                        e.code,
                        short(&e.message)
                    ));
                }
                _ => d = d.with_note("the model has no animations"),
            }
            return Err(d.into());
        }
        let labels: Vec<&str> = m.clips.iter().map(|c| c.label.as_str()).collect();
        let mut d = unresolved(format!(
            "model `{}` (`{}`) has no clip `{clip}`",
            r.model,
            short(&m.source)
        ));
        if let Some(k) = closest(&r.clip, &labels) {
            d = d.with_note(format!("did you mean `{}`?", short(k)));
        } else if labels.len() <= MAX_LISTED {
            let list: Vec<String> = labels.iter().map(|l| format!("`{}`", short(l))).collect();
            d = d.with_note(format!("its clips: {}", list.join(", ")));
        }
        Err(d
            .with_note("a clip is named by its label (the glTF animation's name) or its ID")
            .into())
    }
}

/// One manifest folder `dir` (under the assets folder's [`GENERATED`]) read and checked against
/// the files it names; `None` when the folder has no `manifest.ron` (it is not an import).
fn read_model(source: &dyn Source, layout: &Layout, dir: &ProjectPath) -> Option<Model> {
    let path = dir.join("manifest.ron").ok()?;
    let file = source.display(&path);
    let bad = |message: String| {
        Diagnostic::error(E_BAD_MANIFEST, message)
            .in_file(file.clone())
            .with_note("`sinew import` writes this file; re-import the model to regenerate it")
    };
    let rel = dir
        .strip_prefix(&layout.assets)
        .map_or_else(|| dir.as_str().to_string(), str::to_string);
    let mut model = Model {
        dir: rel,
        file: file.clone(),
        manifest: None,
        diagnostics: Vec::new(),
    };
    let parsed = match source.read(&path, InputKind::Manifest) {
        Err(ReadError::Input(e)) if e.is_not_found() => return None,
        Err(e) => Err(format!("cannot read the manifest: {e}")),
        Ok(bytes) => String::from_utf8(bytes)
            .map_err(|_| "the manifest is not UTF-8".to_string())
            .and_then(|t| AnimManifest::from_ron(&t))
            .and_then(|m| validate(&m).map(|()| m))
            .map_err(|e| format!("invalid manifest: {e}")),
    };
    match parsed {
        Ok(m) => {
            model.diagnostics = check_files(source, layout, dir, &file, &m);
            model.manifest = Some(m);
        }
        Err(message) => model.diagnostics.push(bad(message)),
    }
    Some(model)
}

/// The manifest in folder `dir` and its diagnostics, checked as [`Imports::read`] checks each
/// (unreadable or invalid `E0722`, missing generated files `E0718`, a missing or changed source
/// model `E0716`/`E0717`, a source outside the project `W0711`); the model's source path is
/// relative to `layout.assets`. `None` when `dir` has no `manifest.ron`.
pub fn check_manifest(
    source: &dyn Source,
    layout: &Layout,
    dir: &ProjectPath,
) -> Option<(Option<AnimManifest>, Vec<Diagnostic>)> {
    read_model(source, layout, dir).map(|m| (m.manifest, m.diagnostics))
}

/// The diagnostics of one valid manifest against the project: its listed files, its source.
fn check_files(
    source: &dyn Source,
    layout: &Layout,
    dir: &ProjectPath,
    file: &str,
    m: &AnimManifest,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let present: BTreeSet<String> = source.list(dir).into_iter().collect();
    let reimport = |shown: &str| format!("re-import the model: `sinew import {shown}`");
    let src_path = layout.resolve(&layout.assets, &m.source).ok();
    let shown = src_path
        .as_ref()
        .map_or_else(|| short(&m.source), |p| source.display(p));
    let listed = m
        .skeletons
        .iter()
        .map(|s| (&s.file, "skeleton", &s.name))
        .chain(m.clips.iter().map(|c| (&c.file, "clip", &c.label)));
    for (f, what, name) in listed {
        if !present.contains(f.as_str()) {
            out.push(
                Diagnostic::error(
                    E_GENERATED_MISSING,
                    format!(
                        "{what} file `{}` ({what} `{}`) of model `{}` is missing",
                        short(f),
                        short(name),
                        m.model
                    ),
                )
                .in_file(file)
                .with_note(reimport(&shown)),
            );
        }
    }
    let Some(p) = src_path else {
        out.push(outside(file, m));
        return out;
    };
    match source.read(&p, InputKind::Model) {
        Ok(bytes) if fingerprint(&bytes) != m.fingerprint => out.push(
            Diagnostic::error(
                E_STALE,
                format!(
                    "source model {shown} of model `{}` changed since it was imported (stale: \
                     re-import)",
                    m.model
                ),
            )
            .in_file(file)
            .with_note(reimport(&shown)),
        ),
        Ok(_) => {}
        Err(ReadError::Outside) => out.push(outside(file, m)),
        Err(e) => out.push(
            Diagnostic::error(
                E_SOURCE_MISSING,
                format!(
                    "source model {shown} of model `{}` cannot be read: {e}",
                    m.model
                ),
            )
            .in_file(file)
            .with_note(
                "if the model moved, import it from where it is now (its `.meta` sidecar keeps \
                 its UUID); if it is gone, delete this manifest's folder",
            ),
        ),
    }
    out
}

/// `W0711`: the source path leads outside the project.
fn outside(file: &str, m: &AnimManifest) -> Diagnostic {
    Diagnostic::warning(
        W_SOURCE_OUTSIDE,
        format!(
            "source model `{}` of model `{}` lies outside the project: its fingerprint is not \
             checked",
            short(&m.source),
            m.model
        ),
    )
    .in_file(file)
    .with_note("keep models inside the project folder so stale imports are found")
}
