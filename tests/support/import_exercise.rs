//! The body of the `import` fuzz target, shared with `tests/import.rs` (which runs every seed
//! and every input the fuzzer once found in `fuzz/seeds/import/`): arbitrary bytes as a
//! `.glb`, as `.gltf` JSON (also wrapped into a GLB's JSON chunk with the same bytes as BIN,
//! so the container checks pass and the document is reached) and as `.fbx`. Import must end
//! in diagnostics, never a panic; a blocked import has an error and no clips; every generated
//! `.animseq` and `.skel` loads back cleanly; the manifest reads back as itself.
#![allow(dead_code)]

use sinew::diag::SourceFile;
use sinew::import::{Identity, import};
use std::collections::BTreeMap;

/// `json` and `bin` as the two chunks of a GLB file.
pub fn glb(json: &[u8], bin: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(&(json.len() as u32).to_le_bytes());
    body.extend_from_slice(b"JSON");
    body.extend_from_slice(json);
    body.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    body.extend_from_slice(b"BIN\0");
    body.extend_from_slice(bin);
    let mut out = b"glTF".to_vec();
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&((12 + body.len()) as u32).to_le_bytes());
    out.extend_from_slice(&body);
    out
}

fn one(name: &str, bytes: &[u8], externals: &BTreeMap<String, Vec<u8>>) {
    let id = Identity {
        model: uuid::Uuid::from_u128(1),
        source: name.to_string(),
    };
    let out = import(name, bytes, &id, externals);
    if !out.manifest.runtime_supported {
        assert!(out.diagnostics.iter().any(|d| d.is_error()));
        assert!(out.assets.is_empty() && out.manifest.clips.is_empty());
        return;
    }
    for a in &out.assets {
        let text = a.text();
        let src = SourceFile::new(a.file.as_str(), text.as_str());
        if a.file.ends_with(".skel") {
            let l = sinew::anim::load_skeleton(&src);
            assert!(
                l.diagnostics.is_empty(),
                "{}: {:?}\n{text}",
                a.file,
                l.diagnostics
            );
        } else {
            let l = sinew::animseq::load(&src);
            assert!(
                l.diagnostics.is_empty(),
                "{}: {:?}\n{text}",
                a.file,
                l.diagnostics
            );
        }
    }
    let text = out.manifest.to_ron();
    assert_eq!(
        sinew::import::AnimManifest::from_ron(&text).as_ref(),
        Ok(&out.manifest)
    );
}

/// Imports `data` every way the fuzz target does (the input is also the external buffer
/// `a.bin` a `.gltf` may name).
pub fn exercise(data: &[u8]) {
    let ext = BTreeMap::from([("a.bin".to_string(), data.to_vec())]);
    one("fuzz.glb", data, &ext);
    one("fuzz.gltf", data, &ext);
    one("fuzz.fbx", data, &ext);
    one("wrapped.glb", &glb(data, data), &ext);
}
