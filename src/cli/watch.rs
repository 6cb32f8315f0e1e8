//! `sinew watch`: refreshes the catalog on file-system changes (debounced) and prints palette
//! deltas and check results, until interrupted.
//!
//! Editors that save by writing a temporary file and renaming it over the original produce one
//! refresh of the original path (the temporary file is not an `.animseq`, and debouncing folds
//! the burst of events into one batch), so the change reports once, as `changed`.

use super::{Ctx, Format, OK, human_diagnostics, write_json};
use crate::diag;
use crate::palette;
use notify_debouncer_full::notify::{EventKind, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, new_debouncer};
use serde_json::json;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// How long the watcher waits for a burst of events to settle.
pub const DEBOUNCE: Duration = Duration::from_millis(150);

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
    let canonical_assets = assets
        .canonicalize()
        .unwrap_or_else(|_| assets.to_path_buf());
    for batch in rx {
        let events = match batch {
            Ok(ev) => ev,
            Err(errors) => {
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
        let pd = palette::delta(&delta);
        match format {
            Format::Json => write_json(
                out,
                &json!({"kind": "palette", "added": pd.added, "removed": pd.removed, "changed": pd.changed}),
            )?,
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
            }
        }
        report_check(ctx, &live, format, out)?;
        out.flush().map_err(io)?;
    }
    Ok(OK)
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
