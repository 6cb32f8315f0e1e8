//! Catalog and palette behaviour over real folders: per-file diagnostics, quarantine, scan-order
//! independence, incremental refresh equal to a full rescan, hostile folders.

use proptest::prelude::*;
use sinew::catalog::scan::LiveCatalog;
use sinew::catalog::{Catalog, FileEntry};
use std::fmt::Write as _;
use std::path::Path;

/// A v3 sequence with the given id and notifies (id, name, time).
fn seq(id: &str, name: &str, notifies: &[(&str, &str, f64)]) -> String {
    let mut s = format!(
        "AnimSeq(\n    format: 3,\n    id: \"{id}\",\n    name: \"{name}\",\n    duration: 1.0,\n    tracks: [],\n    notifies: [\n"
    );
    for (nid, nname, t) in notifies {
        writeln!(s, "        (id: \"{nid}\", name: \"{nname}\", time: {t:?}, fields: [(\"volume\", Float(0.5))]),").unwrap();
    }
    s.push_str("    ],\n)\n");
    s
}

/// A compact, order-stable summary of a catalog: events, quarantine, diagnostics.
fn summary(c: &Catalog) -> String {
    let mut out = String::new();
    for e in c.events() {
        writeln!(out, "event {} \"{}\" {}", e.id, e.name, e.file).unwrap();
    }
    for q in c.quarantined() {
        writeln!(out, "quarantined {} {:?}", q.id, q.files).unwrap();
    }
    for d in c.diagnostics() {
        writeln!(
            out,
            "{} {} {}:{}:{} {}",
            d.severity, d.code, d.file, d.start.line, d.start.column, d.message
        )
        .unwrap();
    }
    out
}

/// Writes `files` under a fresh folder, scans it, and returns the summary with the folder's
/// path replaced by `A`.
fn check(files: &[(&str, &[u8])]) -> String {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let p = dir.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let live = LiveCatalog::scan(dir.path(), Some(dir.path()), None).unwrap();
    summary(live.catalog())
}

#[test]
fn events_are_published_with_identity_and_display_name() {
    let got = check(&[(
        "run.animseq",
        seq("S1", "Run", &[("l", "Step L", 0.2), ("r", "Step R", 0.7)]).as_bytes(),
    )]);
    assert_eq!(
        got,
        "event animseq::S1.l \"Run / Step L\" run.animseq\nevent animseq::S1.r \"Run / Step R\" run.animseq\n"
    );
}

#[test]
fn a_broken_file_hides_nothing_else() {
    let got = check(&[
        ("a.animseq", seq("A", "A", &[("x", "X", 0.1)]).as_bytes()),
        (
            "b.animseq",
            b"AnimSeq(format: 3, id: \"B\", name: \"B\", duration: -1.0)",
        ),
    ]);
    assert!(
        got.starts_with("event animseq::A.x \"A / X\" a.animseq\n"),
        "{got}"
    );
    assert!(got.contains("error E01"), "{got}");
    assert!(
        got.lines().filter(|l| l.starts_with("event")).count() == 1,
        "{got}"
    );
}

#[test]
fn conflicting_sequence_ids_quarantine_shared_identities_only() {
    let got = check(&[
        (
            "a.animseq",
            seq("S", "Run", &[("x", "X", 0.1), ("only_a", "A", 0.2)]).as_bytes(),
        ),
        (
            "sub/b.animseq",
            seq("S", "Run copy", &[("x", "X", 0.1), ("only_b", "B", 0.3)]).as_bytes(),
        ),
    ]);
    let want = "event animseq::S.only_a \"Run / A\" a.animseq\n\
                event animseq::S.only_b \"Run copy / B\" sub/b.animseq\n\
                quarantined animseq::S.x [\"a.animseq\", \"sub/b.animseq\"]\n\
                error E0201 a.animseq:3:9 sequence id `S` is also declared by sub/b.animseq\n\
                error E0201 sub/b.animseq:3:9 sequence id `S` is also declared by a.animseq\n";
    assert_eq!(got, want);
}

#[test]
fn duplicate_notify_id_in_one_file_quarantines_that_identity_only() {
    let got = check(&[(
        "a.animseq",
        seq(
            "S",
            "Run",
            &[("x", "X", 0.1), ("y", "Y", 0.2), ("x", "X again", 0.3)],
        )
        .as_bytes(),
    )]);
    assert!(got.starts_with("event animseq::S.y \"Run / Y\" a.animseq\nquarantined animseq::S.x [\"a.animseq\"]\nerror "), "{got}");
    assert_eq!(
        got.lines().filter(|l| l.starts_with("error")).count(),
        1,
        "{got}"
    );
}

#[test]
fn a_window_sharing_a_notify_id_quarantines_that_identity() {
    let text = "AnimSeq(format: 4, id: \"S\", name: \"Run\", duration: 1.0, tracks: [], \
        notifies: [(id: \"x\", name: \"X\", time: 0.1), (id: \"y\", name: \"Y\", time: 0.2)], \
        windows: [(id: \"x\", name: \"X window\", begin: 0.2, end: 0.4)])";
    let got = check(&[("a.animseq", text.as_bytes())]);
    assert!(got.starts_with("event animseq::S.y \"Run / Y\" a.animseq\nquarantined animseq::S.x [\"a.animseq\"]\nerror "), "{got}");
}

#[test]
fn windows_are_published_as_window_events_and_duplicates_quarantine() {
    use sinew::catalog::EventKind;
    let text = "AnimSeq(format: 4, id: \"S\", name: \"Attack\", duration: 1.0, tracks: [], \
        notifies: [(id: \"swing\", name: \"Swing\", time: 0.1)], \
        windows: [(id: \"hit\", name: \"Hit\", begin: 0.3, end: 0.55, fields: [(\"damage\", Float(2.0))]), \
                  (id: \"w\", name: \"W\", begin: 0.1, end: 0.2), (id: \"w\", name: \"W again\", begin: 0.5, end: 0.6)])";
    let got = check(&[("a.animseq", text.as_bytes())]);
    assert!(
        got.starts_with(
            "event animseq::S.hit \"Attack / Hit\" a.animseq\n\
             event animseq::S.swing \"Attack / Swing\" a.animseq\n\
             quarantined animseq::S.w [\"a.animseq\"]\nerror "
        ),
        "{got}"
    );
    let c = Catalog::from_entries([FileEntry::from_bytes("a.animseq", text.as_bytes())]);
    let hit = c.event("animseq::S.hit").unwrap();
    assert_eq!(
        hit.kind,
        EventKind::Window {
            begin: 0.3,
            end: 0.55
        }
    );
    assert_eq!(hit.kind.name(), "window");
    assert_eq!(hit.fields.len(), 1);
    let swing = c.event("animseq::S.swing").unwrap();
    assert_eq!(swing.kind, EventKind::Notify { time: 0.1 });
    // The palette node of a window: `begin` and `end` exec outputs and `completed`.
    let entries = sinew::palette::build(&c);
    let node = entries
        .iter()
        .find(|e| e.kind == "event animseq::S.hit")
        .unwrap();
    let outs: Vec<&str> = node.outputs.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        outs,
        [
            "begin",
            "end",
            "entity",
            "time",
            "clip_time",
            "cycle",
            "clip_weight",
            "completed",
            "damage"
        ]
    );
    assert!(!entries.iter().any(|e| e.kind == "event animseq::S.w"));
}

#[test]
fn non_animseq_files_are_ignored_and_nesting_is_recursive() {
    let deep = format!("{}x.animseq", "d/".repeat(60));
    let got = check(&[
        ("notes.txt", b"not ron"),
        ("a.animseq.bak", b"garbage"),
        (&deep, seq("D", "Deep", &[("n", "N", 0.0)]).as_bytes()),
    ]);
    assert_eq!(got.lines().count(), 1, "{got}");
    assert!(got.starts_with("event animseq::D.n"), "{got}");
}

#[test]
fn hostile_contents_become_diagnostics() {
    let mut huge_notifies = Vec::new();
    for i in 0..100_000 {
        huge_notifies.push((format!("n{i}"), format!("N{i}"), (i as f64) / 100_000.0));
    }
    let refs: Vec<(&str, &str, f64)> = huge_notifies
        .iter()
        .map(|(a, b, t)| (a.as_str(), b.as_str(), *t))
        .collect();
    let big = seq("BIG", "Big", &refs);
    let got = check(&[
        ("bad_utf8.animseq", b"AnimSeq(id: \"\xff\xfe\")"),
        ("truncated.animseq", b"AnimSeq(format: 3, id: \"T\", na"),
        (
            "nan.animseq",
            b"AnimSeq(format: 3, id: \"N\", name: \"N\", duration: NaN)",
        ),
        ("empty.animseq", b""),
        ("big.animseq", big.as_bytes()),
    ]);
    assert_eq!(
        got.lines()
            .filter(|l| l.starts_with("event animseq::BIG."))
            .count(),
        100_000
    );
    for f in ["bad_utf8", "truncated", "nan", "empty"] {
        let needle = format!(" {f}.animseq:");
        assert!(
            got.lines()
                .any(|l| l.starts_with("error E01") && l.contains(&needle)),
            "{f}: {got}"
        );
    }
}

#[cfg(unix)]
#[test]
fn non_utf8_names_and_escaping_symlinks() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("o.animseq"),
        seq("OUT", "Out", &[("n", "N", 0.0)]),
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("link_out")).unwrap();
    std::os::unix::fs::symlink(dir.path(), dir.path().join("loop")).unwrap();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.animseq");
    std::fs::write(dir.path().join(name), seq("C", "Cafe", &[("n", "N", 0.0)])).unwrap();
    let live = LiveCatalog::scan(dir.path(), Some(dir.path()), None).unwrap();
    let got = summary(live.catalog());
    // Reported (the name's bytes escaped), not loaded: no scene could name the file, and one
    // rule holds for every walk (`fsutil::walk`).
    assert_eq!(
        got,
        "error E0004 caf\\xE9.animseq:1:1 file name is not UTF-8: caf\\xE9.animseq; it is not read (rename it)\n"
    );
}

#[test]
fn too_large_files_are_refused_without_reading() {
    let dir = tempfile::tempdir().unwrap();
    let f = std::fs::File::create(dir.path().join("huge.animseq")).unwrap();
    f.set_len(sinew::catalog::scan::MAX_FILE_SIZE + 1).unwrap(); // sparse
    let live = LiveCatalog::scan(dir.path(), Some(dir.path()), None).unwrap();
    let got = summary(live.catalog());
    assert!(
        got.starts_with("error E0003 huge.animseq:1:1 file is"),
        "{got}"
    );
}

#[test]
fn missing_root_is_an_io_error() {
    assert!(LiveCatalog::scan(Path::new("/definitely/not/here"), None, None).is_err());
}

fn entries() -> Vec<FileEntry> {
    vec![
        FileEntry::from_bytes(
            "a.animseq",
            seq("S", "Run", &[("x", "X", 0.1), ("a", "A", 0.2)]).as_bytes(),
        ),
        FileEntry::from_bytes(
            "b.animseq",
            seq("S", "Run", &[("x", "X", 0.1), ("b", "B", 0.2)]).as_bytes(),
        ),
        FileEntry::from_bytes(
            "c.animseq",
            seq("T", "Walk", &[("y", "Y", 0.1), ("y", "Y", 0.2)]).as_bytes(),
        ),
        FileEntry::from_bytes("d.animseq", b"AnimSeq(format: 9)"),
        FileEntry::from_bytes("e.animseq", seq("U", "Idle", &[("z", "Z", 0.5)]).as_bytes()),
    ]
}

fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, n - 1);
            out.push(q);
        }
    }
    out
}

#[test]
fn output_is_identical_for_every_scan_order() {
    let base = entries();
    let reference = summary(&Catalog::from_entries(base.clone()));
    assert!(reference.contains("quarantined"), "{reference}");
    for order in permutations(base.len()) {
        let c = Catalog::from_entries(order.iter().map(|&i| base[i].clone()));
        assert_eq!(summary(&c), reference, "order {order:?}");
    }
}

#[test]
fn refresh_reports_a_delta() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.animseq");
    std::fs::write(&a, seq("S", "Run", &[("x", "X", 0.1)])).unwrap();
    let mut live = LiveCatalog::scan(dir.path(), Some(dir.path()), None).unwrap();
    // rename of the display name: changed, identity kept
    std::fs::write(&a, seq("S", "Sprint", &[("x", "X", 0.1), ("y", "Y", 0.2)])).unwrap();
    let d = live.refresh(std::slice::from_ref(&a));
    assert_eq!(
        d.added.iter().map(|e| &*e.id).collect::<Vec<_>>(),
        ["animseq::S.y"]
    );
    assert_eq!(d.changed.len(), 1);
    assert_eq!(d.changed[0].1.name, "Sprint / X");
    // a copy enters quarantine for both shared identities
    let b = dir.path().join("b.animseq");
    std::fs::copy(&a, &b).unwrap();
    let d = live.refresh(std::slice::from_ref(&b));
    assert_eq!(d.removed, ["animseq::S.x", "animseq::S.y"]);
    assert_eq!(d.entered_quarantine, ["animseq::S.x", "animseq::S.y"]);
    // deleting the copy brings them back
    std::fs::remove_file(&b).unwrap();
    let d = live.refresh(std::slice::from_ref(&b));
    assert_eq!(d.left_quarantine, ["animseq::S.x", "animseq::S.y"]);
    assert_eq!(d.added.len(), 2);
}

/// One operation on a small pool of files.
#[derive(Clone, Debug)]
enum Op {
    Write(usize, usize),
    Delete(usize),
    Rename(usize, usize),
    Mkdir(usize),
    RemoveDir,
}

const NAMES: [&str; 5] = [
    "a.animseq",
    "b.animseq",
    "sub/c.animseq",
    "sub/d.animseq",
    "notes.txt",
];

fn contents(i: usize) -> String {
    match i {
        0 => seq("S", "Run", &[("x", "X", 0.1)]),
        1 => seq("S", "Run", &[("x", "X", 0.1), ("y", "Y", 0.9)]),
        2 => seq("T", "Walk", &[("x", "X", 0.1), ("x", "X", 0.2)]),
        3 => seq("T", "Walk 2", &[("z", "Z", 0.3)]),
        4 => "AnimSeq(format: 3, id: \"broken\"".to_string(),
        _ => seq("U", "Idle", &[]),
    }
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..NAMES.len(), 0..6usize).prop_map(|(f, c)| Op::Write(f, c)),
        2 => (0..NAMES.len()).prop_map(Op::Delete),
        2 => (0..NAMES.len(), 0..NAMES.len()).prop_map(|(a, b)| Op::Rename(a, b)),
        1 => (0..2usize).prop_map(Op::Mkdir),
        1 => Just(Op::RemoveDir),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn incremental_refresh_equals_full_rescan(ops in proptest::collection::vec(op(), 1..12)) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("sub")).unwrap();
        let mut live = LiveCatalog::scan(root, Some(root), None).unwrap();
        for op in ops {
            let mut changed = Vec::new();
            match op {
                Op::Write(f, c) => {
                    let p = root.join(NAMES[f]);
                    if std::fs::create_dir_all(p.parent().unwrap()).is_ok() {
                        let _ = std::fs::write(&p, contents(c));
                    }
                    changed.push(p);
                }
                Op::Delete(f) => {
                    let p = root.join(NAMES[f]);
                    let _ = std::fs::remove_file(&p);
                    changed.push(p);
                }
                Op::Rename(a, b) => {
                    let (pa, pb) = (root.join(NAMES[a]), root.join(NAMES[b]));
                    let _ = std::fs::create_dir_all(pb.parent().unwrap());
                    let _ = std::fs::rename(&pa, &pb);
                    changed.push(pa);
                    changed.push(pb);
                }
                Op::Mkdir(i) => {
                    let p = root.join(format!("new{i}"));
                    let _ = std::fs::create_dir_all(&p);
                    let _ = std::fs::write(p.join("n.animseq"), contents(3 + i));
                    changed.push(p);
                }
                Op::RemoveDir => {
                    let p = root.join("sub");
                    let _ = std::fs::remove_dir_all(&p);
                    changed.push(p);
                }
            }
            live.refresh(&changed);
            let full = LiveCatalog::scan(root, Some(root), None).unwrap();
            prop_assert_eq!(summary(live.catalog()), summary(full.catalog()));
        }
    }
}

#[test]
fn files_vanishing_during_a_scan_are_simply_absent() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    for i in 0..400 {
        std::fs::write(
            root.join(format!("s{i}.animseq")),
            seq(&format!("S{i}"), "S", &[("n", "N", 0.5)]),
        )
        .unwrap();
    }
    let deleter = {
        let root = root.clone();
        std::thread::spawn(move || {
            for i in (0..400).step_by(2) {
                let _ = std::fs::remove_file(root.join(format!("s{i}.animseq")));
            }
        })
    };
    let live = LiveCatalog::scan(&root, Some(&root), None).unwrap();
    deleter.join().unwrap();
    let c = live.catalog();
    // Whatever the interleaving: every published event's file was one of ours, no diagnostics.
    assert!(c.diagnostics().is_empty(), "{:?}", c.diagnostics());
    assert!(c.events().len() >= 200 && c.events().len() <= 400);
    // A refresh of everything converges on the folder as it is now.
    let mut live = live;
    live.refresh(std::slice::from_ref(&root));
    assert_eq!(live.catalog().events().len(), 200);
}
