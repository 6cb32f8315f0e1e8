//! The reader: RON text → [`Value`] tree, bounded by [`MAX_DEPTH`] levels of nesting.
//!
//! `mod.rs` holds the entry points and the structure (values, tuples, structs, lists, maps);
//! [`cursor`] the position, trivia, identifiers and error wording; [`scalar`] strings and
//! numbers; [`lazy`] the deferred mode ([`parse_lazy`], [`ListItems`]): lists checked but not
//! kept, and read again one item at a time.

mod cursor;
mod lazy;
mod scalar;

use super::MAX_DEPTH;
use super::value::{Field, Name, Value, ValueKind};
use crate::diag::Span;
pub use lazy::{ListItems, parse_lazy};
#[cfg(test)]
pub(super) use scalar::f32_of;
use scalar::float_value;

/// A syntax error: a message and the span of the offending token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// What is wrong ("expected `,` or `)`, found `x`").
    pub message: String,
    /// The offending token.
    pub span: Span,
}

/// Parses one RON value (the whole text; trailing non-whitespace is an error).
pub fn parse(text: &str) -> Result<Value, ParseError> {
    parse_with(text, false)
}

pub(super) fn parse_with(text: &str, lazy: bool) -> Result<Value, ParseError> {
    let mut p = Parser {
        src: text,
        bytes: text.as_bytes(),
        pos: 0,
        lazy,
    };
    // A leading byte-order mark is tolerated (editors on some platforms write one).
    if p.bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        p.pos = 3;
    }
    p.skip_trivia()?;
    let v = p.value(0)?;
    p.skip_trivia()?;
    if p.pos < p.bytes.len() {
        return Err(p.unexpected("end of file"));
    }
    Ok(v)
}

/// The offset of the first byte at or after `from` that is neither whitespace nor inside a
/// comment (`text.len()` at the end, or at an unterminated block comment's start). For tools
/// that edit RON text at the spans [`parse`] gives (`sinew migrate`).
pub fn trivia_end(text: &str, from: usize) -> usize {
    let mut p = Parser {
        src: text,
        bytes: text.as_bytes(),
        pos: from.min(text.len()),
        lazy: false,
    };
    match p.skip_trivia() {
        Ok(()) => p.pos,
        Err(e) => e.span.start as usize,
    }
}

struct Parser<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    /// Lists are checked, not kept ([`parse_lazy`]).
    lazy: bool,
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl Parser<'_> {
    fn value(&mut self, depth: usize) -> Result<Value, ParseError> {
        let start = self.pos;
        match self.peek() {
            None => Err(self.unexpected("a value")),
            Some(b'(') => self.paren(None, start, depth),
            Some(b'[') => self.list(start, depth),
            Some(b'{') => self.map(start, depth),
            Some(b'"') => self.string(),
            Some(b'r') if matches!(self.bytes.get(self.pos + 1), Some(b'"' | b'#')) => {
                self.raw_string()
            }
            Some(b'0'..=b'9' | b'+' | b'-') => self.number(),
            Some(b) if is_ident_start(b) => {
                let name = self.ident();
                match name.text.as_str() {
                    "true" | "false" => {
                        return Ok(Value {
                            kind: ValueKind::Bool(name.text == "true"),
                            span: name.span,
                        });
                    }
                    "inf" => return Ok(float_value(f64::INFINITY, f32::INFINITY, name.span)),
                    "NaN" => return Ok(float_value(f64::NAN, f32::NAN, name.span)),
                    _ => {}
                }
                self.skip_trivia()?;
                if self.peek() == Some(b'(') {
                    self.paren(Some(name), start, depth)
                } else {
                    Ok(Value {
                        span: name.span,
                        kind: ValueKind::Ident(name.text),
                    })
                }
            }
            Some(_) => Err(self.unexpected("a value")),
        }
    }

    fn enter(&self, depth: usize) -> Result<usize, ParseError> {
        if depth >= MAX_DEPTH {
            Err(self.err(
                self.here(),
                format!("nesting deeper than {MAX_DEPTH} levels"),
            ))
        } else {
            Ok(depth + 1)
        }
    }

    /// `(` already peeked: a tuple or a struct (decided by `ident :` after the paren).
    fn paren(
        &mut self,
        name: Option<Name>,
        start: usize,
        depth: usize,
    ) -> Result<Value, ParseError> {
        let depth = self.enter(depth)?;
        self.pos += 1;
        self.skip_trivia()?;
        if self.is_struct_field_ahead()? {
            let mut fields = Vec::new();
            loop {
                self.skip_trivia()?;
                if self.peek() == Some(b')') {
                    break;
                }
                if !self.peek().is_some_and(is_ident_start) {
                    return Err(self.unexpected("a field name or `)`"));
                }
                let field = self.field(depth)?;
                let end = field.value.span.end as usize;
                fields.push(field);
                self.skip_trivia()?;
                match self.peek() {
                    Some(b',') => self.pos += 1,
                    Some(b')') => break,
                    _ => return Err(self.missing_comma(end, "`,` or `)`", true)),
                }
            }
            self.pos += 1;
            Ok(Value {
                kind: ValueKind::Struct { name, fields },
                span: Span::new(start, self.pos),
            })
        } else {
            let (items, fields) = self.tuple_items(depth)?;
            Ok(Value {
                kind: ValueKind::Tuple {
                    name,
                    items,
                    fields,
                },
                span: Span::new(start, self.pos),
            })
        }
    }

    /// A tuple's values up to `)` (consumed): positional values, then optionally named fields
    /// (`("b.bpg", vars: {…})`, Sinew's extension for the scene's graph entries).
    fn tuple_items(&mut self, depth: usize) -> Result<(Vec<Value>, Vec<Field>), ParseError> {
        let mut items = Vec::new();
        let mut fields = Vec::new();
        loop {
            self.skip_trivia()?;
            if self.peek() == Some(b')') {
                break;
            }
            let end = if !items.is_empty() && self.is_struct_field_ahead()? {
                let field = self.field(depth)?;
                let end = field.value.span.end as usize;
                fields.push(field);
                end
            } else if !fields.is_empty() {
                return Err(self.unexpected("a field name or `)` (named fields come last)"));
            } else {
                let item = self.value(depth)?;
                let end = item.span.end as usize;
                items.push(item);
                end
            };
            self.skip_trivia()?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b')') => break,
                // After a positional value, what follows may be another value or the first
                // named field: name whichever it is.
                _ => {
                    let field = self.is_struct_field_ahead().unwrap_or(false);
                    return Err(self.missing_comma(end, "`,` or `)`", field));
                }
            }
        }
        self.pos += 1;
        Ok((items, fields))
    }

    /// `name: value` (at the field name).
    fn field(&mut self, depth: usize) -> Result<Field, ParseError> {
        let fname = self.ident();
        self.skip_trivia()?;
        if self.peek() != Some(b':') {
            return Err(self.unexpected("`:` after the field name"));
        }
        self.pos += 1;
        self.skip_trivia()?;
        let value = self.value(depth)?;
        Ok(Field {
            name: fname.text,
            name_span: fname.span,
            value,
        })
    }

    /// Looks ahead (without consuming) for `ident :` (not `::`).
    fn is_struct_field_ahead(&mut self) -> Result<bool, ParseError> {
        if !self.peek().is_some_and(is_ident_start) {
            return Ok(false);
        }
        let save = self.pos;
        while self.peek().is_some_and(is_ident_char) {
            self.pos += 1;
        }
        let r = self.skip_trivia();
        let is_field = self.peek() == Some(b':') && self.bytes.get(self.pos + 1) != Some(&b':');
        self.pos = save;
        r.map(|()| is_field)
    }

    /// Comma-separated values up to `close` (trailing comma allowed), each handed to `keep`
    /// as it is read; consumes `close`. A kept list pushes them, a deferred one
    /// ([`Parser::deferred_list`]) drops them: one loop, monomorphized per use.
    fn seq(
        &mut self,
        close: u8,
        depth: usize,
        mut keep: impl FnMut(Value),
    ) -> Result<(), ParseError> {
        let closing = if close == b')' {
            "`,` or `)`"
        } else {
            "`,` or `]`"
        };
        loop {
            self.skip_trivia()?;
            if self.peek() == Some(close) {
                break;
            }
            let item = self.value(depth)?;
            let end = item.span.end as usize;
            keep(item);
            self.skip_trivia()?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b) if b == close => break,
                _ => return Err(self.missing_comma(end, closing, false)),
            }
        }
        self.pos += 1;
        Ok(())
    }

    fn list(&mut self, start: usize, depth: usize) -> Result<Value, ParseError> {
        let depth = self.enter(depth)?;
        self.pos += 1;
        let mut items = Vec::new();
        if self.lazy {
            self.deferred_list(depth)?;
        } else {
            self.seq(b']', depth, |item| items.push(item))?;
        }
        Ok(Value {
            kind: ValueKind::List(items),
            span: Span::new(start, self.pos),
        })
    }

    fn map(&mut self, start: usize, depth: usize) -> Result<Value, ParseError> {
        let depth = self.enter(depth)?;
        self.pos += 1;
        let mut entries = Vec::new();
        loop {
            self.skip_trivia()?;
            if self.peek() == Some(b'}') {
                break;
            }
            let k = self.value(depth)?;
            self.skip_trivia()?;
            if self.peek() != Some(b':') {
                return Err(self.unexpected("`:` after the map key"));
            }
            self.pos += 1;
            self.skip_trivia()?;
            let v = self.value(depth)?;
            let end = v.span.end as usize;
            entries.push((k, v));
            self.skip_trivia()?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => break,
                _ => return Err(self.missing_comma(end, "`,` or `}`", false)),
            }
        }
        self.pos += 1;
        Ok(Value {
            kind: ValueKind::Map(entries),
            span: Span::new(start, self.pos),
        })
    }
}
