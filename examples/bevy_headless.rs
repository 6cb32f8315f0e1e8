//! A scene in a real Bevy `App`, headless: `TaskPoolPlugin`, `TimePlugin` and `AssetPlugin`
//! (loading from the current folder), then `SinewPlugin`. The scene is named by a
//! [`SinewScene`] handle, spawned once it and every file it names have loaded, and ticked by
//! `bevy_time` (`TimeUpdateStrategy::ManualDuration`, so each frame is one `--dt` tick). Each
//! tick's trace is printed exactly as `sinew run` prints it for the same scene and ticks.
//!
//! ```sh
//! cargo run --release --features bevy --example bevy_headless -- SCENE [--assets DIR] [--ticks N] [--dt S] [--format json]
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::{AssetMetaCheck, AssetPlugin, AssetServer};
use bevy_time::{TimePlugin, TimeUpdateStrategy};
use sinew::bevy::{
    SinewLoadSettings, SinewPlugin, SinewScene, SinewSceneAsset, SinewSceneFailed, SinewSpawned,
};
use sinew::diag::render::human;

use sinew::runtime::{GameTime, TraceFormat, TraceWriter};

/// What to run (the arguments `sinew run` takes).
pub struct Options {
    /// The `.scene.ron` file, relative to the current folder.
    pub scene: PathBuf,
    /// The assets folder (default `assets`).
    pub assets: PathBuf,
    /// Ticks to run (default 60).
    pub ticks: u64,
    /// Tick length in seconds (default 1/60).
    pub dt: f64,
    /// Trace format (default human).
    pub format: TraceFormat,
}

/// Parses `SCENE [--assets DIR] [--ticks N] [--dt S] [--format human|json]`.
pub fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Options, String> {
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
    o.scene = scene
        .ok_or("usage: bevy_headless SCENE [--assets DIR] [--ticks N] [--dt S] [--format json]")?;
    if !(o.dt.is_finite() && o.dt > 0.0 && o.dt <= 3600.0) {
        return Err(format!("--dt must be in (0, 3600], got {}", o.dt));
    }
    Ok(o)
}

/// A path relative to the current folder, with `/` separators (Bevy's asset paths).
fn asset_path(p: &Path) -> Result<String, String> {
    if p.is_absolute() {
        return Err(format!(
            "{}: give paths relative to the current folder",
            p.display()
        ));
    }
    p.to_str()
        .map(|s| s.replace('\\', "/").trim_start_matches("./").to_string())
        .ok_or_else(|| format!("{}: not UTF-8", p.display()))
}

/// The longest the example waits for the scene's files to load.
const LOAD_TIMEOUT: Duration = Duration::from_secs(60);

/// Builds the app, loads and spawns the scene, runs it: the trace to `out`, diagnostics to
/// `err`. Returns the exit status `sinew run` would (0 ran, 1 the scene does not load, 2 I/O).
pub fn run(o: &Options, out: &mut dyn Write, err: &mut dyn Write) -> Result<u8, String> {
    let scene = asset_path(&o.scene)?;
    let assets = asset_path(&o.assets)?;
    let root = std::env::current_dir().map_err(|e| e.to_string())?;

    // 1. A headless app: tasks, time stepped by exactly `dt` per frame, assets from the
    //    current folder (no watching, no `.meta` files), and Sinew.
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        TimePlugin,
        AssetPlugin {
            file_path: root.to_string_lossy().into_owned(),
            watch_for_changes_override: Some(false),
            meta_check: AssetMetaCheck::Never,
            ..AssetPlugin::default()
        },
    ));
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        o.dt,
    )));
    app.add_plugins(SinewPlugin {
        assets: assets.clone(),
        dt: o.dt,
        trace: true,
    });
    app.world_mut()
        .resource_mut::<bevy_time::Time<bevy_time::Virtual>>()
        .set_max_delta(Duration::from_secs_f64(o.dt.max(0.25)));

    // 2. Name the scene by handle; the plugin spawns it when everything has loaded.
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load_builder()
        .with_settings(move |s: &mut SinewLoadSettings| s.assets = Some(assets.clone()))
        .load::<SinewSceneAsset>(scene);
    let carrier = app.world_mut().spawn(SinewScene(handle)).id();
    let started = Instant::now();
    loop {
        app.update();
        let world = app.world();
        if world.get::<SinewSpawned>(carrier).is_some() {
            break;
        }
        if let Some(failed) = world.get::<SinewSceneFailed>(carrier) {
            write!(err, "{}", human(&failed.diagnostics, false)).map_err(|e| e.to_string())?;
            return match &failed.error {
                Some(e) if failed.diagnostics.is_empty() => Err(e.clone()),
                Some(e) => {
                    writeln!(err, "error: {e}").map_err(|e| e.to_string())?;
                    Ok(1)
                }
                None => Ok(1),
            };
        }
        if started.elapsed() > LOAD_TIMEOUT {
            return Err("the scene did not load in time".into());
        }
    }

    // 3. One frame per tick (the frame that spawned may not have ticked yet); print what each
    //    tick traced, then the end lines.
    let io = |e: std::io::Error| e.to_string();
    let mut ticked = 0;
    let mut print = |app: &mut App, ticked: &mut u64| -> Result<(), String> {
        let now = app.world().resource::<GameTime>().tick();
        if now > *ticked {
            *ticked = now;
            let world = app.world_mut();
            let spawned = world.entity_mut(carrier).take::<SinewSpawned>();
            if let Some(s) = spawned {
                let w = TraceWriter::new(&s.spawned, &s.event_names, o.format);
                let r = w.write_tick(world, out).map_err(io);
                world.entity_mut(carrier).insert(s);
                r?;
            }
        }
        Ok(())
    };
    print(&mut app, &mut ticked)?;
    while ticked < o.ticks {
        app.update();
        print(&mut app, &mut ticked)?;
    }
    let world = app.world();
    let s = world
        .get::<SinewSpawned>(carrier)
        .ok_or("the scene was despawned")?;
    TraceWriter::new(&s.spawned, &s.event_names, o.format)
        .write_end(world, out)
        .map_err(io)?;
    Ok(0)
}

fn main() -> std::process::ExitCode {
    let code = match parse_args(std::env::args().skip(1)) {
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
    std::process::ExitCode::from(code)
}
