//! `sinew diff OLD NEW`: two versions of a graph compared as graphs (`docs/graphs.md`). The
//! exit status answers "does it behave differently?": 0 no (positions and comments may have
//! changed), 1 yes, 2 a file could not be read or parsed.

use super::picture::{parse_failure, read_text, write_out};
use super::{Ctx, INPUT_ERRORS, OK, write_json};
use crate::graph::Model;
use crate::graph::diff::diff;
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct DiffArgs {
    /// The old version of the graph.
    pub old: PathBuf,
    /// The new version of the graph.
    pub new: PathBuf,
    #[arg(long, value_enum, default_value_t = super::Format::Human)]
    pub format: super::Format,
    /// Also draws NEW with its differences marked, as SVG (`-`: standard output).
    #[arg(long, value_name = "OUT")]
    pub svg: Option<PathBuf>,
    /// Leaves position and comment changes (`moved`) out of the report.
    #[arg(long)]
    pub ignore_layout: bool,
    /// The assets folder whose catalog types the picture's event pins (`--svg`).
    #[arg(long, default_value = "assets")]
    pub assets: PathBuf,
}

pub fn run(ctx: &Ctx, args: &DiffArgs, out: &mut dyn Write) -> Result<u8, String> {
    let old_src = read_text(ctx, &args.old)?;
    let new_src = read_text(ctx, &args.new)?;
    let old = Model::parse(&old_src).map_err(|d| parse_failure(ctx, &old_src, &d))?;
    let new = Model::parse(&new_src).map_err(|d| parse_failure(ctx, &new_src, &d))?;
    let mut d = diff(&old, &new);
    if args.ignore_layout {
        d = d.without_layout();
    }
    if let Some(svg_path) = &args.svg {
        let svg = if args.assets.is_dir() {
            let live = super::assets::scan(ctx, &args.assets, super::Format::Json)?;
            crate::picture::diff_svg(&new_src, live.catalog(), &d)
        } else {
            crate::picture::diff_svg(&new_src, &super::picture::NoEvents, &d)
        }
        .map_err(|diags| parse_failure(ctx, &new_src, &diags))?;
        write_out(ctx, svg_path, &svg, out)?;
    }
    if args.svg.as_deref() != Some(std::path::Path::new("-")) {
        match args.format {
            super::Format::Json => {
                let mut j = d.to_json();
                j["old"] = old_src.name().into();
                j["new"] = new_src.name().into();
                write_json(out, &j)?;
            }
            super::Format::Human => out
                .write_all(d.human(old_src.name(), new_src.name()).as_bytes())
                .map_err(|e| e.to_string())?,
        }
    }
    Ok(if d.behaviour_differs() {
        INPUT_ERRORS
    } else {
        OK
    })
}
