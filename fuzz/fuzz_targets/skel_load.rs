//! Fuzz target: `.skel` bytes → load; a loaded skeleton keeps its invariants (parents first,
//! names findable, a sane rest pose) and never panics; a refused one has an error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sinew::anim::{Pose, load_skeleton_bytes};

fuzz_target!(|data: &[u8]| {
    let loaded = load_skeleton_bytes("fuzz.skel", data);
    match &loaded.skeleton {
        Some(s) => {
            for (i, b) in s.bones().iter().enumerate() {
                assert!(b.parent.is_none_or(|p| p < i));
                assert_eq!(s.find(&b.name), Some(i));
            }
            let pose = Pose::rest(s);
            assert!(pose.translations.iter().all(|v| v.is_finite()));
            let mut model = Vec::new();
            pose.to_model(s, &mut model);
            assert_eq!(model.len(), s.len());
        }
        None => assert!(loaded.diagnostics.iter().any(|d| d.is_error())),
    }
});
