//! The import session (`import.md`), callable by every front end (`sinew import` renders it):
//! the file-system half of model import. It expands folders, plans identities (sidecars,
//! reconciliation by fingerprint through [`crate::import::identity`], duplicate UUIDs over the
//! whole run), reads models and their external buffers, calls the pure importer and writes what
//! its sink hands out atomically (staged, committed once the import succeeded; unchanged files
//! are not rewritten), removing generated files the new manifest no longer lists. Generated
//! files go under [`GENERATED`] (the one constant, `project::GENERATED`, which the loader's
//! `project::Imports` reads back).
//!
//! The session prints nothing: what it would say goes into [`Session::notices`], in order, and
//! each model's result into [`Session::models`].

mod confine;

use super::Ctx;
use crate::diag::Diagnostic;
use crate::fsutil::{InputKind, Staged, read_input, stage, write_atomic};
use crate::import::diagnostics::{E_AMBIGUOUS_MATCH, E_DUPLICATE_UUID, E_SIDECAR, W_NOTE};
use crate::import::identity::{self, Known, Reconciled};
use crate::import::{self, AnimManifest, Identity};
use crate::project::{FsSource, ReadError, Source};
use confine::{WriteFail, confined_file, ensure_sidecar, listed_before, output_dir, outside};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use uuid::Uuid;

/// Where generated assets live, under the assets folder: the loader's constant.
pub use crate::project::GENERATED;

/// Model file extensions `import` looks for in folders.
const EXTENSIONS: &[&str] = &["gltf", "glb", "fbx"];

/// What the session would say, in order: a front end renders each (`sinew import` on standard
/// error: a diagnostic as people read it, the others as `error: …` / `warning: …`).
#[derive(Debug)]
pub enum Notice {
    /// A path a folder walk could not take.
    Diagnostic(Diagnostic),
    /// A failure of the run's I/O (the run fails).
    Error(String),
    /// Something ignored (an unreadable manifest).
    Warning(String),
}

/// What one import session did.
pub struct Session {
    /// One entry per model that got as far as an identity, in path order.
    pub models: Vec<Done>,
    /// What the session would say, in order.
    pub notices: Vec<Notice>,
    /// Whether some I/O failed (a model or folder unreadable, a file not written).
    pub io_failed: bool,
}

impl Session {
    /// Whether some model's diagnostics hold an error.
    pub fn any_error(&self) -> bool {
        self.models
            .iter()
            .any(|d| d.diagnostics.iter().any(Diagnostic::is_error))
    }
}

/// A model's UUID (with a note when reconciled), or the diagnostic that stops it.
type IdResult = Result<(Uuid, Option<Diagnostic>), Box<Diagnostic>>;

/// One model's result.
pub struct Done {
    /// How the model is named.
    pub display: String,
    /// The manifest written (`None`: no identity could be given, or a path was refused).
    pub manifest: Option<AnimManifest>,
    /// The output folder, as displayed.
    pub out: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Imports `paths` (model files, or folders searched for them) into the assets folder
/// `assets_dir`. `Err` when the assets folder cannot be made or read (nothing was imported).
pub fn import(ctx: &Ctx, paths: &[PathBuf], assets_dir: &Path) -> Result<Session, String> {
    let mut io_failed = false;
    let mut notices = Vec::new();
    let mut models = Vec::new();
    for p in paths {
        match expand(p, &mut models) {
            Ok(problems) => {
                // What the walk could not take (a name that is not UTF-8, a folder too deep or
                // unreadable): reported, and the run fails, as for a model it cannot read.
                for pr in &problems {
                    notices.push(Notice::Diagnostic(pr.diagnostic(&ctx.display(&pr.path))));
                    io_failed = true;
                }
            }
            Err(e) => {
                notices.push(Notice::Error(format!(
                    "cannot read {}: {e}",
                    ctx.display(p)
                )));
                io_failed = true;
            }
        }
    }
    // One entry per file, in path order.
    let mut seen = BTreeSet::new();
    models.retain(|m| seen.insert(std::fs::canonicalize(m).unwrap_or_else(|_| m.clone())));
    models.sort();
    std::fs::create_dir_all(assets_dir).map_err(|e| {
        format!(
            "cannot create assets folder {}: {e}",
            ctx.display(assets_dir)
        )
    })?;
    let assets = std::fs::canonicalize(assets_dir)
        .map_err(|e| format!("cannot read assets folder {}: {e}", ctx.display(assets_dir)))?;
    let generated = assets.join(GENERATED);
    let known = existing_manifests(ctx, &generated, &mut notices);
    // What import may write into: the project (the current folder) and the assets folder,
    // symbolic links resolved (`FsSource::confine`, the check scene paths go through).
    let project = FsSource::for_assets(ctx.cwd.as_deref(), &assets);

    // Identities first, so duplicate claims are judged over the whole run.
    let mut plans: Vec<(PathBuf, String, Vec<u8>, IdResult)> = Vec::new();
    for m in &models {
        let display = ctx.display(m);
        let bytes = match read_input(m, InputKind::Model) {
            Ok(b) => b,
            Err(e) => {
                notices.push(Notice::Error(format!("cannot read {display}: {e}")));
                io_failed = true;
                continue;
            }
        };
        let id = identity_of(m, &display, &bytes, &assets, &known);
        plans.push((m.clone(), display, bytes, id));
    }
    let claims: Vec<(&str, Uuid)> = plans
        .iter()
        .filter_map(|(_, d, _, id)| id.as_ref().ok().map(|(u, _)| (d.as_str(), *u)))
        .collect();
    let mut dup_of: BTreeMap<String, Diagnostic> = BTreeMap::new();
    for (uuid, group) in identity::duplicate_claims(claims) {
        for model in &group {
            dup_of.insert(model.clone(), duplicate(model, &uuid, &group));
        }
    }
    let mut done = Vec::new();
    for (path, display, bytes, id) in plans {
        let mut diagnostics = Vec::new();
        let uuid = match id {
            Err(d) => {
                diagnostics.push(*d);
                None
            }
            Ok(_) if dup_of.contains_key(&display) => {
                diagnostics.extend(dup_of.remove(&display));
                None
            }
            Ok((u, note)) => {
                // A manifest of this UUID whose (other) model still claims it.
                let src = source_hint(&assets, &path);
                match known
                    .iter()
                    .find(|k| k.1.model == u.hyphenated().to_string())
                {
                    Some((_, km, _))
                        if km.source != src && claims_uuid(&assets, &km.source, &u) =>
                    {
                        let other = ctx.display(&assets.join(&km.source));
                        diagnostics.push(duplicate(&display, &u, &[display.clone(), other]));
                        None
                    }
                    _ => {
                        diagnostics.extend(note);
                        Some(u)
                    }
                }
            }
        };
        let Some(uuid) = uuid else {
            done.push(Done {
                display,
                manifest: None,
                out: None,
                diagnostics,
            });
            continue;
        };
        match ensure_sidecar(&project, &path, &uuid) {
            Ok(()) => {}
            Err(WriteFail::Outside(what)) => {
                diagnostics.push(outside(
                    &display,
                    format!(
                        "the model lies outside the project, so its sidecar {what} is not \
                         written; move the model into the project folder or the assets folder"
                    ),
                ));
                done.push(Done {
                    display,
                    manifest: None,
                    out: None,
                    diagnostics,
                });
                continue;
            }
            Err(WriteFail::Io(e)) => {
                notices.push(Notice::Error(format!(
                    "cannot write the sidecar of {display}: {e}"
                )));
                io_failed = true;
                continue;
            }
        }
        let model = Model {
            path: &path,
            display: &display,
            bytes: &bytes,
            uuid,
        };
        match import_one(ctx, &model, &assets, &project) {
            Ok(mut d) => {
                diagnostics.append(&mut d.diagnostics);
                d.diagnostics = diagnostics;
                done.push(d);
            }
            Err(e) => {
                notices.push(Notice::Error(e));
                io_failed = true;
            }
        }
    }
    Ok(Session {
        models: done,
        notices,
        io_failed,
    })
}

/// Adds `p` (a model file) or every model file under it (a folder) to `out`, walked by
/// [`crate::fsutil::walk`] (symbolic links followed only inside `p`, loops cut); returns what
/// the walk reports.
fn expand(p: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<Vec<crate::fsutil::walk::Problem>> {
    let meta = std::fs::metadata(p)?;
    if !meta.is_dir() {
        out.push(p.to_path_buf());
        return Ok(Vec::new());
    }
    let want = |n: &std::ffi::OsStr| {
        Path::new(n)
            .extension()
            .and_then(|x| x.to_str())
            .is_some_and(|x| EXTENSIONS.contains(&x.to_ascii_lowercase().as_str()))
            .then_some(())
    };
    let w = crate::fsutil::walk(p, &crate::fsutil::Policy::new(&want))?;
    out.extend(w.files.into_iter().map(|f| f.path));
    Ok(w.problems)
}

/// Every readable manifest under the generated folder: `(display, manifest, folder)`.
/// Unreadable ones are reported on standard error and ignored for reconciliation.
fn existing_manifests(
    ctx: &Ctx,
    generated: &Path,
    notices: &mut Vec<Notice>,
) -> Vec<(String, AnimManifest, PathBuf)> {
    let mut out = Vec::new();
    let Ok(entries) = crate::fsutil::list(generated) else {
        return out;
    };
    for d in entries.into_iter().map(|e| e.path) {
        let f = d.join("manifest.ron");
        let Ok(text) = read_input(&f, InputKind::Manifest).map(String::from_utf8) else {
            continue;
        };
        let Ok(text) = text else {
            notices.push(Notice::Warning(format!(
                "{} is not UTF-8; ignored",
                ctx.display(&f)
            )));
            continue;
        };
        match AnimManifest::from_ron(&text) {
            Ok(m) => out.push((ctx.display(&f), m, d)),
            Err(e) => notices.push(Notice::Warning(format!(
                "{} is not a readable manifest ({e}); ignored",
                ctx.display(&f)
            ))),
        }
    }
    out
}

fn sidecar_path(model: &Path) -> PathBuf {
    let name = model
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    model.with_file_name(identity::sidecar_name(&name))
}

fn read_sidecar(model: &Path) -> Option<Result<Uuid, String>> {
    let text = match read_input(&sidecar_path(model), InputKind::Sidecar) {
        Ok(t) => t,
        Err(e) if e.is_not_found() => return None,
        Err(e) => return Some(Err(e.to_string())),
    };
    Some(match String::from_utf8(text) {
        Ok(t) => identity::parse_sidecar(&t),
        Err(_) => Err("the file is not UTF-8".to_string()),
    })
}

/// Whether the model at `source` (relative to the assets folder) exists with a sidecar
/// claiming `uuid`.
fn claims_uuid(assets: &Path, source: &str, uuid: &Uuid) -> bool {
    let p = assets.join(source);
    p.is_file() && matches!(read_sidecar(&p), Some(Ok(u)) if u == *uuid)
}

/// The model's UUID (and a note when it was reconciled), or the diagnostic that stops it.
fn identity_of(
    model: &Path,
    display: &str,
    bytes: &[u8],
    assets: &Path,
    known: &[(String, AnimManifest, PathBuf)],
) -> IdResult {
    match read_sidecar(model) {
        Some(Ok(u)) => return Ok((u, None)),
        Some(Err(e)) => {
            return Err(Box::new(
                Diagnostic::error(
                    E_SIDECAR,
                    format!(
                        "the sidecar {} cannot be read: {e}; fix it to `ModelMeta(uuid: \"...\")` \
                     or delete it to give the model a new identity",
                        identity::sidecar_name(
                            &model.file_name().unwrap_or_default().to_string_lossy()
                        )
                    ),
                )
                .in_file(display),
            ));
        }
        None => {}
    }
    let fp = identity::fingerprint(bytes);
    let candidates: Vec<Known> = known
        .iter()
        .filter_map(|(shown, m, _)| {
            let uuid = Uuid::parse_str(&m.model).ok()?;
            Some(Known {
                manifest: shown.clone(),
                model: uuid,
                fingerprint: m.fingerprint.clone(),
                still_owned: claims_uuid(assets, &m.source, &uuid),
            })
        })
        .collect();
    match identity::reconcile(&fp, &candidates) {
        Reconciled::New => Ok((Uuid::new_v4(), None)),
        Reconciled::Moved { model, manifest } => Ok((
            model,
            Some(
                Diagnostic::new(
                    crate::diag::Severity::Note,
                    W_NOTE,
                    format!(
                        "no sidecar: the model's bytes match {manifest}, whose model is gone; \
                         it keeps that identity ({model}) and a sidecar is written"
                    ),
                )
                .in_file(display),
            ),
        )),
        Reconciled::Ambiguous(manifests) => Err(Box::new(
            Diagnostic::error(
                E_AMBIGUOUS_MATCH,
                format!(
                    "no sidecar, and the model's bytes match {} manifests: {}; restore the right \
                 sidecar (`ModelMeta(uuid: \"...\")`) or delete the stale manifests",
                    manifests.len(),
                    manifests.join(", ")
                ),
            )
            .in_file(display),
        )),
    }
}

fn duplicate(model: &str, uuid: &Uuid, group: &[String]) -> Diagnostic {
    Diagnostic::error(
        E_DUPLICATE_UUID,
        format!(
            "the sidecars of {} all claim model {uuid}; a copied model needs its own identity: \
             delete the copy's `.meta` file and import it again",
            group.join(" and ")
        ),
    )
    .in_file(model)
}

/// The model's path relative to the assets folder, `/`-separated (with `..` when outside).
fn source_hint(assets: &Path, model: &Path) -> String {
    let abs = std::fs::canonicalize(model).unwrap_or_else(|_| model.to_path_buf());
    let a: Vec<Component> = assets.components().collect();
    let m: Vec<Component> = abs.components().collect();
    let common = a.iter().zip(&m).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = vec!["..".to_string(); a.len() - common];
    parts.extend(
        m[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// Writes `bytes` unless the file already holds exactly them.
fn write_if_changed(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if read_input(path, InputKind::Clip).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    write_atomic(path, bytes)
}

/// One model to import, its identity decided.
struct Model<'m> {
    path: &'m Path,
    display: &'m str,
    bytes: &'m [u8],
    uuid: Uuid,
}

/// Imports one model into its folder. A path leading outside the project is a diagnostic
/// (nothing of the model is written); `Err` only for I/O failures.
fn import_one(ctx: &Ctx, m: &Model<'_>, assets: &Path, project: &FsSource) -> Result<Done, String> {
    let refused = |what: String| Done {
        display: m.display.to_string(),
        manifest: None,
        out: None,
        diagnostics: vec![outside(
            m.display,
            format!(
                "{what} leads outside the project through a symbolic link: nothing is written \
                 for this model; remove the link (or point it inside the project) and import again"
            ),
        )],
    };
    let out_dir = match output_dir(ctx, project, assets, &m.uuid) {
        Ok(d) => d,
        Err(WriteFail::Outside(what)) => return Ok(refused(what)),
        Err(WriteFail::Io(e)) => return Err(e),
    };
    let manifest_path = out_dir.join("manifest.ron");
    let file_shown = |p: &Path| format!("generated file {}", ctx.display(p));
    match confined_file(project, &manifest_path, || file_shown(&manifest_path)) {
        Ok(()) => {}
        Err(WriteFail::Outside(what)) => return Ok(refused(what)),
        Err(WriteFail::Io(e)) => return Err(e),
    }
    let before = listed_before(&out_dir, &m.uuid);
    let prepared = import::prepare(m.display, m.bytes);
    // External buffers are read once the importer has parsed the model and names them, and
    // only inside the model's folder or the project, resolved as the paths a scene names are
    // (`Layout::resolve`, then `FsSource`'s symbolic-link check); a refusal or a missing file
    // is the importer's diagnostic (`E0704`, naming the buffer's URI).
    let sources = FsSource::open(ctx.cwd.as_deref(), m.path, assets);
    let mut read = |uri: &str| -> Result<Vec<u8>, String> {
        let (src, layout) = sources
            .as_ref()
            .map_err(|e| format!("cannot be read: {e}"))?;
        let p = layout.resolve(&layout.scene.parent(), uri).map_err(|_| {
            "leads outside the model's folder and the project (`..` climbs out of them)".to_string()
        })?;
        src.read(&p, InputKind::Model).map_err(|e| match e {
            ReadError::Outside => "leads outside the project through a symbolic link".to_string(),
            ReadError::Input(e) if e.is_not_found() => "is missing".to_string(),
            e => format!("cannot be read: {e}"),
        })
    };
    let id = Identity {
        model: m.uuid,
        source: source_hint(assets, m.path),
    };
    // Every file is staged beside its place and committed only once the import succeeded:
    // a blocked import (a limit, a corrupt file) or a refused path writes no generated file.
    let mut staged: Vec<Staged> = Vec::new();
    let mut fail = None;
    let outcome = prepared.import_reading(&id, &mut read, &mut |a| {
        if fail.is_some() {
            return;
        }
        let p = out_dir.join(&a.file);
        if let Err(f) = confined_file(project, &p, || file_shown(&p)) {
            fail = Some(f);
            return;
        }
        let text = a.text_ref();
        if read_input(&p, InputKind::Clip).is_ok_and(|old| old == text.as_bytes()) {
            return;
        }
        match stage(&p, text.as_bytes()) {
            Ok(s) => staged.push(s),
            Err(e) => {
                fail = Some(WriteFail::Io(format!(
                    "cannot write {}: {e}",
                    ctx.display(&p)
                )))
            }
        }
    });
    match fail {
        Some(WriteFail::Outside(what)) => {
            let mut d = refused(what);
            d.diagnostics.extend(outcome.diagnostics);
            return Ok(d);
        }
        Some(WriteFail::Io(e)) => return Err(e),
        None => {}
    }
    if outcome.manifest.runtime_supported {
        for s in staged {
            let target = s.target().to_path_buf();
            s.commit()
                .map_err(|e| format!("cannot write {}: {e}", ctx.display(&target)))?;
        }
    } else {
        drop(staged);
    }
    write_if_changed(&manifest_path, outcome.manifest.to_ron().as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", ctx.display(&manifest_path)))?;
    // Files the previous manifest listed and this one does not are stale (renamed or removed
    // clips, or a blocked import): remove them. Nothing else in the folder is touched.
    let listed: BTreeSet<&str> = outcome
        .manifest
        .skeletons
        .iter()
        .map(|s| s.file.as_str())
        .chain(outcome.manifest.clips.iter().map(|c| c.file.as_str()))
        .collect();
    for f in before.iter().filter(|f| !listed.contains(f.as_str())) {
        let p = out_dir.join(f);
        match std::fs::remove_file(&p) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("cannot remove stale {}: {e}", ctx.display(&p))),
        }
    }
    Ok(Done {
        display: m.display.to_string(),
        manifest: Some(outcome.manifest),
        out: Some(ctx.display(&out_dir)),
        diagnostics: outcome.diagnostics,
    })
}
