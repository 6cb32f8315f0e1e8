//! Shared test helpers: fixture access and the `ron` crate as an independent reader.
#![allow(dead_code)]

use serde::Deserialize;
use sinew::animseq::{
    AnimSeq, Axes, Curve, CurveValue, FieldValue, Gating, Interpolation, Notify, RootMotion,
    Target, Track, Window,
};
use std::collections::BTreeSet;

/// `(display name, bytes)` of `tests/fixtures/animseq/<dir>/<name>.animseq`.
pub fn load_fixture(dir: &str, name: &str) -> (String, Vec<u8>) {
    let rel = format!("tests/fixtures/animseq/{dir}/{name}.animseq");
    let path = format!("{}/{rel}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    (rel, bytes)
}

/// The fixture names (without extension) in one folder.
pub fn fixture_names(dir: &str) -> BTreeSet<String> {
    let path = format!(
        "{}/tests/fixtures/animseq/{dir}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_dir(&path)
        .expect("fixture dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "animseq"))
        .map(|p| p.file_stem().expect("stem").to_string_lossy().into_owned())
        .collect()
}

// A serde mirror of the format, read by the `ron` crate: an independent second reader.

#[derive(Deserialize)]
#[serde(rename = "AnimSeq", deny_unknown_fields)]
struct SSeq {
    #[serde(default)]
    #[allow(dead_code)]
    format: u32,
    id: String,
    name: String,
    duration: f64,
    #[serde(default)]
    skeleton: Option<String>,
    tracks: Vec<STrack>,
    #[serde(default)]
    notifies: Vec<SNotify>,
    #[serde(default)]
    windows: Vec<SWindow>,
    #[serde(default)]
    curves: Vec<SCurve>,
    #[serde(default)]
    root_motion: Option<SRootMotion>,
}

#[derive(Deserialize)]
#[serde(rename = "Track", deny_unknown_fields)]
struct STrack {
    bone: String,
    translation: Vec<(f64, [f32; 3])>,
    rotation: Vec<(f64, [f32; 4])>,
    scale: Vec<(f64, [f32; 3])>,
}

#[derive(Deserialize)]
#[serde(rename = "Notify", deny_unknown_fields)]
struct SNotify {
    id: String,
    name: String,
    time: f64,
    #[serde(default)]
    target: STarget,
    #[serde(default)]
    fields: Vec<(String, SField)>,
    #[serde(default)]
    weight_threshold: f64,
    #[serde(default = "one")]
    chance: f64,
}

fn one() -> f64 {
    1.0
}

#[derive(Deserialize)]
#[serde(rename = "Window", deny_unknown_fields)]
struct SWindow {
    id: String,
    name: String,
    begin: f64,
    end: f64,
    #[serde(default)]
    target: STarget,
    #[serde(default)]
    fields: Vec<(String, SField)>,
    #[serde(default)]
    weight_threshold: f64,
    #[serde(default = "one")]
    chance: f64,
}

fn target(t: STarget) -> Target {
    match t {
        STarget::Owner => Target::Owner,
        STarget::Variable(v) => Target::Variable(v),
    }
}

fn fields(f: Vec<(String, SField)>) -> Vec<(String, FieldValue)> {
    f.into_iter()
        .map(|(k, v)| {
            let v = match v {
                SField::Bool(b) => FieldValue::Bool(b),
                SField::Int(i) => FieldValue::Int(i),
                SField::Float(x) => FieldValue::Float(x),
                SField::String(s) => FieldValue::String(s),
                SField::Vec3(a) => FieldValue::Vec3(a),
            };
            (k, v)
        })
        .collect()
}

#[derive(Deserialize, Default)]
enum STarget {
    #[default]
    Owner,
    Variable(String),
}

#[derive(Deserialize)]
enum SField {
    Bool(bool),
    Int(i64),
    Float(f64),
    String(String),
    Vec3([f32; 3]),
}

#[derive(Deserialize)]
#[serde(rename = "Curve", deny_unknown_fields)]
struct SCurve {
    name: String,
    interpolation: SInterp,
    keys: Vec<(f64, SCurveValue)>,
}

#[derive(Deserialize)]
enum SInterp {
    Step,
    Linear,
}

#[derive(Deserialize)]
enum SCurveValue {
    Float(f64),
    Vec3([f32; 3]),
}

#[derive(Deserialize)]
#[serde(rename = "RootMotion", deny_unknown_fields)]
struct SRootMotion {
    bone: String,
    translation: SAxes,
    yaw: bool,
}

#[derive(Deserialize)]
#[serde(rename = "Axes", deny_unknown_fields)]
struct SAxes {
    x: bool,
    y: bool,
    z: bool,
}

/// Reads `text` with the `ron` crate into the mirror and converts it to an [`AnimSeq`].
pub fn ron_crate_reads(text: &str) -> Result<AnimSeq, String> {
    ron::from_str::<SSeq>(text)
        .map(from_serde)
        .map_err(|e| e.to_string())
}

fn from_serde(s: SSeq) -> AnimSeq {
    AnimSeq {
        id: s.id,
        name: s.name,
        duration: s.duration,
        skeleton: s.skeleton,
        tracks: s
            .tracks
            .into_iter()
            .map(|t| Track {
                bone: t.bone,
                translation: t.translation,
                rotation: t.rotation,
                scale: t.scale,
            })
            .collect(),
        notifies: s
            .notifies
            .into_iter()
            .map(|n| Notify {
                id: n.id,
                name: n.name,
                time: n.time,
                target: target(n.target),
                fields: fields(n.fields),
                gating: Gating {
                    weight_threshold: n.weight_threshold,
                    chance: n.chance,
                },
            })
            .collect(),
        windows: s
            .windows
            .into_iter()
            .map(|w| Window {
                id: w.id,
                name: w.name,
                begin: w.begin,
                end: w.end,
                target: target(w.target),
                fields: fields(w.fields),
                gating: Gating {
                    weight_threshold: w.weight_threshold,
                    chance: w.chance,
                },
            })
            .collect(),
        curves: s
            .curves
            .into_iter()
            .map(|c| Curve {
                name: c.name,
                interpolation: match c.interpolation {
                    SInterp::Step => Interpolation::Step,
                    SInterp::Linear => Interpolation::Linear,
                },
                keys: c
                    .keys
                    .into_iter()
                    .map(|(t, v)| {
                        let v = match v {
                            SCurveValue::Float(x) => CurveValue::Float(x),
                            SCurveValue::Vec3(a) => CurveValue::Vec3(a),
                        };
                        (t, v)
                    })
                    .collect(),
            })
            .collect(),
        root_motion: s.root_motion.map(|r| RootMotion {
            bone: r.bone,
            translation: Axes {
                x: r.translation.x,
                y: r.translation.y,
                z: r.translation.z,
            },
            yaw: r.yaw,
        }),
    }
}
