//! Who may do what (`studio.md`): the Host check against DNS rebinding, the token and Origin
//! check for every request that changes anything, and paths that never leave their folder.

use super::http::Request;
use std::path::{Component, Path, PathBuf};

/// The studio's identity for request checks: its port and its per-run token.
#[derive(Clone, Debug)]
pub struct Guard {
    pub port: u16,
    pub token: String,
}

/// A refused request: the status and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub status: u16,
    pub message: String,
}

fn refuse(status: u16, message: impl Into<String>) -> Refusal {
    Refusal {
        status,
        message: message.into(),
    }
}

/// A fresh random token (two version-4 UUIDs: 244 random bits, hexadecimal).
pub fn new_token() -> String {
    format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

/// Equality that takes the same time wherever the strings differ.
fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

impl Guard {
    /// The `Host` values the studio answers to.
    fn hosts(&self) -> [String; 2] {
        [
            format!("127.0.0.1:{}", self.port),
            format!("localhost:{}", self.port),
        ]
    }

    /// Refuses (403) a request whose `Host` is not the studio's own; for `PUT` and `POST` also
    /// one without the token or from another origin.
    pub fn check(&self, req: &Request) -> Result<(), Refusal> {
        let host = req.header("host").unwrap_or("");
        if !self.hosts().iter().any(|h| h.eq_ignore_ascii_case(host)) {
            return Err(refuse(
                403,
                format!(
                    "requests must be addressed to 127.0.0.1:{0} or localhost:{0}",
                    self.port
                ),
            ));
        }
        let changes = !matches!(req.method.as_str(), "GET" | "HEAD" | "OPTIONS");
        if !changes {
            return Ok(());
        }
        let token = req
            .header("x-sinew-token")
            .or_else(|| req.param("token"))
            .unwrap_or("");
        if !same(token, &self.token) {
            return Err(refuse(
                403,
                "missing or wrong token (X-Sinew-Token header or ?token=)",
            ));
        }
        if let Some(origin) = req.header("origin") {
            let ok = self
                .hosts()
                .iter()
                .any(|h| origin.eq_ignore_ascii_case(&format!("http://{h}")));
            if !ok {
                return Err(refuse(
                    403,
                    format!("origin {origin} may not change anything"),
                ));
            }
        }
        Ok(())
    }
}

/// Why a relative path was refused (always 400).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadPath(pub String);

/// Checks that `rel` is a plain relative path (`/`-separated names: no `..`, `.`, empty
/// segments, absolute forms, backslashes or control characters).
pub fn plain_relative(rel: &str) -> Result<PathBuf, BadPath> {
    let bad = |why: &str| Err(BadPath(format!("path `{rel}` {why}")));
    if rel.is_empty() {
        return bad("is empty");
    }
    if rel.len() > 1024 {
        return Err(BadPath("path is longer than 1024 bytes".into()));
    }
    if rel.starts_with('/') || rel.contains('\\') || rel.contains(':') {
        return bad("must be relative to its folder (no absolute paths)");
    }
    if rel.chars().any(char::is_control) {
        return bad("contains control characters");
    }
    let mut out = PathBuf::new();
    for seg in rel.split('/') {
        match seg {
            "" => return bad("has an empty segment"),
            "." | ".." => return bad("may not contain `.` or `..`"),
            s => out.push(s),
        }
    }
    if !out.components().all(|c| matches!(c, Component::Normal(_))) {
        return bad("is not a plain relative path");
    }
    Ok(out)
}

/// Resolves `rel` inside `root` (whose canonical form is `canonical_root`): the path must be
/// plain, and what exists of it — after following symlinks — must stay inside the folder. A
/// path that does not exist yet is checked through its parent folder, which must exist; a
/// dangling symlink is refused.
pub fn resolve(root: &Path, canonical_root: &Path, rel: &str) -> Result<PathBuf, BadPath> {
    let relp = plain_relative(rel)?;
    let full = root.join(&relp);
    let outside = || BadPath(format!("path `{rel}` leads out of its folder"));
    match full.canonicalize() {
        Ok(c) => {
            if !c.starts_with(canonical_root) {
                return Err(outside());
            }
        }
        Err(_) => {
            if full.symlink_metadata().is_ok() {
                return Err(outside()); // a dangling symlink: its target is unknown
            }
            let parent = full.parent().unwrap_or(root);
            let Ok(c) = parent.canonicalize() else {
                return Err(BadPath(format!("the folder of `{rel}` does not exist")));
            };
            if !c.starts_with(canonical_root) {
                return Err(outside());
            }
        }
    }
    Ok(full)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_relative_paths_only() {
        assert!(plain_relative("demo/hero.bpg").is_ok());
        for bad in [
            "",
            "/etc/passwd",
            "../x.bpg",
            "a/../../x",
            "a//b",
            "./a",
            "a\\b",
            "C:/x",
            "a\nb",
        ] {
            assert!(plain_relative(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn tokens_compare_in_full() {
        assert!(same("abc", "abc"));
        assert!(!same("abc", "abd"));
        assert!(!same("abc", "ab"));
        assert_ne!(new_token(), new_token());
        assert_eq!(new_token().len(), 64);
    }
}
