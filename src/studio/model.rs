//! The graph as data for the page: `model` ↔ canonical text through [`crate::graph::model`]
//! (the one writer of `.bpg`, shared with `fmt`), and the picture through `sinew graph --svg`'s
//! renderer.

use super::State;
use super::api::MAX_MODEL_NODES;
use super::http::{Body, Response};
use crate::diag::SourceFile;
use crate::graph::model::Model;
use serde::Deserialize;
use serde_json::Value;

/// `POST /api/parse` body `{"source"}`: the page's paste. Answers `{"model"}`, the text read
/// as a model exactly as `POST /api/check` with `source` reads it (canonical text first), but
/// without compiling it or answering its diagnostics, pins and text: the page only merges the
/// pasted nodes, and the check after the paste compiles the whole graph (docs/studio.md). Text
/// that is not a graph is a 400 with its diagnostics, as for `/api/check`.
pub fn parse(req: &super::http::Request) -> Response {
    #[derive(Deserialize)]
    struct ParseBody {
        source: String,
    }
    let body: ParseBody = match super::api::json_body(req, "a parse request") {
        Ok(b) => b,
        Err(r) => return r,
    };
    let name = "untitled.bpg";
    match super::api::source_text(name, &body.source) {
        Ok(text) => Response::json(200, &serde_json::json!({"model": model_json(name, &text)})),
        Err(r) => r,
    }
}

/// The `model` of a graph text (`null` when the text does not parse).
pub fn model_json(name: &str, text: &str) -> Value {
    match Model::parse(&SourceFile::new(name, text)) {
        Ok(m) => serde_json::to_value(&m).unwrap_or(Value::Null),
        Err(_) => Value::Null,
    }
}

/// Just the sizes of a model, read without building it.
#[derive(Deserialize)]
struct Sizes {
    #[serde(default)]
    nodes: Vec<serde::de::IgnoredAny>,
    #[serde(default)]
    links: Vec<serde::de::IgnoredAny>,
}

/// The canonical text of a `model` (raw JSON) sent by the page: 413 past [`MAX_MODEL_NODES`]
/// nodes (or 4× as many links), checked before the model is built; 400 when it is not a valid
/// model (the error names the part).
pub fn text_of_model(raw: &str) -> Result<String, Response> {
    let sizes: Sizes = serde_json::from_str(raw)
        .map_err(|e| Response::error(400, format!("not a graph model: {e}")))?;
    if sizes.nodes.len() > MAX_MODEL_NODES || sizes.links.len() > 4 * MAX_MODEL_NODES {
        return Err(Response::error(
            413,
            format!(
                "the model has more than {MAX_MODEL_NODES} nodes (or 4× as many links), the most the studio edits"
            ),
        ));
    }
    match serde_json::from_str::<Model>(raw) {
        Ok(model) => Ok(model.to_text()),
        Err(e) => Err(Response::error(400, format!("not a graph model: {e}"))),
    }
}

/// `GET /api/graph.svg`: the picture `sinew graph --svg` draws, against the live catalog (a
/// graph with compile errors still draws, its erroring nodes marked); 422 when it does not parse.
pub fn svg(state: &State, name: &str, text: &str) -> Response {
    let Ok(ws) = state.workspace.read() else {
        return Response::error(500, "studio state is unavailable");
    };
    let src = SourceFile::new(name, text);
    match crate::picture::graph_svg(&src, ws.catalog().catalog()) {
        Ok(svg) => {
            let file: String = name
                .rsplit('/')
                .next()
                .unwrap_or("graph")
                .trim_end_matches(".bpg")
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
                .collect();
            Response::new(200, "image/svg+xml", Body::Bytes(svg.into_bytes()))
                .with_header(
                    "Content-Disposition",
                    format!("inline; filename=\"{file}.svg\""),
                )
                // Opened on its own, the picture runs nothing and loads nothing.
                .with_header(
                    "Content-Security-Policy",
                    "default-src 'none'; style-src 'unsafe-inline'",
                )
        }
        Err(d)
            if d.iter()
                .any(|d| d.code == crate::picture::E_PICTURE_TOO_LARGE) =>
        {
            let message = d.first().map_or_else(String::new, |d| d.message.clone());
            Response::json(413, &serde_json::json!({"error": message}))
        }
        Err(d) => Response::json(
            422,
            &serde_json::json!({"error": format!("{name} does not parse, so it cannot be drawn"),
                                "diagnostics": super::api::diagnostics_json(Some(text), &d)}),
        ),
    }
}
