//! The typed graph IR: the one hub between the `.bpg` front end and every later pass.
//!
//! Nodes and links are resolved (kinds looked up, pins typed, variables and events bound);
//! only links that passed every link rule are present. Spans live beside the IR in
//! [`GraphSpans`], not inside nodes. Passes read a `Graph` and return facts or new values.

use crate::crossing::Edge;
use crate::diag::Span;
use crate::graph::expr::ParsedExpr;
use crate::nodes::{self, KindId, NodeKind, PinType};
use crate::types::Type;

/// Index of a node in [`Graph::nodes`].
pub type NodeId = u32;

/// The one typed constant (literal arguments, variable initializers, type defaults), shared
/// with the constant pool it lowers into. The entity literal `""` is
/// `Entity(EntityConst::None)`: a variable starts unset; an entity pin without a link is
/// always the own entity (`lower` emits `entity.self`, whatever its literal).
pub use crate::bytecode::types::{Const, EntityConst};

/// The default of a pin: its type's default, or no value for an exec pin.
pub fn pin_default(ty: PinType) -> Option<Const> {
    ty.data().map(Const::default_of)
}

/// A graph variable.
#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    pub name: String,
    pub ty: Type,
    pub init: Const,
}

/// A typed pin of a resolved node.
#[derive(Clone, Debug, PartialEq)]
pub struct Pin {
    /// Built-in pins borrow the node table's names; expression inputs and notify fields own.
    pub name: std::borrow::Cow<'static, str>,
    pub ty: PinType,
}

/// What starts a handler.
#[derive(Clone, Debug, PartialEq)]
pub enum EventKey {
    BeginPlay,
    Tick,
    /// `custom::NAME`
    Custom(String),
    /// `animseq::S.N` with its typed fields (from the catalog).
    Notify {
        identity: String,
    },
    /// `animseq::S.W` of a window: two handlers, one per edge.
    Window {
        identity: String,
    },
}

/// Where a handler starts on its event node: the exec output, and the window edge it runs on
/// (`None` for every event but a window's).
pub type HandlerEntry = (&'static str, Option<Edge>);

impl EventKey {
    /// The identity string handlers are keyed by.
    pub fn identity(&self) -> String {
        match self {
            EventKey::BeginPlay => "begin_play".into(),
            EventKey::Tick => "tick".into(),
            EventKey::Custom(n) => format!("custom::{n}"),
            EventKey::Notify { identity } | EventKey::Window { identity } => identity.clone(),
        }
    }

    /// The handlers the event node starts, in handler-table order: `then` for every event, a
    /// window's `begin` and `end` outputs for a window (each a handler, linked or not).
    pub fn entries(&self) -> &'static [HandlerEntry] {
        match self {
            EventKey::Window { .. } => &[
                (nodes::WINDOW_BEGIN, Some(Edge::Begin)),
                (nodes::WINDOW_END, Some(Edge::End)),
            ],
            _ => &[("then", None)],
        }
    }
}

/// What a node does.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// An event node: starts a handler.
    Event(EventKey),
    /// `var.get` / `var.set` of variable index `var`.
    VarGet(u32),
    VarSet(u32),
    /// `expr`: inputs are the free identifiers in order of first appearance.
    Expr(Box<ParsedExpr>),
    /// `event.send custom::NAME`.
    Send(String),
    /// Any other built-in kind (pins as in the table).
    Builtin(&'static NodeKind),
    /// A game node (`game.*`, declared in a `.nodes.ron`): its import (kind and signature).
    /// Exec ones have `exec`/`then` pins around the declared ones.
    Game(Box<crate::bytecode::Import>),
    /// A node that failed to resolve: it has no pins, and links to it are dropped silently
    /// (its own diagnostic already explains).
    Error,
}

/// Node properties (ARGS that are not input pins).
#[derive(Clone, Debug, PartialEq)]
pub struct Props {
    /// `flow.sequence {count}`.
    pub count: u32,
    /// `flow.gate {start_open}`.
    pub start_open: bool,
}

impl Default for Props {
    fn default() -> Self {
        Props {
            count: 2,
            start_open: true,
        }
    }
}

/// A resolved node.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub name: String,
    /// The kind as written (`int.add`, `event`), for messages and debug info.
    pub kind: std::borrow::Cow<'static, str>,
    pub op: Op,
    pub inputs: Vec<Pin>,
    pub outputs: Vec<Pin>,
    /// Per input: the ARGS value, else the type's default (exec inputs: `None`).
    pub defaults: Vec<Option<Const>>,
    /// Per input: whether ARGS gave it a literal (else `defaults` holds the type's default).
    pub given: Vec<bool>,
    pub props: Props,
}

impl Node {
    /// Exec nodes take part in control flow; pure nodes are evaluated per use.
    pub fn is_pure(&self) -> bool {
        !matches!(self.op, Op::Error)
            && !self
                .inputs
                .iter()
                .chain(&self.outputs)
                .any(|p| p.ty.is_exec())
    }
    pub fn is_event(&self) -> bool {
        matches!(self.op, Op::Event(_))
    }
    pub fn input(&self, name: &str) -> Option<usize> {
        self.inputs.iter().position(|p| p.name == name)
    }
    pub fn output(&self, name: &str) -> Option<usize> {
        self.outputs.iter().position(|p| p.name == name)
    }
    /// Is exec output `pin` a call site — its chain runs and then control comes back here (a
    /// `flow.for` body, a `flow.sequence` output before the last) — rather than a tail
    /// continuation?
    pub fn is_call_output(&self, pin: usize) -> bool {
        let Op::Builtin(k) = &self.op else {
            return false;
        };
        match k.id {
            KindId::FlowFor => self.outputs.get(pin).is_some_and(|p| p.name == "body"),
            KindId::FlowSequence => {
                let last = self.outputs.iter().rposition(|p| p.ty.is_exec());
                self.outputs.get(pin).is_some_and(|p| p.ty.is_exec()) && Some(pin) != last
            }
            _ => false,
        }
    }
}

/// A link from an output pin to an input pin (both indexes into the nodes' pin lists).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Link {
    pub from: NodeId,
    pub from_pin: u16,
    pub to: NodeId,
    pub to_pin: u16,
}

/// A custom event's payload as a graph declares it (`event custom::hit { amount: float }`).
#[derive(Clone, Debug, PartialEq)]
pub struct EventDecl {
    /// The name after `custom::`.
    pub name: String,
    /// The fields in declaration order.
    pub fields: Vec<(String, Type)>,
}

/// A resolved graph.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Graph {
    pub name: String,
    /// The custom event payloads it declares (valid ones, in file order).
    pub events: Vec<EventDecl>,
    pub vars: Vec<Var>,
    pub nodes: Vec<Node>,
    /// Valid links, in file order.
    pub links: Vec<Link>,
}

impl Graph {
    /// Is the link an exec link?
    pub fn is_exec(&self, l: &Link) -> bool {
        self.nodes[l.from as usize].outputs[l.from_pin as usize]
            .ty
            .is_exec()
    }
}

/// Source positions of a graph's parts, parallel to the IR's vectors.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GraphSpans {
    /// Per event declaration: the declaration.
    pub events: Vec<Span>,
    pub vars: Vec<Span>,
    /// Per node: the declaration (`node` .. end).
    pub nodes: Vec<Span>,
    /// Per node: its name.
    pub node_names: Vec<Span>,
    /// Per valid link: the link line.
    pub links: Vec<Span>,
}
