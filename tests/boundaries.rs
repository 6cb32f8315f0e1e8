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
    ("commands.rs", &[]),
];

/// Modules that own file-system access (everything else under `src/` must be in `PURE`).
/// `bevy` (the plugin) reads through Bevy's asset reader, never `std::fs`, but walks folders.
const IO: &[&str] = &[
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
    // The animation-command table is tokens every layer expands: it names no module.
    (
        "commands.rs",
        &[
            "anim", "bytecode", "vm", "nodes", "runtime", "project", "scene", "compile", "catalog",
            "cli",
        ],
    ),
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
                if text.contains(&format!("crate::{m}::"))
                    || text.contains(&format!("crate::{m};"))
                    || text.contains(&format!("crate::{m}::{{"))
                {
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

/// Issue #24: every recursive folder walk goes through `fsutil::walk` (one rule for links,
/// loops, names that are not UTF-8, depth and order). Outside `fsutil`, `read_dir` is allowed only
/// where one folder is listed, not walked: a new walker elsewhere fails here.
#[test]
fn folders_are_walked_only_through_fsutil() {
    const LISTINGS: &[&str] = &[
        // `Source::list` / `folders`: the entries of one folder a scene names.
        "src/project/fs.rs",
        // The generated folder's manifests and one output folder's stale files.
        "src/cli/import.rs",
    ];
    let mut files = Vec::new();
    rust_files(Path::new("src"), &mut files);
    let mut offenders = Vec::new();
    for f in files {
        let rel = f.to_string_lossy().replace('\\', "/");
        if rel.starts_with("src/fsutil/") || LISTINGS.contains(&rel.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(&f).expect("source");
        // `read_dir(`: std's (Bevy's `AssetReader::read_directory` is not the file system).
        if code(&text).contains("read_dir(") {
            offenders.push(rel);
        }
    }
    assert!(
        offenders.is_empty(),
        "walk these through fsutil::walk: {offenders:?}"
    );
}
