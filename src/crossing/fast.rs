//! The fast path of crossing queries (looping, moderate unwrapped times): a bucketed search for
//! the first departing group, then a merge of two consecutive cycles. See `docs/crossings.md`,
//! "Algorithm".

use super::*;

impl NotifyIndex {
    /// First group `g` of the cycle with base `b` whose time `b + t_g > x` (`STRICT`) or
    /// `b + t_g >= x` (otherwise); `ng` if none.
    /// `j` is the bucket where `x` is expected; it only picks where the search starts, every
    /// decision compares canonical times.
    #[inline(always)]
    fn lower_bound<const STRICT: bool>(&self, b: f64, x: f64, j: usize) -> usize {
        let below = |t: f64| if STRICT { t <= x } else { t < x };
        let u = &self.lay.times;
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
    /// `T >= x` except, under `skip_end`, the end markers at `T == x`: the group at `D` and,
    /// under [`LOOP_ENDS`], group 0 — the window ends at `D` of the cycle before).
    #[inline(always)]
    fn first_fwd<const STRICT: bool, const M: u8>(
        &self,
        b: f64,
        x: f64,
        skip_end: bool,
        j: usize,
    ) -> usize {
        let g = self.lower_bound::<STRICT>(b, x, j);
        let u = &self.lay.times;
        if skip_end && self.has_end && g + 1 == u.len() && b + u[g] == x {
            g + 1
        } else if M == LOOP_ENDS && skip_end && g == 0 && b + u[0] == x {
            // The zero markers of this cycle (group 1 on) still fire: only one group stays.
            1
        } else {
            g
        }
    }

    /// Number of leading groups of the cycle with base `b` that depart in reverse (`T <= x` if
    /// `INCLUSIVE`, except the zero groups at `T == x` under `skip_zero`; else `T < x`).
    #[inline(always)]
    fn count_rev<const INCLUSIVE: bool>(&self, b: f64, x: f64, skip_zero: bool, j: usize) -> usize {
        let c = self.lower_bound::<INCLUSIVE>(b, x, j);
        // Under the loop-point rule every group at clip time 0 stays behind; in the fast regime
        // those are exactly the groups with `T == x` when the first one has it.
        if skip_zero && c >= 1 && b + self.lay.times[0] == x {
            0
        } else {
            c
        }
    }

    /// Fast forward merge of two consecutive cycles. `None`: hand over to the general path.
    pub(super) fn fast_forward<const STRICT: bool, const M: u8>(
        &self,
        plan: &Plan,
        out: &mut Vec<Crossing>,
        limit: usize,
    ) -> Option<bool> {
        let d = self.duration;
        let u = &self.lay.times;
        let ng = u.len();
        let last = ng - 1;
        let x = plan.dep.x;
        // Departure test: `T > from` (STRICT), or `T >= at` with the loop-point exception: a
        // looping Start does not fire the end group at `T == at`.
        let skip_end = !STRICT && plan.dep.skip_loop_point;
        let last_departs = |t: f64| {
            if STRICT {
                t > x
            } else {
                t >= x && !(skip_end && self.has_end && t == x)
            }
        };
        // Cursor A: the first cycle k whose last group departs (cycles before it fire nothing:
        // T is monotone in k, and within a cycle in the group order), at its first departing
        // group ga. The division only estimates k; canonical times decide. Cycle k - 1 can only
        // depart when ga <= lead: otherwise group `lead` (the first at a clip time > 0, or 1)
        // does not, and T(lead, k) >= T(last, k - 1) in the fast regime.
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
        let mut ga = self.first_fwd::<STRICT, M>(ba, x, skip_end, j0);
        let mut steps = 0;
        loop {
            if ga == ng {
                k += 1;
            } else if ga <= if M == LOOP_ENDS { self.lead } else { 1 }
                && last_departs(canonical_time(d, u[last], k - 1))
            {
                k -= 1;
            } else {
                break;
            }
            ba = cycle_base(d, k);
            ga = self.first_fwd::<STRICT, M>(ba, x, skip_end, self.bucket_of(x - ba));
            steps += 1;
            if steps > MAX_ADJUST {
                return None;
            }
        }
        let to = plan.arr;
        // B is resolved lazily: its head is at least `bb + u[0]`, so while that is not below
        // A's head, A fires first (equal times: the lower cycle first) without searching B —
        // except B's group of window ends at the loop point, which fires before A's end group
        // at an equal time (ends before points).
        let zero_ends = M == LOOP_ENDS;
        let mut bb = cycle_base(d, k + 1);
        if bb + u[0] > to {
            // Nothing of cycle k + 1 (nor later) fires: the common short update is one walk
            // through cycle k.
            return Some(self.walk_fwd::<M>(out, limit, ga, k, ba, to));
        }
        let mut room = limit;
        let mut gb = UNRESOLVED;
        loop {
            if ga == ng {
                k += 1;
                ba = bb;
                ga = if gb == UNRESOLVED {
                    self.first_fwd::<STRICT, M>(ba, x, skip_end, self.bucket_of(x - ba))
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
            if gb == UNRESOLVED && (bb + u[0] < ta || (zero_ends && bb + u[0] == ta)) {
                gb = self.first_fwd::<STRICT, M>(bb, x, skip_end, self.bucket_of(x - bb));
            }
            if gb < ng && (bb + u[gb] < ta || (zero_ends && gb == 0 && bb + u[0] == ta)) {
                let tb = bb + u[gb];
                if tb > to {
                    return Some(false);
                }
                if !self.emit::<false, M>(&self.lay, out, &mut room, gb, k + 1, tb) {
                    return Some(true);
                }
                gb += 1;
            } else {
                if ta > to {
                    return Some(false);
                }
                if !self.emit::<false, M>(&self.lay, out, &mut room, ga, k, ta) {
                    return Some(true);
                }
                ga += 1;
            }
        }
    }

    /// Fast reverse merge of two consecutive cycles. `None`: hand over to the general path.
    pub(super) fn fast_reverse<const INCLUSIVE: bool, const M: u8>(
        &self,
        plan: &Plan,
        out: &mut Vec<Crossing>,
        limit: usize,
    ) -> Option<bool> {
        let d = self.duration;
        let u = &self.lay.times;
        let x = plan.dep.x;
        // Reverse departure test: `T < from`, or `T <= at` (INCLUSIVE) with the loop-point
        // exception: a looping Start in reverse does not fire the zero group at `T == at`.
        let skip_zero = INCLUSIVE && plan.dep.skip_loop_point && self.zero_groups > 0;
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
        // B is resolved lazily: its head is at most `bb + u[last]`. On equal times A (the higher
        // cycle) fires first, except A's group of window ends at the loop point (begins when
        // crossed in reverse), which fires after B's end group.
        let last = ng - 1;
        let zero_ends = M == LOOP_ENDS;
        let mut bb = cycle_base(d, k - 1);
        if bb + u[last] < to {
            // Nothing of cycle k - 1 (nor earlier) fires: one walk back through cycle k.
            return Some(self.walk_rev::<M>(out, limit, na, k, ba, to));
        }
        let mut room = limit;
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
            let a_last = zero_ends && na == 1;
            if nb == UNRESOLVED && (bb + u[last] > ta || (a_last && bb + u[last] == ta)) {
                nb = self.count_rev::<INCLUSIVE>(bb, x, skip_zero, self.bucket_of(x - bb));
            }
            // Equal times: the higher cycle (A) fires first.
            if nb != UNRESOLVED
                && nb > 0
                && (bb + u[nb - 1] > ta || (a_last && bb + u[nb - 1] == ta))
            {
                let tb = bb + u[nb - 1];
                if tb < to {
                    return Some(false);
                }
                if !self.emit::<true, M>(&self.lay, out, &mut room, nb - 1, k - 1, tb) {
                    return Some(true);
                }
                nb -= 1;
            } else {
                if ta < to {
                    return Some(false);
                }
                if !self.emit::<true, M>(&self.lay, out, &mut room, na - 1, k, ta) {
                    return Some(true);
                }
                na -= 1;
            }
        }
    }
}
