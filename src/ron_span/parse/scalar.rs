//! Scalars: strings (escapes, raw strings) and numbers (integers, floats with their correctly
//! rounded `f32`), read out of line so the recursive `value` frame stays small.

use super::{ParseError, Parser, is_ident_char, is_ident_start};
use crate::diag::Span;
use crate::ron_span::value::{Value, ValueKind, shorten};

impl Parser<'_> {
    // Kept out of line: the recursive `value` frame stays small (deep nesting).
    #[inline(never)]
    pub(super) fn string(&mut self) -> Result<Value, ParseError> {
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
    pub(super) fn raw_string(&mut self) -> Result<Value, ParseError> {
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
    pub(super) fn number(&mut self) -> Result<Value, ParseError> {
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
pub(in crate::ron_span) fn f32_of(x: f64, text: &str) -> f32 {
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

pub(super) fn float_value(f64: f64, f32: f32, span: Span) -> Value {
    Value {
        kind: ValueKind::Float { f64, f32 },
        span,
    }
}
