//! `sinew graph` and `sinew diff` end to end: the binary on real files, exit statuses, and git
//! wiring (difftool and a `diff=sinew` textconv) in a real repository.

use std::path::Path;
use std::process::Command;

fn sinew(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run sinew");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn graph_svg_writes_the_picture_the_library_draws() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("hero.svg");
    let (code, _, err) = sinew(
        root(),
        &[
            "graph",
            "graphs/demo/hero.bpg",
            "--svg",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{err}");
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert_eq!(
        svg,
        std::fs::read_to_string(root().join("docs/hero.svg")).unwrap()
    );
    // `-` writes to standard output.
    let (code, stdout, _) = sinew(root(), &["graph", "graphs/demo/hero.bpg", "--svg", "-"]);
    assert_eq!(code, 0);
    assert_eq!(stdout, svg);
}

#[test]
fn graph_draws_graphs_with_compile_errors_and_state_machines() {
    let (code, stdout, err) = sinew(
        root(),
        &["graph", "graphs/err/unknown_kind.bpg", "--svg", "-"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("data-diagnostic-code=\"E0302\""));
    let (code, stdout, err) = sinew(root(), &["graph", "assets/hero.animsm", "--svg", "-"]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("data-state=\"move\""));
}

#[test]
fn graph_refuses_unparseable_and_unreadable_files_by_name() {
    let (code, _, err) = sinew(
        root(),
        &["graph", "graphs/err/syntax_expected.bpg", "--svg", "-"],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("error: graphs/err/syntax_expected.bpg does not parse"),
        "{err}"
    );
    assert!(err.contains("E0405"), "{err}");
    let (code, _, err) = sinew(root(), &["graph", "graphs/nope.bpg"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read graphs/nope.bpg"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.animsm"), "StateMachine(").unwrap();
    let (code, _, err) = sinew(dir.path(), &["graph", "bad.animsm", "--svg", "-"]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.animsm does not parse"), "{err}");
}

#[test]
fn graph_without_svg_prints_a_sorted_listing_and_textconv_never_fails() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("g.bpg"),
        "graph g\nnode z = debug.log at (5, 5)\nnode a = event begin_play // start\na.then -> z.exec\nvar v: int = 1\n",
    )
    .unwrap();
    let (code, stdout, err) = sinew(dir.path(), &["graph", "g.bpg"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        stdout,
        "graph g\n\nvar v: int = 1\n\nnode a = event begin_play // start\nnode z = debug.log at (5, 5)\n\na.then -> z.exec\n"
    );
    assert!(
        err.contains("note: no assets folder") || err.is_empty(),
        "{err}"
    );
    std::fs::write(dir.path().join("broken.bpg"), "graph g\nnode a =\n").unwrap();
    let (code, _, err) = sinew(dir.path(), &["graph", "broken.bpg"]);
    assert_eq!(code, 2, "{err}");
    let (code, stdout, err) = sinew(dir.path(), &["graph", "--textconv", "broken.bpg"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(stdout, "graph g\nnode a =\n");
    assert!(err.contains("does not parse"), "{err}");
}
