//! Hover and go to definition, from the syntax tree, the compiled graph's resolved pins, the
//! palette (built-in kinds and catalog events: the node table's descriptions) and the
//! catalog's event descriptors.

use super::at::{self, Target};
use crate::catalog::{EventDescriptor, EventKind};
use crate::graph::ast::{EventRef, File, Item, Node, Subject};
use crate::lsp::document::Document;
use crate::lsp::project::{Project, path_uri};
use crate::palette::{self, PaletteEntry};
use lsp_types::{
    GotoDefinitionResponse, Hover, HoverContents, Location, MarkupContent, MarkupKind, Position,
};

/// The palette key of a node as written: its kind, or `event …` for event nodes.
pub fn palette_key(n: &Node) -> String {
    let kind = n.kind.text();
    if kind != "event" {
        return kind;
    }
    match &n.subject {
        Some(Subject::Event(EventRef::Custom { .. })) => "event custom".into(),
        Some(Subject::Event(e)) => format!("event {}", e.identity()),
        _ => kind,
    }
}

/// The palette entry (built-in or catalog event; game nodes once the palette has them) of a
/// node as written.
pub fn entry(project: &Project, n: &Node) -> Option<PaletteEntry> {
    entry_of_kind(project, &palette_key(n))
}

/// The palette entry of a kind (a [`palette::PaletteKind::kind`]).
pub fn entry_of_kind(project: &Project, key: &str) -> Option<PaletteEntry> {
    if let Some(k) = crate::nodes::lookup(key) {
        return Some(palette::builtin_entry(k));
    }
    if let Some(id) = key.strip_prefix("event ") {
        return project
            .catalog()
            .event(id)
            .map(|d| palette::event_entry(&d));
    }
    palette::kinds(project.catalog())
        .find(|k| k.kind() == key)
        .map(|k| k.entry())
}

/// Markdown for a palette entry: name, kind, description, pins and properties.
pub fn entry_markdown(e: &PaletteEntry) -> String {
    let mut s = format!(
        "**{}** `{}` — {}\n\n{}\n",
        e.name, e.kind, e.category, e.description
    );
    let pins = |title: &str, pins: &[palette::PalettePin], s: &mut String| {
        if !pins.is_empty() {
            s.push_str(&format!("\n{title}:\n"));
            for p in pins {
                s.push_str(&format!("- `{}`: {}", p.name, p.ty));
                if let Some(d) = &p.default {
                    s.push_str(&format!(" = `{d}`"));
                }
                s.push('\n');
            }
        }
    };
    pins("Inputs", &e.inputs, &mut s);
    pins("Outputs", &e.outputs, &mut s);
    if !e.properties.is_empty() {
        s.push_str("\nProperties:\n");
        for p in &e.properties {
            s.push_str(&format!(
                "- `{}`: {} = `{}` — {}\n",
                p.name, p.ty, p.default, p.description
            ));
        }
    }
    s
}

/// Markdown for a catalog event: display name, file, time or window, fields.
pub fn event_markdown(d: &EventDescriptor) -> String {
    // Shortest round-trip text, as `sinew catalog` prints times.
    let num = |x: f64| serde_json::Value::from(x).to_string();
    let when = match d.kind {
        EventKind::Notify { time } => format!("notify at {}", num(time)),
        EventKind::Window { begin, end } => {
            format!("window from {} to {}", num(begin), num(end))
        }
    };
    let mut s = format!("**{}** `{}`\n\n{when} in `{}`\n", d.name, d.id, d.file);
    if !d.fields.is_empty() {
        s.push_str("\nFields:\n");
        for (name, ty) in &d.fields {
            s.push_str(&format!("- `{name}`: {}\n", ty.name()));
        }
    }
    s
}

fn markdown(value: String) -> Hover {
    Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: None,
    }
}

/// The type of pin `pin` of node `node` on one side, as the compiler resolved it.
fn pin_type(doc: &Document, node: &str, pin: &str, output: bool) -> Option<String> {
    let c = doc.analysis.compiled.as_ref()?;
    let n = c.checked.graph.nodes.iter().find(|n| n.name == node)?;
    let pins = if output { &n.outputs } else { &n.inputs };
    pins.iter()
        .find(|p| p.name == pin)
        .map(|p| p.ty.to_string())
}

fn var_markdown(doc: &Document, file: &File, name: &str) -> Option<String> {
    let v = at::var(file, name)?;
    Some(format!(
        "variable `{}`: {} = `{}`",
        v.name.name,
        v.ty.name(),
        &doc.text[v.value.span.range()]
    ))
}

pub fn hover(project: &Project, doc: &Document, pos: Position) -> Option<Hover> {
    let file = &doc.analysis.file;
    let off = doc.offset(pos)?;
    let text = match at::at(file, off)? {
        Target::Kind(n) | Target::NodeName(n) => entry_markdown(&entry(project, n)?),
        Target::NodeRef(i) => entry_markdown(&entry(project, at::node(file, &i.name)?)?),
        Target::Event(n, e) => match e {
            EventRef::Animseq { .. } => event_markdown(&project.catalog().event(&e.identity())?),
            EventRef::Custom { name, .. } => {
                let mut s = format!("custom event `{}`", name.name);
                if let Some(d) = custom_decl(file, &name.name) {
                    for f in &d.fields {
                        s.push_str(&format!("\n- `{}`: {}", f.name.name, f.ty.name()));
                    }
                }
                s
            }
            _ => entry_markdown(&entry(project, n)?),
        },
        Target::Pin { node, pin, output } => {
            let ty = pin_type(doc, &node.name, &pin.name, output)?;
            let side = if output { "output" } else { "input" };
            format!("{side} pin `{}.{}`: {ty}", node.name, pin.name)
        }
        Target::VarName(v) => var_markdown(doc, file, &v.name.name)?,
        Target::VarRef(i) => var_markdown(doc, file, &i.name)?,
        Target::Arg(n, a) => {
            if let Some(ty) = pin_type(doc, &n.name.name, &a.name.name, false) {
                format!("input `{}`: {ty}", a.name.name)
            } else {
                let e = entry(project, n)?;
                let p = e.properties.iter().find(|p| p.name == a.name.name)?;
                format!(
                    "property `{}`: {} = `{}` — {}",
                    p.name, p.ty, p.default, p.description
                )
            }
        }
        Target::EventDecl(d) => format!("custom event `{}`", d.name.name),
    };
    Some(markdown(text))
}

fn custom_decl<'a>(file: &'a File, name: &str) -> Option<&'a crate::graph::ast::EventDecl> {
    file.items.iter().find_map(|i| match i {
        Item::Event(e) if e.name.name == name => Some(e),
        _ => None,
    })
}

pub fn definition(
    project: &Project,
    doc: &Document,
    pos: Position,
) -> Option<GotoDefinitionResponse> {
    let file = &doc.analysis.file;
    let off = doc.offset(pos)?;
    let here = |span| Some(Location::new(doc.uri.clone(), doc.range(span)));
    let loc = match at::at(file, off)? {
        Target::NodeName(n) => here(n.span),
        Target::NodeRef(i) | Target::Pin { node: i, .. } => here(at::node(file, &i.name)?.span),
        Target::VarName(v) => here(v.span),
        Target::VarRef(i) => here(at::var(file, &i.name)?.span),
        Target::EventDecl(d) => here(d.span),
        Target::Event(_, EventRef::Custom { name, .. }) => {
            here(custom_decl(file, &name.name)?.span)
        }
        Target::Event(_, e @ EventRef::Animseq { .. }) => animseq_location(project, &e.identity()),
        _ => None,
    }?;
    Some(GotoDefinitionResponse::Scalar(loc))
}

/// The notify's (or window's) `id` in its `.animseq`, read now through the bounded reader.
fn animseq_location(project: &Project, identity: &str) -> Option<Location> {
    let d = project.catalog().event(identity)?;
    let path = std::path::absolute(project.path_of(&d.file)).ok()?;
    let bytes = crate::fsutil::read_input(&path, crate::fsutil::InputKind::Clip).ok()?;
    let loaded = crate::animseq::load_bytes(&d.file, &bytes);
    let (seq, spans) = (loaded.seq?, loaded.spans?);
    let span = match d.kind {
        EventKind::Notify { .. } => {
            let i = seq.notifies.iter().position(|n| n.id == d.notify)?;
            *spans.notify_ids.get(i)?
        }
        EventKind::Window { .. } => {
            let i = seq.windows.iter().position(|w| w.id == d.notify)?;
            *spans.window_ids.get(i)?
        }
    };
    let text = String::from_utf8_lossy(&bytes);
    let index = crate::lsp::LineIndex::new(&text);
    Some(Location::new(path_uri(&path)?, index.range(&text, span)))
}
