//! Building a [`NotifyIndex`]: validation, the marker layouts (groups by clip time, each in
//! forward and reverse firing order), the search buckets and the fast-regime bound.

use super::*;

/// One marker while a layout is built.
struct Entry {
    time: f64,
    /// A looping window end at `D`, placed at time 0 in a group of its own.
    loop_end: bool,
    fwd_rank: u8,
    rev_rank: u8,
    marker: u32,
}

impl Layout {
    fn build(mut entries: Vec<Entry>) -> Layout {
        let index = |e: &Entry| e.marker & INDEX_MASK;
        entries.sort_by(|a, b| {
            a.time
                .total_cmp(&b.time)
                .then(b.loop_end.cmp(&a.loop_end))
                .then(a.fwd_rank.cmp(&b.fwd_rank))
                .then(index(a).cmp(&index(b)))
        });
        let mut times = Vec::new();
        let mut group_start = Vec::new();
        let mut fwd = Vec::with_capacity(entries.len());
        let mut prev: Option<(f64, bool)> = None;
        for (pos, e) in entries.iter().enumerate() {
            if prev != Some((e.time, e.loop_end)) {
                prev = Some((e.time, e.loop_end));
                times.push(e.time);
                group_start.push(pos as u32);
            }
            fwd.push(e.marker);
        }
        group_start.push(entries.len() as u32);
        let slot = |g: usize, marker: u32, reverse: bool| Slot {
            time: times[g],
            notify: marker & INDEX_MASK,
            edge: EDGES[usize::from(reverse)][(marker >> TAG_SHIFT) as usize],
        };
        let fwd_slots = (0..times.len())
            .flat_map(|g| {
                let markers = &fwd[group_start[g] as usize..group_start[g + 1] as usize];
                markers.iter().map(move |&m| slot(g, m, false))
            })
            .collect();
        let mut rev_slots = Vec::with_capacity(entries.len());
        for g in (0..times.len()).rev() {
            let mut group: Vec<&Entry> = entries
                [group_start[g] as usize..group_start[g + 1] as usize]
                .iter()
                .collect();
            group.sort_by(|a, b| a.rev_rank.cmp(&b.rev_rank).then(index(a).cmp(&index(b))));
            rev_slots.extend(group.iter().map(|e| slot(g, e.marker, true)));
        }
        Layout {
            times,
            group_start,
            fwd,
            fwd_slots,
            rev_slots,
        }
    }
}

impl NotifyIndex {
    /// Builds the index of a sequence with point notifies at `times` and windows
    /// `windows[i] = (begin, end)` (authored order; `0 ≤ begin < end ≤ duration`).
    pub fn with_windows(
        duration: f64,
        times: &[f64],
        windows: &[(f64, f64)],
    ) -> Result<NotifyIndex, IndexError> {
        if !(duration.is_finite() && duration > 0.0) {
            return Err(IndexError::InvalidDuration(duration));
        }
        if times.len() > MAX_MARKERS {
            return Err(IndexError::TooManyNotifies(times.len()));
        }
        if windows.len() > MAX_MARKERS {
            return Err(IndexError::TooManyWindows(windows.len()));
        }
        let in_clip = |t: f64| t.is_finite() && (0.0..=duration).contains(&t);
        for (i, &t) in times.iter().enumerate() {
            if !in_clip(t) {
                return Err(IndexError::InvalidTime {
                    notify: i,
                    time: t,
                    duration,
                });
            }
        }
        for (i, &(begin, end)) in windows.iter().enumerate() {
            if !(in_clip(begin) && in_clip(end) && begin < end) {
                return Err(IndexError::InvalidWindow {
                    window: i,
                    begin,
                    end,
                    duration,
                });
            }
        }
        // `+ 0.0` turns a -0.0 clip time into +0.0 (the same instant, printed without a sign).
        let entries = |looping: bool| -> Vec<Entry> {
            let points = times.iter().enumerate().map(|(i, &t)| Entry {
                time: t + 0.0,
                loop_end: false,
                fwd_rank: 1,
                rev_rank: 1,
                marker: TAG_POINT << TAG_SHIFT | i as u32,
            });
            let edges = windows.iter().enumerate().flat_map(|(i, &(b, e))| {
                let i = i as u32;
                let loop_end = looping && e == duration;
                [
                    Entry {
                        time: b + 0.0,
                        loop_end: false,
                        fwd_rank: 2,
                        rev_rank: 0,
                        marker: TAG_BEGIN << TAG_SHIFT | i,
                    },
                    Entry {
                        time: if loop_end { 0.0 } else { e },
                        loop_end,
                        fwd_rank: 0,
                        rev_rank: 2,
                        marker: if loop_end { TAG_LOOP_END } else { TAG_END } << TAG_SHIFT | i,
                    },
                ]
            });
            points.chain(edges).collect()
        };
        let lay = Layout::build(entries(true));
        let once = windows
            .iter()
            .any(|&(_, e)| e == duration)
            .then(|| Layout::build(entries(false)));
        let uniq = &lay.times;
        let mut min_gap = uniq
            .windows(2)
            .map(|w| w[1] - w[0])
            .filter(|&g| g > 0.0)
            .fold(f64::INFINITY, f64::min);
        // Across the loop point the fast merge breaks a tie of canonical times by cycle, which
        // is the firing order of point notifies but not of edges (ends, points, begins). With
        // windows, the fast regime therefore also keeps the last and first clip times apart
        // (exact loop points, `t = D` and `t = 0`, are ordered by the tie rules of the merge).
        if let (false, Some(&first), Some(&last)) = (windows.is_empty(), uniq.first(), uniq.last())
        {
            let wrap = (duration - last) + first;
            if wrap > 0.0 {
                min_gap = min_gap.min(wrap);
            }
        }
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
        // About four buckets per group, so most hold no group or one and the search rarely
        // bisects; above 1024 groups one per group (the table stays small beside `times`).
        let nb = (4 * uniq.len())
            .next_power_of_two()
            .min(1 << 12)
            .max(uniq.len().next_power_of_two())
            .min(1 << 16);
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
        let zero_groups = uniq.iter().take_while(|&&t| t == 0.0).count();
        let zero_ends = lay
            .fwd
            .first()
            .is_some_and(|&m| m >> TAG_SHIFT == TAG_LOOP_END);
        Ok(NotifyIndex {
            buckets,
            bucket_scale: nb as f64 / duration,
            bucket_shift: nb.trailing_zeros(),
            bucket_mask: nb as i64 - 1,
            fast_xs_limit: FAST_CYCLES * 2.0 * nb as f64,
            duration,
            inv_duration: 1.0 / duration,
            has_end: uniq.last() == Some(&duration),
            zero_groups,
            lead: zero_groups.max(1),
            mode: match (windows.is_empty(), zero_ends) {
                (true, _) => POINTS,
                (false, false) => EDGES_ONLY,
                (false, true) => LOOP_ENDS,
            },
            fast_limit,
            lay,
            once,
            windows: windows.iter().map(|&(b, e)| (b + 0.0, e)).collect(),
            notifies: times.len(),
        })
    }
}
