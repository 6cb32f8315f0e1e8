//! Completion. The context is read from the lexer's tokens of the item the cursor is in (an
//! item being typed rarely parses yet); the candidates come from the palette (node kinds:
//! built-ins, catalog events and whatever the palette gains, such as game nodes), the compiled
//! graph's resolved pins, and the syntax tree's variables.

use super::at;
use super::hover::{entry, entry_markdown};
use crate::graph::ast::Item;
use crate::graph::lexer::{self, Tok, Token};
use crate::lsp::document::Document;
use crate::lsp::project::Project;
use crate::nodes::PinType;
use crate::palette;
use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionItemLabelDetails, CompletionList,
    CompletionResponse, CompletionTextEdit, Documentation, MarkupContent, MarkupKind, Position,
    TextEdit,
};

/// Keywords that start an item.
const ITEM_WORDS: &[&str] = &["graph", "var", "node", "event"];

pub fn complete(project: &Project, doc: &Document, pos: Position) -> Option<CompletionResponse> {
    let off = doc.offset(pos)?;
    let text = &doc.text[..off];
    let toks = lexer::lex(text).tokens;
    let word = |t: &Token| &text[t.span.range()];
    // The item the cursor is in starts at the last line-start keyword or link start.
    let start = toks.iter().enumerate().rev().find_map(|(i, t)| {
        let link = t.kind == Tok::Ident && toks.get(i + 1).is_some_and(|n| n.kind == Tok::Dot);
        (t.line_start && (ITEM_WORDS.contains(&word(t)) || link)).then_some(i)
    })?;
    let mut ctx = &toks[start..];
    // A word being typed is not context.
    let partial = match ctx.last() {
        Some(t) if t.span.end as usize == off && t.kind == Tok::Ident => {
            ctx = &ctx[..ctx.len() - 1];
            Some(*t)
        }
        _ => None,
    };
    // Only the word being typed (`node|`, `var|`): nothing to complete from yet.
    let first = ctx.first()?;
    if word(first) == "node" && ctx.len() >= 3 && ctx[2].kind == Tok::Eq {
        node_item(project, doc, text, ctx, partial, off)
    } else if ctx.len() >= 2 && ctx[1].kind == Tok::Dot {
        link_item(project, doc, text, ctx)
    } else {
        None
    }
}

/// Whether tokens `ts` are a dotted path with nothing between them.
fn contiguous_path(ts: &[Token]) -> bool {
    ts.iter().all(|t| matches!(t.kind, Tok::Ident | Tok::Dot))
        && ts.windows(2).all(|w| w[0].span.end == w[1].span.start)
}

fn node_item(
    project: &Project,
    doc: &Document,
    text: &str,
    ctx: &[Token],
    partial: Option<Token>,
    off: usize,
) -> Option<CompletionResponse> {
    let after = &ctx[3..];
    // `node x = event |` or `node x = event animseq::he|`: the events, matched against the
    // text typed after `event` (IDs may hold `-` and `::`, which are several tokens).
    if let Some(ev) = after.first().filter(|t| &text[t.span.range()] == "event") {
        let tail = &text[ev.span.end as usize..off];
        let typed = tail.trim_start();
        if tail.len() > typed.len() && !typed.contains(char::is_whitespace) {
            return Some(events(project, typed));
        }
    }
    let path_end = after
        .iter()
        .position(|t| !matches!(t.kind, Tok::Ident | Tok::Dot))
        .unwrap_or(after.len());
    let (path, rest) = after.split_at(path_end);
    let glued = |t: &Token| path.last().is_none_or(|l| l.span.end == t.span.start);
    // `node x = ` or `node x = int.a|`: the kind.
    if rest.is_empty() && contiguous_path(path) && partial.as_ref().is_none_or(glued) {
        let from = path
            .first()
            .or(partial.as_ref())
            .map_or(off, |t| t.span.start as usize);
        if path.is_empty()
            || path.last().is_some_and(|t| t.span.end as usize == off)
            || partial.is_some()
        {
            return Some(kinds(project, doc, from, off));
        }
    }
    let kind: String = path.iter().map(|t| &text[t.span.range()]).collect();
    // `node x = var.get |`: the variables.
    if rest.is_empty() && (kind == "var.get" || kind == "var.set") {
        return Some(list(variables(doc), false));
    }
    // In the braces, at a name: the node's inputs and properties.
    let open = rest.iter().rposition(|t| t.kind == Tok::LBrace)?;
    if rest[open..].iter().any(|t| t.kind == Tok::RBrace)
        || !matches!(rest.last()?.kind, Tok::LBrace | Tok::Comma)
    {
        return None;
    }
    let given: Vec<&str> = rest[open..]
        .windows(2)
        .filter(|w| w[0].kind == Tok::Ident && w[1].kind == Tok::Eq)
        .map(|w| &text[w[0].span.range()])
        .collect();
    let node = doc.analysis.file.items.iter().find_map(|i| match i {
        Item::Node(n) if n.name.name == text[ctx[1].span.range()] => Some(n),
        _ => None,
    });
    let e = match node {
        Some(n) => entry(project, n)?,
        None => palette::kinds(project.catalog())
            .find(|e| e.kind() == kind)?
            .entry(),
    };
    let mut items: Vec<CompletionItem> = e
        .inputs
        .iter()
        .filter(|p| p.ty.resolve(None) != Some(PinType::Exec))
        .map(|p| item(&p.name, CompletionItemKind::FIELD, p.ty.to_string()))
        .collect();
    items.extend(
        e.properties
            .iter()
            .map(|p| item(p.name, CompletionItemKind::PROPERTY, p.ty.to_string())),
    );
    items.retain(|i| !given.contains(&i.label.as_str()));
    Some(list(items, false))
}

fn link_item(
    project: &Project,
    doc: &Document,
    text: &str,
    ctx: &[Token],
) -> Option<CompletionResponse> {
    let name = |t: &Token| &text[t.span.range()];
    // `a.|` (an output) or `a.p -> b.|` (an input).
    let (node, output) = match ctx {
        [n, d] if d.kind == Tok::Dot => (name(n), true),
        [_, _, _, a, n, d] if a.kind == Tok::Arrow && d.kind == Tok::Dot => (name(n), false),
        _ => return None,
    };
    Some(list(pins(project, doc, node, output), false))
}

/// The pins of node `node` on one side: as the compiler resolved them, else as the palette
/// lists its kind. Pins of the other direction are never offered.
fn pins(project: &Project, doc: &Document, node: &str, output: bool) -> Vec<CompletionItem> {
    let resolved = doc
        .analysis
        .compiled
        .as_ref()
        .and_then(|c| c.checked.graph.nodes.iter().find(|n| n.name == node));
    if let Some(n) = resolved {
        let ps = if output { &n.outputs } else { &n.inputs };
        return ps
            .iter()
            .map(|p| item(&p.name, CompletionItemKind::FIELD, p.ty.to_string()))
            .collect();
    }
    let Some(e) = at::node(&doc.analysis.file, node).and_then(|n| entry(project, n)) else {
        return Vec::new();
    };
    let ps = if output { &e.outputs } else { &e.inputs };
    ps.iter()
        .map(|p| item(&p.name, CompletionItemKind::FIELD, p.ty.to_string()))
        .collect()
}

fn item(label: &str, kind: CompletionItemKind, detail: String) -> CompletionItem {
    CompletionItem {
        label: label.to_string(),
        kind: Some(kind),
        detail: Some(detail),
        ..Default::default()
    }
}

fn doc_markdown(value: String) -> Option<Documentation> {
    Some(Documentation::MarkupContent(MarkupContent {
        kind: MarkupKind::Markdown,
        value,
    }))
}

/// Most items one completion answers; past it the list is marked incomplete, so the editor
/// asks again as more is typed (a catalog can hold 100,000 events).
pub const MAX_ITEMS: usize = 200;

/// Whether a candidate matches what was typed (ASCII case-insensitive substring; nothing
/// allocated: it runs once per palette entry).
fn matches(candidate: &str, typed: &str) -> bool {
    typed.is_empty()
        || candidate
            .as_bytes()
            .windows(typed.len())
            .any(|w| w.eq_ignore_ascii_case(typed.as_bytes()))
}

/// Every node kind of the palette that matches the kind typed so far (`from..off`), which it
/// replaces. Documentation is filled in by `completionItem/resolve`.
fn kinds(project: &Project, doc: &Document, from: usize, off: usize) -> CompletionResponse {
    let range = doc
        .index
        .range(&doc.text, crate::diag::Span::new(from, off));
    let typed = &doc.text[from..off];
    let mut found = project.kinds().iter().filter(|k| matches(k, typed));
    let items: Vec<CompletionItem> = found
        .by_ref()
        .take(MAX_ITEMS)
        .filter_map(|k| super::hover::entry_of_kind(project, k))
        .map(|e| {
            // What a graph writes: `event custom::NAME` needs its name typed after.
            let written = if e.kind == "event custom" {
                "event custom::".to_string()
            } else {
                e.kind.clone()
            };
            let event = e.kind.starts_with("event ");
            CompletionItem {
                label: written.clone(),
                label_details: Some(CompletionItemLabelDetails {
                    detail: None,
                    description: Some(e.name.clone()),
                }),
                kind: Some(if event {
                    CompletionItemKind::EVENT
                } else {
                    CompletionItemKind::CLASS
                }),
                detail: Some(format!("{} — {}", e.name, e.category)),
                filter_text: Some(written.clone()),
                text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(range, written))),
                data: Some(serde_json::json!({ "kind": e.kind })),
                ..Default::default()
            }
        })
        .collect();
    list(items, found.next().is_some())
}

fn list(items: Vec<CompletionItem>, more: bool) -> CompletionResponse {
    CompletionResponse::List(CompletionList {
        is_incomplete: more,
        items,
    })
}

/// `completionItem/resolve`: the documentation of a kind or event item (the node table's
/// description and pins, or the event's display name, file, time and fields).
pub fn resolve(project: &Project, mut item: CompletionItem) -> CompletionItem {
    let kind = item
        .data
        .as_ref()
        .and_then(|d| d.get("kind"))
        .and_then(serde_json::Value::as_str)
        .map(str::to_string);
    let markdown = match kind.as_deref() {
        Some(k) => crate::nodes::lookup(k)
            .map(|b| entry_markdown(&palette::builtin_entry(b)))
            .or_else(|| {
                let id = k.strip_prefix("event ")?;
                let d = project.catalog().event(id)?;
                Some(format!(
                    "{}\n{}",
                    super::hover::event_markdown(&d),
                    entry_markdown(&palette::event_entry(&d))
                ))
            })
            .or_else(|| {
                palette::kinds(project.catalog())
                    .find(|p| p.kind() == k)
                    .map(|p| entry_markdown(&p.entry()))
            }),
        None => None,
    };
    if let Some(m) = markdown {
        item.documentation = doc_markdown(m);
    }
    item
}

/// The event subjects after `event`: `begin_play`, `tick`, `custom::` and the catalog's events
/// that match what was typed.
fn events(project: &Project, typed: &str) -> CompletionResponse {
    let mut out: Vec<CompletionItem> = ["begin_play", "tick", "custom::"]
        .iter()
        .filter(|s| matches(s, typed))
        .map(|s| item(s, CompletionItemKind::EVENT, "event".into()))
        .collect();
    // The catalog's events, from the palette's kinds (`event animseq::…`).
    let mut found = project
        .kinds()
        .iter()
        .filter_map(|k| k.strip_prefix("event "))
        .filter(|id| id.starts_with("animseq::") && matches(id, typed));
    for id in found.by_ref().take(MAX_ITEMS) {
        let Some(d) = project.catalog().event(id) else {
            continue;
        };
        out.push(CompletionItem {
            label: d.id.to_string(),
            label_details: Some(CompletionItemLabelDetails {
                detail: None,
                description: Some(d.name.clone()),
            }),
            kind: Some(CompletionItemKind::EVENT),
            detail: Some(d.name.clone()),
            data: Some(serde_json::json!({ "kind": format!("event {}", d.id) })),
            ..Default::default()
        });
    }
    list(out, found.next().is_some())
}

/// The graph's variables with their types.
fn variables(doc: &Document) -> Vec<CompletionItem> {
    doc.analysis
        .file
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Var(v) => Some(item(
                &v.name.name,
                CompletionItemKind::VARIABLE,
                v.ty.name().to_string(),
            )),
            _ => None,
        })
        .collect()
}
