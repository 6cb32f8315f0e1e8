//! The bridge's events under `SinewPlugin` (`bridge.md` §2–3): global and per-entity observers
//! and `MessageReader`s hear every notify, window edge and graph custom send, in trace order,
//! exactly once (the plugin's `Trace` is the independent witness); `SinewSend` from a game
//! system before Sinew's systems is delivered in that frame's tick, and a mismatched one
//! delivers nothing.

#[path = "support/logs.rs"]
mod logs;
#[path = "support/wait.rs"]
mod wait;

use std::path::Path;
use std::time::{Duration, Instant};

use bevy_app::{App, Update};
use bevy_asset::AssetServer;
use bevy_ecs::prelude::*;
use sinew::bevy::{
    SinewCustom, SinewLoadSettings, SinewNotify, SinewPlugin, SinewScene, SinewSceneAsset,
    SinewSceneFailed, SinewSend, SinewSet, SinewSpawned, SinewWindow, headless_app,
};
use sinew::runtime::{GameTime, Trace, TraceKind, TraceRecord};

const DT: f64 = 1.0 / 60.0;

/// What the game heard, by who heard it, as comparable lines.
#[derive(Resource, Default)]
struct Heard {
    global: Vec<String>,
    by_entity: Vec<String>,
    messages: Vec<String>,
}

/// A `SinewSend` the next frame's game system triggers (before Sinew's systems).
#[derive(Resource, Default)]
struct Pending(Vec<SinewSend>);

fn line(kind: &str, tick: u64, entity: Entity, event: &str, clip_time: f64) -> String {
    format!("{tick} {kind} {} {event} {clip_time:?}", entity.to_bits())
}

fn notify_line(ev: &SinewNotify) -> String {
    line("notify", ev.tick, ev.entity, &ev.event, ev.clip_time)
}

fn window_line(ev: &SinewWindow) -> String {
    let kind = if ev.is_begin() {
        "begin".to_string()
    } else {
        format!("end completed={}", ev.completed())
    };
    line(&kind, ev.tick, ev.entity, &ev.event, ev.clip_time)
}

/// The trace's notify records as the same lines.
fn witness(records: &[TraceRecord]) -> Vec<String> {
    records
        .iter()
        .filter_map(|r| match &r.kind {
            TraceKind::Notify {
                entity,
                event,
                clip_time,
                edge,
                completed,
                ..
            } => {
                let kind = match edge {
                    None => "notify".to_string(),
                    Some(sinew::crossing::Edge::Begin) => "begin".to_string(),
                    Some(sinew::crossing::Edge::End) => format!("end completed={completed}"),
                };
                Some(line(&kind, r.tick, *entity, event, *clip_time))
            }
            _ => None,
        })
        .collect()
}

fn read_messages(
    mut notifies: MessageReader<SinewNotify>,
    mut windows: MessageReader<SinewWindow>,
    mut heard: ResMut<Heard>,
) {
    // One reader per type: notifies and windows are interleaved by the caller's sort below.
    let mut got: Vec<String> = notifies.read().map(notify_line).collect();
    got.extend(windows.read().map(window_line));
    heard.messages.extend(got);
}

fn fire(mut pending: ResMut<Pending>, mut commands: Commands) {
    for s in pending.0.drain(..) {
        commands.trigger(s);
    }
}

/// An app running `scene` from the repository (assets folder `assets`), with the observers,
/// the message reader and the sending system, until the scene spawned.
fn app(scene: &str, assets: &'static str) -> (App, Entity) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut app = headless_app(root, false, Some(Duration::from_secs_f64(DT)));
    app.add_plugins(SinewPlugin {
        dt: DT,
        trace: true,
        ..SinewPlugin::default()
    });
    // The demo's graphs call game nodes this test does not bind: the recorder answers them.
    app.insert_resource(sinew::runtime::GameNodes::headless());
    app.init_resource::<Heard>().init_resource::<Pending>();
    app.add_observer(|ev: On<SinewNotify>, mut heard: ResMut<Heard>| {
        heard.global.push(notify_line(&ev));
    });
    app.add_observer(|ev: On<SinewWindow>, mut heard: ResMut<Heard>| {
        heard.global.push(window_line(&ev));
    });
    app.add_systems(Update, read_messages.after(SinewSet::Flush));
    app.add_systems(Update, fire.before(SinewSet::Time));
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load_builder()
        .with_settings(move |s: &mut SinewLoadSettings| s.assets = Some(assets.into()))
        .load::<SinewSceneAsset>(scene.to_string());
    let carrier = app.world_mut().spawn(SinewScene(handle)).id();
    let spawned = wait::wait_until(Instant::now() + Duration::from_secs(60), || {
        app.update();
        let w = app.world();
        assert!(
            w.get::<SinewSceneFailed>(carrier).is_none(),
            "{scene} failed"
        );
        w.get::<SinewSpawned>(carrier).map(|_| ())
    });
    assert!(spawned.is_some(), "{scene} did not spawn");
    (app, carrier)
}

fn entities(app: &App, carrier: Entity) -> Vec<(String, Entity)> {
    let s = app.world().get::<SinewSpawned>(carrier).unwrap();
    s.spawned
        .entities
        .iter()
        .map(|(n, e, _)| (n.clone(), *e))
        .collect()
}

fn entity(app: &App, carrier: Entity, name: &str) -> Entity {
    entities(app, carrier)
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap()
        .1
}

fn drain_trace(app: &mut App) -> Vec<TraceRecord> {
    app.world_mut().resource_mut::<Trace>().drain()
}

#[test]
fn observers_and_readers_hear_every_notify_and_window_edge_in_trace_order_exactly_once() {
    let (mut app, carrier) = app("scenes/demo.scene.ron", "assets");
    // One observer per scene entity, each hearing only its own entity's events.
    for (_, e) in entities(&app, carrier) {
        app.world_mut().entity_mut(e).observe(
            move |ev: On<SinewNotify>, mut heard: ResMut<Heard>| {
                assert_eq!(ev.entity, e);
                heard.by_entity.push(notify_line(&ev));
            },
        );
        app.world_mut().entity_mut(e).observe(
            move |ev: On<SinewWindow>, mut heard: ResMut<Heard>| {
                assert_eq!(ev.entity, e);
                heard.by_entity.push(window_line(&ev));
            },
        );
    }
    drain_trace(&mut app);
    *app.world_mut().resource_mut::<Heard>() = Heard::default();
    let (mut footsteps, mut windows) = (0, 0);
    for frame in 0..240 {
        app.update();
        let want = witness(&drain_trace(&mut app));
        let heard = std::mem::take(&mut *app.world_mut().resource_mut::<Heard>());
        assert_eq!(heard.global, want, "frame {frame}: global observers");
        // Every event is on a scene entity here: the entity observers together heard them all,
        // in order.
        assert_eq!(heard.by_entity, want, "frame {frame}: entity observers");
        let mut messages = heard.messages.clone();
        let mut sorted_want = want.clone();
        messages.sort();
        sorted_want.sort();
        assert_eq!(messages, sorted_want, "frame {frame}: messages");
        footsteps += want.iter().filter(|l| l.contains("footstep")).count();
        windows += want.iter().filter(|l| l.contains(" begin ")).count();
    }
    assert!(footsteps >= 10 && windows >= 1, "{footsteps} {windows}");
}

#[test]
fn graph_custom_sends_are_triggered_on_their_target_with_typed_getters() {
    let (mut app, carrier) = app("scenes/demo.scene.ron", "assets");
    let (hero, villager) = (
        entity(&app, carrier, "hero"),
        entity(&app, carrier, "villager"),
    );
    #[derive(Resource, Default)]
    struct Waves(Vec<(Entity, Option<Entity>)>, usize);
    app.init_resource::<Waves>();
    app.world_mut().entity_mut(villager).observe(
        |ev: On<SinewCustom>, mut waves: ResMut<Waves>| {
            if ev.is_custom("wave") && ev.is_event("custom::wave") {
                waves.0.push((ev.entity, ev.sender));
            }
        },
    );
    app.add_systems(
        Update,
        (|mut r: MessageReader<SinewCustom>, mut waves: ResMut<Waves>| {
            waves.1 += r.read().filter(|c| c.is_custom("wave")).count();
        })
        .after(SinewSet::Flush),
    );
    for _ in 0..150 {
        app.update();
    }
    let waves = app.world().resource::<Waves>();
    assert!(!waves.0.is_empty());
    assert!(
        waves.0.iter().all(|w| *w == (villager, Some(hero))),
        "{:?}",
        waves.0
    );
    assert_eq!(waves.1, waves.0.len());
}

/// `wiring`'s `dummy` runs `target.bpg`: `custom::hit { amount: float, critical: bool, from:
/// string }` logs `hit for AMOUNT`.
fn hits(records: &[TraceRecord]) -> Vec<(u64, String)> {
    records
        .iter()
        .filter_map(|r| match &r.kind {
            TraceKind::Log { message, .. } if message.starts_with("hit for") => {
                Some((r.tick, message.clone()))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_sinew_send_before_sinew_runs_is_delivered_in_that_frames_tick_and_a_bad_one_never() {
    let (mut app, carrier) = app(
        "tests/fixtures/scenes/wiring.scene.ron",
        "tests/fixtures/scenes/assets",
    );
    let dummy = entity(&app, carrier, "dummy");
    let player = app.world_mut().spawn_empty().id();
    for _ in 0..5 {
        app.update();
    }
    drain_trace(&mut app);
    app.world_mut().resource_mut::<Pending>().0 = vec![
        SinewSend::new(dummy, "custom::hit")
            .sender(player)
            .with("amount", 5.0)
            .with("critical", true)
            .with("from", "player"),
        // Wrong type, missing field, unknown field: each refused (logged), nothing delivered.
        SinewSend::new(dummy, "custom::hit")
            .with("amount", 7_i64)
            .with("critical", true)
            .with("from", "x"),
        SinewSend::new(dummy, "custom::hit").with("amount", 8.0),
        SinewSend::new(dummy, "custom::hit")
            .with("amount", 9.0)
            .with("critical", true)
            .with("from", "x")
            .with("sound", "boom"),
        SinewSend::new(player, "custom::hit")
            .with("amount", 10.0)
            .with("critical", true)
            .with("from", "x"),
    ];
    app.update();
    let tick = app.world().resource::<GameTime>().tick();
    assert_eq!(
        hits(&drain_trace(&mut app)),
        [(tick, "hit for 5.0".to_string())]
    );
    // `world.trigger` works the same; a despawned target delivers nothing.
    app.world_mut().despawn(player);
    app.world_mut().trigger(
        SinewSend::new(player, "custom::hit")
            .with("amount", 1.0)
            .with("critical", false)
            .with("from", "x"),
    );
    app.world_mut().trigger(
        SinewSend::new(dummy, "custom::hit")
            .with("amount", 2.0)
            .with("critical", false)
            .with("from", "x"),
    );
    app.update();
    let tick = app.world().resource::<GameTime>().tick();
    assert_eq!(
        hits(&drain_trace(&mut app)),
        [(tick, "hit for 2.0".to_string())]
    );
}

#[test]
fn a_refused_sinew_send_is_logged_as_an_error_with_the_reason() {
    let (mut app, carrier) = app(
        "tests/fixtures/scenes/wiring.scene.ron",
        "tests/fixtures/scenes/assets",
    );
    let dummy = entity(&app, carrier, "dummy");
    let logs = logs::Logs::default();
    tracing::subscriber::with_default(logs.clone(), || {
        app.world_mut().trigger(
            SinewSend::new(dummy, "custom::hit")
                .with("amount", 7_i64)
                .with("critical", true)
                .with("from", "x"),
        );
        app.world_mut().flush();
    });
    let got = logs.lines();
    assert_eq!(
        got,
        [format!(
            "ERROR sinew: SinewSend refused: `custom::hit` to entity {dummy}: field `amount` is \
             float, given int; nothing queued (its graphs declare `event custom::hit {{ amount: \
             float, critical: bool, from: string }}`)"
        )]
    );
}
