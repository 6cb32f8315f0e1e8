//! `sinew check`, `build`, `disasm` and `fmt`: the commands over `.bpg` graphs and modules.

use super::{Ctx, FAILURE, INPUT_ERRORS, OK, status, write_json};
use crate::bytecode::{self, Module};
use crate::diag::render::{human, to_json};
use crate::diag::{self, Diagnostic, SourceFile};
use crate::escape::Escaped;
use crate::fsutil::walk::ProblemKind;
use crate::fsutil::{InputKind, read_input};
use crate::workspace::{FileKind, Workspace};
use serde_json::json;
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
/// order, each file once (by its real path) however often it is named, and what the walk
/// reported (a graph whose name is not UTF-8, a folder too deep: diagnostics); a missing path
/// is an I/O failure, and so is a path that is neither a regular file nor a folder (a FIFO, a
/// device: reading one could block forever), and a folder that cannot be read.
pub fn collect(ctx: &Ctx, paths: &[PathBuf]) -> Result<(Vec<GraphFile>, Vec<Diagnostic>), String> {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let mut add = |path: PathBuf, rel: PathBuf, out: &mut Vec<GraphFile>| {
        if seen.insert(path.canonicalize().unwrap_or_else(|_| path.clone())) {
            out.push(GraphFile { path, out: rel });
        }
    };
    for p in paths {
        let meta =
            std::fs::metadata(p).map_err(|e| format!("cannot read {}: {e}", ctx.display(p)))?;
        if meta.is_file() {
            if FileKind::of(p).is_some_and(|k| !matches!(k, FileKind::Graph | FileKind::Clip)) {
                continue; // a skeleton, state machine or scene: checked by the workspace
            }
            let stem = p.file_stem().unwrap_or_default();
            add(
                p.clone(),
                PathBuf::from(stem).with_extension("sbc"),
                &mut out,
            );
            continue;
        }
        if !meta.is_dir() {
            return Err(format!(
                "{} is not a regular file or a folder",
                ctx.display(p)
            ));
        }
        // The one walk (`fsutil::walk`, through the workspace's): what `check` checks is what
        // is collected here.
        let (found, walk_problems) = crate::workspace::walk(p, &|k| k == FileKind::Graph)
            .map_err(|e| format!("cannot read {}: {e}", ctx.display(p)))?;
        for problem in walk_problems {
            if let ProblemKind::Unreadable(e) = &problem.kind {
                return Err(format!("cannot read {}: {e}", ctx.display(&problem.path)));
            }
            problems.push(problem.diagnostic(&ctx.display(&problem.path)));
        }
        for f in found {
            add(f.path, f.out, &mut out);
        }
    }
    Ok((out, problems))
}

/// Refuses two graphs whose modules would land on one path under `--out` (compared without
/// case, as case-insensitive file systems do): never a silent overwrite.
fn distinct_outputs(ctx: &Ctx, files: &[GraphFile], out_dir: &Path) -> Result<(), String> {
    let mut by_out: std::collections::BTreeMap<String, &GraphFile> = Default::default();
    for f in files {
        let key = f.out.to_string_lossy().replace('\\', "/").to_lowercase();
        if let Some(first) = by_out.insert(key, f) {
            return Err(format!(
                "{} and {} would both be written to {}; build them into separate --out folders or rename one",
                ctx.display(&first.path),
                ctx.display(&f.path),
                ctx.display(&out_dir.join(&f.out)),
            ));
        }
    }
    Ok(())
}

/// Opens the workspace of `paths` and `assets` (`sinew check` and `build`): scans the catalog,
/// then checks every graph, skeleton, state machine and scene. `quiet_progress`: no progress
/// bar (JSON output).
pub fn open(
    ctx: &Ctx,
    paths: &[PathBuf],
    assets: &Path,
    quiet_progress: bool,
) -> Result<Workspace, String> {
    let fmt = if quiet_progress {
        super::Format::Json
    } else {
        super::Format::Human
    };
    let live = super::assets::scan(ctx, assets, fmt)?;
    Ok(Workspace::new(ctx.cwd.as_deref(), paths, live))
}

struct Checked {
    ws: Workspace,
    all: Vec<Diagnostic>,
}

fn check_inner(
    ctx: &Ctx,
    paths: &[PathBuf],
    assets: &Path,
    quiet_progress: bool,
) -> Result<Checked, String> {
    let ws = open(ctx, paths, assets, quiet_progress)?;
    let all = ws.diagnostics();
    Ok(Checked { ws, all })
}

/// `n thing` or `n things`.
pub fn plural(n: usize, thing: &str) -> String {
    format!("{n} {thing}{}", if n == 1 { "" } else { "s" })
}

/// `checked 3 graphs and 1 scene: 1 error, 0 warnings` (no scene part without scenes).
pub fn summary(graphs: usize, scenes: usize, errors: usize, warnings: usize) -> String {
    let scenes = match scenes {
        0 => String::new(),
        n => format!(" and {}", plural(n, "scene")),
    };
    format!(
        "{}{scenes}: {}, {}",
        plural(graphs, "graph"),
        plural(errors, "error"),
        plural(warnings, "warning"),
    )
}

pub fn check(
    ctx: &Ctx,
    paths: &[PathBuf],
    assets: &Path,
    format: CheckFormat,
    out: &mut dyn Write,
) -> Result<u8, String> {
    collect(ctx, paths)?; // refuses missing paths, FIFOs and devices (exit 2) before any work
    let c = check_inner(ctx, paths, assets, format != CheckFormat::Human)?;
    let (errors, warnings) = diag::counts(&c.all);
    let (graphs, scenes) = (c.ws.graph_count(), c.ws.scene_count());
    let io = |e: std::io::Error| e.to_string();
    match format {
        CheckFormat::Json => write_json(
            out,
            &json!({"graphs": graphs, "scenes": scenes, "errors": errors, "warnings": warnings, "diagnostics": to_json(&c.all)}),
        )?,
        CheckFormat::Sarif => write_json(
            out,
            &diag::sarif::to_sarif(&c.all, env!("CARGO_PKG_VERSION")),
        )?,
        CheckFormat::Human => {
            out.write_all(human(&c.all, ctx.color).as_bytes())
                .map_err(io)?;
            writeln!(out, "checked {}", summary(graphs, scenes, errors, warnings)).map_err(io)?;
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
    // The walk's problems are the workspace's diagnostics too (one walk, one report).
    let (files, _) = collect(ctx, paths)?;
    distinct_outputs(ctx, &files, out_dir)?;
    let c = check_inner(ctx, paths, assets, format == super::Format::Json)?;
    let (errors, warnings) = diag::counts(&c.all);
    let mut written = Vec::new();
    if errors == 0 {
        let modules: Vec<(PathBuf, Vec<u8>)> =
            c.ws.graphs()
                .filter_map(|g| {
                    let m = g.compiled.as_ref()?.module.as_ref()?;
                    Some((out_dir.join(&g.file.out), m.module().encode()))
                })
                .collect();
        written = write_all_or_nothing(ctx, &modules)?;
    }
    let io = |e: std::io::Error| e.to_string();
    match format {
        super::Format::Json => write_json(
            out,
            &json!({"graphs": c.ws.graph_count(), "scenes": c.ws.scene_count(), "errors": errors, "warnings": warnings, "modules": written, "diagnostics": to_json(&c.all)}),
        )?,
        super::Format::Human => {
            out.write_all(human(&c.all, ctx.color).as_bytes())
                .map_err(io)?;
            for w in &written {
                writeln!(out, "wrote {}", Escaped(w)).map_err(io)?;
            }
            if errors > 0 {
                writeln!(
                    out,
                    "build failed: {}; nothing written",
                    plural(errors, "error")
                )
                .map_err(io)?;
            }
        }
    }
    Ok(status(&c.all))
}

/// Writes every module or none: each is first staged beside its destination (folders created
/// as needed); only when all are on disk are they renamed into place. A failure while staging
/// removes the temporaries and the folders it created and leaves every destination as it was.
/// Returns the display paths written.
fn write_all_or_nothing(ctx: &Ctx, modules: &[(PathBuf, Vec<u8>)]) -> Result<Vec<String>, String> {
    let mut created: Vec<PathBuf> = Vec::new();
    let mut staged = Vec::with_capacity(modules.len());
    let result = (|| -> Result<(), String> {
        for (dest, bytes) in modules {
            if let Some(parent) = dest.parent() {
                create_dirs(parent, &mut created)
                    .map_err(|e| format!("cannot create {}: {e}", ctx.display(parent)))?;
            }
            let s = crate::fsutil::stage(dest, bytes)
                .map_err(|e| format!("cannot write {}: {e}", ctx.display(dest)))?;
            staged.push((s, dest));
        }
        Ok(())
    })();
    if let Err(e) = result {
        drop(staged);
        for d in created.iter().rev() {
            let _ = std::fs::remove_dir(d);
        }
        return Err(format!("{e}; nothing written"));
    }
    let mut written = Vec::with_capacity(staged.len());
    let mut rest = staged.into_iter();
    for (s, dest) in rest.by_ref() {
        if let Err(e) = s.commit() {
            return Err(format!(
                "cannot write {}: {e}; already written: {}",
                ctx.display(dest),
                if written.is_empty() {
                    "none".to_string()
                } else {
                    written.join(", ")
                }
            ));
        }
        written.push(ctx.display(dest));
    }
    Ok(written)
}

/// `create_dir_all` that records the folders it created (outermost first).
fn create_dirs(dir: &Path, created: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if dir.as_os_str().is_empty() || dir.is_dir() {
        return Ok(());
    }
    if let Some(parent) = dir.parent() {
        create_dirs(parent, created)?;
    }
    match std::fs::create_dir(dir) {
        Ok(()) => {
            created.push(dir.to_path_buf());
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && dir.is_dir() => Ok(()),
        Err(e) => Err(e),
    }
}

/// Decodes and verifies a module file; the verifier's verdict is the only way in.
pub fn load_module(name: &str, bytes: &[u8]) -> Result<bytecode::VerifiedModule, Box<Diagnostic>> {
    let m = Module::decode(bytes).map_err(|e| Box::new(e.to_diagnostic(name)))?;
    bytecode::verify(m).map_err(|e| Box::new(e.to_diagnostic(name)))
}

pub fn disasm(ctx: &Ctx, file: &Path, out: &mut dyn Write) -> Result<u8, String> {
    let name = ctx.display(file);
    let bytes =
        read_input(file, InputKind::Module).map_err(|e| format!("cannot read {name}: {e}"))?;
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
    let (files, problems) = collect(ctx, paths)?;
    let mut code = OK;
    if !problems.is_empty() {
        eprint!("{}", human(&problems, ctx.color));
        code = INPUT_ERRORS;
    }
    let io = |e: std::io::Error| e.to_string();
    for f in &files {
        let name = ctx.display(&f.path);
        let text = match read_input(&f.path, InputKind::Graph).map(String::from_utf8) {
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
                    if let Err(e) = crate::fsutil::write_atomic(&f.path, formatted.as_bytes()) {
                        eprintln!("error: cannot write {}: {e}", Escaped(&name));
                        code = FAILURE;
                        continue;
                    }
                    writeln!(out, "formatted {}", Escaped(&name)).map_err(io)?;
                }
            }
        }
    }
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::summary;

    #[test]
    fn summaries_count_with_plurals_and_name_scenes_when_there_are_some() {
        assert_eq!(summary(1, 0, 1, 1), "1 graph: 1 error, 1 warning");
        assert_eq!(
            summary(3, 1, 1, 0),
            "3 graphs and 1 scene: 1 error, 0 warnings"
        );
        assert_eq!(
            summary(0, 2, 0, 2),
            "0 graphs and 2 scenes: 0 errors, 2 warnings"
        );
    }
}
