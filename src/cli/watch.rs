//! `sinew watch`: refreshes the catalog on file-system changes (debounced) and prints palette
//! deltas and check results, until interrupted.
//!
//! Editors that save by writing a temporary file and renaming it over the original produce one
//! refresh of the original path (the temporary file is not an `.animseq`, and debouncing folds
//! the burst of events into one batch), so the change reports once, as `changed`.
//!
//! The assets folder itself may go away (deleted, renamed, replaced by a new folder of the same
//! name): a watch on it dies with it. So the watcher also looks at the folder's identity every
//! [`POLL`] and on every batch: when the folder is gone it says so on stderr, refreshes (its
//! events leave the palette) and waits; when a folder is there again it watches it anew, says
//! so, and refreshes the whole folder (files created before the new watch was armed count too).

use super::{Ctx, Format, OK, human_diagnostics, write_json};
use crate::diag;
use crate::palette;
use notify_debouncer_full::notify::{EventKind, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, new_debouncer};
use serde_json::json;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

/// How long the watcher waits for a burst of events to settle.
pub const DEBOUNCE: Duration = Duration::from_millis(150);

/// How often the watcher checks that the assets folder is still the folder it watches.
pub const POLL: Duration = Duration::from_millis(500);

/// What identifies a folder across a delete and re-create: device and inode (elsewhere, only
/// whether a folder is there). `None` when there is no folder at `p`.
fn folder_identity(p: &Path) -> Option<(u64, u64)> {
    let m = std::fs::metadata(p).ok().filter(|m| m.is_dir())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        Some((0, 0))
    }
}

pub fn run(
    ctx: &Ctx,
    paths: &[PathBuf],
    assets: &Path,
    format: Format,
    out: &mut dyn Write,
) -> Result<u8, String> {
    let mut live = super::assets::scan(ctx, assets, format)?;
    let io = |e: std::io::Error| e.to_string();
    let (tx, rx) = mpsc::channel::<DebounceEventResult>();
    let mut debouncer =
        new_debouncer(DEBOUNCE, None, tx).map_err(|e| format!("cannot watch: {e}"))?;
    debouncer
        .watch(assets, RecursiveMode::Recursive)
        .map_err(|e| format!("cannot watch {}: {e}", ctx.display(assets)))?;
    for p in paths {
        debouncer
            .watch(p, RecursiveMode::Recursive)
            .map_err(|e| format!("cannot watch {}: {e}", ctx.display(p)))?;
    }
    let events = live.catalog().events().len();
    match format {
        Format::Json => write_json(out, &json!({"kind": "ready", "events": events}))?,
        Format::Human => writeln!(out, "ready: {events} events").map_err(io)?,
    }
    report_check(ctx, &live, format, out)?;
    out.flush().map_err(io)?;
    let canonical = || {
        assets
            .canonicalize()
            .unwrap_or_else(|_| assets.to_path_buf())
    };
    let mut canonical_assets = canonical();
    // The identity of the folder the watch is armed on (`None`: not armed, the folder is gone).
    let mut armed = folder_identity(assets);
    loop {
        let batch = match rx.recv_timeout(POLL) {
            Ok(batch) => Some(batch),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => break,
        };
        let now = folder_identity(assets);
        if now != armed {
            let shown = ctx.display(assets);
            if armed.is_some() {
                let _ = debouncer.unwatch(assets); // usually gone with its folder already
            }
            match now {
                None => eprintln!(
                    "warning: watch: the assets folder {shown} is gone; \
                     watching for it to come back"
                ),
                Some(_) => match debouncer.watch(assets, RecursiveMode::Recursive) {
                    Ok(()) => eprintln!("watch: the assets folder {shown} is back; watching it"),
                    Err(e) => {
                        eprintln!("warning: watch: cannot watch {shown} yet: {e}; retrying");
                        continue;
                    }
                },
            }
            armed = now;
            canonical_assets = canonical();
            let delta = live.refresh(&[assets.to_path_buf()]);
            let pd = palette::delta(&delta);
            if now.is_some() || !pd.is_empty() {
                report_palette(&pd, format, out)?;
                report_check(ctx, &live, format, out)?;
                out.flush().map_err(io)?;
            }
        }
        let events = match batch {
            None => continue,
            Some(Ok(ev)) => ev,
            Some(Err(errors)) => {
                for e in errors {
                    eprintln!("warning: watch: {e}");
                }
                continue;
            }
        };
        let changed: BTreeSet<PathBuf> = events
            .iter()
            // Reading files (our own refresh included) reports access events: never a change.
            .filter(|e| !matches!(e.event.kind, EventKind::Access(_)))
            .flat_map(|e| e.event.paths.iter().cloned())
            .filter(|p| p.starts_with(&canonical_assets) || p.starts_with(assets))
            .collect();
        if changed.is_empty() {
            continue;
        }
        let changed: Vec<PathBuf> = changed.into_iter().collect();
        let delta = live.refresh(&changed);
        report_palette(&palette::delta(&delta), format, out)?;
        report_check(ctx, &live, format, out)?;
        out.flush().map_err(io)?;
    }
    Ok(OK)
}

fn report_palette(
    pd: &palette::PaletteDelta,
    format: Format,
    out: &mut dyn Write,
) -> Result<(), String> {
    let io = |e: std::io::Error| e.to_string();
    match format {
        Format::Json => write_json(
            out,
            &json!({"kind": "palette", "added": pd.added, "removed": pd.removed, "changed": pd.changed}),
        ),
        Format::Human => {
            for k in &pd.added {
                writeln!(out, "+ {k}").map_err(io)?;
            }
            for k in &pd.removed {
                writeln!(out, "- {k}").map_err(io)?;
            }
            for k in &pd.changed {
                writeln!(out, "~ {k}").map_err(io)?;
            }
            if pd.is_empty() {
                writeln!(out, "palette unchanged").map_err(io)?;
            }
            Ok(())
        }
    }
}

fn report_check(
    ctx: &Ctx,
    live: &crate::catalog::scan::LiveCatalog,
    format: Format,
    out: &mut dyn Write,
) -> Result<(), String> {
    let diags = live.catalog().diagnostics();
    let (errors, warnings) = diag::counts(&diags);
    match format {
        Format::Json => write_json(
            out,
            &json!({"kind": "check", "errors": errors, "warnings": warnings, "diagnostics": diag::render::to_json(&diags)}),
        ),
        Format::Human => {
            write!(out, "{}", human_diagnostics(ctx, &diags)).map_err(|e| e.to_string())?;
            writeln!(out, "check: {errors} errors, {warnings} warnings").map_err(|e| e.to_string())
        }
    }
}
