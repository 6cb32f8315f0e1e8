//! Custom event payloads across graphs: every graph that declares or uses `custom::NAME` must
//! agree on its payload (`event custom::hit { amount: float }`; a graph that uses the event
//! without declaring it means the empty payload). A disagreement is `E0324` at each graph's
//! declaration or use that differs from the declaration of the graph whose file name sorts
//! first, with a label there — checked wherever several
//! graphs are checked together (the project loader for a scene's graphs, the workspace for
//! `sinew check`'s paths). One graph compiles on its own: inside it the declaration types the
//! pins; only the set of graphs can tell whether they agree.

use std::collections::BTreeMap;

use super::ir::{self, Op};
use crate::diag::{Diagnostic, SourceFile, Span};
use crate::types::Type;

pub use crate::diag::codes::compile::E_PAYLOAD_CONFLICT;

/// One graph's custom events: what it declares and where it first uses each one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Payloads {
    /// Per event name: the declared fields and the declaration's span.
    pub declared: BTreeMap<String, (Vec<(String, Type)>, Span)>,
    /// Per event name: the first node (in file order) that handles or sends it.
    pub used: BTreeMap<String, Span>,
}

impl Payloads {
    /// The custom events of a resolved graph.
    pub fn of(graph: &ir::Graph, spans: &ir::GraphSpans) -> Payloads {
        let mut p = Payloads::default();
        for (d, span) in graph.events.iter().zip(&spans.events) {
            p.declared
                .entry(d.name.clone())
                .or_insert_with(|| (d.fields.clone(), *span));
        }
        for (n, span) in graph.nodes.iter().zip(&spans.nodes) {
            let name = match &n.op {
                Op::Event(ir::EventKey::Custom(name)) | Op::Send(name) => name,
                _ => continue,
            };
            p.used.entry(name.clone()).or_insert(*span);
        }
        p
    }

    /// The fields this graph gives `name` (its declaration, else none) and where it says so,
    /// if it declares or uses `name` at all.
    fn view(&self, name: &str) -> Option<View<'_>> {
        if let Some((fields, span)) = self.declared.get(name) {
            return Some(View {
                fields,
                span: *span,
                declared: true,
            });
        }
        self.used.get(name).map(|s| View {
            fields: &[],
            span: *s,
            declared: false,
        })
    }
}

/// What one graph says about one custom event.
#[derive(Clone, Copy)]
struct View<'a> {
    fields: &'a [(String, Type)],
    /// The declaration, or the first use when it has none.
    span: Span,
    declared: bool,
}

/// The payload as written in a declaration: `{ amount: float, from: entity }`.
pub fn describe(fields: &[(String, Type)]) -> String {
    if fields.is_empty() {
        return "no payload".into();
    }
    let list: Vec<String> = fields.iter().map(|(n, t)| format!("{n}: {t}")).collect();
    format!("`{{ {} }}`", list.join(", "))
}

/// Every custom event name the graphs declare or use, sorted.
fn event_names<'a>(
    graphs: &[(&'a SourceFile, &'a Payloads)],
) -> std::collections::BTreeSet<&'a str> {
    graphs
        .iter()
        .flat_map(|(_, p)| p.declared.keys().chain(p.used.keys()))
        .map(String::as_str)
        .collect()
}

/// What every graph that declares or uses `name` says about it, in the order given.
fn views<'a>(
    graphs: &[(&'a SourceFile, &'a Payloads)],
    name: &str,
) -> Vec<(&'a SourceFile, View<'a>)> {
    graphs
        .iter()
        .filter_map(|(src, p)| p.view(name).map(|v| (*src, v)))
        .collect()
}

/// The reference view: the declaring graph whose file name sorts first (so a scene's check and
/// the workspace's name the same one and report the same diagnostic), else the first user.
fn reference<'a>(views: &[(&'a SourceFile, View<'a>)]) -> Option<(&'a SourceFile, View<'a>)> {
    views
        .iter()
        .filter(|(_, v)| v.declared)
        .min_by(|a, b| a.0.name().cmp(b.0.name()))
        .or_else(|| views.first())
        .copied()
}

/// Every custom event the graphs declare or use (name without `custom::`) → its payload: the
/// reference declaration [`conflicts`] compares against (empty when no graph declares one).
/// What a scene's `Send` values are checked against and ordered by.
pub fn agreed(graphs: &[(&SourceFile, &Payloads)]) -> BTreeMap<String, Vec<(String, Type)>> {
    let names = event_names(graphs);
    names
        .into_iter()
        .filter_map(|name| {
            let views = views(graphs, name);
            let (_, v) = reference(&views)?;
            Some((name.to_string(), v.fields.to_vec()))
        })
        .collect()
}

/// `E0324` for every graph whose payload of a custom event differs from the reference: the
/// declaring graph whose file name sorts first. Output order follows the order given.
pub fn conflicts(graphs: &[(&SourceFile, &Payloads)]) -> Vec<Diagnostic> {
    let names = event_names(graphs);
    let mut out = Vec::new();
    for name in names {
        let views = views(graphs, name);
        let Some((first_src, first)) = reference(&views) else {
            continue;
        };
        let (first_fields, first_span) = (first.fields, first.span);
        for &(src, v) in &views {
            let (fields, span, declared) = (v.fields, v.span, v.declared);
            if fields == first_fields {
                continue;
            }
            let what = if declared {
                format!("declares custom event `{name}` with {}", describe(fields))
            } else {
                format!("uses custom event `{name}` without declaring its payload")
            };
            let mut d = Diagnostic::error(
                E_PAYLOAD_CONFLICT,
                format!(
                    "this graph {what}, but {} declares it with {}",
                    first_src.name(),
                    describe(first_fields)
                ),
            )
            .at(src, span)
            .with_label(
                first_src,
                first_span,
                format!("`custom::{name}` declared here"),
            );
            d = d.with_note(format!(
                "every graph that sends or handles `custom::{name}` declares the same payload: `event custom::{name} {}`",
                braces(first_fields)
            ));
            out.push(d);
        }
    }
    out
}

fn braces(fields: &[(String, Type)]) -> String {
    if fields.is_empty() {
        return "{}".into();
    }
    let list: Vec<String> = fields.iter().map(|(n, t)| format!("{n}: {t}")).collect();
    format!("{{ {} }}", list.join(", "))
}
