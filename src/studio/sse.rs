//! Server-Sent Events (`GET /api/events`): `palette`, `check` and `file` events, produced by
//! the watcher thread from [`Workspace::refresh`](crate::workspace::Workspace::refresh) (the
//! engine `sinew watch` uses) and broadcast to every open stream. Each stream has a bounded
//! queue; a client that does not keep up is dropped (it reconnects and re-reads), never
//! buffered without bound.

use super::State;
use super::http::{Body, Response};
use crate::app::watch::Watcher;
use crate::workspace::Refresh;
use serde_json::{Value, json};
use std::io::Write;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Most event streams open at once.
pub const MAX_STREAMS: usize = 32;
/// Events queued per stream before the stream is dropped.
const QUEUE: usize = 256;
/// A comment line keeps idle streams (and proxies) alive.
const KEEPALIVE: Duration = Duration::from_secs(15);

/// The open streams.
#[derive(Default)]
pub struct Events {
    subs: Mutex<Vec<SyncSender<Arc<str>>>>,
}

impl Events {
    /// A new stream's receiving end, or `None` when [`MAX_STREAMS`] are open.
    pub fn subscribe(&self) -> Option<Receiver<Arc<str>>> {
        let mut subs = self.subs.lock().ok()?;
        if subs.len() >= MAX_STREAMS {
            return None;
        }
        let (tx, rx) = sync_channel(QUEUE);
        subs.push(tx);
        Some(rx)
    }

    /// Sends one event to every stream (dropping streams that are gone or full).
    pub fn publish(&self, event: &str, data: &Value) {
        let msg: Arc<str> = Arc::from(format!("event: {event}\ndata: {data}\n\n"));
        if let Ok(mut subs) = self.subs.lock() {
            subs.retain(|tx| match tx.try_send(msg.clone()) {
                Ok(()) => true,
                Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => false,
            });
        }
    }

    /// Ends every stream.
    pub fn close(&self) {
        if let Ok(mut subs) = self.subs.lock() {
            subs.clear();
        }
    }

    /// Streams open now.
    pub fn len(&self) -> usize {
        self.subs.lock().map_or(0, |s| s.len())
    }

    /// No stream is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The `GET /api/events` response: a stream until the client goes or the studio stops.
pub fn stream(state: &Arc<State>) -> Response {
    let Some(rx) = state.events.subscribe() else {
        return Response::error(503, format!("more than {MAX_STREAMS} event streams open"));
    };
    let stop = state.stop.clone();
    let body = Body::Stream(Box::new(move |w: &mut dyn Write| {
        if w.write_all(b": sinew studio events\n\n")
            .and_then(|_| w.flush())
            .is_err()
        {
            return;
        }
        while !stop.load(Ordering::SeqCst) {
            let msg: Arc<str> = match rx.recv_timeout(KEEPALIVE) {
                Ok(m) => m,
                Err(RecvTimeoutError::Timeout) => Arc::from(": keepalive\n\n"),
                Err(RecvTimeoutError::Disconnected) => return,
            };
            if w.write_all(msg.as_bytes()).and_then(|_| w.flush()).is_err() {
                return;
            }
        }
    }));
    Response::new(200, "text/event-stream", body)
}

/// Publishes what one refresh changed.
pub fn publish_update(state: &State, up: &Refresh, sources: &dyn Fn(&str) -> Option<String>) {
    let pd = &up.palette;
    if !pd.is_empty() || up.catalog_diagnostics_changed {
        state.events.publish(
            "palette",
            &json!({"kind": "palette", "added": pd.added, "removed": pd.removed, "changed": pd.changed}),
        );
    }
    for (path, version) in &up.files {
        state
            .events
            .publish("file", &json!({"path": path, "version": version}));
    }
    for (path, diags) in &up.checks {
        let text = sources(path);
        state.events.publish(
            "check",
            &json!({"path": path, "diagnostics": super::api::diagnostics_json(text.as_deref(), diags)}),
        );
    }
}

/// The watcher thread: refreshes the workspace after each debounced batch of changes and
/// publishes the events, until the studio stops.
pub fn watch_loop(state: &Arc<State>, mut watcher: Watcher) {
    while !state.stop.load(Ordering::SeqCst) {
        let changed = match watcher.next_batch(Some(Duration::from_millis(200))) {
            Ok(c) => c,
            Err(true) => return,
            Err(false) => continue,
        };
        let up = match state.workspace.write() {
            Ok(mut ws) => {
                let up = ws.refresh(&changed);
                watcher.follow(ws.dependency_folders());
                up
            }
            Err(_) => return,
        };
        if publish_refresh(state, &up).is_err() {
            return;
        }
    }
}

/// Refreshes the workspace from `changed` (paths the studio itself just wrote) and publishes
/// what changed: the server's own writes are visible to its next request, without waiting for
/// the watcher (which then finds nothing new). `false` when the state is unavailable.
pub fn refresh_now(state: &State, changed: &[std::path::PathBuf]) -> bool {
    let Ok(mut ws) = state.workspace.write() else {
        return false;
    };
    let up = ws.refresh(changed);
    drop(ws);
    publish_refresh(state, &up).is_ok()
}

/// Publishes one refresh's changes (nothing when it changed nothing).
fn publish_refresh(state: &State, up: &Refresh) -> Result<(), ()> {
    if up.is_empty() {
        return Ok(());
    }
    let ws = state.workspace.read().map_err(|_| ())?;
    let by_name: std::collections::BTreeMap<&str, &str> =
        ws.graphs().map(|g| (g.name(), g.source.text())).collect();
    publish_update(state, up, &|p| by_name.get(p).map(|t| t.to_string()));
    Ok(())
}
