//! The reader: RON text → [`Value`] tree, iteratively bounded by [`MAX_DEPTH`].

use super::MAX_DEPTH;
use super::value::{Field, Name, Value, ValueKind, shorten};
use crate::diag::Span;

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

/// [`parse`] with deferred lists: every list is read and checked (syntax, nesting) but its
/// items are not kept — its value is an empty `List` with the list's span — so the tree holds
/// only the structure around the lists, whatever their length. [`ListItems`] reads a list's
/// items again one at a time ([`Value::items`]). Readers of large files (`.animseq`) use it to
/// stay within a small multiple of the file's size.
pub fn parse_lazy(text: &str) -> Result<Value, ParseError> {
    parse_with(text, true)
}

fn parse_with(text: &str, lazy: bool) -> Result<Value, ParseError> {
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

/// The items of a list read again from its text, one at a time ([`Value::items`]); nested
/// lists inside them are deferred too. Ends at the list's `]` (or at an error, which cannot
/// happen for a list [`parse_lazy`] has read).
pub struct ListItems<'a> {
    inner: Items<'a>,
}

enum Items<'a> {
    Kept(std::slice::Iter<'a, Value>),
    Text(Parser<'a>, usize),
}

impl<'a> ListItems<'a> {
    /// The items of `list` (a `List` value read from `text`): its kept items, or, when it has
    /// none, those its text holds.
    pub(super) fn new(text: &'a str, list: &'a Value, kept: &'a [Value]) -> ListItems<'a> {
        let inner =
            if kept.is_empty() && text.as_bytes().get(list.span.start as usize) == Some(&b'[') {
                let p = Parser {
                    src: text,
                    bytes: text.as_bytes(),
                    pos: list.span.start as usize + 1,
                    lazy: true,
                };
                Items::Text(p, (list.span.end as usize).min(text.len()))
            } else {
                Items::Kept(kept.iter())
            };
        ListItems { inner }
    }
}

impl Iterator for ListItems<'_> {
    type Item = Value;

    fn next(&mut self) -> Option<Value> {
        match &mut self.inner {
            Items::Kept(it) => it.next().cloned(),
            Items::Text(p, end) => {
                p.skip_trivia().ok()?;
                if p.pos >= *end || p.peek() == Some(b']') {
                    return None;
                }
                let item = p.value(0).ok()?;
                p.skip_trivia().ok()?;
                if p.peek() == Some(b',') {
                    p.pos += 1;
                }
                Some(item)
            }
        }
    }
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn err(&self, span: Span, message: impl Into<String>) -> ParseError {
        ParseError {
            message: message.into(),
            span,
        }
    }

    /// The span of the token (char) at the cursor, or the end point at end of file.
    fn here(&self) -> Span {
        match self.src.get(self.pos..).and_then(|s| s.chars().next()) {
            Some(c) => Span::new(self.pos, self.pos + c.len_utf8()),
            None => Span::point(self.bytes.len()),
        }
    }

    fn found(&self) -> String {
        match self.src.get(self.pos..).and_then(|s| s.chars().next()) {
            Some(c) => format!("`{}`", c.escape_debug()),
            None => "end of file".to_string(),
        }
    }

    /// The separator after a value (ending at `prev_end`) is missing. When what follows starts
    /// another item — `name:` for a struct's field, else any value — the comma was forgotten:
    /// the error points where it belongs (just after the value) and names what comes next.
    /// Otherwise it is the plain "expected `,` or …" at the offending token.
    fn missing_comma(&mut self, prev_end: usize, expected: &str, field: bool) -> ParseError {
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

    fn unexpected(&self, expected: &str) -> ParseError {
        self.err(
            self.here(),
            format!("expected {expected}, found {}", self.found()),
        )
    }

    /// Skips whitespace and comments (block comments nest, as in RON).
    fn skip_trivia(&mut self) -> Result<(), ParseError> {
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

    fn ident(&mut self) -> Name {
        let start = self.pos;
        while self.peek().is_some_and(is_ident_char) {
            self.pos += 1;
        }
        Name {
            text: self.src[start..self.pos].to_string(),
            span: Span::new(start, self.pos),
        }
    }

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

    /// Comma-separated values up to `close` (trailing comma allowed); consumes `close`.
    fn seq(&mut self, close: u8, depth: usize) -> Result<Vec<Value>, ParseError> {
        let mut items = Vec::new();
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
            items.push(item);
            self.skip_trivia()?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b) if b == close => break,
                _ => return Err(self.missing_comma(end, closing, false)),
            }
        }
        self.pos += 1;
        Ok(items)
    }

    /// [`Parser::seq`] that checks each item and drops it.
    fn skip_seq(&mut self, close: u8, depth: usize) -> Result<(), ParseError> {
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
            let end = self.value(depth)?.span.end as usize;
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
        let items = if self.lazy {
            self.skip_seq(b']', depth)?;
            Vec::new()
        } else {
            self.seq(b']', depth)?
        };
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

    // Kept out of line: the recursive `value` frame stays small (deep nesting).
    #[inline(never)]
    fn string(&mut self) -> Result<Value, ParseError> {
        let start = self.pos;
        self.pos += 1;
        let mut out = String::new();
        let mut run = self.pos;
        loop {
            // Fast scan to the next quote or backslash (both ASCII, so slicing is safe).
            let rest = &self.bytes[self.pos..];
            let Some(off) = rest.iter().position(|&b| b == b'"' || b == b'\\') else {
                return Err(self.err(
                    Span::new(start, start + 1),
                    "unterminated string (missing closing `\"`)",
                ));
            };
            self.pos += off;
            out.push_str(&self.src[run..self.pos]);
            if self.bytes[self.pos] == b'"' {
                self.pos += 1;
                return Ok(Value {
                    kind: ValueKind::Str(out),
                    span: Span::new(start, self.pos),
                });
            }
            let esc_start = self.pos;
            self.pos += 1;
            let c = match self.peek() {
                Some(b'"') => '"',
                Some(b'\'') => '\'',
                Some(b'\\') => '\\',
                Some(b'n') => '\n',
                Some(b'r') => '\r',
                Some(b't') => '\t',
                Some(b'0') => '\0',
                Some(b'x') => {
                    let hex = self.bytes.get(self.pos + 1..self.pos + 3);
                    let v = hex
                        .and_then(|h| std::str::from_utf8(h).ok())
                        .and_then(|h| u8::from_str_radix(h, 16).ok())
                        .filter(|v| v.is_ascii());
                    match v {
                        Some(v) => {
                            self.pos += 2;
                            char::from(v)
                        }
                        None => {
                            return Err(self.err(
                                Span::new(esc_start, (esc_start + 4).min(self.bytes.len())),
                                "invalid `\\x` escape (two hex digits, at most 7F)",
                            ));
                        }
                    }
                }
                Some(b'u') => {
                    let c = self.unicode_escape();
                    match c {
                        Some(c) => c,
                        None => {
                            return Err(self.err(
                                Span::new(esc_start, self.pos.min(self.bytes.len())),
                                "invalid unicode escape (expected `\\u{...}` with 1 to 6 hex digits of a scalar value)",
                            ));
                        }
                    }
                }
                _ => {
                    let end = self.here().end as usize;
                    return Err(self.err(Span::new(esc_start, end), "unknown escape sequence"));
                }
            };
            out.push(c);
            self.pos += 1;
            run = self.pos;
        }
    }

    /// At the `u` of `\u{...}`; leaves the cursor on the closing `}` on success.
    // Kept out of line: the recursive `value` frame stays small (deep nesting).
    #[inline(never)]
    fn unicode_escape(&mut self) -> Option<char> {
        self.pos += 1;
        if self.peek() != Some(b'{') {
            return None;
        }
        self.pos += 1;
        let mut v: u32 = 0;
        let mut digits = 0;
        while let Some(b) = self.peek() {
            if b == b'}' {
                break;
            }
            let d = char::from(b).to_digit(16)?;
            digits += 1;
            if digits > 6 {
                return None;
            }
            v = v * 16 + d;
            self.pos += 1;
        }
        if digits == 0 || self.peek() != Some(b'}') {
            return None;
        }
        char::from_u32(v)
    }

    // Kept out of line: the recursive `value` frame stays small (deep nesting).
    #[inline(never)]
    fn raw_string(&mut self) -> Result<Value, ParseError> {
        let start = self.pos;
        self.pos += 1;
        let mut hashes = 0usize;
        while self.peek() == Some(b'#') {
            hashes += 1;
            self.pos += 1;
        }
        if self.peek() != Some(b'"') {
            return Err(self.unexpected("`\"` to open the raw string"));
        }
        self.pos += 1;
        let body = self.pos;
        loop {
            let rest = &self.bytes[self.pos..];
            let Some(off) = rest.iter().position(|&b| b == b'"') else {
                return Err(self.err(Span::new(start, body), "unterminated raw string"));
            };
            let q = self.pos + off;
            let closes = self.bytes[q + 1..]
                .iter()
                .take(hashes)
                .filter(|&&b| b == b'#')
                .count()
                == hashes
                && self.bytes.len() >= q + 1 + hashes;
            if closes {
                let text = self.src[body..q].to_string();
                self.pos = q + 1 + hashes;
                return Ok(Value {
                    kind: ValueKind::Str(text),
                    span: Span::new(start, self.pos),
                });
            }
            self.pos = q + 1;
        }
    }

    // Kept out of line: the recursive `value` frame stays small (deep nesting).
    #[inline(never)]
    fn number(&mut self) -> Result<Value, ParseError> {
        let start = self.pos;
        let negative = self.peek() == Some(b'-');
        if matches!(self.peek(), Some(b'+' | b'-')) {
            self.pos += 1;
        }
        // Signed `inf` / `NaN`.
        if self.peek().is_some_and(is_ident_start) {
            let name = self.ident();
            let span = Span::new(start, self.pos);
            let sign = if negative { -1.0 } else { 1.0 };
            return match name.text.as_str() {
                "inf" => Ok(float_value(
                    sign * f64::INFINITY,
                    sign as f32 * f32::INFINITY,
                    span,
                )),
                "NaN" => Ok(float_value(f64::NAN, f32::NAN, span)),
                _ => Err(self.err(
                    span,
                    format!("invalid number `{}`", shorten(&self.src[start..self.pos])),
                )),
            };
        }
        let radix = match (self.peek(), self.bytes.get(self.pos + 1)) {
            (Some(b'0'), Some(b'x')) => 16,
            (Some(b'0'), Some(b'o')) => 8,
            (Some(b'0'), Some(b'b')) => 2,
            _ => 10,
        };
        if radix != 10 {
            self.pos += 2;
            let digits_start = self.pos;
            while self
                .peek()
                .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
            {
                self.pos += 1;
            }
            let span = Span::new(start, self.pos);
            let digits: String = self.src[digits_start..self.pos]
                .chars()
                .filter(|&c| c != '_')
                .collect();
            let v = i128::from_str_radix(&digits, radix)
                .ok()
                .filter(|_| !digits.is_empty() && !self.src[digits_start..].starts_with('_'))
                .map(|v| if negative { -v } else { v })
                .and_then(|v| i64::try_from(v).ok());
            return match v {
                Some(v) => Ok(Value {
                    kind: ValueKind::Int(v),
                    span,
                }),
                None => Err(self.err(
                    span,
                    format!(
                        "invalid or out-of-range integer `{}`",
                        shorten(&self.src[start..self.pos])
                    ),
                )),
            };
        }
        // Decimal: digits ('.' digits)? ([eE] [+-]? digits)?, `_` allowed after the first digit.
        let mut is_float = false;
        let ok = self.digits()
            && (self.peek() != Some(b'.') || {
                is_float = true;
                self.pos += 1;
                self.digits()
            })
            && (!matches!(self.peek(), Some(b'e' | b'E')) || {
                is_float = true;
                self.pos += 1;
                if matches!(self.peek(), Some(b'+' | b'-')) {
                    self.pos += 1;
                }
                self.digits()
            });
        // A number runs into an identifier character or another dot: malformed.
        let mut end = self.pos;
        while self
            .bytes
            .get(end)
            .is_some_and(|&b| is_ident_char(b) || b == b'.')
        {
            end += 1;
        }
        let span = Span::new(start, end);
        if !ok || end != self.pos {
            self.pos = end;
            return Err(self.err(
                span,
                format!(
                    "invalid number `{}`",
                    shorten(self.src.get(start..end).unwrap_or(""))
                ),
            ));
        }
        let raw = &self.src[start..end];
        let cleaned: std::borrow::Cow<'_, str> = if raw.contains('_') {
            raw.replace('_', "").into()
        } else {
            raw.into()
        };
        if !is_float && let Ok(v) = cleaned.parse::<i64>() {
            return Ok(Value {
                kind: ValueKind::Int(v),
                span,
            });
        }
        match cleaned.parse::<f64>() {
            Ok(a) => Ok(float_value(a, f32_of(a, &cleaned), span)),
            Err(_) => Err(self.err(span, format!("invalid number `{}`", shorten(raw)))),
        }
    }

    /// One or more decimal digits, `_` allowed after the first. Returns false if none.
    fn digits(&mut self) -> bool {
        if !self.peek().is_some_and(|b| b.is_ascii_digit()) {
            return false;
        }
        while self.peek().is_some_and(|b| b.is_ascii_digit() || b == b'_') {
            self.pos += 1;
        }
        true
    }
}

/// The correctly rounded `f32` of the decimal `text`, whose correctly rounded `f64` is `x`.
///
/// Rounding is monotonic and every `f32` value and `f32` rounding boundary (midpoint between
/// neighbours, overflow threshold) is exactly representable in `f64`, so `x as f32` is correct
/// unless `x` lands exactly on a boundary or overflows `f32`; only then is the text parsed
/// again as `f32` (a second float parse per literal would double the parser's cost).
pub(super) fn f32_of(x: f64, text: &str) -> f32 {
    let y = x as f32;
    if x.is_nan() || x.is_infinite() {
        return y;
    }
    if y.is_finite() {
        let yd = f64::from(y);
        if yd == x {
            return y;
        }
        let other = if yd < x { y.next_up() } else { y.next_down() };
        if other.is_finite() && (yd + f64::from(other)) / 2.0 != x {
            return y;
        }
    }
    text.parse::<f32>().unwrap_or(y)
}

fn float_value(f64: f64, f32: f32, span: Span) -> Value {
    Value {
        kind: ValueKind::Float { f64, f32 },
        span,
    }
}
