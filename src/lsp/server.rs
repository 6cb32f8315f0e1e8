//! The protocol loop: the lifecycle (`initialize`, `initialized`, `shutdown`, `exit`), the
//! document notifications, the catalog refresh, and the dispatch of requests to `features`.
//! One thread handles every message in order; the reader thread only frames input.

use super::document::{Document, Store};
use super::features;
use super::project::{Project, uri_path};
use super::transport::{Incoming, Writer, spawn_reader};
use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{Notification as _, PublishDiagnostics};
use lsp_types::{
    DidChangeTextDocumentParams, DidChangeWatchedFilesParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, DidSaveTextDocumentParams, InitializeParams, InitializeResult,
    PublishDiagnosticsParams, ServerInfo, Uri,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::io::Write;
use std::path::PathBuf;

/// The server's state.
pub struct Server {
    pub project: Project,
    pub docs: Store,
    initialized: bool,
    shut_down: bool,
    /// Whether the client registers file watchers for us (`didChangeWatchedFiles`).
    dynamic_watch: bool,
    next_id: i32,
}

/// What one message asks of the loop.
enum Flow {
    Continue,
    Exit(u8),
}

/// Runs the server on standard input and output until `exit` (status 0 after `shutdown`, 1
/// without) or until the client goes away (status 1).
pub fn run() -> u8 {
    let rx = spawn_reader();
    let stdout = std::io::stdout();
    let mut out = Writer::new(stdout.lock());
    let mut server = Server {
        project: Project::new(None, None),
        docs: Store::default(),
        initialized: false,
        shut_down: false,
        dynamic_watch: false,
        next_id: 1,
    };
    for incoming in rx {
        let flow = match incoming {
            Incoming::Malformed(why) => match out.parse_error(&why) {
                Ok(()) => Flow::Continue,
                Err(_) => Flow::Exit(1),
            },
            Incoming::Message(m) => server.handle(m, &mut out),
        };
        if let Flow::Exit(code) = flow {
            return code;
        }
    }
    // The input ended without `exit`: the client is gone.
    1
}

fn error(id: RequestId, code: ErrorCode, msg: impl Into<String>) -> Response {
    Response::new_err(id, code as i32, msg.into())
}

/// Decodes a request's parameters, runs `f` and encodes its answer.
pub(super) fn call<P: DeserializeOwned, R: Serialize>(
    req: Request,
    f: impl FnOnce(P) -> Result<R, String>,
) -> Response {
    let params = match serde_json::from_value::<P>(req.params) {
        Ok(p) => p,
        Err(e) => return error(req.id, ErrorCode::InvalidParams, e.to_string()),
    };
    match f(params) {
        Ok(r) => Response::new_ok(req.id, r),
        Err(msg) => error(req.id, ErrorCode::RequestFailed, msg),
    }
}

impl Server {
    fn handle<W: Write>(&mut self, m: Message, out: &mut Writer<W>) -> Flow {
        let sent = match m {
            Message::Request(req) => {
                let resp = self.request(req);
                out.respond(resp)
            }
            Message::Notification(n) => {
                if n.method == "exit" {
                    return Flow::Exit(if self.shut_down { 0 } else { 1 });
                }
                self.notification(n, out)
            }
            Message::Response(_) => Ok(()), // answers to our registrations
        };
        match sent {
            Ok(()) => Flow::Continue,
            Err(_) => Flow::Exit(1), // the client is gone
        }
    }

    fn request(&mut self, req: Request) -> Response {
        if req.method == "initialize" {
            if self.initialized {
                return error(req.id, ErrorCode::InvalidRequest, "already initialized");
            }
            return call(req, |p: InitializeParams| Ok(self.initialize(p)));
        }
        if !self.initialized {
            return error(
                req.id,
                ErrorCode::ServerNotInitialized,
                "the server is not initialized",
            );
        }
        if req.method == "shutdown" {
            self.shut_down = true;
            return Response::new_ok(req.id, ());
        }
        if self.shut_down {
            return error(req.id, ErrorCode::InvalidRequest, "the server is shut down");
        }
        let id = req.id.clone();
        // A bug in a feature answers an internal error; it never takes the server down.
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            features::dispatch(&self.project, &self.docs, req)
        })) {
            Ok(Some(r)) => r,
            Ok(None) => error(id, ErrorCode::MethodNotFound, "unknown method"),
            Err(_) => error(id, ErrorCode::InternalError, "internal error (a bug)"),
        }
    }

    fn initialize(&mut self, p: InitializeParams) -> InitializeResult {
        #[allow(deprecated)] // `rootUri`: still what many clients send
        let root = p
            .workspace_folders
            .as_ref()
            .and_then(|f| f.first())
            .map(|f| f.uri.clone())
            .or(p.root_uri.clone())
            .and_then(|u| uri_path(&u));
        let assets = p
            .initialization_options
            .as_ref()
            .and_then(|o| o.get("assets"))
            .and_then(Value::as_str)
            .map(PathBuf::from);
        self.project = Project::new(root, assets);
        self.dynamic_watch = p
            .capabilities
            .workspace
            .as_ref()
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|d| d.dynamic_registration)
            .unwrap_or(false);
        self.initialized = true;
        InitializeResult {
            capabilities: features::capabilities(),
            server_info: Some(ServerInfo {
                name: "sinew".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
        }
    }

    fn notification<W: Write>(
        &mut self,
        n: Notification,
        out: &mut Writer<W>,
    ) -> std::io::Result<()> {
        if !self.initialized || self.shut_down {
            return Ok(()); // dropped, as the protocol says
        }
        match n.method.as_str() {
            "initialized" => self.initialized_(out),
            "textDocument/didOpen" => {
                let Ok(p) = serde_json::from_value::<DidOpenTextDocumentParams>(n.params) else {
                    return Ok(());
                };
                let d = p.text_document;
                if !is_graph(&d.uri, &d.language_id) {
                    return Ok(());
                }
                let path = uri_path(&d.uri);
                let name = match &path {
                    Some(p) => self.project.display(p),
                    None => d.uri.as_str().to_string(),
                };
                let doc = Document::new(
                    d.uri.clone(),
                    name,
                    d.version,
                    d.text,
                    self.project.catalog(),
                );
                let sent = publish(out, &self.project, &doc);
                self.docs.insert(doc);
                sent
            }
            "textDocument/didChange" => {
                let Ok(p) = serde_json::from_value::<DidChangeTextDocumentParams>(n.params) else {
                    return Ok(());
                };
                let catalog = self.project.catalog();
                let Some(doc) = self.docs.get_mut(&p.text_document.uri) else {
                    return Ok(());
                };
                // Full sync: the last change carries the whole text.
                let Some(text) = p
                    .content_changes
                    .into_iter()
                    .rev()
                    .find(|c| c.range.is_none())
                else {
                    return Ok(());
                };
                doc.set_text(p.text_document.version, text.text, catalog);
                publish(out, &self.project, doc)
            }
            "textDocument/didSave" => {
                let Ok(p) = serde_json::from_value::<DidSaveTextDocumentParams>(n.params) else {
                    return Ok(());
                };
                let uri = p.text_document.uri;
                if let Some(path) = uri_path(&uri).filter(|p| self.project.concerns(p)) {
                    return self.refresh(&[path], out);
                }
                let catalog = self.project.catalog();
                match self.docs.get_mut(&uri) {
                    Some(doc) => {
                        if let Some(text) = p.text {
                            let v = doc.version;
                            doc.set_text(v, text, catalog);
                        }
                        publish(out, &self.project, doc)
                    }
                    None => Ok(()),
                }
            }
            "textDocument/didClose" => {
                let Ok(p) = serde_json::from_value::<DidCloseTextDocumentParams>(n.params) else {
                    return Ok(());
                };
                match self.docs.remove(&p.text_document.uri) {
                    // Its diagnostics leave with it.
                    Some(doc) => send_diagnostics(out, doc.uri, Vec::new(), None),
                    None => Ok(()),
                }
            }
            "workspace/didChangeWatchedFiles" => {
                let Ok(p) = serde_json::from_value::<DidChangeWatchedFilesParams>(n.params) else {
                    return Ok(());
                };
                let paths: Vec<PathBuf> =
                    p.changes.iter().filter_map(|c| uri_path(&c.uri)).collect();
                self.refresh(&paths, out)
            }
            _ => Ok(()), // `$/…` and other notifications need nothing
        }
    }

    /// `initialized`: scans the catalog, asks the client to watch the assets (when it can) and
    /// reports an assets folder that could not be read.
    fn initialized_<W: Write>(&mut self, out: &mut Writer<W>) -> std::io::Result<()> {
        self.project.scan();
        if let Some(e) = &self.project.error {
            let n = Notification::new(
                "window/showMessage".into(),
                serde_json::json!({"type": 2, "message": format!("sinew: {e}")}),
            );
            out.send(n)?;
        }
        if self.dynamic_watch {
            let id = self.next_id;
            self.next_id += 1;
            let reg = Request::new(
                RequestId::from(format!("sinew-watch-{id}")),
                "client/registerCapability".into(),
                serde_json::json!({"registrations": [{
                    "id": "sinew-assets",
                    "method": "workspace/didChangeWatchedFiles",
                    "registerOptions": {"watchers": [{"globPattern": "**/*.animseq"}]},
                }]}),
            );
            out.send(reg)?;
        }
        Ok(())
    }

    /// Refreshes the catalog from changed paths and publishes the diagnostics of every open
    /// graph whose diagnostics changed.
    fn refresh<W: Write>(
        &mut self,
        changed: &[PathBuf],
        out: &mut Writer<W>,
    ) -> std::io::Result<()> {
        if !self.project.refresh(changed) {
            return Ok(());
        }
        let catalog = self.project.catalog();
        for doc in self.docs.all_mut() {
            let before = std::mem::take(&mut doc.analysis.diagnostics);
            doc.reanalyse(catalog);
            if doc.analysis.diagnostics != before {
                publish(out, &self.project, doc)?;
            }
        }
        Ok(())
    }
}

/// Whether a document is a graph the server analyses.
fn is_graph(uri: &Uri, language: &str) -> bool {
    language == "bpg" || uri.as_str().ends_with(".bpg")
}

/// Publishes a document's diagnostics (an empty list included) with its version.
fn publish<W: Write>(
    out: &mut Writer<W>,
    project: &Project,
    doc: &Document,
) -> std::io::Result<()> {
    let diags = features::diagnostics(project, doc);
    send_diagnostics(out, doc.uri.clone(), diags, Some(doc.version))
}

fn send_diagnostics<W: Write>(
    out: &mut Writer<W>,
    uri: Uri,
    diagnostics: Vec<lsp_types::Diagnostic>,
    version: Option<i32>,
) -> std::io::Result<()> {
    let params = PublishDiagnosticsParams {
        uri,
        diagnostics,
        version,
    };
    out.send(Notification::new(PublishDiagnostics::METHOD.into(), params))
}
