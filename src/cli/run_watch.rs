//! `sinew run --watch [--realtime]`: keeps a spawned scene running and reloads it as its files
//! change, through the library's reload core ([`crate::reload::Reloader`], the same as the
//! Bevy plugin's): the project is loaded again with [`project::load`] and what changed is
//! switched between two ticks; `reload` / `reload_failed` records join the trace.
//!
//! * With `--realtime`, one tick per `--dt` seconds of wall-clock time, until Ctrl-C (or
//!   `--ticks N` ticks, when given).
//! * Without it, `--ticks` ticks (default 60) as fast as possible, then it waits; after every
//!   reload it runs `--ticks` more ticks, so the edit's effect shows at once.
//!
//! Changes are debounced twice: by the watcher, and by waiting until no change arrived for
//! [`DEBOUNCE`] before one reload, which reads the files as they are then: a burst of saves is
//! read once, in its last state.
//! Ctrl-C ends cleanly: the `end` lines are written and the status is 0.

use std::collections::BTreeSet;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use bevy_ecs::prelude::*;

use super::run::{Args, DEFAULT_TICKS};
use super::{Ctx, OK};
use crate::app::watch::{Folder, RecursiveMode, Watcher};
use crate::project::{FsSource, Layout, LoadedScene};
use crate::reload::Reloader;
use crate::runtime::scene::Spawned;
use crate::runtime::{TraceFormat, TraceWriter, trace};
use crate::workspace::load_recorded;
use std::path::PathBuf;

/// How long the files must be quiet before one reload.
pub const DEBOUNCE: Duration = Duration::from_millis(50);

/// How often a waiting loop looks at Ctrl-C.
const POLL: Duration = Duration::from_millis(25);

/// Set by Ctrl-C (the handler is installed once per process).
fn interrupted() -> &'static Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let f = flag.clone();
        // Fails only when another handler is installed (the embedding program's): then Ctrl-C
        // is that program's business.
        let _ = ctrlc::set_handler(move || f.store(true, Ordering::SeqCst));
        flag
    })
}

/// What a watching run needs of the started run.
pub struct Session<'a> {
    pub ctx: &'a Ctx,
    pub args: &'a Args,
    pub source: &'a FsSource,
    pub layout: &'a Layout,
    pub loaded: &'a LoadedScene,
    pub spawned: &'a Spawned,
    pub format: TraceFormat,
    /// The folders the load read from (see [`Session::folders`]).
    pub dependencies: &'a BTreeSet<PathBuf>,
}

impl Session<'_> {
    /// The folders to watch: the assets folder (recursively) and, on their own, the folders of
    /// the files the load read or listed outside it (the workspace's recorded dependencies,
    /// [`crate::workspace::load_recorded`]: the scene's folder, each graph's, and any folder a
    /// path with `..` reached).
    fn folders(&self) -> Vec<Folder> {
        let assets = self.source.path(&self.layout.assets);
        let assets_key = crate::workspace::key(self.ctx.cwd.as_deref(), &assets);
        let folder = |what, path, mode| Folder {
            what,
            path,
            mode,
            missing_ok: false,
        };
        let mut out = vec![folder(
            "assets folder",
            assets.clone(),
            RecursiveMode::Recursive,
        )];
        for d in self.outside(self.dependencies, &assets_key) {
            out.push(folder("folder", d, RecursiveMode::NonRecursive));
        }
        out
    }

    /// The dependency folders outside the assets folder (which is watched recursively).
    fn outside(&self, deps: &BTreeSet<PathBuf>, assets: &std::path::Path) -> BTreeSet<PathBuf> {
        deps.iter()
            .filter(|d| !d.starts_with(assets) && d.is_dir())
            .cloned()
            .collect()
    }

    /// Runs until Ctrl-C (or the tick limit with `--realtime`); returns the exit status.
    pub fn run(
        &self,
        world: &mut World,
        schedule: &mut Schedule,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> Result<u8, String> {
        let stop = interrupted().clone();
        let mut reloader = Reloader::new(self.loaded, self.source, self.layout)
            .ok_or("the scene is not ready to run")?;
        // The watcher `sinew watch` uses: a folder that is removed is reported and, when it
        // comes back, watched again (a watch dies with its folder).
        let mut watcher = Watcher::folders(self.ctx, &self.folders())?;
        let assets_key = crate::workspace::key(
            self.ctx.cwd.as_deref(),
            &self.source.path(&self.layout.assets),
        );
        // The folders watched from the start (re-armed when they vanish and return); a reload
        // that reads from new folders follows those too.
        let initial = self.outside(self.dependencies, &assets_key);
        let trace = TraceWriter::new(self.spawned, &self.loaded.event_names, self.format);
        let io = |e: std::io::Error| e.to_string();
        let dt = world
            .get_resource::<crate::runtime::GameTime>()
            .map_or(crate::runtime::time::DEFAULT_DT, |t| t.dt());
        let limit = if self.args.realtime {
            self.args.ticks
        } else {
            None
        };
        let batch = self.args.ticks.unwrap_or(DEFAULT_TICKS);
        let start = Instant::now();
        let (mut ticks, mut owed) = (0u64, batch);
        // When the last relevant change arrived; the reload waits until the files have been
        // quiet for [`DEBOUNCE`], so a burst of saves is read once, in its final state.
        let mut dirty: Option<Instant> = None;
        while !stop.load(Ordering::SeqCst) && limit.is_none_or(|l| ticks < l) {
            // Wait for the next tick (real time) or, between batches, for a change.
            let due = if self.args.realtime {
                Some(start + Duration::from_secs_f64(dt * ticks as f64))
            } else if owed > 0 {
                Some(Instant::now())
            } else {
                None
            };
            let wait = due.map_or(POLL, |d| d.saturating_duration_since(Instant::now()));
            let changed = match watcher.next_batch(Some(wait.min(POLL))) {
                Ok(batch) => batch
                    .iter()
                    .any(|p| relevant(p) || watcher.is_watched_folder(p)),
                Err(false) => false,
                Err(true) => return Err("watcher stopped".into()),
            };
            if changed {
                dirty = Some(Instant::now());
            }
            if dirty.is_some_and(|t| t.elapsed() >= DEBOUNCE) {
                dirty = None;
                let (loaded, deps) =
                    load_recorded(self.source, self.layout, self.ctx.cwd.as_deref());
                // A folder the project now reads from (a new `..` path) is watched too.
                let mut new = self.outside(&deps, &assets_key);
                new.retain(|d| !initial.contains(d));
                watcher.follow(new);
                match loaded {
                    Ok(new) => {
                        super::run::report(self.ctx, &mut new.run_diagnostics(), err);
                        reloader.apply(world, self.spawned, &new);
                    }
                    Err(e) => trace::error(world, None, None, None, format!("reload: {e}")),
                }
                trace.write_tick(world, out).map_err(io)?;
                out.flush().map_err(io)?;
                if !self.args.realtime {
                    owed = batch;
                }
                continue;
            }
            if due.is_some_and(|d| Instant::now() >= d) {
                schedule.run(world);
                trace.write_tick(world, out).map_err(io)?;
                out.flush().map_err(io)?;
                ticks += 1;
                owed = owed.saturating_sub(1);
            }
        }
        trace.write_end(world, out).map_err(io)?;
        out.flush().map_err(io)?;
        Ok(OK)
    }
}

/// Whether a changed path is a file a scene may read (`.bpg`, `.animseq`, `.skel`, `.animsm`,
/// `.ron`); a watched folder that went away or came back counts too (the caller asks).
fn relevant(p: &std::path::Path) -> bool {
    p.extension().is_some_and(|x| {
        ["bpg", "animseq", "skel", "animsm", "ron"]
            .iter()
            .any(|k| x == *k)
    })
}
