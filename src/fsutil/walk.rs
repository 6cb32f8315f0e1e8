//! The one folder walker ([`walk`], [`walk_in`]): every recursive walk of a folder Sinew does
//! (the catalog's assets folder, the graphs `check`, `build`, `watch` and the studio read, the
//! models `sinew import FOLDER` imports, the studio's scene list) goes through it, so they all
//! follow one rule:
//!
//! * **Symbolic links** are followed only when their target (resolved once, for the link only)
//!   lies inside the walk's root; a link leading out of it, or nowhere, is not followed. An
//!   entry reached through a link is reported under its real path, spelled from the root as
//!   given (`assets/real/a.animseq`, not `assets/link/a.animseq`), so a file reached by several
//!   paths is found once.
//! * **Loops**: every folder is walked once (folders are recognised by device and inode), so a
//!   link cycle is cut where it closes.
//! * **Names that are not UTF-8**: a wanted file whose path under the root is not UTF-8 is a
//!   [`Problem`] (`E0004`, the name escaped through [`crate::escape::os`]), never a silent skip.
//! * **Limits**: folders nested deeper than [`Policy::max_depth`] below the root are not walked,
//!   and a walk stops after [`Policy::max_entries`] entries; both are reported (`E0005`).
//! * **Order**: the files and the problems come sorted by path, whatever the file system's
//!   order.
//!
//! Cost: linear in the entries visited. Paths are built incrementally (parent + name); only the
//! root and each symbolic link are canonicalized (never a whole path per level: that made a walk
//! of a 1,500-deep chain cubic in the depth).

use crate::diag::Diagnostic;
use crate::diag::codes::files::{E_NAME_NOT_UTF8, E_UNREADABLE, E_WALK_LIMIT};
use std::collections::HashSet;
use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};

/// How deep below its root a walk goes by default (folder levels).
pub const MAX_DEPTH: usize = 256;

/// How many folder entries one walk visits by default.
pub const MAX_ENTRIES: usize = 1_000_000;

/// What a walk looks for and how far it goes.
pub struct Policy<'a, T> {
    /// Whether a file (by its name as found: a link's own name) is wanted, and what it is.
    pub want: &'a dyn Fn(&OsStr) -> Option<T>,
    /// Folders deeper than this below the root are not walked (reported).
    pub max_depth: usize,
    /// The walk stops after this many folder entries (reported).
    pub max_entries: usize,
}

impl<'a, T> Policy<'a, T> {
    /// The default limits ([`MAX_DEPTH`], [`MAX_ENTRIES`]) and `want`.
    pub fn new(want: &'a dyn Fn(&OsStr) -> Option<T>) -> Self {
        Policy {
            want,
            max_depth: MAX_DEPTH,
            max_entries: MAX_ENTRIES,
        }
    }
}

/// One wanted file.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Found<T> {
    /// The root as given joined with the file's real path under it.
    pub path: PathBuf,
    /// What `want` said it is.
    pub what: T,
}

/// Why part of a folder was not walked or a file not reported as found.
#[derive(Debug)]
pub enum ProblemKind {
    /// The folder could not be read.
    Unreadable(io::Error),
    /// A wanted file's path under the root (the value) is not UTF-8.
    NotUtf8(PathBuf),
    /// The folder is nested deeper than the limit (the value); not walked.
    TooDeep(usize),
    /// The walk stopped after this many entries.
    TooMany(usize),
}

/// Something a walk reports: at `path` (spelled as the walk found it).
#[derive(Debug)]
pub struct Problem {
    pub path: PathBuf,
    pub kind: ProblemKind,
}

impl Problem {
    /// The problem as a diagnostic in the file `shown` (how the caller names `path`).
    pub fn diagnostic(&self, shown: &str) -> Diagnostic {
        let d = match &self.kind {
            ProblemKind::Unreadable(e) => {
                Diagnostic::error(E_UNREADABLE, format!("cannot read folder: {e}"))
            }
            ProblemKind::NotUtf8(rel) => Diagnostic::error(
                E_NAME_NOT_UTF8,
                format!(
                    "file name is not UTF-8: {}; it is not read (rename it)",
                    crate::escape::os(rel.as_os_str())
                ),
            ),
            ProblemKind::TooDeep(limit) => Diagnostic::error(
                E_WALK_LIMIT,
                format!("folder nested deeper than {limit} levels; not walked"),
            ),
            ProblemKind::TooMany(limit) => Diagnostic::error(
                E_WALK_LIMIT,
                format!("the walk stopped after {limit} folder entries; the rest is not walked"),
            ),
        };
        d.in_file(shown)
    }
}

/// What a walk found.
#[derive(Debug)]
pub struct Walk<T> {
    /// The wanted files, sorted by path, each once.
    pub files: Vec<Found<T>>,
    /// What could not be walked or read, sorted by path.
    pub problems: Vec<Problem>,
}

/// Walks the folder `root` (see the module documentation). Fails when `root` is not a folder
/// or cannot be read; anything below it that cannot be read is a [`Problem`].
pub fn walk<T>(root: &Path, policy: &Policy<T>) -> io::Result<Walk<T>> {
    let canonical = root.canonicalize()?;
    if !canonical.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::NotADirectory,
            "not a folder".to_string(),
        ));
    }
    std::fs::read_dir(root)?;
    Ok(walk_in(root, &canonical, root, policy))
}

/// Walks `start`, a folder inside `root` spelled from it (`root.join(rel)`), under `root`'s
/// rule (`canonical_root` is `root` canonicalized, once, by the caller): what a refresh of a
/// changed folder walks. A `start` that is gone yields nothing.
pub fn walk_in<T>(root: &Path, canonical_root: &Path, start: &Path, policy: &Policy<T>) -> Walk<T> {
    let rel = start.strip_prefix(root).unwrap_or(Path::new(""));
    let mut w = Walker {
        root,
        canonical_root,
        policy,
        visited: HashSet::new(),
        stack: Vec::new(),
        entries: 0,
        files: Vec::new(),
        problems: Vec::new(),
    };
    if let Some(id) = identity(start) {
        w.visited.insert(id);
        w.stack.push(Dir {
            path: start.to_path_buf(),
            depth: rel.components().count(),
            utf8: rel.to_str().is_some(),
        });
    }
    w.run();
    let Walker {
        mut files,
        mut problems,
        ..
    } = w;
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files.dedup_by(|a, b| a.path == b.path);
    problems.sort_by(|a, b| a.path.cmp(&b.path));
    Walk { files, problems }
}

/// A folder waiting to be read: its path, its depth below the root, whether its path under the
/// root is UTF-8.
struct Dir {
    path: PathBuf,
    depth: usize,
    utf8: bool,
}

struct Walker<'a, 'p, T> {
    root: &'a Path,
    canonical_root: &'a Path,
    policy: &'a Policy<'p, T>,
    visited: HashSet<Id>,
    stack: Vec<Dir>,
    entries: usize,
    files: Vec<Found<T>>,
    problems: Vec<Problem>,
}

impl<T> Walker<'_, '_, T> {
    fn run(&mut self) {
        while let Some(dir) = self.stack.pop() {
            let rd = match std::fs::read_dir(&dir.path) {
                Ok(rd) => rd,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue, // gone meanwhile
                Err(e) => {
                    self.problems.push(Problem {
                        path: dir.path,
                        kind: ProblemKind::Unreadable(e),
                    });
                    continue;
                }
            };
            let mut ents: Vec<std::fs::DirEntry> = Vec::new();
            for ent in rd.flatten() {
                self.entries += 1;
                if self.entries > self.policy.max_entries {
                    self.problems.push(Problem {
                        path: dir.path.clone(),
                        kind: ProblemKind::TooMany(self.policy.max_entries),
                    });
                    break;
                }
                ents.push(ent);
            }
            ents.sort_by_key(|e| e.file_name());
            // Folders are pushed in reverse so the walk pops them in name order.
            let mut dirs = Vec::new();
            for ent in ents {
                if let Some(d) = self.entry(&dir, &ent) {
                    dirs.push(d);
                }
            }
            if self.entries > self.policy.max_entries {
                self.stack.clear();
            } else {
                self.stack.extend(dirs.into_iter().rev());
            }
        }
    }

    /// Handles one entry of `dir`: records a wanted file (or its problem) and returns a folder
    /// to walk.
    fn entry(&mut self, dir: &Dir, ent: &std::fs::DirEntry) -> Option<Dir> {
        let name = ent.file_name();
        let ft = ent.file_type().ok()?;
        let utf8 = dir.utf8 && name.to_str().is_some();
        let found = dir.path.join(&name);
        let (path, depth, utf8, meta) = if ft.is_symlink() {
            // The one canonicalization of a link: followed only inside the root, under its
            // real spelling.
            let real = found.canonicalize().ok()?;
            let rel = real.strip_prefix(self.canonical_root).ok()?;
            let meta = std::fs::metadata(&real).ok()?;
            (
                self.root.join(rel),
                rel.components().count(),
                rel.to_str().is_some(),
                meta,
            )
        } else if ft.is_dir() {
            (found, dir.depth + 1, utf8, ent.metadata().ok()?)
        } else if ft.is_file() {
            return self.file(&name, found, utf8);
        } else {
            return None; // FIFOs, sockets, devices: never files to read
        };
        if meta.is_dir() {
            if !self.visited.insert(id_of(&meta, &path)) {
                return None; // walked already (a loop, or a second path to it)
            }
            if depth > self.policy.max_depth {
                self.problems.push(Problem {
                    path,
                    kind: ProblemKind::TooDeep(self.policy.max_depth),
                });
                return None;
            }
            return Some(Dir { path, depth, utf8 });
        }
        if meta.is_file() {
            // A link to a file is wanted by its own name, found under the target's.
            if let Some(what) = (self.policy.want)(&name) {
                if utf8 {
                    self.files.push(Found { path, what });
                } else {
                    self.not_utf8(path);
                }
            }
        }
        None
    }

    fn not_utf8(&mut self, path: PathBuf) {
        let rel = path.strip_prefix(self.root).unwrap_or(&path).to_path_buf();
        self.problems.push(Problem {
            path,
            kind: ProblemKind::NotUtf8(rel),
        });
    }

    fn file(&mut self, name: &OsStr, path: PathBuf, utf8: bool) -> Option<Dir> {
        let what = (self.policy.want)(name)?;
        if utf8 {
            self.files.push(Found { path, what });
        } else {
            self.not_utf8(path);
        }
        None
    }
}

/// What identifies a folder: device and inode (elsewhere, its canonical path).
#[cfg(unix)]
type Id = (u64, u64);
#[cfg(not(unix))]
type Id = PathBuf;

#[cfg(unix)]
fn id_of(meta: &std::fs::Metadata, _path: &Path) -> Id {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn id_of(_meta: &std::fs::Metadata, path: &Path) -> Id {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

fn identity(p: &Path) -> Option<Id> {
    let m = std::fs::metadata(p).ok().filter(|m| m.is_dir())?;
    Some(id_of(&m, p))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::symlink;

    fn bpg(name: &OsStr) -> Option<()> {
        name.as_bytes().ends_with(b".bpg").then_some(())
    }

    fn names(root: &Path, w: &Walk<()>) -> Vec<String> {
        w.files
            .iter()
            .map(|f| {
                let rel = f.path.strip_prefix(root).unwrap();
                rel.to_string_lossy().into_owned()
            })
            .collect()
    }

    fn touch(p: &Path) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "x").unwrap();
    }

    #[test]
    fn files_come_sorted_and_only_the_wanted_ones() {
        let t = tempfile::tempdir().unwrap();
        for f in ["b.bpg", "a/z.bpg", "a/b/c.bpg", "a.txt", "a-b.bpg"] {
            touch(&t.path().join(f));
        }
        let w = walk(t.path(), &Policy::new(&bpg)).unwrap();
        assert_eq!(
            names(t.path(), &w),
            ["a/b/c.bpg", "a/z.bpg", "a-b.bpg", "b.bpg"]
        );
        assert!(w.problems.is_empty());
    }

    #[test]
    fn links_are_followed_inside_the_root_only_and_found_under_their_real_path() {
        let t = tempfile::tempdir().unwrap();
        let (root, outside) = (t.path().join("root"), t.path().join("outside"));
        touch(&root.join("real/a.bpg"));
        touch(&outside.join("secret.bpg"));
        symlink(root.join("real"), root.join("alias")).unwrap();
        symlink(root.join("real/a.bpg"), root.join("direct.bpg")).unwrap();
        symlink(&outside, root.join("out")).unwrap();
        symlink(outside.join("secret.bpg"), root.join("leak.bpg")).unwrap();
        symlink("/", root.join("slash")).unwrap();
        symlink(root.join("nowhere"), root.join("dangling.bpg")).unwrap();
        let w = walk(&root, &Policy::new(&bpg)).unwrap();
        assert_eq!(names(&root, &w), ["real/a.bpg"]);
        assert!(w.problems.is_empty(), "{:?}", w.problems);
    }

    #[test]
    fn a_link_cycle_is_walked_once() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        touch(&root.join("a/b/x.bpg"));
        symlink(root.join("a"), root.join("a/b/up")).unwrap();
        symlink(root, root.join("a/top")).unwrap();
        symlink(root.join("a/b/loop2"), root.join("a/b/loop1")).unwrap();
        symlink(root.join("a/b/loop1"), root.join("a/b/loop2")).unwrap();
        let w = walk(root, &Policy::new(&bpg)).unwrap();
        assert_eq!(names(root, &w), ["a/b/x.bpg"]);
    }

    #[test]
    fn a_name_that_is_not_utf8_is_a_problem_with_its_bytes_escaped() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        touch(&root.join(OsStr::from_bytes(b"caf\xe9.bpg")));
        touch(&root.join(OsStr::from_bytes(b"d\xff/in.bpg")));
        touch(&root.join(OsStr::from_bytes(b"other\xff.txt")));
        touch(&root.join("ok.bpg"));
        let w = walk(root, &Policy::new(&bpg)).unwrap();
        assert_eq!(names(root, &w), ["ok.bpg"]);
        let msgs: Vec<String> = w
            .problems
            .iter()
            .map(|p| p.diagnostic("x").message.clone())
            .collect();
        assert_eq!(msgs.len(), 2, "{msgs:?}");
        assert!(msgs[0].contains("caf\\xE9.bpg"), "{msgs:?}");
        assert!(msgs[1].contains("d\\xFF/in.bpg"), "{msgs:?}");
        assert!(
            w.problems
                .iter()
                .all(|p| p.diagnostic("x").code == E_NAME_NOT_UTF8)
        );
    }

    /// A chain `d/d/d/…` `n` folders deep with a file at the bottom.
    fn chain(root: &Path, n: usize) -> PathBuf {
        let mut p = root.to_path_buf();
        for _ in 0..n {
            p.push("d");
        }
        touch(&p.join("x.bpg"));
        p
    }

    #[test]
    fn a_deep_chain_is_walked_to_the_limit_and_the_limit_is_reported() {
        let t = tempfile::tempdir().unwrap();
        chain(t.path(), 1_500);
        let mut policy = Policy::new(&bpg);
        policy.max_depth = 2_000;
        let started = std::time::Instant::now();
        let w = walk(t.path(), &policy).unwrap();
        assert_eq!(w.files.len(), 1);
        // Generous: the per-level canonicalization this replaces took 30 s (release) here.
        assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
        let w = walk(t.path(), &Policy::new(&bpg)).unwrap();
        assert!(w.files.is_empty());
        assert_eq!(w.problems.len(), 1);
        let p = &w.problems[0];
        assert_eq!(
            p.path.strip_prefix(t.path()).unwrap().components().count(),
            257
        );
        let d = p.diagnostic("x");
        assert_eq!(d.code, E_WALK_LIMIT);
        assert!(
            d.message.contains("deeper than 256 levels"),
            "{}",
            d.message
        );
    }

    #[test]
    fn the_entry_limit_stops_the_walk_and_says_so() {
        let t = tempfile::tempdir().unwrap();
        for i in 0..10 {
            touch(&t.path().join(format!("{i}.bpg")));
        }
        let mut policy = Policy::new(&bpg);
        policy.max_entries = 4;
        let w = walk(t.path(), &policy).unwrap();
        assert!(w.files.len() <= 4);
        assert!(matches!(
            w.problems[..],
            [Problem {
                kind: ProblemKind::TooMany(4),
                ..
            }]
        ));
    }

    #[test]
    fn the_root_must_be_a_readable_folder() {
        let t = tempfile::tempdir().unwrap();
        touch(&t.path().join("f.bpg"));
        assert!(walk(&t.path().join("f.bpg"), &Policy::new(&bpg)).is_err());
        assert!(walk(&t.path().join("missing"), &Policy::new(&bpg)).is_err());
    }
}
