//! Poses for the studio's clip preview (`GET /api/pose`, `/api/poses`): one clip sampled on its
//! skeleton exactly as `sinew sample` and the runtime sample it ([`ClipBinding`]), each bone's
//! local transform, its model-space ("world") transform by forward kinematics, and the root
//! motion from clip time 0. Bones come in `sinew sample`'s order: track order, then the
//! skeleton's other bones. Pure; the JSON is written straight into a `String` with each `f32`
//! as its own shortest decimal (`crate::number`'s rule), so 600 frames of 64 bones stay fast.

use super::pose::{Pose, Transform};
use super::root_motion::{RootClip, find_root_bone};
use super::sample::{ClipBinding, CompiledClip};
use super::skeleton::Skeleton;
use crate::animseq::AnimSeq;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Most frames one `/api/poses` answer holds (`docs/limits.md`).
pub const MAX_FRAMES: usize = 10_000;

/// One clip bound to its skeleton, ready to sample.
pub struct PosePlayer {
    clip: CompiledClip,
    skel: Skeleton,
    binding: ClipBinding,
    root: Option<RootClip>,
    order: Vec<usize>,
    /// Each bone's constant JSON head, `{"name":…,"parent":…,"local":`, escaped once.
    heads: Vec<String>,
    duration: f64,
}

/// Why frames cannot be sampled.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FramesError {
    /// `fps` is not a positive finite number.
    #[error("fps must be a positive number, got {0}")]
    Fps(f64),
    /// `from`/`to` are not finite or `to < from`.
    #[error("from and to must be finite with from ≤ to, got {0} and {1}")]
    Range(f64, f64),
    /// More than [`MAX_FRAMES`].
    #[error("{0} frames asked for; at most {MAX_FRAMES} per request")]
    TooMany(f64),
}

impl PosePlayer {
    /// Binds `seq` to `skeleton` (or, without one, the flat skeleton of its track names, as
    /// `sinew sample` does).
    pub fn new(seq: &AnimSeq, skeleton: Option<Skeleton>, name: &str) -> PosePlayer {
        let clip = CompiledClip::new(seq);
        let skel = skeleton.unwrap_or_else(|| {
            Skeleton::from_track_names(seq.tracks.iter().map(|t| t.bone.as_str()))
        });
        let (binding, _) = ClipBinding::new(&clip, &skel, &BTreeMap::new(), name);
        let mut order = Vec::with_capacity(skel.len());
        let mut listed = vec![false; skel.len()];
        for tr in &seq.tracks {
            if let Some(b) = skel.find(&tr.bone)
                && !listed[b]
            {
                listed[b] = true;
                order.push(b);
            }
        }
        order.extend((0..skel.len()).filter(|&b| !listed[b]));
        let (bone_name, yaw) = seq
            .root_motion
            .as_ref()
            .map_or(("", false), |r| (r.bone.as_str(), r.yaw));
        let root = find_root_bone(&skel, bone_name).map(|b| RootClip::new(&clip, &binding, b, yaw));
        let heads = skel
            .bones()
            .iter()
            .map(|bone| {
                let mut h = String::from("{\"name\":");
                push_str(&mut h, &bone.name);
                h.push_str(",\"parent\":");
                match bone.parent.and_then(|p| skel.bones().get(p)) {
                    Some(p) => push_str(&mut h, &p.name),
                    None => h.push_str("null"),
                }
                h.push_str(",\"local\":");
                h
            })
            .collect();
        PosePlayer {
            heads,
            duration: clip.duration,
            clip,
            skel,
            binding,
            root,
            order,
        }
    }

    /// The clip's duration in seconds.
    pub fn duration(&self) -> f64 {
        self.duration
    }

    /// The bone count.
    pub fn bones(&self) -> usize {
        self.skel.len()
    }

    /// The index of bone `name` (matched across `:`/`_`/case), or a did-you-mean message.
    pub fn find(&self, name: &str) -> Result<usize, String> {
        self.skel.find(name).ok_or_else(|| {
            let names = self.skel.bones().iter().map(|b| b.name.as_str());
            let hint = crate::suggest::closest(name, names)
                .map(|c| format!(" (did you mean `{c}`?)"))
                .unwrap_or_default();
            format!("the clip's skeleton has no bone `{name}`{hint}")
        })
    }

    /// Clip time `t` clamped to `[0, duration]` (as `sinew sample`).
    pub fn clamp(&self, t: f64) -> f64 {
        if t.is_nan() {
            0.0
        } else {
            t.clamp(0.0, self.duration)
        }
    }

    /// The frame times from `from` to `to` at `fps`: `from + k/fps` while at most `to` (within
    /// a millionth of a frame, so `to` itself is the last when `to − from` is whole frames).
    pub fn frame_times(from: f64, to: f64, fps: f64) -> Result<Vec<f64>, FramesError> {
        if !fps.is_finite() || fps <= 0.0 {
            return Err(FramesError::Fps(fps));
        }
        if !from.is_finite() || !to.is_finite() || to < from {
            return Err(FramesError::Range(from, to));
        }
        let count = ((to - from) * fps + 1e-6).floor() + 1.0;
        if !count.is_finite() || count > MAX_FRAMES as f64 {
            return Err(FramesError::TooMany(count));
        }
        Ok((0..count as usize).map(|k| from + k as f64 / fps).collect())
    }

    /// Appends frame `t`'s JSON (`{"t", "bones": [...], "root_motion"}`) to `o`; `only` keeps
    /// one bone. `pose` and `world` are scratch buffers reused across frames.
    pub fn write_frame(&self, o: &mut String, t: f64, only: Option<usize>, scratch: &mut Scratch) {
        let t = self.clamp(t);
        if scratch.pose.len() != self.skel.len() {
            scratch.pose = Pose::rest(&self.skel);
        } else {
            scratch.pose.set_rest(&self.skel);
        }
        self.binding.sample(&self.clip, t, &mut scratch.pose);
        let world = &mut scratch.world;
        world.clear();
        for (i, b) in self.skel.bones().iter().enumerate() {
            let local = scratch.pose.local(i);
            let w = match b.parent {
                Some(p) if p < world.len() => world[p].mul(&local),
                _ => local,
            };
            world.push(w);
        }
        o.push_str("{\"t\":");
        push_f64(o, t);
        o.push_str(",\"bones\":[");
        let mut first = true;
        for &b in &self.order {
            if only.is_some_and(|x| x != b) {
                continue;
            }
            if !first {
                o.push(',');
            }
            first = false;
            o.push_str(&self.heads[b]);
            push_transform(o, &scratch.pose.local(b));
            o.push_str(",\"world\":");
            push_transform(o, &world[b]);
            o.push('}');
        }
        let d = self
            .root
            .as_ref()
            .map(|r| r.delta(0.0, t, false))
            .unwrap_or_default();
        o.push_str("],\"root_motion\":{\"translation\":[");
        for (i, x) in d.translation.to_array().into_iter().enumerate() {
            if i > 0 {
                o.push(',');
            }
            push_f64(o, x);
        }
        o.push_str("],\"yaw\":");
        push_f64(o, d.yaw);
        o.push_str("}}");
    }
}

/// Buffers [`PosePlayer::write_frame`] reuses.
#[derive(Default)]
pub struct Scratch {
    pose: Pose,
    world: Vec<Transform>,
}

fn push_transform(o: &mut String, t: &Transform) {
    o.push_str("{\"translation\":");
    push_f32s(o, &t.translation.to_array());
    o.push_str(",\"rotation\":");
    push_f32s(o, &t.rotation.to_array());
    o.push_str(",\"scale\":");
    push_f32s(o, &t.scale.to_array());
    o.push('}');
}

fn push_f32s(o: &mut String, v: &[f32]) {
    o.push('[');
    for (i, &x) in v.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        if x.is_finite() {
            o.push_str(zmij::Buffer::new().format_finite(x));
        } else {
            o.push_str("null");
        }
    }
    o.push(']');
}

fn push_f64(o: &mut String, x: f64) {
    if x.is_finite() {
        o.push_str(zmij::Buffer::new().format_finite(x));
    } else {
        o.push_str("null");
    }
}

fn push_str(o: &mut String, s: &str) {
    let _ = write!(o, "{}", serde_json::Value::from(s));
}
