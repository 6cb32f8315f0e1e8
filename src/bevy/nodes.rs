//! Game nodes bound by a Bevy game (`bridge.md` §1, "Binding at run time"; `docs/bridge.md`,
//! "In Bevy"). [`SinewAppExt::add_sinew_node`] binds a kind to an ordinary Bevy system
//! `fn(In<GameCall>, ..params) -> GameCall`, registered as a one-shot system and run with the
//! call as its input; [`SinewAppExt::add_sinew_node_fn`] binds the library's closure form. Both
//! land in the world's [`GameNodes`], which the plugin inserts (bindings required: a graph
//! calling an unbound kind does not spawn).
//!
//! A binding whose kind no loaded scene's assets folder declares is reported once per kind
//! (a `tracing` error and [`SinewMessage::Binding`]) with the declared kinds and a
//! did-you-mean, when the first scene or actor spawns.

use std::collections::BTreeSet;

use bevy_app::App;
use bevy_ecs::prelude::*;
use bevy_ecs::system::{IntoSystem, SystemId};

use super::SinewMessage;
use crate::runtime::{CallIo, GameNodeError, GameNodes};

/// A game node call as a Bevy system bound with [`SinewAppExt::add_sinew_node`] receives and
/// returns it: the calling entity, typed input getters and output setters (the library's
/// [`GameCall`](crate::runtime::GameCall) without `world()`: the system takes the game's data
/// as its own parameters).
pub type GameCall = CallIo<'static>;

/// The app extension binding game nodes (`use sinew::bevy::SinewAppExt`).
pub trait SinewAppExt {
    /// Binds `kind` to the Bevy system `system` (`fn(In<GameCall>, ResMut<Audio>, Query<..>)
    /// -> GameCall`): each call runs it once, with the call as input; the outputs it sets on
    /// the returned call are the node's outputs.
    fn add_sinew_node<M>(
        &mut self,
        kind: impl Into<String>,
        system: impl IntoSystem<In<GameCall>, GameCall, M> + 'static,
    ) -> &mut Self;

    /// Binds `kind` to `f`, the library's form (`GameNodes::bind`): `|call: &mut
    /// runtime::GameCall| -> Result<(), GameNodeError>`, with `call.world()`.
    fn add_sinew_node_fn(
        &mut self,
        kind: impl Into<String>,
        f: impl FnMut(&mut crate::runtime::GameCall<'_>) -> Result<(), GameNodeError>
        + Send
        + Sync
        + 'static,
    ) -> &mut Self;
}

impl SinewAppExt for App {
    fn add_sinew_node<M>(
        &mut self,
        kind: impl Into<String>,
        system: impl IntoSystem<In<GameCall>, GameCall, M> + 'static,
    ) -> &mut Self {
        let id: SystemId<In<GameCall>, GameCall> = self.world_mut().register_system(system);
        let kind = kind.into();
        let name = kind.clone();
        self.add_sinew_node_fn(kind, move |call| {
            let (world, io) = call.split();
            match world.run_system_with(id, io.to_owned_call()) {
                Ok(back) => {
                    io.take_outputs(back);
                    Ok(())
                }
                Err(e) => Err(GameNodeError(format!(
                    "`{name}`: its system did not run ({e})"
                ))),
            }
        })
    }

    fn add_sinew_node_fn(
        &mut self,
        kind: impl Into<String>,
        f: impl FnMut(&mut crate::runtime::GameCall<'_>) -> Result<(), GameNodeError>
        + Send
        + Sync
        + 'static,
    ) -> &mut Self {
        self.world_mut()
            .get_resource_or_insert_with(GameNodes::new)
            .bind(kind, f);
        self
    }
}

/// Bound kinds already reported as undeclared.
#[derive(Resource, Default)]
pub(super) struct ReportedBindings(BTreeSet<String>);

/// Reports every bound kind that `declared` (the game node kinds of a scene's assets folder)
/// lacks, once per kind.
pub(super) fn check_bindings(world: &mut World, declared: &[String]) {
    let Some(nodes) = world.get_resource::<GameNodes>() else {
        return;
    };
    let stray: Vec<String> = nodes
        .kinds()
        .into_iter()
        .filter(|k| !declared.iter().any(|d| d == k))
        .map(str::to_string)
        .collect();
    if stray.is_empty() {
        return;
    }
    let mut reported = world
        .remove_resource::<ReportedBindings>()
        .unwrap_or_default();
    for kind in stray {
        if !reported.0.insert(kind.clone()) {
            continue;
        }
        let message = undeclared(&kind, declared);
        tracing::error!("{message}");
        world.write_message(SinewMessage::Binding(message));
    }
    world.insert_resource(reported);
}

/// `game.play_sond` is bound but not declared: the message, with the declared kinds and the
/// closest one.
fn undeclared(kind: &str, declared: &[String]) -> String {
    const LISTED: usize = 16;
    let mut m = format!("a game node binding names `{kind}`, which no `*.nodes.ron` declares");
    if let Some(near) = crate::suggest::closest(kind, declared.iter().map(String::as_str)) {
        m.push_str(&format!(" (did you mean `{near}`?)"));
    }
    if declared.is_empty() {
        m.push_str("; no game nodes are declared");
    } else {
        let names: Vec<String> = declared
            .iter()
            .take(LISTED)
            .map(|k| format!("`{k}`"))
            .collect();
        m.push_str(&format!("; declared: {}", names.join(", ")));
        if declared.len() > LISTED {
            m.push_str(&format!(" and {} more", declared.len() - LISTED));
        }
    }
    m
}
