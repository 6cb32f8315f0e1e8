//! `sinew studio`: the local visual graph editor (contract: `studio.md`). A server bound to
//! 127.0.0.1 serves the page embedded in the binary ([`page`]), the JSON API ([`api`]) and
//! Server-Sent Events ([`sse`]). Its project state is a [`Workspace`] — the checker behind
//! `sinew check` and `sinew watch` — over the graphs folder and the assets folder, kept current
//! by the watcher `sinew watch` uses ([`crate::app::watch::Watcher`]), so the studio and `check`
//! read, limit and diagnose every file alike. Requests are checked by [`security`];
//! connections are bounded by [`http`].
//!
//! Like `cli`, this is a front end that does I/O: it reads and writes graph files (atomically,
//! through [`crate::fsutil::write_atomic`]) and never leaves the folders it was given.

pub mod api;
pub mod budget;
pub mod clip_put;
pub mod clip_version;
pub mod clips;
pub mod files;
pub mod http;
pub mod inputs;
pub mod json_text;
pub mod kinds;
pub mod model;
pub mod page;
pub mod reroutes;
pub mod run;
pub mod security;
pub mod sse;
pub mod values;

use crate::app::Ctx;
use crate::workspace::Workspace;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::thread::JoinHandle;

/// The default port.
pub const DEFAULT_PORT: u16 = 7420;

/// What `sinew studio` serves.
#[derive(Clone, Debug)]
pub struct Config {
    pub assets: PathBuf,
    pub graphs: PathBuf,
    pub scenes: PathBuf,
    /// 0 picks a free port.
    pub port: u16,
    /// Connection bounds (the defaults in the command).
    pub limits: http::Limits,
}

/// One folder the API reads or writes: as given and canonical.
#[derive(Clone, Debug)]
pub struct Folder {
    pub root: PathBuf,
    pub canonical: PathBuf,
}

impl Folder {
    fn new(root: &Path, what: &str) -> Result<Folder, String> {
        let canonical = root
            .canonicalize()
            .map_err(|e| format!("cannot read {what} folder {}: {e}", root.display()))?;
        if !canonical.is_dir() {
            return Err(format!("{what} folder {} is not a folder", root.display()));
        }
        Ok(Folder {
            root: root.to_path_buf(),
            canonical,
        })
    }

    /// `rel` inside this folder (see [`security::resolve`]).
    pub fn resolve(&self, rel: &str) -> Result<PathBuf, security::BadPath> {
        security::resolve(&self.root, &self.canonical, rel)
    }

    /// The folder-relative, `/`-separated name of a path under the root.
    pub fn name_of(&self, p: &Path) -> String {
        let rel = p
            .strip_prefix(&self.root)
            .or_else(|_| p.strip_prefix(&self.canonical))
            .unwrap_or(p);
        rel.components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/")
    }
}

/// Everything the request handlers share.
pub struct State {
    pub guard: security::Guard,
    pub assets: Folder,
    pub graphs: Folder,
    pub scenes: Folder,
    /// The project folder of runs (what a scene may name besides its own and the assets
    /// folder): the current folder when it holds the graphs, scenes and assets folders (as
    /// `sinew run`), otherwise the deepest folder holding all three.
    pub project: PathBuf,
    /// Display context for the CLI-shaped documents (`/api/catalog`).
    pub ctx: Ctx,
    /// The checked graphs (named relative to the graphs folder) and the assets' catalog.
    pub workspace: RwLock<Workspace>,
    /// Serializes writes (read version, compare, write) so two saves never interleave.
    pub writes: Mutex<()>,
    pub events: sse::Events,
    pub stop: Arc<AtomicBool>,
    /// The slots heavy requests share ([`budget`]).
    pub heavy: Arc<budget::Pool>,
}

/// A running studio.
pub struct Running {
    pub addr: SocketAddr,
    pub token: String,
    state: Arc<State>,
    threads: Vec<JoinHandle<()>>,
}

impl Running {
    /// The address to open: `http://127.0.0.1:PORT/?token=TOKEN`.
    pub fn url(&self) -> String {
        format!(
            "http://127.0.0.1:{}/?token={}",
            self.addr.port(),
            self.token
        )
    }

    /// The shared state the handlers use (for calling [`api::handle`] in process).
    pub fn state(&self) -> &Arc<State> {
        &self.state
    }

    /// Stops accepting, ends event streams and the watcher, and waits for them.
    pub fn stop(mut self) {
        self.state.stop.store(true, Ordering::SeqCst);
        http::wake(self.addr);
        self.state.events.close();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// See [`State::project`].
fn project_folder(cwd: Option<&Path>, folders: [&Folder; 3]) -> PathBuf {
    let cwd = cwd.and_then(|c| c.canonicalize().ok());
    if let Some(c) = &cwd
        && folders.iter().all(|f| f.canonical.starts_with(c))
    {
        return c.clone();
    }
    let mut out = folders[0].canonical.clone();
    while !folders.iter().all(|f| f.canonical.starts_with(&out)) {
        if !out.pop() {
            break;
        }
    }
    out
}

/// Binds 127.0.0.1, scans the project and starts serving (accept loop and file watcher
/// threads). Fails when a folder cannot be read or the port cannot be bound.
pub fn start(ctx: &Ctx, config: &Config) -> Result<Running, String> {
    let assets = Folder::new(&config.assets, "assets")?;
    let graphs = Folder::new(&config.graphs, "graphs")?;
    let scenes = Folder::new(&config.scenes, "scenes")?;
    let project = project_folder(ctx.cwd.as_deref(), [&assets, &graphs, &scenes]);
    let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, config.port)))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{}: {e}", config.port))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let catalog = crate::catalog::scan::LiveCatalog::scan(&assets.root, ctx.cwd.as_deref(), None)
        .map_err(|e| {
        format!(
            "cannot read assets folder {}: {e}",
            ctx.display(&assets.root)
        )
    })?;
    let cwd = ctx.cwd.as_deref();
    let roots = std::slice::from_ref(&graphs.root);
    let workspace = Workspace::with_names(cwd, roots, catalog, Some(&graphs.root));
    let mut watcher = crate::app::watch::Watcher::new(ctx, &assets.root, roots)?;
    watcher.follow(workspace.dependency_folders());
    let token = security::new_token();
    let stop = Arc::new(AtomicBool::new(false));
    let state = Arc::new(State {
        guard: security::Guard {
            port: addr.port(),
            token: token.clone(),
        },
        assets,
        graphs,
        scenes,
        project,
        ctx: Ctx {
            color: false,
            cwd: ctx.cwd.clone(),
        },
        workspace: RwLock::new(workspace),
        writes: Mutex::new(()),
        events: sse::Events::default(),
        stop: stop.clone(),
        heavy: budget::Pool::heavy(),
    });
    let mut threads = Vec::new();
    let s = state.clone();
    threads.push(
        std::thread::Builder::new()
            .name("studio-watch".into())
            .spawn(move || sse::watch_loop(&s, watcher))
            .map_err(|e| e.to_string())?,
    );
    let s = state.clone();
    let handler: http::Handler = Arc::new(move |req| api::handle(&s, req));
    let limits = config.limits.clone();
    threads.push(
        std::thread::Builder::new()
            .name("studio-accept".into())
            .spawn(move || http::serve(listener, limits, handler, stop))
            .map_err(|e| e.to_string())?,
    );
    Ok(Running {
        addr,
        token,
        state,
        threads,
    })
}

/// `sinew studio`: serves until Ctrl-C, printing the address first.
pub fn run(ctx: &Ctx, config: &Config, out: &mut dyn std::io::Write) -> Result<(), String> {
    let running = start(ctx, config)?;
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    ctrlc::set_handler(move || {
        let _ = tx.send(());
    })
    .map_err(|e| format!("cannot handle Ctrl-C: {e}"))?;
    writeln!(out, "studio: {}", running.url()).map_err(|e| e.to_string())?;
    out.flush().map_err(|e| e.to_string())?;
    let _ = rx.recv();
    // Saves are atomic renames: stopping between requests loses nothing on disk.
    running.stop();
    Ok(())
}
