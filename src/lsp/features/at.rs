//! What stands at a byte offset of a graph, found in the syntax tree the parser produced (after
//! syntax errors, of what parsed): the name, kind, event, pin or argument under the cursor,
//! and every occurrence of a node id or a variable name.

use crate::diag::Span;
use crate::graph::ast::{Arg, EventDecl, EventRef, File, Ident, Item, Link, Node, Subject, Var};
use crate::nodes::SubjectRule;

/// One thing under the cursor.
pub enum Target<'a> {
    /// A node's own id (`node NAME = …`).
    NodeName(&'a Node),
    /// A node id in a link.
    NodeRef(&'a Ident),
    /// A pin in a link: the node id, the pin, and whether it is the link's output side.
    Pin {
        node: &'a Ident,
        pin: &'a Ident,
        output: bool,
    },
    /// A node's kind path.
    Kind(&'a Node),
    /// An event reference after `event` (or `event.send`).
    Event(&'a Node, &'a EventRef),
    /// A variable's own name (`var NAME: …`).
    VarName(&'a Var),
    /// A variable named as the subject of `var.get`/`var.set`.
    VarRef(&'a Ident),
    /// An argument name in a node's braces.
    Arg(&'a Node, &'a Arg),
    /// A custom event's own name in its declaration.
    EventDecl(&'a EventDecl),
}

fn on(span: Span, at: usize) -> bool {
    span.start as usize <= at && at <= span.end as usize
}

/// Whether `n`'s subject names a variable (its kind takes one).
pub fn var_subject(n: &Node) -> Option<&Ident> {
    let kind = crate::nodes::lookup(&n.kind.text())?;
    match (&n.subject, kind.subject) {
        (Some(Subject::Ident(i)), SubjectRule::Variable) => Some(i),
        _ => None,
    }
}

/// The thing at `at`, if any.
pub fn at(file: &File, at: usize) -> Option<Target<'_>> {
    for item in &file.items {
        if !on(item.span(), at) {
            continue;
        }
        match item {
            Item::Var(v) if on(v.name.span, at) => return Some(Target::VarName(v)),
            Item::Var(_) => {}
            Item::Event(e) if on(e.name.span, at) => return Some(Target::EventDecl(e)),
            Item::Event(_) | Item::Box(_) => {}
            Item::Node(n) => {
                if on(n.name.span, at) {
                    return Some(Target::NodeName(n));
                }
                if on(n.kind.span, at) {
                    return Some(Target::Kind(n));
                }
                match &n.subject {
                    Some(Subject::Event(e)) if on(e.span(), at) => {
                        return Some(Target::Event(n, e));
                    }
                    Some(Subject::Ident(i)) if on(i.span, at) => {
                        return var_subject(n).map(Target::VarRef);
                    }
                    _ => {}
                }
                if let Some(a) = n.args.iter().find(|a| on(a.name.span, at)) {
                    return Some(Target::Arg(n, a));
                }
            }
            Item::Link(l) => return link_at(l, at),
        }
    }
    None
}

fn link_at(l: &Link, at: usize) -> Option<Target<'_>> {
    for (node, pin, output) in [
        (&l.from_node, &l.from_pin, true),
        (&l.to_node, &l.to_pin, false),
    ] {
        if on(node.span, at) {
            return Some(Target::NodeRef(node));
        }
        if on(pin.span, at) {
            return Some(Target::Pin { node, pin, output });
        }
    }
    None
}

/// The node item named `name`.
pub fn node<'a>(file: &'a File, name: &str) -> Option<&'a Node> {
    file.items.iter().find_map(|i| match i {
        Item::Node(n) if n.name.name == name => Some(n),
        _ => None,
    })
}

/// The `var` item named `name`.
pub fn var<'a>(file: &'a File, name: &str) -> Option<&'a Var> {
    file.items.iter().find_map(|i| match i {
        Item::Var(v) if v.name.name == name => Some(v),
        _ => None,
    })
}

/// A name's kind of occurrence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Node,
    Var,
}

/// The namespace and name a target names, when it is a node id or a variable.
pub fn named(t: &Target<'_>) -> Option<(Space, String)> {
    match t {
        Target::NodeName(n) => Some((Space::Node, n.name.name.clone())),
        Target::NodeRef(i) | Target::Pin { node: i, .. } => Some((Space::Node, i.name.clone())),
        Target::VarName(v) => Some((Space::Var, v.name.name.clone())),
        Target::VarRef(i) => Some((Space::Var, i.name.clone())),
        _ => None,
    }
}

/// Every span where `name` occurs in namespace `space`: its declaration first, then its uses
/// in source order. Only identifiers of the tree: never a comment or a string.
pub fn occurrences(file: &File, space: Space, name: &str) -> Vec<Span> {
    let mut decl = Vec::new();
    let mut uses = Vec::new();
    for item in &file.items {
        match (item, space) {
            (Item::Node(n), Space::Node) if n.name.name == name => decl.push(n.name.span),
            (Item::Var(v), Space::Var) if v.name.name == name => decl.push(v.name.span),
            (Item::Node(n), Space::Var) => {
                if let Some(i) = var_subject(n).filter(|i| i.name == name) {
                    uses.push(i.span);
                }
            }
            (Item::Link(l), Space::Node) => {
                for i in [&l.from_node, &l.to_node] {
                    if i.name == name {
                        uses.push(i.span);
                    }
                }
            }
            _ => {}
        }
    }
    decl.extend(uses);
    decl
}

/// Whether `name` is an identifier (`[A-Za-z_][A-Za-z0-9_]*`).
pub fn is_ident(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
