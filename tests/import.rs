//! Model import end to end through the library: real models (Fox.glb, SimpleSkin.gltf,
//! MorphStressTest.gltf) with manifest snapshots, and generated models (built with
//! `gltf-json`) for every interpolation, names, matrices, roots, sparse accessors, notifies
//! and corrupt files. One `check` helper imports, proves determinism and that every generated
//! file loads back through Sinew's own loaders; `reproduces` compares Sinew's samplers with an
//! independent glTF reference.

#[path = "support/big_model.rs"]
mod big_model;
#[path = "support/gltf_gen.rs"]
mod gltf_gen;
#[path = "support/gltf_reference.rs"]
mod gltf_reference;
#[path = "support/import_exercise.rs"]
mod import_exercise;

use gltf_gen::{AccType, Gen, Interp, Path as P, glb_bytes};
use gltf_reference::RefPath;
use sinew::anim::{ClipBinding, CompiledClip, Pose, Skeleton, load_skeleton};
use sinew::animseq::{self, AnimSeq, CurveValue, FieldValue, Target};
use sinew::diag::SourceFile;
use sinew::import::{self, AnimManifest, Identity, Imported, signature};
use std::collections::BTreeMap;
use uuid::Uuid;

const MODEL: Uuid = Uuid::from_u128(0x6f1c3c1e_2a57_4c62_9d3b_0c9f4f6b9e11);

fn model(name: &str) -> Vec<u8> {
    let p = format!(
        "{}/tests/fixtures/models/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

fn id() -> Identity {
    Identity {
        model: MODEL,
        source: "models/m".to_string(),
    }
}

/// Imports `bytes` as `name` and checks everything that must hold for any import: the same
/// result twice; blocked imports have no clips and an error; every `.animseq` loads without
/// diagnostics and rewrites to the same bytes; every `.skel` loads; each clip's tracks bind to
/// its skeleton; the manifest reads back equal and agrees with the clips.
fn check(name: &str, bytes: &[u8], externals: &BTreeMap<String, Vec<u8>>) -> Imported {
    let out = import::import(name, bytes, &id(), externals);
    // Clips convert in parallel batches (one clip per thread): one thread and four give the
    // same output as the default pool.
    for threads in [1, 4] {
        let again = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("thread pool")
            .install(|| import::import(name, bytes, &id(), externals));
        assert_eq!(
            out.manifest.to_ron(),
            again.manifest.to_ron(),
            "deterministic manifest ({threads} threads)"
        );
        assert_eq!(
            out.assets, again.assets,
            "deterministic assets ({threads} threads)"
        );
        assert_eq!(
            format!("{:?}", out.diagnostics),
            format!("{:?}", again.diagnostics),
            "deterministic diagnostics ({threads} threads)"
        );
    }
    let text = out.manifest.to_ron();
    assert_eq!(
        AnimManifest::from_ron(&text).as_ref(),
        Ok(&out.manifest),
        "manifest round trip:\n{text}"
    );
    let errors = out.diagnostics.iter().filter(|d| d.is_error()).count();
    assert_eq!(out.manifest.runtime_supported, errors == 0, "{text}");
    if !out.manifest.runtime_supported {
        assert!(
            out.assets.is_empty() && out.manifest.clips.is_empty(),
            "{text}"
        );
        return out;
    }
    let mut skels = BTreeMap::new();
    for a in out.assets.iter().filter(|a| a.file.ends_with(".skel")) {
        let l = load_skeleton(&SourceFile::new(a.file.as_str(), a.text()));
        assert!(l.diagnostics.is_empty(), "{}: {:?}", a.file, l.diagnostics);
        skels.insert(a.file.clone(), l.skeleton.expect("skeleton"));
    }
    for c in &out.manifest.clips {
        let seq = clip(&out, &c.label);
        assert_eq!(seq.id, c.id);
        assert_eq!(seq.duration, c.duration);
        assert_eq!(seq.notifies.len(), c.markers);
        if let Some(s) = &seq.skeleton {
            let skel = skels.get(s).unwrap_or_else(|| panic!("{s} not generated"));
            let (_, unbound) =
                ClipBinding::new(&CompiledClip::new(&seq), skel, &BTreeMap::new(), &c.file);
            // Only tracks of nodes outside the clip's skeleton (W0707 names them) are unbound.
            let outside: Vec<&str> = out
                .diagnostics
                .iter()
                .filter(|d| d.code == "W0707")
                .map(|d| d.message.as_str())
                .collect();
            for u in &unbound {
                let bone = u.message.split('`').nth(1).unwrap_or_default();
                assert!(
                    outside.iter().any(|m| m.contains(&format!("`{bone}`"))),
                    "{unbound:?}"
                );
            }
            let sig = &out
                .manifest
                .skeletons
                .iter()
                .find(|k| &k.file == s)
                .expect("entry")
                .signature;
            assert_eq!(&c.skeleton, sig);
        } else {
            assert_eq!(c.skeleton, "");
        }
    }
    out
}

/// The clip labelled `label`, loaded from its generated text (which must load cleanly and be
/// exactly what the writer writes).
fn clip(out: &Imported, label: &str) -> AnimSeq {
    let c = out
        .manifest
        .clips
        .iter()
        .find(|c| c.label == label)
        .unwrap_or_else(|| panic!("no clip {label}"));
    let a = out
        .assets
        .iter()
        .find(|a| a.file == c.file)
        .expect("clip file");
    let text = a.text();
    let l = animseq::load(&SourceFile::new(a.file.as_str(), text.as_str()));
    assert!(
        l.diagnostics.is_empty(),
        "{}: {:?}\n{}",
        a.file,
        l.diagnostics,
        text
    );
    let seq = l.seq.expect("loads");
    assert_eq!(animseq::to_ron(&seq), text, "canonical text");
    assert_eq!(
        a.content,
        import::Content::Clip(Box::new(seq.clone())),
        "reads back equal"
    );
    seq
}

fn skeleton(out: &Imported, file: &str) -> Skeleton {
    let a = out.assets.iter().find(|a| a.file == file).expect("skel");
    load_skeleton(&SourceFile::new(file, a.text()))
        .skeleton
        .expect("loads")
}

fn codes(out: &Imported) -> Vec<&str> {
    out.diagnostics.iter().map(|d| d.code).collect()
}

/// Sinew's pose (runtime sampler) of `seq` at `t`.
fn pose(seq: &AnimSeq, skel: &Skeleton, t: f64) -> Pose {
    let clip = CompiledClip::new(seq);
    let (b, _) = ClipBinding::new(&clip, skel, &BTreeMap::new(), "clip");
    let mut p = Pose::rest(skel);
    b.sample(&clip, t, &mut p);
    p
}

fn close(got: &[f64], want: &[f64], what: &str) {
    let (mut got, want) = (got.to_vec(), want.to_vec());
    if got.len() == 4 && got.iter().zip(&want).map(|(a, b)| a * b).sum::<f64>() < 0.0 {
        got = got.iter().map(|x| -x).collect();
    }
    for (g, w) in got.iter().zip(&want) {
        let tol = sinew::import::TOLERANCE + w.abs() * 2e-6;
        assert!((g - w).abs() <= tol, "{what}: got {got:?}, want {want:?}");
    }
}

/// Sinew's samplers (the runtime's nlerp and `animseq`'s slerp) reproduce every channel of
/// every clip within the import tolerance, at key midpoints and on a grid.
fn reproduces(out: &Imported, bytes: &[u8], externals: &BTreeMap<String, Vec<u8>>) -> usize {
    let refs = gltf_reference::clips(bytes, externals);
    let mut checked = 0;
    for c in &out.manifest.clips {
        let rc = &refs[c.index];
        let seq = clip(out, &c.label);
        let skel = seq.skeleton.as_ref().map(|s| skeleton(out, s));
        for ch in &rc.channels {
            let mut times: Vec<f64> = (0..=96).map(|i| c.duration * f64::from(i) / 96.0).collect();
            for w in ch.times.windows(2) {
                times.push((w[0] + w[1]) / 2.0 - rc.start);
                times.push(w[0] + (w[1] - w[0]) / 3.0 - rc.start);
            }
            for t in times {
                if ch.interp == gltf::animation::Interpolation::Step
                    && ch.times.iter().any(|k| (k - rc.start - t).abs() < 1e-5)
                {
                    continue; // the jump itself: time bases differ in the last ulp
                }
                let want = ch.sample(t + rc.start);
                let what = format!("{} {:?} of {} at {t}", c.label, ch.path, ch.node_name);
                if let RefPath::Weight(j) = ch.path {
                    let name = format!("morph/{}/{j}", ch.node_name);
                    let curve = seq.curves.iter().find(|k| k.name == name).expect(&name);
                    let Some(CurveValue::Float(v)) = curve.sample(t) else {
                        panic!("{name} has no value")
                    };
                    close(&[v], &want, &what);
                    checked += 1;
                    continue;
                }
                let skel = skel.as_ref().expect("bone tracks need a skeleton");
                let b = skel.find(&ch.node_name).expect("bone");
                let p = pose(&seq, skel, t);
                let track = seq
                    .tracks
                    .iter()
                    .find(|k| k.bone == ch.node_name)
                    .expect("track");
                let (runtime, reference): (Vec<f64>, Option<Vec<f64>>) = match ch.path {
                    RefPath::Translation => (
                        p.translations[b].to_array().map(f64::from).to_vec(),
                        track
                            .sample_translation(t)
                            .map(|v| v.map(f64::from).to_vec()),
                    ),
                    RefPath::Scale => (
                        p.scales[b].to_array().map(f64::from).to_vec(),
                        track.sample_scale(t).map(|v| v.map(f64::from).to_vec()),
                    ),
                    _ => (
                        p.rotations[b].to_array().map(f64::from).to_vec(),
                        track.sample_rotation(t).map(|v| v.map(f64::from).to_vec()),
                    ),
                };
                close(&runtime, &want, &format!("runtime {what}"));
                close(&reference.expect("keys"), &want, &format!("animseq {what}"));
                checked += 1;
            }
        }
    }
    checked
}

fn snapshot(name: &str, text: String) {
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false, omit_expression => true}, {
        insta::assert_snapshot!(name, text);
    });
}

fn snapshot_text(out: &Imported, skel_texts: bool) -> String {
    let mut s = out.manifest.to_ron();
    for a in &out.assets {
        let text = a.text();
        s.push_str(&format!("\n== {} ({} bytes)\n", a.file, text.len()));
        if a.file.ends_with(".skel") && skel_texts {
            s.push_str(&text);
        }
    }
    s
}

// ---------------------------------------------------------------- real models

#[test]
fn fox_glb() {
    let bytes = model("Fox.glb");
    let out = check("models/Fox.glb", &bytes, &BTreeMap::new());
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    // 24 joints and the non-joint top-level root `root` above them; two top-level roots in
    // the scene (`root`, `fox`) but the channels reach only `root`.
    let skel = skeleton(&out, "Fox.skel");
    assert_eq!(skel.len(), 25);
    assert_eq!(out.manifest.skeletons[0].joints.len(), 24);
    assert_eq!(skel.bones()[0].name, "root");
    let labels: Vec<&str> = out
        .manifest
        .clips
        .iter()
        .map(|c| c.label.as_str())
        .collect();
    assert_eq!(labels, ["Survey", "Walk", "Run"]);
    assert!(reproduces(&out, &bytes, &BTreeMap::new()) > 10_000);
    snapshot("import_fox", snapshot_text(&out, true));
}

#[test]
fn simple_skin_gltf_with_data_uri() {
    let bytes = model("SimpleSkin.gltf");
    let out = check("models/SimpleSkin.gltf", &bytes, &BTreeMap::new());
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    // Unnamed nodes: `GltfNode{index}` in the skeleton, tracks and joint paths.
    assert_eq!(
        out.manifest.skeletons[0].joints,
        ["GltfNode0/GltfNode1", "GltfNode0/GltfNode1/GltfNode2"]
    );
    assert_eq!(out.manifest.clips[0].label, "Animation0");
    assert!(reproduces(&out, &bytes, &BTreeMap::new()) > 100);
    let mut s = snapshot_text(&out, true);
    s.push_str(
        &out.assets
            .iter()
            .find(|a| a.file.ends_with(".animseq"))
            .expect("clip")
            .text(),
    );
    snapshot("import_simple_skin", s);
}

#[test]
fn morph_stress_test_weights_only() {
    let bytes = model("MorphStressTest.gltf");
    let out = check("models/MorphStressTest.gltf", &bytes, &BTreeMap::new());
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    assert!(out.manifest.skeletons.is_empty());
    let seq = clip(&out, "Pulse");
    assert!(seq.tracks.is_empty() && seq.skeleton.is_none());
    let names: Vec<&str> = seq.curves.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        (0..8)
            .map(|j| format!("morph/Main/{j}"))
            .collect::<Vec<_>>()
    );
    assert!(reproduces(&out, &bytes, &BTreeMap::new()) > 1000);
    snapshot("import_morph_stress_test", snapshot_text(&out, false));
}

#[test]
fn animated_triangle_node_animation() {
    // A node animated without any skin (Khronos AnimatedTriangle): the node becomes a skeleton
    // of its own, the clip keeps its rotation track and lasts as long as its sampler.
    let bytes = model("AnimatedTriangle.gltf");
    let out = check("models/AnimatedTriangle.gltf", &bytes, &BTreeMap::new());
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    assert_eq!(out.manifest.skeletons.len(), 1);
    assert_eq!(out.manifest.skeletons[0].file, "AnimatedTriangle.skel");
    assert_eq!(out.manifest.skeletons[0].joints, ["GltfNode0"]);
    let seq = clip(&out, "Animation0");
    assert_eq!(seq.duration, 1.0);
    assert_eq!(seq.skeleton.as_deref(), Some("AnimatedTriangle.skel"));
    assert_eq!(seq.tracks.len(), 1);
    assert_eq!(seq.tracks[0].bone, "GltfNode0");
    // The signature is import.md's, over the node skeleton's joints (one root joint).
    let mut sig = signature::SignatureBytes::new(1);
    sig.joint(&["GltfNode0"], None);
    assert_eq!(out.manifest.skeletons[0].signature, sig.signature());
    assert!(reproduces(&out, &bytes, &BTreeMap::new()) > 90);
    snapshot("import_animated_triangle", snapshot_text(&out, true));
}

/// Slerp of unit quaternions in `f64` (shorter arc), written here independently of Sinew.
fn slerp(a: [f64; 4], b: [f64; 4], f: f64) -> [f64; 4] {
    let norm = |q: [f64; 4]| {
        let l = q.iter().map(|x| x * x).sum::<f64>().sqrt();
        q.map(|x| x / l)
    };
    let (a, mut b) = (norm(a), norm(b));
    let mut d: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
    if d < 0.0 {
        b = b.map(|x| -x);
        d = -d;
    }
    let th = d.min(1.0).acos();
    if th < 1e-9 {
        return a;
    }
    let (wa, wb) = (((1.0 - f) * th).sin() / th.sin(), (f * th).sin() / th.sin());
    std::array::from_fn(|i| wa * a[i] + wb * b[i])
}

#[test]
fn linear_rotations_nlerp_within_1e4_of_slerp_on_real_keys() {
    // import.md: LINEAR rotations may be played by nlerp between keys close enough that every
    // sampled component stays within 1e-4 of the slerp. Checked on the keys the real models'
    // imports wrote, through the runtime's sampler, against an independent slerp.
    let mut segments = 0;
    for name in ["Fox.glb", "SimpleSkin.gltf", "AnimatedTriangle.gltf"] {
        let out = check(name, &model(name), &BTreeMap::new());
        for c in &out.manifest.clips {
            let seq = clip(&out, &c.label);
            let skel = skeleton(&out, seq.skeleton.as_deref().expect("skeleton"));
            for track in &seq.tracks {
                let b = skel.find(&track.bone).expect("bone");
                for w in track.rotation.windows(2) {
                    let ((t0, q0), (t1, q1)) = (w[0], w[1]);
                    if t1 - t0 < 1e-6 {
                        continue; // a STEP hold, not an interpolated segment
                    }
                    segments += 1;
                    for f in [0.125, 0.25, 0.5, 0.75, 0.875] {
                        let want = slerp(q0.map(f64::from), q1.map(f64::from), f);
                        let got = pose(&seq, &skel, t0 + f * (t1 - t0)).rotations[b]
                            .to_array()
                            .map(f64::from);
                        let sign = if got.iter().zip(&want).map(|(x, y)| x * y).sum::<f64>() < 0.0 {
                            -1.0
                        } else {
                            1.0
                        };
                        for (g, w) in got.iter().zip(&want) {
                            assert!(
                                (sign * g - w).abs() <= 1e-4,
                                "{name} {} {} at {t0}+{f}: nlerp {got:?}, slerp {want:?}",
                                c.label,
                                track.bone
                            );
                        }
                    }
                }
            }
        }
    }
    assert!(segments > 1000, "{segments}");
}

// ---------------------------------------------------------------- generated models

/// root → hips → spine, a skin over hips and spine, and an animation `a`.
fn rig() -> (Gen, usize, [usize; 3]) {
    let mut g = Gen::new();
    let root = g.node(Some("root"), None);
    let hips = g.node(Some("hips"), Some(root));
    let spine = g.node(Some("spine"), Some(hips));
    g.trs(hips, Some([0.0, 1.0, 0.0]), None, None);
    g.skin(None, &[hips, spine]);
    let a = g.animation(Some("Clip"));
    (g, a, [root, hips, spine])
}

#[test]
fn every_interpolation_reproduces_known_values() {
    let (mut g, a, [_, hips, spine]) = rig();
    let h = std::f32::consts::FRAC_1_SQRT_2;
    // LINEAR translation written without an `interpolation` key.
    g.channel(
        a,
        hips,
        P::Translation,
        None,
        &[0.0, 1.0],
        &[0.0, 0.0, 0.0, 2.0, 4.0, 6.0],
    );
    // LINEAR rotation: 90° about Y (slerp).
    g.channel(
        a,
        spine,
        P::Rotation,
        Some(Interp::Linear),
        &[0.0, 1.0],
        &[0.0, 0.0, 0.0, 1.0, 0.0, h, 0.0, h],
    );
    // STEP scale.
    g.channel(
        a,
        spine,
        P::Scale,
        Some(Interp::Step),
        &[0.0, 0.5, 1.0],
        &[1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 3.0, 3.0, 3.0],
    );
    // CUBICSPLINE translation: zero tangents (smoothstep) from 0 to 1.
    g.channel(
        a,
        spine,
        P::Translation,
        Some(Interp::CubicSpline),
        &[0.0, 1.0],
        &[
            0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0,
            0.0,
        ],
    );
    let bytes = g.glb();
    let out = check("m.glb", &bytes, &BTreeMap::new());
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    let seq = clip(&out, "Clip");
    let skel = skeleton(&out, "m.skel");
    let (bh, bs) = (
        skel.find("hips").expect("hips"),
        skel.find("spine").expect("spine"),
    );
    let at = |t: f64| pose(&seq, &skel, t);
    // Linear.
    close(
        &at(0.25).translations[bh].to_array().map(f64::from),
        &[0.5, 1.0, 1.5],
        "linear",
    );
    // Slerp at 1/2: 45° about Y.
    let q = at(0.5).rotations[bs].to_array().map(f64::from);
    let s = (std::f64::consts::PI / 8.0).sin();
    close(
        &q,
        &[0.0, s, 0.0, (std::f64::consts::PI / 8.0).cos()],
        "slerp",
    );
    // At 1/3, slerp and nlerp differ by ~1e-3 over 90°: the importer's extra keys fix it.
    let th = std::f64::consts::FRAC_PI_4 / 3.0;
    close(
        &at(1.0 / 3.0).rotations[bs].to_array().map(f64::from),
        &[0.0, th.sin(), 0.0, th.cos()],
        "slerp 1/3",
    );
    // Step holds until the next key, and jumps exactly there.
    close(
        &at(0.499_999).scales[bs].to_array().map(f64::from),
        &[1.0; 3],
        "step hold",
    );
    close(
        &at(0.5).scales[bs].to_array().map(f64::from),
        &[2.0; 3],
        "step jump",
    );
    close(
        &at(0.9).scales[bs].to_array().map(f64::from),
        &[2.0; 3],
        "step hold 2",
    );
    // Cubic: smoothstep 3s² − 2s³.
    for (t, v) in [(0.25, 0.15625), (0.5, 0.5), (0.8, 0.896)] {
        close(
            &at(t).translations[bs].to_array().map(f64::from),
            &[v; 3],
            "cubic",
        );
    }
    assert!(reproduces(&out, &bytes, &BTreeMap::new()) > 300);
}

#[test]
fn cubic_rotations_and_morph_weights_of_every_kind() {
    let (mut g, a, [_, hips, spine]) = rig();
    let mesh = g.node(Some("face"), Some(hips));
    g.morph_mesh(mesh, 2);
    // CUBICSPLINE rotation with non-zero tangents.
    let (s, c) = (0.5f32.sin(), 0.5f32.cos());
    g.channel(
        a,
        spine,
        P::Rotation,
        Some(Interp::CubicSpline),
        &[0.0, 1.0, 2.0],
        &[
            0.0, 0.0, 0.0, 0.0, /**/ 0.0, 0.0, 0.0, 1.0, /**/ 0.0, 0.4, 0.0, 0.0, //
            0.0, 0.3, 0.0, 0.0, /**/ 0.0, s, 0.0, c, /**/ 0.0, 0.2, 0.0, -0.1, //
            0.0, 0.1, 0.0, 0.0, /**/ 0.0, 0.0, s, c, /**/ 0.0, 0.0, 0.0, 0.0,
        ],
    );
    let b = g.animation(Some("Weights"));
    g.channel(
        b,
        mesh,
        P::MorphTargetWeights,
        Some(Interp::Linear),
        &[0.0, 1.0],
        &[0.0, 1.0, 1.0, 0.0],
    );
    let c2 = g.animation(Some("WeightsStep"));
    g.channel(
        c2,
        mesh,
        P::MorphTargetWeights,
        Some(Interp::Step),
        &[0.0, 1.0],
        &[0.0, 1.0, 1.0, 0.0],
    );
    let d = g.animation(Some("WeightsCubic"));
    g.channel(
        d,
        mesh,
        P::MorphTargetWeights,
        Some(Interp::CubicSpline),
        &[0.0, 1.0],
        &[
            0.0, 0.0, 0.0, 1.0, 2.0, 0.0, /**/ 0.0, 0.0, 1.0, 0.0, 0.0, 0.0,
        ],
    );
    let bytes = g.gltf_embedded();
    let out = check("m.gltf", &bytes, &BTreeMap::new());
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    let step = clip(&out, "WeightsStep");
    assert_eq!(step.curves[0].interpolation, animseq::Interpolation::Step);
    assert_eq!(step.curves[1].name, "morph/face/1");
    assert!(reproduces(&out, &bytes, &BTreeMap::new()) > 300);
}

#[test]
fn unnamed_matrix_and_duplicate_named_nodes() {
    let mut g = Gen::new();
    let root = g.node(None, None);
    let a1 = g.node(Some("Bone"), Some(root));
    let a2 = g.node(Some("bone"), Some(a1)); // matches `Bone` across case
    let m = g.node(Some("mat"), Some(a2));
    // T(1, 2, 3) · R(90° about Z) · S(2, 2, 2), column-major.
    g.matrix(
        m,
        [
            0.0, 2.0, 0.0, 0.0, -2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 2.0, 3.0, 1.0,
        ],
    );
    g.skin(Some("rig"), &[a1, a2, m]);
    let an = g.animation(None);
    g.channel(
        an,
        m,
        P::Translation,
        None,
        &[0.0, 1.0],
        &[1.0, 2.0, 3.0, 1.0, 2.0, 4.0],
    );
    let out = check("dup.glb", &g.glb(), &BTreeMap::new());
    assert_eq!(codes(&out), ["W0701"], "{:?}", out.diagnostics);
    assert!(
        out.diagnostics[0].message.contains("`Bone~1`, `bone~2`"),
        "{:?}",
        out.diagnostics
    );
    let s = &out.manifest.skeletons[0];
    assert_eq!((s.name.as_str(), s.file.as_str()), ("rig", "rig.skel"));
    assert_eq!(
        s.joints,
        [
            "GltfNode0/Bone~1",
            "GltfNode0/Bone~1/bone~2",
            "GltfNode0/Bone~1/bone~2/mat"
        ]
    );
    let skel = skeleton(&out, "rig.skel");
    let rest = skel.bones()[skel.find("mat").expect("mat")].rest;
    let h = std::f64::consts::FRAC_1_SQRT_2;
    close(
        &rest.translation.to_array().map(f64::from),
        &[1.0, 2.0, 3.0],
        "matrix t",
    );
    close(
        &rest.rotation.to_array().map(f64::from),
        &[0.0, 0.0, h, h],
        "matrix r",
    );
    close(&rest.scale.to_array().map(f64::from), &[2.0; 3], "matrix s");
    assert_eq!(out.manifest.clips[0].label, "Animation0");
    // The signature hashes the file's own names, not the renamed ones.
    let sig = signature::signature(&[
        signature::SignatureJoint {
            path: vec!["GltfNode0", "Bone"],
            parent: None,
        },
        signature::SignatureJoint {
            path: vec!["GltfNode0", "Bone", "bone"],
            parent: Some(0),
        },
        signature::SignatureJoint {
            path: vec!["GltfNode0", "Bone", "bone", "mat"],
            parent: Some(1),
        },
    ]);
    assert_eq!(s.signature, sig);
}

#[test]
fn signature_bytes_are_the_contract() {
    // Built by hand from the spec's layout: two joints, `root/a` (no joint ancestor) and
    // `root/a/b` (parent joint 0).
    let mut b: Vec<u8> = Vec::new();
    b.extend(2u32.to_le_bytes());
    for (segs, parent) in [(&["root", "a"][..], -1i32), (&["root", "a", "b"][..], 0)] {
        b.extend((segs.len() as u32).to_le_bytes());
        for s in segs {
            b.extend((s.len() as u32).to_le_bytes());
            b.extend(s.as_bytes());
        }
        b.extend(parent.to_le_bytes());
    }
    let mut g = Gen::new();
    let root = g.node(Some("root"), None);
    let a = g.node(Some("a"), Some(root));
    let bn = g.node(Some("b"), Some(a));
    g.skin(None, &[a, bn]);
    let an = g.animation(Some("x"));
    g.channel(an, bn, P::Scale, None, &[0.0, 1.0], &[1.0; 6]);
    let out = check("sig.glb", &g.glb(), &BTreeMap::new());
    use sha2::Digest as _;
    let want: String = sha2::Sha256::digest(&b)
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect();
    assert_eq!(out.manifest.skeletons[0].signature, want);
    assert_eq!(out.manifest.clips[0].skeleton, want);
}

#[test]
fn several_animation_roots_block_but_a_static_second_root_does_not() {
    let mut g = Gen::new();
    let r1 = g.node(Some("hero"), None);
    let j1 = g.node(Some("hero_hips"), Some(r1));
    let r2 = g.node(Some("dog"), None);
    let j2 = g.node(Some("dog_hips"), Some(r2));
    g.skin(None, &[j1]);
    g.skin(None, &[j2]);
    let a = g.animation(Some("HeroWalk"));
    g.channel(a, j1, P::Translation, None, &[0.0, 1.0], &[0.0; 6]);
    let ok = check("two.glb", &g.glb(), &BTreeMap::new());
    assert!(ok.manifest.runtime_supported, "{:?}", ok.diagnostics);
    assert_eq!(ok.manifest.skeletons.len(), 1, "only the animated skin");
    let b = g.animation(Some("DogWag"));
    g.channel(b, j2, P::Translation, None, &[0.0, 1.0], &[0.0; 6]);
    let out = check("two.glb", &g.glb(), &BTreeMap::new());
    assert_eq!(codes(&out), ["E0707"]);
    let m = &out.diagnostics[0].message;
    assert!(
        m.contains("`hero` (node 0: `HeroWalk`)") && m.contains("`dog` (node 2: `DogWag`)"),
        "{m}"
    );
    assert!(m.contains("one common root"), "{m}");
    assert!(out.manifest.to_ron().contains("runtime_supported: false"));
}

#[test]
fn sparse_accessors() {
    let (mut g, a, [_, hips, spine]) = rig();
    let times = g.floats(&[0.0, 1.0, 2.0], AccType::Scalar);
    // Dense base with element 1 replaced.
    let out1 = g.sparse(
        Some(&[0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0]),
        3,
        AccType::Vec3,
        &[1],
        &[5.0, 6.0, 7.0],
    );
    g.channel_acc(a, hips, P::Translation, None, times, out1);
    // No buffer view: zeros with elements 0 and 2 replaced.
    let out2 = g.sparse(
        None,
        3,
        AccType::Vec3,
        &[0, 2],
        &[1.0, 1.0, 1.0, 3.0, 3.0, 3.0],
    );
    g.channel_acc(a, spine, P::Scale, None, times, out2);
    let bytes = g.glb();
    let out = check("sparse.glb", &bytes, &BTreeMap::new());
    let seq = clip(&out, "Clip");
    let hips_t: Vec<[f32; 3]> = seq.tracks[0].translation.iter().map(|k| k.1).collect();
    assert_eq!(hips_t, [[0.0; 3], [5.0, 6.0, 7.0], [2.0; 3]]);
    let spine_s: Vec<[f32; 3]> = seq.tracks[1].scale.iter().map(|k| k.1).collect();
    assert_eq!(spine_s, [[1.0; 3], [0.0; 3], [3.0; 3]]);
    assert!(reproduces(&out, &bytes, &BTreeMap::new()) > 100);
}

#[test]
fn notifies_from_extras_good_and_bad() {
    let (mut g, a, [_, hips, _]) = rig();
    g.channel(a, hips, P::Translation, None, &[0.0, 1.0], &[0.0; 6]);
    g.extras(
        a,
        r#"{"notifies": [
            {"id": "footstep_l", "name": "Footstep L", "time": 0.25, "fields": {"surface": "grass", "volume": 0.8, "count": 2, "dir": [0, 1, 0], "loud": false}},
            {"id": "hit", "time": 0.5, "target": {"variable": "weapon"}},
            {"id": "late", "time": 7.0},
            {"name": "no id", "time": 0.1},
            {"id": "footstep_l", "time": 0.3}
        ], "blender": "other custom property"}"#,
    );
    let out = check("n.glb", &g.glb(), &BTreeMap::new());
    assert_eq!(
        codes(&out),
        ["W0703", "W0703", "W0703"],
        "{:?}",
        out.diagnostics
    );
    assert!(
        out.diagnostics[0]
            .message
            .contains("animation `Clip`, notify entry 2 (`late`)")
    );
    assert!(
        out.diagnostics[1]
            .message
            .contains("notify entry 3: `id` is missing")
    );
    let seq = clip(&out, "Clip");
    assert_eq!(out.manifest.clips[0].markers, 2);
    let n = &seq.notifies[0];
    assert_eq!(
        (n.id.as_str(), n.name.as_str(), n.time),
        ("footstep_l", "Footstep L", 0.25)
    );
    assert_eq!(
        n.fields,
        [
            ("surface".to_string(), FieldValue::String("grass".into())),
            ("volume".to_string(), FieldValue::Float(0.8)),
            ("count".to_string(), FieldValue::Int(2)),
            ("dir".to_string(), FieldValue::Vec3([0.0, 1.0, 0.0])),
            ("loud".to_string(), FieldValue::Bool(false)),
        ]
    );
    assert_eq!(seq.notifies[1].target, Target::Variable("weapon".into()));
    assert_eq!(seq.notifies[1].name, "hit");
}

#[test]
fn imported_notifies_are_catalog_events_and_palette_nodes() {
    let (mut g, a, [_, hips, _]) = rig();
    g.channel(a, hips, P::Translation, None, &[0.0, 1.0], &[0.0; 6]);
    g.extras(
        a,
        r#"{"notifies": "[{\"id\": \"step\", \"name\": \"Step\", \"time\": 0.5}]"}"#,
    );
    let out = check("n.glb", &g.glb(), &BTreeMap::new());
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir
        .path()
        .join("animations/generated")
        .join(MODEL.to_string());
    std::fs::create_dir_all(&folder).expect("mkdir");
    for asset in &out.assets {
        std::fs::write(folder.join(&asset.file), asset.text()).expect("write");
    }
    std::fs::write(folder.join("manifest.ron"), out.manifest.to_ron()).expect("write");
    let live = sinew::catalog::scan::LiveCatalog::scan(dir.path(), None, None).expect("scan");
    let cat = live.catalog();
    assert!(cat.diagnostics().is_empty(), "{:?}", cat.diagnostics());
    let events = cat.events();
    let clip_id = &out.manifest.clips[0].id;
    assert_eq!(events.len(), 1);
    assert_eq!(&*events[0].id, format!("animseq::{clip_id}.step"));
    assert_eq!(events[0].name, "Clip / Step");
    let palette = sinew::palette::build(cat);
    assert!(
        palette
            .iter()
            .any(|e| e.kind == format!("event animseq::{clip_id}.step"))
    );
}

#[test]
fn time_shift_zero_length_and_skipped_channels() {
    let (mut g, a, [root, hips, spine]) = rig();
    let prop = g.node(Some("prop"), Some(spine)); // below a joint, not a joint itself
    g.channel(
        a,
        hips,
        P::Translation,
        None,
        &[1.0, 2.0],
        &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0],
    );
    g.channel(a, prop, P::Scale, None, &[1.0, 2.0], &[1.0; 6]);
    g.channel(a, root, P::Rotation, None, &[1.5], &[0.0, 0.0, 0.0, 1.0]);
    g.channel(a, hips, P::Translation, None, &[1.0, 2.0], &[0.0; 6]); // repeated target
    let b = g.animation(Some("Pose"));
    g.channel(b, hips, P::Translation, None, &[0.0], &[0.0; 3]);
    let out = check("shift.glb", &g.glb(), &BTreeMap::new());
    // `prop` is node animation now (a skeleton of its own, `shift_nodes.skel`); the clip stays
    // on the skin's skeleton, which holds more of its nodes, and keeps the prop's track.
    assert_eq!(
        codes(&out),
        ["W0702", "W0704", "W0707", "W0705"],
        "{:?}",
        out.diagnostics
    );
    assert!(
        out.diagnostics[0].message.contains("node 1 (`hips`)"),
        "{:?}",
        out.diagnostics
    );
    assert!(
        out.diagnostics[2].message.contains("`prop`"),
        "{:?}",
        out.diagnostics
    );
    let files: Vec<&str> = out
        .manifest
        .skeletons
        .iter()
        .map(|s| s.file.as_str())
        .collect();
    assert_eq!(files, ["shift.skel", "shift_nodes.skel"]);
    let seq = clip(&out, "Clip");
    assert_eq!(seq.duration, 1.0);
    assert_eq!(
        seq.tracks[0].bone, "root",
        "an animated ancestor of the joints is a bone"
    );
    assert_eq!(seq.tracks[0].rotation[0].0, 0.5);
    assert_eq!(seq.tracks[1].translation[0].0, 0.0);
    assert_eq!(clip(&out, "Pose").duration, 1.0 / 30.0);
}

#[test]
fn a_prop_node_animation_plays_and_fires_like_a_character() {
    // BoxAnimated's shape: a static top-level node with a static child and an animated one
    // (translation and rotation), no skin; notifies in the animation's extras.
    let mut g = Gen::new();
    let chest = g.node(Some("Chest"), None);
    g.matrix(
        chest,
        [
            1.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0,
        ],
    );
    let _base = g.node(Some("Base"), Some(chest));
    let lid = g.node(Some("Lid"), Some(chest));
    g.trs(lid, Some([0.0, 1.0, 0.0]), None, None);
    let open = g.animation(Some("Open"));
    g.channel(
        open,
        lid,
        P::Rotation,
        None,
        &[0.0, 1.25, 2.5],
        &[
            0.0, 0.0, 0.0, 1.0, 0.383, 0.0, 0.0, 0.924, 0.707, 0.0, 0.0, 0.707,
        ],
    );
    g.channel(
        open,
        lid,
        P::Translation,
        Some(Interp::Step),
        &[1.25, 3.0],
        &[0.0, 1.0, 0.0, 0.0, 2.5, 0.0],
    );
    g.extras(
        open,
        r#"{"notifies": [{"id": "creak", "name": "Creak", "time": 1.0}]}"#,
    );
    let bytes = g.glb();
    let out = check("models/chest.glb", &bytes, &BTreeMap::new());
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    // The animated node and the nodes above it (not the static sibling), every one a joint.
    let skel = skeleton(&out, "chest.skel");
    let bones: Vec<&str> = skel.bones().iter().map(|b| b.name.as_str()).collect();
    assert_eq!(bones, ["Chest", "Lid"]);
    assert_eq!(out.manifest.skeletons[0].joints, ["Chest", "Chest/Lid"]);
    let c = &out.manifest.clips[0];
    assert_eq!(c.skeleton, out.manifest.skeletons[0].signature);
    assert_eq!((c.duration, c.markers), (3.0, 1));
    let seq = clip(&out, "Open");
    assert_eq!(seq.notifies[0].time, 1.0);
    assert!(reproduces(&out, &bytes, &BTreeMap::new()) > 100);
    // The lid's pose through the runtime sampler: open by 90° about x at the end.
    let p = pose(&seq, &skel, 2.5);
    let b = skel.find("Lid").expect("lid");
    assert!(
        (p.rotations[b].x - 0.707).abs() < 1e-3,
        "{:?}",
        p.rotations[b]
    );
}

#[test]
fn a_clip_lasts_as_long_as_its_samplers_even_when_channels_are_skipped() {
    let (mut g, a, [_, hips, spine]) = rig();
    g.channel(a, hips, P::Translation, None, &[0.0, 1.0], &[0.0; 6]);
    // Weights on a node without morph targets: skipped, but its sampler runs to 3 s.
    g.channel(
        a,
        spine,
        P::MorphTargetWeights,
        None,
        &[0.0, 3.0],
        &[0.0; 2],
    );
    let b = g.animation(Some("OnlySkipped"));
    g.channel(
        b,
        spine,
        P::MorphTargetWeights,
        None,
        &[0.0, 2.0],
        &[0.0; 2],
    );
    let out = check("durations.glb", &g.glb(), &BTreeMap::new());
    assert_eq!(codes(&out), ["W0702", "W0702"], "{:?}", out.diagnostics);
    assert_eq!(clip(&out, "Clip").duration, 3.0);
    assert_eq!(clip(&out, "OnlySkipped").duration, 2.0);
}

#[test]
fn external_buffers_are_supplied_by_the_caller() {
    let (mut g, a, [_, hips, _]) = rig();
    g.channel(
        a,
        hips,
        P::Translation,
        None,
        &[0.0, 1.0],
        &[0.0, 0.0, 0.0, 1.0, 2.0, 3.0],
    );
    let (json, bin) = g.gltf_external("data%20file.bin");
    let prepared = import::prepare("ext.gltf", &json);
    assert_eq!(prepared.external_uris(), ["data file.bin"]);
    let missing = check("ext.gltf", &json, &BTreeMap::new());
    assert_eq!(codes(&missing), ["E0704"]);
    assert!(
        missing.diagnostics[0]
            .message
            .contains("`data file.bin` is missing")
    );
    let ext = BTreeMap::from([("data file.bin".to_string(), bin.clone())]);
    let out = check("ext.gltf", &json, &ext);
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    assert!(reproduces(&out, &json, &ext) > 50);
    // A buffer file shorter than its `byteLength`.
    let short = BTreeMap::from([("data file.bin".to_string(), bin[..bin.len() - 4].to_vec())]);
    let out = check("ext.gltf", &json, &short);
    assert_eq!(codes(&out), ["E0704"]);
    assert!(
        out.diagnostics[0].message.contains("declares"),
        "{:?}",
        out.diagnostics
    );
}

#[test]
fn corrupt_files_are_errors_with_the_failing_index() {
    let (mut g, a, [_, hips, _]) = rig();
    g.channel(a, hips, P::Translation, None, &[0.0, 1.0], &[0.0; 6]);
    let good = g.glb();
    let cases: Vec<(&str, Vec<u8>, &str, &str)> = vec![
        (
            "bad json",
            b"{\"asset\": {\"version\": \"2.0\"".to_vec(),
            "E0701",
            "line 1",
        ),
        ("not gltf", b"{\"hello\": 1}".to_vec(), "E0701", "asset"),
        ("short glb", b"glTF\x02\0\0\0".to_vec(), "E0702", "12 bytes"),
        (
            "glb version",
            {
                let mut b = good.clone();
                b[4] = 1;
                b
            },
            "E0702",
            "version 1",
        ),
        (
            "glb total length",
            {
                let mut b = good.clone();
                b[8] = b[8].wrapping_add(4);
                b
            },
            "E0702",
            "declares a length",
        ),
        (
            "glb chunk length",
            {
                let mut b = good.clone();
                b[12..16].copy_from_slice(&100_000u32.to_le_bytes());
                b
            },
            "E0702",
            "chunk 0 at byte 12 declares 100000 bytes",
        ),
        (
            "bin chunk length",
            {
                let mut b = good.clone();
                let jl = u32::from_le_bytes([b[12], b[13], b[14], b[15]]) as usize;
                b[20 + jl..24 + jl].copy_from_slice(&1_000_000u32.to_le_bytes());
                b
            },
            "E0702",
            "chunk 1",
        ),
        (
            "buffer longer than the BIN chunk",
            {
                let mut gg = Gen::new();
                gg.root = g.root.clone();
                gg.bin = g.bin.clone();
                let text = String::from_utf8(gg.gltf_embedded()).expect("utf8");
                let v: serde_json::Value = serde_json::from_str(&text).expect("json");
                let mut v = v;
                v["buffers"][0]["byteLength"] = serde_json::json!(1_000_000);
                v["buffers"][0].as_object_mut().expect("obj").remove("uri");
                let bin = gg.bin.clone();
                glb_bytes(serde_json::to_string(&v).expect("s").as_bytes(), Some(&bin))
            },
            "E0704",
            "declares 1000000 bytes",
        ),
    ];
    for (what, bytes, code, needle) in cases {
        let out = check("bad.glb", &bytes, &BTreeMap::new());
        assert_eq!(codes(&out), [code], "{what}: {:?}", out.diagnostics);
        assert!(
            out.diagnostics[0].message.contains(needle),
            "{what}: {}",
            out.diagnostics[0].message
        );
        assert!(!out.manifest.runtime_supported);
        assert_eq!(out.diagnostics[0].file, "bad.glb");
    }
}

#[test]
fn accessor_problems_name_the_accessor() {
    // An output accessor reading past its buffer view.
    let (mut g, a, [_, hips, _]) = rig();
    g.channel(a, hips, P::Translation, None, &[0.0, 1.0], &[0.0; 6]);
    let out_acc = g.root.animations[a].samplers[0].output.value();
    g.root.accessors[out_acc].count = 9u64.into();
    let out = check("oob.glb", &g.glb(), &BTreeMap::new());
    assert_eq!(codes(&out), ["E0705"], "{:?}", out.diagnostics);
    let m = &out.diagnostics[0].message;
    assert!(
        m.contains(&format!("accessor {out_acc} is out of bounds")),
        "{m}"
    );
    // An index out of range (gltf-json's validation, with the path).
    let (mut g, a, [_, hips, _]) = rig();
    g.channel(a, hips, P::Translation, None, &[0.0, 1.0], &[0.0; 6]);
    g.root.animations[a].samplers[0].output = gltf_json::Index::new(99);
    let out = check("idx.glb", &g.glb(), &BTreeMap::new());
    assert_eq!(codes(&out), ["E0703"]);
    let m = &out.diagnostics[0].message;
    assert!(m.contains("animations[0].samplers[0].output"), "{m}");
    // It names the bad index and what it must be below (not just "Index out of bounds").
    let n = g.root.accessors.len();
    assert!(
        m.contains(&format!(
            "index 99 is out of bounds: it must be below {n} (the number of `accessors`)"
        )),
        "{m}"
    );
    // Times that go backwards.
    let (mut g, a, [_, hips, _]) = rig();
    g.channel(a, hips, P::Translation, None, &[0.0, 1.0, 0.5], &[0.0; 9]);
    let out = check("t.glb", &g.glb(), &BTreeMap::new());
    assert_eq!(codes(&out), ["E0711"]);
    // Output count that does not match the input.
    let (mut g, a, [_, hips, _]) = rig();
    g.channel(a, hips, P::Translation, None, &[0.0, 1.0], &[0.0; 9]);
    let out = check("n.glb", &g.glb(), &BTreeMap::new());
    assert_eq!(codes(&out), ["E0705"]);
    assert!(
        out.diagnostics[0]
            .message
            .contains("3 elements, 2 are needed"),
        "{:?}",
        out.diagnostics
    );
}

#[test]
fn hierarchy_problems() {
    let (mut g, a, [_, hips, _]) = rig();
    g.channel(a, hips, P::Translation, None, &[0.0, 1.0], &[0.0; 6]);
    let x = g.node(Some("x"), None);
    let y = g.node(Some("y"), Some(x));
    g.root.nodes[y].children = Some(vec![gltf_json::Index::new(x as u32)]);
    let out = check("cycle.glb", &g.glb(), &BTreeMap::new());
    assert_eq!(codes(&out), ["E0706"], "{:?}", out.diagnostics);
    assert!(out.diagnostics[0].message.contains("form a parent cycle"));
    let (mut g, a, [_, hips, _]) = rig();
    g.channel(a, hips, P::Translation, None, &[0.0, 1.0], &[0.0; 6]);
    let other = g.node(Some("other"), None);
    g.root.nodes[other].children = Some(vec![gltf_json::Index::new(hips as u32)]);
    let out = check("two_parents.glb", &g.glb(), &BTreeMap::new());
    assert_eq!(codes(&out), ["E0706"], "{:?}", out.diagnostics);
    assert!(
        out.diagnostics[0]
            .message
            .contains("child of both node 0 and node 3")
    );
}

/// A binary FBX 7.4 with `Objects` children `(name, string properties)`.
fn fbx(objects: &[(&str, &[&str])]) -> Vec<u8> {
    fn rec(out: &mut Vec<u8>, name: &str, props: &[&str], children: &[(&str, &[&str])]) {
        let start = out.len();
        out.extend_from_slice(&[0; 12]);
        out.push(name.len() as u8);
        out.extend_from_slice(name.as_bytes());
        let p0 = out.len();
        for p in props {
            out.push(b'S');
            out.extend_from_slice(&(p.len() as u32).to_le_bytes());
            out.extend_from_slice(p.as_bytes());
        }
        let plen = out.len() - p0;
        for (n, ps) in children {
            rec(out, n, ps, &[]);
        }
        if !children.is_empty() {
            out.extend_from_slice(&[0; 13]);
        }
        let end = out.len() as u32;
        out[start..start + 4].copy_from_slice(&end.to_le_bytes());
        out[start + 4..start + 8].copy_from_slice(&(props.len() as u32).to_le_bytes());
        out[start + 8..start + 12].copy_from_slice(&(plen as u32).to_le_bytes());
    }
    let mut out = b"Kaydara FBX Binary  \0\x1a\0".to_vec();
    out.extend_from_slice(&7400u32.to_le_bytes());
    rec(&mut out, "Objects", &[], objects);
    out.extend_from_slice(&[0; 13]);
    out
}

#[test]
fn fbx_is_detected_not_guessed() {
    let animated = fbx(&[
        ("Deformer", &["Armature\0\x01Deformer", "Skin"]),
        ("AnimationStack", &["Take\0\x01AnimStack", ""]),
    ]);
    let out = check("a.fbx", &animated, &BTreeMap::new());
    assert_eq!(codes(&out), ["E0708"]);
    assert!(
        out.diagnostics[0]
            .message
            .contains("1 animation stack(s), 1 skin deformer(s)")
    );
    let stat = fbx(&[("Geometry", &["Cube\0\x01Geometry", "Mesh"])]);
    let out = check("s.fbx", &stat, &BTreeMap::new());
    assert!(out.manifest.runtime_supported);
    assert_eq!(codes(&out), ["W0709"]);
    assert_eq!(out.diagnostics[0].severity, sinew::diag::Severity::Note);
    let ascii = b"; FBX 7.4.0 project file\nObjects:  {\n\tAnimationStack: 1, \"AnimStack::Take\", \"\" {\n\t}\n}\n";
    assert_eq!(codes(&check("t.fbx", ascii, &BTreeMap::new())), ["E0708"]);
    assert_eq!(
        codes(&check("c.fbx", &animated[..40], &BTreeMap::new())),
        ["E0709"]
    );
}

#[test]
fn duplicate_animation_names_get_distinct_ids() {
    let (mut g, a, [_, hips, _]) = rig();
    g.channel(a, hips, P::Translation, None, &[0.0, 1.0], &[0.0; 6]);
    let b = g.animation(Some("Clip"));
    g.channel(b, hips, P::Translation, None, &[0.0, 1.0], &[1.0; 6]);
    let out = check("d.glb", &g.glb(), &BTreeMap::new());
    assert_eq!(codes(&out), ["W0710"]);
    let labels: Vec<&str> = out
        .manifest
        .clips
        .iter()
        .map(|c| c.label.as_str())
        .collect();
    assert_eq!(labels, ["Clip", "Clip~1"]);
    assert_ne!(out.manifest.clips[0].id, out.manifest.clips[1].id);
    assert_eq!(out.manifest.clips[1].file, "Clip_1.animseq");
}

#[test]
fn windows_device_names_get_a_suffix() {
    // Skins and animations named like Windows devices (any case; the extension does not
    // matter there) would make files no Windows checkout can hold.
    let mut g = Gen::new();
    let root = g.node(Some("root"), None);
    let hips = g.node(Some("hips"), Some(root));
    g.skin(Some("Aux"), &[hips]);
    let mut labels = Vec::new();
    for name in [
        "CON", "nul", "PRN", "com1", "LPT9", "Con.txt", "COM10", "console",
    ] {
        let a = g.animation(Some(name));
        g.channel(a, hips, P::Translation, None, &[0.0, 1.0], &[0.0; 6]);
        labels.push(name);
    }
    let out = check("dev.glb", &g.glb(), &BTreeMap::new());
    assert_eq!(out.manifest.skeletons[0].file, "Aux_.skel");
    let files: Vec<&str> = out.manifest.clips.iter().map(|c| c.file.as_str()).collect();
    assert_eq!(
        files,
        [
            "CON_.animseq",
            "nul_.animseq",
            "PRN_.animseq",
            "com1_.animseq",
            "LPT9_.animseq",
            "Con_txt.animseq",
            "COM10.animseq",
            "console.animseq"
        ]
    );
    for f in out.assets.iter().map(|a| a.file.as_str()) {
        let stem = f.split('.').next().unwrap_or(f);
        assert!(!import::is_device_name(stem), "{f}");
    }
}

#[test]
fn amplification_is_bounded_by_the_file_size() {
    // Cubic tangents of 10⁶ need the most pieces per segment: 1500 keys would become ~380k.
    let (mut g, a, [_, hips, _]) = rig();
    let n = 1500;
    let times: Vec<f32> = (0..n).map(|k| k as f32).collect();
    let mut vals = Vec::new();
    for k in 0..n {
        let v = if k % 2 == 0 { 0.0 } else { 1.0 };
        vals.extend_from_slice(&[1e6, 1e6, 1e6, v, v, v, -1e6, -1e6, -1e6]);
    }
    g.channel(
        a,
        hips,
        P::Translation,
        Some(Interp::CubicSpline),
        &times,
        &vals,
    );
    let out = check("amp.glb", &g.glb(), &BTreeMap::new());
    assert_eq!(codes(&out), ["E0710"], "{:?}", out.diagnostics);
    // Joint paths grow with joints × depth: a chain of 800 joints is refused, not hashed.
    let mut g = Gen::new();
    let mut prev = g.node(Some("root"), None);
    let mut joints = Vec::new();
    for i in 0..800 {
        prev = g.node(Some(&format!("j{i}")), Some(prev));
        joints.push(prev);
    }
    g.skin(None, &joints);
    let an = g.animation(Some("x"));
    g.channel(an, prev, P::Scale, None, &[0.0, 1.0], &[1.0; 6]);
    let out = check("chain.glb", &g.glb(), &BTreeMap::new());
    assert_eq!(codes(&out), ["E0710"], "{:?}", out.diagnostics);
    assert!(out.diagnostics[0].message.contains("path segments"));
}

#[test]
fn the_output_of_one_import_is_budgeted() {
    // 120 skins on one joint 4000 nodes deep: a ~170 KB file whose skeletons alone would be
    // ~60 MB of text. The budget (16 MiB + 16 × the input) refuses it; nothing is handed out.
    let bytes = gltf_gen::skins_on_one_deep_joint(4000, 120);
    assert!(bytes.len() < 200_000, "{}", bytes.len());
    let out = import::import("deep.gltf", &bytes, &id(), &BTreeMap::new());
    assert_eq!(codes(&out), ["E0710"], "{:?}", out.diagnostics);
    let budget = (16 << 20) + 16 * bytes.len();
    let m = &out.diagnostics[0].message;
    assert!(
        m.contains(&format!("budget of {budget} bytes")) && m.contains("nothing is written"),
        "{m}"
    );
    assert!(out.assets.is_empty() && !out.manifest.runtime_supported);
    // The sink never saw more than the budget.
    let mut handed = 0usize;
    let _ = import::prepare("deep.gltf", &bytes).import(&id(), &BTreeMap::new(), &mut |a| {
        handed += a.text_ref().len()
    });
    assert!(handed <= budget, "{handed} > {budget}");
    // A few skins fit.
    let out = check(
        "deep.gltf",
        &gltf_gen::skins_on_one_deep_joint(4000, 3),
        &BTreeMap::new(),
    );
    assert!(out.manifest.runtime_supported, "{:?}", out.diagnostics);
}

#[test]
fn a_budget_that_runs_out_in_a_later_clip_of_a_batch() {
    // Two clips of one cubic channel each (tangents of 10⁶: about 253 keys per segment, ~21 MB
    // of text each): either fits the output budget alone (16 MiB + 16 × the ~1.1 MB input),
    // both do not. Built in parallel, the second clip is complete before the first is taken;
    // taken in order it must fail as a one-by-one import fails it, and nothing of it is
    // handed out. (Models from 1 MiB convert in parallel: an unused accessor pads this one.)
    let (mut g, a, [_, hips, spine]) = rig();
    let b = g.animation(Some("Second"));
    g.floats(&vec![0.0; 250_000], AccType::Scalar);
    let n = 1500;
    let times: Vec<f32> = (0..n).map(|k| k as f32).collect();
    let mut vals = Vec::new();
    for k in 0..n {
        let v = if k % 2 == 0 { 0.0 } else { 1.0 };
        vals.extend_from_slice(&[1e6, 1e6, 1e6, v, v, v, -1e6, -1e6, -1e6]);
    }
    for (anim, node) in [(a, hips), (b, spine)] {
        g.channel(
            anim,
            node,
            P::Translation,
            Some(Interp::CubicSpline),
            &times,
            &vals,
        );
    }
    let bytes = g.glb();
    assert!(bytes.len() > 1 << 20, "{}", bytes.len());
    let out = check("budget.glb", &bytes, &BTreeMap::new());
    // The first clip fits (its spline is resampled as closely as the limit allows: W0708),
    // the second runs out.
    assert_eq!(
        codes(&out),
        ["W0708", "W0708", "E0710"],
        "{:?}",
        out.diagnostics
    );
    let m = &out.diagnostics[2].message;
    assert!(
        m.contains("`Second.animseq`") && m.contains("budget of"),
        "{m}"
    );
}

#[test]
fn the_generated_benchmark_model_imports_alike_on_any_number_of_threads() {
    // 10.9 MB, 20 clips: converted in parallel batches (`check` compares 1 and 4 threads).
    let out = check("big.glb", &big_model::big_model(), &BTreeMap::new());
    assert_eq!(out.manifest.clips.len(), big_model::CLIPS);
    assert!(out.diagnostics.iter().all(|d| !d.is_error()));
}

/// The fuzz target's body over its seeds and every input the fuzzer once found
/// (`fuzz/seeds/import/`, named after what they found).
#[test]
fn fuzz_seeds_and_findings_import_cleanly() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/import");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fuzz/seeds/import")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    assert!(files.len() >= 2, "{files:?}");
    for f in files {
        import_exercise::exercise(&std::fs::read(&f).expect("seed"));
    }
}
