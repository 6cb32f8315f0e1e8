//! The JSON documents every front end renders: `sinew catalog --format json` and the studio's
//! `/api/catalog` print [`catalog_document`], `sinew palette --format json` and `/api/palette`
//! [`palette_document`], and every diagnostic list is [`diagnostics`] (the shape of `sinew check
//! --format json`, `cli.md`). One function per document, so the front ends cannot drift apart.

use crate::animseq::Target;
use crate::catalog::{Catalog, EventDescriptor, EventKind};
use crate::diag::Diagnostic;
use crate::diag::render::to_json;
use crate::palette::PaletteEntry;
use serde_json::{Value, json};

/// The JSON form of a diagnostic list (`sinew check --format json`'s `diagnostics`).
pub fn diagnostics(diags: &[Diagnostic]) -> Value {
    to_json(diags)
}

/// The JSON form of one event (`cli.md`).
pub fn event_json(d: &EventDescriptor) -> Value {
    let mut v = serde_json::Map::new();
    v.insert("id".into(), json!(&*d.id));
    v.insert("kind".into(), json!(d.kind.name()));
    v.insert("name".into(), json!(d.name));
    v.insert("sequence".into(), json!(&*d.sequence));
    v.insert("sequence_name".into(), json!(&*d.sequence_name));
    v.insert("notify".into(), json!(d.notify));
    v.insert("notify_name".into(), json!(d.notify_name));
    v.insert("file".into(), json!(&*d.file));
    match d.kind {
        EventKind::Notify { time } => {
            v.insert("time".into(), json!(time));
        }
        EventKind::Window { begin, end } => {
            v.insert("begin".into(), json!(begin));
            v.insert("end".into(), json!(end));
        }
    }
    let target = match &d.target {
        Target::Owner => json!("owner"),
        Target::Variable(v) => json!({"variable": v}),
    };
    v.insert("target".into(), target);
    let fields: Vec<Value> = d
        .fields
        .iter()
        .map(|(n, t)| json!({"name": n, "type": t}))
        .collect();
    v.insert("fields".into(), Value::Array(fields));
    Value::Object(v)
}

/// The document `sinew catalog --format json` prints (`cli.md`); the studio serves it too.
pub fn catalog_document(cat: &Catalog) -> Value {
    json!({
        "events": cat.events().into_iter().map(event_json).collect::<Vec<_>>(),
        "quarantined": cat.quarantined().into_iter()
            .map(|q| json!({"id": q.id, "files": q.files})).collect::<Vec<_>>(),
        "diagnostics": to_json(&cat.diagnostics()),
    })
}

/// The document `sinew palette --format json` prints (`cli.md`); the studio serves it too.
pub fn palette_document(entries: &[PaletteEntry]) -> Value {
    json!({"nodes": entries.iter().map(palette_json).collect::<Vec<_>>()})
}

/// The JSON form of one palette entry (`cli.md`).
pub fn palette_json(e: &PaletteEntry) -> Value {
    serde_json::to_value(e).unwrap_or(Value::Null)
}
