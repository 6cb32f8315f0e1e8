//! The page, embedded in the binary: the Vite build of `studio/` committed as `studio/dist/`
//! (`.ci/run` rebuilds it and fails when it differs), so `cargo run -- studio` needs no npm.

use super::http::{Body, Response};

/// `(URL path, content type, bytes)` of every file of the built page.
pub const FILES: &[(&str, &str, &[u8])] = &[
    (
        "/",
        "text/html; charset=utf-8",
        include_bytes!("../../studio/dist/index.html"),
    ),
    (
        "/assets/index.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../studio/dist/assets/index.js"),
    ),
    (
        "/assets/index.css",
        "text/css; charset=utf-8",
        include_bytes!("../../studio/dist/assets/index.css"),
    ),
];

/// The file at `path` (`/index.html` is `/`), or `None`.
pub fn file(path: &str) -> Option<Response> {
    let path = if path == "/index.html" { "/" } else { path };
    FILES
        .iter()
        .find(|(p, _, _)| *p == path)
        .map(|(_, ty, bytes)| {
            let ty: &'static str = ty;
            Response::new(200, ty, Body::Static(bytes)).with_header(
                "Content-Security-Policy",
                "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'",
            )
        })
}
