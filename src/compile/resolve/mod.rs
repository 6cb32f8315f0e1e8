//! Resolve: syntax tree + node table + event catalog → typed IR, with the diagnostics of names,
//! kinds, subjects, literals and link rules.
//!
//! Values in, values out: reads the AST and the catalog, returns a [`Graph`], its
//! [`GraphSpans`] and diagnostics. Never does I/O.

use super::EventCatalog;
use super::codes::*;
use super::ir::*;
use crate::bytecode::verify::MAX_PAYLOAD_FIELDS;
use crate::diag::{Diagnostic, SourceFile, Span};
use crate::graph::ast::{self, EventRef, LitValue, Subject};
use crate::graph::expr;
use crate::nodes::{self, Flow, NodeKind, PinType, SubjectRule};
use crate::suggest::closest;
use crate::types::Type;
use std::collections::{BTreeMap, HashMap};

/// Converts a literal to a constant of type `ty`, or says why not. An `int` literal is accepted
/// where a `float` is expected; an `entity` is written as a string naming a scene entity (`""`
/// for the default).
pub fn literal(lit: &ast::Literal, ty: Type) -> Result<Const, String> {
    if let LitValue::String(s) = &lit.value
        && s.len() > crate::bytecode::verify::MAX_STRING_LEN
    {
        return Err(format!(
            "string literal of {} bytes; strings hold at most {} bytes",
            s.len(),
            crate::bytecode::verify::MAX_STRING_LEN
        ));
    }
    Ok(match (&lit.value, ty) {
        (LitValue::Bool(b), Type::Bool) => Const::Bool(*b),
        (LitValue::Int(i), Type::Int) => Const::Int(*i),
        (LitValue::Int(i), Type::Float) => Const::Float(*i as f64),
        (LitValue::Float(f), Type::Float) => Const::Float(*f),
        (LitValue::String(s), Type::Str) => Const::Str(s.clone()),
        (LitValue::String(s), Type::Entity) if s.is_empty() => Const::Entity(EntityConst::None),
        (LitValue::String(_), Type::Entity) => {
            return Err(
                "an entity literal can only be \"\" (unset, or the own entity for a pin); entities come from pins such as `entity.self` or an event's `entity`/`sender`"
                    .into(),
            );
        }
        (LitValue::Vec3(v), Type::Vec3) => {
            let mut out = [0f32; 3];
            for (o, (n, _)) in out.iter_mut().zip(v) {
                let x = n.as_f64() as f32;
                if !x.is_finite() {
                    return Err(format!("vec3 component {} does not fit in f32", n.as_f64()));
                }
                *o = x;
            }
            Const::Vec3(out)
        }
        (v, ty) => {
            return Err(format!(
                "expected {} literal, found {}",
                ty.name(),
                v.ty().name()
            ));
        }
    })
}

/// The pins of a custom event's payload fields (none when it declares no payload).
fn payload_pins(fields: Option<&Vec<(String, Type)>>) -> impl Iterator<Item = Pin> + '_ {
    fields.into_iter().flatten().map(|(name, ty)| Pin {
        name: name.clone().into(),
        ty: PinType::Data(*ty),
    })
}

struct Resolver<'a> {
    src: &'a SourceFile,
    events: &'a dyn EventCatalog,
    diags: Vec<Diagnostic>,
    graph: Graph,
    spans: GraphSpans,
    /// The catalog's published identities, read once (for did-you-mean) when first needed.
    published: Option<Vec<String>>,
}

/// Resolves a parsed file against the node table and the event catalog.
pub fn resolve(
    src: &SourceFile,
    file: &ast::File,
    events: &dyn EventCatalog,
) -> (Graph, GraphSpans, Vec<Diagnostic>) {
    let mut r = Resolver {
        src,
        events,
        diags: Vec::new(),
        graph: Graph {
            name: file.name.name.clone(),
            ..Graph::default()
        },
        spans: GraphSpans::default(),
        published: None,
    };
    let payloads = r.payloads(file);
    let var_index = r.vars(file);
    let node_index = r.nodes(file, &var_index, &payloads);
    r.links(file, &node_index);
    (r.graph, r.spans, r.diags)
}

impl Resolver<'_> {
    fn err(&mut self, code: &'static str, span: Span, msg: impl Into<String>) -> &mut Diagnostic {
        self.diags
            .push(Diagnostic::error(code, msg).at(self.src, span));
        self.diags.last_mut().expect("just pushed")
    }

    /// The custom event declarations: name → fields. A second declaration of a name, a field
    /// declared twice or named like one of the event's pins (`then`, `sender`; `exec`, `target`
    /// of `event.send`), and more than [`MAX_PAYLOAD_FIELDS`] fields are `E0325`.
    fn payloads(&mut self, file: &ast::File) -> BTreeMap<String, Vec<(String, Type)>> {
        const RESERVED: &[&str] = &["then", "sender", "exec", "target"];
        let mut out: BTreeMap<String, Vec<(String, Type)>> = BTreeMap::new();
        let mut first: BTreeMap<String, Span> = BTreeMap::new();
        for e in file.events() {
            let name = &e.name.name;
            if let Some(&at) = first.get(name) {
                let src = self.src;
                let d = self.err(
                    E_BAD_PAYLOAD,
                    e.name.span,
                    format!("custom event `{name}` is declared twice in this graph"),
                );
                *d = d.clone().with_label(src, at, "first declared here");
                continue;
            }
            first.insert(name.clone(), e.span);
            if e.fields.len() > MAX_PAYLOAD_FIELDS {
                self.err(
                    E_BAD_PAYLOAD,
                    e.span,
                    format!(
                        "custom event `{name}` declares {} fields; a payload has at most {MAX_PAYLOAD_FIELDS}",
                        e.fields.len()
                    ),
                );
                continue;
            }
            let mut fields: Vec<(String, Type)> = Vec::with_capacity(e.fields.len());
            let mut ok = true;
            for f in &e.fields {
                if RESERVED.contains(&f.name.name.as_str()) {
                    let d = self.err(
                        E_BAD_PAYLOAD,
                        f.name.span,
                        format!(
                            "field `{}` has the name of a pin of the event's nodes",
                            f.name.name
                        ),
                    );
                    d.notes.push(format!(
                        "`{}` are taken; rename the field",
                        RESERVED.join("`, `")
                    ));
                    ok = false;
                } else if fields.iter().any(|(n, _)| *n == f.name.name) {
                    self.err(
                        E_BAD_PAYLOAD,
                        f.name.span,
                        format!("field `{}` is declared twice", f.name.name),
                    );
                    ok = false;
                } else {
                    fields.push((f.name.name.clone(), f.ty));
                }
            }
            if !ok {
                continue;
            }
            self.graph.events.push(EventDecl {
                name: name.clone(),
                fields: fields.clone(),
            });
            self.spans.events.push(e.span);
            out.insert(name.clone(), fields);
        }
        out
    }

    fn vars(&mut self, file: &ast::File) -> BTreeMap<String, u32> {
        let mut index: BTreeMap<String, u32> = BTreeMap::new();
        for v in file.vars() {
            if let Some(&first) = index.get(&v.name.name) {
                let first_span = self.spans.vars[first as usize];
                let src = self.src;
                let d = self.err(
                    E_DUPLICATE_VAR,
                    v.name.span,
                    format!("variable `{}` is declared twice", v.name.name),
                );
                *d = d.clone().with_label(src, first_span, "first declared here");
                continue;
            }
            let ty = v.ty;
            let init = match literal(&v.value, ty) {
                Ok(c) => c,
                Err(m) => {
                    self.err(E_BAD_LITERAL, v.value.span, m);
                    Const::default_of(ty)
                }
            };
            index.insert(v.name.name.clone(), self.graph.vars.len() as u32);
            self.graph.vars.push(Var {
                name: v.name.name.clone(),
                ty,
                init,
            });
            self.spans.vars.push(v.name.span);
        }
        index
    }

    fn nodes<'f>(
        &mut self,
        file: &'f ast::File,
        vars: &BTreeMap<String, u32>,
        payloads: &BTreeMap<String, Vec<(String, Type)>>,
    ) -> HashMap<&'f str, NodeId> {
        let mut index: HashMap<&'f str, NodeId> = HashMap::with_capacity(file.items.len());
        let mut handled: BTreeMap<String, Span> = BTreeMap::new();
        for n in file.nodes() {
            if let Some(&first) = index.get(n.name.name.as_str()) {
                let first_span = self.spans.node_names[first as usize];
                let src = self.src;
                let d = self.err(
                    E_DUPLICATE_NODE,
                    n.name.span,
                    format!("node `{}` is declared twice", n.name.name),
                );
                *d = d.clone().with_label(src, first_span, "first declared here");
                continue;
            }
            let node = self.node(n, vars, payloads, &mut handled);
            index.insert(n.name.name.as_str(), self.graph.nodes.len() as NodeId);
            self.graph.nodes.push(node);
            self.spans.nodes.push(n.span);
            self.spans.node_names.push(n.name.span);
        }
        index
    }

    fn error_node(n: &ast::Node) -> Node {
        Node {
            name: n.name.name.clone(),
            kind: n.kind.text().into(),
            op: Op::Error,
            inputs: Vec::new(),
            outputs: Vec::new(),
            defaults: Vec::new(),
            given: Vec::new(),
            props: Props::default(),
        }
    }

    fn node(
        &mut self,
        n: &ast::Node,
        vars: &BTreeMap<String, u32>,
        payloads: &BTreeMap<String, Vec<(String, Type)>>,
        handled: &mut BTreeMap<String, Span>,
    ) -> Node {
        let kind_text = n.kind.text();
        if kind_text == "event" {
            return self.event_node(n, payloads, handled);
        }
        if kind_text.starts_with("game.") && nodes::lookup(&kind_text).is_none() {
            return self.game_node(n);
        }
        let Some(kind) = nodes::lookup(&kind_text).filter(|k| k.flow != Flow::Event) else {
            let d = self.err(
                E_UNKNOWN_KIND,
                n.kind.span,
                format!("unknown node kind `{kind_text}`"),
            );
            if let Some(s) = closest(&kind_text, nodes::writable_kinds()) {
                d.notes.push(format!("did you mean `{s}`?"));
            }
            return Self::error_node(n);
        };
        let mut node = Node {
            name: n.name.name.clone(),
            kind: kind.kind.into(),
            op: Op::Builtin(kind),
            inputs: pins(kind.inputs, None),
            outputs: pins(kind.outputs, None),
            defaults: Vec::new(),
            given: Vec::new(),
            props: Props::default(),
        };
        // Subject.
        match (kind.subject, &n.subject) {
            (SubjectRule::None, None) => {}
            (SubjectRule::None, Some(s)) => {
                self.err(
                    E_BAD_SUBJECT,
                    s.span(),
                    format!("`{kind_text}` takes no subject"),
                );
                return Self::error_node(n);
            }
            (SubjectRule::Variable, Some(Subject::Ident(v))) => match vars.get(&v.name) {
                Some(&i) => {
                    let ty = self.graph.vars[i as usize].ty;
                    node.inputs = pins(kind.inputs, Some(ty));
                    node.outputs = pins(kind.outputs, Some(ty));
                    node.op = if kind.id == nodes::KindId::VarGet {
                        Op::VarGet(i)
                    } else {
                        Op::VarSet(i)
                    };
                }
                None => {
                    let names: Vec<&str> = vars.keys().map(String::as_str).collect();
                    let d = self.err(
                        E_UNKNOWN_VAR,
                        v.span,
                        format!("unknown variable `{}`", v.name),
                    );
                    if let Some(s) = closest(&v.name, names) {
                        d.notes.push(format!("did you mean `{s}`?"));
                    }
                    return Self::error_node(n);
                }
            },
            (SubjectRule::Expr, Some(Subject::String(s))) => match expr::parse_lit(self.src, s) {
                Ok(parsed) => {
                    node.inputs = parsed
                        .inputs
                        .iter()
                        .map(|i| Pin {
                            name: i.name.clone().into(),
                            ty: PinType::Data(Type::Float),
                        })
                        .collect();
                    node.op = Op::Expr(Box::new(parsed));
                }
                Err(d) => {
                    self.diags.extend(d);
                    return Self::error_node(n);
                }
            },
            (SubjectRule::CustomEvent, Some(Subject::Event(EventRef::Custom { name, .. }))) => {
                // The payload's fields are inputs after `exec` and `target`.
                node.inputs.extend(payload_pins(payloads.get(&name.name)));
                node.op = Op::Send(name.name.clone());
            }
            (rule, s) => {
                let want = match rule {
                    SubjectRule::Variable => "a variable name",
                    SubjectRule::Expr => "an expression string",
                    SubjectRule::CustomEvent => "a `custom::NAME` event",
                    SubjectRule::Event => "an event",
                    SubjectRule::None => "nothing",
                };
                let span = s.as_ref().map_or(n.kind.span, |s| s.span());
                self.err(
                    E_BAD_SUBJECT,
                    span,
                    format!("`{kind_text}` needs {want} after the kind"),
                );
                return Self::error_node(n);
            }
        }
        self.args(n, Some(kind), &mut node);
        node
    }

    fn args(&mut self, n: &ast::Node, kind: Option<&NodeKind>, node: &mut Node) {
        let props: &[nodes::Property] = kind.map_or(&[], |k| k.properties);
        node.defaults = node.inputs.iter().map(|p| pin_default(p.ty)).collect();
        node.given = vec![false; node.inputs.len()];
        // Few arguments per node: a linear scan beats a map.
        let mut seen: Vec<(&str, Span)> = Vec::new();
        for a in &n.args {
            if let Some(&(_, first)) = seen.iter().find(|(k, _)| *k == a.name.name) {
                let src = self.src;
                let d = self.err(
                    E_BAD_PROPERTY,
                    a.name.span,
                    format!("argument `{}` is set twice", a.name.name),
                );
                *d = d.clone().with_label(src, first, "first set here");
                continue;
            }
            seen.push((&a.name.name, a.name.span));
            if let Some(i) = node.input(&a.name.name) {
                let PinType::Data(ty) = node.inputs[i].ty else {
                    self.err(
                        E_BAD_PROPERTY,
                        a.name.span,
                        format!("`{}` is an exec pin; it cannot take a value", a.name.name),
                    );
                    continue;
                };
                match literal(&a.value, ty) {
                    Ok(c) => {
                        node.defaults[i] = Some(c);
                        node.given[i] = true;
                    }
                    Err(m) => {
                        self.err(E_BAD_LITERAL, a.value.span, m);
                    }
                }
            } else if let Some(p) = props.iter().find(|p| p.name == a.name.name) {
                match (p.name, literal(&a.value, p.ty)) {
                    ("count", Ok(Const::Int(c))) => match p.range {
                        Some((lo, hi)) if c < lo || c > hi => {
                            self.err(
                                E_BAD_PROPERTY,
                                a.value.span,
                                format!("`count` must be between {lo} and {hi}, found {c}"),
                            );
                        }
                        _ => node.props.count = c as u32,
                    },
                    ("start_open", Ok(Const::Bool(b))) => node.props.start_open = b,
                    (_, Err(m)) => {
                        self.err(E_BAD_LITERAL, a.value.span, m);
                    }
                    _ => {}
                }
            } else {
                let candidates: Vec<&str> = node
                    .inputs
                    .iter()
                    .filter(|p| p.ty != PinType::Exec)
                    .map(|p| &*p.name)
                    .chain(props.iter().map(|p| p.name))
                    .collect();
                let d = self.err(
                    E_BAD_PROPERTY,
                    a.name.span,
                    format!("`{}` has no input or property `{}`", node.kind, a.name.name),
                );
                if let Some(s) = closest(&a.name.name, candidates.iter().copied()) {
                    d.notes.push(format!("did you mean `{s}`?"));
                } else if !candidates.is_empty() {
                    d.notes.push(format!("it takes: {}", candidates.join(", ")));
                }
            }
        }
        if kind.is_some_and(|k| k.id == nodes::KindId::FlowSequence) {
            node.outputs.truncate(node.props.count as usize);
        }
    }
}

mod events;
mod game;
mod links;

/// The resolved pins of a table row for a node whose variable (if any) has type `var`.
/// Without a variable, variable-typed pins are left out (`var.get`/`var.set` rebuild their
/// pins once the subject names a variable; otherwise the node is an error node without pins).
fn pins(table: &[nodes::Pin], var: Option<Type>) -> Vec<Pin> {
    table
        .iter()
        .filter_map(|p| {
            Some(Pin {
                name: p.name.into(),
                ty: p.ty.resolve(var)?,
            })
        })
        .collect()
}
