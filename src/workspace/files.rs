//! Finding the files a workspace checks, and recording what a scene reads.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use crate::catalog::Catalog;
use crate::fsutil::InputKind;
use crate::fsutil::walk::Problem;
use crate::project::{FsSource, ProjectPath, ReadError, Source};

/// What kind of file the workspace checks it as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum FileKind {
    /// A `.bpg` graph (a file named on its own is a graph whatever its extension).
    Graph,
    /// A `.skel` skeleton.
    Skeleton,
    /// A `.animsm` state machine.
    StateMachine,
    /// A `.scene.ron` scene.
    Scene,
    /// An `.animseq` clip (only walked for in the assets folder).
    Clip,
}

impl FileKind {
    /// The kind of a file found by walking a folder (`None`: not checked).
    /// A name that is not UTF-8 has a kind too (by its bytes): the walk reports it.
    pub fn of(p: &Path) -> Option<FileKind> {
        let name = p.file_name()?.as_encoded_bytes();
        if name.ends_with(b".scene.ron") {
            Some(FileKind::Scene)
        } else if name.ends_with(b".skel") {
            Some(FileKind::Skeleton)
        } else if name.ends_with(b".animsm") {
            Some(FileKind::StateMachine)
        } else if name.ends_with(b".bpg") {
            Some(FileKind::Graph)
        } else if name.ends_with(b".animseq") {
            Some(FileKind::Clip)
        } else {
            None
        }
    }
}

/// The most directory entries one walk visits.
pub const MAX_WALK_ENTRIES: usize = crate::fsutil::walk::MAX_ENTRIES;

/// One file found under the workspace's paths.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Found {
    /// The path as found (the root as given joined with the relative path; a file reached
    /// through a symbolic link is found under its real path).
    pub path: PathBuf,
    /// For graphs: where its module goes under `build --out` (relative, `.sbc`).
    pub out: PathBuf,
    /// What it is.
    pub kind: FileKind,
}

/// The regular files under `root` (or `root` itself when it is a file) that are checked, in a
/// stable order, walked by [`crate::fsutil::walk`] (symbolic links followed inside `root` only,
/// loops cut, at most [`MAX_WALK_ENTRIES`] entries and [`crate::fsutil::walk::MAX_DEPTH`]
/// levels), and what that walk reports (a name that is not UTF-8, a folder too deep or
/// unreadable); `keep` says which kinds are kept in folders. Fails when `root` cannot be read.
pub fn walk(
    root: &Path,
    keep: &dyn Fn(FileKind) -> bool,
) -> std::io::Result<(Vec<Found>, Vec<Problem>)> {
    let meta = std::fs::metadata(root)?;
    if meta.is_file() {
        // A file named on its own is a graph unless it is a skeleton, state machine or scene.
        let kind = FileKind::of(root)
            .filter(|k| *k != FileKind::Clip)
            .unwrap_or(FileKind::Graph);
        let stem = root.file_stem().unwrap_or_default();
        let found = Found {
            path: root.to_path_buf(),
            out: PathBuf::from(stem).with_extension("sbc"),
            kind,
        };
        return Ok((vec![found], Vec::new()));
    }
    let want = |n: &std::ffi::OsStr| FileKind::of(Path::new(n)).filter(|k| keep(*k));
    let w = crate::fsutil::walk(root, &crate::fsutil::Policy::new(&want))?;
    let found = w
        .files
        .into_iter()
        .map(|f| {
            let out = f
                .path
                .strip_prefix(root)
                .unwrap_or(&f.path)
                .with_extension("sbc");
            Found {
                path: f.path,
                out,
                kind: f.what,
            }
        })
        .collect();
    Ok((found, w.problems))
}

/// The key a changed path is matched by: absolute, with its folder's symbolic links resolved
/// (the path itself may be gone), else lexically normalized.
pub fn key(cwd: Option<&Path>, p: &Path) -> PathBuf {
    let abs = match cwd {
        Some(c) if !p.is_absolute() => c.join(p),
        _ => p.to_path_buf(),
    };
    if let Ok(c) = abs.canonicalize() {
        return c;
    }
    if let (Some(parent), Some(name)) = (abs.parent(), abs.file_name())
        && let Ok(c) = parent.canonicalize()
    {
        return c.join(name);
    }
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c.as_os_str()),
        }
    }
    out
}

/// A [`Source`] that records every file a load reads (or tries to) and every folder it lists,
/// as [`key`]s: what a scene's check depends on.
pub struct Recording<'a> {
    pub inner: &'a FsSource,
    pub cwd: Option<&'a Path>,
    pub reads: RefCell<BTreeSet<PathBuf>>,
    pub folders: RefCell<BTreeSet<PathBuf>>,
}

impl Source for Recording<'_> {
    fn read(&self, path: &ProjectPath, kind: InputKind) -> Result<Vec<u8>, ReadError> {
        let p = self.inner.path(path);
        self.reads.borrow_mut().insert(key(self.cwd, &p));
        self.inner.read(path, kind)
    }
    fn list(&self, dir: &ProjectPath) -> Vec<String> {
        let p = self.inner.path(dir);
        self.folders.borrow_mut().insert(key(self.cwd, &p));
        self.inner.list(dir)
    }
    fn folders(&self, dir: &ProjectPath) -> Vec<String> {
        let p = self.inner.path(dir);
        self.folders.borrow_mut().insert(key(self.cwd, &p));
        self.inner.folders(dir)
    }
    fn display(&self, path: &ProjectPath) -> String {
        self.inner.display(path)
    }
    fn catalog(&self, assets: &ProjectPath) -> Result<Catalog, ReadError> {
        self.inner.catalog(assets)
    }
}

/// Loads the scene of `layout` exactly as [`project::load`](crate::project::load) does, and the
/// folders it depends on: the folder of every file the load read (or tried to read) and every
/// folder it listed, as [`key`]s — the workspace's recorded dependencies, whatever path
/// (`..` included) led to them. What `sinew run --watch` watches.
pub fn load_recorded(
    source: &FsSource,
    layout: &crate::project::Layout,
    cwd: Option<&Path>,
) -> (
    Result<crate::project::LoadedScene, crate::project::LoadError>,
    BTreeSet<PathBuf>,
) {
    let rec = Recording {
        inner: source,
        cwd,
        reads: Default::default(),
        folders: Default::default(),
    };
    let loaded = crate::project::load(&rec, layout);
    let mut folders = rec.folders.into_inner();
    folders.extend(
        rec.reads
            .into_inner()
            .iter()
            .filter_map(|r| r.parent().map(Path::to_path_buf)),
    );
    (loaded, folders)
}
