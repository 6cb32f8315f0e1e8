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
use std::path::Path;
use std::time::{Duration, Instant};

use bevy_asset::AssetServer;
use sinew::bevy::headless_app;
use sinew::bevy::{
    SinewLoadSettings, SinewPlugin, SinewScene, SinewSceneAsset, SinewSceneFailed, SinewSpawned,
};
use sinew::diag::render::human;

use sinew::runtime::{GameTime, TraceWriter};

#[path = "support/args.rs"]
mod args;
pub use args::Options;

/// Parses `SCENE [--assets DIR] [--ticks N] [--dt S] [--format human|json]`.
pub fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Options, String> {
    args::parse("bevy_headless", args)
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
    let mut app = headless_app(&root, false, Some(Duration::from_secs_f64(o.dt)));
    // As `sinew run`: every game node the scene's graphs call returns its declared defaults
    // (and records a `call` line).
    app.insert_resource(sinew::runtime::GameNodes::headless());
    app.add_plugins(SinewPlugin {
        assets: assets.clone(),
        dt: o.dt,
        trace: true,
    });
    // Virtual time stands still while the scene loads, so Sinew's first tick is the first
    // frame after the spawn (as `sinew run`'s first tick follows its spawn): `--ticks 0`
    // prints only the end lines.
    let mut virtual_time = app
        .world_mut()
        .resource_mut::<bevy_time::Time<bevy_time::Virtual>>();
    virtual_time.set_max_delta(Duration::from_secs_f64(o.dt.max(0.25)));
    virtual_time.pause();

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
            app.world_mut()
                .resource_mut::<bevy_time::Time<bevy_time::Virtual>>()
                .unpause();
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

    // 3. One frame per tick; print what each tick traced, then the end lines.
    let io = |e: std::io::Error| e.to_string();
    let s = app
        .world()
        .get::<SinewSpawned>(carrier)
        .ok_or("the scene was despawned")?;
    let (spawned, names) = (s.spawned.clone(), s.event_names.clone());
    let trace = TraceWriter::new(&spawned, &names, o.format);
    let mut ticked = 0;
    while ticked < o.ticks {
        app.update();
        let now = app.world().resource::<GameTime>().tick();
        if now > ticked {
            ticked = now;
            trace.write_tick(app.world_mut(), out).map_err(io)?;
        }
    }
    trace.write_end(app.world(), out).map_err(io)?;
    Ok(0)
}

fn main() -> std::process::ExitCode {
    args::main("bevy_headless", run)
}
