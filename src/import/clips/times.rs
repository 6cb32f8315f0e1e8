//! A clip's key times: each input accessor decoded and checked once (finite, increasing, runs of
//! equal times cut to their last key), read as the `f64` of their `f32` shortest decimal, and
//! shifted so the clip starts at 0; the clip's duration.

use super::{POSE_DURATION, Plan};
use crate::import::accessor::{self, TIMES};
use crate::import::buffers::Buffers;
use crate::import::diagnostics::{
    E_ACCESSOR, E_KEY_TIMES, Report, W_REPEATED_TIMES, W_SHIFTED, W_ZERO_LENGTH,
};
use std::collections::BTreeMap;

/// A sampler's input accessor.
struct Input {
    sampler: usize,
    input: usize,
}

/// Decoded, checked key times of one input accessor.
pub(super) struct Times {
    /// The input accessor.
    pub(super) input: usize,
    /// Kept key indices (a run of equal times keeps its last key).
    pub(super) src: Vec<usize>,
    /// Their times (shifted once the clip's offset is known).
    pub(super) t: Vec<f64>,
}

impl Times {
    /// Every key is kept (no repeated times): key `k` is element `k`.
    pub(super) fn every_key(&self) -> bool {
        self.src.last().is_none_or(|&l| l + 1 == self.src.len())
    }
}

/// The key times of a clip's channels: `times[time_of[i]]` are plan `i`'s, shifted to start at
/// 0; `duration` the clip's.
pub(super) struct KeyTimes {
    pub(super) times: Vec<Times>,
    pub(super) time_of: Vec<usize>,
    pub(super) duration: f64,
}

/// Decodes and checks the key times of `plans` and of the clip's other samplers (`unused`:
/// `(sampler, input accessor)`, whose channels were skipped; they count for the start and the
/// duration) of clip `lbl`; `None` after an error (reported).
pub(super) fn key_times(
    root: &gltf::json::Root,
    buffers: &Buffers<'_>,
    plans: &[Plan],
    unused: &[(usize, usize)],
    lbl: &str,
    report: &mut Report,
) -> Option<KeyTimes> {
    // Key times, decoded once per input accessor (`time_of[i]`: plan `i`'s, in `times`).
    let mut times: Vec<Times> = Vec::new();
    let mut time_index: BTreeMap<usize, usize> = BTreeMap::new();
    let mut time_of = Vec::with_capacity(plans.len());
    let inputs = plans
        .iter()
        .map(|p| (p.sampler, p.input))
        .chain(unused.iter().copied());
    for (i, (sampler, input)) in inputs.enumerate() {
        let p = Input { sampler, input };
        let is_plan = i < plans.len();
        let time_of = &mut time_of;
        let push = |time_of: &mut Vec<usize>, k: usize| {
            if is_plan {
                time_of.push(k);
            }
        };
        // Channels baked together share one input: the last one is checked first.
        if let Some(&k) = time_of.last()
            && times.get(k).is_some_and(|t: &Times| t.input == p.input)
        {
            push(time_of, k);
            continue;
        }
        if let Some(&k) = time_index.get(&p.input) {
            push(time_of, k);
            continue;
        }
        let d = match accessor::decode(root, buffers, p.input, TIMES) {
            Ok(d) => d,
            Err(m) => {
                report.error(
                    E_ACCESSOR,
                    format!("animation {lbl}, sampler {} input: {m}", p.sampler),
                );
                return None;
            }
        };
        let mut src = Vec::with_capacity(d.values.len());
        let mut repeated = 0usize;
        for k in 0..d.values.len() {
            let x = d.values.get(k);
            if !x.is_finite() {
                report.error(
                    E_KEY_TIMES,
                    format!(
                        "animation {lbl}, sampler {} (accessor {}): key time {k} is not finite",
                        p.sampler, p.input
                    ),
                );
                return None;
            }
            if k > 0 {
                let prev = d.values.get(k - 1);
                if x < prev {
                    report.error(
                        E_KEY_TIMES,
                        format!(
                            "animation {lbl}, sampler {} (accessor {}): key time {k} ({x}) is \
                             before key {} ({prev}); times must increase",
                            p.sampler,
                            p.input,
                            k - 1
                        ),
                    );
                    return None;
                }
                if x == prev {
                    repeated += 1;
                    src.pop();
                }
            }
            src.push(k);
        }
        if repeated > 0 {
            report.warning(
                W_REPEATED_TIMES,
                format!(
                    "animation {lbl}, sampler {} (accessor {}): {repeated} key time(s) repeat the \
                     one before; the later key of each run is kept",
                    p.sampler, p.input
                ),
            );
        }
        let mut buf = String::with_capacity(32);
        let t = src
            .iter()
            .map(|&k| time_f64(d.values.get(k), &mut buf))
            .collect();
        time_index.insert(p.input, times.len());
        push(time_of, times.len());
        times.push(Times {
            input: p.input,
            src,
            t,
        });
    }
    let first = times
        .iter()
        .filter_map(|t| t.t.first())
        .copied()
        .reduce(f64::min);
    let last = times
        .iter()
        .filter_map(|t| t.t.last())
        .copied()
        .reduce(f64::max);
    let offset = match first {
        Some(f) if f > 0.0 => {
            report.warning(
                W_SHIFTED,
                format!(
                    "animation {lbl} starts at {f} s: its keys and the clip were shifted to \
                     start at 0 (notify times are clip times, not shifted)"
                ),
            );
            f
        }
        _ => 0.0,
    };
    if offset > 0.0 {
        for t in &mut times {
            for x in &mut t.t {
                *x -= offset;
            }
        }
    }
    let mut duration = last.map_or(0.0, |l| l - offset);
    if duration.is_nan() || duration <= 0.0 {
        report.warning(
            W_ZERO_LENGTH,
            if last.is_none() {
                format!(
                    "animation {lbl} has no keys: imported as an empty clip of {POSE_DURATION} s"
                )
            } else {
                format!(
                    "animation {lbl} has all its keys at one time: imported as a single pose \
                     of {POSE_DURATION} s"
                )
            },
        );
        duration = POSE_DURATION;
    }
    Some(KeyTimes {
        times,
        time_of,
        duration,
    })
}

/// `f32` key time as the `f64` with the same shortest decimal (`0.041666668`, not
/// `0.0416666679084301`); `buf` is scratch space.
fn time_f64(x: f32, buf: &mut String) -> f64 {
    buf.clear();
    crate::animseq::push_f32(buf, x);
    exact_decimal(buf).unwrap_or_else(|| buf.parse().unwrap_or(f64::from(x)))
}

/// A plain decimal (`-12.0625`, at most 15 significant digits and 22 fractional ones) as the
/// nearest `f64`, or `None` for anything else. Digits and power of ten are both exact `f64`s,
/// so one IEEE division rounds correctly: what `str::parse` gives (Clinger's fast path).
fn exact_decimal(s: &str) -> Option<f64> {
    const POW10: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    let (mut m, mut sig, mut frac, mut point) = (0u64, 0usize, 0usize, false);
    for b in digits.bytes() {
        match b {
            b'.' if !point => point = true,
            b'0'..=b'9' => {
                m = m * 10 + u64::from(b - b'0');
                sig += usize::from(m != 0);
                frac += usize::from(point);
            }
            _ => return None,
        }
        if sig > 15 || frac > 22 {
            return None;
        }
    }
    let v = m as f64 / POW10[frac];
    Some(if neg { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_times_keep_the_f32_shortest_decimal() {
        let mut buf = String::new();
        let mut x = 0x9E37_79B9u32;
        let specials = [
            0.0f32,
            -0.0,
            1.0,
            0.5,
            1.0 / 24.0,
            1e-5,
            3.4e38,
            54_595.06,
            1e-40,
        ];
        let randoms = (0..200_000).map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            f32::from_bits(x)
        });
        for t in specials
            .into_iter()
            .chain(randoms)
            .filter(|t| t.is_finite())
        {
            let want: f64 = format!("{t}").parse().expect("parses");
            assert_eq!(time_f64(t, &mut buf).to_bits(), want.to_bits(), "{t:e}");
        }
    }
}
