//! Issue 24: results that were wrong and output that could be forged — each case here failed
//! before its fix.

use std::fmt::Write as _;

// ---------------------------------------------------------------------------------------------
// Capped reports list errors before warnings (human, JSON and SARIF).
// ---------------------------------------------------------------------------------------------

#[test]
fn a_capped_report_of_many_unused_variables_still_lists_its_limit_errors() {
    let mut t = String::from("graph big\n");
    for i in 0..65_537 {
        writeln!(t, "var v{i}: int = 0").unwrap();
    }
    let src = sinew::diag::SourceFile::new("big.bpg", t);
    let c = sinew::compile::compile(&src, &sinew::catalog::Catalog::default());
    let diags = c.diagnostics();
    let (errors, warnings) = sinew::diag::counts(diags);
    assert!(errors >= 1 && warnings > 65_000, "{errors} {warnings}");
    let listed = |n: usize| n.min(sinew::diag::render::MAX_PER_FILE);
    let human = sinew::diag::render::human(diags, false);
    assert_eq!(human.matches("error[").count(), listed(errors), "{human}");
    let json = sinew::diag::render::to_json(diags);
    let json_errors = json
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "error")
        .count();
    assert_eq!(json_errors, listed(errors));
    let sarif = sinew::diag::sarif::to_sarif(diags, "0");
    let sarif_errors = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["level"] == "error")
        .count();
    assert_eq!(sarif_errors, listed(errors));
}

// ---------------------------------------------------------------------------------------------
// A window one ulp long on a looping clip opens and closes in one update, every cycle.
// ---------------------------------------------------------------------------------------------

#[test]
fn an_ulp_long_window_opens_and_closes_in_each_cycle_at_run_time() {
    use sinew::crossing::Edge;
    use sinew::project::{self, Layout, MemSource, ProjectPath};
    use sinew::runtime::{Trace, TraceKind, scene};
    let end = 0.5f64.next_up();
    let clip = format!(
        "AnimSeq(format: 4, id: \"c\", name: \"c\", duration: 1.0, tracks: [], notifies: [], \
         windows: [(id: \"w\", name: \"W\", begin: 0.5, end: {end:?})])"
    );
    let mut mem = MemSource::new();
    mem.insert(ProjectPath::new("assets/c.animseq").unwrap(), clip.as_str());
    mem.insert(
        ProjectPath::new("t.scene.ron").unwrap(),
        "Scene(entities: [(name: \"a\", animator: Some((clips: {\"c\": \"c.animseq\"}, \
         default_clip: Some(\"c\"))))])",
    );
    let layout = Layout::new(
        ProjectPath::new("t.scene.ron").unwrap(),
        ProjectPath::new("assets").unwrap(),
    );
    let loaded = project::load(&mem, &layout).expect("readable");
    let (def, assets) = loaded
        .ready()
        .unwrap_or_else(|| panic!("{:?}", loaded.diagnostics));
    let (mut world, mut schedule) = scene::headless(0.1).unwrap();
    world.insert_resource(Trace::default());
    scene::spawn(&mut world, def, assets).unwrap();
    let mut edges = Vec::new();
    for _ in 0..46 {
        schedule.run(&mut world);
        for r in world.resource_mut::<Trace>().drain() {
            if let TraceKind::Notify {
                edge: Some(edge),
                cycle,
                completed,
                ..
            } = r.kind
            {
                edges.push((r.tick, edge, cycle, completed));
            }
        }
    }
    // Cycles 0 to 4 (the clip is at 4.6 s): each a begin then its completed end; from cycle 1
    // on both edges are one canonical time, so one tick (before: the end came first and found
    // the window closed, which then stayed open a cycle and closed with the next cycle's end).
    let cycles: Vec<i64> = edges.iter().map(|e| e.2).collect();
    assert_eq!(cycles, [0, 0, 1, 1, 2, 2, 3, 3, 4, 4], "{edges:?}");
    for pair in edges.chunks(2) {
        let [(t0, Edge::Begin, k, false), (t1, Edge::End, _, true)] = pair else {
            panic!("{edges:?}");
        };
        assert!(*k == 0 || t0 == t1, "{edges:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Every command's human output goes through the one escaping rule: a name with ESC, CR, LF,
// BEL and U+202E (in file names, asset names, bone and clip names, string literals) is shown
// escaped and cannot forge a line. `studio` and `watch` are servers: their output is the
// studio's (tests/studio_hostile.rs) and check's.
// ---------------------------------------------------------------------------------------------

#[path = "support/gltf_gen.rs"]
mod gltf_gen;

/// A name that would set the terminal title, ring the bell, return the carriage, start a
/// forged `+ node backdoor` line and reverse the rest.
const HOSTILE: &str = "x\u{1b}]0;owned\u{7}\r\n+ node backdoor\u{202e}y";

/// `HOSTILE` as a RON / `.bpg` string body.
fn hostile_literal() -> String {
    HOSTILE
        .chars()
        .map(|c| match c {
            '\n' => "\\n".to_string(),
            c if c.is_control() || c == '\u{202e}' => format!("\\u{{{:x}}}", c as u32),
            c => c.to_string(),
        })
        .collect()
}

fn sinew_in(dir: &std::path::Path, args: &[&str]) -> (i32, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run sinew");
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}

fn hostile_project() -> tempfile::TempDir {
    use gltf_gen::{Gen, Path as P};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let lit = hostile_literal();
    let put = |rel: &str, bytes: &[u8]| {
        let p = d.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    };
    put(
        &format!("assets/{HOSTILE}.animseq"),
        format!(
            "AnimSeq(format: 2, id: \"s\", name: \"{lit}\", duration: 1.0, tracks: [], \
             notifies: [(id: \"n\", name: \"{lit}\", time: 0.5)])\n"
        )
        .as_bytes(),
    );
    // The old graph says one thing, the new one another: `diff` shows both literals. A raw ESC,
    // BEL and U+202E in the literal (the lexer keeps them), LF as `\n`; a CR would end the
    // string (a lone CR is a line break, `docs/graph-syntax.md`), so it is left out here.
    let raw = HOSTILE.replace('\n', "\\n").replace('\r', "");
    put(
        &format!("graphs/{HOSTILE}.bpg"),
        format!(
            "graph g\nnode on = event animseq::s.n\nnode l = debug.log {{ message = \"{raw}\" }}\n\
             on.then -> l.exec\n"
        )
        .as_bytes(),
    );
    put(
        "graphs/new.bpg",
        format!(
            "graph g\nnode on = event animseq::s.n\nnode l = debug.log {{ message = \"{raw}2\" }}\n\
             on.then -> l.exec\n"
        )
        .as_bytes(),
    );
    put(
        "s.scene.ron",
        format!(
            "Scene(entities: [(name: \"{lit}\", animator: Some((clips: {{\"c\": \"{lit}.animseq\"}}, \
             default_clip: Some(\"c\"))), graphs: [\"graphs/{lit}.bpg\"])])"
        )
        .as_bytes(),
    );
    // A model whose bone and clip names are hostile (imported names keep control characters).
    let mut g = Gen::new();
    let root = g.node(Some(HOSTILE), None);
    let bone = g.node(Some(&format!("{HOSTILE}2")), Some(root));
    g.skin(None, &[root, bone]);
    let a = g.animation(Some(HOSTILE));
    g.channel(
        a,
        bone,
        P::Translation,
        None,
        &[0.0, 1.0],
        &[0.0, 0.0, 0.0, 1.0, 2.0, 3.0],
    );
    put(&format!("models/{HOSTILE}.glb"), &g.glb());
    dir
}

/// The generated `.animseq` of the imported model.
fn imported_clip(d: &std::path::Path) -> String {
    let mut stack = vec![d.join("assets/animations/generated")];
    while let Some(p) = stack.pop() {
        for e in std::fs::read_dir(&p).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "animseq") {
                return p.strip_prefix(d).unwrap().to_string_lossy().into_owned();
            }
        }
    }
    panic!("no imported clip")
}

#[test]
fn every_command_escapes_hostile_names_in_human_output() {
    let dir = hostile_project();
    let d = dir.path();
    let graph = format!("graphs/{HOSTILE}.bpg");
    let clip = format!("assets/{HOSTILE}.animseq");
    let model = format!("models/{HOSTILE}.glb");
    let built = d.join("out");
    let built = built.to_str().unwrap();
    // (arguments, whether the output must show the name, escaped)
    let mut runs: Vec<(Vec<String>, bool)> = vec![
        (vec!["check".into(), "graphs".into()], false),
        (
            vec![
                "build".into(),
                "graphs".into(),
                "--out".into(),
                built.into(),
            ],
            false,
        ),
        (vec!["fmt".into(), "--check".into(), graph.clone()], false),
        (vec!["catalog".into()], true),
        (vec!["palette".into()], true),
        (
            vec![
                "run".into(),
                "s.scene.ron".into(),
                "--ticks".into(),
                "40".into(),
            ],
            true,
        ),
        (
            vec![
                "crossings".into(),
                clip.clone(),
                "--from=0".into(),
                "--to=1".into(),
            ],
            true,
        ),
        (vec!["migrate".into(), clip.clone()], true),
        (vec!["graph".into(), graph.clone()], true),
        (
            vec!["diff".into(), graph.clone(), "graphs/new.bpg".into()],
            true,
        ),
        (vec!["import".into(), model.clone()], true),
        // A file that does not exist: the error names it.
        (
            vec![
                "sample".into(),
                format!("{HOSTILE}.animseq"),
                "--at".into(),
                "0".into(),
            ],
            true,
        ),
    ];
    let check = |args: &[String], shows: bool| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (_, out) = sinew_in(d, &args);
        let raw: Vec<char> = out
            .chars()
            .filter(|&c| matches!(c, '\u{1b}' | '\u{7}' | '\r' | '\u{202e}'))
            .collect();
        assert!(raw.is_empty(), "{args:?} printed {raw:?} raw:\n{out}");
        assert!(
            !out.lines()
                .any(|l| l.trim_start().starts_with("+ node backdoor")),
            "{args:?} forged a line:\n{out}"
        );
        if shows {
            assert!(
                // A graph's own literal holds no CR (see `hostile_project`).
                out.contains("\\u{1b}]0;owned\\u{7}\\r\\n+ node backdoor\\u{202e}")
                    || out.contains("\\u{1b}]0;owned\\u{7}\\n+ node backdoor\\u{202e}"),
                "{args:?} does not show the name escaped:\n{out}"
            );
        }
    };
    for (args, shows) in runs.drain(..) {
        check(&args, shows);
    }
    // What the import wrote: its clip (clip and bone names from the model) and the module.
    let imported = imported_clip(d);
    check(
        &[
            "sample".into(),
            imported.clone(),
            "--at".into(),
            "0.5".into(),
        ],
        true,
    );
    check(
        &[
            "crossings".into(),
            imported,
            "--from=0".into(),
            "--to=1".into(),
        ],
        false,
    );
    let module = std::fs::read_dir(d.join("out"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "sbc"))
        .expect("a built module");
    check(
        &["disasm".into(), module.to_string_lossy().into_owned()],
        true,
    );
}
