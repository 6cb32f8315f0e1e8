//! Property tests of the `.animseq` loader and writer: random valid sequences round-trip
//! exactly (and the `ron` crate agrees), and arbitrary or near-valid bytes never panic and,
//! when they load, round-trip and migrate losslessly too (the same body as the `animseq_load`
//! fuzz target).

mod common;

use proptest::prelude::*;
use sinew::animseq::{
    self, AnimSeq, Axes, Curve, CurveValue, FieldValue, Gating, Interpolation, Notify, RootMotion,
    Target, Track, Window,
};
use sinew::diag::SourceFile;

/// The fuzz target's body: load bytes; if a sequence comes out, write it, reload it and
/// require the same sequence and the same diagnostic codes.
fn check_bytes(bytes: &[u8]) {
    let loaded = animseq::load_bytes("fuzz.animseq", bytes);
    assert_eq!(loaded.seq.is_some(), loaded.spans.is_some());
    if let Some(seq) = &loaded.seq {
        let written = animseq::to_ron(seq);
        let back = animseq::load(&SourceFile::new("rewritten.animseq", written.as_str()));
        assert_eq!(back.seq.as_ref(), Some(seq), "{written}");
        let codes = |l: &animseq::Loaded| l.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>();
        assert_eq!(codes(&back), codes(&loaded), "{written}");
        if loaded.diagnostics.is_empty()
            && let Ok(text) = std::str::from_utf8(bytes)
        {
            let src = SourceFile::new("fuzz.animseq", text);
            for to in animseq::min_format(seq)..=animseq::CURRENT_FORMAT {
                // `migrate` reads its result back; it must never find it different.
                if let Err(e) = animseq::migrate(&src, Some(to)) {
                    panic!("migrate to {to}: {e}\n{text}");
                }
            }
        }
    } else {
        assert!(loaded.diagnostics.iter().any(|d| d.is_error()));
    }
}

fn finite_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        prop::num::f64::NORMAL | prop::num::f64::SUBNORMAL | prop::num::f64::ZERO,
        -1e3..1e3f64,
        Just(f64::MAX),
        Just(f64::MIN),
        Just(f64::MIN_POSITIVE),
        Just(5e-324),
    ]
}

fn finite_f32() -> impl Strategy<Value = f32> {
    prop_oneof![
        prop::num::f32::NORMAL | prop::num::f32::SUBNORMAL | prop::num::f32::ZERO,
        -10.0..10.0f32,
        Just(f32::MAX),
        Just(f32::MIN),
        Just(1e-45f32),
    ]
}

fn vec3() -> impl Strategy<Value = [f32; 3]> {
    [finite_f32(), finite_f32(), finite_f32()]
}

fn duration() -> impl Strategy<Value = f64> {
    prop_oneof![
        0.001..100.0f64,
        prop::num::f64::POSITIVE.prop_filter("finite", |d| d.is_finite() && *d > 0.0),
        Just(1e308),
        Just(5e-324),
    ]
}

fn text() -> impl Strategy<Value = String> {
    // Arbitrary Unicode, control characters included, made non-blank.
    any::<String>().prop_map(|s| format!("N{s}"))
}

fn ident() -> impl Strategy<Value = String> {
    "[A-Za-z_][A-Za-z0-9_]{0,8}"
}

/// Strictly increasing times from fractions of `d`, all within `[0, d]`.
fn times(fracs: Vec<f64>, d: f64) -> Vec<f64> {
    let mut t: Vec<f64> = fracs.into_iter().map(|f| (f * d).clamp(0.0, d)).collect();
    t.sort_by(f64::total_cmp);
    t.dedup();
    t
}

fn field_value() -> impl Strategy<Value = FieldValue> {
    prop_oneof![
        any::<bool>().prop_map(FieldValue::Bool),
        any::<i64>().prop_map(FieldValue::Int),
        finite_f64().prop_map(FieldValue::Float),
        any::<String>().prop_map(FieldValue::String),
        vec3().prop_map(FieldValue::Vec3),
    ]
}

/// A value in `[0, 1]`, often exactly a default or an end of the range.
fn unit() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(0.0),
        Just(1.0),
        Just(0.5),
        Just(5e-324),
        Just(1.0f64.next_down()),
        0.0..=1.0f64,
    ]
}

fn gating() -> impl Strategy<Value = Gating> {
    prop_oneof![
        2 => Just(Gating::ALWAYS),
        1 => (unit(), unit()).prop_map(|(weight_threshold, chance)| Gating { weight_threshold, chance }),
    ]
}

fn target() -> impl Strategy<Value = Target> {
    prop_oneof![Just(Target::Owner), ident().prop_map(Target::Variable)]
}

fn fields() -> impl Strategy<Value = Vec<(String, FieldValue)>> {
    prop::collection::vec(field_value(), 0..4).prop_map(|values| {
        values
            .into_iter()
            .enumerate()
            .map(|(k, v)| (format!("f{k}"), v))
            .collect()
    })
}

fn notify(i: usize, d: f64) -> impl Strategy<Value = Notify> {
    (
        "[A-Za-z0-9_-]{0,10}",
        text(),
        0.0..=1.0f64,
        target(),
        fields(),
        gating(),
    )
        .prop_map(move |(suffix, name, f, target, fields, gating)| Notify {
            id: format!("n{i}{suffix}"),
            name,
            time: (f * d).clamp(0.0, d),
            target,
            fields,
            gating,
        })
}

fn window(i: usize, d: f64) -> impl Strategy<Value = Window> {
    (
        "[A-Za-z0-9_-]{0,10}",
        text(),
        (unit(), unit()),
        target(),
        fields(),
        gating(),
    )
        .prop_map(move |(suffix, name, (a, b), target, fields, gating)| {
            let (mut begin, mut end) = ((a.min(b) * d).clamp(0.0, d), (a.max(b) * d).clamp(0.0, d));
            if begin >= end {
                (begin, end) = (0.0, d);
            }
            Window {
                id: format!("w{i}{suffix}"),
                name,
                begin,
                end,
                target,
                fields,
                gating,
            }
        })
}

fn track(i: usize) -> impl Strategy<Value = Track> {
    let keys3 = || prop::collection::vec((finite_f64(), vec3()), 0..5);
    (
        keys3(),
        prop::collection::vec(
            (
                finite_f64(),
                [finite_f32(), finite_f32(), finite_f32(), finite_f32()],
            ),
            0..5,
        ),
        keys3(),
    )
        .prop_map(move |(tr, rot, sc)| {
            fn sorted<V: Copy>(mut v: Vec<(f64, V)>) -> Vec<(f64, V)> {
                v.sort_by(|a, b| a.0.total_cmp(&b.0));
                v.dedup_by(|a, b| a.0 == b.0);
                v
            }
            let rot = rot
                .into_iter()
                .map(|(t, mut q)| {
                    if q.iter().all(|&x| x == 0.0) {
                        q[3] = 1.0;
                    }
                    (t, q)
                })
                .collect();
            Track {
                bone: format!("bone{i}"),
                translation: sorted(tr),
                rotation: sorted(rot),
                scale: sorted(sc),
            }
        })
}

fn curve(i: usize, d: f64) -> impl Strategy<Value = Curve> {
    (
        any::<bool>(),
        any::<bool>(),
        prop::collection::vec(0.0..=1.0f64, 0..5),
        prop::collection::vec(finite_f64(), 5),
        prop::collection::vec(vec3(), 5),
    )
        .prop_map(move |(step, is_vec, fracs, fs, vs)| Curve {
            name: format!("curve{i}"),
            interpolation: if step {
                Interpolation::Step
            } else {
                Interpolation::Linear
            },
            keys: times(fracs, d)
                .into_iter()
                .enumerate()
                .map(|(k, t)| {
                    let v = if is_vec {
                        CurveValue::Vec3(vs[k])
                    } else {
                        CurveValue::Float(fs[k])
                    };
                    (t, v)
                })
                .collect(),
        })
}

fn seq() -> impl Strategy<Value = AnimSeq> {
    (
        "[A-Za-z0-9][A-Za-z0-9_-]{0,20}",
        text(),
        duration(),
        prop::option::of("[a-z]{1,8}\\.skel"),
        0usize..3,
        0usize..4,
        0usize..3,
        prop::option::of((any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>())),
        prop_oneof![2 => Just(0usize), 1 => 1usize..4],
    )
        .prop_flat_map(|(id, name, d, skel, nt, nn, nc, rm, nw)| {
            (
                Just((id, name, d, skel, rm)),
                (0..nt).map(track).collect::<Vec<_>>(),
                (0..nn).map(|i| notify(i, d)).collect::<Vec<_>>(),
                (0..nw).map(|i| window(i, d)).collect::<Vec<_>>(),
                (0..nc).map(|i| curve(i, d)).collect::<Vec<_>>(),
            )
        })
        .prop_map(
            |((id, name, duration, mut skeleton, rm), tracks, notifies, windows, curves)| {
                let root_motion = rm.map(|(x, y, z, yaw)| {
                    let bone = match tracks.first() {
                        Some(t) => t.bone.clone(),
                        None => {
                            skeleton.get_or_insert_with(|| "hero.skel".into());
                            "root".into()
                        }
                    };
                    RootMotion {
                        bone,
                        translation: Axes { x, y, z },
                        yaw,
                    }
                });
                AnimSeq {
                    id,
                    name,
                    duration,
                    skeleton,
                    tracks,
                    notifies,
                    windows,
                    curves,
                    root_motion,
                }
            },
        )
}

/// Byte-level mutations of a valid file: replace, insert, delete, truncate.
#[derive(Debug, Clone)]
enum Edit {
    Replace(usize, u8),
    Insert(usize, u8),
    Delete(usize),
    Truncate(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let byte = prop_oneof![
        Just(b'('),
        Just(b')'),
        Just(b'['),
        Just(b']'),
        Just(b','),
        Just(b':'),
        Just(b'"'),
        Just(b'\\'),
        Just(b'-'),
        Just(b'e'),
        Just(b'.'),
        Just(b'0'),
        Just(b'9'),
        Just(b'/'),
        Just(b'*'),
        Just(0xFF),
        any::<u8>(),
    ];
    prop_oneof![
        (any::<usize>(), byte.clone()).prop_map(|(i, b)| Edit::Replace(i, b)),
        (any::<usize>(), byte).prop_map(|(i, b)| Edit::Insert(i, b)),
        any::<usize>().prop_map(Edit::Delete),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

fn seeds() -> Vec<Vec<u8>> {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut out = Vec::new();
    for name in ["idle", "walk", "run"] {
        out.push(std::fs::read(format!("{root}/assets/{name}.animseq")).expect("asset"));
    }
    for dir in ["ok", "err"] {
        for name in common::fixture_names(dir) {
            out.push(common::load_fixture(dir, &name).1);
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn random_sequences_round_trip(s in seq()) {
        let written = animseq::to_ron(&s);
        let back = animseq::load(&SourceFile::new("p.animseq", written.as_str()));
        prop_assert!(back.diagnostics.is_empty(), "{:?}\n{}", back.diagnostics, written);
        prop_assert_eq!(back.seq.as_ref(), Some(&s));
        prop_assert_eq!(back.format, animseq::min_format(&s));
        let by_ron = common::ron_crate_reads(&written);
        prop_assert_eq!(by_ron.as_ref(), Ok(&s));
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        check_bytes(&bytes);
    }

    #[test]
    fn near_valid_mutations_never_panic(seed in any::<prop::sample::Index>(),
                                        edits in prop::collection::vec(edit(), 1..6)) {
        let seeds = seeds();
        let mut bytes = seeds[seed.index(seeds.len())].clone();
        for e in edits {
            let n = bytes.len() + 1;
            match e {
                Edit::Replace(i, b) => if let Some(x) = bytes.get_mut(i % n) { *x = b },
                Edit::Insert(i, b) => bytes.insert(i % n, b),
                Edit::Delete(i) => if i % n < bytes.len() { bytes.remove(i % n); },
                Edit::Truncate(i) => bytes.truncate(i % n),
            }
        }
        check_bytes(&bytes);
    }
}

// ---------------------------------------------------------------- lossless migration

/// `text` with a unique comment after every `,`, `(` and `[` outside strings and at the end of
/// every line, and the comments' markers.
fn commented(text: &str) -> (String, Vec<String>) {
    let mut out = String::with_capacity(text.len() * 2);
    let mut marks = Vec::new();
    let (mut in_str, mut escaped) = (false, false);
    for c in text.chars() {
        if c == '\n' && !in_str {
            let m = format!("<l{}>", marks.len());
            out.push_str(&format!(" // {m}"));
            marks.push(m);
        }
        out.push(c);
        if in_str {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_str = false,
                _ => {}
            }
        } else if c == '"' {
            in_str = true;
        } else if matches!(c, ',' | '(' | '[') {
            let m = format!("<c{}>", marks.len());
            out.push_str(&format!("/* {m} */"));
            marks.push(m);
        }
    }
    (format!("// <head>\n{out}/* <tail> */\n"), marks)
}

/// Replaces byte ranges `start..end` with texts (applied from the back; ranges disjoint).
fn insert_all(text: &str, mut at: Vec<(usize, usize, String)>) -> String {
    at.sort_by_key(|&(i, _, _)| std::cmp::Reverse(i));
    let mut s = text.to_string();
    for (i, e, t) in at {
        s.replace_range(i..e, &t);
    }
    s
}

/// `seq` written, commented everywhere, then declared at `format` with default-valued fields
/// that format allows but the lowest does not need (chosen by `flags`).
fn decorated(seq: &AnimSeq, format: u32, flags: &[bool]) -> (String, Vec<String>) {
    use sinew::ron_span::{self, ValueKind};
    let (text, marks) = commented(&animseq::to_ron(seq));
    let root = ron_span::parse(&text).expect("parses");
    let ValueKind::Struct { fields, .. } = &root.kind else {
        unreachable!()
    };
    let flag = |i: usize| flags.get(i % flags.len().max(1)).copied().unwrap_or(false);
    let first = fields[0].name_span.start as usize;
    let mut ins: Vec<(usize, usize, String)> = Vec::new();
    let has = |n: &str| fields.iter().any(|f| f.name == n);
    let mut head = String::new();
    match fields.iter().find(|f| f.name == "format") {
        Some(f) => ins.push((
            f.value.span.range().start,
            f.value.span.range().end,
            format!("{format}"),
        )),
        None if format > 1 => head.push_str(&format!("format: {format}, ")),
        None => {}
    }
    for (i, (name, min, value)) in [
        ("notifies", 2, "[]"),
        ("curves", 2, "[\n    ]"),
        ("root_motion", 2, "None"),
        ("windows", 4, "[]"),
    ]
    .into_iter()
    .enumerate()
    {
        if format >= min && !has(name) && flag(i) {
            head.push_str(&format!("{name}: {value}, "));
        }
    }
    ins.push((first, first, head));
    if let Some(f) = fields.iter().find(|f| f.name == "notifies")
        && let ValueKind::List(items) = &f.value.kind
    {
        for (k, item) in items.iter().enumerate() {
            let ValueKind::Struct { fields: nf, .. } = &item.kind else {
                continue;
            };
            let n = &seq.notifies[k];
            let mut extra = Vec::new();
            if format >= 3 && n.target == Target::Owner && flag(k + 4) {
                extra.push("target: Owner");
            }
            if format >= 3 && n.fields.is_empty() && flag(k + 5) {
                extra.push("fields: []");
            }
            if format >= 4 && n.gating.is_default() && flag(k + 6) {
                extra.push("chance: 1.0");
            }
            if extra.is_empty() {
                continue;
            }
            let joined = extra.join(", ");
            if flag(k + 7) {
                let at = nf[0].name_span.start as usize;
                ins.push((at, at, format!("{joined}, ")));
            } else {
                let last = nf.last().expect("fields");
                let at = last.value.span.end as usize;
                ins.push((at, at, format!(", {joined}")));
            }
        }
    }
    let mut marks = marks;
    marks.push("<head>".into());
    marks.push("<tail>".into());
    (insert_all(&text, ins), marks)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Migrating a commented file to any format that holds its data keeps the data exactly,
    /// declares that format, keeps every comment, and is then at rest; a lower target is
    /// refused and nothing is produced.
    #[test]
    fn migrate_round_trips_with_comments_everywhere(
        s in seq(),
        up in 0u32..4,
        to in prop::option::of(1u32..=4),
        flags in prop::collection::vec(any::<bool>(), 1..16),
    ) {
        let min = animseq::min_format(&s);
        let declared = (min + up).min(animseq::CURRENT_FORMAT);
        let (text, marks) = decorated(&s, declared, &flags);
        let src = SourceFile::new("m.animseq", text.as_str());
        let loaded = animseq::load(&src);
        prop_assert!(loaded.diagnostics.is_empty(), "{:?}\n{}", loaded.diagnostics, text);
        prop_assert_eq!(loaded.format, declared);
        prop_assert_eq!(loaded.seq.as_ref(), Some(&s));
        let target = to.unwrap_or(min);
        let got = animseq::migrate(&src, to);
        if target < min {
            let refused = matches!(got, Err(animseq::MigrateError::TargetTooLow { .. }));
            prop_assert!(refused, "{:?}", got);
            return Ok(());
        }
        let out = match got {
            Ok(animseq::Migration::Unchanged { format }) => {
                prop_assert_eq!(format, declared);
                prop_assert_eq!(declared, target);
                text.clone()
            }
            Ok(animseq::Migration::Rewritten { from, to, text: out }) => {
                prop_assert_eq!((from, to), (declared, target));
                out
            }
            Err(e) => return Err(TestCaseError::fail(format!("{e}\n{text}"))),
        };
        let back = animseq::load(&SourceFile::new("m.animseq", out.as_str()));
        prop_assert!(back.diagnostics.is_empty(), "{:?}\n{}", back.diagnostics, out);
        prop_assert_eq!(back.format, target);
        prop_assert_eq!(back.seq.as_ref(), Some(&s));
        for m in &marks {
            prop_assert_eq!(out.matches(m.as_str()).count(), 1, "comment {} in\n{}", m, out);
        }
        let again = animseq::migrate(&SourceFile::new("m.animseq", out.as_str()), Some(target));
        prop_assert_eq!(again, Ok(animseq::Migration::Unchanged { format: target }));
    }
}
