//! `GET /api/kinds`: what the page needs about built-in kinds beyond the palette (which is
//! exactly `sinew palette --format json`): each kind's family (the header colour), subject rule,
//! flow class and properties with their defaults, all read from [`crate::nodes::BUILTINS`].

use crate::nodes::{BUILTINS, Flow, NodeKind, SubjectRule};
use serde_json::{Value, json};

/// The family a kind's header is coloured by: `event`, `flow`, `math`, `anim` or `variable`;
/// `reroute` for the reroute node (drawn as a dot, no header).
pub fn family(k: &NodeKind) -> &'static str {
    if k.kind == crate::graph::reroute::KIND {
        return "reroute";
    }
    if k.flow == Flow::Event || k.kind == "event.send" {
        return "event";
    }
    let top = k.category.split('/').next().unwrap_or("");
    match top {
        "Flow" | "Debug" => "flow",
        "Variables" => "variable",
        "Animation" => "anim",
        _ => "math",
    }
}

fn subject(r: SubjectRule) -> &'static str {
    match r {
        SubjectRule::None => "none",
        SubjectRule::Event => "event",
        SubjectRule::Variable => "variable",
        SubjectRule::Expr => "expr",
        SubjectRule::CustomEvent => "custom_event",
    }
}

fn flow(f: Flow) -> &'static str {
    match f {
        Flow::Event => "event",
        Flow::Exec => "exec",
        Flow::Latent => "latent",
        Flow::Pure => "pure",
    }
}

/// `{"kinds": [{"kind", "family", "subject", "flow", "properties": [...]}]}` in table order.
pub fn document() -> Value {
    let kinds: Vec<Value> = BUILTINS
        .iter()
        .map(|k| {
            let props: Vec<Value> = k
                .properties
                .iter()
                .map(|p| {
                    json!({"name": p.name, "type": p.ty.name(), "default": p.default,
                           "range": p.range.map(|(a, b)| json!([a, b]))})
                })
                .collect();
            json!({"kind": k.kind, "family": family(k), "subject": subject(k.subject),
                   "flow": flow(k.flow), "properties": props})
        })
        .collect();
    json!({ "kinds": kinds })
}
