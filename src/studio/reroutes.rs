//! The pins of reroute nodes for the API's `pins` (the compiler joins reroutes away, so its IR
//! has none): each reroute's `in` and `out` typed by the wire into it — the type of the real
//! output that feeds its chain — or `wire` when nothing typed feeds it.

use crate::compile::ir;
use crate::diag::SourceFile;
use crate::graph::reroute::{self, Ends};
use std::collections::HashMap;

/// `(reroute id, type name)` of every reroute of `text`, in file order.
pub fn types(text: &str, graph: &ir::Graph) -> Vec<(String, &'static str)> {
    let (file, _) = crate::graph::parse(&SourceFile::new("g.bpg", text));
    let names: Vec<&str> = file
        .nodes()
        .filter(|n| n.kind.text() == reroute::KIND && n.subject.is_none())
        .map(|n| n.name.name.as_str())
        .collect();
    if names.is_empty() {
        return Vec::new();
    }
    let links: Vec<_> = file.links().collect();
    let ends: Vec<Ends> = links.iter().map(|l| Ends::from(*l)).collect();
    let nodes: HashMap<&str, &ir::Node> =
        graph.nodes.iter().map(|n| (n.name.as_str(), n)).collect();
    let out_type = |li: usize| {
        let l = &ends[li];
        let n = nodes.get(l.from_node)?;
        n.outputs
            .iter()
            .find(|p| p.name == l.from_pin)
            .map(|p| p.ty.name())
    };
    let index: HashMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let mut ty: Vec<Option<&'static str>> = vec![None; names.len()];
    // A reroute fed by a real pin takes its type; then types flow along reroute-to-reroute
    // links (at most one pass per reroute).
    for (li, l) in ends.iter().enumerate() {
        if let Some(&r) = index.get(l.to_node)
            && !index.contains_key(l.from_node)
            && ty[r].is_none()
        {
            ty[r] = out_type(li);
        }
    }
    for _ in 0..names.len().min(64) {
        let mut changed = false;
        for l in &ends {
            if let (Some(&a), Some(&b)) = (index.get(l.from_node), index.get(l.to_node))
                && ty[b].is_none()
                && ty[a].is_some()
            {
                ty[b] = ty[a];
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    names
        .iter()
        .zip(ty)
        .map(|(n, t)| (n.to_string(), t.unwrap_or("wire")))
        .collect()
}
