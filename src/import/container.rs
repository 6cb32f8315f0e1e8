//! From bytes to a glTF document: the GLB container (header and chunks, checked by hand so
//! every length is validated before it is used), JSON deserialization into `gltf::json::Root`,
//! and the crate's validation (indices and enumerations), reported with the failing path.
//!
//! The `gltf` crate's own GLB reader is not used: it subtracts before checking
//! (`header.length - 12` underflows on a short header) and copies the BIN chunk.

use super::diagnostics::{E_EXTENSION, E_GLB, E_INVALID, E_JSON, Report};
use crate::diag::{Diagnostic, SourceFile, Span};
use gltf::json;

/// The GLB magic.
pub const GLB_MAGIC: &[u8; 4] = b"glTF";
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

/// Extensions that store animation data in a way this importer cannot read.
const UNSUPPORTED_REQUIRED: &[&str] = &["EXT_meshopt_compression", "KHR_meshopt_compression"];

/// A parsed glTF document plus the GLB's BIN chunk, borrowed from the input.
pub struct Document<'a> {
    /// The JSON root.
    pub root: json::Root,
    /// The GLB BIN chunk (buffer 0 when that buffer has no URI).
    pub bin: Option<&'a [u8]>,
    /// Channels whose target path is not one this crate knows (`KHR_animation_pointer`'s
    /// `pointer`, say): `(animation, channel)`, sorted; skipped with a warning, not refused.
    pub unknown_paths: Vec<(usize, usize)>,
}

/// The JSON and BIN chunks of a GLB file.
pub struct Glb<'a> {
    /// The JSON chunk.
    pub json: &'a [u8],
    /// The first BIN chunk, if any.
    pub bin: Option<&'a [u8]>,
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// Splits a GLB file into its chunks, or says exactly what is wrong (with byte offsets).
pub fn split_glb(bytes: &[u8]) -> Result<Glb<'_>, String> {
    if bytes.len() < 12 || &bytes[..4] != GLB_MAGIC {
        return Err(format!(
            "the GLB header needs 12 bytes starting with `glTF`, the file has {} bytes",
            bytes.len()
        ));
    }
    let version = u32_at(bytes, 4).unwrap_or(0);
    if version != 2 {
        return Err(format!(
            "GLB version {version} at byte 4: only glTF 2.0 (version 2) is supported"
        ));
    }
    let declared = u32_at(bytes, 8).unwrap_or(0) as usize;
    if declared != bytes.len() {
        return Err(format!(
            "the GLB header (byte 8) declares a length of {declared} bytes, the file has {}",
            bytes.len()
        ));
    }
    let mut at = 12usize;
    let mut json = None;
    let mut bin = None;
    let mut index = 0usize;
    while at < bytes.len() {
        let (Some(len), Some(ty)) = (u32_at(bytes, at), u32_at(bytes, at + 4)) else {
            return Err(format!(
                "chunk {index} at byte {at}: its 8-byte header is cut off ({} bytes left)",
                bytes.len() - at
            ));
        };
        let start = at + 8;
        let len = len as usize;
        let Some(end) = start.checked_add(len).filter(|&e| e <= bytes.len()) else {
            return Err(format!(
                "chunk {index} at byte {at} declares {len} bytes, only {} remain",
                bytes.len() - start
            ));
        };
        let data = &bytes[start..end];
        match (index, ty) {
            (0, CHUNK_JSON) => json = Some(data),
            (0, _) => {
                return Err(format!(
                    "chunk 0 at byte {at} has type 0x{ty:08x}: the first chunk must be JSON"
                ));
            }
            (1, CHUNK_BIN) => bin = Some(data),
            (_, CHUNK_JSON) => {
                return Err(format!("chunk {index} at byte {at} is a second JSON chunk"));
            }
            // Unknown chunk types are skipped, as glTF 2.0 asks; a later BIN is not the buffer.
            _ => {}
        }
        at = end;
        index += 1;
    }
    match json {
        Some(json) => Ok(Glb { json, bin }),
        None => Err("the GLB file has no JSON chunk".to_string()),
    }
}

/// Parses a `.gltf` text or `.glb` file. Problems go to `report`; `None` when nothing usable.
pub fn parse<'a>(bytes: &'a [u8], report: &mut Report) -> Option<Document<'a>> {
    let (json_bytes, bin, is_glb) = if bytes.starts_with(GLB_MAGIC) {
        match split_glb(bytes) {
            Ok(g) => (g.json, g.bin, true),
            Err(m) => {
                report.error(E_GLB, format!("not a valid GLB file: {m}"));
                return None;
            }
        }
    } else {
        (bytes, None, false)
    };
    let root: json::Root = match serde_json::from_slice(json_bytes) {
        Ok(r) => r,
        Err(e) => {
            json_error(bytes, json_bytes, is_glb, &e, report);
            return None;
        }
    };
    // gltf-json's primitive validation indexes `accessors` with the POSITION attribute
    // unchecked (a panic on a bad index): check that index first.
    let mut bad_position = false;
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let pos = json::validation::Checked::Valid(json::mesh::Semantic::Positions);
            if let Some(i) = prim.attributes.get(&pos)
                && i.value() >= root.accessors.len()
            {
                report.error(
                    E_INVALID,
                    format!(
                        "invalid glTF at `meshes[{m}].primitives[{p}].attributes.POSITION`: \
                         accessor {} does not exist ({} accessors)",
                        i.value(),
                        root.accessors.len()
                    ),
                );
                bad_position = true;
            }
        }
    }
    if bad_position {
        return None;
    }
    let mut unknown_paths = Vec::new();
    let mut errors = Vec::new();
    {
        use json::validation::Validate;
        root.validate(&root, json::Path::new, &mut |path, error| {
            errors.push((path().as_str().to_string(), error));
        });
    }
    let mut invalid = false;
    // The document as plain JSON, read again only to name a bad index and its bound.
    let mut plain: Option<Option<serde_json::Value>> = None;
    for (path, error) in errors {
        if let Some(ac) = channel_target_path(&path) {
            unknown_paths.push(ac);
            continue;
        }
        // Required extensions are judged below by what they do to animation data (materials,
        // textures and mesh compression do not touch it), not by what this crate parses.
        if path.starts_with("extensionsRequired[") {
            continue;
        }
        invalid = true;
        let detail = match error {
            json::validation::Error::IndexOutOfBounds => plain
                .get_or_insert_with(|| serde_json::from_slice(json_bytes).ok())
                .as_ref()
                .and_then(|v| super::json_path::out_of_bounds(v, &path)),
            _ => None,
        };
        report.error(
            E_INVALID,
            format!(
                "invalid glTF at `{path}`: {}",
                detail.unwrap_or_else(|| error.to_string())
            ),
        );
    }
    for ext in &root.extensions_required {
        if UNSUPPORTED_REQUIRED.contains(&ext.as_str()) {
            invalid = true;
            report.error(
                E_EXTENSION,
                format!(
                    "the model requires extension `{ext}`, which compresses buffer data this \
                     importer cannot read; export without it"
                ),
            );
        }
    }
    if invalid {
        return None;
    }
    unknown_paths.sort_unstable();
    unknown_paths.dedup();
    Some(Document {
        root,
        bin,
        unknown_paths,
    })
}

/// `animations[i].channels[j].target.path` → `(i, j)`.
fn channel_target_path(path: &str) -> Option<(usize, usize)> {
    let rest = path.strip_prefix("animations[")?;
    let (a, rest) = rest.split_once(']')?;
    let rest = rest.strip_prefix(".channels[")?;
    let (c, rest) = rest.split_once(']')?;
    (rest == ".target.path").then_some(())?;
    Some((a.parse().ok()?, c.parse().ok()?))
}

fn json_error(
    file: &[u8],
    json_bytes: &[u8],
    is_glb: bool,
    e: &serde_json::Error,
    report: &mut Report,
) {
    let what = match e.classify() {
        serde_json::error::Category::Data => "the JSON is not a glTF document",
        _ => "the file is not valid JSON",
    };
    if !is_glb && let Ok(text) = std::str::from_utf8(file) {
        // A `.gltf` text: point at the line and column serde_json names.
        let src = SourceFile::new(report.file(), text);
        let at = src.offset(crate::diag::Position {
            line: u32::try_from(e.line()).unwrap_or(u32::MAX),
            column: u32::try_from(e.column()).unwrap_or(u32::MAX),
        });
        report.add(Diagnostic::error(E_JSON, format!("{what}: {e}")).at(&src, Span::point(at)));
        return;
    }
    let place = if is_glb {
        "in the GLB's JSON chunk"
    } else {
        ""
    };
    let _ = json_bytes;
    report.error(E_JSON, format!("{what} {place}: {e}").replace("  ", " "));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glb(chunks: &[(u32, &[u8])], declared: Option<u32>) -> Vec<u8> {
        let mut body = Vec::new();
        for (ty, data) in chunks {
            body.extend_from_slice(&(data.len() as u32).to_le_bytes());
            body.extend_from_slice(&ty.to_le_bytes());
            body.extend_from_slice(data);
        }
        let mut out = b"glTF".to_vec();
        out.extend_from_slice(&2u32.to_le_bytes());
        let len = declared.unwrap_or((12 + body.len()) as u32);
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    #[test]
    fn splits_json_and_bin() {
        let f = glb(&[(CHUNK_JSON, b"{}  "), (CHUNK_BIN, b"abcd")], None);
        let g = split_glb(&f).expect("valid");
        assert_eq!(g.json, b"{}  ");
        assert_eq!(g.bin, Some(&b"abcd"[..]));
    }

    #[test]
    fn refuses_bad_lengths_with_offsets() {
        let f = glb(&[(CHUNK_JSON, b"{}  ")], Some(999));
        let e = split_glb(&f).err().expect("bad total");
        assert!(e.contains("declares a length of 999"), "{e}");
        let mut f = glb(&[(CHUNK_JSON, b"{}  ")], None);
        f[12] = 200; // chunk 0 length
        let e = split_glb(&f).err().expect("bad chunk");
        assert!(e.contains("chunk 0 at byte 12 declares 200 bytes"), "{e}");
        assert!(split_glb(b"glTF").is_err());
        let short = glb(&[], Some(4));
        assert!(split_glb(&short).is_err());
    }

    #[test]
    fn channel_paths() {
        assert_eq!(
            channel_target_path("animations[2].channels[13].target.path"),
            Some((2, 13))
        );
        assert_eq!(
            channel_target_path("animations[2].channels[13].sampler"),
            None
        );
    }
}
