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
    // The `commands!` table (the one source of animation commands).
    ("commands.rs", &[]),
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
    // The animation-command table is tokens every layer expands: it names no module.
    (
        "commands.rs",
        &[
            "anim", "bytecode", "vm", "nodes", "runtime", "project", "scene", "compile", "catalog",
            "cli",
        ],
    ),
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

/// Issue #25: one file watcher. Only `app::watch` uses `notify` (issue 26: the Bevy plugin
/// watches nothing itself; Bevy's `file_watcher`, feature `bevy-watch`, is its one watcher).
#[test]
fn only_app_watch_uses_notify() {
    const WATCHERS: &[&str] = &["src/app/watch.rs"];
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

/// Where a runtime source file sits: which `super` chain names the runtime itself.
#[derive(Clone, Copy)]
enum RuntimeDepth {
    /// `src/runtime/X.rs` or `src/runtime/X/mod.rs`: `super::` is the runtime.
    Top,
    /// `src/runtime/X/Y.rs`: `super::super::` is the runtime (`super::` is `X`).
    Nested,
}

/// The runtime modules `code` names: `crate::runtime::M…`, or `M` reached through the `super`
/// chain that is the runtime, including each member of a `{…}` group. `*` and `self` are no
/// module and are skipped; anything else is reported as written (a name of the runtime's root,
/// such as a re-export, shows up too and then matches no module).
fn runtime_refs(code: &str, depth: RuntimeDepth) -> Vec<String> {
    let mut prefixes = vec!["crate::runtime::"];
    prefixes.push(match depth {
        RuntimeDepth::Top => "super::",
        RuntimeDepth::Nested => "super::super::",
    });
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '*')
            .collect()
    };
    let mut out = Vec::new();
    for prefix in prefixes {
        for (i, _) in code.match_indices(prefix) {
            // `super::super::x` also contains `super::x` at its second half; and a `super::`
            // that continues a longer path (`foo::super::`) is not one.
            let before = &code[..i];
            if before.ends_with("::") || before.ends_with(|c: char| c.is_alphanumeric() || c == '_')
            {
                continue;
            }
            let rest = &code[i + prefix.len()..];
            if matches!(depth, RuntimeDepth::Nested)
                && prefix == "super::super::"
                && rest.starts_with("super::")
            {
                continue;
            }
            if let Some(group) = rest.strip_prefix('{') {
                let mut level = 0usize;
                let mut start = 0;
                for (j, c) in group.char_indices() {
                    match c {
                        '{' => level += 1,
                        '}' if level == 0 => {
                            out.push(ident(&group[start..j]));
                            break;
                        }
                        '}' => level -= 1,
                        ',' if level == 0 => {
                            out.push(ident(&group[start..j]));
                            start = j + 1;
                        }
                        _ => {}
                    }
                }
            } else {
                out.push(ident(rest));
            }
        }
    }
    out.retain(|m| !m.is_empty() && m != "*" && m != "self");
    out.sort();
    out.dedup();
    out
}

/// The runtime's import graph over its own modules (a file `X.rs` or a folder `X/` is one
/// module; `mod.rs`, the root that re-exports everything, is not one), from each file's code
/// outside comments and its test module.
fn runtime_graph() -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    let mut modules = std::collections::BTreeMap::new();
    for (_, module, refs) in runtime_files() {
        let entry = modules
            .entry(module.clone())
            .or_insert_with(std::collections::BTreeSet::new);
        entry.extend(refs.into_iter().filter(|m| *m != module));
    }
    modules
}

/// Each runtime source file (path under `src/runtime/`, its module, the runtime modules it
/// names), `mod.rs` of the runtime itself left out.
fn runtime_files() -> Vec<(String, String, Vec<String>)> {
    let root = Path::new("src/runtime");
    let mut out = Vec::new();
    for f in files_of("runtime") {
        let rel = f.strip_prefix(root).expect("under src/runtime");
        let parts: Vec<&str> = rel.iter().map(|p| p.to_str().expect("UTF-8")).collect();
        let (module, depth) = match parts.as_slice() {
            ["mod.rs"] => continue,
            [file] => (file.trim_end_matches(".rs").to_string(), RuntimeDepth::Top),
            [folder, "mod.rs"] => (folder.to_string(), RuntimeDepth::Top),
            [folder, ..] => (folder.to_string(), RuntimeDepth::Nested),
            [] => continue,
        };
        let text = code(&std::fs::read_to_string(&f).expect("source"));
        out.push((parts.join("/"), module, runtime_refs(&text, depth)));
    }
    out
}

/// A cycle in `graph`, as the path that closes it, if any.
fn find_cycle(
    graph: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
        done: &mut std::collections::BTreeSet<String>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, graph, done, path) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = std::collections::BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut done, &mut Vec::new()))
}

/// Issue #25: the runtime is layered. `time` (game time, timed queues, delays, scene actions) is
/// a leaf; the trace owns its record types and never names the animator; `schedule` is the top
/// (only the headless scene names it); no import circle among the runtime's modules; and every
/// reference names a module, never the runtime root's re-exports.
#[test]
fn the_runtime_is_layered() {
    // The scanner itself, on the shapes the runtime writes.
    assert_eq!(
        runtime_refs(
            "use super::{hub::{A, B}, trace::{self, T}};\nuse super::*;",
            RuntimeDepth::Top
        ),
        ["hub", "trace"]
    );
    assert_eq!(
        runtime_refs(
            "use super::Animator;\nuse crate::runtime::time::X;\nlet v = super::super::instance::f();",
            RuntimeDepth::Nested
        ),
        ["instance", "time"]
    );

    let graph = runtime_graph();
    let names: Vec<&String> = graph.keys().collect();
    let mut bad = Vec::new();
    for (module, uses) in &graph {
        for u in uses {
            if !graph.contains_key(u) {
                bad.push(format!(
                    "{module} names `{u}`, not a runtime module ({names:?})"
                ));
            }
        }
    }
    match graph.get("time") {
        Some(uses) if uses.is_empty() => {}
        Some(uses) => bad.push(format!("time is not a leaf: it names {uses:?}")),
        None => bad.push("no runtime::time module".into()),
    }
    let trace = graph.get("trace").cloned().unwrap_or_default();
    for above in [
        "animator", "instance", "notify", "scene", "schedule", "render",
    ] {
        if trace.contains(above) {
            bad.push(format!("trace names {above}"));
        }
    }
    for (file, _, uses) in runtime_files() {
        if uses.iter().any(|u| u == "schedule") && file != "scene/headless.rs" {
            bad.push(format!(
                "{file} names schedule (only scene/headless.rs, the headless run, may)"
            ));
        }
    }
    if let Some(cycle) = find_cycle(&graph) {
        bad.push(format!("import circle: {}", cycle.join(" → ")));
    }
    assert!(bad.is_empty(), "runtime layering:\n{}", bad.join("\n"));
}

/// Issue #25: tests wait for a condition through `tests/support/wait.rs` (`wait_until`,
/// `wait_exit`: a deadline, checks, a short park between them) or a blocking read with a
/// timeout, never by sleeping in a poll loop of their own. The sleeps left are not waits for a
/// condition; a new `thread::sleep` fails here until it is one of them or goes through the helper.
#[test]
fn tests_wait_through_the_one_helper() {
    const PAUSES: &[(&str, usize, &str)] = &[
        (
            "tests/bevy_plugin.rs",
            1,
            "paces the frames of a running App",
        ),
        ("tests/bevy_reload.rs", 1, "paces frames"),
        ("tests/import_cli.rs", 1, "a later modification time"),
        (
            "tests/support/watch.rs",
            1,
            "100 saves in one second are the case",
        ),
    ];
    let mut files = Vec::new();
    rust_files(Path::new("tests"), &mut files);
    let mut bad = Vec::new();
    for f in files {
        let rel = f.to_string_lossy().replace('\\', "/");
        if rel.starts_with("tests/fixtures/") {
            continue;
        }
        let text = std::fs::read_to_string(&f).expect("source");
        let n = code(&text)
            .matches(["thread", "::sleep("].concat().as_str())
            .count();
        let allowed = PAUSES
            .iter()
            .find(|(p, _, _)| *p == rel)
            .map_or(0, |(_, n, _)| *n);
        if n > allowed {
            bad.push(format!("{rel}: {n} thread::sleep (allowed {allowed})"));
        }
    }
    assert!(
        bad.is_empty(),
        "wait through tests/support/wait.rs instead:\n{}",
        bad.join("\n")
    );
}

/// Issue #25: a diagnostic printed on one line is written by `diag::line` (`one_line`,
/// `headline`: one form, escaped), never formatted by hand as `file:line:col: …` or
/// `severity[code]` elsewhere.
#[test]
fn diagnostic_lines_are_formatted_only_in_diag() {
    let shapes = [
        ["{}", ":{}:{}"].concat(),
        ["{}", "[{}]"].concat(),
        [".start.line", ", d."].concat(),
    ];
    let mut files = Vec::new();
    rust_files(Path::new("src"), &mut files);
    let mut bad = Vec::new();
    for f in files {
        let rel = f.to_string_lossy().replace('\\', "/");
        if rel.starts_with("src/diag/") || rel == "src/diag.rs" {
            continue;
        }
        let text = code(&std::fs::read_to_string(&f).expect("source"));
        for s in &shapes {
            if text.contains(s.as_str()) {
                bad.push(format!("{rel}: {s}"));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "use Diagnostic::one_line / headline (src/diag/line.rs):\n{}",
        bad.join("\n")
    );
}
