//! A small hand-written RON reader that keeps byte spans, plus decoding helpers.
//!
//! [`parse`] (`parse.rs`) turns RON text into a [`Value`] tree (`value.rs`) where every value
//! carries its byte [`Span`](crate::diag::Span) and every struct field the span of its name, so
//! asset loaders (`.animseq`, `.skel`, `.animsm`, `.scene.ron`) can point diagnostics at the
//! exact token. `decode.rs` holds the one shared decoder every loader uses: [`expect_struct`],
//! [`Fields`], [`DecodeError`] and [`Decoder`] (the loader's diagnostics, its
//! [`DecodeCodes`], and the struct/field/value helpers that report through them).
//!
//! The accepted subset is documented in `docs/animseq.md`; in short: named and anonymous
//! structs, tuples, named tuples (tuple structs, enum variants, `Some(x)`), unit idents (`None`,
//! `Owner`), lists, maps, strings (with escapes, and raw strings), integers (decimal, `0x`,
//! `0o`, `0b`, `_` separators), floats (including `inf`, `-inf`, `NaN`, which RON allows),
//! bools, `//` and nested `/* */` comments, and trailing commas. Not accepted: chars, byte
//! strings, float suffixes (`1.0f32`), raw identifiers and `#![enable(...)]` extension headers.
//!
//! Limits: nesting deeper than [`MAX_DEPTH`] is an error (never a stack overflow), and the
//! tree never allocates more than a constant factor of the input size.

mod decode;
mod parse;
mod splice;
mod value;

pub use decode::{
    DecodeCodes, DecodeError, DecodeErrorKind, Decoder, Fields, closest, expect_struct, short,
};
pub use parse::{ListItems, ParseError, parse, parse_lazy, trivia_end};
pub use splice::reparse_lazy;
pub use value::{Field, Name, Value, ValueKind, Variant};

/// The deepest nesting of lists, tuples, structs and maps the reader accepts.
pub const MAX_DEPTH: usize = 128;

#[cfg(test)]
mod tests {
    use super::parse::f32_of;
    use super::*;
    use crate::diag::Span;

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
        // A forgotten comma is reported where it belongs: right after the value before it.
        assert_eq!(
            err("(a: 1 b: 2)"),
            (
                "missing `,` before the next field `b` (expected `,` or `)`, found `b`)".into(),
                5..5
            )
        );
        assert_eq!(
            err("[1\n 2]"),
            (
                "missing `,` before the next value (expected `,` or `]`, found `2`)".into(),
                2..2
            )
        );
        assert_eq!(err("{\"a\": 1 \"b\": 2}").1, 7..7);
        // Anything that cannot start the next item is the token itself.
        assert_eq!(
            err("(a: 1 ; b: 2)"),
            ("expected `,` or `)`, found `;`".into(), 6..7)
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
