//! Retargeting a clip keyed on a source skeleton onto a target skeleton (baked once, when an
//! animator loads): every matched bone's rotation carries over as its change from the source rest
//! pose, measured in the space of the hips' parent; the hips' translation scales by the ratio of
//! leg lengths (upper leg to foot, found by name; failing that the hips' rest heights); other
//! bones keep the target's lengths (their translation keys are dropped). Tracks for bones either
//! skeleton lacks pass through by name; `bone_map` renames source bones first.
//!
//! Baking samples the source at the union of the clip's key times (capped by
//! [`MAX_BAKED_KEYS`]); between those keys the target interpolates as usual.

use super::root_motion::find_root_bone;
use super::sample::nlerp;
use super::skeleton::{Skeleton, normalize_bone_name};
use super::*;
use crate::animseq::{AnimSeq, Track};
use crate::diag::Diagnostic;
use glam::{Quat, Vec3};
use std::collections::BTreeMap;

/// The most rotation keys (times × bones) one baked clip may hold.
pub const MAX_BAKED_KEYS: usize = 1 << 22;

/// Leg length of a skeleton: the rest-length chain from the first upper-leg bone (name contains
/// `upleg`, `upperleg` or `thigh`) down to a `foot` below it. `None` when not found or zero.
pub fn leg_length(skel: &Skeleton) -> Option<f32> {
    let bones = skel.bones();
    let mut order: Vec<usize> = (0..bones.len()).collect();
    order.sort_by_key(|&i| bones[i].authored);
    let is = |i: usize, keys: &[&str]| {
        let n: String = normalize_bone_name(&bones[i].name).replace('_', "");
        keys.iter().any(|k| n.contains(k))
    };
    for &up in order
        .iter()
        .filter(|&&i| is(i, &["upleg", "upperleg", "thigh"]))
    {
        if let Some(&foot) = order
            .iter()
            .find(|&&f| f != up && is(f, &["foot"]) && skel.is_ancestor_or_self(up, f))
        {
            let mut len = 0.0f32;
            let mut cur = foot;
            while cur != up {
                len += bones[cur].rest.translation.length();
                match bones[cur].parent {
                    Some(p) => cur = p,
                    None => break,
                }
            }
            if len > 0.0 && len.is_finite() {
                return Some(len);
            }
        }
    }
    None
}

/// Target over source leg length (else hips rest height ratio; else 1).
pub fn hips_scale(source: &Skeleton, target: &Skeleton) -> f32 {
    let ratio = match (leg_length(source), leg_length(target)) {
        (Some(s), Some(t)) => t / s,
        _ => {
            let h = |sk: &Skeleton| {
                find_root_bone(sk, "").map(|i| sk.model_rest(i).translation.y.abs())
            };
            match (h(source), h(target)) {
                (Some(s), Some(t)) if s > 0.0 => t / s,
                _ => 1.0,
            }
        }
    };
    if ratio.is_finite() && ratio > 0.0 {
        ratio
    } else {
        1.0
    }
}

fn global_rest(skel: &Skeleton) -> Vec<Quat> {
    let mut g: Vec<Quat> = Vec::with_capacity(skel.len());
    for b in skel.bones() {
        let parent = b
            .parent
            .and_then(|p| g.get(p).copied())
            .unwrap_or(Quat::IDENTITY);
        g.push((parent * b.rest.rotation).normalize());
    }
    g
}

/// Retargets `seq` (keyed on `source`) onto `target`. Returns the baked clip (tracks named by
/// target bones, root-motion bone renamed likewise) and warnings ([`E_RETARGET`]).
pub fn retarget_clip(
    seq: &AnimSeq,
    source: &Skeleton,
    target: &Skeleton,
    bone_map: &BTreeMap<String, String>,
) -> (AnimSeq, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let map: BTreeMap<String, &str> = bone_map
        .iter()
        .map(|(k, v)| (normalize_bone_name(k), v.as_str()))
        .collect();
    let rename = |n: &str| -> String {
        map.get(&normalize_bone_name(n))
            .map_or_else(|| n.to_string(), |s| s.to_string())
    };
    // Source bone → target bone.
    let s2t: Vec<Option<usize>> = source
        .bones()
        .iter()
        .map(|b| target.find(&rename(&b.name)))
        .collect();
    let mut t2s: Vec<Option<usize>> = vec![None; target.len()];
    for (s, t) in s2t.iter().enumerate() {
        if let Some(t) = t
            && t2s[*t].is_none()
        {
            t2s[*t] = Some(s);
        }
    }
    // Tracks by source bone.
    let mut src_track: Vec<Option<&Track>> = vec![None; source.len()];
    let mut passthrough = Vec::new();
    for tr in &seq.tracks {
        match source.find(&tr.bone) {
            Some(s) if s2t[s].is_some() => {
                if src_track[s].is_none() {
                    src_track[s] = Some(tr);
                }
            }
            _ => {
                let mut t = tr.clone();
                t.bone = rename(&tr.bone);
                passthrough.push(t);
            }
        }
    }
    let hips_s = find_root_bone(source, "");
    let hips_t = find_root_bone(target, "");
    if hips_s.is_none() || hips_t.is_none() {
        diags.push(
            Diagnostic::warning(
                E_RETARGET,
                "no hips/pelvis bone on both skeletons: rotations measured from the roots, hips \
                 translation not scaled",
            )
            .in_file(seq.name.clone()),
        );
    }
    let gs_rest = global_rest(source);
    let gt_rest = global_rest(target);
    let frame = |g: &[Quat], sk: &Skeleton, h: Option<usize>| {
        h.and_then(|h| sk.parent(h))
            .and_then(|p| g.get(p).copied())
            .unwrap_or(Quat::IDENTITY)
    };
    let p_s = frame(&gs_rest, source, hips_s);
    let p_t = frame(&gt_rest, target, hips_t);
    // Source bones whose rotation (or an ancestor's) is keyed.
    let mut affected = vec![false; source.len()];
    for (i, b) in source.bones().iter().enumerate() {
        let own = src_track[i].is_some_and(|t| !t.rotation.is_empty());
        affected[i] = own || b.parent.is_some_and(|p| affected[p]);
    }
    // Bake times: union of every used rotation key time.
    let mut times: Vec<f64> = src_track
        .iter()
        .flatten()
        .flat_map(|t| t.rotation.iter().map(|k| k.0))
        .filter(|t| t.is_finite())
        .collect();
    times.sort_by(f64::total_cmp);
    times.dedup();
    let out_bones: Vec<usize> = (0..target.len())
        .filter(|&t| t2s[t].is_some_and(|s| affected[s]))
        .collect();
    if times.len().saturating_mul(out_bones.len().max(1)) > MAX_BAKED_KEYS {
        diags.push(
            Diagnostic::error(
                E_RETARGET,
                format!("retargeting would bake more than {MAX_BAKED_KEYS} keys; clip left as is"),
            )
            .in_file(seq.name.clone()),
        );
        return (seq.clone(), diags);
    }
    let mut rot_keys: Vec<Vec<(f64, [f32; 4])>> = vec![Vec::new(); target.len()];
    let mut gs = vec![Quat::IDENTITY; source.len()];
    let mut gt = vec![Quat::IDENTITY; target.len()];
    for &time in &times {
        for (i, b) in source.bones().iter().enumerate() {
            let local = src_track[i]
                .and_then(|t| t.sample_rotation(time))
                .map(Quat::from_array)
                .unwrap_or(b.rest.rotation);
            let parent = b.parent.map_or(Quat::IDENTITY, |p| gs[p]);
            gs[i] = (parent * local).normalize();
        }
        for (i, b) in target.bones().iter().enumerate() {
            let parent = b.parent.map_or(Quat::IDENTITY, |p| gt[p]);
            gt[i] = match t2s[i] {
                Some(s) => {
                    let delta_world = gs[s] * gs_rest[s].inverse();
                    let delta_hp = p_s.inverse() * delta_world * p_s;
                    (p_t * delta_hp * p_t.inverse() * gt_rest[i]).normalize()
                }
                None => (parent * b.rest.rotation).normalize(),
            };
            if out_bones.binary_search(&i).is_ok() {
                let mut local = (parent.inverse() * gt[i]).normalize();
                if let Some(prev) = rot_keys[i].last() {
                    // Keep keys on one hemisphere so interpolation takes the short way.
                    local = nlerp(Quat::from_array(prev.1), local, 1.0);
                }
                let local = if local.is_finite() {
                    local
                } else {
                    b.rest.rotation
                };
                rot_keys[i].push((time, local.to_array()));
            }
        }
    }
    let ratio = if hips_s.is_some() && hips_t.is_some() {
        hips_scale(source, target)
    } else {
        1.0
    };
    let to_target = p_t.inverse() * p_s;
    let mut tracks = Vec::new();
    for (ti, b) in target.bones().iter().enumerate() {
        let Some(s) = t2s[ti] else { continue };
        let src = src_track[s];
        let translation = match (src, Some(s) == hips_s && Some(ti) == hips_t) {
            (Some(t), true) => t
                .translation
                .iter()
                .map(|&(k, v)| {
                    let v = to_target * (Vec3::from_array(v) * ratio);
                    (
                        k,
                        if v.is_finite() {
                            v.to_array()
                        } else {
                            [0.0; 3]
                        },
                    )
                })
                .collect(),
            _ => Vec::new(),
        };
        let scale = src.map(|t| t.scale.clone()).unwrap_or_default();
        let rotation = std::mem::take(&mut rot_keys[ti]);
        if translation.is_empty() && rotation.is_empty() && scale.is_empty() {
            continue;
        }
        tracks.push(Track {
            bone: b.name.clone(),
            translation,
            rotation,
            scale,
        });
    }
    tracks.extend(passthrough);
    let mut out = seq.clone();
    out.tracks = tracks;
    out.skeleton = None;
    if let Some(rm) = &mut out.root_motion {
        let renamed = rename(&rm.bone);
        rm.bone = match source.find(&rm.bone).and_then(|s| s2t[s]) {
            Some(t) => target.bones()[t].name.clone(),
            None => renamed,
        };
    }
    (out, diags)
}
