//! A module's import table against the game nodes a project declares now (`bridge.md`: "a
//! graph compiled against one set of declarations refuses to attach where a declaration it
//! imports is missing or has another signature"). Pure: the declarations come from the caller
//! (the loaded project's, `scene::SceneAssets::game_nodes`, or the world's
//! `runtime::GameDeclarations`).

use std::fmt;

use super::game::Import;
use super::isa::Instr;
use super::module::Module;
use crate::diag::Diagnostic;

/// One import whose declaration is gone or has another signature than the module was
/// compiled with (`Import::same_signature`: kind, flow, pin names and types; output defaults
/// are not part of it).
#[derive(Clone, Debug, PartialEq)]
pub struct ImportMismatch {
    /// The module's graph (`graph NAME`).
    pub graph: String,
    /// The graph nodes that call it, in code order, each once.
    pub nodes: Vec<String>,
    /// The signature the module was compiled against.
    pub compiled: Import,
    /// The signature declared now; `None`: no longer declared.
    pub declared: Option<Import>,
}

impl fmt::Display for ImportMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let nodes: Vec<String> = self.nodes.iter().map(|n| format!("`{n}`")).collect();
        write!(
            f,
            "graph `{}` (node{} {}) was compiled against `{}`, ",
            self.graph,
            if nodes.len() == 1 { "" } else { "s" },
            if nodes.is_empty() {
                "none".to_string()
            } else {
                nodes.join(", ")
            },
            self.compiled
        )?;
        match &self.declared {
            Some(d) => write!(f, "but the project declares `{d}`")?,
            None => write!(
                f,
                "but no `*.nodes.ron` declares `{}` any more",
                self.compiled.kind
            )?,
        }
        f.write_str("; rebuild the graph against the current declarations")
    }
}

impl ImportMismatch {
    /// The load-time diagnostic (`E0062`) for module file `name`.
    pub fn to_diagnostic(&self, name: &str) -> Diagnostic {
        Diagnostic::error(
            crate::diag::codes::bytecode::E_IMPORT_SIGNATURE,
            self.to_string(),
        )
        .in_file(name)
    }
}

/// Every import of `module` that `declared` (kind → the signature declared now) lacks or
/// declares with another signature, in import-table order.
pub fn mismatched_imports<'d>(
    module: &Module,
    declared: impl Fn(&str) -> Option<&'d Import>,
) -> Vec<ImportMismatch> {
    let mut out = Vec::new();
    for (i, imp) in module.imports.iter().enumerate() {
        let now = declared(&imp.kind);
        if now.is_some_and(|d| d.same_signature(imp)) {
            continue;
        }
        out.push(ImportMismatch {
            graph: module.name.clone(),
            nodes: callers(module, i),
            compiled: imp.clone(),
            declared: now.cloned(),
        });
    }
    out
}

/// The names of the nodes whose code calls import `index`, in code order, each once.
fn callers(module: &Module, index: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (pc, ins) in module.code.iter().enumerate() {
        if let Instr::GameCall { import } = ins
            && usize::from(import.0) == index
            && let Some(name) = module
                .debug
                .get(pc)
                .and_then(|n| module.nodes.get(*n as usize))
            && !out.contains(name)
        {
            out.push(name.clone());
        }
    }
    out
}
