//! The generated benchmark model: 100 joints (a tree under one root), 20 clips of 2 s keyed
//! at 60 keys/s (121 keys per channel), translation, rotation and scale on every joint, one
//! shared input accessor per clip — the shape a Blender export with baked actions has.
#![allow(dead_code)]

use super::gltf_gen::{AccType, Gen, Path};

/// Joints, clips, keys per second and clip length of [`big_model`].
pub const JOINTS: usize = 100;
pub const CLIPS: usize = 20;
pub const KEYS_PER_SECOND: usize = 60;
pub const SECONDS: usize = 2;

/// The model as a `.glb`.
pub fn big_model() -> Vec<u8> {
    let mut g = Gen::new();
    let root = g.node(Some("Armature"), None);
    let mut joints: Vec<usize> = Vec::with_capacity(JOINTS);
    for i in 0..JOINTS {
        let parent = if i == 0 { root } else { joints[(i - 1) / 3] };
        let n = g.node(Some(&format!("bone_{i:03}")), Some(parent));
        g.trs(n, Some([0.0, 0.1, 0.0]), None, None);
        joints.push(n);
    }
    g.skin(Some("rig"), &joints);
    let keys = KEYS_PER_SECOND * SECONDS + 1;
    for c in 0..CLIPS {
        let a = g.animation(Some(&format!("Clip{c:02}")));
        let times: Vec<f32> = (0..keys)
            .map(|k| k as f32 / KEYS_PER_SECOND as f32)
            .collect();
        let input = g.floats(&times, AccType::Scalar);
        for (j, &node) in joints.iter().enumerate() {
            let phase = (c * JOINTS + j) as f32 * 0.37;
            let mut t = Vec::with_capacity(keys * 3);
            let mut r = Vec::with_capacity(keys * 4);
            let mut s = Vec::with_capacity(keys * 3);
            for &x in &times {
                let w = x * std::f32::consts::TAU + phase;
                t.extend_from_slice(&[0.01 * w.sin(), 0.1 + 0.01 * w.cos(), 0.0]);
                let half = 0.25 * w.sin();
                let (axis_x, axis_z) = (phase.cos(), phase.sin());
                r.extend_from_slice(&[axis_x * half.sin(), 0.0, axis_z * half.sin(), half.cos()]);
                s.extend_from_slice(&[1.0, 1.0, 1.0]);
            }
            let out = g.floats(&t, AccType::Vec3);
            g.channel_acc(a, node, Path::Translation, None, input, out);
            let out = g.floats(&r, AccType::Vec4);
            g.channel_acc(a, node, Path::Rotation, None, input, out);
            let out = g.floats(&s, AccType::Vec3);
            g.channel_acc(a, node, Path::Scale, None, input, out);
        }
    }
    g.glb()
}
