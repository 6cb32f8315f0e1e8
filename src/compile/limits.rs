//! The limits a compiled graph must stay within, checked on the lowered module before it is
//! verified: the bytecode format's counts (variables, slots, instructions, registers and
//! parameters per handler) and the bound on one instance's state. Crossing one is an ordinary
//! diagnostic at the declaration or node that crosses it (`E0322`, `E0323`), never an internal
//! compiler error; the verifier still refuses such a module on its own (a module from
//! elsewhere).
//!
//! Counts the format allows but no compiled graph reaches before one of these (constants,
//! delays, handlers and node names are each at least one instruction) need no check of their
//! own.

use crate::bytecode::module::limits as format;
use crate::bytecode::verify::MAX_REGS_PER_BANK;
use crate::bytecode::{Const, Module, Type, Value};
use crate::diag::{Diagnostic, SourceFile, Span};

use super::codes::{E_FORMAT_LIMIT, E_INSTANCE_STATE};
use super::ir::{Graph, GraphSpans, Op};

/// The most bytes one instance of a graph holds for its variables, node state (slots) and
/// delay flags: what every entity the graph is attached to pays, however many there are.
pub const MAX_INSTANCE_STATE: usize = 1 << 20;

/// Bytes one variable or slot costs an instance: its value, plus a string default's bytes.
pub fn value_bytes(default: &Const) -> usize {
    let own = match default {
        Const::Str(s) => s.len(),
        _ => 0,
    };
    std::mem::size_of::<Value>() + own
}

/// Bytes of per-instance state a module needs (see [`MAX_INSTANCE_STATE`]).
pub fn instance_bytes(m: &Module) -> usize {
    let decls = m.vars.iter().chain(&m.slots);
    decls.map(|d| value_bytes(&d.default)).sum::<usize>() + m.delays.len()
}

/// Diagnostics for every limit `m` (lowered from `g`) crosses; empty when it is within all.
pub fn check(src: &SourceFile, g: &Graph, spans: &GraphSpans, m: &Module) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let node_span = |name: &str| -> Option<Span> {
        let i = g.nodes.iter().position(|n| n.name == name)?;
        spans.node_names.get(i).copied()
    };
    let at = |d: Diagnostic, span: Option<Span>| match span {
        Some(s) => d.at(src, s),
        None => d.in_file(src.name()),
    };
    let format_note = "a limit of the bytecode format (docs/limits.md)";

    if m.vars.len() > format::VARS {
        let d = Diagnostic::error(
            E_FORMAT_LIMIT,
            format!(
                "this is variable {} of {}; a graph holds at most {} variables",
                format::VARS + 1,
                m.vars.len(),
                format::VARS
            ),
        )
        .with_note(format_note);
        out.push(at(d, spans.vars.get(format::VARS).copied()));
    }
    if m.slots.len() > format::VARS {
        // Slots are named `node.pin` or `node#state`.
        let name = &m.slots[format::VARS].name;
        let node = name.split(['.', '#']).next().unwrap_or(name);
        let d = Diagnostic::error(
            E_FORMAT_LIMIT,
            format!(
                "this node's state is slot {} of {}; a graph holds at most {} slots \
                 (outputs of exec nodes that something reads, and node states)",
                format::VARS + 1,
                m.slots.len(),
                format::VARS
            ),
        )
        .with_note(format_note);
        out.push(at(d, node_span(node)));
    }
    if m.code.len() > format::CODE {
        let node = m
            .debug
            .get(format::CODE)
            .and_then(|&n| m.nodes.get(n as usize));
        let d = Diagnostic::error(
            E_FORMAT_LIMIT,
            format!(
                "the graph compiles to {} instructions; a module holds at most {}, and this \
                 node's code is past that",
                m.code.len(),
                format::CODE
            ),
        )
        .with_note(format_note)
        .with_note(
            "a pure node is evaluated again for every exec node that reads it: a long pure \
             chain read by many exec nodes multiplies; store its value in a variable once",
        );
        out.push(at(d, node.and_then(|n| node_span(n))));
    }
    for h in &m.handlers {
        // At the event node that starts the handler.
        let span = g
            .nodes
            .iter()
            .position(|n| matches!(&n.op, Op::Event(k) if k.identity() == h.event))
            .and_then(|i| spans.node_names.get(i).copied());
        if let Some(t) = Type::ALL
            .iter()
            .find(|t| h.regs[t.bank()] > MAX_REGS_PER_BANK)
        {
            let d = Diagnostic::error(
                E_FORMAT_LIMIT,
                format!(
                    "the handler of `{}` needs {} {t} registers at once; a handler has at \
                     most {MAX_REGS_PER_BANK} of each type",
                    h.event,
                    h.regs[t.bank()]
                ),
            )
            .with_note(format_note)
            .with_note("split the work across handlers, or keep fewer values alive at once");
            out.push(at(d, span));
        }
        if h.params.len() > format::PARAMS {
            let d = Diagnostic::error(
                E_FORMAT_LIMIT,
                format!(
                    "the event `{}` has {} payload values; a handler takes at most {}",
                    h.event,
                    h.params.len(),
                    format::PARAMS
                ),
            )
            .with_note(format_note);
            out.push(at(d, span));
        }
    }

    let total = instance_bytes(m);
    if total > MAX_INSTANCE_STATE {
        // At the declaration whose state crosses the bound: variables, then slots, then
        // delays, in the order an instance lays them out.
        let mut sum = 0usize;
        let mut span = None;
        for (i, d) in m.vars.iter().enumerate() {
            sum += value_bytes(&d.default);
            if sum > MAX_INSTANCE_STATE {
                span = spans.vars.get(i).copied();
                break;
            }
        }
        if span.is_none() {
            for d in &m.slots {
                sum += value_bytes(&d.default);
                if sum > MAX_INSTANCE_STATE {
                    let node = d.name.split(['.', '#']).next().unwrap_or(&d.name);
                    span = node_span(node);
                    break;
                }
            }
        }
        if span.is_none() {
            for d in &m.delays {
                sum += 1;
                if sum > MAX_INSTANCE_STATE {
                    span = m.nodes.get(d.node as usize).and_then(|n| node_span(n));
                    break;
                }
            }
        }
        let d = Diagnostic::error(
            E_INSTANCE_STATE,
            format!(
                "each instance of this graph would hold {total} bytes of state; an instance \
                 holds at most {MAX_INSTANCE_STATE} (1 MiB), and this declaration crosses it"
            ),
        )
        .with_note(format!(
            "{} variables and {} node states ({} bytes each, plus string defaults) and {} \
             delay flags; every entity the graph is attached to holds its own copy",
            m.vars.len(),
            m.slots.len(),
            std::mem::size_of::<Value>(),
            m.delays.len()
        ));
        out.push(at(d, span));
    }
    out
}
