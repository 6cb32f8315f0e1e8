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
use std::time::Duration;

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

/// A debounced recursive watcher on some folders, yielding batches of changed paths.
pub struct Watcher {
    _debouncer: Debouncer<RecommendedWatcher, RecommendedCache>,
    rx: mpsc::Receiver<DebounceEventResult>,
    filter: Vec<(PathBuf, PathBuf)>,
}

impl Watcher {
    /// Watches every folder (or file) in `paths` recursively.
    pub fn new(ctx: &Ctx, paths: &[PathBuf]) -> Result<Watcher, String> {
        let (tx, rx) = mpsc::channel::<DebounceEventResult>();
        let mut debouncer =
            new_debouncer(DEBOUNCE, None, tx).map_err(|e| format!("cannot watch: {e}"))?;
        let mut filter = Vec::new();
        for p in paths {
            debouncer
                .watch(p, RecursiveMode::Recursive)
                .map_err(|e| format!("cannot watch {}: {e}", ctx.display(p)))?;
            filter.push((p.canonicalize().unwrap_or_else(|_| p.clone()), p.clone()));
        }
        Ok(Watcher {
            _debouncer: debouncer,
            rx,
            filter,
        })
    }

    /// The next non-empty batch of changed paths under the watched folders; `Err(true)` when
    /// the watcher stopped, `Err(false)` when `timeout` passed first.
    pub fn next_batch(&self, timeout: Option<Duration>) -> Result<Vec<PathBuf>, bool> {
        loop {
            let batch = match timeout {
                None => self.rx.recv().map_err(|_| true)?,
                Some(t) => self.rx.recv_timeout(t).map_err(|e| match e {
                    mpsc::RecvTimeoutError::Timeout => false,
                    mpsc::RecvTimeoutError::Disconnected => true,
                })?,
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
                    self.filter
                        .iter()
                        .any(|(c, raw)| p.starts_with(c) || p.starts_with(raw))
                })
                .collect();
            if !changed.is_empty() {
                return Ok(changed.into_iter().collect());
            }
        }
    }
}
