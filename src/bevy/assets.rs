//! Sinew's Bevy assets and their one loader. [`SinewLoader<A>`] reads the file bounded by its
//! kind's limit and hands it to [`SinewAsset::read`], the library's own reader of that file kind
//! (no copy of it): bad content of a clip, graph or manifest never fails the Bevy load; the
//! asset carries its diagnostics instead. A scene is the exception: one that is not ready to
//! run (an error in it or any file it names) fails its load ([`SinewLoadError::NotReady`],
//! carrying the whole loaded scene), so `AssetServer::load_state` says `Failed` and
//! `AssetLoadFailedEvent` fires; the plugin reads the scene back out of the error to report
//! its diagnostics, and a failed hot reload keeps the running version. An unreadable or
//! oversized file fails the load too.

use std::marker::PhantomData;
use std::sync::Arc;

use bevy_asset::io::Reader;
use bevy_asset::{Asset, AssetLoader, AssetPath, AssetServer, Handle, LoadContext};
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
use crate::import::{AnimManifest, ClipEntry, SkeletonEntry};
use crate::project::{InputKind, Layout, LoadedScene, ProjectPath, check_manifest};

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
    /// A scene, or a file it names, cannot be read (the loader's message).
    #[error("{0}")]
    Scene(String),
    /// A scene that loaded with errors (in it or a file it names): not ready to run. The
    /// loaded scene carries them (`LoadedScene::run_diagnostics`).
    #[error("`{}` is not ready to run: {} error(s)", .0.source.name(), count_errors(.0))]
    NotReady(Arc<LoadedScene>),
}

/// What a failed scene load says: the scene that loaded with errors (`Ok`: report its
/// diagnostics), or why it could not be read at all (`Err`).
pub(super) fn load_failure(e: &bevy_asset::AssetLoadError) -> Result<&Arc<LoadedScene>, String> {
    let ours = match e {
        bevy_asset::AssetLoadError::AssetLoaderError(l) => l.error().downcast_ref(),
        _ => None,
    };
    match ours {
        Some(SinewLoadError::NotReady(loaded)) => Ok(loaded),
        Some(SinewLoadError::Scene(message)) => Err(message.clone()),
        _ => Err(e.to_string()),
    }
}

fn count_errors(l: &LoadedScene) -> usize {
    l.run_diagnostics().iter().filter(|d| d.is_error()).count()
}

/// Loader settings of every Sinew asset.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SinewLoadSettings {
    /// The assets folder (clip, skeleton and state-machine paths are relative to it; its
    /// `.animseq` files make the catalog), inside Bevy's asset folder. `None`: the plugin's
    /// [`SinewPlugin::assets`](super::SinewPlugin::assets). Scenes, graphs and import
    /// manifests use it; clips, skeletons and state machines do not.
    pub assets: Option<String>,
}

/// One Sinew file kind as a Bevy asset: its limit, its extensions and how the library reads it.
/// [`SinewLoader<Self>`] is its loader.
pub trait SinewAsset: Asset + Sized {
    /// The kind of input (its size limit, `docs/limits.md`).
    const KIND: InputKind;
    /// The extensions Bevy picks this loader by (none: loaded by asset type only).
    const EXTENSIONS: &'static [&'static str];
    /// The asset of one file.
    fn read(file: SinewFile<'_, '_>) -> impl Future<Output = Result<Self, SinewLoadError>> + Send;
}

/// What [`SinewAsset::read`] gets: the file's bytes and where it lies.
pub struct SinewFile<'a, 'c> {
    /// The whole file (within its kind's limit).
    pub bytes: Vec<u8>,
    /// The file as a project path.
    pub path: ProjectPath,
    /// The assets folder of this load.
    pub assets: ProjectPath,
    ctx: &'a mut LoadContext<'c>,
    server: &'a AssetServer,
}

impl SinewFile<'_, '_> {
    /// How diagnostics name the file (its path inside Bevy's asset folder).
    fn name(&self) -> String {
        self.path.to_string()
    }
}

/// The loader of every Sinew asset kind `A` (registered once per kind by the plugin).
#[derive(TypePath)]
pub struct SinewLoader<A: SinewAsset> {
    server: AssetServer,
    assets: String,
    kind: PhantomData<fn() -> A>,
}

impl<A: SinewAsset> SinewLoader<A> {
    /// The loader, reading through `server`; `assets` is the default assets folder.
    pub fn new(server: &AssetServer, assets: &str) -> SinewLoader<A> {
        SinewLoader {
            server: server.clone(),
            assets: assets.to_string(),
            kind: PhantomData,
        }
    }
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

impl<A: SinewAsset> AssetLoader for SinewLoader<A> {
    type Asset = A;
    type Settings = SinewLoadSettings;
    type Error = SinewLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        settings: &SinewLoadSettings,
        ctx: &mut LoadContext<'_>,
    ) -> Result<A, SinewLoadError> {
        let bytes = read_bounded(reader, A::KIND).await?;
        let own = ctx.path().path();
        let path =
            project_path(own).ok_or_else(|| SinewLoadError::Path(own.display().to_string()))?;
        let a = settings.assets.as_deref().unwrap_or(&self.assets);
        let assets = ProjectPath::new(a).map_err(|_| SinewLoadError::Path(a.to_string()))?;
        A::read(SinewFile {
            bytes,
            path,
            assets,
            ctx,
            server: &self.server,
        })
        .await
    }

    fn extensions(&self) -> &[&str] {
        A::EXTENSIONS
    }
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

/// `animseq::load_bytes` and `FileEntry::from_bytes`.
impl SinewAsset for SinewClip {
    const KIND: InputKind = InputKind::Clip;
    const EXTENSIONS: &'static [&'static str] = &["animseq"];

    async fn read(file: SinewFile<'_, '_>) -> Result<SinewClip, SinewLoadError> {
        let name = file.name();
        let loaded = crate::animseq::load_bytes(&name, &file.bytes);
        Ok(SinewClip {
            seq: loaded.seq.map(Arc::new),
            entry: FileEntry::from_bytes(&name, &file.bytes),
            diagnostics: loaded.diagnostics,
        })
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

/// `anim::load_skeleton_bytes`.
impl SinewAsset for SinewSkeleton {
    const KIND: InputKind = InputKind::Skeleton;
    const EXTENSIONS: &'static [&'static str] = &["skel"];

    async fn read(file: SinewFile<'_, '_>) -> Result<SinewSkeleton, SinewLoadError> {
        let loaded = crate::anim::load_skeleton_bytes(&file.name(), &file.bytes);
        Ok(SinewSkeleton {
            skeleton: loaded.skeleton.map(Arc::new),
            diagnostics: loaded.diagnostics,
        })
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

/// `anim::state_machine::parse_state_machine_bytes`.
impl SinewAsset for SinewStateMachine {
    const KIND: InputKind = InputKind::StateMachine;
    const EXTENSIONS: &'static [&'static str] = &["animsm"];

    async fn read(file: SinewFile<'_, '_>) -> Result<SinewStateMachine, SinewLoadError> {
        let parsed = sm::parse_state_machine_bytes(&file.name(), &file.bytes);
        Ok(SinewStateMachine {
            def: parsed.def.map(Arc::new),
            diagnostics: parsed.diagnostics,
        })
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

/// `compile::compile` against the assets folder's catalog.
impl SinewAsset for SinewGraph {
    const KIND: InputKind = InputKind::Graph;
    const EXTENSIONS: &'static [&'static str] = &["bpg"];

    async fn read(file: SinewFile<'_, '_>) -> Result<SinewGraph, SinewLoadError> {
        let mut g = Gatherer::new(file.server);
        g.walk_clips(file.ctx, &file.assets).await;
        let source = SourceFile::new(file.name(), String::from_utf8_lossy(&file.bytes));
        let compiled = crate::compile::compile(&source, &g.catalog(&file.assets));
        Ok(SinewGraph {
            diagnostics: compiled.diagnostics().to_vec(),
            module: compiled.module.map(Arc::new),
            source,
        })
    }
}

/// A `.scene.ron` scene with every file it names, loaded by the library loader
/// (`project::load`: the same checks, bakes and compilation as `sinew run`).
#[derive(Asset, TypePath, Debug, Clone)]
pub struct SinewSceneAsset {
    /// The loaded scene, ready to run. Always `Ok` since a scene that cannot be read or is
    /// not ready fails its load instead (`SinewLoadError::Scene`, `SinewLoadError::NotReady`:
    /// `LoadState::Failed`); a `Result` still, so code matching on it keeps compiling.
    pub loaded: Result<Arc<LoadedScene>, String>,
    /// Where the scene and its assets folder lie inside Bevy's asset folder.
    pub layout: Layout,
    /// The game node kinds the assets folder declares (its `*.nodes.ron`), sorted.
    pub game_nodes: Vec<String>,
}

/// `project::load` (see [`super::gather`]).
impl SinewAsset for SinewSceneAsset {
    const KIND: InputKind = InputKind::Scene;
    const EXTENSIONS: &'static [&'static str] = &["scene.ron"];

    async fn read(file: SinewFile<'_, '_>) -> Result<SinewSceneAsset, SinewLoadError> {
        let layout = Layout::new(file.path.clone(), file.assets.clone());
        let mut g = Gatherer::new(file.server);
        g.insert(file.path, file.bytes);
        g.walk_clips(file.ctx, &file.assets).await;
        let game_nodes = g
            .catalog(&file.assets)
            .game_nodes()
            .iter()
            .map(|n| n.kind.clone())
            .collect();
        let loaded = g
            .load_scene(file.ctx, &layout)
            .await
            .map(Arc::new)
            .map_err(|e| SinewLoadError::Scene(e.to_string()))?;
        if loaded.ready().is_none() {
            return Err(SinewLoadError::NotReady(loaded));
        }
        Ok(SinewSceneAsset {
            loaded: Ok(loaded),
            layout,
            game_nodes,
        })
    }
}

/// The generated manifest of an imported model (`<assets>/animations/generated/<uuid>/
/// manifest.ron`, written by `sinew import`), checked as `sinew check` checks it, with a handle
/// per generated clip and skeleton (dependencies of the manifest: it is loaded with
/// dependencies when they are). Load it by type (`server.load::<SinewImport>(path)`): its file
/// name, not an extension, says what it is.
#[derive(Asset, TypePath, Debug, Clone)]
pub struct SinewImport {
    /// The manifest, when it reads and is valid.
    pub manifest: Option<AnimManifest>,
    /// Its problems: unreadable or invalid (`E0722`), a listed file missing (`E0718`), the
    /// source model missing or changed since the import (`E0716`, `E0717`), outside the
    /// project (`W0711`).
    pub diagnostics: Vec<Diagnostic>,
    /// Every generated clip whose file is present, in manifest order.
    pub clips: Vec<(ClipEntry, Handle<SinewClip>)>,
    /// Every generated skeleton whose file is present, in manifest order.
    pub skeletons: Vec<(SkeletonEntry, Handle<SinewSkeleton>)>,
}

impl SinewImport {
    /// The clip with this label (the glTF animation's name) or ID, as a scene's
    /// `Imported(model, clip)` names it.
    pub fn clip(&self, name: &str) -> Option<&Handle<SinewClip>> {
        self.clips
            .iter()
            .find(|(c, _)| c.label == name || c.id == name)
            .map(|(_, h)| h)
    }

    /// The skeleton with this name.
    pub fn skeleton(&self, name: &str) -> Option<&Handle<SinewSkeleton>> {
        self.skeletons
            .iter()
            .find(|(s, _)| s.name == name)
            .map(|(_, h)| h)
    }

    /// Whether the manifest is valid and has no errors (its import may still be blocked:
    /// `manifest.runtime_supported`).
    pub fn is_ok(&self) -> bool {
        self.manifest.is_some() && !self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// `project::check_manifest`, then one handle per generated file that is present.
impl SinewAsset for SinewImport {
    const KIND: InputKind = InputKind::Manifest;
    const EXTENSIONS: &'static [&'static str] = &[];

    async fn read(file: SinewFile<'_, '_>) -> Result<SinewImport, SinewLoadError> {
        let dir = file.path.parent();
        let layout = Layout::new(file.path.clone(), file.assets.clone());
        let mut g = Gatherer::new(file.server);
        g.insert(file.path.clone(), file.bytes);
        let checked = g
            .rounds(file.ctx, |source| check_manifest(source, &layout, &dir))
            .await;
        let (manifest, diagnostics) = checked.unwrap_or((None, Vec::new()));
        let mut out = SinewImport {
            manifest,
            diagnostics,
            clips: Vec::new(),
            skeletons: Vec::new(),
        };
        if let Some(m) = &out.manifest {
            let present = g.files_in(&dir);
            let load = |name: &str| {
                present
                    .iter()
                    .any(|f| f == name)
                    .then(|| dir.join(name).ok())
                    .flatten()
                    .map(|p| AssetPath::from(p.as_str().to_string()))
            };
            for s in &m.skeletons {
                if let Some(p) = load(&s.file) {
                    out.skeletons.push((s.clone(), file.ctx.load(p)));
                }
            }
            for c in &m.clips {
                if let Some(p) = load(&c.file) {
                    out.clips.push((c.clone(), file.ctx.load(p)));
                }
            }
        }
        Ok(out)
    }
}
