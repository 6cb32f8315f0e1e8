//! Event hub throughput: publish + flush + dispatch of notify events to a no-op handler on
//! 10,000 entities (3 events per entity per update), reported as events/second.

use std::hint::black_box;

use bevy_ecs::prelude::*;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sinew::runtime::{
    Delivery, Dispatch, Dispatcher, EventHub, EventId, GraphInstances, Notify, Publisher, Value,
    add_sinew_systems, flush, init_world,
};

const ENTITIES: usize = 10_000;
const EVENTS_PER_ENTITY: usize = 3;

/// A handler that does nothing (but keeps the event observable to the optimizer).
struct Noop;

impl Dispatch for Noop {
    #[inline(never)]
    fn deliver(&mut self, _: &mut World, d: Delivery<'_>, _: &mut Publisher) {
        black_box(d);
    }
}

struct Setup {
    world: World,
    entities: Vec<Entity>,
    ids: Vec<EventId>,
}

fn setup(with_graphs: bool) -> Setup {
    let mut world = World::new();
    init_world(&mut world);
    world.insert_resource(Dispatcher::new(Noop));
    let entities: Vec<Entity> = (0..ENTITIES)
        .map(|_| {
            if with_graphs {
                world.spawn(GraphInstances { count: 1 }).id()
            } else {
                world.spawn_empty().id()
            }
        })
        .collect();
    let mut hub = world.resource_mut::<EventHub>();
    let ids: Vec<EventId> = (0..EVENTS_PER_ENTITY)
        .map(|i| {
            hub.intern(&format!("animseq::run.marker{i}"))
                .expect("intern")
        })
        .collect();
    for &e in &entities {
        for (h, &id) in ids.iter().enumerate() {
            hub.subscribe_own(id, e, 0, h as u32);
        }
        hub.subscribe_own(EventId::TICK, e, 0, 99);
    }
    // Typed fields per notify, registered at "asset load".
    for (i, &id) in ids.iter().enumerate() {
        hub.set_notify_fields(id, vec![Value::Float(i as f64), Value::Bool(true)]);
    }
    Setup {
        world,
        entities,
        ids,
    }
}

fn publish_all(s: &mut Setup) {
    let Setup {
        world,
        entities,
        ids,
    } = s;
    let mut hub = world.resource_mut::<EventHub>();
    let out = hub.publisher();
    for &e in entities.iter() {
        for &id in ids.iter() {
            out.notify(id, e, Notify::point(e.to_bits(), 1.0, 0.5, 2));
        }
    }
}

fn bench_hub(c: &mut Criterion) {
    let mut group = c.benchmark_group("event_hub");
    group.throughput(Throughput::Elements((ENTITIES * EVENTS_PER_ENTITY) as u64));

    let mut s = setup(false);
    let mut noop = Noop;
    group.bench_function("publish_flush_dispatch_10k_entities_x3", |b| {
        b.iter(|| {
            publish_all(&mut s);
            let r = flush(&mut s.world, &mut noop);
            debug_assert_eq!(r.delivered as usize, ENTITIES * EVENTS_PER_ENTITY);
            black_box(r)
        })
    });

    // Same, with entities publishing in a scrambled order (worst case for cache locality).
    let mut s = setup(false);
    let n = s.entities.len();
    for i in 0..n {
        // Deterministic scramble: multiplicative permutation modulo a prime-free stride.
        let j = (i * 7919 + 13) % n;
        s.entities.swap(i, j);
    }
    group.bench_function("publish_flush_dispatch_10k_entities_x3_scrambled", |b| {
        b.iter(|| {
            publish_all(&mut s);
            black_box(flush(&mut s.world, &mut noop))
        })
    });

    // A whole update: Sinew's schedule (time, actions, delays, tick to 10k hosts, flush) plus
    // the 30k notify publishes an animation step would make: 40k events per update.
    let mut s = setup(true);
    let mut schedule = Schedule::default();
    add_sinew_systems(&mut schedule);
    schedule.run(&mut s.world); // deliver begin_play, build the schedule
    group.throughput(Throughput::Elements(
        (ENTITIES * (EVENTS_PER_ENTITY + 1)) as u64,
    ));
    group.bench_function("full_update_10k_hosts_3_notifies_plus_tick", |b| {
        b.iter(|| {
            publish_all(&mut s);
            schedule.run(&mut s.world);
        })
    });
    group.finish();
}

criterion_group!(benches, bench_hub);
criterion_main!(benches);
