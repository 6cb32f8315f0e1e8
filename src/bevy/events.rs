//! The bridge's events in Bevy (`bridge.md` §2–3, `docs/bevy.md`): every notify, window edge
//! and graph custom send of a tick ([`crate::runtime::GameEvents`]) is triggered as an
//! `EntityEvent` on its entity — [`SinewNotify`], [`SinewWindow`], [`SinewCustom`], heard by
//! global observers (`app.add_observer`) and entity observers (`commands.entity(e).observe`)
//! — and written as a `Message` of the same type (`MessageReader<SinewNotify>` after
//! [`SinewSet::Flush`]), in trace order, exactly once, right after the tick's flush.
//! [`SinewSend`], triggered by the game (`commands.trigger`, `world.trigger`), sends
//! `custom::NAME` to a graph through [`crate::runtime::send`]: a mismatch is logged as an
//! error and delivers nothing.

use std::ops::Deref;

use bevy_app::App;
use bevy_ecs::prelude::*;

use super::{SinewSchedule, SinewSet};
use crate::runtime::{CustomEvent, GameEvent, GameEvents, NotifyEvent, Value};

/// A point notify published to `entity`'s channel (the fields and getters of
/// [`NotifyEvent`] through `Deref`: `ev.is("footstep_l")`, `ev.f32("volume")`, `ev.clip_time`).
#[derive(EntityEvent, Message, Debug, Clone, PartialEq)]
pub struct SinewNotify {
    /// The entity whose channel it was published to.
    pub entity: Entity,
    /// The notify.
    pub notify: NotifyEvent,
}

impl Deref for SinewNotify {
    type Target = NotifyEvent;
    fn deref(&self) -> &NotifyEvent {
        &self.notify
    }
}

/// Which edge of a window a [`SinewWindow`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowEdge {
    /// The window opened.
    Begin,
    /// The window closed: at its end edge (`completed`) or cut short.
    End {
        /// Reached its end edge.
        completed: bool,
    },
}

/// A window edge published to `entity`'s channel (an end always follows its begin); the
/// window's fields and getters through `Deref`.
#[derive(EntityEvent, Message, Debug, Clone, PartialEq)]
pub struct SinewWindow {
    /// The entity whose channel it was published to.
    pub entity: Entity,
    /// Begin or end.
    pub edge: WindowEdge,
    /// The window.
    pub window: NotifyEvent,
}

impl SinewWindow {
    /// The window opened.
    pub fn is_begin(&self) -> bool {
        self.edge == WindowEdge::Begin
    }

    /// The window closed.
    pub fn is_end(&self) -> bool {
        !self.is_begin()
    }

    /// An end at the window's end edge (false on begins and cuts).
    pub fn completed(&self) -> bool {
        self.edge == WindowEdge::End { completed: true }
    }
}

impl Deref for SinewWindow {
    type Target = NotifyEvent;
    fn deref(&self) -> &NotifyEvent {
        &self.window
    }
}

/// A graph's `event.send custom::NAME` to `entity` (a graph entity or a game entity, handled
/// or not); `ev.is_custom("hit")`, `ev.sender`, `ev.f32("amount")` through `Deref`.
#[derive(EntityEvent, Message, Debug, Clone, PartialEq)]
pub struct SinewCustom {
    /// The target.
    pub entity: Entity,
    /// The custom event.
    pub custom: CustomEvent,
}

impl Deref for SinewCustom {
    type Target = CustomEvent;
    fn deref(&self) -> &CustomEvent {
        &self.custom
    }
}

/// The game sends `custom::NAME` to a graph entity: `commands.trigger(SinewSend::new(hero,
/// "custom::hit").sender(player).with("amount", 5.0))`. Checked against the payload the
/// target's graphs declare ([`crate::runtime::send`]); a mismatch is logged (`tracing`, error)
/// with the reason and nothing is delivered. Triggered before Sinew's systems in a frame, it
/// is delivered in that frame's tick; after them, in the next tick's.
#[derive(Event, Debug, Clone, PartialEq)]
pub struct SinewSend {
    /// The entity whose graphs receive it.
    pub target: Entity,
    /// `custom::NAME`.
    pub event: String,
    /// The sending entity (`None`: the game).
    pub sender: Option<Entity>,
    /// The payload's fields by name.
    pub fields: Vec<(String, Value)>,
}

impl SinewSend {
    /// `event` (`custom::NAME`) to `target`, from the game, with no fields yet.
    pub fn new(target: Entity, event: impl Into<String>) -> SinewSend {
        SinewSend {
            target,
            event: event.into(),
            sender: None,
            fields: Vec::new(),
        }
    }

    /// Sent by `sender` (the handler's `sender` pin).
    pub fn sender(mut self, sender: Entity) -> SinewSend {
        self.sender = Some(sender);
        self
    }

    /// Payload field `name` = `value` (`5.0` is a `float`, `3_i64` an `int`, `"x"` a
    /// `string`, an `Entity` an `entity`, a `Vec3` a `vec3`, or a [`Value`]).
    pub fn with(mut self, name: impl Into<String>, value: impl IntoValue) -> SinewSend {
        self.fields.push((name.into(), value.into_value()));
        self
    }
}

/// A Rust value a payload field takes (see [`SinewSend::with`]).
pub trait IntoValue {
    /// The runtime value.
    fn into_value(self) -> Value;
}

impl IntoValue for Value {
    fn into_value(self) -> Value {
        self
    }
}

impl IntoValue for f64 {
    fn into_value(self) -> Value {
        Value::Float(self)
    }
}

impl IntoValue for f32 {
    fn into_value(self) -> Value {
        Value::Float(f64::from(self))
    }
}

impl IntoValue for i64 {
    fn into_value(self) -> Value {
        Value::Int(self)
    }
}

impl IntoValue for i32 {
    fn into_value(self) -> Value {
        Value::Int(i64::from(self))
    }
}

impl IntoValue for bool {
    fn into_value(self) -> Value {
        Value::Bool(self)
    }
}

impl IntoValue for &str {
    fn into_value(self) -> Value {
        Value::Str(self.into())
    }
}

impl IntoValue for String {
    fn into_value(self) -> Value {
        Value::Str(self.into())
    }
}

impl IntoValue for Entity {
    fn into_value(self) -> Value {
        Value::Entity(Some(self.to_bits()))
    }
}

impl IntoValue for Option<Entity> {
    fn into_value(self) -> Value {
        Value::Entity(self.map(Entity::to_bits))
    }
}

impl IntoValue for bevy_math::Vec3 {
    fn into_value(self) -> Value {
        Value::Vec3(self.to_array())
    }
}

/// The plugin's hook: the event and message types, the observer that takes [`SinewSend`]
/// and the system that publishes the tick's events: last in [`SinewSet::Flush`] (after the
/// flush and the `on_event` callbacks), so a game system `.after(SinewSet::Flush)` reads them
/// in the same frame.
pub(super) fn build(app: &mut App) {
    app.add_message::<SinewNotify>()
        .add_message::<SinewWindow>()
        .add_message::<SinewCustom>()
        .add_observer(take_send)
        .add_systems(
            SinewSchedule,
            publish
                .in_set(SinewSet::Flush)
                .after(crate::runtime::events::run_callbacks),
        );
}

/// Queues a [`SinewSend`] through `runtime::send`; a refusal is an error log line.
fn take_send(ev: On<SinewSend>, mut commands: Commands) {
    let send = ev.event().clone();
    commands.queue(move |world: &mut World| {
        let fields: Vec<(&str, Value)> = send
            .fields
            .iter()
            .map(|(n, v)| (n.as_str(), v.clone()))
            .collect();
        if let Err(e) = crate::runtime::send(world, send.target, &send.event, send.sender, &fields)
        {
            tracing::error!(target: "sinew", "SinewSend refused: {e}");
        }
    });
}

/// Triggers and writes this tick's events, in order (exclusive: observers get the world).
fn publish(world: &mut World) {
    let Some(mut events) = world.get_resource_mut::<GameEvents>() else {
        return;
    };
    if events.events().is_empty() {
        return;
    }
    let taken: Vec<GameEvent> = events.drain().collect();
    for ev in taken {
        match ev {
            GameEvent::Notify(n) => {
                let e = SinewNotify {
                    entity: n.entity,
                    notify: n,
                };
                world.write_message(e.clone());
                world.trigger(e);
            }
            GameEvent::WindowBegin(w) => {
                let e = SinewWindow {
                    entity: w.entity,
                    edge: WindowEdge::Begin,
                    window: w,
                };
                world.write_message(e.clone());
                world.trigger(e);
            }
            GameEvent::WindowEnd { window, completed } => {
                let e = SinewWindow {
                    entity: window.entity,
                    edge: WindowEdge::End { completed },
                    window,
                };
                world.write_message(e.clone());
                world.trigger(e);
            }
            GameEvent::Custom(c) => {
                let e = SinewCustom {
                    entity: c.target,
                    custom: c,
                };
                world.write_message(e.clone());
                world.trigger(e);
            }
        }
    }
}
