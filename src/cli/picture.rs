//! `sinew graph`: the picture of a `.bpg` graph or `.animsm` state machine as SVG, or a listing
//! of the graph for reading and for git's `textconv` (`docs/graphs.md`).

use super::{Ctx, OK};
use crate::compile::{EventCatalog, EventInfo};
use crate::diag::{Diagnostic, SourceFile};
use crate::escape::Escaped;
use crate::fsutil::{InputKind, read_input};
use crate::graph::Model;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct GraphArgs {
    /// The `.bpg` graph or `.animsm` state machine.
    pub file: PathBuf,
    /// Writes the picture as SVG to this file (`-`: standard output).
    #[arg(long, value_name = "OUT")]
    pub svg: Option<PathBuf>,
    /// Prints the listing for git's `textconv`; a file that does not parse prints as it is.
    #[arg(long)]
    pub textconv: bool,
    /// The assets folder whose catalog types event pins and checks the graph.
    #[arg(long, default_value = "assets")]
    pub assets: PathBuf,
}

/// The catalog used when there is no assets folder: no events are published.
pub struct NoEvents;

impl EventCatalog for NoEvents {
    fn event(&self, _: &str) -> EventInfo {
        EventInfo::Unknown
    }
    fn published(&self) -> Vec<String> {
        Vec::new()
    }
}

/// The input kind of a file `sinew graph` or `sinew diff` reads (its size limit).
fn kind_of(path: &Path) -> InputKind {
    if is_state_machine(path) {
        InputKind::StateMachine
    } else {
        InputKind::Graph
    }
}

/// Reads a file as UTF-8 text through the one bounded reader (`fsutil::read_input`, the
/// graph or state-machine limit); the error names it.
pub fn read_text(ctx: &Ctx, path: &Path) -> Result<SourceFile, String> {
    let name = ctx.display(path);
    let bytes = read_input(path, kind_of(path)).map_err(|e| format!("cannot read {name}: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|_| format!("{name} is not valid UTF-8"))?;
    Ok(SourceFile::new(name, text))
}

/// Prints syntax diagnostics (or the picture budget's) and the one-line failure naming the file.
pub fn parse_failure(ctx: &Ctx, src: &SourceFile, diags: &[Diagnostic]) -> String {
    eprint!("{}", crate::diag::render::human(diags, ctx.color));
    if diags
        .iter()
        .any(|d| d.code == crate::picture::E_PICTURE_TOO_LARGE)
    {
        return format!("the picture of {} was not written", src.name());
    }
    format!("{} does not parse", src.name())
}

fn is_state_machine(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "animsm")
}

/// Writes `text` to `out_path` atomically, or to standard output for `-`.
pub fn write_out(
    ctx: &Ctx,
    out_path: &Path,
    text: &str,
    out: &mut dyn Write,
) -> Result<(), String> {
    if out_path == Path::new("-") {
        return out.write_all(text.as_bytes()).map_err(|e| e.to_string());
    }
    crate::fsutil::write_atomic(out_path, text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", ctx.display(out_path)))
}

/// Writes `text` line by line through the one escaping rule (`crate::escape`): a string
/// literal's ESC, CR or U+202E is shown as an escape, never sent to the terminal.
fn write_lines(out: &mut dyn Write, text: &str) -> Result<(), String> {
    for line in text.split_inclusive('\n') {
        // A CRLF line ending stays one (only a CR inside a line can hide what precedes it).
        let (body, nl) = match line.strip_suffix('\n') {
            Some(b) => match b.strip_suffix('\r') {
                Some(b) => (b, "\r\n"),
                None => (b, "\n"),
            },
            None => (line, ""),
        };
        write!(out, "{}{nl}", Escaped(body)).map_err(|e| e.to_string())?;
    }
    Ok(())
}

pub fn graph(ctx: &Ctx, args: &GraphArgs, out: &mut dyn Write) -> Result<u8, String> {
    let src = match read_text(ctx, &args.file) {
        Ok(s) => s,
        Err(e) if args.textconv => {
            // git shows what it can; a binary or unreadable file is not a graph listing.
            eprintln!("warning: {}", Escaped(&e));
            let bytes = read_input(&args.file, kind_of(&args.file)).unwrap_or_default();
            write_lines(out, &String::from_utf8_lossy(&bytes))?;
            return Ok(OK);
        }
        Err(e) => return Err(e),
    };
    if is_state_machine(&args.file) {
        let Some(svg_path) = &args.svg else {
            return Err(format!(
                "{}: a state machine has no listing; use --svg OUT",
                src.name()
            ));
        };
        let svg = crate::picture::state_machine::state_machine_svg(&src)
            .map_err(|d| parse_failure(ctx, &src, &d))?;
        write_out(ctx, svg_path, &svg, out)?;
        return Ok(OK);
    }
    if let Some(svg_path) = &args.svg {
        let svg = if args.assets.is_dir() {
            let live = super::assets::scan(ctx, &args.assets, super::Format::Json)?;
            crate::picture::graph_svg(&src, live.catalog())
        } else {
            eprintln!(
                "note: no assets folder {}; event identities are not checked",
                Escaped(&ctx.display(&args.assets))
            );
            crate::picture::graph_svg(&src, &NoEvents)
        }
        .map_err(|d| parse_failure(ctx, &src, &d))?;
        write_out(ctx, svg_path, &svg, out)?;
        return Ok(OK);
    }
    match Model::parse(&src) {
        Ok(m) => write_lines(out, &m.sorted().to_text())?,
        Err(_) if args.textconv => {
            eprintln!(
                "warning: {} does not parse; shown as it is",
                Escaped(src.name())
            );
            write_lines(out, src.text())?;
        }
        Err(d) => return Err(parse_failure(ctx, &src, &d)),
    }
    Ok(OK)
}
