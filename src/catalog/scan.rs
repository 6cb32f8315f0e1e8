//! File-system side of the catalog: recursive walk, parallel load, refresh from changed paths.
//!
//! Symlinks are followed only when their target stays inside the assets folder; directory
//! cycles are cut by remembering canonical directories. Files are identified by their real
//! path: a file reached through a symlink (to it, or to a folder holding it) is the file the
//! link leads to, loaded once and named by its own path under the root, so an alias never makes
//! a file conflict with itself. Unreadable folders and files become diagnostics on their own
//! path; a file that vanishes mid-scan is simply absent.

use super::{Catalog, Delta, FileEntry, display_path};
use crate::diag::Diagnostic;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
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
        if !canonical_root.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                format!("{} is not a folder", root.display()),
            ));
        }
        std::fs::read_dir(root)?;
        let mut live = LiveCatalog {
            root: root.to_path_buf(),
            canonical_root,
            base: base.map(Path::to_path_buf),
            catalog: Catalog::default(),
        };
        let (files, dir_diags) = live.walk(root);
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

    /// Walks `dir` (inside the root) and returns the `.animseq` files found plus entries for
    /// folders that could not be read.
    fn walk(&self, dir: &Path) -> (Vec<PathBuf>, Vec<FileEntry>) {
        let mut files = Vec::new();
        let mut failed = Vec::new();
        let mut visited: BTreeSet<PathBuf> = BTreeSet::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            if let Ok(c) = d.canonicalize()
                && !visited.insert(c)
            {
                continue;
            }
            let rd = match std::fs::read_dir(&d) {
                Ok(rd) => rd,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => {
                    let name = self.display(&d);
                    failed.push(FileEntry::failed(
                        &name,
                        vec![
                            Diagnostic::error(E_UNREADABLE, format!("cannot read folder: {e}"))
                                .in_file(&name),
                        ],
                    ));
                    continue;
                }
            };
            for ent in rd.flatten() {
                let mut path = ent.path();
                let Ok(ft) = ent.file_type() else { continue };
                let (is_dir, is_file) = if ft.is_symlink() {
                    // Followed under the real path's spelling, so every file has one name.
                    match self.real(&path) {
                        Some(real) => {
                            let kind = (real.is_dir(), real.is_file());
                            if kind.1 && !is_animseq(&path) {
                                continue;
                            }
                            path = real;
                            kind
                        }
                        None => (false, false), // dangling, or leads out of the assets folder
                    }
                } else {
                    (ft.is_dir(), ft.is_file())
                };
                if is_dir {
                    stack.push(path);
                } else if is_file && (ft.is_symlink() || is_animseq(&path)) {
                    files.push(path);
                }
            }
        }
        // A file reached by several paths (its own and aliases) is one file.
        files.sort();
        files.dedup();
        (files, failed)
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
        match read_bounded(path) {
            Ok(bytes) => Some(FileEntry::from_bytes(&name, &bytes)),
            Err(ReadError::Gone) => None,
            Err(ReadError::TooLarge(n)) => Some(FileEntry::failed(
                &name,
                vec![
                    Diagnostic::error(
                        E_TOO_LARGE,
                        format!(
                            "file is {n} bytes; the catalog loads files up to {MAX_FILE_SIZE} bytes"
                        ),
                    )
                    .in_file(&name),
                ],
            )),
            Err(ReadError::Io(e)) => Some(FileEntry::failed(
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
                Ok(m) if m.is_file() && is_animseq(&p) => to_load.extend(self.real(&p)),
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

fn is_animseq(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "animseq")
}

enum ReadError {
    Gone,
    TooLarge(u64),
    Io(io::Error),
}

fn read_bounded(path: &Path) -> Result<Vec<u8>, ReadError> {
    use std::io::Read;
    let map = |e: io::Error| {
        if e.kind() == io::ErrorKind::NotFound {
            ReadError::Gone
        } else {
            ReadError::Io(e)
        }
    };
    let f = std::fs::File::open(path).map_err(map)?;
    let len = f.metadata().map_err(map)?.len();
    if len > MAX_FILE_SIZE {
        return Err(ReadError::TooLarge(len));
    }
    let mut buf = Vec::with_capacity(len as usize);
    f.take(MAX_FILE_SIZE + 1)
        .read_to_end(&mut buf)
        .map_err(map)?;
    if buf.len() as u64 > MAX_FILE_SIZE {
        return Err(ReadError::TooLarge(buf.len() as u64));
    }
    Ok(buf)
}
