//! The studio test harness: a real `sinew studio` server on port 0 over a copy of the demo
//! project, and a raw HTTP client (the server closes every connection after its answer).
#![allow(dead_code)]

#[path = "wait.rs"]
pub mod wait;

use serde_json::Value;
use sinew::cli::Ctx;
use sinew::studio::{self, Config, Running, http::Limits};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub struct Studio {
    running: Option<Running>,
    pub dir: tempfile::TempDir,
    pub port: u16,
    pub token: String,
}

impl Drop for Studio {
    fn drop(&mut self) {
        if let Some(r) = self.running.take() {
            r.stop();
        }
    }
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

pub fn start_with(limits: Limits) -> Studio {
    start_in(limits, None)
}

/// A studio whose current folder is `cwd` (default: the project folder itself).
pub fn start_in(limits: Limits, cwd: Option<PathBuf>) -> Studio {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    copy_dir(&root.join("assets"), &dir.path().join("assets"));
    copy_dir(&root.join("graphs/demo"), &dir.path().join("graphs/demo"));
    copy_dir(&root.join("scenes"), &dir.path().join("scenes"));
    let ctx = Ctx {
        color: false,
        cwd: Some(cwd.unwrap_or_else(|| dir.path().to_path_buf())),
    };
    let running = studio::start(
        &ctx,
        &Config {
            assets: dir.path().join("assets"),
            graphs: dir.path().join("graphs"),
            scenes: dir.path().join("scenes"),
            port: 0,
            limits,
        },
    )
    .expect("studio starts");
    let port = running.addr.port();
    let token = running.token.clone();
    assert_eq!(
        running.url(),
        format!("http://127.0.0.1:{port}/?token={token}")
    );
    Studio {
        running: Some(running),
        dir,
        port,
        token,
    }
}

pub fn start() -> Studio {
    start_with(Limits::default())
}

pub struct Reply {
    pub status: u16,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
}

pub fn parse_reply(raw: &[u8]) -> Reply {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head");
    let head = String::from_utf8_lossy(&raw[..end]);
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    Reply {
        status,
        body: raw[end + 4..].to_vec(),
    }
}

impl Studio {
    pub fn graphs(&self) -> PathBuf {
        self.dir.path().join("graphs")
    }

    /// Sends raw bytes and reads the whole answer (the server closes each connection).
    pub fn raw(&self, bytes: &[u8]) -> Reply {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_nodelay(true).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        s.write_all(bytes).unwrap();
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        parse_reply(&out)
    }

    pub fn request(
        &self,
        method: &str,
        target: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Reply {
        let mut req = format!("{method} {target} HTTP/1.1\r\n");
        if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
            req.push_str(&format!("Host: 127.0.0.1:{}\r\n", self.port));
        }
        for (n, v) in headers {
            req.push_str(&format!("{n}: {v}\r\n"));
        }
        req.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
        let mut bytes = req.into_bytes();
        bytes.extend_from_slice(body);
        self.raw(&bytes)
    }

    pub fn get(&self, target: &str) -> Reply {
        self.request("GET", target, &[], b"")
    }

    /// A changing request with the token and JSON body.
    pub fn send(&self, method: &str, target: &str, body: &Value) -> Reply {
        self.request(
            method,
            target,
            &[
                ("X-Sinew-Token", &self.token),
                ("Content-Type", "application/json"),
            ],
            body.to_string().as_bytes(),
        )
    }
}

pub const HERO: &str = "demo/hero.bpg";

pub fn hero_path(s: &Studio) -> PathBuf {
    s.graphs().join("demo/hero.bpg")
}
