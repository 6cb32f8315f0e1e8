//! Data-driven tests of the `.animseq` loader and writer: one snapshot per fixture (rendered
//! diagnostics plus JSON, and the canonical rewrite for valid files), the `ron` crate as an
//! independent reader of every valid file, round trips, and adversarial inputs.

mod common;
#[path = "support/root_oracle.rs"]
mod root_oracle;

use common::{fixture_names, load_fixture, ron_crate_reads};
use sinew::animseq::{self, AnimSeq, load_bytes, to_ron};
use sinew::diag::SourceFile;
use sinew::diag::render::{human, to_json};
use std::collections::BTreeSet;

/// Loads `tests/fixtures/animseq/<dir>/<name>.animseq` and snapshots what the loader says.
/// `ok` fixtures must load without diagnostics, round-trip, and be readable by the `ron`
/// crate to the same value; `err` fixtures must report at least one error.
fn check(dir: &str, name: &str) {
    let (display, bytes) = load_fixture(dir, name);
    check_bytes(dir, name, &display, &bytes);
}

/// [`check`] of text that is too large to keep as a file (built by the test instead).
fn check_bytes(dir: &str, name: &str, display: &str, bytes: &[u8]) {
    let display = display.to_string();
    let loaded = load_bytes(&display, bytes);
    let mut out = format!(
        "format: {}\nseq: {}\n",
        loaded.format,
        if loaded.seq.is_some() { "Some" } else { "None" }
    );
    if !loaded.diagnostics.is_empty() {
        out.push('\n');
        out.push_str(&human(&loaded.diagnostics, false));
        let json = serde_json::to_string_pretty(&to_json(&loaded.diagnostics)).expect("json");
        out.push_str(&json);
        out.push('\n');
    }
    assert_eq!(loaded.seq.is_some(), loaded.spans.is_some());
    match dir {
        "ok" => {
            assert!(loaded.diagnostics.is_empty(), "{out}");
            let seq = loaded.seq.as_ref().expect("ok fixture loads");
            let text = std::str::from_utf8(bytes).expect("utf8");
            assert_eq!(
                ron_crate_reads(text).as_ref(),
                Ok(seq),
                "the ron crate reads {display} differently"
            );
            let written = to_ron(seq);
            assert_round_trip(seq, &written);
            out.push_str(&format!(
                "\nwritten (format {}):\n{written}",
                animseq::min_format(seq)
            ));
        }
        _ => assert!(loaded.diagnostics.iter().any(|d| d.is_error()), "{out}"),
    }
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(format!("animseq_{dir}_{name}"), out);
    });
}

/// `to_ron` output loads back to exactly `seq`, at the minimal format, and the ron crate
/// reads it too.
fn assert_round_trip(seq: &AnimSeq, written: &str) {
    let back = animseq::load(&SourceFile::new("written.animseq", written));
    assert!(
        back.diagnostics.is_empty(),
        "{:?}\n{written}",
        back.diagnostics
    );
    assert_eq!(back.seq.as_ref(), Some(seq), "{written}");
    assert_eq!(back.format, animseq::min_format(seq));
    assert_eq!(ron_crate_reads(written).as_ref(), Ok(seq), "{written}");
}

macro_rules! fixtures {
    ($dir:literal: $($name:ident),* $(,)?) => {
        $( #[test] fn $name() { check($dir, stringify!($name)); } )*
        /// Every fixture file in the folder has a test above (none silently skipped).
        #[test]
        fn all_listed() {
            let listed: BTreeSet<String> = [$(stringify!($name)),*].iter().map(|s| s.to_string()).collect();
            assert_eq!(listed, fixture_names($dir));
        }
    };
}

mod ok {
    use super::check;
    use super::*;
    fixtures!("ok": ron_syntax, root_bone_in_skeleton, v1_explicit, v1_is_v3, v1_minimal, v2_is_v3,
        v2_notifies, v3_all_field_types, v3_spec_example, v4_defaults_is_v2, v4_gating_only_is_v4,
        v4_spec_example, v4_windows_only);
}

mod err {
    use super::check;
    use super::*;
    fixtures!("err": bad_field_names, bad_ids, bad_target_variable, curve_bad_interpolation,
        curve_duplicate_key, curve_duplicate_name, curve_mixed_types, curve_non_finite,
        curve_out_of_range, curve_unsorted, deep_nesting, duplicate_field, duplicate_field_names,
        duplicate_notify_id, duplicate_window_id, gating_out_of_range, duration_nan, duration_negative, duration_overflow_inf, duration_zero,
        empty_names, field_non_finite, format_float, format_string, format_too_new, format_zero,
        id_too_long, missing_fields, not_a_struct, not_utf8, notify_time_out_of_range,
        root_bone_missing, root_motion_bad_axes, syntax_bad_escape, syntax_bad_number,
        syntax_empty, syntax_missing_comma, syntax_trailing_value, syntax_truncated,
        syntax_unclosed_comment, syntax_unterminated_string, track_duplicate_bone,
        track_missing_lists, track_non_finite, track_unsorted, track_zero_rotation, type_mismatch,
        unknown_field_misspelled_root_motion, unknown_notify_field, unknown_root_field,
        v1_notify_with_fields, v1_with_notifies, v2_with_default_target, v2_with_empty_fields, v3_with_gating,
        v3_with_windows, window_begin_not_before_end, window_fields, window_non_finite,
        window_out_of_range, wrong_struct_name);

    /// A million windows in one file: one error at the `windows` field, nothing decoded per
    /// window (fast, and the diagnostics stay one line whatever the count).
    #[test]
    fn a_million_windows() {
        let (name, text) = super::million_windows();
        super::check_bytes(
            "err",
            &name,
            &format!("generated/{name}.animseq"),
            text.as_bytes(),
        );
    }
}

/// The generated `err` fixture: 1,000,000 windows (about 40 MB), one per line.
fn million_windows() -> (String, String) {
    let mut text = String::from(
        "AnimSeq(\n    format: 4,\n    id: \"many\",\n    name: \"Many\",\n    duration: 1.0,\n    tracks: [],\n    windows: [\n",
    );
    for i in 0..1_000_000 {
        text.push_str(&format!(
            "        (id: \"w{i}\", name: \"W\", begin: 0.25, end: 0.5),\n"
        ));
    }
    text.push_str("    ],\n)\n");
    ("million_windows".to_string(), text)
}

fn load_ok(dir: &str, name: &str) -> AnimSeq {
    let (display, bytes) = load_fixture(dir, name);
    load_bytes(&display, &bytes).seq.expect("loads")
}

#[test]
fn every_code_is_covered_by_an_err_fixture() {
    let mut seen = BTreeSet::new();
    let generated = million_windows().1.into_bytes();
    let files = fixture_names("err")
        .into_iter()
        .map(|name| load_fixture("err", &name))
        .chain([("generated.animseq".to_string(), generated)]);
    for (display, bytes) in files {
        seen.extend(
            load_bytes(&display, &bytes)
                .diagnostics
                .iter()
                .map(|d| d.code),
        );
    }
    let all: BTreeSet<&str> = animseq::CODES.iter().copied().collect();
    assert_eq!(seen, all);
}

#[test]
fn older_versions_behave_as_v3() {
    assert_eq!(load_ok("ok", "v1_minimal"), load_ok("ok", "v1_is_v3"));
    assert_eq!(load_ok("ok", "v2_notifies"), load_ok("ok", "v2_is_v3"));
    // Format 4 with every v4 field at its default is the same data as format 2.
    let v4 = load_ok("ok", "v4_defaults_is_v2");
    assert!(v4.windows.is_empty() && v4.notifies.iter().all(|n| n.gating.is_default()));
}

#[test]
fn writer_picks_the_lowest_version() {
    let fmt = |n: &str| animseq::min_format(&load_ok("ok", n));
    assert_eq!(fmt("v1_minimal"), 1);
    assert_eq!(fmt("v1_explicit"), 1);
    assert_eq!(fmt("v1_is_v3"), 1);
    assert_eq!(fmt("v2_is_v3"), 2);
    assert_eq!(fmt("v2_notifies"), 2);
    assert_eq!(fmt("v3_spec_example"), 3);
    assert_eq!(fmt("v3_all_field_types"), 3);
    assert_eq!(fmt("v4_defaults_is_v2"), 2);
    assert_eq!(fmt("v4_gating_only_is_v4"), 4);
    assert_eq!(fmt("v4_spec_example"), 4);
    assert_eq!(fmt("v4_windows_only"), 4);
}

#[test]
fn declared_format_is_reported() {
    let f = |dir: &str, n: &str| {
        let (d, b) = load_fixture(dir, n);
        load_bytes(&d, &b).format
    };
    assert_eq!(f("ok", "v1_minimal"), 1);
    assert_eq!(f("ok", "v2_notifies"), 2);
    assert_eq!(f("ok", "v4_spec_example"), 4);
    assert_eq!(f("err", "format_too_new"), 5);
    assert_eq!(f("err", "format_zero"), 0);
    assert_eq!(f("err", "syntax_empty"), 0);
}

#[test]
fn duplicate_notify_ids_still_load_with_spans_of_each_id() {
    let (display, bytes) = load_fixture("err", "duplicate_notify_id");
    let loaded = load_bytes(&display, &bytes);
    let seq = loaded
        .seq
        .expect("a duplicate notify ID does not fail the file");
    let ids: Vec<&str> = seq.notifies.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(ids, ["step", "other", "step", "step"]);
    let text = String::from_utf8(bytes).expect("utf8");
    let spans = loaded.spans.expect("spans");
    let at: Vec<&str> = spans.notify_ids.iter().map(|s| &text[s.range()]).collect();
    assert_eq!(at, ["\"step\"", "\"other\"", "\"step\"", "\"step\""]);
    assert_eq!(&text[spans.id.range()], "\"seq\"");
    let codes: Vec<&str> = loaded.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, [animseq::E_DUPLICATE_NOTIFY_ID; 2]);
}

#[test]
fn duplicate_window_ids_share_the_notify_namespace_and_still_load() {
    let (display, bytes) = load_fixture("err", "duplicate_window_id");
    let loaded = load_bytes(&display, &bytes);
    let seq = loaded
        .seq
        .expect("duplicate IDs quarantine, they do not fail the file");
    let ids: Vec<&str> = seq.windows.iter().map(|w| w.id.as_str()).collect();
    assert_eq!(ids, ["hit", "swing", "swing"]);
    let text = String::from_utf8(bytes).expect("utf8");
    let spans = loaded.spans.expect("spans");
    let at: Vec<&str> = spans.window_ids.iter().map(|s| &text[s.range()]).collect();
    assert_eq!(at, ["\"hit\"", "\"swing\"", "\"swing\""]);
    // The notify `hit` comes after the window `hit` in the file: it is the duplicate.
    let dups: Vec<(&str, &str)> = loaded
        .diagnostics
        .iter()
        .map(|d| (d.code, &text[d.span.range()]))
        .collect();
    assert_eq!(
        dups,
        [
            (animseq::E_DUPLICATE_NOTIFY_ID, "\"swing\""),
            (animseq::E_DUPLICATE_NOTIFY_ID, "\"hit\"")
        ]
    );
    assert!(loaded.diagnostics[1].message.contains("notify ID `hit`"));
    assert_eq!(
        &text[loaded.diagnostics[1].labels[0].span.range()],
        "\"hit\""
    );
    assert!(
        loaded.diagnostics[1].labels[0]
            .message
            .contains("as a window")
    );
}

#[test]
fn root_bone_checked_against_skeleton_later() {
    let (display, bytes) = load_fixture("ok", "root_bone_in_skeleton");
    let loaded = load_bytes(&display, &bytes);
    let src = SourceFile::new(display, String::from_utf8(bytes).expect("utf8"));
    let (seq, spans) = (loaded.seq.expect("seq"), loaded.spans.expect("spans"));
    assert!(animseq::check_root_motion_bone(&src, &seq, &spans, &["root", "spine"]).is_none());
    let d = animseq::check_root_motion_bone(&src, &seq, &spans, &["spine"]).expect("missing");
    assert_eq!(d.code, animseq::E_ROOT_BONE_MISSING);
    assert_eq!(&src.text()[d.span.range()], "\"root\"");
}

#[test]
fn example_assets_are_valid_canonical_and_match_the_ron_crate() {
    for name in ["idle", "walk", "run"] {
        let path = format!("{}/assets/{name}.animseq", env!("CARGO_MANIFEST_DIR"));
        let bytes = std::fs::read(&path).expect("asset");
        let loaded = load_bytes(&path, &bytes);
        assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
        assert_eq!(loaded.format, 3);
        let seq = loaded.seq.expect("seq");
        let text = std::str::from_utf8(&bytes).expect("utf8");
        // `sinew migrate` leaves them untouched.
        assert_eq!(to_ron(&seq), text, "{name} is not in canonical form");
        assert_eq!(ron_crate_reads(text).as_ref(), Ok(&seq));
        assert!(uuid::Uuid::parse_str(&seq.id).is_ok());
        let ids: Vec<&str> = seq.notifies.iter().map(|n| n.id.as_str()).collect();
        if name != "idle" {
            assert_eq!(ids, ["footstep_l", "footstep_r"]);
            let d = root_oracle::root_motion_delta(&seq, 0.0, seq.duration, true).expect("rm");
            assert!(d.translation[2] > 0.0, "{name} moves forward");
        }
    }
}

#[test]
fn crossings_fixtures_load() {
    for name in ["steps", "tenths"] {
        let path = format!(
            "{}/tests/fixtures/crossings/{name}.animseq",
            env!("CARGO_MANIFEST_DIR")
        );
        let bytes = std::fs::read(&path).expect("fixture");
        let loaded = load_bytes(&path, &bytes);
        assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
        assert_eq!(loaded.format, 2);
    }
}

#[test]
fn ron_crate_mirror_refuses_unknown_fields() {
    // The mirror must not accept anything: an unknown field is refused, as by the loader.
    assert!(
        ron_crate_reads("AnimSeq(id: \"a\", name: \"b\", duration: 1.0, tracks: [], x: 1)")
            .is_err()
    );
}
