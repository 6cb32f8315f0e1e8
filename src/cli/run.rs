//! `sinew run`: loads a `.scene.ron` through the project loader (`crate::project`: its clips
//! relative to `--assets`, its graphs relative to the scene's folder, compiled against the
//! assets' catalog), runs it headless and prints the trace (`cli.md`) with
//! [`TraceWriter`]: one record per line, then one `end` line per live entity.

use super::{Ctx, FAILURE, Format, INPUT_ERRORS, OK, human_diagnostics};
use crate::app::run::Headless;
use crate::diag::{self, Diagnostic};
use crate::project::{self, FsSource};
use crate::runtime::{TraceFormat, TraceWriter};
use std::io::Write;
use std::path::PathBuf;

pub use crate::app::run::{DEFAULT_TICKS, MAX_DT, MAX_TICKS};

/// Arguments of `sinew run`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The `.scene.ron` file.
    pub scene: PathBuf,
    /// Assets folder (clip paths in the scene are relative to it).
    #[arg(long, default_value = "assets")]
    pub assets: PathBuf,
    /// Number of ticks to run (at most 1000000; default 60, with `--watch --realtime`
    /// unbounded).
    #[arg(long)]
    pub ticks: Option<u64>,
    /// Tick length in seconds (finite, > 0, at most 3600; default 1/60).
    #[arg(long, allow_negative_numbers = true)]
    pub dt: Option<f64>,
    /// Trace format: one readable line or one JSON object per record.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Keep running and reload changed graphs (and the scene) as files change; Ctrl-C ends.
    #[arg(long)]
    pub watch: bool,
    /// With `--watch`: tick at wall-clock rate (one tick per `--dt` seconds).
    #[arg(long, requires = "watch")]
    pub realtime: bool,
}

impl Args {
    /// The tick limit: `--ticks`, else 60, else (watching in real time) none.
    pub fn tick_limit(&self) -> Option<u64> {
        match self.ticks {
            Some(n) => Some(n),
            None if self.watch && self.realtime => None,
            None => Some(DEFAULT_TICKS),
        }
    }
}

/// `sinew run` with standard error as `err`.
pub fn run(ctx: &Ctx, a: &Args, out: &mut dyn Write) -> Result<u8, String> {
    Ok(execute(ctx, a, out, &mut std::io::stderr()))
}

/// Runs the command: the trace goes to `out`; diagnostics and error messages to `err`.
/// Returns the exit status (0, 1 or 2, see `cli.md`).
pub fn execute(ctx: &Ctx, a: &Args, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    match execute_inner(ctx, a, out, err) {
        Ok(code) => code,
        Err(msg) => {
            let _ = writeln!(err, "error: {msg}");
            FAILURE
        }
    }
}

fn execute_inner(
    ctx: &Ctx,
    a: &Args,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<u8, String> {
    let dt = a.dt.unwrap_or(crate::runtime::time::DEFAULT_DT);
    if !crate::app::run::valid_dt(dt) {
        return Err(format!(
            "--dt must be a finite number of seconds in (0, {MAX_DT}], got {dt}"
        ));
    }
    if let Some(ticks) = a.ticks
        && ticks > MAX_TICKS
    {
        return Err(format!("--ticks must be at most {MAX_TICKS}, got {ticks}"));
    }
    let (source, layout) = FsSource::open(ctx.cwd.as_deref(), &a.scene, &a.assets)
        .map_err(|e| format!("cannot read {}: {e}", ctx.display(&a.scene)))?;
    // Watching, the load records the folders it reads from: what the watcher follows.
    let (loaded, dependencies) = if a.watch {
        crate::workspace::load_recorded(&source, &layout, ctx.cwd.as_deref())
    } else {
        (project::load(&source, &layout), Default::default())
    };
    let loaded = loaded.map_err(|e| e.to_string())?;
    report(ctx, &mut loaded.run_diagnostics(), err);
    let Some((mut run, spawned)) = Headless::spawn(&loaded, dt, |_| {})? else {
        return Ok(INPUT_ERRORS);
    };
    let format = match a.format {
        Format::Human => TraceFormat::Human,
        Format::Json => TraceFormat::Json,
    };
    if a.watch {
        let session = super::run_watch::Session {
            ctx,
            args: a,
            source: &source,
            layout: &layout,
            loaded: &loaded,
            spawned: &spawned,
            format,
            dependencies: &dependencies,
        };
        return session.run(&mut run.world, &mut run.schedule, out, err);
    }
    let trace = TraceWriter::new(&spawned, &loaded.event_names, format);
    let io = |e: std::io::Error| e.to_string();
    for _ in 0..a.tick_limit().unwrap_or(DEFAULT_TICKS) {
        if super::stdout_closed() {
            return Ok(OK); // `sinew run … | head`: no one is reading the rest
        }
        for r in run.tick() {
            writeln!(out, "{}", trace.record(&r)).map_err(io)?;
        }
    }
    trace.write_end(&run.world, out).map_err(io)?;
    Ok(OK)
}

pub(super) fn report(ctx: &Ctx, diags: &mut [Diagnostic], err: &mut dyn Write) {
    if diags.is_empty() {
        return;
    }
    diag::sort(diags);
    let _ = write!(err, "{}", human_diagnostics(ctx, diags));
}
