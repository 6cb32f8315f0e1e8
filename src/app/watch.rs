//! The file-system watcher behind `sinew watch`, `sinew studio` and `sinew run --watch`:
//! debounced batches of the paths that changed under the watched folders (plus the folders the
//! scenes read from), re-armed on folders that vanish and return. `watch` and the studio hand
//! the batches to one [`Workspace`](crate::workspace::Workspace) (`Workspace::refresh`):
//! `watch` prints its state, the studio turns its changes into Server-Sent Events; `run
//! --watch` reloads its scene.

use super::Ctx;
pub use notify_debouncer_full::notify::RecursiveMode;
use notify_debouncer_full::notify::{EventKind, RecommendedWatcher};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long the watcher waits for a burst of events to settle.
pub const DEBOUNCE: Duration = Duration::from_millis(150);

/// How often the watcher checks that each watched folder is still the folder it watches.
pub const POLL: Duration = Duration::from_millis(500);

/// What identifies a folder across a delete and re-create: device and inode (elsewhere, only
/// whether a folder is there). `None` when there is no folder at `p`.
fn folder_identity(p: &Path) -> Option<(u64, u64)> {
    let m = std::fs::metadata(p).ok().filter(|m| m.is_dir())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        Some((0, 0))
    }
}

/// One watched root: its spelling, its real path (events name either), how messages name it, and
/// the identity of the folder the watch is armed on (`None`: not armed, the folder is gone).
struct Root {
    /// "assets folder" or "folder", for the messages.
    what: &'static str,
    raw: PathBuf,
    canonical: PathBuf,
    shown: String,
    folder: bool,
    /// How the folder is watched.
    mode: RecursiveMode,
    armed: Option<(u64, u64)>,
}

/// One folder to watch: how messages name it ("assets folder", "folder"), its path, how it is
/// watched, and whether it may be missing at start (then it is waited for).
pub struct Folder {
    pub what: &'static str,
    pub path: PathBuf,
    pub mode: RecursiveMode,
    pub missing_ok: bool,
}

/// A debounced watcher on some folders (each recursively or not), yielding batches of changed
/// paths.
///
/// A watched folder may go away (deleted, renamed, replaced by a new folder of the same name): a
/// watch on it dies with it. So the watcher also looks at each folder's identity every [`POLL`]:
/// when a folder is gone it says so on stderr and reports the folder as changed (its files leave
/// the catalog and the checks); when a folder is there again it watches it anew, says so, and
/// reports the whole folder as changed (files created before the new watch was armed count too).
pub struct Watcher {
    debouncer: Debouncer<RecommendedWatcher, RecommendedCache>,
    rx: mpsc::Receiver<DebounceEventResult>,
    roots: Vec<Root>,
    /// Extra folders watched on their own (not recursively): see [`Watcher::follow`].
    extra: BTreeSet<PathBuf>,
}

impl Watcher {
    /// Watches the assets folder and every graph folder (or file) in `graphs` recursively.
    pub fn new(ctx: &Ctx, assets: &Path, graphs: &[PathBuf]) -> Result<Watcher, String> {
        Watcher::with_missing(ctx, assets, graphs, false)
    }

    /// As [`Watcher::new`]; with `missing_ok`, a path in `graphs` that is not there yet is
    /// waited for (as a vanished folder is) instead of failing (`sinew watch` of a PATH that
    /// does not exist yet). A file is watched through its folder, so an editor's rename-over
    /// save is seen.
    pub fn with_missing(
        ctx: &Ctx,
        assets: &Path,
        graphs: &[PathBuf],
        missing_ok: bool,
    ) -> Result<Watcher, String> {
        let folders: Vec<Folder> = std::iter::once(("assets folder", assets))
            .chain(graphs.iter().map(|g| ("folder", g.as_path())))
            .map(|(what, p)| Folder {
                what,
                path: p.to_path_buf(),
                mode: RecursiveMode::Recursive,
                missing_ok: missing_ok && what == "folder",
            })
            .collect();
        Watcher::folders(ctx, &folders)
    }

    /// Watches each of `folders` as it says (a file through its folder); each is re-armed when
    /// it is removed and comes back (see [`Watcher`]): `sinew watch`, the studio and `sinew run
    /// --watch` share this.
    pub fn folders(ctx: &Ctx, folders: &[Folder]) -> Result<Watcher, String> {
        let (tx, rx) = mpsc::channel::<DebounceEventResult>();
        let mut debouncer =
            new_debouncer(DEBOUNCE, None, tx).map_err(|e| format!("cannot watch: {e}"))?;
        let mut roots = Vec::new();
        for f in folders {
            let (what, p, mode) = (f.what, f.path.as_path(), f.mode);
            if f.missing_ok && !p.exists() {
                roots.push(Root {
                    what,
                    raw: p.to_path_buf(),
                    canonical: p.to_path_buf(),
                    shown: ctx.display(p),
                    folder: true,
                    mode,
                    armed: None,
                });
                continue;
            }
            let res = if p.is_file() {
                let parent = p.parent().filter(|d| !d.as_os_str().is_empty());
                debouncer.watch(
                    parent.unwrap_or(Path::new(".")),
                    RecursiveMode::NonRecursive,
                )
            } else {
                debouncer.watch(p, mode)
            };
            res.map_err(|e| format!("cannot watch {}: {e}", ctx.display(p)))?;
            let armed = folder_identity(p);
            roots.push(Root {
                what,
                raw: p.to_path_buf(),
                canonical: p.canonicalize().unwrap_or_else(|_| p.to_path_buf()),
                shown: ctx.display(p),
                folder: armed.is_some(),
                mode,
                armed,
            });
        }
        Ok(Watcher {
            debouncer,
            rx,
            roots,
            extra: BTreeSet::new(),
        })
    }

    /// Whether `p` is one of the watched folders themselves (a batch names one when it went
    /// away or came back).
    pub fn is_watched_folder(&self, p: &Path) -> bool {
        self.roots
            .iter()
            .any(|r| r.folder && (r.raw == p || r.canonical == p))
    }

    /// Also watches `folders` (each on its own, not recursively) and reports changes in them:
    /// the folders outside the roots that the scenes read from. Replaces the previous set.
    pub fn follow(&mut self, folders: BTreeSet<PathBuf>) {
        for gone in self.extra.difference(&folders) {
            let _ = self.debouncer.unwatch(gone);
        }
        for new in folders.difference(&self.extra) {
            if new.is_dir() {
                let _ = self.debouncer.watch(new, RecursiveMode::NonRecursive);
            }
        }
        self.extra = folders;
    }

    /// Re-arms the watch on every watched folder whose identity changed since it was armed and
    /// returns those folders (a folder that went away counts too).
    fn rearm(&mut self) -> Vec<PathBuf> {
        let mut changed = Vec::new();
        for root in self.roots.iter_mut().filter(|r| r.folder) {
            let now = folder_identity(&root.raw);
            if now == root.armed {
                continue;
            }
            if root.armed.is_some() {
                let _ = self.debouncer.unwatch(&root.raw); // usually gone with its folder already
            }
            let (what, shown) = (root.what, &root.shown);
            match now {
                None => eprintln!(
                    "warning: watch: the {what} {shown} is gone; \
                     watching for it to come back"
                ),
                Some(_) => match self.debouncer.watch(&root.raw, root.mode) {
                    Ok(()) => eprintln!("watch: the {what} {shown} is back; watching it"),
                    Err(e) => {
                        eprintln!("warning: watch: cannot watch {shown} yet: {e}; retrying");
                        continue;
                    }
                },
            }
            root.armed = now;
            root.canonical = root.raw.canonicalize().unwrap_or_else(|_| root.raw.clone());
            changed.push(root.raw.clone());
        }
        changed
    }

    /// The next non-empty batch of changed paths under the watched folders; `Err(true)` when
    /// the watcher stopped, `Err(false)` when `timeout` passed first.
    pub fn next_batch(&mut self, timeout: Option<Duration>) -> Result<Vec<PathBuf>, bool> {
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            let rearmed = self.rearm();
            if !rearmed.is_empty() {
                return Ok(rearmed);
            }
            let wait = match deadline {
                None => POLL,
                Some(d) => {
                    let left = d.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Err(false);
                    }
                    left.min(POLL)
                }
            };
            let batch = match self.rx.recv_timeout(wait) {
                Ok(b) => b,
                Err(mpsc::RecvTimeoutError::Timeout) => continue,
                Err(mpsc::RecvTimeoutError::Disconnected) => return Err(true),
            };
            let events = match batch {
                Ok(ev) => ev,
                Err(errors) => {
                    for e in errors {
                        eprintln!("warning: watch: {e}");
                    }
                    continue;
                }
            };
            let changed: BTreeSet<PathBuf> = events
                .iter()
                // Reading files (our own refresh included) reports access events: never a change.
                .filter(|e| !matches!(e.event.kind, EventKind::Access(_)))
                .flat_map(|e| e.event.paths.iter().cloned())
                .filter(|p| {
                    self.roots
                        .iter()
                        .any(|r| p.starts_with(&r.canonical) || p.starts_with(&r.raw))
                        || p.parent().is_some_and(|d| self.extra.contains(d))
                })
                .collect();
            if !changed.is_empty() {
                return Ok(changed.into_iter().collect());
            }
        }
    }
}
