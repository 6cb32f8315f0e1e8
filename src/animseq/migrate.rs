//! Lossless format migration of `.animseq` text: the file's own text is edited at the spans
//! `ron_span` gives — the `format` value, fields the target version does not allow (which then
//! hold their defaults) — and everything else, comments and layout included, is kept byte for
//! byte. The result is read back and must be the same sequence at the target format, or
//! nothing is returned to write. Pure: text in, text out (see `docs/animseq.md`, "Migrating").

use super::load::{notify_field_version, root_field_version};
use super::*;
use crate::diag::{Diagnostic, SourceFile};
use crate::ron_span::{self, Field, Value, ValueKind};

/// What migrating one file comes to.
#[derive(Clone, Debug, PartialEq)]
pub enum Migration {
    /// The file already declares the target format: nothing to write.
    Unchanged {
        /// Its format.
        format: u32,
    },
    /// The file's text at the target format.
    Rewritten {
        /// The declared format before.
        from: u32,
        /// The format now declared.
        to: u32,
        /// The new text (read back and checked: the same sequence).
        text: String,
    },
}

/// Why a file cannot be migrated.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MigrateError {
    /// The file does not load cleanly; the diagnostics say why.
    #[error("the file has errors")]
    Invalid(Vec<Diagnostic>),
    /// The target format cannot hold the sequence's data.
    #[error("format {target} cannot hold this sequence: it needs format {needs} ({why})")]
    TargetTooLow {
        /// The requested format.
        target: u32,
        /// The lowest format that holds the data.
        needs: u32,
        /// What needs it ("window `hit`").
        why: String,
    },
    /// No such format (0, or newer than this reader).
    #[error("no format {0}: Sinew writes formats 1 to {CURRENT_FORMAT}")]
    NoSuchFormat(u32),
    /// The edited text did not read back as the same sequence (a bug; nothing is written).
    #[error("the migrated text does not read back as the same sequence ({0})")]
    NotLossless(String),
}

/// Migrates `src` to format `target` (default: the lowest that holds its data).
pub fn migrate(src: &SourceFile, target: Option<u32>) -> Result<Migration, MigrateError> {
    let loaded = load(src);
    let seq = match loaded.seq {
        Some(seq) if !loaded.diagnostics.iter().any(Diagnostic::is_error) => seq,
        _ => return Err(MigrateError::Invalid(loaded.diagnostics)),
    };
    let needs = min_format(&seq);
    let target = target.unwrap_or(needs);
    if !(1..=CURRENT_FORMAT).contains(&target) {
        return Err(MigrateError::NoSuchFormat(target));
    }
    if target < needs {
        return Err(MigrateError::TargetTooLow {
            target,
            needs,
            why: what_needs(&seq, needs),
        });
    }
    if loaded.format == target {
        return Ok(Migration::Unchanged { format: target });
    }
    let text = src.text();
    let root = ron_span::parse_lazy(text).map_err(|e| MigrateError::NotLossless(e.message))?;
    let ValueKind::Struct { fields, .. } = &root.kind else {
        return Err(MigrateError::NotLossless("the root is not a struct".into()));
    };
    let mut edits = Edits::new(text);
    // The `format` field: a new value, removed for format 1 (written without it, as the oldest
    // readers predate it), or added before the first field of a format-1 file.
    match fields.iter().find(|f| f.name == "format") {
        Some(f) if target > 1 => edits.replace(f.value.span.range(), target.to_string()),
        Some(_) => {}
        None => edits.insert_first_field(&fields[0], target),
    }
    let drop =
        |f: &Field| (f.name == "format" && target == 1) || root_field_version(&f.name) > target;
    edits.delete_fields(fields, drop);
    if let Some(f) = fields.iter().find(|f| f.name == "notifies" && !drop(f))
        && let Ok(items) = f.value.items(text)
    {
        for item in items {
            if let ValueKind::Struct { fields, .. } = &item.kind {
                edits.delete_fields(fields, |f| notify_field_version(&f.name) > target);
            }
        }
    }
    let out = edits.apply();
    // Never hand back text that does not read back exactly. The sequence is compared by digest
    // so that it is not held beside the one read back (memory stays a small multiple of the
    // file: `docs/benchmarks.md`), and the new text is held once, by the file read back.
    let (from, expected) = (loaded.format, digest(&seq));
    std::mem::drop(seq);
    let file = SourceFile::new(src.name(), out);
    let back = load(&file);
    if let Some(d) = back.diagnostics.first() {
        return Err(MigrateError::NotLossless(format!(
            "{}: {}",
            d.code, d.message
        )));
    }
    if back.format != target || back.seq.as_ref().map(digest) != Some(expected) {
        return Err(MigrateError::NotLossless(format!(
            "read back as format {} with different data",
            back.format
        )));
    }
    std::mem::drop(back);
    Ok(Migration::Rewritten {
        from,
        to: target,
        text: file.text().to_string(),
    })
}

/// A SHA-256 digest of a sequence's `Debug` form, written straight into the hasher. `Debug`
/// prints every number in its shortest round-trip form, so equal digests mean equal data.
fn digest(seq: &AnimSeq) -> [u8; 32] {
    use sha2::Digest;
    struct Hashing(sha2::Sha256);
    impl std::fmt::Write for Hashing {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0.update(s.as_bytes());
            Ok(())
        }
    }
    let mut h = Hashing(sha2::Sha256::new());
    let _ = std::fmt::Write::write_fmt(&mut h, format_args!("{seq:?}"));
    h.0.finalize().into()
}

/// A short account of what makes `seq` need format `needs`.
fn what_needs(seq: &AnimSeq, needs: u32) -> String {
    let gated = seq.notifies.iter().find(|n| !n.gating.is_default());
    let payload = seq
        .notifies
        .iter()
        .find(|n| n.target != Target::Owner || !n.fields.is_empty());
    match (needs, seq.windows.first(), gated, payload) {
        (4, Some(w), _, _) => format!("window `{}`", ron_span::short(&w.id)),
        (4, None, Some(n), _) => format!(
            "notify `{}` has a weight threshold or chance",
            ron_span::short(&n.id)
        ),
        (3, _, _, Some(n)) if n.target != Target::Owner => {
            format!("notify `{}` has a target", ron_span::short(&n.id))
        }
        (3, _, _, Some(n)) => format!("notify `{}` has fields", ron_span::short(&n.id)),
        _ if !seq.notifies.is_empty() => "notifies".into(),
        _ if !seq.curves.is_empty() => "curves".into(),
        _ => "root motion".into(),
    }
}

/// Pending edits of one text: deletions (merged where they touch) and replacements or
/// insertions, never overlapping a deletion (also the clip editor's, `edit.rs`).
pub(super) struct Edits<'t> {
    text: &'t str,
    dels: Vec<(usize, usize)>,
    puts: Vec<(usize, usize, String)>,
}

impl<'t> Edits<'t> {
    pub(super) fn new(text: &'t str) -> Edits<'t> {
        Edits {
            text,
            dels: Vec::new(),
            puts: Vec::new(),
        }
    }

    pub(super) fn replace(&mut self, range: std::ops::Range<usize>, with: String) {
        self.puts.push((range.start, range.end, with));
    }

    /// Deletes `range`; a line it leaves blank is removed whole.
    pub(super) fn delete(&mut self, range: std::ops::Range<usize>) {
        self.dels.push((range.start, range.end));
    }

    /// `format: N,` before `first`, on a line of its own when `first` starts one.
    pub(super) fn insert_first_field(&mut self, first: &Field, target: u32) {
        let at = first.name_span.start as usize;
        let line_start = self.text[..at].rfind('\n').map_or(0, |i| i + 1);
        let indent = &self.text[line_start..at];
        let text = if indent.trim().is_empty() {
            let eol = if self.text.contains("\r\n") {
                "\r\n"
            } else {
                "\n"
            };
            format!("format: {target},{eol}{indent}")
        } else {
            format!("format: {target}, ")
        };
        self.puts.push((at, at, text));
    }

    /// The `,` right after `v` (past whitespace and comments), if there is one.
    fn comma_after(&self, v: &Value) -> Option<usize> {
        let at = ron_span::trivia_end(self.text, v.span.end as usize);
        (self.text.as_bytes().get(at) == Some(&b',')).then_some(at)
    }

    /// Deletes the fields of one struct for which `drop` holds, with the separator each needs
    /// to lose, keeping every comment outside the fields themselves.
    fn delete_fields(&mut self, fields: &[Field], drop: impl Fn(&Field) -> bool) {
        let b = self.text.as_bytes();
        let blank = |c: u8| c == b' ' || c == b'\t';
        for (i, f) in fields.iter().enumerate().filter(|(_, f)| drop(f)) {
            let start = f.name_span.start as usize;
            if let Some(comma) = self.comma_after(&f.value) {
                // `name: value,` and the blanks after it.
                let mut end = comma + 1;
                while end < b.len() && blank(b[end]) {
                    end += 1;
                }
                self.dels.push((start, end));
            } else {
                // The last field, without a trailing comma: it goes with the blanks before it,
                // and the comma after the last field that stays goes too.
                let mut s = start;
                while s > 0 && blank(b[s - 1]) {
                    s -= 1;
                }
                self.dels.push((s, f.value.span.end as usize));
                if let Some(keep) = fields[..i].iter().rev().find(|k| !drop(k))
                    && let Some(comma) = self.comma_after(&keep.value)
                {
                    let mut end = comma + 1;
                    while end < b.len() && blank(b[end]) {
                        end += 1;
                    }
                    self.dels.push((comma, end));
                }
            }
        }
    }

    /// The edited text; a line that a deletion left blank is removed whole.
    pub(super) fn apply(mut self) -> String {
        self.dels.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(self.dels.len());
        for (s, e) in self.dels {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        let mut ops: Vec<(usize, usize, String, bool)> = merged
            .into_iter()
            .map(|(s, e)| (s, e, String::new(), true))
            .chain(self.puts.into_iter().map(|(s, e, t)| (s, e, t, false)))
            .collect();
        ops.sort_by_key(|&(s, e, _, _)| (s, e));
        let mut out = String::with_capacity(self.text.len() + 16);
        let mut points = Vec::new();
        let mut pos = 0;
        for (s, e, with, deletion) in ops {
            out.push_str(&self.text[pos..s.max(pos)]);
            out.push_str(&with);
            if deletion {
                points.push(out.len());
            }
            pos = pos.max(e);
        }
        out.push_str(&self.text[pos..]);
        drop_blank_lines(out, &points)
    }
}

/// Removes each line of `text` that contains one of `points` (offsets) and holds only blanks.
fn drop_blank_lines(text: String, points: &[usize]) -> String {
    let mut lines: Vec<(usize, usize)> = points
        .iter()
        .map(|&p| {
            let start = text[..p].rfind('\n').map_or(0, |i| i + 1);
            let end = text[p..].find('\n').map_or(text.len(), |i| p + i + 1);
            (start, end)
        })
        .filter(|&(s, e)| text[s..e].trim().is_empty() && e > s)
        .collect();
    if lines.is_empty() {
        return text;
    }
    lines.sort_unstable();
    lines.dedup();
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    for (s, e) in lines {
        if s < pos {
            continue;
        }
        out.push_str(&text[pos..s]);
        pos = e;
    }
    out.push_str(&text[pos..]);
    out
}
