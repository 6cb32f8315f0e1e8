//! `sinew run`: loads a `.scene.ron`, its clips (relative to `--assets`) and graphs (relative to
//! the scene's folder), compiles the graphs against the assets' catalog, runs the scene headless
//! and prints the trace (`cli.md`): one record per line, then one `end` line per live entity.

use super::{Ctx, FAILURE, Format, INPUT_ERRORS, OK, human_diagnostics, write_json};
use crate::anim::state_machine as sm;
use crate::anim::{BoneMask, Skeleton, load_skeleton_bytes};
use crate::animseq;
use crate::bytecode::Value as VmValue;
use crate::catalog::scan::LiveCatalog;
use crate::compile;
use crate::diag::{self, Diagnostic, Severity, SourceFile};
use crate::runtime::animator::Animator;
use crate::runtime::scene::{self as spawning, Spawned};
use crate::runtime::{Graphs, Trace, TraceKind, TraceRecord};
use crate::scene::{
    self, E_SCENE_BAD_ASSET, E_SCENE_MISSING_FILE, SceneAssets, SlotSequence,
    W_SCENE_SOURCE_SKELETON, normalize_asset_path, resolve_beside,
};
use bevy_ecs::prelude::*;
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The most ticks one run may take (about 4.6 hours of game time at 60 Hz).
pub const MAX_TICKS: u64 = 1_000_000;
/// The longest tick `--dt` accepts, in seconds.
pub const MAX_DT: f64 = 3600.0;

/// Arguments of `sinew run`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The `.scene.ron` file.
    pub scene: PathBuf,
    /// Assets folder (clip paths in the scene are relative to it).
    #[arg(long, default_value = "assets")]
    pub assets: PathBuf,
    /// Number of ticks to run (at most 1000000).
    #[arg(long, default_value_t = 60)]
    pub ticks: u64,
    /// Tick length in seconds (finite, > 0, at most 3600; default 1/60).
    #[arg(long, allow_negative_numbers = true)]
    pub dt: Option<f64>,
    /// Trace format: one readable line or one JSON object per record.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// `sinew run` with standard error as `err`.
pub fn run(ctx: &Ctx, a: &Args, out: &mut dyn Write) -> Result<u8, String> {
    Ok(execute(ctx, a, out, &mut std::io::stderr()))
}

/// Runs the command: the trace goes to `out`; diagnostics and error messages to `err`.
/// Returns the exit status (0, 1 or 2, see `cli.md`).
pub fn execute(ctx: &Ctx, a: &Args, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    match execute_inner(ctx, a, out, err) {
        Ok(code) => code,
        Err(msg) => {
            let _ = writeln!(err, "error: {msg}");
            FAILURE
        }
    }
}

fn execute_inner(
    ctx: &Ctx,
    a: &Args,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<u8, String> {
    let dt = a.dt.unwrap_or(crate::runtime::schedule::DEFAULT_DT);
    if !(dt.is_finite() && dt > 0.0 && dt <= MAX_DT) {
        return Err(format!(
            "--dt must be a finite number of seconds in (0, {MAX_DT}], got {dt}"
        ));
    }
    if a.ticks > MAX_TICKS {
        return Err(format!(
            "--ticks must be at most {MAX_TICKS}, got {}",
            a.ticks
        ));
    }
    let scene_name = ctx.display(&a.scene);
    let bytes = std::fs::read(&a.scene).map_err(|e| format!("cannot read {scene_name}: {e}"))?;
    let parsed = scene::parse_bytes(&scene_name, &bytes);
    let mut diags = parsed.diagnostics;
    let Some(def) = parsed.scene else {
        report(ctx, &mut diags, err);
        return Ok(INPUT_ERRORS);
    };
    let scene_src = SourceFile::new(scene_name.clone(), String::from_utf8_lossy(&bytes));

    let live = LiveCatalog::scan(&a.assets, ctx.cwd.as_deref(), None)
        .map_err(|e| format!("cannot read assets folder {}: {e}", ctx.display(&a.assets)))?;
    let mut assets = SceneAssets::default();
    let mut reported: BTreeSet<(String, &'static str, u32, u32)> = BTreeSet::new();

    for p in def.clip_paths() {
        let Some((name, bytes)) = read_named(
            ctx,
            &a.assets.join(&p.path),
            "clip",
            "clip paths are relative to the assets folder (`--assets`)",
            (&scene_src, p.span),
            &mut diags,
        ) else {
            continue;
        };
        let loaded = animseq::load_bytes(&name, &bytes);
        for d in &loaded.diagnostics {
            reported.insert((d.file.clone(), d.code, d.span.start, d.span.end));
        }
        diags.extend(loaded.diagnostics);
        match loaded.seq {
            Some(seq) => {
                assets.clips.insert(p.path.clone(), Arc::new(seq));
            }
            None => diags.push(
                Diagnostic::error(E_SCENE_BAD_ASSET, format!("clip {name} does not load"))
                    .at(&scene_src, p.span),
            ),
        }
    }

    load_animation_assets(ctx, &a.assets, &def, &scene_src, &mut assets, &mut diags);

    let base = a.scene.parent().unwrap_or(Path::new(""));
    for p in def.graph_paths() {
        let Some((name, bytes)) = read_named(
            ctx,
            &base.join(&p.path),
            "graph",
            "graph paths are relative to the scene file's folder",
            (&scene_src, p.span),
            &mut diags,
        ) else {
            continue;
        };
        let text = match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                let src = SourceFile::new(name, String::from_utf8_lossy(e.as_bytes()).into_owned());
                diags.push(
                    Diagnostic::error(diag::E_NOT_UTF8, "file is not valid UTF-8")
                        .at(&src, diag::Span::new(at, at + 1)),
                );
                continue;
            }
        };
        let src = SourceFile::new(name.clone(), text);
        let compiled = compile::compile(&src, live.catalog());
        diags.extend(compiled.checked.diagnostics);
        match compiled.module {
            Some(m) => {
                assets.graphs.insert(p.path.clone(), Arc::new(m));
            }
            None => diags.push(
                Diagnostic::error(E_SCENE_BAD_ASSET, format!("graph {name} does not compile"))
                    .at(&scene_src, p.span),
            ),
        }
    }

    // Diagnostics of asset files the scene does not load itself are warnings here.
    for mut d in live.catalog().diagnostics() {
        if reported.contains(&(d.file.clone(), d.code, d.span.start, d.span.end)) {
            continue;
        }
        d.severity = Severity::Warning;
        diags.push(d);
    }
    let failed = diags.iter().any(Diagnostic::is_error);
    report(ctx, &mut diags, err);
    if failed {
        return Ok(INPUT_ERRORS);
    }

    // Human lines name events by their catalog display name (`Run / Footstep L`).
    let names: BTreeMap<String, String> = live
        .catalog()
        .events()
        .into_iter()
        .map(|d| (d.id.to_string(), d.name.clone()))
        .collect();
    let (mut world, mut schedule) = spawning::headless(dt).map_err(|e| e.to_string())?;
    let spawned = spawning::spawn(&mut world, &def, &assets).map_err(|e| e.to_string())?;
    let io = |e: std::io::Error| e.to_string();
    for _ in 0..a.ticks {
        schedule.run(&mut world);
        let records = world
            .get_resource_mut::<Trace>()
            .map(|mut t| t.drain())
            .unwrap_or_default();
        for r in &records {
            match a.format {
                Format::Json => write_json(out, &record_json(&spawned, r))?,
                Format::Human => {
                    writeln!(out, "{}", record_human(&spawned, &names, r)).map_err(io)?
                }
            }
        }
    }
    for (name, entity, position) in &spawned.entities {
        if !world.entities().contains_spawned(*entity) {
            continue; // despawned during the run: no end line
        }
        let vars = end_vars(&spawned, world.get::<Graphs>(*entity));
        let anim = world.get::<Animator>(*entity);
        let state = anim.and_then(|a| a.current_state().cloned());
        let (position, yaw) = match anim {
            Some(a) if a.has_root_motion() => {
                let p = a.position();
                ([p[0] as f32, p[1] as f32, p[2] as f32], a.yaw() as f32)
            }
            _ => (*position, 0.0f32),
        };
        match a.format {
            Format::Json => write_json(
                out,
                &json!({
                    "kind": "end",
                    "entity": name,
                    "state": state.as_deref().map_or(Value::Null, |s| json!(s)),
                    "position": position.map(f32_json),
                    "yaw": f32_json(yaw),
                    "vars": vars,
                }),
            )?,
            Format::Human => {
                let mut line = format!(
                    "end  {name}  state {}  position ({}, {}, {})  yaw {yaw}",
                    state.as_deref().unwrap_or("-"),
                    position[0],
                    position[1],
                    position[2]
                );
                for (g, vs) in &vars {
                    if let Value::Object(vs) = vs {
                        for (k, v) in vs {
                            line.push_str(&format!("  {g}.{k} = {v}"));
                        }
                    }
                }
                writeln!(out, "{line}").map_err(io)?;
            }
        }
    }
    Ok(OK)
}

/// Loads and validates the skeletons and state machines a scene's animators name (relative to
/// `assets_dir`) into `assets`: `.skel` and `.animsm` diagnostics, state machines checked against
/// each animator's clip slots, parameters the scene sets that nothing reads (`W0521`), clip
/// tracks naming bones the skeleton lacks (`W0510`) and mask entries naming unknown bones
/// (`W0511`). For animators with a skeleton it also resolves each clip's source skeleton
/// ([`SourceSkeletons`]), records it in `assets.clip_sources`, and bakes the retargeted clips
/// into `assets.retargeted`: a source skeleton that cannot be read or load (`W0563`) and the
/// bake's own warnings (`E0514`) are reported at the scene's clip entry.
pub fn load_animation_assets(
    ctx: &Ctx,
    assets_dir: &Path,
    def: &scene::SceneDef,
    scene_src: &SourceFile,
    assets: &mut SceneAssets,
    diags: &mut Vec<Diagnostic>,
) {
    let read = |p: &scene::PathRef, what: &str, diags: &mut Vec<Diagnostic>| {
        read_named(
            ctx,
            &assets_dir.join(&p.path),
            what,
            "skeleton and state-machine paths are relative to the assets folder (`--assets`)",
            (scene_src, p.span),
            diags,
        )
    };
    let mut sources: BTreeMap<String, SourceFile> = BTreeMap::new();
    let mut skeleton_sources = SourceSkeletons::default();
    let mut bakes: BTreeMap<scene::RetargetKey, Vec<Diagnostic>> = BTreeMap::new();
    for (ei, e) in def.entities.iter().enumerate() {
        let Some(an) = &e.animator else { continue };
        if let Some(p) = &an.skeleton
            && !assets.skeletons.contains_key(&p.path)
            && let Some((name, bytes)) = read(p, "skeleton", diags)
        {
            let loaded = load_skeleton_bytes(&name, &bytes);
            diags.extend(loaded.diagnostics);
            match loaded.skeleton {
                Some(s) => {
                    assets.skeletons.insert(p.path.clone(), Arc::new(s));
                }
                None => diags.push(
                    Diagnostic::error(E_SCENE_BAD_ASSET, format!("skeleton {name} does not load"))
                        .at(scene_src, p.span),
                ),
            }
        }
        if let Some(p) = &an.skeleton
            && let Some(skel) = assets.skeletons.get(&p.path).cloned()
        {
            for (slot, cp) in &an.clips {
                let Some(seq) = assets.clips.get(&cp.path).cloned() else {
                    continue;
                };
                let source = skeleton_sources.resolve(ctx, assets_dir, &cp.path, &seq, assets);
                if let Some(source) = &source
                    && *source != normalize_asset_path(&p.path)
                    && let Err((message, notes)) =
                        skeleton_sources.load(ctx, assets_dir, source, assets)
                {
                    let mut d = Diagnostic::warning(
                        W_SCENE_SOURCE_SKELETON,
                        format!(
                            "{message}; slot {} plays {} un-retargeted, by bone name",
                            short_name(slot),
                            short_name(&cp.path)
                        ),
                    )
                    .at(scene_src, cp.span);
                    for n in notes {
                        d = d.with_note(n);
                    }
                    diags.push(d.with_note(
                        "a clip's `skeleton` path is relative to the clip file's folder",
                    ));
                }
                let mut played = SlotSequence {
                    seq,
                    retargeted: false,
                };
                if let Some(key) = scene::retarget_key(an, &cp.path, assets) {
                    if !bakes.contains_key(&key) {
                        let (baked, ds) = spawning::bake(&key, assets);
                        if let Some(b) = baked {
                            assets.retargeted.insert(key.clone(), Arc::new(b));
                        }
                        bakes.insert(key.clone(), ds);
                    }
                    let note = format!(
                        "while retargeting {} from skeleton {} onto {}",
                        short_name(&key.clip),
                        short_name(&key.source),
                        short_name(&key.target)
                    );
                    for d in bakes.get(&key).into_iter().flatten() {
                        diags.push(d.clone().at(scene_src, cp.span).with_note(note.clone()));
                    }
                    if let Some(b) = assets.retargeted.get(&key) {
                        played = SlotSequence {
                            seq: b.clone(),
                            retargeted: true,
                        };
                    }
                }
                let (_, ds) = played.bind(&skel, &an.bone_map, slot);
                diags.extend(ds.into_iter().map(|d| d.at(scene_src, cp.span)));
            }
            for l in &an.layers {
                if let Some(m) = &l.mask {
                    let entries: Vec<&str> = m.iter().map(String::as_str).collect();
                    let (_, ds) = BoneMask::new(&skel, &entries, &format!("layer `{}`", l.name));
                    diags.extend(ds.into_iter().map(|d| d.at(scene_src, e.name_span)));
                }
            }
        }
        let Some(p) = &an.state_machine else { continue };
        if !sources.contains_key(&p.path) {
            let Some((name, bytes)) = read(p, "state machine", diags) else {
                continue;
            };
            let parsed = sm::parse_state_machine_bytes(&name, &bytes);
            diags.extend(parsed.diagnostics);
            sources.insert(
                p.path.clone(),
                SourceFile::new(name.clone(), String::from_utf8_lossy(&bytes).into_owned()),
            );
            match parsed.def {
                Some(d) => {
                    assets.machines.insert(p.path.clone(), Arc::new(d));
                }
                None => diags.push(
                    Diagnostic::error(
                        E_SCENE_BAD_ASSET,
                        format!("state machine {name} does not load"),
                    )
                    .at(scene_src, p.span),
                ),
            }
        }
        let (Some(m), Some(src)) = (assets.machines.get(&p.path), sources.get(&p.path)) else {
            continue;
        };
        let slots: Vec<&str> = an.clips.iter().map(|(s, _)| s.as_str()).collect();
        let ds = sm::validate(m, src, Some(&slots));
        let bad = ds.iter().any(Diagnostic::is_error);
        diags.extend(ds);
        if bad {
            assets.machines.remove(&p.path);
            diags.push(
                Diagnostic::error(
                    E_SCENE_BAD_ASSET,
                    format!(
                        "state machine {} is not valid for this animator",
                        src.name()
                    ),
                )
                .at(scene_src, p.span),
            );
            continue;
        }
        let mut set: Vec<&str> = def
            .actions
            .iter()
            .filter(|a| a.entity == ei)
            .filter_map(|a| match &a.action {
                scene::Action::SetParam(n, _) => Some(n.as_str()),
                _ => None,
            })
            .collect();
        set.sort_unstable();
        set.dedup();
        diags.extend(sm::unread_params(
            m,
            set.into_iter().map(|n| (n, p.span)),
            scene_src,
        ));
    }
}

/// A name or path shortened for a diagnostic message.
fn short_name(s: &str) -> String {
    format!("`{}`", crate::ron_span::short(s))
}

/// The most `.skel` files discovery reads in one folder.
pub const MAX_DISCOVERY_SKELETONS: usize = 1024;

/// A `.skel` file found by discovery: its assets-relative path and the skeleton if it loads.
type FoundSkeleton = (String, Option<Arc<Skeleton>>);

/// Resolves and loads the source skeletons of a scene's clips (the rig each clip was keyed on),
/// caching per clip, per folder and per skeleton:
///
/// 1. the clip's own `skeleton` field (a path relative to the clip file's folder), if set;
/// 2. otherwise discovery: the `.skel` files in the clip's own folder (not sub- or parent
///    folders), in file-name order, at most [`MAX_DISCOVERY_SKELETONS`]; the first that loads
///    and whose `clips` list (relative to the `.skel` file) names the clip is its source. A
///    `.skel` that does not load is skipped here (`sinew check` reports it).
///
/// Paths are compared as normalized assets-relative paths ([`normalize_asset_path`]).
#[derive(Debug, Default)]
pub struct SourceSkeletons {
    /// Clip path (as written in the scene) → resolved source (`None`: none).
    clips: BTreeMap<String, Option<String>>,
    /// Folder → its `.skel` files (assets-relative path, loaded skeleton if it loads).
    folders: BTreeMap<String, Vec<FoundSkeleton>>,
    /// Source skeletons that cannot be read or load → (message, notes).
    failed: BTreeMap<String, (String, Vec<String>)>,
}

impl SourceSkeletons {
    /// The source skeleton of `clip` (assets-relative, as written in the scene; `seq` is the
    /// loaded clip), recorded in `assets.clip_sources`. A skeleton found by discovery is added
    /// to `assets.skeletons`.
    pub fn resolve(
        &mut self,
        ctx: &Ctx,
        assets_dir: &Path,
        clip: &str,
        seq: &animseq::AnimSeq,
        assets: &mut SceneAssets,
    ) -> Option<String> {
        if let Some(r) = self.clips.get(clip) {
            return r.clone();
        }
        let found = match &seq.skeleton {
            Some(s) => Some(resolve_beside(clip, s)),
            None => self.discover(ctx, assets_dir, clip, assets),
        };
        self.clips.insert(clip.to_string(), found.clone());
        if let Some(f) = &found {
            assets.clip_sources.insert(clip.to_string(), f.clone());
        }
        found
    }

    fn discover(
        &mut self,
        ctx: &Ctx,
        assets_dir: &Path,
        clip: &str,
        assets: &mut SceneAssets,
    ) -> Option<String> {
        let clip = normalize_asset_path(clip);
        let folder = clip.rsplit_once('/').map_or("", |(d, _)| d).to_string();
        let skels = self.folders.entry(folder.clone()).or_insert_with(|| {
            let dir = assets_dir.join(&folder);
            let mut names: Vec<String> = std::fs::read_dir(&dir)
                .into_iter()
                .flatten()
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n.ends_with(".skel"))
                .collect();
            names.sort();
            names.truncate(MAX_DISCOVERY_SKELETONS);
            names
                .into_iter()
                .map(|n| {
                    let rel = if folder.is_empty() {
                        n.clone()
                    } else {
                        format!("{folder}/{n}")
                    };
                    let full = dir.join(&n);
                    let skel = std::fs::read(&full).ok().and_then(|b| {
                        load_skeleton_bytes(&ctx.display(&normalize(&full)), &b).skeleton
                    });
                    (rel, skel.map(Arc::new))
                })
                .collect()
        });
        let (rel, skel) = skels.iter().find_map(|(rel, s)| {
            let s = s.as_ref()?;
            s.clips
                .iter()
                .any(|c| resolve_beside(rel, c) == clip)
                .then(|| (rel.clone(), s.clone()))
        })?;
        assets.skeletons.entry(rel.clone()).or_insert(skel);
        Some(rel)
    }

    /// Loads source skeleton `path` (normalized, assets-relative) into `assets.skeletons` unless
    /// it is there; `Err((message, notes))` when it cannot be read or does not load.
    pub fn load(
        &mut self,
        ctx: &Ctx,
        assets_dir: &Path,
        path: &str,
        assets: &mut SceneAssets,
    ) -> Result<(), (String, Vec<String>)> {
        if assets.skeletons.contains_key(path) {
            return Ok(());
        }
        if let Some(f) = self.failed.get(path) {
            return Err(f.clone());
        }
        let full = assets_dir.join(path);
        let name = ctx.display(&normalize(&full));
        let result = match std::fs::read(&full) {
            Err(e) => Err((
                format!("cannot read source skeleton {name}: {e}"),
                Vec::new(),
            )),
            Ok(bytes) => {
                let loaded = load_skeleton_bytes(&name, &bytes);
                match loaded.skeleton {
                    Some(s) => {
                        assets.skeletons.insert(path.to_string(), Arc::new(s));
                        Ok(())
                    }
                    None => Err((
                        format!("source skeleton {name} does not load"),
                        loaded
                            .diagnostics
                            .iter()
                            .filter(|d| d.is_error())
                            .take(3)
                            .map(|d| {
                                format!(
                                    "{}:{}:{}: {}: {}",
                                    d.file, d.start.line, d.start.column, d.code, d.message
                                )
                            })
                            .collect(),
                    )),
                }
            }
        };
        if let Err(f) = &result {
            self.failed.insert(path.to_string(), f.clone());
        }
        result
    }
}

/// Reads a file the scene names at `at`: its display name and bytes, or an `E0561` error at the
/// scene entry ("cannot read WHAT NAME: …", with `note` saying what the path is relative to).
fn read_named(
    ctx: &Ctx,
    full: &Path,
    what: &str,
    note: &str,
    at: (&SourceFile, diag::Span),
    diags: &mut Vec<Diagnostic>,
) -> Option<(String, Vec<u8>)> {
    let name = ctx.display(&normalize(full));
    match std::fs::read(full) {
        Ok(b) => Some((name, b)),
        Err(e) => {
            diags.push(
                Diagnostic::error(
                    E_SCENE_MISSING_FILE,
                    format!("cannot read {what} {name}: {e}"),
                )
                .at(at.0, at.1)
                .with_note(note),
            );
            None
        }
    }
}

/// Removes `.` and `name/..` pairs lexically, for display only (files are read as written).
fn normalize(p: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            c => out.push(c.as_os_str()),
        }
    }
    out
}

fn report(ctx: &Ctx, diags: &mut [Diagnostic], err: &mut dyn Write) {
    if diags.is_empty() {
        return;
    }
    diag::sort(diags);
    let _ = write!(err, "{}", human_diagnostics(ctx, diags));
}

/// An f32 as its shortest decimal form (0.1f32 prints as 0.1, not 0.10000000149011612).
fn f32_json(x: f32) -> Value {
    let v: f64 = x.to_string().parse().unwrap_or(f64::from(x));
    json!(v)
}

fn entity_json(spawned: &Spawned, bits: Option<u64>) -> Value {
    match bits.and_then(|b| spawned.name_of(b)) {
        Some(n) => json!(n),
        None => Value::Null,
    }
}

fn value_json(spawned: &Spawned, v: &VmValue) -> Value {
    match v {
        VmValue::Bool(b) => json!(b),
        VmValue::Int(i) => json!(i),
        VmValue::Float(f) => json!(f),
        VmValue::Vec3(v) => Value::Array(v.iter().map(|x| f32_json(*x)).collect()),
        VmValue::Str(s) => json!(&**s),
        VmValue::Entity(e) => entity_json(spawned, *e),
    }
}

/// `vars` of the `end` line: per graph name (a second instance of one graph on one entity is
/// keyed `name#2`, and so on), its variables in declaration order.
fn end_vars(spawned: &Spawned, graphs: Option<&Graphs>) -> Map<String, Value> {
    let mut out = Map::new();
    let Some(graphs) = graphs else { return out };
    for inst in graphs.instances() {
        let mut key = inst.name().to_string();
        let mut n = 1;
        while out.contains_key(&key) {
            n += 1;
            key = format!("{}#{n}", inst.name());
        }
        let mut vars = Map::new();
        for (name, _, v) in inst.vars() {
            vars.insert(name.to_string(), value_json(spawned, v));
        }
        out.insert(key, Value::Object(vars));
    }
    out
}

fn name_of(spawned: &Spawned, e: Entity) -> Value {
    entity_json(spawned, Some(e.to_bits()))
}

/// The JSON line of one trace record (`cli.md`).
pub fn record_json(spawned: &Spawned, r: &TraceRecord) -> Value {
    let mut m = Map::new();
    m.insert("tick".into(), json!(r.tick));
    m.insert("time".into(), json!(r.time));
    match &r.kind {
        TraceKind::Notify {
            entity,
            event,
            clip,
            clip_time,
            cycle,
        } => {
            m.insert("kind".into(), json!("notify"));
            m.insert("entity".into(), name_of(spawned, *entity));
            m.insert("event".into(), json!(&**event));
            m.insert("clip".into(), json!(&**clip));
            m.insert("clip_time".into(), json!(clip_time));
            m.insert("cycle".into(), json!(cycle));
        }
        TraceKind::Log {
            entity,
            graph,
            message,
        } => {
            m.insert("kind".into(), json!("log"));
            m.insert("entity".into(), name_of(spawned, *entity));
            m.insert("graph".into(), json!(&**graph));
            m.insert("message".into(), json!(message));
        }
        TraceKind::State { entity, from, to } => {
            m.insert("kind".into(), json!("state"));
            m.insert("entity".into(), name_of(spawned, *entity));
            m.insert("from".into(), json!(&**from));
            m.insert("to".into(), json!(&**to));
        }
        TraceKind::Error {
            entity,
            graph,
            node,
            message,
        } => {
            m.insert("kind".into(), json!("error"));
            m.insert(
                "entity".into(),
                entity.map_or(Value::Null, |e| name_of(spawned, e)),
            );
            m.insert(
                "graph".into(),
                graph.as_ref().map_or(Value::Null, |g| json!(&**g)),
            );
            m.insert(
                "node".into(),
                node.as_ref().map_or(Value::Null, |n| json!(n)),
            );
            m.insert("message".into(), json!(message));
        }
    }
    Value::Object(m)
}

/// The human line of one trace record; `names` maps event identities to display names.
pub fn record_human(
    spawned: &Spawned,
    names: &BTreeMap<String, String>,
    r: &TraceRecord,
) -> String {
    let who = |e: &Entity| {
        spawned
            .name_of(e.to_bits())
            .map_or_else(|| "?".to_string(), str::to_string)
    };
    let head = format!("tick {:>4}  t={:<7.3}", r.tick, r.time);
    match &r.kind {
        TraceKind::Notify {
            entity,
            event,
            clip,
            clip_time,
            cycle,
        } => format!(
            "{head} notify  {}  {}  clip {clip} at {} (cycle {cycle})",
            who(entity),
            names.get(&**event).map_or(&**event, String::as_str),
            super::num(*clip_time)
        ),
        TraceKind::Log {
            entity,
            graph,
            message,
        } => format!("{head} log     {}  {graph}: {message}", who(entity)),
        TraceKind::State { entity, from, to } => {
            format!("{head} state   {}  {from} -> {to}", who(entity))
        }
        TraceKind::Error {
            entity,
            graph,
            node,
            message,
        } => {
            let mut at = String::new();
            if let Some(g) = graph {
                at.push_str(g);
                if let Some(n) = node {
                    at.push('.');
                    at.push_str(n);
                }
                at.push_str(": ");
            }
            format!(
                "{head} error   {}  {at}{message}",
                entity.as_ref().map_or_else(|| "-".to_string(), who)
            )
        }
    }
}

/// Whether `sinew check` treats `p` as an animation asset (`.skel`, `.animsm`, `.scene.ron`)
/// rather than a graph.
pub fn is_animation_file(p: &Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.ends_with(".skel") || name.ends_with(".animsm") || name.ends_with(".scene.ron")
}

/// `sinew check` over animation assets: every `.skel`, `.animsm` and `.scene.ron` named in or
/// found under `paths`, plus the `.skel`/`.animsm` files under `assets` — each loaded and
/// validated with the same diagnostics `run` reports (a scene's skeletons and state machines
/// are checked against its animators, its clips' source skeletons resolved and retargeted; its
/// graphs are left to the graph check) — and the source skeletons the `.animseq` files under
/// `assets` name ([`check_clip_skeletons`]). Returns the sources read (for snippets) and the
/// diagnostics.
pub fn check_animation_files(
    ctx: &Ctx,
    paths: &[PathBuf],
    assets: &Path,
) -> (Vec<SourceFile>, Vec<Diagnostic>) {
    let mut files = BTreeSet::new();
    let mut walk = |root: &Path, scenes: bool| {
        if root.is_file() {
            if is_animation_file(root) {
                files.insert(root.to_path_buf());
            }
            return;
        }
        let mut stack = vec![root.to_path_buf()];
        let mut seen = 0usize;
        while let Some(d) = stack.pop() {
            let Ok(rd) = std::fs::read_dir(&d) else {
                continue;
            };
            for ent in rd.flatten() {
                seen += 1;
                if seen > 1_000_000 {
                    return;
                }
                let path = ent.path();
                let Ok(ft) = ent.file_type() else { continue };
                if ft.is_dir() {
                    stack.push(path);
                } else if ft.is_file()
                    && is_animation_file(&path)
                    && (scenes || !path.to_string_lossy().ends_with(".scene.ron"))
                {
                    files.insert(path);
                }
            }
        }
    };
    for p in paths {
        walk(p, true);
    }
    walk(assets, false);
    let mut sources = Vec::new();
    let mut diags = Vec::new();
    for f in files {
        let name = ctx.display(&f);
        let bytes = match std::fs::read(&f) {
            Ok(b) => b,
            Err(e) => {
                diags.push(
                    Diagnostic::error(
                        crate::catalog::scan::E_UNREADABLE,
                        format!("cannot read file: {e}"),
                    )
                    .in_file(&name),
                );
                continue;
            }
        };
        let src = SourceFile::new(name.clone(), String::from_utf8_lossy(&bytes).into_owned());
        let n = f.to_string_lossy();
        if n.ends_with(".skel") {
            diags.extend(load_skeleton_bytes(&name, &bytes).diagnostics);
        } else if n.ends_with(".animsm") {
            let parsed = sm::parse_state_machine_bytes(&name, &bytes);
            diags.extend(parsed.diagnostics);
            if let Some(d) = parsed.def {
                diags.extend(sm::validate(&d, &src, None));
            }
        } else {
            let parsed = scene::parse_bytes(&name, &bytes);
            diags.extend(parsed.diagnostics);
            if let Some(def) = parsed.scene {
                let mut loaded = SceneAssets::default();
                for p in def.clip_paths() {
                    if let Ok(b) = std::fs::read(assets.join(&p.path))
                        && let Some(seq) = animseq::load_bytes(&p.path, &b).seq
                    {
                        loaded.clips.insert(p.path.clone(), Arc::new(seq));
                    }
                }
                load_animation_assets(ctx, assets, &def, &src, &mut loaded, &mut diags);
            }
        }
        sources.push(src);
    }
    diags.extend(check_clip_skeletons(ctx, assets));
    // A state machine checked on its own and again for a scene reports its problems once.
    let mut seen = BTreeSet::new();
    diags.retain(|d| {
        seen.insert((
            d.file.clone(),
            d.code,
            d.span.start,
            d.span.end,
            d.message.clone(),
        ))
    });
    (sources, diags)
}

/// Every `.animseq` under `assets` (recursively, at most a million directory entries) whose
/// `skeleton` field names a source skeleton that cannot be read or does not load: `W0563` at
/// that field, once per clip.
pub fn check_clip_skeletons(ctx: &Ctx, assets: &Path) -> Vec<Diagnostic> {
    let mut clips = Vec::new();
    let mut stack = vec![assets.to_path_buf()];
    let mut seen = 0usize;
    'walk: while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for ent in rd.flatten() {
            seen += 1;
            if seen > 1_000_000 {
                break 'walk;
            }
            let path = ent.path();
            let Ok(ft) = ent.file_type() else { continue };
            if ft.is_dir() {
                stack.push(path);
            } else if ft.is_file() && path.extension().is_some_and(|e| e == "animseq") {
                clips.push(path);
            }
        }
    }
    clips.sort();
    let mut cache = SourceSkeletons::default();
    let mut loaded = SceneAssets::default();
    let mut diags = Vec::new();
    for f in clips {
        let Some(rel) = f
            .strip_prefix(assets)
            .ok()
            .and_then(|r| r.to_str())
            .map(|r| r.replace(std::path::MAIN_SEPARATOR, "/"))
        else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue; // the catalog scan reports unreadable clips
        };
        let Ok(v) = crate::ron_span::parse(&text) else {
            continue;
        };
        let crate::ron_span::ValueKind::Struct { fields, .. } = &v.kind else {
            continue;
        };
        let Some(Ok(Some(sv))) = fields
            .iter()
            .find(|f| f.name == "skeleton")
            .map(|f| f.value.as_option())
        else {
            continue;
        };
        let Ok(path) = sv.as_str() else { continue };
        let source = resolve_beside(&rel, path);
        if let Err((message, notes)) = cache.load(ctx, assets, &source, &mut loaded) {
            let src = SourceFile::new(ctx.display(&f), text.clone());
            let mut d = Diagnostic::warning(
                W_SCENE_SOURCE_SKELETON,
                format!("{message}; the clip plays un-retargeted on other rigs"),
            )
            .at(&src, sv.span);
            for n in notes {
                d = d.with_note(n);
            }
            diags.push(
                d.with_note("a clip's `skeleton` path is relative to the clip file's folder"),
            );
        }
    }
    diags
}
