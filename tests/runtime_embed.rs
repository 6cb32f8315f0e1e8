//! Runs `examples/embed.rs` (the embedding walkthrough) and checks what it prints.

#[path = "../examples/embed.rs"]
mod embed;

fn check(ticks: u32, expected: &[&str]) {
    assert_eq!(embed::run(ticks), expected);
}

#[test]
fn embed_example_runs_in_update_order() {
    // dt = 0.1: tick n covers ((n−1)·0.1, n·0.1]; markers at 0.25, 0.75 fall in ticks 3 and 8.
    check(
        10,
        &[
            "tick 1: begin_play",
            "tick 3: footstep at 0.25 on [Str(\"grass\")]",
            "tick 8: footstep at 0.75 on [Str(\"grass\")]",
            "footsteps counted: 2",
        ],
    );
}

#[test]
fn embed_example_main_runs() {
    embed::main();
}
