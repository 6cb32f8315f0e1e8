//! The `.animseq` asset: data model, loading with validation (versions 1–4), lowest-version
//! writing, lossless migration of a file's own text, curve/track sampling and root-motion
//! extraction. No I/O: callers hand in text or bytes and get values and diagnostics back (see
//! `docs/animseq.md`).

pub mod clip_json;
pub(crate) mod edit;
mod load;
mod migrate;
mod sample;
pub(crate) use sample::{wrap_angle, yaw_of};
mod write;

pub use edit::{
    ClipEdit, EditError, Edited, MAX_EDITS, MarkerPatch, apply_edits, load_bytes_recalled,
    recalled_skeleton, remember_load, remember_root,
};
pub use load::{Loaded, MAX_WINDOWS, SeqSpans, check_root_motion_bone, load, load_bytes};
pub use migrate::{MigrateError, Migration, migrate};
pub use write::{min_format, to_ron};
pub(crate) use write::{push_f32, quote};

/// The newest format version this reader knows.
pub const CURRENT_FORMAT: u32 = 4;

pub use crate::diag::codes::animseq::*;

/// One animation sequence: a clip plus the channels gameplay binds to.
#[derive(Clone, Debug, PartialEq)]
pub struct AnimSeq {
    /// Stable sequence ID.
    pub id: String,
    /// Display name (free to change).
    pub name: String,
    /// Seconds, finite, > 0.
    pub duration: f64,
    /// Optional rest-pose file, relative to the `.animseq` file.
    pub skeleton: Option<String>,
    /// Bone tracks.
    pub tracks: Vec<Track>,
    /// Notifies in authored order.
    pub notifies: Vec<Notify>,
    /// Windows in authored order (format 4); their IDs share one namespace with notify IDs.
    pub windows: Vec<Window>,
    /// Sampled curves.
    pub curves: Vec<Curve>,
    /// Root-motion settings.
    pub root_motion: Option<RootMotion>,
}

/// Keys of one bone; each list is strictly increasing in time.
#[derive(Clone, Debug, PartialEq)]
pub struct Track {
    /// The bone these keys animate (unique within a sequence).
    pub bone: String,
    /// `(time, (x, y, z))` translation keys.
    pub translation: Vec<(f64, [f32; 3])>,
    /// `(time, (x, y, z, w))` rotation keys (quaternions, normalized when sampled).
    pub rotation: Vec<(f64, [f32; 4])>,
    /// `(time, (x, y, z))` scale keys.
    pub scale: Vec<(f64, [f32; 3])>,
}

/// A marker in clip time that fires an event `animseq::<seq>.<id>` when crossed.
#[derive(Clone, Debug, PartialEq)]
pub struct Notify {
    /// Stable notify ID, unique within its sequence.
    pub id: String,
    /// Display name (free to change).
    pub name: String,
    /// Clip time, `0 ≤ time ≤ duration`.
    pub time: f64,
    /// Who receives the event.
    pub target: Target,
    /// Typed payload fields in authored order.
    pub fields: Vec<(String, FieldValue)>,
    /// When the runtime lets it fire (format 4; default: always).
    pub gating: Gating,
}

/// A notify with a duration: it begins at `begin` and ends at `end` (clip times,
/// `0 ≤ begin < end ≤ duration`); the event `animseq::<seq>.<id>` has begin and end edges
/// (see `docs/windows.md`).
#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    /// Stable window ID, unique among the sequence's notifies and windows.
    pub id: String,
    /// Display name (free to change).
    pub name: String,
    /// Clip time of the begin edge, `0 ≤ begin < end`.
    pub begin: f64,
    /// Clip time of the end edge, `begin < end ≤ duration`.
    pub end: f64,
    /// Who receives the edges.
    pub target: Target,
    /// Typed payload fields in authored order (carried by both edges).
    pub fields: Vec<(String, FieldValue)>,
    /// When the runtime lets an occurrence begin (format 4; default: always).
    pub gating: Gating,
}

/// A marker's gating: the runtime fires a point notify or opens a window only when the clip's
/// effective weight is `> 0` and `≥ weight_threshold`, and then with probability `chance`
/// (both in `[0, 1]`). [`Gating::ALWAYS`] (`0.0`, `1.0`) is the default and needs no format 4.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gating {
    /// Smallest effective clip weight that fires, in `[0, 1]`.
    pub weight_threshold: f64,
    /// Probability of firing per occurrence, in `[0, 1]`.
    pub chance: f64,
}

impl Gating {
    /// The default: any weight above zero, every occurrence.
    pub const ALWAYS: Gating = Gating {
        weight_threshold: 0.0,
        chance: 1.0,
    };

    /// True when both values are at their defaults (nothing to write, no format 4 needed).
    pub fn is_default(&self) -> bool {
        self.weight_threshold == 0.0 && self.chance == 1.0
    }
}

impl Default for Gating {
    fn default() -> Gating {
        Gating::ALWAYS
    }
}

/// Who receives a notify.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Target {
    /// The entity playing the sequence.
    #[default]
    Owner,
    /// The entity stored in this variable of the owner's graph instance.
    Variable(String),
}

/// A typed notify field value.
#[derive(Clone, Debug, PartialEq)]
pub enum FieldValue {
    /// `Bool(true)`.
    Bool(bool),
    /// `Int(3)`, an i64.
    Int(i64),
    /// `Float(0.8)`, a finite f64.
    Float(f64),
    /// `String("grass")`.
    String(String),
    /// `Vec3((x, y, z))`, three finite f32.
    Vec3([f32; 3]),
}

impl FieldValue {
    /// The graph type: `bool`, `int`, `float`, `string` or `vec3`.
    pub fn ty(&self) -> crate::types::Type {
        use crate::types::Type;
        match self {
            FieldValue::Bool(_) => Type::Bool,
            FieldValue::Int(_) => Type::Int,
            FieldValue::Float(_) => Type::Float,
            FieldValue::String(_) => Type::Str,
            FieldValue::Vec3(_) => Type::Vec3,
        }
    }
}

/// A named, sampled channel (never turned into events).
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    /// Name gameplay samples it by (unique within a sequence).
    pub name: String,
    /// How values move between keys.
    pub interpolation: Interpolation,
    /// Strictly increasing times in `[0, duration]`, one value type.
    pub keys: Vec<(f64, CurveValue)>,
}

/// How a curve moves between keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// Holds the last key at or before `t`.
    Step,
    /// Interpolates linearly.
    Linear,
}

/// A curve key value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CurveValue {
    /// A scalar key.
    Float(f64),
    /// A vector key.
    Vec3([f32; 3]),
}

/// Which parts of the root bone's motion are extracted.
#[derive(Clone, Debug, PartialEq)]
pub struct RootMotion {
    /// The root bone whose motion is extracted.
    pub bone: String,
    /// Which translation axes are extracted.
    pub translation: Axes,
    /// Extract rotation about +Y.
    pub yaw: bool,
}

/// A per-axis selection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Axes {
    /// Extract X.
    pub x: bool,
    /// Extract Y.
    pub y: bool,
    /// Extract Z.
    pub z: bool,
}

/// Whether `s` is a valid sequence, notify or window ID: `[A-Za-z0-9][A-Za-z0-9_-]{0,63}`.
pub fn is_valid_id(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 64
        && b[0].is_ascii_alphanumeric()
        && b.iter()
            .all(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
}

/// Whether `s` is an identifier `[A-Za-z_][A-Za-z0-9_]*` (field and variable names).
pub fn is_identifier(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_pattern() {
        assert!(is_valid_id("5c1e8d0a-3f2b-4a51-9c67-2b8e4d7f1a10"));
        assert!(is_valid_id("a"));
        assert!(is_valid_id(&"a".repeat(64)));
        assert!(!is_valid_id(&"a".repeat(65)));
        assert!(!is_valid_id("-a"));
        assert!(!is_valid_id("_a"));
        assert!(!is_valid_id(""));
        assert!(!is_valid_id("a.b"));
        assert!(!is_valid_id("é"));
    }

    #[test]
    fn identifiers() {
        assert!(is_identifier("surface_2"));
        assert!(is_identifier("_x"));
        assert!(!is_identifier("2x"));
        assert!(!is_identifier("a-b"));
        assert!(!is_identifier(""));
    }
}
