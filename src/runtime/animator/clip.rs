//! A loaded clip as the animator plays it: the sequence, its crossing index and, per notify,
//! its interned identity and target.

use std::sync::Arc;

use crate::animseq::{AnimSeq, FieldValue, Target};
use crate::crossing::{IndexError, NotifyIndex};
use crate::runtime::hub::{EventHub, EventId, HubError, Value};

/// One notify of a clip, resolved for publishing.
#[derive(Debug, Clone)]
pub(crate) struct ClipNotify {
    pub(crate) id: EventId,
    pub(crate) identity: Arc<str>,
    pub(crate) target: Target,
}

/// A loaded clip: the sequence, its crossing index and its interned notify identities.
#[derive(Debug)]
pub struct Clip {
    pub(super) seq: Arc<AnimSeq>,
    pub(super) index: NotifyIndex,
    pub(crate) notifies: Vec<ClipNotify>,
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
        let index = NotifyIndex::new(seq.duration, &times)?;
        let mut notifies = Vec::with_capacity(seq.notifies.len());
        for n in &seq.notifies {
            let identity: Arc<str> = crate::catalog::identity(&seq.id, &n.id).into();
            let id = hub.intern(&identity)?;
            hub.set_notify_fields(id, n.fields.iter().map(|(_, v)| field_value(v)).collect());
            notifies.push(ClipNotify {
                id,
                identity,
                target: n.target.clone(),
            });
        }
        Ok(Clip {
            seq,
            index,
            notifies,
        })
    }

    /// The sequence.
    pub fn seq(&self) -> &Arc<AnimSeq> {
        &self.seq
    }
}
