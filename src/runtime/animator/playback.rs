//! Playback: playheads on unwrapped `f64` tick clocks ([`TickClock`]: a time is a function of
//! the ticks since its speed took effect, never a running sum), state motions (one phase shared
//! by a blend tree's clips, or a single clip's own seconds), crossfades, transitions and
//! layers. One update (`Animator::advance`) applies the queued commands, advances the base
//! motion and the layers, sums root motion and evaluates the pose; the crossings to publish are
//! left in `fires`.

use std::sync::Arc;

use super::root::add_root;
use super::{Animator, Clip, StateChange};
use crate::anim::soa::LanePose;
use crate::anim::state_machine::{Machine, NotifyMode};
use crate::anim::{BlendTree, Leaf, RootDelta, TickClock, heaviest_leaf};
use crate::crossing::PlaybackInterval;

/// Tolerance for a non-looping state reaching its end, in cycles.
pub const PHASE_EPSILON: f64 = 1e-9;

/// One playing clip instance's interval of the last update, before its crossings are
/// evaluated: every instance that may fire, and every instance of a clip with windows (its
/// open windows still close at their end edges when it may not fire).
#[derive(Debug, Clone)]
pub(super) struct Fire {
    pub(super) slot: usize,
    pub(super) interval: PlaybackInterval,
    /// The clip instance ([`instance_key`]).
    pub(super) instance: u64,
    /// Point notifies and begins may fire (marker filtering: weight, heaviest clip).
    pub(super) begins: bool,
    /// A seek moved this instance since its last update (its open windows are checked).
    pub(super) seeked: bool,
    /// The instance's effective weight in this update (set when its crossings are judged).
    pub(super) weight: f64,
}

/// A fresh clip-instance number (motions and layer playheads; only compared for equality).
pub(super) fn next_instance() -> u32 {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// The key of the clip instance playing slot `slot` in motion or playhead `id`.
pub(super) fn instance_key(id: u32, slot: usize) -> u64 {
    (u64::from(id) << 32) | (slot as u64 & 0xffff_ffff)
}

/// A single clip's playhead (a layer's clip).
#[derive(Debug)]
pub(super) struct Playback {
    /// The instance number ([`next_instance`]).
    pub(super) id: u32,
    pub(super) slot: usize,
    /// Unwrapped playback time (where the next interval starts).
    pub(super) clock: TickClock,
    /// False until the first update that moves it (that update evaluates `Start`).
    pub(super) started: bool,
}

impl Playback {
    pub(super) fn new(slot: usize) -> Playback {
        Playback {
            id: next_instance(),
            slot,
            clock: TickClock::default(),
            started: false,
        }
    }

    /// The unwrapped playback time.
    pub(super) fn time(&self) -> f64 {
        self.clock.now()
    }
}

/// The interval from `from` to `to` of a playhead, `Start` on its first update.
fn interval(started: bool, from: f64, to: f64, looping: bool) -> PlaybackInterval {
    if started {
        PlaybackInterval::Advance { from, to, looping }
    } else {
        PlaybackInterval::Start {
            at: from,
            to,
            looping,
        }
    }
}

/// Advances a single clip's playback one tick at `rate` ticks per second and `speed` (looping).
pub(super) fn advance_playback(
    p: &mut Playback,
    rate: f64,
    speed: f64,
    slots: &[(Arc<str>, Arc<Clip>)],
) -> Result<PlaybackInterval, String> {
    let Some((from, to)) = p.clock.tick(rate, speed) else {
        let slot = slots.get(p.slot).map_or("", |s| &*s.0);
        return Err(format!(
            "playback time of clip `{slot}` left the finite range; clip stopped"
        ));
    };
    let i = interval(p.started, from, to, true);
    p.started = true;
    Ok(i)
}

/// How a motion keeps time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Clock {
    /// A state playing one clip: that clip's unwrapped time in seconds (exactly as a clip
    /// played on its own: each interval starts where the last ended, a seek lands on `t`).
    Seconds(TickClock),
    /// A blend tree: one phase in cycles shared by its clips (clip `i` at `phase · lenᵢ`),
    /// moving at `speed / L` cycles per second (a change of `L` re-anchors it).
    Phase(TickClock),
}

impl Clock {
    /// Anchors at the current value (a resume).
    pub(super) fn reanchor(&mut self) {
        match self {
            Clock::Seconds(c) | Clock::Phase(c) => c.reanchor(),
        }
    }
}

/// One state's playback and the leaves' weights of the last update.
#[derive(Debug, Clone)]
pub(super) struct Motion {
    /// The instance number ([`next_instance`]); each clip of the motion is one instance.
    pub(super) id: u32,
    pub(super) state: usize,
    pub(super) clock: Clock,
    pub(super) started: bool,
    pub(super) finished: bool,
    /// A seek moved the clock since the last update.
    pub(super) seeked: bool,
    pub(super) leaves: Vec<Leaf>,
}

impl Motion {
    pub(super) fn new(m: &Machine, state: usize) -> Motion {
        let single = m
            .states
            .get(state)
            .is_some_and(|s| matches!(s.tree, BlendTree::Clip(_)));
        Motion {
            id: next_instance(),
            state,
            clock: if single {
                Clock::Seconds(TickClock::default())
            } else {
                Clock::Phase(TickClock::default())
            },
            started: false,
            finished: false,
            seeked: false,
            leaves: Vec::new(),
        }
    }

    /// The unwrapped time of a clip of length `len` in this motion.
    pub(super) fn clip_time(&self, len: f64) -> f64 {
        match self.clock {
            Clock::Seconds(t) => t.now(),
            Clock::Phase(p) => p.now() * len,
        }
    }

    /// The phase in cycles over a cycle of `len` seconds (the pose evaluator's input).
    pub(super) fn phase(&self, len: f64) -> f64 {
        match self.clock {
            Clock::Seconds(t) if len > 0.0 => t.now() / len,
            Clock::Seconds(_) => 0.0,
            Clock::Phase(p) => p.now(),
        }
    }

    /// `Seek(t)`: the clip time `t` (a blend: phase `t / L`); fires nothing.
    pub(super) fn seek(&mut self, t: f64, slots: &[(Arc<str>, Arc<Clip>)]) {
        match &mut self.clock {
            Clock::Seconds(x) => {
                x.set(t);
                self.started = true;
                self.seeked = true;
            }
            Clock::Phase(p) => {
                let l = cycle_length(&self.leaves, slots);
                if l > 0.0 {
                    p.set(t / l);
                    self.started = true;
                    self.seeked = true;
                }
            }
        }
    }
}

/// The outgoing side of a crossfade.
#[derive(Debug, Clone)]
pub(super) struct Fade<T> {
    pub(super) from: T,
    /// Game seconds since the crossfade started (a tick clock at speed 1: `k / rate` after
    /// `k` updates, never a sum of `dt`s).
    pub(super) elapsed: TickClock,
    pub(super) duration: f64,
}

impl<T> Fade<T> {
    /// A crossfade from `from` over `duration` seconds, starting now.
    pub(super) fn new(from: T, duration: f64) -> Fade<T> {
        Fade {
            from,
            elapsed: TickClock::default(),
            duration,
        }
    }

    /// Seconds elapsed (after the last update).
    pub(super) fn elapsed(&self) -> f64 {
        self.elapsed.now()
    }

    /// The elapsed seconds after this update at `rate` ticks per second.
    pub(super) fn elapsed_after(&self, rate: f64) -> f64 {
        self.elapsed.peek(rate, 1.0)
    }

    /// Counts this update; true when the crossfade is over.
    pub(super) fn step(&mut self, rate: f64) -> bool {
        self.elapsed.tick(rate, 1.0).is_none() || self.elapsed() >= self.duration
    }

    /// The outgoing side's weight at the start of this update (it fires while > 0).
    pub(super) fn weight_before(&self) -> f64 {
        if self.duration > 0.0 {
            1.0 - self.elapsed() / self.duration
        } else {
            0.0
        }
    }

    /// The incoming side's weight after `elapsed` seconds.
    pub(super) fn weight_in(&self, elapsed: f64) -> f64 {
        if self.duration > 0.0 {
            (elapsed / self.duration).min(1.0)
        } else {
            1.0
        }
    }
}

/// What the animator's base plays: an authored state machine, or its default clip on the
/// default-clip machine (one looping state per clip slot at speed 1, named like the slot, no
/// transitions: `Play(clip, at)` moves between its states).
#[derive(Debug)]
pub(super) struct Base {
    pub(super) machine: Arc<Machine>,
    /// An authored `.animsm` (states can be requested and are reported) rather than the
    /// default-clip machine.
    pub(super) authored: bool,
    pub(super) current: Motion,
    pub(super) fade: Option<Fade<Motion>>,
}

/// The default-clip machine of `slots`: state `i` plays slot `i`, looping, at speed 1.
pub(super) fn default_machine(slots: &[(Arc<str>, Arc<Clip>)]) -> Arc<Machine> {
    Arc::new(Machine {
        states: slots
            .iter()
            .enumerate()
            .map(|(i, (name, _))| crate::anim::state_machine::State {
                name: name.clone(),
                tree: BlendTree::Clip(i),
                speed: 1.0,
                looping: true,
                notifies: Default::default(),
            })
            .collect(),
        entry: 0,
        transitions: Vec::new(),
    })
}

impl Base {
    /// The default-clip machine `machine` (see [`default_machine`]) playing state `index`.
    pub(super) fn default_clip(machine: Arc<Machine>, index: usize) -> Base {
        let mut b = Base::new(machine, false);
        b.current = Motion::new(&b.machine, index);
        b
    }

    pub(super) fn new(machine: Arc<Machine>, authored: bool) -> Base {
        Base {
            current: Motion::new(&machine, machine.entry),
            machine,
            authored,
            fade: None,
        }
    }

    /// Starts state `to` (not the active one) with a crossfade of `blend` seconds; the state
    /// change is recorded in `changes`.
    pub(super) fn enter(&mut self, to: usize, blend: f64, changes: &mut Vec<StateChange>) {
        if self.current.state == to {
            return;
        }
        let m = self.machine.clone();
        if let (Some(a), Some(b)) = (m.states.get(self.current.state), m.states.get(to)) {
            changes.push(StateChange {
                from: a.name.clone(),
                to: b.name.clone(),
            });
        }
        // An interrupted crossfade drops its outgoing side: the state being left fades out.
        let blend = if blend.is_finite() && blend > 0.0 {
            blend
        } else {
            0.0
        };
        let cur = std::mem::replace(&mut self.current, Motion::new(&m, to));
        self.fade = (blend > 0.0 && cur.started).then(|| Fade::new(cur, blend));
    }

    /// `Play(clip, at)` on the default-clip machine: state `to` (the clip's slot) restarts —
    /// a new clip instance, even when it is the one playing — at clip time `at`, crossfading
    /// from what played over `blend` seconds (at once before the first update). Reports no
    /// state change.
    pub(super) fn play(&mut self, to: usize, at: f64, blend: f64) {
        let mut next = Motion::new(&self.machine, to);
        if let Clock::Seconds(c) = &mut next.clock {
            c.set(at);
        }
        let cur = std::mem::replace(&mut self.current, next);
        self.fade = (blend > 0.0 && cur.started).then(|| Fade::new(cur, blend));
    }

    /// Anchors every clock of the base at its current value (a resume).
    pub(super) fn reanchor(&mut self) {
        self.current.clock.reanchor();
        if let Some(f) = &mut self.fade {
            f.from.clock.reanchor();
            f.elapsed.reanchor();
        }
    }
}

/// A layer: its name, weight and clip (with the clip it crossfades from).
#[derive(Debug)]
pub(super) struct Layer {
    pub(super) name: Arc<str>,
    pub(super) weight: f64,
    pub(super) clip: Option<Playback>,
    pub(super) fade: Option<Fade<Playback>>,
}

pub(super) fn sanitize_weight(w: f64) -> f64 {
    if w.is_finite() {
        w.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// Weighted cycle length `L = Σ wᵢ·lenᵢ / Σ wᵢ` over base leaves (0 when it cannot be formed).
pub(super) fn cycle_length(leaves: &[Leaf], slots: &[(Arc<str>, Arc<Clip>)]) -> f64 {
    let (mut l, mut ws) = (0.0f64, 0.0f64);
    for lf in leaves.iter().filter(|l| !l.additive && l.weight > 0.0) {
        if let Some((_, c)) = slots.get(lf.clip) {
            let d = c.seq.duration;
            if d.is_finite() && d > 0.0 {
                l += f64::from(lf.weight) * d;
                ws += f64::from(lf.weight);
            }
        }
    }
    if ws > 0.0 && l.is_finite() && l > 0.0 {
        l / ws
    } else {
        0.0
    }
}

/// Moves a motion's clock one tick at `rate` ticks per second and `speed` units (seconds or
/// cycles) per second and returns the tick's `(from, to)` (unchanged when the result is not
/// finite): a non-looping state clamps to its end `cycle` (or 0 in reverse), and counts as
/// ended within [`PHASE_EPSILON`] cycles of it (`p₀ + (k / rate)·(speed / L)` may round an ulp
/// below 1); a clamped clock anchors where it was clamped.
fn tick_clock(c: &mut TickClock, rate: f64, speed: f64, cycle: f64, looping: bool) -> (f64, f64) {
    let from = c.now();
    let Some((_, t)) = c.tick(rate, speed) else {
        return (from, from);
    };
    if looping {
        return (from, t);
    }
    let to = if t >= cycle * (1.0 - PHASE_EPSILON) {
        cycle
    } else {
        t.max(0.0)
    };
    if to.to_bits() != t.to_bits() {
        c.set(to);
    }
    (from, to)
}

/// Advances one state's motion one tick at `rate` ticks per second and the animator's `speed`:
/// leaf weights from the parameters, the clock (a single clip in its own seconds at `speed ×
/// state speed`, a blend at that over `L` cycles per second), the heaviest clip's crossings
/// (when `fires`), and every clip's root motion weighted by `side_w` × its leaf weight.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(super) fn step_motion(
    m: &Machine,
    motion: &mut Motion,
    rate: f64,
    speed: f64,
    read: &dyn Fn(&str) -> f32,
    slots: &[(Arc<str>, Arc<Clip>)],
    root: &Option<super::RootMotion>,
    side_w: f64,
    fires: bool,
    out: &mut Vec<Fire>,
    delta: &mut RootDelta,
) {
    let Some(state) = m.states.get(motion.state) else {
        return;
    };
    let seconds = speed * state.speed;
    let moves = root
        .as_ref()
        .is_some_and(|r| r.mode != crate::anim::RootMotionMode::Off);
    // One clip in its own seconds: its single full-weight leaf (kept between updates), one
    // interval, no cycle length.
    if let (BlendTree::Clip(clip), Clock::Seconds(clock)) = (&state.tree, &mut motion.clock) {
        let clip = *clip;
        if !matches!(motion.leaves[..], [Leaf { clip: c, .. }] if c == clip) {
            state.tree.leaves(read, &mut motion.leaves);
        }
        let Some((_, c)) = slots.get(clip) else {
            return;
        };
        let len = c.seq.duration;
        let (from, to) = if seconds.is_finite() && (state.looping || len > 0.0) {
            tick_clock(clock, rate, seconds, len, state.looping)
        } else {
            (clock.now(), clock.now())
        };
        let interval = interval(motion.started, from, to, state.looping);
        motion.started = true;
        motion.finished = !state.looping && to >= len;
        if moves {
            add_root(root, clip, &interval, side_w as f32, delta);
        }
        let fires = fires && state.notifies != NotifyMode::Silent;
        if fires || !c.windows.is_empty() {
            out.push(Fire {
                slot: clip,
                interval,
                instance: instance_key(motion.id, clip),
                begins: fires,
                seeked: motion.seeked,
                weight: 0.0,
            });
        }
        motion.seeked = false;
        return;
    }
    state.tree.leaves(read, &mut motion.leaves);
    let before = motion.clock;
    match &mut motion.clock {
        Clock::Seconds(t) => {
            let len = motion
                .leaves
                .first()
                .and_then(|lf| slots.get(lf.clip))
                .map_or(0.0, |(_, c)| c.seq.duration);
            if seconds.is_finite() && (state.looping || len > 0.0) {
                tick_clock(t, rate, seconds, len, state.looping);
            }
        }
        Clock::Phase(p) => {
            // The phase speed is `seconds / L`: a weight change that moves `L` is a speed
            // change, and the clock re-anchors at the current phase.
            let l = cycle_length(&motion.leaves, slots);
            if l > 0.0 && seconds.is_finite() {
                tick_clock(p, rate, seconds / l, 1.0, state.looping);
            }
        }
    }
    let start = !motion.started;
    motion.started = true;
    let heaviest = heaviest_leaf(&motion.leaves);
    let mut finished = true;
    for (i, lf) in motion.leaves.iter().enumerate() {
        let Some((_, c)) = slots.get(lf.clip) else {
            continue;
        };
        let len = c.seq.duration;
        let (a, b) = match (before, motion.clock) {
            (Clock::Seconds(a), Clock::Seconds(b)) => (a.now(), b.now()),
            (Clock::Phase(a), Clock::Phase(b)) => (a.now() * len, b.now() * len),
            _ => continue,
        };
        finished &= b >= len;
        let interval = interval(!start, a, b, state.looping);
        if moves && !lf.additive {
            add_root(
                root,
                lf.clip,
                &interval,
                (side_w * f64::from(lf.weight)) as f32,
                delta,
            );
        }
        let begins = fires
            && match state.notifies {
                NotifyMode::Highest => Some(i) == heaviest,
                NotifyMode::All => lf.weight > 0.0,
                NotifyMode::Silent => false,
            };
        if begins || !c.windows.is_empty() {
            out.push(Fire {
                slot: lf.clip,
                interval,
                instance: instance_key(motion.id, lf.clip),
                begins,
                seeked: motion.seeked,
                weight: 0.0,
            });
        }
    }
    motion.seeked = false;
    motion.finished = !state.looping
        && match motion.clock {
            Clock::Phase(p) => p.now() >= 1.0,
            Clock::Seconds(_) => finished && !motion.leaves.is_empty(),
        };
}

impl Animator {
    /// Applies queued commands, then advances one tick at `rate` ticks per second (finite and
    /// positive): transitions, crossfades, trees, layers, root motion, the pose. The crossings
    /// to evaluate land in `self.fires`, state changes in `self.changes`, rejected requests and
    /// playback errors in `self.rejected`.
    /// `lanes` is the pose evaluation's scratch (one for every animator of the step).
    pub(super) fn advance(&mut self, rate: f64, lanes: &mut LanePose) {
        // With windows open, the last update that moved keeps its intervals: a window cut
        // later reports where its instance stood then (`windows.rs`). And whether this update
        // is settled: only a command, a change from outside (`touched`), and, found on the way
        // (`advance_base`, `advance_layers`), a crossfade or layer fade running, a transition or
        // a stopped layer clip change the live clip instances or their weights (a blend tree's
        // weights follow its parameters, which only commands set).
        if !self.open.is_empty() {
            if !self.fires.is_empty() {
                std::mem::swap(&mut self.fires, &mut self.fires_before);
            }
            self.settled = !std::mem::take(&mut self.touched) && self.commands.is_empty();
        }
        self.fires.clear();
        self.changes.clear();
        self.rejected.clear();
        self.last_delta = RootDelta::ZERO;
        for c in std::mem::take(&mut self.commands) {
            self.apply(c);
        }
        if self.paused {
            return;
        }
        let mut delta = RootDelta::ZERO;
        self.advance_base(rate, &mut delta);
        self.advance_layers(rate);
        self.apply_root(delta);
        self.evaluate_pose(lanes);
    }

    /// The base motion: transitions (checked once, against the state as it stood after the
    /// last update: a state cannot be left in the update it starts), then the active state and
    /// a crossfade's outgoing side.
    fn advance_base(&mut self, rate: f64, delta: &mut RootDelta) {
        let Some(base) = &mut self.base else { return };
        if base.current.started && !base.machine.transitions.is_empty() {
            let params = &self.params;
            let read = |p: &str| params.get(p).copied().unwrap_or(0.0);
            let next = base
                .machine
                .select(base.current.state, &read, base.current.finished)
                .map(|t| (t.to, t.blend));
            if let Some((to, blend)) = next {
                base.enter(to, blend, &mut self.changes);
                self.settled = false;
            }
        }
        let fade_w = base
            .fade
            .as_ref()
            .map(|f| (f.weight_before() > 0.0, f.weight_in(f.elapsed_after(rate))));
        let params = &self.params;
        let read = |p: &str| {
            let v = params.get(p).copied().unwrap_or(0.0);
            v as f32
        };
        let incoming_w = fade_w.map_or(1.0, |(_, a)| a);
        let m = &*base.machine;
        step_motion(
            m,
            &mut base.current,
            rate,
            self.speed,
            &read,
            &self.slots,
            &self.root,
            incoming_w,
            true,
            &mut self.fires,
            delta,
        );
        if let Some(f) = &mut base.fade {
            self.settled = false;
            let (fires, _) = fade_w.unwrap_or((false, 1.0));
            step_motion(
                m,
                &mut f.from,
                rate,
                self.speed,
                &read,
                &self.slots,
                &self.root,
                1.0 - incoming_w,
                fires,
                &mut self.fires,
                delta,
            );
            if f.step(rate) {
                base.fade = None;
            }
        }
    }

    /// Layers, in order: each clip time-based (looping, animator speed); a layer of weight 0
    /// fires nothing; a crossfade's old clip fires while its weight before the update is > 0.
    fn advance_layers(&mut self, rate: f64) {
        let speed = self.speed;
        for l in &mut self.layers {
            let fires = l.weight > 0.0;
            let slots = &self.slots;
            let windows = |slot: usize| slots.get(slot).is_some_and(|c| !c.1.windows.is_empty());
            if let Some(p) = &mut l.clip {
                match advance_playback(p, rate, speed, slots) {
                    Ok(interval) if fires || windows(p.slot) => self.fires.push(Fire {
                        slot: p.slot,
                        interval,
                        instance: instance_key(p.id, p.slot),
                        begins: fires,
                        seeked: false,
                        weight: 0.0,
                    }),
                    Ok(_) => {}
                    Err(e) => {
                        self.rejected.push(e);
                        l.clip = None;
                        self.settled = false;
                    }
                }
            }
            if let Some(f) = &mut l.fade {
                self.settled = false;
                let begins = f.weight_before() > 0.0 && fires;
                if let Ok(interval) = advance_playback(&mut f.from, rate, speed, slots)
                    && (begins || windows(f.from.slot))
                {
                    self.fires.push(Fire {
                        slot: f.from.slot,
                        interval,
                        instance: instance_key(f.from.id, f.from.slot),
                        begins,
                        seeked: false,
                        weight: 0.0,
                    });
                }
                if f.step(rate) {
                    l.fade = None;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::AnimCommand;
    use crate::anim::state_machine::State;
    use crate::runtime::hub::EventHub;

    /// A clip of `duration` seconds with one notify at `at`.
    fn clip(duration: f64, at: f64) -> Arc<Clip> {
        let text = format!(
            "AnimSeq(format: 3, id: \"c\", name: \"C\", duration: {duration:?}, tracks: [], \
             notifies: [(id: \"n\", name: \"N\", time: {at:?})])"
        );
        let loaded = crate::animseq::load(&crate::diag::SourceFile::new("c.animseq", text));
        let seq = loaded
            .seq
            .unwrap_or_else(|| panic!("{:?}", loaded.diagnostics));
        Arc::new(Clip::new(Arc::new(seq), &mut EventHub::new()).expect("clip"))
    }

    #[test]
    fn the_default_clip_is_a_one_state_machine_without_requestable_states() {
        let mut a = Animator::new();
        a.add_clip("run", clip(0.8, 0.2));
        assert!(a.play("run"));
        a.queue(AnimCommand::SetState("run".into()));
        a.advance(4.0, &mut LanePose::default());
        assert_eq!(a.playing(), Some("run"));
        assert_eq!(a.current_state(), None);
        assert!(!a.has_state("run"));
        assert_eq!(a.time(), 0.25);
        assert_eq!(
            a.rejected,
            ["state `run` requested, but this animator has no state machine"]
        );
        assert!(matches!(
            a.fires[..],
            [Fire {
                slot: 0,
                interval: PlaybackInterval::Start {
                    at: 0.0,
                    to: 0.25,
                    looping: true
                },
                ..
            }]
        ));
    }

    #[test]
    fn a_one_clip_state_seeks_to_the_exact_time() {
        // A time where `(t / d) · d != t`: a phase clock would land beside the marker.
        let d = 0.7;
        let t = (1..1000)
            .map(|k| f64::from(k) * 0.001)
            .find(|t| (t / d) * d != *t)
            .expect("an inexact time exists");
        let mut a = Animator::new();
        a.add_clip("walk", clip(d, t));
        a.set_machine(Arc::new(Machine {
            states: vec![State {
                name: "walk".into(),
                tree: BlendTree::Clip(0),
                speed: 1.0,
                looping: true,
                notifies: Default::default(),
            }],
            entry: 0,
            transitions: Vec::new(),
        }));
        a.queue(AnimCommand::Seek(t));
        a.advance(100.0, &mut LanePose::default());
        assert_eq!(a.current_state().map(|s| &**s), Some("walk"));
        let [Fire { interval, .. }] = &a.fires[..] else {
            panic!("one interval: {:?}", a.fires);
        };
        assert_eq!(
            *interval,
            PlaybackInterval::Advance {
                from: t,
                to: t + 0.01,
                looping: true
            }
        );
        // The marker exactly at the seek time does not fire.
        let c = &a.slots[0].1;
        let mut out = Vec::new();
        c.index.query_into(&mut out, interval, 16).expect("query");
        assert!(out.is_empty(), "{out:?}");
    }
}
