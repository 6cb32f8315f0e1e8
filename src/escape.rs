//! Terminal-safe text: the one escaping rule for every human output (diagnostics, `disasm`,
//! `catalog`, `palette`, `crossings`, the `run` trace, `diff`, the `graph` listing, `sample`,
//! `import` and `migrate`; `tests/correct.rs` feeds every command a hostile name).
//!
//! Names, messages and snippets come from files a user may not have written. Printed raw, a
//! newline in a name forges a line of output (a fake handler, a fake `end` record) and ESC or
//! BEL sequences reach the terminal (colours, titles, cursor moves). Every character that
//! controls a terminal or reorders text is written as a visible escape instead:
//! * the C0 controls, DEL and the C1 controls (Unicode category `Cc`), except the tab:
//!   `\n`, `\r`, `\0` and `\u{XX}` for the others (ESC is `\u{1b}`);
//! * the bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A–U+202E,
//!   U+2066–U+2069), which can make a line read differently from its bytes: `\u{XXXX}`.
//!
//! Everything else, including a backslash, stays as it is. JSON output needs none of this
//! (serde_json escapes control characters itself).

use std::borrow::Cow;
use std::fmt;

/// Whether `c` is written as an escape in human output.
pub fn needs_escape(c: char) -> bool {
    (c.is_control() && c != '\t')
        || matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `s` with every character [`needs_escape`] selects written as an escape (borrowed when there
/// is none).
pub fn escape(s: &str) -> Cow<'_, str> {
    if !s.chars().any(needs_escape) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        push(&mut out, c);
    }
    Cow::Owned(out)
}

/// Appends `c`, escaped when [`needs_escape`] selects it.
pub fn push(out: &mut String, c: char) {
    if !needs_escape(c) {
        out.push(c);
        return;
    }
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\0' => out.push_str("\\0"),
        c => {
            use fmt::Write;
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// A file name (or path) that may not be UTF-8, escaped: its UTF-8 parts as [`escape`] writes
/// them, every byte that is not UTF-8 as `\xNN` (so `caf\xE9.bpg` names the Latin-1 file).
pub fn os(s: &std::ffi::OsStr) -> String {
    let mut out = String::new();
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        for chunk in s.as_bytes().utf8_chunks() {
            out.push_str(&escape(chunk.valid()));
            for b in chunk.invalid() {
                use fmt::Write;
                let _ = write!(out, "\\x{b:02X}");
            }
        }
    }
    #[cfg(not(unix))]
    out.push_str(&escape(&s.to_string_lossy()));
    out
}

/// Displays a string escaped (for `write!` without an intermediate `String`).
#[derive(Clone, Copy, Debug)]
pub struct Escaped<'a>(pub &'a str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while let Some(i) = rest.find(needs_escape) {
            f.write_str(&rest[..i])?;
            let c = rest[i..].chars().next().unwrap_or_default();
            let mut buf = String::new();
            push(&mut buf, c);
            f.write_str(&buf)?;
            rest = &rest[i + c.len_utf8()..];
        }
        f.write_str(rest)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bidi_are_visible_and_the_rest_is_untouched() {
        assert_eq!(escape("plain näme\twith tab\\"), "plain näme\twith tab\\");
        assert!(matches!(escape("plain"), Cow::Borrowed(_)));
        assert_eq!(escape("a\nb\rc\0d"), "a\\nb\\rc\\0d");
        assert_eq!(escape("\u{1b}[31mred\u{7}"), "\\u{1b}[31mred\\u{7}");
        assert_eq!(escape("\u{7f}\u{85}\u{9b}"), "\\u{7f}\\u{85}\\u{9b}");
        assert_eq!(escape("x\u{202e}y\u{2066}"), "x\\u{202e}y\\u{2066}");
    }

    #[cfg(unix)]
    #[test]
    fn names_that_are_not_utf8_show_their_bytes() {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::OsStr::from_bytes(b"caf\xe9\n.bpg");
        assert_eq!(os(name), "caf\\xE9\\n.bpg");
        assert_eq!(os(std::ffi::OsStr::new("plain")), "plain");
    }

    #[test]
    fn display_matches_escape() {
        for s in ["", "ok", "a\nb", "\u{1b}]0;title\u{7}", "é\u{202d}\n\n"] {
            assert_eq!(Escaped(s).to_string(), escape(s));
        }
    }

    proptest::proptest! {
        #[test]
        fn escaped_text_has_no_line_break_or_escape_byte(s in "\\PC*|[\\x00-\\x20\\x7f-\\x9f\u{202a}-\u{202e}a]*") {
            let e = escape(&s);
            proptest::prop_assert!(!e.chars().any(needs_escape), "{e:?}");
            proptest::prop_assert!(!e.contains('\n') && !e.contains('\u{1b}'), "{:?}", e);
        }
    }
}
