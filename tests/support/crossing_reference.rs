//! Brute-force reference evaluator of notify crossings, written from the spec independently of
//! `sinew::crossing`: enumerate every cycle in a window, filter each occurrence by the rules,
//! sort by the firing order. Shared by `tests/crossings.rs` and the `crossings` fuzz target.

use sinew::crossing::{Crossing, PlaybackInterval};

/// Widest cycle window the reference enumerates.
pub const MAX_WINDOW: i128 = 20_000;

/// `T(i, k)` exactly as the spec writes it.
pub fn spec_time(d: f64, t: f64, k: i64) -> f64 {
    let base = (k as f64) * d;
    base + t
}

/// All crossings (no limit) of `interval` over a sequence of duration `d` with notifies at
/// `times` (authored order), or `None` when the cycle window needed is too wide or cannot be
/// bounded (rounding makes cycles overlap beyond the window).
pub fn reference(d: f64, times: &[f64], interval: &PlaybackInterval) -> Option<Vec<Crossing>> {
    let (dep, arr, looping, start) = match *interval {
        PlaybackInterval::Seek | PlaybackInterval::Paused => return Some(Vec::new()),
        PlaybackInterval::Advance { from, to, looping } => (from, to, looping, false),
        PlaybackInterval::Start { at, to, looping } => (at, to, looping, true),
    };
    let (dep, arr) = if looping {
        (dep, arr)
    } else {
        (dep.max(0.0).min(d), arr.max(0.0).min(d))
    };
    let reverse = arr < dep;
    let fires = |t: f64, big_t: f64| -> bool {
        if !reverse {
            let lower = if start { dep <= big_t } else { dep < big_t };
            let loop_point = start && looping && t == d && big_t == dep;
            lower && big_t <= arr && !loop_point
        } else {
            let upper = if start { big_t <= dep } else { big_t < dep };
            let loop_point = start && looping && t == 0.0 && big_t == dep;
            upper && arr <= big_t && !loop_point
        }
    };
    let (k0, k1) = if looping {
        let lo = dep.min(arr);
        let hi = dep.max(arr);
        let a = (lo / d).floor() - 4.0;
        let b = (hi / d).floor() + 4.0;
        if !(a >= i64::MIN as f64 && b <= i64::MAX as f64) || b - a > MAX_WINDOW as f64 {
            return None;
        }
        let (a, b) = (a as i64, b as i64);
        // Monotonicity of T in k: nothing outside [a, b] can fire if the window's edges are
        // strictly outside the interval for every notify.
        for &t in times {
            if !(spec_time(d, t, a) < lo && spec_time(d, t, b) > hi) {
                return None;
            }
        }
        (a, b)
    } else {
        (0, 0)
    };
    let mut all = Vec::new();
    for k in k0..=k1 {
        for (i, &t) in times.iter().enumerate() {
            let big_t = spec_time(d, t, k);
            if fires(t, big_t) {
                all.push(Crossing {
                    notify: i as u32,
                    time: big_t,
                    clip_time: t + 0.0,
                    cycle: k,
                });
            }
        }
    }
    all.sort_by(|x, y| {
        let tk = x
            .time
            .partial_cmp(&y.time)
            .expect("finite")
            .then(x.cycle.cmp(&y.cycle));
        let tk = if reverse { tk.reverse() } else { tk };
        tk.then(x.notify.cmp(&y.notify))
    });
    Some(all)
}

/// Bit-exact comparison of two crossing lists; `Err` describes the first difference.
pub fn same(got: &[Crossing], want: &[Crossing]) -> Result<(), String> {
    for (n, (g, w)) in got.iter().zip(want).enumerate() {
        if g.notify != w.notify
            || g.cycle != w.cycle
            || g.time.to_bits() != w.time.to_bits()
            || g.clip_time.to_bits() != w.clip_time.to_bits()
        {
            return Err(format!("crossing {n}: got {g:?}, want {w:?}"));
        }
    }
    if got.len() != want.len() {
        return Err(format!("got {} crossings, want {}", got.len(), want.len()));
    }
    Ok(())
}

/// Checks one query against the invariants that hold for every input: ordering, count ≤ limit,
/// times canonical, and (when the reference can evaluate it) exact agreement.
pub fn check_invariants(d: f64, times: &[f64], interval: &PlaybackInterval, limit: usize) {
    let Ok(index) = sinew::crossing::NotifyIndex::new(d, times) else {
        return;
    };
    let got = match index.query(interval, limit) {
        Ok(got) => got,
        Err(_) => {
            let finite = match *interval {
                PlaybackInterval::Advance { from, to, .. } => from.is_finite() && to.is_finite(),
                PlaybackInterval::Start { at, to, .. } => at.is_finite() && to.is_finite(),
                _ => true,
            };
            assert!(!finite, "finite interval rejected: {interval:?}");
            return;
        }
    };
    assert!(got.list.len() <= limit);
    let reverse = match *interval {
        PlaybackInterval::Advance { from, to, .. } => to < from,
        PlaybackInterval::Start { at, to, .. } => to < at,
        _ => false,
    };
    for c in &got.list {
        assert_eq!(
            c.time.to_bits(),
            spec_time(d, c.clip_time, c.cycle).to_bits(),
            "{c:?}"
        );
        assert_eq!(
            c.clip_time.to_bits(),
            (times[c.notify as usize] + 0.0).to_bits()
        );
    }
    for w in got.list.windows(2) {
        let tk = w[0]
            .time
            .partial_cmp(&w[1].time)
            .unwrap()
            .then(w[0].cycle.cmp(&w[1].cycle));
        let tk = if reverse { tk.reverse() } else { tk };
        let ord = tk.then(w[0].notify.cmp(&w[1].notify));
        assert_eq!(
            ord,
            std::cmp::Ordering::Less,
            "order {:?} then {:?}",
            w[0],
            w[1]
        );
    }
    if let Some(want) = reference(d, times, interval) {
        let n = want.len().min(limit);
        if let Err(e) = same(&got.list, &want[..n]) {
            panic!("{interval:?} d={d} times={times:?} limit={limit}: {e}");
        }
        assert_eq!(got.truncated, want.len() > limit, "truncated flag");
    }
}

/// Reads bytes as a little script: a sequence (duration, notify times) then queries, each
/// checked with [`check_invariants`]. Used by the fuzz target and by a test over random bytes.
pub fn fuzz_one(data: &[u8]) {
    let mut r = Reader { data, pos: 0 };
    let d = match r.byte() % 8 {
        0 => f64::from_bits(r.u64()),
        1 => 0.3,
        2 => 0.7,
        3 => 1.0 / 3.0,
        4 => 1.0,
        5 => 1e-9,
        6 => 1e6,
        _ => f64::from(r.byte() as u32 + 1) / 60.0,
    };
    let n = (r.byte() % 21) as usize;
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let t = match r.byte() % 6 {
            0 => f64::from_bits(r.u64()),
            1 => 0.0,
            2 => d,
            3 => times.last().map_or(0.0, |&p: &f64| p.next_up()).min(d),
            _ => d * f64::from(r.byte()) / 255.0,
        };
        times.push(t);
    }
    let mut queries = 0;
    while r.pos < r.data.len() && queries < 16 {
        queries += 1;
        let kind = r.byte();
        let looping = kind & 1 == 1;
        let point = |r: &mut Reader| -> f64 {
            match r.byte() % 4 {
                0 => f64::from_bits(r.u64()),
                1 if !times.is_empty() => {
                    let i = r.byte() as usize % times.len();
                    let k = i64::from(r.u32() as i32) << (r.byte() % 40);
                    spec_time(d, times[i], k)
                }
                2 => f64::from(r.u32() as i32) * d / 16.0,
                _ => f64::from(r.u32() as i32) / 256.0,
            }
        };
        let a = point(&mut r);
        let b = point(&mut r);
        let limit = match r.byte() % 4 {
            0 => 0,
            1 => r.byte() as usize,
            _ => 4096,
        };
        let interval = match (kind >> 1) % 4 {
            0 => PlaybackInterval::Advance {
                from: a,
                to: b,
                looping,
            },
            1 => PlaybackInterval::Start {
                at: a,
                to: b,
                looping,
            },
            2 => PlaybackInterval::Seek,
            _ => PlaybackInterval::Paused,
        };
        check_invariants(d, &times, &interval, limit);
    }
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }
    fn u64(&mut self) -> u64 {
        u64::from(self.u32()) | (u64::from(self.u32()) << 32)
    }
}
