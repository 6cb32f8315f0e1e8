//! The animator: clip slots holding loaded `.animseq` sequences and one base motion — an
//! authored `.animsm` state machine (states playing clips or blend trees with clip sync,
//! transitions and requests crossfading linearly) or the default clip as a one-state machine
//! (looping, speed 1) — plus one list of layers playing their own clips, root motion moving the
//! entity, and seek/pause/resume/speed. Each update publishes the notify crossings of every
//! playing clip with weight > 0 (in a blend tree only the heaviest clip) and reports state
//! changes. With a [`PoseRig`] the local pose is evaluated after each update into reused
//! buffers (see `docs/runtime.md`).
//!
//! Parts: [`clip`] (loaded clips), [`playback`] (playheads, motions, crossfades, layers, the
//! update), [`pose`] (pose evaluation), [`root`] (root motion) and [`system`] (the `animate`
//! system; fired crossings are queued to the [`AnimatorOutput`] resource and resolved by the
//! runtime's notify step, so the animator never looks at graph instances).
//!
//! Playback keeps an unwrapped `f64` time on a tick clock (`anim::TickClock`: `u₀ + (k / rate) ·
//! speed` after `k` ticks since its speed took effect, never a running sum); each update's
//! interval starts exactly where the last one ended. The update in which a clip starts
//! evaluates `Start { at, to }` (so a marker at the start time fires), later updates
//! `Advance { from, to }`; a seek moves the playhead without firing anything and a paused
//! animator fires nothing (`crossings.md`).

mod clip;
mod playback;
mod pose;
mod reload;
mod root;
mod system;
mod windows;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use bevy_ecs::prelude::*;
use glam::DVec3;

pub use crate::anim::AnimCommand;
use crate::anim::state_machine::Machine;
use crate::anim::{Pose, RootDelta, RootMotionMode, heaviest_leaf};
use crate::animseq::CurveValue;
pub use crate::runtime::trace::NotifyFields;
pub(crate) use clip::ClipNotify;
pub use clip::{Clip, ClipError, field_value};
pub use playback::PHASE_EPSILON;
use playback::{Base, Fade, Fire, Layer, Playback, default_machine, sanitize_weight};
pub use pose::PoseRig;
pub use root::RootMotion;
pub use system::{AnimatorOutput, animate};
pub(crate) use system::{AnimatorRecord, Fired};

/// A state change of the last update, for the `state` trace line.
#[derive(Debug, Clone, PartialEq)]
pub struct StateChange {
    /// Previous state.
    pub from: Arc<str>,
    /// New state.
    pub to: Arc<str>,
}

/// The animator component. Removing it (or despawning its entity) ends its open windows.
#[derive(Component, Debug)]
#[component(on_remove = system::animator_removed)]
pub struct Animator {
    slots: Vec<(Arc<str>, Arc<Clip>)>,
    /// Slot name → index in `slots` (a scene may declare 100,000 slots: no linear search).
    slot_index: HashMap<Arc<str>, usize>,
    base: Option<Base>,
    speed: f64,
    paused: bool,
    commands: Vec<AnimCommand>,
    params: BTreeMap<Arc<str>, f64>,
    blend_duration: f64,
    layers: Vec<Layer>,
    /// Layer name → index in `layers` (created by name, never removed).
    layer_index: HashMap<Arc<str>, usize>,
    root: Option<RootMotion>,
    position: DVec3,
    yaw: f64,
    last_delta: RootDelta,
    fires: Vec<Fire>,
    changes: Vec<StateChange>,
    rejected: Vec<String>,
    rig: Option<Box<PoseRig>>,
    /// Windows open on the clip instances (`windows.rs`).
    open: Vec<windows::OpenWindow>,
    /// The clip instances alive after the last update, with effective weights (reused).
    live: Vec<(u64, f64)>,
    /// With windows open: the intervals of the last update before this one that moved
    /// (reused; `fires` and this buffer are swapped).
    fires_before: Vec<Fire>,
    /// The chance draws' key (scene seed and entity name).
    chance_key: u64,
    /// Changed from outside an update (clips, machine, layers, the default clip) since the
    /// last update with windows open: that update's live list may differ (`windows.rs`).
    touched: bool,
    /// With windows open, set by the update: nothing this update did can have changed the
    /// live clip instances or their weights (no command, crossfade, transition, layer fade or
    /// stopped clip), so no open window can be cut (`windows.rs`).
    settled: bool,
}

/// Most commands one animator keeps queued between updates (more are dropped: a runaway graph
/// cannot allocate without bound).
pub const MAX_QUEUED_COMMANDS: usize = 1 << 16;

/// Default crossfade seconds for requests and layer changes.
pub const DEFAULT_BLEND_DURATION: f64 = 0.2;

impl Default for Animator {
    fn default() -> Self {
        Animator::new()
    }
}

impl Animator {
    /// An animator with no clips, speed 1, not paused.
    pub fn new() -> Animator {
        Animator {
            slots: Vec::new(),
            slot_index: HashMap::new(),
            base: None,
            speed: 1.0,
            paused: false,
            commands: Vec::new(),
            params: BTreeMap::new(),
            blend_duration: DEFAULT_BLEND_DURATION,
            layers: Vec::new(),
            layer_index: HashMap::new(),
            root: None,
            position: DVec3::ZERO,
            yaw: 0.0,
            last_delta: RootDelta::ZERO,
            fires: Vec::new(),
            changes: Vec::new(),
            rejected: Vec::new(),
            rig: None,
            open: Vec::new(),
            live: Vec::new(),
            fires_before: Vec::new(),
            chance_key: clip::stable_hash(&0u64.to_le_bytes()),
            touched: true,
            settled: false,
        }
    }

    /// Puts `clip` in slot `slot` (replacing what was there). Slots get indices in the order
    /// they are first added (the indices a [`Machine`]'s trees use).
    pub fn add_clip(&mut self, slot: &str, clip: Arc<Clip>) {
        self.touched = true;
        match self.slot_index.get(slot) {
            Some(&i) => self.slots[i].1 = clip,
            None => {
                let name: Arc<str> = Arc::from(slot);
                self.slot_index.insert(name.clone(), self.slots.len());
                self.slots.push((name, clip));
            }
        }
    }

    /// The index of clip slot `slot`.
    pub fn slot_index(&self, slot: &str) -> Option<usize> {
        self.slot_index.get(slot).copied()
    }

    /// Gives the animator a state machine (compiled against [`Animator::slot_index`]); its entry
    /// state starts at the next update. The default clip does not also play.
    pub fn set_machine(&mut self, machine: Arc<Machine>) {
        self.touched = true;
        self.base = Some(Base::new(machine, true));
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
        self.touched = true;
        self.layer(Arc::from(name)).weight = sanitize_weight(weight);
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

    /// The pose rig (skeleton, bound clips, masks), when poses are evaluated.
    pub fn rig(&self) -> Option<&PoseRig> {
        self.rig.as_deref()
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

    /// The authored state machine's base, if any.
    fn machine(&self) -> Option<&Base> {
        self.base.as_ref().filter(|b| b.authored)
    }

    /// The active state's name (`None` without a state machine).
    pub fn current_state(&self) -> Option<&Arc<str>> {
        let b = self.machine()?;
        Some(&b.machine.states.get(b.current.state)?.name)
    }

    /// The outgoing state of a running crossfade.
    pub fn fading_from(&self) -> Option<&Arc<str>> {
        let b = self.machine()?;
        Some(&b.machine.states.get(b.fade.as_ref()?.from.state)?.name)
    }

    /// Starts slot `slot` from time 0 now (it starts at the next update) as the default clip,
    /// looping, at once (no crossfade; the scene's `default_clip`). Replaces a state machine.
    /// False for an unknown slot.
    pub fn play(&mut self, slot: &str) -> bool {
        let Some(i) = self.slot_index(slot) else {
            return false;
        };
        self.touched = true;
        self.base = Some(Base::default_clip(self.default_machine(), i));
        true
    }

    /// The default-clip machine (one state per slot), reused while the slots are the same.
    fn default_machine(&self) -> Arc<Machine> {
        match &self.base {
            Some(b) if !b.authored && b.machine.states.len() == self.slots.len() => {
                b.machine.clone()
            }
            _ => default_machine(&self.slots),
        }
    }

    /// `Play(clip, at)`: see [`AnimCommand::Play`] and `docs/windows.md`. Refused (an `error`
    /// record, nothing changes) with a state machine, for an unknown slot and for a time that
    /// is not finite; `at` is clamped to `[0, duration]`.
    fn play_at(&mut self, slot: &str, at: f64) {
        if self.machine().is_some() {
            self.rejected.push(format!(
                "clip `{slot}` played, but this animator runs a state machine (request a state \
                 with `SetState`, or play the clip on a layer)"
            ));
            return;
        }
        let Some(i) = self.slot_index(slot) else {
            self.rejected.push(format!(
                "clip `{slot}` played, but the animator has no such clip"
            ));
            return;
        };
        if !at.is_finite() {
            self.rejected.push(format!(
                "clip `{slot}` played at clip time {at}: the time must be finite"
            ));
            return;
        }
        let len = self.slots[i].1.seq.duration;
        let at = if len.is_finite() && len > 0.0 {
            at.clamp(0.0, len)
        } else {
            0.0
        };
        let machine = self.default_machine();
        let blend = self.blend_duration;
        match &mut self.base {
            Some(b) if Arc::ptr_eq(&b.machine, &machine) => b.play(i, at, blend),
            _ => {
                let mut b = Base::default_clip(machine, 0);
                b.play(i, at, 0.0);
                self.base = Some(b);
            }
        }
    }

    /// Anchors every playhead and crossfade clock at its current value (a resume: `(u₀, n₀)`
    /// are taken again).
    fn reanchor(&mut self) {
        if let Some(b) = &mut self.base {
            b.reanchor();
        }
        for l in &mut self.layers {
            if let Some(p) = &mut l.clip {
                p.clock.reanchor();
            }
            if let Some(f) = &mut l.fade {
                f.from.clock.reanchor();
                f.elapsed.reanchor();
            }
        }
    }

    /// Queues a request for the next animation update.
    pub fn queue(&mut self, c: AnimCommand) {
        if self.commands.len() < MAX_QUEUED_COMMANDS {
            self.commands.push(c);
        }
    }

    /// Queues a request of the scene's own setup (its layers' weights and clips) for the first
    /// update, past [`MAX_QUEUED_COMMANDS`]: a scene's lists are bounded by the scene limits
    /// (100,000 layers), and none of its setup may be dropped.
    pub fn queue_setup(&mut self, c: AnimCommand) {
        self.commands.push(c);
    }

    /// The default clip's slot, if one plays (`None` with a state machine).
    pub fn playing(&self) -> Option<&str> {
        let b = self.base.as_ref().filter(|b| !b.authored)?;
        Some(&b.machine.states.get(b.current.state)?.name)
    }

    /// Unwrapped playback time of the default clip (0 when none).
    pub fn time(&self) -> f64 {
        self.base
            .as_ref()
            .filter(|b| !b.authored)
            .map_or(0.0, |b| b.current.clip_time(0.0))
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
        self.machine()
            .is_some_and(|b| b.machine.state(state).is_some())
    }

    /// A parameter's value (0 when unset).
    pub fn param(&self, name: &str) -> f64 {
        self.params.get(name).copied().unwrap_or(0.0)
    }

    /// The layers in stacking order: name, the clip slot it plays (if any) and its weight.
    pub fn layers(&self) -> impl Iterator<Item = (&str, Option<&str>, f64)> {
        self.layers.iter().map(|l| {
            let clip = l
                .clip
                .as_ref()
                .and_then(|p| self.slots.get(p.slot))
                .map(|s| &*s.0);
            (&*l.name, clip, l.weight)
        })
    }

    /// `anim.curve`: the float curve `name` of the playing base clip (in a blend, the heaviest
    /// clip of the active state) at its clip time (0 when absent).
    pub fn curve(&self, name: &str) -> f64 {
        let Some(b) = &self.base else { return 0.0 };
        let m = &b.current;
        // Before its first update a one-clip state shows its clip at time 0.
        let clip = match heaviest_leaf(&m.leaves).and_then(|i| m.leaves.get(i)) {
            Some(leaf) => leaf.clip,
            None => match b.machine.states.get(m.state).map(|s| &s.tree) {
                Some(crate::anim::BlendTree::Clip(i)) => *i,
                _ => return 0.0,
            },
        };
        let Some((_, c)) = self.slots.get(clip) else {
            return 0.0;
        };
        let seq = &c.seq;
        let time = m.clip_time(seq.duration);
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

    /// Applies one command now (each command's behaviour).
    fn apply(&mut self, c: AnimCommand) {
        match c {
            AnimCommand::Play(slot, at) => self.play_at(&slot, at),
            AnimCommand::SetParam(name, v) => {
                self.params.insert(name, v);
            }
            AnimCommand::SetState(name) => self.request_state(&name),
            AnimCommand::PlayOnLayer(layer, clip) => self.play_on_layer(layer, &clip),
            AnimCommand::StopLayer(layer) => {
                let l = self.layer(layer);
                l.clip = None;
                l.fade = None;
            }
            AnimCommand::SetLayerWeight(layer, w) => self.layer(layer).weight = sanitize_weight(w),
            AnimCommand::Seek(t) => {
                if t.is_finite()
                    && let Some(b) = &mut self.base
                {
                    b.current.seek(t, &self.slots);
                }
            }
            AnimCommand::Pause => self.paused = true,
            AnimCommand::Resume => {
                if self.paused {
                    self.paused = false;
                    self.reanchor();
                }
            }
            AnimCommand::SetSpeed(s) => {
                if s.is_finite() && s.abs() <= crate::scene::MAX_SPEED {
                    self.speed = s;
                } else {
                    self.rejected.push(format!(
                        "speed {s} requested: the speed must be finite and within ±{}",
                        crate::scene::MAX_SPEED
                    ));
                }
            }
        }
    }

    /// `SetState`: unknown → rejected without side effects; active → nothing; else crossfade.
    fn request_state(&mut self, name: &str) {
        let blend = self.blend_duration;
        let Some(b) = self.base.as_mut().filter(|b| b.authored) else {
            self.rejected.push(format!(
                "state `{name}` requested, but this animator has no state machine"
            ));
            return;
        };
        let Some(to) = b.machine.state(name) else {
            self.rejected.push(format!(
                "state `{name}` requested, but the state machine has none"
            ));
            return;
        };
        b.enter(to, blend, &mut self.changes);
    }

    /// `PlayOnLayer`: onto an empty layer the clip starts at once; onto a playing one it
    /// crossfades over the blend duration. An unknown clip is rejected.
    fn play_on_layer(&mut self, layer: Arc<str>, slot: &str) {
        let Some(slot) = self.slot_index(slot) else {
            self.rejected.push(format!(
                "clip `{slot}` requested on layer `{layer}`, but the animator has no such clip"
            ));
            return;
        };
        let blend = self.blend_duration;
        let l = self.layer(layer);
        match l.clip.take() {
            Some(old) if blend > 0.0 && old.started => l.fade = Some(Fade::new(old, blend)),
            _ => l.fade = None,
        }
        l.clip = Some(Playback::new(slot));
    }

    /// The layer `name`, created (weight 1, no clip, on top) by the first command naming it.
    fn layer(&mut self, name: Arc<str>) -> &mut Layer {
        let i = match self.layer_index.get(&name) {
            Some(&i) => i,
            None => {
                self.layer_index.insert(name.clone(), self.layers.len());
                self.layers.push(Layer {
                    name,
                    weight: 1.0,
                    clip: None,
                    fade: None,
                });
                self.layers.len() - 1
            }
        };
        &mut self.layers[i]
    }
}
