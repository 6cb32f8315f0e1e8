//! The node forest of a glTF file: one parent per node, no cycles, the top-level root of every
//! node, and names — the file's own (`GltfNode{index}` for unnamed nodes) for signatures and
//! Sinew bone names (unique across `:`/`_`/case within one set of nodes) for `.skel` files.

use super::diagnostics::{E_HIERARCHY, Report, W_RENAMED, quoted};
use std::collections::BTreeMap;

/// The validated node hierarchy.
pub struct Forest {
    /// Parent of each node.
    pub parent: Vec<Option<usize>>,
    /// Children of each node, in file order.
    pub children: Vec<Vec<usize>>,
    /// The top-level root (parentless ancestor, or the node itself) of each node.
    pub root_of: Vec<usize>,
    /// The file's name of each node, `GltfNode{index}` when it has none (signature bytes).
    pub names: Vec<String>,
    /// Number of ancestors of each node.
    depths: Vec<usize>,
}

impl Forest {
    /// Builds the forest; a child index out of range, a node with two parents, or a cycle is
    /// an error naming the nodes.
    pub fn new(root: &gltf::json::Root, report: &mut Report) -> Option<Forest> {
        let n = root.nodes.len();
        let mut parent: Vec<Option<usize>> = vec![None; n];
        let mut children = vec![Vec::new(); n];
        let mut ok = true;
        for (i, node) in root.nodes.iter().enumerate() {
            for c in node.children.iter().flatten() {
                let c = c.value();
                if c >= n {
                    report.error(
                        E_HIERARCHY,
                        format!("node {i} names child {c}, but there are {n} nodes"),
                    );
                    ok = false;
                } else if let Some(p) = parent[c] {
                    report.error(
                        E_HIERARCHY,
                        format!("node {c} is a child of both node {p} and node {i}"),
                    );
                    ok = false;
                } else {
                    parent[c] = Some(i);
                    children[i].push(c);
                }
            }
        }
        if !ok {
            return None;
        }
        // Roots by walking up with memo; 0 = unknown, 1 = in progress, 2 = done.
        let mut root_of = vec![usize::MAX; n];
        let mut state = vec![0u8; n];
        let mut path = Vec::new();
        for start in 0..n {
            if state[start] == 2 {
                continue;
            }
            path.clear();
            let mut cur = start;
            let top = loop {
                if state[cur] == 2 {
                    break root_of[cur];
                }
                if state[cur] == 1 {
                    let from = path.iter().position(|&x| x == cur).unwrap_or(0);
                    let members: Vec<String> =
                        path[from..].iter().map(|x: &usize| x.to_string()).collect();
                    report.error(
                        E_HIERARCHY,
                        format!("the nodes {} form a parent cycle", members.join(", ")),
                    );
                    return None;
                }
                state[cur] = 1;
                path.push(cur);
                match parent[cur] {
                    Some(p) => cur = p,
                    None => break cur,
                }
            };
            for &p in &path {
                state[p] = 2;
                root_of[p] = top;
            }
        }
        // Depths, breadth-first from the roots (every node is reached: there are no cycles).
        let mut depths = vec![0usize; n];
        let mut queue: std::collections::VecDeque<usize> =
            (0..n).filter(|&i| parent[i].is_none()).collect();
        while let Some(i) = queue.pop_front() {
            for &c in &children[i] {
                depths[c] = depths[i] + 1;
                queue.push_back(c);
            }
        }
        let names = root
            .nodes
            .iter()
            .enumerate()
            .map(|(i, node)| match &node.name {
                Some(s) => s.clone(),
                None => format!("GltfNode{i}"),
            })
            .collect();
        Some(Forest {
            parent,
            children,
            root_of,
            names,
            depths,
        })
    }

    /// How many ancestors the node has (0 for an index out of range).
    pub fn depth(&self, node: usize) -> usize {
        self.depths.get(node).copied().unwrap_or(0)
    }

    /// The node's path (node indices) from its top-level root down to itself, into `p`.
    pub fn path_into(&self, node: usize, p: &mut Vec<usize>) {
        p.clear();
        p.push(node);
        let mut cur = node;
        while let Some(q) = self.parent[cur] {
            p.push(q);
            cur = q;
        }
        p.reverse();
    }
}

/// Sinew bone names for `nodes` (one skeleton): the file's name, `GltfNode{index}` for an
/// empty one, and `<name>~<index>` for every member of a group of names that match across
/// `:`/`_`/case — repeated until unique. Warnings say what changed and why, once per group.
pub fn bone_names(
    forest: &Forest,
    nodes: &[usize],
    what: &str,
    report: &mut Report,
) -> Vec<Option<String>> {
    let mut names: BTreeMap<usize, String> = BTreeMap::new();
    for &i in nodes {
        let raw = &forest.names[i];
        let name = if raw.trim().is_empty() {
            let fallback = format!("GltfNode{i}");
            report.warning(
                W_RENAMED,
                format!(
                    "node {i} of {what} has an empty name: its bone is named {}",
                    quoted(&fallback)
                ),
            );
            fallback
        } else {
            raw.clone()
        };
        names.insert(i, name);
    }
    let mut by_node = vec![None; forest.names.len()];
    // Names already distinct as Sinew matches them (the usual case): nothing to rename.
    let mut keys: Vec<String> = names.values().map(|n| normalized(n)).collect();
    keys.sort_unstable();
    if keys.windows(2).all(|w| w[0] != w[1]) {
        for (i, n) in names {
            by_node[i] = Some(n);
        }
        return by_node;
    }
    // Each pass appends a distinct index, so a collision needs a longer literal name in the
    // file; the number of passes is bounded by the names' length (and by the node count).
    for _ in 0..=nodes.len() {
        let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (&i, name) in &names {
            groups.entry(normalized(name)).or_default().push(i);
        }
        let dups: Vec<Vec<usize>> = groups.into_values().filter(|g| g.len() > 1).collect();
        if dups.is_empty() {
            break;
        }
        for g in dups {
            let before: Vec<String> = g.iter().map(|i| names[i].clone()).collect();
            let mut after = Vec::new();
            for &i in &g {
                if let Some(n) = names.get_mut(&i) {
                    n.push_str(&format!("~{i}"));
                    after.push(quoted(n));
                }
            }
            let nodes_list: Vec<String> = g.iter().map(|i| i.to_string()).collect();
            report.warning(
                W_RENAMED,
                format!(
                    "nodes {} of {what} share the name {} (names match across `:`, `_` and \
                     case): they are named {}",
                    nodes_list.join(", "),
                    quoted(&before[0]),
                    after.join(", ")
                ),
            );
        }
    }
    for (i, n) in names {
        by_node[i] = Some(n);
    }
    by_node
}

/// [`crate::anim::normalize_bone_name`] (how Sinew matches bone names: `:` as `_`, any case),
/// without decoding characters for ASCII names.
pub fn normalized(name: &str) -> String {
    if !name.is_ascii() {
        return crate::anim::normalize_bone_name(name);
    }
    name.bytes()
        .map(|b| {
            char::from(if b == b':' {
                b'_'
            } else {
                b.to_ascii_lowercase()
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn normalized_is_normalize_bone_name() {
        for n in [
            "Hips",
            "mixamorig:LeftArm",
            "b_Spine01_02",
            "ÉPAULE:Gauche",
            "a:B:c",
            "",
        ] {
            assert_eq!(
                super::normalized(n),
                crate::anim::normalize_bone_name(n),
                "{n}"
            );
        }
    }
}
