//! The minimal animator: clip slots holding loaded `.animseq` sequences, one clip playing from
//! time 0, looping, at a speed, with seek/pause/resume; each update publishes the notify
//! crossings of the interval the clip moved to the notify's target channel. State machines,
//! blend trees, layers and root motion belong to the full animation runtime (a later issue):
//! their requests are accepted and recorded here, without effect on playback.
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
use crate::animseq::{AnimSeq, CurveValue, FieldValue, Target};
use crate::crossing::{Crossing, DEFAULT_LIMIT, IndexError, NotifyIndex, PlaybackInterval};

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

/// A request to an animator. Handlers' requests (`anim.*`) and scene actions are queued and
/// applied at the start of the next animation update.
#[derive(Debug, Clone, PartialEq)]
pub enum AnimCommand {
    /// Plays clip slot `slot` from time 0.
    Play(Arc<str>),
    /// `SetParam` / `anim.set_param`: recorded (read back by `anim.get_param`).
    SetParam(Arc<str>, f64),
    /// `SetState` / `anim.set_state`: needs a state machine; the minimal animator has none.
    SetState(Arc<str>),
    /// `PlayOnLayer`: recorded only.
    PlayOnLayer(Arc<str>, Arc<str>),
    /// `StopLayer`: recorded only.
    StopLayer(Arc<str>),
    /// `SetLayerWeight`: recorded only.
    SetLayerWeight(Arc<str>, f64),
    /// Moves the playhead to clip time `t` (unwrapped); fires nothing.
    Seek(f64),
    /// Stops advancing.
    Pause,
    /// Advances again.
    Resume,
    /// Sets the playback speed (negative plays in reverse).
    SetSpeed(f64),
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

/// The minimal animator component.
#[derive(Component, Debug)]
pub struct Animator {
    clips: BTreeMap<Arc<str>, Arc<Clip>>,
    playing: Option<Playback>,
    speed: f64,
    paused: bool,
    commands: Vec<AnimCommand>,
    params: BTreeMap<Arc<str>, f64>,
    layers: BTreeMap<Arc<str>, LayerRecord>,
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
        }
    }

    /// Puts `clip` in slot `slot` (replacing what was there).
    pub fn add_clip(&mut self, slot: &str, clip: Arc<Clip>) {
        self.clips.insert(Arc::from(slot), clip);
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

    /// Whether the state machine has `state`: always false (no state machine).
    pub fn has_state(&self, _state: &str) -> bool {
        false
    }

    /// A parameter's value (0 when unset).
    pub fn param(&self, name: &str) -> f64 {
        self.params.get(name).copied().unwrap_or(0.0)
    }

    /// Recorded layer requests, by layer name.
    pub fn layers(&self) -> &BTreeMap<Arc<str>, LayerRecord> {
        &self.layers
    }

    /// `anim.curve`: the playing clip's float curve `name` at its clip time (0 when absent).
    pub fn curve(&self, name: &str) -> f64 {
        let Some(p) = &self.playing else { return 0.0 };
        let seq = &p.clip.seq;
        let t = p.time.rem_euclid(seq.duration);
        match seq
            .curves
            .iter()
            .find(|c| c.name == name)
            .and_then(|c| c.sample(t))
        {
            Some(CurveValue::Float(v)) => v,
            _ => 0.0,
        }
    }

    /// Applies one command now.
    fn apply(&mut self, c: AnimCommand) {
        match c {
            AnimCommand::Play(slot) => {
                self.play(&slot);
            }
            AnimCommand::SetParam(name, v) => {
                self.params.insert(name, v);
            }
            AnimCommand::SetState(_) => {} // no state machine
            AnimCommand::PlayOnLayer(layer, clip) => {
                self.layer(layer).clip = Some(clip);
            }
            AnimCommand::StopLayer(layer) => {
                self.layer(layer).clip = None;
            }
            AnimCommand::SetLayerWeight(layer, w) => {
                self.layer(layer).weight = w;
            }
            AnimCommand::Seek(t) => {
                if let Some(p) = &mut self.playing
                    && t.is_finite()
                {
                    p.time = t;
                    p.started = true;
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

    fn layer(&mut self, name: Arc<str>) -> &mut LayerRecord {
        self.layers.entry(name).or_insert(LayerRecord {
            clip: None,
            weight: 1.0,
        })
    }

    /// Applies queued commands, then advances by `dt`, writing the crossings of the interval
    /// moved into `out` (cleared first). Returns whether the crossing limit truncated them.
    fn advance(&mut self, dt: f64, out: &mut Vec<Crossing>) -> Result<bool, String> {
        out.clear();
        for c in std::mem::take(&mut self.commands) {
            self.apply(c);
        }
        let speed = self.speed;
        let paused = self.paused;
        let Some(p) = &mut self.playing else {
            return Ok(false);
        };
        if paused {
            return Ok(false);
        }
        let from = p.time;
        let to = from + dt * speed;
        if !to.is_finite() {
            return Err(format!(
                "playback time of clip `{}` left the finite range; clip stopped",
                p.slot
            ));
        }
        let interval = if p.started {
            PlaybackInterval::Advance {
                from,
                to,
                looping: true,
            }
        } else {
            p.started = true;
            PlaybackInterval::Start {
                at: from,
                to,
                looping: true,
            }
        };
        p.time = to;
        p.clip
            .index
            .query_into(out, &interval, DEFAULT_LIMIT)
            .map_err(|e| e.to_string())
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
    for owner in entities {
        let (res, playing) = {
            let Some(mut a) = world.get_mut::<Animator>(owner) else {
                continue;
            };
            let res = a.advance(dt, &mut crossings);
            if res.is_err() {
                a.playing = None;
            }
            let playing = a.playing.as_ref().map(|p| (p.slot.clone(), p.clip.clone()));
            (res, playing)
        };
        match (res, playing) {
            (Ok(truncated), Some((slot, clip))) => {
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
                    trace::error(
                        world,
                        Some(owner),
                        None,
                        None,
                        format!(
                            "clip `{slot}` crossed more than {DEFAULT_LIMIT} notifies in one update; the rest were dropped"
                        ),
                    );
                }
            }
            (Ok(_), None) => {}
            (Err(message), _) => trace::error(world, Some(owner), None, None, message),
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
