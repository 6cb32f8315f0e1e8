//! Reroute nodes (`node r = reroute at (x, y)`): what joining their wires gives.
//!
//! A reroute is a pass-through pin pair, `in` → `out`, typed by the wire into it. It compiles to
//! nothing: the compiler (`compile::reroute`) and `sinew diff` both read a graph with its
//! reroutes joined — every wire out of a chain of reroutes becomes one wire from each pin that
//! feeds the chain. This module is that one rule, on link ends only (no spans, no types), so the
//! compiler and the diff cannot disagree about it.
//!
//! Bounded and iterative: chains of any length never recurse, loops of reroutes are reported,
//! and the number of joined wires is capped ([`MAX_JOINED`]).

use std::collections::HashMap;
use std::rc::Rc;

/// The kind of a reroute node.
pub const KIND: &str = "reroute";
/// The reroute's input pin.
pub const IN: &str = "in";
/// The reroute's output pin.
pub const OUT: &str = "out";
/// The most wire ends the joining may produce or hold (joined wires plus the feeding lists
/// kept per reroute); a graph past it is refused with a diagnostic.
pub const MAX_JOINED: usize = 1_000_000;

/// One link as the joining sees it: `from_node.from_pin -> to_node.to_pin`.
#[derive(Clone, Copy, Debug)]
pub struct Ends<'a> {
    pub from_node: &'a str,
    pub from_pin: &'a str,
    pub to_node: &'a str,
    pub to_pin: &'a str,
}

impl<'a> From<&'a super::ast::Link> for Ends<'a> {
    /// A `.bpg` link's ends (the compiler's joining and the studio's reroute types read the
    /// same file).
    fn from(l: &'a super::ast::Link) -> Ends<'a> {
        Ends {
            from_node: &l.from_node.name,
            from_pin: &l.from_pin.name,
            to_node: &l.to_node.name,
            to_pin: &l.to_pin.name,
        }
    }
}

/// One link of the joined graph, in output order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Joined {
    /// A link that touches no reroute, kept as it is (its index).
    Plain(usize),
    /// `source` (a link into a reroute from a real pin) joined with `sink` (a link out of a
    /// reroute into a real pin); `via` is the reroute `sink` leaves (index into the reroutes).
    Through {
        source: usize,
        sink: usize,
        via: usize,
    },
}

/// Something wrong with the reroutes of a graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// A link names a reroute pin other than `in` (as target) or `out` (as source).
    Pin { link: usize },
    /// A reroute with wires out of it but none into it (its type is unknown).
    Unfed { reroute: usize },
    /// A reroute with no wire at all.
    Unconnected { reroute: usize },
    /// Reroutes wired in a loop; `reroute` is one of them, `link` the wire that closes it.
    Loop { reroute: usize, link: usize },
    /// Joining would produce more than [`MAX_JOINED`] wire ends.
    TooMany,
}

/// The joined graph: its links in order and the problems found.
#[derive(Clone, Debug, Default)]
pub struct Joining {
    pub links: Vec<Joined>,
    pub problems: Vec<Problem>,
}

/// Joins the wires through the reroutes named in `reroutes` (node names; the first declaration
/// of a name counts). Links keep their order: a joined wire takes the place of the link that
/// leaves the last reroute of its chain; wires that share it follow the order of the links
/// that feed the chain. Links into a reroute disappear.
pub fn join(reroutes: &[&str], links: &[Ends<'_>]) -> Joining {
    let mut out = Joining::default();
    if reroutes.is_empty() {
        out.links = (0..links.len()).map(Joined::Plain).collect();
        return out;
    }
    let mut index: HashMap<&str, usize> = HashMap::with_capacity(reroutes.len());
    for (i, r) in reroutes.iter().enumerate() {
        index.entry(r).or_insert(i);
    }
    let n = reroutes.len();
    let mut incoming: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut outgoing = vec![0usize; n];
    for (li, l) in links.iter().enumerate() {
        if let Some(&r) = index.get(l.to_node) {
            if l.to_pin != IN {
                out.problems.push(Problem::Pin { link: li });
            }
            incoming[r].push(li);
        }
        if let Some(&r) = index.get(l.from_node) {
            if l.from_pin != OUT {
                out.problems.push(Problem::Pin { link: li });
            }
            outgoing[r] += 1;
        }
    }
    // What feeds each reroute: the links from real pins that reach it, sorted, computed
    // iteratively in dependency order (a loop is cut where it closes and reported).
    let mut budget = MAX_JOINED;
    let mut state = vec![0u8; n]; // 0 new, 1 on the stack, 2 done
    let none: Rc<Vec<usize>> = Rc::new(Vec::new());
    let mut feeds: Vec<Rc<Vec<usize>>> = (0..n).map(|_| Rc::clone(&none)).collect();
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for start in 0..n {
        if state[start] != 0 {
            continue;
        }
        stack.push((start, 0));
        state[start] = 1;
        while let Some(top) = stack.last_mut() {
            let r = top.0;
            if let Some(&li) = incoming[r].get(top.1) {
                top.1 += 1;
                if let Some(&q) = index.get(links[li].from_node) {
                    match state[q] {
                        0 => {
                            state[q] = 1;
                            stack.push((q, 0));
                        }
                        1 => out.problems.push(Problem::Loop {
                            reroute: q,
                            link: li,
                        }),
                        _ => {}
                    }
                }
                continue;
            }
            stack.pop();
            state[r] = 2;
            let from_reroute = |li: usize| index.get(links[li].from_node).copied();
            feeds[r] = match incoming[r][..] {
                [li] => match from_reroute(li) {
                    Some(q) => Rc::clone(&feeds[q]),
                    None => Rc::new(vec![li]),
                },
                _ => {
                    let mut all = Vec::new();
                    for &li in &incoming[r] {
                        match from_reroute(li) {
                            // A reroute still on the stack closes a loop: it feeds nothing here.
                            Some(q) if state[q] == 2 => all.extend_from_slice(&feeds[q]),
                            Some(_) => {}
                            None => all.push(li),
                        }
                    }
                    all.sort_unstable();
                    all.dedup();
                    if all.len() > budget {
                        out.problems.push(Problem::TooMany);
                        out.links.clear();
                        return out;
                    }
                    budget -= all.len();
                    Rc::new(all)
                }
            };
        }
    }
    for r in 0..n {
        if incoming[r].is_empty() {
            out.problems.push(if outgoing[r] == 0 {
                Problem::Unconnected { reroute: r }
            } else {
                Problem::Unfed { reroute: r }
            });
        }
    }
    for (li, l) in links.iter().enumerate() {
        if index.contains_key(l.to_node) {
            continue;
        }
        match index.get(l.from_node) {
            None => out.links.push(Joined::Plain(li)),
            Some(&r) => {
                if feeds[r].len() > budget {
                    out.problems.push(Problem::TooMany);
                    out.links.clear();
                    return out;
                }
                budget -= feeds[r].len();
                out.links.extend(feeds[r].iter().map(|&s| Joined::Through {
                    source: s,
                    sink: li,
                    via: r,
                }));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e<'a>(from: &'a str, to: &'a str) -> Ends<'a> {
        let (a, b) = from.split_once('.').unwrap();
        let (c, d) = to.split_once('.').unwrap();
        Ends {
            from_node: a,
            from_pin: b,
            to_node: c,
            to_pin: d,
        }
    }

    #[test]
    fn chains_fan_in_and_out_join_in_order() {
        let links = [
            e("a.then", "r1.in"),
            e("x.then", "r1.in"),
            e("r1.out", "r2.in"),
            e("r2.out", "b.exec"),
            e("b.then", "c.exec"),
        ];
        let j = join(&["r1", "r2"], &links);
        assert!(j.problems.is_empty(), "{:?}", j.problems);
        assert_eq!(
            j.links,
            vec![
                Joined::Through {
                    source: 0,
                    sink: 3,
                    via: 1
                },
                Joined::Through {
                    source: 1,
                    sink: 3,
                    via: 1
                },
                Joined::Plain(4),
            ]
        );
    }

    #[test]
    fn loops_unfed_and_unconnected_are_problems() {
        let links = [
            e("r1.out", "r2.in"),
            e("r2.out", "r1.in"),
            e("r2.out", "b.a"),
            e("r3.out", "b.c"),
        ];
        let j = join(&["r1", "r2", "r3", "r4"], &links);
        assert!(j.problems.iter().any(|p| matches!(p, Problem::Loop { .. })));
        assert!(j.problems.contains(&Problem::Unfed { reroute: 2 }));
        assert!(j.problems.contains(&Problem::Unconnected { reroute: 3 }));
    }

    #[test]
    fn a_long_chain_does_not_recurse() {
        let names: Vec<String> = (0..200_000).map(|i| format!("r{i}")).collect();
        let texts: Vec<(String, String)> = (1..names.len())
            .map(|i| (format!("{}.out", names[i - 1]), format!("{}.in", names[i])))
            .collect();
        let mut links: Vec<Ends> = vec![e("a.out", "r0.in")];
        links.extend(texts.iter().map(|(f, t)| e(f, t)));
        let last = format!("{}.out", names.last().unwrap());
        links.push(e(&last, "b.a"));
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let j = join(&refs, &links);
        assert!(j.problems.is_empty());
        assert_eq!(j.links.len(), 1);
    }
}
