//! Feeding the library loader from Bevy's asset reader. `project::load` reads synchronously
//! through a [`Source`]; Bevy reads asynchronously. So a load runs in rounds against an
//! in-memory project ([`MemSource`]): the `.animseq` files of the assets folder first (the
//! catalog needs every one), then `project::load` runs, every file it asked for and did not
//! get (and every folder it listed for source-skeleton discovery, and every import folder's
//! `manifest.ron`) is read through Bevy, and
//! the load runs again — until it asks for nothing new. Each file is read bounded by its
//! [`InputKind`] limit first, then once more with `LoadContext::read_asset_bytes`, which makes
//! it a dependency: Bevy reloads the scene (or graph) when it changes.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use bevy_asset::io::{AssetSourceId, ErasedAssetReader};
use bevy_asset::{AssetPath, AssetServer, LoadContext};
use futures_lite::{AsyncReadExt, StreamExt};

use crate::catalog::Catalog;
use crate::project::{
    self, InputKind, Layout, LoadError, LoadedScene, MemSource, ProjectPath, ReadError, Source,
};

/// Most files one walk of an assets folder visits.
pub const MAX_FILES: usize = 100_000;
/// Deepest folder nesting one walk enters.
pub const MAX_DEPTH: usize = 32;
/// Most loader rounds of one scene (each round reads at least one new file).
pub const MAX_ROUNDS: usize = 256;

/// The files gathered so far for one load.
pub(super) struct Gatherer<'s> {
    server: &'s AssetServer,
    mem: MemSource,
    tried: BTreeSet<ProjectPath>,
    /// Folder → the names of the files in it, as the asset reader listed them.
    listed: BTreeMap<ProjectPath, Vec<String>>,
    listed_folders: BTreeSet<ProjectPath>,
}

fn as_path(p: &ProjectPath) -> PathBuf {
    PathBuf::from(p.as_str())
}

impl<'s> Gatherer<'s> {
    pub(super) fn new(server: &'s AssetServer) -> Gatherer<'s> {
        Gatherer {
            server,
            mem: MemSource::new(),
            tried: BTreeSet::new(),
            listed: BTreeMap::new(),
            listed_folders: BTreeSet::new(),
        }
    }

    fn reader(&self) -> Option<&'s dyn ErasedAssetReader> {
        self.server
            .get_source(AssetSourceId::Default)
            .ok()
            .map(|s| s.reader())
    }

    /// Adds a file read elsewhere (the asset's own bytes).
    pub(super) fn insert(&mut self, path: ProjectPath, bytes: Vec<u8>) {
        self.tried.insert(path.clone());
        self.mem.insert(path, bytes);
    }

    /// Reads `path` (at most `kind`'s limit plus one byte, so an oversized file is refused as
    /// too large by the loader) and registers it as a dependency of the load.
    async fn fetch(&mut self, ctx: &mut LoadContext<'_>, path: &ProjectPath, kind: InputKind) {
        self.tried.insert(path.clone());
        let Some(reader) = self.reader() else { return };
        let file = as_path(path);
        let limit = kind.limit();
        let mut bytes = Vec::new();
        {
            let Ok(mut r) = reader.read(&file).await else {
                return;
            };
            if (&mut r)
                .take(limit.saturating_add(1))
                .read_to_end(&mut bytes)
                .await
                .is_err()
            {
                return;
            }
        }
        if bytes.len() as u64 <= limit {
            match ctx.read_asset_bytes(AssetPath::from(file)).await {
                Ok(b) if b.len() as u64 <= limit => bytes = b,
                _ => return,
            }
        }
        self.mem.insert(path.clone(), bytes);
    }

    /// The entries of folder `dir` (files and folders), sorted; empty when it cannot be read.
    async fn entries(&self, dir: &ProjectPath) -> Vec<(ProjectPath, bool)> {
        let Some(reader) = self.reader() else {
            return Vec::new();
        };
        let Ok(mut stream) = reader.read_directory(&as_path(dir)).await else {
            return Vec::new();
        };
        let mut names = Vec::new();
        while let Some(p) = stream.next().await {
            if names.len() >= MAX_FILES {
                break;
            }
            names.push(p);
        }
        names.sort();
        let mut out = Vec::new();
        for p in names {
            let Some(pp) = p.to_str().and_then(|s| ProjectPath::new(s).ok()) else {
                continue;
            };
            let is_dir = reader.is_directory(&p).await.unwrap_or(false);
            out.push((pp, is_dir));
        }
        out
    }

    /// Reads every `.animseq` and `*.nodes.ron` under `assets` (the catalog's files: clips and
    /// game node declarations), bounded by [`MAX_FILES`]
    /// and [`MAX_DEPTH`].
    pub(super) async fn walk_clips(&mut self, ctx: &mut LoadContext<'_>, assets: &ProjectPath) {
        let mut stack = vec![(assets.clone(), 0usize)];
        let mut seen = 0usize;
        while let Some((dir, depth)) = stack.pop() {
            for (p, is_dir) in self.entries(&dir).await.into_iter().rev() {
                seen += 1;
                if seen > MAX_FILES {
                    return;
                }
                if is_dir {
                    if depth < MAX_DEPTH {
                        stack.push((p, depth + 1));
                    }
                } else if (p.as_str().ends_with(".animseq")
                    || crate::nodes::game::is_nodes_file(p.as_str()))
                    && !self.tried.contains(&p)
                {
                    self.fetch(ctx, &p, InputKind::Clip).await;
                }
            }
        }
    }

    /// Lists the files of folder `dir` (what the loader's `Source::list` answers from now on)
    /// and reads its `.skel` files (source-skeleton discovery reads them next).
    async fn list(&mut self, ctx: &mut LoadContext<'_>, dir: &ProjectPath) {
        let mut names = Vec::new();
        for (p, is_dir) in self.entries(dir).await {
            if is_dir {
                continue;
            }
            names.push(p.file_name().to_string());
            if p.as_str().ends_with(".skel") && !self.tried.contains(&p) {
                self.fetch(ctx, &p, InputKind::Skeleton).await;
            }
        }
        self.listed.insert(dir.clone(), names);
    }

    /// Reads the `manifest.ron` of every folder in `dir` (import manifests: a folder without
    /// one is not an import).
    async fn subfolders(&mut self, ctx: &mut LoadContext<'_>, dir: &ProjectPath) {
        self.listed_folders.insert(dir.clone());
        for (p, is_dir) in self.entries(dir).await {
            if let (true, Ok(m)) = (is_dir, p.join("manifest.ron"))
                && !self.tried.contains(&m)
            {
                self.fetch(ctx, &m, InputKind::Manifest).await;
            }
        }
    }

    /// The names of the files in folder `dir` as listed by a round (empty when none listed it).
    pub(super) fn files_in(&self, dir: &ProjectPath) -> Vec<String> {
        self.listed.get(dir).cloned().unwrap_or_default()
    }

    /// The catalog of the `.animseq` files gathered under `assets`.
    pub(super) fn catalog(&self, assets: &ProjectPath) -> Catalog {
        self.mem.catalog(assets).unwrap_or_default()
    }

    /// Runs the library loader in rounds until it asks for nothing new (see the module docs).
    pub(super) async fn load_scene(
        &mut self,
        ctx: &mut LoadContext<'_>,
        layout: &Layout,
    ) -> Result<LoadedScene, LoadError> {
        self.rounds(ctx, |source| project::load(source, layout))
            .await
    }

    /// Runs `read` (a library reader over a [`Source`]) against the files gathered so far, reads
    /// what it asked for and did not get, and runs it again — until it asks for nothing new
    /// (at most [`MAX_ROUNDS`] rounds). Returns its last result.
    pub(super) async fn rounds<T>(
        &mut self,
        ctx: &mut LoadContext<'_>,
        read: impl Fn(&dyn Source) -> T,
    ) -> T {
        let mut round = 0;
        loop {
            let (result, missing, lists, folder_lists) = {
                let rec = Recording {
                    mem: &self.mem,
                    tried: &self.tried,
                    listed: &self.listed,
                    listed_folders: &self.listed_folders,
                    missing: RefCell::new(Vec::new()),
                    lists: RefCell::new(Vec::new()),
                    folder_lists: RefCell::new(Vec::new()),
                };
                let result = read(&rec);
                (
                    result,
                    rec.missing.into_inner(),
                    rec.lists.into_inner(),
                    rec.folder_lists.into_inner(),
                )
            };
            round += 1;
            let done = missing.is_empty() && lists.is_empty() && folder_lists.is_empty();
            if done || round >= MAX_ROUNDS {
                return result;
            }
            for d in folder_lists {
                if !self.listed_folders.contains(&d) {
                    self.subfolders(ctx, &d).await;
                }
            }
            for (p, kind) in missing {
                if !self.tried.contains(&p) {
                    self.fetch(ctx, &p, kind).await;
                }
            }
            for d in lists {
                if !self.listed.contains_key(&d) {
                    self.list(ctx, &d).await;
                }
            }
        }
    }
}

/// The in-memory project, noting what a load asked for and did not find.
struct Recording<'a> {
    mem: &'a MemSource,
    tried: &'a BTreeSet<ProjectPath>,
    listed: &'a BTreeMap<ProjectPath, Vec<String>>,
    listed_folders: &'a BTreeSet<ProjectPath>,
    missing: RefCell<Vec<(ProjectPath, InputKind)>>,
    lists: RefCell<Vec<ProjectPath>>,
    folder_lists: RefCell<Vec<ProjectPath>>,
}

impl Source for Recording<'_> {
    fn read(&self, path: &ProjectPath, kind: InputKind) -> Result<Vec<u8>, ReadError> {
        let r = self.mem.read(path, kind);
        if r.is_err() && !self.tried.contains(path) {
            self.missing.borrow_mut().push((path.clone(), kind));
        }
        r
    }

    fn list(&self, dir: &ProjectPath) -> Vec<String> {
        match self.listed.get(dir) {
            Some(names) => names.clone(),
            None => {
                self.lists.borrow_mut().push(dir.clone());
                self.mem.list(dir)
            }
        }
    }

    fn folders(&self, dir: &ProjectPath) -> Vec<String> {
        if !self.listed_folders.contains(dir) {
            self.folder_lists.borrow_mut().push(dir.clone());
        }
        self.mem.folders(dir)
    }

    fn display(&self, path: &ProjectPath) -> String {
        self.mem.display(path)
    }

    fn catalog(&self, assets: &ProjectPath) -> Result<Catalog, ReadError> {
        self.mem.catalog(assets)
    }
}

/// `p` (a path inside the asset source) as a [`ProjectPath`].
pub(super) fn project_path(p: &Path) -> Option<ProjectPath> {
    let s = p.to_str()?.replace('\\', "/");
    ProjectPath::new(&s).ok()
}
