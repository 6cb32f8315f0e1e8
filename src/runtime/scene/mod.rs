//! Headless scenes on the runtime: [`spawn`] builds a scene's entities (animators, graph
//! instances) from its definitions and already loaded assets (`crate::scene`) and schedules the
//! timed actions; [`headless`] prepares a world and schedule that run it. No file I/O: the
//! project loader (`crate::project`) reads and prepares everything first.

use std::collections::BTreeMap;
use std::sync::Arc;

use bevy_ecs::prelude::*;

mod headless;
mod values;

pub use headless::{QueueDrops, headless, report_flush};

use super::animator::PoseRig;
use super::animator::{AnimCommand, Animator, Clip};
use super::hub::EventHub;
use super::hub::Value;
use super::instance::attach_graphs;
use super::time::SceneActions;
use super::trace;
use crate::anim::state_machine as sm;
use crate::anim::{BoneMask, BoundClip, RootClip, RootMotionMode, Skeleton, find_root_bone};
use crate::scene::{
    Action, AnimatorDef, EntityDef, LayerBlend, SceneAssets, SceneDef, SlotSequence, retarget_key,
};

/// The sequence each clip slot of `a` plays, in slot order: the retargeted bake for slots
/// with a [`retarget_key`] (which the loader made, into `assets.retargeted`), otherwise the
/// clip as loaded.
fn slot_sequences(a: &AnimatorDef, assets: &SceneAssets) -> Result<Vec<SlotSequence>, SpawnError> {
    a.clips
        .iter()
        .map(|(_, p)| {
            let loaded = assets
                .clips
                .get(&p.path)
                .ok_or_else(|| SpawnError(format!("clip `{}` was not loaded", p.path)))?;
            Ok(match retarget_key(a, &p.path, assets) {
                Some(key) => SlotSequence {
                    seq: assets.retargeted.get(&key).cloned().ok_or_else(|| {
                        SpawnError(format!(
                            "clip `{}` retargeted from `{}` onto `{}` was not baked (load \
                             scenes with `project::load`)",
                            key.clip, key.source, key.target
                        ))
                    })?,
                    retargeted: true,
                },
                None => SlotSequence {
                    seq: loaded.clone(),
                    retargeted: false,
                },
            })
        })
        .collect()
}

/// A spawned scene: entities in scene order, and their names.
#[derive(Debug, Clone, Default)]
pub struct Spawned {
    /// `(name, entity, position)` in scene order.
    pub entities: Vec<(String, Entity, [f32; 3])>,
}

impl Spawned {
    /// The scene name of the entity with `bits`, if it belongs to the scene.
    pub fn name_of(&self, bits: u64) -> Option<&str> {
        self.entities
            .iter()
            .find(|(_, e, _)| e.to_bits() == bits)
            .map(|(n, _, _)| n.as_str())
    }
}

/// Why [`spawn`] failed: an asset the scene names was not provided or could not be prepared.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct SpawnError(pub String);

/// The scene names of spawned entities (keyed by [`Entity::to_bits`]), for reports that name
/// entities in their message (a flush overrun's looping events). [`spawn`] fills it.
#[derive(Resource, Debug, Default, Clone)]
pub struct EntityNames(pub BTreeMap<u64, Arc<str>>);

/// Spawns the scene's entities into `world` (prepared with [`headless`] or `init_world`):
/// animators with their clips (the default clip starts at the first update), graph instances
/// (which queues `begin_play`), and the timed actions in [`SceneActions`]. On an error nothing
/// stays spawned.
pub fn spawn(
    world: &mut World,
    scene: &SceneDef,
    assets: &SceneAssets,
) -> Result<Spawned, SpawnError> {
    let entities: Vec<Entity> = scene
        .entities
        .iter()
        .map(|_| world.spawn_empty().id())
        .collect();
    let spawned = spawn_into(world, scene, assets, &entities);
    if spawned.is_err() {
        for e in entities {
            world.despawn(e);
        }
    }
    spawned
}

/// As [`spawn`], onto existing entities: `entities[i]` becomes the scene's entity `i` (its
/// animator and graph instances are inserted; an entity that already has either is an error).
/// Everything that can fail is checked before anything is inserted, so on an error the
/// entities are as they were.
pub fn spawn_into(
    world: &mut World,
    scene: &SceneDef,
    assets: &SceneAssets,
    entities: &[Entity],
) -> Result<Spawned, SpawnError> {
    if entities.len() != scene.entities.len() {
        return Err(SpawnError(format!(
            "{} entities for a scene of {}",
            entities.len(),
            scene.entities.len()
        )));
    }
    let mut prepared = Prepared::default();
    let mut animators = Vec::new();
    let mut modules = Vec::new();
    let mut vars = Vec::new();
    for (def, &entity) in scene.entities.iter().zip(entities) {
        let taken = world.get_entity(entity).map_err(|_| {
            SpawnError(format!(
                "entity `{}`: no such entity in the world",
                def.name
            ))
        })?;
        if taken.contains::<Animator>() || taken.contains::<super::instance::Graphs>() {
            return Err(SpawnError(format!(
                "entity `{}` already has an animator or graphs",
                def.name
            )));
        }
        animators.push(match &def.animator {
            Some(a) => Some(build_animator(
                world,
                scene.seed,
                def,
                a,
                assets,
                &mut prepared,
            )?),
            None => None,
        });
        let mods =
            def.graphs
                .iter()
                .map(|g| {
                    assets.graphs.get(&g.path.path).cloned().ok_or_else(|| {
                        SpawnError(format!("graph `{}` was not compiled", g.path.path))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
        vars.push(values::scene_vars(def, &mods, entities)?);
        // Before anything is spawned: a game never runs a graph whose calls go nowhere.
        for m in &mods {
            if let Some(bad) = super::game_nodes::scene_mismatch(world, assets, m) {
                return Err(SpawnError(format!("entity `{}`: {bad}", def.name)));
            }
            if let Some(kind) = super::game_nodes::unbound(world, &m.module().imports) {
                return Err(SpawnError(format!(
                    "entity `{}`: graph `{}` calls game node `{kind}`, which the game does not bind (bind it with `GameNodes::bind`)",
                    def.name,
                    m.module().name
                )));
            }
        }
        modules.push(mods);
    }
    if scene.actions.iter().any(|a| a.entity >= entities.len()) {
        return Err(SpawnError("action names an unknown entity".into()));
    }
    let mut spawned = Spawned::default();
    let payloads = super::events::DeclaredPayloads::new(&assets.payloads);
    for ((((def, &entity), animator), modules), vars) in scene
        .entities
        .iter()
        .zip(entities)
        .zip(animators)
        .zip(modules)
        .zip(vars)
    {
        spawned
            .entities
            .push((def.name.clone(), entity, def.position));
        if let Some(animator) = animator {
            world.entity_mut(entity).insert(animator);
        }
        if !modules.is_empty() {
            attach_graphs(world, entity, &modules).map_err(|e| SpawnError(e.to_string()))?;
            world.entity_mut(entity).insert(payloads.clone());
        }
        if !vars.is_empty() {
            values::set_scene_vars(world, entity, vars);
        }
        if !def.returns.is_empty() {
            let r = values::game_returns(def, entities)?;
            world.entity_mut(entity).insert(r);
        }
    }
    let mut actions = world.remove_resource::<SceneActions>().unwrap_or_default();
    for a in &scene.actions {
        let Some((name, entity, _)) = spawned.entities.get(a.entity).cloned() else {
            return Err(SpawnError("action names an unknown entity".into()));
        };
        let target = match a.action {
            Action::Send { target, .. } => spawned.entities.get(target).map(|(_, e, _)| *e),
            _ => None,
        };
        let payload = match &a.action {
            Action::Send { event, fields, .. } => {
                values::send_values(event, fields, assets, entities)?
            }
            _ => Box::default(),
        };
        let action = a.action.clone();
        actions
            .schedule(a.at, move |world: &mut World| {
                apply_action(world, &name, entity, target, action, payload)
            })
            .map_err(|e| SpawnError(e.to_string()))?;
    }
    world.insert_resource(actions);
    let mut names = world.remove_resource::<EntityNames>().unwrap_or_default();
    names.0.extend(
        spawned
            .entities
            .iter()
            .map(|(n, e, _)| (e.to_bits(), Arc::<str>::from(n.as_str()))),
    );
    world.insert_resource(names);
    Ok(spawned)
}

/// What animators of one scene share, prepared once: clips per path, and bound clips per
/// (skeleton, clip slots, bone map) — 1000 animators on one rig hold one copy of its bound
/// clips.
#[derive(Debug, Default)]
pub struct Prepared<'a> {
    clips: BTreeMap<&'a str, Arc<Clip>>,
    bound: BTreeMap<BoundKey<'a>, Arc<[BoundClip]>>,
}

/// What a rig's bound clips depend on: the skeleton path, the clip slots (in order) and the
/// bone map (the retargeted bakes follow from these and the loaded assets).
type BoundKey<'a> = (
    Option<&'a str>,
    Vec<(&'a str, &'a str)>,
    &'a BTreeMap<String, String>,
);

/// The animator of entity `def` with animator `a` in a scene with chance seed `seed`, built from
/// the loaded `assets` as [`spawn`] builds it (clips and bound clips shared through
/// `prepared`): hot reload rebuilds one this way and carries the running one's playback over
/// ([`Animator::carry_over`]).
pub fn build_animator<'a>(
    world: &mut World,
    seed: u64,
    def: &EntityDef,
    a: &'a AnimatorDef,
    assets: &'a SceneAssets,
    prepared: &mut Prepared<'a>,
) -> Result<Animator, SpawnError> {
    let mut animator = Animator::new();
    for (slot, path) in &a.clips {
        let clip = match prepared.clips.get(path.path.as_str()) {
            Some(c) => c.clone(),
            None => {
                let seq = assets
                    .clips
                    .get(&path.path)
                    .ok_or_else(|| SpawnError(format!("clip `{}` was not loaded", path.path)))?;
                let mut hub = world
                    .get_resource_mut::<EventHub>()
                    .ok_or_else(|| SpawnError("the world has no event hub".into()))?;
                let clip = Arc::new(
                    Clip::new(seq.clone(), &mut hub)
                        .map_err(|e| SpawnError(format!("{}: {e}", path.path)))?,
                );
                prepared.clips.insert(&path.path, clip.clone());
                clip
            }
        };
        animator.add_clip(slot, clip);
    }
    animator.set_blend_duration(a.blend_duration);
    animator.set_chance_key(seed, &def.name);
    if let Some(p) = &a.state_machine {
        let def = assets
            .machines
            .get(&p.path)
            .ok_or_else(|| SpawnError(format!("state machine `{}` was not loaded", p.path)))?;
        let m = sm::compile(def, &|s| animator.slot_index(s))
            .map_err(|d| SpawnError(format!("{}: {d}", p.path)))?;
        animator.set_machine(Arc::new(m));
    }
    let slots = slot_sequences(a, assets)?;
    if a.root_motion.mode != RootMotionMode::Off {
        let root = root_motion(a, assets, &slots)?;
        animator.set_root_motion(root, def.position);
    } else {
        animator.set_root_motion(
            super::animator::RootMotion {
                mode: RootMotionMode::Off,
                clips: Vec::new(),
            },
            def.position,
        );
    }
    if a.skeleton.is_some()
        || a.state_machine.is_some()
        || !a.layers.is_empty()
        || a.root_motion.mode != RootMotionMode::Off
    {
        let key: BoundKey<'a> = (
            a.skeleton.as_ref().map(|p| p.path.as_str()),
            a.clips
                .iter()
                .map(|(s, p)| (s.as_str(), p.path.as_str()))
                .collect(),
            &a.bone_map,
        );
        let shared = prepared.bound.get(&key).cloned();
        let rig = pose_rig(a, assets, &slots, shared)?;
        prepared.bound.insert(key, rig.clips.clone());
        animator.set_rig(rig);
    }
    for layer in &a.layers {
        animator.add_layer(&layer.name, layer.weight);
        animator.queue_setup(AnimCommand::SetLayerWeight(
            layer.name.as_str().into(),
            layer.weight,
        ));
        if let Some(c) = &layer.clip {
            animator.queue_setup(AnimCommand::PlayOnLayer(
                layer.name.as_str().into(),
                c.as_str().into(),
            ));
        }
    }
    if let Some(slot) = &a.default_clip
        && a.state_machine.is_none()
    {
        animator.play(slot);
    }
    Ok(animator)
}

/// The skeleton an animator poses: its `.skel`, or the flat one of its clips' tracks.
fn animator_skeleton(a: &AnimatorDef, assets: &SceneAssets) -> Result<Skeleton, SpawnError> {
    match &a.skeleton {
        Some(p) => Ok((**assets
            .skeletons
            .get(&p.path)
            .ok_or_else(|| SpawnError(format!("skeleton `{}` was not loaded", p.path)))?)
        .clone()),
        None => {
            let names: Vec<String> = a
                .clips
                .iter()
                .filter_map(|(_, p)| assets.clips.get(&p.path))
                .flat_map(|s| crate::anim::CompiledClip::new(s).tracks)
                .map(|t| t.bone)
                .collect();
            Ok(Skeleton::from_track_names(names.iter().map(String::as_str)))
        }
    }
}

/// Prepares pose evaluation: skeleton, clips bound per slot (`slots`, from
/// [`slot_sequences`]), layer masks, root bone.
fn pose_rig(
    a: &AnimatorDef,
    assets: &SceneAssets,
    slots: &[SlotSequence],
    bound: Option<Arc<[BoundClip]>>,
) -> Result<PoseRig, SpawnError> {
    let skel = animator_skeleton(a, assets)?;
    let clips: Arc<[BoundClip]> = match bound {
        Some(b) => b,
        None => slots
            .iter()
            .zip(&a.clips)
            .map(|(s, (slot, _))| s.bind(&skel, &a.bone_map, slot).0)
            .collect(),
    };
    let layers = a
        .layers
        .iter()
        .map(|l| {
            let mask = l.mask.as_ref().map(|m| {
                let entries: Vec<&str> = m.iter().map(String::as_str).collect();
                BoneMask::new(&skel, &entries, &l.name).0
            });
            (
                Arc::from(l.name.as_str()),
                (mask, l.blend == LayerBlend::Additive),
            )
        })
        .collect();
    let root = (a.root_motion.mode != RootMotionMode::Off)
        .then(|| find_root_bone(&skel, &a.root_motion.bone))
        .flatten()
        .map(|b| (b, a.root_motion.yaw));
    Ok(PoseRig::new(Arc::new(skel), clips, layers, root))
}

/// Prepares root motion: the skeleton (or the flat one of the clips' tracks), the root bone
/// and each slot's root track (in slot order, from the sequences `slots` plays, so a
/// retargeted slot moves by its scaled hips translation).
fn root_motion(
    a: &AnimatorDef,
    assets: &SceneAssets,
    slots: &[SlotSequence],
) -> Result<super::animator::RootMotion, SpawnError> {
    let skel = animator_skeleton(a, assets)?;
    let mode = a.root_motion.mode;
    let bone = find_root_bone(&skel, &a.root_motion.bone);
    let clips = slots
        .iter()
        .zip(&a.clips)
        .map(|(seq, (slot, _))| {
            let bone = bone?;
            let (bc, _) = seq.bind(&skel, &a.bone_map, slot);
            Some(RootClip::new(
                &bc.clip,
                &bc.binding,
                bone,
                a.root_motion.yaw,
            ))
        })
        .collect();
    Ok(super::animator::RootMotion { mode, clips })
}

fn apply_action(
    world: &mut World,
    name: &str,
    entity: Entity,
    target: Option<Entity>,
    action: Action,
    payload: Box<[Value]>,
) {
    if !world.entities().contains_spawned(entity) {
        trace::error(
            world,
            Some(entity),
            None,
            None,
            format!(
                "action `{}` on `{name}` skipped: the entity was despawned",
                action.name()
            ),
        );
        return;
    }
    let command = match action {
        Action::Despawn => {
            world.despawn(entity);
            return;
        }
        Action::Send { event, .. } => {
            let Some(target) = target else { return };
            let Some(mut hub) = world.get_resource_mut::<EventHub>() else {
                return;
            };
            let sent = hub
                .intern(&event)
                .map(|id| hub.publisher().send(id, target, Some(entity), payload));
            if !matches!(sent, Ok(true)) {
                trace::error(
                    world,
                    Some(entity),
                    None,
                    None,
                    format!("action `Send` of {event} dropped: event queue full"),
                );
            }
            return;
        }
        Action::Anim(command) => command,
    };
    if let Some(mut a) = world.get_mut::<Animator>(entity) {
        a.queue(command);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::Pose;
    use crate::project::{Layout, LoadedScene, MemSource, ProjectPath};

    const RIG: &str = r#"Skeleton(bones: [
        (name: "hips", parent: None, translation: (0.0, 1.0, 0.0), rotation: (0.0, 0.0, 0.0, 1.0)),
        (name: "leg", parent: Some("hips"), translation: (0.1, -0.1, 0.0), rotation: (0.0, 0.0, 0.0, 1.0)),
        (name: "foot", parent: Some("leg"), translation: (0.0, -0.8, 0.0), rotation: (0.0, 0.0, 0.0, 1.0)),
    ])"#;
    const OTHER: &str = r#"Skeleton(bones: [
        (name: "Hips_src", parent: None, translation: (0.0, 2.0, 0.0), rotation: (0.0, 0.7071068, 0.0, 0.7071068)),
        (name: "leg", parent: Some("Hips_src"), translation: (0.1, -0.1, 0.0), rotation: (0.0, 0.0, 0.0, 1.0)),
        (name: "foot", parent: Some("leg"), translation: (0.0, -1.6, 0.0), rotation: (0.0, 0.0, 0.0, 1.0)),
    ])"#;

    /// The test clip, sequence `id`, keyed on `skeleton` (a `Some("…")` or `None`).
    fn clip(id: &str, skeleton: &str) -> String {
        format!(
            r#"AnimSeq(format: 3, id: "{id}", name: "C", duration: 1.0, skeleton: {skeleton}, tracks: [
            (bone: "Hips_src", translation: [(0.0, (0.0, 1.0, 0.0)), (1.0, (0.0, 1.2, 2.0))], rotation: [(0.0, (0.0, 0.0, 0.0, 1.0)), (1.0, (0.0, 0.3827, 0.0, 0.9239))], scale: []),
            (bone: "leg", translation: [], rotation: [(0.0, (0.0, 0.0, 0.0, 1.0)), (0.5, (0.2588, 0.0, 0.0, 0.9659))], scale: []),
        ])"#
        )
    }

    const ANIMATOR: &str = r#"animator: Some((skeleton: Some("rig.skel"),
            clips: {"plain": "plain.animseq", "same": "same.animseq", "other": "other.animseq"},
            root_motion: (mode: Transform), bone_map: {"Hips_src": "hips"}))"#;

    /// Loads `scene` (entities using [`ANIMATOR`]) through the project loader from memory: an
    /// animator on `rig.skel` with clip slots `plain` (no source skeleton), `same` (source
    /// `./rig.skel`, the animator's own) and `other` (source `other.skel`), bone_map
    /// `Hips_src` → `hips`, root motion on.
    fn load(scene: &str) -> LoadedScene {
        let mem = MemSource::from_files([
            ("t.scene.ron", scene.replace("ANIMATOR", ANIMATOR)),
            ("rig.skel", RIG.to_string()),
            ("other.skel", OTHER.to_string()),
            ("plain.animseq", clip("plain", "None")),
            ("same.animseq", clip("same", r#"Some("./rig.skel")"#)),
            ("other.animseq", clip("other", r#"Some("other.skel")"#)),
        ])
        .expect("paths");
        let layout = Layout::new(
            ProjectPath::new("t.scene.ron").expect("path"),
            ProjectPath::root(),
        );
        let loaded = crate::project::load(&mem, &layout).expect("loads");
        assert!(loaded.is_ok(), "{:?}", loaded.diagnostics);
        loaded
    }

    fn bits(p: &Pose) -> Vec<u32> {
        let t = p.translations.iter().flat_map(|v| v.to_array());
        let r = p.rotations.iter().flat_map(|q| q.to_array());
        let s = p.scales.iter().flat_map(|v| v.to_array());
        t.chain(r).chain(s).map(f32::to_bits).collect()
    }

    #[test]
    fn slots_without_a_distinct_source_skeleton_play_bit_identically() {
        let loaded = load(r#"Scene(entities: [(name: "e", ANIMATOR)])"#);
        let (def, assets) = loaded.ready().expect("ready");
        let a = def.entities[0].animator.as_ref().expect("animator");
        let slots = slot_sequences(a, assets).expect("slots");
        assert_eq!(
            slots.iter().map(|s| s.retargeted).collect::<Vec<_>>(),
            [false, false, true]
        );
        let rig = pose_rig(a, assets, &slots, None).expect("rig");
        let root = root_motion(a, assets, &slots).expect("root motion");
        let skel = &assets.skeletons["rig.skel"];
        let hips = find_root_bone(skel, "").expect("hips");
        // What spawn built before retargeting existed: the loaded clip bound through bone_map.
        let before =
            |slot: &str, path: &str| BoundClip::new(&assets.clips[path], skel, &a.bone_map, slot).0;
        for (i, (slot, path)) in [("plain", "plain.animseq"), ("same", "same.animseq")]
            .into_iter()
            .enumerate()
        {
            let b = before(slot, path);
            assert_eq!(rig.clips[i], b, "{slot}");
            let rc = RootClip::new(&b.clip, &b.binding, hips, false);
            assert_eq!(root.clips[i].as_ref(), Some(&rc), "{slot}");
            let (mut x, mut y) = (Pose::rest(skel), Pose::rest(skel));
            for t in [0.0, 0.1, 0.25, 0.5, 0.77, 1.0] {
                rig.clips[i].sample_pose(skel, t, &mut x);
                b.sample_pose(skel, t, &mut y);
                assert_eq!(bits(&x), bits(&y), "{slot} at {t}");
            }
        }
        // The third slot is retargeted: no bone is named like an upper leg, so the hips rest
        // heights give the ratio, 1.0 (rig.skel) / 2.0 (other.skel): its hips translation is
        // halved, unlike the un-retargeted binding.
        let b = before("other", "other.animseq");
        let (mut x, mut y) = (Pose::rest(skel), Pose::rest(skel));
        rig.clips[2].sample_pose(skel, 1.0, &mut x);
        b.sample_pose(skel, 1.0, &mut y);
        assert_eq!(y.translations[hips].z, 2.0);
        assert!((x.translations[hips].z - 1.0).abs() < 1e-6, "{x:?}");
    }

    #[test]
    fn one_bake_per_key_and_none_without_an_animator_skeleton() {
        let loaded = load(r#"Scene(entities: [(name: "a", ANIMATOR), (name: "b", ANIMATOR)])"#);
        let (def, assets) = loaded.ready().expect("ready");
        assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
        assert_eq!(assets.retargeted.len(), 1);
        let mut a = def.entities[0].animator.clone().expect("animator");
        assert!(retarget_key(&a, "other.animseq", assets).is_some());
        a.skeleton = None;
        assert_eq!(retarget_key(&a, "other.animseq", assets), None);
    }

    #[test]
    fn animators_on_one_rig_share_their_bound_clips() {
        let loaded = load(r#"Scene(entities: [(name: "a", ANIMATOR), (name: "b", ANIMATOR)])"#);
        let (def, assets) = loaded.ready().expect("ready");
        let (mut world, _) = headless(0.1).expect("dt");
        let s = spawn(&mut world, def, assets).expect("spawns");
        let clips = |i: usize| {
            world
                .get::<Animator>(s.entities[i].1)
                .and_then(Animator::rig)
                .map(|r| r.clips.clone())
                .expect("rig")
        };
        assert_eq!(clips(0).len(), 3);
        assert!(Arc::ptr_eq(&clips(0), &clips(1)), "bound once per scene");
    }

    #[test]
    fn spawn_refuses_a_retargeted_slot_without_its_bake() {
        let loaded = load(r#"Scene(entities: [(name: "e", ANIMATOR)])"#);
        let (def, assets) = loaded.ready().expect("ready");
        let mut assets = assets.clone();
        assets.retargeted.clear();
        let (mut world, _) = headless(0.1).expect("dt");
        let e = spawn(&mut world, def, &assets).unwrap_err();
        assert!(e.0.contains("was not baked"), "{e}");
    }
}
