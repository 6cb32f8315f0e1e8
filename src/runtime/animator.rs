//! The animator: clip slots holding loaded `.animseq` sequences; either a default clip playing
//! from time 0, looping, or a `.animsm` state machine (states playing clips or blend trees with
//! clip sync, transitions and requests crossfading linearly); layers playing their own clips;
//! root motion moving the entity; seek/pause/resume/speed. Each update publishes the notify
//! crossings of every playing clip with weight > 0 (in a blend tree only the heaviest clip) to
//! the notify's target channel, and reports state changes. With a [`PoseRig`] the local pose is
//! evaluated after each update into reused buffers (see `docs/runtime.md`).
//!
//! Playback keeps an unwrapped `f64` time; each update's interval starts exactly where the last
//! one ended. The update in which a clip starts evaluates `Start { at, to }` (so a marker at the
//! start time fires), later updates `Advance { from, to }`; a seek moves the playhead without
//! firing anything and a paused clip fires nothing (`crossings.md`).

use std::collections::BTreeMap;
use std::sync::Arc;

use bevy_ecs::prelude::*;

use super::hub::{EventHub, EventId, Notify, Value};
use super::instance::Graphs;
use super::schedule::GameTime;
use super::trace::{self, TraceKind};
pub use crate::anim::AnimCommand;
use crate::anim::state_machine::Machine;
use crate::anim::{
    BoneMask, BoundClip, Leaf, Pose, RootClip, RootDelta, RootMotionMode, Skeleton, TreeEvaluator,
    apply_additive, apply_override_clip, heaviest_leaf, hold_root, lerp_pose,
};
use crate::animseq::{AnimSeq, CurveValue, FieldValue, Target};
use crate::crossing::{Crossing, DEFAULT_LIMIT, IndexError, NotifyIndex, PlaybackInterval};
use glam::DVec3;

/// One notify of a clip, resolved for publishing.
#[derive(Debug, Clone)]
struct ClipNotify {
    id: EventId,
    identity: Arc<str>,
    target: Target,
}

/// A loaded clip: the sequence, its crossing index and its interned notify identities.
#[derive(Debug)]
pub struct Clip {
    seq: Arc<AnimSeq>,
    index: NotifyIndex,
    notifies: Vec<ClipNotify>,
}

/// Why a clip could not be prepared.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClipError {
    /// The sequence's notifies cannot be indexed.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// Interning an identity failed.
    #[error(transparent)]
    Hub(#[from] super::hub::HubError),
}

/// A notify field as a hub value.
pub fn field_value(v: &FieldValue) -> Value {
    match v {
        FieldValue::Bool(b) => Value::Bool(*b),
        FieldValue::Int(i) => Value::Int(*i),
        FieldValue::Float(f) => Value::Float(*f),
        FieldValue::String(s) => Value::Str(Arc::from(s.as_str())),
        FieldValue::Vec3(v) => Value::Vec3(*v),
    }
}

impl Clip {
    /// Prepares `seq` for playback: builds its crossing index, interns each notify's identity
    /// `animseq::<seq id>.<notify id>` and registers its typed fields with the hub (once per
    /// identity; the catalog guarantees one schema per identity).
    pub fn new(seq: Arc<AnimSeq>, hub: &mut EventHub) -> Result<Clip, ClipError> {
        let times: Vec<f64> = seq.notifies.iter().map(|n| n.time).collect();
        let index = NotifyIndex::new(seq.duration, &times)?;
        let mut notifies = Vec::with_capacity(seq.notifies.len());
        for n in &seq.notifies {
            let identity: Arc<str> = crate::catalog::identity(&seq.id, &n.id).into();
            let id = hub.intern(&identity)?;
            hub.set_notify_fields(id, n.fields.iter().map(|(_, v)| field_value(v)).collect());
            notifies.push(ClipNotify {
                id,
                identity,
                target: n.target.clone(),
            });
        }
        Ok(Clip {
            seq,
            index,
            notifies,
        })
    }

    /// The sequence.
    pub fn seq(&self) -> &Arc<AnimSeq> {
        &self.seq
    }
}

/// What the animator recorded for one layer (no effect on playback).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LayerRecord {
    /// Last clip requested with `PlayOnLayer` (`None` after `StopLayer`).
    pub clip: Option<Arc<str>>,
    /// Last weight set with `SetLayerWeight` (1 until set).
    pub weight: f64,
}

#[derive(Debug)]
struct Playback {
    slot: Arc<str>,
    clip: Arc<Clip>,
    /// Unwrapped playback time where the next interval starts.
    time: f64,
    /// False until the first update that moves it (that update evaluates `Start`).
    started: bool,
}

/// One state's playback: a shared phase in cycles (clip sync) and the leaves' weights of the
/// last update.
#[derive(Debug, Clone)]
struct Motion {
    state: usize,
    phase: f64,
    started: bool,
    finished: bool,
    leaves: Vec<Leaf>,
}

impl Motion {
    fn new(state: usize) -> Motion {
        Motion {
            state,
            phase: 0.0,
            started: false,
            finished: false,
            leaves: Vec::new(),
        }
    }
}

/// The outgoing side of a crossfade.
#[derive(Debug, Clone)]
struct Fade<T> {
    from: T,
    elapsed: f64,
    duration: f64,
}

impl<T> Fade<T> {
    /// The outgoing side's weight at the start of this update (it fires while > 0).
    fn weight_before(&self) -> f64 {
        if self.duration > 0.0 {
            1.0 - self.elapsed / self.duration
        } else {
            0.0
        }
    }
}

/// A layer at runtime.
#[derive(Debug)]
struct LayerRun {
    name: Arc<str>,
    weight: f64,
    clip: Option<Playback>,
    fade: Option<Fade<Playback>>,
}

/// Root motion of an animator: per clip slot index, the prepared root track.
#[derive(Debug, Clone)]
pub struct RootMotion {
    /// Mode (`Off` disables).
    pub mode: RootMotionMode,
    /// Per slot (authored order of [`Animator::add_clip`]), the root track (`None`: the clip
    /// does not animate the root bone).
    pub clips: Vec<Option<RootClip>>,
}

/// Pose evaluation of an animator: the skeleton, each slot bound to it, per layer its mask and
/// blend mode, the root bone, and reused pose buffers (no allocation once sized).
#[derive(Debug, Clone)]
pub struct PoseRig {
    /// The skeleton poses are evaluated on.
    pub skeleton: Arc<Skeleton>,
    /// Per slot index, the clip bound to the skeleton.
    pub clips: Vec<BoundClip>,
    /// Per layer name: mask (`None` = every bone) and whether it is additive.
    pub layers: BTreeMap<Arc<str>, (Option<BoneMask>, bool)>,
    /// Root bone held in place when root motion is on (with yaw).
    pub root: Option<(usize, bool)>,
    eval: TreeEvaluator,
    pose: Pose,
    scratch: Pose,
}

impl PoseRig {
    /// A rig over `skeleton` with `clips` bound per slot index.
    pub fn new(
        skeleton: Arc<Skeleton>,
        clips: Vec<BoundClip>,
        layers: BTreeMap<Arc<str>, (Option<BoneMask>, bool)>,
        root: Option<(usize, bool)>,
    ) -> PoseRig {
        let pose = Pose::rest(&skeleton);
        PoseRig {
            scratch: pose.clone(),
            pose,
            skeleton,
            clips,
            layers,
            root,
            eval: TreeEvaluator::new(),
        }
    }

    /// The last evaluated local pose.
    pub fn pose(&self) -> &Pose {
        &self.pose
    }
}

/// Clip time `t` wrapped into `[0, duration)` (0 for a degenerate clip or non-finite time).
fn wrapped(t: f64, c: &BoundClip) -> f64 {
    let d = c.clip.duration;
    if d.is_finite() && d > 0.0 && t.is_finite() {
        t.rem_euclid(d)
    } else {
        0.0
    }
}

/// A state change of the last update, for the `state` trace line.
#[derive(Debug, Clone, PartialEq)]
pub struct StateChange {
    /// Previous state.
    pub from: Arc<str>,
    /// New state.
    pub to: Arc<str>,
}

/// One playing clip's crossings of the last update, before publishing.
#[derive(Debug, Clone)]
struct Fire {
    slot: usize,
    interval: PlaybackInterval,
}

/// The animator component.
#[derive(Component, Debug)]
pub struct Animator {
    clips: BTreeMap<Arc<str>, Arc<Clip>>,
    slots: Vec<(Arc<str>, Arc<Clip>)>,
    playing: Option<Playback>,
    speed: f64,
    paused: bool,
    commands: Vec<AnimCommand>,
    params: BTreeMap<Arc<str>, f64>,
    layers: BTreeMap<Arc<str>, LayerRecord>,
    machine: Option<Arc<Machine>>,
    base: Option<Motion>,
    fade: Option<Fade<Motion>>,
    blend_duration: f64,
    layer_runs: Vec<LayerRun>,
    root: Option<RootMotion>,
    position: DVec3,
    yaw: f64,
    last_delta: RootDelta,
    fires: Vec<Fire>,
    changes: Vec<StateChange>,
    rejected: Vec<String>,
    rig: Option<Box<PoseRig>>,
}

/// Most commands one animator keeps queued between updates (more are dropped: a runaway graph
/// cannot allocate without bound).
pub const MAX_QUEUED_COMMANDS: usize = 1 << 16;

impl Default for Animator {
    fn default() -> Self {
        Animator::new()
    }
}

impl Animator {
    /// An animator with no clips, speed 1, not paused.
    pub fn new() -> Animator {
        Animator {
            clips: BTreeMap::new(),
            playing: None,
            speed: 1.0,
            paused: false,
            commands: Vec::new(),
            params: BTreeMap::new(),
            layers: BTreeMap::new(),
            slots: Vec::new(),
            machine: None,
            base: None,
            fade: None,
            blend_duration: DEFAULT_BLEND_DURATION,
            layer_runs: Vec::new(),
            root: None,
            position: DVec3::ZERO,
            yaw: 0.0,
            last_delta: RootDelta::ZERO,
            fires: Vec::new(),
            changes: Vec::new(),
            rejected: Vec::new(),
            rig: None,
        }
    }

    /// Puts `clip` in slot `slot` (replacing what was there). Slots get indices in the order
    /// they are first added (the indices a [`Machine`]'s trees use).
    pub fn add_clip(&mut self, slot: &str, clip: Arc<Clip>) {
        let slot: Arc<str> = Arc::from(slot);
        match self.slots.iter_mut().find(|(s, _)| *s == slot) {
            Some(e) => e.1 = clip.clone(),
            None => self.slots.push((slot.clone(), clip.clone())),
        }
        self.clips.insert(slot, clip);
    }

    /// The index of clip slot `slot`.
    pub fn slot_index(&self, slot: &str) -> Option<usize> {
        self.slots.iter().position(|(s, _)| &**s == slot)
    }

    /// Gives the animator a state machine (compiled against [`Animator::slot_index`]); its entry
    /// state starts at the next update. The default clip does not also play.
    pub fn set_machine(&mut self, machine: Arc<Machine>) {
        self.base = Some(Motion::new(machine.entry));
        self.fade = None;
        self.playing = None;
        self.machine = Some(machine);
    }

    /// Crossfade time of requests and layer clip changes (non-finite or negative → 0).
    pub fn set_blend_duration(&mut self, seconds: f64) {
        self.blend_duration = if seconds.is_finite() && seconds > 0.0 {
            seconds
        } else {
            0.0
        };
    }

    /// Declares a layer (weight, no clip yet); layers stack in declaration order.
    pub fn add_layer(&mut self, name: &str, weight: f64) {
        let name: Arc<str> = Arc::from(name);
        if !self.layer_runs.iter().any(|l| l.name == name) {
            self.layer_runs.push(LayerRun {
                name: name.clone(),
                weight: sanitize_weight(weight),
                clip: None,
                fade: None,
            });
        }
        self.layer(name).weight = weight;
    }

    /// Sets root motion and the entity's starting position.
    pub fn set_root_motion(&mut self, root: RootMotion, position: [f32; 3]) {
        self.root = Some(root);
        self.position = DVec3::new(position[0].into(), position[1].into(), position[2].into());
    }

    /// Evaluates poses on `rig` after every update (see [`Animator::pose`]).
    pub fn set_rig(&mut self, rig: PoseRig) {
        self.rig = Some(Box::new(rig));
    }

    /// The local pose of the last update (`None` without a rig): base motion (crossfades
    /// blended linearly), layers stacked in order with their masks and weights, the root bone
    /// held horizontally when root motion is on.
    pub fn pose(&self) -> Option<&Pose> {
        self.rig.as_ref().map(|r| r.pose())
    }

    /// The entity position as root motion moved it (`Transform`), else the starting position.
    pub fn position(&self) -> [f64; 3] {
        self.position.to_array()
    }

    /// The entity yaw in radians as root motion turned it (`Transform`).
    pub fn yaw(&self) -> f64 {
        self.yaw
    }

    /// The last update's root motion in the entity's parent space (the clip-space motion
    /// rotated by the entity's yaw before the update) and its turn in radians: what a game
    /// applies to its own character controller under `Extract` (under `Transform` the animator
    /// has already applied it). Zero when root motion is off or nothing played.
    pub fn root_motion_delta(&self) -> RootDelta {
        self.last_delta
    }

    /// Sets the entity's facing (radians about +Y), for games that turn the entity themselves
    /// under `Extract`: later deltas are rotated into parent space by it. Non-finite values are
    /// ignored.
    pub fn set_yaw(&mut self, yaw: f64) {
        if yaw.is_finite() {
            self.yaw = yaw;
        }
    }

    /// Whether root motion is on.
    pub fn has_root_motion(&self) -> bool {
        self.root
            .as_ref()
            .is_some_and(|r| r.mode != RootMotionMode::Off)
    }

    /// The active state's name (`None` without a state machine).
    pub fn current_state(&self) -> Option<&Arc<str>> {
        let m = self.machine.as_ref()?;
        Some(&m.states.get(self.base.as_ref()?.state)?.name)
    }

    /// The outgoing state of a running crossfade.
    pub fn fading_from(&self) -> Option<&Arc<str>> {
        let m = self.machine.as_ref()?;
        Some(&m.states.get(self.fade.as_ref()?.from.state)?.name)
    }

    /// Starts slot `slot` from time 0 now (it starts at the next update); false for an
    /// unknown slot.
    pub fn play(&mut self, slot: &str) -> bool {
        let Some((slot, clip)) = self.clips.get_key_value(slot) else {
            return false;
        };
        self.playing = Some(Playback {
            slot: slot.clone(),
            clip: clip.clone(),
            time: 0.0,
            started: false,
        });
        true
    }

    /// Queues a request for the next animation update.
    pub fn queue(&mut self, c: AnimCommand) {
        if self.commands.len() < MAX_QUEUED_COMMANDS {
            self.commands.push(c);
        }
    }

    /// The playing slot, if any.
    pub fn playing(&self) -> Option<&str> {
        self.playing.as_ref().map(|p| &*p.slot)
    }

    /// Unwrapped playback time of the playing clip (0 when none).
    pub fn time(&self) -> f64 {
        self.playing.as_ref().map_or(0.0, |p| p.time)
    }

    /// Playback speed.
    pub fn speed(&self) -> f64 {
        self.speed
    }

    /// Whether playback is paused.
    pub fn paused(&self) -> bool {
        self.paused
    }

    /// Whether the state machine has `state` (false without one).
    pub fn has_state(&self, state: &str) -> bool {
        self.machine
            .as_ref()
            .is_some_and(|m| m.state(state).is_some())
    }

    /// A parameter's value (0 when unset).
    pub fn param(&self, name: &str) -> f64 {
        self.params.get(name).copied().unwrap_or(0.0)
    }

    /// Recorded layer requests, by layer name.
    pub fn layers(&self) -> &BTreeMap<Arc<str>, LayerRecord> {
        &self.layers
    }

    /// `anim.curve`: the float curve `name` of the playing clip (with a state machine, the
    /// heaviest clip of the active state) at its clip time (0 when absent).
    pub fn curve(&self, name: &str) -> f64 {
        let (clip, time) = match (&self.base, &self.machine) {
            (Some(m), Some(_)) => {
                let Some(i) = heaviest_leaf(&m.leaves).and_then(|i| m.leaves.get(i)) else {
                    return 0.0;
                };
                let Some((_, c)) = self.slots.get(i.clip) else {
                    return 0.0;
                };
                (c, m.phase * c.seq.duration)
            }
            _ => match &self.playing {
                Some(p) => (&p.clip, p.time),
                None => return 0.0,
            },
        };
        let seq = &clip.seq;
        if !(seq.duration.is_finite() && seq.duration > 0.0 && time.is_finite()) {
            return 0.0;
        }
        let t = time.rem_euclid(seq.duration);
        match seq
            .curves
            .iter()
            .find(|c| c.name == name)
            .and_then(|c| c.sample(t))
        {
            Some(CurveValue::Float(v)) if v.is_finite() => v,
            _ => 0.0,
        }
    }

    /// Applies one command now.
    fn apply(&mut self, c: AnimCommand) {
        match c {
            AnimCommand::Play(slot) => {
                if self.machine.is_none() {
                    self.play(&slot);
                }
            }
            AnimCommand::SetParam(name, v) => {
                self.params.insert(name, v);
            }
            AnimCommand::SetState(name) => self.request_state(&name),
            AnimCommand::PlayOnLayer(layer, clip) => {
                self.layer(layer.clone()).clip = Some(clip.clone());
                self.play_on_layer(layer, &clip);
            }
            AnimCommand::StopLayer(layer) => {
                self.layer(layer.clone()).clip = None;
                if let Some(l) = self.layer_runs.iter_mut().find(|l| l.name == layer) {
                    l.clip = None;
                    l.fade = None;
                }
            }
            AnimCommand::SetLayerWeight(layer, w) => {
                self.layer(layer.clone()).weight = w;
                match self.layer_runs.iter_mut().find(|l| l.name == layer) {
                    Some(l) => l.weight = sanitize_weight(w),
                    None => self.layer_runs.push(LayerRun {
                        name: layer,
                        weight: sanitize_weight(w),
                        clip: None,
                        fade: None,
                    }),
                }
            }
            AnimCommand::Seek(t) => {
                if !t.is_finite() {
                    return;
                }
                if let Some(p) = &mut self.playing {
                    p.time = t;
                    p.started = true;
                }
                if let Some(m) = &mut self.base {
                    let l = cycle_length(&m.leaves, &self.slots);
                    if l > 0.0 {
                        m.phase = t / l;
                        m.started = true;
                    }
                }
            }
            AnimCommand::Pause => self.paused = true,
            AnimCommand::Resume => self.paused = false,
            AnimCommand::SetSpeed(s) => {
                if s.is_finite() {
                    self.speed = s;
                }
            }
        }
    }

    /// `SetState`: unknown → rejected without side effects; active → nothing; else crossfade.
    fn request_state(&mut self, name: &str) {
        let Some(m) = self.machine.clone() else {
            self.rejected.push(format!(
                "state `{name}` requested, but this animator has no state machine"
            ));
            return;
        };
        let Some(to) = m.state(name) else {
            self.rejected.push(format!(
                "state `{name}` requested, but the state machine has none"
            ));
            return;
        };
        self.enter(&m, to, self.blend_duration);
    }

    /// Starts state `to` (not the active one) with a crossfade of `blend` seconds.
    fn enter(&mut self, m: &Machine, to: usize, blend: f64) {
        let Some(cur) = self.base.take() else {
            self.base = Some(Motion::new(to));
            return;
        };
        if cur.state == to {
            self.base = Some(cur);
            return;
        }
        if let (Some(a), Some(b)) = (m.states.get(cur.state), m.states.get(to)) {
            self.changes.push(StateChange {
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
        self.fade = (blend > 0.0 && cur.started).then_some(Fade {
            from: cur,
            elapsed: 0.0,
            duration: blend,
        });
        self.base = Some(Motion::new(to));
    }

    fn play_on_layer(&mut self, layer: Arc<str>, slot: &str) {
        let Some((slot, clip)) = self.slots.iter().find(|(s, _)| &**s == slot).cloned() else {
            self.rejected.push(format!(
                "clip `{slot}` requested on layer `{layer}`, but the animator has no such clip"
            ));
            return;
        };
        let blend = self.blend_duration;
        let idx = match self.layer_runs.iter().position(|l| l.name == layer) {
            Some(i) => i,
            None => {
                self.layer_runs.push(LayerRun {
                    name: layer,
                    weight: 1.0,
                    clip: None,
                    fade: None,
                });
                self.layer_runs.len() - 1
            }
        };
        let Some(l) = self.layer_runs.get_mut(idx) else {
            return;
        };
        let new = Playback {
            slot,
            clip,
            time: 0.0,
            started: false,
        };
        match l.clip.take() {
            Some(old) if blend > 0.0 && old.started => {
                l.fade = Some(Fade {
                    from: old,
                    elapsed: 0.0,
                    duration: blend,
                });
            }
            _ => l.fade = None,
        }
        l.clip = Some(new);
    }

    fn layer(&mut self, name: Arc<str>) -> &mut LayerRecord {
        self.layers.entry(name).or_insert(LayerRecord {
            clip: None,
            weight: 1.0,
        })
    }

    /// Applies queued commands, then advances by `dt`: transitions, crossfades, trees, layers,
    /// root motion. The crossings to evaluate land in `self.fires`, state changes in
    /// `self.changes`, rejected requests in `self.rejected`.
    fn advance(&mut self, dt: f64) -> Result<(), String> {
        self.fires.clear();
        self.changes.clear();
        self.rejected.clear();
        self.last_delta = RootDelta::ZERO;
        for c in std::mem::take(&mut self.commands) {
            self.apply(c);
        }
        if self.paused {
            return Ok(());
        }
        let step = dt * self.speed;
        let mut delta = RootDelta::ZERO;
        let mut result = Ok(());
        if let Some(p) = &mut self.playing
            && let Some(slot) = self.slots.iter().position(|(s, _)| *s == p.slot)
        {
            match advance_playback(p, step, true) {
                Ok(interval) => {
                    self.fires.push(Fire { slot, interval });
                    add_root(&self.root, slot, &interval, 1.0, &mut delta);
                }
                Err(e) => {
                    result = Err(e);
                    self.playing = None;
                }
            }
        }
        if let Some(m) = self.machine.clone() {
            self.advance_machine(&m, dt, step, &mut delta);
        }
        self.advance_layers(dt, step);
        self.apply_root(delta);
        self.evaluate_pose();
        result
    }

    /// Evaluates the pose into the rig's reused buffers.
    fn evaluate_pose(&mut self) {
        let hold = self.has_root_motion();
        let Some(rig) = self.rig.as_deref_mut() else {
            return;
        };
        let PoseRig {
            skeleton,
            clips,
            layers,
            root,
            eval,
            pose,
            scratch,
        } = rig;
        match (&self.machine, &self.base) {
            (Some(m), Some(cur)) => {
                let looping = m.states.get(cur.state).is_none_or(|s| s.looping);
                eval.evaluate(skeleton, &cur.leaves, clips, cur.phase, looping, pose);
                if let Some(f) = &self.fade {
                    let looping = m.states.get(f.from.state).is_none_or(|s| s.looping);
                    eval.evaluate(
                        skeleton,
                        &f.from.leaves,
                        clips,
                        f.from.phase,
                        looping,
                        scratch,
                    );
                    // `f.elapsed` already includes this update.
                    let w_in = if f.duration > 0.0 {
                        (f.elapsed / f.duration).min(1.0)
                    } else {
                        1.0
                    };
                    lerp_pose(scratch, pose, w_in as f32);
                    std::mem::swap(pose, scratch);
                }
            }
            _ => match self.playing.as_ref().and_then(|p| {
                Some((
                    p,
                    clips.get(self.slots.iter().position(|(s, _)| *s == p.slot)?)?,
                ))
            }) {
                Some((p, c)) => c.sample_pose(skeleton, wrapped(p.time, c), pose),
                None => pose.set_rest(skeleton),
            },
        }
        for l in &self.layer_runs {
            let (mask, additive) = layers
                .get(&l.name)
                .map_or((None, false), |(m, a)| (m.as_ref(), *a));
            let w = l.weight as f32;
            let mut apply = |p: &Playback, w: f32| {
                let Some(c) = self
                    .slots
                    .iter()
                    .position(|(s, _)| *s == p.slot)
                    .and_then(|i| clips.get(i))
                else {
                    return;
                };
                let t = wrapped(p.time, c);
                if additive {
                    apply_additive(pose, c, t, mask, w);
                } else {
                    apply_override_clip(pose, c, t, mask, w);
                }
            };
            let fade_in = match &l.fade {
                Some(f) if f.duration > 0.0 => {
                    apply(&f.from, w);
                    (f.elapsed / f.duration).min(1.0) as f32
                }
                _ => 1.0,
            };
            if let Some(p) = &l.clip {
                apply(p, w * fade_in);
            }
        }
        if hold && let Some((bone, yaw)) = *root {
            hold_root(pose, skeleton, bone, yaw);
        }
    }

    fn advance_machine(&mut self, m: &Machine, dt: f64, step: f64, delta: &mut RootDelta) {
        // Transitions: checked in authored order against the state as it stands (a state that
        // has not started yet cannot be left in the same update it starts).
        if let Some(cur) = &self.base
            && cur.started
        {
            let params = &self.params;
            let read = |p: &str| params.get(p).copied().unwrap_or(0.0);
            if let Some(t) = m.select(cur.state, &read, cur.finished) {
                let (to, blend) = (t.to, t.blend);
                self.enter(m, to, blend);
            }
        }
        let fade_w = self.fade.as_ref().map(|f| {
            let after = if f.duration > 0.0 {
                ((f.elapsed + dt) / f.duration).min(1.0)
            } else {
                1.0
            };
            (f.weight_before() > 0.0, after)
        });
        let params = &self.params;
        let read = |p: &str| {
            let v = params.get(p).copied().unwrap_or(0.0);
            v as f32
        };
        let incoming_w = fade_w.map_or(1.0, |(_, a)| a);
        if let Some(cur) = &mut self.base {
            step_motion(
                m,
                cur,
                step,
                &read,
                &self.slots,
                &self.root,
                incoming_w,
                true,
                &mut self.fires,
                delta,
            );
        }
        if let Some(f) = &mut self.fade {
            let (fires, _) = fade_w.unwrap_or((false, 1.0));
            step_motion(
                m,
                &mut f.from,
                step,
                &read,
                &self.slots,
                &self.root,
                1.0 - incoming_w,
                fires,
                &mut self.fires,
                delta,
            );
            f.elapsed += dt;
            if f.elapsed >= f.duration {
                self.fade = None;
            }
        }
    }

    fn advance_layers(&mut self, dt: f64, step: f64) {
        for l in &mut self.layer_runs {
            let fires = l.weight > 0.0;
            if let Some(p) = &mut l.clip
                && let Some(slot) = self.slots.iter().position(|(s, _)| *s == p.slot)
            {
                match advance_playback(p, step, true) {
                    Ok(interval) if fires => self.fires.push(Fire { slot, interval }),
                    Ok(_) => {}
                    Err(e) => {
                        self.rejected.push(e);
                        l.clip = None;
                    }
                }
            }
            if let Some(f) = &mut l.fade {
                let before = f.weight_before() > 0.0;
                if let Some(slot) = self.slots.iter().position(|(s, _)| *s == f.from.slot)
                    && let Ok(interval) = advance_playback(&mut f.from, step, true)
                    && before
                    && fires
                {
                    self.fires.push(Fire { slot, interval });
                }
                f.elapsed += dt;
                if f.elapsed >= f.duration {
                    l.fade = None;
                }
            }
        }
    }

    fn apply_root(&mut self, delta: RootDelta) {
        let Some(r) = self.root.as_ref().filter(|r| r.mode != RootMotionMode::Off) else {
            return; // no motion to apply (and no sin/cos per update)
        };
        if !(delta.translation.is_finite() && delta.yaw.is_finite()) {
            return;
        }
        // Clip-space motion turns with the entity: rotate by the yaw before this update, into
        // the entity's parent space (what `Extract` publishes and `Transform` applies).
        let (s, c) = self.yaw.sin_cos();
        let t = delta.translation;
        let moved = DVec3::new(c * t.x + s * t.z, 0.0, -s * t.x + c * t.z);
        self.last_delta = RootDelta {
            translation: moved,
            yaw: delta.yaw,
        };
        if r.mode == RootMotionMode::Transform {
            let p = self.position + moved;
            let y = self.yaw + delta.yaw;
            if p.is_finite() && y.is_finite() {
                self.position = p;
                self.yaw = y;
            }
        }
    }
}

/// Tolerance for a non-looping state reaching its end, in cycles.
pub const PHASE_EPSILON: f64 = 1e-9;

/// Default crossfade seconds for requests and layer changes.
pub const DEFAULT_BLEND_DURATION: f64 = 0.2;

fn sanitize_weight(w: f64) -> f64 {
    if w.is_finite() {
        w.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// Weighted cycle length `L = Σ wᵢ·lenᵢ / Σ wᵢ` over base leaves (0 when it cannot be formed).
fn cycle_length(leaves: &[Leaf], slots: &[(Arc<str>, Arc<Clip>)]) -> f64 {
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

/// Advances a single clip's playback by `step` seconds of clip time.
fn advance_playback(
    p: &mut Playback,
    step: f64,
    looping: bool,
) -> Result<PlaybackInterval, String> {
    let from = p.time;
    let to = from + step;
    if !to.is_finite() {
        return Err(format!(
            "playback time of clip `{}` left the finite range; clip stopped",
            p.slot
        ));
    }
    let interval = if p.started {
        PlaybackInterval::Advance { from, to, looping }
    } else {
        p.started = true;
        PlaybackInterval::Start {
            at: from,
            to,
            looping,
        }
    };
    p.time = to;
    Ok(interval)
}

fn add_root(
    root: &Option<RootMotion>,
    slot: usize,
    i: &PlaybackInterval,
    w: f32,
    out: &mut RootDelta,
) {
    let Some(r) = root else { return };
    if r.mode == RootMotionMode::Off || w <= 0.0 {
        return;
    }
    let Some(Some(rc)) = r.clips.get(slot) else {
        return;
    };
    let (from, to, looping) = match *i {
        PlaybackInterval::Start { at, to, looping } => (at, to, looping),
        PlaybackInterval::Advance { from, to, looping } => (from, to, looping),
        _ => return,
    };
    out.add_weighted(&rc.delta(from, to, looping), w);
}

/// Advances one state's motion: leaf weights from the parameters, the shared phase by
/// `step / L`, the heaviest clip's crossings (when `fires`), and every clip's root motion
/// weighted by `side_w` × its leaf weight.
#[allow(clippy::too_many_arguments)]
fn step_motion(
    m: &Machine,
    motion: &mut Motion,
    step: f64,
    read: &dyn Fn(&str) -> f32,
    slots: &[(Arc<str>, Arc<Clip>)],
    root: &Option<RootMotion>,
    side_w: f64,
    fires: bool,
    out: &mut Vec<Fire>,
    delta: &mut RootDelta,
) {
    let Some(state) = m.states.get(motion.state) else {
        return;
    };
    state.tree.leaves(read, &mut motion.leaves);
    let l = cycle_length(&motion.leaves, slots);
    let from = motion.phase;
    let seconds = step * state.speed;
    let mut to = from;
    if l > 0.0 && seconds.is_finite() {
        let t = from + seconds / l;
        if t.is_finite() {
            // A non-looping state that ends within 1e-9 cycles of its end has ended (summing
            // `dt / L` steps must not finish a tick late by rounding).
            to = if state.looping {
                t
            } else if t >= 1.0 - PHASE_EPSILON {
                1.0
            } else {
                t.max(0.0)
            };
        }
    }
    let start = !motion.started;
    motion.started = true;
    motion.phase = to;
    motion.finished = !state.looping && to >= 1.0;
    let heaviest = heaviest_leaf(&motion.leaves);
    for (i, lf) in motion.leaves.iter().enumerate() {
        let Some((_, c)) = slots.get(lf.clip) else {
            continue;
        };
        let len = c.seq.duration;
        let (a, b) = (from * len, to * len);
        let interval = if start {
            PlaybackInterval::Start {
                at: a,
                to: b,
                looping: state.looping,
            }
        } else {
            PlaybackInterval::Advance {
                from: a,
                to: b,
                looping: state.looping,
            }
        };
        if !lf.additive {
            add_root(
                root,
                lf.clip,
                &interval,
                (side_w * f64::from(lf.weight)) as f32,
                delta,
            );
        }
        if fires && Some(i) == heaviest {
            out.push(Fire {
                slot: lf.clip,
                interval,
            });
        }
    }
}

/// A crossing ready to publish (after the animator's borrow ends).
struct Fired {
    owner: Entity,
    slot: Arc<str>,
    notify: ClipNotify,
    crossing: Crossing,
}

/// The animation update (exclusive system, runs in [`AnimationSet`](super::AnimationSet)):
/// every [`Animator`] applies its queued requests and advances by the tick's `dt`; each crossing
/// is published to its target's channel (owner, or the entity in the owner's graph variable,
/// resolved now) and traced. Animators run in entity order.
pub fn animate(world: &mut World) {
    let dt = world
        .get_resource::<GameTime>()
        .map_or(super::schedule::DEFAULT_DT, GameTime::dt);
    let mut entities: Vec<Entity> = world
        .query_filtered::<Entity, With<Animator>>()
        .iter(world)
        .collect();
    entities.sort_by_key(|e| (e.index_u32(), e.to_bits()));
    let mut crossings = Vec::new();
    let mut fired = Vec::new();
    let mut changes = Vec::new();
    let mut errors = Vec::new();
    for owner in entities {
        {
            let Some(mut a) = world.get_mut::<Animator>(owner) else {
                continue;
            };
            let a = &mut *a;
            if let Err(e) = a.advance(dt) {
                errors.push(e);
            }
            errors.append(&mut a.rejected);
            changes.append(&mut a.changes);
            for f in &a.fires {
                let Some((slot, clip)) = a.slots.get(f.slot) else {
                    continue;
                };
                crossings.clear();
                match clip
                    .index
                    .query_into(&mut crossings, &f.interval, DEFAULT_LIMIT)
                {
                    Ok(truncated) => {
                        fired.extend(crossings.iter().filter_map(|c| {
                            let notify = clip.notifies.get(c.notify as usize)?.clone();
                            Some(Fired {
                                owner,
                                slot: slot.clone(),
                                notify,
                                crossing: *c,
                            })
                        }));
                        if truncated {
                            errors.push(format!(
                                "clip `{slot}` crossed more than {DEFAULT_LIMIT} notifies in one update; the rest were dropped"
                            ));
                        }
                    }
                    Err(e) => errors.push(e.to_string()),
                }
            }
        }
        for c in changes.drain(..) {
            trace::record(
                world,
                TraceKind::State {
                    entity: owner,
                    from: c.from,
                    to: c.to,
                },
            );
        }
        for message in errors.drain(..) {
            trace::error(world, Some(owner), None, None, message);
        }
        for f in fired.drain(..) {
            publish(world, f);
        }
    }
}

/// Resolves a crossing's target and publishes it (or traces why it was dropped).
fn publish(world: &mut World, f: Fired) {
    let target = match &f.notify.target {
        Target::Owner => Ok(f.owner),
        Target::Variable(v) => {
            let declared = world
                .get::<Graphs>(f.owner)
                .and_then(|g| g.resolve_entity_var(v));
            let id = &f.notify.identity;
            match declared {
                None => Err(format!(
                    "notify `{id}` targets variable `{v}`, which no graph on this entity declares as an entity; dropped"
                )),
                Some(None) => Err(format!(
                    "notify `{id}` targets variable `{v}`, which is unset; dropped"
                )),
                Some(Some(bits)) => match Entity::try_from_bits(bits) {
                    Some(e) if world.entities().contains_spawned(e) => Ok(e),
                    _ => Err(format!(
                        "notify `{id}` targets variable `{v}`, whose entity no longer exists; dropped"
                    )),
                },
            }
        }
    };
    let target = match target {
        Ok(t) => t,
        Err(message) => {
            trace::error(world, Some(f.owner), None, None, message);
            return;
        }
    };
    let n = Notify {
        source: f.owner.to_bits(),
        time: f.crossing.time,
        clip_time: f.crossing.clip_time,
        cycle: f.crossing.cycle,
    };
    let ok = world
        .get_resource_mut::<EventHub>()
        .is_some_and(|mut hub| hub.publisher().notify(f.notify.id, target, n));
    if ok {
        trace::record(
            world,
            TraceKind::Notify {
                entity: target,
                event: f.notify.identity,
                clip: f.slot,
                clip_time: f.crossing.clip_time,
                cycle: f.crossing.cycle,
            },
        );
    } else {
        trace::error(
            world,
            Some(f.owner),
            None,
            None,
            format!("notify `{}` dropped: event queue full", f.notify.identity),
        );
    }
}
