//! The bundled imported model stays current: `assets/models/fox_footsteps.glb` is the credited
//! `assets/models/Fox.glb` with notifies authored in its `Walk` and `Run` animations' extras
//! (as Blender writes an action's string custom property), and
//! `assets/animations/generated/<uuid>/` holds exactly what importing it produces.
//!
//! After changing the importer or the notifies below, regenerate with
//! `SINEW_REGENERATE=1 cargo test --release --test bundled_fox` (then review the diff).

use serde_json::{Value, json};
use sinew::import::{Identity, identity, import};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The notifies authored on each animation, by name.
fn notifies() -> Vec<(&'static str, Value)> {
    vec![
        (
            "Walk",
            json!([
                {"id": "footstep_l", "name": "Footstep L", "time": 0.125,
                 "fields": {"foot": "left", "volume": 0.6}},
                {"id": "footstep_r", "name": "Footstep R", "time": 0.4583333,
                 "fields": {"foot": "right", "volume": 0.6}},
            ]),
        ),
        (
            "Run",
            json!([
                {"id": "footstep_l", "name": "Footstep L", "time": 0.25,
                 "fields": {"foot": "left", "volume": 1.0}},
                {"id": "footstep_r", "name": "Footstep R", "time": 0.8333333,
                 "fields": {"foot": "right", "volume": 1.0}},
            ]),
        ),
    ]
}

/// The original Fox with the notifies injected as `extras.notifies` strings; the BIN chunk is
/// kept byte for byte.
fn inject(fox: &[u8]) -> Vec<u8> {
    let u32_at =
        |at: usize| u32::from_le_bytes([fox[at], fox[at + 1], fox[at + 2], fox[at + 3]]) as usize;
    let json_len = u32_at(12);
    let json_bytes = &fox[20..20 + json_len];
    let rest = &fox[20 + json_len..];
    let mut v: Value = serde_json::from_slice(json_bytes).expect("fox json");
    for anim in v["animations"].as_array_mut().expect("animations") {
        let name = anim["name"].as_str().unwrap_or_default().to_string();
        if let Some((_, n)) = notifies().into_iter().find(|(a, _)| *a == name) {
            anim["extras"] = json!({"notifies": n.to_string()});
        }
    }
    let mut json_out = serde_json::to_vec(&v).expect("json");
    while !json_out.len().is_multiple_of(4) {
        json_out.push(b' ');
    }
    let mut body = Vec::new();
    body.extend_from_slice(&(json_out.len() as u32).to_le_bytes());
    body.extend_from_slice(b"JSON");
    body.extend_from_slice(&json_out);
    body.extend_from_slice(rest);
    let mut out = b"glTF".to_vec();
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&((12 + body.len()) as u32).to_le_bytes());
    out.extend_from_slice(&body);
    out
}

fn write(p: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    sinew::fsutil::write_atomic(p, bytes).expect("write");
}

#[test]
fn bundled_fox_is_current() {
    let regenerate = std::env::var_os("SINEW_REGENERATE").is_some();
    let models = root().join("assets/models");
    let fox = std::fs::read(models.join("Fox.glb")).expect("assets/models/Fox.glb");
    assert_eq!(
        fox,
        std::fs::read(root().join("tests/fixtures/models/Fox.glb")).expect("fixture"),
        "the credited original stays unmodified"
    );
    let model = models.join("fox_footsteps.glb");
    let bytes = inject(&fox);
    if regenerate {
        write(&model, &bytes);
    }
    assert_eq!(
        std::fs::read(&model).expect("fox_footsteps.glb"),
        bytes,
        "re-run with SINEW_REGENERATE=1"
    );
    let sidecar = models.join(identity::sidecar_name("fox_footsteps.glb"));
    if regenerate && !sidecar.exists() {
        write(
            &sidecar,
            identity::sidecar_text(&uuid::Uuid::new_v4()).as_bytes(),
        );
    }
    let uuid = identity::parse_sidecar(&std::fs::read_to_string(&sidecar).expect("sidecar"))
        .expect("valid sidecar");
    let id = Identity {
        model: uuid,
        source: "models/fox_footsteps.glb".to_string(),
    };
    let out = import(
        "assets/models/fox_footsteps.glb",
        &bytes,
        &id,
        &BTreeMap::new(),
    );
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    assert_eq!(
        out.manifest.clips.iter().map(|c| c.markers).sum::<usize>(),
        4
    );
    let folder = root()
        .join("assets/animations/generated")
        .join(uuid.to_string());
    let mut expected: BTreeMap<PathBuf, Vec<u8>> = out
        .assets
        .iter()
        .map(|a| (folder.join(&a.file), a.text().into_bytes()))
        .collect();
    expected.insert(
        folder.join("manifest.ron"),
        out.manifest.to_ron().into_bytes(),
    );
    if regenerate {
        for (p, b) in &expected {
            write(p, b);
        }
    }
    let mut found = BTreeMap::new();
    for e in std::fs::read_dir(&folder)
        .expect("generated folder")
        .flatten()
    {
        found.insert(e.path(), std::fs::read(e.path()).expect("read"));
    }
    assert_eq!(
        found.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>(),
        "re-run with SINEW_REGENERATE=1"
    );
    for (p, b) in &expected {
        assert!(
            found[p] == *b,
            "{} is stale: re-run with SINEW_REGENERATE=1",
            p.display()
        );
    }
}
