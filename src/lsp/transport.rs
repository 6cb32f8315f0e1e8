//! JSON-RPC framing over standard input and output, with bounds: a header line is at most
//! [`MAX_HEADER_LINE`] bytes and a message body at most [`MAX_MESSAGE`] bytes (a larger
//! `Content-Length` ends the connection with an error rather than allocating it). A body that
//! is not JSON-RPC is answered with a `ParseError` and skipped (the framing is intact); the
//! messages themselves are `lsp-server`'s.

use lsp_server::{ErrorCode, Message, Response};
use std::io::{BufRead, Read, Write};
use std::sync::mpsc;

/// Most bytes of one message body (a 16 MiB graph with JSON escapes fits).
pub const MAX_MESSAGE: usize = 64 << 20;
/// Most bytes of one header line.
pub const MAX_HEADER_LINE: usize = 1024;

/// What the reader hands the server loop.
pub enum Incoming {
    Message(Message),
    /// A body that is not a JSON-RPC message (answered with `ParseError`).
    Malformed(String),
}

/// Reads one framed body: `Ok(None)` at the end of the input before a message starts.
pub fn read_body(r: &mut impl BufRead) -> Result<Option<Vec<u8>>, String> {
    let mut size = None;
    let mut first = true;
    loop {
        let mut line = Vec::new();
        let n = r
            .by_ref()
            .take(MAX_HEADER_LINE as u64 + 1)
            .read_until(b'\n', &mut line)
            .map_err(|e| e.to_string())?;
        if n == 0 {
            return if first {
                Ok(None)
            } else {
                Err("the input ended inside a header".into())
            };
        }
        first = false;
        if line.len() > MAX_HEADER_LINE || !line.ends_with(b"\n") {
            return Err(format!(
                "a header line is longer than {MAX_HEADER_LINE} bytes"
            ));
        }
        let line = String::from_utf8_lossy(&line);
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            break;
        }
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| format!("malformed header {line:?}"))?;
        if name.trim().eq_ignore_ascii_case("Content-Length") {
            let n: usize = value
                .trim()
                .parse()
                .map_err(|_| format!("malformed Content-Length {:?}", value.trim()))?;
            if n > MAX_MESSAGE {
                return Err(format!(
                    "a message of {n} bytes is over the limit of {MAX_MESSAGE} bytes"
                ));
            }
            size = Some(n);
        }
    }
    let size = size.ok_or("a message has no Content-Length")?;
    let mut body = vec![0; size];
    r.read_exact(&mut body).map_err(|e| e.to_string())?;
    Ok(Some(body))
}

/// Starts the reader thread over standard input. The channel closes when the input ends or
/// breaks the framing (the error is written to standard error), or after `exit`.
pub fn spawn_reader() -> mpsc::Receiver<Incoming> {
    let (tx, rx) = mpsc::sync_channel(16);
    let spawned = std::thread::Builder::new()
        .name("sinew-lsp-reader".into())
        .spawn(move || {
            let stdin = std::io::stdin();
            let mut input = stdin.lock();
            loop {
                let body = match read_body(&mut input) {
                    Ok(Some(b)) => b,
                    Ok(None) => return,
                    Err(e) => {
                        eprintln!("sinew lsp: {e}");
                        return;
                    }
                };
                let incoming = match serde_json::from_slice::<Message>(&body) {
                    Ok(m) => Incoming::Message(m),
                    Err(e) => Incoming::Malformed(e.to_string()),
                };
                let exit = matches!(&incoming, Incoming::Message(Message::Notification(n)) if n.method == "exit");
                if tx.send(incoming).is_err() || exit {
                    return;
                }
            }
        });
    if let Err(e) = spawned {
        eprintln!("sinew lsp: cannot start the reader: {e}");
    }
    rx
}

/// Writes messages to standard output; a write error means the client is gone.
pub struct Writer<W: Write> {
    out: W,
}

impl<W: Write> Writer<W> {
    pub fn new(out: W) -> Writer<W> {
        Writer { out }
    }
    pub fn send(&mut self, msg: impl Into<Message>) -> std::io::Result<()> {
        msg.into().write(&mut self.out)
    }
    /// The answer to a body that was not JSON-RPC.
    pub fn parse_error(&mut self, why: &str) -> std::io::Result<()> {
        // JSON-RPC answers a parse error with a null id, which `RequestId` cannot hold.
        let body = serde_json::json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": {"code": ErrorCode::ParseError as i32, "message": format!("not a JSON-RPC message: {why}")},
        })
        .to_string();
        write!(self.out, "Content-Length: {}\r\n\r\n{body}", body.len())?;
        self.out.flush()
    }
    pub fn respond(&mut self, r: Response) -> std::io::Result<()> {
        self.send(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_are_framed_and_bounded() {
        let mut ok: &[u8] = b"Content-Length: 2\r\nContent-Type: x\r\n\r\n{}rest";
        assert_eq!(read_body(&mut ok).unwrap().unwrap(), b"{}");
        let mut empty: &[u8] = b"";
        assert_eq!(read_body(&mut empty).unwrap(), None);
        let huge = format!("Content-Length: {}\r\n\r\n", MAX_MESSAGE + 1);
        assert!(
            read_body(&mut huge.as_bytes())
                .unwrap_err()
                .contains("over the limit")
        );
        let long = vec![b'x'; 5000];
        assert!(
            read_body(&mut long.as_slice())
                .unwrap_err()
                .contains("longer")
        );
        let mut none: &[u8] = b"X: 1\r\n\r\n";
        assert!(read_body(&mut none).unwrap_err().contains("Content-Length"));
        let mut cut: &[u8] = b"Content-Length: 10\r\n\r\n{}";
        assert!(read_body(&mut cut).is_err());
    }
}
