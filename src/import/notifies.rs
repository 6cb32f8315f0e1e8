//! Notifies authored in the source: `animations[i].extras.notifies` (Blender exports an
//! action's custom properties as the animation's extras). The list may be a JSON array or a
//! string holding one (a Blender string property). Each entry:
//!
//! ```json
//! {"id": "footstep_l", "name": "Footstep L", "time": 0.2,
//!  "target": "owner" | {"variable": "v"}, "fields": {"surface": "grass", "volume": 0.8}}
//! ```
//!
//! `id` and `time` are required; `name` defaults to the ID; field types come from JSON (string,
//! float, bool, `[x, y, z]` → vec3, integers → int) in file order. A bad entry is a warning
//! naming the animation and the entry, and is skipped whole; the rest import.

use super::diagnostics::{Report, W_BAD_NOTIFY, quoted};
use crate::animseq::{FieldValue, Notify, Target, is_identifier, is_valid_id};
use serde_json::Value;
use std::collections::BTreeSet;

/// A notify authored a hair past the clip's end (frame arithmetic) is placed at the end.
const END_SLACK: f64 = 1e-4;

const KEYS: &[&str] = &["id", "name", "time", "target", "fields"];

/// The notifies of one animation, or none when its extras have no `notifies`.
pub fn from_extras(
    extras: Option<&serde_json::value::RawValue>,
    label: &str,
    duration: f64,
    report: &mut Report,
) -> Vec<Notify> {
    let Some(raw) = extras else {
        return Vec::new();
    };
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(raw.get()) else {
        return Vec::new();
    };
    let Some(list) = map.get("notifies") else {
        return Vec::new();
    };
    let parsed;
    let entries = match list {
        Value::Array(a) => a,
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Array(a)) => {
                parsed = a;
                &parsed
            }
            Ok(_) => {
                bad(
                    report,
                    label,
                    None,
                    "the `notifies` string holds JSON that is not a list",
                );
                return Vec::new();
            }
            Err(e) => {
                bad(
                    report,
                    label,
                    None,
                    &format!("the `notifies` string is not JSON: {e}"),
                );
                return Vec::new();
            }
        },
        _ => {
            bad(
                report,
                label,
                None,
                "`notifies` must be a list of objects (or a string holding one as JSON)",
            );
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    let mut ids = BTreeSet::new();
    for (i, e) in entries.iter().enumerate() {
        match entry(e, duration) {
            Ok(n) => {
                if !ids.insert(n.id.clone()) {
                    bad(
                        report,
                        label,
                        Some((i, Some(&n.id))),
                        "an earlier entry has this ID (notify IDs are unique within a clip)",
                    );
                    continue;
                }
                out.push(n);
            }
            Err(m) => {
                let id = e.get("id").and_then(Value::as_str);
                bad(report, label, Some((i, id)), &m);
            }
        }
    }
    out
}

fn bad(report: &mut Report, label: &str, entry: Option<(usize, Option<&str>)>, why: &str) {
    let which = match entry {
        None => String::new(),
        Some((i, Some(id))) => format!(", notify entry {i} ({})", quoted(id)),
        Some((i, None)) => format!(", notify entry {i}"),
    };
    report.warning(
        W_BAD_NOTIFY,
        format!("animation {}{which}: {why}; skipped", quoted(label)),
    );
}

fn entry(e: &Value, duration: f64) -> Result<Notify, String> {
    let Value::Object(m) = e else {
        return Err("an entry must be a JSON object".to_string());
    };
    if let Some(k) = m.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(format!(
            "unknown key {} (known: {})",
            quoted(k),
            KEYS.join(", ")
        ));
    }
    let id = match m.get("id") {
        Some(Value::String(s)) if is_valid_id(s) => s.clone(),
        Some(Value::String(s)) => {
            return Err(format!(
                "ID {} does not match [A-Za-z0-9][A-Za-z0-9_-]{{0,63}}",
                quoted(s)
            ));
        }
        Some(_) => return Err("`id` must be a string".to_string()),
        None => return Err("`id` is missing".to_string()),
    };
    let name = match m.get("name") {
        None => id.clone(),
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(Value::String(_)) => return Err("`name` is empty".to_string()),
        Some(_) => return Err("`name` must be a string".to_string()),
    };
    let time = match m.get("time").map(Value::as_f64) {
        Some(Some(t)) if t.is_finite() => t,
        Some(_) => return Err("`time` must be a number of seconds".to_string()),
        None => return Err("`time` is missing".to_string()),
    };
    let time = if time > duration && time <= duration + END_SLACK {
        duration
    } else {
        time
    };
    if !(0.0..=duration).contains(&time) {
        return Err(format!("time {time} is outside the clip [0, {duration}]"));
    }
    let target = match m.get("target") {
        None => Target::Owner,
        Some(Value::String(s)) if s == "owner" => Target::Owner,
        Some(Value::Object(t)) if t.len() == 1 => match t.get("variable") {
            Some(Value::String(v)) if is_identifier(v) => Target::Variable(v.clone()),
            Some(Value::String(v)) => {
                return Err(format!(
                    "target variable {} is not an identifier",
                    quoted(v)
                ));
            }
            _ => return Err(r#"`target` must be "owner" or {"variable": "name"}"#.to_string()),
        },
        Some(_) => return Err(r#"`target` must be "owner" or {"variable": "name"}"#.to_string()),
    };
    let mut fields = Vec::new();
    match m.get("fields") {
        None => {}
        Some(Value::Object(f)) => {
            for (k, v) in f {
                if !is_identifier(k) {
                    return Err(format!("field name {} is not an identifier", quoted(k)));
                }
                fields.push((k.clone(), field(k, v)?));
            }
        }
        Some(_) => return Err("`fields` must be an object".to_string()),
    }
    Ok(Notify {
        id,
        name,
        time,
        target,
        fields,
        gating: crate::animseq::Gating::ALWAYS,
    })
}

fn field(k: &str, v: &Value) -> Result<FieldValue, String> {
    let bad = |what: &str| Err(format!("field {} {what}", quoted(k)));
    match v {
        Value::Bool(b) => Ok(FieldValue::Bool(*b)),
        Value::String(s) => Ok(FieldValue::String(s.clone())),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Ok(FieldValue::Int(i))
            } else if n.is_u64() {
                bad("is an integer beyond the int range (i64)")
            } else {
                match n.as_f64() {
                    Some(x) if x.is_finite() => Ok(FieldValue::Float(x)),
                    _ => bad("is not a finite number"),
                }
            }
        }
        Value::Array(a) if a.len() == 3 => {
            let mut out = [0f32; 3];
            for (o, x) in out.iter_mut().zip(a) {
                match x.as_f64().map(|x| x as f32) {
                    Some(x) if x.is_finite() => *o = x,
                    _ => return bad("must be a vec3 of three finite numbers"),
                }
            }
            Ok(FieldValue::Vec3(out))
        }
        Value::Array(_) => bad("is a list; only [x, y, z] (a vec3) is a field value"),
        Value::Null => bad("is null"),
        Value::Object(_) => bad("is an object; field values are string, number, bool or [x, y, z]"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(json: &str, duration: f64) -> (Vec<Notify>, Vec<String>) {
        let raw = serde_json::value::RawValue::from_string(json.to_string()).expect("raw");
        let mut r = Report::new("m.glb");
        let n = from_extras(Some(&raw), "Walk", duration, &mut r);
        (n, r.diagnostics.iter().map(|d| d.message.clone()).collect())
    }

    #[test]
    fn typed_fields_in_order() {
        let (n, w) = run(
            r#"{"notifies": [{"id": "step", "time": 0.2, "fields": {"z": "grass", "a": 0.8, "n": 3, "up": [0, 1, 0], "loud": true}}]}"#,
            1.0,
        );
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(n[0].name, "step");
        let names: Vec<&str> = n[0].fields.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(names, ["z", "a", "n", "up", "loud"]);
        assert_eq!(n[0].fields[2].1, FieldValue::Int(3));
        assert_eq!(n[0].fields[1].1, FieldValue::Float(0.8));
        assert_eq!(n[0].fields[3].1, FieldValue::Vec3([0.0, 1.0, 0.0]));
    }

    #[test]
    fn a_string_property_holds_json() {
        let (n, w) = run(
            r#"{"notifies": "[{\"id\": \"a\", \"time\": 0.5, \"target\": {\"variable\": \"weapon\"}}]"}"#,
            1.0,
        );
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(n[0].target, Target::Variable("weapon".into()));
    }

    #[test]
    fn bad_entries_are_named_and_skipped() {
        let (n, w) = run(
            r#"{"notifies": [{"id": "ok", "time": 0.1}, {"id": "late", "time": 3}, 7, {"id": "ok", "time": 0.2}, {"id": "x", "time": 0.1, "fields": {"bad-name": 1}}, {"id": "y", "tme": 0.1}]}"#,
            1.0,
        );
        assert_eq!(n.len(), 1);
        assert_eq!(w.len(), 5, "{w:?}");
        assert!(
            w[0].contains("animation `Walk`, notify entry 1 (`late`)"),
            "{w:?}"
        );
        assert!(w[1].contains("notify entry 2:"), "{w:?}");
        assert!(w[3].contains("`bad-name`"), "{w:?}");
        assert!(w[4].contains("unknown key `tme`"), "{w:?}");
    }

    #[test]
    fn no_notifies_key_means_none() {
        let (n, w) = run(r#"{"other": 1}"#, 1.0);
        assert!(n.is_empty() && w.is_empty());
    }
}
