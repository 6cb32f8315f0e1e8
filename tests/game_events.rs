//! Events out and in (`bridge.md` §2–3) on the demo and every runnable scene fixture.
//!
//! Events out: what `runtime::GameEvents` (and `runtime::on_event`) reports is compared with two
//! independent witnesses — the trace's `notify` records (notifies and window edges) and the
//! custom events a wrapping dispatcher sees graph handlers queue — merged in the order they
//! happened: same events, same order, exactly once, in the tick they happen. Undrained, the
//! resource keeps one tick's events; past its limit it drops and says so.
//!
//! Events in: `runtime::send` against the payload the target's graphs declare.

use std::path::Path;
use std::sync::{Arc, Mutex};

use bevy_ecs::prelude::*;
use sinew::project;
use sinew::runtime::scene::{Spawned, headless, spawn};
use sinew::runtime::{
    Channel, Continuation, Delivery, Dispatch, Dispatcher, EventHub, GameEvent, GameEvents,
    Payload, Publisher, SendError, Trace, TraceKind, Value, VmDispatch, on_event, send,
};

/// A custom event a handler queued: the trace's length when its invocation began, then
/// (tick, target, sender, identity, values).
type Sent = (usize, String);

/// The witness of custom sends: wraps the VM dispatcher and notes every `Payload::Custom`
/// a handler (or a resumed delay) puts into its `out` publisher.
struct Witness {
    inner: VmDispatch,
    seen: Arc<Mutex<Vec<Sent>>>,
}

impl Witness {
    fn note(&self, world: &World, before: usize, start: usize, out: &Publisher) {
        let tick = world.resource::<sinew::runtime::GameTime>().tick();
        let hub = world.resource::<EventHub>();
        for e in &out.events()[before..] {
            if let (Payload::Custom { sender, values }, Channel::Entity(target)) =
                (&e.payload, e.channel)
            {
                let line = format!(
                    "{tick} custom to {target} from {:?} {} {values:?}",
                    sender,
                    hub.name(e.id).unwrap_or("?"),
                );
                self.seen.lock().unwrap().push((start, line));
            }
        }
    }
}

fn trace_len(world: &World) -> usize {
    world.get_resource::<Trace>().map_or(0, |t| t.records.len())
}

impl Dispatch for Witness {
    fn deliver(&mut self, world: &mut World, d: Delivery<'_>, out: &mut Publisher) {
        let (before, start) = (out.len(), trace_len(world));
        self.inner.deliver(world, d, out);
        self.note(world, before, start, out);
    }

    fn resume(&mut self, world: &mut World, c: Continuation, out: &mut Publisher) {
        let (before, start) = (out.len(), trace_len(world));
        self.inner.resume(world, c, out);
        self.note(world, before, start, out);
    }
}

/// A notify record of the trace, or a notify event, as one comparable line.
fn notify_line(
    (tick, entity, source): (u64, Entity, Entity),
    event: &str,
    clip: &str,
    at: (f64, i64, f32),
    edge: &str,
    fields: &[(Arc<str>, Value)],
) -> String {
    format!(
        "{tick} {edge} {} from {} {event} {clip} {:?} {} {} {fields:?}",
        entity.to_bits(),
        source.to_bits(),
        at.0,
        at.1,
        at.2
    )
}

/// The witnesses' lines for one tick, in the order they happened.
fn expected(records: &[sinew::runtime::TraceRecord], sent: Vec<Sent>) -> Vec<String> {
    let mut keyed: Vec<((usize, u8, usize), String)> = Vec::new();
    for (i, r) in records.iter().enumerate() {
        if let TraceKind::Notify {
            entity,
            source,
            event,
            clip,
            clip_time,
            cycle,
            weight,
            edge,
            completed,
            fields,
        } = &r.kind
        {
            let edge = match edge {
                None => "notify".to_string(),
                Some(sinew::crossing::Edge::Begin) => "begin".to_string(),
                Some(sinew::crossing::Edge::End) => format!("end completed={completed}"),
            };
            let at = (*clip_time, *cycle, *weight);
            let line = notify_line((r.tick, *entity, *source), event, clip, at, &edge, fields);
            keyed.push(((i, 1, 0), line));
        }
    }
    // A send happened inside an invocation: after every record before it began, before every
    // notify after it (notifies are never written inside an invocation).
    for (n, (start, line)) in sent.into_iter().enumerate() {
        keyed.push(((start, 0, n), line));
    }
    keyed.sort_by_key(|(k, _)| *k);
    keyed.into_iter().map(|(_, l)| l).collect()
}

/// A game event as the witnesses' line.
fn event_line(e: &GameEvent) -> String {
    let n = |n: &sinew::runtime::NotifyEvent, edge: &str| {
        notify_line(
            (n.tick, n.entity, n.source),
            &n.event,
            &n.clip,
            (n.clip_time, n.cycle, n.weight),
            edge,
            &n.fields,
        )
    };
    match e {
        GameEvent::Notify(x) => n(x, "notify"),
        GameEvent::WindowBegin(x) => n(x, "begin"),
        GameEvent::WindowEnd { window, completed } => {
            n(window, &format!("end completed={completed}"))
        }
        GameEvent::Custom(c) => {
            let values: Vec<Value> = c.fields.iter().map(|(_, v)| v.clone()).collect();
            format!(
                "{} custom to {} from {:?} {} {values:?}",
                c.tick,
                c.target.to_bits(),
                c.sender.map(Entity::to_bits),
                c.event,
            )
        }
    }
}

struct Run {
    world: World,
    schedule: Schedule,
    spawned: Spawned,
    seen: Arc<Mutex<Vec<Sent>>>,
}

/// `scene` loaded against `assets` and spawned into a headless world whose dispatcher is the
/// witness; `None` when the scene does not load (error fixtures).
fn start(scene: &str, assets: &str) -> Option<Run> {
    let loaded = project::load_files(Path::new(scene), Path::new(assets)).ok()?;
    let (def, scene_assets) = loaded.ready()?;
    let (mut world, schedule) = headless(1.0 / 60.0).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    world.insert_resource(Dispatcher::new(Witness {
        inner: VmDispatch::new(),
        seen: seen.clone(),
    }));
    let spawned = spawn(&mut world, def, scene_assets).ok()?;
    Some(Run {
        world,
        schedule,
        spawned,
        seen,
    })
}

impl Run {
    /// One tick: (the witnesses' lines, the trace records).
    fn tick(&mut self) -> (Vec<String>, Vec<sinew::runtime::TraceRecord>) {
        self.schedule.run(&mut self.world);
        let records = self.world.resource_mut::<Trace>().drain();
        let sent = std::mem::take(&mut *self.seen.lock().unwrap());
        (expected(&records, sent), records)
    }

    fn drain(&mut self) -> Vec<GameEvent> {
        self.world.resource_mut::<GameEvents>().drain().collect()
    }

    fn entity(&self, name: &str) -> Entity {
        self.spawned
            .entities
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, e, _)| *e)
            .unwrap()
    }
}

/// Every scene: the demo and the fixtures that load.
fn scenes() -> Vec<(String, String)> {
    let mut out = vec![("scenes/demo.scene.ron".to_string(), "assets".to_string())];
    let dir = "tests/fixtures/scenes";
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".scene.ron"))
        .collect();
    names.sort();
    for n in names {
        out.push((format!("{dir}/{n}"), format!("{dir}/assets")));
    }
    out
}

const TICKS: usize = 150;

#[test]
fn game_events_are_the_notify_and_custom_records_in_trace_order_exactly_once() {
    let (mut notifies, mut windows, mut customs, mut ran) = (0, 0, 0, 0);
    for (scene, assets) in scenes() {
        let Some(mut run) = start(&scene, &assets) else {
            continue;
        };
        ran += 1;
        for tick in 1..=TICKS {
            let (want, _) = run.tick();
            let got: Vec<String> = run.drain().iter().map(event_line).collect();
            assert_eq!(got, want, "{scene}, tick {tick}");
            for l in &got {
                if l.contains(" notify ") {
                    notifies += 1;
                } else if l.contains(" custom ") {
                    customs += 1;
                } else {
                    windows += 1;
                }
            }
        }
    }
    // The comparison covered every kind (and most fixtures).
    assert!(ran >= 20, "{ran} scenes ran");
    assert!(
        notifies > 100 && windows > 10 && customs > 10,
        "{notifies} {windows} {customs}"
    );
}

#[test]
fn on_event_callbacks_hear_what_drain_returns_and_a_drain_after_them_still_does() {
    for (scene, assets) in scenes().into_iter().take(8) {
        let Some(mut run) = start(&scene, &assets) else {
            continue;
        };
        let heard = Arc::new(Mutex::new(Vec::new()));
        let h = heard.clone();
        on_event(&mut run.world, move |world, ev| {
            // The callback has the world.
            assert!(world.contains_resource::<EventHub>());
            h.lock().unwrap().push(event_line(ev));
        });
        for tick in 1..=TICKS {
            let (want, _) = run.tick();
            let got: Vec<String> = run.drain().iter().map(event_line).collect();
            assert_eq!(got, want, "{scene}, tick {tick}: drained");
            let heard = std::mem::take(&mut *heard.lock().unwrap());
            assert_eq!(heard, want, "{scene}, tick {tick}: heard");
        }
    }
}

#[test]
fn undrained_events_keep_only_the_last_tick() {
    let mut run = start("scenes/demo.scene.ron", "assets").unwrap();
    let mut peak = 0;
    for tick in 1..=300 {
        let (want, _) = run.tick();
        let kept: Vec<String> = run
            .world
            .resource::<GameEvents>()
            .events()
            .iter()
            .map(event_line)
            .collect();
        assert_eq!(kept, want, "tick {tick}");
        peak = peak.max(kept.len());
    }
    assert!(peak > 0);
}

#[test]
fn past_its_limit_the_resource_drops_and_says_so() {
    let mut run = start("scenes/demo.scene.ron", "assets").unwrap();
    run.world.insert_resource(GameEvents::with_limit(1));
    let mut reported = 0;
    for _ in 1..=120 {
        let (want, records) = run.tick();
        let got: Vec<String> = run.drain().iter().map(event_line).collect();
        assert_eq!(got, want.iter().take(1).cloned().collect::<Vec<_>>());
        let says = format!(
            "{} game event(s) dropped: more than 1 in one tick",
            want.len().saturating_sub(1)
        );
        let said = records.iter().any(|r| {
            matches!(&r.kind, TraceKind::Error { entity: None, message, .. } if *message == says)
        });
        assert_eq!(said, want.len() > 1, "{says}");
        reported += usize::from(said);
    }
    assert!(reported > 0);
}

#[test]
fn typed_getters_and_identity_match_without_string_surgery() {
    let mut run = start("scenes/demo.scene.ron", "assets").unwrap();
    let villager = run.entity("villager");
    let mut steps = 0;
    let mut customs = 0;
    for _ in 0..120 {
        run.tick();
        for ev in run.drain() {
            if ev.is("footstep_l") && ev.entity() == villager {
                steps += 1;
                assert!(ev.is_event("animseq::fef88abd-e6e0-4983-9d3e-379b80acc9bd.footstep_l"));
                assert!(!ev.is("footstep_r") && !ev.is_custom("footstep_l"));
                assert_eq!(ev.str("surface"), Some("grass"));
                assert_eq!(ev.f32("volume"), Some(0.9));
                assert_eq!(ev.f64("volume"), Some(0.9));
                // Absent, or of another type: `None`.
                assert_eq!(ev.f32("surface"), None);
                assert_eq!(ev.str("volume"), None);
                assert_eq!(ev.int("volume"), None);
                assert_eq!(ev.bool("nothing"), None);
                let n = ev.notify().unwrap();
                assert_eq!(&*n.name, "Run / Footstep L");
                assert_eq!(&*n.clip, "run");
                assert_eq!(n.source, villager);
            }
            if ev.is_custom("wave") {
                customs += 1;
                assert!(ev.is_event("custom::wave") && !ev.is("wave"));
                assert!(ev.custom().unwrap().sender.is_some());
            }
        }
    }
    assert!(steps >= 2, "{steps}");
    assert!(customs >= 1, "{customs}");
}

/// The `wiring` fixture: `dummy` runs `target.bpg`, which handles `custom::hit { amount:
/// float, critical: bool, from: string }` and logs `hit for AMOUNT`; (run, dummy, a game entity).
fn payload_world() -> (Run, Entity, Entity) {
    let mut run = start(
        "tests/fixtures/scenes/wiring.scene.ron",
        "tests/fixtures/scenes/assets",
    )
    .unwrap();
    let dummy = run.entity("dummy");
    let player = run.world.spawn_empty().id();
    // Past begin_play and the strikers' hits.
    run.tick();
    run.tick();
    (run, dummy, player)
}

fn logs(records: &[sinew::runtime::TraceRecord], on: Entity) -> Vec<String> {
    records
        .iter()
        .filter_map(|r| match &r.kind {
            TraceKind::Log {
                entity, message, ..
            } if *entity == on => Some(message.clone()),
            _ => None,
        })
        .collect()
}

fn hit(amount: f64) -> Vec<(&'static str, Value)> {
    vec![
        ("amount", Value::Float(amount)),
        ("critical", Value::Bool(true)),
        ("from", Value::Str("player".into())),
    ]
}

#[test]
fn a_sent_event_is_delivered_at_the_next_flush_with_its_payload_and_sender() {
    let (mut run, dummy, player) = payload_world();
    send(&mut run.world, dummy, "custom::hit", player, &hit(5.0)).unwrap();
    // Fields in any order; the game as the sender (`None`).
    let mut reversed = hit(2.5);
    reversed.reverse();
    send(&mut run.world, dummy, "custom::hit", None, &reversed).unwrap();
    let (_, records) = run.tick();
    assert_eq!(logs(&records, dummy), ["hit for 5.0", "hit for 2.5"]);
    let vars = run
        .world
        .get::<sinew::runtime::Graphs>(dummy)
        .unwrap()
        .instances()[0]
        .vars()
        .iter()
        .map(|(n, _, v)| format!("{n}={v:?}"))
        .collect::<Vec<_>>();
    assert!(
        vars.contains(&"last_from=Str(\"player\")".to_string()),
        "{vars:?}"
    );
    // A game's send is not reported back to it as a `Custom` event (only graph sends are).
    assert!(!run.drain().iter().any(|e| e.is_custom("hit")));
}

/// (target, event, fields, what the error says).
type Mismatch = (
    Entity,
    &'static str,
    Vec<(&'static str, Value)>,
    &'static str,
);

#[test]
fn a_mismatched_send_is_an_error_naming_fields_and_types_and_queues_nothing() {
    let (mut run, dummy, player) = payload_world();
    let cases: Vec<Mismatch> = vec![
        (
            dummy,
            "custom::hit",
            vec![
                ("amout", Value::Float(1.0)),
                ("critical", Value::Bool(true)),
                ("from", Value::Str("p".into())),
            ],
            "unknown field `amout` (did you mean `amount`?); missing field `amount` (float); nothing queued (its graphs declare `event custom::hit { amount: float, critical: bool, from: string }`)",
        ),
        (
            dummy,
            "custom::hit",
            vec![("amount", Value::Int(5)), ("critical", Value::Bool(true))],
            "field `amount` is float, given int; missing field `from` (string)",
        ),
        (
            dummy,
            "custom::hit",
            vec![
                ("amount", Value::Float(1.0)),
                ("amount", Value::Float(2.0)),
                ("critical", Value::Bool(true)),
                ("from", Value::Str("p".into())),
            ],
            "field `amount` given twice",
        ),
        (
            dummy,
            "custom::poke",
            vec![],
            "no graph on it handles `custom::poke` (it handles custom::hit)",
        ),
        (
            player,
            "custom::hit",
            hit(1.0),
            "no graph on it handles `custom::hit` (it handles no custom event)",
        ),
        (dummy, "hit", hit(1.0), "`hit` is not a custom event"),
        (
            dummy,
            "custom::",
            vec![],
            "`custom::` is not a custom event",
        ),
    ];
    for (target, event, fields, says) in cases {
        let e = send(&mut run.world, target, event, player, &fields).unwrap_err();
        assert!(e.to_string().contains(says), "{e}\n  should say: {says}");
    }
    // A despawned target.
    run.world.despawn(player);
    let e = send(&mut run.world, player, "custom::hit", None, &hit(1.0)).unwrap_err();
    assert!(matches!(e, SendError::NoTarget { .. }), "{e}");
    assert!(e.to_string().contains("no such entity"), "{e}");
    // Nothing was queued: the next ticks log no hit.
    let (_, records) = run.tick();
    assert_eq!(logs(&records, dummy), Vec::<String>::new());
}
