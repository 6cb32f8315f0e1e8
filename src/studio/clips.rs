//! The clip endpoints of the studio (`studio.md`, "Amended: animation authoring in the
//! studio"): `/api/clips`, `/api/clip` (GET, PUT), `/api/pose`, `/api/poses`,
//! `/api/crossings`, plus the state machines (`/api/machines`, `/api/machine.svg`). Thin: paths
//! are checked and files read and written here; the work is the library's
//! ([`crate::animseq::apply_edits`], [`crate::animseq::clip_json`],
//! [`crate::anim::preview::PosePlayer`], [`crate::crossing`],
//! [`crate::picture::state_machine`]).

use super::State;
use super::clip_version::{clip_version, remember_version};
use super::http::{Body, Request, Response};
use crate::anim::preview::{PosePlayer, Scratch};
use crate::animseq::{self, AnimSeq, clip_json};
use crate::diag::render::JsonDiagnostic;
use crate::diag::{Diagnostic, SourceFile};
use crate::fsutil::{InputError, InputKind, read_input};
use crate::workspace::version_of;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Most clips `GET /api/clips` lists (`docs/limits.md`).
pub const MAX_CLIPS: usize = 10_000;

/// The endpoints this module answers (for 405 on other methods).
pub const PATHS: [&str; 8] = [
    "/api/clips",
    "/api/clip",
    "/api/pose",
    "/api/poses",
    "/api/crossings",
    "/api/machines",
    "/api/machine.svg",
    "/api/model",
];

/// Answers a clip request, or `None` when the path is not one of [`PATHS`].
pub fn route(state: &Arc<State>, req: &Request) -> Option<Response> {
    let p = req.path.as_str();
    if !PATHS.contains(&p) {
        return None;
    }
    let m = req.method.as_str();
    // Sampling many frames and rewriting clips share the heavy slots (the memory budget).
    let heavy = matches!((m, p), ("GET", "/api/poses") | ("PUT", "/api/clip"));
    let slot = if heavy {
        match state.heavy.take() {
            Some(s) => Some(s),
            None => {
                return Some(Response::busy(format!(
                    "the studio is busy: {} checks, pictures or runs are in progress; try again",
                    super::budget::HEAVY_SLOTS
                )));
            }
        }
    } else {
        None
    };
    let r = match (m, p) {
        ("GET", "/api/clips") => list(state),
        ("GET", "/api/clip") => get_clip(state, req),
        ("PUT", "/api/clip") => super::clip_put::put_clip(state, req),
        ("GET", "/api/pose") => pose(state, req, false),
        ("GET", "/api/poses") => pose(state, req, true),
        ("GET", "/api/crossings") => crossings(state, req),
        ("GET", "/api/machines") => machines(state),
        ("GET", "/api/machine.svg") => machine_svg(state, req),
        ("GET", "/api/model") => model(state, req),
        _ => Response::error(405, format!("{m} is not allowed on {p}")),
    };
    Some(match slot {
        Some(s) => r.holding(Box::new(s)),
        None => r,
    })
}

/// A request's `path` parameter, ending in `ext`, resolved inside the assets folder.
pub(super) fn asset_path(
    state: &State,
    req: &Request,
    ext: &str,
) -> Result<(String, PathBuf), Response> {
    let Some(rel) = req.param("path") else {
        return Err(Response::error(400, "missing ?path="));
    };
    if !rel.ends_with(ext) {
        return Err(Response::error(400, format!("`{rel}` is not a {ext} file")));
    }
    match state.assets.resolve(rel) {
        Ok(p) => Ok((rel.to_string(), p)),
        Err(e) => Err(Response::error(400, e.0)),
    }
}

pub(super) fn unreadable(rel: &str, e: &InputError) -> Response {
    let status = match e {
        e if e.is_not_found() => 404,
        InputError::TooLarge { .. } => 413,
        InputError::NotAFile(_) => 422,
        InputError::Io(_) => 500,
    };
    Response::error(status, format!("cannot read {rel}: {e}"))
}

pub(super) fn diagnostics(ds: &[Diagnostic]) -> Value {
    serde_json::to_value(ds.iter().map(JsonDiagnostic::from).collect::<Vec<_>>())
        .unwrap_or(Value::Null)
}

/// A clip read and loaded: its text, version and sequence (`None` with errors).
struct Read {
    text: String,
    version: String,
    seq: Option<AnimSeq>,
    diagnostics: Vec<Diagnostic>,
}

fn read_clip(rel: &str, path: &Path) -> Result<Read, Response> {
    let bytes = read_input(path, InputKind::Clip).map_err(|e| unreadable(rel, &e))?;
    let version = version_of(&bytes);
    let loaded = animseq::load_bytes(rel, &bytes);
    Ok(Read::new(bytes, version, loaded))
}

/// [`read_clip`] of the clip the page opens: its load and version are remembered (by its
/// exact bytes) for the `PUT /api/clip` that follows, and answered from memory when the bytes
/// are the ones served or saved last.
fn read_clip_remembered(rel: &str, path: &Path) -> Result<Read, Response> {
    let bytes = read_input(path, InputKind::Clip).map_err(|e| unreadable(rel, &e))?;
    let version = clip_version(&bytes);
    let fresh = animseq::recalled_skeleton(&bytes).is_none();
    let loaded = animseq::load_bytes_recalled(rel, &bytes);
    // A clip opened afresh: its syntax tree too, for the first batch of edits.
    if fresh
        && loaded.diagnostics.is_empty()
        && let Ok(text) = std::str::from_utf8(&bytes)
        && let Ok(root) = crate::ron_span::parse_lazy(text)
    {
        animseq::remember_root(text, &root);
    }
    remember_version(&bytes, &version);
    animseq::remember_load(&bytes, loaded.clone());
    Ok(Read::new(bytes, version, loaded))
}

impl Read {
    fn new(bytes: Vec<u8>, version: String, loaded: animseq::Loaded) -> Read {
        let ok = !loaded.diagnostics.iter().any(Diagnostic::is_error);
        Read {
            text: String::from_utf8(bytes)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
            version,
            seq: loaded.seq.filter(|_| ok),
            diagnostics: loaded.diagnostics,
        }
    }
}

/// The clip's sequence, or 422 naming its first error.
fn loaded_clip(rel: &str, path: &Path) -> Result<AnimSeq, Response> {
    let r = read_clip(rel, path)?;
    r.seq.ok_or_else(|| {
        let first = r.diagnostics.iter().find(|d| d.is_error());
        let why = first.map_or(String::new(), |d| format!(": {} {}", d.code, d.message));
        Response::json(
            422,
            &json!({"error": format!("{rel} does not load{why}"),
                    "diagnostics": diagnostics(&r.diagnostics)}),
        )
    })
}

/// The import manifest beside a generated clip: the model it came from (assets-relative).
fn model_of(state: &State, clip: &Path) -> Option<String> {
    let manifest = clip.parent()?.join("manifest.ron");
    let bytes = read_input(&manifest, InputKind::Manifest).ok()?;
    let m =
        crate::import::manifest::AnimManifest::from_ron(std::str::from_utf8(&bytes).ok()?).ok()?;
    let file = clip.file_name()?.to_str()?;
    m.clips
        .iter()
        .any(|c| c.file == file)
        .then_some(m.source)
        .filter(|s| state.assets.resolve(s).is_ok())
}

fn list(state: &State) -> Response {
    let want = |n: &std::ffi::OsStr| n.as_encoded_bytes().ends_with(b".animseq").then_some(());
    let walked = crate::fsutil::walk(&state.assets.root, &crate::fsutil::Policy::new(&want));
    let files = walked.map(|w| w.files).unwrap_or_default();
    let mut out: Vec<(String, Value)> = Vec::new();
    for f in files.iter().take(MAX_CLIPS) {
        let rel = state.assets.name_of(&f.path);
        let entry = match read_clip(&rel, &f.path) {
            Ok(Read { seq: Some(s), .. }) => json!({
                "path": rel, "id": s.id, "name": s.name, "duration": s.duration,
                "notifies": s.notifies.len(), "windows": s.windows.len(), "skeleton": s.skeleton,
                "model": model_of(state, &f.path),
            }),
            Ok(r) => json!({
                "path": rel, "id": null, "name": null, "duration": null, "notifies": 0,
                "windows": 0, "skeleton": null, "model": model_of(state, &f.path),
                "errors": r.diagnostics.iter().filter(|d| d.is_error()).count(),
            }),
            Err(_) => continue,
        };
        out.push((rel, entry));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    let clips: Vec<Value> = out.into_iter().map(|(_, v)| v).collect();
    Response::json(200, &json!({ "clips": clips }))
}

fn get_clip(state: &State, req: &Request) -> Response {
    let (rel, path) = match asset_path(state, req, ".animseq") {
        Ok(x) => x,
        Err(r) => return r,
    };
    let r = match read_clip_remembered(&rel, &path) {
        Ok(r) => r,
        Err(r) => return r,
    };
    let clip = r.seq.as_ref().map(clip_json::clip_json);
    Response::json(
        200,
        &json!({"path": rel, "version": r.version, "source": r.text, "clip": clip,
                "diagnostics": diagnostics(&r.diagnostics), "model": model_of(state, &path)}),
    )
}

fn number(req: &Request, name: &str) -> Result<Option<f64>, Response> {
    match req.param(name) {
        None => Ok(None),
        Some(s) => match s.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(Some(x)),
            _ => Err(Response::error(
                400,
                format!("`{name}` must be a finite number, got `{s}`"),
            )),
        },
    }
}

/// The pose player of the clip read last, with the exact bytes it was built from (the clip's and
/// its skeleton's): the preview asks for the same clip's poses again and again, so a request
/// whose files are byte for byte the same reuses it instead of decoding the clip again. One
/// entry, replaced by the next clip (`docs/limits.md`).
struct PlayerMemo {
    rel: String,
    path: PathBuf,
    clip: Vec<u8>,
    /// The skeleton file the clip names and its bytes (`None`: it could not be read).
    skeleton: Option<(PathBuf, Option<Vec<u8>>)>,
    player: Arc<PosePlayer>,
}

static PLAYER: std::sync::Mutex<Option<PlayerMemo>> = std::sync::Mutex::new(None);

/// The skeleton file a clip names (relative to the clip) and its bytes, when readable. Without
/// one, the flat skeleton of the clip's track names is used, as `sinew sample` does.
fn skeleton_file(seq_skeleton: Option<&str>, path: &Path) -> Option<(PathBuf, Option<Vec<u8>>)> {
    let p = path.parent()?.join(seq_skeleton?);
    let bytes = read_input(&p, InputKind::Skeleton).ok();
    Some((p, bytes))
}

/// The clip's pose player: remembered when the clip and its skeleton are unchanged, else built
/// (a clip that does not load is 422 naming its first error).
fn player_of(rel: &str, path: &Path) -> Result<Arc<PosePlayer>, Response> {
    let bytes = read_input(path, InputKind::Clip).map_err(|e| unreadable(rel, &e))?;
    if let Ok(memo) = PLAYER.lock()
        && let Some(m) = memo.as_ref()
        && m.rel == rel
        && m.path == path
        && m.clip == bytes
    {
        let same_skeleton = match &m.skeleton {
            None => true,
            Some((p, b)) => read_input(p, InputKind::Skeleton).ok() == *b,
        };
        if same_skeleton {
            return Ok(m.player.clone());
        }
    }
    let loaded = animseq::load_bytes(rel, &bytes);
    let seq = match loaded.seq {
        Some(s) if !loaded.diagnostics.iter().any(Diagnostic::is_error) => s,
        _ => {
            let first = loaded.diagnostics.iter().find(|d| d.is_error());
            let why = first.map_or(String::new(), |d| format!(": {} {}", d.code, d.message));
            return Err(Response::json(
                422,
                &json!({"error": format!("{rel} does not load{why}"),
                        "diagnostics": diagnostics(&loaded.diagnostics)}),
            ));
        }
    };
    let skeleton = skeleton_file(seq.skeleton.as_deref(), path);
    let skel = skeleton.as_ref().and_then(|(_, b)| {
        crate::anim::load_skeleton_bytes(seq.skeleton.as_deref()?, b.as_ref()?).skeleton
    });
    let player = Arc::new(PosePlayer::new(&seq, skel, rel));
    if let Ok(mut memo) = PLAYER.lock() {
        *memo = Some(PlayerMemo {
            rel: rel.to_string(),
            path: path.to_path_buf(),
            clip: bytes,
            skeleton,
            player: player.clone(),
        });
    }
    Ok(player)
}

fn pose(state: &State, req: &Request, many: bool) -> Response {
    let (rel, path) = match asset_path(state, req, ".animseq") {
        Ok(x) => x,
        Err(r) => return r,
    };
    let player = match player_of(&rel, &path) {
        Ok(p) => p,
        Err(r) => return r,
    };
    let only = match req.param("bone") {
        None => None,
        Some(b) => match player.find(b) {
            Ok(i) => Some(i),
            Err(m) => return Response::error(400, m),
        },
    };
    let mut scratch = Scratch::default();
    let times = if many {
        let (from, to, fps) = match (number(req, "from"), number(req, "to"), number(req, "fps")) {
            (Ok(a), Ok(b), Ok(f)) => (a.unwrap_or(0.0), b.unwrap_or(player.duration()), f),
            (Err(r), _, _) | (_, Err(r), _) | (_, _, Err(r)) => return r,
        };
        let Some(fps) = fps else {
            return Response::error(400, "missing ?fps=");
        };
        match PosePlayer::frame_times(from, to, fps) {
            Ok(t) => t,
            Err(e) => return Response::error(400, e.to_string()),
        }
    } else {
        match number(req, "t") {
            Ok(Some(t)) => vec![t],
            Ok(None) => return Response::error(400, "missing ?t="),
            Err(r) => return r,
        }
    };
    let per = 64
        + player
            .bones()
            .min(if only.is_some() { 1 } else { usize::MAX })
            * 320;
    let mut o = String::with_capacity(per * times.len() + 32);
    if many {
        o.push_str("{\"frames\":[");
    }
    for (i, &t) in times.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        player.write_frame(&mut o, t, only, &mut scratch);
    }
    if many {
        o.push_str("]}");
    }
    Response::new(200, "application/json", Body::Bytes(o.into_bytes()))
}

fn crossings(state: &State, req: &Request) -> Response {
    use crate::crossing::{DEFAULT_LIMIT, Edge, NotifyIndex, PlaybackInterval};
    let (rel, path) = match asset_path(state, req, ".animseq") {
        Ok(x) => x,
        Err(r) => return r,
    };
    let (from, to) = match (number(req, "from"), number(req, "to")) {
        (Ok(Some(a)), Ok(Some(b))) => (a, b),
        (Err(r), _) | (_, Err(r)) => return r,
        _ => return Response::error(400, "missing ?from= and ?to="),
    };
    let looping = match req.param("looping") {
        None | Some("false") => false,
        Some("true") => true,
        Some(o) => {
            return Response::error(400, format!("`looping` must be true or false, got `{o}`"));
        }
    };
    let seq = match loaded_clip(&rel, &path) {
        Ok(s) => s,
        Err(r) => return r,
    };
    let times: Vec<f64> = seq.notifies.iter().map(|n| n.time).collect();
    let windows: Vec<(f64, f64)> = seq.windows.iter().map(|w| (w.begin, w.end)).collect();
    let index = match NotifyIndex::with_windows(seq.duration, &times, &windows) {
        Ok(i) => i,
        Err(e) => return Response::error(422, format!("{rel}: {e}")),
    };
    let interval = PlaybackInterval::Advance { from, to, looping };
    let result = match index.query(&interval, DEFAULT_LIMIT) {
        Ok(r) => r,
        Err(e) => return Response::error(400, e.to_string()),
    };
    let list: Vec<Value> = result
        .list
        .iter()
        .map(|c| {
            let i = c.notify as usize;
            let (id, name) = match c.edge {
                None => (&seq.notifies[i].id, &seq.notifies[i].name),
                Some(_) => (&seq.windows[i].id, &seq.windows[i].name),
            };
            let mut v = json!({"id": id, "name": capped(name)});
            if let Some(e) = c.edge {
                v["edge"] = json!(match e {
                    Edge::Begin => "begin",
                    Edge::End => "end",
                });
            }
            v["time"] = json!(c.time);
            v["clip_time"] = json!(c.clip_time);
            v["cycle"] = json!(c.cycle);
            v
        })
        .collect();
    Response::json(
        200,
        &json!({"crossings": list, "truncated": result.truncated}),
    )
}

/// Every `.animsm` under the assets folder.
fn machines(state: &State) -> Response {
    let want = |n: &std::ffi::OsStr| n.as_encoded_bytes().ends_with(b".animsm").then_some(());
    let walked = crate::fsutil::walk(&state.assets.root, &crate::fsutil::Policy::new(&want));
    let mut found: Vec<String> = walked
        .map(|w| w.files)
        .unwrap_or_default()
        .iter()
        .take(MAX_CLIPS)
        .map(|f| state.assets.name_of(&f.path))
        .collect();
    found.sort();
    Response::json(200, &json!({ "machines": found }))
}

/// The `sinew graph` picture of an `.animsm`.
fn machine_svg(state: &State, req: &Request) -> Response {
    let (rel, path) = match asset_path(state, req, ".animsm") {
        Ok(x) => x,
        Err(r) => return r,
    };
    let bytes = match read_input(&path, InputKind::StateMachine) {
        Ok(b) => b,
        Err(e) => return unreadable(&rel, &e),
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return Response::error(422, format!("{rel} is not valid UTF-8"));
    };
    match crate::picture::state_machine::state_machine_svg(&SourceFile::new(&rel, text)) {
        Ok(svg) => Response::new(200, "image/svg+xml", Body::Bytes(svg.into_bytes())),
        Err(ds) => Response::json(
            422,
            &json!({"error": format!("{rel} does not load"), "diagnostics": diagnostics(&ds)}),
        ),
    }
}

/// A model file of the assets folder (`.glb`/`.gltf`), for the preview's skinned mesh.
fn model(state: &State, req: &Request) -> Response {
    let Some(rel) = req.param("path") else {
        return Response::error(400, "missing ?path=");
    };
    if !(rel.ends_with(".glb") || rel.ends_with(".gltf")) {
        return Response::error(400, format!("`{rel}` is not a .glb or .gltf model"));
    }
    let path = match state.assets.resolve(rel) {
        Ok(p) => p,
        Err(e) => return Response::error(400, e.0),
    };
    match read_input(&path, InputKind::Model) {
        Ok(b) => {
            let ct = if rel.ends_with(".glb") {
                "model/gltf-binary"
            } else {
                "model/gltf+json"
            };
            Response::new(200, ct, Body::Bytes(b))
        }
        Err(e) => unreadable(rel, &e),
    }
}

/// `name` cut to 256 chars (with `…`), as `sinew crossings` prints it.
fn capped(name: &str) -> std::borrow::Cow<'_, str> {
    match name.char_indices().nth(256) {
        None => name.into(),
        Some((at, _)) => format!("{}…", &name[..at]).into(),
    }
}
