//! The variables a scene sets on its graphs' instances (`("b.bpg", vars: {"victim":
//! Entity("dummy")})`, `runtime.md`), a [`super::PASSES`] entry so `sinew run` and `sinew
//! check` share it: each must be declared by the graph (`E0569`, with the closest name or the
//! list of its variables) with the value's type (`E0570`). `Entity("name")` naming no entity
//! of the scene is the scene parser's `E0557`.

use std::collections::HashMap;

use super::PassInput;
use crate::diag::Diagnostic;
use crate::ron_span::short;
use crate::scene::{E_SCENE_UNKNOWN_VAR, E_SCENE_VAR_TYPE, VarValue};
use crate::suggest::closest;
use crate::types::Type;

/// Most variables a diagnostic lists when none is close.
const MAX_LISTED: usize = 16;

/// The pass: see the module docs.
pub(super) fn graph_vars(input: &PassInput<'_>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    // Per graph path: its variables by name (built once, however many entities set them).
    let mut declared: HashMap<&str, HashMap<&str, Type>> = HashMap::new();
    for g in input.def.entities.iter().flat_map(|e| &e.graphs) {
        if g.vars.is_empty() {
            continue;
        }
        let Some(module) = input.assets.graphs.get(&g.path.path) else {
            continue; // did not load or compile: reported already
        };
        let decls = &module.module().vars;
        let by_name = declared
            .entry(g.path.path.as_str())
            .or_insert_with(|| decls.iter().map(|d| (d.name.as_str(), d.ty)).collect());
        let path = short(&g.path.path);
        for v in &g.vars {
            match by_name.get(v.name.as_str()) {
                None => {
                    let mut d = Diagnostic::error(
                        E_SCENE_UNKNOWN_VAR,
                        format!(
                            "graph `{path}` declares no variable `{}`",
                            short(&v.name)
                        ),
                    )
                    .at(input.scene, v.name_span);
                    let names = decls.iter().map(|d| d.name.as_str());
                    d = match closest(&v.name, names) {
                        Some(s) => d.with_note(format!("did you mean `{s}`?")),
                        None if decls.is_empty() => d.with_note("it declares no variables"),
                        None => {
                            let listed: Vec<String> = decls
                                .iter()
                                .take(MAX_LISTED)
                                .map(|d| format!("`{}: {}`", d.name, d.ty.name()))
                                .collect();
                            let more = decls.len().saturating_sub(MAX_LISTED);
                            let tail = if more > 0 {
                                format!(" and {more} more")
                            } else {
                                String::new()
                            };
                            d.with_note(format!("its variables: {}{tail}", listed.join(", ")))
                        }
                    };
                    out.push(d);
                }
                Some(&ty) if ty != v.value.ty() => out.push(
                    Diagnostic::error(
                        E_SCENE_VAR_TYPE,
                        format!(
                            "variable `{}` of graph `{path}` is {} {}, but the scene gives it {} {}",
                            short(&v.name),
                            article(ty),
                            ty.name(),
                            article(v.value.ty()),
                            v.value.ty().name()
                        ),
                    )
                    .at(input.scene, v.value_span)
                    .with_note(format!(
                        "write `{}(…)`",
                        VarValue::constructor(ty)
                    )),
                ),
                Some(_) => {}
            }
        }
    }
    out
}

fn article(ty: Type) -> &'static str {
    match ty {
        Type::Int | Type::Entity => "an",
        _ => "a",
    }
}
