//! The arguments `sinew run` takes, as the examples read them (`embed`, `bevy_headless`):
//! `SCENE [--assets DIR] [--ticks N] [--dt S] [--format human|json]`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use sinew::runtime::TraceFormat;

/// What to run (the arguments `sinew run` takes).
pub struct Options {
    /// The `.scene.ron` file.
    pub scene: PathBuf,
    /// The assets folder (default `assets`).
    pub assets: PathBuf,
    /// Ticks to run (default 60).
    pub ticks: u64,
    /// Tick length in seconds (default 1/60; finite, in (0, 3600]).
    pub dt: f64,
    /// Trace format (default human).
    pub format: TraceFormat,
}

/// Parses the arguments of example `program`.
pub fn parse(program: &str, args: impl IntoIterator<Item = String>) -> Result<Options, String> {
    let mut o = Options {
        scene: PathBuf::new(),
        assets: PathBuf::from("assets"),
        ticks: 60,
        dt: 1.0 / 60.0,
        format: TraceFormat::Human,
    };
    let mut scene = None;
    let mut args = args.into_iter();
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--assets" => o.assets = PathBuf::from(value()?),
            "--ticks" => o.ticks = value()?.parse().map_err(|e| format!("--ticks: {e}"))?,
            "--dt" => o.dt = value()?.parse().map_err(|e| format!("--dt: {e}"))?,
            "--format" => {
                o.format = match value()?.as_str() {
                    "human" => TraceFormat::Human,
                    "json" => TraceFormat::Json,
                    f => return Err(format!("--format is human or json, not {f}")),
                }
            }
            _ if a.starts_with("--") || scene.is_some() => {
                return Err(format!("unexpected argument {a}"));
            }
            _ => scene = Some(PathBuf::from(a)),
        }
    }
    o.scene = scene.ok_or(format!(
        "usage: {program} SCENE [--assets DIR] [--ticks N] [--dt S] [--format json]"
    ))?;
    if !(o.dt.is_finite() && o.dt > 0.0 && o.dt <= 3600.0) {
        return Err(format!("--dt must be in (0, 3600], got {}", o.dt));
    }
    Ok(o)
}

/// The examples' `main`: parses the arguments of `program`, calls `run` with standard output
/// and error, and exits with its status (2 for argument and I/O errors, as `sinew run`).
pub fn main(
    program: &str,
    run: fn(&Options, &mut dyn Write, &mut dyn Write) -> Result<u8, String>,
) -> ExitCode {
    let code = match parse(program, std::env::args().skip(1)) {
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
        Ok(o) => {
            let stdout = std::io::stdout();
            match run(&o, &mut stdout.lock(), &mut std::io::stderr()) {
                Ok(code) => code,
                Err(e) => {
                    eprintln!("error: {e}");
                    2
                }
            }
        }
    };
    ExitCode::from(code)
}
