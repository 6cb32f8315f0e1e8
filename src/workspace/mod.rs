//! The project checker: everything `sinew check` reports about some paths and an assets
//! folder — the catalog, every graph compiled against it, every `.skel` and `.animsm`, every
//! scene loaded through the project loader — kept as state that [`Workspace::refresh`] brings
//! up to date from the paths a file-system watcher reports. `sinew check` and `build` report a
//! fresh [`Workspace`]; `sinew watch` and `sinew studio` (its graph list, its `file` and
//! `check` events: [`Refresh::files`], [`Refresh::checks`]) drive one. One pipeline: the
//! loader (`crate::project`), the compiler (`crate::compile`) and the catalog
//! (`crate::catalog::scan`) do the work.
//!
//! A refresh re-checks only what may have changed: the catalog incrementally from the changed
//! asset paths; a graph when its bytes changed or the catalog's events or diagnostics did (it
//! compiles against them); a `.skel`/`.animsm` when its bytes changed; a scene when it is new,
//! the catalog changed, or a changed path is one of the files its load read or tried to read
//! (scene, graphs, clips, skeletons, state machines, source skeletons) or lies in a folder it
//! listed (skeleton discovery). Folders that vanish are reported (`E0001`) rather than left
//! silent, and picked up again when they return.
//!
//! Does file-system I/O (reads and folder walks); never writes.

mod files;
mod graph;

pub use files::{FileKind, Found, MAX_WALK_ENTRIES, key, load_recorded, walk};
pub use graph::{GraphState, read_graph, unreadable, version_of};

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::anim::load_skeleton_bytes;
use crate::anim::state_machine as sm;
use crate::catalog::display_path;
use crate::catalog::scan::{E_UNREADABLE, LiveCatalog};
use crate::compile::{self, Compiled};
use crate::diag::{self, Diagnostic, SourceFile};
use crate::fsutil::walk::{Problem, ProblemKind};
use crate::fsutil::{InputError, InputKind, read_input};
use crate::palette::{self, PaletteDelta};
use crate::project::{self, FsSource, LoadError};

/// One checked `.skel`, `.animsm` or scene.
#[derive(Debug)]
struct FileState {
    source: Option<SourceFile>,
    diagnostics: Vec<Diagnostic>,
    /// The [`version_of`] its bytes (skeletons and state machines; `None` when unreadable).
    version: Option<String>,
    /// Scenes: the files the load read or tried to read, and the folders it listed ([`key`]s).
    reads: BTreeSet<PathBuf>,
    folders: BTreeSet<PathBuf>,
}

impl FileState {
    /// Whether a change of `k` (a [`key`]) may change this file's result: it read (or tried to
    /// read) `k` or a file under it (a folder renamed or removed), or listed `k`'s folder.
    fn depends_on(&self, k: &Path) -> bool {
        self.reads
            .range(k.to_path_buf()..)
            .next()
            .is_some_and(|r| r.starts_with(k))
            || k.parent().is_some_and(|p| self.folders.contains(p))
    }
}

/// What one [`Workspace::refresh`] changed and did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Refresh {
    /// The palette delta of the catalog refresh.
    pub palette: PaletteDelta,
    /// Whether the catalog's own diagnostics changed (a quarantine came or went).
    pub catalog_diagnostics_changed: bool,
    /// Graphs, skeletons, state machines and scenes checked again (display names, sorted).
    pub rechecked: Vec<String>,
    /// Graphs whose bytes changed: `(name, version)`, sorted; `None` when the file is gone or
    /// can no longer be read (there are no bytes to give a version of).
    pub files: Vec<(String, Option<String>)>,
    /// Graphs whose diagnostics changed: `(name, diagnostics)`, sorted; a graph that is gone
    /// has none.
    pub checks: Vec<(String, Vec<Diagnostic>)>,
}

impl Refresh {
    /// Nothing changed that a front end reports (palette, catalog diagnostics, graph files or
    /// graph checks).
    pub fn is_empty(&self) -> bool {
        self.palette.is_empty()
            && !self.catalog_diagnostics_changed
            && self.files.is_empty()
            && self.checks.is_empty()
    }
}

/// What one walk of the roots changed.
#[derive(Default)]
struct Changes {
    rechecked: Vec<String>,
    files: Vec<(String, Option<String>)>,
    checks: Vec<(String, Vec<Diagnostic>)>,
}

/// The checked state of some paths and an assets folder (see the module docs).
pub struct Workspace {
    cwd: Option<PathBuf>,
    /// Files under this folder are named relative to it (see [`Workspace::with_names`]).
    names: Option<PathBuf>,
    roots: Vec<PathBuf>,
    catalog: LiveCatalog,
    graphs: BTreeMap<PathBuf, GraphState>,
    files: BTreeMap<PathBuf, (Found, FileState)>,
    clip_skeletons: Vec<Diagnostic>,
    /// Each clip's `skeleton` field by the clip's bytes: a refresh parses only changed clips.
    clip_fields: project::ClipFieldMemo,
    /// Roots (and the assets folder) that are missing now (`E0001` each), and what the walks
    /// of the roots reported (`fsutil::walk`'s problems: names that are not UTF-8, folders too
    /// deep or unreadable).
    missing: Vec<Diagnostic>,
}

impl std::fmt::Debug for Workspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workspace")
            .field("roots", &self.roots)
            .field("graphs", &self.graphs.len())
            .field("files", &self.files.len())
            .finish()
    }
}

/// What is checked under the paths: graphs, skeletons, state machines and scenes.
fn in_paths(k: FileKind) -> bool {
    k != FileKind::Clip
}

/// What is checked under the assets folder besides the catalog: skeletons and state machines.
fn in_assets(k: FileKind) -> bool {
    matches!(k, FileKind::Skeleton | FileKind::StateMachine)
}

fn input_kind(k: FileKind) -> InputKind {
    match k {
        FileKind::Graph => InputKind::Graph,
        FileKind::Skeleton => InputKind::Skeleton,
        FileKind::StateMachine => InputKind::StateMachine,
        FileKind::Scene => InputKind::Scene,
        FileKind::Clip => InputKind::Clip,
    }
}

impl Workspace {
    /// Checks everything under `roots` (folders or files) against the scanned assets folder
    /// `catalog`; `cwd` is the folder display names are relative to (and relative paths are
    /// resolved against). A root that cannot be read is reported (`E0001`, see
    /// [`Workspace::missing`]) and checked once it can be read again.
    pub fn new(cwd: Option<&Path>, roots: &[PathBuf], catalog: LiveCatalog) -> Workspace {
        Workspace::with_names(cwd, roots, catalog, None)
    }

    /// As [`Workspace::new`], with the files under the folder `names` (resolved against `cwd`)
    /// named relative to it rather than to `cwd`: the studio names graphs relative to its
    /// graphs folder (`demo/hero.bpg`), in its answers and in their diagnostics.
    pub fn with_names(
        cwd: Option<&Path>,
        roots: &[PathBuf],
        catalog: LiveCatalog,
        names: Option<&Path>,
    ) -> Workspace {
        let resolve = |r: &Path| match cwd {
            Some(c) if r.is_relative() => c.join(r),
            _ => r.to_path_buf(),
        };
        let mut ws = Workspace {
            cwd: cwd.map(Path::to_path_buf),
            names: names.map(resolve),
            roots: roots.iter().map(|r| resolve(r)).collect(),
            catalog,
            graphs: BTreeMap::new(),
            files: BTreeMap::new(),
            clip_skeletons: Vec::new(),
            clip_fields: project::ClipFieldMemo::default(),
            missing: Vec::new(),
        };
        ws.update(true, &BTreeSet::new());
        ws.clip_skeletons = ws.check_clip_skeletons();
        ws
    }

    /// The roots (and the assets folder) that cannot be read now, each with its `E0001`.
    pub fn missing(&self) -> &[Diagnostic] {
        &self.missing
    }

    /// Whether a change of `p` (as a watcher reports it) may change what the workspace
    /// reports: it lies under a root or the assets folder, or a scene read (or tried to read)
    /// it or listed its folder.
    pub fn concerns(&self, p: &Path) -> bool {
        let cwd = self.cwd.as_deref();
        let k = key(cwd, p);
        let under_root = self
            .roots
            .iter()
            .chain([&self.assets()])
            .any(|r| k.starts_with(key(cwd, r)));
        under_root || self.files.values().any(|(_, s)| s.depends_on(&k))
    }

    /// The folders outside the roots and the assets folder that the scenes depend on (the
    /// folders of the files they read or tried to read, and the folders they listed), as
    /// absolute paths: what a watcher watches besides the roots.
    pub fn dependency_folders(&self) -> BTreeSet<PathBuf> {
        let cwd = self.cwd.as_deref();
        let roots: Vec<PathBuf> = self
            .roots
            .iter()
            .chain([&self.assets()])
            .map(|r| key(cwd, r))
            .collect();
        self.files
            .values()
            .flat_map(|(_, s)| {
                s.reads
                    .iter()
                    .filter_map(|r| r.parent())
                    .chain(s.folders.iter().map(PathBuf::as_path))
            })
            .filter(|d| !roots.iter().any(|r| d.starts_with(r)))
            .map(Path::to_path_buf)
            .collect()
    }

    /// How diagnostics name `p`.
    pub fn display(&self, p: &Path) -> String {
        let abs;
        let p = match &self.cwd {
            Some(c) if !p.is_absolute() => {
                abs = c.join(p);
                abs.as_path()
            }
            _ => p,
        };
        match &self.names {
            Some(n) if p.starts_with(n) => display_path(p, Some(n)),
            _ => display_path(p, self.cwd.as_deref()),
        }
    }

    /// The assets folder's catalog.
    pub fn catalog(&self) -> &LiveCatalog {
        &self.catalog
    }

    /// `p` resolved against the workspace's folder.
    fn resolve(&self, p: &Path) -> PathBuf {
        match &self.cwd {
            Some(c) if p.is_relative() => c.join(p),
            _ => p.to_path_buf(),
        }
    }

    /// The assets folder, resolved.
    fn assets(&self) -> PathBuf {
        self.resolve(self.catalog.root())
    }

    /// Every graph found under the paths, in path order.
    pub fn graphs(&self) -> impl Iterator<Item = &GraphState> {
        self.graphs.values()
    }

    /// The graph found under the paths whose display name is `name`.
    pub fn graph(&self, name: &str) -> Option<&GraphState> {
        self.graphs.values().find(|g| g.name() == name)
    }

    /// Reads and checks the graph at `path` now, exactly as a refresh would (the one reader,
    /// limit and diagnostics, against the current catalog), without keeping the result: what
    /// the studio serves. Fails only when the file cannot be read ([`unreadable`] is its
    /// diagnostic).
    pub fn check_graph_at(&self, path: &Path) -> Result<GraphState, InputError> {
        let bytes = read_graph(path)?;
        let f = Found {
            path: path.to_path_buf(),
            out: PathBuf::from(path.file_stem().unwrap_or_default()).with_extension("sbc"),
            kind: FileKind::Graph,
        };
        Ok(self.check_graph(&f, Ok(bytes)))
    }

    /// Compiles `text` as the graph named `name` against the current catalog (a graph that is
    /// not on disk: the studio's unsaved edits).
    pub fn compile_text(&self, name: &str, text: &str) -> Compiled {
        compile::compile(&SourceFile::new(name, text), self.catalog.catalog())
    }

    /// How many graphs were found under the paths.
    pub fn graph_count(&self) -> usize {
        self.graphs.len()
    }

    /// How many scenes were found under the paths.
    pub fn scene_count(&self) -> usize {
        self.files
            .values()
            .filter(|(f, _)| f.kind == FileKind::Scene)
            .count()
    }

    /// Every diagnostic, as `sinew check` reports them: the catalog's, the graphs', the
    /// skeletons', state machines' and scenes' (a problem found twice — a scene's graph also
    /// under the paths, a state machine on its own and for a scene — once), in canonical order.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        let mut all = self.catalog.catalog().diagnostics();
        all.extend(self.missing.iter().cloned());
        let key = |d: &Diagnostic| {
            (
                d.file.clone(),
                d.code,
                d.span.start,
                d.span.end,
                d.message.clone(),
            )
        };
        // A graph's diagnostics may repeat an asset's own (the real cause of an unknown
        // event, `compile::resolve`): each is reported once.
        let mut seen: BTreeSet<_> = all.iter().map(key).collect();
        for g in self.graphs.values() {
            for d in &g.diagnostics {
                if d.file == g.name() || seen.insert(key(d)) {
                    all.push(d.clone());
                }
            }
        }
        // The graphs under the paths are checked together: their custom events must agree.
        let payloads: Vec<(&SourceFile, compile::payload::Payloads)> = self
            .graphs
            .values()
            .filter_map(|g| {
                let c = g.compiled.as_ref()?;
                Some((
                    &g.source,
                    compile::payload::Payloads::of(&c.checked.graph, &c.checked.spans),
                ))
            })
            .collect();
        let graphs: Vec<(&SourceFile, &compile::payload::Payloads)> =
            payloads.iter().map(|(s, p)| (*s, p)).collect();
        all.extend(compile::payload::conflicts(&graphs));
        seen.extend(all.iter().map(key));
        let rest = self
            .files
            .values()
            .flat_map(|(_, s)| &s.diagnostics)
            .chain(&self.clip_skeletons);
        for d in rest {
            if seen.insert(key(d)) {
                all.push(d.clone());
            }
        }
        diag::sort(&mut all);
        all
    }

    /// Brings the state up to date after the watcher reported `changed` paths (created,
    /// modified, removed or renamed; absolute or as given). See the module docs for what is
    /// re-checked.
    pub fn refresh(&mut self, changed: &[PathBuf]) -> Refresh {
        let before = self.catalog.catalog().diagnostics();
        let root = self.assets();
        let root_key = key(self.cwd.as_deref(), &root);
        // A vanished or returned assets folder: rescan it whole.
        let was_missing = self
            .missing
            .iter()
            .any(|d| d.code == E_UNREADABLE && d.file == self.display(&root));
        let delta = if was_missing != root.is_dir() {
            self.catalog
                .refresh(std::slice::from_ref(&self.catalog.root().to_path_buf()))
        } else {
            self.catalog.refresh(changed)
        };
        let catalog_diagnostics_changed = before != self.catalog.catalog().diagnostics();
        let catalog_changed = !delta.is_empty() || catalog_diagnostics_changed;
        let keys: BTreeSet<PathBuf> = changed
            .iter()
            .map(|p| key(self.cwd.as_deref(), p))
            .collect();
        let changes = self.update(catalog_changed, &keys);
        if catalog_changed
            || keys
                .iter()
                .any(|k| k.starts_with(&root_key) || root_key.starts_with(k))
        {
            self.clip_skeletons = self.check_clip_skeletons();
        }
        Refresh {
            palette: palette::delta_with(&delta, Some(self.catalog.catalog())),
            catalog_diagnostics_changed,
            rechecked: changes.rechecked,
            files: changes.files,
            checks: changes.checks,
        }
    }

    /// Walks the roots and (re-)checks what `everything` or the changed `keys` call for.
    fn update(&mut self, everything: bool, keys: &BTreeSet<PathBuf>) -> Changes {
        let root = self.assets();
        self.missing.clear();
        let mut found: BTreeSet<Found> = BTreeSet::new();
        for r in self.roots.clone().iter().chain([&root]) {
            let keep: &dyn Fn(FileKind) -> bool = if *r == root { &in_assets } else { &in_paths };
            match walk(r, keep) {
                Ok((f, problems)) => {
                    found.extend(f);
                    // The catalog's walk of the assets folder reports its folders; this walk
                    // adds the skeletons and state machines it could not name.
                    let named =
                        |p: &&Problem| *r != root || matches!(p.kind, ProblemKind::NotUtf8(_));
                    for p in problems.iter().filter(named) {
                        self.missing.push(p.diagnostic(&self.display(&p.path)));
                    }
                }
                Err(e) => {
                    let what = if *r == root { "assets folder" } else { "path" };
                    let name = self.display(r);
                    self.missing.push(
                        Diagnostic::error(E_UNREADABLE, format!("cannot read {what} {name}: {e}"))
                            .in_file(&name)
                            .with_note("nothing under it is checked until it can be read again"),
                    );
                }
            }
        }
        // Each file once, by its real path, however often it is named (directly, through its
        // folder, through a symbolic link).
        let mut real = BTreeSet::new();
        found.retain(|f| real.insert(key(None, &f.path)));
        let mut ch = Changes::default();
        // Graphs: compiled in parallel, when new, changed or the catalog changed.
        let graphs: Vec<&Found> = found.iter().filter(|f| f.kind == FileKind::Graph).collect();
        let todo: Vec<(&Found, Result<Vec<u8>, InputError>)> = graphs
            .iter()
            .filter_map(|f| {
                let bytes = read_graph(&f.path);
                let old = self.graphs.get(&f.path);
                let same = old.is_some_and(|o| {
                    o.version.is_some() && o.version == bytes.as_deref().ok().map(version_of)
                });
                (everything || !same).then_some((*f, bytes))
            })
            .collect();
        let done: Vec<GraphState> = todo
            .into_par_iter()
            .map(|(f, bytes)| self.check_graph(f, bytes))
            .collect();
        for g in done {
            let name = g.name().to_string();
            let old = self.graphs.get(&g.file.path);
            if old.is_none_or(|o| o.version != g.version) {
                ch.files.push((name.clone(), g.version.clone()));
            }
            if old.is_none_or(|o| o.diagnostics != g.diagnostics) {
                ch.checks.push((name.clone(), g.diagnostics.clone()));
            }
            ch.rechecked.push(name);
            self.graphs.insert(g.file.path.clone(), g);
        }
        let keep: BTreeSet<&PathBuf> = graphs.iter().map(|f| &f.path).collect();
        for (_, gone) in self.graphs.extract_if(.., |p, _| !keep.contains(p)) {
            ch.files.push((gone.name().to_string(), None));
            if !gone.diagnostics.is_empty() {
                ch.checks.push((gone.name().to_string(), Vec::new()));
            }
        }
        // Skeletons, state machines and scenes.
        let others: Vec<&Found> = found.iter().filter(|f| f.kind != FileKind::Graph).collect();
        for f in &others {
            let old = self.files.get(&f.path).map(|(_, s)| s);
            let stale = match (f.kind, old) {
                (_, None) => true,
                (FileKind::Scene, Some(s)) => everything || keys.iter().any(|k| s.depends_on(k)),
                (kind, Some(s)) => {
                    everything
                        || read_input(&f.path, input_kind(kind))
                            .ok()
                            .map(|b| version_of(&b))
                            != s.version
                }
            };
            if !stale {
                continue;
            }
            let st = match f.kind {
                FileKind::Scene => self.check_scene(f),
                _ => self.check_animation_file(f),
            };
            ch.rechecked.push(self.display(&f.path));
            self.files.insert(f.path.clone(), ((*f).clone(), st));
        }
        let keep: BTreeSet<&PathBuf> = others.iter().map(|f| &f.path).collect();
        self.files.retain(|p, _| keep.contains(p));
        ch.rechecked.sort();
        ch.files.sort();
        ch.checks.sort_by(|a, b| a.0.cmp(&b.0));
        ch
    }

    fn check_graph(&self, f: &Found, bytes: Result<Vec<u8>, InputError>) -> GraphState {
        GraphState::check(f, self.display(&f.path), bytes, self.catalog.catalog())
    }

    fn check_animation_file(&self, f: &Found) -> FileState {
        let name = self.display(&f.path);
        let kind = input_kind(f.kind);
        let mut st = FileState {
            source: None,
            diagnostics: Vec::new(),
            version: None,
            reads: BTreeSet::new(),
            folders: BTreeSet::new(),
        };
        let bytes = match read_input(&f.path, kind) {
            Ok(b) => b,
            Err(e) => {
                st.diagnostics.push(unreadable(&name, &e));
                return st;
            }
        };
        st.version = Some(version_of(&bytes));
        let src = SourceFile::new(name.clone(), String::from_utf8_lossy(&bytes).into_owned());
        if kind == InputKind::Skeleton {
            st.diagnostics = load_skeleton_bytes(&name, &bytes).diagnostics;
        } else {
            let parsed = sm::parse_state_machine_bytes(&name, &bytes);
            st.diagnostics = parsed.diagnostics;
            if let Some(d) = parsed.def {
                st.diagnostics.extend(sm::validate(&d, &src, None));
            }
        }
        st.source = Some(src);
        st
    }

    /// Loads a scene exactly as `sinew run` does, against the workspace's catalog, recording
    /// what it reads.
    fn check_scene(&self, f: &Found) -> FileState {
        let name = self.display(&f.path);
        let cwd = self.cwd.as_deref();
        let mut st = FileState {
            source: None,
            diagnostics: Vec::new(),
            version: None,
            reads: BTreeSet::from([key(cwd, &f.path)]),
            folders: BTreeSet::new(),
        };
        let opened = FsSource::open(cwd, &f.path, &self.assets());
        let loaded = match &opened {
            Err(e) => Err(e.to_string()),
            Ok((source, layout)) => {
                let rec = files::Recording {
                    inner: source,
                    cwd,
                    reads: Default::default(),
                    folders: Default::default(),
                };
                let l = project::load_with_catalog(&rec, layout, self.catalog.catalog());
                st.reads.extend(rec.reads.into_inner());
                st.folders = rec.folders.into_inner();
                l.map_err(|e| match e {
                    LoadError::Scene { error, .. } | LoadError::Assets { error, .. } => {
                        error.to_string()
                    }
                })
            }
        };
        match loaded {
            Ok(l) => {
                st.diagnostics = l.diagnostics;
                st.source = Some(l.source);
            }
            Err(e) => st.diagnostics.push(
                Diagnostic::error(E_UNREADABLE, format!("cannot read file: {e}")).in_file(&name),
            ),
        }
        st
    }

    /// Every `.animseq` under the assets folder whose `skeleton` field names a source
    /// skeleton that leads outside the project, cannot be read or does not load (`W0563`), and
    /// the diagnostics of the imported models' manifests (`project::check_imports`).
    fn check_clip_skeletons(&self) -> Vec<Diagnostic> {
        let assets = &self.assets();
        let clips = walk(assets, &|k| k == FileKind::Clip).unwrap_or_default().0;
        let Ok((source, layout)) = FsSource::open(self.cwd.as_deref(), assets, assets) else {
            return Vec::new();
        };
        let clips: Vec<_> = clips
            .iter()
            .filter_map(|c| source.project_path(&c.path))
            .collect();
        let mut out =
            project::check_clip_skeletons_with(&source, &layout, &clips, &self.clip_fields);
        // The diagnostics of every imported model's manifest under the assets folder.
        out.extend(project::check_imports(&source, &layout));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLIP: &str = "AnimSeq(format: 2, id: \"steps\", name: \"Steps\", duration: 1.0, \
        tracks: [], notifies: [(id: \"a\", name: \"A\", time: 0.5)])\n";
    const GRAPH: &str = "graph steps\n\nnode on_a = event animseq::steps.a\n\
        node log = debug.log { message = \"a\" }\n\non_a.then -> log.exec\n";
    const OTHER: &str = "graph other\n\nnode go = event begin_play\n\
        node log = debug.log { message = \"x\" }\n\ngo.then -> log.exec\n";
    const SCENE: &str = "Scene(entities: [(name: \"hero\", animator: Some((clips: \
        {\"steps\": \"steps.animseq\"}, default_clip: Some(\"steps\"))), \
        graphs: [\"../graphs/steps.bpg\"])])\n";

    fn project() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for d in ["assets", "graphs", "scenes"] {
            std::fs::create_dir(root.join(d)).unwrap();
        }
        std::fs::write(root.join("assets/steps.animseq"), CLIP).unwrap();
        std::fs::write(root.join("graphs/steps.bpg"), GRAPH).unwrap();
        std::fs::write(root.join("graphs/other.bpg"), OTHER).unwrap();
        std::fs::write(root.join("scenes/hero.scene.ron"), SCENE).unwrap();
        let live = LiveCatalog::scan(&root.join("assets"), Some(root), None).unwrap();
        let roots = [PathBuf::from("graphs"), PathBuf::from("scenes")];
        let ws = Workspace::new(Some(root), &roots, live);
        (dir, ws)
    }

    #[test]
    fn a_refresh_rechecks_what_depends_on_the_change_and_nothing_else() {
        let (dir, mut ws) = project();
        let root = dir.path();
        assert_eq!(ws.diagnostics(), Vec::new());
        assert_eq!((ws.graph_count(), ws.scene_count()), (2, 1));

        // A graph the scene uses: that graph and the scene, not the other graph.
        let g = root.join("graphs/steps.bpg");
        std::fs::write(&g, GRAPH.replace("\"a\"", "\"b\"")).unwrap();
        let r = ws.refresh(std::slice::from_ref(&g));
        assert_eq!(r.rechecked, ["graphs/steps.bpg", "scenes/hero.scene.ron"]);

        // A graph no scene uses: that graph only.
        let o = root.join("graphs/other.bpg");
        std::fs::write(&o, OTHER.replace("\"x\"", "\"y\"")).unwrap();
        assert_eq!(
            ws.refresh(std::slice::from_ref(&o)).rechecked,
            ["graphs/other.bpg"]
        );

        // A path that changed nothing: nothing.
        assert_eq!(
            ws.refresh(std::slice::from_ref(&o)).rechecked,
            Vec::<String>::new()
        );

        // The clip's notifies: the catalog changed, so every graph and scene.
        let c = root.join("assets/steps.animseq");
        std::fs::write(&c, CLIP.replace("\"a\"", "\"a2\"")).unwrap();
        let r = ws.refresh(std::slice::from_ref(&c));
        assert_eq!(
            r.rechecked,
            [
                "graphs/other.bpg",
                "graphs/steps.bpg",
                "scenes/hero.scene.ron"
            ]
        );
        assert_eq!(r.palette.added, ["event animseq::steps.a2"]);
        let codes: Vec<&str> = ws.diagnostics().iter().map(|d| d.code).collect();
        assert_eq!(codes, ["E0312", "E0562"]);
    }

    #[test]
    fn a_refresh_lists_the_graph_files_and_checks_that_changed() {
        let (dir, _) = project();
        let root = dir.path();
        let live = LiveCatalog::scan(&root.join("assets"), Some(root), None).unwrap();
        let graphs = PathBuf::from("graphs");
        let mut ws = Workspace::with_names(
            Some(root),
            std::slice::from_ref(&graphs),
            live,
            Some(&graphs),
        );
        let names: Vec<&str> = ws.graphs().map(GraphState::name).collect();
        assert_eq!(
            names,
            ["other.bpg", "steps.bpg"],
            "named in the graphs folder"
        );

        // Bytes changed, diagnostics did not: a file change only.
        let o = root.join("graphs/other.bpg");
        let text = OTHER.replace("\"x\"", "\"y\"");
        std::fs::write(&o, &text).unwrap();
        let r = ws.refresh(std::slice::from_ref(&o));
        let v = version_of(text.as_bytes());
        assert_eq!(r.files, [("other.bpg".to_string(), Some(v.clone()))]);
        assert_eq!(r.checks, []);
        assert_eq!(ws.graph("other.bpg").unwrap().version, Some(v));

        // Broken: both; gone: the file and the check cleared.
        std::fs::write(&o, "graph other\nnode a = int.ad\n").unwrap();
        let r = ws.refresh(std::slice::from_ref(&o));
        assert_eq!(r.checks.len(), 1);
        assert_eq!(r.checks[0].1[0].file, "other.bpg");
        std::fs::remove_file(&o).unwrap();
        let r = ws.refresh(std::slice::from_ref(&o));
        assert_eq!(r.files, [("other.bpg".to_string(), None)]);
        assert_eq!(r.checks, [("other.bpg".to_string(), Vec::new())]);
        assert!(!r.is_empty());
        assert!(ws.refresh(std::slice::from_ref(&o)).is_empty());
    }

    #[test]
    fn concerns_covers_the_roots_and_what_scenes_read() {
        let (dir, ws) = project();
        let root = dir.path();
        assert!(ws.concerns(&root.join("graphs/new.bpg")));
        assert!(ws.concerns(&root.join("assets/x/y.animseq")));
        assert!(ws.concerns(Path::new("scenes/hero.scene.ron")));
        assert!(!ws.concerns(&root.join("elsewhere/x.bpg")));
        assert!(ws.dependency_folders().is_empty(), "all inside the roots");

        // Watching the scenes only: the graphs folder is a dependency.
        let live = LiveCatalog::scan(&root.join("assets"), Some(root), None).unwrap();
        let ws = Workspace::new(Some(root), &[PathBuf::from("scenes")], live);
        let graphs = root.join("graphs").canonicalize().unwrap();
        assert!(ws.dependency_folders().contains(&graphs));
        assert!(ws.concerns(&root.join("graphs/steps.bpg")));
        assert!(ws.concerns(&root.join("graphs")), "the folder itself going");
        assert!(!ws.concerns(&root.join("graphs/other.bpg")));
    }

    #[test]
    fn keys_of_gone_files_resolve_their_folder() {
        let dir = tempfile::tempdir().unwrap();
        let k = key(Some(dir.path()), Path::new("./gone/../x.bpg"));
        assert_eq!(k, dir.path().canonicalize().unwrap().join("x.bpg"));
    }
}
