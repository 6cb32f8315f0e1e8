//! The general path of crossing queries: correct for any magnitude (cycles that share one
//! canonical time, distinct clip times that round together, `T = ±∞`), at the cost of a heap of
//! one stream per marker. Also the monotone searches over `i64` cycles it is built on.

use super::*;
use std::collections::BinaryHeap;

impl NotifyIndex {
    /// General path: per group, the contiguous range of cycles that fire (canonical `T` is
    /// monotone in `k`), found by exponential search from a division estimate then bisection,
    /// over all of `i64`; then a heap merge of the markers' streams in firing order. Correct for
    /// any magnitude; O(groups · log |error of the estimate| + (n + crossings) · log n).
    pub(super) fn general(&self, plan: &Plan, out: &mut Vec<Crossing>, limit: usize) -> bool {
        let d = self.duration;
        let dep = &plan.dep;
        let to = plan.arr;
        let lay = &self.lay;
        let mut heap = BinaryHeap::with_capacity(lay.fwd.len());
        for (g, &t) in lay.times.iter().enumerate() {
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
            let Some((mut lo, hi)) = range else { continue };
            // The loop-point window ends sit in the next cycle: an end of cycle `i64::MIN - 1`
            // does not exist.
            let shift = i64::from(self.mode == LOOP_ENDS && g == 0);
            if shift == 1 {
                lo = lo.max(i64::MIN + 1);
            }
            if lo > hi {
                continue;
            }
            let s = lay.group_start[g] as usize;
            let e = lay.group_start[g + 1] as usize;
            for &marker in &lay.fwd[s..e] {
                let k = if plan.reverse { hi } else { lo };
                heap.push(Head {
                    time: at(k),
                    cycle: k,
                    shift,
                    rank: self.rank(marker, plan.reverse, k - shift),
                    marker,
                    group: g as u32,
                    stop: if plan.reverse { lo } else { hi },
                    reverse: plan.reverse,
                });
            }
        }
        let mut room = limit;
        let edges = &EDGES[usize::from(plan.reverse)];
        while let Some(head) = heap.pop() {
            if room == 0 {
                return true;
            }
            room -= 1;
            let group_time = lay.times[head.group as usize];
            out.push(Crossing {
                notify: head.marker & INDEX_MASK,
                edge: edges[(head.marker >> TAG_SHIFT) as usize],
                time: head.time,
                clip_time: if head.shift == 1 { d } else { group_time },
                cycle: head.cycle - head.shift,
            });
            if head.cycle != head.stop {
                let k = if head.reverse {
                    head.cycle - 1
                } else {
                    head.cycle + 1
                };
                heap.push(Head {
                    time: canonical_time(d, group_time, k),
                    cycle: k,
                    rank: self.rank(head.marker, head.reverse, k - head.shift),
                    ..head
                });
            }
        }
        false
    }
}

impl NotifyIndex {
    /// Where a marker of occurrence `k` fires among others at one canonical time: 0 ends,
    /// 1 point notifies, 2 begins (a begin marker crossed in reverse is an end, and an end
    /// marker a begin), 3 the end of a collapsed occurrence (after its own begin).
    #[inline]
    fn rank(&self, marker: u32, reverse: bool, k: i64) -> u8 {
        match (marker >> TAG_SHIFT, reverse) {
            (TAG_POINT, _) => 1,
            (TAG_BEGIN, false) | (TAG_END | TAG_LOOP_END, true) => 2,
            _ if self.collapsed(marker & INDEX_MASK, k) => 3,
            _ => 0,
        }
    }
}

/// Smallest `k` in `i64` with `p(k)`, for `p` monotone false → true: exponential search out
/// from `guess`, then bisection. O(log |answer − guess|) evaluations, at most about 128.
pub(super) fn first_true(p: impl Fn(i64) -> bool, guess: i64) -> Option<i64> {
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
pub(super) fn last_true(p: impl Fn(i64) -> bool, guess: i64) -> Option<i64> {
    match first_true(|k| !p(k), guess) {
        None => Some(i64::MAX),
        Some(i64::MIN) => None,
        Some(k) => Some(k - 1),
    }
}

/// The next occurrence of one marker's stream in the general path's merge heap.
#[derive(Clone, Copy)]
struct Head {
    time: f64,
    /// The cycle the marker sits in (the occurrence's cycle plus `shift`).
    cycle: i64,
    /// 1 for a loop-point window end (it sits at time 0 of the cycle after its occurrence).
    shift: i64,
    rank: u8,
    marker: u32,
    group: u32,
    /// Last cycle of the stream.
    stop: i64,
    reverse: bool,
}

impl Head {
    /// Firing order: forward ascending (T, rank, k, index); reverse descending T, ascending
    /// rank, descending k, ascending index (`k` the occurrence's cycle). `Less` fires first.
    fn firing_cmp(&self, other: &Head) -> Ordering {
        // Canonical times are never NaN (finite D and t, cycles from i64).
        let t = self
            .time
            .partial_cmp(&other.time)
            .unwrap_or(Ordering::Equal);
        let k = (self.cycle - self.shift).cmp(&(other.cycle - other.shift));
        let (t, k) = if self.reverse {
            (t.reverse(), k.reverse())
        } else {
            (t, k)
        };
        t.then(self.rank.cmp(&other.rank))
            .then(k)
            .then((self.marker & INDEX_MASK).cmp(&(other.marker & INDEX_MASK)))
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
