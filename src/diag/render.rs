//! Rendering of diagnostics: human (codespan-reporting), JSON (shape in the CLI contract).
//!
//! This is the only place diagnostics become text. Callers hand in the source texts they still
//! hold; a diagnostic whose file text is unknown renders without a snippet.

use super::{Diagnostic, Severity};
use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Source texts by display file name, for snippets in human output.
#[derive(Default, Clone, Debug)]
pub struct Sources {
    texts: BTreeMap<String, Arc<str>>,
}

impl Sources {
    pub fn new() -> Sources {
        Sources::default()
    }
    pub fn insert(&mut self, name: impl Into<String>, text: Arc<str>) {
        self.texts.insert(name.into(), text);
    }
    pub fn get(&self, name: &str) -> Option<&Arc<str>> {
        self.texts.get(name)
    }
}

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

/// Diagnostics as a JSON array value.
pub fn to_json(diags: &[Diagnostic]) -> serde_json::Value {
    serde_json::Value::Array(
        diags
            .iter()
            .map(|d| serde_json::to_value(JsonDiagnostic::from(d)).unwrap_or_default())
            .collect(),
    )
}

/// Renders diagnostics for people with codespan-reporting. `color` adds ANSI styles.
pub fn human(diags: &[Diagnostic], sources: &Sources, color: bool) -> String {
    let mut files = SimpleFiles::new();
    let mut ids: BTreeMap<String, usize> = BTreeMap::new();
    let mut id_of = |name: &str, files: &mut SimpleFiles<String, Arc<str>>| -> Option<usize> {
        if let Some(&id) = ids.get(name) {
            return Some(id);
        }
        let id = files.add(name.to_string(), sources.get(name)?.clone());
        ids.insert(name.to_string(), id);
        Some(id)
    };
    let config = term::Config::default();
    let mut out = String::new();
    for d in diags {
        let file_id = id_of(&d.file, &mut files);
        let mut cd = match d.severity {
            Severity::Error => cs::Diagnostic::error(),
            Severity::Warning => cs::Diagnostic::warning(),
            Severity::Note => cs::Diagnostic::note(),
        }
        .with_code(d.code)
        .with_message(d.message.clone());
        let mut notes = Vec::new();
        match file_id {
            Some(id) => {
                let mut labels = vec![cs::Label::primary(id, d.span.range())];
                for l in &d.labels {
                    match id_of(&l.file, &mut files) {
                        Some(lid) => labels.push(
                            cs::Label::secondary(lid, l.span.range())
                                .with_message(l.message.clone()),
                        ),
                        None => notes.push(format!(
                            "{}:{}:{}: {}",
                            l.file, l.start.line, l.start.column, l.message
                        )),
                    }
                }
                cd = cd.with_labels(labels);
            }
            None => {
                if !d.file.is_empty() {
                    notes.push(format!("at {}:{}:{}", d.file, d.start.line, d.start.column));
                }
                for l in &d.labels {
                    notes.push(format!(
                        "{}:{}:{}: {}",
                        l.file, l.start.line, l.start.column, l.message
                    ));
                }
            }
        }
        notes.extend(d.notes.iter().cloned());
        cd = cd.with_notes(notes);
        let mut buf = Vec::new();
        let res = if color {
            let mut w = term::termcolor::Ansi::new(&mut buf);
            term::emit_to_write_style(&mut w, &config, &files, &cd)
        } else {
            let mut w = term::termcolor::NoColor::new(&mut buf);
            term::emit_to_write_style(&mut w, &config, &files, &cd)
        };
        if res.is_err() {
            // A span outside its text (should not happen): fall back to a plain line.
            buf.clear();
            buf.extend_from_slice(
                format!(
                    "{}[{}]: {}\n  --> {}:{}:{}\n",
                    d.severity, d.code, d.message, d.file, d.start.line, d.start.column
                )
                .as_bytes(),
            );
        }
        out.push_str(&String::from_utf8_lossy(&buf));
    }
    out
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
    fn human_has_snippet_when_source_known_and_location_otherwise() {
        let f = SourceFile::new("a.bpg", "graph a\nnode x = int.ad\n");
        let d = Diagnostic::error("E0302", "unknown kind").at(&f, Span::new(17, 23));
        let mut s = Sources::new();
        s.insert("a.bpg", f.shared_text());
        let text = human(std::slice::from_ref(&d), &s, false);
        assert!(text.contains("error[E0302]: unknown kind"), "{text}");
        assert!(text.contains("node x = int.ad"), "{text}");
        let bare = human(std::slice::from_ref(&d), &Sources::new(), false);
        assert!(bare.contains("at a.bpg:2:10"), "{bare}");
    }
}
