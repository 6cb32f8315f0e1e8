//! The graph as data for the page: `model` ↔ canonical text through `graph::model` (the one
//! serializer of `.bpg`, shared with `fmt`), and the picture through `sinew graph --svg`'s
//! renderer.

use super::State;
use super::http::Response;
use serde_json::Value;

/// The `model` of a graph text (`null` when the text does not parse).
pub fn model_json(_name: &str, _text: &str) -> Value {
    Value::Null
}

/// The canonical text of a `model` sent by the page, or a 400/413.
pub fn text_of_model(_m: &Value) -> Result<String, Response> {
    Err(Response::error(
        501,
        "graph models are not available in this build yet",
    ))
}

/// `GET /api/graph.svg`.
pub fn svg(_state: &State, _name: &str, _text: &str) -> Response {
    Response::error(
        501,
        "the SVG renderer (`sinew graph --svg`) is not available in this build yet",
    )
}
