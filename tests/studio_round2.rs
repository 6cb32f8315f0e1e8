//! The studio's API for issue 27 (`studio.md`, "Amended: the editor a designer keeps open"),
//! against a real server on port 0: the real cause of an error (an asset that does not
//! parse), new graphs in missing folders (inside `--graphs` only), and runs with values.

use serde_json::{Value, json};
use std::time::{Duration, Instant};

#[path = "support/studio.rs"]
mod harness;
use harness::*;

/// Waits for `f` to give `Some` (through the one waiting helper), or fails after a generous
/// deadline.
fn wait_until<T>(what: &str, f: impl FnMut() -> Option<T>) -> T {
    let end = Instant::now() + Duration::from_secs(20);
    harness::wait::wait_until(end, f).unwrap_or_else(|| panic!("timed out waiting for {what}"))
}

#[test]
fn a_broken_asset_is_named_with_its_own_diagnostic() {
    let s = start();
    let seq = s.dir.path().join("assets/run.animseq");
    let text = std::fs::read_to_string(&seq).unwrap();
    // A syntax error far from the sequence's `id`.
    let broken = text.replacen("duration:", "duration::", 1);
    assert_ne!(broken, text);
    std::fs::write(&seq, &broken).unwrap();
    let diags = wait_until("the asset's error in hero's diagnostics", || {
        let g = s.get(&format!("/api/graph?path={HERO}")).json();
        let d = g["diagnostics"].as_array()?.clone();
        d.iter()
            .any(|d| {
                d["file"]
                    .as_str()
                    .is_some_and(|f| f.ends_with("run.animseq"))
            })
            .then_some(d)
    });
    // The asset's own diagnostic: its code, file, line and column, its message.
    let own = diags
        .iter()
        .find(|d| d["file"].as_str().unwrap().ends_with("run.animseq"))
        .unwrap();
    assert!(own["code"].as_str().unwrap().starts_with("E01"), "{own}");
    assert!(own["line"].as_u64().unwrap() > 1, "{own}");
    assert!(own["column"].as_u64().unwrap() >= 1, "{own}");
    assert!(
        own.get("node").is_none(),
        "another file's error stands on no node: {own}"
    );
    // The nodes it breaks point to it instead of a bare "unknown event".
    let left = diags
        .iter()
        .find(|d| d["node"] == "left")
        .unwrap_or_else(|| panic!("{diags:?}"));
    assert_eq!(left["code"], "E0312");
    let msg = left["message"].as_str().unwrap();
    assert!(
        msg.contains("run.animseq") && msg.contains("does not load"),
        "{msg}"
    );
    let notes: Vec<&str> = left["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    let pointer = format!(
        "run.animseq:{}:{}: error[{}]",
        own["line"],
        own["column"],
        own["code"].as_str().unwrap()
    );
    assert!(notes.iter().any(|n| n.contains(&pointer)), "{notes:?}");
    assert!(
        !notes.iter().any(|n| n.contains("did you mean")),
        "{notes:?}"
    );
    // Help lines are in the JSON on their own too.
    assert!(
        left["help"][0].as_str().unwrap().starts_with("fix `"),
        "{left}"
    );
    // The graph list counts it; `sinew check` reports the asset's error once.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(["check", "--format", "json", "graphs", "--assets", "assets"])
        .current_dir(s.dir.path())
        .output()
        .unwrap();
    let text_out = String::from_utf8_lossy(&out.stdout);
    let all: Value = serde_json::from_str(&text_out).unwrap_or(Value::Null);
    let list = all
        .as_array()
        .cloned()
        .or_else(|| all["diagnostics"].as_array().cloned())
        .unwrap_or_default();
    let own_count = list
        .iter()
        .filter(|d| d["code"] == own["code"] && d["line"] == own["line"])
        .count();
    assert_eq!(own_count, 1, "{text_out}");
    assert!(
        list.iter()
            .any(|d| d["code"] == "E0312"
                && d["message"].as_str().unwrap().contains("does not load")),
        "{text_out}"
    );
    // Fixed: the graph is clean again.
    std::fs::write(&seq, &text).unwrap();
    wait_until("hero to be clean again", || {
        let g = s.get(&format!("/api/graph?path={HERO}")).json();
        (g["diagnostics"] == json!([])).then_some(())
    });
}

#[test]
fn new_graphs_make_missing_folders_inside_graphs_only() {
    let s = start();
    let put = |path: &str| {
        s.send(
            "PUT",
            &format!("/api/graph?path={path}"),
            &json!({"base": null, "source": "graph fresh\n"}),
        )
    };
    let r = put("levels/forest/deep/fresh.bpg");
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert!(s.graphs().join("levels/forest/deep/fresh.bpg").is_file());
    // Listed by the very next request.
    let list = s.get("/api/graphs").json();
    assert!(
        list["graphs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["path"] == "levels/forest/deep/fresh.bpg"),
        "{list}"
    );
    // Save as onto an existing file is a conflict with its version (nothing written).
    let r = put("levels/forest/deep/fresh.bpg");
    assert_eq!(r.status, 409);
    assert!(r.json()["version"].is_string());
    // Never outside: `..`, absolute paths, and folders through a symbolic link leading out.
    let outside = tempfile::tempdir().unwrap();
    for bad in ["../x/y.bpg", "/tmp/x/y.bpg", "a/../../y.bpg"] {
        assert_eq!(put(bad).status, 400, "{bad}");
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outside.path(), s.graphs().join("out")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("missing"), s.graphs().join("dangling"))
            .unwrap();
        for bad in [
            "out/new/y.bpg",
            "out/y.bpg",
            "dangling/y.bpg",
            "dangling/deeper/y.bpg",
        ] {
            let r = put(bad);
            assert_eq!(r.status, 400, "{bad}: {}", String::from_utf8_lossy(&r.body));
        }
        assert_eq!(
            std::fs::read_dir(outside.path()).unwrap().count(),
            0,
            "nothing was made outside"
        );
    }
    // A file where a folder is wanted, and absurd depth.
    std::fs::write(s.graphs().join("plain.txt"), "x").unwrap();
    assert_eq!(put("plain.txt/y.bpg").status, 400);
    let deep = format!("{}y.bpg", "d/".repeat(40));
    assert_eq!(put(&deep).status, 400);
    assert!(
        !s.graphs().join("d").exists(),
        "no folder made for a refused path"
    );
    // A base that is not null never creates folders.
    let r = s.send(
        "PUT",
        "/api/graph?path=other/fresh.bpg",
        &json!({"base": "0000", "source": "graph fresh\n"}),
    );
    assert_eq!(r.status, 409);
    assert!(!s.graphs().join("other").exists());
}

#[test]
fn runs_answer_the_values_each_invocation_saw() {
    let s = start();
    let r = s.send(
        "POST",
        "/api/run",
        &json!({"scene": "demo.scene.ron", "ticks": 120}),
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let d = r.json();
    let (records, executed, values) = (
        d["records"].as_array().unwrap(),
        d["executed"].as_array().unwrap(),
        d["values"].as_array().unwrap(),
    );
    assert_eq!(values.len(), records.len());
    // Parallel to `executed`: one entry per invocation, same graph, entity and nodes.
    for (ex, va) in executed.iter().zip(values) {
        let (ex, va) = (ex.as_array().unwrap(), va.as_array().unwrap());
        assert_eq!(ex.len(), va.len());
        for (e, v) in ex.iter().zip(va) {
            assert_eq!((&e["graph"], &e["entity"]), (&v["graph"], &v["entity"]));
            let ran: std::collections::BTreeSet<&str> = e["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_str().unwrap())
                .collect();
            let keys: std::collections::BTreeSet<&str> = v["nodes"]
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            assert_eq!(ran, keys);
        }
    }
    // Each hero footstep counts one more step: `steps` before and after, and the value
    // `count` (var.set) passed on, as the log line says it.
    let mut steps_seen = Vec::new();
    for (i, rec) in records.iter().enumerate() {
        if rec["kind"] != "log" || rec["graph"] != "hero" {
            continue;
        }
        let Some(msg) = rec["message"]
            .as_str()
            .and_then(|m| m.strip_prefix("hero step "))
        else {
            continue;
        };
        let n: i64 = msg.parse().unwrap();
        let v = &values[i][0];
        assert_eq!(v["vars_before"]["steps"], json!(n - 1), "{v}");
        assert_eq!(v["vars_after"]["steps"], json!(n), "{v}");
        assert_eq!(v["nodes"]["count"]["outputs"]["value"], json!(n), "{v}");
        // Inputs fed by a slot: `num` (pure) and `rem` read `count.value` — the wire's source
        // slot, so the same value; `count.value` itself comes from a pure `int.add` (registers,
        // never stored), so `count` reports no input.
        assert_eq!(v["nodes"]["num"]["inputs"]["a"], json!(n), "{v}");
        assert_eq!(v["nodes"]["rem"]["inputs"]["a"], json!(n), "{v}");
        assert_eq!(v["nodes"]["count"]["inputs"], json!({}), "{v}");
        steps_seen.push(n);
    }
    assert!(steps_seen.len() >= 2, "{steps_seen:?}");
    // The `end` record's vars are the last invocation's `vars_after`.
    let end = records
        .iter()
        .rev()
        .find(|r| r["kind"] == "end" && r["entity"] == "hero")
        .unwrap();
    assert_eq!(
        end["vars"]["hero"]["steps"],
        json!(steps_seen.last().unwrap())
    );
    // Off on request; anything but a boolean is refused.
    let r = s.send(
        "POST",
        "/api/run",
        &json!({"scene": "demo.scene.ron", "ticks": 10, "values": false}),
    );
    assert!(r.json().get("values").is_none());
    let r = s.send(
        "POST",
        "/api/run",
        &json!({"scene": "demo.scene.ron", "ticks": 10, "values": 1}),
    );
    assert_eq!(r.status, 400);
}

#[test]
fn boxes_and_reroutes_travel_through_the_api() {
    let s = start();
    let source = "graph g\n\nvar n: int = 0\n\nbox \"Count\" at (-20, -20) size (400, 200) { color = \"#336699\" }\n\n\
        node start = event begin_play at (0, 0)\nnode r1 = reroute at (100, 0)\nnode r2 = reroute at (150, 0)\n\
        node get = var.get n at (0, 100)\nnode rv = reroute at (100, 100)\nnode set = var.set n at (200, 0)\n\
        node lonely = reroute at (300, 300)\n\n\
        start.then -> r1.in\nr1.out -> r2.in\nr2.out -> set.exec\nget.value -> rv.in\nrv.out -> set.value\n";
    let r = s.send("POST", "/api/check", &json!({"source": source}));
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let d = r.json();
    assert_eq!(d["source"], source, "already canonical");
    assert_eq!(
        d["pins"]["r1"]["inputs"][0],
        json!({"name": "in", "type": "exec"})
    );
    assert_eq!(
        d["pins"]["r2"]["outputs"][0],
        json!({"name": "out", "type": "exec"})
    );
    assert_eq!(d["pins"]["rv"]["outputs"][0]["type"], "int");
    assert_eq!(d["pins"]["lonely"]["inputs"][0]["type"], "wire");
    let codes: Vec<(&str, &str)> = d["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap(),
                d["node"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(codes, [("W0340", "lonely")]);
    // Saved and read back: the model has the box, and the reroutes as nodes.
    let r = s.send(
        "PUT",
        "/api/graph?path=layout/g.bpg",
        &json!({"base": null, "source": source}),
    );
    assert_eq!(r.status, 200);
    let g = s.get("/api/graph?path=layout/g.bpg").json();
    assert_eq!(
        g["model"]["boxes"],
        json!([{"title": "Count", "x": -20, "y": -20, "w": 400, "h": 200, "color": "#336699"}])
    );
    assert!(
        g["model"]["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["id"] == "r1" && n["kind"] == "reroute")
    );
    // An absurd box in a model is refused by name, and nothing is written.
    let mut model = g["model"].clone();
    model["boxes"][0]["w"] = json!(0);
    let r = s.send(
        "PUT",
        "/api/graph?path=layout/g.bpg",
        &json!({"base": g["version"], "model": model}),
    );
    assert_eq!(r.status, 400);
    assert!(
        String::from_utf8_lossy(&r.body).contains("boxes[0]"),
        "{}",
        String::from_utf8_lossy(&r.body)
    );
    // The palette offers the reroute, typed by its wire; its picture draws the box and dots.
    let palette = s.get("/api/palette").json();
    let reroute = palette["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["kind"] == "reroute")
        .expect("reroute in the palette")
        .clone();
    assert_eq!(reroute["inputs"][0]["type"], "wire");
    let svg = String::from_utf8(s.get("/api/graph.svg?path=layout/g.bpg").body).unwrap();
    assert!(svg.contains("data-box-title=\"Count\"") && svg.contains("f-reroute"));
}
