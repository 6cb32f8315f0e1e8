//! Fuzz target: `.scene.ron` bytes → parse; a scene comes back iff no diagnostic is an error,
//! and every action (and every `Entity` value of a `Send` payload) names an entity of the scene.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sinew::scene;

fuzz_target!(|data: &[u8]| {
    let parsed = scene::parse_bytes("fuzz.scene.ron", data);
    let errors = parsed.diagnostics.iter().any(|d| d.is_error());
    assert_eq!(parsed.scene.is_some(), !errors);
    if let Some(s) = &parsed.scene {
        for a in &s.actions {
            assert!(a.entity < s.entities.len());
            if let scene::Action::Send { target, fields, .. } = &a.action {
                assert!(*target < s.entities.len());
                for f in fields {
                    if let scene::VarValue::Entity(e) = f.value {
                        assert!(e < s.entities.len());
                    }
                }
            }
        }
    }
});
