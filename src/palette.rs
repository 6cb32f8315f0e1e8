//! The node palette: every built-in kind from [`crate::nodes`] plus one event node per
//! published catalog event, and palette deltas derived from catalog deltas.
//!
//! Quarantined identities never appear: the palette reads only `Catalog::events()`.

use crate::bytecode::GameFlow;
use crate::catalog::{Catalog, Delta, EventDescriptor};
use crate::nodes::game::GameNode;
use crate::nodes::{BUILTINS, NodeKind, Pin, PinSpec, PinType, event_context_pins};
use serde::Serialize;

/// One typed pin as an editor shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PalettePin {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: PinSpec,
    /// Data inputs only: what the pin holds when neither linked nor given a literal, as a
    /// graph would write it (`0.0`, `""`, `self` for the graph's own entity); see
    /// [`Pin::default_text`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<std::borrow::Cow<'static, str>>,
    /// Data inputs only: leaving the pin at its default is a warning (`W0303`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub warn_unset: bool,
}

/// A node property (ARGS that are not pins) with its default.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PaletteProperty {
    pub name: &'static str,
    #[serde(rename = "type")]
    pub ty: &'static str,
    pub default: &'static str,
    /// Inclusive range of an `int` property.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range: Option<(i64, i64)>,
    pub description: &'static str,
}

/// One node an editor can offer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PaletteEntry {
    pub kind: String,
    pub name: String,
    pub category: String,
    /// One sentence of what the node does.
    pub description: String,
    pub inputs: Vec<PalettePin>,
    pub outputs: Vec<PalettePin>,
    /// Node properties with their defaults (`flow.sequence`'s `count`, `flow.gate`'s
    /// `start_open`); empty for most kinds.
    pub properties: Vec<PaletteProperty>,
    /// `"game"` for a game node (declared in a `.nodes.ron`); absent for built-ins and events.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<&'static str>,
    /// The `.nodes.ron` file declaring a game node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

fn pins(pins: &[Pin], inputs: bool) -> Vec<PalettePin> {
    pins.iter()
        .map(|p| PalettePin {
            name: p.name.to_string(),
            ty: p.ty,
            default: if inputs {
                p.default_text().map(Into::into)
            } else {
                None
            },
            warn_unset: inputs && p.warn_unset,
        })
        .collect()
}

fn output(name: &str, ty: PinSpec) -> PalettePin {
    PalettePin {
        name: name.to_string(),
        ty,
        default: None,
        warn_unset: false,
    }
}

/// The palette form of a built-in kind (`flow.sequence` shows its default count of outputs).
pub fn builtin_entry(k: &NodeKind) -> PaletteEntry {
    let mut outputs = pins(k.outputs, false);
    if let Some(count) = k
        .property("count")
        .and_then(|p| p.default.parse::<usize>().ok())
    {
        outputs.truncate(count);
    }
    PaletteEntry {
        kind: k.kind.to_string(),
        name: k.name.to_string(),
        category: k.category.to_string(),
        description: k.description().to_string(),
        inputs: pins(k.inputs, true),
        outputs,
        properties: k
            .properties
            .iter()
            .map(|p| PaletteProperty {
                name: p.name,
                ty: p.ty.name(),
                default: p.default,
                range: p.range,
                description: p.doc,
            })
            .collect(),
        source: None,
        file: None,
    }
}

/// The event node of one published notify or window event (a window's node has `begin` and
/// `end` exec outputs and a `completed` pin).
pub fn event_entry(d: &EventDescriptor) -> PaletteEntry {
    let window = d.kind.is_window();
    let mut outputs = pins(event_context_pins(window), false);
    outputs.extend(
        d.fields
            .iter()
            .map(|(name, ty)| output(name, PinSpec::Fixed(PinType::Data(*ty)))),
    );
    let description = if window {
        format!(
            "Starts a handler at `begin` and at `end` of the window `{}` of `{}`.",
            d.notify_name, d.sequence_name
        )
    } else {
        format!(
            "Starts a handler when the notify `{}` of `{}` is crossed.",
            d.notify_name, d.sequence_name
        )
    };
    PaletteEntry {
        kind: format!("event {}", d.id),
        name: d.name.clone(),
        category: format!("Events/Animation/{}", d.sequence_name),
        description,
        inputs: Vec::new(),
        outputs,
        properties: Vec::new(),
        source: None,
        file: None,
    }
}

/// The palette form of a game node: exec ones list `exec` and `then` as built-in exec nodes
/// do; inputs show their declared default (`self` for an entity).
pub fn game_entry(n: &GameNode) -> PaletteEntry {
    let exec = n.flow == GameFlow::Exec;
    let exec_pin = |name: &str| output(name, PinSpec::Fixed(PinType::Exec));
    let data = |p: &crate::nodes::game::GamePin, input: bool| PalettePin {
        name: p.name.clone(),
        ty: PinSpec::Fixed(PinType::Data(p.ty)),
        default: input.then(|| match p.ty {
            crate::types::Type::Entity => "self".into(),
            _ => crate::nodes::game::default_text(&p.default).into(),
        }),
        warn_unset: false,
    };
    PaletteEntry {
        kind: n.kind.clone(),
        name: n.name.clone(),
        category: n.category.clone(),
        description: n.description.clone(),
        inputs: exec
            .then(|| exec_pin("exec"))
            .into_iter()
            .chain(n.inputs.iter().map(|p| data(p, true)))
            .collect(),
        outputs: exec
            .then(|| exec_pin("then"))
            .into_iter()
            .chain(n.outputs.iter().map(|p| data(p, false)))
            .collect(),
        properties: Vec::new(),
        source: Some("game"),
        file: Some(n.file.to_string()),
    }
}

/// The whole palette: built-ins in table order, then game nodes sorted by kind, then events
/// sorted by identity.
pub fn build(catalog: &Catalog) -> Vec<PaletteEntry> {
    kinds(catalog).map(|k| k.entry()).collect()
}

/// One palette entry before it is built: what an editor filters by kind first (a catalog of
/// 100,000 events builds only the entries it shows).
#[derive(Clone, Copy, Debug)]
pub enum PaletteKind<'a> {
    Builtin(&'static NodeKind),
    Event(&'a EventDescriptor),
    Game(&'a GameNode),
}

impl PaletteKind<'_> {
    /// The entry's `kind` ([`PaletteEntry::kind`]).
    pub fn kind(&self) -> std::borrow::Cow<'static, str> {
        match self {
            PaletteKind::Builtin(k) => k.kind.into(),
            PaletteKind::Event(d) => format!("event {}", d.id).into(),
            PaletteKind::Game(n) => n.kind.clone().into(),
        }
    }
    pub fn entry(&self) -> PaletteEntry {
        match self {
            PaletteKind::Builtin(k) => builtin_entry(k),
            PaletteKind::Event(d) => event_entry(d),
            PaletteKind::Game(n) => game_entry(n),
        }
    }
}

/// The palette's entries unbuilt, in [`build`]'s order (the one list both read).
pub fn kinds(catalog: &Catalog) -> impl Iterator<Item = PaletteKind<'_>> {
    BUILTINS
        .iter()
        .map(PaletteKind::Builtin)
        .chain(catalog.game_nodes().into_iter().map(PaletteKind::Game))
        .chain(catalog.events().into_iter().map(PaletteKind::Event))
}

/// What changed in the palette, by kind (each sorted).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PaletteDelta {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changed: Vec<String>,
}

impl PaletteDelta {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

/// The palette delta of a catalog delta: a changed event is a changed palette entry only when
/// what the palette shows (name, category, pins) differs.
pub fn delta(d: &Delta) -> PaletteDelta {
    delta_with(d, None)
}

/// [`delta`], with the game node kinds that changed sorted into added, removed and changed by
/// their status in `after` (the catalog after the refresh).
pub fn delta_with(d: &Delta, after: Option<&Catalog>) -> PaletteDelta {
    let kind = |id: &str| format!("event {id}");
    let mut out = delta_events(d, &kind);
    if let Some(c) = after {
        for (k, was) in &d.game {
            let now = matches!(c.game_status(k), crate::catalog::GameStatus::Published(_));
            match (was, now) {
                (false, true) => out.added.push(k.clone()),
                (true, true) => out.changed.push(k.clone()),
                (true, false) => out.removed.push(k.clone()),
                (false, false) => {}
            }
        }
        out.added.sort();
        out.changed.sort();
        out.removed.sort();
    }
    out
}

fn delta_events(d: &Delta, kind: &dyn Fn(&str) -> String) -> PaletteDelta {
    PaletteDelta {
        added: d.added.iter().map(|e| kind(&e.id)).collect(),
        removed: d.removed.iter().map(|id| kind(id)).collect(),
        changed: d
            .changed
            .iter()
            .filter(|(a, b)| event_entry(a) != event_entry(b))
            .map(|(_, b)| kind(&b.id))
            .collect(),
    }
}
