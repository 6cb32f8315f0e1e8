//! The `.bpg` parser: tokens to a [`File`] tree plus syntax diagnostics (E0401–E0410).
//!
//! Hand-written and non-recursive (the grammar has no nesting), linear in the input. Newlines
//! are ordinary whitespace: an item may span lines, and several items may share one. Item
//! boundaries come from the grammar with bounded lookahead (`Parser::starts_item`), plus one
//! layout rule: a token that begins a line and looks like an item start
//! (`Parser::looks_like_item`: `var IDENT`, `node IDENT`, `graph IDENT`, `IDENT . IDENT ->`)
//! always starts a new item. After a syntax error the parser skips to the next line that
//! starts an item (such a token, or a broken item start: `Parser::recovery_point`), so one
//! error is reported per item and every later item is still checked.
//!
//! Comments: own-line comments before an item, and every comment inside a multi-line item, are
//! the item's leading comments; an end-of-line comment after its last token is its trailing one.
//!
//! This file holds the grammar's items (header, `var`, `node`, subjects, ARGS, `at`, links);
//! `literals.rs` turns number and string tokens into values; `cursor.rs` is the token cursor
//! (lookahead, item boundaries, expectations, recovery, comments).

use super::ast::*;
use super::lexer::{self, Tok, Token};
use crate::diag::{Diagnostic, SourceFile, Span};

pub use crate::diag::codes::parser::*;

mod boxes;
mod cursor;
mod literals;

pub use boxes::{MAX_BOX_COORD, MAX_BOX_SIZE, is_color};

/// The most syntax diagnostics one file reports individually.
pub const MAX_DIAGNOSTICS: usize = 100;
/// The longest event `ID` (sequence or notify) in characters.
pub const MAX_ID_LEN: usize = 64;

/// Parses a `.bpg` source. Returns the (possibly partial) tree and the syntax diagnostics,
/// in source order; the tree is complete exactly when no diagnostic is returned.
pub fn parse(src: &SourceFile) -> (File, Vec<Diagnostic>) {
    let lexer::Tokens { tokens, comments } = lexer::lex(src.text());
    let mut p = Parser {
        src,
        text: src.text(),
        toks: tokens,
        comments,
        pos: 0,
        cpos: 0,
        item_start: 0,
        diags: Vec::new(),
        suppressed: 0,
    };
    let file = p.file();
    let mut diags = p.diags;
    if p.suppressed > 0 {
        diags.push(
            Diagnostic::error(
                E_TOO_MANY_ERRORS,
                format!(
                    "{} more syntax errors not shown (stopped listing after {MAX_DIAGNOSTICS})",
                    p.suppressed
                ),
            )
            .at(src, Span::point(src.text().len())),
        );
    }
    (file, diags)
}

/// Marker for "an error was reported; skip to the next line".
struct Reported;

type PResult<T> = Result<T, Reported>;

struct Parser<'a> {
    src: &'a SourceFile,
    text: &'a str,
    toks: Vec<Token>,
    comments: Vec<Token>,
    pos: usize,
    cpos: usize,
    /// Index of the first token of the current item.
    item_start: usize,
    diags: Vec<Diagnostic>,
    suppressed: usize,
}

impl<'a> Parser<'a> {
    fn file(&mut self) -> File {
        let mut file = File {
            name: Ident {
                name: String::new(),
                span: Span::point(0),
            },
            header_comments: Comments::default(),
            items: Vec::new(),
            trailing_comments: Vec::new(),
        };
        self.header(&mut file);
        while self.pos < self.toks.len() {
            self.item_start = self.pos;
            let start = self.toks[self.pos].span.start;
            let mut leading = self.take_leading(start);
            match self.item() {
                Ok(mut item) => {
                    // Comments inside a multi-line item ride along as leading comments.
                    let end = self.prev_end_u32();
                    leading.extend(self.take_leading(end));
                    let trailing = self.take_trailing();
                    let c = match &mut item {
                        Item::Var(v) => &mut v.comments,
                        Item::Node(n) => &mut n.comments,
                        Item::Link(l) => &mut l.comments,
                        Item::Event(e) => &mut e.comments,
                        Item::Box(b) => &mut b.comments,
                    };
                    *c = Comments { leading, trailing };
                    file.items.push(item);
                }
                Err(Reported) => self.skip_item(),
            }
        }
        file.trailing_comments = self.take_leading(u32::MAX);
        file
    }

    fn header(&mut self, file: &mut File) {
        let first = self.toks.first().copied();
        let is_header = first.is_some_and(|t| self.is_ident(t, "graph"))
            && self.toks.get(1).is_none_or(|t| t.kind != Tok::Dot);
        if !is_header {
            let found = self.describe_at(0);
            let span = first.map_or(Span::point(self.text.len()), |t| t.span);
            self.report(
                Diagnostic::error(
                    E_MISSING_HEADER,
                    format!("expected `graph NAME` header, found {found}"),
                )
                .at(self.src, span)
                .with_note("a graph file starts with `graph <name>` on its first line"),
            );
            // A first line that cannot be an item either is not reported twice.
            if first.is_some_and(|t| t.kind != Tok::Ident) {
                self.skip_item();
            }
            return;
        }
        let start = first.map_or(0, |t| t.span.start);
        let mut leading = self.take_leading(start);
        self.item_start = 0;
        self.pos = 1;
        let name = self.ident("a graph name");
        let end = name.and_then(|n| self.end_of_item("a new item").map(|()| n));
        match end {
            Ok(name) => {
                file.name = name;
                let end = self.prev_end_u32();
                leading.extend(self.take_leading(end));
                file.header_comments = Comments {
                    leading,
                    trailing: self.take_trailing(),
                };
            }
            Err(Reported) => {
                file.header_comments.leading = leading;
                self.skip_item();
            }
        }
    }

    fn item(&mut self) -> PResult<Item> {
        let t = self.toks[self.pos];
        let next_ident = self.kind_at(self.pos + 1) == Some(Tok::Ident);
        if t.kind == Tok::Ident && next_ident {
            if self.is_ident(t, "var") {
                return self.var().map(Item::Var);
            }
            if self.is_ident(t, "node") {
                return self.node().map(Item::Node);
            }
            if self.is_ident(t, "graph") {
                let span = self.toks[self.pos + 1].span;
                self.report(
                    Diagnostic::error(E_DUPLICATE_HEADER, "a graph file has one `graph` line")
                        .at(self.src, t.span.join(span)),
                );
                return Err(Reported);
            }
        }
        if self.is_ident(t, "event") && self.kind_at(self.pos + 1) == Some(Tok::CustomRef) {
            return self.event_decl().map(Item::Event);
        }
        if self.box_at(self.pos) {
            return self.box_item().map(Item::Box);
        }
        if t.kind == Tok::Ident {
            return self.link().map(Item::Link);
        }
        self.expected("an item (`var`, `node`, `event custom::NAME { … }`, `box` or a link)")
    }

    /// A type name (`E0408` for any other name) and its token.
    fn type_name(&mut self) -> PResult<(Type, Token)> {
        let ty_tok = self.expect(Tok::Ident, "a type")?;
        let ty_text = self.slice(ty_tok.span);
        let Some(ty) = Type::from_name(ty_text) else {
            let names: Vec<&str> = Type::ALL.iter().map(|t| t.name()).collect();
            self.report(
                Diagnostic::error(E_UNKNOWN_TYPE, format!("unknown type `{ty_text}`"))
                    .at(self.src, ty_tok.span)
                    .with_note(format!("the types are: {}", names.join(", "))),
            );
            return Err(Reported);
        };
        Ok((ty, ty_tok))
    }

    /// `event custom::NAME { field: TYPE, … }` (the braces may be empty).
    fn event_decl(&mut self) -> PResult<EventDecl> {
        let start = self.toks[self.pos].span;
        self.pos += 1;
        let t = self.toks[self.pos];
        self.pos += 1;
        let name_start = t.span.start as usize + "custom::".len();
        let name = Ident {
            name: self.slice(t.span)["custom::".len()..].to_string(),
            span: Span::new(name_start, t.span.end as usize),
        };
        let open = self.expect(
            Tok::LBrace,
            "`{` and the payload's fields (`{ amount: float }`)",
        )?;
        let mut fields = Vec::new();
        let close = loop {
            if self.peek_kind() == Some(Tok::RBrace) {
                let close = self.toks[self.pos].span;
                self.pos += 1;
                break close;
            }
            let fname = self.ident(if fields.is_empty() {
                "a field name or `}`"
            } else {
                "a field name"
            })?;
            self.expect(Tok::Colon, "`:`")?;
            let (ty, ty_tok) = self.type_name()?;
            fields.push(FieldDecl {
                name: fname,
                ty,
                ty_span: ty_tok.span,
            });
            match self.peek_kind() {
                Some(Tok::Comma) => self.pos += 1,
                Some(Tok::RBrace) => {}
                _ if self.at_boundary() => {
                    let at = self.prev_end();
                    self.report(
                        Diagnostic::error(E_EXPECTED, "expected `,` or `}`, found end of line")
                            .at(self.src, Span::point(at))
                            .with_label(self.src, open.span, "`{` opened here"),
                    );
                    return Err(Reported);
                }
                _ => return self.expected("`,` or `}`"),
            }
        };
        self.end_of_item("a new item")?;
        Ok(EventDecl {
            name,
            fields,
            span: start.join(close),
            comments: Comments::default(),
        })
    }

    fn var(&mut self) -> PResult<Var> {
        let start = self.toks[self.pos].span;
        self.pos += 1;
        let name = self.ident("a variable name")?;
        self.expect(Tok::Colon, "`:`")?;
        let (ty, ty_tok) = self.type_name()?;
        self.expect(Tok::Eq, "`=`")?;
        let value = self.literal()?;
        self.end_of_item("a new item")?;
        Ok(Var {
            name,
            ty,
            ty_span: ty_tok.span,
            span: start.join(value.span),
            value,
            comments: Comments::default(),
        })
    }

    fn node(&mut self) -> PResult<Node> {
        let start = self.toks[self.pos].span;
        self.pos += 1;
        let name = self.ident("a node name")?;
        self.expect(Tok::Eq, "`=`")?;
        let kind = self.path()?;
        let mut end = kind.span;
        let subject = self.subject(&kind)?;
        if let Some(s) = &subject {
            end = s.span();
        }
        let mut args = Vec::new();
        if self.peek_kind() == Some(Tok::LBrace) {
            let open = self.toks[self.pos].span;
            self.pos += 1;
            end = self.args(&mut args, open)?;
        }
        let mut at = None;
        if self.peek_at_clause() {
            let a = self.at_clause()?;
            end = a.span;
            at = Some(a);
        }
        let what = match (&subject, args.is_empty(), &at) {
            (_, _, Some(_)) => "a new item",
            (None, true, None) => "a subject, `{`, `at` or a new item",
            (_, true, None) => "`{`, `at` or a new item",
            (_, false, None) => "`at` or a new item",
        };
        self.end_of_item(what)?;
        Ok(Node {
            name,
            kind,
            subject,
            args,
            at,
            span: start.join(end),
            comments: Comments::default(),
        })
    }

    fn path(&mut self) -> PResult<Path> {
        let first = self.ident("a node kind")?;
        let mut span = first.span;
        let mut segments = vec![first];
        while self.peek_kind() == Some(Tok::Dot) {
            self.pos += 1;
            let seg = self.ident("a kind segment after `.`")?;
            span = span.join(seg.span);
            segments.push(seg);
        }
        Ok(Path { segments, span })
    }

    fn subject(&mut self, kind: &Path) -> PResult<Option<Subject>> {
        let Some(t) = self.peek() else {
            return Ok(None);
        };
        match t.kind {
            Tok::AnimseqRef => {
                self.pos += 1;
                self.animseq_ref(t.span).map(|e| Some(Subject::Event(e)))
            }
            Tok::CustomRef => {
                self.pos += 1;
                let name_start = t.span.start as usize + "custom::".len();
                let name = Ident {
                    name: self.slice(t.span)["custom::".len()..].to_string(),
                    span: Span::new(name_start, t.span.end as usize),
                };
                Ok(Some(Subject::Event(EventRef::Custom {
                    name,
                    span: t.span,
                })))
            }
            Tok::Str(_) => {
                self.pos += 1;
                self.string(t).map(|s| Some(Subject::String(s)))
            }
            Tok::Ident
                if self
                    .toks
                    .get(self.pos + 1)
                    .is_some_and(|n| n.kind == Tok::ColonColon && n.span.start == t.span.end) =>
            {
                // `animseq::` or `custom::` not followed by a well-formed reference.
                let mut end = self.toks[self.pos + 1].span;
                if let Some(n) = self.toks.get(self.pos + 2)
                    && n.span.start == end.end
                {
                    end = n.span;
                }
                let found = self.slice(t.span.join(end)).to_string();
                self.report(
                    Diagnostic::error(
                        E_EXPECTED,
                        format!(
                            "expected `animseq::SEQUENCE.NOTIFY` or `custom::NAME`, found `{found}`"
                        ),
                    )
                    .at(self.src, t.span.join(end))
                    .with_note(
                        "SEQUENCE and NOTIFY are IDs of letters, digits, `_` and `-`; NAME is an identifier",
                    ),
                );
                Err(Reported)
            }
            // An identifier that starts the next item (`var x: …`, `node n = …`, `a.b -> …`) is
            // not a subject: the subject is optional and the item ends before it.
            Tok::Ident if !self.peek_at_clause() && !self.starts_item(self.pos) => {
                self.pos += 1;
                let text = self.slice(t.span);
                let is_event = kind.segments.len() == 1 && kind.segments[0].name == "event";
                Ok(Some(match text {
                    "begin_play" if is_event => Subject::Event(EventRef::BeginPlay(t.span)),
                    "tick" if is_event => Subject::Event(EventRef::Tick(t.span)),
                    _ => Subject::Ident(Ident {
                        name: text.to_string(),
                        span: t.span,
                    }),
                }))
            }
            Tok::ColonColon => self.expected("`animseq::SEQUENCE.NOTIFY` or `custom::NAME`"),
            _ => Ok(None),
        }
    }

    fn animseq_ref(&mut self, span: Span) -> PResult<EventRef> {
        let text = self.slice(span);
        let body = &text["animseq::".len()..];
        let body_start = span.start as usize + "animseq::".len();
        let dot = body.find('.').unwrap_or(body.len());
        let (seq, notify) = (&body[..dot], body.get(dot + 1..).unwrap_or(""));
        let sequence = Ident {
            name: seq.to_string(),
            span: Span::new(body_start, body_start + seq.len()),
        };
        let notify_start = body_start + dot + 1;
        let notify = Ident {
            name: notify.to_string(),
            span: Span::new(notify_start, notify_start + notify.len()),
        };
        for id in [&sequence, &notify] {
            if id.name.len() > MAX_ID_LEN {
                self.report(
                    Diagnostic::error(
                        E_EVENT_ID_TOO_LONG,
                        format!(
                            "event ID is {} characters long; the limit is {MAX_ID_LEN}",
                            id.name.len()
                        ),
                    )
                    .at(self.src, id.span),
                );
                return Err(Reported);
            }
        }
        Ok(EventRef::Animseq {
            sequence,
            notify,
            span,
        })
    }

    /// Parses args after `{` up to and including `}`; returns the span of `}`.
    pub(super) fn args(&mut self, args: &mut Vec<Arg>, open: Span) -> PResult<Span> {
        loop {
            if self.peek_kind() == Some(Tok::RBrace) {
                let close = self.toks[self.pos].span;
                self.pos += 1;
                return Ok(close);
            }
            let name = self.ident_or(if args.is_empty() {
                "an argument name or `}`"
            } else {
                "an argument name"
            })?;
            self.expect(Tok::Eq, "`=`")?;
            let value = self.literal()?;
            args.push(Arg {
                span: name.span.join(value.span),
                name,
                value,
            });
            match self.peek_kind() {
                Some(Tok::Comma) => self.pos += 1,
                Some(Tok::RBrace) => {}
                _ if self.at_boundary() => {
                    let at = self.prev_end();
                    self.report(
                        Diagnostic::error(E_EXPECTED, "expected `,` or `}`, found end of line")
                            .at(self.src, Span::point(at))
                            .with_label(self.src, open, "`{` opened here"),
                    );
                    return Err(Reported);
                }
                _ => return self.expected("`,` or `}`"),
            }
        }
    }

    pub(super) fn peek_at_clause(&self) -> bool {
        self.peek().is_some_and(|t| self.is_ident(t, "at"))
            && self.kind_at(self.pos + 1) == Some(Tok::LParen)
    }

    pub(super) fn at_clause(&mut self) -> PResult<At> {
        let start = self.toks[self.pos].span;
        self.pos += 1;
        self.expect(Tok::LParen, "`(`")?;
        let x = self.int("an integer x coordinate")?;
        self.expect(Tok::Comma, "`,`")?;
        let y = self.int("an integer y coordinate")?;
        let close = self.expect(Tok::RParen, "`)`")?;
        Ok(At {
            x,
            y,
            span: start.join(close.span),
        })
    }

    fn link(&mut self) -> PResult<Link> {
        let from_node = self.ident("a node name")?;
        self.expect(Tok::Dot, "`.`")?;
        let from_pin = self.ident("a pin name")?;
        self.expect(Tok::Arrow, "`->`")?;
        let to_node = self.ident("a node name")?;
        self.expect(Tok::Dot, "`.`")?;
        let to_pin = self.ident("a pin name")?;
        self.end_of_item("a new item")?;
        Ok(Link {
            span: from_node.span.join(to_pin.span),
            from_node,
            from_pin,
            to_node,
            to_pin,
            comments: Comments::default(),
        })
    }
}
