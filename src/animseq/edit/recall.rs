//! The load of the clip text the studio saved (or served) last, remembered so the catalog
//! refresh that follows the save (and the watcher's, when it sees the same write) and the next
//! batch of edits on that text do not decode the clip's keys again (issue 28). A memo of a pure function keyed by the exact bytes: a hit answers what
//! [`load_bytes`] would, for any name (a clean load's answer holds no name). One entry, replaced
//! by the next save (`docs/limits.md`).

use crate::animseq::{Loaded, load, load_bytes};
use crate::diag::SourceFile;
use crate::ron_span::{self, Value};
use std::sync::{Arc, Mutex};

static LAST: Mutex<Option<(Arc<[u8]>, Loaded)>> = Mutex::new(None);

/// Held by the unit tests that remember loads (one memo for the whole process).
#[cfg(test)]
pub(crate) static TEST_SERIAL: Mutex<()> = Mutex::new(());

/// One value remembered with the exact bytes it was computed from.
struct Memo<T>(Mutex<Option<(Arc<[u8]>, T)>>);

impl<T: Clone> Memo<T> {
    const fn new() -> Memo<T> {
        Memo(Mutex::new(None))
    }

    fn remember(&self, bytes: &[u8], v: T) {
        if let Ok(mut last) = self.0.lock() {
            *last = Some((Arc::from(bytes), v));
        }
    }

    fn get(&self, bytes: &[u8]) -> Option<T> {
        let last = self.0.lock().ok()?;
        let (b, v) = last.as_ref()?;
        (**b == *bytes).then(|| v.clone())
    }
}

/// The lazy syntax tree ([`ron_span::parse_lazy`]) of the clip text edited or served last.
static ROOT: Memo<Value> = Memo::new();

/// Remembers that `text` parses lazily as `root`.
pub fn remember_root(text: &str, root: &Value) {
    ROOT.remember(text.as_bytes(), root.clone());
}

fn parse_lazy_in(memo: &Memo<Value>, text: &str) -> Result<Value, ron_span::ParseError> {
    match memo.get(text.as_bytes()) {
        Some(v) => Ok(v),
        None => ron_span::parse_lazy(text),
    }
}

/// [`ron_span::parse_lazy`] of `text`, from memory when it is the text remembered last.
pub(super) fn parse_lazy_recalled(text: &str) -> Result<Value, ron_span::ParseError> {
    parse_lazy_in(&ROOT, text)
}

/// The `skeleton` field of the remembered load of `bytes`, when they are the bytes remembered
/// last (`None`: not remembered).
pub fn recalled_skeleton(bytes: &[u8]) -> Option<Option<String>> {
    let last = LAST.lock().ok()?;
    let (b, l) = last.as_ref()?;
    (**b == *bytes).then(|| l.seq.as_ref().and_then(|s| s.skeleton.clone()))
}

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
    fn a_remembered_root_is_answered_from_memory_and_others_parsed() {
        let memo = Memo::new();
        let text = "AnimSeq(id: \"root-recall-test\", tracks: [])";
        let marked = ron_span::parse_lazy("Marked(x: 1)").unwrap();
        memo.remember(text.as_bytes(), marked.clone());
        assert_eq!(parse_lazy_in(&memo, text).unwrap(), marked);
        let other = "AnimSeq(id: \"root-recall-other\", tracks: [])";
        assert_eq!(parse_lazy_in(&memo, other), ron_span::parse_lazy(other));
    }

    #[test]
    fn remembered_bytes_are_answered_from_memory_and_others_loaded() {
        let _serial = TEST_SERIAL.lock();
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
        assert_eq!(recalled_skeleton(text), Some(None));
        assert_eq!(recalled_skeleton(other), None);
        // Only a clean load is kept.
        let mut bad = load_bytes("r", b"AnimSeq(");
        assert!(!bad.diagnostics.is_empty());
        bad.diagnostics.clear();
        remember_load(b"AnimSeq(", bad);
        assert!(!load_bytes_recalled("r", b"AnimSeq(").diagnostics.is_empty());
    }
}
