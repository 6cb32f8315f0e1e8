//! Editing a `.animseq`'s notifies and windows in the file's own text (the studio's clip
//! editor, `PUT /api/clip`), with the machinery `sinew migrate` uses: only the spans an edit
//! touches change — a replaced field value, an inserted field or item, a deleted item (with its
//! separator and a trailing `//` comment on its line) — and comments and layout of everything
//! else stay byte for byte. The format version rises only when the edited data needs it
//! ([`min_format`]). A batch is atomic: each edit is validated against the sequence as the
//! edits before it left it, and the first invalid one refuses the whole batch, naming it. The
//! text is read back and must be exactly the edited sequence, or nothing is returned to write.
//! Pure: text in, text out (see `docs/studio.md`, "Clips").

mod readback;
pub(crate) mod recall;
mod text;

use super::migrate::Edits;
use super::write::{field_value, quote};
use super::*;
use crate::diag::{Diagnostic, SourceFile};
use crate::ron_span::{self, ValueKind};
pub use recall::{load_bytes_recalled, recalled_skeleton, remember_load, remember_root};

/// Most edits one batch may hold (`docs/limits.md`).
pub const MAX_EDITS: usize = 10_000;

/// Most chars of a notify or window name an edit may set (`docs/limits.md`).
pub const MAX_NAME_CHARS: usize = 1024;

/// Most typed fields one notify or window may carry after an edit (`docs/limits.md`).
pub const MAX_FIELDS: usize = 256;

/// One edit of a clip's markers.
#[derive(Clone, Debug, PartialEq)]
pub enum ClipEdit {
    /// A new point notify (`id` and `time` required; `name` defaults to the ID).
    AddNotify(MarkerPatch),
    /// Changes the given fields of the notify `id`.
    SetNotify {
        /// The notify's ID before this edit.
        id: String,
        /// The fields to change.
        patch: MarkerPatch,
    },
    /// Removes the notify `id`.
    RemoveNotify {
        /// Its ID.
        id: String,
    },
    /// A new window (`id`, `begin` and `end` required; `name` defaults to the ID).
    AddWindow(MarkerPatch),
    /// Changes the given fields of the window `id`.
    SetWindow {
        /// The window's ID before this edit.
        id: String,
        /// The fields to change.
        patch: MarkerPatch,
    },
    /// Removes the window `id`.
    RemoveWindow {
        /// Its ID.
        id: String,
    },
}

impl ClipEdit {
    /// The operation's name as the API spells it (`add_notify`, …).
    pub fn op(&self) -> &'static str {
        match self {
            ClipEdit::AddNotify(_) => "add_notify",
            ClipEdit::SetNotify { .. } => "set_notify",
            ClipEdit::RemoveNotify { .. } => "remove_notify",
            ClipEdit::AddWindow(_) => "add_window",
            ClipEdit::SetWindow { .. } => "set_window",
            ClipEdit::RemoveWindow { .. } => "remove_window",
        }
    }
}

/// Any subset of a marker's fields (`None`: unchanged). `time` is a notify's, `begin`/`end` a
/// window's.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MarkerPatch {
    pub id: Option<String>,
    pub name: Option<String>,
    pub time: Option<f64>,
    pub begin: Option<f64>,
    pub end: Option<f64>,
    pub target: Option<Target>,
    pub fields: Option<Vec<(String, FieldValue)>>,
    pub weight_threshold: Option<f64>,
    pub chance: Option<f64>,
}

/// Why a batch is refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum EditError {
    /// The file on disk does not load cleanly; the diagnostics say why.
    #[error("the clip has errors")]
    Invalid(Vec<Diagnostic>),
    /// Edit `index` (0-based) would make the clip invalid.
    #[error("edit {index} ({op}): {message}")]
    Edit {
        index: usize,
        op: &'static str,
        message: String,
    },
    /// The request around the edits is malformed.
    #[error("{0}")]
    Body(String),
    /// More than [`MAX_EDITS`] edits.
    #[error("{0} edits in one batch; at most {MAX_EDITS} are allowed")]
    TooMany(usize),
    /// The edited text does not read back as the edited sequence (nothing is written).
    #[error("the edited clip does not read back as intended ({0})")]
    NotLossless(String),
}

/// A batch applied.
#[derive(Clone, Debug, PartialEq)]
pub struct Edited {
    /// The new text (read back and checked).
    pub text: String,
    /// The sequence it holds.
    pub seq: AnimSeq,
    /// Its declared format (raised from the file's only when the data needs it).
    pub format: u32,
    /// The warnings of the text read back (no errors: those refuse the batch).
    pub diagnostics: Vec<Diagnostic>,
    /// Where the identities stand in the new text.
    pub spans: SeqSpans,
}

impl Edited {
    /// What [`load`] answers for the new text (the read back has shown it).
    pub fn loaded(&self) -> Loaded {
        Loaded {
            seq: Some(self.seq.clone()),
            format: self.format,
            diagnostics: self.diagnostics.clone(),
            spans: Some(self.spans.clone()),
        }
    }
}

/// One marker of the edited list: where it came from and which fields the batch changed.
#[derive(Clone, Debug)]
struct Entry<M> {
    orig: Option<usize>,
    value: M,
    touched: Vec<&'static str>,
    removed: bool,
}

/// What notifies and windows share for editing.
trait Marker: Clone {
    const WHAT: &'static str;
    fn id(&self) -> &str;
    /// Applies `p` (validated against `duration`); the names of the fields it set.
    fn patch(&mut self, p: &MarkerPatch, duration: f64) -> Result<Vec<&'static str>, String>;
    /// A new marker from `p` (required fields present).
    fn create(p: &MarkerPatch, duration: f64) -> Result<Self, String>;
    /// The RON text of field `name`, `None` when it holds its default (then it is not written).
    fn field_text(&self, name: &str) -> Option<String>;
    /// The whole item as the writer writes it.
    fn item_text(&self) -> String;
}

fn common_patch(
    p: &MarkerPatch,
    id: &mut String,
    name: &mut String,
    target: &mut Target,
    fields: &mut Vec<(String, FieldValue)>,
    gating: &mut Gating,
    set: &mut Vec<&'static str>,
) -> Result<(), String> {
    if let Some(v) = &p.id {
        if !is_valid_id(v) {
            return Err(format!(
                "`{}` is not a valid ID (1 to 64 letters, digits, `_` or `-`, starting with a letter or digit)",
                ron_span::short(v)
            ));
        }
        *id = v.clone();
        set.push("id");
    }
    if let Some(v) = &p.name {
        if v.chars().count() > MAX_NAME_CHARS {
            return Err(format!("the name is longer than {MAX_NAME_CHARS} chars"));
        }
        *name = v.clone();
        set.push("name");
    }
    if let Some(t) = &p.target {
        if let Target::Variable(v) = t
            && !is_identifier(v)
        {
            return Err(format!(
                "target variable `{}` is not an identifier",
                ron_span::short(v)
            ));
        }
        *target = t.clone();
        set.push("target");
    }
    if let Some(fs) = &p.fields {
        if fs.len() > MAX_FIELDS {
            return Err(format!(
                "{} fields; at most {MAX_FIELDS} are allowed",
                fs.len()
            ));
        }
        let mut seen = std::collections::HashSet::new();
        for (k, v) in fs {
            if !is_identifier(k) {
                return Err(format!(
                    "field name `{}` is not an identifier",
                    ron_span::short(k)
                ));
            }
            if !seen.insert(k.as_str()) {
                return Err(format!("field `{k}` is given twice"));
            }
            let finite = match v {
                FieldValue::Float(x) => x.is_finite(),
                FieldValue::Vec3(a) => a.iter().all(|x| x.is_finite()),
                _ => true,
            };
            if !finite {
                return Err(format!("field `{k}` is not a finite number"));
            }
        }
        *fields = fs.clone();
        set.push("fields");
    }
    for (v, slot, what) in [
        (
            p.weight_threshold,
            &mut gating.weight_threshold,
            "weight_threshold",
        ),
        (p.chance, &mut gating.chance, "chance"),
    ] {
        if let Some(v) = v {
            if !(0.0..=1.0).contains(&v) {
                return Err(format!("{what} {v} is outside [0, 1]"));
            }
            *slot = v;
            set.push(what);
        }
    }
    Ok(())
}

fn clip_time(what: &str, t: f64, duration: f64) -> Result<f64, String> {
    if !t.is_finite() || t < 0.0 || t > duration {
        return Err(format!(
            "{what} {t} is outside the clip (0 to {duration} s)"
        ));
    }
    Ok(t)
}

fn target_text(t: &Target) -> Option<String> {
    match t {
        Target::Owner => None,
        Target::Variable(v) => Some(format!("Variable({})", quote(v))),
    }
}

fn fields_text(fs: &[(String, FieldValue)]) -> Option<String> {
    (!fs.is_empty()).then(|| {
        let parts: Vec<String> = fs
            .iter()
            .map(|(k, v)| format!("({}, {})", quote(k), field_value(v)))
            .collect();
        format!("[{}]", parts.join(", "))
    })
}

fn gating_text(name: &str, g: &Gating) -> Option<String> {
    match name {
        "weight_threshold" if g.weight_threshold != Gating::ALWAYS.weight_threshold => {
            Some(format!("{:?}", g.weight_threshold))
        }
        "chance" if g.chance != Gating::ALWAYS.chance => Some(format!("{:?}", g.chance)),
        _ => None,
    }
}

impl Marker for Notify {
    const WHAT: &'static str = "notify";
    fn id(&self) -> &str {
        &self.id
    }
    fn patch(&mut self, p: &MarkerPatch, duration: f64) -> Result<Vec<&'static str>, String> {
        if p.begin.is_some() || p.end.is_some() {
            return Err("a notify has a `time`, not `begin`/`end`".into());
        }
        let mut set = Vec::new();
        common_patch(
            p,
            &mut self.id,
            &mut self.name,
            &mut self.target,
            &mut self.fields,
            &mut self.gating,
            &mut set,
        )?;
        if let Some(t) = p.time {
            self.time = clip_time("time", t, duration)?;
            set.push("time");
        }
        Ok(set)
    }
    fn create(p: &MarkerPatch, duration: f64) -> Result<Notify, String> {
        let (Some(id), Some(_)) = (&p.id, p.time) else {
            return Err("a new notify needs `id` and `time`".into());
        };
        let mut n = Notify {
            id: id.clone(),
            name: id.clone(),
            time: 0.0,
            target: Target::Owner,
            fields: Vec::new(),
            gating: Gating::ALWAYS,
        };
        n.patch(p, duration)?;
        Ok(n)
    }
    fn field_text(&self, name: &str) -> Option<String> {
        match name {
            "id" => Some(quote(&self.id)),
            "name" => Some(quote(&self.name)),
            "time" => Some(format!("{:?}", self.time)),
            "target" => target_text(&self.target),
            "fields" => fields_text(&self.fields),
            _ => gating_text(name, &self.gating),
        }
    }
    fn item_text(&self) -> String {
        let mut o = format!(
            "(id: {}, name: {}, time: {:?}",
            quote(&self.id),
            quote(&self.name),
            self.time
        );
        super::write::payload(&mut o, &self.target, &self.fields, &self.gating);
        o.push(')');
        o
    }
}

impl Marker for Window {
    const WHAT: &'static str = "window";
    fn id(&self) -> &str {
        &self.id
    }
    fn patch(&mut self, p: &MarkerPatch, duration: f64) -> Result<Vec<&'static str>, String> {
        if p.time.is_some() {
            return Err("a window has `begin` and `end`, not a `time`".into());
        }
        let mut set = Vec::new();
        common_patch(
            p,
            &mut self.id,
            &mut self.name,
            &mut self.target,
            &mut self.fields,
            &mut self.gating,
            &mut set,
        )?;
        if let Some(b) = p.begin {
            self.begin = clip_time("begin", b, duration)?;
            set.push("begin");
        }
        if let Some(e) = p.end {
            self.end = clip_time("end", e, duration)?;
            set.push("end");
        }
        if self.begin >= self.end {
            return Err(format!(
                "begin {} is not before end {}",
                self.begin, self.end
            ));
        }
        Ok(set)
    }
    fn create(p: &MarkerPatch, duration: f64) -> Result<Window, String> {
        let (Some(id), Some(_), Some(_)) = (&p.id, p.begin, p.end) else {
            return Err("a new window needs `id`, `begin` and `end`".into());
        };
        let mut w = Window {
            id: id.clone(),
            name: id.clone(),
            begin: 0.0,
            end: 0.0,
            target: Target::Owner,
            fields: Vec::new(),
            gating: Gating::ALWAYS,
        };
        w.patch(p, duration)?;
        Ok(w)
    }
    fn field_text(&self, name: &str) -> Option<String> {
        match name {
            "id" => Some(quote(&self.id)),
            "name" => Some(quote(&self.name)),
            "begin" => Some(format!("{:?}", self.begin)),
            "end" => Some(format!("{:?}", self.end)),
            "target" => target_text(&self.target),
            "fields" => fields_text(&self.fields),
            _ => gating_text(name, &self.gating),
        }
    }
    fn item_text(&self) -> String {
        let mut o = format!(
            "(id: {}, name: {}, begin: {:?}, end: {:?}",
            quote(&self.id),
            quote(&self.name),
            self.begin,
            self.end
        );
        super::write::payload(&mut o, &self.target, &self.fields, &self.gating);
        o.push(')');
        o
    }
}

/// The default text of an optional field whose value is replaced by its default.
fn default_text(name: &str) -> &'static str {
    match name {
        "target" => "Owner",
        "fields" => "[]",
        "weight_threshold" => "0.0",
        _ => "1.0",
    }
}

/// The edited lists, validated edit by edit.
struct Lists {
    notifies: Vec<Entry<Notify>>,
    windows: Vec<Entry<Window>>,
    duration: f64,
}

impl Lists {
    fn taken(&self, id: &str) -> bool {
        self.notifies.iter().any(|e| !e.removed && e.value.id == id)
            || self.windows.iter().any(|e| !e.removed && e.value.id == id)
    }

    fn apply(&mut self, edit: &ClipEdit) -> Result<(), String> {
        let duration = self.duration;
        match edit {
            ClipEdit::AddNotify(p) => {
                let n = Notify::create(p, duration)?;
                self.unique(&n.id, None)?;
                self.notifies.push(Entry {
                    orig: None,
                    value: n,
                    touched: Vec::new(),
                    removed: false,
                });
            }
            ClipEdit::AddWindow(p) => {
                let w = Window::create(p, duration)?;
                self.unique(&w.id, None)?;
                if self.windows.iter().filter(|e| !e.removed).count() >= MAX_WINDOWS {
                    return Err(format!("at most {MAX_WINDOWS} windows are allowed"));
                }
                self.windows.push(Entry {
                    orig: None,
                    value: w,
                    touched: Vec::new(),
                    removed: false,
                });
            }
            ClipEdit::SetNotify { id, patch } => {
                let i = find(&self.notifies, id)?;
                let mut v = self.notifies[i].value.clone();
                let set = v.patch(patch, duration)?;
                if let Some(new) = &patch.id {
                    self.unique(new, Some(id))?;
                }
                touch(&mut self.notifies[i], v, set);
            }
            ClipEdit::SetWindow { id, patch } => {
                let i = find(&self.windows, id)?;
                let mut v = self.windows[i].value.clone();
                let set = v.patch(patch, duration)?;
                if let Some(new) = &patch.id {
                    self.unique(new, Some(id))?;
                }
                touch(&mut self.windows[i], v, set);
            }
            ClipEdit::RemoveNotify { id } => {
                let i = find(&self.notifies, id)?;
                self.notifies[i].removed = true;
            }
            ClipEdit::RemoveWindow { id } => {
                let i = find(&self.windows, id)?;
                self.windows[i].removed = true;
            }
        }
        Ok(())
    }

    /// `id` is free (or is `own`, the marker's ID before a rename).
    fn unique(&self, id: &str, own: Option<&str>) -> Result<(), String> {
        if own != Some(id) && self.taken(id) {
            return Err(format!(
                "ID `{id}` is already used by another notify or window of this clip"
            ));
        }
        Ok(())
    }
}

fn find<M: Marker>(list: &[Entry<M>], id: &str) -> Result<usize, String> {
    list.iter()
        .position(|e| !e.removed && e.value.id() == id)
        .ok_or_else(|| {
            let ids = list.iter().filter(|e| !e.removed).map(|e| e.value.id());
            let hint = crate::suggest::closest(id, ids)
                .map(|c| format!(" (did you mean `{c}`?)"))
                .unwrap_or_default();
            format!(
                "the clip has no {} `{}`{hint}",
                M::WHAT,
                ron_span::short(id)
            )
        })
}

fn touch<M>(e: &mut Entry<M>, v: M, set: Vec<&'static str>) {
    e.value = v;
    for s in set {
        if !e.touched.contains(&s) {
            e.touched.push(s);
        }
    }
}

fn entries<M: Clone>(list: &[M]) -> Vec<Entry<M>> {
    list.iter()
        .enumerate()
        .map(|(i, m)| Entry {
            orig: Some(i),
            value: m.clone(),
            touched: Vec::new(),
            removed: false,
        })
        .collect()
}

/// Applies `edits` to the text of `src` (see the module documentation).
pub fn apply_edits(src: &SourceFile, edits: &[ClipEdit]) -> Result<Edited, EditError> {
    if edits.len() > MAX_EDITS {
        return Err(EditError::TooMany(edits.len()));
    }
    // The studio remembers the load of the text it served or saved last: no decode of its keys.
    let loaded = recall::load_recalled(src);
    let seq = match loaded.seq {
        Some(seq) if !loaded.diagnostics.iter().any(Diagnostic::is_error) => seq,
        _ => return Err(EditError::Invalid(loaded.diagnostics)),
    };
    let mut lists = Lists {
        notifies: entries(&seq.notifies),
        windows: entries(&seq.windows),
        duration: seq.duration,
    };
    for (index, e) in edits.iter().enumerate() {
        lists.apply(e).map_err(|message| EditError::Edit {
            index,
            op: e.op(),
            message,
        })?;
    }
    let mut want = seq;
    want.notifies = kept(&lists.notifies);
    want.windows = kept(&lists.windows);
    let format = loaded.format.max(min_format(&want));

    let text = src.text();
    let lost = |m: &str| EditError::NotLossless(m.to_string());
    let root = recall::parse_lazy_recalled(text).map_err(|e| EditError::NotLossless(e.message))?;
    let ValueKind::Struct { fields, .. } = &root.kind else {
        return Err(lost("the root is not a struct"));
    };
    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let mut ed = Edits::new(text);
    if format > loaded.format {
        match fields.iter().find(|f| f.name == "format") {
            Some(f) => ed.replace(f.value.span.range(), format.to_string()),
            None => ed.insert_first_field(&fields[0], format),
        }
    }
    let ctx = text::ListCtx {
        text,
        root: &root,
        fields,
        eol,
    };
    ctx.edit_list("notifies", &lists.notifies, &mut ed)?;
    ctx.edit_list("windows", &lists.windows, &mut ed)?;
    let out = ed.apply();

    if let Some(spans) = readback::read_back(
        src.name(),
        text,
        &root,
        loaded
            .spans
            .as_ref()
            .ok_or_else(|| lost("the clip loaded without spans"))?,
        &out,
        &want,
        format,
    )? {
        return Ok(Edited {
            text: out,
            seq: want,
            format,
            diagnostics: Vec::new(),
            spans,
        });
    }
    // The whole text read back.
    let file = SourceFile::new(src.name(), out);
    let back = load(&file);
    if let Some(d) = back.diagnostics.iter().find(|d| d.is_error()) {
        return Err(EditError::NotLossless(format!("{}: {}", d.code, d.message)));
    }
    match (back.seq, back.spans) {
        (Some(s), Some(spans)) if s == want && back.format == format => Ok(Edited {
            text: file.text().to_string(),
            seq: s,
            format,
            diagnostics: back.diagnostics,
            spans,
        }),
        _ => Err(lost("it reads back with different data")),
    }
}

fn kept<M: Clone>(list: &[Entry<M>]) -> Vec<M> {
    list.iter()
        .filter(|e| !e.removed)
        .map(|e| e.value.clone())
        .collect()
}
