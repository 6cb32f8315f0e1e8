//! The one headless run loop: `sinew run` (and `run --watch`) and the studio's `/api/run` spawn
//! a loaded scene with [`Headless::spawn`] and advance it with [`Headless::tick`], which hands
//! back each tick's trace records as data ([`TraceRecord`]s); each front end renders them (the
//! CLI as lines, the studio as JSON values with the invocations behind them).

use crate::project::LoadedScene;
use crate::runtime::scene::{Spawned, headless, spawn};
use crate::runtime::{Trace, TraceRecord};
use bevy_ecs::prelude::{Schedule, World};

/// The most ticks one `sinew run` may take (about 4.6 hours of game time at 60 Hz).
pub const MAX_TICKS: u64 = 1_000_000;
/// The longest tick a run accepts, in seconds (`--dt`, the studio's `dt`).
pub const MAX_DT: f64 = 3600.0;
/// Ticks a run takes when none are asked for.
pub const DEFAULT_TICKS: u64 = 60;

/// Whether `dt` is a tick length a run accepts: finite, > 0, at most [`MAX_DT`].
pub fn valid_dt(dt: f64) -> bool {
    dt.is_finite() && dt > 0.0 && dt <= MAX_DT
}

/// A headless world and its schedule (`runtime::scene::headless`) holding a spawned scene.
pub struct Headless {
    pub world: World,
    pub schedule: Schedule,
}

impl Headless {
    /// Spawns `loaded` (which must be ready: `None` otherwise) into a new headless world with
    /// ticks of `dt` seconds; `prepare` runs on the world before the scene is spawned (the
    /// studio installs its recording dispatcher there).
    pub fn spawn(
        loaded: &LoadedScene,
        dt: f64,
        prepare: impl FnOnce(&mut World),
    ) -> Result<Option<(Headless, Spawned)>, String> {
        let Some((def, assets)) = loaded.ready() else {
            return Ok(None);
        };
        let (mut world, schedule) = headless(dt).map_err(|e| e.to_string())?;
        prepare(&mut world);
        let spawned = spawn(&mut world, def, assets).map_err(|e| e.to_string())?;
        Ok(Some((Headless { world, schedule }, spawned)))
    }

    /// Runs one tick and returns its trace records (drained from the world's [`Trace`]).
    pub fn tick(&mut self) -> Vec<TraceRecord> {
        self.schedule.run(&mut self.world);
        drain(&mut self.world)
    }
}

/// The trace records the world holds now, drained.
pub fn drain(world: &mut World) -> Vec<TraceRecord> {
    world
        .get_resource_mut::<Trace>()
        .map(|mut t| t.drain())
        .unwrap_or_default()
}
