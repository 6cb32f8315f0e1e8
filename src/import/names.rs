//! Output file names: a safe stem from a display name (never a Windows device name) and a
//! name unique among the files one import writes.

use std::collections::BTreeSet;

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
pub(super) fn unique_file(taken: &mut BTreeSet<String>, stem: &str, ext: &str, n: usize) -> String {
    let mut stem = stem.to_string();
    loop {
        let f = format!("{stem}.{ext}");
        if taken.insert(f.to_lowercase()) {
            return f;
        }
        stem.push_str(&format!("~{n}"));
    }
}
