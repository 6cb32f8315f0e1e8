//! Fuzz target for notify crossings: builds a `NotifyIndex` from arbitrary bytes (durations and
//! times from raw f64 bits or chosen to sit on loop points) and checks every query's invariants
//! against the brute-force reference shared with `tests/crossings.rs`.
#![no_main]

#[path = "../../tests/support/crossing_reference.rs"]
#[allow(dead_code)]
mod reference;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    reference::fuzz_one(data);
});
