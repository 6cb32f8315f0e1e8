//! Game nodes declared by the project: `*.nodes.ron` files under the assets folder
//! (`bridge.md` §1). [`parse`] reads one file into [`GameNode`]s and its diagnostics; the
//! catalog (`catalog`) collects them across files (duplicates quarantined), the palette lists
//! them, the compiler resolves `game.*` kinds against them and records each call's signature in
//! the module's import table ([`GameNode::import`]). Pure: values in, values out.

use std::sync::Arc;

use crate::bytecode::{Const, EntityConst, GameFlow, Import};
use crate::diag::{Diagnostic, SourceFile, Span};
use crate::ron_span::{self, DecodeCodes, Decoder, Value, ValueKind, short};
use crate::types::Type;

pub use crate::bytecode::game::MAX_GAME_PINS;
pub use crate::diag::codes::catalog::{
    E_NODES_BAD_DECL, E_NODES_BUILTIN, E_NODES_DUPLICATE, E_NODES_FORMAT, E_NODES_SYNTAX,
};

/// The newest `.nodes.ron` format this reader knows.
pub const FORMAT: i64 = 1;
/// Most game nodes one `.nodes.ron` file declares (`docs/limits.md`).
pub const MAX_NODES_PER_FILE: usize = 4096;
/// Longest game node kind, in bytes.
pub const MAX_KIND_LEN: usize = 128;

/// Is `path` a game node declaration file (`*.nodes.ron`)?
pub fn is_nodes_file(name: &str) -> bool {
    name.ends_with(".nodes.ron") && name.len() > ".nodes.ron".len()
}

/// One pin of a game node.
#[derive(Clone, Debug, PartialEq)]
pub struct GamePin {
    pub name: String,
    pub ty: Type,
    /// The declared default, or the type's zero (an entity input: the calling entity; an
    /// entity output: none).
    pub default: Const,
    /// Whether `default` was written.
    pub given: bool,
}

/// One declared game node.
#[derive(Clone, Debug, PartialEq)]
pub struct GameNode {
    /// `game.play_sound`.
    pub kind: String,
    /// Palette display name (the kind when not written).
    pub name: String,
    /// Palette category (`Game` when not written).
    pub category: String,
    pub description: String,
    pub flow: GameFlow,
    pub inputs: Vec<GamePin>,
    pub outputs: Vec<GamePin>,
    /// The declaring file (display path).
    pub file: Arc<str>,
    /// A diagnostic positioned at the kind (messages about this node are built from it).
    pub at: Box<Diagnostic>,
}

impl GameNode {
    /// The import table entry a module calling this node records.
    pub fn import(&self) -> Import {
        Import {
            kind: self.kind.clone(),
            flow: self.flow,
            inputs: self.inputs.iter().map(|p| (p.name.clone(), p.ty)).collect(),
            outputs: self
                .outputs
                .iter()
                .map(|p| (p.name.clone(), p.ty, p.default.clone()))
                .collect(),
        }
    }

    /// An error about this node at its kind.
    pub fn error(&self, code: &'static str, message: impl Into<String>) -> Diagnostic {
        let mut d = (*self.at).clone();
        d.code = code;
        d.message = message.into();
        d
    }
}

/// What one `.nodes.ron` file declares: its nodes (those that decoded, first of each kind) and
/// its diagnostics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Parsed {
    pub nodes: Vec<GameNode>,
    pub diagnostics: Vec<Diagnostic>,
}

const FILE_FIELDS: &[&str] = &["format", "nodes"];
const NODE_FIELDS: &[&str] = &[
    "kind",
    "name",
    "category",
    "description",
    "flow",
    "inputs",
    "outputs",
];
const PIN_FIELDS: &[&str] = &["name", "type", "default"];
const TYPES: [(&str, Type); 6] = [
    ("Bool", Type::Bool),
    ("Int", Type::Int),
    ("Float", Type::Float),
    ("Vec3", Type::Vec3),
    ("String", Type::Str),
    ("Entity", Type::Entity),
];

/// Reads one `.nodes.ron` file (bytes as found). Pure.
pub fn parse_bytes(file: &str, bytes: &[u8]) -> Parsed {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse(&SourceFile::new(file, text)),
        Err(e) => Parsed {
            nodes: Vec::new(),
            diagnostics: vec![
                Diagnostic::error(
                    E_NODES_SYNTAX,
                    format!(
                        "game node file is not valid UTF-8 (offset {})",
                        e.valid_up_to()
                    ),
                )
                .in_file(file),
            ],
        },
    }
}

/// Reads one `.nodes.ron` source.
pub fn parse(src: &SourceFile) -> Parsed {
    let mut d = Decoder::new(src, DecodeCodes::all(E_NODES_SYNTAX));
    let file: Arc<str> = src.name().into();
    let mut nodes: Vec<GameNode> = Vec::new();
    match ron_span::parse(src.text()) {
        Err(e) => d.error(E_NODES_SYNTAX, e.span, e.message),
        Ok(v) => {
            if let Some(f) = d.strukt(&v, "Nodes", FILE_FIELDS) {
                let format_ok = match d.required(&f, "format") {
                    Some(fv) => match d.ok(fv.as_i64()) {
                        Some(n) if n > FORMAT => {
                            d.error(
                                E_NODES_FORMAT,
                                fv.span,
                                format!(
                                    "game node file format {n} is newer than this Sinew reads (format {FORMAT})"
                                ),
                            );
                            false
                        }
                        Some(n) if n < 1 => {
                            d.error(
                                E_NODES_SYNTAX,
                                fv.span,
                                format!("format must be 1 or more, found {n}"),
                            );
                            false
                        }
                        Some(_) => true,
                        None => false,
                    },
                    None => false,
                };
                if format_ok && let Some(list) = d.required(&f, "nodes") {
                    read_nodes(&mut d, &file, list, &mut nodes);
                }
            }
        }
    }
    Parsed {
        nodes,
        diagnostics: d.finish(),
    }
}

fn read_nodes(d: &mut Decoder, file: &Arc<str>, list: &Value, out: &mut Vec<GameNode>) {
    let Some(items) = d.ok(list.as_list()) else {
        return;
    };
    if items.len() > MAX_NODES_PER_FILE {
        d.error(
            E_NODES_BAD_DECL,
            list.span,
            format!(
                "{} game nodes in one file; a file declares at most {MAX_NODES_PER_FILE}",
                items.len()
            ),
        );
        return;
    }
    for item in items {
        let Some(node) = read_node(d, file, item) else {
            continue;
        };
        if let Some(first) = out.iter().find(|n| n.kind == node.kind) {
            let mut e = node.error(
                E_NODES_DUPLICATE,
                format!(
                    "game node `{}` is declared twice in this file",
                    short(&node.kind)
                ),
            );
            e = e.with_note(format!(
                "first declared at line {}; this declaration is refused",
                first.at.start.line
            ));
            d.push(e);
            continue;
        }
        out.push(node);
    }
}

/// Is `kind` a game node kind: `game.` then IDENT(`.` IDENT)*?
pub fn is_game_kind(kind: &str) -> bool {
    kind.len() <= MAX_KIND_LEN
        && kind
            .strip_prefix("game.")
            .is_some_and(|rest| rest.split('.').all(crate::animseq::is_identifier))
}

fn read_node(d: &mut Decoder, file: &Arc<str>, v: &Value) -> Option<GameNode> {
    let errors_before = d.diags.len();
    let f = d.strukt(v, "Node", NODE_FIELDS)?;
    let kind_v = d.required(&f, "kind");
    let flow_v = d.required(&f, "flow");
    let kind_v = kind_v?;
    let kind = d.string(kind_v)?;
    let at = Box::new(Diagnostic::error(E_NODES_BAD_DECL, "").at(d.src, kind_v.span));
    if let Some(b) = super::lookup(&kind) {
        d.error(
            E_NODES_BUILTIN,
            kind_v.span,
            format!(
                "game node `{}` shadows the built-in node `{}`",
                short(&kind),
                b.kind
            ),
        );
    } else if !is_game_kind(&kind) {
        d.error(
            E_NODES_BAD_DECL,
            kind_v.span,
            format!(
                "`{}` is not a game node kind: write `game.` then identifiers joined by `.` (`game.play_sound`), at most {MAX_KIND_LEN} bytes",
                short(&kind)
            ),
        );
    }
    let text = |d: &mut Decoder, name: &str| -> Option<String> {
        let v = f.get(name)?;
        d.string(&v.value)
    };
    let name = text(d, "name").unwrap_or_else(|| kind.clone());
    let category = text(d, "category").unwrap_or_else(|| "Game".into());
    let description = text(d, "description").unwrap_or_default();
    let flow = match flow_v.map(|v| (v, &v.kind)) {
        Some((_, ValueKind::Ident(s))) if s == "Exec" => Some(GameFlow::Exec),
        Some((_, ValueKind::Ident(s))) if s == "Pure" => Some(GameFlow::Pure),
        Some((v, _)) => {
            d.decode(ron_span::DecodeError::mismatch("`Exec` or `Pure`", v));
            None
        }
        None => None,
    };
    let inputs = pins(d, &f, "inputs", true);
    let outputs = pins(d, &f, "outputs", false);
    // Pin names are unique per node, across inputs and outputs alike (a graph names a pin by
    // name alone).
    if d.diags.len() > errors_before {
        return None;
    }
    let mut seen: Vec<&str> = Vec::new();
    for p in inputs.iter().chain(&outputs) {
        if seen.contains(&p.name.as_str()) {
            let mut e = (*at).clone();
            e.message = format!("pin `{}` is declared twice on `{kind}`", p.name);
            d.push(e);
            return None;
        }
        seen.push(&p.name);
    }
    Some(GameNode {
        kind,
        name,
        category,
        description,
        flow: flow?,
        inputs,
        outputs,
        file: file.clone(),
        at,
    })
}

fn pins(d: &mut Decoder, f: &ron_span::Fields, field: &str, input: bool) -> Vec<GamePin> {
    let Some(fv) = f.get(field) else {
        return Vec::new();
    };
    let Some(items) = d.ok(fv.value.as_list()) else {
        return Vec::new();
    };
    if items.len() > MAX_GAME_PINS {
        d.error(
            E_NODES_BAD_DECL,
            fv.value.span,
            format!(
                "{} {field}; a game node has at most {MAX_GAME_PINS}",
                items.len()
            ),
        );
        return Vec::new();
    }
    items.iter().filter_map(|v| pin(d, v, input)).collect()
}

fn pin(d: &mut Decoder, v: &Value, input: bool) -> Option<GamePin> {
    let f = d.strukt(v, "Pin", PIN_FIELDS)?;
    let name_v = d.required(&f, "name");
    let ty_v = d.required(&f, "type");
    let (name_v, ty_v) = (name_v?, ty_v?);
    let name = d.string(name_v)?;
    if !crate::animseq::is_identifier(&name) || name == "exec" || name == "then" {
        d.error(
            E_NODES_BAD_DECL,
            name_v.span,
            format!(
                "`{}` is not a pin name: an identifier other than `exec` and `then`",
                short(&name)
            ),
        );
        return None;
    }
    let ty = match &ty_v.kind {
        ValueKind::Ident(s) => match TYPES.iter().find(|(n, _)| n == s) {
            Some(&(_, t)) => t,
            None => {
                let names: Vec<&str> = TYPES.iter().map(|t| t.0).collect();
                let mut e =
                    Diagnostic::error(E_NODES_BAD_DECL, format!("unknown type `{}`", short(s)))
                        .at(d.src, ty_v.span);
                e = match ron_span::closest(s, &names) {
                    Some(c) => e.with_note(format!("did you mean `{c}`?")),
                    None => e.with_note(format!("types: {}", names.join(", "))),
                };
                d.push(e);
                return None;
            }
        },
        _ => {
            d.decode(ron_span::DecodeError::mismatch(
                "a type: `Bool`, `Int`, `Float`, `Vec3`, `String` or `Entity`",
                ty_v,
            ));
            return None;
        }
    };
    let zero = match ty {
        Type::Entity if input => Const::Entity(EntityConst::Owner),
        Type::Entity => Const::Entity(EntityConst::None),
        t => Const::default_of(t),
    };
    let (default, given) = match f.get("default") {
        None => (zero, false),
        Some(dv) => (literal(d, &dv.value, ty)?, true),
    };
    Some(GamePin {
        name,
        ty,
        default,
        given,
    })
}

/// A default written as in scene `vars`: `Float(1.0)`, `Vec3((0.0, 1.0, 0.0))`, … of the pin's
/// type (an `Int(3)` is accepted for a float). An entity has no literal default.
fn literal(d: &mut Decoder, v: &Value, ty: Type) -> Option<Const> {
    let expected = match ty {
        Type::Bool => "`Bool(true)`",
        Type::Int => "`Int(3)`",
        Type::Float => "`Float(1.0)`",
        Type::Vec3 => "`Vec3((0.0, 1.0, 0.0))`",
        Type::Str => "`String(\"text\")`",
        Type::Entity => {
            d.error(
                E_NODES_BAD_DECL,
                v.span,
                "an entity pin has no default: an unlinked entity input is the calling entity",
            );
            return None;
        }
    };
    let bad = |d: &mut Decoder| {
        d.error(
            E_NODES_BAD_DECL,
            v.span,
            format!("expected a default of type {}: {expected}", ty.name()),
        );
        None
    };
    let Some(var) = v.as_variant() else {
        return bad(d);
    };
    let Some([arg]) = var.args else {
        return bad(d);
    };
    let c = match (var.name, ty) {
        ("Bool", Type::Bool) => Const::Bool(d.ok(arg.as_bool())?),
        ("Int", Type::Int) => Const::Int(d.ok(arg.as_i64())?),
        ("Int", Type::Float) => Const::Float(d.ok(arg.as_i64())? as f64),
        ("Float", Type::Float) => {
            let x = d.ok(arg.as_f64())?;
            if !x.is_finite() {
                return bad(d);
            }
            Const::Float(x)
        }
        ("String", Type::Str) => {
            let s = d.string(arg)?;
            if s.len() > crate::bytecode::verify::MAX_STRING_LEN {
                return bad(d);
            }
            Const::Str(s)
        }
        ("Vec3", Type::Vec3) => {
            let items = d.ok(arg.as_tuple(3))?;
            let mut out = [0f32; 3];
            for (o, item) in out.iter_mut().zip(items) {
                *o = d.ok(item.as_f32())?;
                if !o.is_finite() {
                    return bad(d);
                }
            }
            Const::Vec3(out)
        }
        _ => return bad(d),
    };
    Some(c)
}

/// A declaration's span-free text for messages: `game.health(Pure: of: entity -> value: float)`.
pub fn signature(n: &GameNode) -> String {
    n.import().to_string()
}

/// Where the kind of `n` stands (tests).
pub fn kind_span(n: &GameNode) -> Span {
    n.at.span
}

/// A default as a graph would write it (`1.0`, `"step"`, `(0, 1, 0)`, `true`).
pub fn default_text(c: &Const) -> String {
    match c {
        Const::Bool(b) => b.to_string(),
        Const::Int(i) => i.to_string(),
        Const::Float(f) => format!("{f:?}"),
        Const::Vec3([x, y, z]) => format!("({x:?}, {y:?}, {z:?})"),
        Const::Str(s) => format!("{s:?}"),
        Const::Entity(EntityConst::Owner) => "self".into(),
        Const::Entity(EntityConst::None) => "none".into(),
    }
}
