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
            if let Action::Send { target, fields, .. } = &a.action {
                assert!(*target < s.entities.len());
                for f in fields {
                    if let scene::VarValue::Entity(e) = f.value {
                        assert!(e < s.entities.len());
                    }
                }
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
        Action::Send {
            target: 1,
            event: "custom::unhandled".into(),
            fields: Vec::new()
        }
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
fn clips_named_by_identity() {
    let s = check(
        br#"Scene(entities: [(name: "fox", animator: Some((clips: {
            "walk": Imported(model: "DED83416-AB6F-474B-9676-DE99AF79D229", clip: "Walk"),
            "run": "run.animseq"})))])"#,
    )
    .scene
    .expect("valid");
    let clips = &s.entities[0].animator.as_ref().expect("animator").clips;
    let walk = &clips[0].1;
    assert_eq!(
        walk.imported,
        Some(scene::ImportedClip {
            model: "ded83416-ab6f-474b-9676-de99af79d229".into(),
            clip: "Walk".into()
        })
    );
    assert_eq!(walk.path, "", "resolved by the loader");
    assert_eq!(
        (clips[1].1.path.as_str(), &clips[1].1.imported),
        ("run.animseq", &None)
    );
    assert_eq!(
        s.clip_paths().len(),
        1,
        "unresolved references load nothing"
    );
    let bad = check(
        br#"Scene(entities: [(name: "fox", animator: Some((clips: {
            "a": Imported(model: "fox", clip: "Walk"),
            "b": Imported(model: "ded83416-ab6f-474b-9676-de99af79d229", clip: " "),
            "c": Imported(model: "ded83416-ab6f-474b-9676-de99af79d229"),
            "d": Import(model: "ded83416-ab6f-474b-9676-de99af79d229", clip: "Walk"),
            "e": 3,
            "f": Imported(model: "00000000-0000-0000-0000-000000000000", clip: "Walk", extra: 1),
        })))])"#,
    );
    let codes: Vec<&str> = bad.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        [
            "E0558", "E0558", "E0555", "E0552", "E0552", "E0558", "E0553"
        ]
    );
    assert!(
        bad.diagnostics[0]
            .message
            .contains("`fox` is not a model UUID")
    );
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

#[test]
fn every_scene_command_of_the_table_reads_as_that_command() {
    // The reader is driven by `anim::command`'s table: each row with a scene name parses, with
    // its arguments in order, into that command; the wrong arity is refused.
    use sinew::anim::command::COMMANDS;
    use sinew::types::Type;
    let mut seen = 0;
    for c in COMMANDS.iter().filter(|c| c.scene.is_some()) {
        let name = c.scene.expect("scene name");
        let args: Vec<String> = c
            .args
            .iter()
            .enumerate()
            .map(|(i, a)| match a.ty {
                Type::Str => format!("\"{}{i}\"", a.name),
                _ => format!("{}.5", i + 1),
            })
            .collect();
        let call = if args.is_empty() {
            name.to_string()
        } else {
            format!("{name}({})", args.join(", "))
        };
        let text = format!(
            r#"Scene(entities: [(name: "a", animator: Some(()))], actions: [(entity: "a", action: {call})])"#
        );
        let s = check(text.as_bytes())
            .scene
            .unwrap_or_else(|| panic!("{text}"));
        let Action::Anim(cmd) = &s.actions[0].action else {
            panic!("{call} is not an animation command")
        };
        assert_eq!(cmd.kind(), c.kind, "{call}");
        assert_eq!(s.actions[0].action.name(), name);
        let debug = format!("{cmd:?}");
        for a in &args {
            assert!(debug.contains(a.as_str()), "{a} in {debug}");
        }
        // One argument too many is an E0552 naming the action.
        let extra = if args.is_empty() {
            format!("{name}(1.0)")
        } else {
            format!("{name}({}, 1.0)", args.join(", "))
        };
        let bad = check(text.replace(&call, &extra).as_bytes());
        assert!(bad.scene.is_none(), "{extra}");
        assert!(
            bad.diagnostics
                .iter()
                .any(|d| d.code == "E0552" && d.message.contains(name)),
            "{extra}: {:?}",
            bad.diagnostics
        );
        seen += 1;
    }
    assert_eq!(seen, 10, "the scene actions that are animation commands");
}
