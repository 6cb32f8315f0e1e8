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
mod channels;
mod clips;
mod container;
pub mod diagnostics;
pub mod fbx;
pub mod identity;
mod json_path;
pub mod manifest;
mod manifest_read;
mod nodes;
mod notifies;
mod output;
pub mod signature;
mod skeleton;

pub use channels::TOLERANCE;
pub use diagnostics::CODES;
pub use manifest::{AnimManifest, ClipEntry, ManifestDiagnostic, SkeletonEntry};

use crate::diag::Diagnostic;
use diagnostics::{
    E_ANIMATED_FBX, E_FORMAT, E_INVALID, E_SEVERAL_ROOTS, Report, W_DUPLICATE_LABEL, quoted,
};
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

/// How one glTF import runs: the keys it may still write, and how many clips convert at once
/// (in parallel when more than one).
struct Run {
    budget: usize,
    width: usize,
    /// The bytes the import may write (`output::budget`).
    output: usize,
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

/// A file name stem from a display name: letters, digits, `_` and `-` kept, others `_`;
/// never empty, never starting with `.`, at most 64 bytes.
pub fn file_stem(name: &str, fallback: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.len() > 64 {
        let mut end = 64;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
    }
    if s.chars().all(|c| c == '_') {
        return fallback.to_string();
    }
    if is_device_name(&s) {
        // `CON.animseq` cannot be created or checked out on Windows.
        s.push('_');
    }
    s
}

/// Whether `stem` (the part of a file name before its first `.`) is a Windows device name —
/// `CON`, `PRN`, `AUX`, `NUL`, `COM0`–`COM9`, `LPT0`–`LPT9` (also with `¹²³`), any case —
/// which no file on Windows may be named, whatever its extension.
pub fn is_device_name(stem: &str) -> bool {
    let u = stem.to_ascii_uppercase();
    match u.as_str() {
        "CON" | "PRN" | "AUX" | "NUL" => true,
        _ => ["COM", "LPT"].iter().any(|p| {
            u.strip_prefix(p).is_some_and(|d| {
                let mut c = d.chars();
                matches!(c.next(), Some('0'..='9' | '¹' | '²' | '³')) && c.next().is_none()
            })
        }),
    }
}

/// Reserves a file name unique (case-insensitively) among `taken`, suffixing `~<n>`.
fn unique_file(taken: &mut BTreeSet<String>, stem: &str, ext: &str, n: usize) -> String {
    let mut stem = stem.to_string();
    loop {
        let f = format!("{stem}.{ext}");
        if taken.insert(f.to_lowercase()) {
            return f;
        }
        stem.push_str(&format!("~{n}"));
    }
}

#[allow(clippy::too_many_arguments)]
fn gltf_import(
    doc: &container::Document<'_>,
    (externals, refused): (&BTreeMap<String, Vec<u8>>, &BTreeMap<String, String>),
    stem: &str,
    id: &Identity,
    run: Run,
    manifest: &mut AnimManifest,
    report: &mut Report,
    sink: &mut dyn FnMut(Asset),
) {
    let Run {
        mut budget,
        width,
        output,
    } = run;
    let mut output = output::Output::new(output, sink);
    let root = &doc.root;
    let Some(buffers) = buffers::resolve(root, doc.bin, externals, refused, report) else {
        return;
    };
    let Some(forest) = nodes::Forest::new(root, report) else {
        return;
    };
    if root.animations.is_empty() {
        report.note("the model has no animations: no clips to import");
    }

    // Channel targets: every node index checked; top-level roots the animations reach.
    let mut roots: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    let mut trs_nodes = vec![false; forest.names.len()];
    let mut bad = false;
    for (a, anim) in root.animations.iter().enumerate() {
        for (c, ch) in anim.channels.iter().enumerate() {
            let n = ch.target.node.value();
            if n >= forest.names.len() {
                report.error(
                    E_INVALID,
                    format!(
                        "invalid glTF at `animations[{a}].channels[{c}].target.node`: node {n} \
                         does not exist ({} nodes)",
                        forest.names.len()
                    ),
                );
                bad = true;
                continue;
            }
            roots.entry(forest.root_of[n]).or_default().insert(a);
            if doc.unknown_paths.binary_search(&(a, c)).is_err()
                && !matches!(
                    ch.target.path,
                    gltf::json::validation::Checked::Valid(
                        gltf::json::animation::Property::MorphTargetWeights
                    )
                )
            {
                trs_nodes[n] = true;
            }
        }
    }
    if bad {
        return;
    }
    let labels = labels(root, report);
    if roots.len() > 1 {
        let parts: Vec<String> = roots
            .iter()
            .map(|(r, anims)| {
                let names: Vec<String> = anims.iter().map(|&a| quoted(&labels[a])).collect();
                format!(
                    "{} (node {r}: {})",
                    quoted(&forest.names[*r]),
                    names.join(", ")
                )
            })
            .collect();
        report.error(
            E_SEVERAL_ROOTS,
            format!(
                "the animations reach {} top-level roots: {}; one player drives one hierarchy, \
                 so export all clips beneath one common root (parent the rigs to one node) or \
                 split the rigs into separate files",
                roots.len(),
                parts.join(", ")
            ),
        );
        return;
    }

    // Skeletons of the skins the channels touch.
    let mut sets = Vec::new();
    for s in 0..root.skins.len() {
        match skeleton::skin_nodes(root, &forest, s, report) {
            Some(set) => sets.push(set),
            None => return,
        }
    }
    let animated: Vec<usize> = (0..sets.len())
        .filter(|&s| sets[s].iter().any(|&n| trs_nodes[n]))
        .collect();
    // Node animation: animated nodes no animated skin holds (a prop's lid, a door) and the
    // nodes above them become a skeleton of their own, every node of it a joint.
    let mut in_skin = vec![false; forest.names.len()];
    for &s in &animated {
        for &n in &sets[s] {
            in_skin[n] = true;
        }
    }
    let node_set = skeleton::animated_nodes(&forest, &trs_nodes, &in_skin);
    drop(in_skin);
    let node_joints = node_set
        .as_ref()
        .map(|set| skeleton::order(&forest, set))
        .unwrap_or_default();
    let mut rigs: Vec<(skeleton::Rig<'_>, String)> = Vec::new();
    let skin_joints: Vec<Vec<usize>> = animated
        .iter()
        .map(|&s| root.skins[s].joints.iter().map(|j| j.value()).collect())
        .collect();
    for (k, &s) in animated.iter().enumerate() {
        let name = match root.skins[s].name.as_deref().map(str::trim) {
            Some(n) if !n.is_empty() => n.to_string(),
            _ if animated.len() == 1 => stem.to_string(),
            _ => format!("{stem}_skin{s}"),
        };
        let rig = skeleton::Rig {
            what: format!("skin {s}"),
            joints: &skin_joints[k],
            set: &sets[s],
            node_animation: false,
        };
        rigs.push((rig, name));
    }
    if let Some(set) = &node_set {
        let name = if animated.is_empty() {
            stem.to_string()
        } else {
            format!("{stem}_nodes")
        };
        let rig = skeleton::Rig {
            what: "the node animation".to_string(),
            joints: &node_joints,
            set,
            node_animation: true,
        };
        rigs.push((rig, name));
    }
    let mut files: BTreeSet<String> = BTreeSet::new();
    files.insert("manifest.ron".to_string());
    let mut skels = Vec::new();
    for (k, (rig, name)) in rigs.into_iter().enumerate() {
        let n = animated.get(k).copied().unwrap_or(root.skins.len());
        let file = unique_file(&mut files, &file_stem(&name, "skeleton"), "skel", n);
        let Some((out, text)) = skeleton::build(root, &forest, &rig, name, file, report) else {
            return;
        };
        manifest.skeletons.push(SkeletonEntry {
            name: out.name.clone(),
            file: out.file.clone(),
            signature: out.signature.clone(),
            joints: out.joints.clone(),
        });
        if output
            .give(
                Asset::new(out.file.clone(), Content::Skeleton(text)),
                report,
            )
            .is_none()
        {
            return;
        }
        skels.push(out);
    }
    let mut in_skeleton: Vec<Vec<(usize, usize)>> = vec![Vec::new(); forest.names.len()];
    for (k, s) in skels.iter().enumerate() {
        for (i, &n) in s.nodes.iter().enumerate() {
            in_skeleton[n].push((k, i));
        }
    }
    let scene = clips::Scene {
        root,
        buffers: &buffers,
        forest: &forest,
        skels: &skels,
        unknown_paths: &doc.unknown_paths,
        in_skeleton: &in_skeleton,
    };
    // Clips are independent: a batch of them is built in parallel, each from the budget left
    // before the batch and with its own report, then taken in order exactly as a one-by-one
    // import takes them. The first clip of a batch saw that budget; a later one is kept when
    // its `need` fits the budget the clips before it left (it would have come out the same),
    // else it is built again with that budget. Memory holds one batch of clips at a time.
    let shown = report.file().to_string();
    let build = |a: usize, budget: usize| {
        let mut r = Report::new(&shown);
        let mut b = budget;
        let clip_id = identity::clip_id(&id.model, &labels[a]);
        let built = clips::build(&scene, a, &clip_id, &labels[a], &mut b, &mut r);
        (clip_id, built, r)
    };
    let mut start = 0;
    while start < labels.len() {
        let batch: Vec<usize> = (start..labels.len().min(start.saturating_add(width))).collect();
        start += batch.len();
        let mut results: Vec<_> = {
            use rayon::prelude::*;
            if batch.len() > 1 {
                batch.par_iter().map(|&a| build(a, budget)).collect()
            } else {
                batch.iter().map(|&a| build(a, budget)).collect()
            }
        };
        for (i, &a) in batch.iter().enumerate() {
            let keep = i == 0 || results[i].1.as_ref().is_some_and(|b| b.need <= budget);
            let (clip_id, built, r) = if keep {
                std::mem::take(&mut results[i])
            } else {
                build(a, budget)
            };
            report.diagnostics.extend(r.diagnostics);
            let Some(built) = built else {
                return;
            };
            budget -= built.used;
            let label = &labels[a];
            let file = unique_file(&mut files, &file_stem(label, "clip"), "animseq", a);
            manifest.clips.push(ClipEntry {
                id: clip_id,
                label: label.clone(),
                index: a,
                duration: built.seq.duration,
                skeleton: built
                    .skeleton
                    .and_then(|s| skels.get(s))
                    .map(|s| s.signature.clone())
                    .unwrap_or_default(),
                file: file.clone(),
                markers: built.seq.notifies.len(),
            });
            if output
                .give(Asset::new(file, Content::Clip(Box::new(built.seq))), report)
                .is_none()
            {
                return;
            }
        }
    }
}

/// Clip labels: the animation's name, `Animation{index}` when it has none (or a blank one);
/// a label already taken becomes `<label>~<index>` with a warning.
fn labels(root: &gltf::json::Root, report: &mut Report) -> Vec<String> {
    let mut taken = BTreeSet::new();
    let mut out = Vec::with_capacity(root.animations.len());
    for (a, anim) in root.animations.iter().enumerate() {
        let base = match anim.name.as_deref() {
            Some(n) if !n.trim().is_empty() => n.to_string(),
            _ => format!("Animation{a}"),
        };
        let mut label = base.clone();
        while !taken.insert(label.clone()) {
            label.push_str(&format!("~{a}"));
        }
        if label != base {
            report.warning(
                W_DUPLICATE_LABEL,
                format!(
                    "animation {a} is named {} like an earlier one: its clip is labelled {}",
                    quoted(&base),
                    quoted(&label)
                ),
            );
        }
        out.push(label);
    }
    out
}
