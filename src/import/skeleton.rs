//! One Sinew skeleton per animated skin: the skin's joints plus every node from the top-level
//! root down to them, rest transforms from the nodes (TRS, or a matrix decomposed), bone names
//! unique for Sinew, the exact signature, and the `.skel` text.

use super::diagnostics::{E_HIERARCHY, E_INVALID, E_LIMIT, Report};
use super::nodes::{Forest, bone_names};
use super::signature::SignatureBytes;
use crate::anim::Transform;
use crate::anim::skeleton::MAX_BONES;
use crate::animseq::quote;
use glam::{Mat4, Quat, Vec3};
use std::collections::BTreeSet;

/// The most path segments (over all joints of one skin: joints × depth) a skeleton may have.
pub const MAX_PATH_SEGMENTS: usize = 1 << 18;

/// One skeleton as imported.
#[derive(Clone, Debug)]
pub struct SkelOut {
    /// Skeleton name (file stem).
    pub name: String,
    /// File name inside the model's folder.
    pub file: String,
    /// Nodes in `.skel` order (parents first: depth-first from the root, file order).
    pub nodes: Vec<usize>,
    /// Sinew bone name of each of `nodes`, in that order (a node's index in `nodes` is kept
    /// beside it in the import's per-node skeleton list: no table here is as long as the
    /// file's node list, so many skins in a file with many nodes stay linear in memory).
    pub bones: Vec<String>,
    /// The signature (lowercase hex).
    pub signature: String,
    /// The joints' display paths (bone names from the root, `/`-joined), in `joints` order.
    pub joints: Vec<String>,
    /// The node animation's skeleton (no skin): a clip is keyed on it only through nodes that
    /// no skin's skeleton holds.
    pub node_animation: bool,
}

/// The nodes of skin `s`'s skeleton: its joints and all their ancestors. Errors for a joint
/// index out of range or a joint listed twice.
pub fn skin_nodes(
    root: &gltf::json::Root,
    forest: &Forest,
    s: usize,
    report: &mut Report,
) -> Option<BTreeSet<usize>> {
    let skin = root.skins.get(s)?;
    let mut set = BTreeSet::new();
    let mut joints = BTreeSet::new();
    for j in &skin.joints {
        let j = j.value();
        if j >= forest.names.len() {
            report.error(
                E_HIERARCHY,
                format!(
                    "skin {s} names joint node {j}, but there are {} nodes",
                    forest.names.len()
                ),
            );
            return None;
        }
        if !joints.insert(j) {
            report.error(
                E_HIERARCHY,
                format!("skin {s} lists node {j} twice in `joints`"),
            );
            return None;
        }
        // Up to the root, or to an ancestor already in (linear in the nodes overall).
        let mut cur = Some(j);
        while let Some(n) = cur {
            if !set.insert(n) {
                break;
            }
            cur = forest.parent[n];
        }
    }
    Some(set)
}

/// The local rest transform of a node: TRS (defaults identity) or its matrix decomposed.
pub fn rest_of(node: &gltf::json::Node, i: usize, report: &mut Report) -> Option<Transform> {
    let t = if let Some(m) = node.matrix {
        let (s, r, t) = Mat4::from_cols_array(&m).to_scale_rotation_translation();
        Transform {
            translation: t,
            rotation: r,
            scale: s,
        }
    } else {
        Transform {
            translation: Vec3::from_array(node.translation.unwrap_or([0.0; 3])),
            rotation: Quat::from_array(node.rotation.map_or([0.0, 0.0, 0.0, 1.0], |q| q.0)),
            scale: Vec3::from_array(node.scale.unwrap_or([1.0; 3])),
        }
    };
    let len = t.rotation.length();
    if !(t.translation.is_finite() && t.scale.is_finite() && len.is_finite() && len > 1e-12) {
        report.error(
            E_INVALID,
            format!(
                "node {i} has a transform that is not finite or whose rotation cannot be \
                 normalized{}",
                if node.matrix.is_some() {
                    " (its matrix has zero scale, shear or huge values)"
                } else {
                    ""
                }
            ),
        );
        return None;
    }
    Some(Transform {
        rotation: t.rotation / len,
        ..t
    })
}

/// The nodes of the node animation's skeleton: every node a translation, rotation or scale
/// channel animates (`animated[n]`) that no animated skin's skeleton holds (`in_skin[n]`), and
/// all their ancestors. `None` when there is no such node.
pub fn animated_nodes(
    forest: &Forest,
    animated: &[bool],
    in_skin: &[bool],
) -> Option<BTreeSet<usize>> {
    let mut set = BTreeSet::new();
    for n in (0..forest.names.len()).filter(|&n| animated[n] && !in_skin[n]) {
        let mut cur = Some(n);
        while let Some(k) = cur {
            if !set.insert(k) {
                break;
            }
            cur = forest.parent[k];
        }
    }
    (!set.is_empty()).then_some(set)
}

/// The nodes of `set` parents first: depth-first from each root in the set, children in file
/// order (the `.skel`'s bone order).
pub fn order(forest: &Forest, set: &BTreeSet<usize>) -> Vec<usize> {
    let mut nodes = Vec::with_capacity(set.len());
    let roots: BTreeSet<usize> = set.iter().map(|&n| forest.root_of[n]).collect();
    let mut stack: Vec<usize> = roots.into_iter().rev().collect();
    while let Some(n) = stack.pop() {
        if !set.contains(&n) {
            continue;
        }
        nodes.push(n);
        stack.extend(forest.children[n].iter().rev().copied());
    }
    nodes
}

/// What one skeleton is built from: a skin's joints, or the node animation's nodes.
pub struct Rig<'r> {
    /// How messages name it (`skin 3`, `the node animation`).
    pub what: String,
    /// The joints, in signature order (distinct).
    pub joints: &'r [usize],
    /// The joints and all their ancestors.
    pub set: &'r BTreeSet<usize>,
    /// Whether this is the node animation's skeleton.
    pub node_animation: bool,
}

/// Builds the skeleton of `rig` with the given name and file.
pub fn build(
    root: &gltf::json::Root,
    forest: &Forest,
    rig: &Rig<'_>,
    name: String,
    file: String,
    report: &mut Report,
) -> Option<(SkelOut, String)> {
    let Rig {
        what,
        joints,
        set,
        node_animation,
    } = rig;
    // Joint paths (signature bytes and display paths) grow with joints × depth.
    let segments: usize = joints.iter().map(|&j| forest.depth(j) + 1).sum();
    if segments > MAX_PATH_SEGMENTS {
        report.error(
            E_LIMIT,
            format!(
                "{what}'s joint paths hold {segments} path segments (joints × depth); the \
                 importer's limit is {MAX_PATH_SEGMENTS}"
            ),
        );
        return None;
    }
    if set.len() > MAX_BONES {
        report.error(
            E_LIMIT,
            format!(
                "{what} needs {} bones (joints and their ancestors); Sinew skeletons hold at \
                 most {MAX_BONES}",
                set.len()
            ),
        );
        return None;
    }
    let nodes = order(forest, set);
    let mut bone = bone_names(forest, &nodes, &format!("skeleton `{name}`"), report);
    // Each node's index in `joints` (joints are distinct).
    let mut index_of = vec![usize::MAX; forest.names.len()];
    for (k, &j) in joints.iter().enumerate() {
        index_of[j] = k;
    }
    let mut sig = SignatureBytes::new(joints.len());
    let mut display = Vec::with_capacity(joints.len());
    let (mut path, mut names) = (Vec::new(), Vec::new());
    for &j in joints.iter() {
        forest.path_into(j, &mut path);
        let parent = path[..path.len() - 1]
            .iter()
            .rev()
            .map(|&p| index_of[p])
            .find(|&k| k != usize::MAX);
        names.clear();
        names.extend(path.iter().map(|&n| forest.names[n].as_str()));
        sig.joint(&names, parent);
        let mut shown = String::with_capacity(names.iter().map(|n| n.len() + 1).sum());
        for (i, &n) in path.iter().enumerate() {
            if i > 0 {
                shown.push('/');
            }
            shown.push_str(bone[n].as_deref().unwrap_or(""));
        }
        display.push(shown);
    }
    let signature = sig.signature();
    let mut text = String::with_capacity(64 + 160 * nodes.len());
    text.push_str("Skeleton(\n    bones: [\n");
    for &n in &nodes {
        let node = root.nodes.get(n)?;
        let rest = rest_of(node, n, report)?;
        text.push_str("        (name: ");
        text.push_str(&quote(bone[n].as_deref().unwrap_or("")));
        text.push_str(", parent: ");
        match forest.parent[n].and_then(|p| bone[p].as_deref()) {
            Some(p) => {
                text.push_str("Some(");
                text.push_str(&quote(p));
                text.push(')');
            }
            None => text.push_str("None"),
        }
        text.push_str(", translation: ");
        push_f32s(&mut text, &rest.translation.to_array());
        text.push_str(", rotation: ");
        push_f32s(&mut text, &rest.rotation.to_array());
        text.push_str(", scale: ");
        push_f32s(&mut text, &rest.scale.to_array());
        text.push_str("),\n");
    }
    text.push_str("    ],\n)\n");
    let bones = nodes
        .iter()
        .map(|&n| bone[n].take().unwrap_or_default())
        .collect();
    Some((
        SkelOut {
            name,
            file,
            nodes,
            bones,
            signature,
            joints: display,
            node_animation: *node_animation,
        },
        text,
    ))
}

/// `(a, b, c)` with shortest round-trip `f32`s (`-0.0` written as `0.0`), appended to `o`.
fn push_f32s(o: &mut String, v: &[f32]) {
    o.push('(');
    for (i, &x) in v.iter().enumerate() {
        if i > 0 {
            o.push_str(", ");
        }
        if x == 0.0 {
            o.push_str("0.0");
        } else if x == 1.0 {
            // Scales and identity rotations, mostly.
            o.push_str("1.0");
        } else {
            crate::animseq::push_f32(o, x);
        }
    }
    o.push(')');
}
