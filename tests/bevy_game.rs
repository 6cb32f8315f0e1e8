//! The example game (`examples/bevy_game.rs`) runs as a player would see it: footsteps heard by
//! an observer, the hit window striking the dummy through a game node bound to a Bevy system,
//! the game's `custom::hit` reaching the hero's graph, which asks the game for its health. Its
//! log is one snapshot; it must be the same on a second run (fixed frame steps).

#[allow(dead_code)]
#[path = "../examples/bevy_game.rs"]
mod game;

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/bevy_game/assets")
}

#[test]
fn the_example_game_hears_footsteps_strikes_through_a_game_node_and_answers_hits() {
    let lines = game::run(&root(), 90).expect("the game runs");
    let text = lines.join("\n");
    // What the issue asks of it, stated before the snapshot (so a changed snapshot cannot
    // quietly accept a game that lost one of them).
    for want in [
        "sound: left step on stone (volume 0.8)",
        "sound: right step on stone (volume 0.9)",
        "game: the hero swings",
        "game: the dummy takes 12 damage",
        "graph log: hero  hero: dummy health left: 88.0",
        "game: the hero is hit, health 70",
        "graph log: hero  hero: shrugs it off",
        "game: the hero is hit, health 40",
        "graph log: hero  hero: badly hurt",
    ] {
        assert!(text.contains(want), "missing {want:?} in:\n{text}");
    }
    assert_eq!(
        game::run(&root(), 90).expect("the game runs again"),
        lines,
        "the same frames give the same game"
    );
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("bevy_game", text);
    });
}
