//! One glTF animation → one `.animseq`: channels grouped into bone tracks (on the skeleton
//! the clip drives) and morph curves, times shifted to start at 0, durations, notifies.

use super::accessor::{self, Want};
use super::buffers::Buffers;
use super::channels::{Fail, Interp, Linear, Part, Rotation, convert};
use super::diagnostics::{
    E_ACCESSOR, E_LIMIT, Report, W_CHANNEL_SKIPPED, W_OUTSIDE_SKELETON, W_RESAMPLE, quoted,
};
use super::nodes::Forest;
use super::notifies;
use super::skeleton::SkelOut;
use crate::animseq::{AnimSeq, Curve, CurveValue, Interpolation, Track};
use gltf::json::accessor::Type;
use gltf::json::animation::{Interpolation as GInterp, Property};
use gltf::json::validation::Checked;
use std::collections::{BTreeMap, BTreeSet};
use times::{KeyTimes, key_times};

mod times;

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
    /// For each node of the file, the skeletons holding it: (index into `skels`, the node's
    /// index in that skeleton's `nodes`).
    pub in_skeleton: &'a [Vec<(usize, usize)>],
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

    // The clip lasts as long as its samplers say, whether or not their channels import: the
    // input accessors of samplers no kept channel uses count for the duration too.
    let used: BTreeSet<usize> = plans.iter().map(|p| p.sampler).collect();
    let unused: Vec<(usize, usize)> = anim
        .samplers
        .iter()
        .enumerate()
        .filter(|(s, _)| !used.contains(s))
        .map(|(s, sm)| (s, sm.input.value()))
        .collect();
    let KeyTimes {
        times,
        time_of,
        duration,
    } = key_times(sc.root, sc.buffers, &plans, &unused, &lbl, report)?;

    // The skeleton the clip drives: the one holding most of its animated nodes.
    // Ties: the earlier skeleton. The node animation's skeleton counts only the nodes no
    // skin's skeleton holds (a character's clip that also moves a prop stays the character's).
    let mut votes = vec![0usize; sc.skels.len()];
    for p in plans.iter().filter(|p| !matches!(p.what, What::W(_))) {
        let holders = &sc.in_skeleton[p.node];
        let in_skin = holders.iter().any(|&(s, _)| !sc.skels[s].node_animation);
        for &(s, _) in holders {
            if !(in_skin && sc.skels[s].node_animation) {
                votes[s] += 1;
            }
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
    // Node `n`'s index in the skeleton's nodes.
    let skel_pos = |n: usize| {
        let k = skeleton?;
        sc.in_skeleton[n].iter().find(|e| e.0 == k).map(|e| e.1)
    };
    let skel_bone = |n: usize| Some(skel?.bones[skel_pos(n)?].as_str());
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
                s.bones
                    .iter()
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
    let rank = |n: usize| skel_pos(n).map_or((1, n), |i| (0, i));
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
