//! The `.scene.ron` parser: RON with spans ([`crate::ron_span`]) decoded into a [`SceneDef`],
//! every problem an `E055x` diagnostic at the offending token.

use std::collections::{BTreeMap, HashSet};

use super::*;
use crate::anim::command::{self, CommandKind};
use crate::animseq::is_identifier;
use crate::bytecode::Value as ArgValue;
use crate::diag::SourceFile;
use crate::ron_span::{self, DecodeCodes, DecodeError, Decoder, Value, ValueKind, short};
use crate::types::Type;

mod actions;
mod graphs;
mod returns;

pub use actions::{action_forms, action_names};

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

const SCENE_FIELDS: &[&str] = &["seed", "entities", "actions"];
const ENTITY_FIELDS: &[&str] = &["name", "animator", "graphs", "position", "returns"];
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
const IMPORTED_FIELDS: &[&str] = &["model", "clip"];
const GRAPH_ENTRY_FIELDS: &[&str] = &["vars"];

/// How many unknown clip names of one animator get a did-you-mean or the list of slots.
const SUGGESTED_PER_ANIMATOR: usize = 16;

/// Every struct of the scene format with its fields, as the parser accepts them (the scene
/// reference, `docs/scenes.md`, is checked against this list).
pub const FIELDS: &[(&str, &[&str])] = &[
    ("Scene", SCENE_FIELDS),
    ("Entity", ENTITY_FIELDS),
    ("Animator", ANIMATOR_FIELDS),
    ("Layer", LAYER_FIELDS),
    ("RootMotion", ROOT_MOTION_FIELDS),
    ("Action", ACTION_FIELDS),
    ("Imported", IMPORTED_FIELDS),
];

/// Parses and validates one scene text.
pub fn parse(src: &SourceFile) -> Parsed {
    let mut cx = Cx(
        Decoder::new(
            src,
            DecodeCodes {
                type_mismatch: E_SCENE_TYPE,
                unknown_field: E_SCENE_UNKNOWN_FIELD,
                duplicate_field: E_SCENE_DUPLICATE_FIELD,
                missing_field: E_SCENE_MISSING_FIELD,
            },
        ),
        Pending::default(),
    );
    let scene = match ron_span::parse(src.text()) {
        Ok(v) => cx.scene(&v),
        Err(e) => {
            cx.error(E_SCENE_SYNTAX, e.span, e.message);
            None
        }
    };
    let errors = cx.has_errors();
    Parsed {
        scene: if errors { None } else { scene },
        diagnostics: cx.0.finish(),
    }
}

/// The scene decoder: the shared [`Decoder`] plus the format's own checks.
struct Cx<'s>(Decoder<'s>, Pending);

/// `Entity("name")` variable values read before every entity is known: (name, span).
#[derive(Default)]
struct Pending(Vec<(String, Span)>);

impl<'s> std::ops::Deref for Cx<'s> {
    type Target = Decoder<'s>;
    fn deref(&self) -> &Decoder<'s> {
        &self.0
    }
}

impl std::ops::DerefMut for Cx<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl Cx<'_> {
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
        Some(PathRef {
            path,
            span: v.span,
            imported: None,
        })
    }

    /// A clip slot's value: a path (`"walk.animseq"`) or a clip named by identity
    /// (`Imported(model: "<uuid>", clip: "Walk")`).
    fn clip_ref(&mut self, v: &Value) -> Option<PathRef> {
        if matches!(v.kind, ValueKind::Str(_)) {
            return self.path(v);
        }
        let is_imported =
            matches!(&v.kind, ValueKind::Struct { name: Some(n), .. } if n.text == "Imported");
        if !is_imported {
            self.decode(DecodeError::mismatch(
                "a clip file path or `Imported(model: \"<uuid>\", clip: \"<label>\")`",
                v,
            ));
            return None;
        }
        let f = self.strukt(v, "Imported", IMPORTED_FIELDS)?;
        let mut errs = Vec::new();
        let (model_v, clip_v) = (
            f.required("model", &mut errs),
            f.required("clip", &mut errs),
        );
        for e in errs {
            self.decode(e);
        }
        let (model_v, clip_v) = (model_v?, clip_v?);
        let (model, clip) = (self.string(model_v)?, self.string(clip_v)?);
        let Some(uuid) = uuid::Uuid::parse_str(&model).ok().filter(|u| !u.is_nil()) else {
            self.error(
                E_SCENE_BAD_VALUE,
                model_v.span,
                format!(
                    "`{}` is not a model UUID (the `uuid` of the model's `.meta` sidecar)",
                    short(&model)
                ),
            );
            return None;
        };
        if clip.trim().is_empty() {
            self.error(E_SCENE_BAD_VALUE, clip_v.span, "clip label is empty");
            return None;
        }
        Some(PathRef {
            path: String::new(),
            span: v.span,
            imported: Some(ImportedClip {
                model: uuid.hyphenated().to_string(),
                clip,
            }),
        })
    }

    fn scene(&mut self, v: &Value) -> Option<SceneDef> {
        let root = self.strukt(v, "Scene", SCENE_FIELDS)?;
        let mut scene = SceneDef::default();
        let mut names: BTreeMap<String, (usize, Span)> = BTreeMap::new();
        if let Some(f) = root.get("seed")
            && let Some(seed) = self.ok(f.value.as_i64())
        {
            match u64::try_from(seed) {
                Ok(s) => scene.seed = s,
                Err(_) => self.error(
                    E_SCENE_BAD_VALUE,
                    f.value.span,
                    format!("seed must be an integer ≥ 0, found {seed}"),
                ),
            }
        }
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
        self.resolve_entity_vars(&mut scene.entities, &names);
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
            graphs.extend(items.iter().filter_map(|p| self.graph_ref(p)));
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
        let returns = f
            .get("returns")
            .map(|r| self.returns(&r.value))
            .unwrap_or_default();
        Some(EntityDef {
            name,
            name_span: name_v.span,
            animator,
            graphs,
            position,
            returns,
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
        // Slot names seen so far: duplicate and unknown-slot checks in O(1) each (a scene may
        // declare 100,000 slots and 100,000 layers).
        let mut slots: HashSet<String> = HashSet::new();
        // Unknown clip names given a suggestion so far.
        let mut noted = 0usize;
        if let Some(c) = f.get("clips") {
            match &c.value.kind {
                ValueKind::Map(entries) => {
                    for (k, v) in entries {
                        let (Some(slot), Some(path)) = (self.string(k), self.clip_ref(v)) else {
                            continue;
                        };
                        if !slots.insert(slot.clone()) {
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
                    "a map `{\"slot\": \"file\"}` (or `{\"slot\": Imported(model, clip)}`)",
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
            if !slots.contains(&slot) {
                self.unknown_clip(
                    d.value.span,
                    format!(
                        "default clip `{}` is not a clip slot of this animator",
                        short(&slot)
                    ),
                    &slot,
                    &a.clips,
                    &mut noted,
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
                if let Some(layer) = self.layer(item, &slots, &a.clips, &mut noted) {
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

    /// `E0559` for a clip name that is no slot of the animator: did you mean the closest slot
    /// (in declaration order), else the slots there are. Only the first
    /// [`SUGGESTED_PER_ANIMATOR`] of an animator get the note (`noted` counts them), so 100,000
    /// unknown layer clips against 100,000 slots stay linear.
    fn unknown_clip(
        &mut self,
        span: Span,
        message: String,
        slot: &str,
        declared: &[(String, PathRef)],
        noted: &mut usize,
    ) {
        let mut d = Diagnostic::error(E_SCENE_UNKNOWN_CLIP, message).at(self.src, span);
        if *noted < SUGGESTED_PER_ANIMATOR {
            *noted += 1;
            let names: Vec<&str> = declared.iter().map(|(s, _)| s.as_str()).collect();
            d = match crate::suggest::closest(slot, names.iter().copied()) {
                Some(c) => d.with_note(format!("did you mean `{}`?", short(c))),
                None => d.with_note(
                    crate::suggest::listing("clip slots", &names)
                        .unwrap_or_else(|| "the animator declares no clip slots".into()),
                ),
            };
        }
        self.push(d);
    }

    fn layer(
        &mut self,
        v: &Value,
        clips: &HashSet<String>,
        declared: &[(String, PathRef)],
        noted: &mut usize,
    ) -> Option<LayerDef> {
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
            if !clips.contains(&slot) {
                self.unknown_clip(
                    c.value.span,
                    format!(
                        "layer clip `{}` is not a clip slot of this animator",
                        short(&slot)
                    ),
                    &slot,
                    declared,
                    noted,
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
        self.entity_named(&name, v.span, names)
    }

    /// The index of the entity called `name` (written at `span`), or an `E0557` naming the
    /// choices.
    fn entity_named(
        &mut self,
        name: &str,
        span: Span,
        names: &BTreeMap<String, (usize, Span)>,
    ) -> Option<usize> {
        match names.get(name) {
            Some((i, _)) => Some(*i),
            None => {
                let known: Vec<&str> = names.keys().map(String::as_str).collect();
                let mut d = Diagnostic::error(
                    E_SCENE_UNKNOWN_ENTITY,
                    format!("unknown entity `{}`", short(name)),
                )
                .at(self.src, span);
                // The choices always (runtime.md: "naming the choices", as E0565 lists
                // states), the closest beside them.
                if let Some(k) = ron_span::closest(name, &known) {
                    d = d.with_note(format!("did you mean `{k}`?"));
                }
                const MAX_LISTED: usize = 16;
                if !known.is_empty() {
                    let listed: Vec<String> = known
                        .iter()
                        .take(MAX_LISTED)
                        .map(|k| format!("`{}`", short(k)))
                        .collect();
                    let more = known.len().saturating_sub(MAX_LISTED);
                    let tail = if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    };
                    d = d.with_note(format!("entities: {}{tail}", listed.join(", ")));
                }
                self.push(d);
                None
            }
        }
    }
}
