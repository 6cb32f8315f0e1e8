//! The run trace as text (`cli.md` "run"): one line per [`TraceRecord`], then one `end` line
//! per entity still alive — as JSON objects or as readable lines. `sinew run` and embedders
//! print the same bytes through [`TraceWriter`].

use crate::number::{f32_json, f32_value};
use std::collections::BTreeMap;
use std::io::{self, Write};

use bevy_ecs::prelude::*;
use serde_json::{Map, Value, json};

use super::animator::Animator;
use super::instance::Graphs;
use super::scene::Spawned;
use super::trace::{Trace, TraceKind, TraceRecord};
use crate::bytecode::Value as VmValue;
use crate::crossing::Edge;
use crate::escape::{Escaped, escape};

/// How trace lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    /// Readable lines (`tick    3  t=0.033   notify  hero  Run / Footstep L  clip run at 0.2 (cycle 0)`).
    Human,
    /// One JSON object per line.
    Json,
}

/// Writes a spawned scene's trace: records as they are drained each tick, then the `end` lines.
#[derive(Debug, Clone, Copy)]
pub struct TraceWriter<'a> {
    spawned: &'a Spawned,
    names: &'a BTreeMap<String, String>,
    format: TraceFormat,
}

impl<'a> TraceWriter<'a> {
    /// A writer naming entities as `spawned` does and (human lines) events by their catalog
    /// display names `names` (identity → name; unknown identities print as themselves).
    pub fn new(
        spawned: &'a Spawned,
        names: &'a BTreeMap<String, String>,
        format: TraceFormat,
    ) -> TraceWriter<'a> {
        TraceWriter {
            spawned,
            names,
            format,
        }
    }

    /// The line of one record (without the newline).
    pub fn record(&self, r: &TraceRecord) -> String {
        match self.format {
            TraceFormat::Json => record_json(self.spawned, r).to_string(),
            TraceFormat::Human => record_human(self.spawned, self.names, r),
        }
    }

    /// Drains the world's [`Trace`] and writes one line per record: call after each tick.
    pub fn write_tick(&self, world: &mut World, out: &mut dyn Write) -> io::Result<()> {
        let records = world
            .get_resource_mut::<Trace>()
            .map(|mut t| t.drain())
            .unwrap_or_default();
        for r in &records {
            writeln!(out, "{}", self.record(r))?;
        }
        Ok(())
    }

    /// What the `end` records say: one per scene entity still alive, in scene order.
    fn ends(&self, world: &World) -> Vec<End<'a>> {
        let mut ends = Vec::new();
        for (name, entity, position) in &self.spawned.entities {
            if !world.entities().contains_spawned(*entity) {
                continue; // despawned during the run: no end line
            }
            let vars = end_vars(self.spawned, world.get::<Graphs>(*entity));
            let anim = world.get::<Animator>(*entity);
            let state = anim.and_then(|a| a.current_state().cloned());
            let (position, yaw) = match anim {
                Some(a) if a.has_root_motion() => {
                    let p = a.position();
                    ([p[0] as f32, p[1] as f32, p[2] as f32], a.yaw() as f32)
                }
                _ => (*position, 0.0f32),
            };
            ends.push(End {
                name,
                state: state.as_deref().map(str::to_string),
                position,
                yaw,
                vars,
            });
        }
        ends
    }

    /// The `end` records as data (their JSON form, whatever the writer's format): one per scene
    /// entity still alive, in scene order. The studio answers these.
    pub fn end_values(&self, world: &World) -> Vec<Value> {
        self.ends(world).iter().map(End::json).collect()
    }

    /// The `end` lines: one per scene entity still alive, in scene order.
    pub fn end_lines(&self, world: &World) -> Vec<String> {
        let mut lines = Vec::new();
        for e in self.ends(world) {
            lines.push(match self.format {
                TraceFormat::Json => e.json().to_string(),
                TraceFormat::Human => {
                    let (position, yaw) = (e.position, e.yaw);
                    let mut line = format!(
                        "end  {}  state {}  position ({}, {}, {})  yaw {yaw}",
                        Escaped(e.name),
                        Escaped(e.state.as_deref().unwrap_or("-")),
                        position[0],
                        position[1],
                        position[2]
                    );
                    for (g, vs) in &e.vars {
                        if let Value::Object(vs) = vs {
                            for (k, v) in vs {
                                line.push_str(&format!("  {}.{} = {v}", Escaped(g), Escaped(k)));
                            }
                        }
                    }
                    line
                }
            });
        }
        lines
    }

    /// Writes the `end` lines: call once, after the last tick.
    pub fn write_end(&self, world: &World, out: &mut dyn Write) -> io::Result<()> {
        for line in self.end_lines(world) {
            writeln!(out, "{line}")?;
        }
        Ok(())
    }
}

/// One `end` record: an entity alive after the last tick.
struct End<'a> {
    name: &'a str,
    state: Option<String>,
    position: [f32; 3],
    yaw: f32,
    vars: Map<String, Value>,
}

impl End<'_> {
    fn json(&self) -> Value {
        json!({
            "kind": "end",
            "entity": self.name,
            "state": self.state.as_deref().map_or(Value::Null, |s| json!(s)),
            "position": self.position.map(f32_json),
            "yaw": f32_json(self.yaw),
            "vars": self.vars,
        })
    }
}

/// Shortest round-trip text of an f64, as serde_json prints it.
fn num(x: f64) -> String {
    Value::from(x).to_string()
}

fn entity_json(spawned: &Spawned, bits: Option<u64>) -> Value {
    match bits.and_then(|b| spawned.name_of(b)) {
        Some(n) => json!(n),
        None => Value::Null,
    }
}

/// A VM value as the trace prints it (an `end` line's `vars`; the studio's run values).
pub fn value_json(spawned: &Spawned, v: &VmValue) -> Value {
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
    // How many instances of each graph name are keyed so far: the next key is found in O(1)
    // (a graph attached 20,000 times to one entity costs 20,000 keys, not 200 million probes).
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for inst in graphs.instances() {
        let n = seen.entry(inst.name()).or_insert(0);
        *n += 1;
        let mut key = if *n == 1 {
            inst.name().to_string()
        } else {
            format!("{}#{n}", inst.name())
        };
        while out.contains_key(&key) {
            // Only when a graph's own name looks like a numbered key (never for identifiers).
            *n += 1;
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

/// `"begin"` or `"end"`.
fn edge_name(e: Edge) -> &'static str {
    match e {
        Edge::Begin => "begin",
        Edge::End => "end",
    }
}

/// The JSON line of one trace record (`cli.md`).
pub fn record_json(spawned: &Spawned, r: &TraceRecord) -> Value {
    let mut m = Map::new();
    m.insert("tick".into(), json!(r.tick));
    m.insert("time".into(), json!(r.time));
    match &r.kind {
        TraceKind::Notify {
            entity,
            source,
            event,
            clip,
            clip_time,
            cycle,
            weight,
            edge,
            completed,
            fields,
        } => {
            match edge {
                None => {
                    m.insert("kind".into(), json!("notify"));
                }
                Some(e) => {
                    m.insert("kind".into(), json!("window"));
                    m.insert("edge".into(), json!(edge_name(*e)));
                    if *e == Edge::End {
                        m.insert("completed".into(), json!(completed));
                    }
                }
            }
            m.insert("entity".into(), name_of(spawned, *entity));
            m.insert("source".into(), name_of(spawned, *source));
            m.insert("event".into(), json!(&**event));
            m.insert("clip".into(), json!(&**clip));
            m.insert("clip_time".into(), json!(clip_time));
            m.insert("cycle".into(), json!(cycle));
            m.insert("weight".into(), f32_json(*weight));
            if !fields.is_empty() {
                let fields: Map<String, Value> = fields
                    .iter()
                    .map(|(k, v)| (k.to_string(), value_json(spawned, v)))
                    .collect();
                m.insert("fields".into(), Value::Object(fields));
            }
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
        TraceKind::Call {
            entity,
            graph,
            node,
            call,
            inputs,
            outputs,
        } => {
            m.insert("kind".into(), json!("call"));
            m.insert("entity".into(), name_of(spawned, *entity));
            m.insert("graph".into(), json!(&**graph));
            m.insert("node".into(), json!(node));
            m.insert("call".into(), json!(&**call));
            let values = |vs: &[(std::sync::Arc<str>, VmValue)]| {
                Value::Object(
                    vs.iter()
                        .map(|(k, v)| (k.to_string(), value_json(spawned, v)))
                        .collect(),
                )
            };
            m.insert("inputs".into(), values(inputs));
            m.insert("outputs".into(), values(outputs));
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
        TraceKind::Reload {
            file,
            graph,
            kept,
            reset,
            dropped_delays,
        } => {
            m.insert("kind".into(), json!("reload"));
            m.insert("file".into(), json!(file));
            if let Some(g) = graph {
                m.insert("graph".into(), json!(&**g));
            }
            m.insert("kept".into(), json!(kept));
            m.insert("reset".into(), json!(reset));
            m.insert("dropped_delays".into(), json!(dropped_delays));
        }
        TraceKind::ReloadFailed { file, diagnostics } => {
            m.insert("kind".into(), json!("reload_failed"));
            m.insert("file".into(), json!(file));
            m.insert(
                "diagnostics".into(),
                crate::diag::render::to_json(diagnostics),
            );
        }
    }
    Value::Object(m)
}

/// The human line of one trace record; `names` maps event identities to display names. Every
/// name and message is written through [`crate::escape`] (a newline in a log message cannot
/// forge another line; ESC never reaches the terminal).
pub fn record_human(
    spawned: &Spawned,
    names: &BTreeMap<String, String>,
    r: &TraceRecord,
) -> String {
    let who = |e: &Entity| {
        spawned
            .name_of(e.to_bits())
            .map_or_else(|| "?".to_string(), |n| escape(n).into_owned())
    };
    let head = format!("tick {:>4}  t={:<7.3}", r.tick, r.time);
    match &r.kind {
        TraceKind::Notify {
            entity,
            source,
            event,
            clip,
            clip_time,
            cycle,
            weight,
            edge,
            completed,
            fields,
        } => {
            // The source and weight only where they say something: another entity's clip, a
            // clip not at full weight; then the notify's fields, as the `end` line writes
            // variables.
            let mut extra = String::new();
            if source != entity {
                extra.push_str(&format!("  from {}", who(source)));
            }
            if *weight != 1.0 {
                extra.push_str(&format!("  weight {}", num(f32_value(*weight))));
            }
            for (k, v) in fields.iter() {
                extra.push_str(&format!("  {} = {}", Escaped(k), value_json(spawned, v)));
            }
            let (word, how) = match edge {
                None => ("notify", ""),
                Some(Edge::Begin) => ("begin ", ""),
                Some(Edge::End) if *completed => ("end   ", "  completed"),
                Some(Edge::End) => ("end   ", "  cut short"),
            };
            format!(
                "{head} {word}  {}  {}  clip {clip} at {} (cycle {cycle}){how}{extra}",
                who(entity),
                Escaped(names.get(&**event).map_or(&**event, String::as_str)),
                num(*clip_time),
                clip = Escaped(clip)
            )
        }
        TraceKind::Log {
            entity,
            graph,
            message,
        } => format!(
            "{head} log     {}  {}: {}",
            who(entity),
            Escaped(graph),
            Escaped(message)
        ),
        TraceKind::Call {
            entity,
            call,
            inputs,
            ..
        } => {
            let mut args = String::new();
            for (k, v) in inputs {
                args.push_str(&format!("  {} = {}", Escaped(k), value_json(spawned, v)));
            }
            format!("{head} call    {}  {}{args}", who(entity), Escaped(call))
        }
        TraceKind::State { entity, from, to } => {
            format!(
                "{head} state   {}  {} -> {}",
                who(entity),
                Escaped(from),
                Escaped(to)
            )
        }
        TraceKind::Error {
            entity,
            graph,
            node,
            message,
        } => {
            let mut at = String::new();
            if let Some(g) = graph {
                at.push_str(&escape(g));
                if let Some(n) = node {
                    at.push('.');
                    at.push_str(&escape(n));
                }
                at.push_str(": ");
            }
            format!(
                "{head} error   {}  {at}{}",
                entity.as_ref().map_or_else(|| "-".to_string(), who),
                Escaped(message)
            )
        }
        TraceKind::Reload {
            file,
            graph,
            kept,
            reset,
            dropped_delays,
        } => {
            let mut line = format!("{head} reload  {}", Escaped(file));
            if let Some(g) = graph {
                line.push_str(&format!("  graph {}", Escaped(g)));
            }
            let list = |v: &[String]| {
                if v.is_empty() {
                    "-".to_string()
                } else {
                    escape(&v.join(", ")).into_owned()
                }
            };
            line.push_str(&format!(
                "  kept {}  reset {}  dropped {dropped_delays} delay(s)",
                list(kept),
                list(reset)
            ));
            line
        }
        TraceKind::ReloadFailed { file, diagnostics } => {
            let mut line = format!("{head} reload failed  {}", Escaped(file));
            for d in diagnostics {
                line.push_str(&format!("  {}", d.one_line()));
            }
            line
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Diagnostic, SourceFile, Span};

    #[test]
    fn a_failed_reload_is_one_escaped_line() {
        let src = SourceFile::new("a\u{1b}.bpg", "graph g\nnode x = k\n");
        let d = Diagnostic::error("E0301", "no `k`\ntick    1  forged").at(&src, Span::new(8, 12));
        let r = TraceRecord {
            tick: 3,
            time: 0.05,
            kind: TraceKind::ReloadFailed {
                file: "a\u{1b}.bpg".into(),
                diagnostics: vec![d],
            },
        };
        let line = record_human(&Spawned::default(), &BTreeMap::new(), &r);
        assert_eq!(
            line,
            "tick    3  t=0.050   reload failed  a\\u{1b}.bpg  \
             a\\u{1b}.bpg:2:1: error[E0301]: no `k`\\ntick    1  forged"
        );
    }
}
