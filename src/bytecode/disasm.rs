//! Stable, human-readable text of a verified module (`sinew disasm`).

use std::fmt::Write;

use super::types::Type;
use super::verify::VerifiedModule;

/// Lists the module's metadata, constants, variables, slots, delays and each handler's
/// instructions with the graph node they came from. The text is stable across runs.
pub fn disasm(vm: &VerifiedModule) -> String {
    let m = vm.module();
    let mut out = String::new();
    let _ = writeln!(out, "module {:?}", m.name);
    let _ = writeln!(
        out,
        "format {}, budget {}",
        super::module::FORMAT_VERSION,
        m.budget
    );

    let _ = writeln!(out, "\nconstants ({}):", m.consts.len());
    for (i, c) in m.consts.iter().enumerate() {
        let _ = writeln!(out, "  c{i:<4} {:<7} {c}", c.ty().name());
    }
    for (title, prefix, decls) in [("variables", "var", &m.vars), ("slots", "slot", &m.slots)] {
        let _ = writeln!(out, "\n{title} ({}):", decls.len());
        for (i, d) in decls.iter().enumerate() {
            let _ = writeln!(out, "  {prefix}{i:<4} {}: {} = {}", d.name, d.ty, d.default);
        }
    }
    let _ = writeln!(out, "\ndelays ({}):", m.delays.len());
    for (i, d) in m.delays.iter().enumerate() {
        let node = m.nodes.get(d.node as usize).map_or("?", String::as_str);
        let _ = writeln!(out, "  d{i:<4} node {node}");
    }
    for (hi, h) in m.handlers.iter().enumerate() {
        let params: Vec<&str> = h.params.iter().map(|t| t.name()).collect();
        let regs: Vec<String> = Type::ALL
            .iter()
            .map(|t| format!("{}:{}", t.reg_prefix(), h.regs[t.bank()]))
            .collect();
        let _ = writeln!(
            out,
            "\nhandler h{hi} {:?} ({})  registers {}",
            h.event,
            params.join(", "),
            regs.join(" ")
        );
        let end = h.start.saturating_add(h.len);
        for pc in h.start..end {
            let Some(ins) = m.code.get(pc as usize) else {
                break;
            };
            let _ = writeln!(out, "  {pc:04}  {:<48} ; {}", ins.text(), vm.node_at(pc));
        }
    }
    out
}
