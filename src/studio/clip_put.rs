//! `PUT /api/clip` (`studio.md`, "Amended: animation authoring in the studio"): a batch of
//! edits applied to the clip's own text ([`crate::animseq::apply_edits`]), checked against the
//! `base` version, written atomically, and answered with the saved text. The clip served or
//! saved last is remembered by its exact bytes (its load, syntax tree and version), so an edit
//! in the studio decodes, parses and hashes no unchanged byte of it again (issue 28; see
//! `docs/studio.md`, "`PUT` of one edit on a large clip").

use super::State;
use super::clip_version::{clip_version, remember_version};
use super::clips::{asset_path, diagnostics, unreadable};
use super::http::{Body, Request, Response};
use crate::animseq::{self, EditError, clip_json};
use crate::diag::SourceFile;
use crate::fsutil::{InputKind, read_input};
use crate::workspace::version_of;
use serde_json::{Value, json};

pub(super) fn put_clip(state: &State, req: &Request) -> Response {
    let (rel, path) = match asset_path(state, req, ".animseq") {
        Ok(x) => x,
        Err(r) => return r,
    };
    let body: Value = match super::api::json_body(req, "JSON") {
        Ok(v) => v,
        Err(r) => return r,
    };
    let Some(base) = body.get("base").and_then(Value::as_str) else {
        return Response::error(
            400,
            "the body needs `base`, the version the clip was read at",
        );
    };
    if let Some(k) = body
        .as_object()
        .and_then(|o| o.keys().find(|k| *k != "base" && *k != "edits"))
    {
        return Response::error(400, format!("unknown key `{k}` (send `base` and `edits`)"));
    }
    let edits = match body.get("edits").map(clip_json::edits_from_json) {
        Some(Ok(e)) => e,
        Some(Err(e)) => return refused(&e),
        None => return Response::error(400, "the body needs `edits`, a list"),
    };
    let Ok(_w) = state.writes.lock() else {
        return Response::error(500, "studio state is unavailable");
    };
    let bytes = match read_input(&path, InputKind::Clip) {
        Ok(b) => b,
        Err(e) => return unreadable(&rel, &e),
    };
    let current = clip_version(&bytes);
    if current != base {
        return Response::json(
            409,
            &json!({"error": format!("{rel} changed on disk since it was read"),
                    "version": current}),
        );
    }
    let Ok(text) = String::from_utf8(bytes) else {
        return Response::error(422, format!("{rel} is not valid UTF-8"));
    };
    let edited = match animseq::apply_edits(&SourceFile::new(&rel, text), &edits) {
        Ok(e) => e,
        Err(EditError::Invalid(ds)) => {
            let first = ds.iter().find(|d| d.is_error());
            let why = first.map_or(String::new(), |d| format!(": {} {}", d.code, d.message));
            return Response::json(
                422,
                &json!({"error": format!("{rel} does not load{why}; fix it in a text editor"),
                        "diagnostics": diagnostics(&ds)}),
            );
        }
        Err(e) => return refused(&e),
    };
    if edited.text.len() as u64 > InputKind::Clip.limit() {
        return Response::error(
            413,
            format!("{rel} is not written: it would pass the clip limit"),
        );
    }
    // The palette and every graph's diagnostics follow from this save, from the load the edit
    // has already shown: no second decode of the clip, here or in the watcher. Remembered
    // before the write, so a reader of the new bytes (the watcher, woken by the write while
    // this request is still running) finds them. One hash pass per save: the new text's (the
    // base was checked from memory after a GET).
    let answer = PutAnswer {
        version: version_of(edited.text.as_bytes()),
        source: &edited.text,
        format: edited.format,
        diagnostics: diagnostics(&edited.diagnostics),
    };
    remember_version(edited.text.as_bytes(), &answer.version);
    animseq::remember_load(edited.text.as_bytes(), edited.loaded());
    if let Err(e) = crate::fsutil::write_atomic(&path, edited.text.as_bytes()) {
        return Response::error(500, format!("cannot write {rel}: {e}"));
    }
    if !super::sse::refresh_now(state, std::slice::from_ref(&path)) {
        return Response::error(500, "studio state is unavailable");
    }
    answer.response()
}

/// The answer to a `PUT /api/clip` that saved.
struct PutAnswer<'a> {
    version: String,
    source: &'a str,
    format: u32,
    diagnostics: Value,
}

impl PutAnswer<'_> {
    /// `{"version", "source", "format", "diagnostics"}`, `source` written straight from the
    /// saved text ([`super::json_text`]: no copy into a JSON tree, a fast scan).
    fn response(&self) -> Response {
        let mut b = Vec::with_capacity(self.source.len() + self.source.len() / 16 + 256);
        b.extend_from_slice(b"{\"version\":");
        super::json_text::write_str(&mut b, &self.version);
        b.extend_from_slice(b",\"source\":");
        super::json_text::write_str(&mut b, self.source);
        b.extend_from_slice(format!(",\"format\":{},\"diagnostics\":", self.format).as_bytes());
        if serde_json::to_writer(&mut b, &self.diagnostics).is_err() {
            return Response::error(500, "cannot encode the answer");
        }
        b.push(b'}');
        Response::new(200, "application/json", Body::Bytes(b))
    }
}

/// A refused batch: 400 naming the edit (`edit`: its index, `op`).
fn refused(e: &EditError) -> Response {
    match e {
        EditError::Edit { index, op, .. } => Response::json(
            400,
            &json!({"error": e.to_string(), "edit": index, "op": op}),
        ),
        EditError::TooMany(_) => Response::error(413, e.to_string()),
        EditError::NotLossless(_) => Response::error(500, format!("nothing written: {e}")),
        _ => Response::error(400, e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_is_the_bytes_serde_json_writes_for_the_same_object() {
        let source = "AnimSeq(\n\tid: \"c\", // \\ \u{1} é\r\n)\n";
        let diagnostics = json!([{"code": "W0563", "message": "a \"quoted\" note"}]);
        let a = PutAnswer {
            version: "ab12".into(),
            source,
            format: 4,
            diagnostics: diagnostics.clone(),
        };
        let r = a.response();
        let Body::Bytes(b) = r.body else {
            panic!("a body of bytes")
        };
        let want = json!({"version": "ab12", "source": source, "format": 4,
                          "diagnostics": diagnostics});
        assert_eq!(String::from_utf8(b).unwrap(), want.to_string());
        assert_eq!((r.status, r.content_type), (200, "application/json"));
    }
}
