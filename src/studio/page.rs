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

/// For working on the page: when set, the same files are read from this folder (a fresh
/// `npm run build` output) on every request instead of from the binary.
pub const DEV_DIST_ENV: &str = "SINEW_STUDIO_DIST";

/// The file at `path` (`/index.html` is `/`), or `None`.
pub fn file(path: &str) -> Option<Response> {
    let path = if path == "/index.html" { "/" } else { path };
    FILES
        .iter()
        .find(|(p, _, _)| *p == path)
        .map(|(p, ty, bytes)| {
            let ty: &'static str = ty;
            let dev = std::env::var_os(DEV_DIST_ENV).and_then(|d| {
                let rel = if *p == "/" { "index.html" } else { &p[1..] };
                crate::fsutil::read_input(
                    &std::path::Path::new(&d).join(rel),
                    crate::fsutil::InputKind::Page,
                )
                .ok()
            });
            let body = match dev {
                Some(b) => Body::Bytes(b),
                None => Body::Static(bytes),
            };
            Response::new(200, ty, body).with_header(
                "Content-Security-Policy",
                "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'",
            )
        })
}
