//! The module boundaries of `docs/ARCHITECTURE.md`, checked on the sources: pure modules never
//! touch the file system, and no module reaches into a layer above it.

use std::path::{Path, PathBuf};

/// Modules that never do I/O: (path under `src/`, files exempt).
const PURE: &[(&str, &[&str])] = &[
    ("animseq", &[]),
    ("crossing", &[]),
    ("graph", &[]),
    ("compile", &[]),
    ("bytecode", &[]),
    ("vm", &[]),
    ("anim", &[]),
    ("runtime", &[]),
    ("scene", &[]),
    ("project", &["src/project/fs.rs"]),
    ("ron_span", &[]),
    ("types.rs", &[]),
    ("nodes.rs", &[]),
    ("nodes", &[]),
    ("palette.rs", &[]),
    ("suggest.rs", &[]),
    ("escape.rs", &[]),
    ("number.rs", &[]),
    ("diag", &[]),
    ("diag.rs", &[]),
    ("picture", &[]),
    ("import", &[]),
    ("reload.rs", &[]),
];

/// Modules that own file-system access (everything else under `src/` must be in `PURE`).
/// `bevy` (the plugin) reads through Bevy's asset reader, never `std::fs`, but walks folders.
const IO: &[&str] = &[
    "app",
    "cli",
    "catalog",
    "fsutil",
    "workspace",
    "lib.rs",
    "main.rs",
    "studio",
    "bevy",
    "lsp",
];

/// Modules a module must not name (`crate::X`) outside comments and tests.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "animseq",
        &["runtime", "project", "scene", "compile", "catalog", "cli"],
    ),
    (
        "crossing",
        &["runtime", "project", "scene", "compile", "catalog", "cli"],
    ),
    (
        "graph",
        &["runtime", "project", "scene", "compile", "catalog", "cli"],
    ),
    (
        "bytecode",
        &["runtime", "project", "scene", "compile", "catalog", "cli"],
    ),
    (
        "vm",
        &["runtime", "project", "scene", "compile", "catalog", "cli"],
    ),
    (
        "anim",
        &["runtime", "project", "scene", "compile", "catalog", "cli"],
    ),
    ("compile", &["runtime", "project", "scene", "cli"]),
    (
        "scene",
        &["runtime", "project", "catalog", "compile", "cli"],
    ),
    ("runtime", &["project", "compile", "cli", "reload", "bevy"]),
    ("project", &["runtime", "cli", "reload", "bevy"]),
    ("reload.rs", &["cli", "bevy"]),
    (
        "catalog",
        &["runtime", "project", "scene", "compile", "cli"],
    ),
    ("picture", &["runtime", "project", "scene", "cli"]),
    (
        "import",
        &["runtime", "project", "scene", "compile", "catalog", "cli"],
    ),
    ("workspace", &["runtime", "cli"]),
    // The language server reads graphs through the compiler and the catalog, never runs them.
    ("lsp", &["runtime", "cli", "studio", "reload", "bevy"]),
    // Issue #25: the rows the layer rules of `docs/ARCHITECTURE.md` lacked.
    // The leaves: the value type, the node table, the palette, the diagnostics.
    ("types.rs", BELOW_CATALOG),
    ("nodes.rs", BELOW_CATALOG),
    ("nodes", BELOW_CATALOG),
    (
        "palette.rs",
        &[
            "compile",
            "scene",
            "project",
            "runtime",
            "reload",
            "workspace",
            "app",
            "cli",
            "studio",
            "lsp",
            "bevy",
        ],
    ),
    ("diag.rs", BELOW_NODES),
    ("diag", BELOW_NODES),
    (
        "fsutil",
        &[
            "catalog",
            "compile",
            "scene",
            "project",
            "runtime",
            "reload",
            "workspace",
            "app",
            "cli",
            "studio",
            "lsp",
            "bevy",
        ],
    ),
    // The services: the checked project and the application layer name no front end.
    (
        "workspace",
        &["app", "reload", "cli", "studio", "lsp", "bevy"],
    ),
    ("app", FRONT_ENDS),
    // The front ends are siblings: none names another (`cli` only dispatches `sinew studio`
    // and `sinew lsp`, see `only_main_names_cli`).
    ("studio", FRONT_ENDS),
    ("bevy", FRONT_ENDS),
];

/// The front ends: named by nothing below them (and `cli` by nothing but `main.rs`).
const FRONT_ENDS: &[&str] = &["cli", "studio", "lsp", "bevy"];

/// What the leaves below the catalog (`types`, `nodes`) must not name.
const BELOW_CATALOG: &[&str] = &[
    "catalog",
    "palette",
    "compile",
    "scene",
    "project",
    "runtime",
    "reload",
    "workspace",
    "app",
    "cli",
    "studio",
    "lsp",
    "bevy",
];

/// What `diag` (named by every stage) must not name.
const BELOW_NODES: &[&str] = &[
    "nodes",
    "catalog",
    "palette",
    "compile",
    "scene",
    "project",
    "runtime",
    "reload",
    "workspace",
    "app",
    "cli",
    "studio",
    "lsp",
    "bevy",
];

/// The words that mean file-system access.
const FS_WORDS: &[&str] = &[
    "std::fs",
    "File::open",
    "File::create",
    "OpenOptions",
    "read_dir",
    "canonicalize",
    "symlink_metadata",
    ".metadata(",
    ".is_file()",
    ".is_dir()",
    ".exists()",
    "std::env::current_dir",
];

fn rust_files(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_file() {
        out.push(p.to_path_buf());
        return;
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for e in entries {
        if e.is_dir() {
            rust_files(&e, out);
        } else if e.extension().is_some_and(|x| x == "rs") {
            out.push(e);
        }
    }
}

/// The code of a source file: without its `#[cfg(test)]` module and without comment lines
/// (`//`, `//!`, `///`) or trailing comments.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .map(|l| l.split(" // ").next().unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// File-system words in `code`, including `fs` imported through a `use std::{…}` group.
fn fs_uses(code: &str) -> Vec<String> {
    let mut found: Vec<String> = FS_WORDS
        .iter()
        .filter(|w| code.contains(*w))
        .map(|w| w.to_string())
        .collect();
    for (i, _) in code.match_indices("std::{") {
        let group = &code[i..code[i..].find('}').map_or(code.len(), |j| i + j)];
        if group
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .any(|t| t == "fs")
        {
            found.push("std::{fs}".into());
        }
    }
    found
}

fn files_of(module: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    rust_files(&Path::new("src").join(module), &mut files);
    assert!(!files.is_empty(), "no sources for {module}");
    files
}

#[test]
fn pure_modules_never_touch_the_file_system() {
    let mut bad = Vec::new();
    for (module, exempt) in PURE {
        for f in files_of(module) {
            if exempt.iter().any(|e| Path::new(e) == f) {
                continue;
            }
            let text = std::fs::read_to_string(&f).expect("source");
            for w in fs_uses(&code(&text)) {
                bad.push(format!("{}: {w}", f.display()));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "file-system access in pure modules:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_detector_finds_file_system_access() {
    // The modules that may do I/O are found doing it, so the scan above is not vacuous.
    for f in [
        "src/fsutil/read.rs",
        "src/fsutil/write.rs",
        "src/project/fs.rs",
        "src/catalog/scan.rs",
        "src/workspace/files.rs",
    ] {
        let text = std::fs::read_to_string(f).expect("source");
        assert!(!fs_uses(&code(&text)).is_empty(), "{f}");
    }
    assert_eq!(fs_uses("use std::{fs, io};"), ["std::{fs}"]);
    assert_eq!(fs_uses("use std::{io, path::Path};"), Vec::<String>::new());
    assert!(fs_uses(&code("// std::fs in a comment\nlet x = 1;")).is_empty());
}

#[test]
fn no_module_reaches_into_a_layer_above_it() {
    let mut bad = Vec::new();
    for (module, forbidden) in LAYERS {
        for f in files_of(module) {
            let text = code(&std::fs::read_to_string(&f).expect("source"));
            for m in *forbidden {
                // A module names itself freely (`crate::studio::security` in `studio`).
                if module.trim_end_matches(".rs") == *m {
                    continue;
                }
                if names(&text, m) {
                    bad.push(format!("{} uses crate::{m}", f.display()));
                }
            }
        }
    }
    assert!(bad.is_empty(), "layer violations:\n{}", bad.join("\n"));
}

#[test]
fn every_module_is_classified_pure_or_io() {
    // A new module must say which it is, so the file-system scan above cannot miss it.
    let mut missing = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir("src")
        .expect("src")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for e in entries {
        let name = e
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string();
        let known = PURE.iter().any(|(m, _)| *m == name) || IO.contains(&name.as_str());
        if !known {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "modules in neither PURE nor IO (tests/boundaries.rs): {missing:?}"
    );
}

/// Issues #24 and #25: `fsutil` is the one reader (`read_input`, bounded), the one walker
/// (`walk`) and the one folder listing (`list`). Outside `fsutil`, no source reads a file or
/// lists a folder itself: a second reader or walker fails here.
const READ_WORDS: &[&str] = &["read_dir(", "fs::read", "File::open"];

/// The reading words in `code` (see [`READ_WORDS`]).
fn reads(code: &str) -> Vec<&'static str> {
    READ_WORDS
        .iter()
        .copied()
        .filter(|w| code.contains(w))
        .collect()
}

#[test]
fn files_are_read_and_folders_listed_only_through_fsutil() {
    let mut files = Vec::new();
    rust_files(Path::new("src"), &mut files);
    let mut offenders = Vec::new();
    for f in files {
        let rel = f.to_string_lossy().replace('\\', "/");
        if rel.starts_with("src/fsutil/") {
            continue;
        }
        let text = std::fs::read_to_string(&f).expect("source");
        // `read_dir(`: std's (Bevy's `AssetReader::read_directory` is not the file system).
        for w in reads(&code(&text)) {
            offenders.push(format!("{rel}: {w}"));
        }
    }
    assert!(
        offenders.is_empty(),
        "read through fsutil::read_input, walk through fsutil::walk, list through \
         fsutil::list:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_reader_rule_finds_readers() {
    // Not vacuous: the words are found where they are used, and not in comments.
    for f in ["src/fsutil/list.rs", "src/fsutil/walk.rs"] {
        let text = std::fs::read_to_string(f).expect("source");
        assert!(!reads(&code(&text)).is_empty(), "{f}");
    }
    assert_eq!(reads("let b = std::fs::read(p)?;"), ["fs::read"]);
    assert_eq!(reads("let t = fs::read_to_string(p)?;"), ["fs::read"]);
    assert_eq!(reads("File::open(p)"), ["File::open"]);
    assert_eq!(reads("for e in read_dir(p) {}"), ["read_dir("]);
    assert!(reads("reader.read_directory(&p).await").is_empty());
    assert!(reads(&code("// std::fs::read in a comment\nlet x = 1;")).is_empty());
}

/// Whether `code` names `crate::{module}` (a path, a `use`, or a `use` group).
fn names(code: &str, module: &str) -> bool {
    code.contains(&format!("crate::{module}::"))
        || code.contains(&format!("crate::{module};"))
        || code.contains(&format!("crate::{module}::{{"))
}

/// Issue #25: `cli` and `studio` are sibling front ends; only `src/main.rs` names `cli` (the
/// `cli` module names itself; `lib.rs` declares it), and nothing but `bevy` names `bevy`.
#[test]
fn only_main_names_cli_and_nothing_names_bevy() {
    let mut files = Vec::new();
    rust_files(Path::new("src"), &mut files);
    let mut bad = Vec::new();
    for f in files {
        let rel = f.to_string_lossy().replace('\\', "/");
        let text = code(&std::fs::read_to_string(&f).expect("source"));
        if !rel.starts_with("src/cli/") && rel != "src/main.rs" && names(&text, "cli") {
            bad.push(format!("{rel} names cli"));
        }
        if !rel.starts_with("src/bevy/") && names(&text, "bevy") {
            bad.push(format!("{rel} names bevy"));
        }
        if rel == "src/main.rs" {
            assert!(text.contains("sinew::cli"), "main.rs dispatches to cli");
        }
    }
    assert!(
        bad.is_empty(),
        "front ends named from below:\n{}",
        bad.join("\n")
    );
    assert!(names("use crate::cli::Ctx;", "cli"));
    assert!(names("crate::cli::{Ctx, OK}", "cli"));
    assert!(!names("crate::client::x", "cli"));
}

/// Whether `code` uses the `notify` crate: `notify_debouncer_full` (which re-exports it) or one
/// of the crate's own items (never Sinew's `runtime::notify` step, whose path looks alike).
fn uses_notify(code: &str) -> bool {
    const CRATE_ITEMS: &[&str] = &[
        "notify_debouncer_full",
        "notify::Watcher",
        "notify::RecommendedWatcher",
        "notify::RecursiveMode",
        "notify::EventKind",
        "notify::Event",
        "notify::Config",
        "notify::{",
    ];
    CRATE_ITEMS.iter().any(|w| code.contains(w))
}

/// Issue #25: one file watcher. Only `app::watch` (and the Bevy plugin's watching of its asset
/// folder, `bevy/renames.rs`) uses `notify`.
#[test]
fn only_app_watch_uses_notify() {
    const WATCHERS: &[&str] = &["src/app/watch.rs", "src/bevy/renames.rs"];
    let mut files = Vec::new();
    rust_files(Path::new("src"), &mut files);
    let mut bad = Vec::new();
    for f in files {
        let rel = f.to_string_lossy().replace('\\', "/");
        let text = code(&std::fs::read_to_string(&f).expect("source"));
        if uses_notify(&text) && !WATCHERS.contains(&rel.as_str()) {
            bad.push(rel);
        }
    }
    assert!(bad.is_empty(), "watch through crate::app::watch: {bad:?}");
    for w in WATCHERS {
        let text = code(&std::fs::read_to_string(w).expect("source"));
        assert!(uses_notify(&text), "{w}");
    }
    assert!(uses_notify("use notify::Event;"));
    assert!(!uses_notify("crate::runtime::notify::publish_notifies"));
    assert!(!uses_notify("pub use notify::publish_notifies;"));
}

/// `docs/ARCHITECTURE.md` ("One RON reader"): every RON input — the generated manifest and the
/// `.meta` sidecar included (issue #25) — is read by `ron_span`; serde's `ron` reads nothing.
#[test]
fn every_ron_input_is_read_by_ron_span() {
    let mut files = Vec::new();
    rust_files(Path::new("src"), &mut files);
    let mut bad = Vec::new();
    for f in files {
        let rel = f.to_string_lossy().replace('\\', "/");
        let text = code(&std::fs::read_to_string(&f).expect("source"));
        let reads = text.contains("ron::from_str") || text.contains("ron::de::");
        if reads {
            bad.push(rel);
        }
    }
    assert!(bad.is_empty(), "read RON through ron_span: {bad:?}");
}

/// `docs/ARCHITECTURE.md`'s test list is complete: it names every file of `tests/`.
#[test]
fn the_architecture_lists_every_test_file() {
    let doc = std::fs::read_to_string("docs/ARCHITECTURE.md").expect("ARCHITECTURE.md");
    let tests = &doc[doc.find("## Tests").expect("a Tests section")..];
    let mut missing = Vec::new();
    let mut files = Vec::new();
    rust_files(Path::new("tests"), &mut files);
    for f in files {
        let rel = f.to_string_lossy().replace('\\', "/");
        // Top-level test targets only (helpers live in `tests/support/` and `tests/common/`).
        if rel.matches('/').count() == 1 && !tests.contains(&format!("`{rel}`")) {
            missing.push(rel);
        }
    }
    assert!(
        missing.is_empty(),
        "name these in docs/ARCHITECTURE.md's Tests section: {missing:?}"
    );
}
