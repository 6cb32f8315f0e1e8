//! Notify crossings: which notifies and window edges of one sequence fire when playback moves,
//! and in what order (semantics as implemented, algorithm and open decisions:
//! `docs/crossings.md` and `docs/windows.md`). Pure values in, values out; no I/O.
//!
//! A [`NotifyIndex`] is built once per sequence from its duration, its notifies' clip times and
//! its windows' `(begin, end)` (authored order). [`NotifyIndex::query`] evaluates one
//! [`PlaybackInterval`].
//!
//! Every occurrence time is the canonical `T(i, k) = (k as f64) * D + t_i`, computed only by
//! [`canonical_time`] (a window's edges are markers at `begin` and `end`; on a looping clip an
//! end at `D` sits at clip time 0 of the next cycle). The query never derives a time any other
//! way: cycle and bucket estimates (from `x / D`) are only guesses, verified and corrected by
//! comparing canonical times.

use std::cmp::Ordering;

mod build;
mod emit;
mod fast;
mod general;

/// Default crossing limit of a query (the spec's default).
pub const DEFAULT_LIMIT: usize = 10_000;

/// Largest `|unwrapped time| / D` served by the fast two-cycle merge (2^40). Beyond it (or when
/// distinct clip times could round to the same canonical time) the general per-marker merge
/// runs.
const FAST_CYCLES: f64 = 1_099_511_627_776.0;

/// How many neighbour-cycle corrections of the cycle estimate the fast path accepts before it
/// hands the query to the general path (the estimate is within ±3 cycles in the fast regime).
const MAX_ADJUST: u32 = 8;

/// Smallest duration served by the fast path (2^-900).
const TINY_DURATION: f64 = 1.183_052_186_166_774_7e-271;

/// Cursor state of a cycle whose first departing group has not been searched yet.
const UNRESOLVED: usize = usize::MAX;

/// The most notifies, and separately the most windows, an index holds (2^30 − 1: a marker packs
/// its kind into the top two bits of a `u32`).
pub const MAX_MARKERS: usize = (1 << 30) - 1;

/// A marker is `tag << TAG_SHIFT | authored index`.
const TAG_SHIFT: u32 = 30;
const INDEX_MASK: u32 = (1 << TAG_SHIFT) - 1;
/// A point notify.
const TAG_POINT: u32 = 0;
/// A window's begin edge (at `begin`).
const TAG_BEGIN: u32 = 1;
/// A window's end edge (at `end`).
const TAG_END: u32 = 2;
/// A looping window's end edge at `end == D`: it sits at clip time 0 of the cycle after its
/// occurrence (`E(k) = (k+1)·D`), reports that occurrence's cycle and clip time `D`.
const TAG_LOOP_END: u32 = 3;

/// Index modes, the fast path's and emission's monomorphization: point notifies only;
/// windows, none ending at `D`; windows, some ending at `D` (group 0 of the looping layout holds
/// those ends).
const POINTS: u8 = 0;
const EDGES_ONLY: u8 = 1;
const LOOP_ENDS: u8 = 2;

/// The edge a marker of each tag reports, forward (`[0]`) and in reverse (`[1]`): reverse
/// playback enters a window at its end.
const EDGES: [[Option<Edge>; 4]; 2] = [
    [None, Some(Edge::Begin), Some(Edge::End), Some(Edge::End)],
    [None, Some(Edge::End), Some(Edge::Begin), Some(Edge::Begin)],
];

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

/// Which edge of a window a crossing is (in playback order: reverse playback begins a window at
/// its `end` and ends it at its `begin`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Edge {
    /// Playback entered the window.
    Begin,
    /// Playback left the window.
    End,
}

/// One notify occurrence or window edge that fired.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Crossing {
    /// The authored index: in the sequence's `notifies` when `edge` is `None`, in its `windows`
    /// when it is an edge.
    pub notify: u32,
    /// `None` for a point notify; the edge of a window otherwise.
    pub edge: Option<Edge>,
    /// Canonical unwrapped time: `T = (cycle as f64) * D + clip_time`; for a looping window's
    /// end at `D`, `((cycle + 1) as f64) * D`; for a begin opened by a `Start` inside the
    /// window, the start time `at`.
    pub time: f64,
    /// The clip time of the marker (`t_i`, `begin` or `end`), or of `at` for a begin opened by
    /// a `Start` inside the window.
    pub clip_time: f64,
    /// The cycle `k` of this occurrence (always 0 for a non-looping sequence); for an edge, the
    /// cycle of the window occurrence it opens or closes.
    pub cycle: i64,
}

impl Crossing {
    /// Where this crossing fires among others at one time: ends, then point notifies, then
    /// begins.
    fn rank(&self) -> u8 {
        match self.edge {
            Some(Edge::End) => 0,
            None => 1,
            Some(Edge::Begin) => 2,
        }
    }

    /// The firing order of two crossings of one query (`Less`: `self` fires first): by time
    /// (ascending forward, descending in reverse), then ends before points before begins, then
    /// cycle (in the same direction as time), then authored index. (A query also puts the end
    /// of a collapsed occurrence — begin and end at one time — after the begins there; that
    /// needs the index, see `docs/windows.md`.)
    pub fn firing_cmp(&self, other: &Crossing, reverse: bool) -> Ordering {
        // Times are never NaN here; -0.0 and 0.0 are one instant.
        let t = self
            .time
            .partial_cmp(&other.time)
            .unwrap_or(Ordering::Equal);
        let k = self.cycle.cmp(&other.cycle);
        let (t, k) = if reverse {
            (t.reverse(), k.reverse())
        } else {
            (t, k)
        };
        t.then(self.rank().cmp(&other.rank()))
            .then(k)
            .then(self.notify.cmp(&other.notify))
    }
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
    /// A window whose edges are not finite, not within `[0, duration]`, or not `begin < end`.
    #[error("window {window} spans [{begin}, {end}]: needs 0 <= begin < end <= {duration}")]
    InvalidWindow {
        /// Authored index of the window.
        window: usize,
        /// Its begin.
        begin: f64,
        /// Its end.
        end: f64,
        /// The sequence duration.
        duration: f64,
    },
    /// More notifies than [`MAX_MARKERS`].
    #[error("too many notifies: {0} (at most 1073741823)")]
    TooManyNotifies(usize),
    /// More windows than [`MAX_MARKERS`].
    #[error("too many windows: {0} (at most 1073741823)")]
    TooManyWindows(usize),
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

/// The markers of one sequence sorted once for crossing queries: point notifies and both edges
/// of every window, in one index (see `docs/crossings.md`, "Algorithm").
///
/// Markers with equal clip times form a *group*; groups are sorted by time. Each group lists
/// its markers in their firing order at one time, once for forward playback (window ends, then
/// points, then begins; each part in authored order) and once for reverse.
#[derive(Debug, Clone)]
pub struct NotifyIndex {
    duration: f64,
    inv_duration: f64,
    /// The layout of looping queries (fast and general paths): a window end at `D` sits in its
    /// own group at clip time 0, before the other markers at 0.
    lay: Layout,
    /// The layout of non-looping queries, when it differs (some window ends at `D`).
    once: Option<Layout>,
    /// `(begin, end)` of every window, authored order.
    windows: Vec<(f64, f64)>,
    /// Number of point notifies.
    notifies: usize,
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
    /// The last group of `lay` sits at `t == D` (end marker).
    has_end: bool,
    /// How many leading groups of `lay` sit at `t == 0` (zero markers): 0, 1 or 2.
    zero_groups: usize,
    /// `max(zero_groups, 1)`: the first group at a clip time above 0 (or 1).
    lead: usize,
    /// [`POINTS`], [`EDGES_ONLY`] or [`LOOP_ENDS`] (group 0 of `lay` holds the looping window
    /// ends at `D`).
    mode: u8,
}

/// Markers grouped by clip time.
#[derive(Debug, Clone)]
struct Layout {
    /// Group clip times, ascending (the loop-point end group repeats time 0).
    times: Vec<f64>,
    /// Group `g` holds `fwd[group_start[g]..group_start[g + 1]]` (likewise `fwd_slots`; in
    /// `rev_slots` it is `rev_slots[n - group_start[g + 1]..n - group_start[g]]`).
    group_start: Vec<u32>,
    /// Markers in forward firing order within each group.
    fwd: Vec<u32>,
    /// The markers decoded for forward emission, in the order of `fwd`: one walk over them
    /// emits a cycle's crossings in forward firing order.
    fwd_slots: Vec<Slot>,
    /// The markers decoded for reverse emission (edges as crossed in reverse), groups in
    /// descending time, each in reverse firing order: one walk emits a cycle backwards.
    rev_slots: Vec<Slot>,
}

/// One marker as emission needs it: its group's clip time and what its crossing reports, so
/// that emitting a window edge costs what emitting a point notify costs.
#[derive(Debug, Clone, Copy)]
struct Slot {
    /// The group's clip time (0 for a loop-point window end).
    time: f64,
    /// Authored index.
    notify: u32,
    /// The reported edge in this slot's direction.
    edge: Option<Edge>,
}

/// Lower (forward) or upper (reverse) departure bound of a query.
#[derive(Clone, Copy)]
struct Bound {
    /// The departure time (`from` or `at`).
    x: f64,
    /// `T == x` fires (a `Start`).
    inclusive: bool,
    /// Under `inclusive`, the loop-point groups (end marker forward, zero markers reverse) do
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
    /// sits at clip time `times[i]`, without windows. Sorting is stable: by time, then authored
    /// index.
    pub fn new(duration: f64, times: &[f64]) -> Result<NotifyIndex, IndexError> {
        NotifyIndex::with_windows(duration, times, &[])
    }

    /// The sequence duration `D`.
    pub fn duration(&self) -> f64 {
        self.duration
    }

    /// Number of point notifies.
    pub fn len(&self) -> usize {
        self.notifies
    }

    /// Number of windows.
    pub fn window_count(&self) -> usize {
        self.windows.len()
    }

    /// True when the sequence has neither notifies nor windows.
    pub fn is_empty(&self) -> bool {
        self.lay.fwd.is_empty()
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
    /// clip times, see `docs/crossings.md`), which use a heap of one entry per marker, and a
    /// `Start` inside windows (a small list of the begins it opens).
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
        if self.is_empty() {
            return Ok(false);
        }
        let truncated = self.scan(&plan, out, limit);
        if plan.dep.inclusive && !self.windows.is_empty() {
            return Ok(self.start_begins(&plan, out, limit, truncated));
        }
        Ok(truncated)
    }

    /// Every marker crossing of `plan` (the edges of the markers themselves).
    #[inline(always)]
    fn scan(&self, plan: &Plan, out: &mut Vec<Crossing>, limit: usize) -> bool {
        if !plan.looping {
            return self.single_cycle(plan, out, limit);
        }
        if plan.dep.x.abs() <= self.fast_limit && plan.arr.abs() <= self.fast_limit {
            // Monomorphized on the markers' mode (points only: the merge and the emission are
            // exactly the notify-only ones) and on the strictness of the departure comparison.
            let fast = match self.mode {
                POINTS => self.fast::<POINTS>(plan, out, limit),
                EDGES_ONLY => self.fast::<EDGES_ONLY>(plan, out, limit),
                _ => self.fast::<LOOP_ENDS>(plan, out, limit),
            };
            if let Some(truncated) = fast {
                return truncated;
            }
            out.clear();
        }
        self.general(plan, out, limit)
    }

    #[inline(always)]
    fn fast<const M: u8>(
        &self,
        plan: &Plan,
        out: &mut Vec<Crossing>,
        limit: usize,
    ) -> Option<bool> {
        match (plan.reverse, plan.dep.inclusive) {
            (false, false) => self.fast_forward::<true, M>(plan, out, limit),
            (false, true) => self.fast_forward::<false, M>(plan, out, limit),
            (true, false) => self.fast_reverse::<false, M>(plan, out, limit),
            (true, true) => self.fast_reverse::<true, M>(plan, out, limit),
        }
    }

    #[inline(always)]
    fn clamp2(&self, a: f64, b: f64, looping: bool) -> (f64, f64) {
        if looping {
            (a, b)
        } else {
            (a.clamp(0.0, self.duration), b.clamp(0.0, self.duration))
        }
    }

    /// Forward departure test of group `g` of `lay` at canonical time `t`. Under the
    /// loop-point rule the end markers at `T == x` stay behind: the group at `D` and the group
    /// of window ends at `D` (group 0 under [`LOOP_ENDS`], at clip time 0 of the next cycle).
    #[inline(always)]
    fn departs_fwd(&self, dep: &Bound, g: usize, t: f64) -> bool {
        t > dep.x
            || (t == dep.x
                && dep.inclusive
                && !(dep.skip_loop_point
                    && ((self.has_end && g + 1 == self.lay.times.len())
                        || (self.mode == LOOP_ENDS && g == 0))))
    }

    /// Whether occurrence `k` of window `w` collapsed: its begin and end round to one
    /// canonical time (a window a few ulps long at large `|k·D|`), or, for an end at `D`, its
    /// begin rounds past `(k+1)·D`. Such an occurrence still begins before it ends at one
    /// time: its end fires after the begins at that time (rank 3). `>=` keeps the rank
    /// monotone along one marker's cycles at one time (the general path's streams rely on it).
    #[inline]
    fn collapsed(&self, w: u32, k: i64) -> bool {
        let d = self.duration;
        let Some(&(b, e)) = self.windows.get(w as usize) else {
            return false;
        };
        let end = if e == d {
            match k.checked_add(1) {
                Some(n) => canonical_time(d, 0.0, n),
                None => return false,
            }
        } else {
            canonical_time(d, e, k)
        };
        canonical_time(d, b, k) >= end
    }

    /// The firing order of two crossings of one looping (`looping`) query: as
    /// [`Crossing::firing_cmp`], except that the end of a collapsed occurrence
    /// ([`NotifyIndex::collapsed`]) fires after the begins at its time.
    fn order(&self, x: &Crossing, y: &Crossing, reverse: bool, looping: bool) -> Ordering {
        let rank = |c: &Crossing| match c.edge {
            Some(Edge::End) if looping && self.collapsed(c.notify, c.cycle) => 3,
            _ => c.rank(),
        };
        let t = x.time.partial_cmp(&y.time).unwrap_or(Ordering::Equal);
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

    /// Reverse departure test of group `g` of `lay` at canonical time `t`.
    #[inline(always)]
    fn departs_rev(&self, dep: &Bound, g: usize, t: f64) -> bool {
        t < dep.x || (t == dep.x && dep.inclusive && !(dep.skip_loop_point && g < self.zero_groups))
    }

    /// A `Start` at `at` inside a window occurrence opens it: a begin at `at` (clip time: `at`'s,
    /// within the window), unless the occurrence's entering edge is exactly at `at` and already
    /// fired. Merges those begins into `out` (the scan's crossings, `truncated` its flag) in
    /// firing order and under `limit`; returns the final `truncated`. O(windows) per `Start`.
    fn start_begins(
        &self,
        plan: &Plan,
        out: &mut Vec<Crossing>,
        limit: usize,
        mut truncated: bool,
    ) -> bool {
        let d = self.duration;
        let at = plan.dep.x + 0.0;
        let mut opened: Vec<Crossing> = Vec::new();
        for (i, &(b, e)) in self.windows.iter().enumerate() {
            let mut open = |k: i64| {
                let clip = (at - cycle_base(d, k)).clamp(b, e);
                opened.push(Crossing {
                    notify: i as u32,
                    edge: Some(Edge::Begin),
                    time: at,
                    clip_time: clip,
                    cycle: k,
                });
            };
            if !plan.looping {
                // Forward the begin edge at `at` fires by itself; in reverse so does the end.
                if b < at && at < e {
                    open(0);
                }
                continue;
            }
            // The occurrence containing `at` is the last one beginning before it (or, when
            // rounding blurs huge times, the one before that).
            let guess = ((at - b) * self.inv_duration).floor() as i64;
            let Some(last) = general::last_true(|k| canonical_time(d, b, k) < at, guess) else {
                continue;
            };
            for k in [last.checked_sub(1), Some(last)].into_iter().flatten() {
                // `None`: an end beyond the last cycle, which never comes.
                let end = if e == d {
                    k.checked_add(1).map(|n| canonical_time(d, 0.0, n))
                } else {
                    Some(canonical_time(d, e, k))
                };
                let inside = end.is_none_or(|end| at < end);
                // In reverse, a loop-point end exactly at `at` is a zero marker the loop-point
                // rule keeps from firing: the start opens the window itself.
                let on_loop_end = plan.reverse && e == d && end == Some(at);
                if canonical_time(d, b, k) < at && (inside || on_loop_end) {
                    open(k);
                }
            }
        }
        if opened.is_empty() {
            return truncated;
        }
        let order = |x: &Crossing, y: &Crossing| self.order(x, y, plan.reverse, plan.looping);
        opened.sort_by(order);
        let mut pos = 0;
        for c in opened {
            while pos < out.len() && order(&out[pos], &c) == Ordering::Less {
                pos += 1;
            }
            if pos >= limit {
                return true;
            }
            if out.len() == limit {
                out.pop();
                truncated = true;
            }
            out.insert(pos, c);
            pos += 1;
        }
        truncated
    }
}

fn finite(field: &'static str, value: f64) -> Result<(), QueryError> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(QueryError::NonFinite { field, value })
    }
}
