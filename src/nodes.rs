//! The one table of built-in node kinds (graph.md's node library): names, categories, typed pins.
//!
//! The palette, the compiler's resolver, the verifier metadata and `docs/nodes.md` all read this
//! table; nothing else lists node kinds. Kinds whose pins depend on the graph (a variable's type,
//! an event's fields, an expression's identifiers, `flow.sequence`'s count) are described here in
//! their static form and expanded by [`NodeKind::pins_for`]-style helpers in the compiler.

use std::fmt;

pub use crate::types::Type;

pub mod reference;

/// What a pin carries: control flow (exec), or a value of one [`Type`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PinType {
    Exec,
    Data(Type),
}

impl PinType {
    /// `exec`, or the value type's name.
    pub fn name(self) -> &'static str {
        match self {
            PinType::Exec => "exec",
            PinType::Data(t) => t.name(),
        }
    }
    /// The value type of a data pin (`None` for exec pins).
    pub fn data(self) -> Option<Type> {
        match self {
            PinType::Exec => None,
            PinType::Data(t) => Some(t),
        }
    }
    pub fn is_exec(self) -> bool {
        self == PinType::Exec
    }
}

impl fmt::Display for PinType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A pin's type as the node table declares it: fixed, or the type of the variable the node's
/// subject names (`var.get`, `var.set`; the palette shows it as `var`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PinSpec {
    Fixed(PinType),
    Var,
    /// The type of the wire into the node (a reroute's `in` and `out`: exec or any data type).
    Wire,
}

impl PinSpec {
    /// The pin type for a node whose variable (if any) has type `var`; `None` for a
    /// variable-typed pin without a variable.
    pub fn resolve(self, var: Option<Type>) -> Option<PinType> {
        match self {
            PinSpec::Fixed(t) => Some(t),
            PinSpec::Var => var.map(PinType::Data),
            PinSpec::Wire => None,
        }
    }
    /// The palette name: `exec`, a value type's name, or `var`.
    pub fn name(self) -> &'static str {
        match self {
            PinSpec::Fixed(t) => t.name(),
            PinSpec::Var => "var",
            PinSpec::Wire => "wire",
        }
    }
}

impl fmt::Display for PinSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl serde::Serialize for PinSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// One pin of a node kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pin {
    pub name: &'static str,
    pub ty: PinSpec,
    /// For a data input of an exec node: its default changes what the node does (a log
    /// without a message, a send to the own entity, a variable set to zero), so leaving it
    /// neither linked nor given a literal is a warning (`W0303`). Pins made with [`must`].
    pub warn_unset: bool,
}

impl Pin {
    /// What an unlinked data input without a literal holds, as a graph would write it
    /// (`0`, `0.0`, `false`, `(0, 0, 0)`, `""`; `self` for an entity: the graph's own entity;
    /// `default of the variable's type` for `var.set`'s value). `None` for exec pins.
    pub fn default_text(&self) -> Option<&'static str> {
        match self.ty {
            PinSpec::Fixed(PinType::Exec) => None,
            PinSpec::Fixed(PinType::Data(t)) => Some(default_literal(t)),
            PinSpec::Var => Some(VAR_DEFAULT),
            PinSpec::Wire => None,
        }
    }
}

/// How the node reference shows the default of a variable-typed pin.
pub const VAR_DEFAULT: &str = "default of the variable's type";

/// A type's default as a graph would write it (`self` for an entity: the graph's own entity).
pub fn default_literal(t: Type) -> &'static str {
    match t {
        Type::Bool => "false",
        Type::Int => "0",
        Type::Float => "0.0",
        Type::Vec3 => "(0, 0, 0)",
        Type::Str => "\"\"",
        Type::Entity => "self",
    }
}

/// What a node's SUBJECT (the token after the kind) must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubjectRule {
    /// No subject allowed.
    None,
    /// An event reference (`event`).
    Event,
    /// A graph variable name (`var.get`, `var.set`).
    Variable,
    /// An expression string (`expr`).
    Expr,
    /// A `custom::NAME` event reference (`event.send`).
    CustomEvent,
}

/// A node property set in ARGS that is not an input pin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Property {
    pub name: &'static str,
    pub ty: Type,
    /// Inclusive integer range for `int` properties.
    pub range: Option<(i64, i64)>,
    /// The default, as it would be written in a graph.
    pub default: &'static str,
    /// What the property does (the node reference and the palette show it).
    pub doc: &'static str,
}

/// How a node takes part in execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Starts a handler (event nodes).
    Event,
    /// Has exec pins: runs when an exec link reaches it.
    Exec,
    /// Exec node that suspends the handler (`flow.delay`).
    Latent,
    /// No exec pins: evaluated once per use by the exec node that needs its value.
    Pure,
}

/// One built-in node kind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeKind {
    /// The row's identity (`KindId::FlowFor`).
    pub id: KindId,
    /// The kind as written in a graph (`int.add`); events are `event` with a subject.
    pub kind: &'static str,
    /// The display name an editor shows.
    pub name: &'static str,
    /// The palette category (`Math/Int`).
    pub category: &'static str,
    pub subject: SubjectRule,
    pub flow: Flow,
    pub inputs: &'static [Pin],
    pub outputs: &'static [Pin],
    pub properties: &'static [Property],
    /// One sentence of what the node does (the row's doc comment).
    pub doc: &'static str,
}

impl NodeKind {
    /// What the node does, one sentence (the palette and `docs/nodes.md` show it).
    pub fn description(&self) -> &'static str {
        self.doc.trim()
    }
    pub fn input(&self, name: &str) -> Option<&'static Pin> {
        self.inputs.iter().find(|p| p.name == name)
    }
    pub fn output(&self, name: &str) -> Option<&'static Pin> {
        self.outputs.iter().find(|p| p.name == name)
    }
    pub fn property(&self, name: &str) -> Option<&'static Property> {
        self.properties.iter().find(|p| p.name == name)
    }
}

const fn p(name: &'static str, ty: PinSpec) -> Pin {
    Pin {
        name,
        ty,
        warn_unset: false,
    }
}

/// An exec node's data input whose default would silently change what the node does: a
/// warning (`W0303`) when it is neither linked nor given a literal.
const fn must(name: &'static str, ty: PinSpec) -> Pin {
    Pin {
        name,
        ty,
        warn_unset: true,
    }
}

const fn data(t: Type) -> PinSpec {
    PinSpec::Fixed(PinType::Data(t))
}
const X: PinSpec = PinSpec::Fixed(PinType::Exec);
const B: PinSpec = data(Type::Bool);
const I: PinSpec = data(Type::Int);
const F: PinSpec = data(Type::Float);
const V: PinSpec = data(Type::Vec3);
const S: PinSpec = data(Type::Str);
const E: PinSpec = data(Type::Entity);

const EXEC_IN: Pin = p("exec", X);
const THEN: Pin = p("then", X);

macro_rules! kinds {
    ($( $(#[doc = $doc:literal])* $id:ident $(command)? $($kind:literal, $name:literal, $cat:literal, $subject:ident, $flow:ident,
        [$($i:expr),* $(,)?] => [$($o:expr),* $(,)?] $(, props [$($prop:expr),*])?)? ; )*) => {
        /// Every built-in node kind, one variant per row of the table (what the compiler
        /// matches on; never the kind's text).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum KindId {
            $( $(#[doc = $doc])* $id, )*
        }

        /// Every built-in node kind, in palette order.
        pub static BUILTINS: &[NodeKind] = &[$(
            node_row!($id [$($doc)*] $($kind, $name, $cat, $subject, $flow,
                [$($i),*] => [$($o),*] $(, props [$($prop),*])?)?),
        )*];
    };
}

/// One row of [`BUILTINS`]: written out, or (`Kind command;`) the animation command's row
/// generated from the `commands!` table (`crate::commands`).
macro_rules! node_row {
    ($id:ident []) => {
        command_nodes::$id
    };
    ($id:ident [$($doc:literal)+] $kind:literal, $name:literal, $cat:literal, $subject:ident, $flow:ident,
        [$($i:expr),*] => [$($o:expr),*] $(, props [$($prop:expr),*])?) => {
        NodeKind {
            id: KindId::$id,
            kind: $kind,
            name: $name,
            category: $cat,
            subject: SubjectRule::$subject,
            flow: Flow::$flow,
            inputs: &[$($i),*],
            outputs: &[$($o),*],
            properties: &[$($($prop),*)?],
            doc: concat!($($doc),+),
        }
    };
}

/// `crate::commands!`'s callback: the node row of each graph command — an exec node in
/// `Animation`, inputs `exec` then the arguments, outputs `then` then the result (if any).
macro_rules! command_nodes {
    ([] $(
        $cmd:ident $nid:ident = $op:literal, $node:literal, $title:literal, $ndoc:literal,
            [$($res:ident)?] ($($arg:ident : $ty:ident $pin:ident),*);
    )*) => {
        /// The animation commands' node rows, placed in [`BUILTINS`] by their `command` rows.
        #[allow(non_upper_case_globals)]
        mod command_nodes {
            use super::*;
            $(
                pub(super) const $nid: NodeKind = NodeKind {
                    id: KindId::$nid,
                    kind: $node,
                    name: $title,
                    category: "Animation",
                    subject: SubjectRule::None,
                    flow: Flow::Exec,
                    inputs: &[EXEC_IN, $($pin(stringify!($arg), data(Type::$ty))),*],
                    outputs: &[THEN $(, p(stringify!($res), B))?],
                    properties: &[],
                    doc: concat!(" ", $ndoc),
                };
            )*
        }
    };
}

crate::commands::commands! { graph command_nodes [] }

const fn prop_int(
    name: &'static str,
    lo: i64,
    hi: i64,
    default: &'static str,
    doc: &'static str,
) -> Property {
    Property {
        name,
        ty: Type::Int,
        range: Some((lo, hi)),
        default,
        doc,
    }
}

const fn prop_bool(name: &'static str, default: &'static str, doc: &'static str) -> Property {
    Property {
        name,
        ty: Type::Bool,
        range: None,
        default,
        doc,
    }
}

/// The most outputs `flow.sequence` may have.
pub const SEQUENCE_MAX: i64 = 16;

kinds! {
    /// Starts a handler once, when the graph's instance starts on its entity.
    EventBeginPlay "event begin_play", "Begin Play", "Events", Event, Event, [] => [THEN];
    /// Starts a handler every update, after animation; `dt` is the update's length in seconds.
    EventTick "event tick", "Tick", "Events", Event, Event, [] => [THEN, p("dt", F)];
    /// Starts a handler when `custom::NAME` is delivered to this entity (by `event.send` or a scene's `Send` action); `sender` is the entity that sent it.
    EventCustom "event custom", "Custom Event", "Events", Event, Event, [] => [THEN, p("sender", E)];
    /// Continues through `true` or `false` by `condition`.
    FlowBranch "flow.branch", "Branch", "Flow", None, Exec, [EXEC_IN, must("condition", B)] => [p("true", X), p("false", X)];
    /// Runs `then_0` … `then_{count-1}` one after another, each to completion (or to a `flow.delay`).
    FlowSequence "flow.sequence", "Sequence", "Flow", None, Exec, [EXEC_IN] => [
        p("then_0", X), p("then_1", X), p("then_2", X), p("then_3", X), p("then_4", X), p("then_5", X),
        p("then_6", X), p("then_7", X), p("then_8", X), p("then_9", X), p("then_10", X), p("then_11", X),
        p("then_12", X), p("then_13", X), p("then_14", X), p("then_15", X)],
        props [prop_int("count", 1, SEQUENCE_MAX, "2", "how many `then_i` outputs the node has")];
    /// Runs `body` once for each `index` from `first` to `last` inclusive (none when `last < first`), then `completed`.
    FlowFor "flow.for", "For Loop", "Flow", None, Exec, [EXEC_IN, p("first", I), must("last", I)] => [p("body", X), p("index", I), p("completed", X)];
    /// Continues through `then` the first time it runs and never again until `reset` runs.
    FlowDoOnce "flow.do_once", "Do Once", "Flow", None, Exec, [EXEC_IN, p("reset", X)] => [THEN];
    /// Alternates between `a` (first, third, … run) and `b`; `is_a` tells which one ran last.
    FlowFlipFlop "flow.flip_flop", "Flip Flop", "Flow", None, Exec, [EXEC_IN] => [p("a", X), p("b", X), p("is_a", B)];
    /// Passes `enter` through to `exit` only while open; `open`, `close` and `toggle` change it. Starts open unless `start_open = false`.
    FlowGate "flow.gate", "Gate", "Flow", None, Exec, [p("enter", X), p("open", X), p("close", X), p("toggle", X)] => [p("exit", X)],
        props [prop_bool("start_open", "true", "whether the gate is open before its first `open`, `close` or `toggle`")];
    /// Suspends the handler and resumes at `then` `seconds` of game time later; a trigger while one is pending is ignored.
    FlowDelay "flow.delay", "Delay", "Flow", None, Latent, [EXEC_IN, must("seconds", F)] => [THEN];
    /// Reads the graph variable the node names (`var.get steps`).
    VarGet "var.get", "Get Variable", "Variables", Variable, Pure, [] => [p("value", PinSpec::Var)];
    /// Writes `value` into the graph variable the node names (`var.set steps`) and passes the written value on.
    VarSet "var.set", "Set Variable", "Variables", Variable, Exec, [EXEC_IN, must("value", PinSpec::Var)] => [THEN, p("value", PinSpec::Var)];
    /// `a + b` (wrapping on overflow).
    IntAdd "int.add", "Add", "Math/Int", None, Pure, [p("a", I), p("b", I)] => [p("out", I)];
    /// `a - b` (wrapping on overflow).
    IntSub "int.sub", "Subtract", "Math/Int", None, Pure, [p("a", I), p("b", I)] => [p("out", I)];
    /// `a * b` (wrapping on overflow).
    IntMul "int.mul", "Multiply", "Math/Int", None, Pure, [p("a", I), p("b", I)] => [p("out", I)];
    /// `a / b`, rounded toward zero; dividing by zero is a runtime error.
    IntDiv "int.div", "Divide", "Math/Int", None, Pure, [p("a", I), p("b", I)] => [p("out", I)];
    /// The remainder of `a / b` (sign of `a`); by zero is a runtime error.
    IntRem "int.rem", "Remainder", "Math/Int", None, Pure, [p("a", I), p("b", I)] => [p("out", I)];
    /// The smaller of `a` and `b`.
    IntMin "int.min", "Min", "Math/Int", None, Pure, [p("a", I), p("b", I)] => [p("out", I)];
    /// The larger of `a` and `b`.
    IntMax "int.max", "Max", "Math/Int", None, Pure, [p("a", I), p("b", I)] => [p("out", I)];
    /// `-a` (wrapping on overflow).
    IntNeg "int.neg", "Negate", "Math/Int", None, Pure, [p("a", I)] => [p("out", I)];
    /// The absolute value of `a` (wrapping on overflow).
    IntAbs "int.abs", "Absolute", "Math/Int", None, Pure, [p("a", I)] => [p("out", I)];
    /// Whether `a == b`.
    IntEq "int.eq", "Equal", "Math/Int", None, Pure, [p("a", I), p("b", I)] => [p("out", B)];
    /// Whether `a != b`.
    IntNe "int.ne", "Not Equal", "Math/Int", None, Pure, [p("a", I), p("b", I)] => [p("out", B)];
    /// Whether `a < b`.
    IntLt "int.lt", "Less", "Math/Int", None, Pure, [p("a", I), p("b", I)] => [p("out", B)];
    /// Whether `a <= b`.
    IntLe "int.le", "Less or Equal", "Math/Int", None, Pure, [p("a", I), p("b", I)] => [p("out", B)];
    /// Whether `a > b`.
    IntGt "int.gt", "Greater", "Math/Int", None, Pure, [p("a", I), p("b", I)] => [p("out", B)];
    /// Whether `a >= b`.
    IntGe "int.ge", "Greater or Equal", "Math/Int", None, Pure, [p("a", I), p("b", I)] => [p("out", B)];
    /// `value` limited to `[min, max]`.
    IntClamp "int.clamp", "Clamp", "Math/Int", None, Pure, [p("value", I), p("min", I), p("max", I)] => [p("out", I)];
    /// `a` as a float.
    IntToFloat "int.to_float", "To Float", "Math/Int", None, Pure, [p("a", I)] => [p("out", F)];
    /// `a + b`.
    FloatAdd "float.add", "Add", "Math/Float", None, Pure, [p("a", F), p("b", F)] => [p("out", F)];
    /// `a - b`.
    FloatSub "float.sub", "Subtract", "Math/Float", None, Pure, [p("a", F), p("b", F)] => [p("out", F)];
    /// `a * b`.
    FloatMul "float.mul", "Multiply", "Math/Float", None, Pure, [p("a", F), p("b", F)] => [p("out", F)];
    /// `a / b` (IEEE: by zero gives ±inf or NaN).
    FloatDiv "float.div", "Divide", "Math/Float", None, Pure, [p("a", F), p("b", F)] => [p("out", F)];
    /// The smaller of `a` and `b`.
    FloatMin "float.min", "Min", "Math/Float", None, Pure, [p("a", F), p("b", F)] => [p("out", F)];
    /// The larger of `a` and `b`.
    FloatMax "float.max", "Max", "Math/Float", None, Pure, [p("a", F), p("b", F)] => [p("out", F)];
    /// `-a`.
    FloatNeg "float.neg", "Negate", "Math/Float", None, Pure, [p("a", F)] => [p("out", F)];
    /// The absolute value of `a`.
    FloatAbs "float.abs", "Absolute", "Math/Float", None, Pure, [p("a", F)] => [p("out", F)];
    /// The square root of `a` (NaN below zero).
    FloatSqrt "float.sqrt", "Square Root", "Math/Float", None, Pure, [p("a", F)] => [p("out", F)];
    /// The sine of `a` (radians).
    FloatSin "float.sin", "Sine", "Math/Float", None, Pure, [p("a", F)] => [p("out", F)];
    /// The cosine of `a` (radians).
    FloatCos "float.cos", "Cosine", "Math/Float", None, Pure, [p("a", F)] => [p("out", F)];
    /// The largest whole number not above `a`.
    FloatFloor "float.floor", "Floor", "Math/Float", None, Pure, [p("a", F)] => [p("out", F)];
    /// Whether `a < b`.
    FloatLt "float.lt", "Less", "Math/Float", None, Pure, [p("a", F), p("b", F)] => [p("out", B)];
    /// Whether `a <= b`.
    FloatLe "float.le", "Less or Equal", "Math/Float", None, Pure, [p("a", F), p("b", F)] => [p("out", B)];
    /// Whether `a > b`.
    FloatGt "float.gt", "Greater", "Math/Float", None, Pure, [p("a", F), p("b", F)] => [p("out", B)];
    /// Whether `a >= b`.
    FloatGe "float.ge", "Greater or Equal", "Math/Float", None, Pure, [p("a", F), p("b", F)] => [p("out", B)];
    /// `value` limited to `[min, max]`.
    FloatClamp "float.clamp", "Clamp", "Math/Float", None, Pure, [p("value", F), p("min", F), p("max", F)] => [p("out", F)];
    /// `a + (b - a) * t`.
    FloatLerp "float.lerp", "Lerp", "Math/Float", None, Pure, [p("a", F), p("b", F), p("t", F)] => [p("out", F)];
    /// `a` truncated toward zero (NaN gives 0; saturates at the int range).
    FloatToInt "float.to_int", "To Int", "Math/Float", None, Pure, [p("a", F)] => [p("out", I)];
    /// Whether both `a` and `b` are true.
    BoolAnd "bool.and", "And", "Math/Bool", None, Pure, [p("a", B), p("b", B)] => [p("out", B)];
    /// Whether `a` or `b` (or both) is true.
    BoolOr "bool.or", "Or", "Math/Bool", None, Pure, [p("a", B), p("b", B)] => [p("out", B)];
    /// Whether exactly one of `a` and `b` is true.
    BoolXor "bool.xor", "Xor", "Math/Bool", None, Pure, [p("a", B), p("b", B)] => [p("out", B)];
    /// The opposite of `a`.
    BoolNot "bool.not", "Not", "Math/Bool", None, Pure, [p("a", B)] => [p("out", B)];
    /// The vector `(x, y, z)`.
    Vec3Make "vec3.make", "Make Vector", "Math/Vector", None, Pure, [p("x", F), p("y", F), p("z", F)] => [p("out", V)];
    /// The three components of `v`.
    Vec3Break "vec3.break", "Break Vector", "Math/Vector", None, Pure, [p("v", V)] => [p("x", F), p("y", F), p("z", F)];
    /// `a + b`, component by component.
    Vec3Add "vec3.add", "Add", "Math/Vector", None, Pure, [p("a", V), p("b", V)] => [p("out", V)];
    /// `a - b`, component by component.
    Vec3Sub "vec3.sub", "Subtract", "Math/Vector", None, Pure, [p("a", V), p("b", V)] => [p("out", V)];
    /// `v` with every component multiplied by `s`.
    Vec3Scale "vec3.scale", "Scale", "Math/Vector", None, Pure, [p("v", V), p("s", F)] => [p("out", V)];
    /// The length of `v`.
    Vec3Length "vec3.length", "Length", "Math/Vector", None, Pure, [p("v", V)] => [p("out", F)];
    /// The dot product of `a` and `b`.
    Vec3Dot "vec3.dot", "Dot", "Math/Vector", None, Pure, [p("a", V), p("b", V)] => [p("out", F)];
    /// `a` followed by `b`.
    StringConcat "string.concat", "Concatenate", "String", None, Pure, [p("a", S), p("b", S)] => [p("out", S)];
    /// Whether `a` and `b` are the same text.
    StringEq "string.eq", "Equal", "String", None, Pure, [p("a", S), p("b", S)] => [p("out", B)];
    /// `a` written in decimal.
    StringFromInt "string.from_int", "From Int", "String", None, Pure, [p("a", I)] => [p("out", S)];
    /// `a` in Rust's shortest round-trip form (`0.5`, `1`, `NaN`).
    StringFromFloat "string.from_float", "From Float", "String", None, Pure, [p("a", F)] => [p("out", S)];
    /// Evaluates a float expression (`expr "a * 2 + b"`); each free identifier becomes a float input.
    Expr "expr", "Expression", "Math/Float", Expr, Pure, [] => [p("out", F)];
    /// The entity this graph instance runs on.
    EntitySelf "entity.self", "Self", "Entity", None, Pure, [] => [p("out", E)];
    /// Delivers `custom::NAME` to `target` at the next flush (its `sender` is this entity).
    EventSend "event.send", "Send Event", "Events", CustomEvent, Exec, [EXEC_IN, must("target", E)] => [THEN];
    AnimSetState command;
    AnimSetParam command;
    /// The current value of the state-machine parameter `name` (0 when absent).
    AnimGetParam "anim.get_param", "Get Parameter", "Animation", None, Pure, [p("name", S)] => [p("value", F)];
    AnimPlayOnLayer command;
    AnimStopLayer command;
    AnimSetLayerWeight command;
    /// The name of the active state ("" without a state machine).
    AnimCurrentState "anim.current_state", "Current State", "Animation", None, Pure, [] => [p("state", S)];
    /// The float curve `name` of the heaviest playing clip at its clip time (0 when absent).
    AnimCurve "anim.curve", "Curve Value", "Animation", None, Pure, [p("name", S)] => [p("value", F)];
    AnimPlay command;
    AnimSetSpeed command;
    /// Writes `message` as a `log` line of the trace.
    DebugLog "debug.log", "Log", "Debug", None, Exec, [EXEC_IN, must("message", S)] => [THEN];
    /// Passes the wire into `in` on to `out` unchanged (exec or any data type, taken from that wire); layout only, it compiles to nothing.
    Reroute "reroute", "Reroute", "Layout", None, Pure, [p("in", PinSpec::Wire)] => [p("out", PinSpec::Wire)];
}

/// Looks up a built-in kind as written after `node x =` (events: `event`, resolved by subject).
pub fn lookup(kind: &str) -> Option<&'static NodeKind> {
    static INDEX: std::sync::OnceLock<std::collections::HashMap<&'static str, &'static NodeKind>> =
        std::sync::OnceLock::new();
    INDEX
        .get_or_init(|| BUILTINS.iter().map(|k| (k.kind, k)).collect())
        .get(kind)
        .copied()
}

/// The table entry for a node as written: `kind` its path, `subject` what follows it (events
/// resolve by subject: `begin_play`, `tick`, `custom::NAME`; notify events have no entry).
pub fn lookup_written(kind: &str, subject: Option<&str>) -> Option<&'static NodeKind> {
    match kind {
        "event" => match subject {
            Some("begin_play") => lookup("event begin_play"),
            Some("tick") => lookup("event tick"),
            Some(s) if s.starts_with("custom::") => lookup("event custom"),
            _ => None,
        },
        k => lookup(k).filter(|k| k.flow != Flow::Event),
    }
}

/// The kinds a graph may write (the table's kinds, with `event …` entries folded into `event`).
pub fn writable_kinds() -> impl Iterator<Item = &'static str> {
    std::iter::once("event").chain(
        BUILTINS
            .iter()
            .filter(|k| k.flow != Flow::Event)
            .map(|k| k.kind),
    )
}

/// The output pins every notify event node has before its typed fields.
pub const NOTIFY_CONTEXT_PINS: &[Pin] = &[
    THEN,
    p("entity", E),
    p("time", F),
    p("clip_time", F),
    p("cycle", I),
    p("clip_weight", F),
];

/// The exec output of a window event node that runs when the window begins.
pub const WINDOW_BEGIN: &str = "begin";
/// The exec output of a window event node that runs when the window ends.
pub const WINDOW_END: &str = "end";

/// The output pins every window event node has before its typed fields: `begin` and `end`
/// exec outputs (each a handler of its own), the edge's context, and `completed` (true only
/// on an end reached at the window's end edge; false on a begin and on a cut).
pub const WINDOW_CONTEXT_PINS: &[Pin] = &[
    p(WINDOW_BEGIN, X),
    p(WINDOW_END, X),
    p("entity", E),
    p("time", F),
    p("clip_time", F),
    p("cycle", I),
    p("clip_weight", F),
    p("completed", B),
];

/// The context pins of a catalog event node: a notify's, or a window's.
pub fn event_context_pins(window: bool) -> &'static [Pin] {
    if window {
        WINDOW_CONTEXT_PINS
    } else {
        NOTIFY_CONTEXT_PINS
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn kinds_are_unique_and_pins_unique_per_node() {
        let mut seen = BTreeSet::new();
        for (i, k) in BUILTINS.iter().enumerate() {
            assert_eq!(k.id as usize, i, "{}", k.kind);
            assert!(seen.insert(k.kind), "duplicate kind {}", k.kind);
            let ins: BTreeSet<_> = k.inputs.iter().map(|p| p.name).collect();
            assert_eq!(ins.len(), k.inputs.len(), "{}", k.kind);
            let outs: BTreeSet<_> = k.outputs.iter().map(|p| p.name).collect();
            assert_eq!(outs.len(), k.outputs.len(), "{}", k.kind);
        }
    }

    #[test]
    fn every_kind_says_what_it_does_and_only_exec_data_inputs_warn() {
        for k in BUILTINS {
            let d = k.description();
            assert!(d.len() > 3 && d.ends_with('.'), "{}: {d:?}", k.kind);
            for p in k.properties {
                assert!(!p.doc.is_empty(), "{}.{}", k.kind, p.name);
            }
            for p in k.inputs.iter().filter(|p| p.warn_unset) {
                assert!(
                    matches!(k.flow, Flow::Exec | Flow::Latent) && p.ty != X,
                    "{}.{}: only data inputs of exec nodes warn",
                    k.kind,
                    p.name
                );
            }
            assert!(k.outputs.iter().all(|p| !p.warn_unset), "{}", k.kind);
        }
        // The examples, and a silent one.
        let warns = |k: &str, pin: &str| lookup(k).unwrap().input(pin).unwrap().warn_unset;
        assert!(warns("event.send", "target") && warns("var.set", "value"));
        assert!(warns("debug.log", "message") && !warns("flow.for", "first"));
        assert_eq!(
            lookup("event.send")
                .unwrap()
                .input("target")
                .unwrap()
                .default_text(),
            Some("self")
        );
        assert_eq!(
            lookup("flow.gate")
                .unwrap()
                .property("start_open")
                .unwrap()
                .default,
            "true"
        );
    }

    #[test]
    fn pure_nodes_have_no_exec_pins_and_exec_nodes_do() {
        for k in BUILTINS {
            let has_exec = k.inputs.iter().chain(k.outputs).any(|p| p.ty == X);
            match k.flow {
                Flow::Pure => assert!(!has_exec, "{}", k.kind),
                _ => assert!(has_exec, "{}", k.kind),
            }
        }
    }

    #[test]
    fn every_library_kind_from_the_spec_is_present() {
        // graph.md's node library, written out independently of the table.
        let spec = "flow.branch flow.sequence flow.for flow.do_once flow.flip_flop flow.gate \
            flow.delay var.get var.set int.add int.sub int.mul int.div int.rem int.min int.max \
            int.neg int.abs int.eq int.ne int.lt int.le int.gt int.ge int.clamp int.to_float \
            float.add float.sub float.mul float.div float.min float.max float.neg float.abs \
            float.sqrt float.sin float.cos float.floor float.lt float.le float.gt float.ge \
            float.clamp float.lerp float.to_int bool.and bool.or bool.xor bool.not vec3.make \
            vec3.break vec3.add vec3.sub vec3.scale vec3.length vec3.dot string.concat string.eq \
            string.from_int string.from_float expr entity.self event.send anim.set_state \
            anim.set_param anim.get_param anim.play_on_layer anim.stop_layer \
            anim.set_layer_weight anim.current_state anim.curve anim.play debug.log reroute";
        for k in spec.split_whitespace() {
            assert!(lookup(k).is_some(), "missing {k}");
        }
        // Beyond the spec's library: `event` (folded) and `anim.set_speed` (the scene's
        // `SetSpeed` as a node, `docs/nodes.md`).
        assert!(lookup("anim.set_speed").is_some());
        assert_eq!(
            writable_kinds().count(),
            spec.split_whitespace().count() + 2
        );
    }
}
