//! `docs/nodes.md`, rendered from the node table: every built-in kind with what it does, its
//! pins (types, defaults, which unset inputs warn), its properties, and the pins of the event
//! nodes the catalog adds. `tests/reference_docs.rs` fails when the committed file differs;
//! `SINEW_BLESS=1 cargo test --test reference_docs` rewrites it.

use super::{
    BUILTINS, Flow, KindId, NOTIFY_CONTEXT_PINS, NodeKind, Pin, PinSpec, SubjectRule,
    WINDOW_CONTEXT_PINS,
};
use std::fmt::Write;

/// How a kind is written after `node x =` (its subject as a placeholder).
fn written(k: &NodeKind) -> String {
    match (k.subject, k.kind) {
        (SubjectRule::Event, "event custom") => "event custom::NAME".into(),
        (SubjectRule::Event, kind) => kind.into(),
        (SubjectRule::Variable, kind) => format!("{kind} VAR"),
        (SubjectRule::Expr, kind) => format!("{kind} \"…\""),
        (SubjectRule::CustomEvent, kind) => format!("{kind} custom::NAME"),
        (SubjectRule::None, kind) => kind.into(),
    }
}

fn flow(f: Flow) -> &'static str {
    match f {
        Flow::Event => "event node: starts a handler",
        Flow::Exec => "exec node: runs when an exec link reaches it",
        Flow::Latent => "latent exec node: suspends the handler",
        Flow::Pure => "pure node: evaluated each time an exec node needs its value",
    }
}

fn pin_type(p: &Pin) -> String {
    match p.ty {
        PinSpec::Var => "the variable's type".into(),
        PinSpec::Wire => "the type of the wire into it".into(),
        t => t.name().into(),
    }
}

/// An input table: pin, type, default (data pins), and whether leaving it unset warns.
fn inputs(out: &mut String, pins: &[Pin]) {
    out.push_str("| input | type | default | unset |\n| --- | --- | --- | --- |\n");
    for p in pins {
        let default = match (p.ty, p.default_text()) {
            (PinSpec::Var, Some(d)) => d.to_string(),
            (_, Some(d)) => format!("`{d}`"),
            (_, None) => String::new(),
        };
        let unset = if p.warn_unset {
            "warning W0303"
        } else if p.ty.name() == "exec" {
            ""
        } else {
            "silent"
        };
        let _ = writeln!(
            out,
            "| `{}` | {} | {default} | {unset} |",
            p.name,
            pin_type(p)
        );
    }
}

fn outputs(out: &mut String, pins: &[Pin]) {
    out.push_str("| output | type |\n| --- | --- |\n");
    for p in pins {
        let _ = writeln!(out, "| `{}` | {} |", p.name, pin_type(p));
    }
}

fn kind_section(out: &mut String, k: &NodeKind) {
    let _ = writeln!(out, "### `{}` — {}\n", written(k), k.name);
    let _ = writeln!(out, "{} *({})*\n", k.description(), flow(k.flow));
    if !k.inputs.is_empty() {
        inputs(out, k.inputs);
        out.push('\n');
    }
    if k.id == KindId::FlowSequence {
        // The table lists every possible output; a node has `count` of them.
        let _ = writeln!(
            out,
            "Outputs: `then_0` … `then_{{count-1}}` (exec), at most {}.\n",
            super::SEQUENCE_MAX
        );
    } else if k.id == KindId::Expr {
        out.push_str(
            "Inputs: one `float` input per free identifier of the expression, in order of first \
             appearance (default `0.0`, silent).\n\n",
        );
        outputs(out, k.outputs);
        out.push('\n');
    } else if !k.outputs.is_empty() {
        outputs(out, k.outputs);
        out.push('\n');
    }
    if !k.properties.is_empty() {
        out.push_str(
            "| property | type | default | range | meaning |\n| --- | --- | --- | --- | --- |\n",
        );
        for p in k.properties {
            let range = p
                .range
                .map_or(String::new(), |(a, b)| format!("{a} to {b}"));
            let _ = writeln!(
                out,
                "| `{}` | {} | `{}` | {range} | {} |",
                p.name,
                p.ty.name(),
                p.default,
                p.doc
            );
        }
        out.push('\n');
    }
}

/// The whole of `docs/nodes.md`.
pub fn markdown() -> String {
    let mut out = String::new();
    out.push_str(
        "# Node reference\n\n\
         <!-- Generated from the node table (`src/nodes.rs`) by `src/nodes/reference.rs`; do not \
         edit. Regenerate with `SINEW_BLESS=1 cargo test --test reference_docs`. -->\n\n\
         Every built-in node kind a `.bpg` graph can use (see [graph-syntax.md](graph-syntax.md) \
         for how nodes, ARGS and links are written), grouped as `sinew palette` groups them. \
         The event nodes of animation notifies and windows come from the assets' catalog; their \
         pins are listed at the end.\n\n\
         **Defaults.** A data input that is neither linked nor given a value in the node's ARGS \
         (`node say = debug.log { message = \"hi\" }`) takes its default: `false`, `0`, `0.0`, \
         `(0, 0, 0)`, `\"\"`, and for an `entity` the graph's own entity (`self`); `var.set`'s \
         value takes the default of the variable's type. Where that default changes what the \
         node does (a log without a message, a send to the own entity, a variable set to zero), \
         the input says *warning W0303*: `sinew check` warns when it is left unset (give the \
         value you mean, even the default, to silence it). Other inputs are *silent*. \
         `sinew palette --format json` shows the same defaults (`default`, `warn_unset`).\n\n",
    );
    let mut categories: Vec<&str> = Vec::new();
    for k in BUILTINS {
        if !categories.contains(&k.category) {
            categories.push(k.category);
        }
    }
    for c in &categories {
        let _ = writeln!(out, "## {c}\n");
        for k in BUILTINS.iter().filter(|k| k.category == *c) {
            kind_section(&mut out, k);
        }
    }
    out.push_str(
        "## Animation events (from the catalog)\n\n\
         ### `event animseq::SEQ.NOTIFY` — a notify\n\n\
         Starts a handler each time the notify is crossed on an entity's channel. One pin per \
         typed field of the notify follows the context pins.\n\n",
    );
    outputs(&mut out, NOTIFY_CONTEXT_PINS);
    out.push_str(
        "\n### `event animseq::SEQ.WINDOW` — a window\n\n\
         Starts one handler at `begin` and one at `end` of the window (each a handler of its \
         own); `completed` is true only on an end reached at the window's end edge. One pin per \
         typed field follows.\n\n",
    );
    outputs(&mut out, WINDOW_CONTEXT_PINS);
    out
}
