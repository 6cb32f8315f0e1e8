//! `POST /api/run`: runs a scene headless as `sinew run --format json` would and answers its
//! records plus, per record, the nodes each graph invocation it caused ran (the debugger view).

use super::State;
use super::http::{Request, Response};
use std::sync::Arc;

pub fn handle(_state: &Arc<State>, _req: &Request) -> Response {
    Response::error(501, "scene runs are not available in this build yet")
}
