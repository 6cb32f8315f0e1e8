//! `sinew import MODEL… [--assets DIR] [--format human|json]` (`import.md`): parses the
//! arguments, runs the import session ([`crate::app::import`]) and renders what it did.

use super::{Ctx, FAILURE, Format, INPUT_ERRORS, OK, human_diagnostics, write_json};
use crate::app::import::{self, Notice};
use crate::escape::Escaped;
use serde_json::{Value, json};
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// `.gltf`, `.glb` or `.fbx` files, or folders (every such file under them, sorted).
    #[arg(required = true)]
    pub models: Vec<PathBuf>,
    /// The assets folder; output goes to `DIR/animations/generated/<model-uuid>/`.
    #[arg(long, default_value = "assets")]
    pub assets: PathBuf,
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

pub fn run(ctx: &Ctx, a: &Args, out: &mut dyn Write) -> Result<u8, String> {
    let session = import::import(ctx, &a.models, &a.assets)?;
    for n in &session.notices {
        match n {
            Notice::Diagnostic(d) => {
                eprint!("{}", human_diagnostics(ctx, std::slice::from_ref(d)));
            }
            Notice::Error(e) => eprintln!("error: {}", Escaped(e)),
            Notice::Warning(w) => eprintln!("warning: {}", Escaped(w)),
        }
    }
    let io = |e: std::io::Error| e.to_string();
    match a.format {
        Format::Json => {
            let models: Vec<Value> = session
                .models
                .iter()
                .map(|d| {
                    let mut v = match &d.manifest {
                        Some(m) => m.to_json(&d.diagnostics, d.out.as_deref().unwrap_or("")),
                        // No identity could be given: no manifest, only why.
                        None => json!({
                            "model": null,
                            "runtime_supported": false,
                            "diagnostics": crate::app::documents::diagnostics(&d.diagnostics),
                            "out": null,
                        }),
                    };
                    v["file"] = json!(d.display);
                    v
                })
                .collect();
            write_json(out, &json!({ "models": models }))?;
        }
        Format::Human => {
            for d in &session.models {
                match (&d.manifest, &d.out) {
                    (Some(m), Some(o)) => {
                        let markers: usize = m.clips.iter().map(|c| c.markers).sum();
                        writeln!(
                            out,
                            "{} {} → {}: {} skeleton(s), {} clip(s), {markers} marker(s){}",
                            if m.runtime_supported {
                                "imported"
                            } else {
                                "blocked"
                            },
                            Escaped(&d.display),
                            Escaped(o),
                            m.skeletons.len(),
                            m.clips.len(),
                            if m.runtime_supported {
                                ""
                            } else {
                                " (runtime_supported: false)"
                            }
                        )
                        .map_err(io)?;
                    }
                    _ => {
                        writeln!(out, "skipped {}: no identity", Escaped(&d.display)).map_err(io)?
                    }
                }
                if !d.diagnostics.is_empty() {
                    write!(out, "{}", human_diagnostics(ctx, &d.diagnostics)).map_err(io)?;
                }
            }
        }
    }
    Ok(if session.io_failed {
        FAILURE
    } else if session.any_error() {
        INPUT_ERRORS
    } else {
        OK
    })
}
