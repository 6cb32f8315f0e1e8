//! An independent reference for glTF animation: decodes channels with the `gltf` crate's own
//! readers (not Sinew's accessor code) and evaluates the glTF 2.0 interpolation rules
//! (LINEAR lerp / shortest-path slerp, STEP, CUBICSPLINE Hermite, rotations normalized) in
//! `f64`. Tests compare Sinew's samplers on the imported clips against it.
#![allow(dead_code)]

use base64::Engine as _;
use gltf::animation::Interpolation;
use gltf::animation::util::ReadOutputs;
use std::collections::BTreeMap;

/// What a channel animates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum RefPath {
    Translation,
    Rotation,
    Scale,
    /// Morph weight `j`.
    Weight(usize),
}

/// One channel: node, path, interpolation, key times and per-key values (cubic: in, value,
/// out per key).
#[derive(Clone, Debug)]
pub struct RefChannel {
    pub node: usize,
    pub node_name: String,
    pub path: RefPath,
    pub interp: Interpolation,
    pub times: Vec<f64>,
    pub values: Vec<Vec<f64>>,
}

/// One animation.
#[derive(Clone, Debug)]
pub struct RefClip {
    pub name: Option<String>,
    /// The earliest key time (the importer shifts clips to start there).
    pub start: f64,
    pub channels: Vec<RefChannel>,
}

/// Decodes every animation of a model (`externals`: URI → bytes).
pub fn clips(bytes: &[u8], externals: &BTreeMap<String, Vec<u8>>) -> Vec<RefClip> {
    let g = gltf::Gltf::from_slice(bytes).expect("reference parses");
    let buffers: Vec<Vec<u8>> = g
        .buffers()
        .map(|b| match b.source() {
            gltf::buffer::Source::Bin => g.blob.clone().expect("blob"),
            gltf::buffer::Source::Uri(u) => match u.split_once(";base64,") {
                Some((_, data)) => base64::engine::general_purpose::STANDARD
                    .decode(data)
                    .expect("base64"),
                None => externals
                    .get(&u.replace("%20", " "))
                    .cloned()
                    .expect("external buffer"),
            },
        })
        .collect();
    let mut out = Vec::new();
    for anim in g.animations() {
        let mut channels = Vec::new();
        for ch in anim.channels() {
            let node = ch.target().node();
            let reader = ch.reader(|b| Some(&buffers[b.index()][..]));
            let times: Vec<f64> = reader
                .read_inputs()
                .expect("inputs")
                .map(f64::from)
                .collect();
            let interp = ch.sampler().interpolation();
            let node_name = node
                .name()
                .map_or_else(|| format!("GltfNode{}", node.index()), str::to_string);
            let base = |path, values: Vec<Vec<f64>>| RefChannel {
                node: node.index(),
                node_name: node_name.clone(),
                path,
                interp,
                times: times.clone(),
                values,
            };
            match reader.read_outputs().expect("outputs") {
                ReadOutputs::Translations(it) => channels.push(base(
                    RefPath::Translation,
                    it.map(|v| v.iter().map(|&x| f64::from(x)).collect())
                        .collect(),
                )),
                ReadOutputs::Scales(it) => channels.push(base(
                    RefPath::Scale,
                    it.map(|v| v.iter().map(|&x| f64::from(x)).collect())
                        .collect(),
                )),
                ReadOutputs::Rotations(r) => channels.push(base(
                    RefPath::Rotation,
                    r.into_f32()
                        .map(|v| v.iter().map(|&x| f64::from(x)).collect())
                        .collect(),
                )),
                ReadOutputs::MorphTargetWeights(w) => {
                    let all: Vec<f64> = w.into_f32().map(f64::from).collect();
                    let per = if interp == Interpolation::CubicSpline {
                        3
                    } else {
                        1
                    };
                    let k = all.len() / (times.len() * per);
                    for j in 0..k {
                        let mut vals = Vec::new();
                        for key in 0..times.len() {
                            for part in 0..per {
                                vals.push(vec![all[(key * per + part) * k + j]]);
                            }
                        }
                        channels.push(base(RefPath::Weight(j), vals));
                    }
                }
            }
        }
        let start = channels
            .iter()
            .filter_map(|c| c.times.first().copied())
            .fold(f64::INFINITY, f64::min);
        out.push(RefClip {
            name: anim.name().map(str::to_string),
            start: if start.is_finite() {
                start.max(0.0)
            } else {
                0.0
            },
            channels,
        });
    }
    out
}

fn normalize(v: Vec<f64>) -> Vec<f64> {
    let l = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    v.into_iter().map(|x| x / l).collect()
}

fn slerp(a: &[f64], b: &[f64], s: f64) -> Vec<f64> {
    let a = normalize(a.to_vec());
    let mut b = normalize(b.to_vec());
    let mut d: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
    if d < 0.0 {
        b = b.iter().map(|x| -x).collect();
        d = -d;
    }
    if d > 1.0 - 1e-12 {
        return normalize(a.iter().zip(&b).map(|(x, y)| x + (y - x) * s).collect());
    }
    let th = d.min(1.0).acos();
    let (wa, wb) = (((1.0 - s) * th).sin() / th.sin(), (s * th).sin() / th.sin());
    a.iter().zip(&b).map(|(x, y)| wa * x + wb * y).collect()
}

impl RefChannel {
    /// The glTF value at key-file time `t` (clamped to the keys).
    pub fn sample(&self, t: f64) -> Vec<f64> {
        let cubic = self.interp == Interpolation::CubicSpline;
        let val = |k: usize| -> Vec<f64> {
            if cubic {
                self.values[3 * k + 1].clone()
            } else {
                self.values[k].clone()
            }
        };
        let n = self.times.len();
        let rot = self.path == RefPath::Rotation;
        let fix = |v: Vec<f64>| if rot { normalize(v) } else { v };
        if t <= self.times[0] {
            return fix(val(0));
        }
        if t >= self.times[n - 1] {
            return fix(val(n - 1));
        }
        let k = self.times.partition_point(|&x| x <= t) - 1;
        let (t0, t1) = (self.times[k], self.times[k + 1]);
        let s = (t - t0) / (t1 - t0);
        match self.interp {
            Interpolation::Step => fix(val(k)),
            Interpolation::Linear if rot => slerp(&val(k), &val(k + 1), s),
            Interpolation::Linear => val(k)
                .iter()
                .zip(val(k + 1))
                .map(|(a, b)| a + (b - a) * s)
                .collect(),
            Interpolation::CubicSpline => {
                let td = t1 - t0;
                let (p0, b0) = (&self.values[3 * k + 1], &self.values[3 * k + 2]);
                let (a1, p1) = (&self.values[3 * (k + 1)], &self.values[3 * (k + 1) + 1]);
                let (s2, s3) = (s * s, s * s * s);
                let v = (0..p0.len())
                    .map(|i| {
                        (2.0 * s3 - 3.0 * s2 + 1.0) * p0[i]
                            + (s3 - 2.0 * s2 + s) * td * b0[i]
                            + (-2.0 * s3 + 3.0 * s2) * p1[i]
                            + (s3 - s2) * td * a1[i]
                    })
                    .collect();
                fix(v)
            }
        }
    }
}
