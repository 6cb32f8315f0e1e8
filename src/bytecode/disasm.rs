//! Stable, human-readable text of a verified module (`sinew disasm`).
//!
//! The text is written as it is produced ([`disasm_to`]): its size never adds to the memory the
//! module takes. Names a module carries (variables, slots, nodes) are escaped
//! ([`crate::escape`]), so a crafted module cannot forge lines or send terminal sequences;
//! strings and event identities are printed in Rust's quoted, escaped form.

use std::io::{self, Write};

use super::types::Type;
use super::verify::VerifiedModule;
use crate::crossing::Edge;
use crate::escape::Escaped;

/// The text of [`disasm_to`] as a string (for tests and small modules).
pub fn disasm(vm: &VerifiedModule) -> String {
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = disasm_to(vm, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// Writes the module's metadata, constants, variables, slots, delays and each handler's
/// instructions with the graph node they came from. The text is stable across runs. Give a
/// buffered writer: the text is written line by line.
pub fn disasm_to(vm: &VerifiedModule, out: &mut dyn Write) -> io::Result<()> {
    let m = vm.module();
    writeln!(out, "module {:?}", m.name)?;
    writeln!(
        out,
        "format {}, budget {}",
        super::module::FORMAT_VERSION,
        m.budget
    )?;

    writeln!(out, "\nconstants ({}):", m.consts.len())?;
    for (i, c) in m.consts.iter().enumerate() {
        writeln!(out, "  c{i:<4} {:<7} {c}", c.ty().name())?;
    }
    for (title, prefix, decls) in [("variables", "var", &m.vars), ("slots", "slot", &m.slots)] {
        writeln!(out, "\n{title} ({}):", decls.len())?;
        for (i, d) in decls.iter().enumerate() {
            writeln!(
                out,
                "  {prefix}{i:<4} {}: {} = {}",
                Escaped(&d.name),
                d.ty,
                d.default
            )?;
        }
    }
    writeln!(out, "\ndelays ({}):", m.delays.len())?;
    for (i, d) in m.delays.iter().enumerate() {
        let node = m.nodes.get(d.node as usize).map_or("?", String::as_str);
        writeln!(out, "  d{i:<4} node {}", Escaped(node))?;
    }
    // Only a module that calls a game node has imports (other modules' text is unchanged).
    if !m.imports.is_empty() {
        writeln!(out, "\nimports ({}):", m.imports.len())?;
        for (i, imp) in m.imports.iter().enumerate() {
            writeln!(out, "  g{i:<4} {}", Escaped(&imp.to_string()))?;
        }
    }
    for (hi, h) in m.handlers.iter().enumerate() {
        let params: Vec<&str> = h.params.iter().map(|t| t.name()).collect();
        let regs: Vec<String> = Type::ALL
            .iter()
            .map(|t| format!("{}:{}", t.reg_prefix(), h.regs[t.bank()]))
            .collect();
        let edge = match h.edge {
            None => "",
            Some(Edge::Begin) => " begin",
            Some(Edge::End) => " end",
        };
        writeln!(
            out,
            "\nhandler h{hi} {:?}{edge} ({})  registers {}",
            h.event,
            params.join(", "),
            regs.join(" ")
        )?;
        let end = h.start.saturating_add(h.len);
        for pc in h.start..end {
            let Some(ins) = m.code.get(pc as usize) else {
                break;
            };
            writeln!(
                out,
                "  {pc:04}  {:<48} ; {}",
                ins.text(),
                Escaped(vm.node_at(pc))
            )?;
        }
    }
    Ok(())
}
