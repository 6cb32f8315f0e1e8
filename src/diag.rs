//! Diagnostics as data: code, severity, message, primary location, labels and notes.
//!
//! Every stage reports [`Diagnostic`] values; rendering (human via codespan-reporting, JSON,
//! SARIF) happens once, at the edge, in [`render`]. Positions are resolved eagerly against a
//! [`SourceFile`], and each location keeps an [`Excerpt`] of the text it stands on, so a
//! diagnostic renders its snippet after its source text is dropped: no file is read twice, and
//! the snippet is the text that was checked even when the file has changed since.

pub mod codes;
pub mod line;
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

/// One source text with a line index, so byte offsets resolve to line and column in time
/// independent of the line's length.
#[derive(Clone, Debug)]
pub struct SourceFile {
    name: String,
    text: std::sync::Arc<str>,
    line_starts: Vec<u32>,
    /// Chars before byte `i * CHAR_MARK` for every `i` in `0..=len / CHAR_MARK` — the end of
    /// the text included, also when it starts a block of its own (empty for ASCII text: chars
    /// are bytes).
    char_marks: Vec<u32>,
}

/// Bytes per block of the char-count index of a non-ASCII [`SourceFile`].
const CHAR_MARK: usize = 1024;

/// Chars in `bytes` (which may start or end inside a char: only lead bytes count).
fn count_chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count()
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<std::sync::Arc<str>>) -> SourceFile {
        let text: std::sync::Arc<str> = text.into();
        let mut line_starts = vec![0u32];
        line_starts.extend(
            memchr::memchr_iter(b'\n', text.as_bytes())
                .map(|i| u32::try_from(i + 1).unwrap_or(u32::MAX)),
        );
        let mut char_marks = Vec::new();
        if !text.is_ascii() {
            let mut before = 0usize;
            for block in text.as_bytes().chunks(CHAR_MARK) {
                char_marks.push(u32::try_from(before).unwrap_or(u32::MAX));
                before += count_chars(block);
            }
            // The end is a block start of its own when the length is a multiple of the block.
            if text.len().is_multiple_of(CHAR_MARK) {
                char_marks.push(u32::try_from(before).unwrap_or(u32::MAX));
            }
        }
        SourceFile {
            name: name.into(),
            text,
            line_starts,
            char_marks,
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
    /// Chars before byte `offset` (a char boundary).
    fn chars_before(&self, offset: usize) -> usize {
        if self.char_marks.is_empty() {
            return offset;
        }
        let block = offset / CHAR_MARK;
        // Every offset up to the end has its block's mark (see `char_marks`).
        let base = self.char_marks[block] as usize;
        base + count_chars(&self.text.as_bytes()[block * CHAR_MARK..offset])
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
        let column = self.chars_before(offset) - self.chars_before(start) + 1;
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

/// The text one location stands on, kept with the diagnostic: the location's line when it has
/// at most [`EXCERPT_WIDTH`] chars, else a window of that many chars of it around the location
/// (at least [`EXCERPT_BEFORE`] of them before its start when the line has them), so a snippet
/// never reprints a long line whole.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Excerpt {
    /// Part of the location's line, without its line break.
    pub text: Box<str>,
    /// Byte offset of `text` in its source.
    pub at: u32,
    /// The line goes on before `text`.
    pub cut_before: bool,
    /// The line goes on after `text`.
    pub cut_after: bool,
}

/// Most chars of a line an [`Excerpt`] keeps.
pub const EXCERPT_WIDTH: usize = 160;
/// Chars of context an [`Excerpt`] of a cut line keeps before the location (when there are).
pub const EXCERPT_BEFORE: usize = 40;

impl Excerpt {
    /// The excerpt of `text` around `span` (clamped to the text, snapped to char boundaries).
    /// Costs time proportional to [`EXCERPT_WIDTH`], not to the line or the text.
    pub fn capture(text: &str, span: Span) -> Excerpt {
        let mut start = (span.start as usize).min(text.len());
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        // Char starts going back and char ends going forward, each up to the width.
        let mut back = Vec::with_capacity(EXCERPT_WIDTH);
        let mut a = start;
        for c in text[..start].chars().rev() {
            if c == '\n' || back.len() == EXCERPT_WIDTH {
                break;
            }
            a -= c.len_utf8();
            back.push(a);
        }
        let mut fwd = Vec::with_capacity(EXCERPT_WIDTH);
        let mut b = start;
        for c in text[start..].chars() {
            let crlf = c == '\r' && text[b + 1..].starts_with('\n');
            if c == '\n' || crlf || fwd.len() == EXCERPT_WIDTH {
                break;
            }
            b += c.len_utf8();
            fwd.push(b);
        }
        let (nb, nf) = (back.len(), fwd.len());
        let keep_b = if nb + nf <= EXCERPT_WIDTH {
            nb
        } else {
            nb.min(EXCERPT_BEFORE.max(EXCERPT_WIDTH.saturating_sub(nf)))
        };
        let keep_f = (EXCERPT_WIDTH - keep_b).min(nf);
        let a = if keep_b == 0 { start } else { back[keep_b - 1] };
        let b = if keep_f == 0 { start } else { fwd[keep_f - 1] };
        let rest = &text[b..];
        Excerpt {
            text: text[a..b].into(),
            at: u32::try_from(a).unwrap_or(u32::MAX),
            cut_before: a > 0 && !text[..a].ends_with('\n'),
            cut_after: !(rest.is_empty() || rest.starts_with('\n') || rest.starts_with("\r\n")),
        }
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
    /// The text the label stands on (`None`: the source was not at hand).
    pub excerpt: Option<Excerpt>,
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
    /// The text the primary location stands on (`None` for whole-file diagnostics).
    pub excerpt: Option<Excerpt>,
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
            excerpt: None,
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
        self.excerpt = Some(Excerpt::capture(source.text(), span));
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
            excerpt: Some(Excerpt::capture(source.text(), span)),
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

    #[test]
    fn excerpts_clip_long_lines_around_the_location() {
        let short = "graph a\nnode x = int.ad\n";
        let e = Excerpt::capture(short, Span::new(17, 23));
        assert_eq!(
            (&*e.text, e.at, e.cut_before, e.cut_after),
            ("node x = int.ad", 8, false, false)
        );
        let line = format!("{}NEEDLE{}\r\nnext", "a".repeat(1000), "b".repeat(1000));
        let e = Excerpt::capture(&line, Span::new(1000, 1006));
        let after = EXCERPT_WIDTH - EXCERPT_BEFORE - 6;
        assert_eq!(
            &*e.text,
            format!("{}NEEDLE{}", "a".repeat(EXCERPT_BEFORE), "b".repeat(after))
        );
        assert!(e.cut_before && e.cut_after);
        // Near the end of a long line, the window takes more before the location.
        let e = Excerpt::capture(&line, Span::new(2000, 2006));
        assert_eq!(e.text.chars().count(), EXCERPT_WIDTH);
        assert!(e.text.ends_with('b') && e.cut_before && !e.cut_after);
        // A line that fits is kept whole.
        let e = Excerpt::capture("x\n  short line here\nz", Span::new(4, 5));
        assert_eq!(
            (&*e.text, e.cut_before, e.cut_after),
            ("  short line here", false, false)
        );
        // A span over many lines keeps only its start line; CRLF is not part of the line.
        let e = Excerpt::capture("ab\r\ncd\r\n", Span::new(1, 9));
        assert_eq!((&*e.text, e.cut_after), ("ab", false));
        // Past the end, inside a char: clamped and snapped.
        let e = Excerpt::capture("é", Span::new(1, 99));
        assert_eq!((&*e.text, e.at), ("é", 0));
    }

    #[test]
    fn the_end_of_a_non_ascii_text_a_whole_number_of_blocks_long_has_its_column() {
        // No char mark started at the end: its block's base was taken as 0 (column 2^32 - 1).
        for len in [CHAR_MARK, 2 * CHAR_MARK, 3 * CHAR_MARK] {
            let text = format!("é{}", "a".repeat(len - 2));
            assert_eq!(text.len(), len);
            let f = SourceFile::new("a", text.as_str());
            assert_eq!(
                f.position(len as u32),
                Position {
                    line: 1,
                    column: len as u32
                }
            );
            let text = format!("é\n{}", "ü".repeat((len - 3) / 2));
            let text = format!("{text}{}", "x".repeat(len - text.len()));
            let f = SourceFile::new("b", text.as_str());
            let column = text.lines().nth(1).unwrap().chars().count() as u32 + 1;
            assert_eq!(f.position(len as u32), Position { line: 2, column });
        }
    }

    #[test]
    fn positions_cost_no_more_than_a_block_on_long_non_ascii_lines() {
        let text = format!("é{}x", "ü".repeat(5000));
        let f = SourceFile::new("a", text.as_str());
        let at = text.len() - 1;
        assert_eq!(
            f.position(at as u32),
            Position {
                line: 1,
                column: 5002
            }
        );
        let g = SourceFile::new("b", format!("x\n{}", "é".repeat(3000)));
        assert_eq!(
            g.position(2 + 2 * 2999),
            Position {
                line: 2,
                column: 3000
            }
        );
    }
}
