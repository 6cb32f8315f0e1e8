//! `sinew import` and `sinew sample` end to end on real folders: sidecars, idempotent
//! re-import, moves reconciled by fingerprint, copies and duplicate UUIDs, ambiguity, blocked
//! models, exit statuses and JSON shapes (contract: import.md, cli.md).

#[path = "support/gltf_gen.rs"]
mod gltf_gen;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn sinew(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run sinew");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/models")
        .join(name)
}

/// A project folder with `assets/models/` holding the given fixture models.
fn project(models: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let m = dir.path().join("assets/models");
    std::fs::create_dir_all(&m).expect("mkdir");
    for name in models {
        std::fs::copy(fixture(name), m.join(name)).expect("copy");
    }
    dir
}

fn json(s: &str) -> Value {
    serde_json::from_str(s.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {s}"))
}

fn import_json(dir: &Path, args: &[&str]) -> (i32, Value, String) {
    let mut a = vec!["import", "--format", "json"];
    a.extend_from_slice(args);
    let (code, out, err) = sinew(dir, &a);
    (code, json(&out), err)
}

fn uuid_of_sidecar(p: &Path) -> String {
    let text = std::fs::read_to_string(p).expect("sidecar");
    text.split('"').nth(1).expect("uuid").to_string()
}

/// Every file under `dir` with its bytes and modification time.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>, std::time::SystemTime)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let m = std::fs::metadata(&p)
                    .and_then(|m| m.modified())
                    .expect("mtime");
                out.push((p.clone(), std::fs::read(&p).expect("read"), m));
            }
        }
    }
    out.sort();
    out
}

fn codes(model: &Value) -> Vec<String> {
    model["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["code"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn import_folder_writes_sidecars_and_manifests_and_reimport_changes_nothing() {
    let p = project(&["Fox.glb", "SimpleSkin.gltf"]);
    let (code, v, err) = import_json(p.path(), &["assets/models"]);
    assert_eq!(code, 0, "{err}");
    let models = v["models"].as_array().expect("models");
    assert_eq!(models.len(), 2);
    let fox = &models[0];
    assert_eq!(fox["source"], "models/Fox.glb");
    assert_eq!(fox["file"], "assets/models/Fox.glb");
    assert_eq!(fox["runtime_supported"], true);
    assert_eq!(fox["clips"].as_array().expect("clips").len(), 3);
    let uuid = uuid_of_sidecar(&p.path().join("assets/models/Fox.glb.meta"));
    assert_eq!(fox["model"], uuid.as_str());
    assert_eq!(fox["out"], format!("assets/animations/generated/{uuid}"));
    let folder = p.path().join(format!("assets/animations/generated/{uuid}"));
    for f in [
        "manifest.ron",
        "Fox.skel",
        "Survey.animseq",
        "Walk.animseq",
        "Run.animseq",
    ] {
        assert!(folder.join(f).is_file(), "{f}");
    }
    // The catalog reads the generated clips (no diagnostics), and `check` still passes.
    let (code, out, err) = sinew(p.path(), &["catalog", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(json(&out)["diagnostics"], serde_json::json!([]));

    let before = snapshot(p.path());
    std::thread::sleep(std::time::Duration::from_millis(20));
    let (code, v2, _) = import_json(p.path(), &["assets/models/Fox.glb", "assets/models"]);
    assert_eq!(code, 0);
    assert_eq!(
        v2["models"].as_array().map(Vec::len),
        Some(2),
        "one entry per file"
    );
    assert_eq!(
        snapshot(p.path()),
        before,
        "re-import rewrote or changed a file"
    );

    let (code, out, _) = sinew(p.path(), &["import", "assets/models/Fox.glb"]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("imported assets/models/Fox.glb → assets/animations/generated/"),
        "{out}"
    );
    assert!(
        out.contains("1 skeleton(s), 3 clip(s), 0 marker(s)"),
        "{out}"
    );
}

#[test]
fn a_moved_model_without_its_sidecar_keeps_its_identity() {
    let p = project(&["Fox.glb"]);
    let (code, v, _) = import_json(p.path(), &["assets/models"]);
    assert_eq!(code, 0);
    let uuid = v["models"][0]["model"].as_str().expect("uuid").to_string();
    let models = p.path().join("assets/models");
    std::fs::create_dir_all(models.join("animals")).expect("mkdir");
    std::fs::rename(models.join("Fox.glb"), models.join("animals/fox2.glb")).expect("move");
    std::fs::remove_file(models.join("Fox.glb.meta")).expect("rm");
    let (code, v, err) = import_json(p.path(), &["assets/models/animals/fox2.glb"]);
    assert_eq!(code, 0, "{err}");
    let m = &v["models"][0];
    assert_eq!(m["model"], uuid.as_str());
    assert_eq!(m["source"], "models/animals/fox2.glb");
    assert_eq!(codes(m), ["W0709"]);
    assert_eq!(uuid_of_sidecar(&models.join("animals/fox2.glb.meta")), uuid);
}

#[test]
fn copies_get_new_identities_unless_their_sidecar_came_along() {
    let p = project(&["Fox.glb"]);
    let models = p.path().join("assets/models");
    let (code, v, _) = import_json(p.path(), &["assets/models"]);
    assert_eq!(code, 0);
    let uuid = v["models"][0]["model"].as_str().expect("uuid").to_string();
    // A copy without the sidecar: the original still owns the UUID, so the copy is new.
    std::fs::copy(models.join("Fox.glb"), models.join("Copy.glb")).expect("copy");
    let (code, v, err) = import_json(p.path(), &["assets/models/Copy.glb"]);
    assert_eq!(code, 0, "{err}");
    assert_ne!(v["models"][0]["model"], uuid.as_str());
    // A copy with the sidecar: two sidecars claim one UUID.
    std::fs::copy(models.join("Fox.glb"), models.join("Twin.glb")).expect("copy");
    std::fs::copy(models.join("Fox.glb.meta"), models.join("Twin.glb.meta")).expect("copy");
    let (code, v, _) = import_json(p.path(), &["assets/models"]);
    assert_eq!(code, 1);
    let all = v["models"].as_array().expect("models");
    let fox = all
        .iter()
        .find(|m| m["file"] == "assets/models/Fox.glb")
        .expect("fox");
    assert_eq!(codes(fox), ["E0714"]);
    let msg = fox["diagnostics"][0]["message"].as_str().expect("msg");
    assert!(
        msg.contains("assets/models/Fox.glb and assets/models/Twin.glb"),
        "{msg}"
    );
    // Alone, the twin is still a duplicate of the original (which keeps its manifest).
    let (code, v, _) = import_json(p.path(), &["assets/models/Twin.glb"]);
    assert_eq!(code, 1);
    assert_eq!(codes(&v["models"][0]), ["E0714"]);
}

#[test]
fn a_fingerprint_matching_several_manifests_is_never_first_wins() {
    let p = project(&["SimpleSkin.gltf"]);
    let models = p.path().join("assets/models");
    std::fs::copy(models.join("SimpleSkin.gltf"), models.join("B.gltf")).expect("copy");
    let (code, _, err) = sinew(p.path(), &["import", "assets/models"]);
    assert_eq!(code, 0, "{err}");
    // Both originals gone and their sidecars lost; the same bytes reappear elsewhere.
    std::fs::rename(models.join("SimpleSkin.gltf"), p.path().join("C.gltf")).expect("move");
    for f in ["B.gltf", "B.gltf.meta", "SimpleSkin.gltf.meta"] {
        std::fs::remove_file(models.join(f)).expect("rm");
    }
    let (code, v, _) = import_json(p.path(), &["C.gltf"]);
    assert_eq!(code, 1);
    let m = &v["models"][0];
    assert_eq!(codes(m), ["E0713"]);
    assert_eq!(m["model"], Value::Null);
    assert!(
        !p.path().join("C.gltf.meta").exists(),
        "no identity is chosen"
    );
}

#[test]
fn a_blocked_model_keeps_a_manifest_and_loses_its_clips() {
    let p = project(&["SimpleSkin.gltf"]);
    let (code, v, _) = import_json(p.path(), &["assets/models"]);
    assert_eq!(code, 0);
    let out = p.path().join(v["models"][0]["out"].as_str().expect("out"));
    assert!(out.join("Animation0.animseq").is_file());
    std::fs::write(
        p.path().join("assets/models/SimpleSkin.gltf"),
        b"{\"asset\": ",
    )
    .expect("write");
    let (code, v, _) = import_json(p.path(), &["assets/models"]);
    assert_eq!(code, 1);
    assert_eq!(codes(&v["models"][0]), ["E0701"]);
    assert_eq!(v["models"][0]["diagnostics"][0]["severity"], "error");
    let manifest = std::fs::read_to_string(out.join("manifest.ron")).expect("manifest");
    assert!(manifest.contains("runtime_supported: false"), "{manifest}");
    assert!(manifest.contains("code: \"E0701\""), "{manifest}");
    assert!(!out.join("Animation0.animseq").exists() && !out.join("SimpleSkin.skel").exists());
}

#[test]
fn exit_statuses_and_bad_sidecars() {
    let p = project(&["SimpleSkin.gltf"]);
    // A missing path is an I/O failure; the other models still import.
    let (code, v, err) = import_json(p.path(), &["nope.glb", "assets/models"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot read nope.glb"), "{err}");
    assert_eq!(v["models"].as_array().map(Vec::len), Some(1));
    std::fs::write(
        p.path().join("assets/models/SimpleSkin.gltf.meta"),
        "ModelMeta(uuid: \"x\")",
    )
    .expect("write");
    let (code, v, _) = import_json(p.path(), &["assets/models"]);
    assert_eq!(code, 1);
    assert_eq!(codes(&v["models"][0]), ["E0712"]);
    // Sidecars and models are read through the bounded reader: an oversized sidecar is the
    // sidecar error, never read whole.
    std::fs::write(
        p.path().join("assets/models/SimpleSkin.gltf.meta"),
        " ".repeat(64 * 1024 + 1),
    )
    .expect("write");
    let (code, v, _) = import_json(p.path(), &["assets/models"]);
    assert_eq!(code, 1);
    assert_eq!(codes(&v["models"][0]), ["E0712"]);
    let message = v["models"][0]["diagnostics"][0]["message"].to_string();
    assert!(message.contains("limited to 64 KiB"), "{message}");
    let (code, _, err) = sinew(p.path(), &["import"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn sample_prints_local_transforms() {
    let p = project(&["Fox.glb"]);
    let (_, v, _) = import_json(p.path(), &["assets/models"]);
    let out = v["models"][0]["out"].as_str().expect("out").to_string();
    let walk = format!("{out}/Walk.animseq");
    let (code, o, err) = sinew(
        p.path(),
        &["sample", &walk, "--at=0.25", "--format", "json"],
    );
    assert_eq!(code, 0, "{err}");
    let s = json(&o);
    assert_eq!(s["time"], 0.25);
    let bones = s["bones"].as_array().expect("bones");
    assert_eq!(
        bones.len(),
        25,
        "tracks first, then the skeleton's other bones"
    );
    assert_eq!(bones[0]["bone"], "b_Hip_01");
    let root = bones
        .iter()
        .find(|b| b["bone"] == "root")
        .expect("untracked root");
    assert_eq!(root["rotation"], serde_json::json!([0.0, 0.0, 0.0, 1.0]));
    assert_eq!(bones[0]["rotation"].as_array().map(Vec::len), Some(4));
    // Negative times clamp to 0; `--at -1` and `--at=-1` both parse.
    let (code, o, _) = sinew(
        p.path(),
        &[
            "sample", &walk, "--at", "-1", "--bone", "B_HIP_01", "--format", "json",
        ],
    );
    assert_eq!(code, 0);
    let s = json(&o);
    assert_eq!(s["time"], 0.0);
    assert_eq!(s["bones"].as_array().map(Vec::len), Some(1));
    let (code, o, _) = sinew(p.path(), &["sample", &walk, "--at=99"]);
    assert_eq!(code, 0);
    assert!(
        o.starts_with("Walk at 0.7083333 s (clamped from 99.0)"),
        "{o}"
    );
    let (code, _, err) = sinew(p.path(), &["sample", &walk, "--at=0", "--bone", "b_Hip_1"]);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean `b_Hip_01`?"), "{err}");
    let (code, _, _) = sinew(p.path(), &["sample", "missing.animseq", "--at=0"]);
    assert_eq!(code, 2);
}

// ------------------------------------------------- the importer stays inside the project

/// A folder holding `secret/` (outside the project) and `proj/` (the project, with
/// `assets/models/`).
fn outside_and_project() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let secret = dir.path().join("secret");
    let proj = dir.path().join("proj");
    std::fs::create_dir_all(&secret).expect("mkdir");
    std::fs::create_dir_all(proj.join("assets/models")).expect("mkdir");
    (dir, secret, proj)
}

/// A one-joint model with one translation clip, as `.gltf` naming external buffer `uri`.
fn external_model(uri: &str) -> (Vec<u8>, Vec<u8>) {
    let mut g = gltf_gen::Gen::new();
    let root = g.node(Some("root"), None);
    let hips = g.node(Some("hips"), Some(root));
    g.skin(None, &[hips]);
    let a = g.animation(Some("Walk"));
    g.channel(
        a,
        hips,
        gltf_gen::Path::Translation,
        None,
        &[0.0, 1.0],
        &[0.0, 0.0, 0.0, 1.0, 2.0, 3.0],
    );
    g.gltf_external(uri)
}

/// Every file under `dir` (links not followed) with its bytes.
fn contents(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .expect("dir")
        .flatten()
        .map(|e| (e.path(), std::fs::read(e.path()).unwrap_or_default()))
        .collect();
    out.sort();
    out
}

#[cfg(unix)]
#[test]
fn buffers_outside_the_model_folder_and_the_project_are_never_read() {
    let (_dir, secret, proj) = outside_and_project();
    let (_, bin) = external_model("x.bin");
    std::fs::write(secret.join("key.bin"), &bin).expect("write");
    let models = proj.join("assets/models");
    // `..` climbing out of the project, and a link inside the model's folder leading out.
    let (climb, _) = external_model("../../../secret/key.bin");
    std::fs::write(models.join("climb.gltf"), climb).expect("write");
    std::os::unix::fs::symlink(secret.join("key.bin"), models.join("link.bin")).expect("link");
    let (link, _) = external_model("link.bin");
    std::fs::write(models.join("link.gltf"), link).expect("write");
    // A buffer elsewhere in the project (`..` that stays inside) is read.
    std::fs::create_dir_all(proj.join("shared")).expect("mkdir");
    std::fs::write(proj.join("shared/ok.bin"), &bin).expect("write");
    let (inside, _) = external_model("../../shared/ok.bin");
    std::fs::write(models.join("inside.gltf"), inside).expect("write");

    let (code, v, err) = import_json(&proj, &["assets/models"]);
    assert_eq!(code, 1, "{err}");
    let by_file = |f: &str| {
        v["models"]
            .as_array()
            .expect("models")
            .iter()
            .find(|m| m["file"] == f)
            .unwrap_or_else(|| panic!("{f}: {v}"))
            .clone()
    };
    for (file, uri, why) in [
        (
            "assets/models/climb.gltf",
            "../../../secret/key.bin",
            "leads outside the model's folder and the project",
        ),
        (
            "assets/models/link.gltf",
            "link.bin",
            "leads outside the project through a symbolic link",
        ),
    ] {
        let m = by_file(file);
        assert_eq!(codes(&m), ["E0704"], "{m}");
        let msg = m["diagnostics"][0]["message"].as_str().expect("message");
        assert!(
            msg.contains(&format!("`{uri}`")) && msg.contains(why),
            "{msg}"
        );
        assert_eq!(m["runtime_supported"], false);
    }
    let ok = by_file("assets/models/inside.gltf");
    assert_eq!(ok["runtime_supported"], true, "{ok}");
}

#[cfg(unix)]
#[test]
fn output_folders_and_files_leading_out_are_refused_and_nothing_outside_changes() {
    let (_dir, secret, proj) = outside_and_project();
    std::fs::copy(
        fixture("SimpleSkin.gltf"),
        proj.join("assets/models/SimpleSkin.gltf"),
    )
    .expect("copy");
    let (code, v, err) = import_json(&proj, &["assets/models"]);
    assert_eq!(code, 0, "{err}");
    let out = proj.join(v["models"][0]["out"].as_str().expect("out"));
    let generated = proj.join("assets/animations/generated");

    // 1. A generated file that is a link to a file outside: never overwritten.
    std::fs::write(secret.join("victim.animseq"), "precious").expect("write");
    std::fs::remove_file(out.join("Animation0.animseq")).expect("rm");
    std::os::unix::fs::symlink(
        secret.join("victim.animseq"),
        out.join("Animation0.animseq"),
    )
    .expect("link");
    let (code, v, _) = import_json(&proj, &["assets/models"]);
    assert_eq!(code, 1);
    assert_eq!(codes(&v["models"][0]), ["E0723"], "{v}");
    assert!(
        v["models"][0]["diagnostics"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("Animation0.animseq")),
        "{v}"
    );
    assert_eq!(
        std::fs::read_to_string(secret.join("victim.animseq")).expect("victim"),
        "precious"
    );

    // 2. The model's output folder is a link to an outside folder holding `.animseq`/`.skel`
    // files: nothing there is written or removed.
    std::fs::remove_dir_all(&out).expect("rm");
    let elsewhere = secret.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("mkdir");
    std::fs::write(elsewhere.join("Theirs.animseq"), "theirs").expect("write");
    std::fs::write(elsewhere.join("Theirs.skel"), "theirs").expect("write");
    std::os::unix::fs::symlink(&elsewhere, &out).expect("link");
    let before = contents(&elsewhere);
    let (code, v, _) = import_json(&proj, &["assets/models"]);
    assert_eq!(code, 1);
    assert_eq!(codes(&v["models"][0]), ["E0723"], "{v}");
    assert_eq!(v["models"][0]["out"], Value::Null);
    assert_eq!(contents(&elsewhere), before);

    // 3. The `generated` folder above it is such a link: the same.
    std::fs::remove_file(&out).expect("rm");
    std::fs::remove_dir_all(&generated).expect("rm");
    std::os::unix::fs::symlink(&elsewhere, &generated).expect("link");
    let (code, v, _) = import_json(&proj, &["assets/models"]);
    assert_eq!(code, 1);
    assert_eq!(codes(&v["models"][0]), ["E0723"], "{v}");
    assert_eq!(contents(&elsewhere), before);
}

#[cfg(unix)]
#[test]
fn sidecars_are_written_only_inside_the_project() {
    let (dir, _secret, proj) = outside_and_project();
    let away = dir.path().join("away");
    std::fs::create_dir_all(&away).expect("mkdir");
    std::fs::copy(fixture("SimpleSkin.gltf"), away.join("SimpleSkin.gltf")).expect("copy");
    let (code, v, err) = import_json(&proj, &["../away/SimpleSkin.gltf"]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(codes(&v["models"][0]), ["E0723"], "{v}");
    assert!(!away.join("SimpleSkin.gltf.meta").exists());
    assert!(
        !proj.join("assets/animations/generated").exists() || {
            std::fs::read_dir(proj.join("assets/animations/generated"))
                .expect("dir")
                .next()
                .is_none()
        }
    );
    // With a sidecar of its own, the model imports (nothing is written beside it).
    std::fs::write(
        away.join("SimpleSkin.gltf.meta"),
        "ModelMeta(uuid: \"0d2b2f0e-3f7a-4a55-9a4e-7f1c1c1e2b3a\")\n",
    )
    .expect("write");
    let (code, _, err) = import_json(&proj, &["../away/SimpleSkin.gltf"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn reimport_deletes_only_what_a_previous_manifest_listed() {
    let p = project(&["SimpleSkin.gltf"]);
    let (code, v, _) = import_json(p.path(), &["assets/models"]);
    assert_eq!(code, 0);
    let out = p.path().join(v["models"][0]["out"].as_str().expect("out"));
    // The user's own files in the generated folder, of the generated kinds.
    std::fs::write(out.join("Mine.animseq"), "mine").expect("write");
    std::fs::write(out.join("Mine.skel"), "mine").expect("write");
    // The clip is renamed in the source: the old clip file goes, the user's files stay.
    let model = p.path().join("assets/models/SimpleSkin.gltf");
    let text = std::fs::read_to_string(&model).expect("model");
    let renamed = text.replacen(
        "\"animations\":[{",
        "\"animations\":[{\"name\":\"Wave\",",
        1,
    );
    assert_ne!(renamed, text, "could not rename the clip");
    std::fs::write(&model, renamed).expect("write");
    let (code, v, err) = import_json(p.path(), &["assets/models"]);
    assert_eq!(code, 0, "{err} {v}");
    assert!(out.join("Wave.animseq").is_file(), "{v}");
    assert!(!out.join("Animation0.animseq").exists());
    assert_eq!(
        std::fs::read_to_string(out.join("Mine.animseq")).expect("mine"),
        "mine"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("Mine.skel")).expect("mine"),
        "mine"
    );
}

#[test]
fn node_animation_imports_and_samples_like_a_character() {
    // Khronos AnimatedTriangle: one node rotated by a clip, no skin.
    let p = project(&["AnimatedTriangle.gltf"]);
    let (code, v, err) = import_json(p.path(), &["assets/models"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(codes(&v["models"][0]), Vec::<String>::new(), "{v}");
    assert_eq!(
        v["models"][0]["skeletons"][0]["file"],
        "AnimatedTriangle.skel"
    );
    assert_eq!(v["models"][0]["clips"][0]["duration"], 1.0);
    let out = v["models"][0]["out"].as_str().expect("out").to_string();
    let clip = format!("{out}/Animation0.animseq");
    let (code, o, err) = sinew(
        p.path(),
        &["sample", &clip, "--at=0.25", "--format", "json"],
    );
    assert_eq!(code, 0, "{err}");
    let s = json(&o);
    assert_eq!(s["bones"][0]["bone"], "GltfNode0");
    let r: Vec<f64> = s["bones"][0]["rotation"]
        .as_array()
        .expect("rotation")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect();
    let want = [0.0, 0.0, 0.707, 0.707];
    assert!(
        r.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-3),
        "{r:?}"
    );
}

#[test]
fn a_model_over_the_output_budget_writes_no_generated_file() {
    // 120 skins on one joint 4000 nodes deep: the first skeletons fit the budget and are
    // handed out before the one that crosses it; none of them may land in the folder.
    let p = project(&[]);
    std::fs::write(
        p.path().join("assets/models/deep.gltf"),
        gltf_gen::skins_on_one_deep_joint(4000, 120),
    )
    .expect("write");
    let (code, v, err) = import_json(p.path(), &["assets/models"]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(codes(&v["models"][0]), ["E0710"], "{v}");
    let out = p.path().join(v["models"][0]["out"].as_str().expect("out"));
    let names: Vec<String> = std::fs::read_dir(&out)
        .expect("out")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["manifest.ron"], "staged files must not remain");
}

/// Issue #25: the import session is the application layer's (`app::import`), callable by any
/// front end without the CLI: the same identities, files and manifest as `sinew import`, and
/// nothing printed (what it would say is in `notices`).
#[test]
fn the_import_session_is_callable_without_the_cli() {
    let dir = project(&["SimpleSkin.gltf"]);
    let d = dir.path();
    let ctx = sinew::app::Ctx {
        color: false,
        cwd: Some(d.to_path_buf()),
    };
    let s = sinew::app::import::import(&ctx, &[d.join("assets/models")], &d.join("assets"))
        .expect("session");
    assert!(!s.io_failed && !s.any_error(), "{:?}", s.notices);
    assert!(s.notices.is_empty(), "{:?}", s.notices);
    let [m] = &s.models[..] else {
        panic!("one model")
    };
    let manifest = m.manifest.as_ref().expect("manifest");
    let uuid = uuid_of_sidecar(&d.join("assets/models/SimpleSkin.gltf.meta"));
    assert_eq!(manifest.model, uuid);
    let folder = d
        .join("assets")
        .join(sinew::project::GENERATED.replace('/', std::path::MAIN_SEPARATOR_STR));
    assert!(folder.join(&uuid).join("manifest.ron").is_file());
    // The CLI over the same files changes nothing: one session, two front ends.
    let before = snapshot(d);
    let (code, _, err) = sinew(d, &["import", "assets/models", "--assets", "assets"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(snapshot(d), before);
}
