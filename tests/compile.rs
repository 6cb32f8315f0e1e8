//! Data-driven compiler fixtures: every `tests/fixtures/graphs/ok/*.bpg` and every semantic
//! `tests/fixtures/graphs/err/*.bpg`
//! compiles against the fixture catalog (`tests/fixtures/catalog`) into one insta snapshot
//! (rendered diagnostics, JSON, and disassembly for graphs that compile).

use sinew::catalog::scan::LiveCatalog;
use sinew::compile::{self, EventCatalog};
use sinew::diag::SourceFile;
use sinew::diag::render::{human, to_json};
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::OnceLock;

fn catalog() -> &'static LiveCatalog {
    static C: OnceLock<LiveCatalog> = OnceLock::new();
    C.get_or_init(|| {
        LiveCatalog::scan(Path::new("tests/fixtures/catalog"), None, None).expect("fixture catalog")
    })
}

/// Compiles one fixture and returns (snapshot text, codes reported, compiled ok).
fn check(path: &Path) -> (String, BTreeSet<&'static str>, bool) {
    let name = path.to_string_lossy().replace('\\', "/");
    let text = std::fs::read_to_string(path).unwrap();
    let src = SourceFile::new(name.clone(), text);
    let c = compile::compile(&src, catalog().catalog());
    let diags = c.diagnostics();
    let mut out = human(diags, false);
    out.push_str("\n--- json\n");
    out.push_str(&serde_json::to_string_pretty(&to_json(diags)).unwrap());
    if let Some(m) = &c.module {
        out.push_str("\n--- disassembly\n");
        out.push_str(&sinew::bytecode::disasm(m));
        // Same source + catalog ⇒ same bytes.
        let again = compile::compile(&src, catalog().catalog());
        assert_eq!(again.module.unwrap().module().encode(), m.module().encode());
    }
    (
        out,
        diags.iter().map(|d| d.code).collect(),
        c.module.is_some(),
    )
}

fn fixtures(dir: &str) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bpg"))
        .filter(|p| {
            !p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("syntax_")
        })
        .collect();
    v.sort();
    v
}

fn snapshot(kind: &str, path: &Path, text: &str) {
    let stem = path.file_stem().unwrap().to_string_lossy().to_string();
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false, omit_expression => true}, {
        insta::assert_snapshot!(format!("compile_{kind}_{stem}"), text);
    });
}

/// Syntax/formatter showcase files in `tests/fixtures/graphs/ok` that are not meant to compile
/// cleanly.
const FORMAT_ONLY: [&str; 2] = ["all_forms.bpg", "messy.bpg"];

#[test]
fn ok_graphs_compile_without_errors() {
    for p in fixtures("tests/fixtures/graphs/ok") {
        if FORMAT_ONLY.iter().any(|f| p.ends_with(f)) {
            continue;
        }
        let (text, codes, ok) = check(&p);
        assert!(ok, "{} did not compile:\n{text}", p.display());
        assert!(
            codes.iter().all(|c| c.starts_with('W')),
            "{}: {codes:?}",
            p.display()
        );
        snapshot("ok", &p, &text);
    }
}

#[test]
fn err_graphs_report_their_diagnostics() {
    let mut seen = BTreeSet::new();
    for p in fixtures("tests/fixtures/graphs/err") {
        let (text, codes, _) = check(&p);
        assert!(!codes.is_empty(), "{} reported nothing", p.display());
        // The header comment names the codes the fixture exists for.
        let head = std::fs::read_to_string(&p).unwrap();
        let first = head.lines().next().unwrap_or("");
        for want in first
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| w.len() == 5 && (w.starts_with('E') || w.starts_with('W')))
        {
            assert!(
                codes.contains(want),
                "{}: expected {want}, got {codes:?}",
                p.display()
            );
        }
        seen.extend(codes);
        snapshot("err", &p, &text);
    }
    // Every semantic code of the compiler has a fixture (E0399 is a compiler bug by definition;
    // E0322 and E0323 take graphs of megabytes: tests/limits.rs reaches them in memory; E0324
    // needs several graphs checked together: tests/check_scenes.rs).
    for (code, _) in sinew::diag::codes::CODES {
        if (code.starts_with("E03") || code.starts_with("W03"))
            && !["E0399", "E0322", "E0323", "E0324"].contains(code)
        {
            assert!(seen.contains(code), "no fixture reports {code}");
        }
    }
}

#[test]
fn every_builtin_kind_appears_in_an_ok_fixture() {
    let mut text = String::new();
    for p in fixtures("tests/fixtures/graphs/ok") {
        text.push_str(&std::fs::read_to_string(p).unwrap());
    }
    for k in sinew::nodes::BUILTINS {
        let written = match k.kind {
            "event begin_play" => "event begin_play".to_string(),
            "event tick" => "event tick".to_string(),
            "event custom" => "event custom::".to_string(),
            other => format!("= {other}"),
        };
        assert!(text.contains(&written), "no ok fixture uses {}", k.kind);
    }
}

#[test]
fn quarantine_note_names_the_conflicting_files() {
    let (text, codes, _) = check(Path::new("tests/fixtures/graphs/err/quarantined_event.bpg"));
    assert!(codes.contains("E0313"));
    assert!(
        text.contains("dup_a.animseq") && text.contains("dup_b.animseq"),
        "{text}"
    );
}

#[test]
fn suggestions_prefer_the_same_sequence() {
    let (text, _, _) = check(Path::new("tests/fixtures/graphs/err/unknown_event.bpg"));
    assert!(
        text.contains("did you mean `animseq::run.footstep_l`?"),
        "{text}"
    );
    let (text, _, _) = check(Path::new("tests/fixtures/graphs/err/unknown_kind.bpg"));
    assert!(
        text.contains("did you mean `int.add`?") && text.contains("did you mean `debug.log`?"),
        "{text}"
    );
}

#[test]
fn events_catalog_view_matches_status() {
    let c = catalog().catalog();
    assert!(matches!(
        EventCatalog::event(c, "animseq::dup.hit"),
        compile::EventInfo::Quarantined { .. }
    ));
    assert!(matches!(
        EventCatalog::event(c, "animseq::run.footstep_l"),
        compile::EventInfo::Published { .. }
    ));
    assert!(matches!(
        EventCatalog::event(c, "animseq::run.nope"),
        compile::EventInfo::Unknown
    ));
}

#[test]
fn fmt_is_idempotent_on_every_fixture_that_parses() {
    let mut all = fixtures("tests/fixtures/graphs/ok");
    all.extend(fixtures("tests/fixtures/graphs/err"));
    assert!(all.len() > 20);
    for p in all {
        let text = std::fs::read_to_string(&p).unwrap();
        let once = sinew::graph::format_source(&SourceFile::new("a.bpg", text))
            .unwrap_or_else(|d| panic!("{}: {d:?}", p.display()));
        let twice = sinew::graph::format_source(&SourceFile::new("a.bpg", once.clone())).unwrap();
        assert_eq!(once, twice, "{}", p.display());
    }
}
