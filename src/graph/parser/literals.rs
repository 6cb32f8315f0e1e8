//! Numbers, literals and strings of the `.bpg` grammar (E0402–E0404): tokens to values, with
//! the exact diagnostics for out-of-range numbers and malformed strings.

use super::{PResult, Parser, Reported};
use crate::diag::{Diagnostic, Span};
use crate::graph::ast::*;
use crate::graph::lexer::{self, Tok, Token};

pub use crate::diag::codes::parser::*;

impl<'a> Parser<'a> {
    pub(super) fn int(&mut self, what: &str) -> PResult<i64> {
        let t = self.expect(Tok::Int, what)?;
        self.parse_int(t)
    }

    pub(super) fn parse_int(&mut self, t: Token) -> PResult<i64> {
        match self.slice(t.span).parse::<i64>() {
            Ok(v) => Ok(v),
            Err(_) => {
                self.report(
                    Diagnostic::error(E_NUMBER_OUT_OF_RANGE, "integer literal out of range")
                        .at(self.src, t.span)
                        .with_note(
                            "integers are 64-bit: -9223372036854775808 to 9223372036854775807",
                        ),
                );
                Err(Reported)
            }
        }
    }

    pub(super) fn parse_float(&mut self, t: Token) -> PResult<f64> {
        match self.slice(t.span).parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => {
                self.report(
                    Diagnostic::error(E_NUMBER_OUT_OF_RANGE, "float literal out of range")
                        .at(self.src, t.span)
                        .with_note("a float literal must be finite as an f64"),
                );
                Err(Reported)
            }
        }
    }

    pub(super) fn number(&mut self) -> PResult<(Number, Span)> {
        match self.peek() {
            Some(t) if t.kind == Tok::Int => {
                self.pos += 1;
                self.parse_int(t).map(|v| (Number::Int(v), t.span))
            }
            Some(t) if t.kind == Tok::Float => {
                self.pos += 1;
                self.parse_float(t).map(|v| (Number::Float(v), t.span))
            }
            _ => self.expected("a number"),
        }
    }

    pub(super) fn literal(&mut self) -> PResult<Literal> {
        let Some(t) = self.peek() else {
            return self.expected("a literal");
        };
        let value = match t.kind {
            Tok::Int => {
                self.pos += 1;
                LitValue::Int(self.parse_int(t)?)
            }
            Tok::Float => {
                self.pos += 1;
                LitValue::Float(self.parse_float(t)?)
            }
            Tok::Str(_) => {
                self.pos += 1;
                LitValue::String(self.string(t)?.value)
            }
            Tok::Ident if matches!(self.slice(t.span), "true" | "false") => {
                self.pos += 1;
                LitValue::Bool(self.slice(t.span) == "true")
            }
            Tok::LParen => {
                self.pos += 1;
                let x = self.number()?;
                self.expect(Tok::Comma, "`,`")?;
                let y = self.number()?;
                self.expect(Tok::Comma, "`,`")?;
                let z = self.number()?;
                let close = self.expect(Tok::RParen, "`)`")?;
                return Ok(Literal {
                    value: LitValue::Vec3([x, y, z]),
                    span: t.span.join(close.span),
                });
            }
            _ => return self.expected("a literal"),
        };
        Ok(Literal {
            value,
            span: t.span,
        })
    }

    /// Decodes a string token the caller has consumed.
    pub(super) fn string(&mut self, t: Token) -> PResult<StrLit> {
        let Tok::Str(terminated) = t.kind else {
            return self.expected("a string");
        };
        if !terminated {
            self.report(
                Diagnostic::error(E_UNTERMINATED_STRING, "unterminated string literal")
                    .at(self.src, t.span)
                    .with_note("strings end with `\"` on the same line; write a newline as `\\n`"),
            );
            return Err(Reported);
        }
        let content_span = Span::new(t.span.start as usize + 1, t.span.end as usize - 1);
        match lexer::unescape(self.slice(content_span)) {
            Ok(value) => Ok(StrLit {
                value,
                span: t.span,
                content_span,
            }),
            Err(r) => {
                let base = content_span.start as usize;
                let esc = Span::new(base + r.start, base + r.end);
                let text = self.slice(esc).to_string();
                self.report(
                    Diagnostic::error(
                        E_INVALID_ESCAPE,
                        format!("invalid escape `{text}` in string"),
                    )
                    .at(self.src, esc)
                    .with_note("the escapes are `\\\"`, `\\\\` and `\\n`"),
                );
                Err(Reported)
            }
        }
    }
}
