//! Brute-force reference evaluator of notify crossings and window edges, written from the specs
//! (`crossings.md`, `windows.md`) independently of `sinew::crossing`: enumerate every cycle in a
//! window, list every occurrence of every point notify and every window edge, filter each by the
//! rules, add the begins a `Start` inside a window opens, sort by the firing order. Shared by
//! `tests/crossings.rs` and the `crossings` fuzz target.

use sinew::crossing::{Crossing, Edge, PlaybackInterval};
use std::cmp::Ordering;

/// Widest cycle window the reference enumerates.
pub const MAX_WINDOW: i128 = 20_000;

/// `T(i, k)` exactly as the spec writes it.
pub fn spec_time(d: f64, t: f64, k: i64) -> f64 {
    let base = (k as f64) * d;
    base + t
}

/// A candidate firing: one occurrence of a marker, before the interval's filter.
struct Candidate {
    crossing: Crossing,
    /// A marker at clip time `D` of its cycle (the forward loop-point rule skips it at `at`).
    end_marker: bool,
    /// A marker at clip time 0 of its cycle (the reverse loop-point rule skips it at `at`).
    zero_marker: bool,
    /// The window occurrence this edge enters in playback order (`Some(true)`) or leaves.
    enters: Option<bool>,
}

/// Whether occurrence `k` of window `(b, e)` collapsed on a looping clip: its begin edge
/// (windows.md's `B(k)`) is not before its end edge `E(k)` (a window a few ulps long far from
/// cycle 0, or ending at `D` with its begin rounded past `(k+1)·D`).
pub fn collapsed(d: f64, (b, e): (f64, f64), k: i64, looping: bool) -> bool {
    if !looping {
        return false;
    }
    let end = if e == d {
        match k.checked_add(1) {
            Some(n) => spec_time(d, 0.0, n),
            None => return false,
        }
    } else {
        spec_time(d, e, k)
    };
    spec_time(d, b, k) >= end
}

/// The spec's firing order: time (ascending forward, descending reverse), then ends, points,
/// begins, then cycle in the time's direction, then authored index. An occurrence that begins
/// and ends at one time (`collapsed` says which, for an end's window and cycle) still begins
/// first: its end comes after the begins at that time (docs/windows.md).
pub fn firing_order(
    x: &Crossing,
    y: &Crossing,
    reverse: bool,
    collapsed: &dyn Fn(u32, i64) -> bool,
) -> Ordering {
    let rank = |c: &Crossing| match c.edge {
        Some(Edge::End) if collapsed(c.notify, c.cycle) => 3,
        Some(Edge::End) => 0,
        None => 1,
        Some(Edge::Begin) => 2,
    };
    let t = x.time.partial_cmp(&y.time).expect("finite");
    let k = x.cycle.cmp(&y.cycle);
    let (t, k) = if reverse {
        (t.reverse(), k.reverse())
    } else {
        (t, k)
    };
    t.then(rank(x).cmp(&rank(y)))
        .then(k)
        .then(x.notify.cmp(&y.notify))
}

/// All crossings (no limit) of `interval` over a sequence of duration `d` with point notifies
/// at `times` and windows `(begin, end)` (authored order), or `None` when the cycle window
/// needed is too wide or cannot be bounded (rounding makes cycles overlap beyond the window).
pub fn reference(
    d: f64,
    times: &[f64],
    windows: &[(f64, f64)],
    interval: &PlaybackInterval,
) -> Option<Vec<Crossing>> {
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
    // A window's end, per windows.md: on a looping clip an end at D is the next cycle's zero.
    let end_time = |e: f64, k: i64| -> Option<f64> {
        if looping && e == d {
            k.checked_add(1).map(|n| spec_time(d, 0.0, n))
        } else {
            Some(spec_time(d, e, k))
        }
    };
    let (k0, k1) = if looping {
        let lo = dep.min(arr);
        let hi = dep.max(arr);
        let a = (lo / d).floor() - 4.0;
        let b = (hi / d).floor() + 4.0;
        if !(a >= i64::MIN as f64 && b < i64::MAX as f64) || b - a > MAX_WINDOW as f64 {
            return None;
        }
        let (a, b) = (a as i64, b as i64);
        // Monotonicity of T in k: nothing outside [a, b] can fire (nor contain `at`) if the
        // window's edges are strictly outside the interval for every marker time.
        let mut marks: Vec<(f64, bool)> = times.iter().map(|&t| (t, false)).collect();
        for &(b, e) in windows {
            marks.push((b, false));
            marks.push((e, looping && e == d));
        }
        for (t, next_zero) in marks {
            let at_k = |k: i64| {
                if next_zero {
                    spec_time(d, 0.0, k + 1)
                } else {
                    spec_time(d, t, k)
                }
            };
            if !(at_k(a) < lo && at_k(b) > hi) {
                return None;
            }
        }
        (a, b)
    } else {
        (0, 0)
    };
    let mut cands = Vec::new();
    for k in k0..=k1 {
        for (i, &t) in times.iter().enumerate() {
            cands.push(Candidate {
                crossing: Crossing {
                    notify: i as u32,
                    edge: None,
                    time: spec_time(d, t, k),
                    clip_time: t + 0.0,
                    cycle: k,
                },
                end_marker: t == d,
                zero_marker: t == 0.0,
                enters: None,
            });
        }
        for (i, &(b, e)) in windows.iter().enumerate() {
            let (enter_b, enter_e) = if reverse {
                (false, true)
            } else {
                (true, false)
            };
            let kind = |enters: bool| Some(if enters { Edge::Begin } else { Edge::End });
            cands.push(Candidate {
                crossing: Crossing {
                    notify: i as u32,
                    edge: kind(enter_b),
                    time: spec_time(d, b, k),
                    clip_time: b + 0.0,
                    cycle: k,
                },
                end_marker: false,
                zero_marker: b == 0.0,
                enters: Some(enter_b),
            });
            if let Some(time) = end_time(e, k) {
                let next_zero = looping && e == d;
                cands.push(Candidate {
                    crossing: Crossing {
                        notify: i as u32,
                        edge: kind(enter_e),
                        time,
                        clip_time: e,
                        cycle: k,
                    },
                    // The loop-point rule skips an end at `D` forward, also the one that sits
                    // on the next cycle's zero (crossings.md: one cycle only is entered).
                    end_marker: e == d,
                    zero_marker: next_zero,
                    enters: Some(enter_e),
                });
            }
        }
    }
    let fires = |c: &Candidate| -> bool {
        let big_t = c.crossing.time;
        if !reverse {
            let lower = if start { dep <= big_t } else { dep < big_t };
            let loop_point = start && looping && c.end_marker && big_t == dep;
            lower && big_t <= arr && !loop_point
        } else {
            let upper = if start { big_t <= dep } else { big_t < dep };
            let loop_point = start && looping && c.zero_marker && big_t == dep;
            upper && arr <= big_t && !loop_point
        }
    };
    let mut all: Vec<Crossing> = Vec::new();
    let mut entered_at_start: Vec<(u32, i64)> = Vec::new();
    for c in &cands {
        if fires(c) {
            if start && c.enters == Some(true) && c.crossing.time == dep {
                entered_at_start.push((c.crossing.notify, c.crossing.cycle));
            }
            all.push(c.crossing);
        }
    }
    if start {
        // windows.md: a start inside an occurrence (B ≤ at < E forward, B < at ≤ E reverse)
        // opens it with a begin at `at` — the entering edge itself when that fired at `at`.
        for k in k0..=k1 {
            for (i, &(b, e)) in windows.iter().enumerate() {
                let begin = spec_time(d, b, k);
                let end = end_time(e, k);
                let inside = if reverse {
                    begin < dep && end.is_none_or(|end| dep <= end)
                } else {
                    begin <= dep && end.is_none_or(|end| dep < end)
                };
                if inside && !entered_at_start.contains(&(i as u32, k)) {
                    let clip = (dep - (k as f64) * d).max(b).min(e);
                    all.push(Crossing {
                        notify: i as u32,
                        edge: Some(Edge::Begin),
                        time: dep + 0.0,
                        clip_time: clip,
                        cycle: k,
                    });
                }
            }
        }
    }
    let collapsed = |w: u32, k: i64| collapsed(d, windows[w as usize], k, looping);
    all.sort_by(|x, y| firing_order(x, y, reverse, &collapsed));
    Some(all)
}

/// Bit-exact comparison of two crossing lists; `Err` describes the first difference.
pub fn same(got: &[Crossing], want: &[Crossing]) -> Result<(), String> {
    for (n, (g, w)) in got.iter().zip(want).enumerate() {
        if g.notify != w.notify
            || g.edge != w.edge
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
/// point times canonical, edges within their windows, and (when the reference can evaluate it)
/// exact agreement.
pub fn check_invariants(
    d: f64,
    times: &[f64],
    windows: &[(f64, f64)],
    interval: &PlaybackInterval,
    limit: usize,
) {
    let Ok(index) = sinew::crossing::NotifyIndex::with_windows(d, times, windows) else {
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
    let (reverse, looping) = match *interval {
        PlaybackInterval::Advance { from, to, looping } => (to < from, looping),
        PlaybackInterval::Start { at, to, looping } => (to < at, looping),
        _ => (false, false),
    };
    let collapsed = |w: u32, k: i64| collapsed(d, windows[w as usize], k, looping);
    for c in &got.list {
        match c.edge {
            None => {
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
            Some(_) => {
                let (b, e) = windows[c.notify as usize];
                assert!(
                    b <= c.clip_time && c.clip_time <= e,
                    "{c:?} outside [{b}, {e}]"
                );
            }
        }
    }
    for w in got.list.windows(2) {
        assert_eq!(
            firing_order(&w[0], &w[1], reverse, &collapsed),
            Ordering::Less,
            "order {:?} then {:?}",
            w[0],
            w[1]
        );
    }
    if let Some(want) = reference(d, times, windows, interval) {
        let n = want.len().min(limit);
        if let Err(e) = same(&got.list, &want[..n]) {
            panic!("{interval:?} d={d} times={times:?} windows={windows:?} limit={limit}: {e}");
        }
        assert_eq!(got.truncated, want.len() > limit, "truncated flag");
    }
}

/// Reads bytes as a little script: a sequence (duration, notify times, windows) then queries,
/// each checked with [`check_invariants`]. Used by the fuzz target and by a test over random
/// bytes. The first byte picks the duration (low 3 bits) and the window count (next 3 bits).
pub fn fuzz_one(data: &[u8]) {
    let mut r = Reader { data, pos: 0 };
    let head = r.byte();
    let d = match head % 8 {
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
    let mut windows = Vec::new();
    for _ in 0..(head >> 3) % 8 {
        let edge = |r: &mut Reader| match r.byte() % 6 {
            0 => f64::from_bits(r.u64()),
            1 => 0.0,
            2 => d,
            3 => times.first().copied().unwrap_or(0.0),
            _ => d * f64::from(r.byte()) / 255.0,
        };
        let (a, b) = (edge(&mut r), edge(&mut r));
        windows.push((a.min(b), a.max(b)));
    }
    let mut queries = 0;
    while r.pos < r.data.len() && queries < 16 {
        queries += 1;
        let kind = r.byte();
        let looping = kind & 1 == 1;
        let marks: Vec<f64> = times
            .iter()
            .copied()
            .chain(windows.iter().flat_map(|&(b, e)| [b, e]))
            .collect();
        let point = |r: &mut Reader| -> f64 {
            match r.byte() % 4 {
                0 => f64::from_bits(r.u64()),
                1 if !marks.is_empty() => {
                    let i = r.byte() as usize % marks.len();
                    let k = i64::from(r.u32() as i32) << (r.byte() % 40);
                    spec_time(d, marks[i], k)
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
        check_invariants(d, &times, &windows, &interval, limit);
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
