//! The graph as data for the page: `model` ↔ canonical text through [`crate::graph::model`]
//! (the one writer of `.bpg`, shared with `fmt`), and the picture through `sinew graph --svg`'s
//! renderer.

use super::State;
use super::api::MAX_MODEL_NODES;
use super::http::Response;
use crate::diag::SourceFile;
use crate::graph::model::Model;
use serde::Deserialize;
use serde_json::Value;

/// The `model` of a graph text (`null` when the text does not parse).
pub fn model_json(name: &str, text: &str) -> Value {
    match Model::parse(&SourceFile::new(name, text)) {
        Ok(m) => serde_json::to_value(&m).unwrap_or(Value::Null),
        Err(_) => Value::Null,
    }
}

/// The canonical text of a `model` sent by the page: 413 past [`MAX_MODEL_NODES`] nodes or
/// links, 400 when it is not a valid model (the error names the part).
pub fn text_of_model(m: &Value) -> Result<String, Response> {
    let count = |k: &str| m.get(k).and_then(Value::as_array).map_or(0, Vec::len);
    if count("nodes") > MAX_MODEL_NODES || count("links") > 4 * MAX_MODEL_NODES {
        return Err(Response::error(
            413,
            format!(
                "the model has more than {MAX_MODEL_NODES} nodes (or 4× as many links), the most the studio edits"
            ),
        ));
    }
    match Model::deserialize(m) {
        Ok(model) => Ok(model.to_text()),
        Err(e) => Err(Response::error(400, format!("not a graph model: {e}"))),
    }
}

/// `GET /api/graph.svg`.
pub fn svg(_state: &State, _name: &str, _text: &str) -> Response {
    Response::error(
        501,
        "the SVG renderer (`sinew graph --svg`) is not available in this build yet",
    )
}
