//! Embedding Sinew in a game's own bevy_ecs `World` and `Schedule`: a game system, a stand-in
//! animator publishing a footstep notify, and a dispatcher standing in for the VM.
//!
//! Run with `cargo run --example embed`.

use bevy_ecs::prelude::*;
use sinew::runtime::{
    AnimationSet, Channel, Delivery, Dispatcher, EventHub, EventId, GameTime, GraphInstances,
    Notify, Payload, Publisher, Value, add_sinew_systems, init_world,
};

/// The game's own component and resource.
#[derive(Component)]
struct Footsteps(u32);

#[derive(Resource, Default)]
struct Output(Vec<String>);

/// A stand-in animator: a 0.5 s looping clip with a footstep marker at clip time 0.25.
fn fake_animator(
    time: Res<GameTime>,
    mut hub: ResMut<EventHub>,
    q: Query<Entity, With<Footsteps>>,
) {
    let (from, to) = (time.time(), time.time() + time.dt());
    let Some(step) = hub.lookup("animseq::walk.footstep") else {
        return;
    };
    // Occurrences k·0.5 + 0.25 in (from, to].
    let k = ((to - 0.25) / 0.5).floor();
    let t = k * 0.5 + 0.25;
    if t > from && t <= to {
        for e in &q {
            let n = Notify {
                source: e.to_bits(),
                time: t,
                clip_time: 0.25,
                cycle: k as i64,
            };
            hub.publisher().notify(step, e, n);
        }
    }
}

/// Stands in for the VM: handler 0 = begin_play, 1 = footstep, 2 = tick.
fn handlers(world: &mut World, d: Delivery<'_>, _out: &mut Publisher) {
    let tick = world.resource::<GameTime>().tick();
    let line = match (&d.event.payload, d.to.handler) {
        (Payload::None, 0) => format!("tick {tick}: begin_play"),
        (Payload::Notify(n), 1) => {
            if let Some(mut f) = world.get_mut::<Footsteps>(d.to.entity) {
                f.0 += 1;
            }
            format!("tick {tick}: footstep at {} on {:?}", n.time, d.fields)
        }
        _ => return, // ticks are not printed
    };
    world.resource_mut::<Output>().0.push(line);
}

/// Builds the world and schedule, runs `ticks` updates and returns the printed lines.
pub fn run(ticks: u32) -> Vec<String> {
    let mut world = World::new();
    init_world(&mut world); // before spawning anything with GraphInstances
    world.insert_resource(GameTime::new(0.1).expect("valid dt"));
    world.insert_resource(Dispatcher::new(handlers));
    world.init_resource::<Output>();

    let mut schedule = Schedule::default();
    add_sinew_systems(&mut schedule);
    schedule.add_systems(fake_animator.in_set(AnimationSet));

    // Asset load: intern identities, register notify fields.
    let mut hub = world.resource_mut::<EventHub>();
    let step = hub.intern("animseq::walk.footstep").expect("intern");
    hub.set_notify_fields(step, vec![Value::Str("grass".into())]);

    // Scene load: a hero with one graph instance handling three events.
    let hero = world
        .spawn((Footsteps(0), GraphInstances { count: 1 }))
        .id();
    let mut hub = world.resource_mut::<EventHub>();
    hub.subscribe_own(EventId::BEGIN_PLAY, hero, 0, 0);
    hub.subscribe_own(step, hero, 0, 1);
    hub.subscribe_own(EventId::TICK, hero, 0, 2);
    debug_assert_eq!(hub.subscribers(step, Channel::of(hero)).len(), 1);

    for _ in 0..ticks {
        schedule.run(&mut world);
    }
    let steps = world.get::<Footsteps>(hero).map_or(0, |f| f.0);
    let mut out = std::mem::take(&mut world.resource_mut::<Output>().0);
    out.push(format!("footsteps counted: {steps}"));
    out
}

pub fn main() {
    for line in run(10) {
        println!("{line}");
    }
}
