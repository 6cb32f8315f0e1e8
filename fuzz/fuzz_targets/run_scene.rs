//! Fuzz target: a scene, a graph and a clip (separated by `0xFF`) → `project::load` → spawn →
//! a few ticks, the trace written in both formats — the body `tests/hostile.rs` shares with
//! the seeds in `fuzz/seeds/scene/`.
#![no_main]

#[path = "../../tests/support/scene_exercise.rs"]
mod exercise;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = exercise::exercise(data);
});
