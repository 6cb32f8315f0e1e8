//! Sinew's Bevy assets and their loaders. Each loader is the library's own reader of that file
//! kind (no copy of it): bad content never fails the Bevy load; the asset carries its
//! diagnostics instead, so a game can show them and hot reload can keep what was running.
//! Only an unreadable file fails the load.

use std::sync::Arc;

use bevy_asset::io::Reader;
use bevy_asset::{Asset, AssetLoader, AssetServer, LoadContext};
use bevy_reflect::TypePath;
use futures_lite::AsyncReadExt;
use serde::{Deserialize, Serialize};

use super::gather::{Gatherer, project_path};
use crate::anim::Skeleton;
use crate::anim::state_machine::{self as sm, StateMachineDef};
use crate::animseq::AnimSeq;
use crate::bytecode::VerifiedModule;
use crate::catalog::FileEntry;
use crate::diag::{Diagnostic, SourceFile};
use crate::project::{InputKind, Layout, LoadedScene, ProjectPath};

/// Why a Sinew asset could not be loaded at all (its content's problems are diagnostics).
#[derive(Debug, thiserror::Error)]
pub enum SinewLoadError {
    /// Reading the file failed.
    #[error("cannot read the file: {0}")]
    Io(#[from] std::io::Error),
    /// The file is larger than its kind allows (`docs/limits.md`).
    #[error("the file is larger than {limit} bytes")]
    TooLarge {
        /// The limit.
        limit: u64,
    },
    /// A path (the asset's, or the assets folder setting) cannot be a project path.
    #[error("`{0}` is not a path inside the asset folder")]
    Path(String),
}

/// Loader settings shared by the scene and graph loaders.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SinewLoadSettings {
    /// The assets folder (clip, skeleton and state-machine paths are relative to it; its
    /// `.animseq` files make the catalog), inside Bevy's asset folder. `None`: the plugin's
    /// [`SinewPlugin::assets`](super::SinewPlugin::assets).
    pub assets: Option<String>,
}

/// Reads the whole asset, at most `kind`'s limit.
async fn read_bounded(reader: &mut dyn Reader, kind: InputKind) -> Result<Vec<u8>, SinewLoadError> {
    let limit = kind.limit();
    let mut bytes = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .await?;
    if bytes.len() as u64 > limit {
        return Err(SinewLoadError::TooLarge { limit });
    }
    Ok(bytes)
}

fn own_path(ctx: &LoadContext<'_>) -> Result<ProjectPath, SinewLoadError> {
    let p = ctx.path().path();
    project_path(p).ok_or_else(|| SinewLoadError::Path(p.display().to_string()))
}

fn display(ctx: &LoadContext<'_>) -> String {
    own_path(ctx).map_or_else(|_| ctx.path().to_string(), |p| p.to_string())
}

/// An `.animseq` clip: the sequence when it loads, and its catalog entry.
#[derive(Asset, TypePath, Debug, Clone)]
pub struct SinewClip {
    /// The sequence (`None` when it has errors other than duplicate IDs).
    pub seq: Option<Arc<AnimSeq>>,
    /// The file as the catalog sees it (its events, quarantines and diagnostics).
    pub entry: FileEntry,
    /// The loader's diagnostics.
    pub diagnostics: Vec<Diagnostic>,
}

/// Loads `.animseq` files with `animseq::load_bytes` and `FileEntry::from_bytes`.
#[derive(TypePath, Default)]
pub struct ClipLoader;

impl AssetLoader for ClipLoader {
    type Asset = SinewClip;
    type Settings = ();
    type Error = SinewLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _: &(),
        ctx: &mut LoadContext<'_>,
    ) -> Result<SinewClip, SinewLoadError> {
        let bytes = read_bounded(reader, InputKind::Clip).await?;
        let name = display(ctx);
        let loaded = crate::animseq::load_bytes(&name, &bytes);
        Ok(SinewClip {
            seq: loaded.seq.map(Arc::new),
            entry: FileEntry::from_bytes(&name, &bytes),
            diagnostics: loaded.diagnostics,
        })
    }

    fn extensions(&self) -> &[&str] {
        &["animseq"]
    }
}

/// A `.skel` skeleton.
#[derive(Asset, TypePath, Debug, Clone)]
pub struct SinewSkeleton {
    /// The skeleton, when it has no errors.
    pub skeleton: Option<Arc<Skeleton>>,
    /// Its diagnostics.
    pub diagnostics: Vec<Diagnostic>,
}

/// Loads `.skel` files with `anim::load_skeleton_bytes`.
#[derive(TypePath, Default)]
pub struct SkeletonLoader;

impl AssetLoader for SkeletonLoader {
    type Asset = SinewSkeleton;
    type Settings = ();
    type Error = SinewLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _: &(),
        ctx: &mut LoadContext<'_>,
    ) -> Result<SinewSkeleton, SinewLoadError> {
        let bytes = read_bounded(reader, InputKind::Skeleton).await?;
        let loaded = crate::anim::load_skeleton_bytes(&display(ctx), &bytes);
        Ok(SinewSkeleton {
            skeleton: loaded.skeleton.map(Arc::new),
            diagnostics: loaded.diagnostics,
        })
    }

    fn extensions(&self) -> &[&str] {
        &["skel"]
    }
}

/// An `.animsm` state machine (parsed; validated against an animator's clip slots at spawn).
#[derive(Asset, TypePath, Debug, Clone)]
pub struct SinewStateMachine {
    /// The definition, when it parses.
    pub def: Option<Arc<StateMachineDef>>,
    /// Its diagnostics.
    pub diagnostics: Vec<Diagnostic>,
}

/// Loads `.animsm` files with `anim::state_machine::parse_state_machine_bytes`.
#[derive(TypePath, Default)]
pub struct StateMachineLoader;

impl AssetLoader for StateMachineLoader {
    type Asset = SinewStateMachine;
    type Settings = ();
    type Error = SinewLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _: &(),
        ctx: &mut LoadContext<'_>,
    ) -> Result<SinewStateMachine, SinewLoadError> {
        let bytes = read_bounded(reader, InputKind::StateMachine).await?;
        let parsed = sm::parse_state_machine_bytes(&display(ctx), &bytes);
        Ok(SinewStateMachine {
            def: parsed.def.map(Arc::new),
            diagnostics: parsed.diagnostics,
        })
    }

    fn extensions(&self) -> &[&str] {
        &["animsm"]
    }
}

/// A `.bpg` graph compiled against the catalog of the assets folder as it was when the graph
/// loaded (every `.animseq` there is a dependency: a changed clip recompiles the graph).
#[derive(Asset, TypePath, Debug, Clone)]
pub struct SinewGraph {
    /// The source text.
    pub source: SourceFile,
    /// The verified module, when it compiles.
    pub module: Option<Arc<VerifiedModule>>,
    /// The compiler's diagnostics.
    pub diagnostics: Vec<Diagnostic>,
}

/// Loads `.bpg` files with `compile::compile` against the assets folder's catalog.
#[derive(TypePath)]
pub struct GraphLoader {
    pub(super) server: AssetServer,
    pub(super) assets: String,
}

impl AssetLoader for GraphLoader {
    type Asset = SinewGraph;
    type Settings = SinewLoadSettings;
    type Error = SinewLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        settings: &SinewLoadSettings,
        ctx: &mut LoadContext<'_>,
    ) -> Result<SinewGraph, SinewLoadError> {
        let bytes = read_bounded(reader, InputKind::Graph).await?;
        let assets = assets_path(settings, &self.assets)?;
        let mut g = Gatherer::new(&self.server);
        g.walk_clips(ctx, &assets).await;
        let source = SourceFile::new(display(ctx), String::from_utf8_lossy(&bytes));
        let compiled = crate::compile::compile(&source, &g.catalog(&assets));
        Ok(SinewGraph {
            diagnostics: compiled.diagnostics().to_vec(),
            module: compiled.module.map(Arc::new),
            source,
        })
    }

    fn extensions(&self) -> &[&str] {
        &["bpg"]
    }
}

fn assets_path(settings: &SinewLoadSettings, default: &str) -> Result<ProjectPath, SinewLoadError> {
    let a = settings.assets.as_deref().unwrap_or(default);
    ProjectPath::new(a).map_err(|_| SinewLoadError::Path(a.to_string()))
}

/// A `.scene.ron` scene with every file it names, loaded by the library loader
/// (`project::load`: the same checks, bakes and compilation as `sinew run`).
#[derive(Asset, TypePath, Debug, Clone)]
pub struct SinewSceneAsset {
    /// The loaded scene, or why the scene or its assets folder could not be read.
    pub loaded: Result<Arc<LoadedScene>, String>,
    /// Where the scene and its assets folder lie inside Bevy's asset folder.
    pub layout: Layout,
}

/// Loads `.scene.ron` files (see [`super::gather`]).
#[derive(TypePath)]
pub struct SceneLoader {
    pub(super) server: AssetServer,
    pub(super) assets: String,
}

impl AssetLoader for SceneLoader {
    type Asset = SinewSceneAsset;
    type Settings = SinewLoadSettings;
    type Error = SinewLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        settings: &SinewLoadSettings,
        ctx: &mut LoadContext<'_>,
    ) -> Result<SinewSceneAsset, SinewLoadError> {
        let bytes = read_bounded(reader, InputKind::Scene).await?;
        let scene = own_path(ctx)?;
        let assets = assets_path(settings, &self.assets)?;
        let layout = Layout::new(scene.clone(), assets.clone());
        let mut g = Gatherer::new(&self.server);
        g.insert(scene, bytes);
        g.walk_clips(ctx, &assets).await;
        let loaded = g
            .load_scene(ctx, &layout)
            .await
            .map(Arc::new)
            .map_err(|e| e.to_string());
        Ok(SinewSceneAsset { loaded, layout })
    }

    fn extensions(&self) -> &[&str] {
        &["scene.ron"]
    }
}
