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

/// The scene actions that are not animation commands, as written.
const OTHER_ACTIONS: &[(&str, &str)] = &[
    ("Send", "Send(target, \"custom::NAME\")"),
    ("Despawn", "Despawn"),
];

/// Every scene action's name: the command table's scene actions (`anim::command`), then
/// `Send` and `Despawn`.
pub fn action_names() -> Vec<&'static str> {
    command::COMMANDS
        .iter()
        .filter_map(|c| c.scene)
        .chain(OTHER_ACTIONS.iter().map(|(n, _)| *n))
        .collect()
}

/// Every scene action as written, with its arguments (`SetParam(name, value)`, `Pause`).
pub fn action_forms() -> Vec<String> {
    command::COMMANDS
        .iter()
        .filter_map(|c| {
            let name = c.scene?;
            Some(if c.args.is_empty() {
                name.to_string()
            } else {
                let args: Vec<&str> = c.args.iter().map(|a| a.name).collect();
                format!("{name}({})", args.join(", "))
            })
        })
        .chain(OTHER_ACTIONS.iter().map(|(_, f)| f.to_string()))
        .collect()
}

/// The action forms as a message lists them: `` `SetParam(name, value)`, …, `Despawn` ``.
fn listed_actions() -> String {
    action_forms()
        .iter()
        .map(|f| format!("`{f}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

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
                match ron_span::closest(name, &known) {
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

    /// A graph entry: a path, or `("b.bpg", vars: {"name": Type(value), …})`.
    fn graph_ref(&mut self, v: &Value) -> Option<GraphRef> {
        if matches!(v.kind, ValueKind::Str(_)) {
            return Some(GraphRef {
                path: self.path(v)?,
                vars: Vec::new(),
            });
        }
        let Some(([path_v], fields)) = v.as_tuple_with_fields(1) else {
            self.decode(DecodeError::mismatch(
                "a graph path or `(\"graph.bpg\", vars: {\"name\": Float(1.0)})`",
                v,
            ));
            return None;
        };
        let path = self.path(path_v);
        let mut vars = Vec::new();
        let mut seen_vars = false;
        for f in fields {
            if f.name != GRAPH_ENTRY_FIELDS[0] {
                let mut d = Diagnostic::error(
                    E_SCENE_UNKNOWN_FIELD,
                    format!("unknown field `{}` in a graph entry", short(&f.name)),
                )
                .at(self.src, f.name_span);
                d = d.with_note("a graph entry takes `vars: {\"name\": Type(value), …}`");
                self.push(d);
                continue;
            }
            if seen_vars {
                self.error(
                    E_SCENE_DUPLICATE_FIELD,
                    f.name_span,
                    "field `vars` is written twice",
                );
                continue;
            }
            seen_vars = true;
            vars = self.var_settings(&f.value).unwrap_or_default();
        }
        Some(GraphRef { path: path?, vars })
    }

    /// A `vars` map: `{"name": Type(value), …}`, names unique, at most [`MAX_ITEMS`].
    fn var_settings(&mut self, v: &Value) -> Option<Vec<VarSetting>> {
        let ValueKind::Map(entries) = &v.kind else {
            self.decode(DecodeError::mismatch(
                "a map `{\"name\": Float(1.0)}` of variable values",
                v,
            ));
            return None;
        };
        if entries.len() > MAX_ITEMS {
            self.error(
                E_SCENE_BAD_VALUE,
                v.span,
                format!(
                    "too many variables ({}; at most {MAX_ITEMS})",
                    entries.len()
                ),
            );
            return None;
        }
        let mut seen: HashSet<&str> = HashSet::new();
        let mut out = Vec::new();
        for (k, val) in entries {
            let Some(name) = self.string(k) else { continue };
            let Some(value) = self.var_value(val) else {
                continue;
            };
            if let ValueKind::Str(key) = &k.kind
                && !seen.insert(key.as_str())
            {
                self.error(
                    E_SCENE_DUPLICATE_FIELD,
                    k.span,
                    format!("variable `{}` is set twice", short(&name)),
                );
                continue;
            }
            out.push(VarSetting {
                name,
                name_span: k.span,
                value,
                value_span: val.span,
            });
        }
        Some(out)
    }

    /// `Bool(b)`, `Int(i)`, `Float(x)`, `String(s)`, `Vec3((x, y, z))` or `Entity("name")`
    /// (the entity is resolved once every entity is known).
    fn var_value(&mut self, v: &Value) -> Option<VarValue> {
        const EXPECTED: &str = "a typed value: `Bool(true)`, `Int(3)`, `Float(1.5)`, `String(\"x\")`, `Vec3((0.0, 0.0, 1.0))` or `Entity(\"name\")`";
        let Some(var) = v.as_variant() else {
            self.decode(DecodeError::mismatch(EXPECTED, v));
            return None;
        };
        let arg = match var.args {
            Some([a]) => a,
            _ => {
                self.decode(DecodeError::mismatch(EXPECTED, v));
                return None;
            }
        };
        Some(match var.name {
            "Bool" => VarValue::Bool(self.ok(arg.as_bool())?),
            "Int" => VarValue::Int(self.ok(arg.as_i64())?),
            "Float" => VarValue::Float(self.finite(arg, "a `Float` value")?),
            "String" => {
                let s = self.string(arg)?;
                let max = crate::bytecode::verify::MAX_STRING_LEN;
                if s.len() > max {
                    self.error(
                        E_SCENE_BAD_VALUE,
                        arg.span,
                        format!("string of {} bytes; strings hold at most {max}", s.len()),
                    );
                    return None;
                }
                VarValue::Str(s)
            }
            "Vec3" => {
                let items = self.ok(arg.as_tuple(3))?;
                let mut out = [0f32; 3];
                for (o, item) in out.iter_mut().zip(items) {
                    let x = self.ok(item.as_f32())?;
                    if !x.is_finite() {
                        self.error(
                            E_SCENE_BAD_VALUE,
                            item.span,
                            "a `Vec3` component must be a finite f32",
                        );
                        return None;
                    }
                    *o = x;
                }
                VarValue::Vec3(out)
            }
            "Entity" => {
                let name = self.string(arg)?;
                // Until every entity is known, the index of the pending name.
                self.1.0.push((name, arg.span));
                VarValue::Entity(self.1.0.len() - 1)
            }
            other => {
                let mut d = Diagnostic::error(
                    E_SCENE_TYPE,
                    format!("unknown value type `{}`", short(other)),
                )
                .at(self.src, var.name_span);
                let kinds = ["Bool", "Int", "Float", "String", "Vec3", "Entity"];
                d = match ron_span::closest(other, &kinds) {
                    Some(k) => d.with_note(format!("did you mean `{k}`?")),
                    None => d.with_note(format!("expected {EXPECTED}")),
                };
                self.push(d);
                return None;
            }
        })
    }

    /// Resolves every `Entity("name")` variable value, in the order they were read.
    fn resolve_entity_vars(
        &mut self,
        entities: &mut [EntityDef],
        names: &BTreeMap<String, (usize, Span)>,
    ) {
        let pending = std::mem::take(&mut self.1.0);
        for value in entities
            .iter_mut()
            .flat_map(|e| e.graphs.iter_mut())
            .flat_map(|g| g.vars.iter_mut())
            .map(|v| &mut v.value)
        {
            if let VarValue::Entity(index) = value
                && let Some((name, span)) = pending.get(*index)
            {
                // An unknown name is an error, so the scene is not kept: the index is moot.
                *index = self.entity_named(name, *span, names).unwrap_or(usize::MAX);
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
        let arg_spans = action_v
            .and_then(Value::as_variant)
            .and_then(|v| v.args)
            .map(|args| args.iter().map(|a| a.span).collect())
            .unwrap_or_default();
        Some(ActionDef {
            at,
            entity,
            action,
            arg_spans,
        })
    }

    fn action_kind(
        &mut self,
        v: &Value,
        names: &BTreeMap<String, (usize, Span)>,
    ) -> Option<Action> {
        let Some(var) = v.as_variant() else {
            let expected = format!("an action ({})", listed_actions());
            self.decode(DecodeError::mismatch(expected, v));
            return None;
        };
        let command = command::by_scene(var.name);
        let arity = match (var.name, command) {
            ("Despawn", _) => 0,
            ("Send", _) => 2,
            (_, Some(c)) => c.args.len(),
            _ => {
                let names = action_names();
                let mut d = Diagnostic::error(
                    E_SCENE_TYPE,
                    format!("unknown action `{}`", short(var.name)),
                )
                .at(self.src, var.name_span);
                if let Some(k) = ron_span::closest(var.name, &names) {
                    d = d.with_note(format!("did you mean `{k}`?"));
                }
                self.push(d.with_note(format!("the actions are {}", listed_actions())));
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
        let Some(spec) = command else {
            return self.other_action(var.name, args, names);
        };
        // Every argument is decoded (each error reported) before any failure returns.
        let values: Vec<Option<ArgValue>> = spec
            .args
            .iter()
            .zip(args)
            .map(|(arg, v)| match arg.ty {
                Type::Str => self.string(v).map(|s| ArgValue::Str(s.into())),
                // The table's other argument type is `float`.
                _ => self.finite(v, arg.what).map(ArgValue::Float),
            })
            .collect();
        let values: Vec<ArgValue> = values.into_iter().collect::<Option<_>>()?;
        if spec.kind == CommandKind::SetSpeed
            && let [ArgValue::Float(s)] = values[..]
            && s.abs() > MAX_SPEED
        {
            self.error(
                E_SCENE_BAD_VALUE,
                args[0].span,
                format!("speed must be within ±{MAX_SPEED}"),
            );
            return None;
        }
        if spec.kind == CommandKind::Play
            && let [_, ArgValue::Float(at)] = values[..]
            && at < 0.0
        {
            self.error(
                E_SCENE_BAD_VALUE,
                args[1].span,
                format!("clip time `at` must be ≥ 0, found {at}"),
            );
            return None;
        }
        AnimCommand::from_values(spec.kind, &values).map(Action::Anim)
    }

    /// The actions that are not animation commands (`Despawn`, `Send`), arity checked.
    fn other_action(
        &mut self,
        name: &str,
        args: &[Value],
        names: &BTreeMap<String, (usize, Span)>,
    ) -> Option<Action> {
        let a = |i: usize| &args[i];
        Some(match name {
            "Despawn" => Action::Despawn,
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
