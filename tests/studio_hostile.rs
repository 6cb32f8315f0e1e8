//! The studio against hostile clients and the command itself: oversized and endless requests,
//! slow and malformed connections, the 100k-node model, path resolution as a property, and the
//! process's address line and Ctrl-C.

use serde_json::{Value, json};
use sinew::studio::http::Limits;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

#[path = "support/studio.rs"]
mod harness;
use harness::*;

#[test]
fn oversized_requests_are_413() {
    let s = start();
    // refused from Content-Length alone, before the body is read
    let head = format!(
        "POST /api/check HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nX-Sinew-Token: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        s.port,
        s.token,
        8 * 1024 * 1024 + 1
    );
    let r = s.raw(head.as_bytes());
    assert_eq!(r.status, 413);
    // a 100k-node model that fits the body limit: 413 from the node limit, promptly
    let nodes: Vec<Value> = (0..100_000)
        .map(|i| json!({"id": format!("n{i}"), "kind": "int.add", "x": null, "y": null, "props": {}}))
        .collect();
    let body = json!({"model": {"graph": "big", "nodes": nodes}});
    let t = Instant::now();
    let r = s.send("POST", "/api/check", &body);
    assert!(body.to_string().len() < 8 * 1024 * 1024);
    assert_eq!(r.status, 413, "{}", String::from_utf8_lossy(&r.body));
    assert!(t.elapsed() < Duration::from_secs(10));
    // the server is still serving
    assert_eq!(s.get("/api/graphs").status, 200);
}

#[test]
fn hostile_connections_never_stop_the_server() {
    let s = start_with(Limits {
        head_deadline: Duration::from_millis(800),
        ..Limits::default()
    });
    // slow clients that never finish their head hold no one else up
    let mut slow: Vec<TcpStream> = (0..20)
        .map(|_| {
            let mut c = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
            c.write_all(b"GET /api/graphs HTTP/1.1\r\nHo").unwrap();
            c
        })
        .collect();
    let t = Instant::now();
    assert_eq!(s.get("/api/palette").status, 200);
    assert!(t.elapsed() < Duration::from_secs(2));
    // and are answered 408 once their deadline passes
    let c = &mut slow[0];
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut out = Vec::new();
    let _ = c.read_to_end(&mut out);
    assert_eq!(parse_reply(&out).status, 408);
    // malformed, huge and chunked requests
    assert_eq!(s.raw(b"NOT HTTP AT ALL\r\n\r\n").status, 400);
    assert_eq!(s.raw(b"GET /\x01 HTTP/1.1\r\n\r\n").status, 400);
    let huge = format!(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nX-Big: {}\r\n\r\n",
        s.port,
        "a".repeat(64 * 1024)
    );
    assert_eq!(s.raw(huge.as_bytes()).status, 431);
    let mut many = format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n", s.port);
    for i in 0..100 {
        many.push_str(&format!("X-{i}: y\r\n"));
    }
    many.push_str("\r\n");
    assert_eq!(s.raw(many.as_bytes()).status, 431);
    let chunked = format!(
        "POST /api/check HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        s.port
    );
    assert_eq!(s.raw(chunked.as_bytes()).status, 411);
    let dup = format!(
        "POST /api/check HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
        s.port
    );
    assert_eq!(s.raw(dup.as_bytes()).status, 400);
    // a head with no end, streamed on and on, is answered 431 at the limit (the server holds
    // no more than its head limit of it)
    let mut c = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
    let mut w = c.try_clone().unwrap();
    let writer = std::thread::spawn(move || {
        let junk = vec![b'a'; 16 * 1024];
        for _ in 0..256 {
            if w.write_all(&junk).is_err() {
                break;
            }
        }
    });
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut out = Vec::new();
    let _ = c.read_to_end(&mut out);
    assert_eq!(parse_reply(&out).status, 431);
    writer.join().unwrap();
    drop(slow);
    assert_eq!(s.get("/api/graphs").status, 200);
}

#[cfg(unix)]
#[test]
fn the_command_prints_its_address_and_ends_cleanly_on_ctrl_c() {
    let s = start(); // only for a project folder
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(["studio", "--port", "0"])
        .current_dir(s.dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim()
        .strip_prefix("studio: ")
        .expect("the address first");
    let rest = url
        .strip_prefix("http://127.0.0.1:")
        .expect("127.0.0.1 only");
    let (port, token) = rest.split_once("/?token=").expect("a token");
    assert_eq!(token.len(), 64);
    let port: u16 = port.parse().unwrap();
    assert_ne!(port, s.port);
    let mut c = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        c,
        "GET /api/graphs HTTP/1.1\r\nHost: localhost:{port}\r\n\r\n"
    )
    .unwrap();
    let mut out = Vec::new();
    c.read_to_end(&mut out).unwrap();
    assert_eq!(parse_reply(&out).status, 200);
    let st = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let status = wait::wait_exit(&mut child, Instant::now() + Duration::from_secs(10))
        .expect("still running 10 s after Ctrl-C");
    assert_eq!(status.code(), Some(0));
}

mod paths {
    use proptest::prelude::*;
    use sinew::studio::security::resolve;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// Whatever a request names, a resolved path stays inside its folder.
        #[test]
        fn resolved_paths_stay_inside(parts in proptest::collection::vec(
            prop_oneof![Just(".."), Just("."), Just(""), Just("a"), Just("b.bpg"), Just("/"),
                        Just("\\\\"), Just("%2e%2e"), Just("link"), Just("C:")], 1..6)) {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path().join("graphs");
            std::fs::create_dir_all(root.join("a")).unwrap();
            #[cfg(unix)]
            std::os::unix::fs::symlink(dir.path(), root.join("link")).unwrap();
            let canonical = root.canonicalize().unwrap();
            let rel = parts.join("/");
            if let Ok(p) = resolve(&root, &canonical, &rel) {
                let c = p.canonicalize().or_else(|_| p.parent().unwrap().canonicalize()).unwrap();
                prop_assert!(c.starts_with(&canonical), "{rel} -> {}", c.display());
                prop_assert!(!rel.split('/').any(|s| s == ".." || s == "." || s.is_empty()));
            }
        }
    }
}

/// The peak resident memory of process `pid` (`VmHWM`), in bytes.
#[cfg(target_os = "linux")]
fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// One request on its own connection: (status, head, body). `None` when the connection failed.
fn exchange(
    port: u16,
    token: &str,
    method: &str,
    target: &str,
    body: &[u8],
) -> Option<(u16, String, Vec<u8>)> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(600))).ok()?;
    let head = format!(
        "{method} {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Sinew-Token: {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).ok()?;
    s.write_all(body).ok()?;
    let mut out = Vec::new();
    s.read_to_end(&mut out).ok()?;
    let end = out.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&out[..end]).into_owned();
    let status = head.split(' ').nth(1)?.parse().ok()?;
    Some((status, head, out[end + 4..].to_vec()))
}

/// A 20,000-node model: a chain of `int.add` nodes, each reading the one before.
fn chain_model(name: &str) -> Value {
    let nodes: Vec<Value> = (0..20_000)
        .map(|i| json!({"id": format!("n{i}"), "kind": "int.add", "x": i % 100 * 220, "y": i / 100 * 120, "props": {"b": 1}}))
        .collect();
    let links: Vec<Value> = (1..20_000)
        .map(|i| json!({"from": format!("n{}.out", i - 1), "to": format!("n{i}.a")}))
        .collect();
    json!({"model": {"graph": name, "nodes": nodes, "links": links}})
}

#[cfg(target_os = "linux")]
#[test]
fn hostile_load_stays_within_the_memory_budget() {
    // Issue 24, item 1: a 10 000-tick run at dt 3600 and sixteen concurrent checks of
    // 20,000-node models, against the real command. Its peak memory stays under 1 GiB, every
    // answer is the work's or a 503 with Retry-After, and the studio keeps serving.
    const GIB: u64 = 1 << 30;
    let s = start(); // only for a project folder
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(["studio", "--port", "0"])
        .current_dir(s.dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let rest = line
        .trim()
        .strip_prefix("studio: http://127.0.0.1:")
        .expect("the address");
    let (port, token) = rest.split_once("/?token=").expect("a token");
    let (port, token): (u16, String) = (port.parse().unwrap(), token.to_string());

    let mut clients = Vec::new();
    let run = json!({"scene": "demo.scene.ron", "ticks": 10_000, "dt": 3600}).to_string();
    let t = token.clone();
    clients.push(std::thread::spawn(move || {
        exchange(port, &t, "POST", "/api/run", run.as_bytes())
    }));
    let body = chain_model("big").to_string();
    for _ in 0..16 {
        let (t, b) = (token.clone(), body.clone());
        clients.push(std::thread::spawn(move || {
            exchange(port, &t, "POST", "/api/check", b.as_bytes())
        }));
    }
    drop(body);
    // Wait for every answer (deadline: ten minutes), watching the server's peak all along.
    let started = Instant::now();
    let deadline = started + Duration::from_secs(600);
    // The peak is the process's high-water mark: once over the bound it stays over, so the
    // wait ends there too.
    let done = wait::wait_until(deadline, || {
        (peak_rss(pid) > GIB || clients.iter().all(|c| c.is_finished())).then_some(())
    });
    if done.is_none() || peak_rss(pid) > GIB {
        let peak = peak_rss(pid);
        let _ = child.kill();
        let _ = child.wait();
        panic!("peak {} MiB after {:?}", peak >> 20, started.elapsed());
    }
    let peak = peak_rss(pid);
    let answers: Vec<_> = clients.into_iter().map(|c| c.join().unwrap()).collect();
    // The studio keeps serving.
    let graphs = exchange(port, &token, "GET", "/api/graphs", b"").map(|a| a.0);
    let _ = child.kill();
    let _ = child.wait();
    assert!(peak <= GIB, "peak resident memory {} MiB", peak >> 20);
    assert_eq!(graphs, Some(200));
    let mut served = 0;
    for (i, a) in answers.iter().enumerate() {
        let (status, head, body) = a.as_ref().unwrap_or_else(|| panic!("request {i} failed"));
        match status {
            200 => served += 1,
            503 => assert!(head.contains("Retry-After: 1"), "{head}"),
            s => panic!("request {i}: {s} {}", String::from_utf8_lossy(body)),
        }
    }
    assert!(served >= 2, "the budget still serves: {served} of 17");
    // The run (first in, with the smallest body) answered its records up to its cap, with a
    // notice.
    let (status, _, body) = answers[0].as_ref().unwrap();
    assert_eq!(*status, 200, "{}", String::from_utf8_lossy(body));
    let v: Value = serde_json::from_slice(body).unwrap();
    let notice = v["notice"].as_str().unwrap_or("");
    assert!(notice.contains("32 MiB per run"), "{notice}");
    assert!(body.len() < 40 << 20, "{} bytes", body.len());
    eprintln!(
        "peak resident memory: {} MiB, {served} of 17 served",
        peak >> 20
    );
}
