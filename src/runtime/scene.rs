//! Headless scenes (`.scene.ron`, `runtime.md` "Scenes"): [`parse`] reads a scene into a
//! [`SceneDef`] with `E055x` diagnostics at the offending token; [`spawn`] builds the entities
//! (minimal [`Animator`], graph instances) from already loaded assets and schedules the timed
//! actions; [`headless`] prepares a world and schedule that run it. No file I/O: the caller
//! reads the graphs (relative to the scene's folder) and clips (relative to the assets folder).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use bevy_ecs::prelude::*;

use super::animator::PoseRig;
use super::animator::{AnimCommand, Animator, Clip};
use super::hub::{Dispatcher, EventHub, LastFlush};
use super::instance::{VmDispatch, attach_graphs};
use super::schedule::{
    AnimationSet, GameTime, SceneActions, SinewSet, TimeError, add_sinew_systems, init_world,
};
use super::trace::{self, Trace};
use crate::anim::state_machine::{self as sm, StateMachineDef};
use crate::anim::{BoneMask, BoundClip, RootClip, Skeleton, find_root_bone, retarget_clip};
use crate::animseq::{AnimSeq, is_identifier};
use crate::bytecode::VerifiedModule;
use crate::diag::{Diagnostic, SourceFile, Span};
use crate::ron_span::{self, DecodeError, Fields, Value, ValueKind};

/// Scene file is not UTF-8.
pub const E_SCENE_NOT_UTF8: &str = "E0550";
/// RON syntax error.
pub const E_SCENE_SYNTAX: &str = "E0551";
/// A value has the wrong shape (type mismatch, bad variant, wrong arity).
pub const E_SCENE_TYPE: &str = "E0552";
/// Unknown struct field.
pub const E_SCENE_UNKNOWN_FIELD: &str = "E0553";
/// A struct field written twice.
pub const E_SCENE_DUPLICATE_FIELD: &str = "E0554";
/// A required field is missing.
pub const E_SCENE_MISSING_FIELD: &str = "E0555";
/// Two entities share a name.
pub const E_SCENE_DUPLICATE_ENTITY: &str = "E0556";
/// An action names an entity the scene does not declare.
pub const E_SCENE_UNKNOWN_ENTITY: &str = "E0557";
/// A number or name is out of range (non-finite, negative where it cannot be, bad event name).
pub const E_SCENE_BAD_VALUE: &str = "E0558";
/// `default_clip` (or a layer clip) names no clip slot of the animator.
pub const E_SCENE_UNKNOWN_CLIP: &str = "E0559";
/// An animation action targets an entity without an animator.
pub const E_SCENE_NO_ANIMATOR: &str = "E0560";
/// A file the scene references (graph, clip) cannot be read.
pub const E_SCENE_MISSING_FILE: &str = "E0561";
/// A graph the scene references does not compile, or a clip does not load.
pub const E_SCENE_BAD_ASSET: &str = "E0562";
/// Retired (the full animator supports every feature); kept registered so the code is not
/// reused. Formerly: a full-runtime feature the minimal animator ignored.
pub const W_SCENE_UNSUPPORTED: &str = "W0550";
/// The source skeleton a clip names (its `skeleton` field) cannot be read or does not load:
/// the slot plays the clip un-retargeted, by name (warning).
pub const W_SCENE_SOURCE_SKELETON: &str = "W0563";

/// Every scene code.
pub const CODES: &[&str] = &[
    E_SCENE_NOT_UTF8,
    E_SCENE_SYNTAX,
    E_SCENE_TYPE,
    E_SCENE_UNKNOWN_FIELD,
    E_SCENE_DUPLICATE_FIELD,
    E_SCENE_MISSING_FIELD,
    E_SCENE_DUPLICATE_ENTITY,
    E_SCENE_UNKNOWN_ENTITY,
    E_SCENE_BAD_VALUE,
    E_SCENE_UNKNOWN_CLIP,
    E_SCENE_NO_ANIMATOR,
    E_SCENE_MISSING_FILE,
    E_SCENE_BAD_ASSET,
    W_SCENE_UNSUPPORTED,
    W_SCENE_SOURCE_SKELETON,
];

/// Most entities, actions, graphs per entity or clips per animator a scene may declare.
pub const MAX_ITEMS: usize = 100_000;

/// A path as written in the scene, with its span.
#[derive(Debug, Clone, PartialEq)]
pub struct PathRef {
    /// The path text.
    pub path: String,
    /// Where it is written.
    pub span: Span,
}

/// Layer blend mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayerBlend {
    /// Replaces what lies below.
    Override,
    /// Adds the clip's difference from its first frame.
    Additive,
}

/// A declared animation layer (recorded; no effect with the minimal animator).
#[derive(Debug, Clone, PartialEq)]
pub struct LayerDef {
    /// Layer name.
    pub name: String,
    /// Weight (default 1).
    pub weight: f64,
    /// Bone mask (`"bone"`, `"!bone"`), `None` = every bone.
    pub mask: Option<Vec<String>>,
    /// Blend mode (default `Override`).
    pub blend: LayerBlend,
    /// Clip slot playing on it.
    pub clip: Option<String>,
}

/// Root-motion mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RootMotionMode {
    /// No root motion (default).
    #[default]
    Off,
    /// Moves the entity.
    Transform,
    /// Published for the game.
    Extract,
}

/// Root-motion settings (default `(mode: Off, bone: "", yaw: false)`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RootMotionDef {
    /// Mode.
    pub mode: RootMotionMode,
    /// Root bone (`""` = first bone named like hips or pelvis).
    pub bone: String,
    /// Whether turning about Y is extracted too.
    pub yaw: bool,
}

/// An inline animator.
#[derive(Debug, Clone, PartialEq)]
pub struct AnimatorDef {
    /// Clip slots → `.animseq` path relative to the assets folder, in authored order.
    pub clips: Vec<(String, PathRef)>,
    /// `.skel` path (full animation runtime only).
    pub skeleton: Option<PathRef>,
    /// `.animsm` path (full animation runtime only).
    pub state_machine: Option<PathRef>,
    /// Slot played from time 0, looping, at speed 1.
    pub default_clip: Option<String>,
    /// Crossfade time for requests (default 0.2 s).
    pub blend_duration: f64,
    /// Layers.
    pub layers: Vec<LayerDef>,
    /// Root motion.
    pub root_motion: RootMotionDef,
    /// Source → target bone renames.
    pub bone_map: BTreeMap<String, String>,
}

/// One scene entity.
#[derive(Debug, Clone, PartialEq)]
pub struct EntityDef {
    /// Unique name.
    pub name: String,
    /// Where the name is written.
    pub name_span: Span,
    /// Inline animator.
    pub animator: Option<AnimatorDef>,
    /// Graph paths relative to the scene's folder, in instance order.
    pub graphs: Vec<PathRef>,
    /// Initial position.
    pub position: [f32; 3],
}

/// A timed action.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// `SetParam(name, value)`.
    SetParam(String, f64),
    /// `SetState(name)`.
    SetState(String),
    /// `PlayOnLayer(layer, clip)`.
    PlayOnLayer(String, String),
    /// `StopLayer(layer)`.
    StopLayer(String),
    /// `SetLayerWeight(layer, w)`.
    SetLayerWeight(String, f64),
    /// `Seek(time)`.
    Seek(f64),
    /// `Pause`.
    Pause,
    /// `Resume`.
    Resume,
    /// `SetSpeed(s)`.
    SetSpeed(f64),
    /// `Send(target entity, "custom::NAME")`, sent by the action's entity.
    Send(usize, String),
    /// `Despawn`.
    Despawn,
}

impl Action {
    /// The variant name as written.
    pub fn name(&self) -> &'static str {
        match self {
            Action::SetParam(..) => "SetParam",
            Action::SetState(_) => "SetState",
            Action::PlayOnLayer(..) => "PlayOnLayer",
            Action::StopLayer(_) => "StopLayer",
            Action::SetLayerWeight(..) => "SetLayerWeight",
            Action::Seek(_) => "Seek",
            Action::Pause => "Pause",
            Action::Resume => "Resume",
            Action::SetSpeed(_) => "SetSpeed",
            Action::Send(..) => "Send",
            Action::Despawn => "Despawn",
        }
    }

    fn needs_animator(&self) -> bool {
        !matches!(self, Action::Send(..) | Action::Despawn)
    }
}

/// `(at, entity, action)`.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionDef {
    /// Game time in seconds (finite; default 0).
    pub at: f64,
    /// Index of the entity in [`SceneDef::entities`].
    pub entity: usize,
    /// What to do.
    pub action: Action,
}

/// A parsed, validated scene.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SceneDef {
    /// Entities in scene order.
    pub entities: Vec<EntityDef>,
    /// Actions in authored order.
    pub actions: Vec<ActionDef>,
}

impl SceneDef {
    /// Every distinct graph path, in first-use order.
    pub fn graph_paths(&self) -> Vec<&PathRef> {
        let mut seen = BTreeSet::new();
        self.entities
            .iter()
            .flat_map(|e| &e.graphs)
            .filter(|p| seen.insert(p.path.as_str()))
            .collect()
    }

    /// Every distinct clip path, in first-use order.
    pub fn clip_paths(&self) -> Vec<&PathRef> {
        let mut seen = BTreeSet::new();
        self.entities
            .iter()
            .filter_map(|e| e.animator.as_ref())
            .flat_map(|a| a.clips.iter().map(|(_, p)| p))
            .filter(|p| seen.insert(p.path.as_str()))
            .collect()
    }
}

/// The result of [`parse`].
#[derive(Debug, Clone)]
pub struct Parsed {
    /// `Some` iff there is no error.
    pub scene: Option<SceneDef>,
    /// Errors and warnings, in canonical order.
    pub diagnostics: Vec<Diagnostic>,
}

/// Parses raw bytes (non-UTF-8 is [`E_SCENE_NOT_UTF8`]).
pub fn parse_bytes(name: &str, bytes: &[u8]) -> Parsed {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse(&SourceFile::new(name, text)),
        Err(e) => {
            let at = e.valid_up_to();
            let src = SourceFile::new(name, String::from_utf8_lossy(bytes));
            Parsed {
                scene: None,
                diagnostics: vec![
                    Diagnostic::error(
                        E_SCENE_NOT_UTF8,
                        format!("scene file is not valid UTF-8 (offset {at})"),
                    )
                    .at(&src, Span::new(at, at + e.error_len().unwrap_or(1))),
                ],
            }
        }
    }
}

const SCENE_FIELDS: &[&str] = &["entities", "actions"];
const ENTITY_FIELDS: &[&str] = &["name", "animator", "graphs", "position"];
const ANIMATOR_FIELDS: &[&str] = &[
    "skeleton",
    "clips",
    "state_machine",
    "default_clip",
    "blend_duration",
    "layers",
    "root_motion",
    "bone_map",
];
const LAYER_FIELDS: &[&str] = &["name", "weight", "mask", "blend", "clip"];
const ROOT_MOTION_FIELDS: &[&str] = &["mode", "bone", "yaw"];
const ACTION_FIELDS: &[&str] = &["at", "entity", "action"];

/// Parses and validates one scene text.
pub fn parse(src: &SourceFile) -> Parsed {
    let mut cx = Cx {
        src,
        diags: Vec::new(),
        errors: false,
    };
    let scene = match ron_span::parse(src.text()) {
        Ok(v) => cx.scene(&v),
        Err(e) => {
            cx.error(E_SCENE_SYNTAX, e.span, e.message);
            None
        }
    };
    crate::diag::sort(&mut cx.diags);
    Parsed {
        scene: if cx.errors { None } else { scene },
        diagnostics: cx.diags,
    }
}

struct Cx<'s> {
    src: &'s SourceFile,
    diags: Vec<Diagnostic>,
    errors: bool,
}

impl Cx<'_> {
    fn error(&mut self, code: &'static str, span: Span, msg: impl Into<String>) {
        self.push(Diagnostic::error(code, msg).at(self.src, span));
    }

    fn push(&mut self, d: Diagnostic) {
        self.errors |= d.is_error();
        self.diags.push(d);
    }

    fn decode(&mut self, e: DecodeError) {
        let codes = ron_span::DecodeCodes {
            type_mismatch: E_SCENE_TYPE,
            unknown_field: E_SCENE_UNKNOWN_FIELD,
            duplicate_field: E_SCENE_DUPLICATE_FIELD,
            missing_field: E_SCENE_MISSING_FIELD,
        };
        self.push(e.to_diagnostic(self.src, codes));
    }

    fn ok<T>(&mut self, r: Result<T, DecodeError>) -> Option<T> {
        r.map_err(|e| self.decode(e)).ok()
    }

    fn strukt<'v>(
        &mut self,
        v: &'v Value,
        name: &str,
        known: &'static [&'static str],
    ) -> Option<Fields<'v>> {
        let mut errs = Vec::new();
        let f = ron_span::expect_struct(v, name, known, &mut errs);
        for e in errs {
            self.decode(e);
        }
        f
    }

    fn list<'v>(&mut self, v: &'v Value, what: &str) -> Option<&'v [Value]> {
        let items = self.ok(v.as_list())?;
        if items.len() > MAX_ITEMS {
            self.error(
                E_SCENE_BAD_VALUE,
                v.span,
                format!("too many {what} ({}; at most {MAX_ITEMS})", items.len()),
            );
            return None;
        }
        Some(items)
    }

    fn string(&mut self, v: &Value) -> Option<String> {
        self.ok(v.as_str()).map(str::to_string)
    }

    fn finite(&mut self, v: &Value, what: &str) -> Option<f64> {
        let x = self.ok(v.as_f64())?;
        if !x.is_finite() {
            self.error(
                E_SCENE_BAD_VALUE,
                v.span,
                format!("{what} must be a finite number, found {x}"),
            );
            return None;
        }
        Some(x)
    }

    fn opt_string(&mut self, v: &Value) -> Option<Option<String>> {
        match self.ok(v.as_option())? {
            None => Some(None),
            Some(s) => self.string(s).map(Some),
        }
    }

    fn opt_path(&mut self, v: &Value) -> Option<Option<PathRef>> {
        match self.ok(v.as_option())? {
            None => Some(None),
            Some(s) => self.path(s).map(Some),
        }
    }

    fn path(&mut self, v: &Value) -> Option<PathRef> {
        let path = self.string(v)?;
        if path.is_empty() || path.contains('\0') {
            self.error(E_SCENE_BAD_VALUE, v.span, "path is empty or contains NUL");
            return None;
        }
        Some(PathRef { path, span: v.span })
    }

    fn scene(&mut self, v: &Value) -> Option<SceneDef> {
        let root = self.strukt(v, "Scene", SCENE_FIELDS)?;
        let mut scene = SceneDef::default();
        let mut names: BTreeMap<String, (usize, Span)> = BTreeMap::new();
        if let Some(f) = root.get("entities")
            && let Some(items) = self.list(&f.value, "entities")
        {
            for item in items {
                let Some(e) = self.entity(item) else { continue };
                if let Some((_, first)) = names.get(&e.name) {
                    let d = Diagnostic::error(
                        E_SCENE_DUPLICATE_ENTITY,
                        format!("entity name `{}` is used twice", short(&e.name)),
                    )
                    .at(self.src, e.name_span)
                    .with_label(self.src, *first, "first declared here")
                    .with_note("entity names are unique within a scene");
                    self.push(d);
                    continue;
                }
                names.insert(e.name.clone(), (scene.entities.len(), e.name_span));
                scene.entities.push(e);
            }
        }
        if let Some(f) = root.get("actions")
            && let Some(items) = self.list(&f.value, "actions")
        {
            for item in items {
                if let Some(a) = self.action(item, &names, &scene.entities) {
                    scene.actions.push(a);
                }
            }
        }
        Some(scene)
    }

    fn entity(&mut self, v: &Value) -> Option<EntityDef> {
        let f = self.strukt(v, "Entity", ENTITY_FIELDS)?;
        let mut errs = Vec::new();
        let name_v = f.required("name", &mut errs);
        for e in errs {
            self.decode(e);
        }
        let name_v = name_v?;
        let name = self.string(name_v)?;
        if name.trim().is_empty() {
            self.error(E_SCENE_BAD_VALUE, name_v.span, "entity name is empty");
        }
        let animator = match f.get("animator") {
            None => None,
            Some(a) => match self.ok(a.value.as_option()) {
                Some(Some(inner)) => self.animator(inner),
                _ => None,
            },
        };
        let mut graphs = Vec::new();
        if let Some(g) = f.get("graphs")
            && let Some(items) = self.list(&g.value, "graphs")
        {
            graphs.extend(items.iter().filter_map(|p| self.path(p)));
        }
        let mut position = [0.0f32; 3];
        if let Some(p) = f.get("position")
            && let Some(items) = self.ok(p.value.as_tuple(3))
        {
            for (o, item) in position.iter_mut().zip(items) {
                if let Some(x) = self.ok(item.as_f32()) {
                    if x.is_finite() {
                        *o = x;
                    } else {
                        self.error(E_SCENE_BAD_VALUE, item.span, "position must be finite");
                    }
                }
            }
        }
        Some(EntityDef {
            name,
            name_span: name_v.span,
            animator,
            graphs,
            position,
        })
    }

    fn animator(&mut self, v: &Value) -> Option<AnimatorDef> {
        let f = self.strukt(v, "Animator", ANIMATOR_FIELDS)?;
        let mut a = AnimatorDef {
            clips: Vec::new(),
            skeleton: None,
            state_machine: None,
            default_clip: None,
            blend_duration: 0.2,
            layers: Vec::new(),
            root_motion: RootMotionDef::default(),
            bone_map: BTreeMap::new(),
        };
        if let Some(c) = f.get("clips") {
            match &c.value.kind {
                ValueKind::Map(entries) => {
                    for (k, v) in entries {
                        let (Some(slot), Some(path)) = (self.string(k), self.path(v)) else {
                            continue;
                        };
                        if a.clips.iter().any(|(s, _)| *s == slot) {
                            self.error(
                                E_SCENE_DUPLICATE_FIELD,
                                k.span,
                                format!("clip slot `{}` is declared twice", short(&slot)),
                            );
                            continue;
                        }
                        a.clips.push((slot, path));
                    }
                }
                _ => self.decode(DecodeError::mismatch(
                    "a map `{\"slot\": \"file\"}`",
                    &c.value,
                )),
            }
        }
        if let Some(s) = f.get("skeleton") {
            a.skeleton = self.opt_path(&s.value).flatten();
        }
        if let Some(s) = f.get("state_machine") {
            a.state_machine = self.opt_path(&s.value).flatten();
        }
        if let Some(d) = f.get("default_clip")
            && let Some(slot) = self.opt_string(&d.value).flatten()
        {
            if !a.clips.iter().any(|(s, _)| *s == slot) {
                self.error(
                    E_SCENE_UNKNOWN_CLIP,
                    d.value.span,
                    format!(
                        "default clip `{}` is not a clip slot of this animator",
                        short(&slot)
                    ),
                );
            }
            a.default_clip = Some(slot);
        }
        if let Some(b) = f.get("blend_duration")
            && let Some(x) = self.finite(&b.value, "blend_duration")
        {
            if x < 0.0 {
                self.error(
                    E_SCENE_BAD_VALUE,
                    b.value.span,
                    "blend_duration must be ≥ 0",
                );
            }
            a.blend_duration = x;
        }
        if let Some(l) = f.get("layers")
            && let Some(items) = self.list(&l.value, "layers")
        {
            for item in items {
                if let Some(layer) = self.layer(item, &a.clips) {
                    a.layers.push(layer);
                }
            }
        }
        if let Some(r) = f.get("root_motion") {
            a.root_motion = self.root_motion(&r.value).unwrap_or_default();
        }
        if let Some(m) = f.get("bone_map") {
            match &m.value.kind {
                ValueKind::Map(entries) => {
                    for (k, v) in entries {
                        if let (Some(k), Some(v)) = (self.string(k), self.string(v)) {
                            a.bone_map.insert(k, v);
                        }
                    }
                }
                _ => self.decode(DecodeError::mismatch(
                    "a map `{\"source\": \"target\"}`",
                    &m.value,
                )),
            }
        }
        Some(a)
    }

    fn layer(&mut self, v: &Value, clips: &[(String, PathRef)]) -> Option<LayerDef> {
        let f = self.strukt(v, "Layer", LAYER_FIELDS)?;
        let mut errs = Vec::new();
        let name_v = f.required("name", &mut errs);
        for e in errs {
            self.decode(e);
        }
        let name = self.string(name_v?)?;
        let mut layer = LayerDef {
            name,
            weight: 1.0,
            mask: None,
            blend: LayerBlend::Override,
            clip: None,
        };
        if let Some(w) = f.get("weight") {
            layer.weight = self.finite(&w.value, "layer weight").unwrap_or(1.0);
        }
        if let Some(m) = f.get("mask")
            && let Some(Some(list)) = self.ok(m.value.as_option())
            && let Some(items) = self.list(list, "mask entries")
        {
            layer.mask = Some(items.iter().filter_map(|i| self.string(i)).collect());
        }
        if let Some(b) = f.get("blend") {
            match b.value.as_variant() {
                Some(v) if v.args.is_none() && v.name == "Override" => {}
                Some(v) if v.args.is_none() && v.name == "Additive" => {
                    layer.blend = LayerBlend::Additive
                }
                _ => self.decode(DecodeError::mismatch("`Override` or `Additive`", &b.value)),
            }
        }
        if let Some(c) = f.get("clip")
            && let Some(slot) = self.opt_string(&c.value).flatten()
        {
            if !clips.iter().any(|(s, _)| *s == slot) {
                self.error(
                    E_SCENE_UNKNOWN_CLIP,
                    c.value.span,
                    format!(
                        "layer clip `{}` is not a clip slot of this animator",
                        short(&slot)
                    ),
                );
            }
            layer.clip = Some(slot);
        }
        Some(layer)
    }

    fn root_motion(&mut self, v: &Value) -> Option<RootMotionDef> {
        let f = self.strukt(v, "RootMotion", ROOT_MOTION_FIELDS)?;
        let mut r = RootMotionDef::default();
        if let Some(m) = f.get("mode") {
            match m.value.as_variant() {
                Some(v) if v.args.is_none() && v.name == "Off" => {}
                Some(v) if v.args.is_none() && v.name == "Transform" => {
                    r.mode = RootMotionMode::Transform
                }
                Some(v) if v.args.is_none() && v.name == "Extract" => {
                    r.mode = RootMotionMode::Extract
                }
                _ => self.decode(DecodeError::mismatch(
                    "`Off`, `Transform` or `Extract`",
                    &m.value,
                )),
            }
        }
        if let Some(b) = f.get("bone") {
            r.bone = self.string(&b.value).unwrap_or_default();
        }
        if let Some(y) = f.get("yaw") {
            r.yaw = self.ok(y.value.as_bool()).unwrap_or(false);
        }
        Some(r)
    }

    fn entity_ref(&mut self, v: &Value, names: &BTreeMap<String, (usize, Span)>) -> Option<usize> {
        let name = self.string(v)?;
        match names.get(&name) {
            Some((i, _)) => Some(*i),
            None => {
                let known: Vec<&str> = names.keys().map(String::as_str).collect();
                let mut d = Diagnostic::error(
                    E_SCENE_UNKNOWN_ENTITY,
                    format!("unknown entity `{}`", short(&name)),
                )
                .at(self.src, v.span);
                match ron_span::closest(&name, &known) {
                    Some(k) => d = d.with_note(format!("did you mean `{k}`?")),
                    None if !known.is_empty() && known.len() <= 16 => {
                        d = d.with_note(format!(
                            "entities: {}",
                            known
                                .iter()
                                .map(|k| format!("`{k}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ))
                    }
                    None => {}
                }
                self.push(d);
                None
            }
        }
    }

    fn action(
        &mut self,
        v: &Value,
        names: &BTreeMap<String, (usize, Span)>,
        entities: &[EntityDef],
    ) -> Option<ActionDef> {
        let f = self.strukt(v, "Action", ACTION_FIELDS)?;
        let mut errs = Vec::new();
        let entity_v = f.required("entity", &mut errs);
        let action_v = f.required("action", &mut errs);
        for e in errs {
            self.decode(e);
        }
        let at = match f.get("at") {
            Some(a) => self.finite(&a.value, "action time `at`"),
            None => Some(0.0),
        };
        let entity = entity_v.and_then(|e| self.entity_ref(e, names));
        let action = action_v.and_then(|a| self.action_kind(a, names));
        let (at, entity, action) = (at?, entity?, action?);
        if action.needs_animator()
            && let Some(e) = entities.get(entity)
            && e.animator.is_none()
            && let Some(av) = action_v
        {
            self.error(
                E_SCENE_NO_ANIMATOR,
                av.span,
                format!(
                    "action `{}` needs an animator; entity `{}` has none",
                    action.name(),
                    short(&e.name)
                ),
            );
            return None;
        }
        Some(ActionDef { at, entity, action })
    }

    fn action_kind(
        &mut self,
        v: &Value,
        names: &BTreeMap<String, (usize, Span)>,
    ) -> Option<Action> {
        const EXPECTED: &str = "an action (`SetParam(name, value)`, `SetState(name)`, `PlayOnLayer(layer, clip)`, `StopLayer(layer)`, `SetLayerWeight(layer, w)`, `Seek(time)`, `Pause`, `Resume`, `SetSpeed(s)`, `Send(target, \"custom::NAME\")`, `Despawn`)";
        let Some(var) = v.as_variant() else {
            self.decode(DecodeError::mismatch(EXPECTED, v));
            return None;
        };
        let arity = match var.name {
            "Pause" | "Resume" | "Despawn" => 0,
            "SetState" | "StopLayer" | "Seek" | "SetSpeed" => 1,
            "SetParam" | "PlayOnLayer" | "SetLayerWeight" | "Send" => 2,
            _ => {
                self.error(
                    E_SCENE_TYPE,
                    var.name_span,
                    format!("unknown action `{}`", short(var.name)),
                );
                return None;
            }
        };
        let args = var.args.unwrap_or(&[]);
        if args.len() != arity || (arity == 0 && var.args.is_some()) {
            self.error(
                E_SCENE_TYPE,
                v.span,
                format!(
                    "action `{}` takes {arity} argument{}, found {}",
                    var.name,
                    if arity == 1 { "" } else { "s" },
                    args.len()
                ),
            );
            return None;
        }
        let a = |i: usize| &args[i];
        Some(match var.name {
            "Pause" => Action::Pause,
            "Resume" => Action::Resume,
            "Despawn" => Action::Despawn,
            "SetState" => Action::SetState(self.string(a(0))?),
            "StopLayer" => Action::StopLayer(self.string(a(0))?),
            "Seek" => Action::Seek(self.finite(a(0), "seek time")?),
            "SetSpeed" => {
                let s = self.finite(a(0), "speed")?;
                if s.abs() > MAX_SPEED {
                    self.error(
                        E_SCENE_BAD_VALUE,
                        a(0).span,
                        format!("speed must be within ±{MAX_SPEED}"),
                    );
                    return None;
                }
                Action::SetSpeed(s)
            }
            "SetParam" => {
                let (n, x) = (self.string(a(0)), self.finite(a(1), "parameter value"));
                Action::SetParam(n?, x?)
            }
            "PlayOnLayer" => {
                let (l, c) = (self.string(a(0)), self.string(a(1)));
                Action::PlayOnLayer(l?, c?)
            }
            "SetLayerWeight" => {
                let (l, w) = (self.string(a(0)), self.finite(a(1), "layer weight"));
                Action::SetLayerWeight(l?, w?)
            }
            _ => {
                // Send
                let target = self.entity_ref(a(0), names);
                let event = self.string(a(1))?;
                let ok = event.strip_prefix("custom::").is_some_and(is_identifier);
                if !ok {
                    self.error(
                        E_SCENE_BAD_VALUE,
                        a(1).span,
                        format!(
                            "`Send` takes an event `custom::NAME`, found \"{}\"",
                            short(&event)
                        ),
                    );
                    return None;
                }
                Action::Send(target?, event)
            }
        })
    }
}

/// Largest playback speed magnitude `SetSpeed` accepts.
pub const MAX_SPEED: f64 = 1.0e6;

use crate::ron_span::short;

// ---------------------------------------------------------------------------------------------
// Building and running
// ---------------------------------------------------------------------------------------------

/// The assets a scene needs, already loaded, keyed by the paths as written in the scene.
#[derive(Debug, Default, Clone)]
pub struct SceneAssets {
    /// Graph path → verified module.
    pub graphs: BTreeMap<String, Arc<VerifiedModule>>,
    /// Clip path → sequence.
    pub clips: BTreeMap<String, Arc<AnimSeq>>,
    /// Skeleton path → skeleton.
    pub skeletons: BTreeMap<String, Arc<Skeleton>>,
    /// State-machine path → parsed (and validated) state machine.
    pub machines: BTreeMap<String, Arc<StateMachineDef>>,
    /// Clip path (a key of `clips`) → the skeleton the clip was keyed on, as a normalized
    /// assets-relative path ([`normalize_asset_path`]) and a key of `skeletons` once loaded.
    /// Filled by the loader (`sinew run` resolves each clip's `skeleton` field, else `.skel`
    /// discovery beside the clip); a clip without an entry plays as it always did.
    pub clip_sources: BTreeMap<String, String>,
    /// Retargeted clips already baked (see [`bake_retargeted`]); [`spawn`] bakes any it needs
    /// that are missing.
    pub retargeted: BTreeMap<RetargetKey, Arc<AnimSeq>>,
}

/// What one retargeted clip is baked from: one per (clip, source skeleton, target skeleton,
/// `bone_map`), shared by every animator slot with the same four.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct RetargetKey {
    /// Clip path (a key of [`SceneAssets::clips`]).
    pub clip: String,
    /// Source skeleton (a key of [`SceneAssets::skeletons`], normalized).
    pub source: String,
    /// The animator's skeleton (its `skeleton` path as written, a key of `skeletons`).
    pub target: String,
    /// The animator's `bone_map` (source → target names).
    pub bone_map: BTreeMap<String, String>,
}

/// The lexical normal form of a `/`-separated path: `.` segments, empty segments and
/// `name/..` pairs removed (a leading `..` is kept, as is a leading `/`). Two paths naming one
/// file through `.`/`..` compare equal; symbolic links are not followed.
pub fn normalize_asset_path(p: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." if parts.last().is_some_and(|l| *l != "..") => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    let joined = parts.join("/");
    if p.starts_with('/') {
        format!("/{joined}")
    } else {
        joined
    }
}

/// `rel`, written inside the file at assets-relative `file`, as a normalized assets-relative
/// path (relative to `file`'s folder; an absolute `rel` stays absolute).
pub fn resolve_beside(file: &str, rel: &str) -> String {
    if rel.starts_with('/') {
        return normalize_asset_path(rel);
    }
    match normalize_asset_path(file).rsplit_once('/') {
        Some((dir, _)) => normalize_asset_path(&format!("{dir}/{rel}")),
        None => normalize_asset_path(rel),
    }
}

/// The bake clip slot `clip` of animator `a` plays, or `None` when it plays the clip as loaded:
/// the clip has no source skeleton, the animator has no skeleton, both name the same file
/// (normalized paths), or the clip or either skeleton is not loaded.
pub fn retarget_key(a: &AnimatorDef, clip: &str, assets: &SceneAssets) -> Option<RetargetKey> {
    let target = a.skeleton.as_ref()?;
    let source = assets.clip_sources.get(clip)?;
    if normalize_asset_path(&target.path) == *source
        || !assets.clips.contains_key(clip)
        || !assets.skeletons.contains_key(source)
        || !assets.skeletons.contains_key(&target.path)
    {
        return None;
    }
    Some(RetargetKey {
        clip: clip.to_string(),
        source: source.clone(),
        target: target.path.clone(),
        bone_map: a.bone_map.clone(),
    })
}

/// Bakes `key` with [`retarget_clip`]. The clip is `None` when an asset is missing or the bake
/// failed (an error diagnostic: the slot then plays the clip as loaded); the diagnostics are
/// unlocated (the caller places them at the scene's clip entry).
pub fn bake(key: &RetargetKey, assets: &SceneAssets) -> (Option<AnimSeq>, Vec<Diagnostic>) {
    let (Some(seq), Some(source), Some(target)) = (
        assets.clips.get(&key.clip),
        assets.skeletons.get(&key.source),
        assets.skeletons.get(&key.target),
    ) else {
        return (None, Vec::new());
    };
    let (baked, diags) = retarget_clip(seq, source, target, &key.bone_map);
    let ok = !diags.iter().any(Diagnostic::is_error);
    (ok.then_some(baked), diags)
}

/// Bakes every retargeted clip the scene's animators need that `assets.retargeted` lacks, once
/// per [`RetargetKey`], into `assets.retargeted`. Returns, per (entity index, clip slot index),
/// the diagnostics of the bake that slot uses (a bake shared by several slots is reported for
/// each), for the caller to locate at the clip entry.
pub fn bake_retargeted(
    scene: &SceneDef,
    assets: &mut SceneAssets,
) -> Vec<(usize, usize, Vec<Diagnostic>)> {
    let mut made: BTreeMap<RetargetKey, Vec<Diagnostic>> = BTreeMap::new();
    let mut out = Vec::new();
    for (ei, e) in scene.entities.iter().enumerate() {
        let Some(a) = &e.animator else { continue };
        for (si, (_, p)) in a.clips.iter().enumerate() {
            let Some(key) = retarget_key(a, &p.path, assets) else {
                continue;
            };
            if !made.contains_key(&key) && !assets.retargeted.contains_key(&key) {
                let (seq, ds) = bake(&key, assets);
                if let Some(seq) = seq {
                    assets.retargeted.insert(key.clone(), Arc::new(seq));
                }
                made.insert(key.clone(), ds);
            }
            if let Some(ds) = made.get(&key).filter(|ds| !ds.is_empty()) {
                out.push((ei, si, ds.clone()));
            }
        }
    }
    out
}

/// What one clip slot plays: the sequence, and whether it is a retargeted bake (its tracks
/// already carry target names, so it binds without `bone_map`).
#[derive(Debug, Clone)]
pub struct SlotSequence {
    /// The sequence sampled for poses and root motion.
    pub seq: Arc<AnimSeq>,
    /// `true` for a retargeted bake.
    pub retargeted: bool,
}

impl SlotSequence {
    /// Compiles the sequence and binds it to `skel`: through `bone_map` unless retargeted.
    pub fn bind(
        &self,
        skel: &Skeleton,
        bone_map: &BTreeMap<String, String>,
        slot: &str,
    ) -> (BoundClip, Vec<Diagnostic>) {
        let none = BTreeMap::new();
        let map = if self.retargeted { &none } else { bone_map };
        BoundClip::new(&self.seq, skel, map, slot)
    }
}

/// The sequence each clip slot of `a` plays, in slot order: the retargeted bake for slots
/// with a [`retarget_key`] (from `assets.retargeted`, else baked into `cache`), otherwise the
/// clip as loaded.
fn slot_sequences(
    a: &AnimatorDef,
    assets: &SceneAssets,
    cache: &mut BTreeMap<RetargetKey, Option<Arc<AnimSeq>>>,
) -> Result<Vec<SlotSequence>, SpawnError> {
    a.clips
        .iter()
        .map(|(_, p)| {
            let loaded = assets
                .clips
                .get(&p.path)
                .ok_or_else(|| SpawnError(format!("clip `{}` was not loaded", p.path)))?;
            let baked = retarget_key(a, &p.path, assets).and_then(|key| {
                if let Some(s) = assets.retargeted.get(&key) {
                    return Some(s.clone());
                }
                cache
                    .entry(key)
                    .or_insert_with_key(|key| bake(key, assets).0.map(Arc::new))
                    .clone()
            });
            Ok(match baked {
                Some(seq) => SlotSequence {
                    seq,
                    retargeted: true,
                },
                None => SlotSequence {
                    seq: loaded.clone(),
                    retargeted: false,
                },
            })
        })
        .collect()
}

/// A spawned scene: entities in scene order, and their names.
#[derive(Debug, Clone, Default)]
pub struct Spawned {
    /// `(name, entity, position)` in scene order.
    pub entities: Vec<(String, Entity, [f32; 3])>,
}

impl Spawned {
    /// The scene name of the entity with `bits`, if it belongs to the scene.
    pub fn name_of(&self, bits: u64) -> Option<&str> {
        self.entities
            .iter()
            .find(|(_, e, _)| e.to_bits() == bits)
            .map(|(n, _, _)| n.as_str())
    }
}

/// Why [`spawn`] failed: an asset the scene names was not provided or could not be prepared.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct SpawnError(pub String);

/// A world and schedule for a headless run with tick length `dt`: Sinew's resources and
/// systems, the VM dispatcher, the minimal animator in [`AnimationSet`], a [`Trace`], and a
/// system after the flush that traces flush overruns and queue-limit drops.
pub fn headless(dt: f64) -> Result<(World, Schedule), TimeError> {
    let mut world = World::new();
    init_world(&mut world);
    world.insert_resource(GameTime::new(dt)?);
    world.insert_resource(Dispatcher::new(VmDispatch::new()));
    world.insert_resource(Trace::default());
    world.insert_resource(QueueDrops(0));
    let mut schedule = Schedule::default();
    add_sinew_systems(&mut schedule);
    schedule.add_systems(super::animator::animate.in_set(AnimationSet));
    schedule.add_systems(report_flush.after(SinewSet::Flush));
    Ok((world, schedule))
}

/// Publishes refused by the hub's queue limit that were already reported.
#[derive(Resource, Debug, Default, Clone, Copy)]
pub struct QueueDrops(pub u64);

/// Traces the last flush's overrun and any new queue-limit drops as `error` records.
pub fn report_flush(world: &mut World) {
    let overrun = world.get_resource::<LastFlush>().and_then(|l| l.0.overrun);
    if let Some(o) = overrun {
        trace::error(world, None, None, None, o.to_string());
    }
    let dropped = world
        .get_resource::<EventHub>()
        .map_or(0, EventHub::dropped_by_limit);
    let seen = world.get_resource::<QueueDrops>().map_or(0, |q| q.0);
    if dropped > seen {
        if let Some(mut q) = world.get_resource_mut::<QueueDrops>() {
            q.0 = dropped;
        }
        trace::error(
            world,
            None,
            None,
            None,
            format!("{} event(s) dropped: event queue full", dropped - seen),
        );
    }
}

/// Spawns the scene's entities into `world` (prepared with [`headless`] or `init_world`):
/// animators with their clips (the default clip starts at the first update), graph instances
/// (which queues `begin_play`), and the timed actions in [`SceneActions`].
pub fn spawn(
    world: &mut World,
    scene: &SceneDef,
    assets: &SceneAssets,
) -> Result<Spawned, SpawnError> {
    let mut spawned = Spawned::default();
    let mut prepared: BTreeMap<&str, Arc<Clip>> = BTreeMap::new();
    let mut baked: BTreeMap<RetargetKey, Option<Arc<AnimSeq>>> = BTreeMap::new();
    for def in &scene.entities {
        let entity = world.spawn_empty().id();
        spawned
            .entities
            .push((def.name.clone(), entity, def.position));
        if let Some(a) = &def.animator {
            let mut animator = Animator::new();
            for (slot, path) in &a.clips {
                let clip = match prepared.get(path.path.as_str()) {
                    Some(c) => c.clone(),
                    None => {
                        let seq = assets.clips.get(&path.path).ok_or_else(|| {
                            SpawnError(format!("clip `{}` was not loaded", path.path))
                        })?;
                        let mut hub = world
                            .get_resource_mut::<EventHub>()
                            .ok_or_else(|| SpawnError("the world has no event hub".into()))?;
                        let clip = Arc::new(
                            Clip::new(seq.clone(), &mut hub)
                                .map_err(|e| SpawnError(format!("{}: {e}", path.path)))?,
                        );
                        prepared.insert(&path.path, clip.clone());
                        clip
                    }
                };
                animator.add_clip(slot, clip);
            }
            animator.set_blend_duration(a.blend_duration);
            if let Some(p) = &a.state_machine {
                let def = assets.machines.get(&p.path).ok_or_else(|| {
                    SpawnError(format!("state machine `{}` was not loaded", p.path))
                })?;
                let m = sm::compile(def, &|s| animator.slot_index(s))
                    .map_err(|d| SpawnError(format!("{}: {d}", p.path)))?;
                animator.set_machine(Arc::new(m));
            }
            let slots = slot_sequences(a, assets, &mut baked)?;
            if a.root_motion.mode != RootMotionMode::Off {
                let root = root_motion(a, assets, &slots)?;
                animator.set_root_motion(root, def.position);
            } else {
                animator.set_root_motion(
                    super::animator::RootMotion {
                        mode: crate::anim::RootMotionMode::Off,
                        clips: Vec::new(),
                    },
                    def.position,
                );
            }
            if a.skeleton.is_some()
                || a.state_machine.is_some()
                || !a.layers.is_empty()
                || a.root_motion.mode != RootMotionMode::Off
            {
                animator.set_rig(pose_rig(a, assets, &slots)?);
            }
            for layer in &a.layers {
                animator.add_layer(&layer.name, layer.weight);
                animator.queue(AnimCommand::SetLayerWeight(
                    layer.name.as_str().into(),
                    layer.weight,
                ));
                if let Some(c) = &layer.clip {
                    animator.queue(AnimCommand::PlayOnLayer(
                        layer.name.as_str().into(),
                        c.as_str().into(),
                    ));
                }
            }
            if let Some(slot) = &a.default_clip
                && a.state_machine.is_none()
            {
                animator.play(slot);
            }
            world.entity_mut(entity).insert(animator);
        }
    }
    for (def, (_, entity, _)) in scene.entities.iter().zip(&spawned.entities) {
        if def.graphs.is_empty() {
            continue;
        }
        let modules = def
            .graphs
            .iter()
            .map(|p| {
                assets
                    .graphs
                    .get(&p.path)
                    .cloned()
                    .ok_or_else(|| SpawnError(format!("graph `{}` was not compiled", p.path)))
            })
            .collect::<Result<Vec<_>, _>>()?;
        attach_graphs(world, *entity, &modules).map_err(|e| SpawnError(e.to_string()))?;
    }
    let mut actions = world.remove_resource::<SceneActions>().unwrap_or_default();
    for a in &scene.actions {
        let Some((name, entity, _)) = spawned.entities.get(a.entity).cloned() else {
            return Err(SpawnError("action names an unknown entity".into()));
        };
        let target = match a.action {
            Action::Send(t, _) => spawned.entities.get(t).map(|(_, e, _)| *e),
            _ => None,
        };
        let action = a.action.clone();
        actions
            .schedule(a.at, move |world: &mut World| {
                apply_action(world, &name, entity, target, action)
            })
            .map_err(|e| SpawnError(e.to_string()))?;
    }
    world.insert_resource(actions);
    Ok(spawned)
}

/// The skeleton an animator poses: its `.skel`, or the flat one of its clips' tracks.
fn animator_skeleton(a: &AnimatorDef, assets: &SceneAssets) -> Result<Skeleton, SpawnError> {
    match &a.skeleton {
        Some(p) => Ok((**assets
            .skeletons
            .get(&p.path)
            .ok_or_else(|| SpawnError(format!("skeleton `{}` was not loaded", p.path)))?)
        .clone()),
        None => {
            let names: Vec<String> = a
                .clips
                .iter()
                .filter_map(|(_, p)| assets.clips.get(&p.path))
                .flat_map(|s| crate::anim::CompiledClip::new(s).tracks)
                .map(|t| t.bone)
                .collect();
            Ok(Skeleton::from_track_names(names.iter().map(String::as_str)))
        }
    }
}

/// Prepares pose evaluation: skeleton, clips bound per slot (`slots`, from
/// [`slot_sequences`]), layer masks, root bone.
fn pose_rig(
    a: &AnimatorDef,
    assets: &SceneAssets,
    slots: &[SlotSequence],
) -> Result<PoseRig, SpawnError> {
    let skel = animator_skeleton(a, assets)?;
    let clips = slots
        .iter()
        .zip(&a.clips)
        .map(|(s, (slot, _))| s.bind(&skel, &a.bone_map, slot).0)
        .collect();
    let layers = a
        .layers
        .iter()
        .map(|l| {
            let mask = l.mask.as_ref().map(|m| {
                let entries: Vec<&str> = m.iter().map(String::as_str).collect();
                BoneMask::new(&skel, &entries, &l.name).0
            });
            (
                Arc::from(l.name.as_str()),
                (mask, l.blend == LayerBlend::Additive),
            )
        })
        .collect();
    let root = (a.root_motion.mode != RootMotionMode::Off)
        .then(|| find_root_bone(&skel, &a.root_motion.bone))
        .flatten()
        .map(|b| (b, a.root_motion.yaw));
    Ok(PoseRig::new(Arc::new(skel), clips, layers, root))
}

/// Prepares root motion: the skeleton (or the flat one of the clips' tracks), the root bone
/// and each slot's root track (in slot order, from the sequences `slots` plays, so a
/// retargeted slot moves by its scaled hips translation).
fn root_motion(
    a: &AnimatorDef,
    assets: &SceneAssets,
    slots: &[SlotSequence],
) -> Result<super::animator::RootMotion, SpawnError> {
    let skel = animator_skeleton(a, assets)?;
    let mode = match a.root_motion.mode {
        RootMotionMode::Off => crate::anim::RootMotionMode::Off,
        RootMotionMode::Transform => crate::anim::RootMotionMode::Transform,
        RootMotionMode::Extract => crate::anim::RootMotionMode::Extract,
    };
    let bone = find_root_bone(&skel, &a.root_motion.bone);
    let clips = slots
        .iter()
        .zip(&a.clips)
        .map(|(seq, (slot, _))| {
            let bone = bone?;
            let (bc, _) = seq.bind(&skel, &a.bone_map, slot);
            Some(RootClip::new(
                &bc.clip,
                &bc.binding,
                bone,
                a.root_motion.yaw,
            ))
        })
        .collect();
    Ok(super::animator::RootMotion { mode, clips })
}

fn apply_action(
    world: &mut World,
    name: &str,
    entity: Entity,
    target: Option<Entity>,
    action: Action,
) {
    if !world.entities().contains_spawned(entity) {
        trace::error(
            world,
            Some(entity),
            None,
            None,
            format!(
                "action `{}` on `{name}` skipped: the entity was despawned",
                action.name()
            ),
        );
        return;
    }
    let command = match action {
        Action::Despawn => {
            world.despawn(entity);
            return;
        }
        Action::Send(_, event) => {
            let Some(target) = target else { return };
            let Some(mut hub) = world.get_resource_mut::<EventHub>() else {
                return;
            };
            let sent = hub
                .intern(&event)
                .map(|id| hub.publisher().send(id, target, Some(entity)));
            if !matches!(sent, Ok(true)) {
                trace::error(
                    world,
                    Some(entity),
                    None,
                    None,
                    format!("action `Send` of {event} dropped: event queue full"),
                );
            }
            return;
        }
        Action::SetState(state) => AnimCommand::SetState(state.into()),
        Action::SetParam(n, v) => AnimCommand::SetParam(n.into(), v),
        Action::PlayOnLayer(l, c) => AnimCommand::PlayOnLayer(l.into(), c.into()),
        Action::StopLayer(l) => AnimCommand::StopLayer(l.into()),
        Action::SetLayerWeight(l, w) => AnimCommand::SetLayerWeight(l.into(), w),
        Action::Seek(t) => AnimCommand::Seek(t),
        Action::Pause => AnimCommand::Pause,
        Action::Resume => AnimCommand::Resume,
        Action::SetSpeed(s) => AnimCommand::SetSpeed(s),
    };
    if let Some(mut a) = world.get_mut::<Animator>(entity) {
        a.queue(command);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::{Pose, load_skeleton};

    const RIG: &str = r#"Skeleton(bones: [
        (name: "hips", parent: None, translation: (0.0, 1.0, 0.0), rotation: (0.0, 0.0, 0.0, 1.0)),
        (name: "leg", parent: Some("hips"), translation: (0.1, -0.1, 0.0), rotation: (0.0, 0.0, 0.0, 1.0)),
        (name: "foot", parent: Some("leg"), translation: (0.0, -0.8, 0.0), rotation: (0.0, 0.0, 0.0, 1.0)),
    ])"#;
    const OTHER: &str = r#"Skeleton(bones: [
        (name: "Hips_src", parent: None, translation: (0.0, 2.0, 0.0), rotation: (0.0, 0.7071068, 0.0, 0.7071068)),
        (name: "leg", parent: Some("Hips_src"), translation: (0.1, -0.1, 0.0), rotation: (0.0, 0.0, 0.0, 1.0)),
        (name: "foot", parent: Some("leg"), translation: (0.0, -1.6, 0.0), rotation: (0.0, 0.0, 0.0, 1.0)),
    ])"#;
    const CLIP: &str = r#"AnimSeq(format: 3, id: "c", name: "C", duration: 1.0, tracks: [
        (bone: "Hips_src", translation: [(0.0, (0.0, 1.0, 0.0)), (1.0, (0.0, 1.2, 2.0))], rotation: [(0.0, (0.0, 0.0, 0.0, 1.0)), (1.0, (0.0, 0.3827, 0.0, 0.9239))], scale: []),
        (bone: "leg", translation: [], rotation: [(0.0, (0.0, 0.0, 0.0, 1.0)), (0.5, (0.2588, 0.0, 0.0, 0.9659))], scale: []),
    ])"#;

    /// Assets for one animator on `rig.skel` with clip slots `plain` (no source skeleton),
    /// `same` (source `./rig.skel`, the animator's own) and `other` (source `other.skel`), and
    /// its parsed definition (bone_map `Hips_src` → `hips`, root motion on).
    fn check() -> (AnimatorDef, SceneAssets) {
        let scene = r#"Scene(entities: [(name: "e", animator: Some((skeleton: Some("rig.skel"),
            clips: {"plain": "plain.animseq", "same": "same.animseq", "other": "other.animseq"},
            root_motion: (mode: Transform), bone_map: {"Hips_src": "hips"})))])"#;
        let def = parse(&SourceFile::new("t.scene.ron", scene))
            .scene
            .expect("scene parses");
        let a = def.entities[0].animator.clone().expect("animator");
        let mut assets = SceneAssets::default();
        for (path, text) in [("rig.skel", RIG), ("other.skel", OTHER)] {
            let skel = load_skeleton(&SourceFile::new(path, text)).skeleton;
            assets
                .skeletons
                .insert(path.into(), Arc::new(skel.expect("skeleton loads")));
        }
        for path in ["plain.animseq", "same.animseq", "other.animseq"] {
            let seq = crate::animseq::load(&SourceFile::new(path, CLIP)).seq;
            assets
                .clips
                .insert(path.into(), Arc::new(seq.expect("clip loads")));
        }
        assets
            .clip_sources
            .insert("same.animseq".into(), normalize_asset_path("./rig.skel"));
        assets
            .clip_sources
            .insert("other.animseq".into(), "other.skel".into());
        (a, assets)
    }

    fn bits(p: &Pose) -> Vec<u32> {
        let t = p.translations.iter().flat_map(|v| v.to_array());
        let r = p.rotations.iter().flat_map(|q| q.to_array());
        let s = p.scales.iter().flat_map(|v| v.to_array());
        t.chain(r).chain(s).map(f32::to_bits).collect()
    }

    #[test]
    fn slots_without_a_distinct_source_skeleton_play_bit_identically() {
        let (a, assets) = check();
        let slots = slot_sequences(&a, &assets, &mut BTreeMap::new()).expect("slots");
        assert_eq!(
            slots.iter().map(|s| s.retargeted).collect::<Vec<_>>(),
            [false, false, true]
        );
        let rig = pose_rig(&a, &assets, &slots).expect("rig");
        let root = root_motion(&a, &assets, &slots).expect("root motion");
        let skel = &assets.skeletons["rig.skel"];
        let hips = find_root_bone(skel, "").expect("hips");
        // What spawn built before retargeting existed: the loaded clip bound through bone_map.
        let before =
            |slot: &str, path: &str| BoundClip::new(&assets.clips[path], skel, &a.bone_map, slot).0;
        for (i, (slot, path)) in [("plain", "plain.animseq"), ("same", "same.animseq")]
            .into_iter()
            .enumerate()
        {
            let b = before(slot, path);
            assert_eq!(rig.clips[i], b, "{slot}");
            let rc = RootClip::new(&b.clip, &b.binding, hips, false);
            assert_eq!(root.clips[i].as_ref(), Some(&rc), "{slot}");
            let (mut x, mut y) = (Pose::rest(skel), Pose::rest(skel));
            for t in [0.0, 0.1, 0.25, 0.5, 0.77, 1.0] {
                rig.clips[i].sample_pose(skel, t, &mut x);
                b.sample_pose(skel, t, &mut y);
                assert_eq!(bits(&x), bits(&y), "{slot} at {t}");
            }
        }
        // The third slot is retargeted: no bone is named like an upper leg, so the hips rest
        // heights give the ratio, 1.0 (rig.skel) / 2.0 (other.skel): its hips translation is
        // halved, unlike the un-retargeted binding.
        let b = before("other", "other.animseq");
        let (mut x, mut y) = (Pose::rest(skel), Pose::rest(skel));
        rig.clips[2].sample_pose(skel, 1.0, &mut x);
        b.sample_pose(skel, 1.0, &mut y);
        assert_eq!(y.translations[hips].z, 2.0);
        assert!((x.translations[hips].z - 1.0).abs() < 1e-6, "{x:?}");
    }

    #[test]
    fn one_bake_per_key_and_none_without_an_animator_skeleton() {
        let (mut a, mut assets) = check();
        let scene = SceneDef {
            entities: vec![
                EntityDef {
                    name: "a".into(),
                    name_span: Span::new(0, 0),
                    animator: Some(a.clone()),
                    graphs: Vec::new(),
                    position: [0.0; 3],
                };
                2
            ],
            actions: Vec::new(),
        };
        let diags = bake_retargeted(&scene, &mut assets);
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(assets.retargeted.len(), 1);
        a.skeleton = None;
        assert_eq!(retarget_key(&a, "other.animseq", &assets), None);
    }

    #[test]
    fn paths_normalize_lexically() {
        assert_eq!(normalize_asset_path("./a//b/../c.skel"), "a/c.skel");
        assert_eq!(normalize_asset_path("../x/./y"), "../x/y");
        assert_eq!(normalize_asset_path("/abs/../r"), "/r");
        assert_eq!(
            resolve_beside("sub/clip.animseq", "../rig.skel"),
            "rig.skel"
        );
        assert_eq!(resolve_beside("clip.animseq", "rigs/r.skel"), "rigs/r.skel");
        assert_eq!(resolve_beside("a/b.animseq", "/abs.skel"), "/abs.skel");
    }
}
