//! Clips laid out for sampling as structure-of-arrays: the bound channels of one clip, grouped
//! four bones side by side per key-time list and channel kind, so one key search serves a whole
//! list and one SIMD operation interpolates four bones (`glam::Vec4` lanes: SSE2 on x86-64,
//! NEON on AArch64, scalar elsewhere; no `unsafe`).
//!
//! Layout: a [`SoaClip`] holds every distinct key-time list of ≥ 2 keys its bound channels use
//! (no limit, unlike [`super::sample::MAX_TIME_SETS`]), and *groups*: up to [`LANES`] bones whose
//! channel of one kind (translation, rotation or scale) has one time list (or a single key).
//! The groups of one (time list, kind) form a *run*; a run's values are stored key after key,
//! and within a key group after group, component after component, one `Vec4` of four lanes
//! each (interleaved per key time, so a sample reads two contiguous blocks per run): key `k`,
//! component `c` of a group at `start + k·stride + c`. A group covers one *quad* of
//! bones (`4q..4q+3`), bone `b` in lane `b % 4`, so it lines up with a lane group of a
//! [`LanePose`]; lanes of bones without the group's list are not live, repeat the first live
//! lane and are never written out. Groups are sorted by time list, so one sample locates each list once.
//!
//! Results equal the scalar path ([`super::scalar`]) bit for bit where glam's own quaternion
//! dot product sums in the order [`lanes`] mirrors (x86-64); the differential tests check it.
//! The whole path falls back to the scalar one when a pose is shorter than the clip's bound
//! bones or the binding is not strictly in bone order, so it never indexes past a buffer.

mod lanes;
mod mask;
mod ops;
mod pose;
mod runs;

use std::collections::{BTreeMap, HashMap};

use glam::{Quat, Vec3, Vec4};

use super::sample::{Channel, ClipBinding, CompiledClip, KeyPos, key_pos};

pub use mask::{GroupMask, SlotMasks, add_difference_masked, apply_override_masked};
pub use ops::{Cursors, add_difference, apply_override, blend_step, sample};
pub use pose::{LanePose, blend_step_lanes, fits, sample_lanes};

/// Bones side by side in one group.
pub const LANES: usize = 4;

/// The time list index of a group of single-key channels.
const CONST: u32 = u32::MAX;

/// A channel kind (its bit in [`SoaClip`]'s per-bone coverage is `1 << kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Kind {
    Translation = 0,
    Rotation = 1,
    Scale = 2,
}

impl Kind {
    const ALL: [Kind; 3] = [Kind::Translation, Kind::Rotation, Kind::Scale];

    /// Components per key.
    fn width(self) -> usize {
        match self {
            Kind::Rotation => 4,
            _ => 3,
        }
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// Coverage bit of a bone the clip binds.
const BOUND: u8 = 1 << 3;

/// Up to [`LANES`] bones sharing one channel kind and one key-time list.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Group {
    /// Index into [`SoaClip::times`], or [`CONST`].
    set: u32,
    kind: Kind,
    /// The group's quad of bones: lane `l` is bone `4·quad + l`.
    quad: u32,
    /// Live lanes, one bit each (the quad's bones with this kind and time list).
    live: u8,
    /// Bone per lane (unused lanes repeat the first live lane's bone).
    bones: [u32; LANES],
    /// First value of key 0 in [`SoaClip::values`].
    start: u32,
    /// Values from one key to the next (the run's groups × components).
    stride: u32,
}

/// The groups of one (time list, kind), consecutive in [`SoaClip::groups`], with their values
/// interleaved per key.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Run {
    /// Index into [`SoaClip::times`], or [`CONST`].
    set: u32,
    kind: Kind,
    /// The run's groups: `groups[first..end]`.
    first: u32,
    end: u32,
    /// First value of key 0 in [`SoaClip::values`].
    start: u32,
}

impl Group {
    /// Whether lane `l` is live.
    #[inline(always)]
    fn is_live(&self, l: usize) -> bool {
        l < LANES && self.live & (1 << l) != 0
    }
}

/// A clip's sampling data as structure-of-arrays (see the module docs); built once per bound
/// clip and shared by every animator that plays it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SoaClip {
    times: Vec<Vec<f64>>,
    groups: Vec<Group>,
    runs: Vec<Run>,
    values: Vec<Vec4>,
    /// Bones the clip binds, ascending.
    bound: Vec<u32>,
    /// Per bone below `min_len`: which kinds the clip writes, plus [`BOUND`].
    covered: Vec<u8>,
    /// The same per quad of bones, as lane bits: translation, rotation, scale, bound.
    quads: Vec<[u8; 4]>,
    /// One more than the highest bound bone (0 without any).
    min_len: usize,
    /// The binding is strictly in bone order with valid tracks (else: scalar path only).
    usable: bool,
}

impl SoaClip {
    /// Lays out `clip`'s channels bound by `binding`.
    pub fn new(clip: &CompiledClip, binding: &ClipBinding) -> SoaClip {
        let mut soa = SoaClip {
            usable: binding.pairs.windows(2).all(|w| w[0].0 < w[1].0)
                && binding
                    .pairs
                    .iter()
                    .all(|&(_, ti)| (ti as usize) < clip.tracks.len()),
            ..SoaClip::default()
        };
        if !soa.usable {
            return soa;
        }
        let mut sets: HashMap<Vec<u64>, u32> = HashMap::new();
        // (time list, kind) → (bone, track) lanes, in bone order.
        let mut lists: BTreeMap<(u32, Kind), Vec<(u32, usize)>> = BTreeMap::new();
        soa.min_len = binding.pairs.last().map_or(0, |&(b, _)| b as usize + 1);
        soa.covered = vec![0; soa.min_len];
        for &(b, ti) in &binding.pairs {
            let tr = &clip.tracks[ti as usize];
            soa.bound.push(b);
            soa.covered[b as usize] |= BOUND;
            for kind in Kind::ALL {
                let times = match kind {
                    Kind::Translation => &tr.translation.times,
                    Kind::Rotation => &tr.rotation.times,
                    Kind::Scale => &tr.scale.times,
                };
                let set = match times.len() {
                    0 => continue,
                    1 => CONST,
                    _ => {
                        let key: Vec<u64> = times.iter().map(|t| t.to_bits()).collect();
                        let next = soa.times.len() as u32;
                        let id = *sets.entry(key).or_insert(next);
                        if id == next {
                            soa.times.push(times.clone());
                        }
                        id
                    }
                };
                soa.covered[b as usize] |= kind.bit();
                lists.entry((set, kind)).or_default().push((b, ti as usize));
            }
        }
        for ((set, kind), lanes) in lists {
            let keys = soa.times.get(set as usize).map_or(1, Vec::len);
            let w = kind.width();
            // One group per quad of bones (`4q..4q+3`) the list has lanes in, each bone in its
            // own lane (`b % 4`), so a lane group of the pose ([`LanePose`]) is read and written
            // without a transpose.
            let chunks: Vec<&[(u32, usize)]> = lanes
                .chunk_by(|a, b| a.0 / LANES as u32 == b.0 / LANES as u32)
                .collect();
            let lane = |chunk: &[(u32, usize)], l: usize| {
                *chunk
                    .iter()
                    .find(|&&(b, _)| b as usize % LANES == l)
                    .unwrap_or(&chunk[0])
            };
            let start = soa.values.len() as u32;
            let stride = (chunks.len() * w) as u32;
            let first = soa.groups.len() as u32;
            for (i, chunk) in chunks.iter().enumerate() {
                soa.groups.push(Group {
                    set,
                    kind,
                    quad: chunk[0].0 / LANES as u32,
                    live: chunk
                        .iter()
                        .fold(0, |m, &(b, _)| m | 1 << (b as usize % LANES)),
                    bones: std::array::from_fn(|l| lane(chunk, l).0),
                    start: start + (i * w) as u32,
                    stride,
                });
            }
            // Interleaved per key: every group's components of key 0, then of key 1, ...
            for k in 0..keys {
                for chunk in &chunks {
                    for c in 0..w {
                        let v = |l: usize| {
                            let tr = &clip.tracks[lane(chunk, l).1];
                            match kind {
                                Kind::Translation => vec3_at(&tr.translation, k, c),
                                Kind::Rotation => quat_at(&tr.rotation, k, c),
                                Kind::Scale => vec3_at(&tr.scale, k, c),
                            }
                        };
                        soa.values.push(Vec4::new(v(0), v(1), v(2), v(3)));
                    }
                }
            }
            soa.runs.push(Run {
                set,
                kind,
                first,
                end: soa.groups.len() as u32,
                start,
            });
        }
        soa.quads = SoaClip::quad_coverage(&soa.covered);
        soa
    }

    /// Whether the SoA path can write into a pose of `n` bones (else the caller takes the scalar
    /// path).
    #[inline]
    pub fn fits(&self, n: usize) -> bool {
        self.usable && n >= self.min_len
    }

    /// Distinct key-time lists (the slots a [`Cursors`] entry keeps for this clip).
    pub fn time_lists(&self) -> usize {
        self.times.len()
    }

    /// Bytes of key data the clip holds for sampling (values and key times).
    pub fn key_bytes(&self) -> usize {
        self.values.len() * std::mem::size_of::<Vec4>()
            + self.times.iter().map(|t| t.len() * 8).sum::<usize>()
    }

    /// The memory floor of one sample at clip time `t`: reads exactly the key blocks a sample
    /// reads (both keys of every group) and sums them, with no interpolation and no pose. For
    /// the benchmarks' bandwidth floor.
    #[doc(hidden)]
    pub fn stream_floor(&self, t: f64, hints: &mut [u32]) -> Vec4 {
        let mut acc = Vec4::ZERO;
        let mut at = None;
        let mut pos = KeyPos::default();
        for run in &self.runs {
            if at != Some(run.set) {
                at = Some(run.set);
                pos = self.locate(run.set, t, hints);
            }
            for k in [pos.i0, pos.i1] {
                if let Some(block) = self.key_block(run, k) {
                    acc += block.iter().copied().sum::<Vec4>();
                }
            }
        }
        acc
    }

    /// Calls `f` with every group and its key position at clip time `t` (unsanitized, as the
    /// scalar [`super::sample::locate`] takes it), locating each time list once; `hints` are
    /// the clip's cursors (empty: binary search every time).
    #[inline]
    fn each_pos(&self, t: f64, hints: &mut [u32], mut f: impl FnMut(&Group, KeyPos)) {
        let mut at = None;
        let mut pos = KeyPos::default();
        for g in &self.groups {
            if at != Some(g.set) {
                at = Some(g.set);
                pos = self.locate(g.set, t, hints);
            }
            f(g, pos);
        }
    }

    /// The key position of time list `set` at clip time `t` (key 0 for [`CONST`]).
    #[inline(always)]
    fn locate(&self, set: u32, t: f64, hints: &mut [u32]) -> KeyPos {
        match self.times.get(set as usize) {
            Some(times) => seek(times, t, hints.get_mut(set as usize)),
            None => KeyPos::default(),
        }
    }

    /// The values of key `k` of every group of `run`, contiguous.
    #[inline(always)]
    fn key_block(&self, run: &Run, k: usize) -> Option<&[Vec4]> {
        let stride = (run.end - run.first) as usize * run.kind.width();
        self.values
            .get(run.start as usize + k * stride..)?
            .get(..stride)
    }
}

/// Locates `t` in `times` (≥ 1 key) as [`super::sample::locate`] does, trying the segment
/// `hint` remembers and the one after it before a binary search; updates the hint.
#[inline]
pub(crate) fn seek(times: &[f64], t: f64, hint: Option<&mut u32>) -> KeyPos {
    let n = times.len();
    // `i` is the partition point of `k <= t` exactly when this holds (times are sorted).
    let is_point = |i: usize| {
        i <= n
            && (i == 0 || times[i - 1] <= t)
            && (i == n || times[i].partial_cmp(&t).is_none_or(|o| o.is_gt()))
    };
    let i = match &hint {
        Some(h) if is_point(**h as usize) => **h as usize,
        Some(h) if is_point(**h as usize + 1) => **h as usize + 1,
        _ => times.partition_point(|&k| k <= t),
    };
    if let Some(h) = hint {
        *h = i as u32;
    }
    key_pos(times, i, t)
}

/// Component `c` of translation/scale key `k` (0 past the end: never read back).
fn vec3_at(ch: &Channel<Vec3>, k: usize, c: usize) -> f32 {
    ch.values
        .get(k)
        .map_or(0.0, |v| v.to_array().get(c).copied().unwrap_or(0.0))
}

/// Component `c` of rotation key `k`.
fn quat_at(ch: &Channel<Quat>, k: usize, c: usize) -> f32 {
    ch.values
        .get(k)
        .map_or(0.0, |q| q.to_array().get(c).copied().unwrap_or(0.0))
}
