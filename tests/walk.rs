//! Issue #24: every folder walk (`catalog`, `check`/`build`, `fmt`, `import FOLDER`) follows the
//! one rule of `fsutil::walk` end to end — symbolic links only inside the folder given, loops
//! walked once, names that are not UTF-8 reported (never skipped), a reported depth limit, and
//! time linear in the entries (a 1,500-deep folder chain is fast).
#![cfg(unix)]

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const CLIP: &str = "AnimSeq(format: 2, id: \"steps\", name: \"Steps\", duration: 1.0, \
    tracks: [], notifies: [(id: \"a\", name: \"A\", time: 0.5)])\n";
const GRAPH: &str = "graph ok\n\nnode go = event begin_play\n\
    node log = debug.log { message = \"x\" }\n\ngo.then -> log.exec\n";
const BROKEN: &str = "graph broken\n\nnode go = event no_such_event\n";

/// Runs `sinew` in `dir`: (status, stdout + stderr, how long it took).
fn sinew(dir: &Path, args: &[&str]) -> (i32, String, Duration) {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run sinew");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text, started.elapsed())
}

fn write(p: &Path, text: impl AsRef<[u8]>) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// A project: `assets/steps.animseq`, `graphs/ok.bpg`.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("assets/steps.animseq"), CLIP);
    write(&dir.path().join("graphs/ok.bpg"), GRAPH);
    dir
}

/// `root/d/d/…/d` (`n` levels).
fn chain(root: &Path, n: usize) -> PathBuf {
    let mut p = root.to_path_buf();
    for _ in 0..n {
        p.push("d");
    }
    std::fs::create_dir_all(&p).unwrap();
    p
}

fn not_utf8(name: &[u8]) -> &OsStr {
    OsStr::from_bytes(name)
}

// --- names that are not UTF-8 ------------------------------------------------------------

#[test]
fn check_and_build_report_a_graph_whose_name_is_not_utf8() {
    let dir = project();
    write(
        &dir.path().join("graphs").join(not_utf8(b"caf\xe9.bpg")),
        BROKEN,
    );
    for cmd in [&["check"][..], &["build", "--out", "out"]] {
        let (code, out, _) = sinew(dir.path(), cmd);
        assert_ne!(code, 0, "{cmd:?}: {out}");
        assert!(out.contains("E0004"), "{cmd:?}: {out}");
        assert!(
            out.contains("file name is not UTF-8: caf\\xE9.bpg"),
            "{cmd:?}: {out}"
        );
    }
    assert!(!dir.path().join("out").exists(), "build wrote modules");
    // `fmt` walks the same way.
    let (code, out, _) = sinew(dir.path(), &["fmt", "--check", "graphs"]);
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("caf\\xE9.bpg"), "{out}");
}

#[test]
fn the_catalog_reports_a_clip_whose_name_is_not_utf8() {
    let dir = project();
    write(
        &dir.path().join("assets").join(not_utf8(b"\xff/x.animseq")),
        CLIP,
    );
    let (code, out, _) = sinew(dir.path(), &["check"]);
    assert_ne!(code, 0, "{out}");
    assert!(
        out.contains("file name is not UTF-8: \\xFF/x.animseq"),
        "{out}"
    );
}

#[test]
fn import_reports_a_model_whose_name_is_not_utf8() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("models").join(not_utf8(b"m\xe9.gltf")),
        "{}",
    );
    let (code, out, _) = sinew(dir.path(), &["import", "models"]);
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("file name is not UTF-8: m\\xE9.gltf"), "{out}");
}

// --- symbolic links ------------------------------------------------------------------------

#[test]
fn check_follows_links_inside_the_folder_only_and_each_file_once() {
    let dir = project();
    let outside = tempfile::tempdir().unwrap();
    write(&outside.path().join("bad.bpg"), BROKEN);
    symlink(outside.path(), dir.path().join("graphs/out")).unwrap();
    write(
        &dir.path().join("graphs/sub/two.bpg"),
        GRAPH.replace("ok", "two"),
    );
    symlink(
        dir.path().join("graphs/sub"),
        dir.path().join("graphs/alias"),
    )
    .unwrap();
    let (code, out, _) = sinew(dir.path(), &["check"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("checked 2 graphs"), "{out}");
}

#[test]
fn import_does_not_follow_a_link_out_of_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let fox = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/models/Fox.glb");
    std::fs::create_dir_all(outside.path().join("theirs")).unwrap();
    std::fs::copy(&fox, outside.path().join("theirs/Fox.glb")).unwrap();
    std::fs::create_dir_all(dir.path().join("models")).unwrap();
    // Never a link to `/` here: run against a walker that follows it, this test would write
    // sidecars next to every model on the machine (it did once, while checking that it fails
    // before the fix). A link to a folder outside shows the same bug harmlessly.
    symlink(outside.path(), dir.path().join("models/elsewhere")).unwrap();
    let (code, out, took) = sinew(dir.path(), &["import", "models"]);
    assert_eq!(code, 0, "{out}");
    // Nothing was written next to the other folder's model.
    let theirs: Vec<_> = std::fs::read_dir(outside.path().join("theirs"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(theirs, ["Fox.glb"], "{out}");
    assert!(took < Duration::from_secs(20), "{took:?}");
}

// --- loops -----------------------------------------------------------------------------------

#[test]
fn a_link_cycle_is_walked_once_by_catalog_check_and_import() {
    let dir = project();
    for f in ["assets", "graphs"] {
        let deep = dir.path().join(f).join("a/b");
        std::fs::create_dir_all(&deep).unwrap();
        symlink(dir.path().join(f), deep.join("up")).unwrap();
        symlink(deep.join("l2"), deep.join("l1")).unwrap();
        symlink(deep.join("l1"), deep.join("l2")).unwrap();
    }
    let (code, out, _) = sinew(dir.path(), &["check"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("checked 1 graph:"), "{out}");
    let (code, out, _) = sinew(dir.path(), &["catalog"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out.matches("animseq::steps.a").count(), 1, "{out}");
    let (code, out, _) = sinew(dir.path(), &["import", "graphs"]);
    assert_eq!(code, 0, "{out}");
}

// --- depth -------------------------------------------------------------------------------------

/// Generous: the walks this replaces took 30 s (release) on a 1,500-deep chain, cubic in the
/// depth; one walk is linear now and stops at the depth limit.
const DEADLINE: Duration = Duration::from_secs(20);

#[test]
fn a_folder_chain_1500_deep_is_fast_and_its_depth_limit_reported() {
    let dir = project();
    let deep = chain(&dir.path().join("assets"), 1_500);
    write(&deep.join("deep.animseq"), CLIP.replace("steps", "deep"));
    let deep = chain(&dir.path().join("graphs"), 1_500);
    write(&deep.join("deep.bpg"), BROKEN);
    for cmd in [&["catalog"][..], &["check"]] {
        let (code, out, took) = sinew(dir.path(), cmd);
        assert!(took < DEADLINE, "{cmd:?} took {took:?}");
        assert_ne!(code, 0, "{cmd:?}: {out}");
        assert!(out.contains("E0005"), "{cmd:?}: {out}");
        assert!(
            out.contains("folder nested deeper than 256 levels; not walked"),
            "{cmd:?}: {out}"
        );
        assert!(!out.contains("animseq::deep"), "{cmd:?}: {out}");
    }
}
