//! `sinew lsp` driven as an editor drives it: a real child process, JSON-RPC with
//! `Content-Length` framing over stdio (`support/lsp_client.rs`), on a fixture project whose
//! texts put emoji and accents before the positions that matter (LSP counts UTF-16 units).

#[path = "support/lsp_client.rs"]
mod client;

use client::{Client, fixture, pos, uri};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

/// `sinew check FILE --assets assets --format json` run in the project folder.
fn check_json(root: &Path, file: &str) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(["check", file, "--assets", "assets", "--format", "json"])
        .current_dir(root)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["diagnostics"].as_array().unwrap().clone()
}

/// The LSP position of a 1-based line and char column of `text`, computed independently.
fn lsp_pos(text: &str, line: u64, column: u64) -> Value {
    let l = text.split('\n').nth(line as usize - 1).unwrap_or("");
    let character: usize = l
        .chars()
        .take(column as usize - 1)
        .map(char::len_utf16)
        .sum();
    json!({"line": line - 1, "character": character})
}

fn td(uri: &str) -> Value {
    json!({"uri": uri})
}

fn at(uri: &str, p: Value) -> Value {
    json!({"textDocument": td(uri), "position": p})
}

#[test]
fn diagnostics_are_sinew_checks_with_utf16_ranges_and_did_you_mean_fixes() {
    let root = fixture();
    let mut c = Client::initialized(&root, json!({}));
    for file in ["graphs/erreurs.bpg", "graphs/pas.bpg"] {
        let path = root.join(file);
        let text = read(&path);
        let u = uri(&path);
        let got = c.open(&u, &text);
        let want = check_json(&root, file);
        assert!(!want.is_empty());
        assert_eq!(got.len(), want.len(), "{file}: {got:?}");
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g["code"], w["code"]);
            assert_eq!(g["message"], w["message"]);
            let sev = match w["severity"].as_str().unwrap() {
                "error" => 1,
                "warning" => 2,
                _ => 3,
            };
            assert_eq!(g["severity"], sev);
            let start = lsp_pos(
                &text,
                w["line"].as_u64().unwrap(),
                w["column"].as_u64().unwrap(),
            );
            let end = lsp_pos(
                &text,
                w["end_line"].as_u64().unwrap(),
                w["end_column"].as_u64().unwrap(),
            );
            assert_eq!(g["range"]["start"], start, "{file}: {g}");
            assert_eq!(g["range"]["end"], end, "{file}: {g}");
        }
    }
    // The emoji before `mesage` counts two UTF-16 units: column 44 (chars) is character 44.
    let path = root.join("graphs/erreurs.bpg");
    let text = read(&path);
    let u = uri(&path);
    let p = pos(&text, "mesage", 0, false);
    assert_eq!(p, json!({"line": 5, "character": 44}));
    let actions = c.call(
        "textDocument/codeAction",
        json!({"textDocument": td(&u), "range": {"start": p, "end": p}, "context": {"diagnostics": []}}),
    );
    let a = &actions[0];
    assert_eq!(a["kind"], "quickfix");
    let edit = &a["edit"]["changes"][&u][0];
    assert_eq!(edit["newText"], "message");
    assert_eq!(edit["range"]["start"], p);
    assert_eq!(edit["range"]["end"], pos(&text, "mesage", 0, true));
    assert_eq!(c.shutdown().code(), Some(0));
}

#[test]
fn changes_republish_with_the_version_and_an_empty_list_when_clean() {
    let root = fixture();
    let mut c = Client::initialized(&root, json!({}));
    let u = uri(&root.join("graphs/brouillon.bpg"));
    let d = c.open(&u, "graph brouillon\n\nnode a = flow.branh\n");
    assert_eq!(d[0]["code"], "E0302");
    let d = c.change(&u, 2, "graph brouillon\n\nnode a = event begin_play\n");
    assert!(d.is_empty(), "{d:?}");
    // A file that does not parse still gets diagnostics.
    let d = c.change(&u, 3, "graph brouillon\nnode = = =\n");
    assert!(!d.is_empty());
    assert_eq!(c.shutdown().code(), Some(0));
}

fn items(r: &Value) -> Vec<Value> {
    r.as_array()
        .or_else(|| r["items"].as_array())
        .unwrap()
        .clone()
}

fn labels(r: &Value) -> Vec<String> {
    items(r)
        .iter()
        .map(|i| i["label"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn completion_offers_kinds_events_pins_by_direction_variables_and_args() {
    let root = fixture();
    let path = root.join("graphs/pas.bpg");
    let base = read(&path);
    let u = uri(&path);
    let mut c = Client::initialized(&root, json!({}));
    c.open(&u, &base);
    let mut version = 1;
    let mut complete_at_end = |c: &mut Client, extra: &str| {
        version += 1;
        let text = format!("{base}{extra}");
        c.change(&u, version, &text);
        c.call(
            "textDocument/completion",
            at(&u, pos(&text, extra, 0, true)),
        )
    };
    // Kinds after `= `: built-ins and the catalog's events with their display names.
    let r = complete_at_end(&mut c, "node z = ");
    let l = labels(&r);
    assert!(l.contains(&"flow.branch".to_string()));
    assert!(l.contains(&"event begin_play".to_string()));
    let ev = items(&r)
        .into_iter()
        .find(|i| i["label"] == "event animseq::hero.pas_g")
        .expect("the catalog event is offered");
    assert!(ev.to_string().contains("Pas gauche 👣"), "{ev}");
    // Its documentation comes with `completionItem/resolve`: file, time and fields.
    let doc = c.call("completionItem/resolve", ev)["documentation"]["value"].clone();
    let doc = doc.as_str().unwrap();
    for part in [
        "Pas gauche 👣",
        "assets/héros.animseq",
        "0.25",
        "`volume`: float",
    ] {
        assert!(doc.contains(part), "{part} in {doc}");
    }
    // What was typed filters the events.
    let l = labels(&complete_at_end(&mut c, "node z = event animseq::hero.co"));
    assert_eq!(l, ["animseq::hero.coup"]);
    // A kind being typed is replaced whole.
    let r = complete_at_end(&mut c, "node z = flow.br");
    let it = items(&r)
        .into_iter()
        .find(|i| i["label"] == "flow.branch")
        .unwrap();
    assert!(!labels(&r).contains(&"int.add".to_string()));
    assert_eq!(it["textEdit"]["newText"], "flow.branch");
    // Outputs on the left of `->`, inputs on the right; never the other direction.
    let l = labels(&complete_at_end(&mut c, "pas."));
    for p in ["then", "surface", "volume", "time"] {
        assert!(l.contains(&p.to_string()), "{p} in {l:?}");
    }
    assert!(!l.contains(&"exec".to_string()));
    let l = labels(&complete_at_end(&mut c, "pas.then -> dire."));
    assert!(
        l.contains(&"exec".to_string()) && l.contains(&"message".to_string()),
        "{l:?}"
    );
    assert!(!l.contains(&"then".to_string()), "{l:?}");
    let l = labels(&complete_at_end(&mut c, "coup."));
    assert!(
        l.contains(&"begin".to_string()) && l.contains(&"touche".to_string()),
        "{l:?}"
    );
    // Variables after `var.get `.
    let l = labels(&complete_at_end(&mut c, "node v = var.get "));
    assert_eq!(l, ["compte", "nom"]);
    // ARGS names (after an emoji string, so the position counts UTF-16): the ones not given.
    let l = labels(&complete_at_end(
        &mut c,
        "node j = anim.play { clip = \"👣\", ",
    ));
    assert!(l.contains(&"at".to_string()), "{l:?}");
    assert!(
        !l.contains(&"clip".to_string()) && !l.contains(&"exec".to_string()),
        "{l:?}"
    );
    // Event subjects after `event `.
    let l = labels(&complete_at_end(&mut c, "node e = event "));
    assert!(l.contains(&"animseq::hero.coup".to_string()) && l.contains(&"tick".to_string()));
    assert_eq!(c.shutdown().code(), Some(0));
}

fn hover_text(c: &mut Client, u: &str, p: Value) -> String {
    let h = c.call("textDocument/hover", at(u, p));
    h["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn hover_shows_descriptions_events_pin_and_variable_types() {
    let root = fixture();
    let path = root.join("graphs/pas.bpg");
    let text = read(&path);
    let u = uri(&path);
    let mut c = Client::initialized(&root, json!({}));
    c.open(&u, &text);
    let h = hover_text(&mut c, &u, pos(&text, "debug.log", 0, false));
    let desc = sinew::nodes::lookup("debug.log").unwrap().description();
    assert!(h.contains(desc) && h.contains("`message`: string"), "{h}");
    let h = hover_text(&mut c, &u, pos(&text, "pas_g", 0, false));
    for part in [
        "Pas gauche 👣",
        "assets/héros.animseq",
        "0.25",
        "`surface`: string",
    ] {
        assert!(h.contains(part), "{part} in {h}");
    }
    let h = hover_text(&mut c, &u, pos(&text, "hero.coup", 0, true));
    assert!(
        h.contains("window from 0.3 to 0.55") && h.contains("Fenêtre de coup ⚔"),
        "{h}"
    );
    let h = hover_text(&mut c, &u, pos(&text, "then ->", 0, false));
    assert_eq!(h, "output pin `pas.then`: exec");
    let h = hover_text(&mut c, &u, pos(&text, "message", 1, false));
    assert_eq!(h, "input pin `dire.message`: string");
    let h = hover_text(&mut c, &u, pos(&text, "set compte", 0, true));
    assert_eq!(h, "variable `compte`: int = `0`");
    assert_eq!(c.shutdown().code(), Some(0));
}

#[test]
fn definition_goes_to_the_notify_window_node_variable_and_custom_event() {
    let root = fixture();
    let path = root.join("graphs/pas.bpg");
    let text = read(&path);
    let u = uri(&path);
    let asset = root.join("assets/héros.animseq");
    let asset_text = read(&asset);
    let mut c = Client::initialized(&root, json!({}));
    c.open(&u, &text);
    let mut def = |p: Value| c.call("textDocument/definition", at(&u, p));
    let line = |t: &str, needle: &str| pos(t, needle, 0, false)["line"].clone();
    let d = def(pos(&text, "pas_g", 0, false));
    assert_eq!(d["uri"], uri(&asset));
    assert_eq!(
        d["range"]["start"]["line"],
        line(&asset_text, "id: \"pas_g\"")
    );
    let d = def(pos(&text, "hero.coup", 0, true));
    assert_eq!(
        d["range"]["start"]["line"],
        line(&asset_text, "id: \"coup\"")
    );
    let d = def(pos(&text, "ecrire.exec", 0, false));
    assert_eq!(
        (d["uri"].clone(), d["range"]["start"]["line"].clone()),
        (json!(u), line(&text, "node ecrire"))
    );
    let d = def(pos(&text, "set compte", 0, true));
    assert_eq!(d["range"]["start"]["line"], line(&text, "var compte"));
    let d = def(pos(&text, "custom::bruit", 1, true));
    assert_eq!(
        d["range"]["start"]["line"],
        line(&text, "event custom::bruit")
    );
    assert_eq!(c.shutdown().code(), Some(0));
}

#[test]
fn references_and_rename_touch_only_identifiers_and_refuse_bad_names() {
    let root = fixture();
    let path = root.join("graphs/pas.bpg");
    let text = read(&path);
    let u = uri(&path);
    let mut c = Client::initialized(&root, json!({}));
    c.open(&u, &text);
    let refs = c.call(
        "textDocument/references",
        json!({"textDocument": td(&u), "position": pos(&text, "pas.then", 0, false), "context": {"includeDeclaration": true}}),
    );
    let starts: Vec<Value> = refs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["range"]["start"].clone())
        .collect();
    // The node's own id first, then its use in a link.
    assert_eq!(
        starts,
        [
            pos(&text, "pas =", 0, false),
            pos(&text, "pas.then", 0, false)
        ]
    );
    let refs = c.call(
        "textDocument/references",
        json!({"textDocument": td(&u), "position": pos(&text, "pas.then", 0, false), "context": {"includeDeclaration": false}}),
    );
    assert_eq!(refs.as_array().unwrap().len(), 1);
    // Rename a variable: its declaration and its `var.set` subject; the comment and the
    // string that say `compte` stay.
    let r = c.call(
        "textDocument/rename",
        json!({"textDocument": td(&u), "position": pos(&text, "set compte", 0, true), "newName": "total"}),
    );
    let mut edits: Vec<Value> = r["changes"][&u].as_array().unwrap().clone();
    edits.sort_by_key(|e| e["range"]["start"]["line"].as_u64());
    assert_eq!(edits.len(), 2, "{edits:?}");
    assert_eq!(
        edits[0]["range"]["start"],
        pos(&text, "compte: int", 0, false)
    );
    assert_eq!(edits[1]["range"]["start"], pos(&text, "compte\n", 0, false));
    for bad in ["9x", "a b", ""] {
        let r = c.request(
            "textDocument/rename",
            json!({"textDocument": td(&u), "position": pos(&text, "set compte", 0, true), "newName": bad}),
        );
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .contains("not a valid"),
            "{r}"
        );
    }
    let r = c.request(
        "textDocument/rename",
        json!({"textDocument": td(&u), "position": pos(&text, "lire.value", 0, false), "newName": "dire"}),
    );
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already exists"),
        "{r}"
    );
    assert_eq!(c.shutdown().code(), Some(0));
}

#[test]
fn formatting_is_sinew_fmt_and_symbols_survive_syntax_errors() {
    let root = fixture();
    let dir = tempfile::tempdir().unwrap();
    let messy = "// é 👣\ngraph  m\nnode  b = event begin_play   at (1,2)\nvar x:int=3\nb.then->l.exec\nnode l = debug.log {message=\"👣\"}\n";
    let file = dir.path().join("m.bpg");
    std::fs::write(&file, messy).unwrap();
    let st = Command::new(env!("CARGO_BIN_EXE_sinew"))
        .arg("fmt")
        .arg(&file)
        .status()
        .unwrap();
    assert!(st.success());
    let formatted = read(&file);
    let mut c = Client::initialized(&root, json!({}));
    let u = uri(&root.join("graphs/m.bpg"));
    c.open(&u, messy);
    let edits = c.call(
        "textDocument/formatting",
        json!({"textDocument": td(&u), "options": {"tabSize": 4, "insertSpaces": true}}),
    );
    let e = &edits[0];
    assert_eq!(e["newText"], formatted.as_str());
    assert_eq!(e["range"]["start"], json!({"line": 0, "character": 0}));
    assert_eq!(e["range"]["end"], json!({"line": 6, "character": 0}));
    let syms = c.call(
        "textDocument/documentSymbol",
        json!({"textDocument": td(&u)}),
    );
    let names: Vec<&str> = syms[0]["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(syms[0]["name"], "m");
    assert_eq!(names, ["b", "x", "l"]);
    // A syntax error in the middle: no formatting, the symbols of what parsed.
    let broken = "graph m\nnode a = event tick\nnode = = {\nnode c = debug.log\n";
    let d = c.change(&u, 2, broken);
    assert!(d.iter().any(|d| d["severity"] == 1));
    let edits = c.call(
        "textDocument/formatting",
        json!({"textDocument": td(&u), "options": {"tabSize": 4, "insertSpaces": true}}),
    );
    assert_eq!(edits, Value::Null);
    let syms = c.call(
        "textDocument/documentSymbol",
        json!({"textDocument": td(&u)}),
    );
    let names: Vec<&str> = syms[0]["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a", "c"]);
    assert_eq!(c.shutdown().code(), Some(0));
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let t = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &t);
        } else {
            std::fs::copy(e.path(), t).unwrap();
        }
    }
}

#[test]
fn an_asset_change_refreshes_the_catalog_and_republishes_affected_graphs() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("projet é");
    copy_dir(&fixture(), &root);
    let mut c = Client::initialized(&root, json!({}));
    // The server asks to watch the assets.
    let reg = c.wait(|m| m["method"] == "client/registerCapability");
    assert!(reg.to_string().contains("**/*.animseq"));
    let u = uri(&root.join("graphs/nouveau.bpg"));
    let text = "graph nouveau\n\nnode n = event animseq::hero.saut\n";
    let d = c.open(&u, text);
    assert_eq!(d[0]["code"], "E0312", "{d:?}");
    let asset = root.join("assets/héros.animseq");
    let new = read(&asset).replace(
        "(id: \"pas_d\"",
        "(id: \"saut\", name: \"Saut\", time: 0.5),\n        (id: \"pas_d\"",
    );
    std::fs::write(&asset, new).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&asset), "type": 2}]}),
    );
    let d = c.diagnostics(&u, 1);
    assert!(d.is_empty(), "{d:?}");
    // Saving an asset the editor has open refreshes too.
    std::fs::write(&asset, read(&asset).replace("\"saut\"", "\"sauter\"")).unwrap();
    c.notify(
        "textDocument/didSave",
        json!({"textDocument": td(&uri(&asset))}),
    );
    let d = c.diagnostics(&u, 1);
    assert_eq!(d[0]["code"], "E0312", "{d:?}");
    assert_eq!(c.shutdown().code(), Some(0));
}

#[test]
fn bad_input_gets_clear_answers_never_a_panic_or_a_hang() {
    let root = fixture();
    let mut c = Client::initialized(&root, json!({}));
    let u = uri(&root.join("graphs/mauvais.bpg"));
    // Empty, binary garbage, and a 5 MB file: diagnostics each, in time.
    let d = c.open(&u, "");
    assert!(!d.is_empty());
    let garbage: String = (0..4096u32)
        .map(|i| char::from_u32((i * 7919) % 0xD7FF).unwrap_or('\0'))
        .collect();
    let d = c.change(&u, 2, &garbage);
    assert!(!d.is_empty());
    let line = "// 👣 une ligne de commentaire assez longue pour remplir\n";
    let big = format!("graph big\n{}", line.repeat(90_000));
    assert!(big.len() > 5_000_000);
    let d = c.change(&u, 3, &big);
    assert!(d.is_empty(), "{:?}", d.first());
    // Positions past the end: null answers.
    for method in [
        "textDocument/hover",
        "textDocument/definition",
        "textDocument/completion",
    ] {
        let r = c.call(method, at(&u, json!({"line": 999_999, "character": 5})));
        assert_eq!(r, Value::Null, "{method}");
    }
    let r = c.call(
        "textDocument/hover",
        at(&u, json!({"line": 0, "character": 999_999})),
    );
    assert_eq!(r, Value::Null);
    // A document that is not open, an unknown method, bad parameters, a body that is not JSON.
    let r = c.call(
        "textDocument/hover",
        at("file:///nowhere.bpg", json!({"line": 0, "character": 0})),
    );
    assert_eq!(r, Value::Null);
    let r = c.request("sinew/unknown", json!({}));
    assert_eq!(r["error"]["code"], -32601);
    let r = c.request("textDocument/hover", json!({"nonsense": true}));
    assert_eq!(r["error"]["code"], -32602);
    c.raw(b"Content-Length: 5\r\n\r\n{oops");
    let r = c.wait(|m| m["error"]["code"] == -32700);
    assert_eq!(r["id"], Value::Null);
    // Still serving.
    let r = c.request("sinew/unknown2", json!({}));
    assert_eq!(r["error"]["code"], -32601);
    assert_eq!(c.shutdown().code(), Some(0));
    assert!(!c.stderr().contains("panicked"), "{}", c.stderr());
}

#[test]
fn a_client_that_disconnects_ends_the_server_within_five_seconds() {
    let mut c = Client::initialized(&fixture(), json!({}));
    c.disconnect();
    let st = c.wait_exit(Duration::from_secs(5));
    assert!(!st.success());
    assert!(!c.stderr().contains("panicked"), "{}", c.stderr());
    // Before `initialize`, requests are refused; `exit` without `shutdown` is status 1.
    let mut c = Client::start();
    let r = c.request("textDocument/hover", json!({}));
    assert_eq!(r["error"]["code"], -32002);
    c.notify("exit", Value::Null);
    assert_eq!(c.wait_exit(Duration::from_secs(5)).code(), Some(1));
}

#[test]
fn every_position_of_every_prefix_answers_without_an_internal_error() {
    // Every position of the fixture, as typed so far (each line prefix is the end of a buffer
    // being written), for every position-taking request.
    let root = fixture();
    let path = root.join("graphs/pas.bpg");
    let text = read(&path);
    let u = uri(&path);
    let mut c = Client::initialized(&root, json!({}));
    c.open(&u, &text);
    let mut version = 1;
    let mut ends: Vec<usize> = text.match_indices('\n').map(|(i, _)| i).collect();
    ends.extend(text.char_indices().map(|(i, _)| i).filter(|i| i % 7 == 0));
    ends.sort();
    ends.dedup();
    for end in ends {
        let prefix = &text[..end];
        version += 1;
        c.change(&u, version, prefix);
        let last = pos(prefix, prefix.lines().last().unwrap_or(""), 0, true);
        let last = if prefix.ends_with('\n') || prefix.is_empty() {
            json!({"line": prefix.matches('\n').count(), "character": 0})
        } else {
            json!({"line": prefix.matches('\n').count(), "character": last["character"]})
        };
        for method in [
            "textDocument/completion",
            "textDocument/hover",
            "textDocument/definition",
        ] {
            let r = c.request(method, at(&u, last.clone()));
            assert!(
                r.get("error").is_none(),
                "{method} at the end of {prefix:?}: {r}"
            );
        }
        let r = c.request(
            "textDocument/references",
            json!({"textDocument": td(&u), "position": last, "context": {"includeDeclaration": true}}),
        );
        assert!(
            r.get("error").is_none(),
            "references at the end of {prefix:?}: {r}"
        );
    }
    // Every position of the whole text.
    version += 1;
    c.change(&u, version, &text);
    for (line, l) in text.lines().enumerate() {
        for character in 0..=l.encode_utf16().count() {
            let p = json!({"line": line, "character": character});
            for method in [
                "textDocument/completion",
                "textDocument/hover",
                "textDocument/definition",
            ] {
                let r = c.request(method, at(&u, p.clone()));
                assert!(r.get("error").is_none(), "{method} at {p}: {r}");
            }
        }
    }
    assert_eq!(c.shutdown().code(), Some(0));
}
