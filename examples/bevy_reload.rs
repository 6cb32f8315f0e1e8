//! Hot reload in a Bevy app: the scene runs at wall-clock rate with Bevy's `file_watcher` on;
//! edit one of its graphs (or clips) while it runs and the change is picked up at the next
//! update — every instance switches module keeping its variables, or, when the graph does not
//! compile, the old module keeps running and the diagnostics are printed. Trace lines (as
//! `sinew run` prints them) and the plugin's messages go to standard output.
//!
//! ```sh
//! cargo run --release --features bevy --example bevy_reload -- SCENE [--assets DIR] [--seconds N]
//! ```
//!
//! e.g. `-- scenes/demo.scene.ron --seconds 60`, then edit `graphs/demo/villager.bpg`.

use std::io::Write;
use std::time::{Duration, Instant};

use bevy_asset::AssetServer;
use bevy_ecs::message::Messages;
use sinew::bevy::headless_app;
use sinew::bevy::{
    SinewLoadSettings, SinewMessage, SinewPlugin, SinewScene, SinewSceneAsset, SinewSceneFailed,
    SinewSpawned,
};
use sinew::runtime::{TraceFormat, TraceWriter};

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let (mut scene, mut assets, mut seconds) = (None, "assets".to_string(), 30.0f64);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--assets" => assets = args.next().ok_or("--assets needs a value")?,
            "--seconds" => {
                seconds = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .ok_or("--seconds needs a number")?
            }
            _ => scene = Some(a),
        }
    }
    let scene = scene.ok_or("usage: bevy_reload SCENE [--assets DIR] [--seconds N]")?;
    let root = std::env::current_dir().map_err(|e| e.to_string())?;

    let mut app = headless_app(&root, true, None);
    app.add_plugins(SinewPlugin {
        assets: assets.clone(),
        trace: true,
        ..SinewPlugin::default()
    });
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load_builder()
        .with_settings(move |s: &mut SinewLoadSettings| s.assets = Some(assets.clone()))
        .load::<SinewSceneAsset>(scene);
    let carrier = app.world_mut().spawn(SinewScene(handle)).id();

    let mut cursor = app
        .world()
        .resource::<Messages<SinewMessage>>()
        .get_cursor();
    let start = Instant::now();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    while start.elapsed().as_secs_f64() < seconds {
        app.update();
        let world = app.world_mut();
        let messages: Vec<SinewMessage> = cursor
            .read(world.resource::<Messages<SinewMessage>>())
            .cloned()
            .collect();
        for m in messages {
            if let SinewMessage::Failed(_) = m
                && let Some(f) = world.get::<SinewSceneFailed>(carrier)
            {
                for d in &f.diagnostics {
                    let sev = if d.is_error() { "error" } else { "warning" };
                    eprintln!("{}: {sev}[{}]: {}", d.file, d.code, d.message);
                }
            }
            eprintln!("sinew: {m:?}");
        }
        if let Some(s) = world.entity_mut(carrier).take::<SinewSpawned>() {
            let w = TraceWriter::new(&s.spawned, &s.event_names, TraceFormat::Human);
            w.write_tick(world, &mut out).map_err(|e| e.to_string())?;
            world.entity_mut(carrier).insert(s);
        }
        out.flush().map_err(|e| e.to_string())?;
        std::thread::sleep(Duration::from_millis(1));
    }
    Ok(())
}
