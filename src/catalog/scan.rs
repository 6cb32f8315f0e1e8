//! File-system side of the catalog: recursive walk, parallel load, refresh from changed paths.
//!
//! The walk is [`crate::fsutil::walk`]'s: symlinks are followed only when their target stays
//! inside the assets folder, cycles are cut, names that are not UTF-8 and folders nested too
//! deep are reported (as failed entries at their path). Files are identified by their real
//! path: a file reached through a symlink (to it, or to a folder holding it) is the file the
//! link leads to, loaded once and named by its own path under the root, so an alias never makes
//! a file conflict with itself. Unreadable folders and files become diagnostics on their own
//! path; a file that vanishes mid-scan is simply absent.

use super::{Catalog, Delta, FileEntry, display_path};
use crate::diag::Diagnostic;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

pub use crate::diag::codes::files::{E_TOO_LARGE, E_UNREADABLE};

/// The largest `.animseq` file the catalog loads (bytes).
pub const MAX_FILE_SIZE: u64 = crate::fsutil::InputKind::Clip.limit();

/// Reports progress: (files loaded, files found).
pub type Progress<'a> = &'a (dyn Fn(usize, usize) + Sync);

/// A catalog bound to an assets folder on disk.
#[derive(Debug)]
pub struct LiveCatalog {
    root: PathBuf,
    canonical_root: PathBuf,
    base: Option<PathBuf>,
    catalog: Catalog,
}

impl LiveCatalog {
    /// Scans `root` fully. `base` is the folder display paths are relative to (usually the
    /// current directory). Fails only when `root` itself cannot be read.
    pub fn scan(
        root: &Path,
        base: Option<&Path>,
        progress: Option<Progress>,
    ) -> io::Result<LiveCatalog> {
        let canonical_root = root.canonicalize()?;
        let want = animseq_wanted;
        // Fails when the root is not a readable folder.
        let walked = crate::fsutil::walk(root, &crate::fsutil::Policy::new(&want))?;
        let mut live = LiveCatalog {
            root: root.to_path_buf(),
            canonical_root,
            base: base.map(Path::to_path_buf),
            catalog: Catalog::default(),
        };
        let (files, dir_diags) = live.found(walked);
        let entries = live.load_all(&files, progress);
        live.catalog = Catalog::from_entries(entries.into_iter().chain(dir_diags));
        Ok(live)
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The catalog, without the folder it was scanned from.
    pub fn into_catalog(self) -> Catalog {
        self.catalog
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn display(&self, p: &Path) -> String {
        display_path(p, self.base.as_deref())
    }

    /// The root's spelling of the real path of `p` (symlinks resolved), when it is inside the
    /// root.
    fn real(&self, p: &Path) -> Option<PathBuf> {
        let c = p.canonicalize().ok()?;
        let rel = c.strip_prefix(&self.canonical_root).ok()?;
        Some(self.root.join(rel))
    }

    /// Walks `dir` (inside the root, spelled from it) through [`crate::fsutil::walk_in`] and
    /// returns the `.animseq` files found plus entries for what the walk reports (folders that
    /// could not be read, names that are not UTF-8, the depth limit).
    fn walk(&self, dir: &Path) -> (Vec<PathBuf>, Vec<FileEntry>) {
        let want = animseq_wanted;
        let w = crate::fsutil::walk_in(
            &self.root,
            &self.canonical_root,
            dir,
            &crate::fsutil::Policy::new(&want),
        );
        self.found(w)
    }

    /// The files of a walk, and entries for its problems.
    fn found(&self, w: crate::fsutil::walk::Walk<()>) -> (Vec<PathBuf>, Vec<FileEntry>) {
        let failed = w.problems.iter().map(|p| self.problem(p)).collect();
        (w.files.into_iter().map(|f| f.path).collect(), failed)
    }

    /// A walk's problem as the entry of the path it names.
    fn problem(&self, p: &crate::fsutil::walk::Problem) -> FileEntry {
        let name = self.display(&p.path);
        FileEntry::failed(&name, vec![p.diagnostic(&name)])
    }

    fn load_all(&self, files: &[PathBuf], progress: Option<Progress>) -> Vec<FileEntry> {
        let done = AtomicUsize::new(0);
        let total = files.len();
        files
            .par_iter()
            .filter_map(|p| {
                let e = self.load_file(p);
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                if let Some(cb) = progress {
                    cb(n, total);
                }
                e
            })
            .collect()
    }

    /// Loads one file; `None` when it no longer exists.
    fn load_file(&self, path: &Path) -> Option<FileEntry> {
        let name = self.display(path);
        match crate::fsutil::read_input(path, crate::fsutil::InputKind::Clip) {
            Ok(bytes) => Some(FileEntry::from_bytes(&name, &bytes)),
            Err(e) if e.is_not_found() => None,
            Err(crate::fsutil::InputError::TooLarge { size, .. }) => Some(FileEntry::failed(
                &name,
                vec![
                    Diagnostic::error(
                        E_TOO_LARGE,
                        format!(
                            "file is {size} bytes; the catalog loads files up to {MAX_FILE_SIZE} bytes"
                        ),
                    )
                    .in_file(&name),
                ],
            )),
            Err(e) => Some(FileEntry::failed(
                &name,
                vec![
                    Diagnostic::error(E_UNREADABLE, format!("cannot read file: {e}"))
                        .in_file(&name),
                ],
            )),
        }
    }

    /// Maps a path reported by a watcher (often absolute) to the root's own spelling.
    fn localize(&self, p: &Path) -> Option<PathBuf> {
        if let Ok(rel) = p.strip_prefix(&self.canonical_root) {
            return Some(self.root.join(rel));
        }
        if p.starts_with(&self.root) {
            return Some(p.to_path_buf());
        }
        // The parent may exist even when the path itself is gone.
        let parent = p.parent()?.canonicalize().ok()?;
        let rel = parent.strip_prefix(&self.canonical_root).ok()?;
        Some(self.root.join(rel).join(p.file_name()?))
    }

    /// Refreshes from paths that changed (created, modified, deleted, renamed: give both the old
    /// and new path). Costs time proportional to the files under those paths.
    pub fn refresh(&mut self, changed: &[PathBuf]) -> Delta {
        let mut changes: BTreeMap<String, Option<FileEntry>> = BTreeMap::new();
        let mut to_load: Vec<PathBuf> = Vec::new();
        for p in changed {
            let Some(p) = self.localize(p) else { continue };
            let name = self.display(&p);
            for f in self.catalog.files_under(&name) {
                changes.entry(f).or_insert(None);
            }
            match std::fs::metadata(&p) {
                Ok(m) if m.is_dir() => {
                    // Walked under its real spelling (it may be reached through a symlink).
                    if let Some(real) = self.real(&p) {
                        let (files, failed) = self.walk(&real);
                        to_load.extend(files);
                        for f in failed {
                            changes.insert(f.file.to_string(), Some(f));
                        }
                    }
                }
                Ok(m) if m.is_file() && is_animseq(&p) => match self.real(&p) {
                    Some(real)
                        if real
                            .strip_prefix(&self.root)
                            .is_ok_and(|r| r.to_str().is_none()) =>
                    {
                        // As the walk reports it (a changed file is not walked to).
                        let rel = real.strip_prefix(&self.root).unwrap_or(&real).to_path_buf();
                        let e = self.problem(&crate::fsutil::walk::Problem {
                            path: real,
                            kind: crate::fsutil::walk::ProblemKind::NotUtf8(rel),
                        });
                        changes.insert(e.file.to_string(), Some(e));
                    }
                    real => to_load.extend(real),
                },
                _ => {}
            }
        }
        to_load.sort();
        to_load.dedup();
        for e in self.load_all(&to_load, None) {
            changes.insert(e.file.to_string(), Some(e));
        }
        self.catalog.apply(changes)
    }
}

/// The walk's `want`: `.animseq` files (by the name as found).
fn animseq_wanted(name: &std::ffi::OsStr) -> Option<()> {
    is_animseq(Path::new(name)).then_some(())
}

fn is_animseq(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "animseq")
}
