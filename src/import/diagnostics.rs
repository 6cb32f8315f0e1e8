//! The importer's diagnostic codes (`E07xx`/`W07xx`, declared in the `diag::codes` table) and the one
//! place that builds its diagnostics: every diagnostic names the model file, none has a span
//! except JSON syntax errors of a `.gltf` text.

use crate::diag::{Diagnostic, Severity};

pub use crate::diag::codes::import::*;

/// Collects one model's diagnostics, each naming the model file.
#[derive(Debug, Default)]
pub struct Report {
    file: String,
    /// Everything reported so far, in report order.
    pub diagnostics: Vec<Diagnostic>,
}

impl Report {
    /// A report for the model shown as `file`.
    pub fn new(file: &str) -> Report {
        Report {
            file: file.to_string(),
            diagnostics: Vec::new(),
        }
    }

    /// The model's display name.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// Adds a diagnostic of `severity`.
    pub fn push(&mut self, severity: Severity, code: &'static str, message: impl Into<String>) {
        self.diagnostics
            .push(Diagnostic::new(severity, code, message).in_file(self.file.clone()));
    }

    /// Adds an error.
    pub fn error(&mut self, code: &'static str, message: impl Into<String>) {
        self.push(Severity::Error, code, message);
    }

    /// Adds a warning.
    pub fn warning(&mut self, code: &'static str, message: impl Into<String>) {
        self.push(Severity::Warning, code, message);
    }

    /// Adds a note.
    pub fn note(&mut self, message: impl Into<String>) {
        self.push(Severity::Note, W_NOTE, message);
    }

    /// Adds an already built diagnostic.
    pub fn add(&mut self, d: Diagnostic) {
        self.diagnostics.push(d);
    }

    /// Whether any error was reported.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// A name for messages: quoted, control characters escaped, cut at 64 bytes.
pub fn quoted(name: &str) -> String {
    format!("`{}`", crate::ron_span::short(name))
}
