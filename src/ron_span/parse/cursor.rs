//! The reader's cursor: bytes, position, whitespace and comments, identifiers and the
//! wording of syntax errors.

use super::{ParseError, Parser, is_ident_char, is_ident_start};
use crate::diag::Span;
use crate::ron_span::value::{Name, shorten};

impl<'a> Parser<'a> {
    pub(super) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    pub(super) fn err(&self, span: Span, message: impl Into<String>) -> ParseError {
        ParseError {
            message: message.into(),
            span,
        }
    }

    /// The span of the token (char) at the cursor, or the end point at end of file.
    pub(super) fn here(&self) -> Span {
        match self.src.get(self.pos..).and_then(|s| s.chars().next()) {
            Some(c) => Span::new(self.pos, self.pos + c.len_utf8()),
            None => Span::point(self.bytes.len()),
        }
    }

    pub(super) fn found(&self) -> String {
        match self.src.get(self.pos..).and_then(|s| s.chars().next()) {
            Some(c) => format!("`{}`", c.escape_debug()),
            None => "end of file".to_string(),
        }
    }

    /// The separator after a value (ending at `prev_end`) is missing. When what follows starts
    /// another item — `name:` for a struct's field, else any value — the comma was forgotten:
    /// the error points where it belongs (just after the value) and names what comes next.
    /// Otherwise it is the plain "expected `,` or …" at the offending token.
    pub(super) fn missing_comma(
        &mut self,
        prev_end: usize,
        expected: &str,
        field: bool,
    ) -> ParseError {
        let next = if field {
            self.is_struct_field_ahead().unwrap_or(false).then(|| {
                let start = self.pos;
                let mut end = start;
                while self.bytes.get(end).copied().is_some_and(is_ident_char) {
                    end += 1;
                }
                format!("field `{}`", shorten(&self.src[start..end]))
            })
        } else {
            self.peek()
                .is_some_and(|b| {
                    is_ident_start(b)
                        || b.is_ascii_digit()
                        || matches!(b, b'-' | b'+' | b'.' | b'"' | b'(' | b'[' | b'{')
                })
                .then(|| "value".to_string())
        };
        match next {
            Some(next) => self.err(
                Span::point(prev_end),
                format!(
                    "missing `,` before the next {next} (expected {expected}, found {})",
                    self.found()
                ),
            ),
            None => self.unexpected(expected),
        }
    }

    pub(super) fn unexpected(&self, expected: &str) -> ParseError {
        self.err(
            self.here(),
            format!("expected {expected}, found {}", self.found()),
        )
    }

    /// Skips whitespace and comments (block comments nest, as in RON).
    pub(super) fn skip_trivia(&mut self) -> Result<(), ParseError> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.pos += 1,
                Some(b'/') => match self.bytes.get(self.pos + 1) {
                    Some(b'/') => {
                        while let Some(b) = self.peek() {
                            if b == b'\n' {
                                break;
                            }
                            self.pos += 1;
                        }
                    }
                    Some(b'*') => {
                        let start = self.pos;
                        self.pos += 2;
                        let mut level = 1usize;
                        while level > 0 {
                            match (self.peek(), self.bytes.get(self.pos + 1)) {
                                (None, _) => {
                                    return Err(self.err(
                                        Span::new(start, start + 2),
                                        "unterminated block comment",
                                    ));
                                }
                                (Some(b'/'), Some(b'*')) => {
                                    level += 1;
                                    self.pos += 2;
                                }
                                (Some(b'*'), Some(b'/')) => {
                                    level -= 1;
                                    self.pos += 2;
                                }
                                _ => self.pos += 1,
                            }
                        }
                    }
                    _ => return Ok(()),
                },
                _ => return Ok(()),
            }
        }
    }

    pub(super) fn ident(&mut self) -> Name {
        let start = self.pos;
        while self.peek().is_some_and(is_ident_char) {
            self.pos += 1;
        }
        Name {
            text: self.src[start..self.pos].to_string(),
            span: Span::new(start, self.pos),
        }
    }
}
