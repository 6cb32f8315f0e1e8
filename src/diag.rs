//! Diagnostics as data: code, severity, message, primary location, labels and notes.
//!
//! Every stage reports [`Diagnostic`] values; rendering (human via codespan-reporting, JSON,
//! SARIF) happens once, at the edge, in [`render`]. Positions are resolved eagerly against a
//! [`SourceFile`] so a diagnostic stays meaningful after its source text is dropped.

pub mod codes;
pub mod render;
pub mod sarif;

pub use codes::files::E_NOT_UTF8;

use serde::Serialize;
use std::fmt;

/// How bad a diagnostic is. Only `Error` changes a command's exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        })
    }
}

/// A half-open byte range `[start, end)` into one source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        let start = u32::try_from(start).unwrap_or(u32::MAX);
        let end = u32::try_from(end).unwrap_or(u32::MAX).max(start);
        Span { start, end }
    }
    pub fn point(at: usize) -> Span {
        Span::new(at, at)
    }
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
    pub fn join(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// A resolved 1-based position (columns count Unicode scalar values).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    pub line: u32,
    pub column: u32,
}

/// One source text with a line index, so byte offsets resolve to line and column.
#[derive(Clone, Debug)]
pub struct SourceFile {
    name: String,
    text: std::sync::Arc<str>,
    line_starts: Vec<u32>,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<std::sync::Arc<str>>) -> SourceFile {
        let text: std::sync::Arc<str> = text.into();
        let mut line_starts = vec![0u32];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(u32::try_from(i + 1).unwrap_or(u32::MAX));
            }
        }
        SourceFile {
            name: name.into(),
            text,
            line_starts,
        }
    }
    pub fn name(&self) -> &str {
        &self.name
    }
    pub fn text(&self) -> &str {
        &self.text
    }
    pub fn shared_text(&self) -> std::sync::Arc<str> {
        self.text.clone()
    }
    /// The 1-based line and column of a byte offset (clamped to the text, snapped to a char
    /// boundary).
    pub fn position(&self, offset: u32) -> Position {
        let mut offset = (offset as usize).min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = match self.line_starts.binary_search(&(offset as u32)) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line] as usize;
        let column = self.text[start..offset].chars().count() + 1;
        Position {
            line: line as u32 + 1,
            column: u32::try_from(column).unwrap_or(u32::MAX),
        }
    }
    /// The byte offset of a 1-based line and column (clamped).
    pub fn offset(&self, pos: Position) -> usize {
        let line = (pos.line.max(1) as usize - 1).min(self.line_starts.len() - 1);
        let start = self.line_starts[line] as usize;
        let end = self
            .line_starts
            .get(line + 1)
            .map_or(self.text.len(), |&e| e as usize);
        let mut off = start;
        for (n, (i, _)) in self.text[start..end].char_indices().enumerate() {
            off = start + i;
            if n + 1 >= pos.column as usize {
                return off;
            }
        }
        if pos.column as usize > 1 { end } else { off }
    }
}

/// A secondary location with its own message ("first declared here").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub file: String,
    pub span: Span,
    pub start: Position,
    pub end: Position,
    pub message: String,
}

/// One diagnostic. `file`/`span`/`start`/`end` locate the primary label; `labels` are secondary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
    pub file: String,
    pub span: Span,
    pub start: Position,
    pub end: Position,
    pub labels: Vec<Label>,
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn new(severity: Severity, code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity,
            code,
            message: message.into(),
            file: String::new(),
            span: Span::default(),
            start: Position { line: 1, column: 1 },
            end: Position { line: 1, column: 1 },
            labels: Vec::new(),
            notes: Vec::new(),
        }
    }
    pub fn error(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Error, code, message)
    }
    pub fn warning(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Warning, code, message)
    }
    /// Places the primary location at `span` of `source`.
    pub fn at(mut self, source: &SourceFile, span: Span) -> Diagnostic {
        self.file = source.name().to_string();
        self.span = span;
        self.start = source.position(span.start);
        self.end = source.position(span.end);
        self
    }
    /// Names a file without a position (line 1, column 1): I/O failures, whole-file problems.
    pub fn in_file(mut self, file: impl Into<String>) -> Diagnostic {
        self.file = file.into();
        self
    }
    pub fn with_label(
        mut self,
        source: &SourceFile,
        span: Span,
        message: impl Into<String>,
    ) -> Diagnostic {
        self.labels.push(Label {
            file: source.name().to_string(),
            span,
            start: source.position(span.start),
            end: source.position(span.end),
            message: message.into(),
        });
        self
    }
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
    /// The canonical order: file, then position, then code and message (total, deterministic).
    pub fn sort_key(&self) -> (&str, Position, &str, &str) {
        (&self.file, self.start, self.code, &self.message)
    }
}

/// Sorts diagnostics into the canonical output order (file, then position).
pub fn sort(diags: &mut [Diagnostic]) {
    diags.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
}

/// Counts of errors and warnings in a set of diagnostics.
pub fn counts(diags: &[Diagnostic]) -> (usize, usize) {
    let errors = diags
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    let warnings = diags
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .count();
    (errors, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based_and_count_chars() {
        let f = SourceFile::new("a", "ab\nçd\n");
        assert_eq!(f.position(0), Position { line: 1, column: 1 });
        assert_eq!(f.position(3), Position { line: 2, column: 1 });
        // 'ç' is two bytes; 'd' is the second char of line 2.
        assert_eq!(f.position(5), Position { line: 2, column: 2 });
        // inside a multi-byte char snaps back to its start
        assert_eq!(f.position(4), Position { line: 2, column: 1 });
        assert_eq!(f.position(999), Position { line: 3, column: 1 });
        assert_eq!(f.offset(Position { line: 2, column: 2 }), 5);
    }

    #[test]
    fn sort_orders_by_file_then_position() {
        let f = SourceFile::new("b", "x\ny\n");
        let g = SourceFile::new("a", "x\n");
        let mut v = vec![
            Diagnostic::error("E1", "late").at(&f, Span::point(2)),
            Diagnostic::error("E1", "early").at(&f, Span::point(0)),
            Diagnostic::error("E1", "other file").at(&g, Span::point(0)),
        ];
        sort(&mut v);
        let msgs: Vec<_> = v.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(msgs, ["other file", "early", "late"]);
    }
}
