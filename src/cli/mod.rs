//! The `sinew` command line (contract: `cli.md`): parses arguments, calls the library, renders
//! diagnostics and results, and sets the exit status (0 ok, 1 input errors, 2 usage or I/O).
//!
//! Thin by design: every command is a function from parsed arguments to output and a status.

pub(crate) mod assets;
mod crossings;
pub(crate) mod graphs;
pub mod import;
mod picture;
mod review;
pub mod run;
mod run_watch;
mod sample;
mod watch;

use crate::diag::{self, Diagnostic};
use clap::{Parser, Subcommand, ValueEnum};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

/// Exit status: nothing wrong.
pub const OK: u8 = 0;
/// Exit status: the input has errors.
pub const INPUT_ERRORS: u8 = 1;
/// Exit status: usage or I/O failure.
pub const FAILURE: u8 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "sinew",
    version,
    about = "Animation notifies to gameplay graphs: check, build, run"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// Output format of most commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Scans the catalog, compiles every `.bpg` and loads every scene under the paths; writes
    /// nothing.
    Check {
        #[arg(default_value = "graphs")]
        paths: Vec<PathBuf>,
        #[arg(long, default_value = "assets")]
        assets: PathBuf,
        #[arg(long, value_enum, default_value_t = graphs::CheckFormat::Human)]
        format: graphs::CheckFormat,
    },
    /// As `check`, then writes one `.sbc` module per graph (deterministic bytes).
    Build {
        #[arg(default_value = "graphs")]
        paths: Vec<PathBuf>,
        #[arg(long, default_value = "assets")]
        assets: PathBuf,
        #[arg(long)]
        out: PathBuf,
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Prints a verified module's bytecode with node names.
    Disasm { file: PathBuf },
    /// Rewrites graphs canonically; `--check` exits 1 if any would change.
    Fmt {
        #[arg(long)]
        check: bool,
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Events, quarantined identities and per-file diagnostics of an assets folder.
    Catalog {
        #[arg(long, default_value = "assets")]
        assets: PathBuf,
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Every node kind an editor can offer: built-ins and catalog events.
    Palette {
        #[arg(long, default_value = "assets")]
        assets: PathBuf,
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Compiles a scene's graphs and runs it headless, printing a trace.
    Run(run::Args),
    /// Evaluates the notify crossings of one `.animseq` over a playback interval.
    Crossings(crossings::Args),
    /// Rewrites `.animseq` files at the lowest format version that holds their data (or the
    /// format `--to` names), editing only what changes: comments and layout are kept.
    Migrate {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The format to write (at least what the data needs); default: the lowest that holds it.
        #[arg(long, value_name = "N")]
        to: Option<u32>,
    },
    /// Draws a graph or state machine as SVG (`--svg OUT`), or prints a sorted listing.
    Graph(picture::GraphArgs),
    /// Compares two versions of a graph as graphs; exit 1 when their behaviour differs.
    Diff(review::DiffArgs),
    /// Serves the visual graph editor on 127.0.0.1 until interrupted (`studio.md`).
    Studio {
        #[arg(long, default_value = "assets")]
        assets: PathBuf,
        #[arg(long, default_value = "graphs")]
        graphs: PathBuf,
        #[arg(long, default_value = "scenes")]
        scenes: PathBuf,
        /// 0 picks a free port.
        #[arg(long, default_value_t = crate::studio::DEFAULT_PORT)]
        port: u16,
    },
    /// Imports glTF models: one `.skel` per animated skin, one `.animseq` per clip, a manifest.
    Import(import::Args),
    /// Prints every bone's local transform of one `.animseq` at a clip time.
    Sample(sample::Args),
    /// Serves the language server protocol for `.bpg` on standard input and output
    /// (`docs/editors.md`); the project is the editor's workspace folder.
    Lsp {
        /// Accepted for clients that pass it; standard input and output is the only transport.
        #[arg(long)]
        stdio: bool,
    },
    /// Keeps the catalog, palette, graphs and scenes checked as files change (PATH: `graphs`).
    Watch {
        paths: Vec<PathBuf>,
        #[arg(long, default_value = "assets")]
        assets: PathBuf,
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
}

pub use crate::app::Ctx;

/// Runs the CLI with the process arguments.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { FAILURE } else { OK });
        }
    };
    let ctx = Ctx::from_env();
    let mut out = QuietPipe(std::io::stdout().lock());
    let code = run(&ctx, cli.command, &mut out);
    let _ = out.flush();
    ExitCode::from(code)
}

/// Set once standard output's reader has gone away (`sinew … | head`).
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Whether standard output's reader has gone away: long-running commands (`run`, `watch`) stop
/// early, as there is no one left to print to.
pub fn stdout_closed() -> bool {
    STDOUT_CLOSED.load(Ordering::Relaxed)
}

/// Standard output that goes quiet when its reader is gone: a broken pipe discards the rest of
/// the output instead of failing the command with an error, and the command keeps the exit
/// status it computed (`sinew check | head -1` still exits 1 on errors).
struct QuietPipe<W>(W);

impl<W: Write> QuietPipe<W> {
    fn quiet<T>(&mut self, r: std::io::Result<T>, ok: T) -> std::io::Result<T> {
        match r {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                STDOUT_CLOSED.store(true, Ordering::Relaxed);
                Ok(ok)
            }
            r => r,
        }
    }
}

impl<W: Write> Write for QuietPipe<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if stdout_closed() {
            return Ok(buf.len());
        }
        let r = self.0.write(buf);
        self.quiet(r, buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        if stdout_closed() {
            return Ok(());
        }
        let r = self.0.flush();
        self.quiet(r, ())
    }
}

/// Runs one command, writing its output to `out`. Errors go to standard error.
pub fn run(ctx: &Ctx, cmd: Command, out: &mut dyn Write) -> u8 {
    let res = match cmd {
        Command::Check {
            paths,
            assets,
            format,
        } => graphs::check(ctx, &paths, &assets, format, out),
        Command::Build {
            paths,
            assets,
            out: dir,
            format,
        } => graphs::build(ctx, &paths, &assets, &dir, format, out),
        Command::Disasm { file } => graphs::disasm(ctx, &file, out),
        Command::Fmt { check, paths } => graphs::fmt(ctx, &paths, check, out),
        Command::Catalog { assets, format } => assets::catalog(ctx, &assets, format, out),
        Command::Palette { assets, format } => assets::palette(ctx, &assets, format, out),
        Command::Crossings(args) => crossings::run(ctx, &args, out),
        Command::Run(args) => run::run(ctx, &args, out),
        Command::Migrate { files, to } => assets::migrate(ctx, &files, to, out),
        Command::Graph(args) => picture::graph(ctx, &args, out),
        Command::Diff(args) => review::run(ctx, &args, out),
        Command::Import(args) => import::run(ctx, &args, out),
        Command::Sample(args) => sample::run(ctx, &args, out),
        Command::Lsp { stdio: _ } => Ok(crate::lsp::run()),
        Command::Watch {
            paths,
            assets,
            format,
        } => watch::run(ctx, &paths, &assets, format, out),
        Command::Studio {
            assets,
            graphs,
            scenes,
            port,
        } => crate::studio::run(
            ctx,
            &crate::studio::Config {
                assets,
                graphs,
                scenes,
                port,
                limits: crate::studio::http::Limits::default(),
            },
            out,
        )
        .map(|()| OK),
    };
    match res {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("error: {}", crate::escape::Escaped(&msg));
            FAILURE
        }
    }
}

/// The status for a set of diagnostics: 1 when any is an error.
pub fn status(diags: &[Diagnostic]) -> u8 {
    if diags.iter().any(Diagnostic::is_error) {
        INPUT_ERRORS
    } else {
        OK
    }
}

/// Renders diagnostics for people. Reads no file: each diagnostic carries the excerpts of the
/// text it points at (`diag::Excerpt`).
pub fn human_diagnostics(ctx: &Ctx, diags: &[Diagnostic]) -> String {
    diag::render::human(diags, ctx.color)
}

/// Writes a JSON value on one line.
pub fn write_json(out: &mut dyn Write, v: &serde_json::Value) -> Result<(), String> {
    writeln!(out, "{v}").map_err(|e| e.to_string())
}

/// Shortest round-trip text of an f64, as serde_json prints it.
pub fn num(x: f64) -> String {
    serde_json::Value::from(x).to_string()
}
