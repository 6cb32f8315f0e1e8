//! The event catalog: `.animseq` files on disk → event descriptors, per-file diagnostics and
//! quarantined identities, kept current by incremental refresh.
//!
//! Invariants: the published state is a pure function of the set of (path, contents) pairs —
//! never of scan order, hash order or file-system order; a broken file contributes only its
//! diagnostics; an identity claimed twice is quarantined, never first-wins. This module and the
//! CLI are the only owners of the file system (see `scan`).

pub mod claim;
pub mod scan;

use crate::animseq::{self, AnimSeq, Target};
use crate::diag::{Diagnostic, Excerpt, Position, Span};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

pub use crate::diag::codes::catalog::*;

/// What kind of marker an event is, with its authored clip times.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EventKind {
    /// A point notify at `time`.
    Notify { time: f64 },
    /// A window from `begin` to `end` (both edges are events of the one identity).
    Window { begin: f64, end: f64 },
}

impl EventKind {
    /// `"notify"` or `"window"` (the catalog JSON's `kind`).
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Notify { .. } => "notify",
            EventKind::Window { .. } => "window",
        }
    }
    pub fn is_window(self) -> bool {
        matches!(self, EventKind::Window { .. })
    }
}

/// One published notify or window event.
#[derive(Clone, Debug, PartialEq)]
pub struct EventDescriptor {
    /// `animseq::<sequence>.<notify or window>`.
    pub id: Arc<str>,
    /// `"<sequence name> / <notify name>"`.
    pub name: String,
    pub sequence: Arc<str>,
    pub sequence_name: Arc<str>,
    /// The notify's or window's ID.
    pub notify: String,
    pub notify_name: String,
    /// Display path of the source file.
    pub file: Arc<str>,
    /// Point notify or window, with its clip times.
    pub kind: EventKind,
    pub target: Target,
    /// Typed field schema in authored order: (name, type).
    pub fields: Vec<(String, crate::types::Type)>,
}

mod game;
pub use game::GameStatus;

/// Most files or identities one message names (the rest are counted): see `docs/limits.md`.
pub const MAX_LISTED: usize = 5;

/// `shown` joined with `, `, followed by ` and N more` when `total` exceeds their number.
pub fn list_some<S: AsRef<str>>(shown: &[S], total: usize) -> String {
    let mut s = shown
        .iter()
        .map(AsRef::as_ref)
        .collect::<Vec<_>>()
        .join(", ");
    if total > shown.len() {
        s.push_str(&format!(" and {} more", total - shown.len()));
    }
    s
}

/// The identity string of notify `notify` of sequence `sequence`.
pub fn identity(sequence: &str, notify: &str) -> String {
    format!("animseq::{sequence}.{notify}")
}

/// What one file contributes, as loaded (independent of every other file).
#[derive(Clone, Debug, PartialEq)]
pub struct FileEntry {
    /// Display path (the catalog's key).
    pub file: Arc<str>,
    /// The sequence ID, when the file loaded.
    pub sequence: Option<Arc<str>>,
    /// Where the sequence ID value stands (for conflict errors), with the text it stands on.
    id_location: (Span, Position, Position),
    id_excerpt: Option<Excerpt>,
    /// Descriptors by notify or window ID (first occurrence for duplicated IDs).
    events: BTreeMap<String, EventDescriptor>,
    /// Notify and window IDs declared more than once in this file (one namespace).
    duplicate_notifies: BTreeSet<String>,
    /// The file's own load and validation diagnostics.
    pub diagnostics: Vec<Diagnostic>,
    /// The game nodes a `*.nodes.ron` file declares (`nodes::game`; empty for an `.animseq`).
    pub game: Vec<crate::nodes::game::GameNode>,
    /// For a file that did not load: the sequence ID it appears to declare ([`claim`]), so
    /// graphs naming its events can point at it.
    pub claimed: Option<Arc<str>>,
}

impl FileEntry {
    /// Builds the entry of one file from its bytes. Pure: no I/O.
    pub fn from_bytes(file: &str, bytes: &[u8]) -> FileEntry {
        if crate::nodes::game::is_nodes_file(file) {
            let parsed = crate::nodes::game::parse_bytes(file, bytes);
            let mut e = FileEntry::failed(file, parsed.diagnostics);
            e.game = parsed.nodes;
            return e;
        }
        // The studio's last save is remembered (`animseq::remember_load`): no second decode.
        let loaded = animseq::load_bytes_recalled(file, bytes);
        let mut entry = FileEntry {
            file: file.into(),
            sequence: None,
            id_location: (Span::default(), Position::default(), Position::default()),
            id_excerpt: None,
            events: BTreeMap::new(),
            duplicate_notifies: BTreeSet::new(),
            diagnostics: loaded.diagnostics,
            game: Vec::new(),
            claimed: None,
        };
        if let Some(seq) = loaded.seq {
            if let Some(spans) = &loaded.spans {
                entry.id_location = (
                    spans.id,
                    position_of(bytes, spans.id.start),
                    position_of(bytes, spans.id.end),
                );
                entry.id_excerpt = std::str::from_utf8(bytes)
                    .ok()
                    .map(|text| Excerpt::capture(text, spans.id));
            }
            entry.fill(seq);
        } else if entry.diagnostics.iter().any(Diagnostic::is_error) {
            entry.claimed = std::str::from_utf8(bytes)
                .ok()
                .and_then(claim::claimed_id)
                .map(Arc::from);
        }
        entry
    }

    /// An entry that only carries diagnostics (unreadable file, too large, …).
    pub fn failed(file: &str, diagnostics: Vec<Diagnostic>) -> FileEntry {
        FileEntry {
            file: file.into(),
            sequence: None,
            id_location: (Span::default(), Position::default(), Position::default()),
            id_excerpt: None,
            events: BTreeMap::new(),
            duplicate_notifies: BTreeSet::new(),
            diagnostics,
            game: Vec::new(),
            claimed: None,
        }
    }

    /// Publishes the sequence's notifies and windows. Consumes the sequence: its tracks and
    /// curves go before any descriptor is built and each marker is moved into its descriptor,
    /// so a clip made mostly of notifies is never held twice (issue 24: every reader within 4×
    /// the file).
    fn fill(&mut self, mut seq: AnimSeq) {
        seq.tracks = Vec::new();
        seq.curves = Vec::new();
        let sequence: Arc<str> = seq.id.as_str().into();
        let sequence_name: Arc<str> = seq.name.as_str().into();
        self.sequence = Some(sequence.clone());
        // Notifies and windows share one ID namespace (E0110): an ID declared twice — by two
        // notifies, two windows or one of each — is quarantined, never first-wins.
        let notifies = std::mem::take(&mut seq.notifies).into_iter().map(|n| {
            let kind = EventKind::Notify { time: n.time };
            (n.id, n.name, kind, n.target, n.fields)
        });
        let windows = std::mem::take(&mut seq.windows).into_iter().map(|w| {
            let kind = EventKind::Window {
                begin: w.begin,
                end: w.end,
            };
            (w.id, w.name, kind, w.target, w.fields)
        });
        for (id, name, kind, target, fields) in notifies.chain(windows) {
            if self.events.contains_key(&id) {
                self.duplicate_notifies.insert(id);
                continue;
            }
            let d = EventDescriptor {
                id: identity(&seq.id, &id).into(),
                name: format!("{} / {}", seq.name, name),
                sequence: sequence.clone(),
                sequence_name: sequence_name.clone(),
                notify: id.clone(),
                notify_name: name,
                file: self.file.clone(),
                kind,
                target,
                fields: fields
                    .into_iter()
                    .map(|(name, v)| {
                        let ty = v.ty();
                        (name, ty)
                    })
                    .collect(),
            };
            self.events.insert(id, d);
        }
    }

    fn identities(&self) -> impl Iterator<Item = &Arc<str>> + '_ {
        self.events.values().map(|d| &d.id)
    }
}

/// 1-based line/column of a byte offset, counting Unicode scalar values (lossy on bad UTF-8).
fn position_of(bytes: &[u8], offset: u32) -> Position {
    let offset = (offset as usize).min(bytes.len());
    let before = &bytes[..offset];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    Position {
        line: u32::try_from(line).unwrap_or(u32::MAX),
        column: u32::try_from(column).unwrap_or(u32::MAX),
    }
}

/// The publication state of one identity.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    Absent,
    Published(EventDescriptor),
    /// Quarantined, with its claimant files (each once, sorted).
    Quarantined(Vec<String>),
}

/// What a refresh changed, by identity (each list sorted).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Delta {
    pub added: Vec<EventDescriptor>,
    pub removed: Vec<String>,
    /// (before, after) for events published before and after with any difference.
    pub changed: Vec<(EventDescriptor, EventDescriptor)>,
    pub entered_quarantine: Vec<String>,
    pub left_quarantine: Vec<String>,
    /// Game node kinds whose declaration or status changed (sorted), each with whether it was
    /// published before the change.
    pub game: Vec<(String, bool)>,
}

impl Delta {
    pub fn is_empty(&self) -> bool {
        self.game.is_empty()
            && self.added.is_empty()
            && self.removed.is_empty()
            && self.changed.is_empty()
            && self.entered_quarantine.is_empty()
            && self.left_quarantine.is_empty()
    }
}

/// A quarantined identity and its claimants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quarantined {
    pub id: String,
    pub files: Vec<String>,
}

/// The catalog state: file entries plus the claim indexes derived from them.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    files: BTreeMap<Arc<str>, FileEntry>,
    /// identity → files claiming it (sorted, each once; almost always one).
    claims: BTreeMap<Arc<str>, Vec<Arc<str>>>,
    /// sequence ID → files declaring it.
    by_sequence: BTreeMap<Arc<str>, BTreeSet<Arc<str>>>,
    /// game node kind → files declaring it (sorted, each once).
    game_claims: BTreeMap<String, Vec<Arc<str>>>,
}

fn add_sorted(v: &mut Vec<Arc<str>>, f: &Arc<str>) {
    if let Err(i) = v.binary_search(f) {
        v.insert(i, f.clone());
    }
}

fn remove_sorted(v: &mut Vec<Arc<str>>, f: &str) {
    if let Ok(i) = v.binary_search_by(|x| (**x).cmp(f)) {
        v.remove(i);
    }
}

impl Catalog {
    /// A catalog of the given entries (any order: the result does not depend on it).
    pub fn from_entries(entries: impl IntoIterator<Item = FileEntry>) -> Catalog {
        let mut c = Catalog::default();
        for e in entries {
            c.insert(e);
        }
        c
    }

    fn insert(&mut self, entry: FileEntry) {
        self.remove(&entry.file.clone());
        for id in entry.identities() {
            add_sorted(self.claims.entry(id.clone()).or_default(), &entry.file);
        }
        if let Some(s) = &entry.sequence {
            self.by_sequence
                .entry(s.clone())
                .or_default()
                .insert(entry.file.clone());
        }
        for n in &entry.game {
            add_sorted(
                self.game_claims.entry(n.kind.clone()).or_default(),
                &entry.file,
            );
        }
        self.files.insert(entry.file.clone(), entry);
    }

    fn remove(&mut self, file: &str) -> Option<FileEntry> {
        let old = self.files.remove(file)?;
        for id in old.identities() {
            if let Some(set) = self.claims.get_mut(id) {
                remove_sorted(set, file);
                if set.is_empty() {
                    self.claims.remove(id);
                }
            }
        }
        if let Some(s) = &old.sequence
            && let Some(set) = self.by_sequence.get_mut(s)
        {
            set.remove(file);
            if set.is_empty() {
                self.by_sequence.remove(s);
            }
        }
        for n in &old.game {
            if let Some(set) = self.game_claims.get_mut(&n.kind) {
                remove_sorted(set, file);
                if set.is_empty() {
                    self.game_claims.remove(&n.kind);
                }
            }
        }
        Some(old)
    }

    /// The status of one identity.
    pub fn status(&self, id: &str) -> Status {
        let Some(claimants) = self.claims.get(id) else {
            return Status::Absent;
        };
        let quarantined = claimants.len() > 1
            || claimants.iter().any(|f| {
                self.files.get(f).is_some_and(|e| {
                    e.events
                        .get(notify_part(id))
                        .is_some_and(|d| e.duplicate_notifies.contains(&d.notify))
                })
            });
        if quarantined {
            return Status::Quarantined(claimants.iter().map(|f| f.to_string()).collect());
        }
        claimants
            .iter()
            .next()
            .and_then(|f| self.files.get(f))
            .and_then(|e| e.events.get(notify_part(id)))
            .map_or(Status::Absent, |d| Status::Published(d.clone()))
    }

    /// A file that did not load and appears to declare `sequence` (the real cause of an
    /// unknown `animseq::SEQUENCE.…` event), with its first error; the first such file by path.
    pub fn broken_source(&self, sequence: &str) -> Option<(&FileEntry, &Diagnostic)> {
        self.files.values().find_map(|e| {
            if e.sequence.is_some() || e.claimed.as_deref() != Some(sequence) {
                return None;
            }
            e.diagnostics.iter().find(|d| d.is_error()).map(|d| (e, d))
        })
    }

    /// Published events, sorted by identity.
    pub fn events(&self) -> Vec<&EventDescriptor> {
        let mut out = Vec::new();
        for (id, claimants) in &self.claims {
            if claimants.len() != 1 {
                continue;
            }
            let Some(e) = claimants.iter().next().and_then(|f| self.files.get(f)) else {
                continue;
            };
            if let Some(d) = e.events.get(notify_part(id))
                && !e.duplicate_notifies.contains(&d.notify)
            {
                out.push(d);
            }
        }
        out
    }

    /// Looks up one published event.
    pub fn event(&self, id: &str) -> Option<EventDescriptor> {
        match self.status(id) {
            Status::Published(d) => Some(d),
            _ => None,
        }
    }

    /// Quarantined identities with their claimants, sorted by identity.
    pub fn quarantined(&self) -> Vec<Quarantined> {
        self.claims
            .keys()
            .filter_map(|id| match self.status(id) {
                Status::Quarantined(files) => Some(Quarantined {
                    id: id.to_string(),
                    files,
                }),
                _ => None,
            })
            .collect()
    }

    /// Every diagnostic — each file's own plus the conflict errors — sorted by file, position.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        let mut out: Vec<Diagnostic> = self
            .files
            .values()
            .flat_map(|e| e.diagnostics.iter().cloned())
            .collect();
        for (seq, files) in &self.by_sequence {
            if files.len() < 2 {
                continue;
            }
            for f in files {
                let Some(e) = self.files.get(f) else { continue };
                // At most MAX_LISTED other files and MAX_LISTED identities are named (plus
                // counts), so n copies of a file cost O(n) text, not O(n²).
                let others: Vec<&str> = files
                    .iter()
                    .filter(|o| *o != f)
                    .take(MAX_LISTED)
                    .map(|o| &**o)
                    .collect();
                let shared: Vec<&str> = e
                    .identities()
                    .filter(|id| self.claims.get(*id).is_some_and(|c| c.len() > 1))
                    .map(|id| &**id)
                    .collect();
                let (span, start, end) = e.id_location;
                let mut d = Diagnostic::error(
                    E_SEQUENCE_CONFLICT,
                    format!(
                        "sequence id `{seq}` is also declared by {}",
                        list_some(&others, files.len() - 1)
                    ),
                );
                d.file = f.to_string();
                d.span = span;
                d.start = start;
                d.end = end;
                d.excerpt = e.id_excerpt.clone();
                d = d.with_note(if shared.is_empty() {
                    "no identities are shared, so none is quarantined; give each copy its own sequence id".to_string()
                } else {
                    format!(
                        "quarantined (published by none of these files): {}",
                        list_some(&shared[..shared.len().min(MAX_LISTED)], shared.len())
                    )
                });
                out.push(d);
            }
        }
        out.extend(self.game_conflicts());
        crate::diag::sort(&mut out);
        out
    }

    /// The files the catalog knows, sorted.
    pub fn files(&self) -> impl Iterator<Item = &FileEntry> {
        self.files.values()
    }

    /// Replaces the entries of changed files (`Some` = new contents, `None` = gone) and
    /// reports the delta. Costs time proportional to the changed files' identities.
    pub fn apply(
        &mut self,
        changes: impl IntoIterator<Item = (String, Option<FileEntry>)>,
    ) -> Delta {
        let changes: Vec<_> = changes.into_iter().collect();
        let mut affected: BTreeSet<Arc<str>> = BTreeSet::new();
        let game_before = self.game_before(&changes);
        for (file, new) in &changes {
            if let Some(old) = self.files.get(file.as_str()) {
                affected.extend(old.identities().cloned());
            }
            if let Some(new) = new {
                affected.extend(new.identities().cloned());
            }
        }
        let before: Vec<Status> = affected.iter().map(|id| self.status(id)).collect();
        for (file, new) in changes {
            match new {
                Some(entry) => self.insert(entry),
                None => {
                    self.remove(&file);
                }
            }
        }
        let mut delta = Delta {
            game: self.game_changed(game_before),
            ..Delta::default()
        };
        for (id, before) in affected.iter().zip(before) {
            let after = self.status(id);
            match (&before, &after) {
                (Status::Published(a), Status::Published(b)) if a != b => {
                    delta.changed.push((a.clone(), b.clone()));
                }
                (Status::Published(_), Status::Published(_)) => {}
                (_, Status::Published(b)) => delta.added.push(b.clone()),
                (Status::Published(_), _) => delta.removed.push(id.to_string()),
                _ => {}
            }
            match (&before, &after) {
                (Status::Quarantined(_), Status::Quarantined(_)) => {}
                (_, Status::Quarantined(_)) => delta.entered_quarantine.push(id.to_string()),
                (Status::Quarantined(_), _) => delta.left_quarantine.push(id.to_string()),
                _ => {}
            }
        }
        delta
    }

    /// Display paths of known files at or below `path` (display form).
    pub fn files_under(&self, prefix: &str) -> Vec<String> {
        if prefix.is_empty() || prefix == "." {
            // The display base itself: every file is under it.
            return self.files.keys().map(|k| k.to_string()).collect();
        }
        let dir = format!("{}/", prefix.trim_end_matches('/'));
        let start: Arc<str> = prefix.into();
        self.files
            .range(start..)
            .take_while(|(k, _)| k.starts_with(prefix))
            .filter(|(k, _)| &***k == prefix || k.starts_with(&dir))
            .map(|(k, _)| k.to_string())
            .collect()
    }
}

fn notify_part(identity: &str) -> &str {
    // identities are `animseq::<seq>.<notify>`; IDs never contain '.'
    identity.rsplit_once('.').map_or("", |(_, n)| n)
}

/// The display form of a path: relative to `base` when under it, `/`-separated, invalid UTF-8
/// bytes escaped as `\xNN` (so distinct names stay distinct and output stays deterministic).
pub fn display_path(path: &Path, base: Option<&Path>) -> String {
    let rel = match base.and_then(|b| path.strip_prefix(b).ok()) {
        Some(r) if r.as_os_str().is_empty() => return ".".into(),
        Some(r) => r,
        None => path,
    };
    let mut out = String::new();
    for (i, comp) in rel.components().enumerate() {
        use std::path::Component;
        let part = match comp {
            Component::RootDir => {
                out.push('/');
                continue;
            }
            Component::CurDir if i == 0 => continue,
            c => c.as_os_str(),
        };
        if !out.is_empty() && !out.ends_with('/') {
            out.push('/');
        }
        push_os(&mut out, part);
    }
    if out.is_empty() { ".".into() } else { out }
}

#[cfg(unix)]
fn push_os(out: &mut String, s: &std::ffi::OsStr) {
    use std::os::unix::ffi::OsStrExt;
    for chunk in s.as_bytes().utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
}

#[cfg(not(unix))]
fn push_os(out: &mut String, s: &std::ffi::OsStr) {
    out.push_str(&s.to_string_lossy());
}
