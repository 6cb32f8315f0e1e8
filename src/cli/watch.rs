//! `sinew watch`: keeps a [`Workspace`] (catalog, palette, graphs, scenes) current as files
//! change, printing palette deltas and one `check` line for the whole state after every change,
//! until interrupted.
//!
//! Watched (through [`Watcher`], debounced; the watcher the studio shares): the assets folder and
//! every PATH (default `graphs`) recursively (a PATH that is a file through its folder), plus the
//! folders outside them that the scenes read from ([`Workspace::dependency_folders`]). A PATH or
//! the assets folder that vanishes is reported (`E0001` in the check, a line on stderr) and, as a
//! watch does not survive its folder, looked for until it returns, then watched and checked
//! again; a PATH missing at start is waited for the same way.
//!
//! Editors that save by writing a temporary file and renaming it over the original produce one
//! refresh of the original path (the temporary file is not checked, and debouncing folds the
//! burst of events into one batch), so the change reports once, as `changed`.

use super::{Ctx, Format, OK, write_json};
use crate::app::watch::Watcher;
use crate::diag;
use crate::workspace::{Refresh, Workspace};
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long one wait for changes lasts before the watch looks whether its reader is gone.
const WAIT: Duration = Duration::from_millis(500);

pub fn run(
    ctx: &Ctx,
    paths: &[PathBuf],
    assets: &Path,
    format: Format,
    out: &mut dyn Write,
) -> Result<u8, String> {
    let paths = if paths.is_empty() {
        vec![PathBuf::from("graphs")]
    } else {
        paths.to_vec()
    };
    let live = super::assets::scan(ctx, assets, format)?;
    let io = |e: std::io::Error| e.to_string();
    let mut watcher = Watcher::with_missing(ctx, assets, &paths, true)?;
    let events = live.catalog().events().len();
    let mut ws = Workspace::new(ctx.cwd.as_deref(), &paths, live);
    watcher.follow(ws.dependency_folders());
    match format {
        Format::Json => write_json(out, &json!({"kind": "ready", "events": events}))?,
        Format::Human => writeln!(out, "ready: {events} events").map_err(io)?,
    }
    report_check(ctx, &ws, format, out)?;
    out.flush().map_err(io)?;
    while !super::stdout_closed() {
        let changed = match watcher.next_batch(Some(WAIT)) {
            Ok(c) => c,
            Err(false) => continue,
            Err(true) => break,
        };
        let changed: Vec<PathBuf> = changed.into_iter().filter(|p| ws.concerns(p)).collect();
        if changed.is_empty() {
            continue;
        }
        let r = ws.refresh(&changed);
        watcher.follow(ws.dependency_folders());
        report_palette(&r, format, out)?;
        report_check(ctx, &ws, format, out)?;
        out.flush().map_err(io)?;
    }
    Ok(OK)
}

fn report_palette(r: &Refresh, format: Format, out: &mut dyn Write) -> Result<(), String> {
    let io = |e: std::io::Error| e.to_string();
    let pd = &r.palette;
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

/// One `check` line for the whole current state (after its diagnostics, in human output).
fn report_check(
    ctx: &Ctx,
    ws: &Workspace,
    format: Format,
    out: &mut dyn Write,
) -> Result<(), String> {
    let diags = ws.diagnostics();
    let (errors, warnings) = diag::counts(&diags);
    let (graphs, scenes) = (ws.graph_count(), ws.scene_count());
    match format {
        Format::Json => write_json(
            out,
            &json!({"kind": "check", "graphs": graphs, "scenes": scenes, "errors": errors, "warnings": warnings, "diagnostics": diag::render::to_json(&diags)}),
        ),
        Format::Human => {
            let report = diag::render::human(&diags, ctx.color);
            let line = super::graphs::summary(graphs, scenes, errors, warnings);
            writeln!(out, "{report}check: {line}").map_err(|e| e.to_string())
        }
    }
}
