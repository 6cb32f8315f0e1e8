//! Fuzz target: the `.bpg` parser on arbitrary UTF-8 never panics, and clean inputs format
//! idempotently to an equal tree (`sinew::graph::fmt::check_round_trip`); `expr` parsing and
//! evaluation of the same text never panic either.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = sinew::graph::fmt::check_round_trip(text) {
        panic!("{e}");
    }
    if let Ok(p) = sinew::graph::expr::parse(text) {
        let inputs = vec![1.5; p.inputs.len()];
        let _ = sinew::graph::expr::eval(&p.root, &inputs);
    }
});
