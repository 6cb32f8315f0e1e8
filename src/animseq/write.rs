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
    // A rotation key takes up to ~90 bytes: one allocation for the usual clip.
    let n_keys: usize = seq
        .tracks
        .iter()
        .map(track_keys)
        .chain(seq.curves.iter().map(|c| c.keys.len()))
        .sum();
    let mut o = String::with_capacity(256 + 96 * n_keys);
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
        if n_keys >= PARALLEL_KEYS && seq.tracks.len() > 1 {
            // Big clips (imported ones): tracks written in parallel, joined in order.
            use rayon::prelude::*;
            let per = seq
                .tracks
                .len()
                .div_ceil(4 * rayon::current_num_threads())
                .max(1);
            let parts: Vec<String> = seq
                .tracks
                .par_chunks(per)
                .map(|ts| {
                    let n: usize = ts.iter().map(track_keys).sum();
                    let mut s = String::with_capacity(128 * ts.len() + 96 * n);
                    let mut times = TimeText::new(n);
                    for t in ts {
                        track(&mut s, t, &mut times);
                    }
                    s
                })
                .collect();
            for p in &parts {
                o.push_str(p);
            }
        } else {
            let mut times = TimeText::new(n_keys);
            for t in &seq.tracks {
                track(&mut o, t, &mut times);
            }
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
            let _ = write!(
                o,
                "        (name: {}, interpolation: {interp}, keys: ",
                quote(&c.name)
            );
            list_with(&mut o, &c.keys, 8, |o, (t, v)| {
                o.push('(');
                push_f64(o, *t);
                match v {
                    CurveValue::Float(x) => {
                        o.push_str(", Float(");
                        push_f64(o, *x);
                        o.push_str("))");
                    }
                    CurveValue::Vec3(a) => {
                        o.push_str(", Vec3(");
                        push_f32s(o, a);
                        o.push_str("))");
                    }
                }
            });
            o.push_str("),\n");
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

/// Clips with at least this many keys have their tracks written on several threads (the
/// text is the same: parts are joined in track order).
const PARALLEL_KEYS: usize = 16_384;

fn track_keys(t: &Track) -> usize {
    t.translation.len() + t.rotation.len() + t.scale.len()
}

/// One bone track: `(bone: ..., translation: [...], rotation: [...], scale: [...]),`.
fn track(o: &mut String, t: &Track, times: &mut TimeText) {
    o.push_str("        (\n            bone: ");
    o.push_str(&quote(&t.bone));
    o.push_str(",\n            translation: ");
    keys(o, &t.translation, 12, times);
    o.push_str(",\n            rotation: ");
    keys(o, &t.rotation, 12, times);
    o.push_str(",\n            scale: ");
    keys(o, &t.scale, 12, times);
    o.push_str(",\n        ),\n");
}

/// The optional marker fields that differ from their defaults, each as `, name: value`.
pub(super) fn payload(
    o: &mut String,
    target: &Target,
    fields: &[(String, FieldValue)],
    gating: &Gating,
) {
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

/// A key list: `[(t, (x, y, z)), ...]`.
fn keys<const N: usize>(
    o: &mut String,
    keys: &[(f64, [f32; N])],
    indent: usize,
    times: &mut TimeText,
) {
    list_with(o, keys, indent, |o, (t, v)| {
        o.push('(');
        times.push(o, *t);
        o.push_str(", ");
        push_f32s(o, v);
        o.push(')');
    });
}

/// The key times of one clip as text, each formatted once: the tracks of a clip baked at one
/// rate share their key times, so a time is mostly copied from here rather than formatted
/// again. A direct-mapped cache of [`push_f64`]'s output (what it writes is unchanged).
struct TimeText {
    /// `(bits, length, bytes)`; length 0 is an empty slot.
    slots: Vec<(u64, u8, [u8; 23])>,
    shift: u32,
}

impl TimeText {
    /// A cache sized for a clip of `keys` keys (256 to 4096 slots).
    fn new(keys: usize) -> TimeText {
        let n = keys.clamp(256, 4096).next_power_of_two();
        TimeText {
            slots: vec![(0, 0, [0; 23]); n],
            shift: 64 - n.trailing_zeros(),
        }
    }

    /// Writes `t` as [`push_f64`] does.
    fn push(&mut self, o: &mut String, t: f64) {
        let bits = t.to_bits();
        let i = (bits.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize;
        let Some(slot) = self.slots.get_mut(i) else {
            return push_f64(o, t);
        };
        if slot.1 > 0
            && slot.0 == bits
            && let Ok(text) = std::str::from_utf8(&slot.2[..usize::from(slot.1)])
        {
            o.push_str(text);
            return;
        }
        let at = o.len();
        push_f64(o, t);
        let text = &o.as_bytes()[at..];
        if text.len() <= slot.2.len() {
            slot.0 = bits;
            slot.1 = text.len() as u8;
            slot.2[..text.len()].copy_from_slice(text);
        }
    }
}

/// `[a, b]` inline for short lists, else one item per line indented past `indent`.
fn list_with<T>(o: &mut String, items: &[T], indent: usize, mut item: impl FnMut(&mut String, &T)) {
    if items.len() <= INLINE_KEYS {
        o.push('[');
        for (i, it) in items.iter().enumerate() {
            if i > 0 {
                o.push_str(", ");
            }
            item(o, it);
        }
        o.push(']');
        return;
    }
    const SPACES: &str = "                                ";
    let pad = |o: &mut String, n: usize| {
        let mut n = n;
        while n > 0 {
            let k = n.min(SPACES.len());
            o.push_str(&SPACES[..k]);
            n -= k;
        }
    };
    o.push_str("[\n");
    for it in items {
        pad(o, indent + 4);
        item(o, it);
        o.push_str(",\n");
    }
    pad(o, indent);
    o.push(']');
}

fn f32s(v: &[f32]) -> String {
    let mut o = String::new();
    push_f32s(&mut o, v);
    o
}

/// `(a, b, c)` with each component as `{:?}` writes it.
fn push_f32s(o: &mut String, v: &[f32]) {
    o.push('(');
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            o.push_str(", ");
        }
        push_f32(o, *x);
    }
    o.push(')');
}

/// Writes `x` exactly as `{:?}` does (shortest round-trip digits), several times faster for
/// the values animation data holds. From 1e-4 up `{:?}` writes plain decimals, as `zmij` does;
/// the two differ only in exponent notation (so the fast path stops at 1e14) and in breaking a
/// tie between two shortest candidates, which needs the value's exact decimal expansion to be
/// one digit longer than the shortest and to end in 5. An `f64` with `k` fractional bits has
/// exactly `k` fractional decimal digits, so from `k ≥ 23` its expansion is longer than 18
/// significant digits (≥ 1e-4 has at most 4 leading zeros) and no tie is possible; other values
/// (few fractional bits: `0.5`, integers) go through `{:?}`. `tests` compare both on random bits.
pub(crate) fn push_f64(o: &mut String, x: f64) {
    if x == 0.0 {
        o.push_str(if x.is_sign_negative() { "-0.0" } else { "0.0" });
        return;
    }
    let a = x.abs();
    if (1e-4..1e14).contains(&a) && fractional_bits(x) >= 23 {
        o.push_str(zmij::Buffer::new().format_finite(x));
    } else {
        let _ = write!(o, "{x:?}");
    }
}

/// The number of binary digits after the point in `x`'s exact value (0 for integers).
fn fractional_bits(x: f64) -> i32 {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let mant = (bits & ((1 << 52) - 1)) | if exp == 0 { 0 } else { 1 << 52 };
    if mant == 0 {
        return 0;
    }
    let e = if exp == 0 { -1074 } else { exp - 1075 }; // x = mant · 2^e
    (-(e + mant.trailing_zeros() as i32)).max(0)
}

/// [`push_f64`] for `f32` (checked against `{:?}` for every finite `f32` once, outside the
/// test suite; zmij writes plain decimals for `f32` below 1e13): the `f64`
/// conversion is exact and its shortest digits are the `f32`'s exact expansion whenever that
/// has at most 17 digits, which shows a tie directly.
pub(crate) fn push_f32(o: &mut String, x: f32) {
    if x == 0.0 {
        o.push_str(if x.is_sign_negative() { "-0.0" } else { "0.0" });
        return;
    }
    let a = x.abs();
    if a < 1e-4 && x.is_normal() {
        // Exponent notation: zmij writes `5.57e-05`, `{:?}` writes `5.57e-5`. Values this small
        // have long exact expansions (no ties).
        let mut b = zmij::Buffer::new();
        let s = b.format_finite(x);
        if let Some(plain) = s.strip_prefix('-').unwrap_or(s).strip_prefix("0.") {
            // zmij writes plain decimals down to 1e-6 (`0.0000557`): the same digits in
            // `{:?}`'s exponent form (`5.57e-5`, `3e-6`).
            let zeros = plain.bytes().take_while(|&d| d == b'0').count();
            let digits = &plain[zeros..];
            if !digits.is_empty() && digits.bytes().all(|d| d.is_ascii_digit()) {
                if x < 0.0 {
                    o.push('-');
                }
                o.push_str(&digits[..1]);
                if digits.len() > 1 {
                    o.push('.');
                    o.push_str(&digits[1..]);
                }
                o.push_str("e-");
                push_small(o, zeros + 1);
                return;
            }
        }
        if let Some((m, e)) = s.split_once('e') {
            o.push_str(m);
            o.push('e');
            let (neg, digits) = match e.as_bytes().first() {
                Some(b'-') => (true, &e[1..]),
                Some(b'+') => (false, &e[1..]),
                _ => (false, e),
            };
            if neg {
                o.push('-');
            }
            o.push_str(digits.trim_start_matches('0'));
            return;
        }
    }
    if (1e-4..1e13).contains(&a) {
        let mut b32 = zmij::Buffer::new();
        let s32 = b32.format_finite(x);
        // With 15 or more fractional bits the exact expansion has at least 11 significant
        // digits (≥ 1e-4 has at most 4 leading zeros), two more than any shortest `f32`: no
        // tie. Otherwise compare with the exact expansion.
        let tie = fractional_bits(f64::from(x)) < 15 && {
            let mut b64 = zmij::Buffer::new();
            let s64 = b64.format_finite(f64::from(x));
            s64.ends_with('5') && significant(s64) == significant(s32) + 1
        };
        if !tie {
            o.push_str(s32);
            return;
        }
    }
    let _ = write!(o, "{x:?}");
}

/// A small non-negative integer in decimal.
fn push_small(o: &mut String, n: usize) {
    if n >= 10 {
        push_small(o, n / 10);
    }
    o.push(char::from(b'0' + (n % 10) as u8));
}

/// Significant digits of a plain decimal (`-0.00125` has 3).
fn significant(s: &str) -> usize {
    let digits = s.bytes().filter(u8::is_ascii_digit);
    let mut n = 0;
    let mut started = false;
    for d in digits {
        started |= d != b'0';
        if started {
            n += 1;
        }
    }
    n
}

pub(super) fn field_value(v: &FieldValue) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift), so the test needs no crate.
    fn bits(n: usize) -> impl Iterator<Item = u64> {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        (0..n).map(move |_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
    }

    #[test]
    fn cached_times_write_what_push_f64_writes() {
        let mut cache = TimeText::new(0);
        // Repeats (shared key times), collisions in the small cache, and long texts.
        let times: Vec<f64> = bits(20_000)
            .map(|b| match b % 3 {
                0 => (b % 300) as f64 / 60.0,
                1 => f64::from_bits(b) * 0.0,
                _ => f64::from_bits(b >> 2),
            })
            .filter(|t| t.is_finite())
            .collect();
        for &t in times.iter().chain(&times) {
            let (mut a, mut b) = (String::from("x"), String::from("x"));
            cache.push(&mut a, t);
            push_f64(&mut b, t);
            assert_eq!(a, b, "{t:e}");
        }
    }

    #[test]
    fn fast_floats_write_exactly_what_debug_writes() {
        let mut specials: Vec<f64> = vec![
            0.0, -0.0, 1.0, -1.0, 0.1, 1e-4, 1e16, 1e15, 0.5, 54595.0625, 3333333.25,
        ];
        for e in -8..=20 {
            let p = 10f64.powi(e);
            specials.extend([p, p.next_up(), p.next_down(), -p, 3.0 * p, 1.0 / 3.0 * p]);
        }
        let randoms = bits(400_000).map(f64::from_bits).filter(|x| x.is_finite());
        let scaled = bits(400_000).map(|b| (b as f64 / u64::MAX as f64 - 0.5) * 2e4);
        // Large magnitudes, where ties between shortest digits appear (`54595.0625f32`), and
        // values with few fractional bits.
        let edges = bits(400_000).map(|b| {
            let u = b as f64 / u64::MAX as f64;
            match b % 4 {
                0 => 1e14 * (0.5 + u),
                1 => 1e6 * u,
                2 => (u * 1e6).round() / 1024.0,
                _ => (u * 1e3).round() / 16.0,
            }
        });
        for x in specials
            .iter()
            .copied()
            .chain(randoms)
            .chain(scaled)
            .chain(edges)
        {
            let mut o = String::new();
            push_f64(&mut o, x);
            assert_eq!(o, format!("{x:?}"), "f64 {x:e}");
            let y = x as f32;
            if y.is_finite() {
                let mut o = String::new();
                push_f32(&mut o, y);
                assert_eq!(o, format!("{y:?}"), "f32 {y:e}");
            }
        }
        for b in bits(400_000) {
            let y = f32::from_bits(b as u32);
            if y.is_finite() {
                let mut o = String::new();
                push_f32(&mut o, y);
                assert_eq!(o, format!("{y:?}"), "f32 {y:e}");
            }
        }
    }
}
