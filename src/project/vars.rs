//! The variables a scene sets on its graphs' instances (`("b.bpg", vars: {"victim":
//! Entity("dummy")})`, `runtime.md`), a [`super::PASSES`] entry so `sinew run` and `sinew
//! check` share it: each must be declared by the graph (`E0569`, listing its variables, with
//! the closest name beside them) with the value's type (`E0570`). `Entity("name")` naming no entity
//! of the scene is the scene parser's `E0557`. The payload values of a scene's `Send` are
//! checked the same way against the payload its graphs agree on (`E0571`, `E0572`).

use std::collections::HashMap;

use super::PassInput;
use crate::diag::Diagnostic;
use crate::ron_span::short;
use crate::scene::{
    Action, E_SCENE_UNKNOWN_VAR, E_SCENE_VAR_TYPE, E_SEND_FIELD_TYPE, E_SEND_UNKNOWN_FIELD,
    VarSetting, VarValue,
};
use crate::suggest::closest;
use crate::types::Type;

/// Most variables a diagnostic lists when none is close.
const MAX_LISTED: usize = 16;

/// The pass: see the module docs.
pub(super) fn graph_vars(input: &PassInput<'_>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    // Per graph path: its variables by name (built once, however many entities set them).
    let mut declared: HashMap<&str, Vec<(&str, Type)>> = HashMap::new();
    for g in input.def.entities.iter().flat_map(|e| &e.graphs) {
        if g.vars.is_empty() {
            continue;
        }
        let Some(module) = input.assets.graphs.get(&g.path.path) else {
            continue; // did not load or compile: reported already
        };
        let decls = declared.entry(g.path.path.as_str()).or_insert_with(|| {
            let vars = &module.module().vars;
            vars.iter().map(|d| (d.name.as_str(), d.ty)).collect()
        });
        let owner = Owner {
            unknown: E_SCENE_UNKNOWN_VAR,
            wrong_type: E_SCENE_VAR_TYPE,
            of: format!("graph `{}`", short(&g.path.path)),
            noun: "variable",
            nouns: "variables",
            empty: "it declares no variables".into(),
        };
        owner.check(input, &g.vars, decls, &mut out);
    }
    out
}

/// `E0573` / `E0574`: each entity's `returns` against the game nodes its graphs call (their
/// modules' import tables): a kind none of them calls, an output the node does not declare, a
/// value of another type — each naming the choices.
pub(super) fn game_returns(input: &PassInput<'_>) -> Vec<Diagnostic> {
    use crate::scene::{E_RETURNS_TYPE, E_RETURNS_UNKNOWN};
    let mut out = Vec::new();
    for e in input.def.entities.iter().filter(|e| !e.returns.is_empty()) {
        let imports: Vec<&crate::bytecode::Import> = e
            .graphs
            .iter()
            .filter_map(|g| input.assets.graphs.get(&g.path.path))
            .flat_map(|m| &m.module().imports)
            .collect();
        for r in &e.returns {
            let Some(imp) = imports.iter().find(|i| i.kind == r.kind) else {
                let mut kinds: Vec<&str> = imports.iter().map(|i| i.kind.as_str()).collect();
                kinds.sort_unstable();
                kinds.dedup();
                let mut d = Diagnostic::error(
                    E_RETURNS_UNKNOWN,
                    format!(
                        "the graphs of entity `{}` call no game node `{}`",
                        short(&e.name),
                        short(&r.kind)
                    ),
                )
                .at(input.scene, r.kind_span);
                if let Some(s) = closest(&r.kind, kinds.iter().copied()) {
                    d = d.with_note(format!("did you mean `{s}`?"));
                }
                d = d.with_note(if kinds.is_empty() {
                    "they call no game nodes".to_string()
                } else {
                    format!("they call: {}", kinds.join(", "))
                });
                out.push(d);
                continue;
            };
            let decls: Vec<(&str, Type)> = imp
                .outputs
                .iter()
                .map(|(n, t, _)| (n.as_str(), *t))
                .collect();
            let owner = Owner {
                unknown: E_RETURNS_UNKNOWN,
                wrong_type: E_RETURNS_TYPE,
                of: format!("game node `{}`", short(&r.kind)),
                noun: "output",
                nouns: "outputs",
                empty: "it declares no outputs".into(),
            };
            owner.check(input, &r.outputs, &decls, &mut out);
        }
    }
    out
}

/// `E0571` / `E0572`: the payload values of every `Send(target, "custom::NAME", {…})` against
/// the payload the scene's graphs agree on for that event (`compile::payload::agreed`).
pub(super) fn send_payloads(input: &PassInput<'_>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for a in &input.def.actions {
        let Action::Send { event, fields, .. } = &a.action else {
            continue;
        };
        if fields.is_empty() {
            continue;
        }
        let name = event.strip_prefix("custom::").unwrap_or(event);
        let agreed = input.assets.payloads.get(name);
        let decls: Vec<(&str, Type)> = agreed
            .map(|f| f.iter().map(|(n, t)| (n.as_str(), *t)).collect())
            .unwrap_or_default();
        let empty = match agreed {
            Some(_) => format!(
                "it declares no payload fields: declare them in its graphs, `event {} {{ … }}`",
                short(event)
            ),
            None => format!("no graph of this scene sends or handles `{}`", short(event)),
        };
        let owner = Owner {
            unknown: E_SEND_UNKNOWN_FIELD,
            wrong_type: E_SEND_FIELD_TYPE,
            of: format!("custom event `{}`", short(event)),
            noun: "payload field",
            nouns: "payload fields",
            empty,
        };
        owner.check(input, fields, &decls, &mut out);
    }
    out
}

/// What scene values are checked against: a graph's variables, or a custom event's payload.
struct Owner {
    unknown: &'static str,
    wrong_type: &'static str,
    /// `graph `b.bpg``, `custom event `custom::hit``.
    of: String,
    noun: &'static str,
    nouns: &'static str,
    /// The note when nothing is declared.
    empty: String,
}

impl Owner {
    /// Every setting names a declared entry (the closest name, or the list) of its type (the
    /// constructor to write).
    fn check(
        &self,
        input: &PassInput<'_>,
        settings: &[VarSetting],
        decls: &[(&str, Type)],
        out: &mut Vec<Diagnostic>,
    ) {
        let (of, noun) = (&self.of, self.noun);
        for v in settings {
            match decls.iter().find(|(n, _)| *n == v.name) {
                None => {
                    let mut d = Diagnostic::error(
                        self.unknown,
                        format!("{of} declares no {noun} `{}`", short(&v.name)),
                    )
                    .at(input.scene, v.name_span);
                    // The choices always (runtime.md: "naming the choices"), the closest
                    // beside them.
                    if let Some(s) = closest(&v.name, decls.iter().map(|(n, _)| *n)) {
                        d = d.with_note(format!("did you mean `{s}`?"));
                    }
                    d = if decls.is_empty() {
                        d.with_note(self.empty.clone())
                    } else {
                        let listed: Vec<String> = decls
                            .iter()
                            .take(MAX_LISTED)
                            .map(|(n, t)| format!("`{}: {}`", short(n), t.name()))
                            .collect();
                        let more = decls.len().saturating_sub(MAX_LISTED);
                        let tail = if more > 0 {
                            format!(" and {more} more")
                        } else {
                            String::new()
                        };
                        d.with_note(format!("its {}: {}{tail}", self.nouns, listed.join(", ")))
                    };
                    out.push(d);
                }
                Some(&(_, ty)) if ty != v.value.ty() => out.push(
                    Diagnostic::error(
                        self.wrong_type,
                        format!(
                            "{noun} `{}` of {of} is {} {}, but the scene gives it {} {}",
                            short(&v.name),
                            article(ty),
                            ty.name(),
                            article(v.value.ty()),
                            v.value.ty().name()
                        ),
                    )
                    .at(input.scene, v.value_span)
                    .with_note(format!("write `{}(…)`", VarValue::constructor(ty))),
                ),
                Some(_) => {}
            }
        }
    }
}

fn article(ty: Type) -> &'static str {
    match ty {
        Type::Int | Type::Entity => "an",
        _ => "a",
    }
}
