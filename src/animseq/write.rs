//! Writing an [`AnimSeq`] as RON at the lowest format version that holds its data, with
//! stable formatting and shortest round-trip floats (`load(to_ron(x)) == x`).

use super::*;
use std::fmt::Write as _;

/// The lowest format version that holds `seq`: windows or non-default gating → 4; else no
/// notifies, curves or root motion → 1; notifies only with `Owner` targets and no fields → 2;
/// else 3.
pub fn min_format(seq: &AnimSeq) -> u32 {
    if !seq.windows.is_empty() || seq.notifies.iter().any(|n| !n.gating.is_default()) {
        4
    } else if seq.notifies.is_empty() && seq.curves.is_empty() && seq.root_motion.is_none() {
        1
    } else if seq
        .notifies
        .iter()
        .all(|n| n.target == Target::Owner && n.fields.is_empty())
    {
        2
    } else {
        3
    }
}

/// Keys lists with more entries than this are written one key per line.
const INLINE_KEYS: usize = 4;

/// Writes `seq` as RON at [`min_format`]. Format 1 omits the `format` field (the oldest
/// readers predate it); defaults (`skeleton: None`, empty lists, `target: Owner`, no fields,
/// `weight_threshold: 0.0`, `chance: 1.0`, `root_motion: None`) are omitted.
pub fn to_ron(seq: &AnimSeq) -> String {
    let format = min_format(seq);
    let mut o = String::new();
    o.push_str("AnimSeq(\n");
    if format > 1 {
        let _ = writeln!(o, "    format: {format},");
    }
    let _ = writeln!(o, "    id: {},", quote(&seq.id));
    let _ = writeln!(o, "    name: {},", quote(&seq.name));
    let _ = writeln!(o, "    duration: {:?},", seq.duration);
    if let Some(s) = &seq.skeleton {
        let _ = writeln!(o, "    skeleton: Some({}),", quote(s));
    }
    if seq.tracks.is_empty() {
        o.push_str("    tracks: [],\n");
    } else {
        o.push_str("    tracks: [\n");
        for t in &seq.tracks {
            o.push_str("        (\n");
            let _ = writeln!(o, "            bone: {},", quote(&t.bone));
            let _ = writeln!(
                o,
                "            translation: {},",
                list(t.translation.iter().map(|(k, v)| key(*k, &f32s(v))), 12)
            );
            let _ = writeln!(
                o,
                "            rotation: {},",
                list(t.rotation.iter().map(|(k, v)| key(*k, &f32s(v))), 12)
            );
            let _ = writeln!(
                o,
                "            scale: {},",
                list(t.scale.iter().map(|(k, v)| key(*k, &f32s(v))), 12)
            );
            o.push_str("        ),\n");
        }
        o.push_str("    ],\n");
    }
    if !seq.notifies.is_empty() {
        o.push_str("    notifies: [\n");
        for n in &seq.notifies {
            let _ = write!(
                o,
                "        (id: {}, name: {}, time: {:?}",
                quote(&n.id),
                quote(&n.name),
                n.time
            );
            payload(&mut o, &n.target, &n.fields, &n.gating);
            o.push_str("),\n");
        }
        o.push_str("    ],\n");
    }
    if !seq.windows.is_empty() {
        o.push_str("    windows: [\n");
        for w in &seq.windows {
            let _ = write!(
                o,
                "        (id: {}, name: {}, begin: {:?}, end: {:?}",
                quote(&w.id),
                quote(&w.name),
                w.begin,
                w.end
            );
            payload(&mut o, &w.target, &w.fields, &w.gating);
            o.push_str("),\n");
        }
        o.push_str("    ],\n");
    }
    if !seq.curves.is_empty() {
        o.push_str("    curves: [\n");
        for c in &seq.curves {
            let interp = match c.interpolation {
                Interpolation::Step => "Step",
                Interpolation::Linear => "Linear",
            };
            let keys = list(
                c.keys.iter().map(|(t, v)| {
                    let v = match v {
                        CurveValue::Float(x) => format!("Float({x:?})"),
                        CurveValue::Vec3(a) => format!("Vec3({})", f32s(a)),
                    };
                    key(*t, &v)
                }),
                8,
            );
            let _ = writeln!(
                o,
                "        (name: {}, interpolation: {interp}, keys: {keys}),",
                quote(&c.name)
            );
        }
        o.push_str("    ],\n");
    }
    if let Some(rm) = &seq.root_motion {
        let a = rm.translation;
        let _ = writeln!(
            o,
            "    root_motion: Some((bone: {}, translation: (x: {}, y: {}, z: {}), yaw: {})),",
            quote(&rm.bone),
            a.x,
            a.y,
            a.z,
            rm.yaw
        );
    }
    o.push_str(")\n");
    o
}

/// The optional marker fields that differ from their defaults, each as `, name: value`.
fn payload(o: &mut String, target: &Target, fields: &[(String, FieldValue)], gating: &Gating) {
    if let Target::Variable(v) = target {
        let _ = write!(o, ", target: Variable({})", quote(v));
    }
    if !fields.is_empty() {
        let fields: Vec<String> = fields
            .iter()
            .map(|(k, v)| format!("({}, {})", quote(k), field_value(v)))
            .collect();
        let _ = write!(o, ", fields: [{}]", fields.join(", "));
    }
    if gating.weight_threshold != Gating::ALWAYS.weight_threshold {
        let _ = write!(o, ", weight_threshold: {:?}", gating.weight_threshold);
    }
    if gating.chance != Gating::ALWAYS.chance {
        let _ = write!(o, ", chance: {:?}", gating.chance);
    }
}

fn key(t: f64, v: &str) -> String {
    format!("({t:?}, {v})")
}

fn f32s(v: &[f32]) -> String {
    let parts: Vec<String> = v.iter().map(|x| format!("{x:?}")).collect();
    format!("({})", parts.join(", "))
}

/// `[a, b]` inline for short lists, else one item per line indented past `indent`.
fn list(items: impl Iterator<Item = String>, indent: usize) -> String {
    let items: Vec<String> = items.collect();
    if items.len() <= INLINE_KEYS {
        return format!("[{}]", items.join(", "));
    }
    let pad = " ".repeat(indent + 4);
    let mut s = String::from("[\n");
    for i in &items {
        let _ = writeln!(s, "{pad}{i},");
    }
    s.push_str(&" ".repeat(indent));
    s.push(']');
    s
}

fn field_value(v: &FieldValue) -> String {
    match v {
        FieldValue::Bool(b) => format!("Bool({b})"),
        FieldValue::Int(i) => format!("Int({i})"),
        FieldValue::Float(x) => format!("Float({x:?})"),
        FieldValue::String(s) => format!("String({})", quote(s)),
        FieldValue::Vec3(a) => format!("Vec3({})", f32s(a)),
    }
}

/// A RON string literal: `"` and `\` escaped, control characters as `\n`, `\t`, `\u{..}`.
pub(crate) fn quote(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            '\0' => o.push_str("\\0"),
            c if c.is_control() => {
                let _ = write!(o, "\\u{{{:x}}}", u32::from(c));
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}
