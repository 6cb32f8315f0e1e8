//! The one-line form of a diagnostic: where a diagnostic is printed inside one line of other
//! output (a `reload failed` trace line, a note of another diagnostic, a picture's note, an
//! error message), it is written here and nowhere else.
//!
//! * [`Diagnostic::one_line`]: `FILE:LINE:COL: SEVERITY[CODE]: MESSAGE` — the compiler-style
//!   line editors and terminals recognise; without a file, [`Diagnostic::headline`].
//! * [`Diagnostic::headline`]: `SEVERITY[CODE]: MESSAGE` — the first line of the human
//!   rendering ([`render::human`](super::render::human)), for a diagnostic whose position means
//!   nothing to the reader (it is about text Sinew made, such as a model written out to check it).
//!
//! The file name and message are escaped with [`crate::escape`] (the rule of every human
//! output), so a control character in either can never forge or break a line; escaping is
//! idempotent, so a line that later passes through the human renderer again reads the same.

use std::fmt;

use super::Diagnostic;
use crate::escape::Escaped;

/// A diagnostic as one line (see the module documentation); a `Display` value.
#[derive(Clone, Copy, Debug)]
pub struct OneLine<'a> {
    d: &'a Diagnostic,
    located: bool,
}

impl fmt::Display for OneLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.d;
        if self.located && !d.file.is_empty() {
            write!(
                f,
                "{}:{}:{}: ",
                Escaped(&d.file),
                d.start.line,
                d.start.column
            )?;
        }
        write!(f, "{}[{}]: {}", d.severity, d.code, Escaped(&d.message))
    }
}

impl Diagnostic {
    /// `FILE:LINE:COL: SEVERITY[CODE]: MESSAGE`, escaped (see [`crate::diag::line`]).
    pub fn one_line(&self) -> OneLine<'_> {
        OneLine {
            d: self,
            located: true,
        }
    }

    /// `SEVERITY[CODE]: MESSAGE`, escaped (see [`crate::diag::line`]).
    pub fn headline(&self) -> OneLine<'_> {
        OneLine {
            d: self,
            located: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::diag::{Diagnostic, SourceFile, Span};

    #[test]
    fn one_line_is_located_and_escaped() {
        let src = SourceFile::new("a\nb\u{1b}.bpg", "graph g\nnode x = k\n");
        let d = Diagnostic::error("E0301", "bad\nnode evil = k\u{202e}").at(&src, Span::new(8, 12));
        assert_eq!(
            d.one_line().to_string(),
            "a\\nb\\u{1b}.bpg:2:1: error[E0301]: bad\\nnode evil = k\\u{202e}"
        );
        assert_eq!(
            d.headline().to_string(),
            "error[E0301]: bad\\nnode evil = k\\u{202e}"
        );
        // Escaping twice changes nothing: a line that is rendered again reads the same.
        let once = d.one_line().to_string();
        assert_eq!(crate::escape::escape(&once), once);
    }

    #[test]
    fn without_a_file_the_line_is_the_headline() {
        let d = Diagnostic::warning("W0303", "unset");
        assert_eq!(d.one_line().to_string(), "warning[W0303]: unset");
    }
}
