//! Blend weights (1D thresholds, 2D gradient band interpolation), blend trees flattened into
//! weighted leaves, clip sync (one shared normalized phase), and weighted pose blending.
//!
//! A tree is evaluated in two steps: [`BlendTree::leaves`] computes every clip's weight from the
//! parameters (top-down; `Additive` overlays become additive leaves scaled by the amount), then
//! [`TreeEvaluator::evaluate`] samples the weighted clips and blends them into a pose with no
//! allocation (after the first frame). Base leaves' weights sum to 1; the pose is a running
//! weighted mean in tree order: the first clip is sampled, each later clip `i` moves the pose
//! toward its values by `wᵢ / Σⱼ≤ᵢ wⱼ` (translation and scale linearly, rotation by
//! shortest-path nlerp). For two clips that is exactly the weighted, hemisphere-aligned nlerp; for
//! three or more the rotations combine as sequential nlerps (well defined, order-dependent, and
//! always a unit quaternion). Additive leaves then add their difference from their own first frame (weighted) to
//! bones the base animates. Flattening an `Additive` nested inside a `Lerp` scales its overlay by
//! the `Lerp` weight: exact for translation and scale, the usual first-order result for rotation.

use std::sync::Arc;

use super::clock::TickClock;
use super::pose::Pose;
use super::sample::{ClipBinding, CompiledClip};
use super::skeleton::Skeleton;
use super::soa::{self, SoaClip};
use super::*;
use crate::diag::Diagnostic;

/// The deepest a blend tree may nest.
pub const MAX_TREE_DEPTH: usize = 32;
/// The most entries one 1D or 2D blend may have.
pub const MAX_ENTRIES: usize = 256;

/// Parameters are clamped to this magnitude (NaN reads as 0).
pub const PARAM_LIMIT: f64 = 1e30;

/// Why a blend's entries are invalid.
#[derive(Clone, Debug, PartialEq)]
pub enum BlendError {
    /// No entries, or more than [`MAX_ENTRIES`].
    Count(usize),
    /// Entry at this index has a non-finite threshold or coordinate.
    NonFinite(usize),
    /// 1D: threshold at this index is below the previous one.
    Unsorted(usize),
    /// 2D: entries at these indices sit at one point.
    Coincident(usize, usize),
}

impl BlendError {
    /// As a diagnostic ([`E_BLEND_ENTRIES`]); the caller adds the location.
    pub fn diagnostic(&self) -> Diagnostic {
        let msg = match self {
            BlendError::Count(n) => format!("a blend needs 1 to {MAX_ENTRIES} entries, found {n}"),
            BlendError::NonFinite(i) => format!("blend entry {i} has a non-finite position"),
            BlendError::Unsorted(i) => {
                format!(
                    "1D blend thresholds must not decrease: entry {i} is below entry {}",
                    i - 1
                )
            }
            BlendError::Coincident(a, b) => {
                format!("2D blend entries {a} and {b} are at the same point")
            }
        };
        Diagnostic::error(E_BLEND_ENTRIES, msg)
    }
}

/// Reads a parameter for blending: NaN → 0, clamped to ±[`PARAM_LIMIT`].
#[inline]
pub fn sanitize_param(x: f32) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        f64::from(x).clamp(-PARAM_LIMIT, PARAM_LIMIT)
    }
}

/// A 1D blend: sorted thresholds.
///
/// Between two neighbouring thresholds the two entries share weight linearly; at or beyond
/// either end the end entry plays alone. Equal thresholds are allowed and act as a hard switch:
/// below the shared value the earlier entry is approached, at or above it the later one plays.
#[derive(Clone, Debug, PartialEq)]
pub struct Blend1D {
    thresholds: Vec<f64>,
}

impl Blend1D {
    /// Validates thresholds (finite, non-decreasing, 1..=[`MAX_ENTRIES`]).
    pub fn new(thresholds: &[f32]) -> Result<Blend1D, BlendError> {
        if thresholds.is_empty() || thresholds.len() > MAX_ENTRIES {
            return Err(BlendError::Count(thresholds.len()));
        }
        for (i, t) in thresholds.iter().enumerate() {
            if !t.is_finite() {
                return Err(BlendError::NonFinite(i));
            }
            if i > 0 && *t < thresholds[i - 1] {
                return Err(BlendError::Unsorted(i));
            }
        }
        Ok(Blend1D {
            thresholds: thresholds.iter().map(|&t| f64::from(t)).collect(),
        })
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.thresholds.len()
    }

    /// Always false (validated non-empty).
    pub fn is_empty(&self) -> bool {
        self.thresholds.is_empty()
    }

    /// Writes each entry's weight for parameter `x` into `out` (length = entries; extra slots
    /// are set to 0). Weights are in `[0, 1]` and sum to 1.
    pub fn weights(&self, x: f32, out: &mut [f32]) {
        out.iter_mut().for_each(|w| *w = 0.0);
        let x = sanitize_param(x);
        let t = &self.thresholds;
        let n = t.len().min(out.len());
        if n == 0 {
            return;
        }
        // The first segment end strictly above x.
        let i = t[..n].partition_point(|&k| k <= x);
        if i == 0 {
            out[0] = 1.0;
        } else if i >= n {
            out[n - 1] = 1.0;
        } else {
            let (a, b) = (t[i - 1], t[i]);
            let s = ((x - a) / (b - a)).clamp(0.0, 1.0) as f32;
            out[i - 1] = 1.0 - s;
            out[i] += s;
        }
    }
}

/// A 2D blend space: entry points on a plane, weighted by gradient band interpolation.
#[derive(Clone, Debug, PartialEq)]
pub struct BlendSpace2D {
    points: Vec<[f64; 2]>,
}

impl BlendSpace2D {
    /// Validates points (finite, pairwise distinct, 1..=[`MAX_ENTRIES`]). Collinear points are
    /// fine: the bands then only depend on the position along the line.
    pub fn new(points: &[[f32; 2]]) -> Result<BlendSpace2D, BlendError> {
        if points.is_empty() || points.len() > MAX_ENTRIES {
            return Err(BlendError::Count(points.len()));
        }
        for (i, p) in points.iter().enumerate() {
            if !(p[0].is_finite() && p[1].is_finite()) {
                return Err(BlendError::NonFinite(i));
            }
            if let Some(j) = points[..i].iter().position(|q| q == p) {
                return Err(BlendError::Coincident(j, i));
            }
        }
        Ok(BlendSpace2D {
            points: points
                .iter()
                .map(|p| [f64::from(p[0]), f64::from(p[1])])
                .collect(),
        })
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Always false (validated non-empty).
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// Writes each entry's weight for the point `(x, y)` into `out` (length = entries):
    /// `hᵢ = max(0, min over j≠i of 1 − ((p − pᵢ)·(pⱼ − pᵢ)) / |pⱼ − pᵢ|²)`, `wᵢ = hᵢ / Σh`.
    /// Parameters are sanitized ([`sanitize_param`]); weights are finite, in `[0, 1]`, and sum
    /// to 1 (if rounding ever left Σh non-positive, the nearest entry plays alone).
    pub fn weights(&self, x: f32, y: f32, out: &mut [f32]) {
        out.iter_mut().for_each(|w| *w = 0.0);
        let p = [sanitize_param(x), sanitize_param(y)];
        let pts = &self.points;
        let n = pts.len().min(out.len());
        if n == 0 {
            return;
        }
        let mut sum = 0.0f64;
        // h values are staged in f64 in `out` only after the sum is known; two passes keep
        // this allocation-free.
        for i in 0..n {
            let h = band(pts, n, i, p);
            sum += h;
        }
        if !(sum > 0.0 && sum.is_finite()) {
            let nearest = (0..n)
                .min_by(|&a, &b| dist2(pts[a], p).total_cmp(&dist2(pts[b], p)))
                .unwrap_or(0);
            out[nearest] = 1.0;
            return;
        }
        for (i, o) in out.iter_mut().enumerate().take(n) {
            *o = (band(pts, n, i, p) / sum) as f32;
        }
    }
}

fn dist2(a: [f64; 2], p: [f64; 2]) -> f64 {
    let d = [p[0] - a[0], p[1] - a[1]];
    d[0] * d[0] + d[1] * d[1]
}

/// Gradient band value of entry `i` at `p`.
#[inline]
fn band(pts: &[[f64; 2]], n: usize, i: usize, p: [f64; 2]) -> f64 {
    let pi = pts[i];
    let d = [p[0] - pi[0], p[1] - pi[1]];
    let mut h = f64::INFINITY;
    for (j, pj) in pts.iter().enumerate().take(n) {
        if j == i {
            continue;
        }
        let e = [pj[0] - pi[0], pj[1] - pi[1]];
        let len2 = e[0] * e[0] + e[1] * e[1];
        if len2 > 0.0 {
            h = h.min(1.0 - (d[0] * e[0] + d[1] * e[1]) / len2);
        }
    }
    if h == f64::INFINITY {
        // A single entry plays alone.
        1.0
    } else if h.is_nan() {
        0.0
    } else {
        h.max(0.0)
    }
}

/// Why a blend tree is invalid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeError {
    /// Nested deeper than [`MAX_TREE_DEPTH`].
    TooDeep,
    /// Names a clip slot that does not exist.
    MissingClip(usize),
    /// A blend's entry count differs from its clip count.
    CountMismatch,
}

impl TreeError {
    /// As a diagnostic ([`E_BLEND_TREE`]); the caller adds the location.
    pub fn diagnostic(&self) -> Diagnostic {
        let msg = match self {
            TreeError::TooDeep => format!("blend tree nests deeper than {MAX_TREE_DEPTH}"),
            TreeError::MissingClip(s) => format!("blend tree names missing clip slot {s}"),
            TreeError::CountMismatch => "blend entry and clip counts differ".to_string(),
        };
        Diagnostic::error(E_BLEND_TREE, msg)
    }
}

/// A blend tree over clip slots (indices into the caller's clip table).
#[derive(Clone, Debug, PartialEq)]
pub enum BlendTree {
    /// One clip.
    Clip(usize),
    /// Clips along one parameter.
    Blend1D {
        /// Parameter name.
        param: String,
        /// Thresholds.
        blend: Blend1D,
        /// Clip slot per entry.
        clips: Vec<usize>,
    },
    /// Clips on a plane of two parameters.
    BlendSpace2D {
        /// X parameter name.
        param_x: String,
        /// Y parameter name.
        param_y: String,
        /// Entry points.
        space: BlendSpace2D,
        /// Clip slot per entry.
        clips: Vec<usize>,
    },
    /// `a` and `b` mixed by a 0..1 parameter (clamped; NaN → 0).
    Lerp {
        /// Weight `1 − t`.
        a: Box<BlendTree>,
        /// Weight `t`.
        b: Box<BlendTree>,
        /// Parameter name.
        param: String,
    },
    /// `overlay`'s difference from its first frame added on `base`, scaled by a 0..1 amount.
    Additive {
        /// The base motion.
        base: Box<BlendTree>,
        /// The added motion.
        overlay: Box<BlendTree>,
        /// Parameter name.
        param: String,
    },
}

/// One clip's share of a tree's output.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Leaf {
    /// Clip slot.
    pub clip: usize,
    /// Weight (base leaves sum to 1; additive leaves carry their amount).
    pub weight: f32,
    /// Inside an `Additive` overlay.
    pub additive: bool,
}

impl BlendTree {
    /// Checks nesting depth, entry/clip counts and that every slot is `< clips`.
    pub fn validate(&self, clips: usize) -> Result<(), TreeError> {
        self.check(clips, 1)
    }

    fn check(&self, clips: usize, depth: usize) -> Result<(), TreeError> {
        if depth > MAX_TREE_DEPTH {
            return Err(TreeError::TooDeep);
        }
        let slot = |s: &usize| {
            if *s < clips {
                Ok(())
            } else {
                Err(TreeError::MissingClip(*s))
            }
        };
        match self {
            BlendTree::Clip(s) => slot(s),
            BlendTree::Blend1D {
                blend, clips: c, ..
            } => {
                if c.len() != blend.len() {
                    return Err(TreeError::CountMismatch);
                }
                c.iter().try_for_each(slot)
            }
            BlendTree::BlendSpace2D {
                space, clips: c, ..
            } => {
                if c.len() != space.len() {
                    return Err(TreeError::CountMismatch);
                }
                c.iter().try_for_each(slot)
            }
            BlendTree::Lerp { a, b, .. } => {
                a.check(clips, depth + 1)?;
                b.check(clips, depth + 1)
            }
            BlendTree::Additive { base, overlay, .. } => {
                base.check(clips, depth + 1)?;
                overlay.check(clips, depth + 1)
            }
        }
    }

    /// Computes every leaf's weight (leaves with weight 0 are kept, in tree order) into `out`
    /// (cleared first). `param` reads a parameter by name (unset → 0). Validate the tree first:
    /// recursion is bounded by [`MAX_TREE_DEPTH`] only when it was.
    pub fn leaves(&self, param: &dyn Fn(&str) -> f32, out: &mut Vec<Leaf>) {
        out.clear();
        self.walk(param, 1.0, false, 0, out);
    }

    fn walk(
        &self,
        param: &dyn Fn(&str) -> f32,
        w: f32,
        additive: bool,
        depth: usize,
        out: &mut Vec<Leaf>,
    ) {
        if depth > MAX_TREE_DEPTH {
            return;
        }
        let mut push = |clip: usize, weight: f32| {
            out.push(Leaf {
                clip,
                weight,
                additive,
            })
        };
        match self {
            BlendTree::Clip(c) => push(*c, w),
            BlendTree::Blend1D {
                param: p,
                blend,
                clips,
            } => {
                let mut ws = [0.0f32; MAX_ENTRIES];
                let n = clips.len().min(MAX_ENTRIES);
                blend.weights(param(p), &mut ws[..n]);
                for (c, wi) in clips.iter().zip(&ws[..n]) {
                    push(*c, w * wi);
                }
            }
            BlendTree::BlendSpace2D {
                param_x,
                param_y,
                space,
                clips,
            } => {
                let mut ws = [0.0f32; MAX_ENTRIES];
                let n = clips.len().min(MAX_ENTRIES);
                space.weights(param(param_x), param(param_y), &mut ws[..n]);
                for (c, wi) in clips.iter().zip(&ws[..n]) {
                    push(*c, w * wi);
                }
            }
            BlendTree::Lerp { a, b, param: p } => {
                let t = unit(param(p));
                a.walk(param, w * (1.0 - t), additive, depth + 1, out);
                b.walk(param, w * t, additive, depth + 1, out);
            }
            BlendTree::Additive {
                base,
                overlay,
                param: p,
            } => {
                let t = unit(param(p));
                base.walk(param, w, additive, depth + 1, out);
                overlay.walk(param, w * t, true, depth + 1, out);
            }
        }
    }
}

/// The leaf that fires markers: the most heavily weighted base leaf with weight > 0 (ties: the
/// earlier leaf in tree order). Its index into `leaves`.
pub fn heaviest_leaf(leaves: &[Leaf]) -> Option<usize> {
    let mut best: Option<(usize, f32)> = None;
    for (i, l) in leaves.iter().enumerate() {
        if l.additive || l.weight <= 0.0 {
            continue;
        }
        if best.is_none_or(|(_, w)| l.weight > w) {
            best = Some((i, l.weight));
        }
    }
    best.map(|(i, _)| i)
}

/// A 0..1 parameter: clamped, NaN → 0.
#[inline]
pub fn unit(x: f32) -> f32 {
    if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) }
}

/// A compiled clip and its binding to one skeleton, with the bound channels laid out for
/// SIMD sampling ([`SoaClip`], built once and shared through an `Arc` by every clone).
///
/// Build it with [`BoundClip::new`] or [`BoundClip::from_parts`]: the SoA layout is made from
/// `clip` and `binding` then, so change neither afterwards (rebuild instead).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BoundClip {
    /// The clip.
    pub clip: CompiledClip,
    /// Its tracks bound to the skeleton.
    pub binding: ClipBinding,
    soa: Arc<SoaClip>,
}

impl BoundClip {
    /// Compiles `seq` and binds it to `skel` (see [`ClipBinding::new`] for the warnings).
    pub fn new(
        seq: &crate::animseq::AnimSeq,
        skel: &Skeleton,
        bone_map: &std::collections::BTreeMap<String, String>,
        clip_name: &str,
    ) -> (BoundClip, Vec<Diagnostic>) {
        let clip = CompiledClip::new(seq);
        let (binding, diags) = ClipBinding::new(&clip, skel, bone_map, clip_name);
        (BoundClip::from_parts(clip, binding), diags)
    }

    /// A clip and its binding, laid out for sampling.
    pub fn from_parts(clip: CompiledClip, binding: ClipBinding) -> BoundClip {
        let soa = Arc::new(SoaClip::new(&clip, &binding));
        BoundClip { clip, binding, soa }
    }

    /// The clip's sampling data as structure-of-arrays.
    pub fn soa(&self) -> &SoaClip {
        &self.soa
    }

    /// The shared handle of the SoA data (clones of this clip hold the same one).
    pub fn soa_arc(&self) -> &Arc<SoaClip> {
        &self.soa
    }

    /// Samples the clip at clip time `t` into `out` (reset to the rest pose first).
    pub fn sample_pose(&self, skel: &Skeleton, t: f64, out: &mut Pose) {
        out.set_rest(skel);
        self.sample(t, out);
    }

    /// Writes the clip's values at clip time `t` into `out` for every bound bone (as
    /// [`ClipBinding::sample`], on the SoA path).
    pub fn sample(&self, t: f64, out: &mut Pose) {
        soa::sample(self, t, &mut [], out);
    }
}

/// Shared normalized phase of one tree (clip sync).
///
/// The tree's cycle length is `L = Σ wᵢ·lenᵢ` over base leaves (weights sum to 1); at `speed`
/// seconds of playback per second the phase moves at `speed / L` cycles per second, so each
/// clip plays at `lenᵢ / L` of the speed and all share one phase. Additive leaves share the
/// phase but do not count in `L`. Clip `i`'s unwrapped time is `phase × lenᵢ`.
///
/// The phase is a [`TickClock`] (no drift): while the phase speed `speed / L` holds (the same
/// rate, speed and weights), the phase after `k` ticks is `p₀ + (k / rate)·(speed / L)`; a change
/// of any of them — a weight change moves `L` — is a speed change and re-anchors at the current
/// phase (`docs/animation.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SyncedPlayer {
    /// Unwrapped phase in cycles (each update starts exactly where the last ended).
    clock: TickClock,
}

impl SyncedPlayer {
    /// A player standing at unwrapped phase `phase`.
    pub fn at(phase: f64) -> SyncedPlayer {
        SyncedPlayer {
            clock: TickClock::at(phase),
        }
    }

    /// The unwrapped phase in cycles.
    pub fn phase(&self) -> f64 {
        self.clock.now()
    }

    /// Moves to unwrapped phase `phase` (a seek), anchoring there.
    pub fn seek(&mut self, phase: f64) {
        self.clock.set(phase);
    }

    /// The weighted cycle length of `leaves` (0 when it cannot be computed).
    pub fn cycle_length(leaves: &[Leaf], clips: &[BoundClip]) -> f64 {
        let mut l = 0.0f64;
        let mut wsum = 0.0f64;
        for lf in leaves.iter().filter(|l| !l.additive && l.weight > 0.0) {
            if let Some(c) = clips.get(lf.clip) {
                l += f64::from(lf.weight) * c.clip.duration;
                wsum += f64::from(lf.weight);
            }
        }
        if wsum > 0.0 && l.is_finite() && l > 0.0 {
            l / wsum
        } else {
            0.0
        }
    }

    /// Advances one tick at `rate` ticks per second and `speed` seconds of playback per second
    /// (the state's speed included; may be negative) and returns the `(from, to)` phase
    /// interval. A non-looping player clamps the phase to `[0, 1]`. A rate that is not finite
    /// and positive, a non-finite speed or result, or a zero cycle length leaves the phase where
    /// it is.
    pub fn advance(
        &mut self,
        rate: f64,
        speed: f64,
        leaves: &[Leaf],
        clips: &[BoundClip],
        looping: bool,
    ) -> (f64, f64) {
        let from = self.phase();
        let l = Self::cycle_length(leaves, clips);
        if l > 0.0
            && rate.is_finite()
            && rate > 0.0
            && speed.is_finite()
            && let Some((_, to)) = self.clock.tick(rate, speed / l)
            && !looping
        {
            let clamped = to.clamp(0.0, 1.0);
            if clamped != to {
                self.clock.set(clamped);
            }
        }
        (from, self.phase())
    }

    /// A non-looping player reached its end.
    pub fn finished(&self) -> bool {
        self.phase() >= 1.0
    }

    /// Clip `c`'s unwrapped playback time at phase `phase`.
    pub fn clip_time(phase: f64, c: &BoundClip) -> f64 {
        phase * c.clip.duration
    }
}
