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
use crate::diag::render::JsonDiagnostic;
use crate::diag::{self, Diagnostic, SourceFile};
use crate::fsutil::{InputError, InputKind};
use crate::graph::ast::{self, Item};
use crate::workspace;
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::sync::Arc;

/// Most nodes a graph sent to the API may have (larger: 413).
pub const MAX_MODEL_NODES: usize = 20_000;

/// Answers one request.
pub fn handle(state: &Arc<State>, req: Request) -> Response {
    if let Err(r) = state.guard.check(&req) {
        return Response::error(r.status, r.message);
    }
    if let Some(r) = super::clips::route(state, &req) {
        return r;
    }
    let m = req.method.as_str();
    // Everything that compiles, draws or runs shares the heavy slots (the memory budget).
    let heavy = matches!(
        (m, req.path.as_str()),
        ("GET", "/api/graph")
            | ("PUT", "/api/graph")
            | ("POST", "/api/check")
            | ("POST", "/api/parse")
            | ("GET", "/api/graph.svg")
            | ("POST", "/api/run")
    );
    if heavy {
        let Some(slot) = state.heavy.take() else {
            return Response::busy(format!(
                "the studio is busy: {} checks, pictures or runs are in progress; try again",
                super::budget::HEAVY_SLOTS
            ));
        };
        return route(state, req).holding(Box::new(slot));
    }
    route(state, req)
}

fn route(state: &Arc<State>, req: Request) -> Response {
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
        ("POST", "/api/parse") => super::model::parse(&req),
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
                "/api/parse",
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
    let Ok(ws) = state.workspace.read() else {
        return Response::error(500, "studio state is unavailable");
    };
    let entries = crate::palette::build(ws.catalog().catalog());
    Response::json(200, &crate::app::documents::palette_document(&entries))
}

fn catalog(state: &State) -> Response {
    let Ok(ws) = state.workspace.read() else {
        return Response::error(500, "studio state is unavailable");
    };
    Response::json(
        200,
        &crate::app::documents::catalog_document(ws.catalog().catalog()),
    )
}

/// Every graph the workspace checked under the graphs folder, sorted by path (as text, so
/// `a-b.bpg` comes before `a/b.bpg`), its diagnostics counted as `sinew check` reports them.
fn graphs(state: &State) -> Response {
    let Ok(ws) = state.workspace.read() else {
        return Response::error(500, "studio state is unavailable");
    };
    let mut list: Vec<(&str, Value)> = ws
        .graphs()
        .map(|g| {
            let (errors, warnings) = diag::counts(&g.diagnostics);
            let (path, graph) = (g.name(), g.graph_name());
            let entry =
                json!({"path": path, "graph": graph, "errors": errors, "warnings": warnings});
            (g.name(), entry)
        })
        .collect();
    // A graph whose name is not UTF-8 is listed by its escaped name with its one error (the
    // walk's `E0004`), never left out.
    for d in ws.missing() {
        if d.code == diag::codes::files::E_NAME_NOT_UTF8 && d.file.ends_with(".bpg") {
            let entry = json!({"path": &*d.file, "graph": null, "errors": 1, "warnings": 0});
            list.push((&d.file, entry));
        }
    }
    list.sort_by(|a, b| a.0.cmp(b.0));
    let list: Vec<Value> = list.into_iter().map(|(_, v)| v).collect();
    Response::json(200, &json!({ "graphs": list }))
}

/// Most scenes `GET /api/scenes` lists.
const MAX_SCENES: usize = 10_000;

/// Every `.scene.ron` under the scenes folder, walked as every folder is (`fsutil::walk`).
fn scenes(state: &State) -> Response {
    let want = |n: &std::ffi::OsStr| n.as_encoded_bytes().ends_with(b".scene.ron").then_some(());
    let walked = crate::fsutil::walk(&state.scenes.root, &crate::fsutil::Policy::new(&want));
    let mut found: Vec<String> = walked
        .map(|w| w.files)
        .unwrap_or_default()
        .iter()
        .take(MAX_SCENES)
        .map(|f| state.scenes.name_of(&f.path))
        .collect();
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

/// A diagnostic as `cli.md` prints it plus, when its span lies on a node's or a link's line,
/// the node it names (`node`; for a link, the node it goes to) and the link (`link`).
#[derive(Serialize)]
pub struct Annotated<'a> {
    #[serde(flatten)]
    base: JsonDiagnostic<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    node: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    link: Option<String>,
    /// The notes that say how to fix it (`help: …`, without the prefix), for the page to show
    /// apart (they stay in `notes` too).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    help: Vec<&'a str>,
}

/// Annotates diagnostics of `source` (parsed once more to find the items' spans).
pub fn annotate<'a>(source: Option<&str>, diags: &'a [Diagnostic]) -> Vec<Annotated<'a>> {
    let mut out: Vec<Annotated> = diags
        .iter()
        .map(|d| Annotated {
            base: JsonDiagnostic::from(d),
            node: None,
            link: None,
            help: d
                .notes
                .iter()
                .filter_map(|n| n.strip_prefix("help: "))
                .collect(),
        })
        .collect();
    let Some(text) = source else { return out };
    if diags.is_empty() {
        return out;
    }
    let src = SourceFile::new("", text);
    let (file, _) = crate::graph::parse(&src);
    // Items are in file order and do not overlap: found by binary search on their start.
    let items: Vec<(u32, u32, &Item)> = file
        .items
        .iter()
        .filter(|it| !matches!(it, Item::Var(_)))
        .map(|it| (it.span().start, it.span().end, it))
        .collect();
    for (d, a) in diags.iter().zip(out.iter_mut()) {
        // Another file's diagnostic (an asset that does not load) stands on no node here.
        if !d.file.ends_with(".bpg") {
            continue;
        }
        let at = d.span.start;
        let i = items.partition_point(|(s, _, _)| *s <= at);
        let Some((s, e, item)) = i.checked_sub(1).map(|i| items[i]) else {
            continue;
        };
        if at < s || at > e {
            continue;
        }
        match item {
            Item::Node(n) => a.node = Some(n.name.name.clone()),
            Item::Link(l) => {
                a.node = Some(l.to_node.name.clone());
                a.link = Some(link_text(l));
            }
            Item::Var(_) | Item::Event(_) | Item::Box(_) => {}
        }
    }
    out
}

/// [`annotate`] as a JSON value (for events).
pub fn diagnostics_json(source: Option<&str>, diags: &[Diagnostic]) -> Value {
    serde_json::to_value(annotate(source, diags)).unwrap_or(Value::Null)
}

fn link_text(l: &ast::Link) -> String {
    format!(
        "{}.{} -> {}.{}",
        l.from_node.name, l.from_pin.name, l.to_node.name, l.to_pin.name
    )
}

/// Each node's pins as the compiler resolved them: `{"node": {"inputs": [...], "outputs": [...]}}`
/// (the first node of a duplicated name).
pub struct Pins<'a>(&'a compile::ir::Graph, Vec<(String, &'static str)>);

struct PinList<'a>(&'a [compile::ir::Pin]);

impl Serialize for PinList<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for p in self.0 {
            seq.serialize_element(&PinJson {
                name: &p.name,
                ty: p.ty.name(),
            })?;
        }
        seq.end()
    }
}

#[derive(Serialize)]
struct PinJson<'a> {
    name: &'a str,
    #[serde(rename = "type")]
    ty: &'static str,
}

#[derive(Serialize)]
struct NodePins<'a> {
    inputs: PinList<'a>,
    outputs: PinList<'a>,
}

impl Serialize for Pins<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seen = std::collections::HashSet::new();
        let mut map = s.serialize_map(None)?;
        for n in &self.0.nodes {
            if seen.insert(n.name.as_str()) {
                map.serialize_entry(
                    &n.name,
                    &NodePins {
                        inputs: PinList(&n.inputs),
                        outputs: PinList(&n.outputs),
                    },
                )?;
            }
        }
        // Reroutes (joined away by the compiler): `in` and `out` of the wire's type.
        for (id, ty) in &self.1 {
            if seen.insert(id.as_str()) {
                let pin = |name: &'static str| [PinJson { name, ty }];
                map.serialize_entry(id, &json!({"inputs": pin("in"), "outputs": pin("out")}))?;
            }
        }
        map.end()
    }
}

/// A graph text compiled against the live catalog.
struct Checked {
    text: String,
    compiled: compile::Compiled,
}

impl Checked {
    fn diagnostics(&self) -> Vec<Annotated<'_>> {
        annotate(Some(&self.text), self.compiled.diagnostics())
    }
    fn pins(&self) -> Pins<'_> {
        let graph = &self.compiled.checked.graph;
        Pins(graph, super::reroutes::types(&self.text, graph))
    }
}

/// Compiles `text` as graph `name` against the workspace's catalog.
fn compile_text(state: &State, name: &str, text: String) -> Result<Checked, Response> {
    let Ok(ws) = state.workspace.read() else {
        return Err(Response::error(500, "studio state is unavailable"));
    };
    let compiled = ws.compile_text(name, &text);
    Ok(Checked { text, compiled })
}

/// The answer for a graph file the workspace's reader refuses, with the workspace's message
/// (the `E0001` `sinew check` reports for it): 404 when it does not exist, 413 when it is over
/// the graph limit, 422 when it is not a regular file, else 500.
fn unreadable(rel: &str, e: &InputError) -> Response {
    let status = match e {
        e if e.is_not_found() => return Response::error(404, "no such graph"),
        InputError::TooLarge { .. } => 413,
        InputError::NotAFile(_) => 422,
        InputError::Io(_) => 500,
    };
    Response::error(status, workspace::unreadable(rel, e).message)
}

fn get_graph(state: &State, req: &Request) -> Response {
    let (rel, path) = match graph_path(state, req) {
        Ok(x) => x,
        Err(r) => return r,
    };
    let Ok(ws) = state.workspace.read() else {
        return Response::error(500, "studio state is unavailable");
    };
    // Read and checked now, as the workspace checks it (so the answer is what is on disk).
    let g = match ws.check_graph_at(&path) {
        Ok(g) => g,
        Err(e) => return unreadable(&rel, &e),
    };
    let (Some(compiled), Some(version)) = (&g.compiled, &g.version) else {
        return Response::error(422, format!("{rel} is not valid UTF-8"));
    };
    let text = g.source.text();
    let model = super::model::model_json(&rel, text);
    #[derive(Serialize)]
    struct Answer<'a> {
        path: &'a str,
        version: &'a str,
        source: &'a str,
        model: Value,
        diagnostics: Vec<Annotated<'a>>,
        pins: Pins<'a>,
    }
    Response::serialized(
        200,
        &Answer {
            path: &rel,
            version,
            source: text,
            model,
            diagnostics: annotate(Some(text), compiled.diagnostics()),
            pins: Pins(
                &compiled.checked.graph,
                super::reroutes::types(text, &compiled.checked.graph),
            ),
        },
    )
}

fn some<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// The body of `POST /api/check` and `PUT /api/graph` (the model kept as raw JSON so its size
/// is checked before it is built).
#[derive(Deserialize)]
struct GraphBody<'a> {
    #[serde(default, deserialize_with = "some")]
    path: Option<Option<String>>,
    #[serde(default, deserialize_with = "some")]
    base: Option<Option<String>>,
    #[serde(borrow, default)]
    model: Option<&'a RawValue>,
    #[serde(default, deserialize_with = "some")]
    source: Option<Value>,
}

/// A JSON body read as `T`, or the refusal: 415 when the content type is not JSON, 400 naming
/// `what` the body should have been (every JSON endpoint reads its body here).
pub(super) fn json_body<'a, T: Deserialize<'a>>(
    req: &'a Request,
    what: &str,
) -> Result<T, Response> {
    let ct = req.header("content-type").unwrap_or("application/json");
    if !ct.starts_with("application/json") {
        return Err(Response::error(415, "send the body as application/json"));
    }
    serde_json::from_slice::<T>(&req.body)
        .map_err(|e| Response::error(400, format!("the body is not {what}: {e}")))
}

/// A body's graph request, or a 400/415.
fn body_of(req: &Request) -> Result<GraphBody<'_>, Response> {
    json_body(req, "a graph request")
}

/// The canonical text of a body's graph (`model` or `source`), or the refusal.
fn body_text(name: &str, b: &GraphBody) -> Result<String, Response> {
    match (b.model, &b.source) {
        (Some(m), None) => super::model::text_of_model(m.get()),
        (None, Some(Value::String(s))) => source_text(name, s),
        (None, Some(_)) => Err(Response::error(400, "`source` must be a string")),
        (Some(_), Some(_)) => Err(Response::error(400, "send `model` or `source`, not both")),
        (None, None) => Err(Response::error(400, "the body needs `model` or `source`")),
    }
}

/// The canonical text of a graph's source, or the 400 with its diagnostics.
pub(super) fn source_text(name: &str, source: &str) -> Result<String, Response> {
    crate::graph::format_source(&SourceFile::new(name, source)).map_err(|d| {
        Response::json(
            400,
            &json!({"error": "the source is not a graph: it does not parse",
                    "diagnostics": diagnostics_json(Some(source), &d)}),
        )
    })
}

#[derive(Serialize)]
struct CheckAnswer<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<&'a str>,
    diagnostics: Vec<Annotated<'a>>,
    source: &'a str,
    pins: Pins<'a>,
    /// The text read as a model, when the body sent `source` (the page's paste: the server
    /// parses `.bpg` text, the page never does).
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<Value>,
}

fn check(state: &State, req: &Request) -> Response {
    let b = match body_of(req) {
        Ok(b) => b,
        Err(r) => return r,
    };
    let name = match &b.path {
        None | Some(None) => "untitled.bpg".to_string(),
        Some(Some(p)) => match crate::studio::security::plain_relative(p) {
            Ok(_) => p.clone(),
            Err(e) => return Response::error(400, e.0),
        },
    };
    let text = match body_text(&name, &b) {
        Ok(t) => t,
        Err(r) => return r,
    };
    let from_source = b.source.is_some();
    match compile_text(state, &name, text) {
        Ok(c) => Response::serialized(
            200,
            &CheckAnswer {
                version: None,
                diagnostics: c.diagnostics(),
                source: &c.text,
                pins: c.pins(),
                model: from_source.then(|| super::model::model_json(&name, &c.text)),
            },
        ),
        Err(r) => r,
    }
}

fn put_graph(state: &State, req: &Request) -> Response {
    // A new graph may name folders that do not exist yet (made below, inside --graphs only).
    let Some(rel) = req.param("path").map(str::to_string) else {
        return Response::error(400, "missing ?path=");
    };
    if !rel.ends_with(".bpg") {
        return Response::error(400, format!("`{rel}` is not a .bpg graph"));
    }
    let new = match super::files::resolve_new(&state.graphs, &rel) {
        Ok(n) => n,
        Err(e) => return Response::error(400, e.0),
    };
    let path = new.file.clone();
    let b = match body_of(req) {
        Ok(b) => b,
        Err(r) => return r,
    };
    let Some(base) = b.base.clone() else {
        return Response::error(
            400,
            "the body needs `base` (a version, or null for a new file)",
        );
    };
    let text = match body_text(&rel, &b) {
        Ok(t) => t,
        Err(r) => return r,
    };
    // Never write a graph that the workspace (and so `sinew check`) would refuse to read.
    let limit = InputKind::Graph.limit();
    if text.len() as u64 > limit {
        let e = InputError::TooLarge {
            size: text.len() as u64,
            limit,
            kind: InputKind::Graph,
        };
        return Response::error(413, format!("{rel} is not written: its {e}"));
    }
    let Ok(_w) = state.writes.lock() else {
        return Response::error(500, "studio state is unavailable");
    };
    let current = match workspace::read_graph(&path) {
        Ok(b) => Some(workspace::version_of(&b)),
        Err(e) if e.is_not_found() => None,
        Err(e) => return unreadable(&rel, &e),
    };
    if current != base {
        let message = match (&current, &base) {
            (Some(_), None) => format!("{rel} already exists"),
            (None, Some(_)) => format!("{rel} no longer exists on disk"),
            _ => format!("{rel} changed on disk since it was read"),
        };
        return Response::json(409, &json!({"error": message, "version": current}));
    }
    if let Err(e) = super::files::make_folders(&state.graphs, &new) {
        return Response::error(400, format!("{rel} is not written: {e}"));
    }
    if let Err(e) = crate::fsutil::write_atomic(&path, text.as_bytes()) {
        return Response::error(500, format!("cannot write {rel}: {e}"));
    }
    // The next request (`GET /api/graphs`, another page's) sees this write.
    if !super::sse::refresh_now(state, std::slice::from_ref(&path)) {
        return Response::error(500, "studio state is unavailable");
    }
    let version = workspace::version_of(text.as_bytes());
    match compile_text(state, &rel, text) {
        Ok(c) => Response::serialized(
            200,
            &CheckAnswer {
                version: Some(&version),
                diagnostics: c.diagnostics(),
                source: &c.text,
                pins: c.pins(),
                model: None,
            },
        ),
        Err(r) => r,
    }
}

fn svg(state: &State, req: &Request) -> Response {
    let (rel, path) = match graph_path(state, req) {
        Ok(x) => x,
        Err(r) => return r,
    };
    let bytes = match workspace::read_graph(&path) {
        Ok(b) => b,
        Err(e) => return unreadable(&rel, &e),
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return Response::error(422, format!("{rel} is not valid UTF-8"));
    };
    super::model::svg(state, &rel, &text)
}
