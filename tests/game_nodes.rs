//! Game nodes in the toolchain (`bridge.md` §1): `*.nodes.ron` declarations (one snapshot of
//! diagnostics per bad file), the catalog's quarantine and refresh, and graphs calling game
//! nodes compiled against the fixture project `tests/fixtures/game/assets` (diagnostics, JSON and
//! disassembly snapshots, deterministic bytes, a verifier that refuses calls that do not match
//! the import table).

use sinew::bytecode::{self, Instr};
use sinew::catalog::scan::LiveCatalog;
use sinew::catalog::{Catalog, FileEntry, GameStatus};
use sinew::compile;
use sinew::diag::SourceFile;
use sinew::diag::render::{human, to_json};
use std::path::Path;
use std::sync::OnceLock;

const ASSETS: &str = "tests/fixtures/game/assets";

fn catalog() -> &'static Catalog {
    static C: OnceLock<Catalog> = OnceLock::new();
    C.get_or_init(|| {
        LiveCatalog::scan(Path::new(ASSETS), None, None)
            .expect("fixture assets")
            .into_catalog()
    })
}

fn files(dir: &str, ext: &str) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(ext))
        .collect();
    v.sort();
    v
}

fn snapshot(name: &str, text: &str) {
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false, omit_expression => true}, {
        insta::assert_snapshot!(name, text);
    });
}

fn stem(p: &Path) -> String {
    let n = p.file_name().unwrap().to_string_lossy().to_string();
    n.split('.').next().unwrap().to_string()
}

/// Compiles one graph against the fixture project: (snapshot text, compiled module).
fn check(path: &Path) -> (String, Option<bytecode::VerifiedModule>) {
    let name = path.to_string_lossy().replace('\\', "/");
    let src = SourceFile::new(name, std::fs::read_to_string(path).unwrap());
    let c = compile::compile(&src, catalog());
    let diags = c.diagnostics();
    let mut out = human(diags, false);
    out.push_str("\n--- json\n");
    out.push_str(&serde_json::to_string_pretty(&to_json(diags)).unwrap());
    if let Some(m) = &c.module {
        out.push_str("\n--- disassembly\n");
        out.push_str(&bytecode::disasm(m));
        let again = compile::compile(&src, catalog());
        assert_eq!(again.module.unwrap().module().encode(), m.module().encode());
        // The import table survives the binary format.
        let bytes = m.module().encode();
        assert_eq!(&bytecode::Module::decode(&bytes).unwrap(), m.module());
    }
    (out, c.module)
}

#[test]
fn graphs_calling_game_nodes_compile() {
    for p in files("tests/fixtures/game/ok", ".bpg") {
        let (text, m) = check(&p);
        let m = m.unwrap_or_else(|| panic!("{} did not compile:\n{text}", p.display()));
        assert!(!m.module().imports.is_empty(), "{}", p.display());
        snapshot(&format!("game_ok_{}", stem(&p)), &text);
    }
}

#[test]
fn bad_uses_of_game_nodes_are_diagnostics() {
    for p in files("tests/fixtures/game/err", ".bpg") {
        let (text, m) = check(&p);
        assert!(m.is_none(), "{} compiled", p.display());
        snapshot(&format!("game_err_{}", stem(&p)), &text);
    }
}

#[test]
fn bad_declarations_are_diagnostics_with_positions() {
    for p in files("tests/fixtures/game/decl", ".nodes.ron") {
        let name = p.to_string_lossy().replace('\\', "/");
        let e = FileEntry::from_bytes(&name, &std::fs::read(&p).unwrap());
        assert!(!e.diagnostics.is_empty(), "{name}");
        let kinds: Vec<&str> = e.game.iter().map(|n| n.kind.as_str()).collect();
        let text = format!("kept: {kinds:?}\n{}", human(&e.diagnostics, false));
        snapshot(&format!("game_decl_{}", stem(&p)), &text);
    }
}

#[test]
fn a_kind_two_files_declare_is_quarantined_naming_both() {
    let c = catalog();
    let GameStatus::Quarantined(files) = c.game_status("game.shared") else {
        panic!("{:?}", c.game_status("game.shared"));
    };
    assert_eq!(
        files,
        [
            format!("{ASSETS}/more.nodes.ron"),
            format!("{ASSETS}/other.nodes.ron")
        ]
    );
    let kinds: Vec<&str> = c.game_nodes().iter().map(|n| n.kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "game.apply_damage",
            "game.echo",
            "game.health",
            "game.play_sound",
            "game.stats.level"
        ]
    );
    let conflicts: Vec<String> = c
        .diagnostics()
        .iter()
        .filter(|d| d.code == "E0205")
        .map(|d| format!("{}:{}: {}", d.file, d.start.line, d.message))
        .collect();
    assert_eq!(
        conflicts,
        [
            format!(
                "{ASSETS}/more.nodes.ron:4: game node `game.shared` is also declared by {ASSETS}/other.nodes.ron"
            ),
            format!(
                "{ASSETS}/other.nodes.ron:4: game node `game.shared` is also declared by {ASSETS}/more.nodes.ron"
            ),
        ]
    );
}

#[test]
fn refresh_reports_changed_game_kinds_and_equals_a_fresh_scan() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let file = root.join("a.nodes.ron");
    std::fs::write(
        &file,
        "Nodes(format: 1, nodes: [(kind: \"game.x\", flow: Exec)])",
    )
    .unwrap();
    let mut live = LiveCatalog::scan(root, None, None).unwrap();
    assert!(matches!(
        live.catalog().game_status("game.x"),
        GameStatus::Published(_)
    ));
    // A second file declaring the kind quarantines it.
    let other = root.join("b.nodes.ron");
    std::fs::write(
        &other,
        "Nodes(format: 1, nodes: [(kind: \"game.x\", flow: Pure)])",
    )
    .unwrap();
    let delta = live.refresh(std::slice::from_ref(&other));
    assert_eq!(delta.game, [("game.x".to_string(), true)]);
    assert!(matches!(
        live.catalog().game_status("game.x"),
        GameStatus::Quarantined(_)
    ));
    // A changed signature is a change; the same text again is not.
    std::fs::remove_file(&other).unwrap();
    live.refresh(std::slice::from_ref(&other));
    std::fs::write(
        &file,
        "Nodes(format: 1, nodes: [(kind: \"game.x\", flow: Exec, inputs: [(name: \"a\", type: Int)])])",
    )
    .unwrap();
    assert_eq!(
        live.refresh(std::slice::from_ref(&file)).game,
        [("game.x".to_string(), true)]
    );
    assert!(live.refresh(std::slice::from_ref(&file)).is_empty());
    let fresh = LiveCatalog::scan(root, None, None).unwrap();
    let sig = |c: &Catalog| match c.game_status("game.x") {
        GameStatus::Published(n) => n.import(),
        s => panic!("{s:?}"),
    };
    assert_eq!(sig(live.catalog()), sig(fresh.catalog()));
}

/// The compiled `damage` graph's module, for the verifier cases.
fn damage() -> bytecode::Module {
    let (text, m) = check(Path::new("tests/fixtures/game/ok/damage.bpg"));
    m.unwrap_or_else(|| panic!("{text}")).module().clone()
}

#[test]
fn the_verifier_checks_every_call_against_the_import_table() {
    let good = damage();
    assert!(bytecode::verify(good.clone()).is_ok());
    let call = good
        .code
        .iter()
        .position(|i| matches!(i, Instr::GameCall { .. }))
        .unwrap();
    let refused = |m: bytecode::Module| bytecode::verify(m).unwrap_err().to_string();

    // An argument missing.
    let mut m = good.clone();
    m.code[call - 1] = Instr::Ret {};
    assert!(refused(m).contains("game.call"), "missing arg");
    // A result of the wrong type.
    let mut m = good.clone();
    m.code[call + 1] = Instr::GameRetI {
        dst: bytecode::Reg::new(0),
    };
    assert!(refused(m).contains("returns 2 value(s) (float, bool)"));
    // A signature that no longer matches what the call passes.
    let mut m = good.clone();
    m.imports[0].inputs.pop();
    assert!(refused(m).contains("takes 1 argument(s) (entity); the call passes entity, float"));
    // An import index out of range.
    let mut m = good.clone();
    m.code[call] = Instr::GameCall {
        import: bytecode::ImportRef(9),
    };
    assert!(refused(m).contains("import 9 out of range"));
    // The same kind imported twice.
    let mut m = good;
    let first = m.imports[0].clone();
    m.imports.push(first);
    assert!(refused(m).contains("imported twice"));
}

#[test]
fn the_palette_lists_game_nodes_by_category_with_their_file() {
    let entries = sinew::palette::build(catalog());
    let game: Vec<_> = entries
        .iter()
        .filter(|e| e.source == Some("game"))
        .collect();
    let text = serde_json::to_string_pretty(&game).unwrap();
    snapshot("game_palette", &text);
    // Quarantined kinds never appear; built-ins keep their JSON (no `source`).
    assert!(!entries.iter().any(|e| e.kind == "game.shared"));
    let add = serde_json::to_value(entries.iter().find(|e| e.kind == "int.add").unwrap()).unwrap();
    assert!(add.get("source").is_none() && add.get("file").is_none());
}

#[test]
fn a_graph_calling_a_node_whose_declaration_changed_signature_is_refused_at_that_node() {
    let dir = tempfile::tempdir().unwrap();
    let decl = |inputs: &str| {
        format!("Nodes(format: 1, nodes: [(kind: \"game.hit\", flow: Exec, inputs: [{inputs}])])")
    };
    let file = dir.path().join("g.nodes.ron");
    std::fs::write(&file, decl("(name: \"amount\", type: Int)")).unwrap();
    let mut live = LiveCatalog::scan(dir.path(), None, None).unwrap();
    let graph = SourceFile::new(
        "g.bpg",
        "graph g\nnode s = event begin_play\nnode h = game.hit { amount = 3 }\ns.then -> h.exec\n",
    );
    let c = compile::compile(&graph, live.catalog());
    assert!(c.module.is_some(), "{:?}", c.diagnostics());
    // Renamed input: the argument names an input that no longer exists.
    std::fs::write(&file, decl("(name: \"damage\", type: Int)")).unwrap();
    live.refresh(std::slice::from_ref(&file));
    let c = compile::compile(&graph, live.catalog());
    let d = human(c.diagnostics(), false);
    assert!(c.module.is_none());
    assert!(
        d.contains("E0316")
            && d.contains("has no input or property `amount`")
            && d.contains("it takes: damage"),
        "{d}"
    );
    // Retyped input: the literal no longer fits.
    std::fs::write(&file, decl("(name: \"amount\", type: Bool)")).unwrap();
    live.refresh(std::slice::from_ref(&file));
    let c = compile::compile(&graph, live.catalog());
    let d = human(c.diagnostics(), false);
    assert!(
        d.contains("E0311") && d.contains("expected bool literal"),
        "{d}"
    );
    // Removed: unknown, with no suggestion left.
    std::fs::write(&file, "Nodes(format: 1, nodes: [])").unwrap();
    live.refresh(std::slice::from_ref(&file));
    let c = compile::compile(&graph, live.catalog());
    let d = human(c.diagnostics(), false);
    assert!(
        d.contains("E0302") && d.contains("unknown game node `game.hit`"),
        "{d}"
    );
}
