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
        &[
            "graph",
            "tests/fixtures/graphs/err/unknown_kind.bpg",
            "--svg",
            "-",
        ],
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
        &[
            "graph",
            "tests/fixtures/graphs/err/syntax_expected.bpg",
            "--svg",
            "-",
        ],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("error: tests/fixtures/graphs/err/syntax_expected.bpg does not parse"),
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

const OLD: &str = "graph g\n\nnode a = event begin_play at (0, 0)\nnode b = debug.log { message = \"hi\" } at (220, 0)\n\na.then -> b.exec\n";

fn pair(dir: &Path, new: &str) {
    std::fs::write(dir.join("old.bpg"), OLD).unwrap();
    std::fs::write(dir.join("new.bpg"), new).unwrap();
}

#[test]
fn diff_exit_status_answers_whether_behaviour_differs() {
    let dir = tempfile::tempdir().unwrap();
    // Reordered and respaced: no difference at all.
    pair(
        dir.path(),
        "graph g\na.then -> b.exec\nnode b = debug.log {message=\"hi\"} at (220,0)\nnode a = event begin_play at (0, 0)\n",
    );
    let (code, out, err) = sinew(dir.path(), &["diff", "old.bpg", "new.bpg"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.ends_with("no differences\n"), "{out}");
    // Moved and re-commented: reported, same behaviour.
    pair(
        dir.path(),
        &OLD.replace("at (220, 0)", "at (300, 0) // moved"),
    );
    let (code, out, _) = sinew(dir.path(), &["diff", "old.bpg", "new.bpg"]);
    assert_eq!(code, 0);
    assert!(out.contains("> node b moved (220, 0) -> (300, 0)"), "{out}");
    assert!(out.contains("> node b comment changed"), "{out}");
    assert!(
        out.ends_with("same behaviour (only positions and comments changed)\n"),
        "{out}"
    );
    let (code, out, _) = sinew(
        dir.path(),
        &[
            "diff",
            "old.bpg",
            "new.bpg",
            "--ignore-layout",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["nodes"]["moved"], serde_json::json!([]));
    assert_eq!(j["same_behaviour"], true);
    // A changed literal: behaviour differs.
    pair(dir.path(), &OLD.replace("\"hi\"", "\"ho\""));
    let (code, out, _) = sinew(
        dir.path(),
        &["diff", "old.bpg", "new.bpg", "--format", "json"],
    );
    assert_eq!(code, 1);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        j["nodes"]["changed"][0]["inputs"][0],
        serde_json::json!({"name": "message", "old": "hi", "new": "ho"})
    );
    assert_eq!(
        (j["old"].as_str(), j["new"].as_str()),
        (Some("old.bpg"), Some("new.bpg"))
    );
    // --svg draws NEW with the marks.
    let (code, _, err) = sinew(
        dir.path(),
        &["diff", "old.bpg", "new.bpg", "--svg", "d.svg"],
    );
    assert_eq!(code, 1, "{err}");
    let svg = std::fs::read_to_string(dir.path().join("d.svg")).unwrap();
    assert!(
        svg.contains("data-node-id=\"b\" data-diff=\"changed\""),
        "{svg}"
    );
}

#[test]
fn diff_refuses_unparseable_and_missing_files_by_name() {
    let dir = tempfile::tempdir().unwrap();
    pair(dir.path(), "graph g\nnode a = \n");
    let (code, _, err) = sinew(dir.path(), &["diff", "old.bpg", "new.bpg"]);
    assert_eq!(code, 2);
    assert!(err.contains("error: new.bpg does not parse"), "{err}");
    let (code, _, err) = sinew(dir.path(), &["diff", "missing.bpg", "new.bpg"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read missing.bpg"), "{err}");
    std::fs::write(dir.path().join("bin.bpg"), [0xff, 0xfe, 0]).unwrap();
    let (code, _, err) = sinew(dir.path(), &["diff", "old.bpg", "bin.bpg"]);
    assert_eq!(code, 2);
    assert!(err.contains("bin.bpg is not valid UTF-8"), "{err}");
}

fn git(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_PAGER", "cat")
        .env("NO_COLOR", "1")
        .output()
        .expect("run git");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn git_difftool_and_textconv_wiring_work_in_a_real_repository() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bin = env!("CARGO_BIN_EXE_sinew");
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["config", "user.email", "t@example.com"],
        &["config", "user.name", "T"],
        &[
            "config",
            "diff.sinew.textconv",
            &format!("{bin} graph --textconv"),
        ],
    ] {
        assert_eq!(git(d, args).0, 0, "{args:?}");
    }
    std::fs::write(d.join(".gitattributes"), "*.bpg diff=sinew\n").unwrap();
    std::fs::write(d.join("g.bpg"), OLD).unwrap();
    assert_eq!(git(d, &["add", "."]).0, 0);
    assert_eq!(git(d, &["commit", "-q", "-m", "one"]).0, 0);

    // Items reordered and one node moved: the textconv diff shows only the moved line.
    std::fs::write(
        d.join("g.bpg"),
        "graph g\n\nnode b = debug.log { message = \"hi\" } at (260, 40)\nnode a = event begin_play at (0, 0)\n\na.then -> b.exec\n",
    )
    .unwrap();
    let (code, out, err) = git(d, &["diff", "-U0"]);
    assert_eq!(code, 0, "{err}");
    let changed: Vec<&str> = out
        .lines()
        .filter(|l| {
            (l.starts_with('+') || l.starts_with('-'))
                && !l.starts_with("+++")
                && !l.starts_with("---")
        })
        .collect();
    assert_eq!(
        changed,
        [
            "-node b = debug.log { message = \"hi\" } at (220, 0)",
            "+node b = debug.log { message = \"hi\" } at (260, 40)"
        ],
        "{out}"
    );

    // difftool with sinew diff: the graph-aware report, and its verdict as the exit status.
    let tool = format!("{bin} diff");
    let (code, out, err) = git(d, &["difftool", "-y", "-x", &tool, "--trust-exit-code"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("> node b moved (220, 0) -> (260, 40)"),
        "{out}"
    );
    assert!(out.contains("same behaviour"), "{out}");
    std::fs::write(d.join("g.bpg"), OLD.replace("\"hi\"", "\"ho\"")).unwrap();
    let (code, out, _) = git(d, &["difftool", "-y", "-x", &tool, "--trust-exit-code"]);
    assert_ne!(code, 0, "behaviour differs: {out}");
    assert!(
        out.contains("~ node b input message \"hi\" -> \"ho\""),
        "{out}"
    );

    // A broken graph still diffs through the textconv (shown as it is).
    std::fs::write(d.join("g.bpg"), "graph g\nnode a =\n").unwrap();
    let (code, out, err) = git(d, &["diff"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("+node a ="), "{out}");
}

/// A graph of `nodes` nodes, each named by 1 000 characters (names are drawn in full: in
/// `data-node-id`, every `data-pin` and the tooltip).
fn long_named_graph(nodes: usize) -> String {
    let mut text = String::from("graph big\n");
    for n in 0..nodes {
        let name = "n".repeat(1000);
        text.push_str(&format!(
            "node {name}{n} = debug.log at ({}, {})\n",
            n % 100 * 300,
            n / 100 * 900
        ));
    }
    text
}

#[test]
fn a_picture_past_its_budget_is_refused_before_anything_is_written() {
    // Issue 24, item 3: a 10 MB graph drew a 70 MB SVG. One picture is at most 64 MiB.
    let dir = tempfile::tempdir().unwrap();
    let big = long_named_graph(10_000);
    assert!(big.len() < 11 << 20);
    std::fs::write(dir.path().join("big.bpg"), &big).unwrap();
    std::fs::write(dir.path().join("small.bpg"), long_named_graph(100)).unwrap();
    for args in [
        &["graph", "big.bpg", "--svg", "out.svg"][..],
        &["diff", "small.bpg", "big.bpg", "--svg", "out.svg"][..],
    ] {
        let (code, _, err) = sinew(dir.path(), args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains("error[E0801]: the picture of this graph is larger than the 64 MiB budget of one picture; nothing was written"),
            "{args:?}: {err}"
        );
        assert!(
            err.contains("error: the picture of big.bpg was not written"),
            "{err}"
        );
        assert!(
            !dir.path().join("out.svg").exists(),
            "{args:?} wrote a file"
        );
    }
    // Within the budget the picture is drawn as before.
    let (code, _, err) = sinew(dir.path(), &["graph", "small.bpg", "--svg", "out.svg"]);
    assert_eq!(code, 0, "{err}");
    let svg = std::fs::read_to_string(dir.path().join("out.svg")).unwrap();
    assert!(
        svg.len() > 500_000 && svg.ends_with("</svg>\n"),
        "{}",
        svg.len()
    );
}
