//! Check: reads the IR and returns facts and diagnostics — exec cycles, data cycles, nodes no
//! event reaches, variables nothing uses, exec inputs left at a default that changes what the
//! node does. Never mutates the graph.

use super::codes::*;
use super::ir::*;
use crate::diag::{Diagnostic, SourceFile};
use crate::nodes::{self, PinSpec, PinType};
use crate::types::Type;
use petgraph::algo::kosaraju_scc;
use petgraph::graph::{DiGraph, NodeIndex};

/// Deepest exec nesting a graph may have: the VM's call-depth limit, so compiled code never
/// reaches it however the lowering lays out (or inlines) nested chains.
pub const MAX_NESTING: usize = crate::vm::MAX_CALL_DEPTH;

/// The first exec link (in file order) on which the static nesting depth — call outputs
/// ([`Node::is_call_output`]) crossed from an event along any path — exceeds [`MAX_NESTING`].
/// `exec` are the exec links' indexes; the exec graph must be acyclic. Linear (Kahn order).
fn too_deep(g: &Graph, exec: &[usize]) -> Option<usize> {
    let n = g.nodes.len();
    let mut indeg = vec![0u32; n];
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &i in exec {
        let l = &g.links[i];
        indeg[l.to as usize] += 1;
        out[l.from as usize].push(i);
    }
    let mut depth = vec![0usize; n];
    let mut ready: Vec<usize> = (0..n).filter(|&i| indeg[i] == 0).collect();
    let mut first: Option<usize> = None;
    while let Some(x) = ready.pop() {
        for &i in &out[x] {
            let l = &g.links[i];
            let step = usize::from(g.nodes[x].is_call_output(l.from_pin as usize));
            let d = depth[x] + step;
            if depth[x] <= MAX_NESTING && d > MAX_NESTING {
                first = Some(first.map_or(i, |f| f.min(i)));
            }
            let t = l.to as usize;
            // Capped: one level past the limit is all the report needs.
            depth[t] = depth[t].max(d.min(MAX_NESTING + 1));
            indeg[t] -= 1;
            if indeg[t] == 0 {
                ready.push(t);
            }
        }
    }
    first
}

/// Checks a resolved graph; returns its diagnostics (errors for cycles, warnings for
/// unreachable nodes and unused variables). Nothing else: lowering walks each handler from
/// its event and needs no fact computed here (the graph-wide reachability only feeds
/// `W0301`).
///
/// `resolved_cleanly` is false when resolve reported errors: then links are missing and
/// "never reached" warnings would be noise, so they are left out.
pub fn check(
    src: &SourceFile,
    g: &Graph,
    spans: &GraphSpans,
    resolved_cleanly: bool,
) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    let exec: Vec<usize> = (0..g.links.len())
        .filter(|&i| g.is_exec(&g.links[i]))
        .collect();
    let closing = closing_links(g, &exec);
    for &i in &closing {
        diags.push(
            Diagnostic::error(E_EXEC_CYCLE, "this link closes an exec cycle")
                .at(src, spans.links[i])
                .with_note("execution would never end; to repeat actions use `flow.for`"),
        );
    }
    if closing.is_empty()
        && let Some(i) = too_deep(g, &exec)
    {
        diags.push(
            Diagnostic::error(
                E_NESTING,
                format!("exec nesting deeper than {MAX_NESTING} levels"),
            )
            .at(src, spans.links[i])
            .with_note(
                "each `flow.for` body and each `flow.sequence` output but the last runs nested \
                 in its node; chain them with the last output or `then` instead",
            ),
        );
    }
    let data: Vec<usize> = (0..g.links.len())
        .filter(|&i| {
            let l = &g.links[i];
            !g.is_exec(l) && g.nodes[l.from as usize].is_pure() && g.nodes[l.to as usize].is_pure()
        })
        .collect();
    for i in closing_links(g, &data) {
        diags.push(
            Diagnostic::error(E_DATA_CYCLE, "this link closes a data cycle")
                .at(src, spans.links[i])
                .with_note("a pure node's value would depend on itself"),
        );
    }
    let reachable = reachability(g);
    for (i, n) in g.nodes.iter().enumerate() {
        if resolved_cleanly && !reachable[i] && !n.is_event() && !matches!(n.op, Op::Error) {
            diags.push(
                Diagnostic::warning(
                    W_UNREACHABLE,
                    format!("node `{}` is never reached by any event", n.name),
                )
                .at(src, spans.node_names[i]),
            );
        }
    }
    if resolved_cleanly {
        diags.extend(unset_inputs(src, g, spans));
    }
    let mut used = vec![false; g.vars.len()];
    for n in &g.nodes {
        if let Op::VarGet(v) | Op::VarSet(v) = n.op {
            used[v as usize] = true;
        }
    }
    for (i, v) in g.vars.iter().enumerate() {
        if !used[i] {
            diags.push(
                Diagnostic::warning(
                    W_UNUSED_VAR,
                    format!("variable `{}` is never read or written", v.name),
                )
                .at(src, spans.vars[i]),
            );
        }
    }
    diags
}

/// `W0303`: every input the node table marks [`warn_unset`](crate::nodes::Pin::warn_unset)
/// (data inputs of exec nodes whose default changes what the node does) that is neither linked
/// nor given a literal, at the node's name, with the default it silently takes and the fix.
fn unset_inputs(src: &SourceFile, g: &Graph, spans: &GraphSpans) -> Vec<Diagnostic> {
    let mut linked: Vec<Vec<bool>> = g
        .nodes
        .iter()
        .map(|n| vec![false; n.inputs.len()])
        .collect();
    for l in &g.links {
        if let Some(x) = linked[l.to as usize].get_mut(l.to_pin as usize) {
            *x = true;
        }
    }
    let mut diags = Vec::new();
    for (i, n) in g.nodes.iter().enumerate() {
        if n.is_event() || matches!(n.op, Op::Error) {
            continue;
        }
        let Some(k) = nodes::lookup(&n.kind) else {
            continue;
        };
        for (j, pin) in n.inputs.iter().enumerate() {
            let warn = k.input(&pin.name).is_some_and(|p| p.warn_unset);
            if !warn || linked[i][j] || n.given.get(j).copied().unwrap_or(false) {
                continue;
            }
            let PinType::Data(ty) = pin.ty else { continue };
            let var_typed = k.input(&pin.name).is_some_and(|p| p.ty == PinSpec::Var);
            let default = if ty == Type::Entity {
                "the graph's own entity".to_string()
            } else {
                format!("`{}`", nodes::default_literal(ty))
            };
            let fix = if ty == Type::Entity {
                format!(
                    "link an entity into `{}.{}` (`entity.self` when the graph's own entity is meant)",
                    n.name, pin.name
                )
            } else {
                format!(
                    "link a value into `{}.{}`, or give it one (the default too, to keep it): \
                     `node {} = {}{} {{ {} = {} }}`",
                    n.name,
                    pin.name,
                    n.name,
                    n.kind,
                    subject_text(g, n),
                    pin.name,
                    nodes::default_literal(ty)
                )
            };
            let whose = if var_typed {
                format!(" (the default of `{}`)", ty.name())
            } else {
                String::new()
            };
            diags.push(
                Diagnostic::warning(
                    W_UNSET_INPUT,
                    format!(
                        "input `{}` of `{}` is neither linked nor given a value: it is {default}{whose}",
                        pin.name, n.name
                    ),
                )
                .at(src, spans.node_names[i])
                .with_note(format!("help: {fix}")),
            );
        }
    }
    diags
}

/// The subject a node was written with, with its leading space (`var.set steps`,
/// `event.send custom::hit`), for the suggested fix.
fn subject_text(g: &Graph, n: &Node) -> String {
    match &n.op {
        Op::VarSet(v) | Op::VarGet(v) => format!(" {}", g.vars[*v as usize].name),
        Op::Send(name) => format!(" custom::{name}"),
        _ => String::new(),
    }
}

/// The links (indexes into `g.links`, from `subset`) that close a cycle: the first link in file
/// order that completes each cycle. Linear when there is no cycle; otherwise the incremental
/// search is confined to strongly connected components.
fn closing_links(g: &Graph, subset: &[usize]) -> Vec<usize> {
    let n = g.nodes.len();
    let mut pg: DiGraph<(), ()> = DiGraph::with_capacity(n, subset.len());
    for _ in 0..n {
        pg.add_node(());
    }
    for &i in subset {
        let l = &g.links[i];
        pg.add_edge(
            NodeIndex::new(l.from as usize),
            NodeIndex::new(l.to as usize),
            (),
        );
    }
    let mut comp = vec![usize::MAX; n];
    let mut any = false;
    for (c, scc) in kosaraju_scc(&pg).into_iter().enumerate() {
        if scc.len() > 1 {
            any = true;
        }
        for v in scc {
            comp[v.index()] = c;
        }
    }
    let self_loop = subset.iter().any(|&i| g.links[i].from == g.links[i].to);
    if !any && !self_loop {
        return Vec::new();
    }
    // Add the intra-component links one by one in file order; a link u→v closes a cycle when
    // v already reaches u.
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut closing = Vec::new();
    let mut mark = vec![0u32; n];
    let mut stamp = 0u32;
    for &i in subset {
        let l = &g.links[i];
        let (u, v) = (l.from as usize, l.to as usize);
        if comp[u] != comp[v] {
            continue;
        }
        stamp += 1;
        let mut stack = vec![v];
        let mut found = u == v;
        while let Some(x) = stack.pop() {
            if found {
                break;
            }
            if mark[x] == stamp {
                continue;
            }
            mark[x] = stamp;
            for &y in &adj[x] {
                if y == u {
                    found = true;
                    break;
                }
                stack.push(y);
            }
        }
        if found {
            closing.push(i);
        } else {
            adj[u].push(v);
        }
    }
    closing
}

/// Which nodes some event reaches (exec nodes) or whose value a reached exec node uses (pure).
fn reachability(g: &Graph) -> Vec<bool> {
    let n = g.nodes.len();
    let mut exec_succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut data_pred: Vec<Vec<usize>> = vec![Vec::new(); n];
    for l in &g.links {
        if g.is_exec(l) {
            exec_succ[l.from as usize].push(l.to as usize);
        } else {
            data_pred[l.to as usize].push(l.from as usize);
        }
    }
    let mut reach = vec![false; n];
    let mut stack: Vec<usize> = (0..n).filter(|&i| g.nodes[i].is_event()).collect();
    for &i in &stack {
        reach[i] = true;
    }
    while let Some(x) = stack.pop() {
        for &y in &exec_succ[x] {
            if !reach[y] {
                reach[y] = true;
                stack.push(y);
            }
        }
    }
    // Pure nodes feeding reached non-pure nodes, transitively through pure nodes.
    let mut stack: Vec<usize> = (0..n).filter(|&i| reach[i]).collect();
    while let Some(x) = stack.pop() {
        for &p in &data_pred[x] {
            if !reach[p] && g.nodes[p].is_pure() {
                reach[p] = true;
                stack.push(p);
            }
        }
    }
    reach
}
