//! The embedded runtime: owns Sinew's part of a bevy_ecs `World` — game time, timed scene
//! actions and `flow.delay` continuations ([`time`], the bottom layer), the event hub ([`hub`])
//! — and the ordered per-tick schedule ([`schedule`], the top: it only wires systems); graph
//! instances running on the VM ([`instance`]), the animator ([`animator`]), headless scenes
//! ([`scene`]: spawning a loaded scene), the run trace ([`trace`]) and its text ([`render`]).
//!
//! A game embeds Sinew with [`init_world`] and [`add_sinew_systems`] (see `docs/embedding.md`);
//! the VM plugs in through the [`Dispatch`] trait (the [`Dispatcher`] resource, normally a
//! [`VmDispatch`]); animators run in [`AnimationSet`] and publish through
//! [`EventHub::publisher`]. No file I/O happens here.

pub mod animator;
pub mod events;
pub mod game_nodes;
pub mod hub;
pub mod instance;
pub mod notify;
pub mod reload;
pub mod render;
pub mod scene;
pub mod schedule;
pub mod send;
pub mod testing;
pub mod time;
pub mod trace;
pub mod values;

pub use animator::{AnimCommand, Animator, AnimatorOutput, Clip, animate};
pub use events::{
    CustomEvent, DEFAULT_GAME_EVENT_LIMIT, DeclaredPayloads, GameEvent, GameEvents, NotifyEvent,
    on_event,
};
pub use game_nodes::{
    CallIo, GameCall, GameDeclarations, GameNodeError, GameNodeFn, GameNodes, GameReturns,
};
pub use hub::{
    Channel, Continuation, DEFAULT_FLUSH_DELIVERIES, DEFAULT_QUEUE_LIMIT, Delivery, Dispatch,
    Dispatcher, Event, EventHub, EventId, FlushLimit, FlushReport, GraphInstances, HubError,
    LastFlush, MAX_FLUSH_ROUNDS, NoopDispatch, Notify, Overrun, Payload, Publisher, Subscriber,
    Value, flush, flush_events,
};
pub use hub::{publish_tick, resume_delays};
pub use instance::{
    AttachError, ExecLog, GraphInstance, Graphs, Invocation, ModuleSwap, VmDispatch, attach_graphs,
};
pub use notify::publish_notifies;
pub use render::{TraceFormat, TraceWriter};
pub use schedule::{AnimationSet, SinewSet, add_sinew_systems, init_world};
pub use send::{SendError, send};
pub use time::{
    DEFAULT_DT, GameTime, PendingDelays, SceneAction, SceneActions, TIME_EPSILON, TimeError,
    TimedQueue, advance_time, apply_scene_actions, is_due,
};
pub use trace::{Trace, TraceKind, TraceRecord};
