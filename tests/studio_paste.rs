//! The page's paste (`studio.md`, round 2: "a pasted text that parses as a graph adds its nodes
//! with fresh ids"): `POST /api/check` with `source` answers the text read as a model, so the
//! page never parses `.bpg` itself; text that is not a graph is a 400 with its diagnostics.

use serde_json::json;

#[path = "support/studio.rs"]
mod harness;
use harness::*;

#[test]
fn check_of_source_answers_the_model_of_the_text() {
    let s = start();
    let text = "graph clip\n\nvar steps: int = 0\n\n// counts\nnode get = var.get steps at (10, 20)\nnode inc = int.add { b = 1.0 } at (200, 20)\n\nget.value -> inc.a\n";
    let r = s.send("POST", "/api/check", &json!({"path": null, "source": text}));
    assert_eq!(r.status, 200);
    let d = r.json();
    let m = &d["model"];
    assert_eq!(m["graph"], "clip");
    assert_eq!(m["vars"][0]["name"], "steps");
    assert_eq!(m["nodes"][0]["id"], "get");
    assert_eq!(m["nodes"][0]["kind"], "var.get steps");
    assert_eq!(m["nodes"][0]["x"], 10);
    assert_eq!(m["nodes"][1]["props"]["b"].to_string(), "1.0");
    assert_eq!(m["links"][0]["from"], "get.value");
    assert_eq!(m["links"][0]["to"], "inc.a");
    // A model body answers no model (the page has it).
    let r = s.send("POST", "/api/check", &json!({"model": m}));
    assert_eq!(r.status, 200);
    assert!(r.json().get("model").is_none());
}

#[test]
fn pasted_text_that_is_not_a_graph_is_refused_with_its_diagnostics() {
    let s = start();
    let r = s.send(
        "POST",
        "/api/check",
        &json!({"path": null, "source": "Dear diary, today I wrote no graph."}),
    );
    assert_eq!(r.status, 400);
    let d = r.json();
    assert!(d["error"].as_str().unwrap().contains("not a graph"), "{d}");
    assert!(
        d["diagnostics"].as_array().is_some_and(|a| !a.is_empty()),
        "{d}"
    );
}

#[test]
fn parse_answers_the_same_model_as_check_and_nothing_else() {
    // The page's paste asks `/api/parse`: the model `/api/check` answers for the same text,
    // without compiling it (no diagnostics, pins or text to send and read).
    let s = start();
    let text = "graph clip\n\nvar steps: int = 0\n\nbox \"Group\" at (0, 0) size (400, 200)\n\n// counts\nnode get = var.get steps at (10, 20)\nnode inc = int.add { b = 1.0 } at (200, 20) // one more\nnode r = reroute at (150, 40)\n\nget.value -> r.in\nr.out -> inc.a\n";
    let checked = s.send("POST", "/api/check", &json!({"path": null, "source": text}));
    assert_eq!(checked.status, 200);
    let parsed = s.send("POST", "/api/parse", &json!({"source": text}));
    assert_eq!(parsed.status, 200);
    let p = parsed.json();
    assert_eq!(p["model"], checked.json()["model"]);
    assert_eq!(p.as_object().map(|o| o.len()), Some(1), "{p}");
    // Not a graph: 400 with its diagnostics, as `/api/check` answers.
    let r = s.send(
        "POST",
        "/api/parse",
        &json!({"source": "Dear diary, today I wrote no graph."}),
    );
    assert_eq!(r.status, 400);
    let d = r.json();
    assert!(d["error"].as_str().unwrap().contains("not a graph"), "{d}");
    assert!(
        d["diagnostics"].as_array().is_some_and(|a| !a.is_empty()),
        "{d}"
    );
    // A body without `source` is a 400, never a panic.
    assert_eq!(
        s.send("POST", "/api/parse", &json!({"model": {}})).status,
        400
    );
}
