//! Sampling `.animseq` clips into poses: a clip is compiled once (keys cleaned and stored as
//! glam values), bound once to a skeleton (track → bone index), then sampled per frame with no
//! allocation.
//!
//! Conventions: translation and scale interpolate linearly, rotation by normalized lerp on the
//! shortest path (a key with a negative dot to its predecessor is negated); times clamp to
//! `[0, duration]` (the end keys hold). Degenerate input is defined, never NaN: a NaN time samples
//! time 0; a clip whose duration is not finite and positive always shows time 0; keys with a
//! non-finite time or value, or a zero-length rotation, are dropped when compiling; unsorted keys
//! are sorted and keys at one time keep the last written; a channel left without keys leaves the
//! bone's pose untouched.

use super::pose::Pose;
use super::skeleton::{Skeleton, normalize_bone_name, short};
use super::*;
use crate::animseq::AnimSeq;
use crate::diag::Diagnostic;
use glam::{Quat, Vec3, Vec4};
use std::collections::BTreeMap;

/// How many distinct key-time lists one clip shares between its channels (more fall back to a
/// per-channel search).
pub const MAX_TIME_SETS: usize = 8;

/// Marks a channel that uses no shared time list.
pub const NO_SET: u8 = u8::MAX;

/// Located positions of one clip time in each of a clip's shared time lists.
pub type Positions = [KeyPos; MAX_TIME_SETS];

/// One cleaned channel: strictly increasing finite times, finite values.
#[derive(Clone, Debug, PartialEq)]
pub struct Channel<V> {
    /// Key times, strictly increasing, finite.
    pub times: Vec<f64>,
    /// Key values, one per time.
    pub values: Vec<V>,
    /// Index of the clip's shared time list equal to `times`, or [`NO_SET`].
    pub set: u8,
}

impl<V> Default for Channel<V> {
    fn default() -> Channel<V> {
        Channel {
            times: Vec::new(),
            values: Vec::new(),
            set: NO_SET,
        }
    }
}

/// Interpolation of one value type.
pub trait Interp: Copy {
    /// Value between `a` and `b` at `s ∈ [0, 1]`.
    fn interp(a: Self, b: Self, s: f32) -> Self;
}

impl Interp for Vec3 {
    #[inline]
    fn interp(a: Vec3, b: Vec3, s: f32) -> Vec3 {
        // `a(1-s) + bs` cannot overflow for finite keys and is exact at both ends.
        a * (1.0 - s) + b * s
    }
}

impl Interp for Quat {
    #[inline]
    fn interp(a: Quat, b: Quat, s: f32) -> Quat {
        nlerp(a, b, s)
    }
}

/// Shortest-path normalized lerp of unit quaternions; never NaN for unit inputs.
#[inline]
pub fn nlerp(a: Quat, b: Quat, s: f32) -> Quat {
    let b = if a.dot(b) < 0.0 { -b } else { b };
    let q = Quat::from_vec4(Vec4::from(a) * (1.0 - s) + Vec4::from(b) * s);
    let l = q.length_squared();
    if l > 1e-12 && l.is_finite() {
        q * l.sqrt().recip()
    } else {
        a
    }
}

/// Where a time falls among a channel's keys: values `i0` and `i1` mixed by `s`.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct KeyPos {
    /// Earlier key.
    pub i0: usize,
    /// Later key (equal to `i0` when clamped).
    pub i1: usize,
    /// Mix in `[0, 1]`.
    pub s: f32,
}

/// Locates clip time `t` among sorted key `times`; `None` without keys.
#[inline]
pub fn locate(times: &[f64], t: f64) -> Option<KeyPos> {
    let n = times.len();
    if n == 0 {
        return None;
    }
    Some(key_pos(times, times.partition_point(|&k| k <= t), t))
}

/// The position of time `t` given `i`, the number of `times` at or before `t` (the partition
/// point of `k <= t`); `times` is not empty. Shared by [`locate`] and the SoA sampler's key
/// cursors, so both give the same position for the same `i`.
#[inline]
pub(crate) fn key_pos(times: &[f64], i: usize, t: f64) -> KeyPos {
    let n = times.len();
    if i == 0 {
        return KeyPos {
            i0: 0,
            i1: 0,
            s: 0.0,
        };
    }
    if i >= n {
        return KeyPos {
            i0: n - 1,
            i1: n - 1,
            s: 0.0,
        };
    }
    let (t0, t1) = (times[i - 1], times[i]);
    let s = (((t - t0) / (t1 - t0)) as f32).clamp(0.0, 1.0);
    KeyPos {
        i0: i - 1,
        i1: i,
        s,
    }
}

impl<V: Interp> Channel<V> {
    /// Value at clip time `t` (clamped to the keys); `None` without keys.
    #[inline]
    pub fn sample(&self, t: f64) -> Option<V> {
        locate(&self.times, t).and_then(|k| self.at(k))
    }

    /// Value at clip time `t`, using the clip's pre-located `pos` when this channel shares a
    /// time list (one search per list per clip instead of one per channel).
    #[inline(always)]
    pub fn get(&self, pos: &Positions, t: f64) -> Option<V> {
        match self.values.len() {
            0 => None,
            1 => Some(self.values[0]),
            _ => match pos.get(usize::from(self.set)) {
                Some(k) => self.at(*k),
                None => self.sample(t),
            },
        }
    }

    /// Value at a located position (from this channel's times or identical ones).
    #[inline(always)]
    pub fn at(&self, k: KeyPos) -> Option<V> {
        let a = *self.values.get(k.i0)?;
        let b = *self.values.get(k.i1)?;
        Some(if k.i0 == k.i1 {
            a
        } else {
            V::interp(a, b, k.s)
        })
    }

    /// The first key's value.
    pub fn first(&self) -> Option<V> {
        self.values.first().copied()
    }

    fn build(mut keys: Vec<(f64, V)>) -> Channel<V> {
        keys.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut out = Channel {
            times: Vec::with_capacity(keys.len()),
            values: Vec::with_capacity(keys.len()),
            set: NO_SET,
        };
        for (t, v) in keys {
            if out.times.last() == Some(&t) {
                if let Some(last) = out.values.last_mut() {
                    *last = v;
                }
            } else {
                out.times.push(t);
                out.values.push(v);
            }
        }
        out
    }
}

/// One compiled bone track.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompiledTrack {
    /// The bone name as written in the clip.
    pub bone: String,
    /// Translation keys.
    pub translation: Channel<Vec3>,
    /// Rotation keys (unit quaternions).
    pub rotation: Channel<Quat>,
    /// Scale keys.
    pub scale: Channel<Vec3>,
}

impl CompiledTrack {
    /// Whether any channel has keys.
    pub fn is_animated(&self) -> bool {
        !(self.translation.times.is_empty()
            && self.rotation.times.is_empty()
            && self.scale.times.is_empty())
    }
}

/// A clip ready for sampling.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompiledClip {
    /// Seconds; `0.0` marks a degenerate clip (not finite or not positive in the source).
    pub duration: f64,
    /// Tracks in the clip's order.
    pub tracks: Vec<CompiledTrack>,
    /// Distinct key-time lists shared by channels (at most [`MAX_TIME_SETS`]).
    pub time_sets: Vec<Vec<f64>>,
}

impl CompiledClip {
    /// Compiles a clip, cleaning keys as the module doc describes.
    pub fn new(seq: &AnimSeq) -> CompiledClip {
        let duration = if seq.duration.is_finite() && seq.duration > 0.0 {
            seq.duration
        } else {
            0.0
        };
        let v3 = |keys: &[(f64, [f32; 3])]| {
            Channel::build(
                keys.iter()
                    .filter(|(t, v)| t.is_finite() && v.iter().all(|x| x.is_finite()))
                    .map(|&(t, v)| (t, Vec3::from_array(v)))
                    .collect(),
            )
        };
        let tracks = seq
            .tracks
            .iter()
            .map(|tr| CompiledTrack {
                bone: tr.bone.clone(),
                translation: v3(&tr.translation),
                scale: v3(&tr.scale),
                rotation: Channel::build(
                    tr.rotation
                        .iter()
                        .filter_map(|&(t, q)| {
                            let q = Quat::from_array(q);
                            let l = q.length_squared();
                            (t.is_finite() && q.is_finite() && l.is_normal())
                                .then(|| (t, q * l.sqrt().recip()))
                        })
                        .filter(|(_, q)| q.is_finite())
                        .collect(),
                ),
            })
            .collect();
        let mut clip = CompiledClip {
            duration,
            tracks,
            time_sets: Vec::new(),
        };
        clip.share_times();
        clip
    }

    fn share_times(&mut self) {
        let mut sets: Vec<Vec<f64>> = Vec::new();
        let mut assign = |times: &[f64]| -> u8 {
            if times.len() < 2 {
                return NO_SET;
            }
            if let Some(i) = sets.iter().position(|s| s == times) {
                return i as u8;
            }
            if sets.len() < MAX_TIME_SETS {
                sets.push(times.to_vec());
                return (sets.len() - 1) as u8;
            }
            NO_SET
        };
        for tr in &mut self.tracks {
            tr.translation.set = assign(&tr.translation.times);
            tr.rotation.set = assign(&tr.rotation.times);
            tr.scale.set = assign(&tr.scale.times);
        }
        self.time_sets = sets;
    }

    /// Locates clip time `t` in every shared time list (call once per sample of the clip).
    #[inline]
    pub fn positions(&self, t: f64) -> Positions {
        let mut pos = Positions::default();
        for (p, ts) in pos.iter_mut().zip(&self.time_sets) {
            *p = locate(ts, t).unwrap_or_default();
        }
        pos
    }

    /// Clip time shown at unwrapped playback time `u`: wrapped into `[0, D)` when looping,
    /// clamped to `[0, D]` otherwise; NaN and degenerate clips give 0.
    pub fn clip_time(&self, u: f64, looping: bool) -> f64 {
        let d = self.duration;
        if u.is_nan() || d <= 0.0 {
            return 0.0;
        }
        if looping {
            if !u.is_finite() {
                return 0.0;
            }
            let c = u.rem_euclid(d);
            if c.is_finite() && c < d { c } else { 0.0 }
        } else {
            u.clamp(0.0, d)
        }
    }
}

/// Which compiled track drives which bone of one skeleton (computed once).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClipBinding {
    /// `(bone index, track index)` pairs, sorted by bone index; one per bone.
    pub pairs: Vec<(u32, u32)>,
    /// The skeleton's bone count when bound.
    pub bones: usize,
}

impl ClipBinding {
    /// Binds `clip`'s tracks to `skel`'s bones by name (across `:`/`_`/case), after renaming
    /// through `bone_map` (source name → target name, matched the same way). A track naming a
    /// bone the skeleton lacks is reported once ([`W_TRACK_UNBOUND`], a warning naming the clip
    /// as `clip_name`) and ignored; a second track for a bone already bound is ignored too.
    pub fn new(
        clip: &CompiledClip,
        skel: &Skeleton,
        bone_map: &BTreeMap<String, String>,
        clip_name: &str,
    ) -> (ClipBinding, Vec<Diagnostic>) {
        let map: BTreeMap<String, &str> = bone_map
            .iter()
            .map(|(k, v)| (normalize_bone_name(k), v.as_str()))
            .collect();
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        let mut diags = Vec::new();
        let mut taken = vec![false; skel.len()];
        for (ti, tr) in clip.tracks.iter().enumerate() {
            let name = map
                .get(&normalize_bone_name(&tr.bone))
                .copied()
                .unwrap_or(&tr.bone);
            match skel.find(name) {
                Some(b) if !taken[b] => {
                    taken[b] = true;
                    if tr.is_animated() {
                        pairs.push((b as u32, ti as u32));
                    }
                }
                Some(_) => {}
                None => diags.push(
                    Diagnostic::warning(
                        W_TRACK_UNBOUND,
                        format!(
                            "track for bone `{}` matches no bone of the skeleton; ignored",
                            short(&tr.bone)
                        ),
                    )
                    .in_file(clip_name),
                ),
            }
        }
        pairs.sort_unstable();
        (
            ClipBinding {
                pairs,
                bones: skel.len(),
            },
            diags,
        )
    }

    /// Writes the clip's values at clip time `t` (clamped; NaN → 0) into `out` for every bound
    /// bone and marks them animated; other bones are left as they are. Bound bones past
    /// `out`'s length are skipped.
    #[inline]
    pub fn sample(&self, clip: &CompiledClip, t: f64, out: &mut Pose) {
        let t = if t.is_nan() || clip.duration <= 0.0 {
            0.0
        } else {
            t.clamp(0.0, clip.duration)
        };
        let n = out.len();
        let pos = clip.positions(t);
        for &(b, ti) in &self.pairs {
            let (b, ti) = (b as usize, ti as usize);
            let Some(tr) = clip.tracks.get(ti) else {
                continue;
            };
            if b >= n {
                continue;
            }
            if let Some(v) = tr.translation.get(&pos, t) {
                out.translations[b] = v;
            }
            if let Some(q) = tr.rotation.get(&pos, t) {
                out.rotations[b] = q;
            }
            if let Some(v) = tr.scale.get(&pos, t) {
                out.scales[b] = v;
            }
            out.animated[b] = true;
        }
    }

    /// Writes the clip's first keys (its "first frame") for every bound bone into `out`.
    pub fn sample_first(&self, clip: &CompiledClip, out: &mut Pose) {
        self.sample(clip, 0.0, out);
    }
}
