//! Fuzz target: arbitrary bytes → decode → verify → disassemble → run every handler (and its
//! continuations) under a small budget with a no-op host — the body `tests/bytecode.rs` shares.
#![no_main]

#[path = "../../tests/support/bytecode_exercise.rs"]
mod exercise;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    exercise::exercise(data);
});
