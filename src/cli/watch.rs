//! `sinew watch`: refreshes the catalog and the graph checks on file-system changes (debounced,
//! through [`super::live`], the engine the studio shares) and prints palette deltas and check
//! results, until interrupted.
//!
//! Editors that save by writing a temporary file and renaming it over the original produce one
//! refresh of the original path (the temporary file is not an `.animseq`, and debouncing folds
//! the burst of events into one batch), so the change reports once, as `changed`.
//!
//! The assets folder itself may go away and come back: [`Watcher`] re-arms on it and reports
//! the whole folder as changed (see its documentation).

use super::live::{Live, Watcher};
use super::{Ctx, Format, OK, human_diagnostics, write_json};
use crate::diag;
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};

pub fn run(
    ctx: &Ctx,
    paths: &[PathBuf],
    assets: &Path,
    format: Format,
    out: &mut dyn Write,
) -> Result<u8, String> {
    let catalog = super::assets::scan(ctx, assets, format)?;
    let io = |e: std::io::Error| e.to_string();
    let mut watcher = Watcher::new(ctx, assets, paths)?;
    let namer_ctx = Ctx {
        color: false,
        cwd: ctx.cwd.clone(),
    };
    let mut live = Live::new(
        ctx,
        catalog,
        paths,
        Box::new(move |p: &Path| namer_ctx.display(p)),
    )?;
    let events = live.catalog().catalog().events().len();
    match format {
        Format::Json => write_json(out, &json!({"kind": "ready", "events": events}))?,
        Format::Human => writeln!(out, "ready: {events} events").map_err(io)?,
    }
    report_check(ctx, &live, format, out)?;
    out.flush().map_err(io)?;
    while let Ok(changed) = watcher.next_batch(None) {
        let up = live.refresh(ctx, &changed);
        let pd = &up.palette;
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

fn report_check(ctx: &Ctx, live: &Live, format: Format, out: &mut dyn Write) -> Result<(), String> {
    let diags = live.diagnostics();
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
