//! Loading `.animseq` text (formats 1–4) into an [`AnimSeq`] with every validation rule of the
//! spec, each a diagnostic with a stable `E01xx` code at the offending token. Notifies and
//! windows are decoded in [`markers`].

use super::*;
use crate::diag::{Diagnostic, SourceFile, Span};
use crate::ron_span::{
    self, DecodeCodes, DecodeError, Decoder, Field, Fields, Value, ValueKind, Variant,
    expect_struct,
};

mod markers;
pub use markers::MAX_WINDOWS;
use markers::MarkerKind;
pub(super) use markers::notify_field_version;

/// The result of loading one file.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// `Some` iff there is no error other than duplicate notify or window IDs
    /// ([`E_DUPLICATE_NOTIFY_ID`]).
    pub seq: Option<AnimSeq>,
    /// The declared format (1 when absent); 0 when the file did not parse far enough to say,
    /// or declared an invalid version. A too-new format is reported as declared.
    pub format: u32,
    /// Every problem found, in canonical order.
    pub diagnostics: Vec<Diagnostic>,
    /// Where the identities were written; `Some` iff `seq` is.
    pub spans: Option<SeqSpans>,
}

/// Source spans of the identities in a loaded sequence (for catalog diagnostics).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeqSpans {
    /// The sequence `id` value.
    pub id: Span,
    /// Each notify's `id` value, in authored order.
    pub notify_ids: Vec<Span>,
    /// Each window's `id` value, in authored order.
    pub window_ids: Vec<Span>,
    /// The root-motion `bone` value, when there is root motion.
    pub root_motion_bone: Option<Span>,
}

const ROOT_FIELDS: &[&str] = &[
    "format",
    "id",
    "name",
    "duration",
    "skeleton",
    "tracks",
    "notifies",
    "windows",
    "curves",
    "root_motion",
];
const TRACK_FIELDS: &[&str] = &["bone", "translation", "rotation", "scale"];
const CURVE_FIELDS: &[&str] = &["name", "interpolation", "keys"];
const ROOT_MOTION_FIELDS: &[&str] = &["bone", "translation", "yaw"];
const AXES_FIELDS: &[&str] = &["x", "y", "z"];

/// The first format version that allows a root field.
pub(super) fn root_field_version(name: &str) -> u32 {
    match name {
        "notifies" | "curves" | "root_motion" => 2,
        "windows" => 4,
        _ => 1,
    }
}

/// Loads raw bytes: non-UTF-8 is reported at the first bad byte ([`E_NOT_UTF8`]).
pub fn load_bytes(name: &str, bytes: &[u8]) -> Loaded {
    match std::str::from_utf8(bytes) {
        Ok(text) => load(&SourceFile::new(name, text)),
        Err(e) => {
            let at = e.valid_up_to();
            let len = e.error_len().unwrap_or(1);
            let bad = bytes.get(at).copied().unwrap_or(0);
            let src = SourceFile::new(name, String::from_utf8_lossy(bytes));
            Loaded {
                seq: None,
                format: 0,
                diagnostics: vec![
                    Diagnostic::error(
                        E_NOT_UTF8,
                        format!("file is not valid UTF-8 (byte 0x{bad:02X} at offset {at})"),
                    )
                    .at(&src, Span::new(at, at + len))
                    .with_note("`.animseq` files are UTF-8 text"),
                ],
                spans: None,
            }
        }
    }
}

/// Parses and validates one `.animseq` text.
pub fn load(src: &SourceFile) -> Loaded {
    let mut cx = Cx(
        Decoder::new(
            src,
            DecodeCodes {
                type_mismatch: E_TYPE,
                unknown_field: E_UNKNOWN_FIELD,
                duplicate_field: E_DUPLICATE_FIELD,
                missing_field: E_MISSING_FIELD,
            },
        ),
        1,
    );
    // Lists are deferred and decoded one item at a time: the tree never holds a clip's keys.
    let value = match ron_span::parse_lazy(src.text()) {
        Ok(v) => v,
        Err(e) => {
            cx.error(E_SYNTAX, e.span, e.message);
            return cx.finish(None, 0, None);
        }
    };
    let mut errs = Vec::new();
    let Some(root) = expect_struct(&value, "AnimSeq", ROOT_FIELDS, &mut errs) else {
        cx.decode_all(errs);
        return cx.finish(None, 0, None);
    };
    // The format decides how to read everything else, so it is judged first; a too-new format
    // is the only thing reported (the rest is written in a language this reader lacks).
    let format = match root.get("format") {
        None => 1,
        Some(f) => match f.value.kind {
            ValueKind::Int(v) if v > i64::from(CURRENT_FORMAT) => {
                cx.diags.push(
                    Diagnostic::error(
                        E_FORMAT_TOO_NEW,
                        format!(
                            "format {v} is newer than this reader knows (newest: {CURRENT_FORMAT})"
                        ),
                    )
                    .at(src, f.value.span)
                    .with_note("refusing to load: saving would drop what this reader cannot see"),
                );
                let declared = u32::try_from(v).unwrap_or(u32::MAX);
                return cx.finish(None, declared, None);
            }
            ValueKind::Int(v) if v >= 1 => v as u32,
            _ => {
                cx.error(
                    E_FORMAT_INVALID,
                    f.value.span,
                    format!(
                        "invalid format version: expected 1, 2, 3 or 4, found {}",
                        describe_scalar(&f.value)
                    ),
                );
                0
            }
        },
    };
    cx.decode_all(errs);
    // Validate the rest as the declared version (an invalid one is judged as the newest).
    let v = if format == 0 { CURRENT_FORMAT } else { format };
    let (seq, spans) = cx.seq(&root, v);
    let seq_ok = !cx.fatal();
    if seq_ok {
        cx.finish(seq, format, spans)
    } else {
        cx.finish(None, format, None)
    }
}

/// Checks the root-motion bone against a skeleton's bone names, for a sequence whose bone has
/// no track (the loader cannot read the skeleton file itself). `None` when all is well.
pub fn check_root_motion_bone(
    src: &SourceFile,
    seq: &AnimSeq,
    spans: &SeqSpans,
    skeleton_bones: &[&str],
) -> Option<Diagnostic> {
    let rm = seq.root_motion.as_ref()?;
    if seq.tracks.iter().any(|t| t.bone == rm.bone) || skeleton_bones.contains(&rm.bone.as_str()) {
        return None;
    }
    let span = spans.root_motion_bone.unwrap_or(spans.id);
    Some(
        Diagnostic::error(
            E_ROOT_BONE_MISSING,
            format!(
                "root-motion bone `{}` has no track and is not in the skeleton",
                short(&rm.bone)
            ),
        )
        .at(src, span),
    )
}

fn describe_scalar(v: &Value) -> String {
    match v.kind {
        ValueKind::Int(i) => i.to_string(),
        _ => v.describe(),
    }
}

use crate::ron_span::short;

/// The `.animseq` decoder: the shared [`Decoder`] plus the format's own checks; the second
/// field is the lowest format holding every field the file writes ([`fields_need`]), which
/// `E0105` tells the author to declare.
struct Cx<'s>(Decoder<'s>, u32);

/// The lowest format whose fields cover every field the file writes: the root's fields and
/// each notify's (a v1 file with notifies that carry `fields` needs format 3, not 2).
fn fields_need(root: &Fields<'_>, text: &str) -> u32 {
    let mut need = 1;
    for f in &root.fields {
        need = need.max(root_field_version(&f.name));
        if f.name == "notifies"
            && let Ok(items) = f.value.items(text)
        {
            for item in items {
                let item = &item;
                if let ValueKind::Struct { fields, .. } = &item.kind {
                    for nf in fields {
                        need = need.max(markers::notify_field_version(&nf.name));
                    }
                }
            }
        }
    }
    need
}

impl<'s> std::ops::Deref for Cx<'s> {
    type Target = Decoder<'s>;
    fn deref(&self) -> &Decoder<'s> {
        &self.0
    }
}

impl std::ops::DerefMut for Cx<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl Cx<'_> {
    fn finish(self, seq: Option<AnimSeq>, format: u32, spans: Option<SeqSpans>) -> Loaded {
        Loaded {
            seq,
            format,
            diagnostics: self.0.finish(),
            spans,
        }
    }

    /// Any error other than duplicate notify or window IDs (those quarantine the identity but
    /// keep the sequence).
    fn fatal(&self) -> bool {
        self.diags.iter().any(|d| d.code != E_DUPLICATE_NOTIFY_ID)
    }

    /// Refuses fields the declared version does not allow; returns the fields that remain.
    fn versioned<'v>(
        &mut self,
        mut fields: Fields<'v>,
        format: u32,
        since: fn(&str) -> u32,
        what: &str,
    ) -> Fields<'v> {
        let mut keep = Vec::with_capacity(fields.fields.len());
        for f in fields.fields {
            let need = since(&f.name);
            if need > format {
                let d = Diagnostic::error(
                    E_FIELD_NOT_IN_VERSION,
                    format!(
                        "{what} field `{}` is not allowed in format {format} (needs format {need})",
                        f.name
                    ),
                )
                .at(self.src, f.name_span)
                .with_note(if self.1 > need {
                    format!(
                        "this file writes fields of format {0}: declare `format: {0}` (or \
                         later), or remove them",
                        self.1
                    )
                } else {
                    format!("declare `format: {need}` (or later) to use it, or remove the field")
                });
                self.push(d);
            } else {
                keep.push(f);
            }
        }
        fields.fields = keep;
        fields
    }

    fn string(&mut self, v: Option<&Value>) -> Option<String> {
        let v = v?;
        self.ok(v.as_str()).map(str::to_string)
    }

    fn name(&mut self, v: Option<&Value>, what: &str) -> Option<String> {
        let s = self.string(v)?;
        if s.trim().is_empty()
            && let Some(v) = v
        {
            self.error(E_EMPTY_NAME, v.span, format!("{what} is empty"));
        }
        Some(s)
    }

    fn id(&mut self, v: Option<&Value>, what: &str) -> Option<(String, Span)> {
        let v = v?;
        let s = self.ok(v.as_str())?;
        if !is_valid_id(s) {
            let d = Diagnostic::error(E_BAD_ID, format!("invalid {what} ID \"{}\"", short(s)))
                .at(self.src, v.span)
                .with_note("IDs match [A-Za-z0-9][A-Za-z0-9_-]{0,63} (a UUID does)");
            self.push(d);
        }
        Some((s.to_string(), v.span))
    }

    fn variant<'v>(&mut self, v: &'v Value, expected: &str) -> Option<Variant<'v>> {
        let r = v.as_variant();
        if r.is_none() {
            self.decode(DecodeError::mismatch(expected, v));
        }
        r
    }

    fn f32s<const N: usize>(&mut self, v: &Value) -> Option<[f32; N]> {
        let items = self.ok(v.as_tuple(N))?;
        let mut out = [0.0f32; N];
        let mut ok = true;
        for (o, item) in out.iter_mut().zip(items) {
            match self.ok(item.as_f32()) {
                Some(x) => *o = x,
                None => ok = false,
            }
        }
        ok.then_some(out)
    }

    fn seq(&mut self, root: &Fields<'_>, format: u32) -> (Option<AnimSeq>, Option<SeqSpans>) {
        self.1 = fields_need(root, self.src.text());
        let root = self.versioned(root.clone(), format, root_field_version, "sequence");
        let mut errs = Vec::new();
        let id_v = root.required("id", &mut errs);
        let name_v = root.required("name", &mut errs);
        let dur_v = root.required("duration", &mut errs);
        let tracks_v = root.required("tracks", &mut errs);
        self.decode_all(errs);

        let id = self.id(id_v, "sequence");
        let name = self.name(name_v, "sequence name");
        let duration = dur_v.and_then(|v| {
            let d = self.ok(v.as_f64())?;
            if !(d.is_finite() && d > 0.0) {
                self.error(
                    E_BAD_DURATION,
                    v.span,
                    format!("duration must be finite and > 0, found {d:?}"),
                );
                return None;
            }
            Some(d)
        });
        let skeleton = match root.get("skeleton") {
            None => Some(None),
            Some(f) => match self.ok(f.value.as_option()) {
                None => None,
                Some(None) => Some(None),
                Some(Some(s)) => self.string(Some(s)).map(Some),
            },
        };
        let tracks = tracks_v.and_then(|v| self.tracks(v));
        let notifies = match root.get("notifies") {
            None => Some(markers::Decoded::default()),
            Some(f) => self.notifies(&f.value, format, duration),
        };
        let windows = match root.get("windows") {
            None => Some(markers::Decoded::default()),
            Some(f) => self.windows(f, duration),
        };
        // Notify and window IDs share one namespace; checked over everything that decoded, so
        // a duplicate is reported even when another marker is broken.
        let ids = notifies.iter().flat_map(|d| {
            d.items
                .iter()
                .map(|(n, s)| (n.id.as_str(), *s, MarkerKind::Notify))
        });
        let wids = windows.iter().flat_map(|d| {
            d.items
                .iter()
                .map(|(w, s)| (w.id.as_str(), *s, MarkerKind::Window))
        });
        let all_ids = ids.chain(wids).collect();
        self.duplicate_ids(all_ids);
        let notifies = notifies.filter(|d| d.ok).map(markers::Decoded::split);
        let windows = windows.filter(|d| d.ok).map(markers::Decoded::split);
        let curves = match root.get("curves") {
            None => Some(Vec::new()),
            Some(f) => self.curves(&f.value, duration),
        };
        let root_motion = match root.get("root_motion") {
            None => Some(None),
            Some(f) => match self.ok(f.value.as_option()) {
                None => None,
                Some(None) => Some(None),
                Some(Some(v)) => self.root_motion(v).map(Some),
            },
        };
        let (Some((id, id_span)), Some(name), Some(duration), Some(skeleton), Some(tracks)) =
            (id, name, duration, skeleton, tracks)
        else {
            return (None, None);
        };
        let (
            Some((notifies, notify_ids)),
            Some((windows, window_ids)),
            Some(curves),
            Some(root_motion),
        ) = (notifies, windows, curves, root_motion)
        else {
            return (None, None);
        };
        let root_motion_bone = root_motion.as_ref().map(|(_, s)| *s);
        let root_motion = root_motion.map(|(rm, _)| rm);
        if let (Some(rm), Some(span)) = (&root_motion, root_motion_bone)
            && skeleton.is_none()
            && !tracks.iter().any(|t| t.bone == rm.bone)
        {
            let d = Diagnostic::error(
                E_ROOT_BONE_MISSING,
                format!(
                    "root-motion bone `{}` has no track and there is no skeleton",
                    short(&rm.bone)
                ),
            )
            .at(self.src, span);
            self.push(d);
        }
        let seq = AnimSeq {
            id,
            name,
            duration,
            skeleton,
            tracks,
            notifies,
            windows,
            curves,
            root_motion,
        };
        let spans = SeqSpans {
            id: id_span,
            notify_ids,
            window_ids,
            root_motion_bone,
        };
        (Some(seq), Some(spans))
    }

    fn tracks(&mut self, v: &Value) -> Option<Vec<Track>> {
        let src = self.src;
        let items = self.ok(v.items(src.text()))?;
        let mut out = Vec::new();
        let mut ok = true;
        let mut bones: std::collections::BTreeMap<String, Span> = Default::default();
        for item in items {
            let item = &item;
            match self.track(item) {
                Some((t, bone_span)) => {
                    if let Some(first) = bones.get(t.bone.as_str()) {
                        let d = Diagnostic::error(
                            E_DUPLICATE_TRACK,
                            format!("second track for bone `{}`", short(&t.bone)),
                        )
                        .at(self.src, bone_span)
                        .with_label(
                            self.src,
                            *first,
                            "first track for this bone",
                        );
                        self.push(d);
                    } else {
                        bones.insert(t.bone.clone(), bone_span);
                    }
                    out.push(t);
                }
                None => ok = false,
            }
        }
        ok.then_some(out)
    }

    fn track(&mut self, v: &Value) -> Option<(Track, Span)> {
        let f = self.strukt(v, "Track", TRACK_FIELDS)?;
        let mut errs = Vec::new();
        let bone_v = f.required("bone", &mut errs);
        let tr_v = f.required("translation", &mut errs);
        let rot_v = f.required("rotation", &mut errs);
        let sc_v = f.required("scale", &mut errs);
        self.decode_all(errs);
        let bone = self.name(bone_v, "bone name");
        let translation = tr_v.and_then(|v| self.keys::<3>(v, "translation"));
        let rotation = rot_v.and_then(|v| self.keys::<4>(v, "rotation"));
        let scale = sc_v.and_then(|v| self.keys::<3>(v, "scale"));
        Some((
            Track {
                bone: bone?,
                translation: translation?,
                rotation: rotation?,
                scale: scale?,
            },
            bone_v?.span,
        ))
    }

    fn keys<const N: usize>(&mut self, v: &Value, what: &str) -> Option<Vec<(f64, [f32; N])>> {
        let src = self.src;
        let items = self.ok(v.items(src.text()))?;
        let mut out = Vec::new();
        let mut ok = true;
        let mut prev: Option<f64> = None;
        for item in items {
            let item = &item;
            let Some(pair) = self.ok(item.as_tuple(2)) else {
                ok = false;
                continue;
            };
            let t = self.ok(pair[0].as_f64());
            let val = self.f32s::<N>(&pair[1]);
            let (Some(t), Some(val)) = (t, val) else {
                ok = false;
                continue;
            };
            if !t.is_finite() {
                self.error(
                    E_TRACK_NON_FINITE,
                    pair[0].span,
                    format!("{what} key time must be finite, found {t:?}"),
                );
                ok = false;
                continue;
            }
            if !val.iter().all(|x| x.is_finite()) {
                self.error(
                    E_TRACK_NON_FINITE,
                    pair[1].span,
                    format!("{what} key value must be finite (as f32)"),
                );
                ok = false;
            } else if N == 4 && val.iter().all(|&x| x == 0.0) {
                self.error(
                    E_TRACK_ZERO_ROTATION,
                    pair[1].span,
                    "rotation key is a zero quaternion (cannot be normalized)",
                );
                ok = false;
            }
            if let Some(p) = prev
                && t <= p
            {
                self.error(
                    E_TRACK_UNSORTED,
                    pair[0].span,
                    format!("{what} keys must be strictly increasing in time: {t:?} after {p:?}"),
                );
                ok = false;
            }
            prev = Some(t);
            out.push((t, val));
        }
        ok.then_some(out)
    }

    fn curves(&mut self, v: &Value, duration: Option<f64>) -> Option<Vec<Curve>> {
        let src = self.src;
        let items = self.ok(v.items(src.text()))?;
        let mut out = Vec::new();
        let mut ok = true;
        let mut seen: std::collections::BTreeMap<String, Span> = Default::default();
        for item in items {
            let item = &item;
            match self.curve(item, duration) {
                Some((c, span)) => {
                    if let Some(first) = seen.get(&c.name) {
                        let d = Diagnostic::error(
                            E_DUPLICATE_CURVE,
                            format!("duplicate curve name `{}`", short(&c.name)),
                        )
                        .at(self.src, span)
                        .with_label(
                            self.src,
                            *first,
                            "first declared here",
                        );
                        self.push(d);
                        ok = false;
                    } else {
                        seen.insert(c.name.clone(), span);
                    }
                    out.push(c);
                }
                None => ok = false,
            }
        }
        ok.then_some(out)
    }

    fn curve(&mut self, v: &Value, duration: Option<f64>) -> Option<(Curve, Span)> {
        let f = self.strukt(v, "Curve", CURVE_FIELDS)?;
        let mut errs = Vec::new();
        let name_v = f.required("name", &mut errs);
        let interp_v = f.required("interpolation", &mut errs);
        let keys_v = f.required("keys", &mut errs);
        self.decode_all(errs);
        let name = self.name(name_v, "curve name");
        let interpolation = interp_v.and_then(|v| {
            const EXPECTED: &str = "`Step` or `Linear`";
            let var = self.variant(v, EXPECTED)?;
            match (var.name, var.args) {
                ("Step", None) => Some(Interpolation::Step),
                ("Linear", None) => Some(Interpolation::Linear),
                _ => {
                    self.decode(DecodeError::mismatch(EXPECTED, v));
                    None
                }
            }
        });
        let keys = keys_v.and_then(|v| self.curve_keys(v, duration));
        Some((
            Curve {
                name: name?,
                interpolation: interpolation?,
                keys: keys?,
            },
            name_v?.span,
        ))
    }

    fn curve_keys(&mut self, v: &Value, duration: Option<f64>) -> Option<Vec<(f64, CurveValue)>> {
        const EXPECTED: &str = "`Float(x)` or `Vec3((x, y, z))`";
        let src = self.src;
        let items = self.ok(v.items(src.text()))?;
        let mut out = Vec::new();
        let mut ok = true;
        let mut prev: Option<f64> = None;
        let mut first_kind: Option<(bool, Span)> = None;
        for item in items {
            let item = &item;
            let Some(pair) = self.ok(item.as_tuple(2)) else {
                ok = false;
                continue;
            };
            let t = self.ok(pair[0].as_f64());
            let val = self.variant(&pair[1], EXPECTED).and_then(|var| match var {
                Variant {
                    name: "Float",
                    args: Some([x]),
                    ..
                } => self.ok(x.as_f64()).map(CurveValue::Float),
                Variant {
                    name: "Vec3",
                    args: Some([x]),
                    ..
                } => self.f32s::<3>(x).map(CurveValue::Vec3),
                _ => {
                    self.decode(DecodeError::mismatch(EXPECTED, &pair[1]));
                    None
                }
            });
            let (Some(t), Some(val)) = (t, val) else {
                ok = false;
                continue;
            };
            let finite_val = match val {
                CurveValue::Float(x) => x.is_finite(),
                CurveValue::Vec3(a) => a.iter().all(|x| x.is_finite()),
            };
            if !t.is_finite() {
                self.error(
                    E_CURVE_NON_FINITE,
                    pair[0].span,
                    format!("curve key time must be finite, found {t:?}"),
                );
                ok = false;
                continue;
            }
            if !finite_val {
                self.error(
                    E_CURVE_NON_FINITE,
                    pair[1].span,
                    "curve key value must be finite",
                );
                ok = false;
            }
            let is_vec = matches!(val, CurveValue::Vec3(_));
            match first_kind {
                None => first_kind = Some((is_vec, pair[1].span)),
                Some((k, first)) if k != is_vec => {
                    let d = Diagnostic::error(
                        E_CURVE_MIXED_TYPES,
                        format!(
                            "curve mixes value types: this key is {}, the first is {}",
                            if is_vec { "Vec3" } else { "Float" },
                            if k { "Vec3" } else { "Float" }
                        ),
                    )
                    .at(self.src, pair[1].span)
                    .with_label(self.src, first, "first key's type");
                    self.push(d);
                    ok = false;
                }
                Some(_) => {}
            }
            if let Some(d) = duration
                && !(0.0..=d).contains(&t)
            {
                self.error(
                    E_CURVE_OUT_OF_RANGE,
                    pair[0].span,
                    format!("curve key time {t:?} is outside [0, {d:?}]"),
                );
                ok = false;
            }
            if let Some(p) = prev {
                if t == p {
                    self.error(
                        E_CURVE_DUPLICATE_KEY,
                        pair[0].span,
                        format!("two curve keys at time {t:?}"),
                    );
                    ok = false;
                } else if t < p {
                    self.error(
                        E_CURVE_UNSORTED,
                        pair[0].span,
                        format!(
                            "curve keys must be strictly increasing in time: {t:?} after {p:?}"
                        ),
                    );
                    ok = false;
                }
            }
            prev = Some(t);
            out.push((t, val));
        }
        ok.then_some(out)
    }

    fn root_motion(&mut self, v: &Value) -> Option<(RootMotion, Span)> {
        let f = self.strukt(v, "RootMotion", ROOT_MOTION_FIELDS)?;
        let mut errs = Vec::new();
        let bone_v = f.required("bone", &mut errs);
        let tr_v = f.required("translation", &mut errs);
        let yaw_v = f.required("yaw", &mut errs);
        self.decode_all(errs);
        let bone = self.name(bone_v, "root-motion bone name");
        let translation = tr_v.and_then(|v| {
            let a = self.strukt(v, "Axes", AXES_FIELDS)?;
            let mut errs = Vec::new();
            let x = a.required("x", &mut errs);
            let y = a.required("y", &mut errs);
            let z = a.required("z", &mut errs);
            self.decode_all(errs);
            let x = x.and_then(|v| self.ok(v.as_bool()));
            let y = y.and_then(|v| self.ok(v.as_bool()));
            let z = z.and_then(|v| self.ok(v.as_bool()));
            Some(Axes {
                x: x?,
                y: y?,
                z: z?,
            })
        });
        let yaw = yaw_v.and_then(|v| self.ok(v.as_bool()));
        Some((
            RootMotion {
                bone: bone?,
                translation: translation?,
                yaw: yaw?,
            },
            bone_v?.span,
        ))
    }
}
