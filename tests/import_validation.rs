//! Imported models in `sinew check` and `sinew run` (`docs/import.md` "Validation"): the
//! generated manifests are read through the library loader, so a missing source, a stale
//! fingerprint, a missing generated file, two manifests with one UUID, an `Imported(model,
//! clip)` reference that resolves to no clip and a clip on a rig with another skeleton signature
//! are diagnostics of both commands. Fixture project: `tests/fixtures/imported/` plus the
//! bundled `assets/models/fox_footsteps.glb` (with its sidecar) and
//! `tests/fixtures/models/SimpleSkin.gltf`, imported with the real `sinew import` into a
//! temporary folder; each case changes that folder, then checks and runs one scene (one
//! snapshot per case).

use std::path::Path;
use std::process::Command;

use serde_json::Value;
use sinew::import::AnimManifest;

const FOX: &str = "ded83416-ab6f-474b-9676-de99af79d229";
const SKIN: &str = "5473eea4-4dd5-4860-bd3d-87fd3ae04744";

/// Runs `sinew ARGS` in `dir`: (status, stdout, stderr).
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

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("fixture folder") {
        let e = e.expect("entry");
        let dest = to.join(e.file_name());
        if e.file_type().expect("type").is_dir() {
            copy_tree(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).expect("copy");
        }
    }
}

/// The fixture project with both models imported.
fn project() -> tempfile::TempDir {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().expect("tempdir");
    copy_tree(&root.join("tests/fixtures/imported"), tmp.path());
    let models = tmp.path().join("assets/models");
    for (from, name) in [
        ("assets/models/fox_footsteps.glb", "fox_footsteps.glb"),
        (
            "assets/models/fox_footsteps.glb.meta",
            "fox_footsteps.glb.meta",
        ),
        ("tests/fixtures/models/SimpleSkin.gltf", "SimpleSkin.gltf"),
    ] {
        std::fs::copy(root.join(from), models.join(name)).expect("copy model");
    }
    let (status, _, err) = sinew(tmp.path(), &["import", "assets/models"]);
    assert_eq!(status, 0, "{err}");
    tmp
}

fn generated(p: &Path, model: &str) -> std::path::PathBuf {
    p.join("assets/animations/generated").join(model)
}

/// Rewrites the manifest of `model` through `edit`.
fn edit_manifest(p: &Path, model: &str, edit: impl FnOnce(&mut AnimManifest)) {
    let f = generated(p, model).join("manifest.ron");
    let mut m = AnimManifest::from_ron(&std::fs::read_to_string(&f).expect("manifest"))
        .expect("valid manifest");
    edit(&mut m);
    std::fs::write(f, m.to_ron()).expect("write manifest");
}

struct Outcome {
    check: i32,
    run: i32,
    codes: Vec<String>,
    run_out: String,
}

/// `sinew check SCENE` (human, under snapshot `import_validation_NAME`, and JSON for the codes)
/// and `sinew run SCENE --ticks 30` (its status and stderr in the snapshot too) in `p`.
fn check(name: &str, p: &Path, scene: &str) -> Outcome {
    let (status, out, err) = sinew(p, &["check", scene]);
    let (json_status, json, _) = sinew(p, &["check", scene, "--format", "json"]);
    assert_eq!(status, json_status);
    let v: Value = serde_json::from_str(&json).expect("JSON report");
    let codes = v["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["code"].as_str().unwrap_or_default().to_string())
        .collect();
    let (run, run_out, run_err) = sinew(p, &["run", scene, "--ticks", "30"]);
    assert!(run == 0 || run == 1, "run exit {run}: {run_err}");
    let report = format!(
        "check status: {status}\n--- check stdout\n{out}--- check stderr\n{err}\
         --- run status: {run}\n--- run stdout\n{run_out}--- run stderr\n{run_err}"
    );
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(format!("import_validation_{name}"), report);
    });
    Outcome {
        check: status,
        run,
        codes,
        run_out,
    }
}

#[test]
fn an_imported_clip_named_by_identity_plays_and_fires_its_authored_notify() {
    let p = project();
    let o = check("ok", p.path(), "scenes/fox.scene.ron");
    assert_eq!((o.check, o.run), (0, 0));
    assert!(o.codes.is_empty(), "{:?}", o.codes);
    // Walk is 0.7083 s with `footstep_l` at 0.125: in 30 ticks at 60 Hz (0.5 s) it fires once.
    assert_eq!(
        o.run_out.matches("Walk / Footstep L").count(),
        1,
        "{}",
        o.run_out
    );
    assert!(
        o.run_out.contains("fox steps with its left"),
        "{}",
        o.run_out
    );
    // The model moved with its sidecar and was re-imported: the reference still resolves.
    std::fs::create_dir_all(p.path().join("assets/models/animals")).expect("mkdir");
    for f in ["fox_footsteps.glb", "fox_footsteps.glb.meta"] {
        std::fs::rename(
            p.path().join("assets/models").join(f),
            p.path().join("assets/models/animals").join(f),
        )
        .expect("move");
    }
    let (status, _, err) = sinew(p.path(), &["import", "assets/models/animals"]);
    assert_eq!(status, 0, "{err}");
    let (status, _, err) = sinew(p.path(), &["run", "scenes/fox.scene.ron", "--ticks", "1"]);
    assert_eq!(status, 0, "{err}");
}

#[test]
fn a_changed_source_is_stale_for_the_scenes_that_use_it() {
    let p = project();
    let glb = p.path().join("assets/models/fox_footsteps.glb");
    let mut bytes = std::fs::read(&glb).expect("read");
    bytes.extend_from_slice(b"    ");
    std::fs::write(&glb, bytes).expect("write");
    let o = check("stale", p.path(), "scenes/fox.scene.ron");
    assert_eq!((o.check, o.run), (1, 1));
    assert_eq!(o.codes, ["E0717"]);
    // By path too.
    let (status, _, err) = sinew(p.path(), &["run", "scenes/by_path.scene.ron"]);
    assert_eq!(status, 1, "{err}");
    assert!(err.contains("error[E0717]"), "{err}");
    // A scene that uses no imported model still runs, with the manifest's problem as a
    // warning; `check` reports the assets folder's problems either way.
    let o = check("stale_unrelated", p.path(), "scenes/unrelated.scene.ron");
    assert_eq!((o.check, o.run), (1, 0));
    assert_eq!(o.codes, ["E0717"]);
}

#[test]
fn a_missing_source_model() {
    let p = project();
    std::fs::remove_file(p.path().join("assets/models/fox_footsteps.glb")).expect("rm");
    let o = check("missing_source", p.path(), "scenes/fox.scene.ron");
    assert_eq!((o.check, o.run), (1, 1));
    assert_eq!(o.codes, ["E0716"]);
}

#[test]
fn a_missing_generated_clip() {
    let p = project();
    std::fs::remove_file(generated(p.path(), FOX).join("Walk.animseq")).expect("rm");
    let o = check("missing_clip", p.path(), "scenes/fox.scene.ron");
    assert_eq!((o.check, o.run), (1, 1));
    // The clip is gone, so is its notify: the graph handling it no longer compiles.
    assert_eq!(o.codes, ["E0718", "E0312", "E0561", "E0562"]);
}

#[test]
fn two_manifests_with_one_uuid_are_never_first_wins() {
    let p = project();
    copy_tree(&generated(p.path(), FOX), &generated(p.path(), "fox-copy"));
    let o = check("duplicate", p.path(), "scenes/fox.scene.ron");
    assert_eq!((o.check, o.run), (1, 1));
    // The copy's clips also claim the same sequence IDs: the catalog quarantines them (E0201),
    // so the graph's event is quarantined too (E0313).
    let mine: Vec<&str> = o
        .codes
        .iter()
        .map(String::as_str)
        .filter(|c| c.starts_with("E07"))
        .collect();
    assert_eq!(mine, ["E0719", "E0720"]);
    assert!(o.codes.contains(&"E0201".to_string()), "{:?}", o.codes);
}

#[test]
fn references_that_resolve_to_no_clip() {
    let p = project();
    let o = check("unresolved", p.path(), "scenes/unresolved.scene.ron");
    assert_eq!((o.check, o.run), (1, 1));
    assert_eq!(o.codes, ["E0720", "E0720"]);
    // A model whose import was blocked has no clips: the reference says why.
    edit_manifest(p.path(), FOX, |m| {
        m.runtime_supported = false;
        m.clips.clear();
        m.skeletons.clear();
        m.diagnostics.push(sinew::import::ManifestDiagnostic {
            severity: sinew::diag::Severity::Error,
            code: "E0707".into(),
            message: "the animations reach 2 top-level roots".into(),
        });
    });
    let (status, out, _) = sinew(p.path(), &["check", "scenes/fox.scene.ron"]);
    assert_eq!(status, 1);
    assert!(
        out.contains("its import was blocked: E0707: the animations reach 2 top-level roots"),
        "{out}"
    );
}

#[test]
fn a_clip_of_another_rig_must_retarget() {
    let p = project();
    // With its own generated skeleton the clip retargets onto the fox: no E0721.
    let (status, out, _) = sinew(
        p.path(),
        &["check", "scenes/other_rig.scene.ron", "--format", "json"],
    );
    assert!(!out.contains("E0721"), "{out}");
    assert_eq!(status, 0, "{out}");
    // Without it, it would play on the fox by bone name: a blocking error.
    std::fs::remove_file(generated(p.path(), SKIN).join("SimpleSkin.skel")).expect("rm");
    let o = check("signature", p.path(), "scenes/other_rig.scene.ron");
    assert_eq!((o.check, o.run), (1, 1));
    assert!(o.codes.contains(&"E0721".to_string()), "{:?}", o.codes);
    assert!(o.codes.contains(&"E0718".to_string()), "{:?}", o.codes);
}

#[test]
fn bad_manifests() {
    let p = project();
    let dir = p.path().join("assets/animations/generated");
    std::fs::create_dir_all(dir.join("garbage")).expect("mkdir");
    std::fs::write(dir.join("garbage/manifest.ron"), "AnimManifest(format: 1").expect("write");
    // A folder without a manifest is not an import.
    std::fs::create_dir_all(dir.join("empty")).expect("mkdir");
    // A manifest naming a file outside its folder is refused whole.
    edit_manifest(p.path(), SKIN, |m| {
        m.clips[0].file = "../../../steps.animseq".into()
    });
    // A source outside the project is not checked.
    edit_manifest(p.path(), FOX, |m| {
        m.source = "../../../../elsewhere/fox.glb".into()
    });
    let o = check("bad_manifest", p.path(), "scenes/unrelated.scene.ron");
    assert_eq!((o.check, o.run), (1, 0));
    assert_eq!(o.codes, ["E0722", "W0711", "E0722"]);
}
