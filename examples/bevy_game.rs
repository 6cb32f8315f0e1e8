//! A small headless Bevy game wired to Sinew through the game bridge (`docs/bevy.md`,
//! `docs/bridge.md`): nothing here reads Sinew's internals.
//!
//! - The hero's footsteps play "sounds" through a global observer of [`SinewNotify`].
//! - The hero's hit window strikes the training dummy: its graph calls `game.apply_damage`,
//!   bound to an ordinary Bevy system ([`SinewAppExt::add_sinew_node`]) that lowers the
//!   dummy's `Health` and returns what is left, which the graph logs.
//! - A per-entity observer of [`SinewWindow`] on the hero says when the blade swings.
//! - Every half second (a key-press-like timer) the game hurts the hero and sends it
//!   `custom::hit` ([`SinewSend`]); the hero's graph asks the game for its health through the
//!   Pure game node `game.health` and reacts.
//!
//! The project is laid out as Bevy expects (`examples/bevy_game/assets/` holds the scene, the
//! graph, the clip and the game node declarations). Frames are stepped by a fixed 1/60 s, so
//! the output is the same on every machine (`tests/bevy_game.rs` checks it).
//!
//! ```sh
//! cargo run --release --features bevy --example bevy_game
//! ```

use std::io::Write;
use std::time::{Duration, Instant};

use bevy_app::{App, Update};
use bevy_asset::AssetServer;
use bevy_ecs::prelude::*;
use sinew::bevy::{
    GameCall, SinewAppExt, SinewNotify, SinewPlugin, SinewScene, SinewSceneAsset, SinewSceneFailed,
    SinewSend, SinewSpawned, SinewSystems, SinewWindow, headless_app, spawned_entities,
};
use sinew::runtime::{GameTime, TraceFormat, TraceWriter};

/// Seconds per frame.
const DT: f64 = 1.0 / 60.0;
/// The game's own timer: how often the hero is hit.
const HIT_EVERY: f64 = 0.5;
/// How much each of those hits costs the hero.
const HIT_AMOUNT: f32 = 30.0;

/// A game entity's health (the hero's and the dummy's).
#[derive(Component, Debug)]
pub struct Health(pub f32);

/// The training dummy the hero's blade strikes.
#[derive(Component)]
pub struct Dummy;

/// The hero, once the scene has spawned it.
#[derive(Resource)]
pub struct Hero(pub Entity);

/// What the game did, one line each, in order (the example prints it; the test checks it).
#[derive(Resource, Default)]
pub struct GameLog(pub Vec<String>);

/// The game's hit timer.
#[derive(Resource, Default)]
struct HitTimer(f64);

/// Builds the game: Bevy's headless plugins rooted at `root`, Sinew, the game's systems,
/// observers and game-node bindings.
pub fn build(root: &std::path::Path) -> App {
    let mut app = headless_app(root, false, Some(Duration::from_secs_f64(DT)));
    app.add_plugins(SinewPlugin {
        dt: DT,
        trace: true,
        ..SinewPlugin::default()
    });
    app.init_resource::<GameLog>().init_resource::<HitTimer>();

    // Graphs call the game: one Bevy system per declared game node.
    app.add_sinew_node("game.apply_damage", apply_damage);
    app.add_sinew_node("game.health", health);

    // The game hears footsteps, wherever they happen.
    app.add_observer(play_footstep);

    // The game's own systems, ordered against Sinew's frame.
    app.add_systems(
        Update,
        (find_hero, hit_hero_now_and_then).before(SinewSystems),
    );
    app.add_systems(Update, print_graph_logs.after(SinewSystems));

    // The game's own entity, beside the scene's.
    app.world_mut().spawn((Dummy, Health(100.0)));
    app
}

/// `game.apply_damage`: the blade strikes the dummy; returns its health left.
fn apply_damage(
    In(mut call): In<GameCall>,
    mut dummies: Query<&mut Health, With<Dummy>>,
    mut log: ResMut<GameLog>,
) -> GameCall {
    let amount = call.f32("amount").unwrap_or(0.0);
    if let Ok(mut hp) = dummies.single_mut() {
        hp.0 = (hp.0 - amount).max(0.0);
        log.0.push(format!("game: the dummy takes {amount} damage"));
        call.set_f32("remaining", hp.0);
    }
    call
}

/// `game.health` (Pure): the health of the entity the graph asks about.
fn health(In(mut call): In<GameCall>, healths: Query<&Health>) -> GameCall {
    if let Ok(of) = call.entity_in("of")
        && let Ok(hp) = healths.get(of)
    {
        call.set_f32("value", hp.0);
    }
    call
}

/// Footsteps become sounds (a global observer: every entity's notifies).
fn play_footstep(ev: On<SinewNotify>, mut log: ResMut<GameLog>) {
    let side = if ev.is("footstep_l") {
        "left"
    } else if ev.is("footstep_r") {
        "right"
    } else {
        return;
    };
    let surface = ev.str("surface").unwrap_or("ground");
    let volume = ev.f32("volume").unwrap_or(1.0);
    log.0.push(format!(
        "sound: {side} step on {surface} (volume {volume}) at {:.3} s",
        ev.time
    ));
}

/// Finds the hero among the scene's entities once it has spawned, gives it health and a
/// per-entity observer of its windows.
fn find_hero(mut commands: Commands, hero: Option<Res<Hero>>, carriers: Query<&SinewSpawned>) {
    if hero.is_some() {
        return;
    }
    let Some(entity) = carriers.iter().find_map(|s| {
        s.spawned
            .entities
            .iter()
            .find(|(name, ..)| name == "hero")
            .map(|(_, e, _)| *e)
    }) else {
        return;
    };
    commands.insert_resource(Hero(entity));
    commands.entity(entity).insert(Health(100.0)).observe(
        |ev: On<SinewWindow>, mut log: ResMut<GameLog>| {
            if ev.is("hit") && ev.is_begin() {
                log.0
                    .push(format!("game: the hero swings at {:.3} s", ev.time));
            }
        },
    );
}

/// Every [`HIT_EVERY`] seconds of game time the hero is hit: the game lowers its health and
/// tells its graph (`custom::hit`).
fn hit_hero_now_and_then(
    mut commands: Commands,
    hero: Option<Res<Hero>>,
    mut timer: ResMut<HitTimer>,
    mut healths: Query<&mut Health, Without<Dummy>>,
    dummy: Query<Entity, With<Dummy>>,
    mut log: ResMut<GameLog>,
) {
    let Some(hero) = hero else { return };
    timer.0 += DT;
    if timer.0 + 1e-9 < HIT_EVERY {
        return;
    }
    timer.0 -= HIT_EVERY;
    let Ok(mut hp) = healths.get_mut(hero.0) else {
        return;
    };
    hp.0 = (hp.0 - HIT_AMOUNT).max(0.0);
    log.0
        .push(format!("game: the hero is hit, health {}", hp.0));
    let mut hit = SinewSend::new(hero.0, "custom::hit").with("amount", HIT_AMOUNT);
    if let Ok(dummy) = dummy.single() {
        hit = hit.sender(dummy);
    }
    commands.trigger(hit);
}

/// The graphs' `debug.log` lines join the game's log.
fn print_graph_logs(world: &mut World) {
    let (spawned, names) = spawned_entities(world);
    if spawned.entities.is_empty() {
        return;
    }
    let writer = TraceWriter::new(&spawned, &names, TraceFormat::Human);
    let mut out = Vec::new();
    if writer.write_tick(world, &mut out).is_err() {
        return;
    }
    let text = String::from_utf8_lossy(&out).into_owned();
    let mut log = world.resource_mut::<GameLog>();
    for line in text.lines() {
        // `tick   24  t=0.383   log     hero  hero: dummy health left: 88.0` (entity, graph: message)
        if let Some((_, rest)) = line.split_once("   log     ") {
            log.0.push(format!("graph log: {rest}"));
        }
    }
}

/// Loads the scene, runs `frames` frames of game after it spawned, returns the game's log.
pub fn run(root: &std::path::Path, frames: u32) -> Result<Vec<String>, String> {
    let mut app = build(root);
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load::<SinewSceneAsset>("hero.scene.ron");
    let carrier = app.world_mut().spawn(SinewScene(handle)).id();
    let deadline = Instant::now() + Duration::from_secs(60);
    while app.world().get::<SinewSpawned>(carrier).is_none() {
        if let Some(failed) = app.world().get::<SinewSceneFailed>(carrier) {
            return Err(format!("the scene did not load: {failed:?}"));
        }
        if Instant::now() > deadline {
            return Err("the scene did not load within 60 s".into());
        }
        app.update();
    }
    let start = app.world().resource::<GameTime>().tick();
    while app.world().resource::<GameTime>().tick() < start + u64::from(frames) {
        app.update();
    }
    Ok(std::mem::take(
        &mut app.world_mut().resource_mut::<GameLog>().0,
    ))
}

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/bevy_game/assets");
    match run(&root, 90) {
        Ok(lines) => {
            let mut out = std::io::stdout().lock();
            for l in lines {
                let _ = writeln!(out, "{l}");
            }
        }
        Err(e) => {
            eprintln!("bevy_game: {e}");
            std::process::exit(1);
        }
    }
}
