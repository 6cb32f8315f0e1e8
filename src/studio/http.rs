//! The studio's HTTP/1.1 connection layer: a bounded accept loop on `std::net`, request heads
//! parsed by `httparse`, and responses written back, one request per connection.
//!
//! Everything a client controls is bounded, so a hostile or broken client can hold at most one
//! connection slot for at most [`Limits::head_deadline`] (or the body deadline) and never makes
//! the server allocate more than [`Limits::max_head`] + [`Limits::max_body`] for it:
//! request heads over `max_head` bytes or with more than `max_headers` headers are 431, bodies
//! over `max_body` are 413 (refused from `Content-Length` before they are read), chunked bodies
//! are 411, a head that has not arrived by its deadline (slowloris) is 408, and past
//! `max_connections` open connections a new one is answered 503 at once. Handlers run on the
//! connection's own thread; a long-lived stream (Server-Sent Events) keeps its thread.
//!
//! (`tiny_http` 0.12 was the first choice; its header reader grows a line buffer without bound,
//! it gives no access to the socket for timeouts and its thread pool grows without limit, so the
//! head is read here and parsed by `httparse`: `docs/studio.md`, "Why `httparse`".)

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::budget::{Bytes, Reserved};

/// Bounds on what one client may make the server hold.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Largest request head (request line and headers), bytes.
    pub max_head: usize,
    /// Most headers in one request.
    pub max_headers: usize,
    /// Largest request body, bytes.
    pub max_body: usize,
    /// Time a client has to send the whole head.
    pub head_deadline: Duration,
    /// Time a client has to send the whole body.
    pub body_deadline: Duration,
    /// Time one write to the client may block.
    pub write_timeout: Duration,
    /// Most connections served at once.
    pub max_connections: usize,
    /// Most bytes of request bodies held at once, over all connections (a body that does not
    /// fit is `503` with `Retry-After`; see [`super::budget`]).
    pub max_bodies: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_head: 32 * 1024,
            max_headers: 64,
            max_body: 8 * 1024 * 1024,
            head_deadline: Duration::from_secs(10),
            body_deadline: Duration::from_secs(30),
            write_timeout: Duration::from_secs(10),
            max_connections: 128,
            max_bodies: 128 * 1024 * 1024,
        }
    }
}

/// One request, fully read.
#[derive(Debug, Default)]
pub struct Request {
    /// `GET`, `PUT`, …
    pub method: String,
    /// The path part of the target, percent-decoded (`/api/graph`).
    pub path: String,
    /// Query parameters, percent-decoded, in order.
    pub query: Vec<(String, String)>,
    /// Headers with lowercase names, in order.
    pub headers: Vec<(String, String)>,
    /// The body (empty without `Content-Length`).
    pub body: Vec<u8>,
}

impl Request {
    /// The first header named `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
    /// The first query parameter named `name`.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A streamed body: writes to the client until it returns (or a write fails).
pub type Stream = Box<dyn FnOnce(&mut dyn Write) + Send>;

/// What a response carries.
pub enum Body {
    Bytes(Vec<u8>),
    Static(&'static [u8]),
    /// Written after the head without a length; the connection closes when it ends.
    Stream(Stream),
}

/// One response.
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub headers: Vec<(&'static str, String)>,
    pub body: Body,
    /// Kept alive until the response has been written (a heavy-request slot).
    pub hold: Option<super::budget::Hold>,
}

impl Response {
    /// A response with a body.
    pub fn new(status: u16, content_type: &'static str, body: Body) -> Response {
        Response {
            status,
            content_type,
            headers: Vec::new(),
            body,
            hold: None,
        }
    }
    /// A JSON response.
    pub fn json(status: u16, v: &serde_json::Value) -> Response {
        Response::new(
            status,
            "application/json",
            Body::Bytes(v.to_string().into_bytes()),
        )
    }
    /// A JSON response serialized straight from a value (no intermediate tree).
    pub fn serialized<T: serde::Serialize>(status: u16, v: &T) -> Response {
        match serde_json::to_vec(v) {
            Ok(b) => Response::new(status, "application/json", Body::Bytes(b)),
            Err(e) => Response::error(500, format!("cannot encode the answer: {e}")),
        }
    }
    /// A JSON error `{"error": message}`.
    pub fn error(status: u16, message: impl Into<String>) -> Response {
        Response::json(status, &serde_json::json!({"error": message.into()}))
    }
    /// `503` with `Retry-After`: the studio's memory budget is in use; the client may retry.
    pub fn busy(message: impl Into<String>) -> Response {
        Response::error(503, message).with_header("Retry-After", super::budget::RETRY_AFTER)
    }
    /// Keeps `hold` alive until this response has been written.
    pub fn holding(mut self, hold: super::budget::Hold) -> Response {
        self.hold = Some(hold);
        self
    }
    /// Adds a header.
    pub fn with_header(mut self, name: &'static str, value: impl Into<String>) -> Response {
        self.headers.push((name, value.into()));
        self
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        411 => "Length Required",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        422 => "Unprocessable Content",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// Writes a response (head, then body) and flushes.
pub fn write_response(w: &mut dyn Write, r: Response) -> io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nConnection: close\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n",
        r.status,
        reason(r.status),
        r.content_type
    );
    for (n, v) in &r.headers {
        head.push_str(n);
        head.push_str(": ");
        // Header values are the server's own; strip line breaks all the same.
        head.extend(v.chars().filter(|c| *c != '\r' && *c != '\n'));
        head.push_str("\r\n");
    }
    match r.body {
        Body::Bytes(b) => {
            head.push_str(&format!("Content-Length: {}\r\n\r\n", b.len()));
            w.write_all(head.as_bytes())?;
            w.write_all(&b)?;
        }
        Body::Static(b) => {
            head.push_str(&format!("Content-Length: {}\r\n\r\n", b.len()));
            w.write_all(head.as_bytes())?;
            w.write_all(b)?;
        }
        Body::Stream(f) => {
            head.push_str("\r\n");
            w.write_all(head.as_bytes())?;
            w.flush()?;
            f(w);
        }
    }
    w.flush()
}

/// Why a request could not be read: the status to answer (0: just close).
#[derive(Debug)]
pub struct ReadError {
    pub status: u16,
    pub message: String,
}

fn read_err(status: u16, message: impl Into<String>) -> ReadError {
    ReadError {
        status,
        message: message.into(),
    }
}

fn decode(s: &str, plus_is_space: bool) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let h = b.get(i + 1..i + 3)?;
                let h = std::str::from_utf8(h).ok()?;
                out.push(u8::from_str_radix(h, 16).ok()?);
                i += 3;
            }
            b'+' if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// Splits a request target into a decoded path and query parameters.
pub fn split_target(target: &str) -> Option<(String, Vec<(String, String)>)> {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let path = decode(path, false)?;
    let mut q = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        q.push((decode(k, true)?, decode(v, true)?));
    }
    Some((path, q))
}

/// Reads one request from `s`, within the limits.
pub fn read_request(s: &mut TcpStream, limits: &Limits) -> Result<Request, ReadError> {
    let unlimited = Bytes::new(usize::MAX);
    read_request_within(s, limits, &unlimited).map(|(r, _)| r)
}

/// [`read_request`] with the body reserved from `bodies` (shared by all connections) before
/// it is read: `503` when it does not fit. The reservation is returned with the request.
pub fn read_request_within(
    s: &mut TcpStream,
    limits: &Limits,
    bodies: &Arc<Bytes>,
) -> Result<(Request, Option<Reserved>), ReadError> {
    let start = Instant::now();
    let mut buf = vec![0u8; 0];
    let mut chunk = [0u8; 4096];
    let head_len = loop {
        if let Some(i) = find_head_end(&buf) {
            break i;
        }
        if buf.len() > limits.max_head {
            return Err(read_err(
                431,
                format!("request head larger than {} bytes", limits.max_head),
            ));
        }
        let left = limits.head_deadline.saturating_sub(start.elapsed());
        if left.is_zero() {
            return Err(read_err(408, "request head not received in time"));
        }
        let _ = s.set_read_timeout(Some(left));
        match s.read(&mut chunk) {
            Ok(0) => return Err(read_err(0, "connection closed")),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                return Err(read_err(408, "request head not received in time"));
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return Err(read_err(0, "read failed")),
        }
    };
    if head_len > limits.max_head {
        return Err(read_err(
            431,
            format!("request head larger than {} bytes", limits.max_head),
        ));
    }
    let mut headers = vec![httparse::EMPTY_HEADER; limits.max_headers];
    let mut req = httparse::Request::new(&mut headers);
    match req.parse(&buf[..head_len]) {
        Ok(httparse::Status::Complete(_)) => {}
        Ok(httparse::Status::Partial) => return Err(read_err(400, "incomplete request head")),
        Err(httparse::Error::TooManyHeaders) => {
            return Err(read_err(
                431,
                format!("more than {} headers", limits.max_headers),
            ));
        }
        Err(e) => return Err(read_err(400, format!("malformed request: {e}"))),
    }
    let method = req.method.unwrap_or("").to_string();
    let target = req.path.unwrap_or("");
    let Some((path, query)) = split_target(target) else {
        return Err(read_err(400, "malformed request target"));
    };
    let mut hs = Vec::with_capacity(req.headers.len());
    for h in req.headers.iter() {
        let Ok(v) = std::str::from_utf8(h.value) else {
            return Err(read_err(400, format!("header {} is not UTF-8", h.name)));
        };
        hs.push((h.name.to_ascii_lowercase(), v.trim().to_string()));
    }
    let mut request = Request {
        method,
        path,
        query,
        headers: hs,
        body: Vec::new(),
    };
    if request.header("transfer-encoding").is_some() {
        return Err(read_err(
            411,
            "chunked request bodies are not accepted; send Content-Length",
        ));
    }
    let lengths: Vec<&str> = request
        .headers
        .iter()
        .filter(|(n, _)| n == "content-length")
        .map(|(_, v)| v.as_str())
        .collect();
    let len = match lengths.as_slice() {
        [] => 0,
        [one] => match one.parse::<u64>() {
            Ok(n) => n,
            Err(_) => return Err(read_err(400, "malformed Content-Length")),
        },
        _ => return Err(read_err(400, "more than one Content-Length")),
    };
    if len > limits.max_body as u64 {
        return Err(read_err(
            413,
            format!(
                "request body of {len} bytes is larger than the limit of {} bytes",
                limits.max_body
            ),
        ));
    }
    let len = len as usize;
    let reserved = if len == 0 {
        None
    } else {
        Some(bodies.reserve(len).ok_or_else(|| {
            read_err(
                503,
                "the studio holds as many request bodies as its memory budget allows; try again",
            )
        })?)
    };
    let mut body = buf[head_len..].to_vec();
    body.truncate(len);
    let start = Instant::now();
    while body.len() < len {
        let left = limits.body_deadline.saturating_sub(start.elapsed());
        if left.is_zero() {
            return Err(read_err(408, "request body not received in time"));
        }
        let _ = s.set_read_timeout(Some(left));
        let want = (len - body.len()).min(chunk.len());
        match s.read(&mut chunk[..want]) {
            Ok(0) => return Err(read_err(0, "connection closed")),
            Ok(n) => body.extend_from_slice(&chunk[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                return Err(read_err(408, "request body not received in time"));
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return Err(read_err(0, "read failed")),
        }
    }
    request.body = body;
    Ok((request, reserved))
}

fn find_head_end(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4)
}

/// Handles one request (runs on the connection's thread).
pub type Handler = Arc<dyn Fn(Request) -> Response + Send + Sync>;

/// Answers an error and closes, reading (and dropping) a little of what the client still sends
/// so it sees the answer rather than a reset.
fn refuse(mut s: TcpStream, status: u16, message: &str) {
    let r = if status == 503 {
        Response::busy(message)
    } else {
        Response::error(status, message)
    };
    let _ = write_response(&mut s, r);
    let _ = s.shutdown(Shutdown::Write);
    let _ = s.set_read_timeout(Some(Duration::from_millis(500)));
    let mut sink = [0u8; 8192];
    let mut drained = 0usize;
    while drained < 16 * 1024 * 1024 {
        match s.read(&mut sink) {
            Ok(0) | Err(_) => break,
            Ok(n) => drained += n,
        }
    }
}

fn serve_connection(mut s: TcpStream, limits: &Limits, handler: &Handler, bodies: &Arc<Bytes>) {
    let _ = s.set_write_timeout(Some(limits.write_timeout));
    let _ = s.set_nodelay(true);
    match read_request_within(&mut s, limits, bodies) {
        Ok((req, reserved)) => {
            let resp = handler(req);
            // The body's reservation lasts until the answer is out.
            let _ = write_response(&mut s, resp);
            drop(reserved);
            let _ = s.shutdown(Shutdown::Write);
        }
        Err(e) if e.status == 0 => {}
        Err(e) => refuse(s, e.status, &e.message),
    }
}

/// Serves `listener` until `stop` is set: one thread per connection, at most
/// `limits.max_connections` at once. Accepting blocks; whoever sets `stop` wakes the loop with
/// one connection of its own (see [`wake`]).
pub fn serve(listener: TcpListener, limits: Limits, handler: Handler, stop: Arc<AtomicBool>) {
    let active = Arc::new(AtomicUsize::new(0));
    let bodies = Bytes::new(limits.max_bodies);
    while !stop.load(Ordering::SeqCst) {
        let s = match listener.accept() {
            Ok((s, _)) => s,
            Err(_) => {
                // Out of file descriptors and the like: back off instead of spinning.
                std::thread::sleep(Duration::from_millis(20));
                continue;
            }
        };
        if stop.load(Ordering::SeqCst) {
            break;
        }
        if active.load(Ordering::SeqCst) >= limits.max_connections {
            let _ = s.set_write_timeout(Some(Duration::from_millis(500)));
            let mut s = s;
            let _ = write_response(&mut s, Response::busy("too many connections; try again"));
            continue;
        }
        active.fetch_add(1, Ordering::SeqCst);
        let guard = Slot(active.clone());
        let limits = limits.clone();
        let handler = handler.clone();
        let bodies = bodies.clone();
        let spawned = std::thread::Builder::new()
            .name("studio-conn".into())
            .stack_size(1 << 20)
            .spawn(move || {
                let _guard = guard;
                serve_connection(s, &limits, &handler, &bodies);
            });
        if spawned.is_err() {
            // The guard moved into the closure was dropped with it: the slot is free again.
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Wakes a [`serve`] loop blocked in `accept` after its stop flag was set.
pub fn wake(addr: std::net::SocketAddr) {
    let _ = TcpStream::connect_timeout(&addr, Duration::from_secs(1));
}

/// Frees a connection slot when the connection's thread ends (or never starts).
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_split_and_decode() {
        let (p, q) = split_target("/api/graph?path=demo%2Fhero.bpg&x=a+b").unwrap();
        assert_eq!(p, "/api/graph");
        assert_eq!(
            q,
            vec![
                ("path".into(), "demo/hero.bpg".into()),
                ("x".into(), "a b".into())
            ]
        );
        assert!(split_target("/a%zz").is_none());
        assert!(split_target("/a%ff").is_none(), "not UTF-8");
    }
}
