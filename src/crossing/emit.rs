//! Emission of crossings: one group of markers, the fast path's walk through one cycle over the
//! decoded slots (forward and reverse), and the non-looping query (cycle 0 only).

use super::*;

impl NotifyIndex {
    /// Appends group `g` of `lay` in cycle `k` (canonical time `t`), at most `*room` crossings,
    /// in forward (`REV == false`) or reverse firing order, for an index of mode `M`
    /// ([`LOOP_ENDS`]: group 0 holds the loop-point ends).
    /// Returns false when the group did not fit entirely (the query is then truncated).
    #[inline(always)]
    pub(super) fn emit<const REV: bool, const M: u8>(
        &self,
        lay: &Layout,
        out: &mut Vec<Crossing>,
        room: &mut usize,
        g: usize,
        k: i64,
        t: f64,
    ) -> bool {
        let s = lay.group_start[g] as usize;
        let e = lay.group_start[g + 1] as usize;
        let slots = if REV {
            let n = lay.rev_slots.len();
            &lay.rev_slots[n - e..n - s]
        } else {
            &lay.fwd_slots[s..e]
        };
        // The loop-point ends report their occurrence: the cycle before, at clip time D.
        let (clip_time, cycle) = if M == LOOP_ENDS && g == 0 {
            (self.duration, k - 1)
        } else {
            (lay.times[g], k)
        };
        for slot in slots {
            if *room == 0 {
                return false;
            }
            *room -= 1;
            out.push(Crossing {
                notify: slot.notify,
                edge: if M == POINTS { None } else { slot.edge },
                time: t,
                clip_time,
                cycle,
            });
        }
        true
    }

    /// Appends the crossings of cycle `k` (base `b`) forward from group `g` up to `to`
    /// (included), at most `limit` of them; returns `truncated`. One walk over the decoded
    /// markers: per crossing one time test and one push.
    #[inline(always)]
    pub(super) fn walk_fwd<const M: u8>(
        &self,
        out: &mut Vec<Crossing>,
        limit: usize,
        mut g: usize,
        k: i64,
        b: f64,
        to: f64,
    ) -> bool {
        let lay = &self.lay;
        let mut room = limit;
        if M == LOOP_ENDS && g == 0 {
            let t = b + lay.times[0];
            if t > to {
                return false;
            }
            if !self.emit::<false, M>(lay, out, &mut room, 0, k, t) {
                return true;
            }
            g = 1;
        }
        let slots = &lay.fwd_slots[lay.group_start[g] as usize..];
        let fit = slots.len().min(room);
        for s in &slots[..fit] {
            let t = b + s.time;
            if t > to {
                return false;
            }
            out.push(Crossing {
                notify: s.notify,
                edge: if M == POINTS { None } else { s.edge },
                time: t,
                clip_time: s.time,
                cycle: k,
            });
        }
        // Stopped by the limit: truncated when the next marker fires too.
        slots.get(fit).is_some_and(|s| b + s.time <= to)
    }

    /// Appends the crossings of cycle `k` (base `b`) backwards from group `na - 1` down to `to`
    /// (included), at most `limit` of them; returns `truncated`.
    #[inline(always)]
    pub(super) fn walk_rev<const M: u8>(
        &self,
        out: &mut Vec<Crossing>,
        limit: usize,
        na: usize,
        k: i64,
        b: f64,
        to: f64,
    ) -> bool {
        let lay = &self.lay;
        let n = lay.rev_slots.len();
        // Under LOOP_ENDS group 0 (the loop-point ends, reported in the cycle before) is
        // emitted on its own after the walk.
        let low = if M == LOOP_ENDS { na.min(1) } else { 0 };
        let slots =
            &lay.rev_slots[n - lay.group_start[na] as usize..n - lay.group_start[low] as usize];
        let fit = slots.len().min(limit);
        for s in &slots[..fit] {
            let t = b + s.time;
            if t < to {
                return false;
            }
            out.push(Crossing {
                notify: s.notify,
                edge: if M == POINTS { None } else { s.edge },
                time: t,
                clip_time: s.time,
                cycle: k,
            });
        }
        if let Some(s) = slots.get(fit) {
            return b + s.time >= to;
        }
        if low == 1 {
            let t = b + lay.times[0];
            if t < to {
                return false;
            }
            let mut room = limit - fit;
            return !self.emit::<true, M>(lay, out, &mut room, 0, k, t);
        }
        false
    }

    /// Non-looping: only cycle 0, where `T == t` exactly.
    pub(super) fn single_cycle(&self, plan: &Plan, out: &mut Vec<Crossing>, limit: usize) -> bool {
        let lay = self.once.as_ref().unwrap_or(&self.lay);
        let base = cycle_base(self.duration, 0);
        let ng = lay.times.len();
        let mut room = limit;
        // The departure tests' group arguments only matter for looping (skip_loop_point is
        // false here).
        if plan.reverse {
            let hi = lay
                .times
                .partition_point(|&t| self.departs_rev(&plan.dep, usize::MAX, base + t));
            for g in (0..hi).rev() {
                let t = base + lay.times[g];
                if t < plan.arr {
                    break;
                }
                if !self.emit::<true, EDGES_ONLY>(lay, out, &mut room, g, 0, t) {
                    return true;
                }
            }
        } else {
            let lo = lay
                .times
                .partition_point(|&t| !self.departs_fwd(&plan.dep, 0, base + t));
            for g in lo..ng {
                let t = base + lay.times[g];
                if t > plan.arr {
                    break;
                }
                if !self.emit::<false, EDGES_ONLY>(lay, out, &mut room, g, 0, t) {
                    return true;
                }
            }
        }
        false
    }
}
