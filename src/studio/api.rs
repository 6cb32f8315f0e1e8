//! The studio's HTTP API (`studio.md`): routing, the security checks of every request, and the
//! graph endpoints. JSON in and out; errors are `{"error": "..."}` with a 4xx/5xx status.
//!
//! Beyond the spec's fields, graph answers carry `pins` (each node's resolved pins, as the
//! compiler types them, so the page refuses a link the compiler would refuse before sending
//! it) and each diagnostic carries `node` / `link` when its span lies in a node's or a link's
//! line (so the page can badge the node).

use super::State;
use super::http::{Request, Response};
use crate::compile;
use crate::diag::render::to_json;
use crate::diag::{self, Diagnostic, SourceFile};
use crate::graph::ast::{self, Item};
use serde_json::{Value, json};
use std::sync::Arc;

/// Most nodes a graph sent to the API may have (larger: 413).
pub const MAX_MODEL_NODES: usize = 20_000;

/// Answers one request.
pub fn handle(state: &Arc<State>, req: Request) -> Response {
    if let Err(r) = state.guard.check(&req) {
        return Response::error(r.status, r.message);
    }
    let m = req.method.as_str();
    match (m, req.path.as_str()) {
        ("GET", "/api/palette") => palette(state),
        ("GET", "/api/catalog") => catalog(state),
        ("GET", "/api/kinds") => Response::json(200, &super::kinds::document()),
        ("GET", "/api/graphs") => graphs(state),
        ("GET", "/api/scenes") => scenes(state),
        ("GET", "/api/graph") => get_graph(state, &req),
        ("PUT", "/api/graph") => put_graph(state, &req),
        ("POST", "/api/check") => check(state, &req),
        ("GET", "/api/graph.svg") => svg(state, &req),
        ("POST", "/api/run") => super::run::handle(state, &req),
        ("GET", "/api/events") => super::sse::stream(state),
        (_, p) if p.starts_with("/api/") => {
            let known = [
                "/api/palette",
                "/api/catalog",
                "/api/kinds",
                "/api/graphs",
                "/api/scenes",
                "/api/graph",
                "/api/check",
                "/api/graph.svg",
                "/api/run",
                "/api/events",
            ];
            if known.contains(&p) {
                Response::error(405, format!("{m} is not allowed on {p}"))
            } else {
                Response::error(404, format!("no endpoint {p}"))
            }
        }
        ("GET" | "HEAD", p) => super::page::file(p)
            .unwrap_or_else(|| Response::error(404, format!("no page file {p}"))),
        (_, p) => Response::error(405, format!("{m} is not allowed on {p}")),
    }
}

fn palette(state: &State) -> Response {
    let Ok(live) = state.live.read() else {
        return Response::error(500, "studio state is unavailable");
    };
    let entries = crate::palette::build(live.catalog().catalog());
    Response::json(200, &crate::cli::assets::palette_document(&entries))
}

fn catalog(state: &State) -> Response {
    let Ok(live) = state.live.read() else {
        return Response::error(500, "studio state is unavailable");
    };
    Response::json(
        200,
        &crate::cli::assets::catalog_document(live.catalog().catalog()),
    )
}

fn graphs(state: &State) -> Response {
    let Ok(live) = state.live.read() else {
        return Response::error(500, "studio state is unavailable");
    };
    let list: Vec<Value> = live
        .graphs()
        .values()
        .map(|g| {
            let (errors, warnings) = diag::counts(&g.diagnostics);
            json!({"path": g.name, "graph": g.graph, "errors": errors, "warnings": warnings})
        })
        .collect();
    Response::json(200, &json!({ "graphs": list }))
}

fn scenes(state: &State) -> Response {
    let mut found = Vec::new();
    let mut stack = vec![state.scenes.root.clone()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for ent in rd.flatten() {
            let Ok(ft) = ent.file_type() else { continue };
            let p = ent.path();
            if ft.is_dir() {
                stack.push(p);
            } else if ft.is_file() && p.to_string_lossy().ends_with(".scene.ron") {
                found.push(state.scenes.name_of(&p));
            }
        }
        if found.len() > 10_000 {
            break;
        }
    }
    found.sort();
    Response::json(200, &json!({ "scenes": found }))
}

/// A request's `path` parameter resolved inside the graphs folder.
fn graph_path(state: &State, req: &Request) -> Result<(String, std::path::PathBuf), Response> {
    let Some(rel) = req.param("path") else {
        return Err(Response::error(400, "missing ?path="));
    };
    if !rel.ends_with(".bpg") {
        return Err(Response::error(400, format!("`{rel}` is not a .bpg graph")));
    }
    match state.graphs.resolve(rel) {
        Ok(p) => Ok((rel.to_string(), p)),
        Err(e) => Err(Response::error(400, e.0)),
    }
}

/// Diagnostics as JSON, each with `node` (and `link`) when its span lies on that item.
pub fn diagnostics_json(source: Option<&str>, diags: &[Diagnostic]) -> Value {
    let mut arr = to_json(diags);
    let Some(text) = source else { return arr };
    let src = SourceFile::new("", text);
    let (file, _) = crate::graph::parse(&src);
    let items: Vec<(u32, u32, Value, Option<String>)> = file
        .items
        .iter()
        .filter_map(|it| match it {
            Item::Node(n) => Some((n.span.start, n.span.end, json!(n.name.name), None)),
            Item::Link(l) => Some((
                l.span.start,
                l.span.end,
                json!(l.to_node.name),
                Some(link_text(l)),
            )),
            Item::Var(_) => None,
        })
        .collect();
    if let Value::Array(list) = &mut arr {
        for (d, j) in diags.iter().zip(list.iter_mut()) {
            let at = d.span.start;
            // Items are in file order and do not overlap: binary search by start.
            let i = items.partition_point(|(s, _, _, _)| *s <= at);
            if i == 0 {
                continue;
            }
            let (s, e, node, link) = &items[i - 1];
            if at >= *s
                && at <= *e
                && let Value::Object(o) = j
            {
                o.insert("node".into(), node.clone());
                if let Some(l) = link {
                    o.insert("link".into(), json!(l));
                }
            }
        }
    }
    arr
}

fn link_text(l: &ast::Link) -> String {
    format!(
        "{}.{} -> {}.{}",
        l.from_node.name, l.from_pin.name, l.to_node.name, l.to_pin.name
    )
}

/// Each node's pins as the compiler resolved them: `{"node": {"inputs": [...], "outputs": [...]}}`.
fn pins_json(g: &compile::ir::Graph) -> Value {
    let mut m = serde_json::Map::new();
    for n in &g.nodes {
        let pins = |ps: &[compile::ir::Pin]| {
            ps.iter()
                .map(|p| json!({"name": p.name, "type": p.ty.name()}))
                .collect::<Vec<_>>()
        };
        m.insert(
            n.name.clone(),
            json!({"inputs": pins(&n.inputs), "outputs": pins(&n.outputs)}),
        );
    }
    Value::Object(m)
}

/// Compiles `text` as graph `name` against the live catalog: diagnostics and resolved pins.
fn compile_text(state: &State, name: &str, text: &str) -> Result<(Value, Value), Response> {
    let Ok(live) = state.live.read() else {
        return Err(Response::error(500, "studio state is unavailable"));
    };
    let src = SourceFile::new(name, text);
    let c = compile::compile(&src, live.catalog().catalog());
    Ok((
        diagnostics_json(Some(text), c.diagnostics()),
        pins_json(&c.checked.graph),
    ))
}

fn get_graph(state: &State, req: &Request) -> Response {
    let (rel, path) = match graph_path(state, req) {
        Ok(x) => x,
        Err(r) => return r,
    };
    let bytes = match read_limited(&path) {
        Ok(b) => b,
        Err(r) => return r,
    };
    let version = crate::cli::live::version_of(&bytes);
    let Ok(text) = String::from_utf8(bytes) else {
        return Response::error(422, format!("{rel} is not valid UTF-8"));
    };
    let (diagnostics, pins) = match compile_text(state, &rel, &text) {
        Ok(x) => x,
        Err(r) => return r,
    };
    let model = super::model::model_json(&rel, &text);
    Response::json(
        200,
        &json!({"path": rel, "version": version, "source": text, "model": model,
                "diagnostics": diagnostics, "pins": pins}),
    )
}

fn read_limited(path: &std::path::Path) -> Result<Vec<u8>, Response> {
    use std::io::Read;
    let f = std::fs::File::open(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            Response::error(404, "no such graph")
        } else {
            Response::error(500, format!("cannot read the graph: {e}"))
        }
    })?;
    let mut buf = Vec::new();
    let limit = crate::cli::live::MAX_GRAPH_FILE;
    f.take(limit + 1)
        .read_to_end(&mut buf)
        .map_err(|e| Response::error(500, format!("cannot read the graph: {e}")))?;
    if buf.len() as u64 > limit {
        return Err(Response::error(
            413,
            format!("the graph is larger than {limit} bytes"),
        ));
    }
    Ok(buf)
}

/// A body's JSON object, or a 400.
fn body_object(req: &Request) -> Result<serde_json::Map<String, Value>, Response> {
    let ct = req.header("content-type").unwrap_or("application/json");
    if !ct.starts_with("application/json") {
        return Err(Response::error(415, "send the body as application/json"));
    }
    match serde_json::from_slice::<Value>(&req.body) {
        Ok(Value::Object(o)) => Ok(o),
        Ok(_) => Err(Response::error(400, "the body must be a JSON object")),
        Err(e) => Err(Response::error(400, format!("the body is not JSON: {e}"))),
    }
}

/// The canonical text of a body's graph (`model` or `source`), or the refusal.
fn body_text(name: &str, o: &serde_json::Map<String, Value>) -> Result<String, Response> {
    match (o.get("model"), o.get("source")) {
        (Some(m), None) => super::model::text_of_model(m),
        (None, Some(Value::String(s))) => {
            let src = SourceFile::new(name, s.as_str());
            match crate::graph::format_source(&src) {
                Ok(t) => Ok(t),
                Err(d) => Err(Response::json(
                    400,
                    &json!({"error": "the source is not a graph: it does not parse",
                            "diagnostics": diagnostics_json(Some(s), &d)}),
                )),
            }
        }
        (None, Some(_)) => Err(Response::error(400, "`source` must be a string")),
        (Some(_), Some(_)) => Err(Response::error(400, "send `model` or `source`, not both")),
        (None, None) => Err(Response::error(400, "the body needs `model` or `source`")),
    }
}

fn check(state: &State, req: &Request) -> Response {
    let o = match body_object(req) {
        Ok(o) => o,
        Err(r) => return r,
    };
    let name = match o.get("path") {
        None | Some(Value::Null) => "untitled.bpg".to_string(),
        Some(Value::String(p)) => match crate::studio::security::plain_relative(p) {
            Ok(_) => p.clone(),
            Err(e) => return Response::error(400, e.0),
        },
        Some(_) => return Response::error(400, "`path` must be a string"),
    };
    let text = match body_text(&name, &o) {
        Ok(t) => t,
        Err(r) => return r,
    };
    match compile_text(state, &name, &text) {
        Ok((diagnostics, pins)) => Response::json(
            200,
            &json!({"diagnostics": diagnostics, "source": text, "pins": pins}),
        ),
        Err(r) => r,
    }
}

fn put_graph(state: &State, req: &Request) -> Response {
    let (rel, path) = match graph_path(state, req) {
        Ok(x) => x,
        Err(r) => return r,
    };
    let o = match body_object(req) {
        Ok(o) => o,
        Err(r) => return r,
    };
    let base = match o.get("base") {
        Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        None => {
            return Response::error(
                400,
                "the body needs `base` (a version, or null for a new file)",
            );
        }
        Some(_) => return Response::error(400, "`base` must be a version string or null"),
    };
    let text = match body_text(&rel, &o) {
        Ok(t) => t,
        Err(r) => return r,
    };
    let Ok(_w) = state.writes.lock() else {
        return Response::error(500, "studio state is unavailable");
    };
    let current = match std::fs::read(&path) {
        Ok(b) => Some(crate::cli::live::version_of(&b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Response::error(500, format!("cannot read {rel}: {e}")),
    };
    if current != base {
        let message = match (&current, &base) {
            (Some(_), None) => format!("{rel} already exists"),
            (None, Some(_)) => format!("{rel} no longer exists on disk"),
            _ => format!("{rel} changed on disk since it was read"),
        };
        return Response::json(409, &json!({"error": message, "version": current}));
    }
    if let Err(e) = crate::fsutil::write_atomic(&path, text.as_bytes()) {
        return Response::error(500, format!("cannot write {rel}: {e}"));
    }
    let version = crate::cli::live::version_of(text.as_bytes());
    match compile_text(state, &rel, &text) {
        Ok((diagnostics, pins)) => Response::json(
            200,
            &json!({"version": version, "diagnostics": diagnostics, "source": text, "pins": pins}),
        ),
        Err(r) => r,
    }
}

fn svg(state: &State, req: &Request) -> Response {
    let (rel, path) = match graph_path(state, req) {
        Ok(x) => x,
        Err(r) => return r,
    };
    let bytes = match read_limited(&path) {
        Ok(b) => b,
        Err(r) => return r,
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return Response::error(422, format!("{rel} is not valid UTF-8"));
    };
    super::model::svg(state, &rel, &text)
}
