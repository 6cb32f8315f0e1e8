//! The studio's HTTP API against a real server on port 0 (`studio.md`): every rule of "Who may
//! do what", the graph endpoints (versions, 409, canonical saves), bad and hostile requests,
//! Server-Sent Events after an asset rename, and runs with node execution info.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

#[path = "support/studio.rs"]
mod harness;
use harness::*;

#[test]
fn host_header_must_be_the_studio() {
    let s = start();
    let port = s.port.to_string();
    assert_eq!(s.get("/api/graphs").status, 200);
    let local = format!("localhost:{port}");
    let r = s.request("GET", "/api/graphs", &[("Host", &local)], b"");
    assert_eq!(r.status, 200);
    for bad in [
        format!("evil.example:{port}"),
        "127.0.0.1".to_string(),
        format!("127.0.0.1:{}", s.port.wrapping_add(1)),
    ] {
        let r = s.request("GET", "/api/graphs", &[("Host", &bad)], b"");
        assert_eq!(r.status, 403, "{bad}");
        assert!(r.json()["error"].as_str().unwrap().contains("127.0.0.1"));
    }
    // no Host at all (HTTP/1.0 style)
    let r = s.raw(b"GET /api/graphs HTTP/1.0\r\n\r\n");
    assert_eq!(r.status, 403);
    // the page itself is behind the same rule
    let r = s.request("GET", "/", &[("Host", "rebound.example")], b"");
    assert_eq!(r.status, 403);
}

#[test]
fn changes_need_the_token_and_the_studio_origin() {
    let s = start();
    let body = json!({"source": "graph a\n"}).to_string();
    let ct = ("Content-Type", "application/json");
    let check = |headers: &[(&str, &str)], target: &str| {
        s.request("POST", target, headers, body.as_bytes()).status
    };
    assert_eq!(check(&[ct], "/api/check"), 403, "no token");
    assert_eq!(check(&[ct, ("X-Sinew-Token", "nope")], "/api/check"), 403);
    let short = &s.token[..10];
    assert_eq!(check(&[ct, ("X-Sinew-Token", short)], "/api/check"), 403);
    assert_eq!(check(&[ct, ("X-Sinew-Token", &s.token)], "/api/check"), 200);
    assert_eq!(
        check(&[ct], &format!("/api/check?token={}", s.token)),
        200,
        "?token= works too"
    );
    let own = format!("http://127.0.0.1:{}", s.port);
    let own2 = format!("http://localhost:{}", s.port);
    assert_eq!(
        check(
            &[ct, ("X-Sinew-Token", &s.token), ("Origin", &own)],
            "/api/check"
        ),
        200
    );
    assert_eq!(
        check(
            &[ct, ("X-Sinew-Token", &s.token), ("Origin", &own2)],
            "/api/check"
        ),
        200
    );
    for origin in ["http://evil.example", "null", "https://127.0.0.1:1"] {
        assert_eq!(
            check(
                &[ct, ("X-Sinew-Token", &s.token), ("Origin", origin)],
                "/api/check"
            ),
            403,
            "{origin}"
        );
    }
    // a PUT without the token changes nothing
    let before = std::fs::read(hero_path(&s)).unwrap();
    let r = s.request(
        "PUT",
        "/api/graph?path=demo/hero.bpg",
        &[ct],
        json!({"base": null, "source": "graph x\n"})
            .to_string()
            .as_bytes(),
    );
    assert_eq!(r.status, 403);
    let r = s.request(
        "POST",
        "/api/run",
        &[
            ct,
            ("X-Sinew-Token", &s.token),
            ("Origin", "http://evil.example"),
        ],
        br#"{"scene": "demo.scene.ron"}"#,
    );
    assert_eq!(r.status, 403, "runs too");
    assert_eq!(std::fs::read(hero_path(&s)).unwrap(), before);
}

#[test]
fn paths_never_leave_their_folder() {
    let s = start();
    let outside = s.dir.path().join("outside.bpg");
    std::fs::write(&outside, "graph outside\n").unwrap();
    for p in [
        "../outside.bpg",
        "demo/../../outside.bpg",
        "%2e%2e/outside.bpg",
        "/etc/passwd.bpg",
        "demo//hero.bpg",
        "./demo/hero.bpg",
        "C:/x.bpg",
    ] {
        let r = s.get(&format!("/api/graph?path={p}"));
        assert_eq!(r.status, 400, "{p}: {}", String::from_utf8_lossy(&r.body));
        let r = s.send(
            "PUT",
            &format!("/api/graph?path={p}"),
            &json!({"base": null, "source": "graph x\n"}),
        );
        assert_eq!(r.status, 400, "{p}");
    }
    assert_eq!(s.get("/api/graph?path=demo/hero.toml").status, 400);
    assert_eq!(s.get("/api/graph.svg?path=../outside.bpg").status, 400);
    let r = s.send(
        "POST",
        "/api/run",
        &json!({"scene": "../scenes/demo.scene.ron"}),
    );
    assert_eq!(r.status, 400);
    // symlinks out of the folder: a file and a folder
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&outside, s.graphs().join("link.bpg")).unwrap();
        let out_dir = s.dir.path().join("elsewhere");
        std::fs::create_dir(&out_dir).unwrap();
        std::os::unix::fs::symlink(&out_dir, s.graphs().join("away")).unwrap();
        std::os::unix::fs::symlink(
            s.dir.path().join("nothing.bpg"),
            s.graphs().join("dangling.bpg"),
        )
        .unwrap();
        assert_eq!(s.get("/api/graph?path=link.bpg").status, 400);
        let r = s.send(
            "PUT",
            "/api/graph?path=link.bpg",
            &json!({"base": null, "source": "graph hacked\n"}),
        );
        assert_eq!(r.status, 400);
        let r = s.send(
            "PUT",
            "/api/graph?path=away/new.bpg",
            &json!({"base": null, "source": "graph hacked\n"}),
        );
        assert_eq!(r.status, 400);
        let r = s.send(
            "PUT",
            "/api/graph?path=dangling.bpg",
            &json!({"base": null, "source": "graph hacked\n"}),
        );
        assert_eq!(r.status, 400);
        assert!(!out_dir.join("new.bpg").exists());
        assert!(!s.dir.path().join("nothing.bpg").exists());
        assert_eq!(
            std::fs::read_to_string(&outside).unwrap(),
            "graph outside\n"
        );
    }
}

#[test]
fn graph_versions_saves_and_conflicts() {
    let s = start();
    let doc = s.get("/api/graph?path=demo/hero.bpg").json();
    let bytes = std::fs::read(hero_path(&s)).unwrap();
    let v0 = doc["version"].as_str().unwrap().to_string();
    assert_eq!(v0, sinew::workspace::version_of(&bytes));
    assert_eq!(v0.len(), 64);
    assert_eq!(doc["path"], HERO);
    assert_eq!(doc["source"].as_str().unwrap().as_bytes(), &bytes[..]);
    assert_eq!(doc["model"]["graph"], "hero");
    assert_eq!(doc["model"]["nodes"].as_array().unwrap().len(), 17);
    assert_eq!(doc["model"]["nodes"][0]["x"], Value::Null, "no position");
    assert_eq!(doc["diagnostics"], json!([]));
    assert_eq!(doc["pins"]["count"]["outputs"][1]["type"], "int");

    // save the model as read: the canonical text of the file, every comment kept
    let mut model = doc["model"].clone();
    model["nodes"][1]["x"] = json!(40);
    model["nodes"][1]["y"] = json!(-20);
    let r = s.send(
        "PUT",
        "/api/graph?path=demo/hero.bpg",
        &json!({"base": v0, "model": model}),
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let v1 = r.json()["version"].as_str().unwrap().to_string();
    let text = std::fs::read_to_string(hero_path(&s)).unwrap();
    assert_eq!(v1, sinew::workspace::version_of(text.as_bytes()));
    assert!(text.contains("node hi = debug.log { message = \"hero ready\" } at (40, -20)\n"));
    assert!(text.starts_with("// The hero counts its own footsteps"));
    let src = sinew::diag::SourceFile::new("h", text.clone());
    assert_eq!(
        sinew::graph::format_source(&src).unwrap(),
        text,
        "canonical"
    );

    // moving one node changes one line
    let mut moved = model.clone();
    moved["nodes"][1]["x"] = json!(41);
    let r = s.send(
        "PUT",
        "/api/graph?path=demo/hero.bpg",
        &json!({"base": v1, "model": moved}),
    );
    assert_eq!(r.status, 200);
    let v2 = r.json()["version"].as_str().unwrap().to_string();
    let text2 = std::fs::read_to_string(hero_path(&s)).unwrap();
    let diff = text
        .lines()
        .zip(text2.lines())
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!((diff, text.lines().count()), (1, text2.lines().count()));

    // a stale base is 409 with the current version, and writes nothing
    let r = s.send(
        "PUT",
        "/api/graph?path=demo/hero.bpg",
        &json!({"base": v0, "source": "graph lost\n"}),
    );
    assert_eq!(r.status, 409);
    assert_eq!(r.json()["version"], json!(v2));
    assert_eq!(std::fs::read_to_string(hero_path(&s)).unwrap(), text2);
    // base null on an existing file is 409; on a new file it creates it
    let r = s.send(
        "PUT",
        "/api/graph?path=demo/hero.bpg",
        &json!({"base": null, "source": "graph lost\n"}),
    );
    assert_eq!(r.status, 409);
    let r = s.send(
        "PUT",
        "/api/graph?path=demo/new.bpg",
        &json!({"base": null, "source": "graph   new\n"}),
    );
    assert_eq!(r.status, 200);
    assert_eq!(
        std::fs::read_to_string(s.graphs().join("demo/new.bpg")).unwrap(),
        "graph new\n"
    );
    // a version for a file that does not exist is 409
    let r = s.send(
        "PUT",
        "/api/graph?path=demo/gone.bpg",
        &json!({"base": v2, "source": "graph g\n"}),
    );
    assert_eq!(r.status, 409);
    assert!(!s.graphs().join("demo/gone.bpg").exists());
    // a graph with compile errors still saves (work in progress)
    let wip = "graph wip\nnode a = int.add\nnode b = debug.log\na.out -> b.message\n";
    let r = s.send(
        "PUT",
        "/api/graph?path=wip.bpg",
        &json!({"base": null, "source": wip}),
    );
    assert_eq!(r.status, 200);
    let d = r.json();
    assert_eq!(d["diagnostics"][0]["code"], "E0301");
    assert_eq!(d["diagnostics"][0]["node"], "b");
    assert_eq!(d["diagnostics"][0]["link"], "a.out -> b.message");
    assert!(s.graphs().join("wip.bpg").exists());
    assert_eq!(s.get("/api/graph?path=missing.bpg").status, 404);
    // the list
    let list = s.get("/api/graphs").json();
    let paths: Vec<&str> = list["graphs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["path"].as_str().unwrap())
        .collect();
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(paths, sorted);
    assert!(paths.contains(&"demo/hero.bpg"));
}

/// Issue #24: the server's own writes are visible to its next request (not only once the file
/// watcher reports them, 150 ms or more later).
#[test]
fn a_saved_graph_is_listed_by_the_next_request() {
    let s = start();
    let listed = |s: &Studio| -> Vec<(String, u64)> {
        let list = s.get("/api/graphs").json();
        list["graphs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| {
                let p = g["path"].as_str().unwrap().to_string();
                (p, g["errors"].as_u64().unwrap())
            })
            .collect()
    };
    let r = s.send(
        "PUT",
        "/api/graph?path=fresh.bpg",
        &json!({"base": null, "source": "graph fresh\n"}),
    );
    assert_eq!(r.status, 200);
    assert!(listed(&s).contains(&("fresh.bpg".to_string(), 0)));
    // Saved over with an error: the list counts it at once.
    let wip = "graph fresh\nnode a = int.add\nnode b = debug.log\na.out -> b.message\n";
    let version = r.json()["version"].clone();
    let r = s.send(
        "PUT",
        "/api/graph?path=fresh.bpg",
        &json!({"base": version, "source": wip}),
    );
    assert_eq!(r.status, 200);
    assert!(listed(&s).contains(&("fresh.bpg".to_string(), 1)));
}

/// Issue #24: a graph whose file name is not UTF-8 is listed (escaped, with its error), never
/// left out.
#[cfg(unix)]
#[test]
fn a_graph_whose_name_is_not_utf8_is_listed_with_its_error() {
    use std::os::unix::ffi::OsStrExt;
    let s = start();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.bpg");
    std::fs::write(s.graphs().join(name), "graph cafe\n").unwrap();
    let listed = || {
        s.get("/api/graphs").json()["graphs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["path"] == "caf\\xE9.bpg")
            .cloned()
    };
    let g = wait::wait_until(Instant::now() + Duration::from_secs(30), listed)
        .unwrap_or_else(|| panic!("not listed: {}", s.get("/api/graphs").json()));
    assert_eq!(g["errors"], 1, "{g}");
    assert_eq!(g["graph"], Value::Null, "{g}");
}

#[test]
fn check_answers_diagnostics_and_canonical_text_without_writing() {
    let s = start();
    let before = std::fs::read(hero_path(&s)).unwrap();
    let r = s.send(
        "POST",
        "/api/check",
        &json!({"path": HERO, "source": "graph  a\nnode x = var.get nope\n"}),
    );
    assert_eq!(r.status, 200);
    let d = r.json();
    assert_eq!(d["source"], "graph a\n\nnode x = var.get nope\n");
    assert_eq!(d["diagnostics"][0]["code"], "E0310");
    assert_eq!(d["diagnostics"][0]["node"], "x");
    assert_eq!(d["diagnostics"][0]["file"], HERO);
    let model = s.get("/api/graph?path=demo/hero.bpg").json()["model"].clone();
    let r = s.send("POST", "/api/check", &json!({"model": model}));
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["diagnostics"], json!([]));
    assert_eq!(std::fs::read(hero_path(&s)).unwrap(), before);
}

#[test]
fn bad_bodies_are_refused_and_write_nothing() {
    let s = start();
    let before = std::fs::read(hero_path(&s)).unwrap();
    let v = s.get("/api/graph?path=demo/hero.bpg").json()["version"].clone();
    let put = |body: &[u8], ct: &str| {
        s.request(
            "PUT",
            "/api/graph?path=demo/hero.bpg",
            &[("X-Sinew-Token", &s.token), ("Content-Type", ct)],
            body,
        )
    };
    let cases: Vec<(Vec<u8>, u16)> = vec![
        (b"not json".to_vec(), 400),
        (b"[1, 2]".to_vec(), 400),
        (json!({"base": v}).to_string().into_bytes(), 400),
        (json!({"model": {}}).to_string().into_bytes(), 400),
        (json!({"base": v, "model": {"graph": "x"}, "source": "graph x\n"}).to_string().into_bytes(), 400),
        (json!({"base": v, "source": 3}).to_string().into_bytes(), 400),
        (json!({"base": v, "source": "this is not a graph {"}).to_string().into_bytes(), 400),
        (json!({"base": v, "model": {"graph": "x", "nodes": [{"id": "a", "kind": "int.add\nnode b = x", "x": null, "y": null, "props": {}}]}}).to_string().into_bytes(), 400),
        (json!({"base": v, "model": {"graph": "x", "nodes": [{"id": "a b", "kind": "int.add", "x": 1, "y": null, "props": {}}]}}).to_string().into_bytes(), 400),
        (json!({"base": v, "model": {"graph": "x", "vars": [], "nodes": [], "links": [], "extra": 1}}).to_string().into_bytes(), 400),
        (vec![0xff, 0xfe, 0x00], 400),
    ];
    for (body, status) in &cases {
        let r = put(body, "application/json");
        assert_eq!(r.status, *status, "{}", String::from_utf8_lossy(body));
        assert!(r.json()["error"].is_string());
    }
    assert_eq!(put(b"{}", "text/plain").status, 415);
    assert_eq!(std::fs::read(hero_path(&s)).unwrap(), before);
    // unknown endpoints and methods
    assert_eq!(s.get("/api/nothing").status, 404);
    assert_eq!(
        s.send("DELETE", "/api/graph?path=demo/hero.bpg", &json!({}))
            .status,
        405
    );
    assert_eq!(s.get("/api/check").status, 405);
}

#[test]
fn the_page_is_served_from_the_binary() {
    let s = start();
    let r = s.get("/");
    assert_eq!(r.status, 200);
    let html = String::from_utf8_lossy(&r.body);
    assert!(html.contains("/assets/index.js"), "{html}");
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "no CDN"
    );
    assert_eq!(s.get("/assets/index.js").status, 200);
    assert_eq!(s.get("/assets/index.css").status, 200);
    assert_eq!(s.get("/assets/nothing.js").status, 404);
    let svg = s.get("/api/graph.svg?path=demo/hero.bpg");
    assert_eq!(svg.status, 200);
    let svg = String::from_utf8(svg.body).unwrap();
    assert!(
        svg.starts_with("<svg") || svg.starts_with("<?xml"),
        "{}",
        &svg[..80]
    );
    assert!(svg.contains("data-node-id=\"count\""));
    std::fs::write(s.graphs().join("broken.bpg"), "graph {").unwrap();
    assert_eq!(s.get("/api/graph.svg?path=broken.bpg").status, 422);
    let kinds = s.get("/api/kinds").json();
    assert!(
        kinds["kinds"]
            .as_array()
            .unwrap()
            .iter()
            .any(|k| k["kind"] == "flow.sequence"
                && k["properties"][0]["name"] == "count"
                && k["family"] == "flow")
    );
}

#[test]
fn palette_and_catalog_are_the_cli_documents() {
    let s = start();
    let run = |args: &[&str]| -> Value {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
            .args(args)
            .current_dir(s.dir.path())
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap()
    };
    assert_eq!(
        s.get("/api/palette").json(),
        run(&["palette", "--format", "json"])
    );
    assert_eq!(
        s.get("/api/catalog").json(),
        run(&["catalog", "--format", "json"])
    );
}

/// Reads Server-Sent Events from a stream.
struct Events {
    lines: std::sync::mpsc::Receiver<(String, Value)>,
}

impl Events {
    fn open(s: &Studio) -> Events {
        let mut c = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
        write!(
            c,
            "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n",
            s.port
        )
        .unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let (ready_tx, ready) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut event = String::new();
            for line in BufReader::new(c).lines().map_while(Result::ok) {
                // The stream's opening comment is written once the stream is subscribed: from
                // then on every refresh reaches it (the watcher is armed before the studio
                // answers at all).
                if line.starts_with(": sinew studio events") {
                    let _ = ready_tx.send(());
                } else if let Some(e) = line.strip_prefix("event: ") {
                    event = e.to_string();
                } else if let Some(d) = line.strip_prefix("data: ") {
                    let v: Value = serde_json::from_str(d).unwrap();
                    if tx.send((event.clone(), v)).is_err() {
                        break;
                    }
                }
            }
        });
        ready
            .recv_timeout(Duration::from_secs(20))
            .expect("the event stream opens within 20 s");
        Events { lines: rx }
    }

    /// The next event named `name` that satisfies `ok`, within a generous timeout.
    fn wait(&self, name: &str, ok: impl Fn(&Value) -> bool) -> Value {
        let end = Instant::now() + Duration::from_secs(20);
        loop {
            let left = end.saturating_duration_since(Instant::now());
            let (e, v) = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no `{name}` event"));
            if e == name && ok(&v) {
                return v;
            }
        }
    }
}

#[test]
fn events_follow_an_asset_rename_and_graph_edits_on_disk() {
    let s = start();
    let ev = Events::open(&s);
    let seq = s.dir.path().join("assets/run.animseq");
    let text = std::fs::read_to_string(&seq).unwrap();
    std::fs::write(
        &seq,
        text.replace("id: \"footstep_l\"", "id: \"footstep_left\""),
    )
    .unwrap();
    let id = "animseq::fef88abd-e6e0-4983-9d3e-379b80acc9bd";
    let p = ev.wait("palette", |v| !v["added"].as_array().unwrap().is_empty());
    assert_eq!(p["added"], json!([format!("event {id}.footstep_left")]));
    assert_eq!(p["removed"], json!([format!("event {id}.footstep_l")]));
    let c = ev.wait("check", |v| v["path"] == HERO);
    let d = &c["diagnostics"][0];
    assert_eq!(
        (d["code"].as_str(), d["node"].as_str()),
        (Some("E0312"), Some("left"))
    );
    assert!(
        s.get("/api/palette").json()["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["kind"] == format!("event {id}.footstep_left"))
    );
    // a graph edited on disk: `file` with its new version
    let hero = hero_path(&s);
    let edited = std::fs::read_to_string(&hero).unwrap() + "// edited elsewhere\n";
    std::fs::write(&hero, &edited).unwrap();
    let f = ev.wait("file", |v| v["path"] == HERO);
    assert_eq!(
        f["version"],
        json!(sinew::workspace::version_of(edited.as_bytes()))
    );
    // renaming back clears the diagnostic
    std::fs::write(&seq, &text).unwrap();
    ev.wait("check", |v| {
        v["path"] == HERO && v["diagnostics"] == json!([])
    });
}

#[test]
fn runs_answer_the_cli_records_and_the_nodes_that_ran() {
    let s = start();
    let r = s.send(
        "POST",
        "/api/run",
        &json!({"scene": "demo.scene.ron", "ticks": 60}),
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let d = r.json();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args([
            "run",
            "scenes/demo.scene.ron",
            "--ticks",
            "60",
            "--format",
            "json",
        ])
        .current_dir(s.dir.path())
        .output()
        .unwrap();
    let cli: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        d["records"].as_array().unwrap(),
        &cli,
        "exactly `sinew run --format json`"
    );
    let ex = d["executed"].as_array().unwrap();
    assert_eq!(ex.len(), cli.len());
    // the first log is begin_play's `hi`
    assert_eq!(cli[0]["kind"], "log");
    assert_eq!(
        ex[0],
        json!([{"graph": "hero", "entity": "hero", "event": "begin_play", "nodes": ["hi"]}])
    );
    // a hero footstep ran the counting chain, in order
    let i = cli
        .iter()
        .position(|r| r["kind"] == "notify" && r["entity"] == "hero")
        .expect("a hero footstep");
    let inv = &ex[i].as_array().unwrap()[0];
    assert_eq!(inv["graph"], "hero");
    let nodes: Vec<&str> = inv["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    let pos = |n: &str| {
        nodes
            .iter()
            .position(|x| *x == n)
            .unwrap_or_else(|| panic!("{n} in {nodes:?}"))
    };
    assert!(pos("get") < pos("count") && pos("count") < pos("say") && pos("say") < pos("every"));
    // the log it produced lists the same invocation
    assert_eq!(cli[i + 1]["kind"], "log");
    assert_eq!(ex[i + 1][0], *inv);
    // end records ran nothing
    assert_eq!(ex.last().unwrap(), &json!([]));
    // bad requests
    assert_eq!(
        s.send(
            "POST",
            "/api/run",
            &json!({"scene": "demo.scene.ron", "ticks": 0})
        )
        .status,
        400
    );
    assert_eq!(
        s.send(
            "POST",
            "/api/run",
            &json!({"scene": "demo.scene.ron", "ticks": 1_000_000})
        )
        .status,
        400
    );
    assert_eq!(
        s.send("POST", "/api/run", &json!({"scene": "nope.scene.ron"}))
            .status,
        404
    );
    assert_eq!(s.send("POST", "/api/run", &json!({"ticks": 3})).status, 400);
    std::fs::write(
        s.dir.path().join("scenes/bad.scene.ron"),
        "Scene(entities: [(name: 1)])",
    )
    .unwrap();
    let r = s.send("POST", "/api/run", &json!({"scene": "bad.scene.ron"}));
    assert_eq!(r.status, 422);
    // Issue #25: the loader's diagnostics as data (the shape of `sinew check --format json`),
    // never human text; `error` is one line naming the first.
    let d = r.json();
    let diags = d["diagnostics"].as_array().expect("diagnostics");
    assert!(!diags.is_empty(), "{d}");
    assert!(
        diags
            .iter()
            .all(|x| x["code"].is_string() && x["severity"].is_string()),
        "{d}"
    );
    let error = d["error"].as_str().unwrap();
    assert!(
        error.starts_with("the scene does not run: error[E0"),
        "{error}"
    );
    assert!(!error.contains('\n'), "{error}");
}

#[test]
fn runs_work_from_any_current_folder() {
    // The demo scene names `../graphs/demo/*.bpg`: the project folder of a run is the folder
    // holding --graphs, --scenes and --assets, not wherever the studio was started.
    let elsewhere = tempfile::tempdir().unwrap();
    let s = start_in(
        sinew::studio::http::Limits::default(),
        Some(elsewhere.path().to_path_buf()),
    );
    let r = s.send(
        "POST",
        "/api/run",
        &json!({"scene": "demo.scene.ron", "ticks": 30}),
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let d = r.json();
    assert!(
        d["records"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["kind"] == "log" && r["graph"] == "hero"),
        "the hero graph ran: {d}"
    );
}

/// `sinew check --format json ARGS` run in `dir`: exit status and the document.
fn sinew_check(dir: &std::path::Path, args: &[&str]) -> (i32, Value) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(["check", "--format", "json"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    let doc = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stderr));
    });
    (out.status.code().unwrap(), doc)
}

#[test]
fn the_studio_and_check_agree_on_a_graph_over_the_limit() {
    // Over the one graph limit (16 MiB) and under the studio's former own (64 MiB): the studio
    // used to open it while `sinew check` refused it. Now both refuse it with one error.
    let s = start_with(sinew::studio::http::Limits {
        max_body: 24 << 20,
        ..Default::default()
    });
    let ev = Events::open(&s);
    let limit = sinew::fsutil::InputKind::Graph.limit() as usize;
    let mut big = String::from("graph big\n");
    while big.len() <= limit + (4 << 20) {
        big.push_str("// padding padding padding padding padding padding padding padding\n");
    }
    // Renamed in whole, so no refresh sees it half written.
    let big_path = s.graphs().join("big.bpg");
    let staged = s.dir.path().join("big.bpg.part");
    std::fs::write(&staged, &big).unwrap();
    std::fs::rename(&staged, &big_path).unwrap();

    // `sinew check` of the project: E0001 on the file, exit 1.
    let (code, doc) = sinew_check(s.dir.path(), &["--assets", "assets", "graphs"]);
    assert_eq!(code, 1, "{doc}");
    let checked: Vec<&Value> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["file"] == "graphs/big.bpg")
        .collect();
    assert_eq!(checked.len(), 1, "{doc}");
    assert_eq!(checked[0]["code"], "E0001");
    let message = checked[0]["message"].as_str().unwrap().to_string();
    assert_eq!(
        message,
        format!(
            "cannot read file: file is {} bytes; graph files are limited to 16 MiB",
            big.len()
        )
    );

    // The studio's live check of the file: the same diagnostic, named in the graphs folder;
    // the file has no version (its bytes are not read).
    let f = ev.wait("file", |v| v["path"] == "big.bpg");
    assert_eq!(f["version"], Value::Null);
    let c = ev.wait("check", |v| v["path"] == "big.bpg");
    assert_eq!(c["diagnostics"].as_array().unwrap().len(), 1, "{c}");
    let d = &c["diagnostics"][0];
    assert_eq!(
        (&d["code"], &d["message"]),
        (&json!("E0001"), &json!(message))
    );
    assert_eq!(d["file"], "big.bpg");
    let list = s.get("/api/graphs").json();
    let entry = list["graphs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["path"] == "big.bpg")
        .cloned();
    assert_eq!(
        entry,
        Some(json!({"path": "big.bpg", "graph": "", "errors": 1, "warnings": 0}))
    );

    // Opening, drawing or saving over it: refused with the same message, nothing written.
    for target in ["/api/graph?path=big.bpg", "/api/graph.svg?path=big.bpg"] {
        let r = s.get(target);
        assert_eq!(r.status, 413, "{target}");
        assert_eq!(r.json()["error"], json!(message), "{target}");
    }
    let r = s.send(
        "PUT",
        "/api/graph?path=big.bpg",
        &json!({"base": null, "source": "graph big\n"}),
    );
    assert_eq!((r.status, &r.json()["error"]), (413, &json!(message)));
    assert_eq!(
        std::fs::metadata(&big_path).unwrap().len(),
        big.len() as u64
    );

    // And the studio never writes a graph `check` would refuse: a canonical text over the
    // limit is 413 and writes nothing.
    let r = s.send(
        "PUT",
        "/api/graph?path=huge.bpg",
        &json!({"base": null, "source": big}),
    );
    assert_eq!(r.status, 413, "{}", String::from_utf8_lossy(&r.body));
    let e = r.json()["error"].as_str().unwrap().to_string();
    assert!(e.contains("graph files are limited to 16 MiB"), "{e}");
    assert!(!s.graphs().join("huge.bpg").exists());

    // Within the limit again: both read it, and report the same.
    let small =
        "graph big\n\nnode go = event begin_play\nnode log = debug.log\n\ngo.then -> log.exec\n";
    std::fs::write(&big_path, small).unwrap();
    let f = ev.wait("file", |v| v["path"] == "big.bpg");
    let c = ev.wait("check", |v| v["path"] == "big.bpg");
    assert_eq!(
        f["version"],
        json!(sinew::workspace::version_of(small.as_bytes()))
    );
    assert_eq!(s.get("/api/graph?path=big.bpg").status, 200);
    let (_, doc) = sinew_check(s.dir.path(), &["--assets", "assets", "graphs/big.bpg"]);
    let codes = |v: &Value| -> Vec<(Value, Value)> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|d| (d["code"].clone(), d["message"].clone()))
            .collect()
    };
    assert_eq!(
        codes(&c["diagnostics"]),
        codes(&doc["diagnostics"]),
        "{doc}"
    );
    assert!(
        !codes(&doc["diagnostics"]).is_empty(),
        "debug.log without a message warns"
    );
}

#[test]
fn a_lone_cr_never_saves_a_forged_line() {
    // Issue 24, item 5: a comment holding a lone CR is saved as separate comment lines (editors
    // show a lone CR as a line break); a string holding one is refused and writes nothing.
    let s = start();
    let comment = "note\rnode evil = debug.log\rgraph forged";
    let model =
        json!({"graph": "cr", "nodes": [{"id": "a", "kind": "debug.log", "comment": comment}]});
    let r = s.send(
        "PUT",
        "/api/graph?path=cr.bpg",
        &json!({"base": null, "model": model}),
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let text = std::fs::read_to_string(s.graphs().join("cr.bpg")).unwrap();
    assert_eq!(
        text,
        "graph cr\n\n// note\n// node evil = debug.log\n// graph forged\nnode a = debug.log\n"
    );
    let model = json!({"graph": "cr2", "nodes": [{"id": "a", "kind": "debug.log",
                        "props": {"message": "x\rnode evil = debug.log"}}]});
    let r = s.send(
        "PUT",
        "/api/graph?path=cr2.bpg",
        &json!({"base": null, "model": model}),
    );
    assert_eq!(r.status, 400, "{}", String::from_utf8_lossy(&r.body));
    assert!(!s.graphs().join("cr2.bpg").exists());
    let source = "graph cr3\nnode a = debug.log { message = \"x\rnode evil = debug.log\" }\n";
    let r = s.send(
        "PUT",
        "/api/graph?path=cr3.bpg",
        &json!({"base": null, "source": source}),
    );
    assert_eq!(r.status, 400, "{}", String::from_utf8_lossy(&r.body));
    assert!(!s.graphs().join("cr3.bpg").exists());
}
