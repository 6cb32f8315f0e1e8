//! The canonical `.bpg` formatter: a [`File`] tree back to text, idempotently.
//!
//! Layout: leading comments and the `graph NAME` line, a blank line, the vars, a blank line, the
//! nodes, a blank line, the links, then any comments that followed the last item (empty sections
//! and their blank lines are left out). Items keep their authored order within their section,
//! one per line, with single spaces and no column alignment (alignment would make one edit
//! touch neighbouring lines and turn independent additions into merge conflicts). Every comment
//! stays with its item: own-line comments above it, an end-of-line comment after it (one space);
//! an item written over several lines prints on one line, with the comments from inside it above.
//! Numbers print in Rust's shortest round-trip form (floats always keep a `.` or an exponent,
//! so they re-lex as floats); strings escape only `\`, `"` and newline.

use super::ast::*;
use super::lexer::escape;
use super::parser::parse;
use crate::diag::{Diagnostic, SourceFile};
use std::fmt::Write;

/// Formats a parsed file canonically. Meant for files that parsed without diagnostics.
pub fn format(file: &File) -> String {
    let mut out = String::new();
    for c in &file.header_comments.leading {
        out.push_str(&c.text);
        out.push('\n');
    }
    out.push_str("graph ");
    out.push_str(&file.name.name);
    trailing(&mut out, &file.header_comments);

    let mut sections: [String; 3] = Default::default();
    for item in &file.items {
        let comments = item.comments();
        let section = match item {
            Item::Var(_) => 0,
            Item::Node(_) => 1,
            Item::Link(_) => 2,
        };
        let s = &mut sections[section];
        for c in &comments.leading {
            s.push_str(&c.text);
            s.push('\n');
        }
        match item {
            Item::Var(v) => var(s, v),
            Item::Node(n) => node(s, n),
            Item::Link(l) => link(s, l),
        }
        trailing(s, comments);
    }
    for s in sections.iter().filter(|s| !s.is_empty()) {
        out.push('\n');
        out.push_str(s);
    }
    if !file.trailing_comments.is_empty() {
        out.push('\n');
        for c in &file.trailing_comments {
            out.push_str(&c.text);
            out.push('\n');
        }
    }
    out
}

/// Parses and formats a source; refuses (returns the diagnostics) when it has syntax errors.
pub fn format_source(src: &SourceFile) -> Result<String, Vec<Diagnostic>> {
    let (file, diags) = parse(src);
    if diags.is_empty() {
        Ok(format(&file))
    } else {
        Err(diags)
    }
}

/// Checks the formatter's contract on one input (used by the fuzz target and tests): when `text`
/// parses cleanly, its formatting parses cleanly to the same tree (modulo spans and the
/// grouping of items into sections) and formatting that again changes nothing.
pub fn check_round_trip(text: &str) -> Result<(), String> {
    let (file, diags) = parse(&SourceFile::new("input.bpg", text));
    if !diags.is_empty() {
        return Ok(());
    }
    let once = format(&file);
    let (again, diags) = parse(&SourceFile::new("formatted.bpg", once.as_str()));
    if let Some(d) = diags.first() {
        return Err(format!(
            "formatted output does not parse: {} {} at {}:{}\n{once}",
            d.code, d.message, d.start.line, d.start.column
        ));
    }
    if sectioned(&file.without_spans()) != again.without_spans() {
        return Err(format!(
            "formatted output parses to a different tree:\n{once}"
        ));
    }
    let twice = format(&again);
    if twice != once {
        return Err(format!(
            "formatting is not idempotent:\n{once}\n---\n{twice}"
        ));
    }
    Ok(())
}

/// The file with its items stably grouped as the formatter prints them: vars, nodes, links.
pub fn sectioned(file: &File) -> File {
    let mut f = file.clone();
    f.items.sort_by_key(|i| match i {
        Item::Var(_) => 0,
        Item::Node(_) => 1,
        Item::Link(_) => 2,
    });
    f
}

fn trailing(out: &mut String, comments: &Comments) {
    if let Some(c) = &comments.trailing {
        out.push(' ');
        out.push_str(&c.text);
    }
    out.push('\n');
}

fn var(out: &mut String, v: &Var) {
    let _ = write!(out, "var {}: {} = ", v.name.name, v.ty);
    literal(out, &v.value.value);
}

fn node(out: &mut String, n: &Node) {
    let _ = write!(out, "node {} = {}", n.name.name, n.kind.text());
    match &n.subject {
        None => {}
        Some(Subject::Ident(i)) => {
            out.push(' ');
            out.push_str(&i.name);
        }
        Some(Subject::Event(e)) => {
            out.push(' ');
            out.push_str(&e.identity());
        }
        Some(Subject::String(s)) => {
            out.push(' ');
            string(out, &s.value);
        }
    }
    if !n.args.is_empty() {
        out.push_str(" {");
        for (i, a) in n.args.iter().enumerate() {
            out.push_str(if i == 0 { " " } else { ", " });
            let _ = write!(out, "{} = ", a.name.name);
            literal(out, &a.value.value);
        }
        out.push_str(" }");
    }
    if let Some(at) = &n.at {
        let _ = write!(out, " at ({}, {})", at.x, at.y);
    }
}

fn link(out: &mut String, l: &Link) {
    let _ = write!(
        out,
        "{}.{} -> {}.{}",
        l.from_node.name, l.from_pin.name, l.to_node.name, l.to_pin.name
    );
}

fn string(out: &mut String, s: &str) {
    out.push('"');
    out.push_str(&escape(s));
    out.push('"');
}

/// Prints a float so it re-lexes as a float with the same value (`1.0`, `0.1`, `1e16`, `-0.0`).
pub fn float_text(f: f64) -> String {
    format!("{f:?}")
}

fn number(out: &mut String, n: Number) {
    match n {
        Number::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Number::Float(f) => out.push_str(&float_text(f)),
    }
}

fn literal(out: &mut String, v: &LitValue) {
    match v {
        LitValue::Int(i) => number(out, Number::Int(*i)),
        LitValue::Float(f) => number(out, Number::Float(*f)),
        LitValue::String(s) => string(out, s),
        LitValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        LitValue::Vec3(c) => {
            out.push('(');
            number(out, c[0].0);
            out.push_str(", ");
            number(out, c[1].0);
            out.push_str(", ");
            number(out, c[2].0);
            out.push(')');
        }
    }
}
