//! The world and schedule of a headless run ([`headless`]: what `sinew run`, the studio and the
//! benches step) and the report of each flush ([`report_flush`]: overruns naming the
//! events that keep a flush going, queue-limit drops). The one place in the runtime that names
//! `schedule`: it wires the runtime's systems for a run.

use std::collections::BTreeMap;

use bevy_ecs::prelude::*;

use super::EntityNames;
use crate::runtime::hub::{Dispatcher, EventHub, LastFlush};
use crate::runtime::instance::VmDispatch;
use crate::runtime::schedule::{AnimationSet, SinewSet, add_sinew_systems, init_world};
use crate::runtime::time::{GameTime, TimeError};
use crate::runtime::trace::{self, Trace};

/// A world and schedule for a headless run with tick length `dt`: Sinew's resources and
/// systems, the VM dispatcher, the animator in [`AnimationSet`], a [`Trace`], and a
/// system after the flush that traces flush overruns and queue-limit drops.
pub fn headless(dt: f64) -> Result<(World, Schedule), TimeError> {
    let mut world = World::new();
    init_world(&mut world);
    world.insert_resource(GameTime::new(dt)?);
    world.insert_resource(Dispatcher::new(VmDispatch::new()));
    world.insert_resource(Trace::default());
    world.insert_resource(QueueDrops(0));
    let mut schedule = Schedule::default();
    add_sinew_systems(&mut schedule);
    schedule.add_systems(crate::runtime::animator::animate.in_set(AnimationSet));
    schedule.add_systems(report_flush.after(SinewSet::Flush));
    Ok((world, schedule))
}

/// Publishes refused by the hub's queue limit that were already reported.
#[derive(Resource, Debug, Default, Clone, Copy)]
pub struct QueueDrops(pub u64);

/// Most distinct (event, receiver, sender) groups a flush overrun report names.
const LOOPING_LISTED: usize = 4;

/// What keeps a flush from ending: the events left queued, grouped by (event, receiving
/// entity, sending entity), most frequent first (ties by name), at most [`LOOPING_LISTED`]:
/// `` `custom::ping` to `right` (from `left`) ×1 ``. Empty when nothing is queued.
fn looping(world: &World) -> String {
    let Some(hub) = world.get_resource::<EventHub>() else {
        return String::new();
    };
    let names = world.get_resource::<EntityNames>();
    let name = |bits: u64| -> String {
        match names.and_then(|n| n.0.get(&bits)) {
            Some(n) => format!("`{}`", crate::ron_span::short(n)),
            None => match Entity::try_from_bits(bits) {
                Some(e) => format!("entity {e}"),
                None => format!("entity {bits}"),
            },
        }
    };
    let mut groups: BTreeMap<(String, String, Option<String>), usize> = BTreeMap::new();
    for e in hub.queued() {
        let event = hub.name(e.id).unwrap_or("?").to_string();
        let to = match e.channel {
            crate::runtime::hub::Channel::Entity(bits) => name(bits),
            crate::runtime::hub::Channel::Global => "every entity".to_string(),
        };
        let from = match &e.payload {
            crate::runtime::hub::Payload::Custom {
                sender: Some(bits), ..
            } => Some(name(*bits)),
            _ => None,
        };
        *groups.entry((event, to, from)).or_default() += 1;
    }
    let total = groups.len();
    let mut sorted: Vec<_> = groups.into_iter().collect();
    sorted.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut parts: Vec<String> = sorted
        .iter()
        .take(LOOPING_LISTED)
        .map(|((event, to, from), n)| {
            let from = from
                .as_ref()
                .map_or(String::new(), |f| format!(" from {f}"));
            format!("`{event}` to {to}{from} ×{n}")
        })
        .collect();
    if total > LOOPING_LISTED {
        parts.push(format!("{} more", total - LOOPING_LISTED));
    }
    parts.join(", ")
}

/// Traces the last flush's overrun and any new queue-limit drops as `error` records (add it
/// after [`SinewSet::Flush`]; it keeps its count of reported drops in [`QueueDrops`]). An
/// overrun names what keeps the flush going: the queued events with their receivers and
/// senders (handlers sending events to each other in a loop).
pub fn report_flush(world: &mut World) {
    world.init_resource::<QueueDrops>();
    let overrun = world.get_resource::<LastFlush>().and_then(|l| l.0.overrun);
    if let Some(o) = overrun {
        let looping = looping(world);
        let message = if looping.is_empty() {
            o.to_string()
        } else {
            format!("{o}: {looping}")
        };
        trace::error(world, None, None, None, message);
    }
    let dropped = world
        .get_resource::<EventHub>()
        .map_or(0, EventHub::dropped_by_limit);
    let seen = world.get_resource::<QueueDrops>().map_or(0, |q| q.0);
    if dropped > seen {
        if let Some(mut q) = world.get_resource_mut::<QueueDrops>() {
            q.0 = dropped;
        }
        trace::error(
            world,
            None,
            None,
            None,
            format!("{} event(s) dropped: event queue full", dropped - seen),
        );
    }
}
