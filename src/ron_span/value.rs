//! The parsed tree: values with their spans, and typed accessors that report shape errors.

use super::decode::DecodeError;
use crate::diag::Span;

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
        /// Named fields after the elements, in authored order (Sinew's extension, not the
        /// `ron` crate's: `("b.bpg", vars: {…})`); empty for a plain tuple. Only readers that
        /// ask for them ([`Value::as_tuple_with_fields`]) accept a tuple that has some.
        fields: Vec<Field>,
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
            ValueKind::Tuple { fields, items, .. } if !fields.is_empty() => format!(
                "a tuple of {} with named field `{}`",
                items.len(),
                shorten(&fields[0].name)
            ),
            ValueKind::Tuple {
                name: Some(n),
                items,
                ..
            } => match items.len() {
                1 => format!("`{}(..)` with 1 value", shorten(&n.text)),
                k => format!("`{}(..)` with {k} values", shorten(&n.text)),
            },
            ValueKind::Tuple {
                name: None, items, ..
            } => format!("a tuple of {}", items.len()),
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

    /// The items of a list one at a time, read again from `text` (the text this value was
    /// parsed from) when [`super::parse_lazy`] deferred them.
    pub fn items<'a>(&'a self, text: &'a str) -> Result<super::parse::ListItems<'a>, DecodeError> {
        let kept = self.as_list()?;
        Ok(super::parse::ListItems::new(text, self, kept))
    }

    /// The items of an anonymous tuple of exactly `n` elements.
    pub fn as_tuple(&self, n: usize) -> Result<&[Value], DecodeError> {
        match &self.kind {
            ValueKind::Tuple {
                name: None,
                items,
                fields,
            } if items.len() == n && fields.is_empty() => Ok(items),
            _ => Err(DecodeError::mismatch(format!("a tuple of {n}"), self)),
        }
    }

    /// An anonymous tuple of `n` elements followed by any named fields:
    /// `("b.bpg", vars: {…})` gives `(["b.bpg"], [vars])`.
    pub fn as_tuple_with_fields(&self, n: usize) -> Option<(&[Value], &[Field])> {
        match &self.kind {
            ValueKind::Tuple {
                name: None,
                items,
                fields,
            } if items.len() == n => Some((items, fields)),
            _ => None,
        }
    }

    /// `None` → `Ok(None)`, `Some(x)` → `Ok(Some(x))`.
    pub fn as_option(&self) -> Result<Option<&Value>, DecodeError> {
        match &self.kind {
            ValueKind::Ident(n) if n == "None" => Ok(None),
            ValueKind::Tuple {
                name: Some(n),
                items,
                fields,
            } if n.text == "Some" && items.len() == 1 && fields.is_empty() => Ok(items.first()),
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
                fields,
            } if fields.is_empty() => Some(Variant {
                name: &n.text,
                name_span: n.span,
                args: Some(items),
            }),
            _ => None,
        }
    }
}

/// Cuts a name for messages to 40 bytes.
pub(super) fn shorten(s: &str) -> String {
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
