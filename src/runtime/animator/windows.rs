//! Window bookkeeping and gating: which crossings of an update are published.
//!
//! Every clip instance (one clip of a state's motion, or a layer's playhead) keeps the windows
//! it opened ([`OpenWindow`], closed when it starts). After each update
//! ([`Animator::evaluate_fires`]):
//!
//! 1. Each instance's crossings are judged in firing order: a point notify or a begin fires
//!    only where marker filtering lets the instance fire, its effective weight reaches the
//!    marker's `weight_threshold` (a begin also needs weight `> 0`) and the chance draw
//!    passes; a begin opens a closed window, an end closes an open one (`completed: true`),
//!    whether or not the instance may fire (filtering applies to begins only). An edge that
//!    finds the window already in that state publishes nothing.
//! 2. A seek checks the instance's open windows against where it landed: outside, the window
//!    ends (`completed: false`); inside, it stays open (at the occurrence it landed in).
//! 3. Every open window whose instance is gone (state left, crossfade done, layer stopped or
//!    replaced, clip replaced) or whose effective weight is 0 or below the threshold ends now,
//!    with `completed: false`, the clip time and weight at the cut and its occurrence's cycle.
//!    After an update every open window passes that test, so an update whose live instances
//!    and weights are bit for bit the last update's skips it without looking at the windows:
//!    a settled update (no command, crossfade, layer fade, transition, stopped clip or change
//!    from outside: `advance` knows) without comparing, any other after comparing the list.
//!
//! An open window is not touched by the updates that move its instance: a cut reports where
//! the instance stood after the last update that moved it, read from that update's intervals
//! (this update's [`Fire`]s, else the last moving update's, which the animator keeps while
//! windows are open).
//!
//! Removing the animator (or despawning its entity) ends every open window
//! ([`Animator::cut_all`]).

use bevy_ecs::prelude::*;

use super::Animator;
use super::clip::{Clip, draw};
use super::playback::{Base, Fire, Layer, Motion, instance_key};
use super::system::{AnimatorRecord, Fired};
use crate::crossing::{Crossing, DEFAULT_LIMIT, Edge, PlaybackInterval};

/// A window an instance opened and has not closed.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct OpenWindow {
    /// The clip instance ([`instance_key`]).
    pub(super) instance: u64,
    pub(super) slot: usize,
    /// Index in the clip's windows.
    pub(super) window: u32,
    /// The occurrence's cycle.
    pub(super) cycle: i64,
    /// Where the window opened: unwrapped time, whether the instance loops, weight (what a
    /// cut reports when no interval of its instance is kept).
    pub(super) time: f64,
    pub(super) looping: bool,
    pub(super) weight: f64,
    /// The window's `weight_threshold` (kept here: the cut checks run every update).
    pub(super) threshold: f64,
}

/// Where a clip instance stood when one of its windows is cut: unwrapped time (its clip time
/// is derived only at the cut), whether it loops, effective weight.
#[derive(Debug, Clone, Copy)]
struct Stood {
    time: f64,
    looping: bool,
    weight: f64,
}

/// Where `o`'s instance stood after the last update that moved it: its interval's end in
/// `fires` (this update's intervals), else in `before` (the last moving update's), else where
/// the window opened.
fn stood(o: &OpenWindow, fires: &[Fire], before: &[Fire]) -> Stood {
    let moved = fires
        .iter()
        .chain(before)
        .find(|f| f.instance == o.instance);
    match moved.and_then(|f| bounds(&f.interval).map(|(_, to, looping)| (to, looping, f))) {
        Some((time, looping, f)) => Stood {
            time,
            looping,
            weight: f.weight,
        },
        None => Stood {
            time: o.time,
            looping: o.looping,
            weight: o.weight,
        },
    }
}

/// The clip time of unwrapped time `t` on a clip of `duration` seconds.
fn clip_time_of(t: f64, duration: f64, looping: bool) -> f64 {
    if !(duration.is_finite() && duration > 0.0 && t.is_finite()) {
        return 0.0;
    }
    if looping {
        t.rem_euclid(duration)
    } else {
        t.clamp(0.0, duration)
    }
}

/// Where an interval starts and ends, and whether it loops (`None` for `Seek`/`Paused`).
fn bounds(i: &PlaybackInterval) -> Option<(f64, f64, bool)> {
    match *i {
        PlaybackInterval::Advance { from, to, looping } => Some((from, to, looping)),
        PlaybackInterval::Start { at, to, looping } => Some((at, to, looping)),
        PlaybackInterval::Seek | PlaybackInterval::Paused => None,
    }
}

/// Every clip instance alive after the update, with its effective weight (crossfade ×
/// blend-tree × layer weight, as the pose uses them), in order, to `put`.
#[inline(always)]
fn each_live(base: &Option<Base>, layers: &[Layer], mut put: impl FnMut(u64, f64)) {
    let mut motion = |m: &Motion, side: f64| {
        for lf in &m.leaves {
            put(instance_key(m.id, lf.clip), side * f64::from(lf.weight));
        }
    };
    if let Some(b) = base {
        let incoming = b.fade.as_ref().map_or(1.0, |f| f.weight_in(f.elapsed()));
        motion(&b.current, incoming);
        if let Some(f) = &b.fade {
            motion(&f.from, 1.0 - incoming);
        }
    }
    for l in layers {
        let fade_in = match &l.fade {
            Some(f) if f.duration > 0.0 => f.weight_in(f.elapsed()),
            _ => 1.0,
        };
        if let Some(p) = &l.clip {
            put(instance_key(p.id, p.slot), l.weight * fade_in);
        }
        if let Some(f) = &l.fade {
            put(
                instance_key(f.from.id, f.from.slot),
                l.weight * (1.0 - fade_in),
            );
        }
    }
}

impl Animator {
    /// Gives the chance draws their key: the scene's `seed` and the entity's scene name (an
    /// embedding game passes any stable name per animator). Without a key, the key is that of
    /// seed 0 and name `""`.
    pub fn set_chance_key(&mut self, seed: u64, name: &str) {
        let mut bytes = seed.to_le_bytes().to_vec();
        bytes.extend_from_slice(name.as_bytes());
        self.chance_key = super::clip::stable_hash(&bytes);
    }

    /// The clip instances alive after the update, with their effective weights, into
    /// `self.live` ([`each_live`]). With `compare`, the list is rewritten in place and the
    /// result says whether it differs from the last update's, bit for bit (an equal list gives
    /// every use the same weights, `-0.0` and NaN included); without, the result is `true`.
    #[inline(always)]
    fn collect_live(&mut self, compare: bool) -> bool {
        let live = &mut self.live;
        if !compare {
            live.clear();
            each_live(&self.base, &self.layers, |i, w| live.push((i, w)));
            return true;
        }
        let (old, mut n, mut changed) = (live.len(), 0, false);
        each_live(&self.base, &self.layers, |i, w| {
            match live.get_mut(n) {
                Some(e) => {
                    changed |= (e.0 != i) | (e.1.to_bits() != w.to_bits());
                    *e = (i, w);
                }
                None => live.push((i, w)),
            }
            n += 1;
        });
        live.truncate(n);
        changed | (n != old)
    }

    /// With windows open: whether a cut pass must run before this update's intervals (an open
    /// window's instance gone and not in `fires`) and after them (gone, or its weight 0 or
    /// below the window's threshold).
    #[inline(never)]
    fn cut_passes(&self, fires: &[Fire]) -> (bool, bool) {
        let (mut before, mut after) = (false, false);
        for o in &self.open {
            match self.live_weight(o.instance) {
                Some(w) => after |= !(w > 0.0 && w >= o.threshold),
                None => {
                    after = true;
                    before |= !fires.iter().any(|f| f.instance == o.instance);
                }
            }
        }
        (before, after)
    }

    #[inline]
    fn live_weight(&self, instance: u64) -> Option<f64> {
        self.live
            .iter()
            .find(|(i, _)| *i == instance)
            .map(|&(_, w)| w)
    }

    /// Whether open window `o` ends now: before this update's intervals (`Some(fires)`), when
    /// its instance is gone and was not moved; after them, when its instance is gone or its
    /// weight is 0 or below the window's threshold.
    #[inline]
    fn ends(&self, o: &OpenWindow, before: Option<&[Fire]>) -> bool {
        let live = self.live_weight(o.instance);
        match before {
            Some(fires) => live.is_none() && !fires.iter().any(|f| f.instance == o.instance),
            None => !live.is_some_and(|w| w > 0.0 && w >= o.threshold),
        }
    }

    /// Judges the last update's crossings and window state (see the module docs): published
    /// crossings go to `fired`, truncation and query errors to `errors`.
    pub(super) fn evaluate_fires(
        &mut self,
        owner: Entity,
        crossings: &mut Vec<Crossing>,
        fired: &mut Vec<AnimatorRecord>,
        errors: &mut Vec<AnimatorRecord>,
    ) {
        // With windows open, an update that is not settled (`advance`) compares the live list
        // with the last update's as it is made; a settled one has the last update's list.
        // Debug builds compare on every update and check that a settled one changed nothing.
        let open = !self.open.is_empty();
        let settled = open && self.settled;
        let changed = self.collect_live(open && (cfg!(debug_assertions) || !settled));
        debug_assert!(
            !(settled && changed),
            "a settled update changed the live clip instances or their weights"
        );
        let mut fires = std::mem::take(&mut self.fires);
        // Instances gone before this update moved them (a state left at once, a layer stopped
        // or replaced) end first, so a clip started in their place begins after they end.
        // The common update ends nothing: `cut_passes` decides whether either cut pass (both
        // out of line) runs. The weights are this update's already, and a window
        // opened by this update's begins has a weight > 0 at or above its threshold, so only
        // the windows open now can need the second pass. After every update each open window's
        // instance is alive at a weight > 0 and at or above the window's threshold (what fails
        // is cut), so while the live list is the last update's, neither pass runs and the open
        // windows are not looked at.
        let (before, after) = if open && !settled && changed {
            self.cut_passes(&fires)
        } else {
            // The invariant the skip rests on.
            debug_assert!(!open || self.cut_passes(&fires) == (false, false));
            (false, false)
        };
        if before {
            self.cut_dead(owner, fired, &fires, true);
        }
        for f in fires.iter_mut() {
            let Some((slot, clip)) = self.slots.get(f.slot) else {
                continue;
            };
            let (slot, clip) = (slot.clone(), clip.clone());
            let weight = self.live_weight(f.instance).unwrap_or(0.0);
            f.weight = weight;
            let f = &*f;
            if f.seeked && !self.open.is_empty() {
                self.check_seek(owner, f, &clip, &slot, fired);
            }
            crossings.clear();
            match clip.index.query_into(crossings, &f.interval, DEFAULT_LIMIT) {
                Ok(truncated) => {
                    for c in crossings.iter() {
                        self.judge(owner, f, &clip, &slot, c, weight, fired);
                    }
                    if truncated {
                        errors.push(AnimatorRecord::Error(
                            owner,
                            format!(
                                "clip `{slot}` crossed more than {DEFAULT_LIMIT} notifies in one update; the rest were dropped"
                            ),
                        ));
                    }
                }
                Err(e) => errors.push(AnimatorRecord::Error(owner, e.to_string())),
            }
        }
        if after {
            self.cut_dead(owner, fired, &fires, false);
        }
        self.fires = fires;
    }

    /// One crossing of instance `f`: gating for points and begins, the open/closed state for
    /// edges.
    #[allow(clippy::too_many_arguments)]
    fn judge(
        &mut self,
        owner: Entity,
        f: &Fire,
        clip: &std::sync::Arc<Clip>,
        slot: &std::sync::Arc<str>,
        c: &Crossing,
        weight: f64,
        fired: &mut Vec<AnimatorRecord>,
    ) {
        let record = |completed: bool| {
            AnimatorRecord::Notify(Fired {
                owner,
                slot: slot.clone(),
                clip: clip.clone(),
                crossing: *c,
                weight,
                completed,
                instance: f.instance,
            })
        };
        match c.edge {
            None => {
                let Some(n) = clip.notifies.get(c.notify as usize) else {
                    return;
                };
                if f.begins
                    && weight >= n.gating.weight_threshold
                    && draw(n.gating.chance, self.chance_key, n.key, c.cycle)
                {
                    fired.push(record(false));
                }
            }
            Some(Edge::End) => {
                let at = self
                    .open
                    .iter()
                    .position(|o| o.instance == f.instance && o.window == c.notify);
                if let Some(i) = at {
                    self.open.remove(i);
                    fired.push(record(true));
                }
            }
            Some(Edge::Begin) => {
                let Some(w) = clip.windows.get(c.notify as usize) else {
                    return;
                };
                let open = self
                    .open
                    .iter()
                    .any(|o| o.instance == f.instance && o.window == c.notify);
                if !open
                    && f.begins
                    && weight > 0.0
                    && weight >= w.gating.weight_threshold
                    && draw(w.gating.chance, self.chance_key, w.key, c.cycle)
                {
                    self.open.push(OpenWindow {
                        instance: f.instance,
                        slot: f.slot,
                        window: c.notify,
                        cycle: c.cycle,
                        time: c.time,
                        looping: !matches!(
                            f.interval,
                            PlaybackInterval::Advance { looping: false, .. }
                                | PlaybackInterval::Start { looping: false, .. }
                        ),
                        weight,
                        threshold: w.gating.weight_threshold,
                    });
                    fired.push(record(false));
                }
            }
        }
    }

    /// After a seek: each open window of `f`'s instance stays open only if the instance landed
    /// inside it (`begin ≤ clip time < end`, at the occurrence it landed in); else it ends.
    fn check_seek(
        &mut self,
        owner: Entity,
        f: &Fire,
        clip: &std::sync::Arc<Clip>,
        slot: &std::sync::Arc<str>,
        fired: &mut Vec<AnimatorRecord>,
    ) {
        let Some((from, _, looping)) = bounds(&f.interval) else {
            return;
        };
        let d = clip.seq.duration;
        let t = clip_time_of(from, d, looping);
        let cycle = if looping && d > 0.0 {
            (from / d).floor() as i64
        } else {
            0
        };
        let mut i = 0;
        while i < self.open.len() {
            let o = &mut self.open[i];
            let span = clip.windows.get(o.window as usize).and_then(|w| w.span);
            if o.instance != f.instance {
                i += 1;
                continue;
            }
            match span {
                Some((b, e)) if b <= t && t < e => {
                    o.cycle = cycle;
                    i += 1;
                }
                _ => {
                    // The weight is the last moving update's (`self.fires` is this update's,
                    // taken while its crossings are judged).
                    let weight = stood(o, &self.fires, &self.fires_before).weight;
                    let o = self.open.remove(i);
                    let at = Stood {
                        time: from,
                        looping,
                        weight,
                    };
                    fired.push(cut(owner, slot, clip, &o, at));
                }
            }
        }
    }

    /// Ends every open window whose instance is gone or whose weight is 0 or below the
    /// window's threshold; with `before`, only those of instances gone and not moved by this
    /// update (`before` its intervals `fires`).
    #[inline(never)]
    fn cut_dead(
        &mut self,
        owner: Entity,
        fired: &mut Vec<AnimatorRecord>,
        fires: &[Fire],
        before: bool,
    ) {
        let mut i = 0;
        while i < self.open.len() {
            if !self.ends(&self.open[i], before.then_some(fires)) {
                i += 1;
                continue;
            }
            let o = &self.open[i];
            // Gone from the pose: its weight reached 0.
            let at = Stood {
                weight: self.live_weight(o.instance).unwrap_or(0.0),
                ..stood(o, fires, &self.fires_before)
            };
            let o = self.open.remove(i);
            if let Some((slot, clip)) = self.slots.get(o.slot) {
                fired.push(cut(owner, slot, clip, &o, at));
            }
        }
    }

    /// Ends every open window now (`completed: false`): the animator is being removed.
    pub(super) fn cut_all(&mut self, owner: Entity) -> Vec<AnimatorRecord> {
        let open = std::mem::take(&mut self.open);
        open.iter()
            .filter_map(|o| {
                let (slot, clip) = self.slots.get(o.slot)?;
                let at = Stood {
                    weight: 0.0,
                    ..stood(o, &self.fires, &self.fires_before)
                };
                Some(cut(owner, slot, clip, o, at))
            })
            .collect()
    }

    /// Number of windows open on this animator's clip instances.
    pub fn open_windows(&self) -> usize {
        self.open.len()
    }
}

/// The end record of open window `o` cut short, its instance standing `at`.
fn cut(
    owner: Entity,
    slot: &std::sync::Arc<str>,
    clip: &std::sync::Arc<Clip>,
    o: &OpenWindow,
    at: Stood,
) -> AnimatorRecord {
    AnimatorRecord::Notify(Fired {
        owner,
        slot: slot.clone(),
        clip: clip.clone(),
        crossing: Crossing {
            notify: o.window,
            edge: Some(Edge::End),
            time: at.time,
            clip_time: clip_time_of(at.time, clip.seq.duration, at.looping),
            cycle: o.cycle,
        },
        weight: at.weight,
        completed: false,
        instance: o.instance,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::anim::state_machine::{Condition, Machine, State, Transition};
    use crate::anim::{AnimCommand, BlendTree};
    use crate::runtime::hub::EventHub;

    /// A looping clip of 1 s with windows `spans`.
    fn clip(id: &str, spans: &[(f64, f64)]) -> Arc<Clip> {
        let windows: Vec<String> = spans
            .iter()
            .enumerate()
            .map(|(i, (b, e))| format!("(id: \"w{i}\", name: \"W{i}\", begin: {b:?}, end: {e:?})"))
            .collect();
        let text = format!(
            "AnimSeq(format: 4, id: \"{id}\", name: \"{id}\", duration: 1.0, tracks: [], \
             notifies: [], windows: [{}])",
            windows.join(",")
        );
        let loaded = crate::animseq::load(&crate::diag::SourceFile::new("c.animseq", text));
        let seq = loaded
            .seq
            .unwrap_or_else(|| panic!("{:?}", loaded.diagnostics));
        Arc::new(Clip::new(Arc::new(seq), &mut EventHub::new()).expect("clip"))
    }

    fn state(name: &str, slot: usize) -> State {
        State {
            name: name.into(),
            tree: BlendTree::Clip(slot),
            speed: 1.0,
            looping: true,
            notifies: Default::default(),
        }
    }

    /// One update as the `animate` system runs it; the records it published.
    fn step(a: &mut Animator) -> Vec<AnimatorRecord> {
        let mut fired = Vec::new();
        a.advance(60.0, &mut crate::anim::soa::LanePose::default());
        a.evaluate_fires(
            Entity::PLACEHOLDER,
            &mut Vec::new(),
            &mut fired,
            &mut Vec::new(),
        );
        fired
    }

    /// One update; the `completed` flags of the window ends it published.
    fn update(a: &mut Animator) -> Vec<bool> {
        step(a)
            .iter()
            .filter_map(|r| match r {
                AnimatorRecord::Notify(f) if f.crossing.edge == Some(Edge::End) => {
                    Some(f.completed)
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_transition_without_a_command_is_not_a_settled_update() {
        // s0 → s1 → s2 on the same parameter, at once (blend 0): each transition comes one
        // update after the last (a state cannot be left in the update it starts), so s1,
        // whose window opens when it starts, is left in an update without any command.
        let mut a = Animator::new();
        a.add_clip("a", clip("a", &[]));
        a.add_clip("b", clip("b", &[(0.0, 0.5)]));
        let go = |from, to| Transition {
            from: Some(from),
            to,
            blend: 0.0,
            when: vec![Condition::Greater("go".into(), 0.5)],
        };
        a.set_machine(Arc::new(Machine {
            states: vec![state("s0", 0), state("s1", 1), state("s2", 0)],
            entry: 0,
            transitions: vec![go(0, 1), go(1, 2)],
        }));
        // Nothing from outside is pending: only the update itself can unsettle it.
        a.touched = false;
        a.queue(AnimCommand::SetParam("go".into(), 1.0));
        assert_eq!(update(&mut a), Vec::<bool>::new()); // s0 starts
        assert_eq!(update(&mut a), Vec::<bool>::new()); // s1 starts, its window opens
        assert_eq!(a.open_windows(), 1);
        assert!(a.commands.is_empty());
        assert_eq!(update(&mut a), [false]); // s1 left: the window is cut
        assert_eq!(a.open_windows(), 0);
    }

    #[test]
    fn a_settled_update_keeps_the_open_windows_and_a_cut_reports_the_last_position() {
        // A default clip with a window open: updates without changes cut nothing; stopping
        // it from outside (`play` of another clip) cuts the window where the clip stood.
        let mut a = Animator::new();
        a.add_clip("b", clip("b", &[(0.0, 0.9)]));
        a.add_clip("a", clip("a", &[]));
        assert!(a.play("b"));
        for _ in 0..10 {
            assert_eq!(update(&mut a), Vec::<bool>::new());
            assert_eq!(a.open_windows(), 1);
        }
        assert!(a.settled, "ten updates without a change are settled");
        assert!(a.play("a"));
        let fired = step(&mut a);
        let [AnimatorRecord::Notify(f)] = &fired[..] else {
            panic!("one cut: {fired:?}");
        };
        assert!(!f.completed);
        assert_eq!(f.crossing.edge, Some(Edge::End));
        // Ten ticks of 1/60 s: where the clip stood after its last update.
        assert_eq!(f.crossing.time, 10.0 / 60.0);
        assert_eq!(f.weight, 0.0);
    }
}
