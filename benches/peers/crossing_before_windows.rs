//! Bench peer, not part of the library: the notify-only crossing index as it stood when issue
//! 14 (notify windows) was filed — `src/crossing.rs` at commit `2b59c72`, verbatim except this
//! header and the lint allowance. `benches/crossings.rs` times it side by side with today's
//! indexes so "within 10 % of today's notify-only query cost" is measured against the cost the
//! issue named, in the same run (docs/benchmarks.md, "Crossings with windows").
#![allow(dead_code, clippy::all)]

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Default crossing limit of a query (the spec's default).
pub const DEFAULT_LIMIT: usize = 10_000;

/// Largest `|unwrapped time| / D` served by the fast two-cycle merge (2^40). Beyond it (or when
/// distinct clip times could round to the same canonical time) the general per-notify merge runs.
const FAST_CYCLES: f64 = 1_099_511_627_776.0;

/// How many neighbour-cycle corrections of the cycle estimate the fast path accepts before it
/// hands the query to the general path (the estimate is within ±3 cycles in the fast regime).
const MAX_ADJUST: u32 = 8;

/// Smallest duration served by the fast path (2^-900).
const TINY_DURATION: f64 = 1.183_052_186_166_774_7e-271;

/// Cursor state of a cycle whose first departing group has not been searched yet.
const UNRESOLVED: usize = usize::MAX;

/// How playback moved during one update.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PlaybackInterval {
    /// Normal playback from `from` to `to` (unwrapped seconds; `to < from` is reverse playback).
    Advance {
        /// Departure time (excluded).
        from: f64,
        /// Arrival time (included).
        to: f64,
        /// Whether the sequence loops.
        looping: bool,
    },
    /// Playback (re)started at `at` and moved to `to` in the same update; occurrences exactly at
    /// `at` fire too (see the loop-point rule in `docs/crossings.md`).
    Start {
        /// Start time (included).
        at: f64,
        /// Arrival time (included).
        to: f64,
        /// Whether the sequence loops.
        looping: bool,
    },
    /// The playhead jumped: nothing fires.
    Seek,
    /// Playback is paused: nothing fires.
    Paused,
}

/// One notify occurrence that fired.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Crossing {
    /// The notify's authored index (position in the sequence's `notifies` list).
    pub notify: u32,
    /// Canonical unwrapped time `T = (cycle as f64) * D + clip_time`.
    pub time: f64,
    /// The notify's clip time `t_i`.
    pub clip_time: f64,
    /// The cycle `k` of this occurrence (always 0 for a non-looping sequence).
    pub cycle: i64,
}

/// The crossings of one query, in firing order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Crossings {
    /// The first crossings in firing order, at most `limit` of them.
    pub list: Vec<Crossing>,
    /// True iff at least one more crossing would have fired beyond `list`.
    pub truncated: bool,
}

/// Why a [`NotifyIndex`] could not be built.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum IndexError {
    /// The duration is not finite or not strictly positive.
    #[error("sequence duration must be finite and greater than 0, found {0}")]
    InvalidDuration(f64),
    /// A notify time is not finite or outside `[0, duration]`.
    #[error("notify {notify} has time {time}, outside [0, {duration}] or not finite")]
    InvalidTime {
        /// Authored index of the notify.
        notify: usize,
        /// Its time.
        time: f64,
        /// The sequence duration.
        duration: f64,
    },
    /// More notifies than a `u32` authored index can name.
    #[error("too many notifies: {0} (at most 4294967295)")]
    TooManyNotifies(usize),
}

/// Why a query was rejected.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum QueryError {
    /// `from`, `to` or `at` is NaN or infinite.
    #[error("playback time `{field}` must be finite, found {value}")]
    NonFinite {
        /// Which field: `"from"`, `"to"` or `"at"`.
        field: &'static str,
        /// The offending value.
        value: f64,
    },
}

/// The canonical unwrapped time of an occurrence: `(cycle as f64) * duration + clip_time`, as a
/// separate multiply and add (Rust never contracts them into a fused multiply-add).
#[inline(always)]
pub fn canonical_time(duration: f64, clip_time: f64, cycle: i64) -> f64 {
    cycle_base(duration, cycle) + clip_time
}

/// `(cycle as f64) * duration`: the first half of [`canonical_time`], shared by every occurrence
/// of one cycle. `cycle_base(d, k) + t` is bit-identical to `canonical_time(d, t, k)`.
#[inline(always)]
fn cycle_base(duration: f64, cycle: i64) -> f64 {
    (cycle as f64) * duration
}

/// The notifies of one sequence, sorted once for crossing queries.
///
/// Notifies with equal clip times form a *group*; groups are sorted by time, and each group
/// lists its notifies in authored order.
#[derive(Debug, Clone)]
pub struct NotifyIndex {
    duration: f64,
    inv_duration: f64,
    /// Distinct clip times, ascending.
    times: Vec<f64>,
    /// Group `g` holds `ids[group_start[g]..group_start[g + 1]]`.
    group_start: Vec<u32>,
    /// Authored indices, grouped, each group ascending.
    ids: Vec<u32>,
    /// `buckets[j]` is the first group with time ≥ `j * D / nb` (`nb + 1` entries, last `ng`):
    /// a search hint only.
    buckets: Vec<u32>,
    /// `nb / D`.
    bucket_scale: f64,
    /// `log2(nb)` and `nb - 1`: split `floor(x · nb / D)` into cycle and bucket.
    bucket_shift: u32,
    bucket_mask: i64,
    /// Guard on `|x · nb / D|` in the fast path (2^41 · nb).
    fast_xs_limit: f64,
    /// Largest `max(|from|, |to|)` the fast path serves (may be negative: never).
    fast_limit: f64,
    /// The last group sits at `t == D` (end marker).
    has_end: bool,
    /// The first group sits at `t == 0` (zero marker).
    has_zero: bool,
}

/// Lower (forward) or upper (reverse) departure bound of a query.
#[derive(Clone, Copy)]
struct Bound {
    /// The departure time (`from` or `at`).
    x: f64,
    /// `T == x` fires (a `Start`).
    inclusive: bool,
    /// Under `inclusive`, the loop-point group (end marker forward, zero marker reverse) does
    /// not fire at `T == x`.
    skip_loop_point: bool,
}

/// The resolved query: direction, departure bound, arrival bound, cycle range.
#[derive(Clone, Copy)]
struct Plan {
    reverse: bool,
    dep: Bound,
    /// Arrival (`to`), always inclusive.
    arr: f64,
    looping: bool,
}

impl NotifyIndex {
    /// Builds the index of a sequence of `duration` seconds whose notify `i` (authored order)
    /// sits at clip time `times[i]`. Sorting is stable: by time, then authored index.
    pub fn new(duration: f64, times: &[f64]) -> Result<NotifyIndex, IndexError> {
        if !(duration.is_finite() && duration > 0.0) {
            return Err(IndexError::InvalidDuration(duration));
        }
        if u32::try_from(times.len()).is_err() {
            return Err(IndexError::TooManyNotifies(times.len()));
        }
        for (i, &t) in times.iter().enumerate() {
            if !(t.is_finite() && (0.0..=duration).contains(&t)) {
                return Err(IndexError::InvalidTime {
                    notify: i,
                    time: t,
                    duration,
                });
            }
        }
        // `+ 0.0` turns a -0.0 clip time into +0.0 (the same instant, printed without a sign).
        let mut order: Vec<(f64, u32)> = times
            .iter()
            .enumerate()
            .map(|(i, &t)| (t + 0.0, i as u32))
            .collect();
        order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut uniq = Vec::new();
        let mut group_start = Vec::new();
        let mut ids = Vec::with_capacity(order.len());
        for (pos, &(t, id)) in order.iter().enumerate() {
            if uniq.last() != Some(&t) {
                uniq.push(t);
                group_start.push(pos as u32);
            }
            ids.push(id);
        }
        group_start.push(order.len() as u32);
        let min_gap = uniq
            .windows(2)
            .map(|w| w[1] - w[0])
            .fold(f64::INFINITY, f64::min);
        // Fast regime (see docs/crossings.md, "Algorithm"): touched cycles |k| ≤ 2^40 + 3, so
        // cycles k and k + 2 never overlap, and distinct clip times never round to one time.
        // Durations below 2^-900 (or near f64::MAX) always take the general path: 1 / D may
        // overflow there and the error analysis assumes normal-range arithmetic.
        let fast_limit = if !(TINY_DURATION..=f64::MAX / 64.0).contains(&duration) {
            -1.0
        } else {
            (duration * FAST_CYCLES)
                .min(min_gap * 562_949_953_421_312.0 - 8.0 * duration) // min_gap * 2^49
                .min(f64::MAX / 4.0)
        };
        let nb = uniq.len().next_power_of_two().min(1 << 16);
        let width = duration / nb as f64;
        let buckets = (0..=nb)
            .map(|j| {
                if j == nb {
                    uniq.len() as u32
                } else {
                    uniq.partition_point(|&t| t < j as f64 * width) as u32
                }
            })
            .collect();
        Ok(NotifyIndex {
            buckets,
            bucket_scale: nb as f64 / duration,
            bucket_shift: nb.trailing_zeros(),
            bucket_mask: nb as i64 - 1,
            fast_xs_limit: FAST_CYCLES * 2.0 * nb as f64,
            duration,
            inv_duration: 1.0 / duration,
            has_end: uniq.last() == Some(&duration),
            has_zero: uniq.first() == Some(&0.0),
            times: uniq,
            group_start,
            ids,
            fast_limit,
        })
    }

    /// The sequence duration `D`.
    pub fn duration(&self) -> f64 {
        self.duration
    }

    /// Number of notifies.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True when the sequence has no notifies.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Evaluates `interval`, returning at most `limit` crossings in firing order.
    pub fn query(
        &self,
        interval: &PlaybackInterval,
        limit: usize,
    ) -> Result<Crossings, QueryError> {
        let mut list = Vec::new();
        let truncated = self.query_into(&mut list, interval, limit)?;
        Ok(Crossings { list, truncated })
    }

    /// As [`NotifyIndex::query`], writing into `out` (cleared first) and returning `truncated`.
    /// Does not allocate when `out` has capacity for `limit` crossings, except for queries
    /// outside the fast regime (huge unwrapped times relative to `D` or to the gaps between
    /// clip times, see `docs/crossings.md`), which use a heap of one entry per notify.
    #[inline]
    pub fn query_into(
        &self,
        out: &mut Vec<Crossing>,
        interval: &PlaybackInterval,
        limit: usize,
    ) -> Result<bool, QueryError> {
        out.clear();
        let plan = match *interval {
            PlaybackInterval::Seek | PlaybackInterval::Paused => return Ok(false),
            PlaybackInterval::Advance { from, to, looping } => {
                finite("from", from)?;
                finite("to", to)?;
                let (from, to) = self.clamp2(from, to, looping);
                if from == to {
                    return Ok(false);
                }
                Plan {
                    reverse: to < from,
                    dep: Bound {
                        x: from,
                        inclusive: false,
                        skip_loop_point: false,
                    },
                    arr: to,
                    looping,
                }
            }
            PlaybackInterval::Start { at, to, looping } => {
                finite("at", at)?;
                finite("to", to)?;
                let (at, to) = self.clamp2(at, to, looping);
                Plan {
                    reverse: to < at,
                    dep: Bound {
                        x: at,
                        inclusive: true,
                        skip_loop_point: looping,
                    },
                    arr: to,
                    looping,
                }
            }
        };
        if self.ids.is_empty() {
            return Ok(false);
        }
        if !plan.looping {
            return Ok(self.single_cycle(&plan, out, limit));
        }
        if plan.dep.x.abs().max(plan.arr.abs()) <= self.fast_limit {
            // Monomorphized on the strictness of the departure comparison.
            let fast = match (plan.reverse, plan.dep.inclusive) {
                (false, false) => self.fast_forward::<true>(&plan, out, limit),
                (false, true) => self.fast_forward::<false>(&plan, out, limit),
                (true, false) => self.fast_reverse::<false>(&plan, out, limit),
                (true, true) => self.fast_reverse::<true>(&plan, out, limit),
            };
            if let Some(truncated) = fast {
                return Ok(truncated);
            }
            out.clear();
        }
        Ok(self.general(&plan, out, limit))
    }

    fn clamp2(&self, a: f64, b: f64, looping: bool) -> (f64, f64) {
        if looping {
            (a, b)
        } else {
            (a.clamp(0.0, self.duration), b.clamp(0.0, self.duration))
        }
    }

    fn group_len(&self) -> usize {
        self.times.len()
    }

    /// Forward departure test of group `g` at canonical time `t`.
    #[inline(always)]
    fn departs_fwd(&self, dep: &Bound, g: usize, t: f64) -> bool {
        t > dep.x
            || (t == dep.x
                && dep.inclusive
                && !(dep.skip_loop_point && self.has_end && g + 1 == self.times.len()))
    }

    /// Reverse departure test of group `g` at canonical time `t`.
    #[inline(always)]
    fn departs_rev(&self, dep: &Bound, g: usize, t: f64) -> bool {
        t < dep.x
            || (t == dep.x && dep.inclusive && !(dep.skip_loop_point && self.has_zero && g == 0))
    }

    /// Appends group `g` of cycle `k` (canonical time `t`), at most `*room` crossings.
    /// Returns false when the group did not fit entirely (the query is then truncated).
    #[inline(always)]
    fn emit(&self, out: &mut Vec<Crossing>, room: &mut usize, g: usize, k: i64, t: f64) -> bool {
        let s = self.group_start[g] as usize;
        let e = self.group_start[g + 1] as usize;
        let clip_time = self.times[g];
        for &notify in &self.ids[s..e] {
            if *room == 0 {
                return false;
            }
            *room -= 1;
            out.push(Crossing {
                notify,
                time: t,
                clip_time,
                cycle: k,
            });
        }
        true
    }

    /// Non-looping: only cycle 0, where `T == t` exactly.
    fn single_cycle(&self, plan: &Plan, out: &mut Vec<Crossing>, limit: usize) -> bool {
        let base = cycle_base(self.duration, 0);
        let ng = self.group_len();
        let mut room = limit;
        if plan.reverse {
            let hi = self
                .times
                .partition_point(|&t| self.departs_rev(&plan.dep, 0, base + t));
            // `departs_rev` with g = 0 only matters for looping (skip_loop_point is false here).
            for g in (0..hi).rev() {
                let t = base + self.times[g];
                if t < plan.arr {
                    break;
                }
                if !self.emit(out, &mut room, g, 0, t) {
                    return true;
                }
            }
        } else {
            let lo = self
                .times
                .partition_point(|&t| !self.departs_fwd(&plan.dep, 0, base + t));
            for g in lo..ng {
                let t = base + self.times[g];
                if t > plan.arr {
                    break;
                }
                if !self.emit(out, &mut room, g, 0, t) {
                    return true;
                }
            }
        }
        false
    }

    /// First group `g` of the cycle with base `b` whose time `b + t_g > x` (`STRICT`) or
    /// `b + t_g >= x` (otherwise); `ng` if none.
    /// `j` is the bucket where `x` is expected; it only picks where the search starts, every
    /// decision compares canonical times.
    #[inline(always)]
    fn lower_bound<const STRICT: bool>(&self, b: f64, x: f64, j: usize) -> usize {
        let below = |t: f64| if STRICT { t <= x } else { t < x };
        let u = &self.times;
        let ng = u.len();
        let nb = self.buckets.len() - 1;
        let j = j.min(nb - 1);
        let mut lo = self.buckets[j] as usize;
        let mut hi = self.buckets[j + 1] as usize;
        // The answer lies in [lo, hi] unless a bucket edge says otherwise.
        if lo > 0 && !below(b + u[lo - 1]) {
            hi = lo - 1;
            lo = 0;
        } else if hi < ng && below(b + u[hi]) {
            lo = hi + 1;
            hi = ng;
        }
        // Branch-free binary search of [lo, hi): first index not below x, else hi.
        let mut len = hi - lo;
        if len == 0 {
            return lo;
        }
        let mut base = lo;
        while len > 1 {
            let half = len / 2;
            if below(b + u[base + half]) {
                base += half;
            }
            len -= half;
        }
        base + usize::from(below(b + u[base]))
    }

    /// Bucket of a clip-time estimate (saturating: negative → 0, huge → past the last).
    #[inline(always)]
    fn bucket_of(&self, local: f64) -> usize {
        (local * self.bucket_scale) as usize
    }

    /// First group of the cycle with base `b` that departs forward (`T > x` if `STRICT`, else
    /// `T >= x` except the end group at `T == x` under `skip_end`), or `ng`.
    #[inline(always)]
    fn first_fwd<const STRICT: bool>(&self, b: f64, x: f64, skip_end: bool, j: usize) -> usize {
        let g = self.lower_bound::<STRICT>(b, x, j);
        if skip_end && g + 1 == self.times.len() && b + self.times[g] == x {
            g + 1
        } else {
            g
        }
    }

    /// Number of leading groups of the cycle with base `b` that depart in reverse (`T <= x` if
    /// `INCLUSIVE`, except the zero group at `T == x` under `skip_zero`; else `T < x`).
    #[inline(always)]
    fn count_rev<const INCLUSIVE: bool>(&self, b: f64, x: f64, skip_zero: bool, j: usize) -> usize {
        let c = self.lower_bound::<INCLUSIVE>(b, x, j);
        if skip_zero && c >= 1 && b + self.times[0] == x {
            0
        } else {
            c
        }
    }

    /// Fast forward merge of two consecutive cycles. `None`: hand over to the general path.
    fn fast_forward<const STRICT: bool>(
        &self,
        plan: &Plan,
        out: &mut Vec<Crossing>,
        limit: usize,
    ) -> Option<bool> {
        let d = self.duration;
        let u = &self.times;
        let ng = u.len();
        let last = ng - 1;
        let x = plan.dep.x;
        // Departure test: `T > from` (STRICT), or `T >= at` with the loop-point exception: a
        // looping Start does not fire the end group at `T == at`.
        let skip_end = !STRICT && plan.dep.skip_loop_point && self.has_end;
        let last_departs = |t: f64| {
            if STRICT {
                t > x
            } else {
                t >= x && !(skip_end && t == x)
            }
        };
        // Cursor A: the first cycle k whose last group departs (cycles before it fire nothing:
        // T is monotone in k, and within a cycle in the group order), at its first departing
        // group ga. The division only estimates k; canonical times decide. Cycle k - 1 can only
        // depart when ga <= 1: otherwise T(1, k) (> T(last, k - 1) in the fast regime) does not.
        // One multiply estimates both the cycle and the bucket within it: `x · nb / D`, truncated
        // (off by one for negative x; the corrections below absorb it).
        let xs = x * self.bucket_scale;
        if xs.abs() > self.fast_xs_limit {
            return None; // unreachable in the fast regime; keeps k far from overflow
        }
        let js = xs as i64;
        let mut k = js >> self.bucket_shift;
        let j0 = (js & self.bucket_mask) as usize;
        let mut ba = cycle_base(d, k);
        let mut ga = self.first_fwd::<STRICT>(ba, x, skip_end, j0);
        let mut steps = 0;
        loop {
            if ga == ng {
                k += 1;
            } else if ga <= 1 && last_departs(canonical_time(d, u[last], k - 1)) {
                k -= 1;
            } else {
                break;
            }
            ba = cycle_base(d, k);
            ga = self.first_fwd::<STRICT>(ba, x, skip_end, self.bucket_of(x - ba));
            steps += 1;
            if steps > MAX_ADJUST {
                return None;
            }
        }
        let to = plan.arr;
        let mut room = limit;
        // B is resolved lazily: its head is at least `bb + u[0]`, so while that is not below
        // A's head, A fires first (equal times: the lower cycle first) without searching B.
        let mut bb = cycle_base(d, k + 1);
        let mut gb = UNRESOLVED;
        loop {
            if ga == ng {
                k += 1;
                ba = bb;
                ga = if gb == UNRESOLVED {
                    self.first_fwd::<STRICT>(ba, x, skip_end, self.bucket_of(x - ba))
                } else {
                    gb
                };
                bb = cycle_base(d, k + 1);
                gb = UNRESOLVED;
                if ga == ng {
                    return None; // impossible in the fast regime; never loop without progress
                }
                continue;
            }
            let ta = ba + u[ga];
            if gb == UNRESOLVED && bb + u[0] < ta {
                gb = self.first_fwd::<STRICT>(bb, x, skip_end, self.bucket_of(x - bb));
            }
            if gb < ng && bb + u[gb] < ta {
                let tb = bb + u[gb];
                if tb > to {
                    return Some(false);
                }
                if !self.emit(out, &mut room, gb, k + 1, tb) {
                    return Some(true);
                }
                gb += 1;
            } else {
                if ta > to {
                    return Some(false);
                }
                if !self.emit(out, &mut room, ga, k, ta) {
                    return Some(true);
                }
                ga += 1;
            }
        }
    }

    /// Fast reverse merge of two consecutive cycles. `None`: hand over to the general path.
    fn fast_reverse<const INCLUSIVE: bool>(
        &self,
        plan: &Plan,
        out: &mut Vec<Crossing>,
        limit: usize,
    ) -> Option<bool> {
        let d = self.duration;
        let u = &self.times;
        let x = plan.dep.x;
        // Reverse departure test: `T < from`, or `T <= at` (INCLUSIVE) with the loop-point
        // exception: a looping Start in reverse does not fire the zero group at `T == at`.
        let skip_zero = INCLUSIVE && plan.dep.skip_loop_point && self.has_zero;
        let first_departs = |t: f64| {
            if INCLUSIVE {
                t <= x && !(skip_zero && t == x)
            } else {
                t < x
            }
        };
        // Cursor A: the last cycle k whose first group departs (later cycles fire nothing), with
        // groups 0..na departing. Cycle k + 1 can only depart when na >= ng - 1: otherwise
        // T(ng - 2, k) (< T(0, k + 1) in the fast regime) does not.
        let ng = u.len();
        // One multiply estimates both the cycle and the bucket within it: `x · nb / D`, truncated
        // (off by one for negative x; the corrections below absorb it).
        let xs = x * self.bucket_scale;
        if xs.abs() > self.fast_xs_limit {
            return None; // unreachable in the fast regime; keeps k far from overflow
        }
        let js = xs as i64;
        let mut k = js >> self.bucket_shift;
        let j0 = (js & self.bucket_mask) as usize;
        let mut ba = cycle_base(d, k);
        let mut na = self.count_rev::<INCLUSIVE>(ba, x, skip_zero, j0);
        let mut steps = 0;
        loop {
            if na == 0 {
                k -= 1;
            } else if na + 1 >= ng && first_departs(canonical_time(d, u[0], k + 1)) {
                k += 1;
            } else {
                break;
            }
            ba = cycle_base(d, k);
            na = self.count_rev::<INCLUSIVE>(ba, x, skip_zero, self.bucket_of(x - ba));
            steps += 1;
            if steps > MAX_ADJUST {
                return None;
            }
        }
        let to = plan.arr;
        let mut room = limit;
        // B is resolved lazily: its head is at most `bb + u[last]`.
        let last = ng - 1;
        let mut bb = cycle_base(d, k - 1);
        let mut nb = UNRESOLVED;
        loop {
            if na == 0 {
                k -= 1;
                ba = bb;
                na = if nb == UNRESOLVED {
                    self.count_rev::<INCLUSIVE>(ba, x, skip_zero, self.bucket_of(x - ba))
                } else {
                    nb
                };
                bb = cycle_base(d, k - 1);
                nb = UNRESOLVED;
                if na == 0 {
                    return None; // impossible in the fast regime; never loop without progress
                }
                continue;
            }
            let ta = ba + u[na - 1];
            if nb == UNRESOLVED && bb + u[last] > ta {
                nb = self.count_rev::<INCLUSIVE>(bb, x, skip_zero, self.bucket_of(x - bb));
            }
            // Equal times: the higher cycle (A) fires first.
            if nb != UNRESOLVED && nb > 0 && bb + u[nb - 1] > ta {
                let tb = bb + u[nb - 1];
                if tb < to {
                    return Some(false);
                }
                if !self.emit(out, &mut room, nb - 1, k - 1, tb) {
                    return Some(true);
                }
                nb -= 1;
            } else {
                if ta < to {
                    return Some(false);
                }
                if !self.emit(out, &mut room, na - 1, k, ta) {
                    return Some(true);
                }
                na -= 1;
            }
        }
    }

    /// General path: per notify, the contiguous range of cycles that fire (canonical `T` is
    /// monotone in `k`), found by exponential search from a division estimate then bisection,
    /// over all of `i64`; then a heap merge of those streams in firing order. Correct for any
    /// magnitude; O(groups · log |error of the estimate| + (n + crossings) · log n).
    fn general(&self, plan: &Plan, out: &mut Vec<Crossing>, limit: usize) -> bool {
        let d = self.duration;
        let dep = &plan.dep;
        let to = plan.arr;
        let mut heap = BinaryHeap::with_capacity(self.ids.len());
        for (g, &t) in self.times.iter().enumerate() {
            let at = |k: i64| canonical_time(d, t, k);
            // Cycles [lo, hi] fire for this group.
            // Guesses only: the searches decide with canonical times. Casts saturate.
            let guess = |y: f64| ((y - t) * self.inv_duration).floor() as i64;
            let range = if plan.reverse {
                let hi = last_true(|k| self.departs_rev(dep, g, at(k)), guess(dep.x));
                let lo = first_true(|k| at(k) >= to, guess(to));
                lo.zip(hi)
            } else {
                let lo = first_true(|k| self.departs_fwd(dep, g, at(k)), guess(dep.x));
                let hi = last_true(|k| at(k) <= to, guess(to));
                lo.zip(hi)
            };
            let Some((lo, hi)) = range else { continue };
            if lo > hi {
                continue;
            }
            let s = self.group_start[g] as usize;
            let e = self.group_start[g + 1] as usize;
            for &notify in &self.ids[s..e] {
                let k = if plan.reverse { hi } else { lo };
                heap.push(Head {
                    time: at(k),
                    cycle: k,
                    notify,
                    group: g as u32,
                    stop: if plan.reverse { lo } else { hi },
                    reverse: plan.reverse,
                });
            }
        }
        let mut room = limit;
        while let Some(head) = heap.pop() {
            if room == 0 {
                return true;
            }
            room -= 1;
            let clip_time = self.times[head.group as usize];
            out.push(Crossing {
                notify: head.notify,
                time: head.time,
                clip_time,
                cycle: head.cycle,
            });
            if head.cycle != head.stop {
                let k = if head.reverse {
                    head.cycle - 1
                } else {
                    head.cycle + 1
                };
                heap.push(Head {
                    time: canonical_time(d, clip_time, k),
                    cycle: k,
                    ..head
                });
            }
        }
        false
    }
}

fn finite(field: &'static str, value: f64) -> Result<(), QueryError> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(QueryError::NonFinite { field, value })
    }
}

/// Smallest `k` in `i64` with `p(k)`, for `p` monotone false → true: exponential search out
/// from `guess`, then bisection. O(log |answer − guess|) evaluations, at most about 128.
fn first_true(p: impl Fn(i64) -> bool, guess: i64) -> Option<i64> {
    // Invariant: p is false at `lo` and true at `hi`, where i64::MIN − 1 and i64::MAX + 1 stand
    // for "false below the range" and "true above the range".
    const BELOW: i128 = i64::MIN as i128 - 1;
    const ABOVE: i128 = i64::MAX as i128 + 1;
    let g = guess as i128;
    let (mut lo, mut hi);
    let mut step: i128 = 1;
    if p(guess) {
        hi = g;
        loop {
            let c = hi - step;
            if c <= BELOW {
                lo = BELOW;
                break;
            }
            if p(c as i64) {
                hi = c;
                step *= 2;
            } else {
                lo = c;
                break;
            }
        }
    } else {
        lo = g;
        loop {
            let c = lo + step;
            if c >= ABOVE {
                hi = ABOVE;
                break;
            }
            if p(c as i64) {
                hi = c;
                break;
            }
            lo = c;
            step *= 2;
        }
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if p(mid as i64) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    if hi == ABOVE { None } else { Some(hi as i64) }
}

/// Largest `k` in `i64` with `p(k)`, for `p` monotone true → false.
fn last_true(p: impl Fn(i64) -> bool, guess: i64) -> Option<i64> {
    match first_true(|k| !p(k), guess) {
        None => Some(i64::MAX),
        Some(i64::MIN) => None,
        Some(k) => Some(k - 1),
    }
}

/// The next occurrence of one notify's stream in the general path's merge heap.
#[derive(Clone, Copy)]
struct Head {
    time: f64,
    cycle: i64,
    notify: u32,
    group: u32,
    /// Last cycle of the stream.
    stop: i64,
    reverse: bool,
}

impl Head {
    /// Firing order: forward ascending (T, k, notify); reverse descending T, descending k,
    /// ascending notify. `Less` fires first.
    fn firing_cmp(&self, other: &Head) -> Ordering {
        // Canonical times are never NaN (finite D and t, cycles from i64).
        let tk = self
            .time
            .partial_cmp(&other.time)
            .unwrap_or(Ordering::Equal)
            .then(self.cycle.cmp(&other.cycle));
        let tk = if self.reverse { tk.reverse() } else { tk };
        tk.then(self.notify.cmp(&other.notify))
    }
}

impl PartialEq for Head {
    fn eq(&self, other: &Head) -> bool {
        self.firing_cmp(other) == Ordering::Equal
    }
}
impl Eq for Head {}
impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Head) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Head {
    /// Max-heap order: the head that fires first is the greatest.
    fn cmp(&self, other: &Head) -> Ordering {
        other.firing_cmp(self)
    }
}
