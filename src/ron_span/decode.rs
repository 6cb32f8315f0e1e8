//! The one shared decoder: shape errors with the loader's codes, struct field checks, and the
//! [`Decoder`] every asset loader reports through.

use super::value::{Field, Name, Value, ValueKind, shorten};
use crate::diag::{Diagnostic, SourceFile, Span};

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
    pub fn to_diagnostic(&self, src: &SourceFile, codes: DecodeCodes) -> Diagnostic {
        let code = match &self.kind {
            DecodeErrorKind::TypeMismatch { .. } => codes.type_mismatch,
            DecodeErrorKind::UnknownField { .. } => codes.unknown_field,
            DecodeErrorKind::DuplicateField { .. } => codes.duplicate_field,
            DecodeErrorKind::MissingField { .. } => codes.missing_field,
        };
        let mut d = Diagnostic::error(code, self.message()).at(src, self.span);
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
        ValueKind::Tuple {
            name,
            items,
            fields,
        } if items.is_empty() && fields.is_empty() => (name, &[]),
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

/// The one decode wrapper every loader reports through: the source, the loader's
/// [`DecodeCodes`], and the diagnostics so far. Its helpers decode a value and, on a shape
/// error, record the diagnostic and return `None`, so a loader reads as the format it decodes.
#[derive(Debug)]
pub struct Decoder<'s> {
    /// The file being decoded.
    pub src: &'s SourceFile,
    codes: DecodeCodes,
    /// Every diagnostic so far, in report order.
    pub diags: Vec<Diagnostic>,
}

impl<'s> Decoder<'s> {
    /// A decoder of `src` reporting shape errors under `codes`.
    pub fn new(src: &'s SourceFile, codes: DecodeCodes) -> Decoder<'s> {
        Decoder {
            src,
            codes,
            diags: Vec::new(),
        }
    }

    /// Records a diagnostic.
    pub fn push(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    /// Records an error `code` at `span`.
    pub fn error(&mut self, code: &'static str, span: Span, msg: impl Into<String>) {
        self.push(Diagnostic::error(code, msg).at(self.src, span));
    }

    /// Records a decode error under the loader's codes.
    pub fn decode(&mut self, e: DecodeError) {
        let d = e.to_diagnostic(self.src, self.codes);
        self.push(d);
    }

    /// Records every decode error.
    pub fn decode_all(&mut self, errs: impl IntoIterator<Item = DecodeError>) {
        for e in errs {
            self.decode(e);
        }
    }

    /// The value, or `None` with the error recorded.
    pub fn ok<T>(&mut self, r: Result<T, DecodeError>) -> Option<T> {
        r.map_err(|e| self.decode(e)).ok()
    }

    /// [`expect_struct`], with its errors recorded.
    pub fn strukt<'v>(
        &mut self,
        v: &'v Value,
        name: &str,
        known: &'static [&'static str],
    ) -> Option<Fields<'v>> {
        let mut errs = Vec::new();
        let f = expect_struct(v, name, known, &mut errs);
        self.decode_all(errs);
        f
    }

    /// The value of required field `name`, or `None` with "missing field" recorded.
    pub fn required<'v>(&mut self, f: &Fields<'v>, name: &'static str) -> Option<&'v Value> {
        let mut errs = Vec::new();
        let v = f.required(name, &mut errs);
        self.decode_all(errs);
        v
    }

    /// A string value.
    pub fn string(&mut self, v: &Value) -> Option<String> {
        self.ok(v.as_str()).map(str::to_string)
    }

    /// Whether any error was recorded.
    pub fn has_errors(&self) -> bool {
        self.diags.iter().any(Diagnostic::is_error)
    }

    /// The diagnostics, sorted by position.
    pub fn finish(mut self) -> Vec<Diagnostic> {
        crate::diag::sort(&mut self.diags);
        self.diags
    }
}
