//! The project loader: the one place a scene is loaded, for the CLI (`run`, `check`), tests,
//! benches and embedders alike.
//!
//! [`load`] reads a `.scene.ron` through a [`Source`] (the file system, [`FsSource`], or memory,
//! [`MemSource`]), parses it ([`crate::scene`]), resolves every path it names inside the
//! project (graph paths relative to the scene's folder; clip, skeleton and state-machine paths
//! relative to the assets folder; refusing absolute paths and `..` that climbs out), loads the
//! clips, skeletons and state machines, resolves each clip's source skeleton and bakes the
//! retargeted clips, compiles the graphs against the assets' catalog, runs the validation
//! passes, and returns one [`LoadedScene`]: definitions, assets, compiled modules and every
//! diagnostic as data. `crate::runtime::scene::spawn` builds it into a world.
//!
//! Apart from [`FsSource`] (in `fs.rs`), nothing here touches the file system.

mod clip_fields;
mod fs;
mod imports;
mod load;
mod memory;
mod names;
mod path;
mod skeletons;
mod vars;

pub use clip_fields::{ClipFieldMemo, MAX_REMEMBERED_CLIPS};
pub use fs::{FsSource, load_files};
pub use imports::{GENERATED, Imports, check_manifest};
pub use load::{PASSES, Pass, PassInput};
pub use memory::MemSource;
pub use path::{PathError, ProjectPath};
pub use skeletons::{MAX_DISCOVERY_SKELETONS, check_clip_skeletons, check_clip_skeletons_with};

use std::collections::BTreeMap;

use crate::catalog::Catalog;
use crate::diag::{self, Diagnostic, Severity, SourceFile};
pub use crate::fsutil::{InputError, InputKind};
use crate::scene::{SceneAssets, SceneDef};

/// A path a scene names leads outside the project (absolute, `..` climbing out, or a symbolic
/// link to elsewhere); the file is never read.
pub use crate::diag::codes::scene::E_SCENE_OUTSIDE_PROJECT;

/// Why a [`Source`] could not read a file.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The bounded reader's error (missing, not a regular file, too large, I/O).
    #[error(transparent)]
    Input(#[from] InputError),
    /// The file's real location (symbolic links resolved) lies outside the project.
    #[error("it leads outside the project through a symbolic link")]
    Outside,
}

impl From<std::io::Error> for ReadError {
    fn from(e: std::io::Error) -> ReadError {
        ReadError::Input(InputError::Io(e))
    }
}

/// Where a project's files come from. Paths are [`ProjectPath`]s (already resolved and
/// confined to the project by the loader); every read is bounded by its [`InputKind`].
pub trait Source {
    /// The whole file at `path`, at most `kind.limit()` bytes; regular files only.
    fn read(&self, path: &ProjectPath, kind: InputKind) -> Result<Vec<u8>, ReadError>;
    /// The names of the regular files directly in folder `dir`, sorted (empty when the folder
    /// is missing or unreadable).
    fn list(&self, dir: &ProjectPath) -> Vec<String>;
    /// The names of the folders directly in folder `dir`, sorted (empty when the folder is
    /// missing or unreadable).
    fn folders(&self, dir: &ProjectPath) -> Vec<String>;
    /// How messages and diagnostics name `path` (the CLI: relative to the current folder).
    fn display(&self, path: &ProjectPath) -> String;
    /// The event catalog of the assets folder `assets` (every `.animseq` under it).
    fn catalog(&self, assets: &ProjectPath) -> Result<Catalog, ReadError>;
}

/// Where a scene and its assets lie in a [`Source`], and where the files it names may lie.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The `.scene.ron` file.
    pub scene: ProjectPath,
    /// The assets folder (clip, skeleton and state-machine paths are relative to it).
    pub assets: ProjectPath,
    /// The project folder: besides the scene's own folder and the assets folder, the files a
    /// scene names may lie anywhere under it (the CLI: the current folder).
    pub project: ProjectPath,
}

impl Layout {
    /// A scene and an assets folder in a source whose root is the project folder.
    pub fn new(scene: ProjectPath, assets: ProjectPath) -> Layout {
        Layout {
            scene,
            assets,
            project: ProjectPath::root(),
        }
    }

    /// The folders files named by the scene may lie in: the project, the scene's own folder
    /// and the assets folder.
    pub fn folders(&self) -> [ProjectPath; 3] {
        [
            self.project.clone(),
            self.scene.parent(),
            self.assets.clone(),
        ]
    }

    /// `rel`, written in a file inside folder `base`, resolved and confined to
    /// [`Layout::folders`].
    pub fn resolve(&self, base: &ProjectPath, rel: &str) -> Result<ProjectPath, PathError> {
        let p = base.join(rel)?;
        if self.folders().iter().any(|f| p.starts_with(f)) {
            Ok(p)
        } else {
            Err(PathError::Escapes)
        }
    }
}

/// Why [`load`] could not start: the scene file or the assets folder cannot be read (an I/O
/// failure, exit status 2 in the CLI). Problems inside the scene are diagnostics instead.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The scene file.
    #[error("cannot read {name}: {error}")]
    Scene {
        /// Its display name.
        name: String,
        /// Why.
        error: ReadError,
    },
    /// The assets folder (its catalog scan).
    #[error("cannot read assets folder {name}: {error}")]
    Assets {
        /// Its display name.
        name: String,
        /// Why.
        error: ReadError,
    },
}

/// A loaded scene: what [`load`] returns and `crate::runtime::scene::spawn` builds.
#[derive(Debug, Clone)]
pub struct LoadedScene {
    /// The scene file's text (for snippets), under its display name.
    pub source: SourceFile,
    /// The definitions; `None` when the scene file does not parse or validate.
    pub def: Option<SceneDef>,
    /// Clips, skeletons, state machines, retargeted bakes and compiled graphs, keyed by the
    /// paths as written in the scene.
    pub assets: SceneAssets,
    /// Every diagnostic of the scene and of the files it names, in canonical order.
    pub diagnostics: Vec<Diagnostic>,
    /// Diagnostics of the assets folder's other files (its catalog scan), with their own
    /// severity: `sinew run` shows them as warnings, `sinew check` reports the catalog itself.
    pub asset_diagnostics: Vec<Diagnostic>,
    /// Event identity → catalog display name (`Run / Footstep L`), for human traces.
    pub event_names: BTreeMap<String, String>,
}

impl LoadedScene {
    /// Whether the scene loaded without errors (its own diagnostics; asset diagnostics do not
    /// count): exactly when `sinew run` starts.
    pub fn is_ok(&self) -> bool {
        self.def.is_some() && !self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The definitions and assets to spawn, when [`LoadedScene::is_ok`].
    pub fn ready(&self) -> Option<(&SceneDef, &SceneAssets)> {
        self.def
            .as_ref()
            .filter(|_| self.is_ok())
            .map(|d| (d, &self.assets))
    }

    /// What `sinew run` reports: the scene's diagnostics plus the asset diagnostics as
    /// warnings, in canonical order.
    pub fn run_diagnostics(&self) -> Vec<Diagnostic> {
        let mut all = self.diagnostics.clone();
        all.extend(self.asset_diagnostics.iter().cloned().map(|mut d| {
            d.severity = Severity::Warning;
            d
        }));
        diag::sort(&mut all);
        all
    }
}

/// Every diagnostic of the imported models under `layout.assets` (their generated manifests:
/// missing sources, stale fingerprints, missing generated files, duplicate UUIDs), as
/// `sinew check` reports them whether or not a scene uses the model.
pub fn check_imports(source: &dyn Source, layout: &Layout) -> Vec<Diagnostic> {
    Imports::read(source, layout).diagnostics()
}

/// Loads the scene `layout.scene` from `source`: reads and parses it, then (when it parses)
/// scans the assets folder's catalog and loads everything it names (see the module docs).
pub fn load(source: &dyn Source, layout: &Layout) -> Result<LoadedScene, LoadError> {
    load::load(source, layout, None)
}

/// As [`load`], against an already scanned `catalog` of the assets folder (so `sinew check`
/// scans it once for every graph and scene).
pub fn load_with_catalog(
    source: &dyn Source,
    layout: &Layout,
    catalog: &Catalog,
) -> Result<LoadedScene, LoadError> {
    load::load(source, layout, Some(catalog))
}
