//! Where `sinew import` may write: the project (the current folder) and the assets folder,
//! symbolic links resolved by the scene loader's check (`FsSource::confine`). The output
//! folder and every folder above it, each generated file, `manifest.ron` and the model's
//! sidecar are checked before they are written; a re-import deletes only the files the
//! folder's previous manifest listed.

use super::{GENERATED, read_sidecar, sidecar_path};
use crate::app::Ctx;
use crate::diag::Diagnostic;
use crate::fsutil::{InputKind, read_input, write_atomic};
use crate::import::diagnostics::E_OUTSIDE_PROJECT;
use crate::import::{AnimManifest, identity};
use crate::project::{FsSource, ReadError};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use uuid::Uuid;

/// Why a model's files were not written.
pub(super) enum WriteFail {
    /// The path (as shown) leads outside the project: refused, nothing written.
    Outside(String),
    /// An I/O failure, with its message.
    Io(String),
}

/// `E0723` for model `display`.
pub(super) fn outside(display: &str, message: String) -> Diagnostic {
    Diagnostic::error(E_OUTSIDE_PROJECT, message).in_file(display)
}

/// The real location of the existing `p`, when it lies inside the project.
pub(super) fn confined(
    project: &FsSource,
    p: &Path,
    shown: impl Fn() -> String,
) -> Result<PathBuf, WriteFail> {
    project.confine(p).map_err(|e| match e {
        ReadError::Outside => WriteFail::Outside(shown()),
        e => WriteFail::Io(format!("cannot resolve {}: {e}", shown())),
    })
}

/// Checks that writing file `p` (in a folder already confined) stays in the project: a
/// symbolic link there must lead inside it (a write replaces the link's target).
pub(super) fn confined_file(
    project: &FsSource,
    p: &Path,
    shown: impl Fn() -> String,
) -> Result<(), WriteFail> {
    match std::fs::symlink_metadata(p) {
        Ok(m) if m.file_type().is_symlink() => confined(project, p, shown).map(drop),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(WriteFail::Io(format!("cannot read {}: {e}", shown()))),
    }
}

/// Writes the model's sidecar unless it already holds `uuid`; never outside the project.
pub(super) fn ensure_sidecar(
    project: &FsSource,
    model: &Path,
    uuid: &Uuid,
) -> Result<(), WriteFail> {
    if matches!(read_sidecar(model), Some(Ok(u)) if u == *uuid) {
        return Ok(());
    }
    let sidecar = sidecar_path(model);
    let shown = || format!("`{}`", sidecar.display());
    let folder = match model.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    confined(project, folder, shown)?;
    confined_file(project, &sidecar, shown)?;
    write_atomic(&sidecar, identity::sidecar_text(uuid).as_bytes())
        .map_err(|e| WriteFail::Io(e.to_string()))
}

/// The model's output folder `assets/animations/generated/<uuid>`, made where missing: each
/// folder on the way must lie inside the project (a symbolic link leading out is refused
/// before anything is created through it). Returns its real path.
pub(super) fn output_dir(
    ctx: &Ctx,
    project: &FsSource,
    assets: &Path,
    uuid: &Uuid,
) -> Result<PathBuf, WriteFail> {
    let mut cur = assets.to_path_buf();
    let uuid = uuid.hyphenated().to_string();
    for part in GENERATED.split('/').chain([uuid.as_str()]) {
        let p = cur.join(part);
        let shown = || format!("output folder {}", ctx.display(&p));
        cur = match std::fs::symlink_metadata(&p) {
            Ok(_) => {
                let real = confined(project, &p, shown)?;
                if !real.is_dir() {
                    return Err(WriteFail::Io(format!("{} is not a folder", shown())));
                }
                real
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir(&p)
                    .map_err(|e| WriteFail::Io(format!("cannot create {}: {e}", shown())))?;
                p
            }
            Err(e) => return Err(WriteFail::Io(format!("cannot read {}: {e}", shown()))),
        };
    }
    Ok(cur)
}

/// The generated files (`.skel`, `.animseq`) the previous manifest of model `uuid` in `dir`
/// listed: the only files a re-import may delete. Names that are not plain file names of
/// that kind are ignored (a forged manifest cannot point a deletion elsewhere).
pub(super) fn listed_before(dir: &Path, uuid: &Uuid) -> BTreeSet<String> {
    let Ok(Ok(text)) =
        read_input(&dir.join("manifest.ron"), InputKind::Manifest).map(String::from_utf8)
    else {
        return BTreeSet::new();
    };
    let Ok(m) = AnimManifest::from_ron(&text) else {
        return BTreeSet::new();
    };
    if m.model != uuid.hyphenated().to_string() {
        return BTreeSet::new();
    }
    m.skeletons
        .iter()
        .map(|s| &s.file)
        .chain(m.clips.iter().map(|c| &c.file))
        .filter(|f| generated_name(f))
        .cloned()
        .collect()
}

/// A plain `.skel` or `.animseq` file name (no folder, not hidden).
fn generated_name(f: &str) -> bool {
    !f.starts_with('.')
        && !f.contains(['/', '\\', ':'])
        && (f.ends_with(".skel") || f.ends_with(".animseq"))
}
