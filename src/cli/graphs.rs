//! `sinew check`, `build`, `disasm` and `fmt`: the commands over `.bpg` graphs and modules.

use super::{Ctx, FAILURE, INPUT_ERRORS, OK, status, write_json};
use crate::bytecode::{self, Module};
use crate::catalog::scan::LiveCatalog;
use crate::compile::{self, Compiled};
use crate::diag::render::{human, to_json};
use crate::diag::{self, Diagnostic, SourceFile};
use crate::escape::Escaped;
use rayon::prelude::*;
use serde_json::json;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Output format of `check` (SARIF only there).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CheckFormat {
    Human,
    Json,
    Sarif,
}

/// One graph file found under the given paths.
pub struct GraphFile {
    pub path: PathBuf,
    /// Where its module goes under `--out` (relative, `.sbc`).
    pub out: PathBuf,
}

/// Every `.bpg` under the paths (a named file is taken whatever its extension), in a stable
/// order; a missing path is an I/O failure.
pub fn collect(ctx: &Ctx, paths: &[PathBuf]) -> Result<Vec<GraphFile>, String> {
    let mut out = Vec::new();
    for p in paths {
        let meta =
            std::fs::metadata(p).map_err(|e| format!("cannot read {}: {e}", ctx.display(p)))?;
        if meta.is_file() {
            if super::scenes::is_animation_file(p) {
                continue; // validated by `scenes::check_animation_files`
            }
            let stem = p.file_stem().unwrap_or_default();
            out.push(GraphFile {
                path: p.clone(),
                out: PathBuf::from(stem).with_extension("sbc"),
            });
            continue;
        }
        let mut stack = vec![p.clone()];
        let mut found = Vec::new();
        while let Some(d) = stack.pop() {
            let rd = std::fs::read_dir(&d)
                .map_err(|e| format!("cannot read {}: {e}", ctx.display(&d)))?;
            for ent in rd.flatten() {
                let path = ent.path();
                let Ok(ft) = ent.file_type() else { continue };
                if ft.is_dir() {
                    stack.push(path);
                } else if ft.is_file() && path.extension().is_some_and(|e| e == "bpg") {
                    found.push(path);
                }
            }
        }
        found.sort();
        for f in found {
            let rel = f.strip_prefix(p).unwrap_or(&f).with_extension("sbc");
            out.push(GraphFile { path: f, out: rel });
        }
    }
    Ok(out)
}

/// One compiled graph.
pub struct GraphResult {
    pub compiled: Option<Compiled>,
    /// Read/UTF-8 failures.
    pub diagnostics: Vec<Diagnostic>,
}

/// Compiles every graph against the catalog, in parallel; output order follows `files`.
pub fn compile_all(ctx: &Ctx, files: &[GraphFile], live: &LiveCatalog) -> Vec<GraphResult> {
    files
        .par_iter()
        .map(|f| {
            let name = ctx.display(&f.path);
            match std::fs::read(&f.path) {
                Err(e) => GraphResult {
                    compiled: None,
                    diagnostics: vec![
                        Diagnostic::error(
                            crate::catalog::scan::E_UNREADABLE,
                            format!("cannot read file: {e}"),
                        )
                        .in_file(&name),
                    ],
                },
                Ok(bytes) => match String::from_utf8(bytes) {
                    Err(e) => {
                        let src = SourceFile::new(
                            name,
                            String::from_utf8_lossy(e.as_bytes()).into_owned(),
                        );
                        let at = e.utf8_error().valid_up_to();
                        GraphResult {
                            diagnostics: vec![
                                Diagnostic::error(diag::E_NOT_UTF8, "file is not valid UTF-8")
                                    .at(&src, diag::Span::new(at, at + 1)),
                            ],
                            compiled: None,
                        }
                    }
                    Ok(text) => {
                        let src = SourceFile::new(name, text);
                        let compiled = compile::compile(&src, live.catalog());
                        GraphResult {
                            compiled: Some(compiled),
                            diagnostics: Vec::new(),
                        }
                    }
                },
            }
        })
        .collect()
}

struct Checked {
    files: Vec<GraphFile>,
    /// How many scenes were checked.
    scenes: usize,
    results: Vec<GraphResult>,
    all: Vec<Diagnostic>,
}

fn check_inner(
    ctx: &Ctx,
    paths: &[PathBuf],
    assets: &Path,
    quiet_progress: bool,
) -> Result<Checked, String> {
    let files = collect(ctx, paths)?;
    let fmt = if quiet_progress {
        super::Format::Json
    } else {
        super::Format::Human
    };
    let live = super::assets::scan(ctx, assets, fmt)?;
    let results = compile_all(ctx, &files, &live);
    let mut all = live.catalog().diagnostics();
    for r in &results {
        all.extend(r.diagnostics.iter().cloned());
        if let Some(c) = &r.compiled {
            all.extend(c.diagnostics().iter().cloned());
        }
    }
    let anim = super::scenes::check_animation_files(ctx, paths, assets, live.catalog());
    // A file checked on its own and again for a scene (a state machine, a scene's graph or
    // clip, which the catalog and the graph check report too) reports each problem once.
    let key = |d: &Diagnostic| {
        (
            d.file.clone(),
            d.code,
            d.span.start,
            d.span.end,
            d.message.clone(),
        )
    };
    let mut seen: BTreeSet<_> = all.iter().map(key).collect();
    all.extend(anim.diagnostics.into_iter().filter(|d| seen.insert(key(d))));
    diag::sort(&mut all);
    Ok(Checked {
        files,
        scenes: anim.scenes,
        results,
        all,
    })
}

fn human_report(ctx: &Ctx, c: &Checked) -> String {
    human(&c.all, ctx.color)
}

/// `n thing` or `n things`.
fn plural(n: usize, thing: &str) -> String {
    format!("{n} {thing}{}", if n == 1 { "" } else { "s" })
}

pub fn check(
    ctx: &Ctx,
    paths: &[PathBuf],
    assets: &Path,
    format: CheckFormat,
    out: &mut dyn Write,
) -> Result<u8, String> {
    let c = check_inner(ctx, paths, assets, format != CheckFormat::Human)?;
    let (errors, warnings) = diag::counts(&c.all);
    let io = |e: std::io::Error| e.to_string();
    match format {
        CheckFormat::Json => write_json(
            out,
            &json!({"graphs": c.files.len(), "scenes": c.scenes, "errors": errors, "warnings": warnings, "diagnostics": to_json(&c.all)}),
        )?,
        CheckFormat::Sarif => write_json(
            out,
            &diag::sarif::to_sarif(&c.all, env!("CARGO_PKG_VERSION")),
        )?,
        CheckFormat::Human => {
            out.write_all(human_report(ctx, &c).as_bytes())
                .map_err(io)?;
            let scenes = match c.scenes {
                0 => String::new(),
                n => format!(" and {}", plural(n, "scene")),
            };
            writeln!(
                out,
                "checked {}{scenes}: {}, {}",
                plural(c.files.len(), "graph"),
                plural(errors, "error"),
                plural(warnings, "warning"),
            )
            .map_err(io)?;
        }
    }
    Ok(status(&c.all))
}

pub fn build(
    ctx: &Ctx,
    paths: &[PathBuf],
    assets: &Path,
    out_dir: &Path,
    format: super::Format,
    out: &mut dyn Write,
) -> Result<u8, String> {
    let c = check_inner(ctx, paths, assets, format == super::Format::Json)?;
    let (errors, warnings) = diag::counts(&c.all);
    let mut written = Vec::new();
    if errors == 0 {
        for (f, r) in c.files.iter().zip(&c.results) {
            let Some(m) = r.compiled.as_ref().and_then(|c| c.module.as_ref()) else {
                continue;
            };
            let dest = out_dir.join(&f.out);
            if let Some(parent) = dest.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| format!("cannot create {}: {e}", ctx.display(parent)))?;
            }
            crate::fsutil::write_atomic(&dest, &m.module().encode())
                .map_err(|e| format!("cannot write {}: {e}", ctx.display(&dest)))?;
            written.push(ctx.display(&dest));
        }
    }
    let io = |e: std::io::Error| e.to_string();
    match format {
        super::Format::Json => write_json(
            out,
            &json!({"graphs": c.files.len(), "errors": errors, "warnings": warnings, "modules": written, "diagnostics": to_json(&c.all)}),
        )?,
        super::Format::Human => {
            out.write_all(human_report(ctx, &c).as_bytes())
                .map_err(io)?;
            for w in &written {
                writeln!(out, "wrote {}", Escaped(w)).map_err(io)?;
            }
            if errors > 0 {
                writeln!(
                    out,
                    "build failed: {errors} error{}; nothing written",
                    if errors == 1 { "" } else { "s" }
                )
                .map_err(io)?;
            }
        }
    }
    Ok(status(&c.all))
}

/// Decodes and verifies a module file; the verifier's verdict is the only way in.
pub fn load_module(name: &str, bytes: &[u8]) -> Result<bytecode::VerifiedModule, Box<Diagnostic>> {
    let m = Module::decode(bytes).map_err(|e| Box::new(e.to_diagnostic(name)))?;
    bytecode::verify(m).map_err(|e| Box::new(e.to_diagnostic(name)))
}

pub fn disasm(ctx: &Ctx, file: &Path, out: &mut dyn Write) -> Result<u8, String> {
    let name = ctx.display(file);
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read {name}: {e}"))?;
    let loaded = load_module(&name, &bytes);
    drop(bytes);
    match loaded {
        Ok(m) => {
            // Streamed: the text never sits in memory whole.
            let mut w = std::io::BufWriter::with_capacity(1 << 16, out);
            bytecode::disasm::disasm_to(&m, &mut w)
                .and_then(|()| w.flush())
                .map_err(|e| e.to_string())?;
            Ok(OK)
        }
        Err(d) => {
            eprint!("{}", human(std::slice::from_ref(&d), ctx.color));
            Ok(INPUT_ERRORS)
        }
    }
}

pub fn fmt(
    ctx: &Ctx,
    paths: &[PathBuf],
    check_only: bool,
    out: &mut dyn Write,
) -> Result<u8, String> {
    let files = collect(ctx, paths)?;
    let mut code = OK;
    let io = |e: std::io::Error| e.to_string();
    for f in &files {
        let name = ctx.display(&f.path);
        let text = match std::fs::read(&f.path).map(String::from_utf8) {
            Ok(Ok(t)) => t,
            Ok(Err(_)) => {
                eprintln!(
                    "error[{}]: {} is not valid UTF-8",
                    diag::E_NOT_UTF8,
                    Escaped(&name)
                );
                code = code.max(INPUT_ERRORS);
                continue;
            }
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", Escaped(&name));
                code = FAILURE;
                continue;
            }
        };
        let src = SourceFile::new(name.clone(), text);
        match crate::graph::format_source(&src) {
            Err(diags) => {
                eprint!("{}", human(&diags, ctx.color));
                code = code.max(INPUT_ERRORS);
            }
            Ok(formatted) if formatted == src.text() => {}
            Ok(formatted) => {
                if check_only {
                    writeln!(out, "would reformat {}", Escaped(&name)).map_err(io)?;
                    code = code.max(INPUT_ERRORS);
                } else {
                    crate::fsutil::write_atomic(&f.path, formatted.as_bytes())
                        .map_err(|e| format!("cannot write {name}: {e}"))?;
                    writeln!(out, "formatted {}", Escaped(&name)).map_err(io)?;
                }
            }
        }
    }
    Ok(code)
}
