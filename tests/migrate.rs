//! Lossless `.animseq` migration (`animseq::migrate`): exact texts before and after, for
//! lowering, raising, refusing and leaving alone; the property test with comments everywhere is
//! in `animseq_props.rs`.

use sinew::animseq::{self, MigrateError, Migration};
use sinew::diag::SourceFile;

/// Migrates `before` to `to` and expects exactly `after` (`None`: unchanged).
#[track_caller]
fn check(before: &str, to: Option<u32>, after: Option<&str>) {
    let got = animseq::migrate(&SourceFile::new("m.animseq", before), to).expect("migrates");
    match (got, after) {
        (Migration::Unchanged { .. }, None) => {}
        (Migration::Rewritten { text, to: t, .. }, Some(want)) => {
            assert_eq!(text, want, "\n--- got ---\n{text}--- want ---\n{want}");
            // Migrating the result again to the same format changes nothing.
            let again = animseq::migrate(&SourceFile::new("m.animseq", text.as_str()), Some(t));
            assert_eq!(again, Ok(Migration::Unchanged { format: t }));
        }
        (got, want) => panic!("got {got:?}, want {want:?}"),
    }
}

#[test]
fn lowering_removes_only_the_default_fields_the_target_refuses() {
    let before = r#"// Run cycle, hand-tuned.
AnimSeq(
    format: 3,              // bumped for targets
    id: "run",
    name: "Run",            /* display */
    duration: 1.0,
    tracks: [],
    notifies: [
        (
            id: "l",
            name: "L",
            time: 0.2,
            target: Owner,  // who hears it
            fields: [],
        ),
        (id: "r", name: "R", time: 0.7, target: Owner, fields: []),
        (id: "s", name: "S", time: 0.9 /* late */, fields: []),
    ],
)
"#;
    let after = r#"// Run cycle, hand-tuned.
AnimSeq(
    format: 2,              // bumped for targets
    id: "run",
    name: "Run",            /* display */
    duration: 1.0,
    tracks: [],
    notifies: [
        (
            id: "l",
            name: "L",
            time: 0.2,
            // who hears it
        ),
        (id: "r", name: "R", time: 0.7),
        (id: "s", name: "S", time: 0.9 /* late */),
    ],
)
"#;
    check(before, None, Some(after));
}

#[test]
fn to_format_1_drops_the_format_field_and_empty_lists() {
    let before = "AnimSeq(\n    format: 4,\n    id: \"idle\",\n    name: \"Idle\", // still\n    duration: 2.0,\n    tracks: [],\n    notifies: [],\n    windows: [\n    ],\n    root_motion: None\n)\n";
    let after = "AnimSeq(\n    id: \"idle\",\n    name: \"Idle\", // still\n    duration: 2.0,\n    tracks: []\n)\n";
    check(before, None, Some(after));
    let inline =
        "AnimSeq(format: 2, id: \"i\", name: \"I\", duration: 1.0, tracks: [], curves: [])";
    check(
        inline,
        None,
        Some("AnimSeq(id: \"i\", name: \"I\", duration: 1.0, tracks: [])"),
    );
}

#[test]
fn raising_adds_or_changes_the_format_and_nothing_else() {
    let v1 = "/* idle */\nAnimSeq(\n    id: \"idle\", // stable\n    name: \"Idle\",\n    duration: 2.0,\n    tracks: [],\n)\n";
    check(
        v1,
        Some(3),
        Some(
            "/* idle */\nAnimSeq(\n    format: 3,\n    id: \"idle\", // stable\n    name: \"Idle\",\n    duration: 2.0,\n    tracks: [],\n)\n",
        ),
    );
    check(
        "AnimSeq(id: \"i\", name: \"I\", duration: 1.0, tracks: [])",
        Some(4),
        Some("AnimSeq(format: 4, id: \"i\", name: \"I\", duration: 1.0, tracks: [])"),
    );
    let crlf = "AnimSeq(\r\n    id: \"i\",\r\n    name: \"I\",\r\n    duration: 1.0,\r\n    tracks: [],\r\n)\r\n";
    check(
        crlf,
        Some(2),
        Some(
            "AnimSeq(\r\n    format: 2,\r\n    id: \"i\",\r\n    name: \"I\",\r\n    duration: 1.0,\r\n    tracks: [],\r\n)\r\n",
        ),
    );
    check(
        "AnimSeq(format: 2, id: \"i\", name: \"I\", duration: 1.0, tracks: [])",
        Some(4),
        Some("AnimSeq(format: 4, id: \"i\", name: \"I\", duration: 1.0, tracks: [])"),
    );
}

#[test]
fn files_at_their_lowest_format_are_unchanged() {
    for name in ["idle", "walk", "run"] {
        let path = format!("{}/assets/{name}.animseq", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap();
        check(&text, None, None);
    }
    // Also when the layout is far from canonical: nothing is reformatted.
    check(
        "AnimSeq(id:\"i\",name:\"I\",duration:1,tracks:[],)",
        None,
        None,
    );
    check(
        "AnimSeq(format: 4, id: \"i\", name: \"I\", duration: 1.0, tracks: [], windows: [(id: \"w\", name: \"W\", begin: 0.0, end: 1.0)])",
        None,
        None,
    );
}

#[test]
fn a_target_below_what_the_data_needs_is_refused_by_name() {
    let m = |text: &str, to| animseq::migrate(&SourceFile::new("m.animseq", text), Some(to));
    let win = "AnimSeq(format: 4, id: \"s\", name: \"S\", duration: 1.0, tracks: [], windows: [(id: \"hit\", name: \"H\", begin: 0.1, end: 0.2)])";
    assert_eq!(
        m(win, 3),
        Err(MigrateError::TargetTooLow {
            target: 3,
            needs: 4,
            why: "window `hit`".into()
        })
    );
    let fields = "AnimSeq(format: 3, id: \"s\", name: \"S\", duration: 1.0, tracks: [], notifies: [(id: \"n\", name: \"N\", time: 0.5, fields: [(\"v\", Int(1))])])";
    let err = m(fields, 2).unwrap_err();
    assert_eq!(
        err.to_string(),
        "format 2 cannot hold this sequence: it needs format 3 (notify `n` has fields)"
    );
    let v2 = "AnimSeq(format: 2, id: \"s\", name: \"S\", duration: 1.0, tracks: [], notifies: [(id: \"n\", name: \"N\", time: 0.5)])";
    assert!(matches!(
        m(v2, 1),
        Err(MigrateError::TargetTooLow { needs: 2, .. })
    ));
    assert_eq!(m(v2, 5), Err(MigrateError::NoSuchFormat(5)));
    assert_eq!(m(v2, 0), Err(MigrateError::NoSuchFormat(0)));
}

#[test]
fn files_with_errors_are_not_migrated() {
    for text in [
        "AnimSeq(format: 3, id: \"s\", name: \"S\", duration: 0.0, tracks: [])",
        "AnimSeq(format: 3, id: \"s\"",
        // A duplicate notify ID loads (quarantine) but is an error: not migrated either.
        "AnimSeq(format: 3, id: \"s\", name: \"S\", duration: 1.0, tracks: [], notifies: [(id: \"n\", name: \"N\", time: 0.5), (id: \"n\", name: \"M\", time: 0.6)])",
    ] {
        match animseq::migrate(&SourceFile::new("m.animseq", text), None) {
            Err(MigrateError::Invalid(d)) => assert!(!d.is_empty()),
            other => panic!("{text}: {other:?}"),
        }
    }
}
