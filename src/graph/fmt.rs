//! The canonical `.bpg` formatter: a [`File`] tree back to text, idempotently.
//!
//! Layout: leading comments and the `graph NAME` line, a blank line, the vars, a blank line, the
//! comment boxes, a blank line, the nodes, a blank line, the links, then any comments that followed the last item (empty sections
//! and their blank lines are left out). Items keep their authored order within their section,
//! one per line, with single spaces and no column alignment (alignment would make one edit
//! touch neighbouring lines and turn independent additions into merge conflicts). Every comment
//! stays with its item: own-line comments above it, an end-of-line comment after it (one space);
//! an item written over several lines prints on one line, with the comments from inside it above.
//! Numbers print in Rust's shortest round-trip form (floats always keep a `.` or an exponent,
//! so they re-lex as floats); strings escape only `\`, `"` and newline.

use super::ast::*;
use super::model::Model;
use super::parser::parse;
use crate::diag::{Diagnostic, SourceFile};

pub use super::model::float_text;

/// Formats a parsed file canonically: the file's [`Model`] written by [`Model::to_text`] (the
/// one writer of `.bpg` text). Meant for files that parsed without diagnostics.
pub fn format(file: &File) -> String {
    Model::from_file(file).to_text()
}

/// Parses and formats a source; refuses (returns the diagnostics) when it has syntax errors.
pub fn format_source(src: &SourceFile) -> Result<String, Vec<Diagnostic>> {
    let (file, diags) = parse(src);
    if diags.is_empty() {
        let mut text = format(&file);
        if src.text().starts_with(super::lexer::BOM) {
            text.insert(0, super::lexer::BOM);
        }
        Ok(text)
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

/// The file with its items stably grouped as the formatter prints them: event declarations,
/// vars, comment boxes, nodes, links.
pub fn sectioned(file: &File) -> File {
    let mut f = file.clone();
    f.items.sort_by_key(|i| match i {
        Item::Event(_) => 0,
        Item::Var(_) => 1,
        Item::Box(_) => 2,
        Item::Node(_) => 3,
        Item::Link(_) => 4,
    });
    f
}
