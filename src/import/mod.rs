//! Model import (`import.md`): a glTF 2.0 model (`.gltf` with embedded or external buffers,
//! `.glb`) becomes one `.skel` per animated skin, one `.animseq` per clip and a manifest of
//! identities, signatures and diagnostics. FBX files are inspected, never imported.
//!
//! Pure: bytes in, assets out. The caller reads the model and the external buffers it names
//! ([`Prepared::external_uris`]) and writes what [`Prepared::import`] hands its sink; nothing
//! here touches the file system. Decoding is bounded by the input's size and never panics.
//!
//! | file | owns |
//! | --- | --- |
//! | `container.rs` | GLB chunks, JSON, glTF validation |
//! | `json_path.rs` | the index and bound an "index out of bounds" names |
//! | `buffers.rs` | BIN chunk, `data:` URIs, external buffers |
//! | `accessor.rs` | bounds-checked accessor decoding (strides, sparse, normalized ints) |
//! | `build.rs` | one parsed document → skeletons and clips (checks, rigs, parallel clip batches) |
//! | `names.rs` | output file names (safe stems, unique per import) |
//! | `nodes.rs` | the node forest, top-level roots, bone names |
//! | `signature.rs` | the exact skeleton signature bytes and hash |
//! | `skeleton.rs` | skeletons of animated skins, rest poses, `.skel` text |
//! | `channels.rs` | LINEAR / STEP / CUBICSPLINE → keys Sinew reproduces |
//! | `clips/` | one animation → one `AnimSeq` (`times.rs`: its key times checked, shifted, its duration) |
//! | `notifies.rs` | `extras.notifies` → notifies |
//! | `manifest.rs` | the manifest (RON and JSON) |
//! | `output.rs` | the output budget: the bytes one import may write |
//! | `identity.rs` | sidecars, clip IDs, fingerprints, reconciliation |
//! | `fbx.rs` | FBX detection |
//! | `diagnostics.rs` | codes and the per-model report |

mod accessor;
mod buffers;
mod build;
mod channels;
mod clips;
mod container;
pub mod diagnostics;
pub mod fbx;
pub mod identity;
mod json_path;
pub mod manifest;
mod manifest_read;
mod names;
mod nodes;
mod notifies;
mod output;
pub mod signature;
mod skeleton;

pub use channels::TOLERANCE;
pub use diagnostics::CODES;
pub use manifest::{AnimManifest, ClipEntry, ManifestDiagnostic, SkeletonEntry};
pub use names::{file_stem, is_device_name};

use crate::diag::Diagnostic;
use build::{Run, gltf_import};
use diagnostics::{E_ANIMATED_FBX, E_FORMAT, Report};
use std::collections::{BTreeMap, BTreeSet};
use uuid::Uuid;

/// The model's identity, decided by the caller (sidecar or reconciliation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// The model UUID.
    pub model: Uuid,
    /// The model's path relative to the assets folder (`/`-separated): a hint in the manifest.
    pub source: String,
}

/// One generated file: its name inside the model's folder and what goes in it.
#[derive(Clone, Debug)]
pub struct Asset {
    /// File name (`Walk.animseq`, `fox.skel`).
    pub file: String,
    /// The skeleton's text, or the clip as a value (its text is [`Asset::text`]).
    pub content: Content,
    /// A clip's text, made once (the import measures it against its output budget, the
    /// caller writes it).
    text: std::sync::OnceLock<String>,
}

impl PartialEq for Asset {
    fn eq(&self, other: &Asset) -> bool {
        self.file == other.file && self.content == other.content
    }
}

/// What a generated file holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Content {
    /// A `.skel` text.
    Skeleton(String),
    /// A clip, written with `animseq::to_ron`.
    Clip(Box<crate::animseq::AnimSeq>),
}

impl Asset {
    /// A generated file named `file` holding `content`.
    pub fn new(file: String, content: Content) -> Asset {
        Asset {
            file,
            content,
            text: std::sync::OnceLock::new(),
        }
    }

    /// The file's text.
    pub fn text(&self) -> String {
        self.text_ref().to_string()
    }

    /// The file's text, borrowed (a clip's is written once and kept).
    pub fn text_ref(&self) -> &str {
        match &self.content {
            Content::Skeleton(t) => t,
            Content::Clip(seq) => self.text.get_or_init(|| crate::animseq::to_ron(seq)),
        }
    }
}

/// What an import produced besides the assets.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The manifest (write it as `manifest.ron` beside the assets).
    pub manifest: AnimManifest,
    /// Every diagnostic, naming the model file.
    pub diagnostics: Vec<Diagnostic>,
}

/// An import with everything collected.
#[derive(Clone, Debug)]
pub struct Imported {
    /// The manifest.
    pub manifest: AnimManifest,
    /// The generated files (none when the manifest is not `runtime_supported`).
    pub assets: Vec<Asset>,
    /// Every diagnostic.
    pub diagnostics: Vec<Diagnostic>,
}

enum State<'a> {
    Gltf(Box<container::Document<'a>>),
    Fbx(fbx::Fbx),
    Failed,
}

/// A model's parse: what it is and the diagnostics parsing it gave.
struct Parsed<'a> {
    state: State<'a>,
    report: Report,
}

/// A model, ready to import once its external buffers are supplied.
///
/// Parsing is deferred to the first call that needs the document ([`Prepared::external_uris`]
/// or an import), so that an import can hash the file on a second core while it parses and
/// converts ([`Prepared::import_reading`] never parses outside that overlap).
pub struct Prepared<'a> {
    name: String,
    stem: String,
    bytes: &'a [u8],
    /// Computed on demand ([`Prepared::fingerprint`]) or, during an import, beside the parse
    /// and the conversion.
    fingerprint: std::cell::OnceCell<String>,
    parsed: std::cell::OnceCell<Parsed<'a>>,
}

/// Models at least this large have their clips converted in parallel batches (one clip per
/// core, at most four; memory holds one batch at a time). Smaller ones convert one clip after
/// the other: handing clips of a sub-megabyte model to other threads made Fox.glb's import
/// slower (267 µs against 197 µs, criterion at load 2.5), the threads' wake-ups costing more
/// than the clips.
const PARALLEL_BYTES: usize = 1 << 20;

/// Models at least this large are hashed on a second core (a thread of the rayon pool) while
/// they are parsed and converted; below it the hash takes about as long as waking a thread.
const HASH_BESIDE_BYTES: usize = 16 << 10;

/// Prepares a model for import. `name` is its display path (diagnostics name it); its file
/// stem names skeletons of unnamed skins. `.fbx` (by name or content) is inspected as FBX.
pub fn prepare<'a>(name: &str, bytes: &'a [u8]) -> Prepared<'a> {
    let file_name = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let stem = match file_name.rsplit_once('.') {
        Some((s, _)) if !s.is_empty() => s.to_string(),
        _ => file_name.to_string(),
    };
    Prepared {
        name: name.to_string(),
        stem,
        bytes,
        fingerprint: std::cell::OnceCell::new(),
        parsed: std::cell::OnceCell::new(),
    }
}

/// Parses a model: GLB by magic, FBX by content or name, else glTF JSON.
fn parse<'a>(name: &str, bytes: &'a [u8]) -> Parsed<'a> {
    let mut report = Report::new(name);
    let file_name = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let is_fbx_name = file_name.to_ascii_lowercase().ends_with(".fbx");
    let state = if bytes.starts_with(container::GLB_MAGIC) {
        container::parse(bytes, &mut report).map_or(State::Failed, |d| State::Gltf(Box::new(d)))
    } else if fbx::is_fbx(bytes) || is_fbx_name {
        State::Fbx(fbx::inspect(bytes))
    } else {
        container::parse(bytes, &mut report).map_or(State::Failed, |d| State::Gltf(Box::new(d)))
    };
    Parsed { state, report }
}

/// Where an import finds the external files a model's buffers name.
enum Externals<'e> {
    /// Read already, by URI.
    Given(&'e BTreeMap<String, Vec<u8>>),
    /// Read on demand, once the model is parsed (`Err`: why it was not read).
    Read(&'e mut dyn FnMut(&str) -> Result<Vec<u8>, String>),
}

/// Runs `work` while `bytes` are hashed on a thread of the rayon pool; whichever comes first
/// (that thread, or this one once `work` is done) hashes, so a busy pool never delays the
/// import by more than the hash itself.
fn hashed_beside<R>(bytes: &[u8], work: impl FnOnce() -> R) -> (String, R) {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicBool, Ordering};
    let claimed = AtomicBool::new(false);
    let hash: OnceLock<String> = OnceLock::new();
    let out = rayon::in_place_scope(|s| {
        s.spawn(|_| {
            if !claimed.swap(true, Ordering::AcqRel) {
                let _ = hash.set(identity::fingerprint(bytes));
            }
        });
        let out = work();
        if !claimed.swap(true, Ordering::AcqRel) {
            let _ = hash.set(identity::fingerprint(bytes));
        }
        out
    });
    let fp = hash
        .into_inner()
        .unwrap_or_else(|| identity::fingerprint(bytes));
    (fp, out)
}

impl<'a> Prepared<'a> {
    /// `sha256:<hex>` of the model's bytes.
    pub fn fingerprint(&self) -> &str {
        self.fingerprint
            .get_or_init(|| identity::fingerprint(self.bytes))
    }

    fn parsed(&self) -> &Parsed<'a> {
        self.parsed.get_or_init(|| parse(&self.name, self.bytes))
    }

    /// The external files the model's buffers name (relative to the model, percent-decoded),
    /// sorted and distinct. The caller reads them and passes them to [`Prepared::import`]
    /// (or lets [`Prepared::import_reading`] ask for them).
    pub fn external_uris(&self) -> Vec<String> {
        let State::Gltf(doc) = &self.parsed().state else {
            return Vec::new();
        };
        uris(doc)
    }

    /// Imports the model, handing each generated file to `sink` as it is made (so memory
    /// holds one clip at a time). When the outcome is not `runtime_supported`, files already
    /// handed out are not part of the import: the manifest lists no clips and the caller
    /// removes every generated file the manifest does not list.
    pub fn import(
        self,
        id: &Identity,
        externals: &BTreeMap<String, Vec<u8>>,
        sink: &mut dyn FnMut(Asset),
    ) -> Outcome {
        self.run(id, Externals::Given(externals), sink)
    }

    /// [`Prepared::import`], asking `read` for each external file the model names (by
    /// [`Prepared::external_uris`] path) once the model is parsed: parsing then overlaps the
    /// hash too. `read` is called on this thread; its `Err` says why the file was not read
    /// (missing, or leading outside the project) and becomes the buffer's `E0704`.
    pub fn import_reading(
        self,
        id: &Identity,
        read: &mut dyn FnMut(&str) -> Result<Vec<u8>, String>,
        sink: &mut dyn FnMut(Asset),
    ) -> Outcome {
        self.run(id, Externals::Read(read), sink)
    }

    fn run(self, id: &Identity, externals: Externals<'_>, sink: &mut dyn FnMut(Asset)) -> Outcome {
        let Prepared {
            name,
            stem,
            bytes,
            fingerprint,
            parsed,
        } = self;
        let mut manifest = AnimManifest {
            format: manifest::FORMAT,
            model: id.model.hyphenated().to_string(),
            source: id.source.clone(),
            fingerprint: String::new(),
            runtime_supported: true,
            skeletons: Vec::new(),
            clips: Vec::new(),
            diagnostics: Vec::new(),
        };
        let work = |manifest: &mut AnimManifest| {
            let Parsed { state, mut report } =
                parsed.into_inner().unwrap_or_else(|| parse(&name, bytes));
            let read_now;
            let mut refused = BTreeMap::new();
            let externals = match externals {
                Externals::Given(m) => m,
                Externals::Read(read) => {
                    let mut m = BTreeMap::new();
                    if let State::Gltf(doc) = &state {
                        for uri in uris(doc) {
                            match read(&uri) {
                                Ok(b) => {
                                    m.insert(uri, b);
                                }
                                Err(why) => {
                                    refused.insert(uri, why);
                                }
                            }
                        }
                    }
                    read_now = m;
                    &read_now
                }
            };
            convert(
                &stem,
                bytes.len(),
                state,
                id,
                (externals, &refused),
                manifest,
                &mut report,
                sink,
            );
            report
        };
        // The fingerprint hashes every byte of the model (about twice as long as parsing it):
        // on a second core it overlaps the parse and the conversion. The sink and `read` are
        // only ever called on this thread.
        let report = match fingerprint.into_inner() {
            Some(f) => {
                manifest.fingerprint = f;
                work(&mut manifest)
            }
            None if bytes.len() >= HASH_BESIDE_BYTES => {
                let (f, r) = hashed_beside(bytes, || work(&mut manifest));
                manifest.fingerprint = f;
                r
            }
            None => {
                let r = work(&mut manifest);
                manifest.fingerprint = identity::fingerprint(bytes);
                r
            }
        };
        if report.has_errors() {
            manifest.runtime_supported = false;
            manifest.skeletons.clear();
            manifest.clips.clear();
        }
        manifest.diagnostics = report.diagnostics.iter().map(Into::into).collect();
        Outcome {
            manifest,
            diagnostics: report.diagnostics,
        }
    }
}

/// The distinct external file paths a document's buffers name, sorted.
fn uris(doc: &container::Document<'_>) -> Vec<String> {
    let set: BTreeSet<String> = buffers::external_uris(&doc.root)
        .into_iter()
        .map(|(_, p)| p)
        .collect();
    set.into_iter().collect()
}

/// What [`Prepared::import`] does besides the fingerprint.
#[allow(clippy::too_many_arguments)]
fn convert(
    stem: &str,
    bytes_len: usize,
    state: State<'_>,
    id: &Identity,
    (externals, refused): (&BTreeMap<String, Vec<u8>>, &BTreeMap<String, String>),
    manifest: &mut AnimManifest,
    report: &mut Report,
    sink: &mut dyn FnMut(Asset),
) {
    match state {
        State::Failed => {}
        State::Fbx(fbx::Fbx::Corrupt(m)) => {
            report.error(E_FORMAT, format!("not a readable FBX file: {m}"));
        }
        State::Fbx(fbx::Fbx::Contents { stacks, skins }) if stacks + skins > 0 => {
            report.error(
                E_ANIMATED_FBX,
                format!(
                    "animated FBX ({stacks} animation stack(s), {skins} skin deformer(s)): \
                     Sinew imports animation from glTF only; export the model as glTF 2.0 \
                     (.glb) and import that"
                ),
            );
        }
        State::Fbx(_) => report.note("static FBX model: no clips to import"),
        State::Gltf(doc) => {
            let external: usize = externals.values().map(Vec::len).sum();
            let budget = 4 * (bytes_len + external) + 100_000;
            let size = bytes_len + external;
            let width = if size >= PARALLEL_BYTES {
                rayon::current_num_threads().clamp(1, 4)
            } else {
                1
            };
            let run = Run {
                budget,
                width,
                output: output::budget(size),
            };
            gltf_import(
                &doc,
                (externals, refused),
                stem,
                id,
                run,
                manifest,
                report,
                sink,
            );
        }
    }
}

/// Imports a model in one call, collecting the assets (dropped when the import is blocked).
pub fn import(
    name: &str,
    bytes: &[u8],
    id: &Identity,
    externals: &BTreeMap<String, Vec<u8>>,
) -> Imported {
    let mut assets = Vec::new();
    let out = prepare(name, bytes).import(id, externals, &mut |a| assets.push(a));
    if !out.manifest.runtime_supported {
        assets.clear();
    }
    Imported {
        manifest: out.manifest,
        assets,
        diagnostics: out.diagnostics,
    }
}
