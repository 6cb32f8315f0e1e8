//! Event nodes: the handler kinds (`begin_play`, `tick`, `custom::NAME`, notifies and window
//! edges) with their output pins and the one-handler-per-event rule.

use super::{Resolver, payload_pins, pins};
use crate::compile::EventInfo;
use crate::compile::codes::*;
use crate::compile::ir::*;
use crate::diag::Span;
use crate::graph::ast::{self, EventRef, Subject};
use crate::nodes::{self, PinType};
use crate::suggest::closest;
use crate::types::Type;
use std::collections::BTreeMap;

impl Resolver<'_> {
    pub(super) fn event_node(
        &mut self,
        n: &ast::Node,
        payloads: &BTreeMap<String, Vec<(String, Type)>>,
        handled: &mut BTreeMap<String, Span>,
    ) -> Node {
        let Some(Subject::Event(ev)) = &n.subject else {
            let span = n.subject.as_ref().map_or(n.kind.span, |s| s.span());
            self.err(
                E_BAD_SUBJECT,
                span,
                "`event` needs an event: `begin_play`, `tick`, `custom::NAME` or `animseq::SEQUENCE.NOTIFY`",
            );
            return Self::error_node(n);
        };
        let (key, table_kind, extra): (EventKey, &str, Vec<Pin>) = match ev {
            EventRef::BeginPlay(_) => (EventKey::BeginPlay, "event begin_play", Vec::new()),
            EventRef::Tick(_) => (EventKey::Tick, "event tick", Vec::new()),
            EventRef::Custom { name, .. } => (
                EventKey::Custom(name.name.clone()),
                "event custom",
                payload_pins(payloads.get(&name.name)).collect(),
            ),
            EventRef::Animseq {
                sequence,
                notify,
                span,
            } => {
                let identity = ev.identity();
                match self.events.event(&identity) {
                    EventInfo::Published { fields, window } => (
                        if window {
                            EventKey::Window { identity }
                        } else {
                            EventKey::Notify { identity }
                        },
                        "",
                        fields
                            .into_iter()
                            .map(|(name, ty)| Pin {
                                name: name.into(),
                                ty: PinType::Data(ty),
                            })
                            .collect(),
                    ),
                    EventInfo::Quarantined { files } => {
                        let d = self.err(
                            E_QUARANTINED_EVENT,
                            *span,
                            format!(
                                "event `{identity}` is quarantined: more than one asset declares it"
                            ),
                        );
                        d.notes.push(format!(
                            "declared by {}",
                            crate::catalog::list_some(
                                &files[..files.len().min(crate::catalog::MAX_LISTED)],
                                files.len()
                            )
                        ));
                        d.notes.push("give each sequence its own id (or remove the copy) to publish it again".into());
                        return Self::error_node(n);
                    }
                    EventInfo::Unknown => {
                        let events = self.events;
                        let published = self.published.get_or_insert_with(|| events.published());
                        let prefix = format!("animseq::{}.", sequence.name);
                        let same_seq: Vec<&str> = published
                            .iter()
                            .filter_map(|p| p.strip_prefix(&prefix))
                            .collect();
                        let suggestion = closest(&notify.name, same_seq.iter().copied())
                            .map(|n| format!("{prefix}{n}"))
                            .or_else(|| {
                                closest(&identity, published.iter().map(String::as_str))
                                    .map(str::to_string)
                            });
                        if let Some(cause) = events.broken_source(&identity) {
                            self.broken_asset(*span, &identity, cause);
                            return Self::error_node(n);
                        }
                        let d = self.err(
                            E_UNKNOWN_EVENT,
                            *span,
                            format!("unknown event `{identity}`"),
                        );
                        if let Some(s) = suggestion {
                            d.notes.push(format!("did you mean `{s}`?"));
                        } else {
                            d.notes.push("no asset in the catalog declares it".into());
                        }
                        return Self::error_node(n);
                    }
                }
            }
        };
        let identity = key.identity();
        if let Some(&first) = handled.get(&identity) {
            let src = self.src;
            let d = self.err(
                E_EVENT_TWICE,
                ev.span(),
                format!("event `{identity}` is handled twice in this graph"),
            );
            *d = d.clone().with_label(src, first, "first handled here");
            d.notes.push(
                "a graph may handle an event once; chain the actions with `flow.sequence`".into(),
            );
            return Self::error_node(n);
        }
        handled.insert(identity, ev.span());
        if let Some(s) = &n.args.first() {
            self.err(E_BAD_PROPERTY, s.name.span, "event nodes take no arguments");
        }
        let outputs = if table_kind.is_empty() {
            let window = matches!(key, EventKey::Window { .. });
            let mut o = pins(nodes::event_context_pins(window), None);
            o.extend(extra);
            o
        } else {
            let k = nodes::lookup(table_kind).expect("event kinds are in the table");
            // A custom event's payload fields follow the table's `then, sender`.
            let mut o = pins(k.outputs, None);
            o.extend(extra);
            o
        };
        Node {
            name: n.name.name.clone(),
            kind: "event".into(),
            op: Op::Event(key),
            inputs: Vec::new(),
            outputs,
            defaults: Vec::new(),
            given: Vec::new(),
            props: Props::default(),
        }
    }
}

impl Resolver<'_> {
    /// An event whose asset does not load: `E0312` at the node naming the file and its first
    /// error (the real cause, never a bare "unknown event"), and that error itself — the
    /// asset's own diagnostic, in its own file — once per graph, so a graph's problems list
    /// shows it (`sinew check` reports it once: the workspace drops repeats).
    fn broken_asset(&mut self, span: Span, identity: &str, cause: crate::diag::Diagnostic) {
        let d = self.err(
            E_UNKNOWN_EVENT,
            span,
            format!(
                "event `{identity}` is unavailable: its asset `{}` does not load",
                cause.file
            ),
        );
        d.notes.push(cause.one_line().to_string());
        d.notes.push(format!(
            "help: fix `{}`; its events come back as soon as it loads",
            cause.file
        ));
        if !self.diags.contains(&cause) {
            self.diags.push(cause);
        }
    }
}
