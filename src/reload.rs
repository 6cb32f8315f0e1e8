//! Hot reload of a spawned scene, engine-agnostic: `sinew run --watch` and the Bevy plugin
//! both load the changed project again through the library loader ([`crate::project::load`])
//! and hand the result to [`Reloader::apply`], which compares it with what is running and
//! switches what changed between two updates:
//!
//! * a graph whose module changed: every instance of it switches module
//!   ([`crate::runtime::reload::swap_graph`]: variables that keep name and type keep their
//!   value, new ones start at their default, removed ones go, pending delays of the old module
//!   are dropped) and one `reload` trace record reports it;
//! * a graph that no longer compiles: the old module keeps running and one `reload_failed`
//!   record carries the diagnostics (repeated only when they change);
//! * a clip, skeleton, state machine or retargeted bake an animator uses changed: the animator
//!   is built again from the new assets and takes over the running one's playback
//!   ([`Animator::carry_over`]: playback time kept, clamped; the active state kept when it still
//!   exists, else the entry state); one `reload` record (no `graph`) per changed file; a file
//!   that no longer loads keeps the running animator (`reload_failed`);
//! * a scene file that no longer parses: `reload_failed`; a scene whose entities, animators or
//!   actions changed: an `error` record (restart to apply; graphs still reload).
//!
//! Pure: no I/O, values and a world in, trace records out.

use std::collections::BTreeMap;
use std::sync::Arc;

use bevy_ecs::prelude::*;

use crate::bytecode::VerifiedModule;
use crate::diag::Diagnostic;
use crate::project::{Layout, LoadedScene, Source};
use crate::runtime::Animator;
use crate::runtime::reload::swap_graph;
use crate::runtime::scene::{Prepared, Spawned, build_animator};
use crate::runtime::trace::{self, TraceKind};
use crate::scene::{AnimatorDef, SceneAssets, SceneDef};

/// What is running for one spawned scene, and what the last reload reported.
#[derive(Debug, Clone)]
pub struct Reloader {
    def: SceneDef,
    /// Graph path as written in the scene → the module its instances run.
    graphs: BTreeMap<String, Arc<VerifiedModule>>,
    /// The clips, skeletons, state machines and bakes the animators were built from.
    assets: SceneAssets,
    /// Clip, skeleton and state-machine path as written → display name of the file.
    asset_files: BTreeMap<String, String>,
    /// The scene file's display name.
    scene_file: String,
    /// Graph path as written → display name of the file (how diagnostics name it).
    graph_files: BTreeMap<String, String>,
    /// Display name → the diagnostics last reported as `reload_failed` for it.
    failed: BTreeMap<String, Vec<Diagnostic>>,
    /// The changed scene definition last reported as needing a restart.
    restart: Option<SceneDef>,
}

impl Reloader {
    /// The running state of `loaded` (which was spawned), its files named as `source` names
    /// them under `layout`. `None` when `loaded` is not ready to spawn.
    pub fn new(loaded: &LoadedScene, source: &dyn Source, layout: &Layout) -> Option<Reloader> {
        let (def, assets) = loaded.ready()?;
        let base = layout.scene.parent();
        let graph_files = def
            .graph_paths()
            .into_iter()
            .map(|p| {
                let shown = layout
                    .resolve(&base, &p.path)
                    .map_or_else(|_| p.path.clone(), |pp| source.display(&pp));
                (p.path.clone(), shown)
            })
            .collect();
        let mut asset_files = BTreeMap::new();
        for a in def.entities.iter().filter_map(|e| e.animator.as_ref()) {
            let paths = a
                .clips
                .iter()
                .map(|(_, p)| p)
                .chain(&a.skeleton)
                .chain(&a.state_machine);
            for p in paths {
                let shown = layout
                    .resolve(&layout.assets, &p.path)
                    .map_or_else(|_| p.path.clone(), |pp| source.display(&pp));
                asset_files.insert(p.path.clone(), shown);
            }
        }
        Some(Reloader {
            def: def.clone(),
            graphs: assets.graphs.clone(),
            assets: assets.clone(),
            asset_files,
            scene_file: loaded.source.name().to_string(),
            graph_files,
            failed: BTreeMap::new(),
            restart: None,
        })
    }

    /// The display names of the files a reload reads (the scene and its graphs), sorted.
    pub fn files(&self) -> Vec<&str> {
        let mut v: Vec<&str> = std::iter::once(self.scene_file.as_str())
            .chain(self.graph_files.values().map(String::as_str))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Applies `new` (the project loaded again after a change) to `world`, where this scene
    /// was spawned as `spawned`; call it between updates. Returns the records it traced (also
    /// appended to the world's [`Trace`](crate::runtime::Trace) when there is one), in order.
    pub fn apply(
        &mut self,
        world: &mut World,
        spawned: &Spawned,
        new: &LoadedScene,
    ) -> Vec<TraceKind> {
        let mut out = Vec::new();
        // Errors placed in the scene file: those naming a graph, clip, skeleton or state
        // machine belong to that file's failure; the others (the scene does not parse, …) to
        // the scene's.
        let named: Vec<&String> = self.graphs.keys().chain(self.asset_files.keys()).collect();
        let scene_errors: Vec<Diagnostic> = new
            .diagnostics
            .iter()
            .filter(|d| d.is_error() && d.file == self.scene_file)
            .filter(|d| !named.iter().any(|k| d.message.contains(k.as_str())))
            .cloned()
            .collect();
        let Some(def) = new.def.as_ref() else {
            let file = self.scene_file.clone();
            self.fail(file, scene_errors, &mut out);
            return self.emit(world, out);
        };
        if scene_errors.is_empty() {
            self.failed.remove(&self.scene_file);
        } else {
            let file = self.scene_file.clone();
            self.fail(file, scene_errors, &mut out);
        }
        if *def != self.def {
            if self.restart.as_ref() != Some(def) {
                self.restart = Some(def.clone());
                out.push(TraceKind::Error {
                    entity: None,
                    graph: None,
                    node: None,
                    message: format!(
                        "{}: the scene's entities, animators or actions changed; restart to \
                         apply them (graphs still reload)",
                        self.scene_file
                    ),
                });
            }
        } else {
            self.restart = None;
        }
        let keys: Vec<String> = self.graphs.keys().cloned().collect();
        for key in keys {
            let file = self
                .graph_files
                .get(&key)
                .cloned()
                .unwrap_or_else(|| key.clone());
            let Some(module) = new.assets.graphs.get(&key) else {
                // The graph's own diagnostics, and the scene's entry saying it failed (the
                // only one when the file is missing or unreadable).
                let diags: Vec<Diagnostic> = new
                    .diagnostics
                    .iter()
                    .filter(|d| {
                        d.file == file
                            || (d.file == self.scene_file && d.message.contains(key.as_str()))
                    })
                    .cloned()
                    .collect();
                self.fail(file, diags, &mut out);
                continue;
            };
            let was_failed = self.failed.remove(&file).is_some();
            let running = &self.graphs[&key];
            if !was_failed && running.module() == module.module() {
                continue; // same behaviour: nothing to switch
            }
            out.push(self.switch(world, spawned, &key, file, module.clone()));
            self.graphs.insert(key, module.clone());
        }
        if *def == self.def {
            self.animators(world, spawned, new, &mut out);
        }
        self.emit(world, out)
    }

    /// Rebuilds the animators whose clips, skeleton, state machine or retargeted bakes changed
    /// and lets each take over the running one's playback ([`Animator::carry_over`]); one
    /// `reload` record per changed file. A file that no longer loads keeps the running
    /// animator (`reload_failed`).
    fn animators(
        &mut self,
        world: &mut World,
        spawned: &Spawned,
        new: &LoadedScene,
        out: &mut Vec<TraceKind>,
    ) {
        let mut changed: Vec<String> = Vec::new();
        let mut failed: Vec<String> = Vec::new();
        let mut rebuild = Vec::new();
        for (i, e) in self.def.entities.iter().enumerate() {
            let Some(a) = &e.animator else { continue };
            let (c, f) = animator_changes(a, &self.assets, &new.assets);
            if f.is_empty() && !c.is_empty() {
                rebuild.push(i);
            }
            changed.extend(c);
            failed.extend(f);
        }
        changed.sort();
        changed.dedup();
        failed.sort();
        failed.dedup();
        for path in &failed {
            let file = self.asset_files.get(path).cloned().unwrap_or(path.clone());
            let diags: Vec<Diagnostic> = new
                .diagnostics
                .iter()
                .filter(|d| {
                    d.file == file
                        || (d.file == self.scene_file && d.message.contains(path.as_str()))
                })
                .cloned()
                .collect();
            self.fail(file, diags, out);
        }
        let mut prepared = Prepared::default();
        for i in rebuild {
            let (Some(e), Some((_, entity, _))) =
                (self.def.entities.get(i), spawned.entities.get(i))
            else {
                continue;
            };
            let Some(a) = &e.animator else { continue };
            if world.get::<Animator>(*entity).is_none() {
                continue; // despawned
            }
            match build_animator(world, self.def.seed, e, a, &new.assets, &mut prepared) {
                Ok(mut fresh) => {
                    if let Some(old) = world.get::<Animator>(*entity) {
                        fresh.carry_over(old);
                    }
                    world.entity_mut(*entity).insert(fresh);
                }
                Err(err) => out.push(TraceKind::Error {
                    entity: Some(*entity),
                    graph: None,
                    node: None,
                    message: format!("reload: {err}; the running animator is kept"),
                }),
            }
        }
        for (path, file) in &self.asset_files {
            if !failed.contains(path) {
                self.failed.remove(file);
            }
        }
        for path in changed {
            let file = self.asset_files.get(&path).cloned().unwrap_or(path);
            out.push(TraceKind::Reload {
                file,
                graph: None,
                kept: Vec::new(),
                reset: Vec::new(),
                dropped_delays: 0,
            });
        }
        for (k, v) in &new.assets.clips {
            self.assets.clips.insert(k.clone(), v.clone());
        }
        for (k, v) in &new.assets.skeletons {
            self.assets.skeletons.insert(k.clone(), v.clone());
        }
        for (k, v) in &new.assets.machines {
            self.assets.machines.insert(k.clone(), v.clone());
        }
        self.assets.clip_sources = new.assets.clip_sources.clone();
        self.assets.retargeted = new.assets.retargeted.clone();
    }

    /// Switches every instance of graph `key` to `module`; the `reload` record.
    fn switch(
        &self,
        world: &mut World,
        spawned: &Spawned,
        key: &str,
        file: String,
        module: Arc<VerifiedModule>,
    ) -> TraceKind {
        let name: Arc<str> = Arc::from(module.module().name.as_str());
        let (mut kept, mut reset, mut dropped, mut first) = (Vec::new(), Vec::new(), 0, true);
        for (e, (_, entity, _)) in self.def.entities.iter().zip(&spawned.entities) {
            for (i, p) in e.graphs.iter().enumerate() {
                if p.path.path != key || !world.entities().contains_spawned(*entity) {
                    continue;
                }
                if let Some(swap) = swap_graph(world, *entity, i, module.clone()) {
                    dropped += swap.dropped_delays;
                    if first {
                        (kept, reset, first) = (swap.kept, swap.reset, false);
                    }
                }
            }
        }
        if first {
            // No live instance: what a new instance would keep is nothing.
            reset = module
                .module()
                .vars
                .iter()
                .map(|v| v.name.clone())
                .collect();
        }
        TraceKind::Reload {
            file,
            graph: Some(name),
            kept,
            reset,
            dropped_delays: dropped,
        }
    }

    /// Records a `reload_failed` for `file` unless the same diagnostics were reported last.
    fn fail(&mut self, file: String, mut diagnostics: Vec<Diagnostic>, out: &mut Vec<TraceKind>) {
        crate::diag::sort(&mut diagnostics);
        diagnostics.sort_by_key(|d| !d.is_error());
        if self.failed.get(&file) == Some(&diagnostics) {
            return;
        }
        self.failed.insert(file.clone(), diagnostics.clone());
        out.push(TraceKind::ReloadFailed { file, diagnostics });
    }

    fn emit(&self, world: &mut World, out: Vec<TraceKind>) -> Vec<TraceKind> {
        for k in &out {
            trace::record(world, k.clone());
        }
        out
    }
}

/// Whether `a` and `b` differ as loaded assets (both present and unequal; a missing one is
/// handled as a failure by the caller).
fn differs<T: PartialEq>(a: Option<&Arc<T>>, b: Option<&Arc<T>>) -> bool {
    matches!((a, b), (Some(x), Some(y)) if !Arc::ptr_eq(x, y) && **x != **y)
}

/// The files of animator `a` that changed between `old` and `new` (paths as written), and
/// those that no longer load.
fn animator_changes(
    a: &AnimatorDef,
    old: &SceneAssets,
    new: &SceneAssets,
) -> (Vec<String>, Vec<String>) {
    let (mut changed, mut failed) = (Vec::new(), Vec::new());
    let mut check = |path: &str, was: bool, is: bool, d: bool| {
        if was && !is {
            failed.push(path.to_string());
        } else if d {
            changed.push(path.to_string());
        }
    };
    for (_, p) in &a.clips {
        let (o, n) = (old.clips.get(&p.path), new.clips.get(&p.path));
        let bake = |s: &SceneAssets| {
            crate::scene::retarget_key(a, &p.path, s).and_then(|k| s.retargeted.get(&k).cloned())
        };
        let baked = differs(bake(old).as_ref(), bake(new).as_ref());
        check(&p.path, o.is_some(), n.is_some(), differs(o, n) || baked);
    }
    if let Some(p) = &a.skeleton {
        let (o, n) = (old.skeletons.get(&p.path), new.skeletons.get(&p.path));
        check(&p.path, o.is_some(), n.is_some(), differs(o, n));
    }
    if let Some(p) = &a.state_machine {
        let (o, n) = (old.machines.get(&p.path), new.machines.get(&p.path));
        check(&p.path, o.is_some(), n.is_some(), differs(o, n));
    }
    (changed, failed)
}
