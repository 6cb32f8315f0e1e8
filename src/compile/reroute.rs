//! Reroute nodes compile to nothing: before resolving, the syntax tree's reroutes are taken out
//! and their wires joined (`graph::reroute::join`, the rule `sinew diff` uses too), so a graph
//! with reroutes builds to the same bytes as the graph with each reroute's wires joined.
//!
//! A joined wire keeps the pin references (and spans) of its two real ends; its own span is the
//! reroute it leaves, so what the link rules say about it (a type mismatch: the reroute is wired
//! to two types; exec joined to data; an input linked twice) points at the reroute, with a note.
//!
//! Decisions (`docs/graph-syntax.md`): a reroute with wires out of it and none into it is an
//! error (`E0340`: the pins it feeds would silently get nothing); a reroute with no wire at all
//! is a warning (`W0340`: harmless clutter); a wire into a reroute with nothing out of it is a
//! dangling wire like any unlinked output. A reroute takes no subject (`E0320`) and no
//! arguments (`E0316`); its pins are `in` and `out` (`E0303`).

use super::codes::*;
use crate::diag::{Diagnostic, SourceFile, Span};
use crate::graph::ast::{File, Item, Link, Node};
use crate::graph::reroute::{self, Ends, Joined, Problem};

/// The file with its reroutes joined, the spans of the reroutes (for notes on later
/// diagnostics) and the reroutes' own diagnostics. A file without reroutes is returned as is.
pub fn join(src: &SourceFile, file: &File) -> (Option<File>, Vec<(Span, String)>, Vec<Diagnostic>) {
    let reroutes: Vec<&Node> = file
        .nodes()
        .filter(|n| n.kind.segments.len() == 1 && n.kind.segments[0].name == reroute::KIND)
        .collect();
    if reroutes.is_empty() {
        return (None, Vec::new(), Vec::new());
    }
    let mut diags = Vec::new();
    // Lookups stay linear in the graph (a set of names, and of the reroutes' addresses).
    let names_set: std::collections::HashSet<&str> =
        reroutes.iter().map(|r| r.name.name.as_str()).collect();
    let addrs: std::collections::HashSet<*const Node> =
        reroutes.iter().map(|r| *r as *const Node).collect();
    for r in &reroutes {
        if let Some(s) = &r.subject {
            diags.push(
                Diagnostic::error(E_BAD_SUBJECT, "a reroute takes no subject")
                    .at(src, s.span())
                    .with_note("write `node r = reroute at (x, y)`"),
            );
        }
        if let Some(a) = r.args.first() {
            diags.push(
                Diagnostic::error(
                    E_BAD_PROPERTY,
                    format!("a reroute has no input or property `{}`", a.name.name),
                )
                .at(src, a.span)
                .with_note(
                    "a reroute passes the wire into `in` on to `out`; it takes no arguments",
                ),
            );
        }
    }
    // A reroute's name that another node also declares: the later declaration is the error.
    let mut first: std::collections::HashMap<&str, Span> = Default::default();
    for n in file.nodes() {
        if let Some(prev) = first.get(n.name.name.as_str()) {
            if names_set.contains(n.name.name.as_str()) {
                diags.push(
                    Diagnostic::error(
                        E_DUPLICATE_NODE,
                        format!("node `{}` is declared twice", n.name.name),
                    )
                    .at(src, n.name.span)
                    .with_label(src, *prev, "first declared here"),
                );
            }
        } else {
            first.insert(&n.name.name, n.name.span);
        }
    }
    let links: Vec<&Link> = file.links().collect();
    let ends: Vec<Ends> = links.iter().map(|l| Ends::from(*l)).collect();
    let names: Vec<&str> = reroutes.iter().map(|r| r.name.name.as_str()).collect();
    let joining = reroute::join(&names, &ends);
    for p in &joining.problems {
        diags.push(problem(src, p, &reroutes, &names_set, &links));
    }
    let mut out = File {
        name: file.name.clone(),
        header_comments: file.header_comments.clone(),
        items: Vec::with_capacity(file.items.len()),
        trailing_comments: file.trailing_comments.clone(),
    };
    let is_reroute = |n: &Node| addrs.contains(&(n as *const Node));
    let mut joined = joining.links.iter();
    let mut link_index = 0;
    for item in &file.items {
        match item {
            Item::Node(n) if is_reroute(n) => {}
            Item::Link(_) => {
                // Every joined wire whose place is this link (its sink, or itself).
                let here = link_index;
                link_index += 1;
                let mut rest = joined.clone();
                while let Some(j) = rest.next() {
                    let (sink, link) = match *j {
                        Joined::Plain(i) => (i, links[i].clone()),
                        Joined::Through { source, sink, via } => {
                            let (s, t) = (links[source], links[sink]);
                            let link = Link {
                                from_node: s.from_node.clone(),
                                from_pin: s.from_pin.clone(),
                                to_node: t.to_node.clone(),
                                to_pin: t.to_pin.clone(),
                                span: reroutes[via].span,
                                comments: t.comments.clone(),
                            };
                            (sink, link)
                        }
                    };
                    if sink != here {
                        break;
                    }
                    out.items.push(Item::Link(link));
                    joined = rest.clone();
                }
            }
            other => out.items.push(other.clone()),
        }
    }
    let notes = reroutes
        .iter()
        .map(|r| {
            (
                r.span,
                format!(
                    "this wire runs through reroute `{}`, which passes the wire into it on unchanged",
                    r.name.name
                ),
            )
        })
        .collect();
    (Some(out), notes, diags)
}

/// Adds the "runs through reroute" note to diagnostics of the joined graph that stand on a
/// reroute (a joined wire's span).
pub fn annotate(diags: &mut [Diagnostic], notes: &[(Span, String)]) {
    if notes.is_empty() {
        return;
    }
    for d in diags {
        if let Some((_, note)) = notes.iter().find(|(s, _)| *s == d.span) {
            d.notes.push(note.clone());
        }
    }
}

fn problem(
    src: &SourceFile,
    p: &Problem,
    reroutes: &[&Node],
    names: &std::collections::HashSet<&str>,
    links: &[&Link],
) -> Diagnostic {
    match *p {
        Problem::Pin { link } => {
            let l = links[link];
            let (node, pin) =
                if names.contains(l.to_node.name.as_str()) && l.to_pin.name != reroute::IN {
                    (&l.to_node, &l.to_pin)
                } else {
                    (&l.from_node, &l.from_pin)
                };
            Diagnostic::error(
                E_UNKNOWN_PIN,
                format!("reroute `{}` has no pin `{}`", node.name, pin.name),
            )
            .at(src, l.span)
            .with_note("a reroute has one input `in` and one output `out`")
        }
        Problem::Unfed { reroute } => {
            let r = reroutes[reroute];
            Diagnostic::error(
                E_REROUTE,
                format!(
                    "reroute `{}` has wires out of it but none into it",
                    r.name.name
                ),
            )
            .at(src, r.name.span)
            .with_note(
                "a reroute passes on the wire into its `in` pin: wire a pin into it, or delete it",
            )
        }
        Problem::Unconnected { reroute } => {
            let r = reroutes[reroute];
            Diagnostic::warning(
                W_REROUTE_UNCONNECTED,
                format!("reroute `{}` is not connected", r.name.name),
            )
            .at(src, r.name.span)
            .with_note("it changes nothing; delete it or wire it in")
        }
        Problem::Loop { reroute, link } => {
            let r = reroutes[reroute];
            Diagnostic::error(
                E_REROUTE,
                format!("reroutes wired in a loop (through `{}`)", r.name.name),
            )
            .at(src, links[link].span)
            .with_note("a chain of reroutes must start at a real pin")
        }
        Problem::TooMany => Diagnostic::error(
            E_REROUTE,
            format!(
                "joining the reroutes' wires would make more than {} wires",
                reroute::MAX_JOINED
            ),
        )
        .in_file(src.name())
        .with_note("fewer wires may meet at one chain of reroutes"),
    }
}
