//! A small hand-written RON reader that keeps byte spans, plus decoding helpers.
//!
//! [`parse`] turns RON text into a [`Value`] tree where every value carries its byte [`Span`]
//! and every struct field the span of its name, so asset loaders (`.animseq`, `.skel`,
//! `.animsm`, `.scene.ron`) can point diagnostics at the exact token. The accepted subset is
//! documented in `docs/animseq.md`; in short: named and anonymous structs, tuples, named tuples
//! (tuple structs, enum variants, `Some(x)`), unit idents (`None`, `Owner`), lists, maps,
//! strings (with escapes, and raw strings), integers (decimal, `0x`, `0o`, `0b`, `_`
//! separators), floats (including `inf`, `-inf`, `NaN`, which RON allows), bools, `//` and
//! nested `/* */` comments, and trailing commas. Not accepted: chars, byte strings, float
//! suffixes (`1.0f32`), raw identifiers and `#![enable(...)]` extension headers.
//!
//! Limits: nesting deeper than [`MAX_DEPTH`] is an error (never a stack overflow), and the
//! tree never allocates more than a constant factor of the input size.

use crate::diag::Span;

/// The deepest nesting of lists, tuples, structs and maps the reader accepts.
pub const MAX_DEPTH: usize = 128;

/// One RON value and the bytes it covers.
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    /// What the value is.
    pub kind: ValueKind,
    /// The bytes it covers (for a named struct or variant, from the name).
    pub span: Span,
}

/// An identifier with its span (struct names, variant names).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    /// The identifier.
    pub text: String,
    /// Where it is written.
    pub span: Span,
}

/// One `name: value` entry of a struct; `name_span` covers the field name.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The field name.
    pub name: String,
    /// Where the field name is written.
    pub name_span: Span,
    /// The field value.
    pub value: Value,
}

/// The shapes a RON value can take.
#[derive(Clone, Debug, PartialEq)]
pub enum ValueKind {
    /// `true` / `false`.
    Bool(bool),
    /// An integer literal that fits `i64` (larger ones become floats, as in the `ron` crate).
    Int(i64),
    /// A float literal, parsed both ways so `f32` data round-trips without double rounding.
    Float {
        /// The literal as f64.
        f64: f64,
        /// The literal parsed directly as f32.
        f32: f32,
    },
    /// A string (escapes resolved).
    Str(String),
    /// A bare identifier: a unit variant or unit struct (`None`, `Owner`).
    Ident(String),
    /// `(a, b)` or `Name(a, b)`; `()` is an empty anonymous tuple.
    Tuple {
        /// The tuple struct or variant name, if any.
        name: Option<Name>,
        /// The elements.
        items: Vec<Value>,
    },
    /// `(f: v)` or `Name(f: v)`, fields in authored order (duplicates kept).
    Struct {
        /// The struct name, if written.
        name: Option<Name>,
        /// The fields in authored order.
        fields: Vec<Field>,
    },
    /// `[a, b]`.
    List(Vec<Value>),
    /// `{k: v}`, entries in authored order.
    Map(Vec<(Value, Value)>),
}

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
    let mut p = Parser {
        src: text,
        bytes: text.as_bytes(),
        pos: 0,
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

struct Parser<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
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
                let fname = self.ident();
                self.skip_trivia()?;
                if self.peek() != Some(b':') {
                    return Err(self.unexpected("`:` after the field name"));
                }
                self.pos += 1;
                self.skip_trivia()?;
                let value = self.value(depth)?;
                fields.push(Field {
                    name: fname.text,
                    name_span: fname.span,
                    value,
                });
                self.skip_trivia()?;
                match self.peek() {
                    Some(b',') => self.pos += 1,
                    Some(b')') => break,
                    _ => return Err(self.unexpected("`,` or `)`")),
                }
            }
            self.pos += 1;
            Ok(Value {
                kind: ValueKind::Struct { name, fields },
                span: Span::new(start, self.pos),
            })
        } else {
            let items = self.seq(b')', depth)?;
            Ok(Value {
                kind: ValueKind::Tuple { name, items },
                span: Span::new(start, self.pos),
            })
        }
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
            items.push(self.value(depth)?);
            self.skip_trivia()?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b) if b == close => break,
                _ => return Err(self.unexpected(closing)),
            }
        }
        self.pos += 1;
        Ok(items)
    }

    fn list(&mut self, start: usize, depth: usize) -> Result<Value, ParseError> {
        let depth = self.enter(depth)?;
        self.pos += 1;
        let items = self.seq(b']', depth)?;
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
            entries.push((k, v));
            self.skip_trivia()?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => break,
                _ => return Err(self.unexpected("`,` or `}`")),
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
fn f32_of(x: f64, text: &str) -> f32 {
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

// ---------------------------------------------------------------------------------------------
// Decoding helpers
// ---------------------------------------------------------------------------------------------

/// What went wrong while decoding a parsed tree into a typed structure.
#[derive(Clone, Debug, PartialEq)]
pub enum DecodeErrorKind {
    /// The value has the wrong shape (`expected` and `found` are short descriptions).
    TypeMismatch {
        /// What should be there.
        expected: String,
        /// What is there.
        found: String,
    },
    /// A struct field nobody knows (reported at the field name).
    UnknownField {
        /// The unknown name.
        name: String,
        /// The fields the struct knows.
        known: &'static [&'static str],
    },
    /// A struct field written twice (reported at the second name; `first` is the first name).
    DuplicateField {
        /// The repeated name.
        name: String,
        /// Where it was first written.
        first: Span,
    },
    /// A required field is absent (reported at the struct's head).
    MissingField {
        /// The absent field.
        name: &'static str,
    },
}

/// One decoding error at a span.
#[derive(Clone, Debug, PartialEq)]
pub struct DecodeError {
    /// What went wrong.
    pub kind: DecodeErrorKind,
    /// Where.
    pub span: Span,
}

/// The diagnostic codes a loader reports decode errors under (each format has its own range).
#[derive(Clone, Copy, Debug)]
pub struct DecodeCodes {
    pub type_mismatch: &'static str,
    pub unknown_field: &'static str,
    pub duplicate_field: &'static str,
    pub missing_field: &'static str,
}

impl DecodeCodes {
    /// One code for every kind of decode error.
    pub const fn all(code: &'static str) -> DecodeCodes {
        DecodeCodes {
            type_mismatch: code,
            unknown_field: code,
            duplicate_field: code,
            missing_field: code,
        }
    }
}

/// The offset of the first byte at or after `from` that is neither whitespace nor inside a
/// comment (`text.len()` at the end, or at an unterminated block comment's start). For tools
/// that edit RON text at the spans [`parse`] gives (`sinew migrate`).
pub fn trivia_end(text: &str, from: usize) -> usize {
    let mut p = Parser {
        src: text,
        bytes: text.as_bytes(),
        pos: from.min(text.len()),
    };
    match p.skip_trivia() {
        Ok(()) => p.pos,
        Err(e) => e.span.start as usize,
    }
}

/// Quotes user text in a message, escaped and cut to 64 bytes (a 100 MB name must not become a
/// 100 MB message).
pub fn short(s: &str) -> String {
    const MAX: usize = 64;
    if s.len() <= MAX {
        s.escape_debug().to_string()
    } else {
        let mut end = MAX;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", s[..end].escape_debug())
    }
}

impl DecodeError {
    /// The diagnostic of this error in `src`, under the loader's codes: the message at the
    /// offending span, "first written here" at the first of a duplicated field, and the
    /// known-fields/did-you-mean note.
    pub fn to_diagnostic(
        &self,
        src: &crate::diag::SourceFile,
        codes: DecodeCodes,
    ) -> crate::diag::Diagnostic {
        let code = match &self.kind {
            DecodeErrorKind::TypeMismatch { .. } => codes.type_mismatch,
            DecodeErrorKind::UnknownField { .. } => codes.unknown_field,
            DecodeErrorKind::DuplicateField { .. } => codes.duplicate_field,
            DecodeErrorKind::MissingField { .. } => codes.missing_field,
        };
        let mut d = crate::diag::Diagnostic::error(code, self.message()).at(src, self.span);
        if let DecodeErrorKind::DuplicateField { first, .. } = &self.kind {
            d = d.with_label(src, *first, "first written here");
        }
        if let Some(n) = self.note() {
            d = d.with_note(n);
        }
        d
    }

    /// A shape error: `expected` describes what should be at `v`.
    pub fn mismatch(expected: impl Into<String>, v: &Value) -> DecodeError {
        DecodeError {
            kind: DecodeErrorKind::TypeMismatch {
                expected: expected.into(),
                found: v.describe(),
            },
            span: v.span,
        }
    }

    /// The human message (without a code).
    pub fn message(&self) -> String {
        match &self.kind {
            DecodeErrorKind::TypeMismatch { expected, found } => {
                format!("expected {expected}, found {found}")
            }
            DecodeErrorKind::UnknownField { name, .. } => {
                format!("unknown field `{}`", shorten(name))
            }
            DecodeErrorKind::DuplicateField { name, .. } => format!("duplicate field `{name}`"),
            DecodeErrorKind::MissingField { name } => format!("missing field `{name}`"),
        }
    }

    /// A helpful note, if any (the known fields, a close spelling).
    pub fn note(&self) -> Option<String> {
        match &self.kind {
            DecodeErrorKind::UnknownField { name, known } => {
                let list = known
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ");
                match closest(name, known) {
                    Some(s) => Some(format!("did you mean `{s}`? known fields: {list}")),
                    None => Some(format!("known fields: {list}")),
                }
            }
            _ => None,
        }
    }
}

/// The known name within edit distance 2 of `name` (shared with every other suggestion).
pub fn closest<'k>(name: &str, known: &[&'k str]) -> Option<&'k str> {
    crate::suggest::closest_within(name, known.iter().copied(), 2)
}

/// A variant or tuple-struct view: `Name`, `Name(args)`.
#[derive(Clone, Copy, Debug)]
pub struct Variant<'v> {
    /// The variant name.
    pub name: &'v str,
    /// Where the name is written.
    pub name_span: Span,
    /// `None` for a unit variant, `Some(args)` for `Name(args...)`.
    pub args: Option<&'v [Value]>,
}

impl Value {
    /// A short description of the value's shape for "expected X, found Y" messages.
    pub fn describe(&self) -> String {
        match &self.kind {
            ValueKind::Bool(_) => "a bool".into(),
            ValueKind::Int(_) => "an integer".into(),
            ValueKind::Float { .. } => "a float".into(),
            ValueKind::Str(_) => "a string".into(),
            ValueKind::Ident(n) => format!("`{}`", shorten(n)),
            ValueKind::Tuple {
                name: Some(n),
                items,
            } => match items.len() {
                1 => format!("`{}(..)` with 1 value", shorten(&n.text)),
                k => format!("`{}(..)` with {k} values", shorten(&n.text)),
            },
            ValueKind::Tuple { name: None, items } => format!("a tuple of {}", items.len()),
            ValueKind::Struct { name: Some(n), .. } => format!("struct `{}`", shorten(&n.text)),
            ValueKind::Struct { name: None, .. } => "a struct".into(),
            ValueKind::List(_) => "a list".into(),
            ValueKind::Map(_) => "a map".into(),
        }
    }

    /// The string content.
    pub fn as_str(&self) -> Result<&str, DecodeError> {
        match &self.kind {
            ValueKind::Str(s) => Ok(s),
            _ => Err(DecodeError::mismatch("a string", self)),
        }
    }

    /// A bool.
    pub fn as_bool(&self) -> Result<bool, DecodeError> {
        match self.kind {
            ValueKind::Bool(b) => Ok(b),
            _ => Err(DecodeError::mismatch("`true` or `false`", self)),
        }
    }

    /// An integer literal.
    pub fn as_i64(&self) -> Result<i64, DecodeError> {
        match self.kind {
            ValueKind::Int(i) => Ok(i),
            _ => Err(DecodeError::mismatch("an integer", self)),
        }
    }

    /// A number as `f64` (integers convert).
    pub fn as_f64(&self) -> Result<f64, DecodeError> {
        match self.kind {
            ValueKind::Float { f64, .. } => Ok(f64),
            ValueKind::Int(i) => Ok(i as f64),
            _ => Err(DecodeError::mismatch("a number", self)),
        }
    }

    /// A number as `f32`, parsed from the literal directly (no double rounding).
    pub fn as_f32(&self) -> Result<f32, DecodeError> {
        match self.kind {
            ValueKind::Float { f32, .. } => Ok(f32),
            ValueKind::Int(i) => Ok(i as f32),
            _ => Err(DecodeError::mismatch("a number", self)),
        }
    }

    /// The items of a list.
    pub fn as_list(&self) -> Result<&[Value], DecodeError> {
        match &self.kind {
            ValueKind::List(items) => Ok(items),
            _ => Err(DecodeError::mismatch("a list `[...]`", self)),
        }
    }

    /// The items of an anonymous tuple of exactly `n` elements.
    pub fn as_tuple(&self, n: usize) -> Result<&[Value], DecodeError> {
        match &self.kind {
            ValueKind::Tuple { name: None, items } if items.len() == n => Ok(items),
            _ => Err(DecodeError::mismatch(format!("a tuple of {n}"), self)),
        }
    }

    /// `None` → `Ok(None)`, `Some(x)` → `Ok(Some(x))`.
    pub fn as_option(&self) -> Result<Option<&Value>, DecodeError> {
        match &self.kind {
            ValueKind::Ident(n) if n == "None" => Ok(None),
            ValueKind::Tuple {
                name: Some(n),
                items,
            } if n.text == "Some" && items.len() == 1 => Ok(items.first()),
            _ => Err(DecodeError::mismatch("`None` or `Some(...)`", self)),
        }
    }

    /// A unit variant `Name` or a tuple variant `Name(args)`.
    pub fn as_variant(&self) -> Option<Variant<'_>> {
        match &self.kind {
            ValueKind::Ident(n) => Some(Variant {
                name: n,
                name_span: self.span,
                args: None,
            }),
            ValueKind::Tuple {
                name: Some(n),
                items,
            } => Some(Variant {
                name: &n.text,
                name_span: n.span,
                args: Some(items),
            }),
            _ => None,
        }
    }
}

fn shorten(s: &str) -> String {
    if s.len() <= 40 {
        s.to_string()
    } else {
        let mut end = 40;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &s[..end])
    }
}

/// The fields of a struct after checking its name, unknown and duplicate fields.
#[derive(Clone, Debug)]
pub struct Fields<'v> {
    /// Where "missing field" errors point: the struct name, or its opening parenthesis.
    pub head: Span,
    /// The whole struct.
    pub span: Span,
    /// Known fields (first occurrence of each), in authored order.
    pub fields: Vec<&'v Field>,
}

impl<'v> Fields<'v> {
    /// The field called `name`, if present.
    pub fn get(&self, name: &str) -> Option<&'v Field> {
        self.fields.iter().copied().find(|f| f.name == name)
    }

    /// The value of `name`, or a `MissingField` error pushed to `errs`.
    pub fn required(&self, name: &'static str, errs: &mut Vec<DecodeError>) -> Option<&'v Value> {
        match self.get(name) {
            Some(f) => Some(&f.value),
            None => {
                errs.push(DecodeError {
                    kind: DecodeErrorKind::MissingField { name },
                    span: self.head,
                });
                None
            }
        }
    }
}

/// Expects a struct named `name` (or anonymous) whose fields are among `known`.
///
/// Pushes an error for each unknown or duplicate field and keeps going; returns `None` (with a
/// type-mismatch error) only when `v` is not a struct at all. `()` counts as an empty struct.
pub fn expect_struct<'v>(
    v: &'v Value,
    name: &str,
    known: &'static [&'static str],
    errs: &mut Vec<DecodeError>,
) -> Option<Fields<'v>> {
    let expected = || format!("struct `{name}(...)`");
    let (sname, fields): (&Option<Name>, &[Field]) = match &v.kind {
        ValueKind::Struct { name, fields } => (name, fields),
        ValueKind::Tuple { name, items } if items.is_empty() => (name, &[]),
        _ => {
            errs.push(DecodeError::mismatch(expected(), v));
            return None;
        }
    };
    let head = match sname {
        Some(n) if n.text != name => {
            errs.push(DecodeError {
                kind: DecodeErrorKind::TypeMismatch {
                    expected: expected(),
                    found: format!("struct `{}`", shorten(&n.text)),
                },
                span: n.span,
            });
            return None;
        }
        Some(n) => n.span,
        None => Span::new(v.span.start as usize, v.span.start as usize + 1),
    };
    let mut out = Fields {
        head,
        span: v.span,
        fields: Vec::with_capacity(fields.len()),
    };
    for f in fields {
        if !known.contains(&f.name.as_str()) {
            errs.push(DecodeError {
                kind: DecodeErrorKind::UnknownField {
                    name: f.name.clone(),
                    known,
                },
                span: f.name_span,
            });
        } else if let Some(first) = out.get(&f.name) {
            errs.push(DecodeError {
                kind: DecodeErrorKind::DuplicateField {
                    name: f.name.clone(),
                    first: first.name_span,
                },
                span: f.name_span,
            });
        } else {
            out.fields.push(f);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> Value {
        match parse(s) {
            Ok(v) => v,
            Err(e) => panic!("{s:?} failed: {e:?}"),
        }
    }

    fn err(s: &str) -> (String, std::ops::Range<usize>) {
        match parse(s) {
            Ok(v) => panic!("{s:?} parsed: {v:?}"),
            Err(e) => (e.message, e.span.range()),
        }
    }

    #[test]
    fn spans_of_struct_fields_and_values() {
        let src = "A(x: 1, yy: \"s\")";
        let v = ok(src);
        let ValueKind::Struct { name, fields } = &v.kind else {
            panic!("{v:?}")
        };
        assert_eq!(name.as_ref().map(|n| n.span.range()), Some(0..1));
        assert_eq!(fields[1].name_span.range(), 8..10);
        assert_eq!(&src[fields[1].value.span.range()], "\"s\"");
        assert_eq!(v.span.range(), 0..src.len());
    }

    #[test]
    fn scalars() {
        assert_eq!(ok("-12").kind, ValueKind::Int(-12));
        assert_eq!(ok("0x1F").kind, ValueKind::Int(31));
        assert_eq!(ok("1_000").kind, ValueKind::Int(1000));
        assert_eq!(ok("-0b101").kind, ValueKind::Int(-5));
        assert_eq!(ok("-9223372036854775808").kind, ValueKind::Int(i64::MIN));
        assert!(matches!(ok("1e3").kind, ValueKind::Float { f64, .. } if f64 == 1000.0));
        assert!(
            matches!(ok("18446744073709551616").kind, ValueKind::Float { f64, .. } if f64 == 18446744073709551616.0)
        );
        assert!(
            matches!(ok("-inf").kind, ValueKind::Float { f64, .. } if f64 == f64::NEG_INFINITY)
        );
        assert!(matches!(ok("NaN").kind, ValueKind::Float { f64, .. } if f64.is_nan()));
        assert!(matches!(ok("1e400").kind, ValueKind::Float { f64, .. } if f64.is_infinite()));
        assert_eq!(ok("true").kind, ValueKind::Bool(true));
        assert_eq!(
            ok(r#""a\n\"\\\u{e9}\x41""#).kind,
            ValueKind::Str("a\n\"\\éA".into())
        );
        assert_eq!(ok(r###"r#"a"b"#"###).kind, ValueKind::Str("a\"b".into()));
    }

    #[test]
    fn f32_values_are_rounded_once() {
        let f32_of_text = |t: &str| match ok(t).kind {
            ValueKind::Float { f32, .. } => f32,
            k => panic!("{k:?}"),
        };
        // Exactly the midpoint between 1.0 and its f32 successor: ties to even (1.0).
        assert_eq!(f32_of_text("1.000000059604644775390625"), 1.0);
        // A hair above the midpoint: f64 rounds onto the midpoint, but the f32 is the successor.
        let above = "1.0000000596046447753906250000000001";
        assert_eq!(
            above.parse::<f64>().map(|x| x as f32),
            Ok(1.0),
            "double rounding exists"
        );
        assert_eq!(f32_of_text(above), 1.0f32.next_up());
        // Overflow threshold and beyond.
        assert_eq!(f32_of_text("3.4028235e38"), f32::MAX);
        assert_eq!(f32_of_text("3.40282356e38"), f32::MAX);
        assert_eq!(f32_of_text("3.40282357e38"), f32::INFINITY);
        assert_eq!(f32_of_text("3.4028236e38"), f32::INFINITY);
        assert_eq!(f32_of_text("1e-46"), 0.0);
        assert_eq!(f32_of_text("1e-45"), 1e-45f32);
    }

    proptest::proptest! {
        #[test]
        fn f32_of_matches_a_direct_parse(
            mantissa in proptest::prelude::any::<u64>(),
            digits in 0usize..30,
            exp in -50i32..50,
            bits in proptest::prelude::any::<u32>(),
        ) {
            let text = format!("{mantissa}{}e{exp}", "0".repeat(digits));
            let x: f64 = text.parse().expect("decimal");
            proptest::prop_assert_eq!(f32_of(x, &text).to_bits(), text.parse::<f32>().expect("f32").to_bits());
            // Exact midpoints of random neighbouring f32 values, written out in full.
            let a = f32::from_bits(bits & 0x7f7f_ffff);
            let mid = (f64::from(a) + f64::from(a.next_up())) / 2.0;
            let text = format!("{mid:e}");
            let x: f64 = text.parse().expect("decimal");
            proptest::prop_assert_eq!(f32_of(x, &text).to_bits(), text.parse::<f32>().expect("f32").to_bits());
        }
    }

    #[test]
    fn comments_and_trailing_commas() {
        let v = ok("/* a /* nested */ */ [1, // x\n 2,]");
        assert_eq!(
            v.kind,
            ValueKind::List(vec![
                Value {
                    kind: ValueKind::Int(1),
                    span: Span::new(22, 23)
                },
                Value {
                    kind: ValueKind::Int(2),
                    span: Span::new(31, 32)
                },
            ])
        );
    }

    #[test]
    fn errors_point_at_the_offending_token() {
        assert_eq!(
            err("(a: 1 b: 2)"),
            ("expected `,` or `)`, found `b`".into(), 6..7)
        );
        assert_eq!(
            err("[1, 2"),
            ("expected `,` or `]`, found end of file".into(), 5..5)
        );
        assert_eq!(err("\"abc").1, 0..1);
        assert_eq!(err("/* x").1, 0..2);
        assert_eq!(err("1.2.3").1, 0..5);
        assert_eq!(err("\"\\q\"").1, 1..3);
        assert_eq!(err("1 2").1, 2..3);
        assert_eq!(err("").1, 0..0);
        assert_eq!(err("[é]").1, 1..3);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let s = "[".repeat(10_000);
        let (msg, span) = err(&s);
        assert!(msg.contains("nesting"), "{msg}");
        assert_eq!(span, MAX_DEPTH..MAX_DEPTH + 1);
        let ok_depth = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        ok(&ok_depth);
    }

    #[test]
    fn decode_reports_unknown_duplicate_and_missing_fields() {
        const KNOWN: &[&str] = &["bone", "scale"];
        let src = "T(bone: \"a\", scael: 1, bone: \"b\")";
        let v = ok(src);
        let mut errs = Vec::new();
        let f = expect_struct(&v, "T", KNOWN, &mut errs).expect("struct");
        assert_eq!(f.get("bone").map(|f| f.value.as_str()), Some(Ok("a")));
        assert!(f.required("scale", &mut errs).is_none());
        let msgs: Vec<_> = errs.iter().map(|e| (e.message(), e.span.range())).collect();
        assert_eq!(
            msgs,
            [
                ("unknown field `scael`".to_string(), 13..18),
                ("duplicate field `bone`".to_string(), 23..27),
                ("missing field `scale`".to_string(), 0..1),
            ]
        );
        assert_eq!(
            errs[0].note().as_deref(),
            Some("did you mean `scale`? known fields: `bone`, `scale`")
        );
        let mut errs = Vec::new();
        assert!(expect_struct(&ok("U(bone: 1)"), "T", KNOWN, &mut errs).is_none());
        assert_eq!(
            errs[0].message(),
            "expected struct `T(...)`, found struct `U`"
        );
        assert_eq!(ok("Some(1)").as_option().map(|o| o.is_some()), Ok(true));
        assert_eq!(ok("None").as_option().map(|o| o.is_some()), Ok(false));
        assert_eq!(
            ok("\"x\"").as_f64().map_err(|e| e.message()),
            Err("expected a number, found a string".into())
        );
    }
}
