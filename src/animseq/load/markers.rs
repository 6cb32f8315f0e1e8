//! Decoding the markers of a sequence: point notifies, windows (format 4), their targets,
//! payload fields and gating, and the one ID namespace they share (duplicates are
//! [`E_DUPLICATE_NOTIFY_ID`], a quarantine, not a failure of the file).

use super::*;

/// The most windows one sequence may hold (a runtime keeps one open/closed bit per window and
/// playing clip instance, so this bounds that state at 8 KiB per instance).
pub const MAX_WINDOWS: usize = 65_536;

const NOTIFY_FIELDS: &[&str] = &[
    "id",
    "name",
    "time",
    "target",
    "fields",
    "weight_threshold",
    "chance",
];
const WINDOW_FIELDS: &[&str] = &[
    "id",
    "name",
    "begin",
    "end",
    "target",
    "fields",
    "weight_threshold",
    "chance",
];

/// The first format version that allows a notify field.
pub(in crate::animseq) fn notify_field_version(name: &str) -> u32 {
    match name {
        "target" | "fields" => 3,
        "weight_threshold" | "chance" => 4,
        _ => 2,
    }
}

/// Which list a marker ID was declared in (for duplicate-ID messages).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum MarkerKind {
    Notify,
    Window,
}

impl MarkerKind {
    fn noun(self) -> &'static str {
        match self {
            MarkerKind::Notify => "notify",
            MarkerKind::Window => "window",
        }
    }
}

/// Decoded markers of one list: every item that decoded (with its ID span), and whether all did.
pub(super) struct Decoded<T> {
    pub items: Vec<(T, Span)>,
    pub ok: bool,
}

impl<T> Default for Decoded<T> {
    fn default() -> Self {
        Decoded {
            items: Vec::new(),
            ok: true,
        }
    }
}

impl<T> Decoded<T> {
    /// The markers and their ID spans as two lists in authored order.
    pub fn split(self) -> (Vec<T>, Vec<Span>) {
        self.items.into_iter().unzip()
    }
}

impl Cx<'_> {
    pub(super) fn notifies(
        &mut self,
        v: &Value,
        format: u32,
        duration: Option<f64>,
    ) -> Option<Decoded<Notify>> {
        let src = self.src;
        let items = self.ok(v.items(src.text()))?;
        let mut out = Decoded {
            items: Vec::new(),
            ok: true,
        };
        for item in items {
            let item = &item;
            match self.notify(item, format, duration) {
                Some(n) => out.items.push(n),
                None => out.ok = false,
            }
        }
        Some(out)
    }

    fn notify(&mut self, v: &Value, format: u32, duration: Option<f64>) -> Option<(Notify, Span)> {
        let f = self.strukt(v, "Notify", NOTIFY_FIELDS)?;
        let f = self.versioned(f, format, notify_field_version, "notify");
        let mut errs = Vec::new();
        let id_v = f.required("id", &mut errs);
        let name_v = f.required("name", &mut errs);
        let time_v = f.required("time", &mut errs);
        self.decode_all(errs);
        let id = self.id(id_v, "notify");
        let name = self.name(name_v, "notify name");
        let time = time_v.and_then(|v| {
            let t = self.ok(v.as_f64())?;
            let in_range = duration.is_none_or(|d| (0.0..=d).contains(&t));
            if !t.is_finite() || !in_range {
                self.error(
                    E_BAD_NOTIFY_TIME,
                    v.span,
                    format!(
                        "notify time must be finite and within {}, found {t:?}",
                        range(duration)
                    ),
                );
                return None;
            }
            Some(t)
        });
        let target = self.target_of(&f);
        let fields = self.fields_of(&f, MarkerKind::Notify);
        let gating = self.gating(&f);
        let (id, id_span) = id?;
        Some((
            Notify {
                id,
                name: name?,
                time: time?,
                target: target?,
                fields: fields?,
                gating: gating?,
            },
            id_span,
        ))
    }

    /// The `windows` list (the field itself needs format 4, checked by the caller). More than
    /// [`MAX_WINDOWS`] is one error at the field name; the windows are then not decoded.
    pub(super) fn windows(
        &mut self,
        field: &Field,
        duration: Option<f64>,
    ) -> Option<Decoded<Window>> {
        let src = self.src;
        let items = self.ok(field.value.items(src.text()))?;
        // Counted by reading the list once more (no item is kept), before any is decoded.
        let count = field.value.items(src.text()).map_or(0, Iterator::count);
        if count > MAX_WINDOWS {
            self.error(
                E_TOO_MANY_WINDOWS,
                field.name_span,
                format!("{count} windows in one sequence; at most {MAX_WINDOWS} are allowed"),
            );
            return None;
        }
        let mut out = Decoded {
            items: Vec::new(),
            ok: true,
        };
        for item in items {
            let item = &item;
            match self.window(item, duration) {
                Some(w) => out.items.push(w),
                None => out.ok = false,
            }
        }
        Some(out)
    }

    fn window(&mut self, v: &Value, duration: Option<f64>) -> Option<(Window, Span)> {
        let f = self.strukt(v, "Window", WINDOW_FIELDS)?;
        let mut errs = Vec::new();
        let id_v = f.required("id", &mut errs);
        let name_v = f.required("name", &mut errs);
        let begin_v = f.required("begin", &mut errs);
        let end_v = f.required("end", &mut errs);
        self.decode_all(errs);
        let id = self.id(id_v, "window");
        let name = self.name(name_v, "window name");
        let begin = begin_v.and_then(|v| self.edge(v, "begin", duration));
        let end = end_v.and_then(|v| self.edge(v, "end", duration));
        if let (Some(b), Some(e), Some(bv), Some(ev)) = (begin, end, begin_v, end_v)
            && b >= e
        {
            let d = Diagnostic::error(
                E_WINDOW_EMPTY,
                format!("window must end after it begins: begin {b:?}, end {e:?}"),
            )
            .at(self.src, ev.span)
            .with_label(self.src, bv.span, "begins here")
            .with_note("a window needs 0 ≤ begin < end ≤ duration; use a notify for an instant");
            self.push(d);
            return None;
        }
        let target = self.target_of(&f);
        let fields = self.fields_of(&f, MarkerKind::Window);
        let gating = self.gating(&f);
        let (id, id_span) = id?;
        Some((
            Window {
                id,
                name: name?,
                begin: begin?,
                end: end?,
                target: target?,
                fields: fields?,
                gating: gating?,
            },
            id_span,
        ))
    }

    /// One window edge: a finite number within `[0, duration]`.
    fn edge(&mut self, v: &Value, what: &str, duration: Option<f64>) -> Option<f64> {
        let t = self.ok(v.as_f64())?;
        let in_range = t >= 0.0 && duration.is_none_or(|d| t <= d);
        if !t.is_finite() || !in_range {
            self.error(
                E_BAD_WINDOW_EDGE,
                v.span,
                format!(
                    "window {what} must be finite and within {}, found {t:?}",
                    range(duration)
                ),
            );
            return None;
        }
        Some(t)
    }

    /// `weight_threshold` and `chance`, each a finite number in `[0, 1]` (`-0.0` reads as 0).
    fn gating(&mut self, f: &Fields<'_>) -> Option<Gating> {
        let mut one = |name: &str, default: f64| -> Option<f64> {
            let Some(field) = f.get(name) else {
                return Some(default);
            };
            let v = &field.value;
            let x = self.ok(v.as_f64())?;
            if !(0.0..=1.0).contains(&x) {
                self.error(
                    E_BAD_GATING,
                    v.span,
                    format!("`{name}` must be within [0, 1], found {x:?}"),
                );
                return None;
            }
            Some(x + 0.0)
        };
        let weight_threshold = one("weight_threshold", Gating::ALWAYS.weight_threshold);
        let chance = one("chance", Gating::ALWAYS.chance);
        Some(Gating {
            weight_threshold: weight_threshold?,
            chance: chance?,
        })
    }

    fn target_of(&mut self, f: &Fields<'_>) -> Option<Target> {
        match f.get("target") {
            None => Some(Target::Owner),
            Some(t) => self.target(&t.value),
        }
    }

    fn fields_of(&mut self, f: &Fields<'_>, kind: MarkerKind) -> Option<Vec<(String, FieldValue)>> {
        match f.get("fields") {
            None => Some(Vec::new()),
            Some(fv) => self.fields(&fv.value, kind),
        }
    }

    /// Reports every later declaration of an ID already used by a notify or window of this
    /// sequence ([`E_DUPLICATE_NOTIFY_ID`], labelled at the first declaration in the file).
    /// `ids` are `(id, span, kind)` of every decoded marker. Cost O(n log n) in the markers.
    pub(super) fn duplicate_ids(&mut self, mut ids: Vec<(&str, Span, MarkerKind)>) {
        ids.sort_by_key(|&(_, span, _)| span.start);
        let mut first: std::collections::HashMap<&str, (Span, MarkerKind)> =
            std::collections::HashMap::with_capacity(ids.len());
        for (id, span, kind) in ids {
            let Some(&(at, first_kind)) = first.get(id) else {
                first.insert(id, (span, kind));
                continue;
            };
            let label = if first_kind == kind {
                "first declared here".to_string()
            } else {
                format!("first declared here, as a {}", first_kind.noun())
            };
            let d = Diagnostic::error(
                E_DUPLICATE_NOTIFY_ID,
                format!(
                    "duplicate {} ID `{}` in this sequence",
                    kind.noun(),
                    short(id)
                ),
            )
            .at(self.src, span)
            .with_label(self.src, at, label)
            .with_note(
                "this identity is quarantined; the file's other notifies and windows still load",
            );
            self.push(d);
        }
    }

    fn target(&mut self, v: &Value) -> Option<Target> {
        const EXPECTED: &str = "`Owner` or `Variable(\"name\")`";
        let var = self.variant(v, EXPECTED)?;
        match (var.name, var.args) {
            ("Owner", None) => Some(Target::Owner),
            ("Variable", Some([arg])) => {
                let name = self.ok(arg.as_str())?;
                if !is_identifier(name) {
                    self.error(
                        E_BAD_TARGET,
                        arg.span,
                        format!("target variable \"{}\" is not an identifier", short(name)),
                    );
                    return None;
                }
                Some(Target::Variable(name.to_string()))
            }
            ("Variable", _) => {
                self.decode(DecodeError::mismatch("`Variable(\"name\")`", v));
                None
            }
            _ => {
                self.decode(DecodeError::mismatch(EXPECTED, v));
                None
            }
        }
    }

    fn fields(&mut self, v: &Value, kind: MarkerKind) -> Option<Vec<(String, FieldValue)>> {
        let src = self.src;
        let items = self.ok(v.items(src.text()))?;
        let mut out = Vec::new();
        let mut ok = true;
        let mut seen: std::collections::BTreeMap<String, Span> = Default::default();
        for item in items {
            let item = &item;
            let Some(pair) = self.ok(item.as_tuple(2)) else {
                ok = false;
                continue;
            };
            let name = self.ok(pair[0].as_str());
            let value = self.field_value(&pair[1]);
            let (Some(name), Some(value)) = (name, value) else {
                ok = false;
                continue;
            };
            if !is_identifier(name) {
                self.error(
                    E_BAD_FIELD_NAME,
                    pair[0].span,
                    format!("field name \"{}\" is not an identifier", short(name)),
                );
                ok = false;
            } else if let Some(first) = seen.get(name).copied() {
                let d = Diagnostic::error(
                    E_DUPLICATE_FIELD_NAME,
                    format!("duplicate field name `{name}` in this {}", kind.noun()),
                )
                .at(self.src, pair[0].span)
                .with_label(self.src, first, "first declared here");
                self.push(d);
                ok = false;
            } else {
                seen.insert(name.to_string(), pair[0].span);
            }
            out.push((name.to_string(), value));
        }
        ok.then_some(out)
    }

    fn field_value(&mut self, v: &Value) -> Option<FieldValue> {
        const EXPECTED: &str =
            "a field value `Bool(..)`, `Int(..)`, `Float(..)`, `String(..)` or `Vec3((x, y, z))`";
        let var = self.variant(v, EXPECTED)?;
        let Some([arg]) = var.args else {
            let expected = match var.name {
                "Bool" => "`Bool(true)` or `Bool(false)`",
                "Int" => "`Int(integer)`",
                "Float" => "`Float(number)`",
                "String" => "`String(\"text\")`",
                "Vec3" => "`Vec3((x, y, z))` (one tuple inside the parentheses)",
                _ => EXPECTED,
            };
            self.decode(DecodeError::mismatch(expected, v));
            return None;
        };
        let value = match var.name {
            "Bool" => FieldValue::Bool(self.ok(arg.as_bool())?),
            "Int" => FieldValue::Int(self.ok(arg.as_i64())?),
            "Float" => FieldValue::Float(self.ok(arg.as_f64())?),
            "String" => FieldValue::String(self.ok(arg.as_str())?.to_string()),
            "Vec3" => FieldValue::Vec3(self.f32s::<3>(arg)?),
            _ => {
                self.decode(DecodeError::mismatch(EXPECTED, v));
                return None;
            }
        };
        let finite = match &value {
            FieldValue::Float(x) => x.is_finite(),
            FieldValue::Vec3(a) => a.iter().all(|x| x.is_finite()),
            _ => true,
        };
        if !finite {
            self.error(
                E_FIELD_NON_FINITE,
                arg.span,
                "field value must be finite (as f64, or f32 for Vec3)",
            );
            return None;
        }
        Some(value)
    }
}

/// `[0, d]` for messages (the duration may be unknown when it is itself invalid).
fn range(duration: Option<f64>) -> String {
    match duration {
        Some(d) => format!("[0, {d:?}]"),
        None => "[0, duration]".to_string(),
    }
}
