//! A loaded clip as the animator plays it: the sequence, its crossing index and, per notify,
//! its interned identity and target.

use std::sync::Arc;

use crate::animseq::{AnimSeq, FieldValue, Gating, Target};
use crate::crossing::{IndexError, NotifyIndex};
use crate::runtime::hub::{EventHub, EventId, HubError, Value};
use crate::runtime::trace::NotifyFields;

/// One notify or window of a clip, resolved for publishing.
#[derive(Debug, Clone)]
pub(crate) struct ClipNotify {
    pub(crate) id: EventId,
    pub(crate) identity: Arc<str>,
    /// The notify's (or window's) ID within its sequence (`footstep_l`).
    pub(crate) local: Arc<str>,
    /// The catalog's display name, `<sequence name> / <notify name>`.
    pub(crate) name: Arc<str>,
    pub(crate) target: Target,
    /// Weight threshold and chance.
    pub(crate) gating: Gating,
    /// A stable hash of the identity (the chance draw's key, with the entity and cycle).
    pub(crate) key: u64,
    /// A window's `(begin, end)` clip times; `None` for a point notify.
    pub(crate) span: Option<(f64, f64)>,
    /// The typed fields by name, in authored order (for the trace).
    pub(crate) fields: NotifyFields,
}

/// A loaded clip: the sequence, its crossing index and its interned notify and window
/// identities.
#[derive(Debug)]
pub struct Clip {
    pub(super) seq: Arc<AnimSeq>,
    pub(super) index: NotifyIndex,
    pub(crate) notifies: Vec<ClipNotify>,
    /// The sequence's windows, in authored order (a crossing's `notify` for an edge).
    pub(crate) windows: Vec<ClipNotify>,
}

/// Why a clip could not be prepared.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClipError {
    /// The sequence's notifies cannot be indexed.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// Interning an identity failed.
    #[error(transparent)]
    Hub(#[from] HubError),
}

/// A notify field as a hub value.
pub fn field_value(v: &FieldValue) -> Value {
    match v {
        FieldValue::Bool(b) => Value::Bool(*b),
        FieldValue::Int(i) => Value::Int(*i),
        FieldValue::Float(f) => Value::Float(*f),
        FieldValue::String(s) => Value::Str(Arc::from(s.as_str())),
        FieldValue::Vec3(v) => Value::Vec3(*v),
    }
}

impl Clip {
    /// Prepares `seq` for playback: builds its crossing index, interns each notify's identity
    /// `animseq::<seq id>.<notify id>` and registers its typed fields with the hub (once per
    /// identity; the catalog guarantees one schema per identity).
    pub fn new(seq: Arc<AnimSeq>, hub: &mut EventHub) -> Result<Clip, ClipError> {
        let times: Vec<f64> = seq.notifies.iter().map(|n| n.time).collect();
        let spans: Vec<(f64, f64)> = seq.windows.iter().map(|w| (w.begin, w.end)).collect();
        let index = NotifyIndex::with_windows(seq.duration, &times, &spans)?;
        let mut resolve = |id: &str,
                           name: &str,
                           target: &Target,
                           fields: &[(String, FieldValue)],
                           gating: Gating,
                           span: Option<(f64, f64)>|
         -> Result<ClipNotify, ClipError> {
            let identity: Arc<str> = crate::catalog::identity(&seq.id, id).into();
            let eid = hub.intern(&identity)?;
            hub.set_notify_fields(eid, fields.iter().map(|(_, v)| field_value(v)).collect());
            let named: NotifyFields = fields
                .iter()
                .map(|(n, v)| (Arc::from(n.as_str()), field_value(v)))
                .collect();
            Ok(ClipNotify {
                fields: named,
                id: eid,
                local: Arc::from(id),
                name: Arc::from(format!("{} / {name}", seq.name)),
                key: stable_hash(identity.as_bytes()),
                identity,
                target: target.clone(),
                gating,
                span,
            })
        };
        let notifies = seq
            .notifies
            .iter()
            .map(|n| resolve(&n.id, &n.name, &n.target, &n.fields, n.gating, None))
            .collect::<Result<Vec<_>, _>>()?;
        let windows = seq
            .windows
            .iter()
            .map(|w| {
                resolve(
                    &w.id,
                    &w.name,
                    &w.target,
                    &w.fields,
                    w.gating,
                    Some((w.begin, w.end)),
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Clip {
            seq,
            index,
            notifies,
            windows,
        })
    }

    /// The sequence.
    pub fn seq(&self) -> &Arc<AnimSeq> {
        &self.seq
    }
}

/// FNV-1a over `bytes`, finished by splitmix64: a stable 64-bit hash (never `std`'s, whose
/// values may change between releases), for the chance draws.
pub(crate) fn stable_hash(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    mix(h)
}

/// The splitmix64 finalizer.
pub(crate) fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Whether an occurrence with `chance` fires: `chance ≥ 1` always, `chance ≤ 0` never, else a
/// deterministic draw in `[0, 1)` from (animator key, marker key, cycle) below `chance`.
pub(crate) fn draw(chance: f64, animator: u64, marker: u64, cycle: i64) -> bool {
    if chance >= 1.0 {
        return true;
    }
    if chance.is_nan() || chance <= 0.0 {
        return false;
    }
    let z = mix(animator ^ mix(marker ^ mix(cycle as u64)));
    ((z >> 11) as f64 / (1u64 << 53) as f64) < chance
}
