//! Pictures of graphs: `.bpg` graphs as node diagrams in the Blueprint conventions, and
//! `.animsm` state machines, as deterministic SVG text. Pure: models and compiler results in,
//! SVG text out (the CLI's `sinew graph --svg` and the studio's `GET /api/graph.svg` call it).
//!
//! Pipeline: [`view`] turns a [`Model`] plus what the compiler knows (typed pins, diagnostics)
//! into a [`Picture`] (nodes with their pins, literal values, properties, comments, marks);
//! [`layout`] sizes every node and places those without a position (layered layout by
//! `rust-sugiyama`); [`svg`] writes the markup. [`state_machine`] draws `.animsm` files.
//!
//! Test hooks shared with the studio page: every node group has `data-node-id`, every pin
//! `data-pin="node.pin"`, every wire `data-link="a.out -> b.in"`, diagnostic badges
//! `data-diagnostic-code`, diff marks `data-diff`.

pub mod layout;
pub mod state_machine;
pub mod svg;
pub mod view;

pub use view::{Family, LinkView, Mark, NodeView, Picture, PinView};

use crate::compile::EventCatalog;
use crate::diag::{Diagnostic, SourceFile};
use crate::graph::Model;

/// Most nodes one picture draws; the rest are counted in a note (bounded output).
pub const MAX_NODES: usize = 20_000;
/// Most wires one picture draws.
pub const MAX_LINKS: usize = 60_000;
/// Longest comment or literal line drawn, in characters (longer ones end in `…`).
pub const MAX_LINE_CHARS: usize = 60;
/// Most comment lines drawn above one item.
pub const MAX_COMMENT_LINES: usize = 6;

/// The picture of a graph source, compiled against `events` so pins are typed and erroring
/// nodes are marked. Refuses (returns the syntax diagnostics) when the source does not parse.
pub fn graph_picture(
    src: &SourceFile,
    events: &dyn EventCatalog,
) -> Result<Picture, Vec<Diagnostic>> {
    let (file, diags) = crate::graph::parse(src);
    if !diags.is_empty() {
        return Err(diags);
    }
    let model = Model::from_file(&file);
    let (graph, spans, mut diagnostics) = crate::compile::resolve::resolve(src, &file, events);
    let clean = !diagnostics.iter().any(Diagnostic::is_error);
    let (_, d) = crate::compile::check::check(src, &graph, &spans, clean);
    diagnostics.extend(d);
    crate::diag::sort(&mut diagnostics);
    let mut picture = view::build(&model, Some(&graph));
    view::attach_diagnostics(&mut picture, &file, &diagnostics);
    Ok(picture)
}

/// The SVG of a graph source (see [`graph_picture`]).
pub fn graph_svg(src: &SourceFile, events: &dyn EventCatalog) -> Result<String, Vec<Diagnostic>> {
    graph_picture(src, events).map(|p| svg::render(&p))
}

/// The SVG of NEW (a graph source) marked with its differences from OLD (`sinew diff --svg`):
/// added parts green, changed amber, moved blue dashes, removed parts as ghosts.
pub fn diff_svg(
    new: &SourceFile,
    events: &dyn EventCatalog,
    diff: &crate::graph::diff::Diff,
) -> Result<String, Vec<Diagnostic>> {
    let mut p = graph_picture(new, events)?;
    view::apply_diff(&mut p, diff);
    Ok(svg::render(&p))
}

/// The SVG of a model without compiling it (pins from the node table and the links).
pub fn model_svg(model: &Model) -> String {
    svg::render(&view::build(model, None))
}
