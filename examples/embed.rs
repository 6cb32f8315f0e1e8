//! Embedding Sinew in a game's own bevy_ecs `World` and `Schedule`, through the public library
//! API only: the project loader reads a scene with its clips, skeletons, state machines and
//! graphs (compiled against the assets' catalog); the scene is spawned into the game's world;
//! the game's schedule runs Sinew's systems, the animator and the bytecode VM next to a system
//! of its own; each tick's trace is printed exactly as `sinew run` prints it.
//!
//! ```sh
//! cargo run --release --example embed -- SCENE [--assets DIR] [--ticks N] [--dt S] [--format json]
//! ```
//!
//! `docs/embedding.md` walks through this file.

use std::io::Write;

use bevy_ecs::prelude::*;
use sinew::diag::render::human;
use sinew::project;
use sinew::runtime::scene::{report_flush, spawn};
use sinew::runtime::{
    AnimationSet, Dispatcher, GameTime, SinewSet, Trace, TraceWriter, VmDispatch,
    add_sinew_systems, animate, init_world,
};

#[path = "support/args.rs"]
mod args;
pub use args::Options;

/// Parses `SCENE [--assets DIR] [--ticks N] [--dt S] [--format human|json]`.
pub fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Options, String> {
    args::parse("embed", args)
}

/// The game's own state, kept by the game's own system.
#[derive(Resource, Default)]
struct Frames(u64);

fn count_frames(mut frames: ResMut<Frames>) {
    frames.0 += 1;
}

/// Loads, spawns and runs the scene: the trace to `out`, diagnostics to `err`. Returns the
/// exit status `sinew run` would (0 ran, 1 the scene does not load, 2 I/O failure).
pub fn run(o: &Options, out: &mut dyn Write, err: &mut dyn Write) -> Result<u8, String> {
    // 1. Load the project: every file the scene names, diagnostics as data.
    let loaded = project::load_files(&o.scene, &o.assets).map_err(|e| e.to_string())?;
    let diagnostics = loaded.run_diagnostics();
    // Each diagnostic carries the excerpt it points at: rendering needs no source texts.
    write!(err, "{}", human(&diagnostics, false)).map_err(|e| e.to_string())?;
    let Some((def, assets)) = loaded.ready() else {
        return Ok(1);
    };

    // 2. The game's world: Sinew's resources, the VM as the handler runner, a trace.
    let mut world = World::new();
    init_world(&mut world);
    world.insert_resource(GameTime::new(o.dt).map_err(|e| e.to_string())?);
    world.insert_resource(Dispatcher::new(VmDispatch::new()));
    world.insert_resource(Trace::default());
    world.init_resource::<Frames>();

    // 3. The game's schedule: Sinew's ordered steps, the animator in its set, the flush
    //    reports, and a game system after the flush.
    let mut schedule = Schedule::default();
    add_sinew_systems(&mut schedule);
    schedule.add_systems(animate.in_set(AnimationSet));
    schedule.add_systems(report_flush.after(SinewSet::Flush));
    schedule.add_systems(count_frames.after(SinewSet::Flush));

    // 4. Spawn the scene: animators, graph instances (begin_play is queued), timed actions.
    let spawned = spawn(&mut world, def, assets).map_err(|e| e.to_string())?;

    // 5. One schedule run per tick; print what each tick traced, then the end lines.
    let trace = TraceWriter::new(&spawned, &loaded.event_names, o.format);
    let io = |e: std::io::Error| e.to_string();
    for _ in 0..o.ticks {
        schedule.run(&mut world);
        trace.write_tick(&mut world, out).map_err(io)?;
    }
    trace.write_end(&world, out).map_err(io)?;
    writeln!(err, "embed: {} frames", world.resource::<Frames>().0).map_err(io)?;
    Ok(0)
}

fn main() -> std::process::ExitCode {
    args::main("embed", run)
}
