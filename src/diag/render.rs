//! Rendering of diagnostics: human (codespan-reporting), JSON (shape in the CLI contract).
//!
//! This is the only place diagnostics become text, and it reads no file: each location carries
//! the [`Excerpt`] of the text it stands on, and a snippet shows exactly that (clipped around the
//! location, never a whole long line). Every rendering — human, JSON and SARIF — lists a bounded
//! report ([`bounded`], `docs/limits.md`): at most [`MAX_PER_FILE`] diagnostics per file (the rest
//! are counted in one [`N_MORE`] note per file) and messages of at most [`MAX_MESSAGE`] chars.
//! Human output escapes control characters in everything it prints ([`crate::escape`]).

use super::{Diagnostic, Excerpt, Position, Severity, Span};
use crate::escape::{escape, needs_escape};
use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::{Error as FilesError, Files};
use codespan_reporting::term;
use serde::Serialize;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;

/// More diagnostics of one file than a report lists (the note that counts the rest).
pub use super::codes::report::N_MORE;

/// Most diagnostics a report lists per file (in the order given, normally canonical order).
pub const MAX_PER_FILE: usize = 200;

/// Most chars of a message, note or label message a report shows.
pub const MAX_MESSAGE: usize = 1000;

/// The JSON form of one diagnostic, exactly as `cli.md` specifies.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct JsonDiagnostic<'a> {
    pub severity: Severity,
    pub code: &'a str,
    pub message: &'a str,
    pub file: &'a str,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub notes: Vec<String>,
}

impl<'a> From<&'a Diagnostic> for JsonDiagnostic<'a> {
    fn from(d: &'a Diagnostic) -> Self {
        let mut notes = Vec::with_capacity(d.labels.len() + d.notes.len());
        for l in &d.labels {
            notes.push(format!(
                "{}:{}:{}: {}",
                l.file, l.start.line, l.start.column, l.message
            ));
        }
        notes.extend(d.notes.iter().cloned());
        JsonDiagnostic {
            severity: d.severity,
            code: d.code,
            message: &d.message,
            file: &d.file,
            line: d.start.line,
            column: d.start.column,
            end_line: d.end.line,
            end_column: d.end.column,
            notes,
        }
    }
}

/// Diagnostics as a JSON array value (the [`bounded`] report).
pub fn to_json(diags: &[Diagnostic]) -> serde_json::Value {
    serde_json::Value::Array(
        bounded(diags)
            .iter()
            .map(|d| serde_json::to_value(JsonDiagnostic::from(d)).unwrap_or_default())
            .collect(),
    )
}

/// `s` cut to [`MAX_MESSAGE`] chars, saying how many more there were.
fn clip(s: &str) -> Cow<'_, str> {
    match s.char_indices().nth(MAX_MESSAGE) {
        None => Cow::Borrowed(s),
        Some((at, _)) => {
            let rest = s[at..].chars().count();
            Cow::Owned(format!("{}… ({rest} more chars)", &s[..at]))
        }
    }
}

fn clip_owned(s: &mut String) {
    if let Cow::Owned(c) = clip(s) {
        *s = c;
    }
}

/// The report every rendering lists: `diags` in the given order with at most [`MAX_PER_FILE`]
/// per file — the rest counted by one [`N_MORE`] note placed after the file's last listed one,
/// at the first unlisted one's position — and messages, notes and label messages clipped to
/// [`MAX_MESSAGE`] chars. A file over the cap lists its errors first, then its warnings, then
/// its notes (each in the given order), so a flood of warnings never hides an error. Error and
/// warning counts (and exit statuses) are the caller's, taken over all of `diags`.
pub fn bounded(diags: &[Diagnostic]) -> Vec<Diagnostic> {
    fn rank(s: Severity) -> usize {
        match s {
            Severity::Error => 0,
            Severity::Warning => 1,
            Severity::Note => 2,
        }
    }
    /// A file over the cap: how many of each severity it lists, those it lists (by
    /// severity), and what it leaves out.
    struct Capped {
        quota: [usize; 3],
        listed: [Vec<Diagnostic>; 3],
        first_omitted: Option<(Position, Position)>,
        omitted: [usize; 3],
    }
    enum Slot<'a> {
        One(Diagnostic),
        File(&'a str),
    }
    let clipped = |d: &Diagnostic| {
        let mut d = d.clone();
        clip_owned(&mut d.message);
        d.notes.iter_mut().for_each(clip_owned);
        d.labels.iter_mut().for_each(|l| clip_owned(&mut l.message));
        d
    };
    let mut counts: BTreeMap<&str, [usize; 3]> = BTreeMap::new();
    for d in diags {
        counts.entry(&d.file).or_default()[rank(d.severity)] += 1;
    }
    let mut capped: BTreeMap<&str, Capped> = counts
        .into_iter()
        .filter(|(_, c)| c.iter().sum::<usize>() > MAX_PER_FILE)
        .map(|(file, c)| {
            let mut left = MAX_PER_FILE;
            let quota = c.map(|n| {
                let q = n.min(left);
                left -= q;
                q
            });
            let cap = Capped {
                quota,
                listed: Default::default(),
                first_omitted: None,
                omitted: [0; 3],
            };
            (file, cap)
        })
        .collect();
    let mut slots: Vec<Slot<'_>> = Vec::with_capacity(diags.len().min(4 * MAX_PER_FILE));
    for d in diags {
        let Some(c) = capped.get_mut(d.file.as_str()) else {
            slots.push(Slot::One(clipped(d)));
            continue;
        };
        if c.listed.iter().all(Vec::is_empty) && c.first_omitted.is_none() {
            slots.push(Slot::File(&d.file));
        }
        let r = rank(d.severity);
        if c.listed[r].len() < c.quota[r] {
            c.listed[r].push(clipped(d));
        } else {
            c.first_omitted.get_or_insert((d.start, d.end));
            c.omitted[r] += 1;
        }
    }
    let mut out = Vec::with_capacity(slots.len() + capped.len() * (MAX_PER_FILE + 1));
    for slot in slots {
        let file = match slot {
            Slot::One(d) => {
                out.push(d);
                continue;
            }
            Slot::File(file) => file,
        };
        let Some(mut c) = capped.remove(file) else {
            continue;
        };
        for listed in &mut c.listed {
            out.append(listed);
        }
        let [errors, warnings, notes] = c.omitted;
        let total = errors + warnings + notes;
        let mut d = Diagnostic::new(
            Severity::Note,
            N_MORE,
            format!(
                "… and {total} more diagnostic{} in this file ({} error{}, {} warning{}) not listed",
                if total == 1 { "" } else { "s" },
                errors,
                if errors == 1 { "" } else { "s" },
                warnings,
                if warnings == 1 { "" } else { "s" },
            ),
        )
        .in_file(file)
        .with_note(format!(
            "a report lists at most {MAX_PER_FILE} diagnostics per file; fix these and run again to see the rest"
        ));
        if let Some(first) = c.first_omitted {
            (d.start, d.end) = first;
        }
        out.push(d);
    }
    out
}

/// Renders diagnostics for people with codespan-reporting. `color` adds ANSI styles.
pub fn human(diags: &[Diagnostic], color: bool) -> String {
    let config = term::Config::default();
    let mut out = String::new();
    for d in bounded(diags) {
        let mut buf = Vec::new();
        let (snippets, cd) = to_codespan(&d);
        let res = if color {
            let mut w = term::termcolor::Ansi::new(&mut buf);
            term::emit_to_write_style(&mut w, &config, &snippets, &cd)
        } else {
            let mut w = term::termcolor::NoColor::new(&mut buf);
            term::emit_to_write_style(&mut w, &config, &snippets, &cd)
        };
        if res.is_err() {
            // Cannot happen with ranges built below; fall back to a plain line regardless.
            buf.clear();
            buf.extend_from_slice(
                format!(
                    "{}[{}]: {}\n  --> {}:{}:{}\n",
                    d.severity,
                    d.code,
                    escape(&d.message),
                    escape(&d.file),
                    d.start.line,
                    d.start.column
                )
                .as_bytes(),
            );
        }
        out.push_str(&String::from_utf8_lossy(&buf));
    }
    out
}

/// One location to show in a snippet.
struct Pending<'d> {
    file: &'d str,
    line: u32,
    column: u32,
    span: Span,
    excerpt: &'d Excerpt,
    primary: bool,
    message: &'d str,
}

fn to_codespan(d: &Diagnostic) -> (Snippets, cs::Diagnostic<usize>) {
    let mut pending = Vec::new();
    let mut notes = Vec::new();
    match &d.excerpt {
        Some(e) if !d.file.is_empty() => pending.push(Pending {
            file: &d.file,
            line: d.start.line,
            column: d.start.column,
            span: d.span,
            excerpt: e,
            primary: true,
            message: "",
        }),
        _ if !d.file.is_empty() => notes.push(format!(
            "at {}:{}:{}",
            escape(&d.file),
            d.start.line,
            d.start.column
        )),
        _ => {}
    }
    for l in &d.labels {
        match &l.excerpt {
            Some(e) if !l.file.is_empty() => pending.push(Pending {
                file: &l.file,
                line: l.start.line,
                column: l.start.column,
                span: l.span,
                excerpt: e,
                primary: false,
                message: &l.message,
            }),
            _ => notes.push(format!(
                "{}:{}:{}: {}",
                escape(&l.file),
                l.start.line,
                l.start.column,
                escape(&l.message)
            )),
        }
    }
    notes.extend(d.notes.iter().map(|n| escape(n).into_owned()));
    let (snippets, labels) = Snippets::build(&pending);
    let cd = match d.severity {
        Severity::Error => cs::Diagnostic::error(),
        Severity::Warning => cs::Diagnostic::warning(),
        Severity::Note => cs::Diagnostic::note(),
    }
    .with_code(d.code)
    .with_message(escape(&d.message))
    .with_labels(labels)
    .with_notes(notes);
    (snippets, cd)
}

/// One shown line: (part of) a source line.
struct Line {
    number: u32,
    at: u32,
    text: String,
    cut_before: bool,
    cut_after: bool,
}

impl Line {
    fn end(&self) -> u32 {
        self.at + self.text.len() as u32
    }

    /// Joins an excerpt of the same line that overlaps or touches this one.
    fn merge(&mut self, e: &Excerpt) -> bool {
        let (e_at, e_end) = (e.at, e.at + e.text.len() as u32);
        if e_at > self.end() || e_end < self.at {
            return false;
        }
        if e_at < self.at {
            let head = &e.text[..(self.at - e_at) as usize];
            self.text.insert_str(0, head);
            self.at = e_at;
            self.cut_before = e.cut_before;
        }
        if e_end > self.end() {
            let tail = &e.text[(self.end() - e_at) as usize..];
            self.text.push_str(tail);
            self.cut_after = e.cut_after;
        }
        true
    }

    /// The byte offset in the shown line (after the `…` and the escapes) of source offset `o`.
    fn shown_offset(&self, o: u32) -> usize {
        let mut rel = (o.saturating_sub(self.at) as usize).min(self.text.len());
        while !self.text.is_char_boundary(rel) {
            rel -= 1;
        }
        let mut n = if self.cut_before { ELLIPSIS.len() } else { 0 };
        for c in self.text[..rel].chars() {
            n += if needs_escape(c) {
                let mut s = String::new();
                crate::escape::push(&mut s, c);
                s.len()
            } else {
                c.len_utf8()
            };
        }
        n
    }

    fn shown(&self) -> String {
        let mut s = String::with_capacity(self.text.len() + 2 * ELLIPSIS.len());
        if self.cut_before {
            s.push_str(ELLIPSIS);
        }
        for c in self.text.chars() {
            crate::escape::push(&mut s, c);
        }
        if self.cut_after {
            s.push_str(ELLIPSIS);
        }
        s
    }
}

const ELLIPSIS: &str = "…";

/// The snippets of one diagnostic as codespan "files": per source file, only the lines its
/// labels stand on (clipped excerpts, escaped), numbered as in the source. Unlisted lines
/// between them are two empty filler lines, so codespan draws a break (`·`) there.
#[derive(Default)]
struct Snippets {
    files: Vec<SnippetFile>,
}

struct SnippetFile {
    name: String,
    source: String,
    line_starts: Vec<usize>,
    numbers: Vec<usize>,
    /// (byte index in `source`, real column) of every label start.
    columns: Vec<(usize, usize)>,
}

impl Snippets {
    fn build(pending: &[Pending<'_>]) -> (Snippets, Vec<cs::Label<usize>>) {
        // Group by file in order of first appearance; per file, lines by (number, offset).
        let mut order: Vec<&str> = Vec::new();
        for p in pending {
            if !order.contains(&p.file) {
                order.push(p.file);
            }
        }
        let mut snippets = Snippets::default();
        let mut labels = Vec::new();
        for name in order {
            let mine: Vec<&Pending> = pending.iter().filter(|p| p.file == name).collect();
            let mut lines: Vec<Line> = Vec::new();
            let mut sorted = mine.clone();
            sorted.sort_by_key(|p| (p.line, p.excerpt.at));
            for p in &sorted {
                let merged = lines
                    .last_mut()
                    .is_some_and(|l| l.number == p.line && l.merge(p.excerpt));
                if !merged {
                    lines.push(Line {
                        number: p.line,
                        at: p.excerpt.at,
                        text: p.excerpt.text.to_string(),
                        cut_before: p.excerpt.cut_before,
                        cut_after: p.excerpt.cut_after,
                    });
                }
            }
            let id = snippets.files.len();
            let mut f = SnippetFile {
                name: escape(name).into_owned(),
                source: String::new(),
                line_starts: Vec::new(),
                numbers: Vec::new(),
                columns: Vec::new(),
            };
            let mut starts = Vec::with_capacity(lines.len());
            let mut prev: Option<u32> = None;
            for l in &lines {
                if let Some(p) = prev
                    && l.number > p + 1
                {
                    for k in 1..=2 {
                        f.line_starts.push(f.source.len());
                        f.numbers.push(p as usize + k);
                        f.source.push('\n');
                    }
                }
                prev = Some(l.number);
                f.line_starts.push(f.source.len());
                f.numbers.push(l.number as usize);
                starts.push(f.source.len());
                f.source.push_str(&l.shown());
                f.source.push('\n');
            }
            for p in mine {
                // The shown line holding this label: the one of its line whose range has it.
                let Some(i) = lines.iter().position(|l| {
                    l.number == p.line && l.at <= p.excerpt.at && p.excerpt.at <= l.end()
                }) else {
                    continue;
                };
                let l = &lines[i];
                let start = starts[i] + l.shown_offset(p.span.start.max(l.at));
                let end = starts[i] + l.shown_offset(p.span.end.max(p.span.start).max(l.at));
                f.columns.push((start, p.column as usize));
                let label = if p.primary {
                    cs::Label::primary(id, start..end)
                } else {
                    cs::Label::secondary(id, start..end).with_message(escape(p.message))
                };
                labels.push(label);
            }
            snippets.files.push(f);
        }
        // The primary label first, as codespan expects for the header location.
        labels.sort_by_key(|l| l.style != cs::LabelStyle::Primary);
        (snippets, labels)
    }

    fn file(&self, id: usize) -> Result<&SnippetFile, FilesError> {
        self.files.get(id).ok_or(FilesError::FileMissing)
    }
}

impl<'a> Files<'a> for Snippets {
    type FileId = usize;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: usize) -> Result<&'a str, FilesError> {
        Ok(&self.file(id)?.name)
    }

    fn source(&'a self, id: usize) -> Result<&'a str, FilesError> {
        Ok(&self.file(id)?.source)
    }

    fn line_index(&'a self, id: usize, byte_index: usize) -> Result<usize, FilesError> {
        let f = self.file(id)?;
        Ok(match f.line_starts.binary_search(&byte_index) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        })
    }

    fn line_number(&'a self, id: usize, line_index: usize) -> Result<usize, FilesError> {
        let f = self.file(id)?;
        Ok(f.numbers.get(line_index).copied().unwrap_or(line_index + 1))
    }

    fn column_number(
        &'a self,
        id: usize,
        line_index: usize,
        byte_index: usize,
    ) -> Result<usize, FilesError> {
        let f = self.file(id)?;
        if let Some(&(_, col)) = f.columns.iter().find(|(b, _)| *b == byte_index) {
            return Ok(col);
        }
        let range = self.line_range(id, line_index)?;
        Ok(codespan_reporting::files::column_index(&f.source, range, byte_index) + 1)
    }

    fn line_range(&'a self, id: usize, line_index: usize) -> Result<Range<usize>, FilesError> {
        let f = self.file(id)?;
        let start = *f
            .line_starts
            .get(line_index)
            .ok_or(FilesError::LineTooLarge {
                given: line_index,
                max: f.line_starts.len().saturating_sub(1),
            })?;
        let end = f
            .line_starts
            .get(line_index + 1)
            .copied()
            .unwrap_or(f.source.len());
        Ok(start..end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{SourceFile, Span};

    #[test]
    fn json_shape_matches_contract() {
        let f = SourceFile::new("graphs/a.bpg", "graph a\nnode x = int.ad\n");
        let d = Diagnostic::error("E0302", "unknown kind `int.ad`")
            .at(&f, Span::new(17, 23))
            .with_note("did you mean `int.add`?");
        let v = to_json(std::slice::from_ref(&d));
        assert_eq!(
            v.to_string(),
            r#"[{"severity":"error","code":"E0302","message":"unknown kind `int.ad`","file":"graphs/a.bpg","line":2,"column":10,"end_line":2,"end_column":16,"notes":["did you mean `int.add`?"]}]"#
        );
    }

    #[test]
    fn human_has_snippet_from_the_excerpt_and_location_otherwise() {
        let f = SourceFile::new("a.bpg", "graph a\nnode x = int.ad\n");
        let d = Diagnostic::error("E0302", "unknown kind").at(&f, Span::new(17, 23));
        drop(f); // the diagnostic renders without its source
        let text = human(std::slice::from_ref(&d), false);
        assert!(text.contains("error[E0302]: unknown kind"), "{text}");
        assert!(text.contains("┌─ a.bpg:2:10"), "{text}");
        assert!(text.contains("2 │ node x = int.ad"), "{text}");
        assert!(text.contains("^^^^^^"), "{text}");
        let bare = Diagnostic::error("E0001", "cannot read file").in_file("a.bpg");
        let text = human(std::slice::from_ref(&bare), false);
        assert!(text.contains("at a.bpg:1:1"), "{text}");
    }

    #[test]
    fn labels_on_one_line_share_it_and_distant_lines_break() {
        let text = "graph a\nnode x = int.add\n\n\n\nnode x = int.sub\n";
        let f = SourceFile::new("a.bpg", text);
        let d = Diagnostic::error("E0317", "duplicate node name `x`")
            .at(&f, Span::new(33, 34))
            .with_label(&f, Span::new(13, 14), "first declared here")
            .with_label(&f, Span::new(17, 24), "kind");
        let out = human(std::slice::from_ref(&d), false);
        assert_eq!(out.matches("2 │ node x = int.add").count(), 1, "{out}");
        assert!(out.contains("6 │ node x = int.sub"), "{out}");
        assert!(out.contains("·"), "{out}");
        assert!(out.contains("┌─ a.bpg:6:6"), "{out}");
    }

    #[test]
    fn long_lines_are_clipped_and_the_column_stays_true() {
        let line = format!("{}int.ad{}", "x ".repeat(5000), " y".repeat(5000));
        let f = SourceFile::new("a.bpg", line.as_str());
        let d = Diagnostic::error("E0302", "unknown kind").at(&f, Span::new(10_000, 10_006));
        let out = human(std::slice::from_ref(&d), false);
        assert!(out.len() < 800, "{} bytes:\n{out}", out.len());
        assert!(out.contains("┌─ a.bpg:1:10001"), "{out}");
        assert!(out.contains("…x x"), "{out}");
        assert!(out.contains("int.ad y"), "{out}");
    }

    #[test]
    fn control_characters_are_escaped_everywhere_in_human_output() {
        let f = SourceFile::new("a\nb.bpg", "node \u{1b}[2J = x\n");
        let d = Diagnostic::error("E0302", "unknown kind `\u{1b}[2J`\nerror[E0000]: forged")
            .at(&f, Span::new(5, 9))
            .with_note("note \u{7}");
        let out = human(std::slice::from_ref(&d), false);
        assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
        assert!(!out.contains("\nerror[E0000]"), "{out}");
        assert!(out.contains("a\\nb.bpg"), "{out}");
        assert!(out.contains("node \\u{1b}[2J = x"), "{out}");
    }

    #[test]
    fn reports_list_a_bounded_number_per_file_and_count_the_rest() {
        let f = SourceFile::new("a.bpg", "x\n");
        let g = SourceFile::new("b.bpg", "x\n");
        let mut diags: Vec<Diagnostic> = (0..250)
            .map(|i| {
                let sev = if i % 2 == 0 {
                    Severity::Error
                } else {
                    Severity::Warning
                };
                Diagnostic::new(sev, "E0302", format!("d{i}")).at(&f, Span::point(0))
            })
            .collect();
        diags.push(Diagnostic::error("E0302", "other").at(&g, Span::point(0)));
        let b = bounded(&diags);
        assert_eq!(b.len(), MAX_PER_FILE + 2);
        let note = &b[MAX_PER_FILE];
        assert_eq!((note.code, note.file.as_str()), (N_MORE, "a.bpg"));
        assert!(
            note.message
                .contains("50 more diagnostics in this file (0 errors, 50 warnings)")
        );
        assert_eq!(b[MAX_PER_FILE + 1].file, "b.bpg");
        // Output size does not grow with the number of diagnostics past the cap.
        let (few, many) = (&diags[..230], &diags[..250]);
        let (small, large) = (human(few, false).len(), human(many, false).len());
        assert!(large <= small + 10, "{small} vs {large}");
        // Long messages are cut.
        let long = Diagnostic::error("E0302", "m".repeat(5000)).in_file("c.bpg");
        assert!(bounded(&[long])[0].message.ends_with("… (4000 more chars)"));
    }

    #[test]
    fn a_capped_report_lists_errors_before_warnings_in_every_format() {
        // Issue 24: 65,537 unused variables and two limit errors listed 200 warnings, no error.
        let text = "x\n".repeat(400);
        let f = SourceFile::new("a.bpg", text.as_str());
        let g = SourceFile::new("b.bpg", "x\n");
        let mut diags: Vec<Diagnostic> = (0..300)
            .map(|i| Diagnostic::warning("W0301", format!("w{i}")).at(&f, Span::point(2 * i)))
            .collect();
        diags.push(Diagnostic::error("E0322", "e1").at(&f, Span::point(700)));
        diags.push(Diagnostic::error("E0322", "e2").at(&f, Span::point(702)));
        diags.push(Diagnostic::warning("W0301", "other").at(&g, Span::point(0)));
        let b = bounded(&diags);
        let msgs: Vec<&str> = b.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(b.len(), MAX_PER_FILE + 2);
        // The file's errors first (in canonical order), then as many warnings as fit, the
        // note counting the rest, then the next file.
        assert_eq!(msgs[..3], ["e1", "e2", "w0"]);
        assert_eq!(msgs[MAX_PER_FILE - 1], format!("w{}", MAX_PER_FILE - 3));
        let note = &b[MAX_PER_FILE];
        assert_eq!(note.code, N_MORE);
        assert!(
            note.message
                .contains("102 more diagnostics in this file (0 errors, 102 warnings)"),
            "{}",
            note.message
        );
        // The note stands at the first unlisted one's position.
        assert_eq!(note.start, f.position(2 * (MAX_PER_FILE as u32 - 2)));
        assert_eq!(msgs[MAX_PER_FILE + 1], "other");
        // Human, JSON and SARIF all list the bounded report, errors included.
        let human = human(&diags, false);
        assert!(human.starts_with("error[E0322]: e1"), "{}", &human[..200]);
        assert!(human.contains("error[E0322]: e2"));
        let json = to_json(&diags);
        let json = json.as_array().unwrap();
        assert_eq!(json[0]["message"], "e1");
        assert_eq!(json[1]["message"], "e2");
        let sarif = super::super::sarif::to_sarif(&diags, "0");
        let results = sarif["runs"][0]["results"].as_array().unwrap();
        let levels: Vec<&str> = results
            .iter()
            .map(|r| r["level"].as_str().unwrap())
            .collect();
        assert_eq!(levels[..3], ["error", "error", "warning"]);
        // An uncapped file keeps canonical order: a warning before an error stays first.
        let few = [diags[0].clone(), diags[300].clone()];
        let b = bounded(&few);
        assert_eq!((b[0].message.as_str(), b[1].message.as_str()), ("w0", "e1"));
    }
}
