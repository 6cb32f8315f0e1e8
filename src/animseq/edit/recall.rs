//! The load of the clip text the studio saved (or served) last, remembered so the catalog
//! refresh that follows the save (and the watcher's, when it sees the same write) and the next
//! batch of edits on that text do not decode the clip's keys again (issue 28). A memo of a pure function keyed by the exact bytes: a hit answers what
//! [`load_bytes`] would, for any name (a clean load's answer holds no name). One entry, replaced
//! by the next save (`docs/limits.md`).

use crate::animseq::{Loaded, load, load_bytes};
use crate::diag::SourceFile;
use std::sync::{Arc, Mutex};

static LAST: Mutex<Option<(Arc<[u8]>, Loaded)>> = Mutex::new(None);

/// Remembers that `bytes` load as `loaded` (only a load without diagnostics is kept).
pub fn remember_load(bytes: &[u8], loaded: Loaded) {
    if loaded.seq.is_none() || !loaded.diagnostics.is_empty() {
        return;
    }
    if let Ok(mut last) = LAST.lock() {
        *last = Some((Arc::from(bytes), loaded));
    }
}

/// [`load_bytes`], answered from memory when `bytes` are the ones remembered last.
pub fn load_bytes_recalled(name: &str, bytes: &[u8]) -> Loaded {
    if let Ok(last) = LAST.lock()
        && let Some((b, l)) = last.as_ref()
        && **b == *bytes
    {
        return l.clone();
    }
    load_bytes(name, bytes)
}

/// [`load`], answered from memory when the text of `src` is the one remembered last.
pub(super) fn load_recalled(src: &SourceFile) -> Loaded {
    if let Ok(last) = LAST.lock()
        && let Some((b, l)) = last.as_ref()
        && **b == *src.text().as_bytes()
    {
        return l.clone();
    }
    load(src)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembered_bytes_are_answered_from_memory_and_others_loaded() {
        let text = b"AnimSeq(id: \"recall-test\", name: \"R\", duration: 1.0, tracks: [])";
        let mut told = load_bytes("r", text);
        assert!(told.seq.is_some() && told.diagnostics.is_empty());
        // A marked answer shows where it came from.
        told.format = 99;
        remember_load(text, told.clone());
        assert_eq!(load_bytes_recalled("other name", text).format, 99);
        let src = SourceFile::new("edit", std::str::from_utf8(text).unwrap());
        assert_eq!(load_recalled(&src).format, 99);
        let other = b"AnimSeq(id: \"recall-test\", name: \"S\", duration: 1.0, tracks: [])";
        assert_eq!(load_bytes_recalled("r", other).format, 1);
        let src = SourceFile::new("edit", std::str::from_utf8(other).unwrap());
        assert_eq!(load_recalled(&src).format, 1);
        // Only a clean load is kept.
        let mut bad = load_bytes("r", b"AnimSeq(");
        assert!(!bad.diagnostics.is_empty());
        bad.diagnostics.clear();
        remember_load(b"AnimSeq(", bad);
        assert!(!load_bytes_recalled("r", b"AnimSeq(").diagnostics.is_empty());
    }
}
