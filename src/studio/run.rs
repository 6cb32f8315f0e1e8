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
//! custom events appear under the records they produce. `values` (unless the body says
//! `"values": false`) is parallel to `executed`: per invocation, what it saw
//! ([`super::values`]); its text counts toward the run's byte budget like the records.

use super::State;
use super::http::{Request, Response};
use crate::app::run;
use crate::project::{self, FsSource};
use crate::runtime::hub::Dispatcher;
use crate::runtime::render::record_json;
use crate::runtime::scene::Spawned;
use crate::runtime::{
    ExecLog, Invocation, TraceFormat, TraceKind, TraceRecord, TraceWriter, VmDispatch,
};
use bevy_ecs::prelude::World;
use serde::Serialize;
use serde_json::{Value, json};
use std::sync::Arc;

/// Most ticks one studio run may take.
pub const MAX_TICKS: u64 = 10_000;
/// Most node entries one run answers (over all invocations); later invocations list none.
pub const MAX_NODE_ENTRIES: usize = 2_000_000;
/// Most bytes of records and their invocations one run answers (32 MiB of JSON): the run stops
/// at the first record past it and says so in `notice` (`sinew run` prints the whole trace).
pub const MAX_RUN_BYTES: usize = 32 << 20;

#[derive(Default)]
struct Recorder {
    /// Per record: the record, its invocations and, when values are recorded, their values
    /// ([`super::values`]), as data (`runtime::render::record_json`).
    records: Vec<(Value, Vec<Value>, Option<Vec<Value>>)>,
    /// Record the values each invocation saw (`"values": false` turns it off).
    values: bool,
    bytes: usize,
    entries: usize,
    truncated: bool,
    /// Set when the byte budget stopped the run.
    full: bool,
    /// Which slot feeds each input of the scene's graphs ([`super::inputs`]).
    inputs: super::inputs::SceneInputs,
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

/// The bytes `v` takes as JSON text (counted, never kept).
fn json_len(v: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0 += b.len();
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Count(0);
    let _ = serde_json::to_writer(&mut c, v);
    c.0
}

impl Recorder {
    fn world_ready(&mut self, world: &mut World) {
        world.insert_resource(Dispatcher::new(if self.values {
            VmDispatch::recording_values()
        } else {
            VmDispatch::recording()
        }));
        world.insert_resource(ExecLog::default());
    }

    /// Records one tick's trace; `false` once the byte budget is spent (the rest of the tick
    /// is dropped and the run should stop).
    fn after_tick(
        &mut self,
        world: &mut World,
        spawned: &Spawned,
        records: &[TraceRecord],
    ) -> bool {
        let invocations = world
            .get_resource_mut::<ExecLog>()
            .map(|mut l| std::mem::take(&mut l.invocations))
            .unwrap_or_default();
        let mut per: Vec<Vec<usize>> = vec![Vec::new(); records.len()];
        let mut entries: Vec<(Value, usize)> = Vec::with_capacity(invocations.len());
        let mut values: Vec<(Value, usize)> = Vec::new();
        for inv in &invocations {
            if self.values {
                let table = inv.values.as_ref().and_then(|v| self.inputs.of(&v.module));
                let v = super::values::entry(spawned, inv, table);
                let len = json_len(&v);
                values.push((v, len));
            }
            let entity = spawned.name_of(inv.entity.to_bits());
            let entry = if self.entries + inv.nodes.len() > MAX_NODE_ENTRIES {
                self.truncated = true;
                json!({"graph": &*inv.graph, "entity": entity, "event": inv.event, "nodes": []})
            } else {
                self.entries += inv.nodes.len();
                json!({"graph": &*inv.graph, "entity": entity, "event": inv.event, "nodes": inv.nodes})
            };
            let at = entries.len();
            let len = json_len(&entry);
            entries.push((entry, len));
            let (start, end) = inv.trace_span;
            let end = end.min(records.len());
            if inv.notify.is_some()
                && let Some(j) = (0..start.min(records.len()))
                    .rev()
                    .find(|&j| same_notify(&records[j], inv))
            {
                per[j].push(at);
            }
            for p in per.iter_mut().take(end).skip(start) {
                p.push(at);
            }
        }
        drop(invocations);
        for (r, list) in records.iter().zip(per) {
            let record = record_json(spawned, r);
            // As JSON text: the record, the brackets and commas of its list, its entries.
            let size = json_len(&record)
                + 2
                + list.len().saturating_sub(1)
                + list.iter().map(|&e| entries[e].1).sum::<usize>()
                + if self.values {
                    2 + list.len().saturating_sub(1)
                        + list.iter().map(|&e| values[e].1).sum::<usize>()
                } else {
                    0
                };
            if self.bytes + size > MAX_RUN_BYTES {
                self.full = true;
                return false;
            }
            self.bytes += size;
            let executed = list.iter().map(|&e| entries[e].0.clone()).collect();
            let vals = self
                .values
                .then(|| list.iter().map(|&e| values[e].0.clone()).collect());
            self.records.push((record, executed, vals));
        }
        true
    }
}

/// The answer of a run, serialized straight from the recorded data.
#[derive(Serialize)]
struct Answer<'a> {
    records: Vec<&'a Value>,
    executed: Vec<&'a [Value]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    values: Option<Vec<&'a [Value]>>,
    truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    notice: Option<String>,
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
    let dt = dt.unwrap_or(crate::runtime::time::DEFAULT_DT);
    let values = match o.get("values") {
        None | Some(Value::Null) => true,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Response::error(400, "`values` must be true or false"),
    };
    if !run::valid_dt(dt) {
        return Response::error(
            400,
            format!(
                "`dt` must be a finite number of seconds in (0, {}]",
                run::MAX_DT
            ),
        );
    }
    // Absolute, so the loader places it under the project folder whatever the current folder.
    let path = state
        .scenes
        .canonical
        .join(path.strip_prefix(&state.scenes.root).unwrap_or(&path));
    match run_scene(state, &path, ticks, dt, values) {
        Ok(r) => r,
        Err(NotRun::Message(msg)) => Response::error(422, format!("the scene does not run: {msg}")),
        Err(NotRun::Diagnostics(diags)) => Response::json(422, &not_run(&diags)),
    }
}

/// Why a scene did not run: a message (unreadable, not spawned), or the loader's diagnostics.
enum NotRun {
    Message(String),
    Diagnostics(Vec<crate::diag::Diagnostic>),
}

impl From<String> for NotRun {
    fn from(m: String) -> NotRun {
        NotRun::Message(m)
    }
}

/// The `422` answer of a scene whose load has errors: `error` (one line: the first error and
/// how many more) and `diagnostics` in the JSON shape of `sinew check --format json`.
fn not_run(diags: &[crate::diag::Diagnostic]) -> Value {
    let errors: Vec<_> = diags.iter().filter(|d| d.is_error()).collect();
    let first = errors.first().map_or(String::new(), |d| {
        let more = match errors.len() - 1 {
            0 => String::new(),
            n => format!(" (and {n} more)"),
        };
        format!(": error[{}] {}{more}", d.code, d.message)
    });
    json!({
        "error": format!("the scene does not run{first}"),
        "diagnostics": crate::app::documents::diagnostics(diags),
    })
}

/// Loads and runs the scene through the one run loop ([`run::Headless`]); a load with errors
/// answers its diagnostics as data.
fn run_scene(
    state: &State,
    scene: &std::path::Path,
    ticks: u64,
    dt: f64,
    values: bool,
) -> Result<Response, NotRun> {
    let ctx = &state.ctx;
    let (source, layout) = FsSource::open(Some(&state.project), scene, &state.assets.canonical)
        .map_err(|e| format!("cannot read {}: {e}", ctx.display(scene)))?;
    let loaded = project::load(&source, &layout).map_err(|e| e.to_string())?;
    let mut rec = Recorder {
        values,
        inputs: if values {
            super::inputs::SceneInputs::read(&source, &layout, &loaded)
        } else {
            Default::default()
        },
        ..Recorder::default()
    };
    let Some((mut run, spawned)) = run::Headless::spawn(&loaded, dt, |w| rec.world_ready(w))?
    else {
        let mut diags = loaded.run_diagnostics();
        crate::diag::sort(&mut diags);
        return Err(NotRun::Diagnostics(diags));
    };
    let writer = TraceWriter::new(&spawned, &loaded.event_names, TraceFormat::Json);
    let mut ran = 0;
    for _ in 0..ticks {
        let tick = run.tick();
        ran += 1;
        if !rec.after_tick(&mut run.world, &spawned, &tick) {
            break;
        }
    }
    let notice = rec.full.then(|| {
        format!(
            "the run stopped at tick {ran} of {ticks}: its records reached the studio's limit of \
             {} MiB per run{}; `sinew run` prints the whole trace",
            MAX_RUN_BYTES >> 20,
            if rec.values {
                " (with their values; `\"values\": false` runs further)"
            } else {
                ""
            }
        )
    });
    let end: Vec<Value> = writer.end_values(&run.world);
    drop(run);
    let mut answer = Answer {
        records: Vec::with_capacity(rec.records.len() + end.len()),
        executed: Vec::with_capacity(rec.records.len() + end.len()),
        values: values.then(|| Vec::with_capacity(rec.records.len() + end.len())),
        truncated: rec.truncated,
        notice,
    };
    for (r, e, v) in &rec.records {
        answer.records.push(r);
        answer.executed.push(e);
        if let (Some(list), Some(v)) = (answer.values.as_mut(), v) {
            list.push(v);
        }
    }
    for r in &end {
        answer.records.push(r);
        answer.executed.push(&[]);
        if let Some(list) = answer.values.as_mut() {
            list.push(&[]);
        }
    }
    Ok(Response::serialized(200, &answer))
}
