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
/// Most bytes of SVG one picture writes (64 MiB): past it the picture is refused with
/// [`E_PICTURE_TOO_LARGE`] before anything is written. The node and wire limits bound the
/// drawing's items, not their text (a node's properties and the variables are all drawn).
pub const MAX_SVG_BYTES: usize = 64 << 20;

pub use crate::diag::codes::picture::E_PICTURE_TOO_LARGE;

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
    // The compiler's own front half (reroutes joined, resolved, checked): one code path.
    let checked = crate::compile::check_source(src, events);
    let mut picture = view::build(&model, Some(&checked.graph));
    view::attach_diagnostics(&mut picture, &file, &checked.diagnostics);
    Ok(picture)
}

/// The SVG of a graph source (see [`graph_picture`]), within [`MAX_SVG_BYTES`].
pub fn graph_svg(src: &SourceFile, events: &dyn EventCatalog) -> Result<String, Vec<Diagnostic>> {
    graph_svg_within(src, events, MAX_SVG_BYTES)
}

/// [`graph_svg`] with another output budget, in bytes.
pub fn graph_svg_within(
    src: &SourceFile,
    events: &dyn EventCatalog,
    budget: usize,
) -> Result<String, Vec<Diagnostic>> {
    let p = graph_picture(src, events)?;
    within(src, &p, budget)
}

/// Renders within `budget`, or the one diagnostic that names it.
fn within(src: &SourceFile, p: &Picture, budget: usize) -> Result<String, Vec<Diagnostic>> {
    svg::render_within(p, budget).map_err(|o| {
        vec![
            Diagnostic::error(
                E_PICTURE_TOO_LARGE,
                format!(
                    "the picture of this graph is larger than the {} budget of one picture; \
                     nothing was written",
                    budget_text(o.budget)
                ),
            )
            .at(src, crate::diag::Span::new(0, 0))
            .with_note(format!(
                "its {} nodes and {} wires are drawn with their names in full and every property \
                 and variable; draw a smaller graph, or split it",
                p.nodes.len(),
                p.links.len()
            )),
        ]
    })
}

/// `64 MiB` for whole mebibytes, else bytes.
fn budget_text(budget: usize) -> String {
    if budget >= 1 << 20 && budget.is_multiple_of(1 << 20) {
        format!("{} MiB", budget >> 20)
    } else {
        format!("{budget}-byte")
    }
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
    within(new, &p, MAX_SVG_BYTES)
}

/// The SVG of a model without compiling it (pins from the node table and the links).
pub fn model_svg(model: &Model) -> String {
    svg::render(&view::build(model, None))
}
