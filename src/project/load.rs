//! The loading steps, in order: scene file → clips → skeletons, source skeletons, retargeted
//! bakes, masks and state machines → graphs → validation passes → catalog diagnostics.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::imports::Imports;
use super::skeletons::SourceSkeletons;
use super::{
    E_SCENE_OUTSIDE_PROJECT, InputKind, Layout, LoadError, LoadedScene, ProjectPath, ReadError,
    Source,
};
use crate::anim::state_machine as sm;
use crate::anim::{BoneMask, load_skeleton_bytes};
use crate::animseq;
use crate::catalog::Catalog;
use crate::compile;
use crate::diag::{self, Diagnostic, SourceFile, Span};
use crate::import::diagnostics::E_SIGNATURE_MISMATCH;
use crate::ron_span::short;
use crate::scene::{
    self, E_SCENE_BAD_ASSET, E_SCENE_MISSING_FILE, PathRef, RetargetKey, SceneAssets, SceneDef,
    SlotSequence, W_SCENE_SOURCE_SKELETON, normalize_asset_path,
};

/// What a validation pass sees: the scene with every file it names loaded.
#[derive(Debug, Clone, Copy)]
pub struct PassInput<'a> {
    /// The definitions.
    pub def: &'a SceneDef,
    /// The scene file (to place diagnostics).
    pub scene: &'a SourceFile,
    /// Everything loaded, keyed by the paths as written in the scene.
    pub assets: &'a SceneAssets,
    /// The graph sources that compiled, keyed like [`SceneAssets::graphs`].
    pub graphs: &'a BTreeMap<String, SourceFile>,
    /// Per entity (in scene order): whether its animator's state machine loaded and is valid
    /// for its clip slots.
    pub machine_ok: &'a [bool],
    /// The assets folder's imported models (their generated manifests).
    pub imports: &'a Imports,
}

/// A check over a loaded scene; its diagnostics join the scene's.
pub type Pass = fn(&PassInput<'_>) -> Vec<Diagnostic>;

/// The validation passes [`super::load`] runs, in order, once every file loaded. A new check
/// over the loaded scene (names a scene's actions or its graphs use, …) is one more entry.
pub const PASSES: &[Pass] = &[
    super::names::animator_names,
    super::vars::graph_vars,
    super::vars::send_payloads,
    super::vars::game_returns,
    imported_models,
    skeleton_signatures,
];

/// `E0716`–`E0719`, `E0722`, `W0711`: the diagnostics of the imported models the scene uses
/// (an `Imported` reference, or a clip or skeleton in a model's generated folder). The other
/// manifests' diagnostics are asset diagnostics.
fn imported_models(input: &PassInput<'_>) -> Vec<Diagnostic> {
    let used = input.imports.used_by(input.def);
    input.imports.diagnostics_of(&used, true)
}

/// `E0721`: a clip slot of an animator whose skeleton is a generated one plays an imported
/// clip whose skeleton signature differs, and the slot does not retarget (no retargeted bake,
/// no `bone_map`): it would play on the wrong rig by bone name.
fn skeleton_signatures(input: &PassInput<'_>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let assets = input.assets;
    for an in input
        .def
        .entities
        .iter()
        .filter_map(|e| e.animator.as_ref())
    {
        let Some(sk) = &an.skeleton else { continue };
        let Some(target) = input.imports.skeleton_at(&sk.path) else {
            continue;
        };
        if !assets.skeletons.contains_key(&sk.path) || !an.bone_map.is_empty() {
            continue;
        }
        for (slot, cp) in &an.clips {
            let Some((clip, model)) = input.imports.clip_at(&cp.path) else {
                continue;
            };
            if clip.skeleton.is_empty()
                || clip.skeleton == target.signature
                || !assets.clips.contains_key(&cp.path)
            {
                continue;
            }
            let retargeted = scene::retarget_key(an, &cp.path, assets)
                .is_some_and(|k| assets.retargeted.contains_key(&k));
            if retargeted {
                continue;
            }
            let sig = |s: &str| s.chars().take(12).collect::<String>();
            let d = Diagnostic::error(
                E_SIGNATURE_MISMATCH,
                format!(
                    "slot {} plays clip {} of model `{model}` (skeleton signature {}…) on \
                     skeleton {} (signature {}…) without retargeting",
                    quoted(slot),
                    quoted(&clip.label),
                    sig(&clip.skeleton),
                    quoted(&sk.path),
                    sig(&target.signature),
                ),
            )
            .with_note(
                "an imported clip plays as imported only on a skeleton with its exact signature, \
                 so it never drives the wrong rig by bone name",
            )
            .with_note(
                "retarget it: the clip's source skeleton (its `skeleton` field) must load, or \
                 map its bones with the animator's `bone_map`",
            );
            out.push(d.at(input.scene, cp.span));
        }
    }
    out
}

pub(super) fn load(
    source: &dyn Source,
    layout: &Layout,
    catalog: Option<&Catalog>,
) -> Result<LoadedScene, LoadError> {
    let name = source.display(&layout.scene);
    let bytes = source
        .read(&layout.scene, InputKind::Scene)
        .map_err(|error| LoadError::Scene {
            name: name.clone(),
            error,
        })?;
    let parsed = scene::parse_bytes(&name, &bytes);
    let scene_src = SourceFile::new(name, String::from_utf8_lossy(&bytes));
    let mut loaded = LoadedScene {
        source: scene_src,
        def: None,
        assets: SceneAssets::default(),
        diagnostics: parsed.diagnostics,
        asset_diagnostics: Vec::new(),
        event_names: BTreeMap::new(),
    };
    let Some(mut def) = parsed.scene else {
        return Ok(loaded);
    };
    let scanned;
    let catalog = match catalog {
        Some(c) => c,
        None => {
            scanned = source
                .catalog(&layout.assets)
                .map_err(|error| LoadError::Assets {
                    name: source.display(&layout.assets),
                    error,
                })?;
            &scanned
        }
    };
    let mut l = Loader {
        source,
        layout,
        scene: &loaded.source,
        diags: std::mem::take(&mut loaded.diagnostics),
        assets: SceneAssets::default(),
        reported: BTreeSet::new(),
        skeletons: SourceSkeletons::default(),
        graph_sources: BTreeMap::new(),
        machine_ok: vec![false; def.entities.len()],
    };
    let imports = Imports::read(source, layout);
    l.imported_clips(&mut def, &imports);
    l.clips(&def);
    l.animation_assets(&def);
    l.graphs(&def, catalog);
    let input = PassInput {
        def: &def,
        scene: l.scene,
        assets: &l.assets,
        graphs: &l.graph_sources,
        machine_ok: &l.machine_ok,
        imports: &imports,
    };
    let passed: Vec<Diagnostic> = PASSES.iter().flat_map(|pass| pass(&input)).collect();
    l.diags.extend(passed);
    let Loader {
        mut diags,
        assets,
        reported,
        ..
    } = l;
    diag::sort(&mut diags);
    loaded.asset_diagnostics = catalog
        .diagnostics()
        .into_iter()
        .filter(|d| !reported.contains(&(d.file.clone(), d.code, d.span.start, d.span.end)))
        .collect();
    loaded
        .asset_diagnostics
        .extend(imports.diagnostics_of(&imports.used_by(&def), false));
    loaded.event_names = catalog
        .events()
        .into_iter()
        .map(|d| (d.id.to_string(), d.name.clone()))
        .collect();
    loaded.diagnostics = diags;
    loaded.assets = assets;
    loaded.def = Some(def);
    Ok(loaded)
}

struct Loader<'a> {
    source: &'a dyn Source,
    layout: &'a Layout,
    scene: &'a SourceFile,
    diags: Vec<Diagnostic>,
    assets: SceneAssets,
    /// Clip diagnostics already reported: (file, code, span) — the catalog's own copies of
    /// them are not repeated as asset diagnostics.
    reported: BTreeSet<(String, &'static str, u32, u32)>,
    skeletons: SourceSkeletons,
    graph_sources: BTreeMap<String, SourceFile>,
    machine_ok: Vec<bool>,
}

/// What a scene-named file is: its kind, the word messages use and what its path is relative to.
struct Named {
    kind: InputKind,
    what: &'static str,
    note: &'static str,
}

const CLIP: Named = Named {
    kind: InputKind::Clip,
    what: "clip",
    note: "clip paths are relative to the assets folder",
};
const GRAPH: Named = Named {
    kind: InputKind::Graph,
    what: "graph",
    note: "graph paths are relative to the scene file's folder",
};
const SKELETON: Named = Named {
    kind: InputKind::Skeleton,
    what: "skeleton",
    note: "skeleton and state-machine paths are relative to the assets folder",
};
const STATE_MACHINE: Named = Named {
    kind: InputKind::StateMachine,
    what: "state machine",
    note: "skeleton and state-machine paths are relative to the assets folder",
};

impl Loader<'_> {
    fn at(&self, d: Diagnostic, span: Span) -> Diagnostic {
        d.at(self.scene, span)
    }

    /// The note of an `E0561`: what the path is relative to, naming the assets folder as
    /// this load sees it (the CLI's `--assets`, the plugin's `SinewPlugin::assets` inside
    /// Bevy's asset folder: the note names neither setting, only the folder).
    fn named_note(&self, named: &Named) -> String {
        if named.note.ends_with("assets folder") {
            let [_, _, assets] = self.layout.folders().map(|f| self.source.display(&f));
            let assets = if assets.is_empty() {
                "."
            } else {
                assets.as_str()
            };
            format!("{} (`{assets}`)", named.note)
        } else {
            named.note.to_string()
        }
    }

    /// The note of an `E0564`: where a scene's files may lie.
    fn outside_note(&self) -> String {
        let [project, scene, assets] = self.layout.folders().map(|f| self.source.display(&f));
        format!(
            "a scene may name files only inside the project folder (`{project}`), the scene's \
             folder (`{scene}`) and the assets folder (`{assets}`); absolute paths and `..` that \
             climbs out are refused"
        )
    }

    /// Reads the file a scene names at `p` (relative to `base`): its display name and bytes,
    /// or an `E0564` (outside the project) or `E0561` (cannot read) error at the path.
    fn read_named(
        &mut self,
        base: &ProjectPath,
        p: &PathRef,
        named: &Named,
    ) -> Option<(String, Vec<u8>)> {
        let path = match self.layout.resolve(base, &p.path) {
            Ok(path) => path,
            Err(_) => {
                let d = Diagnostic::error(
                    E_SCENE_OUTSIDE_PROJECT,
                    format!(
                        "{} path `{}` leads outside the project",
                        named.what,
                        short(&p.path)
                    ),
                )
                .with_note(self.outside_note());
                let d = self.at(d, p.span);
                self.diags.push(d);
                return None;
            }
        };
        let name = self.source.display(&path);
        match self.source.read(&path, named.kind) {
            Ok(b) => Some((name, b)),
            Err(ReadError::Outside) => {
                let d = Diagnostic::error(
                    E_SCENE_OUTSIDE_PROJECT,
                    format!(
                        "{} {name} leads outside the project through a symbolic link",
                        named.what
                    ),
                )
                .with_note(self.outside_note());
                let d = self.at(d, p.span);
                self.diags.push(d);
                None
            }
            Err(e) => {
                let d = Diagnostic::error(
                    E_SCENE_MISSING_FILE,
                    format!("cannot read {} {name}: {e}", named.what),
                )
                .with_note(self.named_note(named));
                let d = self.at(d, p.span);
                self.diags.push(d);
                None
            }
        }
    }

    /// `E0562` at `span`: `what name` does not load/compile.
    fn bad_asset(&mut self, span: Span, message: String) {
        let d = self.at(Diagnostic::error(E_SCENE_BAD_ASSET, message), span);
        self.diags.push(d);
    }

    /// Resolves every clip slot named by identity (`Imported(model, clip)`) to the clip file
    /// its model's manifest names, or reports `E0720` at the reference (the slot then loads
    /// nothing).
    fn imported_clips(&mut self, def: &mut SceneDef, imports: &Imports) {
        for p in def.imported_clips_mut() {
            let Some(imp) = &p.imported else { continue };
            match imports.resolve(imp) {
                Ok(path) => p.path = path,
                Err(d) => {
                    let d = self.at(*d, p.span);
                    self.diags.push(d);
                }
            }
        }
    }

    fn clips(&mut self, def: &SceneDef) {
        let assets_dir = self.layout.assets.clone();
        for p in def.clip_paths() {
            let Some((name, bytes)) = self.read_named(&assets_dir, p, &CLIP) else {
                continue;
            };
            let loaded = animseq::load_bytes(&name, &bytes);
            for d in &loaded.diagnostics {
                self.reported
                    .insert((d.file.clone(), d.code, d.span.start, d.span.end));
            }
            self.diags.extend(loaded.diagnostics);
            match loaded.seq {
                Some(seq) => {
                    self.assets.clips.insert(p.path.clone(), Arc::new(seq));
                }
                None => self.bad_asset(p.span, format!("clip {name} does not load")),
            }
        }
    }

    /// Loads and validates the skeletons and state machines the animators name: `.skel` and
    /// `.animsm` diagnostics, state machines checked against each animator's clip slots, clip
    /// tracks naming bones the skeleton lacks (`W0510`) and mask entries naming unknown bones
    /// (`W0511`). For animators with a skeleton it resolves each clip's source skeleton
    /// ([`SourceSkeletons`]) into `clip_sources` and bakes the retargeted clips, once per
    /// [`RetargetKey`], into `retargeted`: a source skeleton that cannot be read or load
    /// (`W0563`) and a bake's own diagnostics (`E0514`) are reported at the scene's clip entry.
    fn animation_assets(&mut self, def: &SceneDef) {
        let assets_dir = self.layout.assets.clone();
        let mut machine_sources: BTreeMap<String, SourceFile> = BTreeMap::new();
        let mut bakes: BTreeMap<RetargetKey, Vec<Diagnostic>> = BTreeMap::new();
        for (ei, e) in def.entities.iter().enumerate() {
            let Some(an) = &e.animator else { continue };
            if let Some(p) = &an.skeleton
                && !self.assets.skeletons.contains_key(&p.path)
                && let Some((name, bytes)) = self.read_named(&assets_dir, p, &SKELETON)
            {
                let loaded = load_skeleton_bytes(&name, &bytes);
                self.diags.extend(loaded.diagnostics);
                match loaded.skeleton {
                    Some(s) => {
                        self.assets.skeletons.insert(p.path.clone(), Arc::new(s));
                    }
                    None => self.bad_asset(p.span, format!("skeleton {name} does not load")),
                }
            }
            if let Some(p) = &an.skeleton
                && let Some(skel) = self.assets.skeletons.get(&p.path).cloned()
            {
                for (slot, cp) in &an.clips {
                    let Some(seq) = self.assets.clips.get(&cp.path).cloned() else {
                        continue;
                    };
                    let source = self.skeletons.resolve(
                        self.source,
                        self.layout,
                        &cp.path,
                        &seq,
                        &mut self.assets,
                    );
                    if let Some(source) = &source
                        && *source != normalize_asset_path(&p.path)
                        && let Err((message, notes)) =
                            self.skeletons
                                .load(self.source, self.layout, source, &mut self.assets)
                    {
                        let mut d = Diagnostic::warning(
                            W_SCENE_SOURCE_SKELETON,
                            format!(
                                "{message}; slot {} plays {} un-retargeted, by bone name",
                                quoted(slot),
                                quoted(&cp.path)
                            ),
                        );
                        for n in notes {
                            d = d.with_note(n);
                        }
                        let d = self.at(
                            d.with_note(
                                "a clip's `skeleton` path is relative to the clip file's folder",
                            ),
                            cp.span,
                        );
                        self.diags.push(d);
                    }
                    let mut played = SlotSequence {
                        seq,
                        retargeted: false,
                    };
                    if let Some(key) = scene::retarget_key(an, &cp.path, &self.assets) {
                        if !bakes.contains_key(&key) {
                            let (baked, ds) = bake(&key, &self.assets);
                            if let Some(b) = baked {
                                self.assets.retargeted.insert(key.clone(), Arc::new(b));
                            }
                            bakes.insert(key.clone(), ds);
                        }
                        let note = format!(
                            "while retargeting {} from skeleton {} onto {}",
                            quoted(&key.clip),
                            quoted(&key.source),
                            quoted(&key.target)
                        );
                        for d in bakes.get(&key).into_iter().flatten() {
                            self.diags
                                .push(d.clone().at(self.scene, cp.span).with_note(note.clone()));
                        }
                        if let Some(b) = self.assets.retargeted.get(&key) {
                            played = SlotSequence {
                                seq: b.clone(),
                                retargeted: true,
                            };
                        }
                    }
                    let (_, ds) = played.bind(&skel, &an.bone_map, slot);
                    self.diags
                        .extend(ds.into_iter().map(|d| d.at(self.scene, cp.span)));
                }
                for l in &an.layers {
                    if let Some(m) = &l.mask {
                        let entries: Vec<&str> = m.iter().map(String::as_str).collect();
                        let (_, ds) =
                            BoneMask::new(&skel, &entries, &format!("layer `{}`", l.name));
                        self.diags
                            .extend(ds.into_iter().map(|d| d.at(self.scene, e.name_span)));
                    }
                }
            }
            let Some(p) = &an.state_machine else { continue };
            if !machine_sources.contains_key(&p.path) {
                let Some((name, bytes)) = self.read_named(&assets_dir, p, &STATE_MACHINE) else {
                    continue;
                };
                let parsed = sm::parse_state_machine_bytes(&name, &bytes);
                self.diags.extend(parsed.diagnostics);
                machine_sources.insert(
                    p.path.clone(),
                    SourceFile::new(name.clone(), String::from_utf8_lossy(&bytes).into_owned()),
                );
                match parsed.def {
                    Some(d) => {
                        self.assets.machines.insert(p.path.clone(), Arc::new(d));
                    }
                    None => self.bad_asset(p.span, format!("state machine {name} does not load")),
                }
            }
            let (Some(m), Some(src)) = (
                self.assets.machines.get(&p.path),
                machine_sources.get(&p.path),
            ) else {
                continue;
            };
            let slots: Vec<&str> = an.clips.iter().map(|(s, _)| s.as_str()).collect();
            let ds = sm::validate(m, src, Some(&slots));
            let bad = ds.iter().any(Diagnostic::is_error);
            self.diags.extend(ds);
            if bad {
                self.assets.machines.remove(&p.path);
                let message = format!(
                    "state machine {} is not valid for this animator",
                    src.name()
                );
                self.bad_asset(p.span, message);
                continue;
            }
            self.machine_ok[ei] = true;
        }
    }

    fn graphs(&mut self, def: &SceneDef, catalog: &Catalog) {
        let base = self.layout.scene.parent();
        // Every graph's custom events, in first-use order: they must agree on payloads (E0324).
        let mut payloads: Vec<(SourceFile, compile::payload::Payloads)> = Vec::new();
        for p in def.graph_paths() {
            let Some((name, bytes)) = self.read_named(&base, p, &GRAPH) else {
                continue;
            };
            let text = match String::from_utf8(bytes) {
                Ok(t) => t,
                Err(e) => {
                    let at = e.utf8_error().valid_up_to();
                    let src =
                        SourceFile::new(name, String::from_utf8_lossy(e.as_bytes()).into_owned());
                    self.diags.push(
                        Diagnostic::error(diag::E_NOT_UTF8, "file is not valid UTF-8")
                            .at(&src, diag::Span::new(at, at + 1)),
                    );
                    continue;
                }
            };
            let src = SourceFile::new(name.clone(), text);
            let compiled = compile::compile(&src, catalog);
            let found =
                compile::payload::Payloads::of(&compiled.checked.graph, &compiled.checked.spans);
            payloads.push((src.clone(), found));
            self.diags.extend(compiled.checked.diagnostics);
            match compiled.module {
                Some(m) => {
                    self.assets.graphs.insert(p.path.clone(), Arc::new(m));
                    self.graph_sources.insert(p.path.clone(), src);
                }
                None => self.bad_asset(p.span, format!("graph {name} does not compile")),
            }
        }
        let graphs: Vec<(&SourceFile, &compile::payload::Payloads)> =
            payloads.iter().map(|(s, p)| (s, p)).collect();
        self.diags.extend(compile::payload::conflicts(&graphs));
        self.assets.payloads = compile::payload::agreed(&graphs);
        self.assets.game_nodes = Some(
            catalog
                .game_nodes()
                .into_iter()
                .map(|n| (n.kind.clone(), n.import()))
                .collect(),
        );
    }
}

/// A name or path, shortened and quoted for a diagnostic message.
pub(super) fn quoted(s: &str) -> String {
    format!("`{}`", short(s))
}

/// Bakes `key` with [`crate::anim::retarget_clip`]: the one place retargeted clips are made.
/// The clip is `None` when an asset is missing or the bake failed (an error diagnostic: the
/// slot then plays the clip as loaded); the diagnostics are unlocated (the loader places them
/// at the scene's clip entry).
fn bake(
    key: &RetargetKey,
    assets: &SceneAssets,
) -> (Option<crate::animseq::AnimSeq>, Vec<Diagnostic>) {
    let (Some(seq), Some(source), Some(target)) = (
        assets.clips.get(&key.clip),
        assets.skeletons.get(&key.source),
        assets.skeletons.get(&key.target),
    ) else {
        return (None, Vec::new());
    };
    let (baked, diags) = crate::anim::retarget_clip(seq, source, target, &key.bone_map);
    let ok = !diags.iter().any(Diagnostic::is_error);
    (ok.then_some(baked), diags)
}
