//! The live project behind `sinew watch` and `sinew studio`: the assets folder's catalog and
//! the check results of every graph under the watched paths, kept current from the paths a
//! file-system watcher reports (debounced). One engine, two front ends: `watch` prints what
//! [`Live::refresh`] returns, the studio turns it into Server-Sent Events.
//!
//! A refresh costs the changed asset files (the catalog refreshes incrementally) plus one
//! compile per graph whose result may change: every graph when the published events changed,
//! else only the graph files whose bytes changed.

use super::Ctx;
use super::graphs::{self, GraphFile};
use crate::catalog::scan::LiveCatalog;
use crate::compile;
use crate::diag::{self, Diagnostic, SourceFile};
use crate::palette::{self, PaletteDelta};
use notify_debouncer_full::notify::{EventKind, RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long the watcher waits for a burst of events to settle.
pub const DEBOUNCE: Duration = Duration::from_millis(150);

/// The largest graph file the live project reads (bytes); larger files are a diagnostic.
pub const MAX_GRAPH_FILE: u64 = 64 * 1024 * 1024;

/// The version of a file's bytes: lowercase hexadecimal SHA-256.
pub fn version_of(bytes: &[u8]) -> String {
    let d = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in d {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// One graph's current state on disk.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphState {
    /// The path as found under its root (root joined with the relative path).
    pub path: PathBuf,
    /// The name diagnostics use for the file.
    pub name: String,
    /// The graph's `graph NAME` (empty when it does not parse that far).
    pub graph: String,
    /// SHA-256 of its bytes.
    pub version: String,
    /// Its diagnostics (read failures included), sorted.
    pub diagnostics: Vec<Diagnostic>,
    /// Its text (empty when unreadable; lossy when not UTF-8).
    pub source: std::sync::Arc<str>,
}

/// What one refresh changed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Update {
    /// The palette delta of the catalog refresh.
    pub palette: PaletteDelta,
    /// Whether the catalog's own diagnostics changed.
    pub catalog_diagnostics_changed: bool,
    /// Graphs whose diagnostics changed: `(name, diagnostics)`; removed graphs have none.
    pub checks: Vec<(String, Vec<Diagnostic>)>,
    /// Graph files whose bytes changed: `(name, version)`, `None` when the file is gone.
    pub files: Vec<(String, Option<String>)>,
}

impl Update {
    /// Nothing changed that anyone reports.
    pub fn is_empty(&self) -> bool {
        self.palette.is_empty()
            && !self.catalog_diagnostics_changed
            && self.checks.is_empty()
            && self.files.is_empty()
    }
}

/// How graph files are named in diagnostics and updates.
pub type Namer = Box<dyn Fn(&Path) -> String + Send + Sync>;

/// The catalog of an assets folder plus the checked graphs under some paths.
pub struct Live {
    catalog: LiveCatalog,
    roots: Vec<PathBuf>,
    namer: Namer,
    graphs: BTreeMap<String, GraphState>,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Live")
            .field("roots", &self.roots)
            .field("graphs", &self.graphs.len())
            .finish()
    }
}

impl Live {
    /// Starts from a scanned catalog and checks every graph under `roots` (folders or files).
    pub fn new(
        ctx: &Ctx,
        catalog: LiveCatalog,
        roots: &[PathBuf],
        namer: Namer,
    ) -> Result<Live, String> {
        let mut live = Live {
            catalog,
            roots: roots.to_vec(),
            namer,
            graphs: BTreeMap::new(),
        };
        let files = graphs::collect(ctx, &live.roots)?;
        for f in files {
            let st = live.check_file(&f);
            live.graphs.insert(st.name.clone(), st);
        }
        Ok(live)
    }

    /// The catalog.
    pub fn catalog(&self) -> &LiveCatalog {
        &self.catalog
    }

    /// Every graph's state, by name.
    pub fn graphs(&self) -> &BTreeMap<String, GraphState> {
        &self.graphs
    }

    /// The catalog's diagnostics and every graph's, sorted (what `watch` reports as `check`).
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        let mut all = self.catalog.catalog().diagnostics();
        for g in self.graphs.values() {
            all.extend(g.diagnostics.iter().cloned());
        }
        diag::sort(&mut all);
        all
    }

    /// Compiles `text` as the graph named `name` against the current catalog.
    pub fn check_text(&self, name: &str, text: &str) -> Vec<Diagnostic> {
        let src = SourceFile::new(name, text);
        compile::compile(&src, self.catalog.catalog())
            .diagnostics()
            .to_vec()
    }

    fn check_file(&self, f: &GraphFile) -> GraphState {
        let name = (self.namer)(&f.path);
        let read = read_bounded(&f.path);
        let mut source: std::sync::Arc<str> = std::sync::Arc::from("");
        let (version, graph, diagnostics) = match read {
            Err(msg) => (
                String::new(),
                String::new(),
                vec![Diagnostic::error(crate::catalog::scan::E_UNREADABLE, msg).in_file(&name)],
            ),
            Ok(bytes) => {
                let version = version_of(&bytes);
                match String::from_utf8(bytes) {
                    Err(e) => {
                        let src = SourceFile::new(
                            name.clone(),
                            String::from_utf8_lossy(e.as_bytes()).into_owned(),
                        );
                        let at = e.utf8_error().valid_up_to();
                        source = src.shared_text();
                        let d = Diagnostic::error(diag::E_NOT_UTF8, "file is not valid UTF-8")
                            .at(&src, diag::Span::new(at, at + 1));
                        (version, String::new(), vec![d])
                    }
                    Ok(text) => {
                        let src = SourceFile::new(name.clone(), text);
                        source = src.shared_text();
                        let c = compile::compile(&src, self.catalog.catalog());
                        let graph = c.checked.graph.name.clone();
                        (version, graph, c.diagnostics().to_vec())
                    }
                }
            }
        };
        GraphState {
            path: f.path.clone(),
            name,
            graph,
            version,
            diagnostics,
            source,
        }
    }

    /// Refreshes from paths a watcher reported (absolute or as spelled; created, modified,
    /// removed or renamed). Asset paths refresh the catalog incrementally; when the published
    /// events or their shapes changed every graph is re-checked, else only graph files whose
    /// bytes changed.
    pub fn refresh(&mut self, ctx: &Ctx, changed: &[PathBuf]) -> Update {
        let before = self.catalog.catalog().diagnostics();
        let delta = self.catalog.refresh(changed);
        let after = self.catalog.catalog().diagnostics();
        let events_changed =
            !delta.added.is_empty() || !delta.removed.is_empty() || !delta.changed.is_empty();
        let mut up = Update {
            palette: palette::delta(&delta),
            // Quarantines change the diagnostics and what graphs resolve to.
            catalog_diagnostics_changed: before != after,
            ..Update::default()
        };
        let recheck_all = events_changed || up.catalog_diagnostics_changed;
        // A missing root (deleted folder) leaves no graphs rather than failing the refresh.
        let roots: Vec<PathBuf> = self.roots.iter().filter(|r| r.exists()).cloned().collect();
        let files = graphs::collect(ctx, &roots).unwrap_or_default();
        let mut seen = BTreeSet::new();
        for f in &files {
            let name = (self.namer)(&f.path);
            seen.insert(name.clone());
            let old = self.graphs.get(&name);
            let unchanged_bytes = old.is_some_and(|o| {
                read_bounded(&f.path)
                    .is_ok_and(|b| !o.version.is_empty() && version_of(&b) == o.version)
            });
            if unchanged_bytes && !recheck_all {
                continue;
            }
            let st = self.check_file(f);
            if old.map(|o| &o.version) != Some(&st.version) {
                up.files.push((name.clone(), Some(st.version.clone())));
            }
            if old.map(|o| &o.diagnostics) != Some(&st.diagnostics) {
                up.checks.push((name.clone(), st.diagnostics.clone()));
            }
            self.graphs.insert(name, st);
        }
        let gone: Vec<String> = self
            .graphs
            .keys()
            .filter(|k| !seen.contains(*k))
            .cloned()
            .collect();
        for name in gone {
            if let Some(old) = self.graphs.remove(&name) {
                up.files.push((name.clone(), None));
                if !old.diagnostics.is_empty() {
                    up.checks.push((name, Vec::new()));
                }
            }
        }
        up.files.sort();
        up.checks.sort_by(|a, b| a.0.cmp(&b.0));
        up
    }
}

fn read_bounded(path: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let f = std::fs::File::open(path).map_err(|e| format!("cannot read file: {e}"))?;
    let mut buf = Vec::new();
    f.take(MAX_GRAPH_FILE + 1)
        .read_to_end(&mut buf)
        .map_err(|e| format!("cannot read file: {e}"))?;
    if buf.len() as u64 > MAX_GRAPH_FILE {
        return Err(format!(
            "file is larger than {MAX_GRAPH_FILE} bytes, the most a graph may be"
        ));
    }
    Ok(buf)
}

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
    armed: Option<(u64, u64)>,
}

/// A debounced recursive watcher on some folders, yielding batches of changed paths.
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
        let (tx, rx) = mpsc::channel::<DebounceEventResult>();
        let mut debouncer =
            new_debouncer(DEBOUNCE, None, tx).map_err(|e| format!("cannot watch: {e}"))?;
        let mut roots = Vec::new();
        let paths = std::iter::once(("assets folder", assets))
            .chain(graphs.iter().map(|g| ("folder", g.as_path())));
        for (what, p) in paths {
            if missing_ok && what == "folder" && !p.exists() {
                roots.push(Root {
                    what,
                    raw: p.to_path_buf(),
                    canonical: p.to_path_buf(),
                    shown: ctx.display(p),
                    folder: true,
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
                debouncer.watch(p, RecursiveMode::Recursive)
            };
            res.map_err(|e| format!("cannot watch {}: {e}", ctx.display(p)))?;
            let armed = folder_identity(p);
            roots.push(Root {
                what,
                raw: p.to_path_buf(),
                canonical: p.canonicalize().unwrap_or_else(|_| p.to_path_buf()),
                shown: ctx.display(p),
                folder: armed.is_some(),
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
                Some(_) => match self.debouncer.watch(&root.raw, RecursiveMode::Recursive) {
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
