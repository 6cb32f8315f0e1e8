//! One glTF animation → one `.animseq`: channels grouped into bone tracks (on the skeleton
//! the clip drives) and morph curves, times shifted to start at 0, durations, notifies.

use super::accessor::{self, TIMES, Want};
use super::buffers::Buffers;
use super::channels::{Fail, Interp, Linear, Part, Rotation, convert};
use super::diagnostics::{
    E_ACCESSOR, E_KEY_TIMES, E_LIMIT, Report, W_CHANNEL_SKIPPED, W_OUTSIDE_SKELETON,
    W_REPEATED_TIMES, W_RESAMPLE, W_SHIFTED, W_ZERO_LENGTH, quoted,
};
use super::nodes::Forest;
use super::notifies;
use super::skeleton::SkelOut;
use crate::animseq::{AnimSeq, Curve, CurveValue, Interpolation, Track};
use gltf::json::accessor::Type;
use gltf::json::animation::{Interpolation as GInterp, Property};
use gltf::json::validation::Checked;
use std::collections::{BTreeMap, BTreeSet};

/// Duration of a clip whose keys all sit at one time (a single pose).
pub const POSE_DURATION: f64 = 1.0 / 30.0;

/// Everything clip building reads.
pub struct Scene<'a, 'b> {
    /// The glTF JSON.
    pub root: &'a gltf::json::Root,
    /// Resolved buffers.
    pub buffers: &'a Buffers<'b>,
    /// The node forest.
    pub forest: &'a Forest,
    /// Generated skeletons.
    pub skels: &'a [SkelOut],
    /// Channels whose target path this crate does not know: `(animation, channel)`.
    pub unknown_paths: &'a [(usize, usize)],
    /// For each node of the file, the skeletons (indices into `skels`) holding it.
    pub in_skeleton: &'a [Vec<usize>],
}

/// A built clip: the sequence and the skeleton (index into `skels`) its tracks are keyed on.
pub struct Built {
    /// The sequence.
    pub seq: AnimSeq,
    /// Its skeleton.
    pub skeleton: Option<usize>,
    /// The keys it took from the budget.
    pub used: usize,
    /// A budget from which on [`build`] returns this same clip: the budget is only ever
    /// compared with running key counts, all below this, so any budget at least this large
    /// gives the same clip, the same diagnostics and the same `used`.
    pub need: usize,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum What {
    T,
    R,
    S,
    /// Morph weights with this many targets.
    W(usize),
}

struct Plan {
    node: usize,
    what: What,
    sampler: usize,
    input: usize,
    output: usize,
    interp: Interp,
}

/// Decoded, checked key times of one input accessor.
struct Times {
    /// The input accessor.
    input: usize,
    /// Kept key indices (a run of equal times keeps its last key).
    src: Vec<usize>,
    /// Their times (shifted once the clip's offset is known).
    t: Vec<f64>,
}

impl Times {
    /// Every key is kept (no repeated times): key `k` is element `k`.
    fn every_key(&self) -> bool {
        self.src.last().is_none_or(|&l| l + 1 == self.src.len())
    }
}

/// The bit of `seen` (per node) for a target path: one channel per node and path.
fn path_bit(w: What) -> u8 {
    match w {
        What::T => 1,
        What::R => 2,
        What::S => 4,
        What::W(_) => 8,
    }
}

/// `N` little-endian `f32`s of element `k` of tightly packed floats.
#[inline]
fn packed<const N: usize>(b: &[u8], k: usize) -> [f32; N] {
    let e = &b[4 * N * k..4 * N * (k + 1)];
    std::array::from_fn(|c| {
        f32::from_le_bytes([e[4 * c], e[4 * c + 1], e[4 * c + 2], e[4 * c + 3]])
    })
}

/// `f32` key time as the `f64` with the same shortest decimal (`0.041666668`, not
/// `0.0416666679084301`); `buf` is scratch space.
fn time_f64(x: f32, buf: &mut String) -> f64 {
    buf.clear();
    crate::animseq::push_f32(buf, x);
    exact_decimal(buf).unwrap_or_else(|| buf.parse().unwrap_or(f64::from(x)))
}

/// A plain decimal (`-12.0625`, at most 15 significant digits and 22 fractional ones) as the
/// nearest `f64`, or `None` for anything else. Digits and power of ten are both exact `f64`s,
/// so one IEEE division rounds correctly: what `str::parse` gives (Clinger's fast path).
fn exact_decimal(s: &str) -> Option<f64> {
    const POW10: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    let (mut m, mut sig, mut frac, mut point) = (0u64, 0usize, 0usize, false);
    for b in digits.bytes() {
        match b {
            b'.' if !point => point = true,
            b'0'..=b'9' => {
                m = m * 10 + u64::from(b - b'0');
                sig += usize::from(m != 0);
                frac += usize::from(point);
            }
            _ => return None,
        }
        if sig > 15 || frac > 22 {
            return None;
        }
    }
    let v = m as f64 / POW10[frac];
    Some(if neg { -v } else { v })
}

fn path_name(w: What) -> &'static str {
    match w {
        What::T => "translation",
        What::R => "rotation",
        What::S => "scale",
        What::W(_) => "weights",
    }
}

/// Builds clip `a`. `None` after an error (reported); `budget` counts down the keys the
/// import may still write.
#[allow(clippy::too_many_arguments)]
pub fn build(
    sc: &Scene<'_, '_>,
    a: usize,
    id: &str,
    label: &str,
    budget: &mut usize,
    report: &mut Report,
) -> Option<Built> {
    let anim = sc.root.animations.get(a)?;
    let lbl = quoted(label);
    let mut plans: Vec<Plan> = Vec::with_capacity(anim.channels.len());
    // Per node, the paths (`path_bit`) an earlier channel animates.
    let mut seen = vec![0u8; sc.root.nodes.len()];
    for (c, ch) in anim.channels.iter().enumerate() {
        let node = ch.target.node.value();
        let Some(n) = sc.root.nodes.get(node) else {
            continue; // reported by the caller's analysis
        };
        let skip = |report: &mut Report, why: &str| {
            let nname = quoted(&sc.forest.names[node]);
            report.warning(
                W_CHANNEL_SKIPPED,
                format!("animation {lbl}, channel {c} on node {node} ({nname}): {why}; skipped"),
            );
        };
        if sc.unknown_paths.binary_search(&(a, c)).is_ok() {
            skip(
                report,
                "its target path is not translation, rotation, scale or weights",
            );
            continue;
        }
        let what = match &ch.target.path {
            Checked::Valid(Property::Translation) => What::T,
            Checked::Valid(Property::Rotation) => What::R,
            Checked::Valid(Property::Scale) => What::S,
            Checked::Valid(Property::MorphTargetWeights) => {
                let k = n
                    .mesh
                    .and_then(|m| sc.root.meshes.get(m.value()))
                    .map_or(0, |m| {
                        m.primitives
                            .first()
                            .and_then(|p| p.targets.as_ref())
                            .map_or(0, Vec::len)
                            .max(m.weights.as_ref().map_or(0, Vec::len))
                    });
                if k == 0 {
                    skip(
                        report,
                        "morph weights on a node whose mesh has no morph targets",
                    );
                    continue;
                }
                What::W(k)
            }
            _ => {
                skip(
                    report,
                    "its target path is not translation, rotation, scale or weights",
                );
                continue;
            }
        };
        if !matches!(what, What::W(_)) && sc.in_skeleton[node].is_empty() {
            skip(
                report,
                "the node is neither a joint of a skin nor an ancestor of one",
            );
            continue;
        }
        let bit = path_bit(what);
        if seen[node] & bit != 0 {
            skip(
                report,
                &format!(
                    "an earlier channel already animates its {}",
                    path_name(what)
                ),
            );
            continue;
        }
        seen[node] |= bit;
        let s = ch.sampler.value();
        let Some(sampler) = anim.samplers.get(s) else {
            continue;
        };
        let interp = match sampler.interpolation {
            Checked::Valid(GInterp::Step) => Interp::Step,
            Checked::Valid(GInterp::CubicSpline) => Interp::Cubic,
            _ => Interp::Linear,
        };
        plans.push(Plan {
            node,
            what,
            sampler: s,
            input: sampler.input.value(),
            output: sampler.output.value(),
            interp,
        });
    }

    // Key times, decoded once per input accessor (`time_of[i]`: plan `i`'s, in `times`).
    let mut times: Vec<Times> = Vec::new();
    let mut time_index: BTreeMap<usize, usize> = BTreeMap::new();
    let mut time_of = Vec::with_capacity(plans.len());
    for p in &plans {
        // Channels baked together share one input: the last one is checked first.
        if let Some(&i) = time_of.last()
            && times.get(i).is_some_and(|t: &Times| t.input == p.input)
        {
            time_of.push(i);
            continue;
        }
        if let Some(&i) = time_index.get(&p.input) {
            time_of.push(i);
            continue;
        }
        let d = match accessor::decode(sc.root, sc.buffers, p.input, TIMES) {
            Ok(d) => d,
            Err(m) => {
                report.error(
                    E_ACCESSOR,
                    format!("animation {lbl}, sampler {} input: {m}", p.sampler),
                );
                return None;
            }
        };
        let mut src = Vec::with_capacity(d.values.len());
        let mut repeated = 0usize;
        for k in 0..d.values.len() {
            let x = d.values.get(k);
            if !x.is_finite() {
                report.error(
                    E_KEY_TIMES,
                    format!(
                        "animation {lbl}, sampler {} (accessor {}): key time {k} is not finite",
                        p.sampler, p.input
                    ),
                );
                return None;
            }
            if k > 0 {
                let prev = d.values.get(k - 1);
                if x < prev {
                    report.error(
                        E_KEY_TIMES,
                        format!(
                            "animation {lbl}, sampler {} (accessor {}): key time {k} ({x}) is \
                             before key {} ({prev}); times must increase",
                            p.sampler,
                            p.input,
                            k - 1
                        ),
                    );
                    return None;
                }
                if x == prev {
                    repeated += 1;
                    src.pop();
                }
            }
            src.push(k);
        }
        if repeated > 0 {
            report.warning(
                W_REPEATED_TIMES,
                format!(
                    "animation {lbl}, sampler {} (accessor {}): {repeated} key time(s) repeat the \
                     one before; the later key of each run is kept",
                    p.sampler, p.input
                ),
            );
        }
        let mut buf = String::with_capacity(32);
        let t = src
            .iter()
            .map(|&k| time_f64(d.values.get(k), &mut buf))
            .collect();
        time_index.insert(p.input, times.len());
        time_of.push(times.len());
        times.push(Times {
            input: p.input,
            src,
            t,
        });
    }
    let first = times
        .iter()
        .filter_map(|t| t.t.first())
        .copied()
        .reduce(f64::min);
    let last = times
        .iter()
        .filter_map(|t| t.t.last())
        .copied()
        .reduce(f64::max);
    let offset = match first {
        Some(f) if f > 0.0 => {
            report.warning(
                W_SHIFTED,
                format!(
                    "animation {lbl} starts at {f} s: its keys and the clip were shifted to \
                     start at 0 (notify times are clip times, not shifted)"
                ),
            );
            f
        }
        _ => 0.0,
    };
    if offset > 0.0 {
        for t in &mut times {
            for x in &mut t.t {
                *x -= offset;
            }
        }
    }
    let mut duration = last.map_or(0.0, |l| l - offset);
    if duration.is_nan() || duration <= 0.0 {
        report.warning(
            W_ZERO_LENGTH,
            format!(
                "animation {lbl} has all its keys at one time: imported as a single pose of \
                 {POSE_DURATION} s"
            ),
        );
        duration = POSE_DURATION;
    }

    // The skeleton the clip drives: the one holding most of its animated nodes.
    // Ties: the earlier skeleton.
    let mut votes = vec![0usize; sc.skels.len()];
    for p in plans.iter().filter(|p| !matches!(p.what, What::W(_))) {
        for &s in &sc.in_skeleton[p.node] {
            votes[s] += 1;
        }
    }
    let mut skeleton = None;
    let mut most = 0;
    for (s, &v) in votes.iter().enumerate() {
        if v > most {
            (skeleton, most) = (Some(s), v);
        }
    }
    let skel = skeleton.and_then(|s| sc.skels.get(s));

    // Bone names: the skeleton's; nodes outside it keep their own (unique against it).
    // The skeleton's names as Sinew matches them, made only when a node outside it is driven.
    let mut taken: Option<BTreeSet<String>> = None;
    let skel_bone = |n: usize| skel.and_then(|s| s.bone[n].as_deref());
    // Names of the driven nodes outside the skeleton.
    let mut names: BTreeMap<usize, String> = BTreeMap::new();
    let mut outside = Vec::new();
    for p in plans.iter().filter(|p| !matches!(p.what, What::W(_))) {
        if skel_bone(p.node).is_some() || names.contains_key(&p.node) {
            continue;
        }
        let mut n = sc.forest.names[p.node].clone();
        if n.trim().is_empty() {
            n = format!("GltfNode{}", p.node);
        }
        let taken = taken.get_or_insert_with(|| {
            skel.map(|s| {
                s.bone
                    .iter()
                    .flatten()
                    .map(|n| super::nodes::normalized(n))
                    .collect()
            })
            .unwrap_or_default()
        });
        while !taken.insert(super::nodes::normalized(&n)) {
            n.push_str(&format!("~{}", p.node));
        }
        outside.push(quoted(&n));
        names.insert(p.node, n);
    }
    if let (Some(s), false) = (skel, outside.is_empty()) {
        report.warning(
            W_OUTSIDE_SKELETON,
            format!(
                "animation {lbl} drives nodes outside its skeleton {}: {} (their tracks are kept)",
                quoted(&s.name),
                outside.join(", ")
            ),
        );
    }

    // Track order: the skeleton's bone order, then other nodes by index.
    let rank = |n: usize| skel.and_then(|s| s.position[n]).map_or((1, n), |i| (0, i));
    // Tracks with their rank, and each node's track (`usize::MAX`: none yet).
    let mut tracks: Vec<((usize, usize), Track)> = Vec::new();
    let mut track_of = vec![usize::MAX; sc.root.nodes.len()];
    let mut curves: Vec<(usize, usize, Curve)> = Vec::new();
    // Decoded copies (strided, quantized, sparse) of outputs, by accessor and scalar-ness;
    // tightly packed floats are read in place and need no copy.
    let mut copies: BTreeMap<(usize, bool), accessor::Decoded<'_>> = BTreeMap::new();
    let mut inexact = Vec::new();
    // A budget this clip comes out the same with from there on (see `Built::need`).
    let start = *budget;
    let mut need = 0usize;
    for (p, &ti) in plans.iter().zip(&time_of) {
        let tm = &times[ti];
        let (want, k) = match p.what {
            What::T | What::S => (
                Want {
                    ty: Type::Vec3,
                    float_only: false,
                },
                1,
            ),
            What::R => (
                Want {
                    ty: Type::Vec4,
                    float_only: false,
                },
                1,
            ),
            What::W(k) => (
                Want {
                    ty: Type::Scalar,
                    float_only: false,
                },
                k,
            ),
        };
        let key = (p.output, want.ty == Type::Scalar);
        let mut fresh = None;
        if let std::collections::btree_map::Entry::Vacant(slot) = copies.entry(key) {
            match accessor::decode(sc.root, sc.buffers, p.output, want) {
                Ok(d) if matches!(d.values, accessor::Values::Owned(_)) => {
                    slot.insert(d);
                }
                Ok(d) => fresh = Some(d),
                Err(m) => {
                    report.error(
                        E_ACCESSOR,
                        format!("animation {lbl}, sampler {} output: {m}", p.sampler),
                    );
                    return None;
                }
            }
        }
        let Some(out) = fresh.as_ref().or_else(|| copies.get(&key)) else {
            continue;
        };
        let n_in = accessor_count(sc.root, p.input).unwrap_or(0);
        let per = if p.interp == Interp::Cubic { 3 } else { 1 };
        let expected = n_in * per * k;
        if out.count() != expected {
            report.error(
                E_ACCESSOR,
                format!(
                    "animation {lbl}, sampler {}: output accessor {} has {} elements, {} are \
                     needed ({n_in} keys{}{})",
                    p.sampler,
                    p.output,
                    out.count(),
                    expected,
                    if per == 3 {
                        " × 3 for CUBICSPLINE"
                    } else {
                        ""
                    },
                    if k > 1 {
                        format!(" × {k} morph targets")
                    } else {
                        String::new()
                    }
                ),
            );
            return None;
        }
        let vals = &out.values;
        let src = &tm.src;
        let idx = |key: usize, part: Part| -> usize {
            let k0 = src[key];
            if per == 3 {
                3 * k0
                    + match part {
                        Part::In => 0,
                        Part::Value => 1,
                        Part::Out => 2,
                    }
            } else {
                k0
            }
        };
        let name = skel_bone(p.node)
            .or_else(|| names.get(&p.node).map(String::as_str))
            .unwrap_or("");
        // The common layout (tightly packed floats, one value per key, every key kept) is
        // read directly; anything else through `idx`.
        let direct = match &out.values {
            accessor::Values::Packed(b) if per == 1 && tm.every_key() => Some(*b),
            _ => None,
        };
        let channel_desc = || {
            format!(
                "animation {lbl}, {} of node {} ({})",
                path_name(p.what),
                p.node,
                quoted(&sc.forest.names[p.node])
            )
        };
        let res = match p.what {
            What::T | What::S | What::R => {
                if track_of[p.node] == usize::MAX {
                    track_of[p.node] = tracks.len();
                    tracks.push((
                        rank(p.node),
                        Track {
                            bone: name.to_string(),
                            translation: Vec::new(),
                            rotation: Vec::new(),
                            scale: Vec::new(),
                        },
                    ));
                }
                let track = &mut tracks[track_of[p.node]].1;
                let r = match (p.what, direct) {
                    (What::R, Some(b)) => convert::<4, Rotation>(
                        &tm.t,
                        p.interp,
                        |key, _| packed::<4>(b, key),
                        &mut track.rotation,
                        *budget,
                    ),
                    (What::R, None) => convert::<4, Rotation>(
                        &tm.t,
                        p.interp,
                        |key, part| vals.array::<4>(idx(key, part) * 4),
                        &mut track.rotation,
                        *budget,
                    ),
                    _ => {
                        let dst = if p.what == What::T {
                            &mut track.translation
                        } else {
                            &mut track.scale
                        };
                        match direct {
                            Some(b) => convert::<3, Linear>(
                                &tm.t,
                                p.interp,
                                |key, _| packed::<3>(b, key),
                                dst,
                                *budget,
                            ),
                            None => convert::<3, Linear>(
                                &tm.t,
                                p.interp,
                                |key, part| vals.array::<3>(idx(key, part) * 3),
                                dst,
                                *budget,
                            ),
                        }
                    }
                };
                r.map(|c| {
                    (
                        c,
                        match p.what {
                            What::R => track.rotation.len(),
                            What::T => track.translation.len(),
                            _ => track.scale.len(),
                        },
                    )
                })
            }
            What::W(kt) => {
                let mut total = 0usize;
                let mut res = Ok(Default::default());
                for j in 0..kt {
                    let mut keys: Vec<(f64, [f32; 1])> = Vec::new();
                    let interp = if p.interp == Interp::Step {
                        Interp::Linear
                    } else {
                        p.interp
                    };
                    let r = convert::<1, Linear>(
                        &tm.t,
                        interp,
                        |key, part| {
                            let base = idx(key, part);
                            // Per key: K in-tangents, K values, K out-tangents (cubic), or K
                            // values.
                            let i = if per == 3 {
                                (base / 3) * 3 * kt
                                    + match part {
                                        Part::In => 0,
                                        Part::Value => kt,
                                        Part::Out => 2 * kt,
                                    }
                                    + j
                            } else {
                                base * kt + j
                            };
                            [vals.get(i)]
                        },
                        &mut keys,
                        budget.saturating_sub(total),
                    );
                    match r {
                        Ok(c) => {
                            need = need.max(start - *budget + total + c.peak);
                            if c.inexact {
                                res = Ok(c);
                            }
                        }
                        Err(e) => {
                            res = Err(e);
                            break;
                        }
                    }
                    total += keys.len();
                    curves.push((
                        p.node,
                        j,
                        Curve {
                            name: String::new(),
                            interpolation: if p.interp == Interp::Step {
                                Interpolation::Step
                            } else {
                                Interpolation::Linear
                            },
                            keys: keys
                                .into_iter()
                                .map(|(t, [v])| (t, CurveValue::Float(f64::from(v))))
                                .collect(),
                        },
                    ));
                }
                res.map(|c| (c, total))
            }
        };
        match res {
            Ok((c, n)) => {
                need = need.max(start - *budget + c.peak);
                if c.inexact {
                    inexact.push(channel_desc());
                }
                match budget.checked_sub(n) {
                    Some(b) => *budget = b,
                    None => {
                        report.error(E_LIMIT, limit_message(&channel_desc()));
                        return None;
                    }
                }
            }
            Err(Fail::Invalid(m)) => {
                report.error(
                    E_ACCESSOR,
                    format!(
                        "{} (sampler {}, accessor {}): {m}",
                        channel_desc(),
                        p.sampler,
                        p.output
                    ),
                );
                return None;
            }
            Err(Fail::Limit) => {
                report.error(E_LIMIT, limit_message(&channel_desc()));
                return None;
            }
        }
    }
    for d in inexact {
        report.warning(
            W_RESAMPLE,
            format!(
                "{d}: the cubic spline is resampled with {} keys per segment but still differs \
                 by more than {} somewhere",
                super::channels::MAX_SUBDIVISIONS,
                super::channels::TOLERANCE
            ),
        );
    }

    // Morph curve names: `morph/<mesh node name>/<target index>`, node names unique.
    let mut curve_names: BTreeMap<usize, String> = BTreeMap::new();
    let mut used: BTreeSet<String> = BTreeSet::new();
    curves.sort_by_key(|c| (c.0, c.1));
    for (node, _, _) in &curves {
        if curve_names.contains_key(node) {
            continue;
        }
        let mut n = sc.forest.names[*node].clone();
        if n.trim().is_empty() {
            n = format!("GltfNode{node}");
        }
        while !used.insert(n.clone()) {
            n.push_str(&format!("~{node}"));
        }
        curve_names.insert(*node, n);
    }
    let curves: Vec<Curve> = curves
        .into_iter()
        .map(|(node, j, mut c)| {
            c.name = format!("morph/{}/{j}", curve_names[&node]);
            c
        })
        .collect();

    let notifies = notifies::from_extras(anim.extras.as_deref(), label, duration, report);
    Some(Built {
        seq: AnimSeq {
            id: id.to_string(),
            name: label.to_string(),
            duration,
            skeleton: skel.map(|s| s.file.clone()),
            tracks: {
                tracks.sort_unstable_by_key(|t| t.0);
                tracks.into_iter().map(|t| t.1).collect()
            },
            notifies,
            windows: Vec::new(),
            curves,
            root_motion: None,
        },
        skeleton,
        used: start - *budget,
        need,
    })
}

fn limit_message(at: &str) -> String {
    format!(
        "the model's animations need more keys than the importer writes for a file of this \
         size (at {at}); is the file corrupt?"
    )
}

fn accessor_count(root: &gltf::json::Root, i: usize) -> Option<usize> {
    root.accessors
        .get(i)
        .and_then(|a| usize::try_from(a.count.0).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_times_keep_the_f32_shortest_decimal() {
        let mut buf = String::new();
        let mut x = 0x9E37_79B9u32;
        let specials = [
            0.0f32,
            -0.0,
            1.0,
            0.5,
            1.0 / 24.0,
            1e-5,
            3.4e38,
            54_595.06,
            1e-40,
        ];
        let randoms = (0..200_000).map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            f32::from_bits(x)
        });
        for t in specials
            .into_iter()
            .chain(randoms)
            .filter(|t| t.is_finite())
        {
            let want: f64 = format!("{t}").parse().expect("parses");
            assert_eq!(time_f64(t, &mut buf).to_bits(), want.to_bits(), "{t:e}");
        }
    }
}
