//! proptest strategies for random graph models (`sinew::graph::model`): every field the model
//! has — keyword-named identifiers, kinds with every subject form, ARGS of every literal kind,
//! positions or none, comments above and at the end of items and of the file — and random
//! edits of a model with the exact changes `sinew diff` must report (`tests/graph_diff.rs`).
#![allow(dead_code)]

use proptest::prelude::*;
use sinew::graph::ast::{Number, Type};
use sinew::graph::model::{BoxDef, EventDecl, Link, Model, Node, PinRef, Props, Value, Var};

pub fn ident() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z_][a-z0-9_]{0,6}",
        1 => prop::sample::select(vec![
            "graph", "var", "node", "at", "event", "true", "false", "begin_play", "tick",
            "custom", "animseq",
        ])
        .prop_map(String::from),
    ]
}

fn number() -> impl Strategy<Value = Number> {
    prop_oneof![
        any::<i64>().prop_map(Number::Int),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Number::Float),
    ]
}

pub fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::Int),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::Float),
        string().prop_map(Value::String),
        any::<bool>().prop_map(Value::Bool),
        [number(), number(), number()].prop_map(Value::Vec3),
    ]
}

/// Any string a graph can hold: everything but a CR, which ends a line like LF does and has
/// no escape (LF is written `\n`).
fn string() -> impl Strategy<Value = String> {
    "[^\r]{0,24}"
}

fn quoted(s: &str) -> String {
    format!("\"{}\"", sinew::graph::lexer::escape(s))
}

pub fn kind() -> impl Strategy<Value = String> {
    let path = prop::collection::vec(ident(), 1..3).prop_map(|p| p.join("."));
    let subject = prop_oneof![
        ident(),
        (
            "[A-Za-z0-9][A-Za-z0-9_-]{0,12}",
            "[A-Za-z0-9][A-Za-z0-9_-]{0,12}"
        )
            .prop_map(|(a, b)| format!("animseq::{a}.{b}")),
        "[A-Za-z_][A-Za-z0-9_]{0,8}".prop_map(|n| format!("custom::{n}")),
        string().prop_map(|s| quoted(&s)),
    ];
    (path, prop::option::of(subject)).prop_map(|(p, s)| match s {
        Some(s) => format!("{p} {s}"),
        None => p,
    })
}

/// One stored comment line: `//` and anything but a line break (LF or CR), trailing whitespace
/// removed.
pub fn comment_line() -> impl Strategy<Value = String> {
    "[^\n\r]{0,16}".prop_map(|c| format!("//{c}").trim_end().to_string())
}

pub fn comment_block() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => Just(String::new()),
        1 => prop::collection::vec(comment_line(), 1..3).prop_map(|l| l.join("\n")),
    ]
}

fn line_comment() -> impl Strategy<Value = Option<String>> {
    prop_oneof![2 => Just(None), 1 => comment_line().prop_map(Some)]
}

fn ty() -> impl Strategy<Value = Type> {
    prop::sample::select(Type::ALL.to_vec())
}

pub fn var() -> impl Strategy<Value = Var> {
    (ident(), ty(), value(), comment_block(), line_comment()).prop_map(
        |(name, ty, default, comment, line_comment)| Var {
            name,
            ty,
            default,
            comment,
            line_comment,
        },
    )
}

pub fn position() -> impl Strategy<Value = Option<(i64, i64)>> {
    prop_oneof![
        1 => Just(None),
        2 => (-5000i64..5000, -5000i64..5000).prop_map(Some),
        1 => (any::<i64>(), any::<i64>()).prop_map(Some),
    ]
}

pub fn node() -> impl Strategy<Value = Node> {
    (
        ident(),
        kind(),
        position(),
        prop::collection::vec((ident(), value()), 0..3),
        comment_block(),
        line_comment(),
    )
        .prop_map(|(id, kind, at, props, comment, line_comment)| Node {
            id,
            kind,
            x: at.map(|a| a.0),
            y: at.map(|a| a.1),
            props: Props(props),
            comment,
            line_comment,
        })
}

pub fn event() -> impl Strategy<Value = EventDecl> {
    (
        ident(),
        prop::collection::vec((ident(), ty()), 0..4),
        comment_block(),
        line_comment(),
    )
        .prop_map(|(name, fields, comment, line_comment)| EventDecl {
            name,
            fields,
            comment,
            line_comment,
        })
}

/// A comment box within the format's bounds (any title, an optional colour of either case).
pub fn comment_box() -> impl Strategy<Value = BoxDef> {
    let coord = -1_000_000_000i64..=1_000_000_000;
    let size = 1i64..=1_000_000;
    (
        string(),
        coord.clone(),
        coord,
        size.clone(),
        size,
        prop::option::of("#[0-9A-Fa-f]{6}"),
        comment_block(),
        line_comment(),
    )
        .prop_map(|(title, x, y, w, h, color, comment, line_comment)| BoxDef {
            title,
            x,
            y,
            w,
            h,
            color,
            comment,
            line_comment,
        })
}

pub fn link() -> impl Strategy<Value = Link> {
    (
        ident(),
        ident(),
        ident(),
        ident(),
        comment_block(),
        line_comment(),
    )
        .prop_map(|(a, b, c, d, comment, line_comment)| Link {
            from: PinRef::new(&a, &b),
            to: PinRef::new(&c, &d),
            comment,
            line_comment,
        })
}

pub fn model() -> impl Strategy<Value = Model> {
    (
        ident(),
        prop::collection::vec(event(), 0..3),
        prop::collection::vec(var(), 0..4),
        prop::collection::vec(comment_box(), 0..3),
        prop::collection::vec(node(), 0..8),
        prop::collection::vec(link(), 0..6),
        comment_block(),
        line_comment(),
        comment_block(),
    )
        .prop_map(
            |(graph, events, vars, boxes, nodes, links, comment, line_comment, end_comment)| {
                Model {
                    graph,
                    events,
                    vars,
                    boxes,
                    nodes,
                    links,
                    comment,
                    line_comment,
                    end_comment,
                }
            },
        )
}
