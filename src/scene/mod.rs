//! The scene model (`.scene.ron`, `runtime.md` "Scenes"): the definitions a scene file declares
//! ([`SceneDef`], parsed and validated by [`parse`] with `E055x` diagnostics at the offending
//! token) and the loaded assets they bind to ([`SceneAssets`]). Pure: no file I/O, no ECS. The
//! project loader (`crate::project`) reads the files and fills [`SceneAssets`];
//! `crate::runtime::scene::spawn` builds the entities.

mod assets;
pub mod parse;

pub use assets::{
    RetargetKey, SceneAssets, SlotSequence, normalize_asset_path, resolve_beside, retarget_key,
};
pub use parse::{parse, parse_bytes};

use std::collections::{BTreeMap, BTreeSet};

pub use crate::anim::{AnimCommand, LayerBlend, RootMotionMode};
use crate::diag::{Diagnostic, Span};

pub use crate::diag::codes::scene::*;

/// Most entities, actions, graphs per entity or clips per animator a scene may declare.
pub const MAX_ITEMS: usize = 100_000;

/// A path as written in the scene, with its span.
#[derive(Debug, Clone, PartialEq)]
pub struct PathRef {
    /// The path text. For a clip named by identity ([`PathRef::imported`]) it is empty until
    /// the project loader resolves it, then the clip file the model's manifest names (relative
    /// to the assets folder).
    pub path: String,
    /// Where it is written.
    pub span: Span,
    /// Set for a clip slot written `Imported(model: "<uuid>", clip: "Walk")`.
    pub imported: Option<ImportedClip>,
}

/// A clip named by identity: an imported model's UUID and the clip's label (or its sub-asset
/// ID), resolved through the generated manifests (`docs/import.md`); the manifest's path is
/// only a hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedClip {
    /// The model UUID, lowercase and hyphenated.
    pub model: String,
    /// The clip's label (`Walk`) or sub-asset ID.
    pub clip: String,
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
    /// Graphs (paths relative to the scene's folder), in instance order, each with the
    /// variables the scene sets on this entity's instance.
    pub graphs: Vec<GraphRef>,
    /// Initial position.
    pub position: [f32; 3],
    /// What the headless recorder returns for game nodes this entity's graphs call, per kind
    /// (`returns: {"game.health": {"value": Float(25.0)}}`, `bridge.md`).
    pub returns: Vec<GameReturnsDef>,
}

/// One `returns` entry: a game node kind and the outputs it returns instead of its defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct GameReturnsDef {
    pub kind: String,
    pub kind_span: Span,
    pub outputs: Vec<VarSetting>,
}

/// One graph attached to an entity: `"b.bpg"` or `("b.bpg", vars: {"victim": Entity("dummy")})`.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphRef {
    /// The graph file.
    pub path: PathRef,
    /// The variables the scene sets on this instance, in authored order (names unique).
    pub vars: Vec<VarSetting>,
}

/// `"name": Type(value)` in a graph entry's `vars` map. Whether the graph declares the
/// variable, with that type, is checked by the project loader (it knows the compiled graph).
#[derive(Debug, Clone, PartialEq)]
pub struct VarSetting {
    /// The variable's name.
    pub name: String,
    /// Where the name is written.
    pub name_span: Span,
    /// The value.
    pub value: VarValue,
    /// Where the value is written.
    pub value_span: Span,
}

/// A typed value a scene gives a graph variable: `Bool(true)`, `Int(3)`, `Float(30.0)`,
/// `String("x")`, `Vec3((0.0, 0.0, 1.0))` or `Entity("dummy")` (`runtime.md`).
#[derive(Debug, Clone, PartialEq)]
pub enum VarValue {
    /// `Bool(b)`.
    Bool(bool),
    /// `Int(i)`.
    Int(i64),
    /// `Float(x)` (finite; an integer literal is accepted).
    Float(f64),
    /// `String(s)`.
    Str(String),
    /// `Vec3((x, y, z))` (finite f32 components).
    Vec3([f32; 3]),
    /// `Entity("name")`: the index of the named entity in [`SceneDef::entities`].
    Entity(usize),
}

impl VarValue {
    /// The graph type the value has.
    pub fn ty(&self) -> crate::types::Type {
        use crate::types::Type;
        match self {
            VarValue::Bool(_) => Type::Bool,
            VarValue::Int(_) => Type::Int,
            VarValue::Float(_) => Type::Float,
            VarValue::Str(_) => Type::Str,
            VarValue::Vec3(_) => Type::Vec3,
            VarValue::Entity(_) => Type::Entity,
        }
    }

    /// The constructor a scene writes for a value of type `ty` (`Float`, `Entity`, …).
    pub fn constructor(ty: crate::types::Type) -> &'static str {
        use crate::types::Type;
        match ty {
            Type::Bool => "Bool",
            Type::Int => "Int",
            Type::Float => "Float",
            Type::Str => "String",
            Type::Vec3 => "Vec3",
            Type::Entity => "Entity",
        }
    }
}

/// A timed action.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// An animation command, written as its scene action (`SetParam(name, value)`,
    /// `SetState(name)`, `PlayOnLayer(layer, clip)`, `StopLayer(layer)`,
    /// `SetLayerWeight(layer, w)`, `Seek(time)`, `Pause`, `Resume`, `SetSpeed(s)`: the rows of
    /// `anim::command`'s table with a scene name).
    Anim(AnimCommand),
    /// `Send(target, "custom::NAME")` or `Send(target, "custom::NAME", {"field": Type(value),
    /// …})`, sent by the action's entity. The fields are checked against the graphs' payload
    /// declaration by the project loader; fields not given take their type's default.
    Send {
        /// Index of the receiving entity in [`SceneDef::entities`].
        target: usize,
        /// The event identity, `custom::NAME`.
        event: String,
        /// The payload values given, in the order written (`Entity` values resolved).
        fields: Vec<VarSetting>,
    },
    /// `Despawn`.
    Despawn,
}

impl Action {
    /// The variant name as written.
    pub fn name(&self) -> &'static str {
        match self {
            Action::Anim(c) => c.spec().scene.unwrap_or(c.spec().name),
            Action::Send { .. } => "Send",
            Action::Despawn => "Despawn",
        }
    }

    fn needs_animator(&self) -> bool {
        matches!(self, Action::Anim(_))
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
    /// Where each of the action's arguments is written (in order; empty for `Pause`, …), so
    /// checks over a loaded scene can point at a name.
    pub arg_spans: Vec<Span>,
}

/// A parsed, validated scene.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SceneDef {
    /// The seed of the notify chance draws (`seed: 7`; default 0, any integer ≥ 0).
    pub seed: u64,
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
            .flat_map(|e| e.graphs.iter().map(|g| &g.path))
            .filter(|p| seen.insert(p.path.as_str()))
            .collect()
    }

    /// Every distinct clip path, in first-use order (clips named by identity that are not
    /// resolved yet, whose path is empty, are left out).
    pub fn clip_paths(&self) -> Vec<&PathRef> {
        let mut seen = BTreeSet::new();
        self.entities
            .iter()
            .filter_map(|e| e.animator.as_ref())
            .flat_map(|a| a.clips.iter().map(|(_, p)| p))
            .filter(|p| !p.path.is_empty() && seen.insert(p.path.as_str()))
            .collect()
    }

    /// Every clip slot named by identity (`Imported(...)`), in scene order, mutable so the
    /// loader can set each one's path.
    pub fn imported_clips_mut(&mut self) -> impl Iterator<Item = &mut PathRef> {
        self.entities
            .iter_mut()
            .filter_map(|e| e.animator.as_mut())
            .flat_map(|a| a.clips.iter_mut().map(|(_, p)| p))
            .filter(|p| p.imported.is_some())
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

/// Largest playback speed magnitude `SetSpeed` accepts.
pub const MAX_SPEED: f64 = 1.0e6;
