//! The graph as data: what an editor shows and edits, and the one writer of `.bpg` text.
//!
//! A [`Model`] is a parsed `.bpg` file without spans: the header name, the variables, the nodes
//! (id, kind with its subject, position, ARGS, comments), the links, and every other comment of
//! the file. It is built from the syntax tree ([`Model::from_file`]), (de)serialized as the
//! `model` JSON of the studio contract (`json`), and written back as canonical text by
//! [`Model::to_text`] — the same code `graph::fmt` uses, so there is one writer of `.bpg`.
//!
//! Guarantees (tested by proptest): `model → text → model` is the identity for every valid
//! model; `text → model → text` is the canonical text of `sinew fmt`; every comment survives;
//! moving one node changes one line. A model is valid when the text it writes parses back to
//! itself ([`Model::validate`]); deserialization validates, so a model read from JSON can always
//! be written.
//!
//! Comments are stored as written, each line starting with `//`: `comment` holds the own-line
//! comments above an item (lines joined with `\n`), `line_comment` the comment at the end of
//! its line. [`normalize_comment`] turns editor input (lines without `//`, blank lines, trailing
//! whitespace) into that form.

mod json;
mod validate;

pub use validate::ModelError;

use super::ast::{self, LitValue, Number, Subject, Type};
use super::lexer::escape;
use crate::diag::{Diagnostic, SourceFile};
use std::fmt::Write;

/// A whole graph file as data.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Model {
    /// The name after `graph`.
    pub graph: String,
    /// Custom event payload declarations (`event custom::hit { amount: float }`).
    pub events: Vec<EventDecl>,
    pub vars: Vec<Var>,
    /// Comment boxes (`box "Title" at (x, y) size (w, h)`): layout only.
    pub boxes: Vec<BoxDef>,
    pub nodes: Vec<Node>,
    pub links: Vec<Link>,
    /// Own-line comments above the `graph` line.
    pub comment: String,
    /// The comment at the end of the `graph` line.
    pub line_comment: Option<String>,
    /// Own-line comments after the last item.
    pub end_comment: String,
}

/// `var NAME: TYPE = DEFAULT`
#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    pub name: String,
    pub ty: Type,
    pub default: Value,
    pub comment: String,
    pub line_comment: Option<String>,
}

/// `box "TITLE" at (X, Y) size (W, H) { color = "#RRGGBB" }`: a titled rectangle drawn
/// behind nodes; layout only.
#[derive(Clone, Debug, PartialEq)]
pub struct BoxDef {
    pub title: String,
    /// The top-left corner.
    pub x: i64,
    pub y: i64,
    /// Width and height (1 to `MAX_BOX_SIZE`).
    pub w: i64,
    pub h: i64,
    /// `#RRGGBB` as written, when set.
    pub color: Option<String>,
    pub comment: String,
    pub line_comment: Option<String>,
}

impl BoxDef {
    /// Writes the box's comment lines and its line.
    pub fn write(&self, out: &mut String) {
        block(out, &self.comment);
        out.push_str("box ");
        string(out, &self.title);
        let _ = write!(
            out,
            " at ({}, {}) size ({}, {})",
            self.x, self.y, self.w, self.h
        );
        if let Some(c) = &self.color {
            out.push_str(" { color = ");
            string(out, c);
            out.push_str(" }");
        }
        line_end(out, self.line_comment.as_deref());
    }
}

/// `event custom::NAME { FIELD: TYPE, … }`
#[derive(Clone, Debug, PartialEq)]
pub struct EventDecl {
    /// The event's name (after `custom::`).
    pub name: String,
    /// The payload's fields in authored order.
    pub fields: Vec<(String, Type)>,
    pub comment: String,
    pub line_comment: Option<String>,
}

impl EventDecl {
    /// Writes the declaration's comment lines and its line.
    pub fn write(&self, out: &mut String) {
        block(out, &self.comment);
        let _ = write!(out, "event custom::{} {{", self.name);
        for (i, (name, ty)) in self.fields.iter().enumerate() {
            out.push_str(if i == 0 { " " } else { ", " });
            let _ = write!(out, "{name}: {ty}");
        }
        out.push_str(if self.fields.is_empty() { "}" } else { " }" });
        line_end(out, self.line_comment.as_deref());
    }
}

/// `node ID = KIND SUBJECT? { PROPS }? at (X, Y)?`
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub id: String,
    /// The kind and its subject as written canonically: `int.add`, `var.get steps`,
    /// `event animseq::S.footstep_l`, `expr "a + b"` (quotes and escapes included).
    pub kind: String,
    /// The editor position; both set or both `None`.
    pub x: Option<i64>,
    pub y: Option<i64>,
    /// The node's ARGS in authored order: properties (`count`) and literal values of input
    /// pins (`b = 1`) alike, as the file's `{ … }` holds them.
    pub props: Props,
    pub comment: String,
    pub line_comment: Option<String>,
}

/// A node's ARGS, in authored order (a JSON object in `model`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Props(pub Vec<(String, Value)>);

/// `FROM.PIN -> TO.PIN`
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Link {
    pub from: PinRef,
    pub to: PinRef,
    pub comment: String,
    pub line_comment: Option<String>,
}

/// One end of a link: `node.pin`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PinRef {
    pub node: String,
    pub pin: String,
}

/// A literal value: a variable's default or one of a node's ARGS.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Int(i64),
    /// Finite in a valid model.
    Float(f64),
    String(String),
    Bool(bool),
    /// Each component as written (an `INT` or a `FLOAT`).
    Vec3([Number; 3]),
}

impl Model {
    /// The model of a parsed file (a partial tree gives a partial model).
    pub fn from_file(file: &ast::File) -> Model {
        let (comment, line_comment) = comments(&file.header_comments);
        let mut m = Model {
            graph: file.name.name.clone(),
            comment,
            line_comment,
            end_comment: join(&file.trailing_comments),
            ..Model::default()
        };
        for item in &file.items {
            let (comment, line_comment) = comments(item.comments());
            match item {
                ast::Item::Var(v) => m.vars.push(Var {
                    name: v.name.name.clone(),
                    ty: v.ty,
                    default: Value::from_literal(&v.value.value),
                    comment,
                    line_comment,
                }),
                ast::Item::Node(n) => m.nodes.push(Node {
                    id: n.name.name.clone(),
                    kind: kind_text(n),
                    x: n.at.map(|a| a.x),
                    y: n.at.map(|a| a.y),
                    props: Props(
                        n.args
                            .iter()
                            .map(|a| (a.name.name.clone(), Value::from_literal(&a.value.value)))
                            .collect(),
                    ),
                    comment,
                    line_comment,
                }),
                ast::Item::Event(e) => m.events.push(EventDecl {
                    name: e.name.name.clone(),
                    fields: e
                        .fields
                        .iter()
                        .map(|f| (f.name.name.clone(), f.ty))
                        .collect(),
                    comment,
                    line_comment,
                }),
                ast::Item::Box(b) => m.boxes.push(BoxDef {
                    title: b.title.value.clone(),
                    x: b.at.x,
                    y: b.at.y,
                    w: b.size.w,
                    h: b.size.h,
                    color: b.color.as_ref().map(|c| c.value.clone()),
                    comment,
                    line_comment,
                }),
                ast::Item::Link(l) => m.links.push(Link {
                    from: PinRef::new(&l.from_node.name, &l.from_pin.name),
                    to: PinRef::new(&l.to_node.name, &l.to_pin.name),
                    comment,
                    line_comment,
                }),
            }
        }
        m
    }

    /// Parses a source into a model; refuses (returns the diagnostics) on syntax errors.
    pub fn parse(src: &SourceFile) -> Result<Model, Vec<Diagnostic>> {
        let (file, diags) = super::parser::parse(src);
        if diags.is_empty() {
            Ok(Model::from_file(&file))
        } else {
            Err(diags)
        }
    }

    /// The canonical `.bpg` text (the formatter's output): comments and the `graph` line, then
    /// event declarations, vars, comment boxes, nodes and links, each section after a blank line (empty ones left out), then the
    /// comments after the last item. One item per line, single spaces, no alignment.
    pub fn to_text(&self) -> String {
        let mut out = String::with_capacity(64 + 48 * (self.nodes.len() + self.links.len()));
        block(&mut out, &self.comment);
        out.push_str("graph ");
        out.push_str(&self.graph);
        line_end(&mut out, self.line_comment.as_deref());
        if !self.events.is_empty() {
            out.push('\n');
            for e in &self.events {
                e.write(&mut out);
            }
        }
        if !self.vars.is_empty() {
            out.push('\n');
            for v in &self.vars {
                v.write(&mut out);
            }
        }
        if !self.boxes.is_empty() {
            out.push('\n');
            for b in &self.boxes {
                b.write(&mut out);
            }
        }
        if !self.nodes.is_empty() {
            out.push('\n');
            for n in &self.nodes {
                n.write(&mut out);
            }
        }
        if !self.links.is_empty() {
            out.push('\n');
            for l in &self.links {
                l.write(&mut out);
            }
        }
        if !self.end_comment.is_empty() {
            out.push('\n');
            block(&mut out, &self.end_comment);
        }
        out
    }

    /// Brings every comment into the stored form (see [`normalize_comment`]).
    pub fn normalize_comments(&mut self) {
        let norm = |c: &mut String, l: &mut Option<String>| {
            *c = normalize_comment(c);
            *l = l
                .as_deref()
                .map(normalize_comment)
                .filter(|s| !s.is_empty());
        };
        norm(&mut self.comment, &mut self.line_comment);
        self.end_comment = normalize_comment(&self.end_comment);
        for e in &mut self.events {
            norm(&mut e.comment, &mut e.line_comment);
        }
        for v in &mut self.vars {
            norm(&mut v.comment, &mut v.line_comment);
        }
        for b in &mut self.boxes {
            norm(&mut b.comment, &mut b.line_comment);
        }
        for n in &mut self.nodes {
            norm(&mut n.comment, &mut n.line_comment);
        }
        for l in &mut self.links {
            norm(&mut l.comment, &mut l.line_comment);
        }
    }

    /// The same graph with vars sorted by name, nodes by id and links by their ends (stable):
    /// a listing in which item order makes no difference (`sinew graph --textconv`).
    pub fn sorted(&self) -> Model {
        let mut m = self.clone();
        m.events.sort_by(|a, b| a.name.cmp(&b.name));
        m.vars.sort_by(|a, b| a.name.cmp(&b.name));
        m.boxes.sort_by(|a, b| {
            (&a.title, a.x, a.y, a.w, a.h, &a.color).cmp(&(&b.title, b.x, b.y, b.w, b.h, &b.color))
        });
        m.nodes.sort_by(|a, b| a.id.cmp(&b.id));
        m.links
            .sort_by(|a, b| (&a.from, &a.to).cmp(&(&b.from, &b.to)));
        m
    }

    /// The node with this id (the first, if the graph declares it twice).
    pub fn node(&self, id: &str) -> Option<&Node> {
        self.nodes.iter().find(|n| n.id == id)
    }
}

impl Var {
    /// Writes the var's comment lines and its line.
    pub fn write(&self, out: &mut String) {
        block(out, &self.comment);
        let _ = write!(out, "var {}: {} = ", self.name, self.ty);
        self.default.write(out);
        line_end(out, self.line_comment.as_deref());
    }
}

impl Node {
    /// The kind path without the subject: `int.add`, `var.get`, `event`.
    pub fn kind_path(&self) -> &str {
        self.kind.split_once(' ').map_or(&self.kind, |(k, _)| k)
    }
    /// The subject as written, if any: `steps`, `animseq::S.N`, `"a + b"` (with quotes).
    pub fn subject(&self) -> Option<&str> {
        self.kind.split_once(' ').map(|(_, s)| s)
    }
    /// The position, when both coordinates are set.
    pub fn at(&self) -> Option<(i64, i64)> {
        self.x.zip(self.y)
    }
    /// Writes the node's comment lines and its line.
    pub fn write(&self, out: &mut String) {
        block(out, &self.comment);
        let _ = write!(out, "node {} = {}", self.id, self.kind);
        if !self.props.0.is_empty() {
            out.push_str(" {");
            for (i, (name, value)) in self.props.0.iter().enumerate() {
                out.push_str(if i == 0 { " " } else { ", " });
                out.push_str(name);
                out.push_str(" = ");
                value.write(out);
            }
            out.push_str(" }");
        }
        if let Some((x, y)) = self.at() {
            let _ = write!(out, " at ({x}, {y})");
        }
        line_end(out, self.line_comment.as_deref());
    }
}

impl Props {
    /// The first value set for `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.0.iter().map(|(n, v)| (n.as_str(), v))
    }
}

impl Link {
    /// Writes the link's comment lines and its line.
    pub fn write(&self, out: &mut String) {
        block(out, &self.comment);
        let _ = write!(out, "{} -> {}", self.from, self.to);
        line_end(out, self.line_comment.as_deref());
    }
}

impl PinRef {
    pub fn new(node: &str, pin: &str) -> PinRef {
        PinRef {
            node: node.to_string(),
            pin: pin.to_string(),
        }
    }
    /// Parses `node.pin` (split at the first `.`).
    pub fn parse(s: &str) -> Option<PinRef> {
        let (node, pin) = s.split_once('.')?;
        Some(PinRef::new(node, pin))
    }
}

impl std::fmt::Display for PinRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.node, self.pin)
    }
}

impl Value {
    /// The span-free value of a literal.
    pub fn from_literal(v: &LitValue) -> Value {
        match v {
            LitValue::Int(i) => Value::Int(*i),
            LitValue::Float(f) => Value::Float(*f),
            LitValue::String(s) => Value::String(s.clone()),
            LitValue::Bool(b) => Value::Bool(*b),
            LitValue::Vec3(c) => Value::Vec3([c[0].0, c[1].0, c[2].0]),
        }
    }
    /// Writes the literal as the formatter does: INTs in decimal, FLOATs in Rust's shortest
    /// round-trip form (always with a `.` or an exponent), strings escaped, vec3 as `(x, y, z)`.
    pub fn write(&self, out: &mut String) {
        match self {
            Value::Int(i) => number(out, Number::Int(*i)),
            Value::Float(f) => number(out, Number::Float(*f)),
            Value::String(s) => string(out, s),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Vec3(c) => {
                out.push('(');
                number(out, c[0]);
                out.push_str(", ");
                number(out, c[1]);
                out.push_str(", ");
                number(out, c[2]);
                out.push(')');
            }
        }
    }
    /// The literal as written in a graph.
    pub fn text(&self) -> String {
        let mut s = String::new();
        self.write(&mut s);
        s
    }
}

/// Turns comment text from an editor into the stored form: lines split at `\n`, `\r\n` or a
/// lone `\r` (a line break in every editor, and in the lexer), trailing
/// whitespace removed, blank lines dropped, and `// ` put before a line that does not start
/// with `//` (leading whitespace before `//` removed). Idempotent; stored comments are fixed.
pub fn normalize_comment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split(['\n', '\r']) {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        if !line.starts_with("//") {
            out.push_str("// ");
        }
        out.push_str(line);
    }
    out
}

/// The canonical kind text of a node: the path, then the subject as the formatter writes it.
fn kind_text(n: &ast::Node) -> String {
    let mut s = n.kind.text();
    match &n.subject {
        None => {}
        Some(Subject::Ident(i)) => {
            s.push(' ');
            s.push_str(&i.name);
        }
        Some(Subject::Event(e)) => {
            s.push(' ');
            s.push_str(&e.identity());
        }
        Some(Subject::String(lit)) => {
            s.push(' ');
            string(&mut s, &lit.value);
        }
    }
    s
}

fn join(cs: &[ast::Comment]) -> String {
    let mut s = String::new();
    for (i, c) in cs.iter().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        s.push_str(&c.text);
    }
    s
}

fn comments(c: &ast::Comments) -> (String, Option<String>) {
    (
        join(&c.leading),
        c.trailing.as_ref().map(|t| t.text.clone()),
    )
}

/// Writes own-line comment lines (one per `\n`-separated line of `text`).
fn block(out: &mut String, text: &str) {
    if text.is_empty() {
        return;
    }
    for line in text.split('\n') {
        out.push_str(line);
        out.push('\n');
    }
}

fn line_end(out: &mut String, comment: Option<&str>) {
    if let Some(c) = comment {
        out.push(' ');
        out.push_str(c);
    }
    out.push('\n');
}

fn string(out: &mut String, s: &str) {
    out.push('"');
    out.push_str(&escape(s));
    out.push('"');
}

/// Prints a float so it re-lexes as a float with the same value (`1.0`, `0.1`, `1e16`, `-0.0`).
pub fn float_text(f: f64) -> String {
    format!("{f:?}")
}

fn number(out: &mut String, n: Number) {
    match n {
        Number::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Number::Float(f) => {
            let _ = write!(out, "{f:?}");
        }
    }
}
