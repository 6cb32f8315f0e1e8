//! Skeletons: the `.skel` loader (RON via `ron_span`, `E05xx` diagnostics at the offending token),
//! topological bone order, and bone-name matching across `:`/`_`/case.
//!
//! Decision: a file may list a bone before its parent; bones are reordered internally so every
//! parent precedes its children (depth-first from the roots, authored order among siblings).
//! [`Bone::authored`] keeps the file position.

use super::soa::LanePose;
use super::*;
use crate::diag::{Diagnostic, SourceFile, Span};
use crate::ron_span::{self, DecodeCodes, Decoder, Value};
use glam::{Quat, Vec3};
use std::collections::BTreeMap;

/// The most bones one skeleton may have.
pub const MAX_BONES: usize = 4096;

/// The canonical form names are matched by: `:` becomes `_`, letters lowercase
/// (`mixamorig:Spine1` and `mixamorig_spine1` both become `mixamorig_spine1`).
pub fn normalize_bone_name(name: &str) -> String {
    name.chars()
        .flat_map(|c| {
            let c = if c == ':' { '_' } else { c };
            c.to_lowercase()
        })
        .collect()
}

/// Whether two bone names match across `:`/`_` and case.
pub fn names_match(a: &str, b: &str) -> bool {
    let norm = |c: char| if c == ':' { '_' } else { c };
    a.chars()
        .map(norm)
        .flat_map(char::to_lowercase)
        .eq(b.chars().map(norm).flat_map(char::to_lowercase))
}

/// One bone as written (or built in code), before validation.
#[derive(Clone, Debug, PartialEq)]
pub struct BoneDef {
    /// Bone name (unique across `:`/`_`/case).
    pub name: String,
    /// Parent bone name, `None` for a root.
    pub parent: Option<String>,
    /// Local rest transform relative to the parent.
    pub rest: Transform,
}

/// One validated bone.
#[derive(Clone, Debug, PartialEq)]
pub struct Bone {
    /// Bone name as written.
    pub name: String,
    /// Parent index; always less than this bone's index.
    pub parent: Option<usize>,
    /// Local rest transform (rotation normalized).
    pub rest: Transform,
    /// Position in the authored list.
    pub authored: usize,
}

/// A validated skeleton: bones in topological order (parents first).
#[derive(Clone, Debug, PartialEq)]
pub struct Skeleton {
    bones: Vec<Bone>,
    /// Normalized name → bone index.
    by_name: BTreeMap<String, usize>,
    /// Clip files keyed on this skeleton (the optional `clips` list).
    pub clips: Vec<String>,
    /// Rest values as structure-of-arrays, for fast pose resets.
    rest_t: Vec<Vec3>,
    rest_r: Vec<Quat>,
    rest_s: Vec<Vec3>,
    /// The rest pose in lane groups (the SoA evaluation starts from it).
    rest_lanes: LanePose,
}

/// Why [`Skeleton::new`] refused a bone list (the loader turns these into diagnostics).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SkeletonError {
    /// No bones or more than [`MAX_BONES`].
    BoneCount(usize),
    /// Bone at this authored index has an empty name.
    EmptyName(usize),
    /// Authored indices of two bones whose names match.
    Duplicate(usize, usize),
    /// Bone at this authored index names a parent that does not exist.
    UnknownParent(usize),
    /// Authored indices of the bones on a parent cycle (sorted).
    Cycle(Vec<usize>),
    /// Bone at this authored index has a non-finite rest value.
    NonFinite(usize),
    /// Bone at this authored index has a zero-length rest rotation.
    ZeroRotation(usize),
}

impl Skeleton {
    /// Validates bones (any order) and orders them parents-first. Reports the first problem of
    /// each kind per bone; use [`load_skeleton`] for located diagnostics.
    pub fn new(defs: Vec<BoneDef>, clips: Vec<String>) -> Result<Skeleton, Vec<SkeletonError>> {
        let errors = validate(&defs);
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(build(defs, clips))
    }

    /// The flat skeleton of an animator without one: one identity-rest root bone per distinct
    /// track name (matched across `:`/`_`/case, first spelling kept, at most [`MAX_BONES`]),
    /// in first-seen order, no hierarchy.
    pub fn from_track_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Skeleton {
        let mut seen = std::collections::BTreeSet::new();
        let defs = names
            .into_iter()
            .filter(|n| !n.trim().is_empty() && seen.insert(normalize_bone_name(n)))
            .take(MAX_BONES)
            .map(|n| BoneDef {
                name: n.to_string(),
                parent: None,
                rest: Transform::IDENTITY,
            })
            .collect();
        build(defs, Vec::new())
    }

    /// The bones, parents before children.
    pub fn bones(&self) -> &[Bone] {
        &self.bones
    }

    /// The rest pose in lane groups (`anim::soa::LanePose`).
    pub fn rest_lanes(&self) -> &LanePose {
        &self.rest_lanes
    }

    /// The rest pose as per-channel arrays (translations, rotations, scales).
    pub fn rest_arrays(&self) -> (&[Vec3], &[Quat], &[Vec3]) {
        (&self.rest_t, &self.rest_r, &self.rest_s)
    }

    /// Number of bones.
    pub fn len(&self) -> usize {
        self.bones.len()
    }

    /// Whether there are no bones (never true for a validated skeleton).
    pub fn is_empty(&self) -> bool {
        self.bones.is_empty()
    }

    /// The bone index matching `name` across `:`/`_`/case.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.by_name.get(&normalize_bone_name(name)).copied()
    }

    /// Parent index of bone `i`.
    pub fn parent(&self, i: usize) -> Option<usize> {
        self.bones.get(i).and_then(|b| b.parent)
    }

    /// Whether `ancestor` is `bone` or one of its ancestors.
    pub fn is_ancestor_or_self(&self, ancestor: usize, bone: usize) -> bool {
        let mut cur = Some(bone);
        while let Some(c) = cur {
            if c == ancestor {
                return true;
            }
            cur = self.parent(c);
        }
        false
    }

    /// Rest transform of bone `i` in model space (product of rests from its root).
    pub fn model_rest(&self, i: usize) -> Transform {
        let mut chain = Vec::new();
        let mut cur = Some(i);
        while let Some(c) = cur {
            chain.push(c);
            cur = self.parent(c);
        }
        let mut m = Transform::IDENTITY;
        for &c in chain.iter().rev() {
            m = m.mul(&self.bones[c].rest);
        }
        m
    }
}

fn validate(defs: &[BoneDef]) -> Vec<SkeletonError> {
    let mut errors = Vec::new();
    if defs.is_empty() || defs.len() > MAX_BONES {
        errors.push(SkeletonError::BoneCount(defs.len()));
        return errors;
    }
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (i, d) in defs.iter().enumerate() {
        if d.name.trim().is_empty() {
            errors.push(SkeletonError::EmptyName(i));
        }
        if let Some(&first) = seen.get(&normalize_bone_name(&d.name)) {
            errors.push(SkeletonError::Duplicate(first, i));
        } else {
            seen.insert(normalize_bone_name(&d.name), i);
        }
        let r = &d.rest;
        if !(r.translation.is_finite() && r.rotation.is_finite() && r.scale.is_finite()) {
            errors.push(SkeletonError::NonFinite(i));
        } else if r.rotation.length_squared() == 0.0 || !r.rotation.length_squared().is_normal() {
            errors.push(SkeletonError::ZeroRotation(i));
        }
    }
    // Parent indices (by normalized name; duplicates resolve to the first).
    let parents: Vec<Option<Option<usize>>> = defs
        .iter()
        .map(|d| match &d.parent {
            None => Some(None),
            Some(p) => seen.get(&normalize_bone_name(p)).map(|&j| Some(j)),
        })
        .collect();
    for (i, p) in parents.iter().enumerate() {
        if p.is_none() {
            errors.push(SkeletonError::UnknownParent(i));
        }
    }
    // Cycles: walk up from each bone with a step bound; colour 0 = unknown, 1 = reaches a root,
    // 2 = on or leading into a cycle.
    let n = defs.len();
    let mut state = vec![0u8; n];
    let mut reported = vec![false; n];
    for start in 0..n {
        let mut path = Vec::new();
        let mut cur = start;
        let mut result = 1u8;
        loop {
            if state[cur] != 0 {
                result = state[cur];
                break;
            }
            if path.contains(&cur) {
                // A new cycle: the part of the path from `cur` on.
                let from = path.iter().position(|&x| x == cur).unwrap_or(0);
                let mut cycle: Vec<usize> = path[from..].to_vec();
                cycle.sort_unstable();
                if !cycle.iter().any(|&c| reported[c]) {
                    for &c in &cycle {
                        reported[c] = true;
                    }
                    errors.push(SkeletonError::Cycle(cycle));
                }
                result = 2;
                break;
            }
            path.push(cur);
            match parents[cur] {
                Some(Some(p)) => cur = p,
                _ => break,
            }
        }
        for &p in &path {
            state[p] = result;
        }
    }
    errors
}

/// Orders validated bones parents-first (depth-first from the roots, siblings authored order).
fn build(defs: Vec<BoneDef>, clips: Vec<String>) -> Skeleton {
    let n = defs.len();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    for (i, d) in defs.iter().enumerate() {
        index.entry(normalize_bone_name(&d.name)).or_insert(i);
    }
    let parent_of: Vec<Option<usize>> = defs
        .iter()
        .map(|d| {
            d.parent
                .as_ref()
                .and_then(|p| index.get(&normalize_bone_name(p)).copied())
        })
        .collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for (i, p) in parent_of.iter().enumerate() {
        match p {
            Some(p) => children[*p].push(i),
            None => roots.push(i),
        }
    }
    let mut order = Vec::with_capacity(n);
    let mut stack: Vec<usize> = roots.into_iter().rev().collect();
    while let Some(b) = stack.pop() {
        order.push(b);
        stack.extend(children[b].iter().rev());
    }
    let mut new_index = vec![0usize; n];
    for (new, &old) in order.iter().enumerate() {
        new_index[old] = new;
    }
    let mut slots: Vec<Option<BoneDef>> = defs.into_iter().map(Some).collect();
    let mut bones = Vec::with_capacity(n);
    let mut by_name = BTreeMap::new();
    for (new, &old) in order.iter().enumerate() {
        let Some(d) = slots[old].take() else { continue };
        by_name.insert(normalize_bone_name(&d.name), new);
        let mut rest = d.rest;
        rest.rotation = rest.rotation.normalize();
        bones.push(Bone {
            name: d.name,
            parent: parent_of[old].map(|p| new_index[p]),
            rest,
            authored: old,
        });
    }
    let rest_t: Vec<Vec3> = bones.iter().map(|b| b.rest.translation).collect();
    let rest_r: Vec<Quat> = bones.iter().map(|b| b.rest.rotation).collect();
    let rest_s: Vec<Vec3> = bones.iter().map(|b| b.rest.scale).collect();
    Skeleton {
        rest_lanes: LanePose::from_rest((&rest_t, &rest_r, &rest_s)),
        rest_t,
        rest_r,
        rest_s,
        bones,
        by_name,
        clips,
    }
}

/// The result of loading one `.skel` text.
#[derive(Clone, Debug)]
pub struct LoadedSkeleton {
    /// `Some` iff there are no errors.
    pub skeleton: Option<Skeleton>,
    /// Every problem found, in canonical order.
    pub diagnostics: Vec<Diagnostic>,
}

const ROOT_FIELDS: &[&str] = &["bones", "clips"];
const BONE_FIELDS: &[&str] = &["name", "parent", "translation", "rotation", "scale"];

/// Loads raw bytes: non-UTF-8 is reported at the first bad byte ([`E_SKEL_NOT_UTF8`]).
pub fn load_skeleton_bytes(name: &str, bytes: &[u8]) -> LoadedSkeleton {
    match std::str::from_utf8(bytes) {
        Ok(text) => load_skeleton(&SourceFile::new(name, text)),
        Err(e) => {
            let at = e.valid_up_to();
            let src = SourceFile::new(name, String::from_utf8_lossy(bytes));
            LoadedSkeleton {
                skeleton: None,
                diagnostics: vec![
                    Diagnostic::error(E_SKEL_NOT_UTF8, "file is not valid UTF-8")
                        .at(&src, Span::new(at, at + e.error_len().unwrap_or(1))),
                ],
            }
        }
    }
}

/// Spans of one bone entry, for diagnostics.
struct BoneSpans {
    name: Span,
    parent: Span,
    rest: [Span; 3],
}

/// Parses and validates one `.skel` text: `Skeleton(bones: [(name, parent, translation,
/// rotation, scale?)], clips: [..]?)` (the struct name may be omitted).
pub fn load_skeleton(src: &SourceFile) -> LoadedSkeleton {
    let fail = |diagnostics: Vec<Diagnostic>| LoadedSkeleton {
        skeleton: None,
        diagnostics,
    };
    let mut d = Decoder::new(src, DecodeCodes::all(E_SKEL_SHAPE));
    let value = match ron_span::parse(src.text()) {
        Ok(v) => v,
        Err(e) => {
            d.error(E_SKEL_SYNTAX, e.span, e.message);
            return fail(d.finish());
        }
    };
    let Some(root) = d.strukt(&value, "Skeleton", ROOT_FIELDS) else {
        return fail(d.finish());
    };
    let bones_v = d.required(&root, "bones");
    let mut clips = Vec::new();
    if let Some(f) = root.get("clips")
        && let Some(items) = d.ok(f.value.as_list())
    {
        for it in items {
            if let Some(s) = d.string(it) {
                clips.push(s);
            }
        }
    }
    let mut defs = Vec::new();
    let mut spans = Vec::new();
    if let Some(bv) = bones_v
        && let Some(items) = d.ok(bv.as_list())
    {
        for it in items {
            if let Some((def, s)) = bone(it, &mut d) {
                defs.push(def);
                spans.push(s);
            }
        }
    }
    if d.has_errors() {
        return fail(d.finish());
    }
    for e in &validate(&defs) {
        let diag = located(src, e, &defs, &spans, root.head);
        d.push(diag);
    }
    if !d.diags.is_empty() {
        return fail(d.finish());
    }
    LoadedSkeleton {
        skeleton: Some(build(defs, clips)),
        diagnostics: d.finish(),
    }
}

fn located(
    src: &SourceFile,
    e: &SkeletonError,
    defs: &[BoneDef],
    spans: &[BoneSpans],
    head: Span,
) -> Diagnostic {
    let name = |i: usize| defs.get(i).map(|d| short(&d.name)).unwrap_or_default();
    let sp = |i: usize| spans.get(i);
    match e {
        SkeletonError::BoneCount(n) => Diagnostic::error(
            E_SKEL_BONE_COUNT,
            format!("a skeleton needs 1 to {MAX_BONES} bones, found {n}"),
        )
        .at(src, head),
        SkeletonError::EmptyName(i) => Diagnostic::error(E_SKEL_EMPTY_NAME, "bone name is empty")
            .at(src, sp(*i).map_or(head, |s| s.name)),
        SkeletonError::Duplicate(a, b) => Diagnostic::error(
            E_SKEL_DUPLICATE_BONE,
            format!("duplicate bone `{}`", name(*b)),
        )
        .at(src, sp(*b).map_or(head, |s| s.name))
        .with_label(src, sp(*a).map_or(head, |s| s.name), "first declared here")
        .with_note("bone names match across `:`/`_` and case"),
        SkeletonError::UnknownParent(i) => Diagnostic::error(
            E_SKEL_UNKNOWN_PARENT,
            format!(
                "bone `{}` names unknown parent `{}`",
                name(*i),
                defs.get(*i)
                    .and_then(|d| d.parent.as_deref())
                    .map(short)
                    .unwrap_or_default()
            ),
        )
        .at(src, sp(*i).map_or(head, |s| s.parent)),
        SkeletonError::Cycle(cycle) => {
            let first = cycle.first().copied().unwrap_or(0);
            let names: Vec<String> = cycle.iter().map(|&c| format!("`{}`", name(c))).collect();
            let mut d = Diagnostic::error(
                E_SKEL_CYCLE,
                format!("bone parents form a cycle: {}", names.join(", ")),
            )
            .at(src, sp(first).map_or(head, |s| s.parent));
            for &c in cycle.iter().skip(1) {
                if let Some(s) = sp(c) {
                    d = d.with_label(src, s.parent, "part of the cycle");
                }
            }
            d
        }
        SkeletonError::NonFinite(i) => {
            let d = &defs[*i].rest;
            let k = if !d.translation.is_finite() {
                0
            } else if !d.rotation.is_finite() {
                1
            } else {
                2
            };
            Diagnostic::error(
                E_SKEL_NON_FINITE,
                format!("bone `{}` has a non-finite rest value", name(*i)),
            )
            .at(src, sp(*i).map_or(head, |s| s.rest[k]))
        }
        SkeletonError::ZeroRotation(i) => Diagnostic::error(
            E_SKEL_ZERO_ROTATION,
            format!("bone `{}` has a zero-length rest rotation", name(*i)),
        )
        .at(src, sp(*i).map_or(head, |s| s.rest[1])),
    }
}

fn bone(v: &Value, d: &mut Decoder) -> Option<(BoneDef, BoneSpans)> {
    let f = d.strukt(v, "Bone", BONE_FIELDS)?;
    let name_v = d.required(&f, "name");
    let parent_v = d.required(&f, "parent");
    let t_v = d.required(&f, "translation");
    let r_v = d.required(&f, "rotation");
    let s_v = f.get("scale").map(|x| &x.value);
    let name = name_v.and_then(|v| d.string(v));
    let parent = parent_v.and_then(|v| match d.ok(v.as_option())? {
        None => Some(None),
        Some(p) => d.string(p).map(Some),
    });
    let t = t_v.and_then(|v| floats::<3>(v, d));
    let r = r_v.and_then(|v| floats::<4>(v, d));
    let s = match s_v {
        None => Some([1.0; 3]),
        Some(v) => floats::<3>(v, d),
    };
    let (
        Some(name),
        Some(parent),
        Some(t),
        Some(r),
        Some(s),
        Some(nv),
        Some(pv),
        Some(tv),
        Some(rv),
    ) = (name, parent, t, r, s, name_v, parent_v, t_v, r_v)
    else {
        return None;
    };
    Some((
        BoneDef {
            name,
            parent,
            rest: Transform {
                translation: Vec3::from_array(t),
                rotation: Quat::from_array(r),
                scale: Vec3::from_array(s),
            },
        },
        BoneSpans {
            name: nv.span,
            parent: pv.span,
            rest: [tv.span, rv.span, s_v.map_or(v.span, |x| x.span)],
        },
    ))
}

fn floats<const N: usize>(v: &Value, d: &mut Decoder) -> Option<[f32; N]> {
    let items = d.ok(v.as_tuple(N))?;
    let mut out = [0.0f32; N];
    let mut ok = true;
    for (o, it) in out.iter_mut().zip(items) {
        match d.ok(it.as_f32()) {
            Some(x) => *o = x,
            None => ok = false,
        }
    }
    ok.then_some(out)
}

pub(crate) use crate::ron_span::short;
