//! Tests of the runtime's event hub and update order: channels, publish order, flush rounds,
//! despawn, `begin_play`/`tick` order, timed actions and the `flow.delay` due-time rule.

use std::sync::Arc;

use bevy_ecs::prelude::*;
use proptest::prelude::*;
use sinew::runtime::testing::{DeliveryLog, Record, RecordingDispatch, RepublishDispatch, note};
use sinew::runtime::{
    AnimationSet, Channel, Continuation, Delivery, Dispatch, Dispatcher, EventHub, EventId,
    FlushLimit, FlushReport, GameTime, GraphInstances, LastFlush, MAX_FLUSH_ROUNDS, Notify,
    Overrun, Payload, PendingDelays, Publisher, SceneActions, Subscriber, Value, add_sinew_systems,
    flush, init_world,
};

/// A world + schedule with Sinew's systems, and display names for entities.
struct H {
    world: World,
    schedule: Schedule,
    names: Vec<(Entity, &'static str)>,
}

impl H {
    fn new(dispatch: impl Dispatch) -> H {
        let mut world = World::new();
        init_world(&mut world);
        world.insert_resource(Dispatcher::new(dispatch));
        let mut schedule = Schedule::default();
        add_sinew_systems(&mut schedule);
        H {
            world,
            schedule,
            names: Vec::new(),
        }
    }

    /// Spawns a named entity; `graphs` attaches [`GraphInstances`].
    fn spawn(&mut self, name: &'static str, graphs: bool) -> Entity {
        let e = if graphs {
            self.world.spawn(GraphInstances { count: 1 }).id()
        } else {
            self.world.spawn_empty().id()
        };
        self.names.push((e, name));
        e
    }

    fn id(&mut self, name: &str) -> EventId {
        self.world
            .resource_mut::<EventHub>()
            .intern(name)
            .expect("intern")
    }

    fn hub(&mut self) -> Mut<'_, EventHub> {
        self.world.resource_mut::<EventHub>()
    }

    /// Subscribes handler `handler` of instance 0 on `e` to `event` on `channel`.
    fn sub_on(&mut self, event: &str, channel: Channel, e: Entity, handler: u32) {
        let id = self.id(event);
        let who = Subscriber {
            entity: e,
            instance: 0,
            handler,
        };
        self.hub().subscribe(id, channel, who);
    }

    /// Subscribes on `e`'s own channel.
    fn sub(&mut self, event: &str, e: Entity, handler: u32) {
        self.sub_on(event, Channel::of(e), e, handler);
    }

    fn publish(&mut self, event: &str, channel: Channel) {
        let id = self.id(event);
        self.hub().publish(id, channel, Payload::None);
    }

    /// Runs one update and returns its flush report.
    fn tick(&mut self) -> FlushReport {
        self.schedule.run(&mut self.world);
        self.world.resource::<LastFlush>().0
    }

    /// Flushes without running the rest of the schedule.
    fn flush(&mut self) -> FlushReport {
        flush(&mut self.world, &mut RecordingDispatch)
    }

    fn name(&self, bits: u64) -> String {
        self.names
            .iter()
            .find(|(e, _)| e.to_bits() == bits)
            .map_or_else(|| format!("#{bits}"), |(_, n)| (*n).to_string())
    }

    /// Drains the delivery log, rendered one line per record.
    fn take_log(&mut self) -> Vec<String> {
        let log = self
            .world
            .get_resource_mut::<DeliveryLog>()
            .map(|mut l| std::mem::take(&mut l.0))
            .unwrap_or_default();
        let hub = self.world.resource::<EventHub>();
        log.iter()
            .map(|r| match r {
                Record::Delivered {
                    tick, to, event, ..
                } => {
                    let ident = hub.name(event.id).unwrap_or("?");
                    let chan = match event.channel {
                        Channel::Global => " (global)".to_string(),
                        Channel::Entity(_) => String::new(),
                    };
                    let payload = match &event.payload {
                        Payload::Notify(n) => format!(" k={}", n.cycle),
                        Payload::Custom {
                            sender: Some(s), ..
                        } => format!(" from={}", self.name(*s)),
                        _ => String::new(),
                    };
                    let who = self.name(to.entity.to_bits());
                    format!("t{tick} {who} {ident}{chan} h{}{payload}", to.handler)
                }
                Record::Resumed {
                    tick, continuation, ..
                } => format!(
                    "t{tick} {} resume r{}",
                    self.name(continuation.entity.to_bits()),
                    continuation.resume
                ),
                Record::Note { tick, text } => format!("t{tick} {text}"),
            })
            .collect()
    }
}

/// Asserts the log since the last check, line by line.
fn check(h: &mut H, expected: &[&str]) {
    let got = h.take_log();
    assert_eq!(got, expected, "delivery log");
}

fn report(rounds: u32, delivered: u64, overrun: Option<usize>) -> (u32, u64, Option<Overrun>) {
    let overrun = overrun.map(|pending| Overrun {
        rounds: MAX_FLUSH_ROUNDS,
        pending,
        limit: FlushLimit::Rounds,
    });
    (rounds, delivered, overrun)
}

fn summary(r: FlushReport) -> (u32, u64, Option<Overrun>) {
    (r.rounds, r.delivered, r.overrun)
}

// ---------------------------------------------------------------------------------------------
// Channels and order
// ---------------------------------------------------------------------------------------------

#[test]
fn entity_channel_reaches_only_that_entity() {
    let mut h = H::new(RecordingDispatch);
    let a = h.spawn("a", false);
    let b = h.spawn("b", false);
    h.sub("animseq::run.step", a, 0);
    h.sub("animseq::run.step", b, 0);
    h.publish("animseq::run.step", Channel::of(a));
    h.flush();
    check(&mut h, &["t0 a animseq::run.step h0"]);
    h.publish("animseq::run.step", Channel::of(b));
    h.flush();
    check(&mut h, &["t0 b animseq::run.step h0"]);
}

#[test]
fn global_and_entity_channels_are_separate() {
    let mut h = H::new(RecordingDispatch);
    let a = h.spawn("a", false);
    h.sub_on("custom::alarm", Channel::Global, a, 1);
    h.sub("custom::alarm", a, 2);
    h.publish("custom::alarm", Channel::Global);
    h.flush();
    check(&mut h, &["t0 a custom::alarm (global) h1"]);
    h.publish("custom::alarm", Channel::of(a));
    h.flush();
    check(&mut h, &["t0 a custom::alarm h2"]);
}

#[test]
fn unsubscribed_identity_or_channel_reaches_nobody() {
    let mut h = H::new(RecordingDispatch);
    let a = h.spawn("a", false);
    let b = h.spawn("b", false);
    h.sub("custom::x", a, 0);
    h.publish("custom::y", Channel::of(a));
    h.publish("custom::x", Channel::of(b));
    h.publish("custom::x", Channel::Global);
    let r = h.flush();
    check(&mut h, &[]);
    assert_eq!((r.events, r.delivered), (3, 0));
}

#[test]
fn publish_order_and_subscription_order_are_kept() {
    let mut h = H::new(RecordingDispatch);
    let a = h.spawn("a", false);
    let b = h.spawn("b", false);
    h.sub("custom::x", a, 5);
    h.sub("custom::x", a, 3);
    h.sub("custom::x", a, 5); // duplicate: ignored
    h.sub("custom::y", b, 1);
    h.publish("custom::y", Channel::of(b));
    h.publish("custom::x", Channel::of(a));
    h.publish("custom::y", Channel::of(b));
    h.flush();
    check(
        &mut h,
        &[
            "t0 b custom::y h1",
            "t0 a custom::x h5",
            "t0 a custom::x h3",
            "t0 b custom::y h1",
        ],
    );
}

#[test]
fn payload_reaches_the_handler_intact() {
    let mut h = H::new(RecordingDispatch);
    let a = h.spawn("a", false);
    let id = h.id("animseq::run.step");
    h.sub("animseq::run.step", a, 0);
    let fields = vec![Value::Str(Arc::from("grass")), Value::Float(0.8)];
    h.hub().set_notify_fields(id, fields.clone());
    let n = Notify::point(a.to_bits(), 1.2, 0.2, 1);
    h.hub().publisher().notify(id, a, n.clone());
    h.hub().publish(
        id,
        Channel::of(a),
        Payload::Custom {
            sender: None,
            values: Box::default(),
        },
    );
    h.flush();
    let log = h.world.resource::<DeliveryLog>().0.clone();
    match log.as_slice() {
        [
            Record::Delivered {
                event, fields: f1, ..
            },
            Record::Delivered {
                event: e2,
                fields: f2,
                ..
            },
        ] => {
            assert_eq!(event.payload, Payload::Notify(n));
            assert_eq!(event.channel, Channel::of(a));
            assert_eq!(f1, &fields);
            assert_eq!(
                e2.payload,
                Payload::Custom {
                    sender: None,
                    values: Box::default()
                }
            );
            assert!(f2.is_empty(), "fields go with notify payloads only");
        }
        other => panic!("unexpected log {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Rounds
// ---------------------------------------------------------------------------------------------

/// Entity `a` subscribed to `custom::c0..c{len-1}`, each handler publishing the next link.
fn chain(len: u32) -> H {
    let mut h = H::new(RecordingDispatch);
    let a = h.spawn("a", false);
    let mut rules = Vec::new();
    for i in 0..len {
        h.sub(&format!("custom::c{i}"), a, i);
        if i + 1 < len {
            let from = h.id(&format!("custom::c{i}"));
            let to = h.id(&format!("custom::c{}", i + 1));
            rules.push((from, to));
        }
    }
    h.world
        .insert_resource(Dispatcher::new(RepublishDispatch { rules }));
    h
}

fn chain_log(tick: u64, links: std::ops::Range<u32>) -> Vec<String> {
    links
        .map(|i| format!("t{tick} a custom::c{i} h{i}"))
        .collect()
}

#[test]
fn sixteen_rounds_fit_in_one_flush() {
    let mut h = chain(16);
    let a = h.names[0].0;
    h.publish("custom::c0", Channel::of(a));
    let r = h.tick();
    assert_eq!(summary(r), report(16, 16, None));
    let expected = chain_log(1, 0..16);
    check(
        &mut h,
        &expected.iter().map(String::as_str).collect::<Vec<_>>(),
    );
}

#[test]
fn rounds_beyond_sixteen_stay_queued_and_are_reported() {
    let mut h = chain(40);
    let a = h.names[0].0;
    h.publish("custom::c0", Channel::of(a));
    let r = h.tick();
    assert_eq!(summary(r), report(16, 16, Some(1)));
    let expected = chain_log(1, 0..16);
    check(
        &mut h,
        &expected.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    assert_eq!(h.hub().queued().len(), 1, "c16 waits for the next update");

    // Next update: the leftover goes first, before events published in that update.
    h.publish("custom::other", Channel::of(a));
    h.sub("custom::other", a, 99);
    let r = h.tick();
    assert_eq!(summary(r), report(16, 17, Some(1)));
    let mut expected = vec![
        "t2 a custom::c16 h16".to_string(),
        "t2 a custom::other h99".into(),
    ];
    expected.extend(chain_log(2, 17..32));
    check(
        &mut h,
        &expected.iter().map(String::as_str).collect::<Vec<_>>(),
    );

    let r = h.tick();
    assert_eq!(summary(r), report(8, 8, None));
    let expected = chain_log(3, 32..40);
    check(
        &mut h,
        &expected.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    assert!(h.hub().queued().is_empty());
}

#[test]
fn overrun_message_names_rounds_and_pending() {
    let o = Overrun {
        rounds: 16,
        pending: 3,
        limit: FlushLimit::Rounds,
    };
    assert_eq!(
        o.to_string(),
        "event flush stopped after 16 rounds; 3 event(s) stay queued for the next update"
    );
    let o = Overrun {
        rounds: 4,
        pending: 9,
        limit: FlushLimit::Deliveries(1000),
    };
    assert_eq!(
        o.to_string(),
        "event flush stopped after 1000 deliveries (the limit per update) in 4 round(s); 9 event(s) stay queued for the next update"
    );
}

/// A handler that sends its event to itself twice: each round doubles (issue 17, item 9).
fn storm(limit: u64) -> H {
    let mut h = H::new(|world: &mut World, d: Delivery<'_>, out: &mut Publisher| {
        RecordingDispatch.deliver(world, d, out);
        out.publish(d.event.id, Channel::of(d.to.entity), Payload::None);
        out.publish(d.event.id, Channel::of(d.to.entity), Payload::None);
    });
    let a = h.spawn("a", false);
    h.sub("custom::storm", a, 0);
    h.hub().set_delivery_limit(limit);
    h.publish("custom::storm", Channel::of(a));
    h
}

#[test]
fn an_event_storm_costs_at_most_the_delivery_limit_per_flush() {
    let mut h = storm(1000);
    let mut queued = Vec::new();
    for _ in 0..6 {
        let r = h.tick();
        h.take_log();
        assert!(r.delivered <= 1000, "{r:?}");
        let o = r
            .overrun
            .unwrap_or_else(|| panic!("the storm is cut: {r:?}"));
        assert!(matches!(o.limit, FlushLimit::Deliveries(1000)), "{o:?}");
        assert_eq!(o.pending, h.hub().queued().len());
        queued.push(o.pending);
    }
    // Deliveries per flush stay at the limit; what waits grows by one delivery's worth per
    // delivery (each sends two), bounded by the queue limit.
    assert_eq!(
        queued.windows(2).map(|w| w[1] - w[0]).collect::<Vec<_>>(),
        [1000; 5]
    );
}

#[test]
fn the_delivery_limit_stops_between_events_and_keeps_their_order() {
    let mut h = H::new(RecordingDispatch);
    let a = h.spawn("a", false);
    let b = h.spawn("b", false);
    h.sub("custom::x", a, 0);
    h.sub("custom::x", a, 1);
    h.sub("custom::y", b, 0);
    h.hub().set_delivery_limit(3);
    h.publish("custom::x", Channel::of(a));
    h.publish("custom::x", Channel::of(a));
    h.publish("custom::y", Channel::of(b));
    let r = h.flush();
    // The second `x` has two subscribers: both get it (4 ≥ 3), then the flush stops.
    assert_eq!(r.delivered, 4);
    check(
        &mut h,
        &[
            "t0 a custom::x h0",
            "t0 a custom::x h1",
            "t0 a custom::x h0",
            "t0 a custom::x h1",
        ],
    );
    assert_eq!(r.overrun.map(|o| o.pending), Some(1));
    h.flush();
    check(&mut h, &["t0 b custom::y h0"]);
}

#[test]
fn reentrant_flush_does_nothing() {
    let mut h = H::new(|world: &mut World, _: Delivery<'_>, out: &mut Publisher| {
        let inner = flush(world, &mut RecordingDispatch);
        assert_eq!(inner, FlushReport::default());
        out.publish(EventId(99), Channel::Global, Payload::None);
    });
    let a = h.spawn("a", false);
    h.sub("custom::x", a, 0);
    h.publish("custom::x", Channel::of(a));
    h.publish("custom::x", Channel::of(a));
    let r = h.tick();
    assert_eq!((r.rounds, r.delivered, r.events), (2, 2, 4));
}

#[test]
fn queue_limit_drops_and_counts() {
    let mut h = H::new(RecordingDispatch);
    let a = h.spawn("a", false);
    h.sub("custom::x", a, 0);
    h.hub().set_queue_limit(3);
    for _ in 0..5 {
        h.publish("custom::x", Channel::of(a));
    }
    assert_eq!(h.hub().dropped_by_limit(), 2);
    let r = h.flush();
    assert_eq!(r.delivered, 3);
}

// ---------------------------------------------------------------------------------------------
// Despawn
// ---------------------------------------------------------------------------------------------

#[test]
fn despawn_drops_queued_events_and_subscriptions() {
    let mut h = H::new(RecordingDispatch);
    let a = h.spawn("a", true);
    let b = h.spawn("b", true);
    h.sub("custom::x", a, 0);
    h.sub("custom::x", b, 0);
    h.publish("custom::x", Channel::of(a));
    h.publish("custom::x", Channel::of(b));
    h.world.despawn(a);
    let x = h.id("custom::x");
    assert!(h.hub().subscribers(x, Channel::of(a)).is_empty());
    assert!(h.hub().queued().iter().all(|e| e.channel != Channel::of(a)));
    assert_eq!(h.hub().hosts(), &[b]);
    let r = h.tick();
    assert_eq!((r.dropped, r.overrun), (0, None));
    check(&mut h, &["t1 b custom::x h0"]);
}

#[test]
fn despawn_during_a_round_skips_pending_deliveries_silently() {
    // Handler on `b` despawns `a`, whose delivery is later in the same round.
    let mut h = H::new(|world: &mut World, d: Delivery<'_>, out: &mut Publisher| {
        RecordingDispatch.deliver(world, d, out);
        if d.to.handler == 7 {
            let victim = world
                .query_filtered::<Entity, With<Victim>>()
                .iter(world)
                .next();
            if let Some(v) = victim {
                world.despawn(v);
            }
        }
    });
    let b = h.spawn("b", true);
    let a = h.spawn("a", true);
    h.world.entity_mut(a).insert(Victim);
    h.sub("custom::x", b, 7);
    h.sub("custom::x", a, 0);
    h.publish("custom::x", Channel::of(b));
    h.publish("custom::x", Channel::of(a));
    let r = h.tick();
    assert_eq!((r.delivered, r.dropped, r.overrun), (1, 1, None));
    check(&mut h, &["t1 b custom::x h7"]);
    // a is gone, including from the tick list.
    assert_eq!(h.hub().hosts(), &[b]);
}

#[derive(Component)]
struct Victim;

// ---------------------------------------------------------------------------------------------
// Update order
// ---------------------------------------------------------------------------------------------

fn animate(world: &mut World) {
    note(world, "animate");
    let id = world
        .resource_mut::<EventHub>()
        .intern("animseq::run.step")
        .expect("intern");
    let heroes: Vec<Entity> = world
        .query_filtered::<Entity, With<Hero>>()
        .iter(world)
        .collect();
    let mut hub = world.resource_mut::<EventHub>();
    for e in heroes {
        let n = Notify::point(e.to_bits(), 0.0, 0.0, 0);
        hub.publisher().notify(id, e, n);
    }
}

#[derive(Component)]
struct Hero;

#[test]
fn begin_play_follows_first_animation_and_precedes_tick() {
    let mut h = H::new(RecordingDispatch);
    h.schedule.add_systems(animate.in_set(AnimationSet));
    let hero = h.spawn("hero", true);
    h.world.entity_mut(hero).insert(Hero);
    h.sub("begin_play", hero, 0);
    h.sub("tick", hero, 1);
    h.sub("animseq::run.step", hero, 2);
    assert_eq!(h.hub().queued().len(), 1, "begin_play queued at attach");
    check(&mut h, &[]);
    h.tick();
    check(
        &mut h,
        &[
            "t1 animate",
            "t1 hero begin_play h0",
            "t1 hero animseq::run.step h2 k=0",
            "t1 hero tick h1",
        ],
    );
    h.tick();
    check(
        &mut h,
        &[
            "t2 animate",
            "t2 hero animseq::run.step h2 k=0",
            "t2 hero tick h1",
        ],
    );
}

#[test]
fn tick_reaches_graph_hosts_with_or_without_animator_in_attach_order() {
    let mut h = H::new(RecordingDispatch);
    let plain = h.spawn("plain", false); // no graph instances: no tick
    let b = h.spawn("b", true);
    let a = h.spawn("a", true);
    h.world.entity_mut(a).insert(Hero);
    for (e, hd) in [(plain, 0), (b, 1), (a, 2)] {
        h.sub("tick", e, hd);
    }
    h.tick();
    check(&mut h, &["t1 b tick h1", "t1 a tick h2"]);
}

#[test]
fn tick_payload_carries_dt() {
    let mut h = H::new(RecordingDispatch);
    h.world.insert_resource(GameTime::new(0.25).expect("dt"));
    let a = h.spawn("a", true);
    h.sub("tick", a, 0);
    h.tick();
    let log = h.world.resource::<DeliveryLog>().0.clone();
    match log.as_slice() {
        [Record::Delivered { event, .. }] => assert_eq!(event.payload, Payload::Tick { dt: 0.25 }),
        other => panic!("unexpected log {other:?}"),
    }
}

#[test]
fn scene_action_applies_at_first_tick_starting_at_or_after_its_time() {
    let mut h = H::new(RecordingDispatch);
    let hero = h.spawn("hero", false);
    h.sub("custom::go", hero, 0);
    let go = h.id("custom::go");
    for at in [0.5, -1.0, 0.0] {
        h.world
            .resource_mut::<SceneActions>()
            .schedule(at, move |world: &mut World| {
                note(world, format!("action {at}"));
                world
                    .resource_mut::<EventHub>()
                    .publisher()
                    .send(go, hero, None, Box::default());
            })
            .expect("finite");
    }
    h.tick();
    check(
        &mut h,
        &[
            "t1 action -1",
            "t1 action 0",
            "t1 hero custom::go h0",
            "t1 hero custom::go h0",
        ],
    );
    for _ in 2..=30 {
        h.tick();
    }
    check(&mut h, &[]);
    h.tick(); // tick 31 starts at 30/60 = 0.5
    check(&mut h, &["t31 action 0.5", "t31 hero custom::go h0"]);
}

#[test]
fn non_finite_times_are_rejected() {
    let mut actions = SceneActions::default();
    assert!(actions.schedule(f64::NAN, |_: &mut World| {}).is_err());
    let mut delays = PendingDelays::default();
    let c = Continuation {
        entity: Entity::PLACEHOLDER,
        instance: 0,
        resume: 0,
    };
    assert!(delays.schedule(0.0, f64::INFINITY, c).is_err());
    assert!(delays.schedule(f64::NAN, 1.0, c).is_err());
    assert!(GameTime::new(0.0).is_err());
    assert!(GameTime::new(f64::NAN).is_err());
}

// ---------------------------------------------------------------------------------------------
// Time and delays
// ---------------------------------------------------------------------------------------------

#[test]
fn tick_start_is_one_division_by_the_rate() {
    let dt = 1.0 / 60.0;
    let mut t = GameTime::new(dt).expect("dt");
    assert_eq!(t.rate(), 60.0);
    for _ in 0..1000 {
        t.advance();
    }
    assert_eq!(t.tick(), 1000);
    // Tick n starts at (n − 1) / rate and ends at n / rate (runtime.md, "No drift").
    assert_eq!(t.time().to_bits(), (999.0f64 / 60.0).to_bits());
    assert_eq!(t.end().to_bits(), (1000.0f64 / 60.0).to_bits());
    for _ in 0..89_000 {
        t.advance();
    }
    assert_eq!(t.end(), 1500.0);
}

#[test]
fn set_dt_rebases_at_next_tick() {
    let mut t = GameTime::new(0.5).expect("dt");
    t.advance(); // tick 1 at 0.0
    t.advance(); // tick 2 at 0.5
    t.set_dt(0.25).expect("dt");
    t.advance(); // tick 3 at 1.0
    t.advance(); // tick 4 at 1.25
    assert_eq!((t.tick(), t.time()), (4, 1.25));
}

/// Starts a delay of `seconds` from every `tick` handler (resume point = starting tick) and
/// records resumes.
struct DelayTester {
    seconds: f64,
}

impl Dispatch for DelayTester {
    fn deliver(&mut self, world: &mut World, d: Delivery<'_>, _: &mut Publisher) {
        let to = d.to;
        let (tick, start) = {
            let t = world.resource::<GameTime>();
            (t.tick(), t.time())
        };
        let c = Continuation {
            entity: to.entity,
            instance: to.instance,
            resume: u32::try_from(tick).expect("small"),
        };
        world
            .resource_mut::<PendingDelays>()
            .schedule(start, self.seconds, c)
            .expect("finite");
    }

    fn resume(&mut self, world: &mut World, c: Continuation, out: &mut Publisher) {
        RecordingDispatch.resume(world, c, out);
    }
}

/// Runs `ticks` updates with a delay of `seconds` started at every tick; returns
/// `(started, resumed)` tick pairs.
fn delay_pairs(dt: f64, seconds: f64, ticks: u64) -> Vec<(u64, u64)> {
    let mut h = H::new(DelayTester { seconds });
    h.world.insert_resource(GameTime::new(dt).expect("dt"));
    let a = h.spawn("a", true);
    h.sub("tick", a, 0);
    for _ in 0..ticks {
        h.tick();
    }
    let log = h.world.resource::<DeliveryLog>().0.clone();
    log.iter()
        .filter_map(|r| match r {
            Record::Resumed {
                tick, continuation, ..
            } => Some((u64::from(continuation.resume), *tick)),
            _ => None,
        })
        .collect()
}

fn check_delay(dt: f64, seconds: f64, ticks_later: u64) {
    let pairs = delay_pairs(dt, seconds, 400);
    assert!(pairs.len() > 300, "{seconds}: too few resumes");
    for (started, resumed) in pairs {
        assert_eq!(
            resumed,
            started + ticks_later,
            "delay {seconds}s started in tick {started}"
        );
    }
}

#[test]
fn delay_multiple_of_dt_resumes_exactly_that_many_ticks_later() {
    let dt = 1.0 / 60.0;
    check_delay(dt, 0.1, 6);
    check_delay(dt, 0.5, 30);
    check_delay(dt, 1.0 / 60.0, 1);
}

#[test]
fn delay_between_ticks_resumes_at_the_next_tick_start() {
    let dt = 1.0 / 60.0;
    check_delay(dt, 0.02, 2); // 1.2 ticks → second tick after
    check_delay(dt, 0.001, 1);
}

#[test]
fn zero_or_negative_delay_resumes_next_tick() {
    let dt = 1.0 / 60.0;
    check_delay(dt, 0.0, 1);
    check_delay(dt, -3.0, 1);
}

#[test]
fn delay_of_despawned_entity_is_dropped() {
    let mut h = H::new(RecordingDispatch);
    let a = h.spawn("a", true);
    let b = h.spawn("b", true);
    for (e, r) in [(a, 1), (b, 2)] {
        let c = Continuation {
            entity: e,
            instance: 0,
            resume: r,
        };
        h.world
            .resource_mut::<PendingDelays>()
            .schedule(0.0, 0.0, c)
            .expect("finite");
    }
    h.world.despawn(a);
    h.tick();
    check(&mut h, &["t1 b resume r2"]);
}

// ---------------------------------------------------------------------------------------------
// Property: deliveries match a direct model of the exact-pair rule.
// ---------------------------------------------------------------------------------------------

proptest! {
    #[test]
    fn deliveries_match_model(
        subs in prop::collection::vec((0u8..3, 0u8..4, 0u8..4), 0..24),
        pubs in prop::collection::vec((0u8..3, 0u8..4), 0..40),
    ) {
        let mut h = H::new(RecordingDispatch);
        let ents: Vec<Entity> = (0..3).map(|_| h.world.spawn_empty().id()).collect();
        // channel index 3 = Global
        let chan = |c: u8| if c == 3 { Channel::Global } else { Channel::of(ents[c as usize]) };
        let mut model_subs: Vec<(u8, u8, Subscriber)> = Vec::new();
        for (i, &(ev, ch, who)) in subs.iter().enumerate() {
            let who = Subscriber { entity: ents[(who % 3) as usize], instance: 0, handler: i as u32 };
            h.hub().subscribe(EventId(u32::from(ev) + 10), chan(ch), who);
            model_subs.push((ev, ch, who));
        }
        for &(ev, ch) in &pubs {
            h.hub().publish(EventId(u32::from(ev) + 10), chan(ch), Payload::None);
        }
        h.flush();
        let log = h.world.get_resource::<DeliveryLog>().map(|l| l.0.clone()).unwrap_or_default();
        let got: Vec<(u32, Subscriber)> = log.iter().filter_map(|r| match r {
            Record::Delivered { to, event, .. } => Some((event.id.0, *to)),
            _ => None,
        }).collect();
        let mut want = Vec::new();
        for &(ev, ch) in &pubs {
            for &(sev, sch, who) in &model_subs {
                if sev == ev && sch == ch {
                    want.push((u32::from(ev) + 10, who));
                }
            }
        }
        prop_assert_eq!(got, want);
    }
}

// ---------------------------------------------------------------------------------------------
// Hub bookkeeping (no schedule)
// ---------------------------------------------------------------------------------------------

fn who(e: Entity, handler: u32) -> Subscriber {
    Subscriber {
        entity: e,
        instance: 0,
        handler,
    }
}

/// Subscribes `subs` (entity, handler) to `custom::x` on each one's own channel and returns
/// who is subscribed on `probe`'s channel.
fn check_subs(subs: &[(Entity, u32)], clear: Option<Entity>, probe: Entity, expected: &[u32]) {
    let mut hub = EventHub::new();
    let x = hub.intern("custom::x").expect("intern");
    for &(e, hd) in subs {
        hub.subscribe(x, Channel::of(e), who(e, hd));
    }
    if let Some(e) = clear {
        hub.clear_channel(e);
    }
    let got: Vec<u32> = hub
        .subscribers(x, Channel::of(probe))
        .iter()
        .map(|s| s.handler)
        .collect();
    assert_eq!(got, expected);
}

#[test]
fn builtin_identities_and_interning() {
    let mut hub = EventHub::new();
    assert_eq!(hub.lookup("tick"), Some(EventId::TICK));
    assert_eq!(hub.lookup("begin_play"), Some(EventId::BEGIN_PLAY));
    let a = hub.intern("custom::a").expect("intern");
    assert_eq!(hub.intern("custom::a"), Ok(a));
    assert_ne!(hub.intern("custom::b"), Ok(a));
    assert_eq!(hub.name(a), Some("custom::a"));
    assert_eq!(hub.name(EventId(9999)), None);
    assert_eq!(hub.lookup("custom::zzz"), None);
}

#[test]
fn notify_fields_only_for_issued_ids() {
    let mut hub = EventHub::new();
    let a = hub.intern("animseq::s.a").expect("intern");
    hub.set_notify_fields(EventId(500), vec![Value::Int(1)]);
    assert!(hub.notify_fields(EventId(500)).is_empty());
    hub.set_notify_fields(a, vec![Value::Int(1)]);
    hub.set_notify_fields(a, vec![Value::Int(2)]); // hot reload replaces
    assert_eq!(hub.notify_fields(a), &[Value::Int(2)]);
}

#[test]
fn large_entity_indices_use_the_sparse_table() {
    let big = Entity::from_raw_u32(3_000_000).expect("index");
    let small = Entity::from_raw_u32(5).expect("index");
    check_subs(&[(big, 1), (small, 2)], None, big, &[1]);
    check_subs(&[(big, 1), (small, 2)], None, small, &[2]);
    check_subs(&[(big, 1), (small, 2)], Some(big), big, &[]);
    check_subs(&[(big, 1), (small, 2)], Some(big), small, &[2]);
}

#[test]
fn clear_channel_removes_foreign_subscribers_too() {
    let mut world = World::new();
    let a = world.spawn_empty().id();
    let b = world.spawn_empty().id();
    let mut hub = EventHub::new();
    let x = hub.intern("custom::x").expect("intern");
    hub.subscribe(x, Channel::of(a), who(b, 3)); // b listens on a's channel
    hub.subscribe(x, Channel::Global, who(a, 4));
    hub.clear_channel(a);
    assert!(hub.subscribers(x, Channel::of(a)).is_empty());
    assert!(hub.subscribers(x, Channel::Global).is_empty());
}

#[test]
fn new_generation_of_an_index_starts_with_no_subscriptions() {
    // Same index, next generation (what a world hands out after a despawn without
    // GraphInstances, when nothing was cleared eagerly).
    let old = Entity::from_raw_u32(4).expect("index");
    let new = Entity::from_index_and_generation(old.index(), old.generation().after_versions(1));
    assert_ne!(old, new);
    let mut hub = EventHub::new();
    let x = hub.intern("custom::x").expect("intern");
    hub.subscribe(x, Channel::of(old), who(old, 1));
    assert!(hub.subscribers(x, Channel::of(new)).is_empty());
    hub.subscribe(x, Channel::of(new), who(new, 2));
    let got: Vec<u32> = hub
        .subscribers(x, Channel::of(new))
        .iter()
        .map(|s| s.handler)
        .collect();
    assert_eq!(got, [2]);
    assert!(hub.subscribers(x, Channel::of(old)).is_empty());
}

#[test]
fn invalid_channel_bits_reach_nobody() {
    let mut hub = EventHub::new();
    let x = hub.intern("custom::x").expect("intern");
    // Low 32 bits zero is no entity (entity indices are stored inverted and never u32::MAX).
    let bogus = Channel::Entity(0);
    hub.subscribe(x, bogus, who(Entity::PLACEHOLDER, 0));
    assert!(hub.subscribers(x, bogus).is_empty());
    hub.publish(x, bogus, Payload::None);
    let mut world = World::new();
    world.insert_resource(hub);
    let r = flush(&mut world, &mut RecordingDispatch);
    assert_eq!((r.events, r.delivered), (1, 0));
}

#[test]
fn many_subscriptions_on_one_channel_keep_per_identity_order() {
    // More than 8 entries switches the lookup to binary search.
    let mut hub = EventHub::new();
    let e = Entity::from_raw_u32(7).expect("index");
    let ids: Vec<EventId> = (0..12)
        .map(|i| hub.intern(&format!("custom::e{i}")).expect("intern"))
        .collect();
    for (i, &id) in ids.iter().enumerate().rev() {
        hub.subscribe(id, Channel::of(e), who(e, i as u32 * 10));
        hub.subscribe(id, Channel::of(e), who(e, i as u32 * 10 + 1));
    }
    for (i, &id) in ids.iter().enumerate() {
        let got: Vec<u32> = hub
            .subscribers(id, Channel::of(e))
            .iter()
            .map(|s| s.handler)
            .collect();
        assert_eq!(got, [i as u32 * 10, i as u32 * 10 + 1]);
    }
}

#[test]
fn event_fits_in_one_cache_line() {
    // Publishing is one push of this many bytes; keep it small (a notify's context grew by
    // its clip weight, window edge and `completed` flag: 72 bytes).
    assert!(std::mem::size_of::<sinew::runtime::Event>() <= 72);
}

#[test]
fn timed_queue_orders_by_due_then_insertion() {
    let mut q = sinew::runtime::TimedQueue::default();
    for (due, tag) in [(0.5, "a"), (0.5, "b"), (-0.0, "c"), (0.0, "d"), (0.6, "e")] {
        q.push(due, tag).expect("finite");
    }
    assert_eq!(q.take_due(0.5), ["c", "d", "a", "b"]);
    assert_eq!(q.next_due(), Some(0.6));
    assert!(q.push(f64::NAN, "x").is_err());
    assert_eq!(q.len(), 1);
}

proptest! {
    /// Handlers republish along a random DAG of identities (fan-out ≤ 2, depth < 16, so no
    /// overrun): deliveries are round-major, publish order within a round, nothing lost.
    #[test]
    fn republish_rounds_match_model(
        rules in prop::collection::vec((0u32..8, 0u32..8), 0..12),
        seeds in prop::collection::vec((0u32..8, 0usize..2), 1..6),
    ) {
        // Keep only forward edges (DAG), at most two per source, in given order.
        let mut edges: Vec<(u32, u32)> = Vec::new();
        for (a, b) in rules {
            if a < b && edges.iter().filter(|(x, _)| *x == a).count() < 2 {
                edges.push((a, b));
            }
        }
        let mut h = H::new(RecordingDispatch);
        let ents = [h.spawn("p", false), h.spawn("q", false)];
        let ids: Vec<EventId> = (0..8).map(|i| h.id(&format!("custom::n{i}"))).collect();
        for &e in &ents {
            for (i, _) in ids.iter().enumerate() {
                h.sub(&format!("custom::n{i}"), e, i as u32);
            }
        }
        let rules: Vec<(EventId, EventId)> =
            edges.iter().map(|&(a, b)| (ids[a as usize], ids[b as usize])).collect();
        h.world.insert_resource(Dispatcher::new(RepublishDispatch { rules }));
        for &(i, e) in &seeds {
            h.publish(&format!("custom::n{i}"), Channel::of(ents[e]));
        }
        let r = h.tick();
        prop_assert_eq!(r.overrun, None);

        // Model: rounds of (identity, entity) pairs.
        let mut want = Vec::new();
        let mut round: Vec<(u32, usize)> = seeds.clone();
        while !round.is_empty() {
            let mut next = Vec::new();
            for &(i, e) in &round {
                want.push(format!("t1 {} custom::n{i} h{i}", ["p", "q"][e]));
                for &(a, b) in &edges {
                    if a == i {
                        next.push((b, e));
                    }
                }
            }
            round = next;
        }
        prop_assert_eq!(h.take_log(), want);
    }
}

proptest! {
    /// Subscribing a batch at once (what `attach_graphs` does) is subscribing one at a time:
    /// the same subscribers per pair in the same delivery order, duplicates refused; after
    /// `unsubscribe_entity` both start from nothing again.
    #[test]
    fn subscribing_a_batch_equals_subscribing_one_at_a_time(
        subs in proptest::collection::vec((0u32..4, 0u32..3, 0u32..3), 0..40),
    ) {
        let mut one = World::new();
        let e = one.spawn_empty().id();
        let mut a = EventHub::default();
        let mut b = EventHub::default();
        let ids: Vec<EventId> = (0..4)
            .map(|i| {
                let n = format!("custom::e{i}");
                let x = a.intern(&n).unwrap();
                prop_assert_eq!(b.intern(&n).unwrap(), x);
                Ok(x)
            })
            .collect::<Result<_, _>>()?;
        let batch: Vec<(EventId, u32, u32)> =
            subs.iter().map(|&(i, inst, h)| (ids[i as usize], inst, h)).collect();
        for round in 0..2 {
            for &(id, inst, h) in &batch {
                a.subscribe_own(id, e, inst, h);
            }
            b.subscribe_own_all(e, &batch);
            b.subscribe_own_all(e, &batch); // all duplicates: nothing changes
            for &id in &ids {
                prop_assert_eq!(
                    a.subscribers(id, Channel::of(e)),
                    b.subscribers(id, Channel::of(e)),
                    "round {}", round
                );
            }
            a.unsubscribe_entity(e);
            b.unsubscribe_entity(e);
            for &id in &ids {
                prop_assert!(b.subscribers(id, Channel::of(e)).is_empty());
            }
        }
    }
}

/// The storm of [`storm`] without recording (a million records would be the test's own cost).
fn silent_storm(queue_limit: usize, delivery_limit: u64) -> H {
    let mut h = H::new(|_: &mut World, d: Delivery<'_>, out: &mut Publisher| {
        out.publish(d.event.id, Channel::of(d.to.entity), Payload::None);
        out.publish(d.event.id, Channel::of(d.to.entity), Payload::None);
    });
    let a = h.spawn("a", true);
    h.sub("custom::storm", a, 0);
    h.hub().set_queue_limit(queue_limit);
    h.hub().set_delivery_limit(delivery_limit);
    h.publish("custom::storm", Channel::of(a));
    h
}

#[test]
fn queued_events_never_exceed_the_queue_limit() {
    // Issue 24, item 4: the rest of a stopped round, what it published and the main queue are
    // one queue under one limit; the excess is dropped and counted.
    let mut h = silent_storm(100, 64);
    let mut dropped = 0;
    for _ in 0..20 {
        let r = h.tick();
        let queued = h.hub().queued().len();
        assert!(
            queued <= 100,
            "{queued} events queued; the limit is 100 ({r:?})"
        );
        assert!(r.delivered <= 64, "{r:?}");
        assert!(h.hub().dropped_by_limit() >= dropped);
        dropped = h.hub().dropped_by_limit();
    }
    assert_eq!(
        h.hub().queued().len(),
        100,
        "the storm keeps the queue full"
    );
    assert!(dropped > 0, "the excess is counted");
}

#[test]
fn a_tick_at_the_queue_limit_costs_the_delivery_budget() {
    // Issue 24, item 4, at the default limits: 2^20 queued, 65 536 deliveries per flush. Every
    // tick's work is its deliveries, not the length of what waits (a generous deadline).
    let mut h = silent_storm(
        sinew::runtime::DEFAULT_QUEUE_LIMIT,
        sinew::runtime::DEFAULT_FLUSH_DELIVERIES,
    );
    let start = cpu_time();
    for tick in 0..60 {
        h.tick();
        let queued = h.hub().queued().len();
        assert!(
            queued <= sinew::runtime::DEFAULT_QUEUE_LIMIT,
            "tick {tick}: {queued} events queued"
        );
    }
    let spent = cpu_time() - start;
    assert!(
        spent < std::time::Duration::from_secs(10),
        "60 ticks at the queue limit took {spent:?} of CPU time"
    );
}

/// This thread's time on a CPU (Linux: `/proc/thread-self/schedstat`; elsewhere wall time), so
/// a deadline holds on a machine other builds keep busy.
fn cpu_time() -> std::time::Duration {
    let on_cpu = std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok());
    match on_cpu {
        Some(ns) => std::time::Duration::from_nanos(ns),
        None => {
            static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
            START.get_or_init(std::time::Instant::now).elapsed()
        }
    }
}
