//! Comment boxes: `box "Title" at (X, Y) size (W, H) { color = "#RRGGBB" }` (E0415, E0416).
//!
//! A box is layout only. Its numbers are bounded here, in the parser, so that every model the
//! studio accepts (a model is valid when its text parses back) has sane boxes: an absurd
//! position or size is a syntax-level diagnostic at the number, never a huge picture.

use super::{PResult, Parser, Reported};
use crate::diag::{Diagnostic, Span};
use crate::graph::ast::*;
use crate::graph::lexer::Tok;

pub use crate::diag::codes::parser::*;

/// The largest `|x|` or `|y|` of a comment box's corner (the picture's drawing clamp).
pub const MAX_BOX_COORD: i64 = 1_000_000_000;
/// The largest width or height of a comment box (the smallest is 1).
pub const MAX_BOX_SIZE: i64 = 1_000_000;

/// True when `s` is `#RRGGBB` (six hexadecimal digits, either case).
pub fn is_color(s: &str) -> bool {
    s.len() == 7 && s.starts_with('#') && s[1..].bytes().all(|b| b.is_ascii_hexdigit())
}

impl Parser<'_> {
    /// `box STRING at (X, Y) size (W, H) ARGS?` (the cursor is on `box`, a string follows).
    pub(super) fn box_item(&mut self) -> PResult<BoxItem> {
        let start = self.toks[self.pos].span;
        self.pos += 1;
        let t = self.toks[self.pos];
        self.pos += 1;
        let title = self.string(t)?;
        if !self.peek_at_clause() {
            return self.expected("`at (x, y)` after the box's title");
        }
        let at = self.at_clause()?;
        for (v, what) in [(at.x, "x"), (at.y, "y")] {
            if v.unsigned_abs() > MAX_BOX_COORD as u64 {
                return self.box_bounds(
                    at.span,
                    format!("comment box {what} = {v} is out of bounds"),
                    format!("a box's corner lies within ±{MAX_BOX_COORD} on each axis"),
                );
            }
        }
        let size = self.size_clause()?;
        for (v, what) in [(size.w, "width"), (size.h, "height")] {
            if !(1..=MAX_BOX_SIZE).contains(&v) {
                return self.box_bounds(
                    size.span,
                    format!("comment box {what} {v} is out of bounds"),
                    format!("a box's width and height are 1 to {MAX_BOX_SIZE}"),
                );
            }
        }
        let mut end = size.span;
        let mut color = None;
        if self.peek_kind() == Some(Tok::LBrace) {
            let open = self.toks[self.pos].span;
            self.pos += 1;
            let mut args = Vec::new();
            end = self.args(&mut args, open)?;
            color = self.box_color(args)?;
        }
        self.end_of_item(if color.is_some() {
            "a new item"
        } else {
            "`{ color = \"#RRGGBB\" }` or a new item"
        })?;
        Ok(BoxItem {
            title,
            at,
            size,
            color,
            span: start.join(end),
            comments: Comments::default(),
        })
    }

    fn size_clause(&mut self) -> PResult<Size> {
        match self.peek() {
            Some(t) if self.is_ident(t, "size") => self.pos += 1,
            _ => return self.expected("`size (width, height)`"),
        }
        let start = self.toks[self.pos - 1].span;
        self.expect(Tok::LParen, "`(`")?;
        let w = self.int("an integer width")?;
        self.expect(Tok::Comma, "`,`")?;
        let h = self.int("an integer height")?;
        let close = self.expect(Tok::RParen, "`)`")?;
        Ok(Size {
            w,
            h,
            span: start.join(close.span),
        })
    }

    fn box_bounds<T>(&mut self, span: Span, message: String, note: String) -> PResult<T> {
        self.report(
            Diagnostic::error(E_BOX_BOUNDS, message)
                .at(self.src, span)
                .with_note(note),
        );
        Err(Reported)
    }

    /// The one argument a box takes: `color = "#RRGGBB"` (at most once).
    fn box_color(&mut self, args: Vec<Arg>) -> PResult<Option<StrLit>> {
        let mut color = None;
        for a in args {
            let problem = match (&a.name.name[..], &a.value.value) {
                ("color", _) if color.is_some() => Some("`color` is given twice".to_string()),
                ("color", LitValue::String(s)) if is_color(s) => {
                    color = Some(StrLit {
                        value: s.clone(),
                        span: a.value.span,
                        content_span: a.value.span,
                    });
                    None
                }
                ("color", _) => Some("a box's color is a string `\"#RRGGBB\"`".to_string()),
                (other, _) => Some(format!("a box has no argument `{other}`")),
            };
            if let Some(message) = problem {
                let span = if a.name.name == "color" {
                    a.value.span
                } else {
                    a.name.span
                };
                self.report(
                    Diagnostic::error(E_BOX_ARG, message)
                        .at(self.src, span)
                        .with_note("a box takes one argument: `{ color = \"#RRGGBB\" }` (six hexadecimal digits)"),
                );
                return Err(Reported);
            }
        }
        Ok(color)
    }
}
