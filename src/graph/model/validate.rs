//! Model validity: a model is valid when the text it writes parses back to exactly itself.
//!
//! That one rule covers every field (identifiers, kinds and subjects, finite numbers, comment
//! lines) with the parser as the only judge, and it is what makes `model → text → model` the
//! identity: a kind such as `int.add at (1, 2)` or a comment with a newline in it would write
//! text that reads back as something else, so it is refused, never injected.

use super::{Link, Model, Node, Var};
use crate::diag::SourceFile;
use crate::graph::parser::parse;

/// Why a model cannot be written as a graph.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ModelError {
    /// Names the part (`nodes[3] (`inc`)`) and what is wrong with it.
    pub message: String,
}

impl Model {
    /// Checks that [`Model::to_text`] reads back as this model (see the module docs); the error
    /// names the first part that does not.
    pub fn validate(&self) -> Result<(), ModelError> {
        if self.x_y_mismatch().is_none() && reads_back(&self.to_text(), self) {
            return Ok(());
        }
        Err(ModelError {
            message: self.explain(),
        })
    }

    fn x_y_mismatch(&self) -> Option<usize> {
        self.nodes
            .iter()
            .position(|n| n.x.is_some() != n.y.is_some())
    }

    /// Finds the first part that does not read back, checking each on its own.
    fn explain(&self) -> String {
        if let Some(i) = self.x_y_mismatch() {
            return format!(
                "nodes[{i}] (`{}`): x and y must both be numbers or both null",
                self.nodes[i].id
            );
        }
        let header = Model {
            graph: self.graph.clone(),
            comment: self.comment.clone(),
            line_comment: self.line_comment.clone(),
            end_comment: self.end_comment.clone(),
            ..Model::default()
        };
        if let Some(why) = why_not(&header) {
            return format!("graph header: {why}");
        }
        let one = |f: &dyn Fn(&mut Model)| {
            let mut m = Model {
                graph: "g".into(),
                ..Model::default()
            };
            f(&mut m);
            why_not(&m)
        };
        for (i, e) in self.events.iter().enumerate() {
            if let Some(why) = one(&|m: &mut Model| m.events.push(e.clone())) {
                return format!("events[{i}] (`custom::{}`): {why}", e.name);
            }
        }
        for (i, v) in self.vars.iter().enumerate() {
            if let Some(why) = one(&|m: &mut Model| m.vars.push(v.clone())) {
                return format!("vars[{i}] (`{}`): {why}", v.name);
            }
        }
        for (i, b) in self.boxes.iter().enumerate() {
            if let Some(why) = one(&|m: &mut Model| m.boxes.push(b.clone())) {
                return format!("boxes[{i}] ({:?}): {why}", b.title);
            }
        }
        for (i, n) in self.nodes.iter().enumerate() {
            if let Some(why) = one(&|m: &mut Model| m.nodes.push(n.clone())) {
                return format!("nodes[{i}] (`{}`): {why}", n.id);
            }
        }
        for (i, l) in self.links.iter().enumerate() {
            if let Some(why) = one(&|m: &mut Model| m.links.push(l.clone())) {
                return format!("links[{i}] (`{} -> {}`): {why}", l.from, l.to);
            }
        }
        "the model does not read back as itself".into()
    }
}

fn reads_back(text: &str, m: &Model) -> bool {
    let (file, diags) = parse(&SourceFile::new("model.bpg", text));
    diags.is_empty() && Model::from_file(&file) == *m
}

/// Why a small model does not read back, or `None` when it does.
fn why_not(m: &Model) -> Option<String> {
    let text = m.to_text();
    let (file, diags) = parse(&SourceFile::new("model.bpg", text.as_str()));
    if let Some(d) = diags.first() {
        return Some(format!("{} ({})", d.message, d.code));
    }
    let back = Model::from_file(&file);
    if back == *m {
        return None;
    }
    Some(difference(m, &back))
}

/// Describes how `back` (what the text reads as) differs from `m`.
fn difference(m: &Model, back: &Model) -> String {
    if back.graph != m.graph {
        return format!("`{}` is not a graph name", m.graph);
    }
    let counts = |x: &Model| {
        (
            x.events.len(),
            x.vars.len(),
            x.boxes.len(),
            x.nodes.len(),
            x.links.len(),
        )
    };
    if counts(back) != counts(m) {
        return "its text reads back as other items (a name, kind or comment holds text that \
                starts a new item)"
            .into();
    }
    if let (Some(a), Some(b)) = (m.nodes.first(), back.nodes.first()) {
        return node_difference(a, b);
    }
    if let (Some(a), Some(b)) = (m.vars.first(), back.vars.first()) {
        return var_difference(a, b);
    }
    if let (Some(a), Some(b)) = (m.events.first(), back.events.first())
        && (a.name != b.name || a.fields != b.fields)
    {
        return format!(
            "`custom::{}` is not an event declaration (names are identifiers)",
            a.name
        );
    }
    if let (Some(a), Some(b)) = (m.links.first(), back.links.first()) {
        return link_difference(a, b);
    }
    if let (Some(a), Some(b)) = (m.boxes.first(), back.boxes.first()) {
        return comment_difference(&a.comment, &b.comment, &a.line_comment, &b.line_comment)
            .unwrap_or_else(|| "does not read back".into());
    }
    comment_difference(
        &m.comment,
        &back.comment,
        &m.line_comment,
        &back.line_comment,
    )
    .unwrap_or_else(|| "comments after the last item are not `//` lines".into())
}

fn comment_difference(
    a: &str,
    b: &str,
    la: &Option<String>,
    lb: &Option<String>,
) -> Option<String> {
    if a != b {
        return Some(format!("comment {a:?} is not one or more `//` lines"));
    }
    if la != lb {
        return Some(format!(
            "line_comment {:?} is not a single `//` comment",
            la.as_deref().unwrap_or("")
        ));
    }
    None
}

fn node_difference(a: &Node, b: &Node) -> String {
    if a.id != b.id {
        format!("`{}` is not a node name", a.id)
    } else if a.kind != b.kind {
        format!(
            "kind `{}` is not a canonical kind and subject (it reads back as `{}`)",
            a.kind, b.kind
        )
    } else if a.props != b.props {
        "props hold a name that is not an identifier or a value that cannot be written".into()
    } else if a.at() != b.at() {
        "x and y do not read back".into()
    } else {
        comment_difference(&a.comment, &b.comment, &a.line_comment, &b.line_comment)
            .unwrap_or_else(|| "does not read back".into())
    }
}

fn var_difference(a: &Var, b: &Var) -> String {
    if a.name != b.name {
        format!("`{}` is not a variable name", a.name)
    } else if a.default != b.default {
        format!("default {:?} cannot be written as a literal", a.default)
    } else {
        comment_difference(&a.comment, &b.comment, &a.line_comment, &b.line_comment)
            .unwrap_or_else(|| "does not read back".into())
    }
}

fn link_difference(a: &Link, b: &Link) -> String {
    if a.from != b.from || a.to != b.to {
        format!("`{} -> {}` is not `node.pin -> node.pin`", a.from, a.to)
    } else {
        comment_difference(&a.comment, &b.comment, &a.line_comment, &b.line_comment)
            .unwrap_or_else(|| "does not read back".into())
    }
}
