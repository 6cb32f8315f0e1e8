//! A language-server client for tests: starts `sinew lsp` as a child process and speaks
//! JSON-RPC with `Content-Length` framing over its standard input and output, as an editor
//! does. Every wait has a deadline.

#![allow(dead_code)]

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

#[path = "wait.rs"]
mod wait;

/// How long any one answer may take before the test fails.
pub const DEADLINE: Duration = Duration::from_secs(20);

pub struct Client {
    pub child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Value>,
    next_id: i64,
    /// Messages received while waiting for something else.
    pending: Vec<Value>,
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
}

/// Reads one framed message (`None` at the end of the output).
pub fn read_message(r: &mut impl BufRead) -> Option<Value> {
    let mut len = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length: ") {
            len = v.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; len?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// The `file:` URI of an absolute path (as editors write it: non-ASCII bytes escaped).
pub fn uri(p: &Path) -> String {
    let mut s = String::from("file://");
    for b in p.to_str().unwrap().bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                s.push(b as char)
            }
            _ => s.push_str(&format!("%{b:02X}")),
        }
    }
    s
}

impl Client {
    /// Starts the test build's `sinew lsp` in a folder that is not the project (the project
    /// comes from `rootUri`).
    pub fn start() -> Client {
        // `option_env!`: the examples build this file too, without the binary's path.
        let Some(bin) = option_env!("CARGO_BIN_EXE_sinew") else {
            panic!("Client::start needs a test of the sinew binary; use start_with")
        };
        Client::start_with(Path::new(bin))
    }

    /// Starts `BIN lsp`.
    pub fn start_with(bin: &Path) -> Client {
        let mut child = Command::new(bin)
            .arg("lsp")
            .current_dir(std::env::temp_dir())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start sinew lsp");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(v) = read_message(&mut r) {
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let mut err = child.stderr.take().unwrap();
        let sink = stderr.clone();
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = err.read_to_string(&mut s);
            sink.lock().unwrap().push_str(&s);
        });
        let stdin = child.stdin.take();
        Client {
            child,
            stdin,
            rx,
            next_id: 1,
            pending: Vec::new(),
            stderr,
        }
    }

    /// Starts a server and initializes it on the project `root` (`initializationOptions`
    /// extra, e.g. `{"assets": …}`).
    pub fn initialized(root: &Path, options: Value) -> Client {
        Client::initialize(Client::start(), root, options)
    }

    /// Initializes a started server on the project `root`.
    pub fn initialize(mut c: Client, root: &Path, options: Value) -> Client {
        let r = c.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": uri(root),
                "capabilities": {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}},
                "initializationOptions": options,
            }),
        );
        assert!(r.get("result").is_some(), "initialize: {r}");
        c.notify("initialized", json!({}));
        c
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Writes raw bytes to the server.
    pub fn raw(&mut self, bytes: &[u8]) {
        let w = self.stdin.as_mut().expect("stdin open");
        w.write_all(bytes).unwrap();
        w.flush().unwrap();
    }

    pub fn send(&mut self, v: &Value) {
        let body = v.to_string();
        self.raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and waits for its response (the whole message: `result` or `error`).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.wait(|m| m.get("id") == Some(&json!(id)) && m.get("method").is_none())
    }

    /// The result of a request (fails the test on an error answer).
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let r = self.request(method, params);
        assert!(r.get("error").is_none(), "{method} answered an error: {r}");
        r["result"].clone()
    }

    /// Waits for the first message (received or pending) that `f` accepts.
    pub fn wait(&mut self, f: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.pending.iter().position(&f) {
            return self.pending.remove(i);
        }
        let end = Instant::now() + DEADLINE;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(m) if f(&m) => return m,
                Ok(m) => self.pending.push(m),
                Err(RecvTimeoutError::Timeout) => panic!(
                    "no awaited message within {DEADLINE:?}; got {:?}; stderr: {}",
                    self.pending,
                    self.stderr()
                ),
                Err(RecvTimeoutError::Disconnected) => panic!(
                    "the server closed its output; got {:?}; stderr: {}",
                    self.pending,
                    self.stderr()
                ),
            }
        }
    }

    /// Waits for the diagnostics of `uri` published with `version`.
    pub fn diagnostics(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let m = self.wait(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == version
        });
        m["params"]["diagnostics"].as_array().unwrap().clone()
    }

    /// Opens a document and returns its first diagnostics.
    pub fn open(&mut self, uri: &str, text: &str) -> Vec<Value> {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "bpg", "version": 1, "text": text}}),
        );
        self.diagnostics(uri, 1)
    }

    /// Replaces a document's text and returns its diagnostics for `version`.
    pub fn change(&mut self, uri: &str, version: i64, text: &str) -> Vec<Value> {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}),
        );
        self.diagnostics(uri, version)
    }

    /// Closes standard input (the client goes away) without `exit`.
    pub fn disconnect(&mut self) {
        self.stdin = None;
    }

    /// Waits for the process to end.
    pub fn wait_exit(&mut self, within: Duration) -> ExitStatus {
        match wait::wait_exit(&mut self.child, Instant::now() + within) {
            Some(s) => s,
            None => {
                let _ = self.child.kill();
                panic!("the server did not exit within {within:?}");
            }
        }
    }

    /// `shutdown` then `exit`; returns the exit status.
    pub fn shutdown(&mut self) -> ExitStatus {
        let r = self.request("shutdown", Value::Null);
        assert!(r.get("error").is_none(), "shutdown: {r}");
        self.notify("exit", Value::Null);
        self.wait_exit(DEADLINE)
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The fixture project of these tests.
pub fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lsp")
}

/// The position of the `n`th (0-based) occurrence of `needle` in `text` (`after`: just past
/// it), with `character` in UTF-16 code units, computed here independently of the server.
pub fn pos(text: &str, needle: &str, n: usize, after: bool) -> Value {
    let at = text
        .match_indices(needle)
        .nth(n)
        .unwrap_or_else(|| panic!("`{needle}` #{n} not in the text"))
        .0
        + if after { needle.len() } else { 0 };
    let line = text[..at].matches('\n').count();
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let character: usize = text[start..at].chars().map(char::len_utf16).sum();
    json!({"line": line, "character": character})
}
