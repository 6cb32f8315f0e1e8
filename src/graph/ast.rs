//! The `.bpg` syntax tree: what the parser produces and the formatter prints.
//!
//! Every identifier, literal and pin reference carries the [`Span`] of its text so later passes
//! (resolve, IR, check) can point at it. Comments ride along with the item they belong to.
//! The tree is purely syntactic: names are not resolved, kinds are not looked up, literal types
//! are not checked against declarations, and `expr` strings are not parsed (see `graph::expr`).

use crate::diag::Span;

/// An identifier with its span (`[A-Za-z_][A-Za-z0-9_]*`, or an event `ID` inside [`EventRef`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A `//` comment; `text` is the whole comment including `//`, trailing whitespace removed.
#[derive(Clone, Debug, PartialEq)]
pub struct Comment {
    pub text: String,
    pub span: Span,
}

/// The comments attached to one item: those above it and one at its line end.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comments {
    /// Own-line comments before the item, then every comment inside it (a multi-line item), in
    /// source order; the formatter prints them all above the item.
    pub leading: Vec<Comment>,
    /// The comment at the end of the item's last line.
    pub trailing: Option<Comment>,
}

/// A parsed `.bpg` file. After syntax errors it is partial: items that failed are left out.
#[derive(Clone, Debug, PartialEq)]
pub struct File {
    /// The name after `graph` (empty, with a point span at 0, when the header is missing).
    pub name: Ident,
    /// Comments above and at the end of the `graph` line.
    pub header_comments: Comments,
    /// Vars, nodes and links in authored order.
    pub items: Vec<Item>,
    /// Own-line comments after the last item.
    pub trailing_comments: Vec<Comment>,
}

/// One top-level item.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Var(Var),
    Node(Node),
    Link(Link),
    /// `event custom::NAME { field: TYPE, … }`: a custom event's payload.
    Event(EventDecl),
    /// `box "Title" at (x, y) size (w, h) { color = "#RRGGBB" }`: a comment box (layout only).
    Box(BoxItem),
}

impl Item {
    /// The span of the item's text (without comments).
    pub fn span(&self) -> Span {
        match self {
            Item::Var(v) => v.span,
            Item::Node(n) => n.span,
            Item::Link(l) => l.span,
            Item::Event(e) => e.span,
            Item::Box(b) => b.span,
        }
    }
    /// The comments attached to the item.
    pub fn comments(&self) -> &Comments {
        match self {
            Item::Var(v) => &v.comments,
            Item::Node(n) => &n.comments,
            Item::Link(l) => &l.comments,
            Item::Event(e) => &e.comments,
            Item::Box(b) => &b.comments,
        }
    }
}

/// `var NAME: TYPE = LITERAL`
#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    pub name: Ident,
    pub ty: Type,
    pub ty_span: Span,
    pub value: Literal,
    /// From `var` to the end of the literal.
    pub span: Span,
    pub comments: Comments,
}

/// `event custom::NAME { field: TYPE, … }`: the typed payload of custom event `NAME` — output
/// pins of its `event` node, inputs of `event.send` (after `sender` / `target`).
#[derive(Clone, Debug, PartialEq)]
pub struct EventDecl {
    /// The event's name (after `custom::`), with its span.
    pub name: Ident,
    /// The fields in authored order.
    pub fields: Vec<FieldDecl>,
    /// From `event` to `}`.
    pub span: Span,
    pub comments: Comments,
}

/// `NAME: TYPE` in an event declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldDecl {
    pub name: Ident,
    pub ty: Type,
    pub ty_span: Span,
}

/// `box "Title" at (X, Y) size (W, H) { color = "#RRGGBB" }`: a titled rectangle an editor
/// draws behind nodes. Layout only: the compiler never reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct BoxItem {
    pub title: StrLit,
    /// The top-left corner.
    pub at: At,
    pub size: Size,
    /// The `color` argument, `#RRGGBB` (checked by the parser).
    pub color: Option<StrLit>,
    /// From `box` to the end of the last part.
    pub span: Span,
    pub comments: Comments,
}

/// `size (W, H)` of a comment box (both positive, checked by the parser).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    pub w: i64,
    pub h: i64,
    /// From `size` to `)`.
    pub span: Span,
}

/// A data type name usable in a `var` declaration (the one value type).
pub use crate::types::Type;

/// `node NAME = KIND SUBJECT? ARGS? (at (X, Y))?`
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub name: Ident,
    pub kind: Path,
    pub subject: Option<Subject>,
    /// `{ name = literal, … }` in authored order (an empty `{}` parses to no args).
    pub args: Vec<Arg>,
    pub at: Option<At>,
    /// From `node` to the end of the last part.
    pub span: Span,
    pub comments: Comments,
}

/// A dotted kind path such as `int.add` (segments are identifiers, keywords allowed).
#[derive(Clone, Debug, PartialEq)]
pub struct Path {
    pub segments: Vec<Ident>,
    pub span: Span,
}

impl Path {
    /// The path as written: segments joined with `.`.
    pub fn text(&self) -> String {
        let parts: Vec<&str> = self.segments.iter().map(|s| s.name.as_str()).collect();
        parts.join(".")
    }
}

/// What a node kind applies to.
#[derive(Clone, Debug, PartialEq)]
pub enum Subject {
    /// An event reference: `animseq::S.N`, `custom::NAME`, or `begin_play`/`tick` after the
    /// kind `event` (elsewhere those two are plain [`Subject::Ident`]s).
    Event(EventRef),
    /// A bare identifier, e.g. the variable of `var.get steps`.
    Ident(Ident),
    /// A string, e.g. the expression of `expr "a + b"`.
    String(StrLit),
}

impl Subject {
    /// The span of the subject's text.
    pub fn span(&self) -> Span {
        match self {
            Subject::Event(e) => e.span(),
            Subject::Ident(i) => i.span,
            Subject::String(s) => s.span,
        }
    }
}

/// An event identity as written.
#[derive(Clone, Debug, PartialEq)]
pub enum EventRef {
    /// `animseq::SEQUENCE.NOTIFY` (both `ID`s: `[A-Za-z0-9][A-Za-z0-9_-]{0,63}`).
    Animseq {
        sequence: Ident,
        notify: Ident,
        span: Span,
    },
    /// `custom::NAME`
    Custom { name: Ident, span: Span },
    /// `begin_play`
    BeginPlay(Span),
    /// `tick`
    Tick(Span),
}

impl EventRef {
    /// The span of the whole reference.
    pub fn span(&self) -> Span {
        match self {
            EventRef::Animseq { span, .. } | EventRef::Custom { span, .. } => *span,
            EventRef::BeginPlay(s) | EventRef::Tick(s) => *s,
        }
    }
    /// The canonical identity text (`animseq::S.N`, `custom::NAME`, `begin_play`, `tick`).
    pub fn identity(&self) -> String {
        match self {
            EventRef::Animseq {
                sequence, notify, ..
            } => format!("animseq::{}.{}", sequence.name, notify.name),
            EventRef::Custom { name, .. } => format!("custom::{}", name.name),
            EventRef::BeginPlay(_) => "begin_play".to_string(),
            EventRef::Tick(_) => "tick".to_string(),
        }
    }
}

/// A string literal, decoded.
#[derive(Clone, Debug, PartialEq)]
pub struct StrLit {
    /// The decoded value (escapes applied).
    pub value: String,
    /// The whole token including quotes.
    pub span: Span,
    /// The raw contents between the quotes (escapes not applied); see
    /// `graph::expr::map_span` to map offsets in `value` into the file.
    pub content_span: Span,
}

/// `NAME = LITERAL` inside a node's braces.
#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    pub name: Ident,
    pub value: Literal,
    /// From the name to the end of the literal.
    pub span: Span,
}

/// `at (X, Y)` editor layout (ignored by the compiler).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct At {
    pub x: i64,
    pub y: i64,
    /// From `at` to `)`.
    pub span: Span,
}

/// `FROM_NODE.FROM_PIN -> TO_NODE.TO_PIN` (output pin to input pin).
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    pub from_node: Ident,
    pub from_pin: Ident,
    pub to_node: Ident,
    pub to_pin: Ident,
    /// The whole link line (without comments).
    pub span: Span,
    pub comments: Comments,
}

/// A literal value with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Literal {
    pub value: LitValue,
    pub span: Span,
}

/// A number as written: an `INT` or a `FLOAT` token.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    Int(i64),
    /// Always finite (the parser rejects literals that overflow to infinity).
    Float(f64),
}

impl Number {
    /// The value as f64 (ints convert, possibly rounding beyond 2^53).
    pub fn as_f64(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Float(f) => f,
        }
    }
}

/// The value of a literal.
#[derive(Clone, Debug, PartialEq)]
pub enum LitValue {
    Int(i64),
    /// Always finite.
    Float(f64),
    String(String),
    Bool(bool),
    /// `(x, y, z)`: each component as written, with its span.
    Vec3([(Number, Span); 3]),
}

impl LitValue {
    /// The type the literal is written as (`int`, `float`, `string`, `bool`, `vec3`).
    pub fn ty(&self) -> Type {
        match self {
            LitValue::Int(_) => Type::Int,
            LitValue::Float(_) => Type::Float,
            LitValue::String(_) => Type::Str,
            LitValue::Bool(_) => Type::Bool,
            LitValue::Vec3(_) => Type::Vec3,
        }
    }
}

impl File {
    /// The `var` items in authored order.
    pub fn vars(&self) -> impl Iterator<Item = &Var> {
        self.items.iter().filter_map(|i| match i {
            Item::Var(v) => Some(v),
            _ => None,
        })
    }
    /// The `node` items in authored order.
    pub fn nodes(&self) -> impl Iterator<Item = &Node> {
        self.items.iter().filter_map(|i| match i {
            Item::Node(n) => Some(n),
            _ => None,
        })
    }
    /// The custom event declarations in authored order.
    pub fn events(&self) -> impl Iterator<Item = &EventDecl> {
        self.items.iter().filter_map(|i| match i {
            Item::Event(e) => Some(e),
            _ => None,
        })
    }
    /// The comment boxes in authored order.
    pub fn boxes(&self) -> impl Iterator<Item = &BoxItem> {
        self.items.iter().filter_map(|i| match i {
            Item::Box(b) => Some(b),
            _ => None,
        })
    }
    /// The links in authored order.
    pub fn links(&self) -> impl Iterator<Item = &Link> {
        self.items.iter().filter_map(|i| match i {
            Item::Link(l) => Some(l),
            _ => None,
        })
    }

    /// A copy with every span set to `Span::default()`, for comparing trees modulo positions.
    pub fn without_spans(&self) -> File {
        let z = Span::default();
        let id = |i: &Ident| Ident {
            name: i.name.clone(),
            span: z,
        };
        let cm = |c: &Comment| Comment {
            text: c.text.clone(),
            span: z,
        };
        let cms = |c: &Comments| Comments {
            leading: c.leading.iter().map(cm).collect(),
            trailing: c.trailing.as_ref().map(cm),
        };
        let lit = |l: &Literal| Literal {
            value: match &l.value {
                LitValue::Vec3(v) => LitValue::Vec3([(v[0].0, z), (v[1].0, z), (v[2].0, z)]),
                other => other.clone(),
            },
            span: z,
        };
        let items = self
            .items
            .iter()
            .map(|item| match item {
                Item::Var(v) => Item::Var(Var {
                    name: id(&v.name),
                    ty: v.ty,
                    ty_span: z,
                    value: lit(&v.value),
                    span: z,
                    comments: cms(&v.comments),
                }),
                Item::Node(n) => Item::Node(Node {
                    name: id(&n.name),
                    kind: Path {
                        segments: n.kind.segments.iter().map(id).collect(),
                        span: z,
                    },
                    subject: n.subject.as_ref().map(|s| match s {
                        Subject::Ident(i) => Subject::Ident(id(i)),
                        Subject::String(s) => Subject::String(StrLit {
                            value: s.value.clone(),
                            span: z,
                            content_span: z,
                        }),
                        Subject::Event(e) => Subject::Event(match e {
                            EventRef::Animseq {
                                sequence, notify, ..
                            } => EventRef::Animseq {
                                sequence: id(sequence),
                                notify: id(notify),
                                span: z,
                            },
                            EventRef::Custom { name, .. } => EventRef::Custom {
                                name: id(name),
                                span: z,
                            },
                            EventRef::BeginPlay(_) => EventRef::BeginPlay(z),
                            EventRef::Tick(_) => EventRef::Tick(z),
                        }),
                    }),
                    args: n
                        .args
                        .iter()
                        .map(|a| Arg {
                            name: id(&a.name),
                            value: lit(&a.value),
                            span: z,
                        })
                        .collect(),
                    at: n.at.map(|a| At { span: z, ..a }),
                    span: z,
                    comments: cms(&n.comments),
                }),
                Item::Event(e) => Item::Event(EventDecl {
                    name: id(&e.name),
                    fields: e
                        .fields
                        .iter()
                        .map(|f| FieldDecl {
                            name: id(&f.name),
                            ty: f.ty,
                            ty_span: z,
                        })
                        .collect(),
                    span: z,
                    comments: cms(&e.comments),
                }),
                Item::Box(b) => Item::Box(BoxItem {
                    title: StrLit {
                        value: b.title.value.clone(),
                        span: z,
                        content_span: z,
                    },
                    at: At { span: z, ..b.at },
                    size: Size { span: z, ..b.size },
                    color: b.color.as_ref().map(|c| StrLit {
                        value: c.value.clone(),
                        span: z,
                        content_span: z,
                    }),
                    span: z,
                    comments: cms(&b.comments),
                }),
                Item::Link(l) => Item::Link(Link {
                    from_node: id(&l.from_node),
                    from_pin: id(&l.from_pin),
                    to_node: id(&l.to_node),
                    to_pin: id(&l.to_pin),
                    span: z,
                    comments: cms(&l.comments),
                }),
            })
            .collect();
        File {
            name: id(&self.name),
            header_comments: cms(&self.header_comments),
            items,
            trailing_comments: self.trailing_comments.iter().map(cm).collect(),
        }
    }
}
