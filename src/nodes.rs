//! The one table of built-in node kinds (graph.md's node library): names, categories, typed pins.
//!
//! The palette, the compiler's resolver, the verifier metadata and `docs/nodes.md` all read this
//! table; nothing else lists node kinds. Kinds whose pins depend on the graph (a variable's type,
//! an event's fields, an expression's identifiers, `flow.sequence`'s count) are described here in
//! their static form and expanded by [`NodeKind::pins_for`]-style helpers in the compiler.

use std::fmt;

pub use crate::types::Type;

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
}

impl PinSpec {
    /// The pin type for a node whose variable (if any) has type `var`; `None` for a
    /// variable-typed pin without a variable.
    pub fn resolve(self, var: Option<Type>) -> Option<PinType> {
        match self {
            PinSpec::Fixed(t) => Some(t),
            PinSpec::Var => var.map(PinType::Data),
        }
    }
    /// The palette name: `exec`, a value type's name, or `var`.
    pub fn name(self) -> &'static str {
        match self {
            PinSpec::Fixed(t) => t.name(),
            PinSpec::Var => "var",
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
}

impl NodeKind {
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
    Pin { name, ty }
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
    ($( $id:ident $kind:literal, $name:literal, $cat:literal, $subject:ident, $flow:ident,
        [$($i:expr),* $(,)?] => [$($o:expr),* $(,)?] $(, props [$($prop:expr),*])? ; )*) => {
        /// Every built-in node kind, one variant per row of the table (what the compiler
        /// matches on; never the kind's text).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum KindId {
            $( #[doc = concat!("`", $kind, "`")] $id, )*
        }

        /// Every built-in node kind, in palette order.
        pub static BUILTINS: &[NodeKind] = &[$(
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
            },
        )*];
    };
}

const fn prop_int(name: &'static str, lo: i64, hi: i64, default: &'static str) -> Property {
    Property {
        name,
        ty: Type::Int,
        range: Some((lo, hi)),
        default,
    }
}

const fn prop_bool(name: &'static str, default: &'static str) -> Property {
    Property {
        name,
        ty: Type::Bool,
        range: None,
        default,
    }
}

/// The most outputs `flow.sequence` may have.
pub const SEQUENCE_MAX: i64 = 16;

kinds! {
    EventBeginPlay "event begin_play", "Begin Play", "Events", Event, Event, [] => [THEN];
    EventTick "event tick", "Tick", "Events", Event, Event, [] => [THEN, p("dt", F)];
    EventCustom "event custom", "Custom Event", "Events", Event, Event, [] => [THEN, p("sender", E)];
    FlowBranch "flow.branch", "Branch", "Flow", None, Exec, [EXEC_IN, p("condition", B)] => [p("true", X), p("false", X)];
    FlowSequence "flow.sequence", "Sequence", "Flow", None, Exec, [EXEC_IN] => [
        p("then_0", X), p("then_1", X), p("then_2", X), p("then_3", X), p("then_4", X), p("then_5", X),
        p("then_6", X), p("then_7", X), p("then_8", X), p("then_9", X), p("then_10", X), p("then_11", X),
        p("then_12", X), p("then_13", X), p("then_14", X), p("then_15", X)],
        props [prop_int("count", 1, SEQUENCE_MAX, "2")];
    FlowFor "flow.for", "For Loop", "Flow", None, Exec, [EXEC_IN, p("first", I), p("last", I)] => [p("body", X), p("index", I), p("completed", X)];
    FlowDoOnce "flow.do_once", "Do Once", "Flow", None, Exec, [EXEC_IN, p("reset", X)] => [THEN];
    FlowFlipFlop "flow.flip_flop", "Flip Flop", "Flow", None, Exec, [EXEC_IN] => [p("a", X), p("b", X), p("is_a", B)];
    FlowGate "flow.gate", "Gate", "Flow", None, Exec, [p("enter", X), p("open", X), p("close", X), p("toggle", X)] => [p("exit", X)],
        props [prop_bool("start_open", "true")];
    FlowDelay "flow.delay", "Delay", "Flow", None, Latent, [EXEC_IN, p("seconds", F)] => [THEN];
    VarGet "var.get", "Get Variable", "Variables", Variable, Pure, [] => [p("value", PinSpec::Var)];
    VarSet "var.set", "Set Variable", "Variables", Variable, Exec, [EXEC_IN, p("value", PinSpec::Var)] => [THEN, p("value", PinSpec::Var)];
    IntAdd "int.add", "Add", "Math/Int", None, Pure, [p("a", I), p("b", I)] => [p("out", I)];
    IntSub "int.sub", "Subtract", "Math/Int", None, Pure, [p("a", I), p("b", I)] => [p("out", I)];
    IntMul "int.mul", "Multiply", "Math/Int", None, Pure, [p("a", I), p("b", I)] => [p("out", I)];
    IntDiv "int.div", "Divide", "Math/Int", None, Pure, [p("a", I), p("b", I)] => [p("out", I)];
    IntRem "int.rem", "Remainder", "Math/Int", None, Pure, [p("a", I), p("b", I)] => [p("out", I)];
    IntMin "int.min", "Min", "Math/Int", None, Pure, [p("a", I), p("b", I)] => [p("out", I)];
    IntMax "int.max", "Max", "Math/Int", None, Pure, [p("a", I), p("b", I)] => [p("out", I)];
    IntNeg "int.neg", "Negate", "Math/Int", None, Pure, [p("a", I)] => [p("out", I)];
    IntAbs "int.abs", "Absolute", "Math/Int", None, Pure, [p("a", I)] => [p("out", I)];
    IntEq "int.eq", "Equal", "Math/Int", None, Pure, [p("a", I), p("b", I)] => [p("out", B)];
    IntNe "int.ne", "Not Equal", "Math/Int", None, Pure, [p("a", I), p("b", I)] => [p("out", B)];
    IntLt "int.lt", "Less", "Math/Int", None, Pure, [p("a", I), p("b", I)] => [p("out", B)];
    IntLe "int.le", "Less or Equal", "Math/Int", None, Pure, [p("a", I), p("b", I)] => [p("out", B)];
    IntGt "int.gt", "Greater", "Math/Int", None, Pure, [p("a", I), p("b", I)] => [p("out", B)];
    IntGe "int.ge", "Greater or Equal", "Math/Int", None, Pure, [p("a", I), p("b", I)] => [p("out", B)];
    IntClamp "int.clamp", "Clamp", "Math/Int", None, Pure, [p("value", I), p("min", I), p("max", I)] => [p("out", I)];
    IntToFloat "int.to_float", "To Float", "Math/Int", None, Pure, [p("a", I)] => [p("out", F)];
    FloatAdd "float.add", "Add", "Math/Float", None, Pure, [p("a", F), p("b", F)] => [p("out", F)];
    FloatSub "float.sub", "Subtract", "Math/Float", None, Pure, [p("a", F), p("b", F)] => [p("out", F)];
    FloatMul "float.mul", "Multiply", "Math/Float", None, Pure, [p("a", F), p("b", F)] => [p("out", F)];
    FloatDiv "float.div", "Divide", "Math/Float", None, Pure, [p("a", F), p("b", F)] => [p("out", F)];
    FloatMin "float.min", "Min", "Math/Float", None, Pure, [p("a", F), p("b", F)] => [p("out", F)];
    FloatMax "float.max", "Max", "Math/Float", None, Pure, [p("a", F), p("b", F)] => [p("out", F)];
    FloatNeg "float.neg", "Negate", "Math/Float", None, Pure, [p("a", F)] => [p("out", F)];
    FloatAbs "float.abs", "Absolute", "Math/Float", None, Pure, [p("a", F)] => [p("out", F)];
    FloatSqrt "float.sqrt", "Square Root", "Math/Float", None, Pure, [p("a", F)] => [p("out", F)];
    FloatSin "float.sin", "Sine", "Math/Float", None, Pure, [p("a", F)] => [p("out", F)];
    FloatCos "float.cos", "Cosine", "Math/Float", None, Pure, [p("a", F)] => [p("out", F)];
    FloatFloor "float.floor", "Floor", "Math/Float", None, Pure, [p("a", F)] => [p("out", F)];
    FloatLt "float.lt", "Less", "Math/Float", None, Pure, [p("a", F), p("b", F)] => [p("out", B)];
    FloatLe "float.le", "Less or Equal", "Math/Float", None, Pure, [p("a", F), p("b", F)] => [p("out", B)];
    FloatGt "float.gt", "Greater", "Math/Float", None, Pure, [p("a", F), p("b", F)] => [p("out", B)];
    FloatGe "float.ge", "Greater or Equal", "Math/Float", None, Pure, [p("a", F), p("b", F)] => [p("out", B)];
    FloatClamp "float.clamp", "Clamp", "Math/Float", None, Pure, [p("value", F), p("min", F), p("max", F)] => [p("out", F)];
    FloatLerp "float.lerp", "Lerp", "Math/Float", None, Pure, [p("a", F), p("b", F), p("t", F)] => [p("out", F)];
    FloatToInt "float.to_int", "To Int", "Math/Float", None, Pure, [p("a", F)] => [p("out", I)];
    BoolAnd "bool.and", "And", "Math/Bool", None, Pure, [p("a", B), p("b", B)] => [p("out", B)];
    BoolOr "bool.or", "Or", "Math/Bool", None, Pure, [p("a", B), p("b", B)] => [p("out", B)];
    BoolXor "bool.xor", "Xor", "Math/Bool", None, Pure, [p("a", B), p("b", B)] => [p("out", B)];
    BoolNot "bool.not", "Not", "Math/Bool", None, Pure, [p("a", B)] => [p("out", B)];
    Vec3Make "vec3.make", "Make Vector", "Math/Vector", None, Pure, [p("x", F), p("y", F), p("z", F)] => [p("out", V)];
    Vec3Break "vec3.break", "Break Vector", "Math/Vector", None, Pure, [p("v", V)] => [p("x", F), p("y", F), p("z", F)];
    Vec3Add "vec3.add", "Add", "Math/Vector", None, Pure, [p("a", V), p("b", V)] => [p("out", V)];
    Vec3Sub "vec3.sub", "Subtract", "Math/Vector", None, Pure, [p("a", V), p("b", V)] => [p("out", V)];
    Vec3Scale "vec3.scale", "Scale", "Math/Vector", None, Pure, [p("v", V), p("s", F)] => [p("out", V)];
    Vec3Length "vec3.length", "Length", "Math/Vector", None, Pure, [p("v", V)] => [p("out", F)];
    Vec3Dot "vec3.dot", "Dot", "Math/Vector", None, Pure, [p("a", V), p("b", V)] => [p("out", F)];
    StringConcat "string.concat", "Concatenate", "String", None, Pure, [p("a", S), p("b", S)] => [p("out", S)];
    StringEq "string.eq", "Equal", "String", None, Pure, [p("a", S), p("b", S)] => [p("out", B)];
    StringFromInt "string.from_int", "From Int", "String", None, Pure, [p("a", I)] => [p("out", S)];
    StringFromFloat "string.from_float", "From Float", "String", None, Pure, [p("a", F)] => [p("out", S)];
    Expr "expr", "Expression", "Math/Float", Expr, Pure, [] => [p("out", F)];
    EntitySelf "entity.self", "Self", "Entity", None, Pure, [] => [p("out", E)];
    EventSend "event.send", "Send Event", "Events", CustomEvent, Exec, [EXEC_IN, p("target", E)] => [THEN];
    AnimSetState "anim.set_state", "Set State", "Animation", None, Exec, [EXEC_IN, p("state", S)] => [THEN, p("ok", B)];
    AnimSetParam "anim.set_param", "Set Parameter", "Animation", None, Exec, [EXEC_IN, p("name", S), p("value", F)] => [THEN];
    AnimGetParam "anim.get_param", "Get Parameter", "Animation", None, Pure, [p("name", S)] => [p("value", F)];
    AnimPlayOnLayer "anim.play_on_layer", "Play On Layer", "Animation", None, Exec, [EXEC_IN, p("layer", S), p("clip", S)] => [THEN];
    AnimStopLayer "anim.stop_layer", "Stop Layer", "Animation", None, Exec, [EXEC_IN, p("layer", S)] => [THEN];
    AnimSetLayerWeight "anim.set_layer_weight", "Set Layer Weight", "Animation", None, Exec, [EXEC_IN, p("layer", S), p("weight", F)] => [THEN];
    AnimCurrentState "anim.current_state", "Current State", "Animation", None, Pure, [] => [p("state", S)];
    AnimCurve "anim.curve", "Curve Value", "Animation", None, Pure, [p("name", S)] => [p("value", F)];
    AnimPlay "anim.play", "Play Clip", "Animation", None, Exec, [EXEC_IN, p("clip", S), p("at", F)] => [THEN];
    DebugLog "debug.log", "Log", "Debug", None, Exec, [EXEC_IN, p("message", S)] => [THEN];
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
            anim.set_layer_weight anim.current_state anim.curve anim.play debug.log";
        for k in spec.split_whitespace() {
            assert!(lookup(k).is_some(), "missing {k}");
        }
        assert_eq!(
            writable_kinds().count(),
            spec.split_whitespace().count() + 1
        );
    }
}
