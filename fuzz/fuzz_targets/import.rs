//! Fuzz target: arbitrary bytes as a `.glb`, as `.gltf` JSON (also wrapped into a GLB) and as
//! `.fbx` — the body `tests/import.rs` shares with the seeds and findings in
//! `fuzz/seeds/import/` (`tests/support/import_exercise.rs`).
#![no_main]

#[path = "../../tests/support/import_exercise.rs"]
mod exercise;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    exercise::exercise(data);
});
