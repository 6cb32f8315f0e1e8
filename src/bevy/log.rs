//! Load and reload failures logged through `tracing` (where a Bevy game's log goes), besides
//! the [`SinewMessage`](super::SinewMessage)s: a scene or actor that does not spawn is a `warn`
//! per error diagnostic (at most [`LOGGED`], then a count) or an `error` with the reason; a
//! reload that fails is a `warn` per diagnostic, a reload error an `error`.

use bevy_ecs::prelude::*;

use super::SinewScene;
use crate::diag::Diagnostic;
use crate::runtime::TraceKind;

/// Most diagnostics logged for one failure (the rest are counted).
pub const LOGGED: usize = 8;

fn scene_name(world: &World, carrier: Entity) -> String {
    let server = world.get_resource::<bevy_asset::AssetServer>();
    let handle = world
        .get::<SinewScene>(carrier)
        .map(|s| s.0.id())
        .or_else(|| {
            world
                .get::<super::SinewActor>(carrier)
                .map(|a| a.scene.id())
        });
    match (server, handle) {
        (Some(server), Some(id)) => server
            .get_path(id)
            .map_or_else(|| format!("{carrier}"), |p| p.to_string()),
        _ => format!("{carrier}"),
    }
}

fn diagnostics(what: &str, diagnostics: &[Diagnostic]) {
    let errors: Vec<&Diagnostic> = diagnostics.iter().filter(|d| d.is_error()).collect();
    for d in errors.iter().take(LOGGED) {
        tracing::warn!("{what}: {}", d.one_line());
    }
    if errors.len() > LOGGED {
        tracing::warn!("{what}: {} more errors", errors.len() - LOGGED);
    }
}

/// A scene or actor (on `carrier`) did not spawn.
pub(super) fn spawn_failed(
    world: &World,
    carrier: Entity,
    found: &[Diagnostic],
    error: Option<&str>,
) {
    let scene = scene_name(world, carrier);
    let what = format!("sinew: `{scene}` did not spawn");
    match error {
        Some(e) => tracing::error!("{what}: {e}"),
        None => tracing::error!(
            "{what}: {} errors",
            found.iter().filter(|d| d.is_error()).count()
        ),
    }
    diagnostics(&what, found);
}

/// A hot reload record of the scene on `carrier`: failures and errors are logged.
pub(super) fn reload_record(carrier: Entity, r: &TraceKind) {
    match r {
        TraceKind::ReloadFailed {
            file,
            diagnostics: d,
        } => {
            let what = format!("sinew: reload of `{file}` failed (the old version keeps running)");
            tracing::warn!("{what}");
            diagnostics(&what, d);
        }
        TraceKind::Error { message, .. } => {
            tracing::error!("sinew: reload of the scene on {carrier}: {message}");
        }
        _ => {}
    }
}
