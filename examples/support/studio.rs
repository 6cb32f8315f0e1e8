//! What the clip-editor measurements share (`examples/clips_measure.rs`,
//! `examples/clips_put_once.rs`): an empty project in a temporary folder with a studio serving
//! it, and one HTTP request to it.

use sinew::cli::Ctx;
use sinew::studio::{self, Config, Running, http::Limits};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;

/// A temporary project (`assets/`, `graphs/`, `scenes/`, empty): its folder and assets folder.
pub fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    for d in ["assets", "graphs", "scenes"] {
        std::fs::create_dir_all(dir.path().join(d)).unwrap();
    }
    let assets = dir.path().join("assets");
    (dir, assets)
}

/// A studio on port 0 serving the project in `dir`.
pub fn start(dir: &tempfile::TempDir) -> Running {
    studio::start(
        &Ctx {
            color: false,
            cwd: Some(dir.path().to_path_buf()),
        },
        &Config {
            assets: dir.path().join("assets"),
            graphs: dir.path().join("graphs"),
            scenes: dir.path().join("scenes"),
            port: 0,
            limits: Limits::default(),
        },
    )
    .unwrap()
}

/// One request with the studio's token: its status and body.
pub fn http(port: u16, method: &str, target: &str, token: &str, body: &str) -> (u16, Vec<u8>) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let req = format!(
        "{method} {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Sinew-Token: {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).unwrap();
    let end = out.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let status = String::from_utf8_lossy(&out[9..12]).parse().unwrap();
    (status, out[end + 4..].to_vec())
}
