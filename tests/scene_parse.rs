//! `.scene.ron` parsing: the fuzz target's property (`fuzz/fuzz_targets/scene_parse.rs`) run
//! under proptest on random bytes and on mutations of valid scenes, plus defaults.

use proptest::prelude::*;
use sinew::scene::{self, Action, Parsed, RootMotionMode};

const VALID: &str = include_str!("fixtures/scenes/custom_events.scene.ron");
const FULL: &str = include_str!("fixtures/scenes/err/unsupported.scene.ron");

/// The boundary: parse, then check the invariants the fuzz target checks.
fn check(bytes: &[u8]) -> Parsed {
    let parsed = scene::parse_bytes("t.scene.ron", bytes);
    let errors = parsed.diagnostics.iter().any(|d| d.is_error());
    assert_eq!(parsed.scene.is_some(), !errors, "{:?}", parsed.diagnostics);
    for d in &parsed.diagnostics {
        assert!(scene::CODES.contains(&d.code), "{}", d.code);
    }
    if let Some(s) = &parsed.scene {
        for a in &s.actions {
            assert!(a.entity < s.entities.len());
            if let Action::Send(t, _) = &a.action {
                assert!(*t < s.entities.len());
            }
        }
    }
    parsed
}

#[test]
fn defaults_follow_the_spec() {
    let s = check(br#"Scene(entities: [(name: "a", animator: Some(()))])"#)
        .scene
        .expect("valid");
    let a = s.entities[0].animator.as_ref().expect("animator");
    assert_eq!(s.entities[0].position, [0.0; 3]);
    assert!(s.entities[0].graphs.is_empty() && s.actions.is_empty());
    assert!(a.clips.is_empty() && a.layers.is_empty() && a.bone_map.is_empty());
    assert_eq!(a.blend_duration, 0.2);
    assert_eq!(a.root_motion.mode, RootMotionMode::Off);
    assert_eq!(a.default_clip, None);
    let empty = check(b"Scene()").scene.expect("valid");
    assert!(empty.entities.is_empty());
}

#[test]
fn fixtures_parse() {
    let s = check(VALID.as_bytes()).scene.expect("valid");
    assert_eq!(s.entities.len(), 3);
    assert_eq!(
        s.actions[3].action,
        Action::Send(1, "custom::unhandled".into())
    );
    let full = check(FULL.as_bytes()).scene.expect("valid with a warning");
    let a = full.entities[0].animator.as_ref().expect("animator");
    assert_eq!(
        a.layers[0].mask.as_deref(),
        Some(&["spine".to_string(), "!neck".to_string()][..])
    );
    assert_eq!(a.root_motion.mode, RootMotionMode::Transform);
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let text = format!(
        "Scene(entities: {}{})",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    assert!(check(text.as_bytes()).scene.is_none());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        check(&bytes);
    }

    #[test]
    fn mutated_scenes_never_panic(
        at in 0usize..VALID.len(),
        len in 0usize..8,
        insert in "[\\[\\](){}:,\"a-z0-9.\\-]{0,6}",
    ) {
        let mut text = VALID.as_bytes().to_vec();
        let end = (at + len).min(text.len());
        text.splice(at..end, insert.bytes());
        check(&text);
    }
}
