//! `sinew catalog`, `sinew palette` and `sinew migrate`: the commands over `.animseq` assets.

use super::{Ctx, FAILURE, Format, OK, human_diagnostics, status, write_json};
use crate::animseq::{self, Target};
use crate::app::documents::{catalog_document, palette_document};
use crate::catalog::EventKind;
use crate::catalog::scan::LiveCatalog;
use crate::escape::Escaped;
use crate::palette;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

/// Scans an assets folder, showing a progress bar on a terminal for long scans (never on a pipe
/// or in JSON mode).
pub fn scan(ctx: &Ctx, assets: &Path, format: Format) -> Result<LiveCatalog, String> {
    let show = format == Format::Human && std::io::stderr().is_terminal();
    let bar = show.then(|| {
        let b = indicatif::ProgressBar::new(0);
        b.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        b
    });
    let cb = |done: usize, total: usize| {
        if let Some(b) = &bar
            && total >= 500
        {
            b.set_length(total as u64);
            b.set_position(done as u64);
        }
    };
    let res = LiveCatalog::scan(assets, ctx.cwd.as_deref(), Some(&cb));
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    res.map_err(|e| format!("cannot read assets folder {}: {e}", ctx.display(assets)))
}

pub fn catalog(
    ctx: &Ctx,
    assets: &Path,
    format: Format,
    out: &mut dyn Write,
) -> Result<u8, String> {
    let live = scan(ctx, assets, format)?;
    let cat = live.catalog();
    let diags = cat.diagnostics();
    let io = |e: std::io::Error| e.to_string();
    match format {
        Format::Json => write_json(out, &catalog_document(cat))?,
        Format::Human => {
            let events = cat.events();
            writeln!(out, "{} events", events.len()).map_err(io)?;
            for d in events {
                let fields: Vec<String> =
                    d.fields.iter().map(|(n, t)| format!("{n}: {t}")).collect();
                let target = match &d.target {
                    Target::Owner => "owner".to_string(),
                    Target::Variable(v) => format!("variable {v}"),
                };
                let when = match d.kind {
                    EventKind::Notify { time } => format!("at {}", super::num(time)),
                    EventKind::Window { begin, end } => {
                        format!("window {}..{}", super::num(begin), super::num(end))
                    }
                };
                let line = format!(
                    "  {}  \"{}\"  {}  target {}{}  ({})",
                    d.id,
                    d.name,
                    when,
                    target,
                    if fields.is_empty() {
                        String::new()
                    } else {
                        format!("  fields {}", fields.join(", "))
                    },
                    d.file
                );
                writeln!(out, "{}", Escaped(&line)).map_err(io)?;
            }
            let q = cat.quarantined();
            if !q.is_empty() {
                writeln!(out, "{} quarantined", q.len()).map_err(io)?;
                for q in q {
                    let shown = &q.files[..q.files.len().min(crate::catalog::MAX_LISTED)];
                    let line = format!(
                        "  {}  claimed by {}",
                        q.id,
                        crate::catalog::list_some(shown, q.files.len())
                    );
                    writeln!(out, "{}", Escaped(&line)).map_err(io)?;
                }
            }
            if !diags.is_empty() {
                writeln!(out).map_err(io)?;
                out.write_all(human_diagnostics(ctx, &diags).as_bytes())
                    .map_err(io)?;
            }
        }
    }
    Ok(status(&diags))
}

pub fn palette(
    ctx: &Ctx,
    assets: &Path,
    format: Format,
    out: &mut dyn Write,
) -> Result<u8, String> {
    let live = scan(ctx, assets, format)?;
    let entries = palette::build(live.catalog());
    let diags = live.catalog().diagnostics();
    let io = |e: std::io::Error| e.to_string();
    match format {
        Format::Json => write_json(out, &palette_document(&entries))?,
        Format::Human => {
            // One heading per category, in the order categories first appear (a category whose
            // nodes are not adjacent in the table, such as `Events`, is still listed once).
            let mut categories: Vec<&str> = Vec::new();
            for e in &entries {
                if !categories.contains(&e.category.as_str()) {
                    categories.push(&e.category);
                }
            }
            let grouped = categories
                .iter()
                .flat_map(|c| entries.iter().filter(move |e| e.category == *c));
            let mut category = "";
            for e in grouped {
                if e.category != category {
                    category = &e.category;
                    writeln!(out, "{}", Escaped(category)).map_err(io)?;
                }
                let pins = |p: &[palette::PalettePin]| {
                    p.iter()
                        .map(|p| match p.default {
                            Some(d) => format!("{}:{} = {d}", p.name, p.ty),
                            None => format!("{}:{}", p.name, p.ty),
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let props = if e.properties.is_empty() {
                    String::new()
                } else {
                    let list = e
                        .properties
                        .iter()
                        .map(|p| format!("{} = {}", p.name, p.default))
                        .collect::<Vec<_>>()
                        .join(", ");
                    format!(" {{ {list} }}")
                };
                let line = format!(
                    "  {:<24} {:<20} ({}) -> ({}){props}",
                    e.kind,
                    e.name,
                    pins(&e.inputs),
                    pins(&e.outputs)
                );
                writeln!(out, "{}", Escaped(&line)).map_err(io)?;
                writeln!(out, "      {}", Escaped(&e.description)).map_err(io)?;
            }
        }
    }
    if !diags.is_empty() {
        // The palette itself is still valid; say why events may be missing.
        eprint!("{}", human_diagnostics(ctx, &diags));
    }
    Ok(status(&diags))
}

/// `sinew migrate`: each file at the lowest format that holds its data (or `to`), edited in
/// place of what changes only, re-read before it is written, written atomically.
pub fn migrate(
    ctx: &Ctx,
    files: &[PathBuf],
    to: Option<u32>,
    out: &mut dyn Write,
) -> Result<u8, String> {
    if let Some(n) = to
        && !(1..=animseq::CURRENT_FORMAT).contains(&n)
    {
        eprintln!(
            "error: --to {n}: Sinew writes formats 1 to {}",
            animseq::CURRENT_FORMAT
        );
        return Ok(FAILURE);
    }
    let mut code = OK;
    let mut all = Vec::new();
    for f in files {
        let name = ctx.display(f);
        let bytes = match crate::fsutil::read_input(f, crate::fsutil::InputKind::Clip) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", Escaped(&name));
                code = FAILURE;
                continue;
            }
        };
        let text = match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                // Reported as the loader reports it (E0100 at the first bad byte).
                all.extend(animseq::load_bytes(&name, e.as_bytes()).diagnostics);
                code = code.max(super::INPUT_ERRORS);
                continue;
            }
        };
        let src = crate::diag::SourceFile::new(name.clone(), text);
        let report = match animseq::migrate(&src, to) {
            Ok(animseq::Migration::Unchanged { format }) => {
                format!("{name}: unchanged (format {format})")
            }
            Ok(animseq::Migration::Rewritten { from, to, text }) => {
                if let Err(e) = crate::fsutil::write_atomic(f, text.as_bytes()) {
                    eprintln!("error: cannot write {}: {e}", Escaped(&name));
                    code = FAILURE;
                    continue;
                }
                format!("{name}: format {from} -> {to}")
            }
            Err(animseq::MigrateError::Invalid(diags)) => {
                all.extend(diags);
                code = code.max(super::INPUT_ERRORS);
                continue;
            }
            Err(e) => {
                eprintln!(
                    "error: {}: {}; the file is left as it was",
                    Escaped(&name),
                    Escaped(&e.to_string())
                );
                code = code.max(super::INPUT_ERRORS);
                continue;
            }
        };
        // The one escaping rule: the file name is the user's, control characters and all.
        writeln!(out, "{}", Escaped(&report)).map_err(|e| e.to_string())?;
    }
    if !all.is_empty() {
        eprint!("{}", human_diagnostics(ctx, &all));
    }
    Ok(code)
}
