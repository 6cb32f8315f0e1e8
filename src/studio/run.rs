//! `POST /api/run`: runs a scene headless as `sinew run --format json` does — the same library
//! loader ([`crate::project`]), world ([`crate::runtime::scene::headless`]) and trace writer
//! ([`crate::runtime::TraceWriter`]) — with a recording VM dispatcher, and answers the records
//! plus, per record, the graph invocations behind it and the nodes each ran.
//!
//! Which invocations belong to a record: a `notify` record gets the handler invocations that
//! delivered that crossing (same tick, entity, identity, clip time and cycle); a `log` or
//! `error` record gets the invocation that produced it. Each entry also names the handler's
//! `event` (null for a resumed `flow.delay`), so the page can light the event node that started
//! it: an event node whose outputs nothing reads runs no instruction of its own. Invocations of `tick`, `begin_play` and
//! custom events appear under the records they produce.

use super::State;
use super::http::{Request, Response};
use crate::project::{self, FsSource};
use crate::runtime::hub::Dispatcher;
use crate::runtime::scene::{Spawned, headless, spawn};
use crate::runtime::{
    ExecLog, Invocation, Trace, TraceFormat, TraceKind, TraceRecord, TraceWriter, VmDispatch,
};
use bevy_ecs::prelude::World;
use serde_json::{Value, json};
use std::sync::Arc;

/// Most ticks one studio run may take.
pub const MAX_TICKS: u64 = 10_000;
/// Most node entries one run answers (over all invocations); later invocations list none.
pub const MAX_NODE_ENTRIES: usize = 2_000_000;

#[derive(Default)]
struct Recorder {
    executed: Vec<Vec<Value>>,
    entries: usize,
    truncated: bool,
}

fn same_notify(r: &TraceRecord, inv: &Invocation) -> bool {
    match (&r.kind, &inv.event, inv.notify) {
        (
            TraceKind::Notify {
                entity,
                event,
                clip_time,
                cycle,
                ..
            },
            Some(ev),
            Some((ct, c)),
        ) => *entity == inv.entity && **event == **ev && *clip_time == ct && *cycle == c,
        _ => false,
    }
}

impl Recorder {
    fn world_ready(&mut self, world: &mut World) {
        world.insert_resource(Dispatcher::new(VmDispatch::recording()));
        world.insert_resource(ExecLog::default());
    }

    fn after_tick(&mut self, world: &mut World, spawned: &Spawned, records: &[TraceRecord]) {
        let invocations = world
            .get_resource_mut::<ExecLog>()
            .map(|mut l| std::mem::take(&mut l.invocations))
            .unwrap_or_default();
        let mut per: Vec<Vec<Value>> = vec![Vec::new(); records.len()];
        for inv in &invocations {
            let entry = if self.entries + inv.nodes.len() > MAX_NODE_ENTRIES {
                self.truncated = true;
                json!({"graph": &*inv.graph, "entity": spawned.name_of(inv.entity.to_bits()), "event": inv.event, "nodes": []})
            } else {
                self.entries += inv.nodes.len();
                json!({"graph": &*inv.graph, "entity": spawned.name_of(inv.entity.to_bits()), "event": inv.event, "nodes": inv.nodes})
            };
            let (start, end) = inv.trace_span;
            let end = end.min(records.len());
            if inv.notify.is_some()
                && let Some(j) = (0..start.min(records.len()))
                    .rev()
                    .find(|&j| same_notify(&records[j], inv))
            {
                per[j].push(entry.clone());
            }
            for p in per.iter_mut().take(end).skip(start) {
                p.push(entry.clone());
            }
        }
        self.executed.extend(per);
    }
}

pub fn handle(state: &Arc<State>, req: &Request) -> Response {
    let o = match serde_json::from_slice::<Value>(&req.body) {
        Ok(Value::Object(o)) => o,
        Ok(_) => return Response::error(400, "the body must be a JSON object"),
        Err(e) => return Response::error(400, format!("the body is not JSON: {e}")),
    };
    let Some(scene) = o.get("scene").and_then(Value::as_str) else {
        return Response::error(
            400,
            "the body needs `scene` (a path under the scenes folder)",
        );
    };
    if !scene.ends_with(".scene.ron") {
        return Response::error(400, format!("`{scene}` is not a .scene.ron file"));
    }
    let path = match state.scenes.resolve(scene) {
        Ok(p) => p,
        Err(e) => return Response::error(400, e.0),
    };
    if !path.is_file() {
        return Response::error(404, format!("no scene {scene}"));
    }
    let ticks = match o.get("ticks") {
        None => 60,
        Some(v) => match v.as_u64() {
            Some(n) if (1..=MAX_TICKS).contains(&n) => n,
            _ => {
                return Response::error(
                    400,
                    format!("`ticks` must be an integer from 1 to {MAX_TICKS}"),
                );
            }
        },
    };
    let dt = match o.get("dt") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_f64() {
            Some(x) => Some(x),
            None => return Response::error(400, "`dt` must be a number of seconds"),
        },
    };
    let dt = dt.unwrap_or(crate::runtime::schedule::DEFAULT_DT);
    if !(dt.is_finite() && dt > 0.0 && dt <= crate::cli::run::MAX_DT) {
        return Response::error(
            400,
            format!(
                "`dt` must be a finite number of seconds in (0, {}]",
                crate::cli::run::MAX_DT
            ),
        );
    }
    // Absolute, so the loader places it under the project folder whatever the current folder.
    let path = state
        .scenes
        .canonical
        .join(path.strip_prefix(&state.scenes.root).unwrap_or(&path));
    match run_scene(state, &path, ticks, dt) {
        Ok(v) => Response::json(200, &v),
        Err(msg) => Response::error(422, format!("the scene does not run: {msg}")),
    }
}

/// Loads and runs the scene; the error is the loader's diagnostics as `sinew run` prints them.
fn run_scene(state: &State, scene: &std::path::Path, ticks: u64, dt: f64) -> Result<Value, String> {
    let ctx = &state.ctx;
    let (source, layout) = FsSource::open(Some(&state.project), scene, &state.assets.canonical)
        .map_err(|e| format!("cannot read {}: {e}", ctx.display(scene)))?;
    let loaded = project::load(&source, &layout).map_err(|e| e.to_string())?;
    let Some((def, assets)) = loaded.ready() else {
        let mut diags = loaded.run_diagnostics();
        crate::diag::sort(&mut diags);
        return Err(crate::cli::human_diagnostics(ctx, &diags)
            .trim()
            .to_string());
    };
    let (mut world, mut schedule) = headless(dt).map_err(|e| e.to_string())?;
    let mut rec = Recorder::default();
    rec.world_ready(&mut world);
    let spawned = spawn(&mut world, def, assets).map_err(|e| e.to_string())?;
    let writer = TraceWriter::new(&spawned, &loaded.event_names, TraceFormat::Json);
    let mut records: Vec<Value> = Vec::new();
    let line = |l: String| serde_json::from_str::<Value>(&l).unwrap_or(Value::String(l));
    for _ in 0..ticks {
        schedule.run(&mut world);
        let tick = world
            .get_resource_mut::<Trace>()
            .map(|mut t| t.drain())
            .unwrap_or_default();
        rec.after_tick(&mut world, &spawned, &tick);
        records.extend(tick.iter().map(|r| line(writer.record(r))));
    }
    records.extend(writer.end_lines(&world).into_iter().map(line));
    let mut executed = rec.executed;
    executed.resize(records.len(), Vec::new());
    Ok(json!({"records": records, "executed": executed, "truncated": rec.truncated}))
}
