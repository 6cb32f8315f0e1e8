//! What the clip-editor measurements share (`examples/clips_measure.rs`,
//! `examples/clips_put_once.rs`): an empty project in a temporary folder with a studio serving
//! it, a large generated clip, and one HTTP request to it.

use sinew::cli::Ctx;
use sinew::studio::{self, Config, Running, http::Limits};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};

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

/// A clip of 64 bones × `keys` rotation keys and one notify (`step`), written to
/// `assets/big.animseq`: its text (2,000 keys per bone ≈ 7.5 MB, 1,333 ≈ 5 MB).
pub fn big_clip(assets: &Path, keys: usize) -> String {
    let mut tracks = String::new();
    for i in 0..64 {
        tracks.push_str(&format!("        (\n            bone: \"b{i}\",\n            translation: [],\n            rotation: [\n"));
        for k in 0..keys {
            tracks.push_str(&format!(
                "                ({}, (0.0123, 0.0456, 0.0789, 0.9961)),\n",
                k as f64 / 200.0
            ));
        }
        tracks.push_str("            ],\n            scale: [],\n        ),\n");
    }
    let text = format!(
        "AnimSeq(\n    format: 2,\n    id: \"big\",\n    name: \"Big\",\n    duration: 10.0,\n    tracks: [\n{tracks}    ],\n    notifies: [\n        // the one marker\n        (id: \"step\", name: \"Step\", time: 0.5),\n    ],\n)\n"
    );
    std::fs::write(assets.join("big.animseq"), &text).unwrap();
    text
}
