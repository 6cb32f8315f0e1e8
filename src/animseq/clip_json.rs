//! A sequence as the studio's JSON (`GET /api/clip`'s `clip`) and the edits of `PUT /api/clip`
//! read from JSON, each refused with the edit it names. Pure (see `docs/studio.md`, "Clips").
//!
//! Shapes: a marker's `target` is `null` (the owner) or the variable's name; `fields` is a list
//! of `{"name", "type", "value"}` with `type` one of `bool`, `int`, `float`, `string`, `vec3`
//! (a `vec3` value is `[x, y, z]`), so an int and a float stay apart in JSON.

use super::edit::{ClipEdit, EditError, MarkerPatch};
use super::*;
use serde_json::{Map, Value, json};

/// The frame rates a clip's keys are checked against, in order; the first on whose frames
/// (within 1e-4 s) at least three quarters of the key times lie is its sample rate (importers
/// resample some channels between frames).
pub const FRAME_RATES: [u32; 8] = [24, 25, 30, 48, 50, 60, 120, 240];

/// The sample rate when no rate of [`FRAME_RATES`] fits every key (or there are no keys).
pub const DEFAULT_SAMPLE_RATE: u32 = 30;

/// Most key times looked at to find the sample rate (the rate of a bigger clip is that of its
/// first keys).
const RATE_PROBE_KEYS: usize = 20_000;

/// The `.animseq` format stores no frame rate: the rate the studio snaps to is the smallest of
/// [`FRAME_RATES`] on whose frames at least 3/4 of the key times lie, else
/// [`DEFAULT_SAMPLE_RATE`].
pub fn sample_rate(seq: &AnimSeq) -> u32 {
    let times: Vec<f64> = seq
        .tracks
        .iter()
        .flat_map(|t| {
            t.translation
                .iter()
                .map(|k| k.0)
                .chain(t.rotation.iter().map(|k| k.0))
                .chain(t.scale.iter().map(|k| k.0))
        })
        .chain(seq.curves.iter().flat_map(|c| c.keys.iter().map(|k| k.0)))
        .filter(|&t| t > 0.0)
        .take(RATE_PROBE_KEYS)
        .collect();
    if times.is_empty() {
        return DEFAULT_SAMPLE_RATE;
    }
    FRAME_RATES
        .into_iter()
        .find(|&r| {
            let on = times
                .iter()
                .filter(|&&t| {
                    let f = t * f64::from(r);
                    (f - f.round()).abs() < 1e-4 * f64::from(r)
                })
                .count();
            on * 4 >= times.len() * 3
        })
        .unwrap_or(DEFAULT_SAMPLE_RATE)
}

/// Whether the clip reads as a cycle: every track's first and last keys are equal (within
/// 1e-3), translation of the root-motion bone excepted. The format stores no looping flag;
/// this is only the preview's default.
pub fn looks_looping(seq: &AnimSeq) -> bool {
    let root = seq.root_motion.as_ref().map(|r| r.bone.as_str());
    let close = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-3);
    let same = |a: &[f32; 4], b: &[f32; 4]| close(a, b) || close(a, &[-b[0], -b[1], -b[2], -b[3]]);
    !seq.tracks.is_empty()
        && seq.tracks.iter().all(|t| {
            let tr = Some(t.bone.as_str()) == root
                || match (t.translation.first(), t.translation.last()) {
                    (Some(a), Some(b)) => close(&a.1, &b.1),
                    _ => true,
                };
            let rot = match (t.rotation.first(), t.rotation.last()) {
                (Some(a), Some(b)) => same(&a.1, &b.1),
                _ => true,
            };
            tr && rot
        })
}

fn target_json(t: &Target) -> Value {
    match t {
        Target::Owner => Value::Null,
        Target::Variable(v) => json!(v),
    }
}

fn f32s(a: &[f32]) -> Vec<f64> {
    a.iter().map(|&x| crate::number::f32_value(x)).collect()
}

fn fields_json(fs: &[(String, FieldValue)]) -> Value {
    fs.iter()
        .map(|(k, v)| {
            let value = match v {
                FieldValue::Bool(b) => json!(b),
                FieldValue::Int(i) => json!(i),
                FieldValue::Float(x) => json!(x),
                FieldValue::String(s) => json!(s),
                FieldValue::Vec3(a) => json!(f32s(a)),
            };
            json!({"name": k, "type": v.ty().name(), "value": value})
        })
        .collect()
}

/// One notify as JSON.
pub fn notify_json(n: &Notify) -> Value {
    json!({
        "id": n.id, "name": n.name, "time": n.time, "target": target_json(&n.target),
        "fields": fields_json(&n.fields),
        "weight_threshold": n.gating.weight_threshold, "chance": n.gating.chance,
    })
}

/// One window as JSON.
pub fn window_json(w: &Window) -> Value {
    json!({
        "id": w.id, "name": w.name, "begin": w.begin, "end": w.end,
        "target": target_json(&w.target), "fields": fields_json(&w.fields),
        "weight_threshold": w.gating.weight_threshold, "chance": w.gating.chance,
    })
}

/// The sequence as data (`GET /api/clip`'s `clip`): tracks by bone name only.
pub fn clip_json(seq: &AnimSeq) -> Value {
    let curves: Vec<Value> = seq
        .curves
        .iter()
        .map(|c| {
            let keys: Vec<Value> = c
                .keys
                .iter()
                .map(|(t, v)| match v {
                    CurveValue::Float(x) => json!([t, x]),
                    CurveValue::Vec3(a) => json!([t, f32s(a)]),
                })
                .collect();
            let interpolation = match c.interpolation {
                Interpolation::Step => "step",
                Interpolation::Linear => "linear",
            };
            json!({"name": c.name, "interpolation": interpolation, "keys": keys})
        })
        .collect();
    json!({
        "id": seq.id,
        "name": seq.name,
        "duration": seq.duration,
        "sample_rate": sample_rate(seq),
        "looping": looks_looping(seq),
        "skeleton": seq.skeleton,
        "notifies": seq.notifies.iter().map(notify_json).collect::<Vec<_>>(),
        "windows": seq.windows.iter().map(window_json).collect::<Vec<_>>(),
        "curves": curves,
        "tracks": seq.tracks.iter().map(|t| t.bone.as_str()).collect::<Vec<_>>(),
        "root_motion": seq.root_motion.as_ref().map(|r| json!({"bone": r.bone, "yaw": r.yaw})),
    })
}

/// The edits of a `PUT /api/clip` body's `edits` (at most [`super::edit::MAX_EDITS`]).
pub fn edits_from_json(v: &Value) -> Result<Vec<ClipEdit>, EditError> {
    let Some(list) = v.as_array() else {
        return Err(EditError::Body("`edits` must be a list".into()));
    };
    if list.len() > super::edit::MAX_EDITS {
        return Err(EditError::TooMany(list.len()));
    }
    list.iter()
        .enumerate()
        .map(|(index, e)| {
            edit_from_json(e).map_err(|(op, message)| EditError::Edit { index, op, message })
        })
        .collect()
}

type Bad = (&'static str, String);

fn edit_from_json(e: &Value) -> Result<ClipEdit, Bad> {
    let Some(o) = e.as_object() else {
        return Err(("edit", "an edit must be an object with `op`".into()));
    };
    let op = match o.get("op").and_then(Value::as_str) {
        Some("add_notify") => "add_notify",
        Some("set_notify") => "set_notify",
        Some("remove_notify") => "remove_notify",
        Some("add_window") => "add_window",
        Some("set_window") => "set_window",
        Some("remove_window") => "remove_window",
        Some(other) => {
            let ops = [
                "add_notify",
                "set_notify",
                "remove_notify",
                "add_window",
                "set_window",
                "remove_window",
            ];
            let hint = crate::suggest::closest(other, ops)
                .map(|c| format!(" (did you mean `{c}`?)"))
                .unwrap_or_default();
            return Err(("edit", format!("unknown op `{other}`{hint}")));
        }
        None => return Err(("edit", "an edit needs a string `op`".into())),
    };
    let bad = |m: String| (op, m);
    let window = op.ends_with("window");
    let key = if window { "window" } else { "notify" };
    let allowed: &[&str] = match op {
        "add_notify" | "add_window" => &["op", key],
        "set_notify" | "set_window" => &["op", "id", key],
        _ => &["op", "id"],
    };
    if let Some(k) = o.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(bad(format!("unknown key `{k}` in a `{op}` edit")));
    }
    let id = || -> Result<String, Bad> {
        match o.get("id") {
            Some(Value::String(s)) => Ok(s.clone()),
            _ => Err(bad(format!("`{op}` needs `id`, a string"))),
        }
    };
    let patch = || -> Result<MarkerPatch, Bad> {
        match o.get(key) {
            Some(Value::Object(m)) => patch_from_json(m, window).map_err(bad),
            _ => Err(bad(format!("`{op}` needs `{key}`, an object"))),
        }
    };
    Ok(match op {
        "add_notify" => ClipEdit::AddNotify(patch()?),
        "set_notify" => ClipEdit::SetNotify {
            id: id()?,
            patch: patch()?,
        },
        "remove_notify" => ClipEdit::RemoveNotify { id: id()? },
        "add_window" => ClipEdit::AddWindow(patch()?),
        "set_window" => ClipEdit::SetWindow {
            id: id()?,
            patch: patch()?,
        },
        _ => ClipEdit::RemoveWindow { id: id()? },
    })
}

fn patch_from_json(m: &Map<String, Value>, window: bool) -> Result<MarkerPatch, String> {
    let mut p = MarkerPatch::default();
    for (k, v) in m {
        let num = |what: &str| -> Result<f64, String> {
            v.as_f64()
                .filter(|x| x.is_finite())
                .ok_or_else(|| format!("`{what}` must be a number, got {}", kind(v)))
        };
        let string = |what: &str| -> Result<String, String> {
            v.as_str()
                .map(str::to_string)
                .ok_or_else(|| format!("`{what}` must be a string, got {}", kind(v)))
        };
        match (k.as_str(), window) {
            ("id", _) => p.id = Some(string("id")?),
            ("name", _) => p.name = Some(string("name")?),
            ("time", false) => p.time = Some(num("time")?),
            ("begin", true) => p.begin = Some(num("begin")?),
            ("end", true) => p.end = Some(num("end")?),
            ("weight_threshold", _) => p.weight_threshold = Some(num("weight_threshold")?),
            ("chance", _) => p.chance = Some(num("chance")?),
            ("target", _) => {
                p.target = Some(match v {
                    Value::Null => Target::Owner,
                    Value::String(s) => Target::Variable(s.clone()),
                    _ => {
                        return Err(format!(
                            "`target` must be null (the owner) or a variable name, got {}",
                            kind(v)
                        ));
                    }
                })
            }
            ("fields", _) => p.fields = Some(fields_from_json(v)?),
            (k, _) => {
                let what = if window { "window" } else { "notify" };
                return Err(format!("a {what} has no field `{k}`"));
            }
        }
    }
    Ok(p)
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a bool",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn fields_from_json(v: &Value) -> Result<Vec<(String, FieldValue)>, String> {
    let Some(list) = v.as_array() else {
        return Err(format!("`fields` must be a list, got {}", kind(v)));
    };
    if list.len() > super::edit::MAX_FIELDS {
        return Err(format!(
            "{} fields; at most {} are allowed",
            list.len(),
            super::edit::MAX_FIELDS
        ));
    }
    list.iter()
        .map(|f| {
            let (Some(name), Some(ty), Some(value)) = (
                f.get("name").and_then(Value::as_str),
                f.get("type").and_then(Value::as_str),
                f.get("value"),
            ) else {
                return Err("each field needs `name` (a string), `type` and `value`".to_string());
            };
            let wrong = || format!("field `{name}`: {} is not a {ty}", kind(value));
            let value = match ty {
                "bool" => FieldValue::Bool(value.as_bool().ok_or_else(wrong)?),
                "int" => FieldValue::Int(value.as_i64().ok_or_else(wrong)?),
                "float" => {
                    FieldValue::Float(value.as_f64().filter(|x| x.is_finite()).ok_or_else(wrong)?)
                }
                "string" => FieldValue::String(value.as_str().ok_or_else(wrong)?.to_string()),
                "vec3" => {
                    let a = value
                        .as_array()
                        .filter(|a| a.len() == 3)
                        .ok_or_else(wrong)?;
                    let mut out = [0f32; 3];
                    for (o, x) in out.iter_mut().zip(a) {
                        let x = x.as_f64().ok_or_else(wrong)? as f32;
                        if !x.is_finite() {
                            return Err(wrong());
                        }
                        *o = x;
                    }
                    FieldValue::Vec3(out)
                }
                other => {
                    return Err(format!(
                        "field `{name}`: unknown type `{other}` (bool, int, float, string or vec3)"
                    ));
                }
            };
            Ok((name.to_string(), value))
        })
        .collect()
}
