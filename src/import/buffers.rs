//! Buffer resolution: the GLB BIN chunk, `data:` URIs (base64) and external files the caller
//! read and handed in by URI. The importer never opens a file: [`external_uris`] says which
//! files a model needs, the caller supplies their bytes.

use super::diagnostics::{E_BUFFER, Report};
use base64::Engine as _;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// The bytes of every buffer of one model (each cut to its declared `byteLength`).
pub struct Buffers<'a> {
    data: Vec<Cow<'a, [u8]>>,
    /// Total bytes over all buffers: the most elements any accessor may decode.
    pub total: usize,
}

impl<'a> Buffers<'a> {
    /// The bytes of buffer `i`.
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        self.data.get(i).map(|c| &**c)
    }
}

/// External files a model names, as `(buffer index, relative path)`: the percent-decoded URI
/// of every buffer that is not a `data:` URI. Absolute paths and other schemes are not listed
/// (resolution reports them).
pub fn external_uris(root: &gltf::json::Root) -> Vec<(usize, String)> {
    root.buffers
        .iter()
        .enumerate()
        .filter_map(|(i, b)| {
            let uri = b.uri.as_deref()?;
            match classify(uri) {
                Uri::File(p) => Some((i, p)),
                _ => None,
            }
        })
        .collect()
}

enum Uri<'u> {
    Data(&'u str),
    File(String),
    Refused(&'static str),
}

fn classify(uri: &str) -> Uri<'_> {
    if let Some(rest) = uri.strip_prefix("data:") {
        return Uri::Data(rest);
    }
    let before_slash = uri.split('/').next().unwrap_or("");
    if before_slash.contains(':') {
        return Uri::Refused("a URI with a scheme (only relative file paths and `data:` URIs)");
    }
    if uri.starts_with('/') || uri.starts_with('\\') {
        return Uri::Refused("an absolute path (only paths relative to the model)");
    }
    match percent_decode(uri) {
        Some(p) if !p.is_empty() => Uri::File(p),
        _ => Uri::Refused("a malformed percent-encoded path"),
    }
}

/// Percent-decodes a URI path (`%20` → space); `None` for bad escapes or non-UTF-8 results.
fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = b.get(i + 1..i + 3)?;
            let h = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(h, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The base64 engine for `data:` URIs: standard alphabet, padding optional.
const BASE64: base64::engine::GeneralPurpose = base64::engine::GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    base64::engine::GeneralPurposeConfig::new()
        .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true),
);

/// Resolves every buffer; each problem is an error naming the buffer. `None` after any error.
/// `refused` says, by URI, why the caller did not read an external file (it leads outside the
/// project, say); an external file in neither map is missing.
pub fn resolve<'a>(
    root: &gltf::json::Root,
    bin: Option<&'a [u8]>,
    externals: &'a BTreeMap<String, Vec<u8>>,
    refused: &BTreeMap<String, String>,
    report: &mut Report,
) -> Option<Buffers<'a>> {
    let mut data = Vec::with_capacity(root.buffers.len());
    let mut ok = true;
    for (i, b) in root.buffers.iter().enumerate() {
        let declared = b.byte_length.0;
        let bytes: Cow<'a, [u8]> = match b.uri.as_deref().map(classify) {
            None if i == 0 && bin.is_some() => Cow::Borrowed(bin.unwrap_or_default()),
            None => {
                report.error(
                    E_BUFFER,
                    format!("buffer {i} has no `uri` and the file has no GLB BIN chunk for it"),
                );
                ok = false;
                continue;
            }
            Some(Uri::Data(rest)) => match decode_data_uri(rest) {
                Ok(v) => Cow::Owned(v),
                Err(m) => {
                    report.error(E_BUFFER, format!("buffer {i}: bad `data:` URI: {m}"));
                    ok = false;
                    continue;
                }
            },
            Some(Uri::File(p)) => match externals.get(&p) {
                Some(v) => Cow::Borrowed(v.as_slice()),
                None => {
                    let shown = crate::ron_span::short(&p);
                    report.error(
                        E_BUFFER,
                        match refused.get(&p) {
                            Some(why) => format!("buffer {i}: `{shown}` {why}; nothing was read"),
                            None => format!("buffer {i}: the external file `{shown}` is missing"),
                        },
                    );
                    ok = false;
                    continue;
                }
            },
            Some(Uri::Refused(why)) => {
                report.error(
                    E_BUFFER,
                    format!(
                        "buffer {i}: `{}` is {why}",
                        crate::ron_span::short(b.uri.as_deref().unwrap_or(""))
                    ),
                );
                ok = false;
                continue;
            }
        };
        if (bytes.len() as u64) < declared {
            report.error(
                E_BUFFER,
                format!(
                    "buffer {i} declares {declared} bytes (`byteLength`) but its data has only {}",
                    bytes.len()
                ),
            );
            ok = false;
            continue;
        }
        let bytes = match bytes {
            Cow::Borrowed(s) => Cow::Borrowed(&s[..declared as usize]),
            Cow::Owned(mut v) => {
                v.truncate(declared as usize);
                Cow::Owned(v)
            }
        };
        data.push(bytes);
    }
    if !ok {
        return None;
    }
    let total = data.iter().map(|d| d.len()).sum();
    Some(Buffers { data, total })
}

/// Decodes the part after `data:`: `[<media type>][;base64],<payload>`.
fn decode_data_uri(rest: &str) -> Result<Vec<u8>, String> {
    let Some((meta, payload)) = rest.split_once(',') else {
        return Err("no `,` before the payload".to_string());
    };
    if !meta.ends_with(";base64") {
        return Err("only base64 payloads (`;base64,`) are supported".to_string());
    }
    BASE64
        .decode(payload.as_bytes())
        .map_err(|e| format!("invalid base64: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris() {
        assert!(matches!(
            classify("data:application/octet-stream;base64,AAAA"),
            Uri::Data(_)
        ));
        assert!(matches!(classify("a%20b.bin"), Uri::File(p) if p == "a b.bin"));
        assert!(matches!(classify("../shared/x.bin"), Uri::File(_)));
        assert!(matches!(classify("http://x/y.bin"), Uri::Refused(_)));
        assert!(matches!(classify("/etc/x.bin"), Uri::Refused(_)));
        assert!(matches!(classify("C:/x.bin"), Uri::Refused(_)));
        assert!(matches!(classify("a%2"), Uri::Refused(_)));
        assert_eq!(
            decode_data_uri(";base64,AAECAw==").ok(),
            Some(vec![0, 1, 2, 3])
        );
        assert_eq!(
            decode_data_uri(";base64,AAECAw").ok(),
            Some(vec![0, 1, 2, 3])
        );
        assert!(decode_data_uri("text/plain,hello").is_err());
        assert!(decode_data_uri(";base64,!!!!").is_err());
    }
}
