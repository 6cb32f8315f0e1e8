//! The parser's cursor: token lookahead, item boundaries (`starts_item`, `looks_like_item`,
//! `recovery_point`), expectations and their "expected X, found Y" diagnostics, error
//! recovery, and the comments that ride along with items.

use super::{MAX_DIAGNOSTICS, PResult, Parser, Reported};
use crate::diag::{Diagnostic, Span};
use crate::graph::ast::*;
use crate::graph::lexer::{Tok, Token};

pub use crate::diag::codes::parser::*;

impl<'a> Parser<'a> {
    pub(super) fn slice(&self, span: Span) -> &'a str {
        self.text.get(span.range()).unwrap_or("")
    }

    pub(super) fn is_ident(&self, t: Token, word: &str) -> bool {
        t.kind == Tok::Ident && self.slice(t.span) == word
    }

    pub(super) fn kind_at(&self, i: usize) -> Option<Tok> {
        self.toks.get(i).map(|t| t.kind)
    }

    pub(super) fn is_ident_at(&self, i: usize, word: &str) -> bool {
        self.toks.get(i).is_some_and(|&t| self.is_ident(t, word))
    }

    /// `IDENT . IDENT ->` at token `i`: the start of a link (nothing else contains `->`).
    pub(super) fn link_at(&self, i: usize) -> bool {
        self.kind_at(i) == Some(Tok::Ident)
            && self.kind_at(i + 1) == Some(Tok::Dot)
            && self.kind_at(i + 2) == Some(Tok::Ident)
            && self.kind_at(i + 3) == Some(Tok::Arrow)
    }

    /// True when token `i` looks like an item start: `var IDENT`, `node IDENT`, `graph IDENT`
    /// or `IDENT . IDENT ->`. At the start of a line such a token always begins a new item
    /// (the layout rule), and these are the points error recovery resumes at.
    pub(super) fn looks_like_item(&self, i: usize) -> bool {
        let keyword = ["var", "node", "graph"]
            .iter()
            .any(|k| self.is_ident_at(i, k));
        (keyword && self.kind_at(i + 1) == Some(Tok::Ident))
            || self.link_at(i)
            || self.event_decl_at(i)
            || self.box_at(i)
    }

    /// `box "…"` at token `i`: a comment box starts there.
    pub(super) fn box_at(&self, i: usize) -> bool {
        self.is_ident_at(i, "box") && matches!(self.kind_at(i + 1), Some(Tok::Str(_)))
    }

    /// `event custom::NAME` at token `i`: an event declaration starts there.
    pub(super) fn event_decl_at(&self, i: usize) -> bool {
        self.is_ident_at(i, "event") && self.kind_at(i + 1) == Some(Tok::CustomRef)
    }

    /// True when token `i` can only be the start of an item in a valid file: `var IDENT :`,
    /// `node IDENT =` or `IDENT . IDENT ->`. Used where an optional part (subject, `{`, `at`)
    /// may follow, so that items may share a line and keywords stay usable as identifiers
    /// (`node n = var.get var` followed by `node m = …`).
    pub(super) fn starts_item(&self, i: usize) -> bool {
        (self.is_ident_at(i, "var")
            && self.kind_at(i + 1) == Some(Tok::Ident)
            && self.kind_at(i + 2) == Some(Tok::Colon))
            || (self.is_ident_at(i, "node")
                && self.kind_at(i + 1) == Some(Tok::Ident)
                && self.kind_at(i + 2) == Some(Tok::Eq))
            || (self.event_decl_at(i) && self.kind_at(i + 2) == Some(Tok::LBrace))
            || self.box_at(i)
            || self.link_at(i)
    }

    /// True when the current item can go no further: end of file, or a later token that begins
    /// a line and looks like an item start.
    pub(super) fn at_boundary(&self) -> bool {
        self.boundary_at(self.pos)
    }

    pub(super) fn boundary_at(&self, i: usize) -> bool {
        match self.toks.get(i) {
            None => true,
            Some(t) => i > self.item_start && t.line_start && self.looks_like_item(i),
        }
    }

    /// The next token of the current item (`None` at a boundary).
    pub(super) fn peek(&self) -> Option<Token> {
        if self.at_boundary() {
            None
        } else {
            self.toks.get(self.pos).copied()
        }
    }

    pub(super) fn peek_kind(&self) -> Option<Tok> {
        self.peek().map(|t| t.kind)
    }

    pub(super) fn expect(&mut self, kind: Tok, what: &str) -> PResult<Token> {
        match self.peek() {
            Some(t) if t.kind == kind => {
                self.pos += 1;
                Ok(t)
            }
            _ => self.expected(what),
        }
    }

    pub(super) fn ident(&mut self, what: &str) -> PResult<Ident> {
        self.ident_or(what)
    }

    pub(super) fn ident_or(&mut self, what: &str) -> PResult<Ident> {
        let t = self.expect(Tok::Ident, what)?;
        Ok(Ident {
            name: self.slice(t.span).to_string(),
            span: t.span,
        })
    }

    /// Succeeds when the item just parsed is complete: what follows is a boundary, a token
    /// that can only start the next item (items may share a line), or any token that begins a
    /// line (nothing on it continues this item, so it is reported as the next item's problem).
    pub(super) fn end_of_item(&mut self, what: &str) -> PResult<()> {
        if self.at_boundary()
            || self.starts_item(self.pos)
            || self.toks.get(self.pos).is_some_and(|t| t.line_start)
        {
            Ok(())
        } else {
            self.expected(what)
        }
    }

    /// Describes the token at index `i` for "found …".
    pub(super) fn describe_at(&self, i: usize) -> String {
        let Some(t) = self.toks.get(i) else {
            return "end of file".to_string();
        };
        if self.boundary_at(i) {
            return "end of line".to_string();
        }
        let text = self.slice(t.span);
        match t.kind {
            Tok::Str(_) => "a string".to_string(),
            Tok::Error => {
                let c = text.chars().next().unwrap_or('?');
                format!("character {c:?}")
            }
            _ => {
                let mut short: String = text.chars().take(32).collect();
                if short.len() < text.len() {
                    short.push('…');
                }
                format!("`{short}`")
            }
        }
    }

    /// Reports "expected WHAT, found …" at the current token (E0401/E0402 when the offending
    /// token is an unknown character or an unterminated string).
    pub(super) fn expected<T>(&mut self, what: &str) -> PResult<T> {
        let found = self.describe_at(self.pos);
        let d = match self.peek() {
            None => {
                let at = self.prev_end();
                Diagnostic::error(E_EXPECTED, format!("expected {what}, found {found}"))
                    .at(self.src, Span::point(at))
            }
            Some(t) if t.kind == Tok::Error => {
                let c = self.slice(t.span).chars().next().unwrap_or('?');
                let span = Span::new(t.span.start as usize, t.span.start as usize + c.len_utf8());
                Diagnostic::error(E_UNEXPECTED_CHAR, format!("unexpected character {c:?}"))
                    .at(self.src, span)
                    .with_note(format!("expected {what}"))
            }
            Some(t) if t.kind == Tok::Str(false) => {
                Diagnostic::error(E_UNTERMINATED_STRING, "unterminated string literal")
                    .at(self.src, t.span)
                    .with_note("strings end with `\"` on the same line; write a newline as `\\n`")
            }
            Some(t) => Diagnostic::error(E_EXPECTED, format!("expected {what}, found {found}"))
                .at(self.src, t.span),
        };
        self.report(d);
        Err(Reported)
    }

    pub(super) fn prev_end_u32(&self) -> u32 {
        u32::try_from(self.prev_end()).unwrap_or(u32::MAX)
    }

    /// The end of the token before the current one (0 at the start).
    pub(super) fn prev_end(&self) -> usize {
        self.pos
            .checked_sub(1)
            .and_then(|i| self.toks.get(i))
            .map_or(0, |t| t.span.end as usize)
    }

    pub(super) fn report(&mut self, d: Diagnostic) {
        if self.diags.len() < MAX_DIAGNOSTICS {
            self.diags.push(d);
        } else {
            self.suppressed += 1;
        }
    }

    /// Error recovery: skips to the next token that begins a line and starts an item (always
    /// past at least one token of the failed item), or to the end. Besides the tokens that look
    /// like an item start, broken item starts count, so that their errors are reported too: a
    /// line beginning with `var`, `node` or `graph` not followed by `=`, `.` or `:` (which would
    /// make it an argument, kind or variable name continuing the failed item), with
    /// `IDENT . IDENT` and then an unexpected character (`a.out - b.a`), or with an unexpected
    /// character.
    pub(super) fn skip_item(&mut self) {
        while self.pos < self.toks.len() && !self.recovery_point(self.pos) {
            self.pos += 1;
        }
    }

    pub(super) fn recovery_point(&self, i: usize) -> bool {
        let Some(t) = self.toks.get(i) else {
            return true;
        };
        if i <= self.item_start || !t.line_start {
            return false;
        }
        let keyword = ["var", "node", "graph"]
            .iter()
            .any(|k| self.is_ident(*t, k));
        let continues = matches!(self.kind_at(i + 1), Some(Tok::Eq | Tok::Dot | Tok::Colon));
        self.looks_like_item(i)
            || (keyword && !continues)
            || t.kind == Tok::Error
            || (t.kind == Tok::Ident
                && self.kind_at(i + 1) == Some(Tok::Dot)
                && self.kind_at(i + 2) == Some(Tok::Ident)
                && self.kind_at(i + 3) == Some(Tok::Error))
    }

    /// Every comment before byte `before` not yet attached (none is ever dropped: those of a
    /// failed item go to the next one).
    pub(super) fn take_leading(&mut self, before: u32) -> Vec<Comment> {
        let mut out = Vec::new();
        while let Some(c) = self.comments.get(self.cpos) {
            if c.span.start >= before {
                break;
            }
            out.push(self.comment(*c));
            self.cpos += 1;
        }
        out
    }

    /// The end-of-line comment of the item just parsed, if any.
    pub(super) fn take_trailing(&mut self) -> Option<Comment> {
        let next = self.toks.get(self.pos).map_or(u32::MAX, |t| t.span.start);
        let c = *self.comments.get(self.cpos)?;
        if c.line_start || c.span.start >= next {
            return None;
        }
        self.cpos += 1;
        Some(self.comment(c))
    }

    pub(super) fn comment(&self, c: Token) -> Comment {
        Comment {
            text: self.slice(c.span).trim_end().to_string(),
            span: c.span,
        }
    }
}
