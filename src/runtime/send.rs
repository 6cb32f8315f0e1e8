//! Events in (`bridge.md` §3): the game sends `custom::NAME` to a graph entity with [`send`],
//! checked against the payload the target's graphs declare ([`DeclaredPayloads`], what its
//! scene's graphs agreed on); a mismatch is a [`SendError`] naming the fields and types, and
//! nothing is queued. A queued event is delivered at the next flush (this tick's, when sent
//! before [`SinewSet::Flush`](super::SinewSet) runs).

use std::fmt;

use bevy_ecs::prelude::*;

use super::events::DeclaredPayloads;
use super::hub::{EventHub, Value};
use super::instance::Graphs;
use crate::types::Type;

/// Why [`send`] queued nothing.
#[derive(Debug, Clone, PartialEq)]
pub enum SendError {
    /// The event is not `custom::NAME` (NAME an identifier).
    NotCustom(String),
    /// The target entity does not exist (never did, or was despawned).
    NoTarget {
        /// The event.
        event: String,
        /// The target.
        target: Entity,
    },
    /// No graph on the target handles the event.
    NotHandled {
        /// The event.
        event: String,
        /// The target.
        target: Entity,
        /// The custom events its graphs handle, sorted.
        handled: Vec<String>,
    },
    /// The fields given do not match the declared payload.
    Payload {
        /// The event.
        event: String,
        /// The target.
        target: Entity,
        /// Each problem (`unknown field `amout``, `missing field `amount` (float)`, …).
        problems: Vec<String>,
        /// The declared payload, as written in a graph (`{ amount: float }`).
        declared: String,
    },
    /// The world has no Sinew runtime ([`init_world`](super::init_world) was not called).
    NoHub,
    /// The hub's queue is full.
    QueueFull {
        /// The event.
        event: String,
    },
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SendError::NotCustom(e) => write!(
                f,
                "`{e}` is not a custom event: the game sends `custom::NAME`; nothing queued"
            ),
            SendError::NoTarget { event, target } => write!(
                f,
                "`{event}` to entity {target}: no such entity (despawned?); nothing queued"
            ),
            SendError::NotHandled {
                event,
                target,
                handled,
            } => {
                write!(
                    f,
                    "`{event}` to entity {target}: no graph on it handles `{event}`"
                )?;
                if handled.is_empty() {
                    write!(f, " (it handles no custom event)")?;
                } else {
                    write!(f, " (it handles {})", handled.join(", "))?;
                }
                write!(f, "; nothing queued")
            }
            SendError::Payload {
                event,
                target,
                problems,
                declared,
            } => write!(
                f,
                "`{event}` to entity {target}: {}; nothing queued (its graphs declare `event {event} {declared}`)",
                problems.join("; ")
            ),
            SendError::NoHub => write!(f, "no Sinew runtime in this world (call `init_world`)"),
            SendError::QueueFull { event } => {
                write!(f, "`{event}`: event queue full; nothing queued")
            }
        }
    }
}

impl std::error::Error for SendError {}

fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Queues `event` (`custom::NAME`) to `target` from `sender` (`None`: from the game) with the
/// payload `fields`, for the next flush: `send(world, hero, "custom::hit", player,
/// &[("amount", Value::Float(5.0))])`. Checked first: the target exists and one of its graphs
/// handles the event; every declared field is given once with its declared type and no other
/// is given. On an error nothing is queued.
pub fn send(
    world: &mut World,
    target: Entity,
    event: &str,
    sender: impl Into<Option<Entity>>,
    fields: &[(&str, Value)],
) -> Result<(), SendError> {
    let sender = sender.into();
    let Some(name) = event.strip_prefix("custom::").filter(|n| is_ident(n)) else {
        return Err(SendError::NotCustom(event.to_string()));
    };
    if !world.entities().contains_spawned(target) {
        return Err(SendError::NoTarget {
            event: event.to_string(),
            target,
        });
    }
    // What the target's graphs take: each handling instance's payload types after `sender`.
    let mut taken: Vec<&[Type]> = Vec::new();
    let mut handled: Vec<String> = Vec::new();
    if let Some(graphs) = world.get::<Graphs>(target) {
        for i in graphs.instances() {
            for h in &i.module().module().handlers {
                if h.event == event {
                    taken.push(h.params.get(1..).unwrap_or(&[]));
                } else if h.event.starts_with("custom::") {
                    handled.push(h.event.clone());
                }
            }
        }
    }
    if taken.is_empty() {
        handled.sort();
        handled.dedup();
        return Err(SendError::NotHandled {
            event: event.to_string(),
            target,
            handled,
        });
    }
    let declared: Vec<(String, Type)> = match world
        .get::<DeclaredPayloads>(target)
        .and_then(|d| d.get(name))
    {
        Some(d) => d.iter().map(|(n, t)| (n.to_string(), *t)).collect(),
        None => Vec::new(),
    };
    let payload_error = |problems: Vec<String>| SendError::Payload {
        event: event.to_string(),
        target,
        problems,
        declared: written(&declared),
    };
    let types: Vec<Type> = declared.iter().map(|(_, t)| *t).collect();
    if let Some(other) = taken.iter().find(|t| ***t != types[..]) {
        // Graphs attached without their scene's declarations (or declarations that changed
        // under a running graph): the names of what it takes are unknown.
        let list: Vec<&str> = other.iter().map(|t| t.name()).collect();
        return Err(payload_error(vec![format!(
            "its graphs take ({}) but no declaration naming those fields reached this entity",
            list.join(", ")
        )]));
    }
    let mut problems = Vec::new();
    for (i, (field, value)) in fields.iter().enumerate() {
        if fields[..i].iter().any(|(f, _)| f == field) {
            problems.push(format!("field `{field}` given twice"));
            continue;
        }
        match declared.iter().find(|(n, _)| n == field) {
            None => {
                let names = declared.iter().map(|(n, _)| n.as_str());
                let hint = crate::suggest::closest(field, names)
                    .map_or(String::new(), |s| format!(" (did you mean `{s}`?)"));
                problems.push(format!("unknown field `{field}`{hint}"));
            }
            Some((_, ty)) if *ty != value.ty() => problems.push(format!(
                "field `{field}` is {ty}, given {}",
                value.ty().name()
            )),
            Some(_) => {}
        }
    }
    for (n, t) in &declared {
        if !fields.iter().any(|(f, _)| f == n) {
            problems.push(format!("missing field `{n}` ({t})"));
        }
    }
    if !problems.is_empty() {
        return Err(payload_error(problems));
    }
    let values: Box<[Value]> = declared
        .iter()
        .filter_map(|(n, _)| fields.iter().find(|(f, _)| f == n).map(|(_, v)| v.clone()))
        .collect();
    let Some(mut hub) = world.get_resource_mut::<EventHub>() else {
        return Err(SendError::NoHub);
    };
    let id = hub.intern(event).map_err(|_| SendError::QueueFull {
        event: event.to_string(),
    })?;
    if hub.publisher().send(id, target, sender, values) {
        Ok(())
    } else {
        Err(SendError::QueueFull {
            event: event.to_string(),
        })
    }
}

/// A payload as a graph declares it: `{ amount: float, critical: bool }` (`{}` when empty).
fn written(declared: &[(String, Type)]) -> String {
    if declared.is_empty() {
        return "{}".to_string();
    }
    let fields: Vec<String> = declared.iter().map(|(n, t)| format!("{n}: {t}")).collect();
    format!("{{ {} }}", fields.join(", "))
}
