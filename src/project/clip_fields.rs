//! The `skeleton` field of each clip as the clip-skeleton check reads it, remembered per clip
//! by the clip's exact bytes (issue 28: the studio's refresh after a `PUT /api/clip` no longer
//! parses every clip of the project again, only the ones whose bytes changed).
//!
//! The key is the path, the bytes' length and a 128-bit SipHash of the bytes under keys drawn
//! once per memo (so two different texts meet the same entry with odds below 2⁻¹²⁸, and no file
//! can be crafted against it); a miss parses the text lazily as before. At most
//! [`MAX_REMEMBERED_CLIPS`] entries; past that the memo is emptied and refilled.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher, RandomState};
use std::sync::Mutex;

use super::ProjectPath;
use crate::diag::Span;
use crate::ron_span::{self, ValueKind};

/// Most clips whose `skeleton` field the memo keeps (`docs/limits.md`).
pub const MAX_REMEMBERED_CLIPS: usize = 65_536;

/// A clip's `skeleton` field: the path written and the span of its value (`None` when the
/// path came from a remembered load: the caller parses for it only to place a warning).
pub(super) type SkeletonField = Option<(String, Option<Span>)>;

/// What one clip's entry holds: the bytes' digest and length, and the field.
type Entry = ([u64; 2], usize, SkeletonField);

/// Each clip's `skeleton` field, remembered by its bytes (see the module documentation).
#[derive(Debug, Default)]
pub struct ClipFieldMemo {
    keys: (RandomState, RandomState),
    seen: Mutex<HashMap<ProjectPath, Entry>>,
}

impl ClipFieldMemo {
    fn digest(&self, bytes: &[u8]) -> [u64; 2] {
        let mut a = self.keys.0.build_hasher();
        let mut b = self.keys.1.build_hasher();
        a.write(bytes);
        b.write(bytes);
        [a.finish(), b.finish()]
    }

    /// The `skeleton` field of `text` (the bytes of clip `path`), from memory when the same
    /// bytes were read there before.
    pub(super) fn skeleton_field(&self, path: &ProjectPath, text: &str) -> SkeletonField {
        let digest = self.digest(text.as_bytes());
        if let Ok(seen) = self.seen.lock()
            && let Some((d, len, f)) = seen.get(path)
            && *d == digest
            && *len == text.len()
        {
            return f.clone();
        }
        // The studio's last saved or served clip: its load already knows the field.
        let field = match crate::animseq::recalled_skeleton(text.as_bytes()) {
            Some(skeleton) => skeleton.map(|p| (p, None)),
            None => skeleton_field(text).map(|(p, s)| (p, Some(s))),
        };
        if let Ok(mut seen) = self.seen.lock() {
            if seen.len() >= MAX_REMEMBERED_CLIPS && !seen.contains_key(path) {
                seen.clear();
            }
            seen.insert(path.clone(), (digest, text.len(), field.clone()));
        }
        field
    }
}

/// Only `skeleton` is read: a lazy parse checks the syntax without a tree of the keys.
pub(super) fn skeleton_field(text: &str) -> Option<(String, Span)> {
    let v = ron_span::parse_lazy(text).ok()?;
    let ValueKind::Struct { fields, .. } = &v.kind else {
        return None;
    };
    let sv = fields
        .iter()
        .find(|f| f.name == "skeleton")
        .map(|f| f.value.as_option())?
        .ok()??;
    let path = sv.as_str().ok()?;
    Some((path.to_string(), sv.span))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clip_is_parsed_again_only_when_its_bytes_change() {
        let _serial = crate::animseq::edit::recall::TEST_SERIAL.lock();
        let memo = ClipFieldMemo::default();
        let p = ProjectPath::new("a.animseq").unwrap();
        let one = "AnimSeq(id: \"a\", skeleton: Some(\"one.skel\"), tracks: [])";
        let f = memo.skeleton_field(&p, one).unwrap();
        assert_eq!(f.0, "one.skel");
        assert_eq!(&one[f.1.unwrap().range()], "\"one.skel\"");
        // Same bytes: the remembered answer, whatever the parser would say now.
        memo.seen.lock().unwrap().get_mut(&p).unwrap().2 = Some(("marked".into(), f.1));
        assert_eq!(memo.skeleton_field(&p, one).unwrap().0, "marked");
        // Other bytes at the same path: parsed again.
        let two = one.replace("one.skel", "two.skel");
        assert_eq!(memo.skeleton_field(&p, &two).unwrap().0, "two.skel");
        let none = "AnimSeq(id: \"a\", skeleton: None, tracks: [])";
        assert_eq!(memo.skeleton_field(&p, none), None);
        assert_eq!(
            memo.skeleton_field(&p, "AnimSeq(skeleton: Some(\"x\")"),
            None
        );
        // The studio's remembered load answers without a parse (no span: found on demand).
        let saved = "AnimSeq(id: \"clip-fields-test\", name: \"S\", duration: 1.0, skeleton: Some(\"s.skel\"), tracks: [])";
        let loaded = crate::animseq::load_bytes("s", saved.as_bytes());
        crate::animseq::remember_load(saved.as_bytes(), loaded);
        assert_eq!(
            memo.skeleton_field(&p, saved),
            Some(("s.skel".into(), None))
        );
        // Another path with the same bytes has its own entry.
        let q = ProjectPath::new("b.animseq").unwrap();
        assert_eq!(memo.skeleton_field(&q, one).unwrap().0, "one.skel");
    }
}
