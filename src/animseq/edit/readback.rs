//! Reading an edited clip back without decoding its keys again (issue 28: a `PUT /api/clip` of
//! one edit on a 5 MB clip under 100 ms). The edits only splice the `format` value and the
//! `notifies`/`windows` lists, so the read back is, together, still the whole guarantee "the
//! text is exactly the edited sequence":
//!
//! 1. the whole edited text parses (`ron_span::reparse_lazy`: what `parse_lazy` answers, with
//!    a syntax pass over only what differs from the original and its small root fields);
//! 2. its root struct has the original's name, and its big fields — `tracks`, `curves`,
//!    `root_motion` — are the original's byte for byte (the original loaded cleanly, and a raised
//!    format only allows more fields, so they decode to the same values);
//! 3. everything else — `format`, `id`, `name`, `duration`, `skeleton`, `notifies`, `windows`,
//!    any unknown or repeated field — is loaded by the one loader, with the big fields standing
//!    in as `[]`/`None`, and must be exactly the edited sequence's, with no diagnostic at all.
//!
//! The identities' spans (what the catalog points at) are mapped back from that load to the
//! edited text. Anything unexpected falls back to loading the whole edited text.

use super::EditError;
use crate::animseq::{AnimSeq, SeqSpans, load};
use crate::diag::{SourceFile, Span};
use crate::ron_span::{self, Field, Value, ValueKind};

/// The root fields compared byte for byte and stood in for (with a value the loader accepts in
/// every format that allows the field).
const KEPT: [(&str, &str); 3] = [("tracks", "[]"), ("curves", "[]"), ("root_motion", "None")];

fn root_fields(v: &Value) -> Option<&[Field]> {
    match &v.kind {
        ValueKind::Struct { fields, .. } => Some(fields),
        _ => None,
    }
}

fn root_name(v: &Value) -> Option<&str> {
    match &v.kind {
        ValueKind::Struct { name, .. } => name.as_ref().map(|n| n.text.as_str()),
        _ => None,
    }
}

fn field_text<'t>(text: &'t str, f: &Field) -> &'t str {
    &text[f.name_span.start as usize..f.value.span.end as usize]
}

/// A copied piece of the edited text inside the reduced one: `(reduced start, edited start,
/// length)`.
type Chunk = (usize, usize, usize);

fn map_span(chunks: &[Chunk], s: Span) -> Option<Span> {
    let (start, end) = (s.start as usize, s.end as usize);
    chunks
        .iter()
        .find(|(r, _, len)| start >= *r && end <= r + len)
        .map(|&(r, n, _)| Span::new(start - r + n, end - r + n))
}

/// The identities' spans in `new` (the edited text of `orig`, whose root parsed as `orig_root`
/// and loaded cleanly with `orig_spans`), once `new` is known to hold exactly `want` at
/// `format`; `Ok(None)` when the shortcut does not apply (then the caller loads `new` whole).
pub(super) fn read_back(
    name: &str,
    orig: &str,
    orig_root: &Value,
    orig_spans: &SeqSpans,
    new: &str,
    want: &AnimSeq,
    format: u32,
) -> Result<Option<SeqSpans>, EditError> {
    let lost = |m: &str| EditError::NotLossless(m.to_string());
    // 1. The whole text parses: read again where it differs from the original (whose tree is
    //    known), the kept bulk stood in for (`ron_span::reparse_lazy`, the same answer).
    let root = ron_span::reparse_lazy(orig, orig_root, new)
        .map_err(|e| EditError::NotLossless(e.message))?;
    // The next batch on the saved text starts from this tree.
    super::recall::remember_root(new, &root);
    let (Some(fields), Some(orig_fields)) = (root_fields(&root), root_fields(orig_root)) else {
        return Ok(None);
    };
    if root_name(&root) != root_name(orig_root) {
        return Err(lost("the root struct's name changed"));
    }
    // 2. The big fields are the original's, byte for byte.
    let mut shift_root_motion = None;
    for (k, _) in KEPT {
        let was: Vec<&Field> = orig_fields.iter().filter(|f| f.name == k).collect();
        let is: Vec<&Field> = fields.iter().filter(|f| f.name == k).collect();
        if was.len() != is.len() {
            return Err(lost(&format!("the `{k}` field was added or removed")));
        }
        for (a, b) in was.iter().zip(&is) {
            if field_text(orig, a) != field_text(new, b) {
                return Err(lost(&format!("the `{k}` field's text changed")));
            }
            if k == "root_motion" {
                shift_root_motion = Some(b.name_span.start as i64 - a.name_span.start as i64);
            }
        }
    }
    // 3. Everything else loads to exactly the edited sequence.
    let head_end = fields
        .first()
        .map_or(root.span.end as usize, |f| f.name_span.start as usize);
    let head = &new[root.span.start as usize..head_end];
    let mut r = String::with_capacity(head.len() + 256);
    let mut chunks: Vec<Chunk> = Vec::new();
    chunks.push((0, root.span.start as usize, head.len()));
    r.push_str(head);
    for f in fields {
        match KEPT.iter().find(|(k, _)| *k == f.name) {
            Some((k, stand_in)) => {
                r.push_str(k);
                r.push_str(": ");
                r.push_str(stand_in);
            }
            None => {
                let t = field_text(new, f);
                chunks.push((r.len(), f.name_span.start as usize, t.len()));
                r.push_str(t);
            }
        }
        r.push_str(",\n");
    }
    if fields.is_empty() {
        r.truncate(0);
        r.push_str(&new[root.span.start as usize..root.span.end as usize]);
    } else {
        r.push(')');
    }
    let back = load(&SourceFile::new(name, r));
    if !back.diagnostics.is_empty() {
        // A diagnostic's place is in the reduced text: let the whole text say it.
        return Ok(None);
    }
    let (Some(seq), Some(spans)) = (back.seq, back.spans) else {
        return Ok(None);
    };
    let same = back.format == format
        && seq.id == want.id
        && seq.name == want.name
        && seq.duration.to_bits() == want.duration.to_bits()
        && seq.skeleton == want.skeleton
        && seq.notifies == want.notifies
        && seq.windows == want.windows;
    if !same {
        return Err(lost("it reads back with different data"));
    }
    let map = |s: Span| map_span(&chunks, s).ok_or_else(|| lost("a span left its field"));
    let spans = SeqSpans {
        id: map(spans.id)?,
        notify_ids: spans
            .notify_ids
            .into_iter()
            .map(map)
            .collect::<Result<_, _>>()?,
        window_ids: spans
            .window_ids
            .into_iter()
            .map(map)
            .collect::<Result<_, _>>()?,
        root_motion_bone: match (orig_spans.root_motion_bone, shift_root_motion) {
            (Some(s), Some(d)) => Some(Span::new(
                (s.start as i64 + d) as usize,
                (s.end as i64 + d) as usize,
            )),
            _ => None,
        },
    };
    Ok(Some(spans))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORIG: &str = "// c\nAnimSeq(\n    format: 2,\n    id: \"c\",\n    name: \"C\",\n    duration: 2.0,\n    tracks: [(bone: \"hips\", translation: [(0.0, (0.0, 1.0, 0.0))], rotation: [], scale: [])],\n    notifies: [(id: \"a\", name: \"A\", time: 0.5)],\n    root_motion: Some((bone: \"hips\", translation: (x: true, y: false, z: true), yaw: false)),\n)\n";

    /// The read back of `new` when the edit meant to move notify `a` to 0.75.
    fn check(new: &str) -> Result<Option<SeqSpans>, EditError> {
        let loaded = load(&SourceFile::new("c", ORIG));
        let mut want = loaded.seq.unwrap();
        want.notifies[0].time = 0.75;
        let root = ron_span::parse_lazy(ORIG).unwrap();
        read_back("c", ORIG, &root, &loaded.spans.unwrap(), new, &want, 2)
    }

    #[test]
    fn the_intended_text_reads_back_with_the_spans_load_gives() {
        let new = format!("{}\n", ORIG.replace("time: 0.5", "time: 0.75").trim_end());
        let spans = check(&new).unwrap().unwrap();
        assert_eq!(Some(spans), load(&SourceFile::new("c", new.as_str())).spans);
        // The format raised in the same text.
        let new = ORIG
            .replace("time: 0.5", "time: 0.75")
            .replace("format: 2", "format: 3");
        assert!(check(&new).is_err());
    }

    #[test]
    fn anything_not_intended_is_refused() {
        let moved = ORIG.replace("time: 0.5", "time: 0.75");
        for bad in [
            // a key of the tracks changed
            moved.replace("(0.0, 1.0, 0.0)", "(0.0, 1.5, 0.0)"),
            // the root motion changed
            moved.replace("yaw: false", "yaw: true"),
            // the wrong time
            ORIG.replace("time: 0.5", "time: 0.7"),
            // a field lost
            moved.replace("    name: \"C\",\n", ""),
            // another name
            moved.replace("name: \"A\"", "name: \"B\""),
            // a field added twice
            moved.replace("    name: \"C\",\n", "    name: \"C\",\n    name: \"C\",\n"),
            // the root renamed
            moved.replace("AnimSeq(", "AnimSeqs("),
            // broken syntax after the markers
            moved.replace("yaw: false))", "yaw: false)"),
            // the tracks commented out around the edit, and a block comment left open before them
            moved
                .replace("    tracks:", "    /* tracks:")
                .replace("    notifies:", "*/ notifies:"),
            moved.replace("duration: 2.0,", "duration: 2.0, /*"),
            // the tracks and the root motion nested in a field the edit opened
            moved.replace("duration: 2.0,", "duration: 2.0, x: Foo("),
            // the root motion swallowed by a string the edit opened after the markers
            moved.replace("time: 0.75)],", "time: 0.75)], s: \""),
        ] {
            assert!(!matches!(check(&bad), Ok(Some(_))), "accepted:\n{bad}");
        }
    }
}
