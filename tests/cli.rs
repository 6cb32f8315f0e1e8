//! The `sinew` binary end to end: JSON shapes, exit statuses, determinism (contract: cli.md).

use serde_json::Value;
use std::path::Path;
use std::process::Command;

#[path = "support/wait.rs"]
mod wait;

/// Runs `sinew` with `args` in `dir`; returns (status, stdout, stderr).
fn check(dir: &Path, args: &[&str]) -> (i32, String, String) {
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

fn json(s: &str) -> Value {
    serde_json::from_str(s.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {s}"))
}

/// The codes of a `--format json` report's diagnostics, in order.
fn json_codes(out: &str) -> Vec<String> {
    json(out)["diagnostics"]
        .as_array()
        .unwrap_or_else(|| panic!("no diagnostics array: {out}"))
        .iter()
        .map(|d| d["code"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn crossings_conformance_cases_through_the_cli() {
    let cases =
        json(&std::fs::read_to_string(root().join("tests/fixtures/crossings/cases.json")).unwrap());
    for case in cases.as_array().unwrap() {
        let file = format!(
            "tests/fixtures/crossings/{}",
            case["file"].as_str().unwrap()
        );
        let mut args: Vec<String> =
            vec!["crossings".into(), file, "--format".into(), "json".into()];
        match case["kind"].as_str().unwrap() {
            "seek" => args.push("--seek".into()),
            "paused" => args.push("--paused".into()),
            kind => {
                args.push(format!("--from={}", case["frm"]));
                args.push(format!("--to={}", case["to"]));
                if kind == "start" {
                    args.push("--start".into());
                }
                if case["looping"].as_bool().unwrap() {
                    args.push("--looping".into());
                }
            }
        }
        if let Some(l) = case["limit"].as_u64() {
            args.push(format!("--limit={l}"));
        }
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, out, err) = check(root(), &argv);
        assert_eq!(code, 0, "{argv:?}: {err}");
        let got = json(&out);
        assert_eq!(got["truncated"], case["truncated"], "{argv:?}");
        let (g, e) = (
            got["crossings"].as_array().unwrap(),
            case["expected"].as_array().unwrap(),
        );
        assert_eq!(g.len(), e.len(), "{argv:?}: {out}");
        for (g, e) in g.iter().zip(e) {
            for k in ["id", "name", "cycle"] {
                assert_eq!(g[k], e[k], "{argv:?}");
            }
            for k in ["time", "clip_time"] {
                let (a, b) = (g[k].as_f64().unwrap(), e[k].as_f64().unwrap());
                assert_eq!(a.to_bits(), b.to_bits(), "{argv:?} {k}: {a} vs {b}");
            }
        }
    }
}

#[test]
fn crossings_exit_statuses() {
    let steps = "tests/fixtures/crossings/steps.animseq";
    assert_eq!(
        check(
            root(),
            &["crossings", "missing.animseq", "--from", "0", "--to", "1"]
        )
        .0,
        2
    );
    assert_eq!(
        check(root(), &["crossings", steps, "--from", "NaN", "--to", "1"]).0,
        2
    );
    assert_eq!(
        check(root(), &["crossings", steps, "--from", "0", "--to", "inf"]).0,
        2
    );
    assert_eq!(
        check(root(), &["crossings", steps]).0,
        2,
        "an interval is required"
    );
    let (code, out, _) = check(
        root(),
        &[
            "crossings",
            steps,
            "--from",
            "-2.5",
            "--to",
            "-1",
            "--looping",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0);
    // the first occurrence in (-2.5, -1] is `end` of cycle -3 at T = -3 + 1.0 = -2.0
    assert_eq!(
        json(&out)["crossings"][0],
        serde_json::json!({"id": "end", "name": "End", "time": -2.0, "clip_time": 1.0, "cycle": -3})
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.animseq"),
        "AnimSeq(format: 3, id: \"x\", name: \"x\", duration: 0.0, tracks: [])",
    )
    .unwrap();
    assert_eq!(
        check(
            dir.path(),
            &["crossings", "bad.animseq", "--from", "0", "--to", "1"]
        )
        .0,
        1
    );
}

#[test]
fn crossings_report_window_edges() {
    let sword = "tests/fixtures/crossings/sword.animseq";
    let args = |extra: &[&'static str]| {
        let mut v = vec!["crossings", sword];
        v.extend_from_slice(extra);
        v
    };
    let (code, out, err) = check(
        root(),
        &args(&[
            "--from",
            "0.2",
            "--to",
            "1.4",
            "--looping",
            "--format",
            "json",
        ]),
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        json(&out),
        serde_json::json!({"crossings": [
            {"id": "swing", "name": "Swing", "time": 0.3, "clip_time": 0.3, "cycle": 0},
            {"id": "hit", "name": "Hit Window", "edge": "begin", "time": 0.3, "clip_time": 0.3, "cycle": 0},
            {"id": "hit", "name": "Hit Window", "edge": "end", "time": 0.55, "clip_time": 0.55, "cycle": 0},
            {"id": "cancel", "name": "Can Cancel", "edge": "begin", "time": 0.7, "clip_time": 0.7, "cycle": 0},
            {"id": "cancel", "name": "Can Cancel", "edge": "end", "time": 1.0, "clip_time": 1.0, "cycle": 0},
            {"id": "swing", "name": "Swing", "time": 1.3, "clip_time": 0.3, "cycle": 1},
            {"id": "hit", "name": "Hit Window", "edge": "begin", "time": 1.3, "clip_time": 0.3, "cycle": 1},
        ], "truncated": false})
    );
    // A start inside the hit window opens it at the start time; edges count against --limit.
    let (code, out, _) = check(
        root(),
        &args(&["--from", "0.4", "--to", "0.6", "--start", "--limit", "1"]),
    );
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "0.4      hit  \"Hit Window\"  begin  clip 0.4  cycle 0\n1 crossing (truncated at the limit)\n"
    );
    // Reverse playback enters at the end.
    let (_, out, _) = check(root(), &args(&["--from", "0.6", "--to", "0.5"]));
    assert_eq!(
        out,
        "0.55     hit  \"Hit Window\"  begin  clip 0.55  cycle 0\n1 crossing\n"
    );
}

#[test]
fn catalog_json_shape_and_quarantine_exit_status() {
    let (code, out, _) = check(
        root(),
        &[
            "catalog",
            "--assets",
            "tests/fixtures/catalog",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 1, "quarantine is an error");
    let v = json(&out);
    let e = &v["events"][0];
    assert_eq!(
        e["id"],
        "animseq::5c1e8d0a-3f2b-4a51-9c67-2b8e4d7f1a10.0-step_R"
    );
    assert_eq!(e["name"], "Hero Run / Footstep R");
    assert_eq!(e["target"], serde_json::json!({"variable": "buddy"}));
    assert_eq!(e["file"], "tests/fixtures/catalog/hero_run.animseq");
    assert_eq!(
        e["fields"][2],
        serde_json::json!({"name": "push", "type": "vec3"})
    );
    let keys: Vec<&str> = e.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "id",
            "kind",
            "name",
            "sequence",
            "sequence_name",
            "notify",
            "notify_name",
            "file",
            "time",
            "target",
            "fields"
        ]
    );
    assert_eq!(e["kind"], "notify");
    // A window: `"kind": "window"` with `begin`/`end` instead of `time`.
    let w = v["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == "animseq::attack.hit")
        .expect("the window is published");
    assert_eq!(
        w,
        &serde_json::json!({"id": "animseq::attack.hit", "kind": "window",
            "name": "Sword Attack / Hit Window", "sequence": "attack",
            "sequence_name": "Sword Attack", "notify": "hit", "notify_name": "Hit Window",
            "file": "tests/fixtures/catalog/attack.animseq", "begin": 0.3, "end": 0.55,
            "target": "owner", "fields": [{"name": "damage", "type": "float"}]})
    );
    assert_eq!(
        v["quarantined"],
        serde_json::json!([{"id": "animseq::dup.hit", "files": ["tests/fixtures/catalog/dup_a.animseq", "tests/fixtures/catalog/dup_b.animseq"]}])
    );
    assert_eq!(v["diagnostics"][0]["code"], "E0201");
    assert_eq!(
        check(root(), &["catalog", "--assets", "no/such/folder"]).0,
        2
    );
    let (code, out, _) = check(root(), &["catalog", "--format", "json"]);
    assert_eq!(code, 0, "bundled assets are clean: {out}");
}

#[test]
fn palette_lists_builtins_and_published_events_only() {
    let (_, out, _) = check(
        root(),
        &[
            "palette",
            "--assets",
            "tests/fixtures/catalog",
            "--format",
            "json",
        ],
    );
    let v = json(&out);
    let nodes = v["nodes"].as_array().unwrap();
    let add = nodes.iter().find(|n| n["kind"] == "int.add").unwrap();
    assert_eq!(
        add,
        &serde_json::json!({"kind": "int.add", "name": "Add", "category": "Math/Int",
        "description": "`a + b` (wrapping on overflow).",
        "inputs": [{"name": "a", "type": "int", "default": "0"}, {"name": "b", "type": "int", "default": "0"}],
        "outputs": [{"name": "out", "type": "int"}], "properties": []})
    );
    // Every pin's default, the warning flag, and properties with their defaults.
    let find = |k: &str| nodes.iter().find(|n| n["kind"] == k).unwrap();
    assert_eq!(
        find("event.send")["inputs"],
        serde_json::json!([{"name": "exec", "type": "exec"},
            {"name": "target", "type": "entity", "default": "self", "warn_unset": true}])
    );
    assert_eq!(
        find("flow.gate")["properties"],
        serde_json::json!([{"name": "start_open", "type": "bool", "default": "true",
            "description": "whether the gate is open before its first `open`, `close` or `toggle`"}])
    );
    assert_eq!(
        find("var.set")["inputs"][1],
        serde_json::json!({"name": "value", "type": "var",
            "default": "default of the variable's type", "warn_unset": true})
    );
    let ev = nodes
        .iter()
        .find(|n| n["kind"] == "event animseq::run.footstep_l")
        .unwrap();
    assert_eq!(ev["category"], "Events/Animation/Run");
    let outs: Vec<&str> = ev["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        outs,
        [
            "then",
            "entity",
            "time",
            "clip_time",
            "cycle",
            "clip_weight",
            "surface",
            "volume"
        ]
    );
    assert!(
        !nodes.iter().any(|n| n["kind"] == "event animseq::dup.hit"),
        "quarantined identities never appear"
    );
    let hit = nodes
        .iter()
        .find(|n| n["kind"] == "event animseq::attack.hit")
        .unwrap();
    assert_eq!(hit["category"], "Events/Animation/Sword Attack");
    let outs: Vec<(&str, &str)> = hit["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap(), p["type"].as_str().unwrap()))
        .collect();
    assert_eq!(
        outs,
        [
            ("begin", "exec"),
            ("end", "exec"),
            ("entity", "entity"),
            ("time", "float"),
            ("clip_time", "float"),
            ("cycle", "int"),
            ("clip_weight", "float"),
            ("completed", "bool"),
            ("damage", "float")
        ]
    );
}

/// A clean assets folder (the fixture catalog without the conflicting copies).
fn clean_assets() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let assets = dir.path().join("assets");
    std::fs::create_dir(&assets).unwrap();
    for f in ["run.animseq", "hero_run.animseq"] {
        std::fs::copy(
            root().join("tests/fixtures/catalog").join(f),
            assets.join(f),
        )
        .unwrap();
    }
    std::fs::create_dir(dir.path().join("graphs")).unwrap();
    for f in ["flow_nodes.bpg", "math_nodes.bpg", "anim_nodes.bpg"] {
        std::fs::copy(
            root().join("tests/fixtures/graphs/ok").join(f),
            dir.path().join("graphs").join(f),
        )
        .unwrap();
    }
    dir
}

#[test]
fn check_json_and_sarif_and_exit_statuses() {
    let dir = clean_assets();
    let (code, out, err) = check(dir.path(), &["check", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    let v = json(&out);
    assert_eq!(
        (v["graphs"].as_u64(), v["errors"].as_u64()),
        (Some(3), Some(0))
    );
    std::fs::write(
        dir.path().join("graphs/bad.bpg"),
        "graph bad\nnode a = int.ad\n",
    )
    .unwrap();
    let (code, out, _) = check(dir.path(), &["check", "--format", "json"]);
    assert_eq!(code, 1);
    let v = json(&out);
    assert_eq!(v["errors"], 1);
    assert_eq!(v["diagnostics"][0]["file"], "graphs/bad.bpg");
    assert_eq!(v["diagnostics"][0]["line"], 2);
    let (code, out, _) = check(dir.path(), &["check", "--format", "sarif"]);
    assert_eq!(code, 1);
    let s = json(&out);
    assert_eq!(s["version"], "2.1.0");
    let r = &s["runs"][0]["results"][0];
    assert_eq!(r["ruleId"], "E0302");
    assert_eq!(
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "graphs/bad.bpg"
    );
    assert!(
        r["partialFingerprints"]
            .as_object()
            .is_some_and(|o| !o.is_empty())
    );
    // warnings never change the status
    std::fs::write(
        dir.path().join("graphs/bad.bpg"),
        "graph bad\nvar unused: int = 0\n",
    )
    .unwrap();
    let (code, out, _) = check(dir.path(), &["check", "--format", "json"]);
    assert_eq!((code, json(&out)["warnings"].as_u64()), (0, Some(1)));
    assert_eq!(check(dir.path(), &["check", "no_such_dir"]).0, 2);
}

#[test]
fn build_is_deterministic_and_disasm_reads_only_verified_modules() {
    let dir = clean_assets();
    assert_eq!(check(dir.path(), &["build", "--out", "out1"]).0, 0);
    assert_eq!(check(dir.path(), &["build", "--out", "out2"]).0, 0);
    for f in ["flow_nodes.sbc", "math_nodes.sbc", "anim_nodes.sbc"] {
        let a = std::fs::read(dir.path().join("out1").join(f)).unwrap();
        let b = std::fs::read(dir.path().join("out2").join(f)).unwrap();
        assert_eq!(a, b, "{f}");
        assert_eq!(&a[..4], b"SNWB");
    }
    let (code, out, _) = check(dir.path(), &["disasm", "out1/flow_nodes.sbc"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("handler") && out.contains("flow.delay"),
        "{out}"
    );
    let mut bytes = std::fs::read(dir.path().join("out1/flow_nodes.sbc")).unwrap();
    let n = bytes.len();
    bytes.truncate(n - 3);
    std::fs::write(dir.path().join("corrupt.sbc"), &bytes).unwrap();
    let (code, _, err) = check(dir.path(), &["disasm", "corrupt.sbc"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("E0060"), "{err}");
    assert_eq!(check(dir.path(), &["disasm", "missing.sbc"]).0, 2);
    // a failing graph: nothing is written
    std::fs::write(
        dir.path().join("graphs/bad.bpg"),
        "graph bad\nnode a = int.ad\n",
    )
    .unwrap();
    assert_eq!(check(dir.path(), &["build", "--out", "out3"]).0, 1);
    assert!(!dir.path().join("out3").exists());
}

#[test]
fn fmt_check_and_rewrite() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("g.bpg");
    std::fs::write(&p, "graph   g\nnode a=int.add{b=1}\n").unwrap();
    let (code, out, _) = check(dir.path(), &["fmt", "--check", "g.bpg"]);
    assert_eq!((code, out.trim()), (1, "would reformat g.bpg"));
    assert_eq!(
        std::fs::read_to_string(&p).unwrap(),
        "graph   g\nnode a=int.add{b=1}\n",
        "--check writes nothing"
    );
    assert_eq!(check(dir.path(), &["fmt", "g.bpg"]).0, 0);
    assert_eq!(
        std::fs::read_to_string(&p).unwrap(),
        "graph g\n\nnode a = int.add { b = 1 }\n"
    );
    assert_eq!(check(dir.path(), &["fmt", "--check", "g.bpg"]).0, 0);
    std::fs::write(&p, "graph g\nnode = \n").unwrap();
    assert_eq!(
        check(dir.path(), &["fmt", "g.bpg"]).0,
        1,
        "syntax errors are input errors"
    );
}

#[test]
fn migrate_rewrites_at_the_lowest_version() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a.animseq");
    std::fs::write(&p, "AnimSeq(format: 3, id: \"a\", name: \"A\", duration: 1.0, tracks: [], notifies: [(id: \"n\", name: \"N\", time: 0.5)])").unwrap();
    let (code, out, err) = check(dir.path(), &["migrate", "a.animseq"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("format 3 -> 2"), "{out}");
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.contains("format: 2"), "{text}");
    let (_, out, _) = check(dir.path(), &["migrate", "a.animseq"]);
    assert!(out.contains("unchanged"), "{out}");
    assert_eq!(check(dir.path(), &["migrate", "nope.animseq"]).0, 2);
}

#[test]
fn migrate_keeps_comments_raises_with_to_and_leaves_what_it_cannot_read() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a.animseq");
    let v3 = "// hero run\nAnimSeq(\n    format: 3, // was 3\n    id: \"a\",\n    name: \"A\",\n    duration: 1.0,\n    tracks: [],\n    notifies: [\n        (id: \"n\", name: \"N\", time: 0.5, target: Owner), // step\n    ],\n)\n";
    std::fs::write(&p, v3).unwrap();
    let (code, out, err) = check(dir.path(), &["migrate", "a.animseq"]);
    assert_eq!(
        (code, out.as_str()),
        (0, "a.animseq: format 3 -> 2\n"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&p).unwrap(),
        v3.replace("format: 3", "format: 2")
            .replace(", target: Owner", "")
    );
    // Unchanged: reported, and the file is not written (same inode, same bytes).
    let ino = std::fs::metadata(&p).unwrap().ino();
    let (code, out, _) = check(dir.path(), &["migrate", "a.animseq"]);
    assert_eq!(
        (code, out.as_str()),
        (0, "a.animseq: unchanged (format 2)\n")
    );
    assert_eq!(std::fs::metadata(&p).unwrap().ino(), ino);
    // Raised on request, so it may gain windows; a target below the data's needs is refused.
    let (code, out, _) = check(dir.path(), &["migrate", "--to", "4", "a.animseq"]);
    assert_eq!((code, out.as_str()), (0, "a.animseq: format 2 -> 4\n"));
    assert!(
        std::fs::read_to_string(&p)
            .unwrap()
            .contains("format: 4, // was 3")
    );
    let (code, _, err) = check(dir.path(), &["migrate", "--to", "1", "a.animseq"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("needs format 2 (notifies)") && err.contains("left as it was"),
        "{err}"
    );
    assert_eq!(
        check(dir.path(), &["migrate", "--to", "9", "a.animseq"]).0,
        2
    );
    // Files it cannot read fully are never touched.
    for (name, bytes) in [
        ("broken.animseq", b"AnimSeq(format: 3, id: \"a\",".to_vec()),
        (
            "latin1.animseq",
            b"AnimSeq(format: 3, id: \"caf\xE9\")".to_vec(),
        ),
    ] {
        let q = dir.path().join(name);
        std::fs::write(&q, &bytes).unwrap();
        let ino = std::fs::metadata(&q).unwrap().ino();
        let (code, _, err) = check(dir.path(), &["migrate", name]);
        assert_eq!(code, 1, "{name}: {err}");
        assert_eq!(std::fs::read(&q).unwrap(), bytes);
        assert_eq!(std::fs::metadata(&q).unwrap().ino(), ino);
    }
}

#[test]
fn textual_merge_of_two_branches_compiles() {
    // Base graph and two branches that each add nodes and links, merged with git's algorithm.
    let base = "graph merge\n\nvar n: int = 0\n\nnode start = event begin_play\nnode set = var.set n\nnode tick = event tick\n\nstart.then -> set.exec\n";
    let a = "graph merge\n\nvar n: int = 0\n\nnode start = event begin_play\nnode log_a = debug.log { message = \"a\" }\nnode set = var.set n\nnode tick = event tick\n\nstart.then -> set.exec\nset.then -> log_a.exec\n";
    let b = "graph merge\n\nvar n: int = 0\n\nnode start = event begin_play\nnode set = var.set n\nnode tick = event tick\nnode log_b = debug.log { message = \"b\" }\n\ntick.then -> log_b.exec\nstart.then -> set.exec\n";
    let dir = tempfile::tempdir().unwrap();
    for (f, t) in [("base.bpg", base), ("a.bpg", a), ("b.bpg", b)] {
        std::fs::write(dir.path().join(f), t).unwrap();
    }
    let merged = Command::new("git")
        .args(["merge-file", "-p", "a.bpg", "base.bpg", "b.bpg"])
        .current_dir(dir.path())
        .output()
        .expect("git is installed");
    assert_eq!(
        merged.status.code(),
        Some(0),
        "clean merge: {}",
        String::from_utf8_lossy(&merged.stdout)
    );
    let text = String::from_utf8(merged.stdout).unwrap();
    let src = sinew::diag::SourceFile::new("merged.bpg", text);
    let c = sinew::compile::compile(&src, &sinew::catalog::Catalog::default());
    assert!(c.module.is_some(), "{:?}", c.diagnostics());
    let module = c.module.unwrap();
    assert_eq!(module.module().handlers.len(), 2);
}

#[test]
fn check_validates_skeletons_state_machines_and_scenes() {
    let dir = clean_assets();
    let assets = dir.path().join("assets");
    std::fs::write(
        assets.join("hero.animsm"),
        r#"StateMachine(entry: "idle", states: [(name: "idle", motion: Clip("idle"))], transitions: [(from: "idle", to: "idle")])"#,
    )
    .unwrap();
    std::fs::write(assets.join("bad.skel"), "Skeleton(bones: [])").unwrap();
    let (code, out, err) = check(dir.path(), &["check", "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    let codes = json_codes(&out);
    assert_eq!(codes, ["E0509", "E0520"]);
    // A scene checks its state machine against its animator's clip slots.
    std::fs::remove_file(assets.join("bad.skel")).unwrap();
    std::fs::write(
        assets.join("hero.animsm"),
        r#"StateMachine(entry: "idle", states: [(name: "idle", motion: Clip("idle"))])"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("s.scene.ron"),
        r#"Scene(entities: [(name: "h", animator: Some((clips: {"run": "run.animseq"}, state_machine: Some("hero.animsm"))))],
           actions: [(at: 0.0, entity: "h", action: SetParam("speed", 1.0))])"#,
    )
    .unwrap();
    let (code, out, _) = check(
        dir.path(),
        &["check", "--format", "json", "graphs", "s.scene.ron"],
    );
    let codes = json_codes(&out);
    assert_eq!(
        (code, codes),
        (1, vec!["E0518".to_string(), "E0562".into()])
    );
}

#[test]
fn check_reports_retargeting_problems() {
    let dir = clean_assets();
    let assets = dir.path().join("assets");
    std::fs::write(
        assets.join("rig.skel"),
        r#"Skeleton(bones: [(name: "hips", parent: None, translation: (0.0, 1.0, 0.0), rotation: (0.0, 0.0, 0.0, 1.0))])"#,
    )
    .unwrap();
    std::fs::write(
        assets.join("keyed.animseq"),
        r#"AnimSeq(format: 3, id: "keyed", name: "Keyed", duration: 1.0, skeleton: Some("gone.skel"),
            tracks: [(bone: "hips", translation: [(0.0, (0.0, 1.0, 0.0))], rotation: [], scale: [])])"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("s.scene.ron"),
        r#"Scene(entities: [(name: "h", animator: Some((skeleton: Some("rig.skel"),
            clips: {"k": "keyed.animseq"}, default_clip: Some("k"))))])"#,
    )
    .unwrap();
    let (code, out, err) = check(
        dir.path(),
        &["check", "--format", "json", "graphs", "s.scene.ron"],
    );
    assert_eq!(code, 0, "{out}{err}");
    let v = json(&out);
    let found: Vec<(String, String, u64)> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["file"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
            )
        })
        .collect();
    // Once at the clip's `skeleton` field, once at the scene's clip entry (both warnings).
    assert_eq!(
        found,
        [
            ("W0563".into(), "assets/keyed.animseq".into(), 1),
            ("W0563".into(), "s.scene.ron".into(), 2),
        ]
    );
}

#[test]
fn a_fresh_clone_checks_clean() {
    // No arguments: the graphs under `graphs` against `assets` (the compiler's failing fixtures
    // live under tests/); and the demo scene with them.
    fn count_graphs(dir: &std::path::Path) -> u64 {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| match p.is_dir() {
                true => count_graphs(&p),
                false => u64::from(p.extension().is_some_and(|x| x == "bpg")),
            })
            .sum()
    }
    let graphs = count_graphs(&root().join("graphs"));
    assert!(graphs >= 5, "the demo's graphs are under graphs/");
    let (code, out, err) = check(root(), &["check"]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert_eq!(
        out,
        format!("checked {graphs} graphs: 0 errors, 0 warnings\n")
    );
    let (code, out, _) = check(root(), &["check", "graphs", "scenes", "--format", "json"]);
    let v = json(&out);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        (
            v["graphs"].as_u64(),
            v["scenes"].as_u64(),
            v["errors"].as_u64(),
            v["warnings"].as_u64()
        ),
        (Some(graphs), Some(1), Some(0), Some(0))
    );
}

#[test]
fn the_demo_page_describes_what_the_demo_prints() {
    let readme = std::fs::read_to_string(root().join("docs/demo.md")).unwrap();
    let start = readme.find("In the demo").expect("demo description");
    assert!(
        std::fs::read_to_string(root().join("README.md"))
            .unwrap()
            .contains("docs/demo.md"),
        "the README points at the demo's description"
    );
    let described = &readme[start..];
    let (code, trace, _) = check(root(), &["run", "scenes/demo.scene.ron", "--ticks", "120"]);
    assert_eq!(code, 0);
    // Every log message, trace excerpt and end value the description quotes is printed.
    for quoted in [
        "hero ready",
        "hero step ",
        "Hero Turn / Footstep L",
        "clip wave",
        "villager waves back",
        "villager rested",
        "guard steps on grass, volume 0.6",
        "hero.steps = 4",
        "guard.steps = 3",
        "Sword Attack / Swing",
        "knight: blade armed",
        "cut short",
        "hit window cut short: blade disarmed",
        "knight.armed = false",
    ] {
        assert!(described.contains(quoted), "docs/demo.md lacks `{quoted}`");
        assert!(
            trace.contains(quoted),
            "the demo does not print `{quoted}`:\n{trace}"
        );
    }
    // Each `log` line of the trace is one the description names.
    for line in trace.lines().filter(|l| l.contains("  log  ")) {
        let message = line.rsplit(": ").next().unwrap();
        let message = message.trim_end_matches(|c: char| c.is_ascii_digit());
        assert!(
            described.contains(message),
            "docs/demo.md does not describe `{line}`"
        );
    }
}

#[test]
fn palette_lists_each_category_once_and_every_node() {
    let (code, human, _) = check(root(), &["palette"]);
    let (_, js, _) = check(root(), &["palette", "--format", "json"]);
    assert_eq!(code, 0);
    let headings: Vec<&str> = human.lines().filter(|l| !l.starts_with(' ')).collect();
    let unique: std::collections::BTreeSet<&str> = headings.iter().copied().collect();
    assert_eq!(
        headings.len(),
        unique.len(),
        "duplicate headings: {headings:?}"
    );
    let nodes = json(&js)["nodes"].as_array().unwrap().clone();
    let entry = |l: &&str| l.starts_with("  ") && !l.starts_with("   ");
    let listed = human.lines().filter(entry).count();
    assert_eq!(listed, nodes.len());
    // Each node under its own category's heading.
    let lines: Vec<&str> = human.lines().collect();
    for n in &nodes {
        let kind = n["kind"].as_str().unwrap();
        let at = lines
            .iter()
            .position(|l| l.starts_with(&format!("  {kind} ")))
            .unwrap_or_else(|| panic!("{kind} not listed"));
        let heading = lines[..at].iter().rev().find(|l| !l.starts_with(' '));
        assert_eq!(heading.copied(), n["category"].as_str(), "{kind}");
        // The description on the line below, indented under the entry.
        let description = n["description"].as_str().unwrap();
        assert!(!description.is_empty(), "{kind}");
        assert_eq!(lines[at + 1].trim(), description, "{kind}");
    }
}

#[test]
fn crossings_usage_shows_seek_and_paused_on_their_own() {
    let (code, out, _) = check(root(), &["crossings", "--help"]);
    assert_eq!(code, 0);
    for usage in [
        "sinew crossings <FILE> --from <FROM> --to <TO> [--looping] [--start] [OPTIONS]",
        "sinew crossings <FILE> --seek [OPTIONS]",
        "sinew crossings <FILE> --paused [OPTIONS]",
    ] {
        assert!(out.contains(usage), "{usage} not in:\n{out}");
    }
}

#[test]
fn a_closed_pipe_ends_the_command_quietly() {
    use std::io::{BufRead, BufReader};
    // `sinew run … | head -1`: a million ticks, but the reader leaves after one line.
    let mut child = Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(["run", "scenes/demo.scene.ron", "--ticks", "1000000"])
        .current_dir(root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run sinew");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.contains("hero ready"), "{first}");
    // The reader is gone (dropped above): the run stops at its next write, quietly.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = wait::wait_exit(&mut child, deadline).expect("still running");
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!((status.code(), err.as_str()), (Some(0), ""));
}

#[test]
fn the_bundled_graphs_are_canonical() {
    // A designer who moves one node in the studio and saves must see one line change, not the
    // whole file re-aligned: the bundled graphs are kept in `sinew fmt`'s form.
    let (code, out, err) = check(root(), &["fmt", "--check", "graphs"]);
    assert_eq!(code, 0, "graphs/ is not canonical:\n{out}{err}");
}
