//! Links: pin lookup on both ends, kinds and types, one link per data input and exec output.

use super::Resolver;
use crate::compile::codes::*;
use crate::compile::ir::*;
use crate::diag::Span;
use crate::graph::ast;
use crate::nodes::PinType;
use crate::suggest::closest;
use crate::types::Type;
use std::collections::HashMap;

impl Resolver<'_> {
    pub(super) fn links(&mut self, file: &ast::File, nodes: &HashMap<&str, NodeId>) {
        // The first link into each data input / out of each exec output, flat by pin.
        let mut in_base = Vec::with_capacity(self.graph.nodes.len());
        let mut out_base = Vec::with_capacity(self.graph.nodes.len());
        let (mut ins, mut outs) = (0usize, 0usize);
        for n in &self.graph.nodes {
            in_base.push(ins);
            out_base.push(outs);
            ins += n.inputs.len();
            outs += n.outputs.len();
        }
        let mut data_in: Vec<Option<Span>> = vec![None; ins];
        let mut exec_out: Vec<Option<Span>> = vec![None; outs];
        for l in file.links() {
            let (Some(&from), Some(&to)) = (
                nodes.get(l.from_node.name.as_str()),
                nodes.get(l.to_node.name.as_str()),
            ) else {
                for id in [&l.from_node, &l.to_node] {
                    if !nodes.contains_key(id.name.as_str()) {
                        // Sorted, so the suggestion never depends on hash order.
                        let mut names: Vec<&str> = nodes.keys().copied().collect();
                        names.sort_unstable();
                        let d = self.err(
                            E_UNKNOWN_NODE,
                            id.span,
                            format!("unknown node `{}`", id.name),
                        );
                        if let Some(s) = closest(&id.name, names) {
                            d.notes.push(format!("did you mean `{s}`?"));
                        }
                    }
                }
                continue;
            };
            let (fnode, tnode) = (
                &self.graph.nodes[from as usize],
                &self.graph.nodes[to as usize],
            );
            if matches!(fnode.op, Op::Error) || matches!(tnode.op, Op::Error) {
                continue;
            }
            let Some(fp) = fnode.output(&l.from_pin.name) else {
                let reversed = fnode.input(&l.from_pin.name).is_some();
                let (code, msg) = end_error(
                    &l.from_node.name,
                    &l.from_pin.name,
                    &fnode.kind,
                    reversed,
                    true,
                );
                let notes = pin_notes(&l.from_pin.name, &fnode.outputs, "outputs");
                self.err(code, l.span, msg).notes.extend(notes);
                continue;
            };
            let Some(tp) = tnode.input(&l.to_pin.name) else {
                let reversed = tnode.output(&l.to_pin.name).is_some();
                let (code, msg) = end_error(
                    &l.to_node.name,
                    &l.to_pin.name,
                    &tnode.kind,
                    reversed,
                    false,
                );
                let notes = pin_notes(&l.to_pin.name, &tnode.inputs, "inputs");
                self.err(code, l.span, msg).notes.extend(notes);
                continue;
            };
            let (ft, tt) = (fnode.outputs[fp].ty, tnode.inputs[tp].ty);
            if (ft == PinType::Exec) != (tt == PinType::Exec) {
                self.err(
                    E_EXEC_DATA,
                    l.span,
                    format!(
                        "cannot link {} pin `{}.{}` to {} pin `{}.{}`",
                        kind_word(ft),
                        l.from_node.name,
                        l.from_pin.name,
                        kind_word(tt),
                        l.to_node.name,
                        l.to_pin.name
                    ),
                );
                continue;
            }
            if ft != tt && (ft, tt) != (PinType::Data(Type::Int), PinType::Data(Type::Float)) {
                self.err(
                    E_TYPE_MISMATCH,
                    l.span,
                    format!("type mismatch: expected {tt}, found {ft}"),
                )
                .notes
                .push(format!(
                    "`{}.{}` is {ft}; `{}.{}` takes {tt}",
                    l.from_node.name, l.from_pin.name, l.to_node.name, l.to_pin.name
                ));
                continue;
            }
            let (fp, tp) = (fp as u16, tp as u16);
            if ft == PinType::Exec {
                let at = out_base[from as usize] + fp as usize;
                if let Some(first) = exec_out[at] {
                    let src = self.src;
                    let d = self.err(
                        E_EXEC_OUT_TWICE,
                        l.span,
                        format!(
                            "exec output `{}.{}` is linked twice",
                            l.from_node.name, l.from_pin.name
                        ),
                    );
                    *d = d.clone().with_label(src, first, "first linked here");
                    d.notes.push(
                        "an exec output leads to one node; use `flow.sequence` to run several"
                            .into(),
                    );
                    continue;
                }
                exec_out[at] = Some(l.span);
            } else {
                let at = in_base[to as usize] + tp as usize;
                if let Some(first) = data_in[at] {
                    let src = self.src;
                    let d = self.err(
                        E_DATA_IN_TWICE,
                        l.span,
                        format!(
                            "data input `{}.{}` is linked twice",
                            l.to_node.name, l.to_pin.name
                        ),
                    );
                    *d = d.clone().with_label(src, first, "first linked here");
                    continue;
                }
                data_in[at] = Some(l.span);
            }
            self.graph.links.push(Link {
                from,
                from_pin: fp,
                to,
                to_pin: tp,
            });
            self.spans.links.push(l.span);
        }
    }
}

/// The error of a link end naming no pin of its direction (`start`: the link's first end):
/// the pin exists the other way round (`reversed`, a direction error), or not at all.
fn end_error(
    node: &str,
    pin: &str,
    kind: &str,
    reversed: bool,
    start: bool,
) -> (&'static str, String) {
    let (is, rule, side) = if start {
        ("an input", "starts at an output", "output")
    } else {
        ("an output", "ends at an input", "input")
    };
    if reversed {
        (
            E_LINK_DIRECTION,
            format!("`{node}.{pin}` is {is} pin; a link {rule}"),
        )
    } else {
        (
            E_UNKNOWN_PIN,
            format!("`{node}` ({kind}) has no {side} pin `{pin}`"),
        )
    }
}

fn kind_word(t: PinType) -> &'static str {
    if t == PinType::Exec { "exec" } else { "data" }
}

fn pin_notes(name: &str, pins: &[Pin], what: &str) -> Vec<String> {
    if let Some(s) = closest(name, pins.iter().map(|p| &*p.name)) {
        vec![format!("did you mean `{s}`?")]
    } else if pins.is_empty() {
        vec![format!("it has no {what}")]
    } else {
        let list: Vec<String> = pins
            .iter()
            .map(|p| format!("{}: {}", p.name, p.ty))
            .collect();
        vec![format!("its {what}: {}", list.join(", "))]
    }
}
