//! The node palette: every built-in kind from [`crate::nodes`] plus one event node per
//! published catalog event, and palette deltas derived from catalog deltas.
//!
//! Quarantined identities never appear: the palette reads only `Catalog::events()`.

use crate::catalog::{Catalog, Delta, EventDescriptor};
use crate::nodes::{BUILTINS, NodeKind, Pin, PinSpec, PinType, event_context_pins};
use serde::Serialize;

/// One typed pin as an editor shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PalettePin {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: PinSpec,
}

/// One node an editor can offer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PaletteEntry {
    pub kind: String,
    pub name: String,
    pub category: String,
    pub inputs: Vec<PalettePin>,
    pub outputs: Vec<PalettePin>,
}

fn pins(pins: &[Pin]) -> Vec<PalettePin> {
    pins.iter()
        .map(|p| PalettePin {
            name: p.name.to_string(),
            ty: p.ty,
        })
        .collect()
}

/// The palette form of a built-in kind (`flow.sequence` shows its default count of outputs).
pub fn builtin_entry(k: &NodeKind) -> PaletteEntry {
    let mut outputs = pins(k.outputs);
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
        inputs: pins(k.inputs),
        outputs,
    }
}

/// The event node of one published notify or window event (a window's node has `begin` and
/// `end` exec outputs and a `completed` pin).
pub fn event_entry(d: &EventDescriptor) -> PaletteEntry {
    let mut outputs = pins(event_context_pins(d.kind.is_window()));
    outputs.extend(d.fields.iter().map(|(name, ty)| PalettePin {
        name: name.clone(),
        ty: PinSpec::Fixed(PinType::Data(*ty)),
    }));
    PaletteEntry {
        kind: format!("event {}", d.id),
        name: d.name.clone(),
        category: format!("Events/Animation/{}", d.sequence_name),
        inputs: Vec::new(),
        outputs,
    }
}

/// The whole palette: built-ins in table order, then events sorted by identity.
pub fn build(catalog: &Catalog) -> Vec<PaletteEntry> {
    BUILTINS
        .iter()
        .map(builtin_entry)
        .chain(catalog.events().into_iter().map(event_entry))
        .collect()
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
    let kind = |id: &str| format!("event {id}");
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
