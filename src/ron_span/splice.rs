//! Parsing an edited text again without reading its unchanged bulk (issue 28: a `PUT
//! /api/clip` of one edit on a 5 MB clip under 100 ms). [`reparse_lazy`] answers exactly what
//! [`parse_lazy`] answers for the new text, given the old text and its lazy tree.
//!
//! How: the old and new texts share a prefix and a suffix (found by comparing bytes); every
//! value of a root struct field that lies wholly inside one of them, and ends with a closing
//! bracket (`]`, `)`, `}`), is the same bytes in the new text, shifted by nothing (prefix) or by
//! the change in length (suffix). The new text with each such value replaced by `[]` (the
//! *reduced* text, small) is parsed whole. When each `[]` parses as the value of a root field,
//! the parser reached each of those values in the new text in the state it had reached it in
//! the old text (a root field's value, the same bytes before it), read the same bytes to the
//! same closing bracket (a value ending with a bracket is read without looking past it), and
//! left in the state the `[]` left it in; so the new text parses, and its tree is the reduced
//! text's with each `[]` replaced by the old value (spans moved). Anything else — the reduced
//! text does not parse, a `[]` is read as something other than a root field's value, the root
//! is not a struct, nothing to keep — parses the new text whole, so errors are the whole
//! text's, word for word.

use super::{Field, ParseError, Value, ValueKind, parse_lazy};
use crate::diag::Span;

/// What [`parse_lazy`] answers for `new`, reading again only what differs from `old` (whose
/// [`parse_lazy`] tree is `old_root`) and the small root fields (see the module documentation).
pub fn reparse_lazy(old: &str, old_root: &Value, new: &str) -> Result<Value, ParseError> {
    match spliced(old, old_root, new) {
        Some(v) => Ok(v),
        None => parse_lazy(new),
    }
}

/// Bytes compared at once while looking for the first difference.
const BLOCK: usize = 64;

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + BLOCK <= n && a[i..i + BLOCK] == b[i..i + BLOCK] {
        i += BLOCK;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// The length of the common suffix of `a` and `b`, at most `max`.
fn common_suffix(a: &[u8], b: &[u8], max: usize) -> usize {
    let (la, lb) = (a.len(), b.len());
    let mut i = 0;
    while i + BLOCK <= max && a[la - i - BLOCK..la - i] == b[lb - i - BLOCK..lb - i] {
        i += BLOCK;
    }
    while i < max && a[la - i - 1] == b[lb - i - 1] {
        i += 1;
    }
    i
}

/// A piece of the new text copied into the reduced one: reduced offsets `lo..=hi` are new
/// offsets plus `shift`.
struct Chunk {
    lo: usize,
    hi: usize,
    shift: i64,
}

fn moved(x: u32, shift: i64) -> Option<u32> {
    u32::try_from(i64::from(x) + shift).ok()
}

/// Applies `f` to every span in `v`.
fn map_spans(v: &mut Value, f: &impl Fn(u32) -> Option<u32>) -> Option<()> {
    let span = |s: &mut Span| -> Option<()> {
        *s = Span {
            start: f(s.start)?,
            end: f(s.end)?,
        };
        Some(())
    };
    span(&mut v.span)?;
    let fields = |fs: &mut Vec<Field>| -> Option<()> {
        for fd in fs {
            span(&mut fd.name_span)?;
            map_spans(&mut fd.value, f)?;
        }
        Some(())
    };
    match &mut v.kind {
        ValueKind::Tuple {
            name,
            items,
            fields: fs,
        } => {
            if let Some(n) = name {
                span(&mut n.span)?;
            }
            for i in items {
                map_spans(i, f)?;
            }
            fields(fs)?;
        }
        ValueKind::Struct { name, fields: fs } => {
            if let Some(n) = name {
                span(&mut n.span)?;
            }
            fields(fs)?;
        }
        ValueKind::List(items) => {
            for i in items {
                map_spans(i, f)?;
            }
        }
        ValueKind::Map(entries) => {
            for (k, x) in entries {
                map_spans(k, f)?;
                map_spans(x, f)?;
            }
        }
        _ => {}
    }
    Some(())
}

/// The tree of `new` built from the reduced text's, or `None` when the shortcut does not apply.
fn spliced(old: &str, old_root: &Value, new: &str) -> Option<Value> {
    let ValueKind::Struct { fields, .. } = &old_root.kind else {
        return None;
    };
    let (o, n) = (old.as_bytes(), new.as_bytes());
    let prefix = common_prefix(o, n);
    let suffix = common_suffix(o, n, o.len().min(n.len()) - prefix);
    let delta = n.len() as i64 - o.len() as i64;
    // The old values kept, with where they stand in the new text.
    let mut kept: Vec<(&Value, usize, usize)> = Vec::new();
    for f in fields {
        let (a, b) = (f.value.span.start as usize, f.value.span.end as usize);
        if b <= a + 2 || !matches!(o.get(b - 1), Some(b']' | b')' | b'}')) {
            continue;
        }
        if b <= prefix {
            kept.push((&f.value, a, b));
        } else if a >= o.len() - suffix {
            let at = |x: usize| usize::try_from(x as i64 + delta).ok();
            kept.push((&f.value, at(a)?, at(b)?));
        }
    }
    if kept.is_empty() {
        return None;
    }
    let dropped: usize = kept.iter().map(|(_, a, b)| b - a).sum();
    let mut reduced = String::with_capacity(n.len().saturating_sub(dropped) + 2 * kept.len());
    let mut chunks = Vec::with_capacity(kept.len() + 1);
    let mut stand_ins = Vec::with_capacity(kept.len());
    let mut pos = 0;
    for &(_, a, b) in &kept {
        let lo = reduced.len();
        reduced.push_str(new.get(pos..a)?);
        chunks.push(Chunk {
            lo,
            hi: reduced.len(),
            shift: pos as i64 - lo as i64,
        });
        stand_ins.push(reduced.len());
        reduced.push_str("[]");
        pos = b;
    }
    let lo = reduced.len();
    reduced.push_str(new.get(pos..)?);
    chunks.push(Chunk {
        lo,
        hi: reduced.len(),
        shift: pos as i64 - lo as i64,
    });
    let mut root = parse_lazy(&reduced).ok()?;
    let to_new = |x: u32| {
        let c = chunks
            .iter()
            .find(|c| c.lo <= x as usize && x as usize <= c.hi)?;
        moved(x, c.shift)
    };
    let span_to_new = |s: Span| -> Option<Span> {
        Some(Span {
            start: to_new(s.start)?,
            end: to_new(s.end)?,
        })
    };
    let ValueKind::Struct { fields, name } = &mut root.kind else {
        return None;
    };
    // Each stand-in must be read as a root field's value, exactly; it takes the old value back.
    let mut found = 0;
    for f in fields.iter_mut() {
        f.name_span = span_to_new(f.name_span)?;
        let at = f.value.span.start as usize;
        let Ok(k) = stand_ins.binary_search(&at) else {
            map_spans(&mut f.value, &to_new)?;
            continue;
        };
        if f.value.span.end as usize != at + 2
            || !matches!(&f.value.kind, ValueKind::List(items) if items.is_empty())
        {
            return None;
        }
        let (old_value, a, _) = kept[k];
        let mut v = old_value.clone();
        let shift = a as i64 - i64::from(old_value.span.start);
        map_spans(&mut v, &|x| moved(x, shift))?;
        f.value = v;
        found += 1;
    }
    if found != stand_ins.len() {
        return None;
    }
    if let Some(nm) = name {
        nm.span = span_to_new(nm.span)?;
    }
    root.span = span_to_new(root.span)?;
    Some(root)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const DOC: &str = "// a clip\nAnimSeq(\n    format: 2,\n    id: \"c\",\n    tracks: [\n        (bone: \"hips\", rotation: [(0.0, (0.0, 0.0, 0.0, 1.0)), (0.5, (0.0, 0.1, 0.0, 0.99))]),\n        (bone: \"spine\", rotation: []),\n    ],\n    notifies: [\n        (id: \"a\", name: \"A\", time: 0.5), // step\n    ],\n    curves: { \"x\": [(0.0, 1.0)] },\n    root_motion: Some((bone: \"hips\", translation: (x: true, y: false, z: true), yaw: false)),\n)\n";

    fn same_as_whole(old: &str, new: &str) {
        let root = parse_lazy(old).unwrap();
        assert_eq!(
            reparse_lazy(old, &root, new),
            parse_lazy(new),
            "old:\n{old}\nnew:\n{new}"
        );
    }

    #[test]
    fn an_edit_between_kept_values_is_read_without_them_and_gives_the_whole_tree() {
        let new = DOC.replace("time: 0.5", "time: 0.75, chance: 0.5");
        let root = parse_lazy(DOC).unwrap();
        // The shortcut applies (the tracks, curves and root motion stand in as `[]`)…
        let v = spliced(DOC, &root, &new).expect("the shortcut applies");
        // …and answers exactly the whole text's tree.
        assert_eq!(Ok(v), parse_lazy(&new));
        // The same before the first kept value and after the last.
        same_as_whole(DOC, &DOC.replace("id: \"c\"", "id: \"clip\""));
        same_as_whole(DOC, &DOC.replace("yaw: false))", "yaw: false)), id2: 1"));
        same_as_whole(DOC, &format!("{DOC}\n// end\n"));
        // A byte-order mark and CRLF line ends.
        let crlf = format!("\u{feff}{}", DOC.replace('\n', "\r\n"));
        let root = parse_lazy(&crlf).unwrap();
        let new = crlf.replace("time: 0.5", "time: 0.25");
        assert_eq!(spliced(&crlf, &root, &new).map(Ok), Some(parse_lazy(&new)));
        same_as_whole(&crlf, &crlf.replace("\u{feff}", ""));
    }

    #[test]
    fn an_edit_that_breaks_the_syntax_around_kept_values_is_the_whole_texts_error() {
        for new in [
            // a line comment that swallows the start of the tracks
            DOC.replacen("id: \"c\",\n", "id: \"c\",//", 1),
            // a block comment opened before the tracks swallows them
            DOC.replace("id: \"c\",", "id: \"c\", /*"),
            // a string opened before the curves
            DOC.replace("// step", "\"step"),
            // a list not closed
            DOC.replace("// step\n    ],", "// step\n    "),
            // a bracket that changes what the tracks are read as
            DOC.replace("format: 2,", "format: [2,"),
            // the root closed early
            DOC.replace("    notifies:", ")\n    notifies:"),
        ] {
            assert!(parse_lazy(&new).is_err(), "{new}");
            same_as_whole(DOC, &new);
        }
    }

    /// Pieces a random edit is made of: syntax that can open, close or swallow what follows.
    const PIECES: [&str; 16] = [
        "[", "]", "(", ")", "{", "}", ",", "\"", "/*", "*/", "//", "\n", " x: 1", "r#\"", "\"#",
        "Some(",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Whatever replaces whatever range: the answer is the whole text's, tree or error.
        #[test]
        fn any_edit_answers_what_the_whole_text_parses_to(
            at in 0usize..DOC.len(),
            len in 0usize..40,
            with in proptest::collection::vec(0usize..PIECES.len(), 0..4),
        ) {
            let at = (0..=at).rev().find(|&i| DOC.is_char_boundary(i)).unwrap_or(0);
            let end = (at + len).min(DOC.len());
            let end = (end..=DOC.len()).find(|&i| DOC.is_char_boundary(i)).unwrap_or(DOC.len());
            let text: String = with.iter().map(|&i| PIECES[i]).collect();
            let new = format!("{}{text}{}", &DOC[..at], &DOC[end..]);
            let root = parse_lazy(DOC).unwrap();
            prop_assert_eq!(reparse_lazy(DOC, &root, &new), parse_lazy(&new));
        }
    }
}
