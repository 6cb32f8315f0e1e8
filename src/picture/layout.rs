//! Node sizes and positions. Nodes keep their `at (x, y)`; nodes without one are placed by a
//! layered left-to-right layout: `rust-sugiyama` (network-simplex ranking, barycenter crossing
//! reduction, Brandes–Köpf coordinates) for each connected group of up to
//! [`SUGIYAMA_MAX`] unplaced nodes, and, above that, a linear layering (longest-path ranks,
//! nodes in file order within a rank) because the crate's cost grows faster than linearly
//! (measured: 1,000 nodes ≈ 0.1 s, 3,000 ≈ 3.5 s, 10,000 ≈ 23 s). Groups are packed in rows
//! below the positioned nodes. Everything is deterministic: integer coordinates, file order.

use super::view::{NodeView, Picture};
use std::collections::{BTreeSet, HashMap};

/// Height of a node's header (title and subtitle).
pub const HEADER_H: i64 = 44;
/// Height of one pin or property row.
pub const ROW_H: i64 = 24;
pub const MIN_W: i64 = 150;
/// Widest node (labels that do not fit end in `…`), so nodes placed 220 apart never overlap.
pub const MAX_W: i64 = 200;
/// Average advance of one character per pixel of font size (generous for sans-serif).
pub const CHAR_W: f64 = 0.6;
/// Largest connected group of unplaced nodes laid out by `rust-sugiyama`.
pub const SUGIYAMA_MAX: usize = 400;
/// Diameter of a reroute's dot (its box in the layout).
pub const REROUTE_D: i64 = 16;
/// Horizontal gap between layers, vertical gap between nodes of a layer.
const GAP_X: i64 = 90;
const GAP_Y: i64 = 36;
/// Positions are drawn clamped to ±this (so arithmetic on them never overflows).
pub const COORD_MAX: i64 = 1_000_000_000;
/// Widest row of packed groups.
const ROW_MAX_W: i64 = 2400;

/// A node's box in picture coordinates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rect {
    pub x: i64,
    pub y: i64,
    pub w: i64,
    pub h: i64,
}

/// Pixel width of `chars` characters at `size` px.
pub fn text_w(chars: usize, size: f64) -> i64 {
    (chars as f64 * size * CHAR_W).ceil() as i64
}

/// The size of a node: its header, one row per pin pair, one row per property.
pub fn size(n: &NodeView) -> (i64, i64) {
    if n.family == super::view::Family::Reroute {
        return (REROUTE_D, REROUTE_D);
    }
    let rows = n.inputs.len().max(n.outputs.len()) + n.props.len();
    let h = HEADER_H + rows as i64 * ROW_H + 10;
    let mut w = text_w(n.title.chars().count(), 14.0) + 40;
    w = w.max(text_w(n.subtitle.chars().count(), 12.0) + 24);
    for i in 0..n.inputs.len().max(n.outputs.len()) {
        let left = n.inputs.get(i).map_or(0, |p| {
            p.name.chars().count() + p.literal.as_ref().map_or(0, |l| l.chars().count() + 1)
        });
        let right = n.outputs.get(i).map_or(0, |p| p.name.chars().count());
        w = w.max(text_w(left + right, 13.0) + 56);
    }
    for (k, v) in &n.props {
        w = w.max(text_w(k.chars().count() + v.chars().count() + 3, 12.0) + 24);
    }
    (w.clamp(MIN_W, MAX_W), h)
}

/// Every node's box, in `p.nodes` order.
pub fn place(p: &Picture) -> Vec<Rect> {
    let mut rects: Vec<Rect> = p
        .nodes
        .iter()
        .map(|n| {
            let (w, h) = size(n);
            let (x, y) = n.at.unwrap_or((0, 0));
            Rect {
                x: x.clamp(-COORD_MAX, COORD_MAX),
                y: y.clamp(-COORD_MAX, COORD_MAX),
                w,
                h,
            }
        })
        .collect();
    let unplaced: Vec<usize> = (0..p.nodes.len())
        .filter(|&i| p.nodes[i].at.is_none())
        .collect();
    if unplaced.is_empty() {
        return rects;
    }
    let placed = p.nodes.iter().zip(&rects).filter(|(n, _)| n.at.is_some());
    let (origin_x, origin_y) = placed
        .fold(None, |acc: Option<(i64, i64)>, (_, r)| {
            let bottom = r.y.saturating_add(r.h);
            Some(acc.map_or((r.x, bottom), |(x, y)| (x.min(r.x), y.max(bottom))))
        })
        .map_or((0, 0), |(x, y)| (x, y.saturating_add(160)));

    let groups = groups(p, &unplaced);
    let (mut cx, mut cy, mut row_h) = (0i64, 0i64, 0i64);
    for group in groups {
        let local = if group.len() == 1 {
            vec![(0, 0)]
        } else if group.len() <= SUGIYAMA_MAX {
            sugiyama(&group.members, &group.edges, &rects)
                .unwrap_or_else(|| layered(&group.members, &group.edges, &rects))
        } else {
            layered(&group.members, &group.edges, &rects)
        };
        let gw = group
            .members
            .iter()
            .zip(&local)
            .map(|(&i, &(x, _))| x + rects[i].w)
            .max()
            .unwrap_or(0);
        let gh = group
            .members
            .iter()
            .zip(&local)
            .map(|(&i, &(_, y))| y + rects[i].h)
            .max()
            .unwrap_or(0);
        if cx > 0 && cx + gw > ROW_MAX_W {
            cx = 0;
            cy += row_h + 2 * GAP_Y;
            row_h = 0;
        }
        for (&i, &(x, y)) in group.members.iter().zip(&local) {
            rects[i].x = origin_x.saturating_add(cx + x);
            rects[i].y = origin_y.saturating_add(cy + y);
        }
        cx += gw + GAP_X;
        row_h = row_h.max(gh);
    }
    rects
}

/// One connected group of unplaced nodes: members in file order, edges as member positions.
struct Group {
    members: Vec<usize>,
    edges: Vec<(usize, usize)>,
}

impl Group {
    fn len(&self) -> usize {
        self.members.len()
    }
}

/// Connected groups of the unplaced nodes (links between two unplaced nodes), in order of
/// their first member.
fn groups(p: &Picture, unplaced: &[usize]) -> Vec<Group> {
    let pos: HashMap<&str, usize> = unplaced
        .iter()
        .rev()
        .map(|&i| (p.nodes[i].id.as_str(), i))
        .collect();
    let mut parent: Vec<usize> = (0..p.nodes.len()).collect();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let mut edges = BTreeSet::new();
    for l in &p.links {
        if let (Some(&a), Some(&b)) = (pos.get(l.from.node.as_str()), pos.get(l.to.node.as_str()))
            && a != b
        {
            edges.insert((a, b));
            let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
            if ra != rb {
                parent[ra.max(rb)] = ra.min(rb);
            }
        }
    }
    let mut by_root: HashMap<usize, usize> = HashMap::new();
    let mut out: Vec<Group> = Vec::new();
    let mut slot = vec![usize::MAX; p.nodes.len()];
    for &i in unplaced {
        let r = find(&mut parent, i);
        let g = *by_root.entry(r).or_insert_with(|| {
            out.push(Group {
                members: Vec::new(),
                edges: Vec::new(),
            });
            out.len() - 1
        });
        slot[i] = out[g].members.len();
        out[g].members.push(i);
    }
    for (a, b) in edges {
        let g = by_root[&find(&mut parent, a)];
        out[g].edges.push((slot[a], slot[b]));
    }
    out
}

/// `rust-sugiyama` on one group; positions relative to the group's top-left corner.
pub(super) fn sugiyama(
    members: &[usize],
    edges: &[(usize, usize)],
    rects: &[Rect],
) -> Option<Vec<(i64, i64)>> {
    use petgraph::stable_graph::StableDiGraph;
    let mut g: StableDiGraph<(f64, f64), ()> = StableDiGraph::new();
    // The crate lays ranks top to bottom; ours run left to right, so width and height swap.
    let ids: Vec<_> = members
        .iter()
        .map(|&i| g.add_node(((rects[i].h + GAP_Y) as f64, (rects[i].w + GAP_X) as f64)))
        .collect();
    for &(a, b) in edges {
        g.add_edge(ids[a], ids[b], ());
    }
    let config = rust_sugiyama::configure::Config {
        vertex_spacing: 0.0,
        transpose: members.len() <= 120,
        ..Default::default()
    };
    let layouts = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rust_sugiyama::from_graph(&g, &|_, v| *v, &config)
    }))
    .ok()?;
    let mut centre = vec![None; members.len()];
    let mut offset = 0.0;
    for (coords, _, _) in &layouts {
        let mut max_x: f64 = 0.0;
        for (id, (across, rank)) in coords {
            let k = id.index();
            if k < centre.len() {
                centre[k] = Some((*rank, *across + offset));
                max_x = max_x.max(*across);
            }
        }
        offset += max_x + 200.0;
    }
    let mut out = Vec::with_capacity(members.len());
    for (k, &i) in members.iter().enumerate() {
        let (cx, cy) = centre[k]?;
        if !cx.is_finite() || !cy.is_finite() {
            return None;
        }
        out.push((
            cx.round() as i64 - rects[i].w / 2,
            cy.round() as i64 - rects[i].h / 2,
        ));
    }
    normalise(&mut out);
    Some(out)
}

/// Linear layering: rank = longest path from a source (cycles broken in file order), ranks as
/// columns, nodes in file order down each column.
pub(super) fn layered(
    members: &[usize],
    edges: &[(usize, usize)],
    rects: &[Rect],
) -> Vec<(i64, i64)> {
    let n = members.len();
    let mut succ = vec![Vec::new(); n];
    let mut indeg = vec![0usize; n];
    for &(a, b) in edges {
        succ[a].push(b);
        indeg[b] += 1;
    }
    let mut rank = vec![0usize; n];
    let mut done = vec![false; n];
    let mut queue: std::collections::VecDeque<usize> = (0..n).filter(|&k| indeg[k] == 0).collect();
    let mut next_unranked = 0;
    loop {
        while let Some(k) = queue.pop_front() {
            if done[k] {
                continue;
            }
            done[k] = true;
            for &s in &succ[k] {
                if !done[s] {
                    rank[s] = rank[s].max(rank[k] + 1);
                    indeg[s] -= 1;
                    if indeg[s] == 0 {
                        queue.push_back(s);
                    }
                }
            }
        }
        // A cycle: take the first node left, in file order.
        while next_unranked < n && done[next_unranked] {
            next_unranked += 1;
        }
        if next_unranked == n {
            break;
        }
        indeg[next_unranked] = 0;
        queue.push_back(next_unranked);
    }
    let ranks = rank.iter().max().map_or(0, |m| m + 1);
    let mut col_w = vec![0i64; ranks];
    for (k, &i) in members.iter().enumerate() {
        col_w[rank[k]] = col_w[rank[k]].max(rects[i].w);
    }
    let mut col_x = vec![0i64; ranks];
    for r in 1..ranks {
        col_x[r] = col_x[r - 1] + col_w[r - 1] + GAP_X;
    }
    let mut col_y = vec![0i64; ranks];
    members
        .iter()
        .enumerate()
        .map(|(k, &i)| {
            let r = rank[k];
            let y = col_y[r];
            col_y[r] += rects[i].h + GAP_Y;
            (col_x[r], y)
        })
        .collect()
}

fn normalise(pts: &mut [(i64, i64)]) {
    let min_x = pts.iter().map(|p| p.0).min().unwrap_or(0);
    let min_y = pts.iter().map(|p| p.1).min().unwrap_or(0);
    for p in pts {
        p.0 -= min_x;
        p.1 -= min_y;
    }
}
