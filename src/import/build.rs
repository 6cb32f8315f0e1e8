//! One parsed glTF document → skeletons and clips: the channel targets checked (one top-level
//! root), the rigs of the animated skins and of node animation built into `.skel` files, then
//! the clips converted in parallel batches within the import's key budget and written through
//! the output budget, each recorded in the manifest.

use std::collections::{BTreeMap, BTreeSet};

use super::diagnostics::{E_INVALID, E_SEVERAL_ROOTS, Report, W_DUPLICATE_LABEL, quoted};
use super::names::{file_stem, unique_file};
use super::{
    AnimManifest, Asset, ClipEntry, Content, Identity, SkeletonEntry, buffers, clips, container,
    identity, nodes, output, skeleton,
};

/// How one glTF import runs: the keys it may still write, and how many clips convert at once
/// (in parallel when more than one).
pub(super) struct Run {
    pub(super) budget: usize,
    pub(super) width: usize,
    /// The bytes the import may write (`output::budget`).
    pub(super) output: usize,
}

#[allow(clippy::too_many_arguments)]
pub(super) fn gltf_import(
    doc: &container::Document<'_>,
    (externals, refused): (&BTreeMap<String, Vec<u8>>, &BTreeMap<String, String>),
    stem: &str,
    id: &Identity,
    run: Run,
    manifest: &mut AnimManifest,
    report: &mut Report,
    sink: &mut dyn FnMut(Asset),
) {
    let Run {
        mut budget,
        width,
        output,
    } = run;
    let mut output = output::Output::new(output, sink);
    let root = &doc.root;
    let Some(buffers) = buffers::resolve(root, doc.bin, externals, refused, report) else {
        return;
    };
    let Some(forest) = nodes::Forest::new(root, report) else {
        return;
    };
    if root.animations.is_empty() {
        report.note("the model has no animations: no clips to import");
    }

    // Channel targets: every node index checked; top-level roots the animations reach.
    let mut roots: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    let mut trs_nodes = vec![false; forest.names.len()];
    let mut bad = false;
    for (a, anim) in root.animations.iter().enumerate() {
        for (c, ch) in anim.channels.iter().enumerate() {
            let n = ch.target.node.value();
            if n >= forest.names.len() {
                report.error(
                    E_INVALID,
                    format!(
                        "invalid glTF at `animations[{a}].channels[{c}].target.node`: node {n} \
                         does not exist ({} nodes)",
                        forest.names.len()
                    ),
                );
                bad = true;
                continue;
            }
            roots.entry(forest.root_of[n]).or_default().insert(a);
            if doc.unknown_paths.binary_search(&(a, c)).is_err()
                && !matches!(
                    ch.target.path,
                    gltf::json::validation::Checked::Valid(
                        gltf::json::animation::Property::MorphTargetWeights
                    )
                )
            {
                trs_nodes[n] = true;
            }
        }
    }
    if bad {
        return;
    }
    let labels = labels(root, report);
    if roots.len() > 1 {
        let parts: Vec<String> = roots
            .iter()
            .map(|(r, anims)| {
                let names: Vec<String> = anims.iter().map(|&a| quoted(&labels[a])).collect();
                format!(
                    "{} (node {r}: {})",
                    quoted(&forest.names[*r]),
                    names.join(", ")
                )
            })
            .collect();
        report.error(
            E_SEVERAL_ROOTS,
            format!(
                "the animations reach {} top-level roots: {}; one player drives one hierarchy, \
                 so export all clips beneath one common root (parent the rigs to one node) or \
                 split the rigs into separate files",
                roots.len(),
                parts.join(", ")
            ),
        );
        return;
    }

    // Skeletons of the skins the channels touch.
    let mut sets = Vec::new();
    for s in 0..root.skins.len() {
        match skeleton::skin_nodes(root, &forest, s, report) {
            Some(set) => sets.push(set),
            None => return,
        }
    }
    let animated: Vec<usize> = (0..sets.len())
        .filter(|&s| sets[s].iter().any(|&n| trs_nodes[n]))
        .collect();
    // Node animation: animated nodes no animated skin holds (a prop's lid, a door) and the
    // nodes above them become a skeleton of their own, every node of it a joint.
    let mut in_skin = vec![false; forest.names.len()];
    for &s in &animated {
        for &n in &sets[s] {
            in_skin[n] = true;
        }
    }
    let node_set = skeleton::animated_nodes(&forest, &trs_nodes, &in_skin);
    drop(in_skin);
    let node_joints = node_set
        .as_ref()
        .map(|set| skeleton::order(&forest, set))
        .unwrap_or_default();
    let mut rigs: Vec<(skeleton::Rig<'_>, String)> = Vec::new();
    let skin_joints: Vec<Vec<usize>> = animated
        .iter()
        .map(|&s| root.skins[s].joints.iter().map(|j| j.value()).collect())
        .collect();
    for (k, &s) in animated.iter().enumerate() {
        let name = match root.skins[s].name.as_deref().map(str::trim) {
            Some(n) if !n.is_empty() => n.to_string(),
            _ if animated.len() == 1 => stem.to_string(),
            _ => format!("{stem}_skin{s}"),
        };
        let rig = skeleton::Rig {
            what: format!("skin {s}"),
            joints: &skin_joints[k],
            set: &sets[s],
            node_animation: false,
        };
        rigs.push((rig, name));
    }
    if let Some(set) = &node_set {
        let name = if animated.is_empty() {
            stem.to_string()
        } else {
            format!("{stem}_nodes")
        };
        let rig = skeleton::Rig {
            what: "the node animation".to_string(),
            joints: &node_joints,
            set,
            node_animation: true,
        };
        rigs.push((rig, name));
    }
    let mut files: BTreeSet<String> = BTreeSet::new();
    files.insert("manifest.ron".to_string());
    let mut skels = Vec::new();
    for (k, (rig, name)) in rigs.into_iter().enumerate() {
        let n = animated.get(k).copied().unwrap_or(root.skins.len());
        let file = unique_file(&mut files, &file_stem(&name, "skeleton"), "skel", n);
        let Some((out, text)) = skeleton::build(root, &forest, &rig, name, file, report) else {
            return;
        };
        manifest.skeletons.push(SkeletonEntry {
            name: out.name.clone(),
            file: out.file.clone(),
            signature: out.signature.clone(),
            joints: out.joints.clone(),
        });
        if output
            .give(
                Asset::new(out.file.clone(), Content::Skeleton(text)),
                report,
            )
            .is_none()
        {
            return;
        }
        skels.push(out);
    }
    let mut in_skeleton: Vec<Vec<(usize, usize)>> = vec![Vec::new(); forest.names.len()];
    for (k, s) in skels.iter().enumerate() {
        for (i, &n) in s.nodes.iter().enumerate() {
            in_skeleton[n].push((k, i));
        }
    }
    let scene = clips::Scene {
        root,
        buffers: &buffers,
        forest: &forest,
        skels: &skels,
        unknown_paths: &doc.unknown_paths,
        in_skeleton: &in_skeleton,
    };
    // Clips are independent: a batch of them is built in parallel, each from the budget left
    // before the batch and with its own report, then taken in order exactly as a one-by-one
    // import takes them. The first clip of a batch saw that budget; a later one is kept when
    // its `need` fits the budget the clips before it left (it would have come out the same),
    // else it is built again with that budget. Memory holds one batch of clips at a time.
    let shown = report.file().to_string();
    let build = |a: usize, budget: usize| {
        let mut r = Report::new(&shown);
        let mut b = budget;
        let clip_id = identity::clip_id(&id.model, &labels[a]);
        let built = clips::build(&scene, a, &clip_id, &labels[a], &mut b, &mut r);
        (clip_id, built, r)
    };
    let mut start = 0;
    while start < labels.len() {
        let batch: Vec<usize> = (start..labels.len().min(start.saturating_add(width))).collect();
        start += batch.len();
        let mut results: Vec<_> = {
            use rayon::prelude::*;
            if batch.len() > 1 {
                batch.par_iter().map(|&a| build(a, budget)).collect()
            } else {
                batch.iter().map(|&a| build(a, budget)).collect()
            }
        };
        for (i, &a) in batch.iter().enumerate() {
            let keep = i == 0 || results[i].1.as_ref().is_some_and(|b| b.need <= budget);
            let (clip_id, built, r) = if keep {
                std::mem::take(&mut results[i])
            } else {
                build(a, budget)
            };
            report.diagnostics.extend(r.diagnostics);
            let Some(built) = built else {
                return;
            };
            budget -= built.used;
            let label = &labels[a];
            let file = unique_file(&mut files, &file_stem(label, "clip"), "animseq", a);
            manifest.clips.push(ClipEntry {
                id: clip_id,
                label: label.clone(),
                index: a,
                duration: built.seq.duration,
                skeleton: built
                    .skeleton
                    .and_then(|s| skels.get(s))
                    .map(|s| s.signature.clone())
                    .unwrap_or_default(),
                file: file.clone(),
                markers: built.seq.notifies.len(),
            });
            if output
                .give(Asset::new(file, Content::Clip(Box::new(built.seq))), report)
                .is_none()
            {
                return;
            }
        }
    }
}

/// Clip labels: the animation's name, `Animation{index}` when it has none (or a blank one);
/// a label already taken becomes `<label>~<index>` with a warning.
fn labels(root: &gltf::json::Root, report: &mut Report) -> Vec<String> {
    let mut taken = BTreeSet::new();
    let mut out = Vec::with_capacity(root.animations.len());
    for (a, anim) in root.animations.iter().enumerate() {
        let base = match anim.name.as_deref() {
            Some(n) if !n.trim().is_empty() => n.to_string(),
            _ => format!("Animation{a}"),
        };
        let mut label = base.clone();
        while !taken.insert(label.clone()) {
            label.push_str(&format!("~{a}"));
        }
        if label != base {
            report.warning(
                W_DUPLICATE_LABEL,
                format!(
                    "animation {a} is named {} like an earlier one: its clip is labelled {}",
                    quoted(&base),
                    quoted(&label)
                ),
            );
        }
        out.push(label);
    }
    out
}
