//! The generated manifest (`import.md`, format 1): identities, signatures, clips and import
//! diagnostics of one model. Written by hand in a fixed layout (deterministic, one clip per
//! line) and read back through `ron_span` (`manifest_read.rs`); JSON for `sinew import --format
//! json`.

use crate::animseq::quote;
use crate::diag::{Diagnostic, Severity};
use serde_json::{Value, json};
use std::fmt::Write as _;

/// The manifest format this code writes and reads.
pub const FORMAT: u32 = 1;

/// One model's manifest.
#[derive(Clone, Debug, PartialEq)]
pub struct AnimManifest {
    /// Format version ([`FORMAT`]).
    pub format: u32,
    /// The model UUID (lowercase, hyphenated).
    pub model: String,
    /// Source path relative to the assets folder, `/`-separated: a hint, not an identity.
    pub source: String,
    /// `sha256:<hex>` of the source file's bytes.
    pub fingerprint: String,
    /// False when a blocking diagnostic stopped the import (then there are no clips).
    pub runtime_supported: bool,
    /// One entry per animated skin.
    pub skeletons: Vec<SkeletonEntry>,
    /// One entry per clip.
    pub clips: Vec<ClipEntry>,
    /// The import's diagnostics.
    pub diagnostics: Vec<ManifestDiagnostic>,
}

/// A generated skeleton.
#[derive(Clone, Debug, PartialEq)]
pub struct SkeletonEntry {
    /// Skeleton name.
    pub name: String,
    /// `.skel` file in the manifest's folder.
    pub file: String,
    /// Exact signature (lowercase hex SHA-256).
    pub signature: String,
    /// Joint display paths in the skin's `joints` order.
    pub joints: Vec<String>,
}

/// A generated clip.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipEntry {
    /// Sub-asset ID: UUID v5 of `clip/<label>` in the model UUID's namespace.
    pub id: String,
    /// The glTF animation's name, or `Animation{index}`.
    pub label: String,
    /// The glTF animation index.
    pub index: usize,
    /// Seconds.
    pub duration: f64,
    /// Signature of the skeleton its channels drive; empty when it drives none (morph only).
    pub skeleton: String,
    /// `.animseq` file in the manifest's folder.
    pub file: String,
    /// Notifies imported for the clip.
    pub markers: usize,
}

/// A diagnostic as the manifest keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestDiagnostic {
    /// Severity.
    pub severity: Severity,
    /// Stable code.
    pub code: String,
    /// Message.
    pub message: String,
}

impl From<&Diagnostic> for ManifestDiagnostic {
    fn from(d: &Diagnostic) -> ManifestDiagnostic {
        ManifestDiagnostic {
            severity: d.severity,
            code: d.code.to_string(),
            message: d.message.clone(),
        }
    }
}

fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Error => "Error",
        Severity::Warning => "Warning",
        Severity::Note => "Note",
    }
}

impl AnimManifest {
    /// The manifest as RON, in a fixed layout.
    pub fn to_ron(&self) -> String {
        let mut o = String::from("AnimManifest(\n");
        let _ = writeln!(o, "    format: {},", self.format);
        let _ = writeln!(o, "    model: {},", quote(&self.model));
        let _ = writeln!(o, "    source: {},", quote(&self.source));
        let _ = writeln!(o, "    fingerprint: {},", quote(&self.fingerprint));
        let _ = writeln!(o, "    runtime_supported: {},", self.runtime_supported);
        if self.skeletons.is_empty() {
            o.push_str("    skeletons: [],\n");
        } else {
            o.push_str("    skeletons: [\n");
            for s in &self.skeletons {
                let _ = writeln!(
                    o,
                    "        (\n            name: {},\n            file: {},\n            signature: {},",
                    quote(&s.name),
                    quote(&s.file),
                    quote(&s.signature),
                );
                o.push_str("            joints: [\n");
                for j in &s.joints {
                    let _ = writeln!(o, "                {},", quote(j));
                }
                o.push_str("            ],\n        ),\n");
            }
            o.push_str("    ],\n");
        }
        if self.clips.is_empty() {
            o.push_str("    clips: [],\n");
        } else {
            o.push_str("    clips: [\n");
            for c in &self.clips {
                let _ = writeln!(
                    o,
                    "        (id: {}, label: {}, index: {}, duration: {:?}, skeleton: {}, file: {}, markers: {}),",
                    quote(&c.id),
                    quote(&c.label),
                    c.index,
                    c.duration,
                    quote(&c.skeleton),
                    quote(&c.file),
                    c.markers
                );
            }
            o.push_str("    ],\n");
        }
        if self.diagnostics.is_empty() {
            o.push_str("    diagnostics: [],\n");
        } else {
            o.push_str("    diagnostics: [\n");
            for d in &self.diagnostics {
                let _ = writeln!(
                    o,
                    "        (severity: {}, code: {}, message: {}),",
                    severity_name(d.severity),
                    quote(&d.code),
                    quote(&d.message)
                );
            }
            o.push_str("    ],\n");
        }
        o.push_str(")\n");
        o
    }

    /// Reads a manifest through `ron_span` (`manifest_read.rs`): unknown, duplicate and missing
    /// fields and newer formats refused by name, the first problem at its line and column.
    pub fn from_ron(text: &str) -> Result<AnimManifest, String> {
        super::manifest_read::from_ron(text)
    }

    /// The manifest as JSON (same field names), diagnostics in `cli.md`'s shape, plus `out`.
    pub fn to_json(&self, diagnostics: &[Diagnostic], out: &str) -> Value {
        json!({
            "format": self.format,
            "model": self.model,
            "source": self.source,
            "fingerprint": self.fingerprint,
            "runtime_supported": self.runtime_supported,
            "skeletons": self.skeletons.iter().map(|s| json!({
                "name": s.name, "file": s.file, "signature": s.signature, "joints": s.joints,
            })).collect::<Vec<_>>(),
            "clips": self.clips.iter().map(|c| json!({
                "id": c.id, "label": c.label, "index": c.index, "duration": c.duration,
                "skeleton": c.skeleton, "file": c.file, "markers": c.markers,
            })).collect::<Vec<_>>(),
            "diagnostics": crate::diag::render::to_json(diagnostics),
            "out": out,
        })
    }
}
