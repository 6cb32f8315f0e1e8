//! Paths inside a project: `/`-separated, relative to the project's root folder, lexically
//! normal. Every path a scene names is resolved into one of these (or refused) before any
//! [`Source`](super::Source) sees it.

use std::fmt;

/// A file or folder inside a [`Source`](super::Source)'s root: `/`-separated, relative to the
/// root, without `.`, `..` or empty segments (`""` is the root itself). Built only by
/// [`ProjectPath::new`] and [`ProjectPath::join`], which refuse absolute paths and `..` that
/// climbs above the root.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ProjectPath(String);

/// Why a path was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    /// An absolute path (`/…`, or on Windows `C:…` or `\…`).
    #[error("it is absolute")]
    Absolute,
    /// `..` climbs above the root.
    #[error("`..` climbs out of the project")]
    Escapes,
}

/// Whether `c` separates path segments in text a file wrote (`/`; on Windows also `\`).
fn is_separator(c: char) -> bool {
    c == '/' || (cfg!(windows) && c == '\\')
}

fn is_absolute(p: &str) -> bool {
    let b = p.as_bytes();
    p.starts_with(is_separator)
        || (cfg!(windows) && b.len() >= 2 && b[1] == b':' && b[0].is_ascii_alphabetic())
}

impl ProjectPath {
    /// The root folder.
    pub fn root() -> ProjectPath {
        ProjectPath(String::new())
    }

    /// `p` relative to the root, normalized.
    pub fn new(p: &str) -> Result<ProjectPath, PathError> {
        ProjectPath::root().join(p)
    }

    /// `rel` relative to this folder, normalized; an absolute `rel` or one whose `..` climbs
    /// above the root is refused.
    pub fn join(&self, rel: &str) -> Result<ProjectPath, PathError> {
        if is_absolute(rel) {
            return Err(PathError::Absolute);
        }
        let mut parts: Vec<&str> = self.segments().collect();
        for seg in rel.split(is_separator) {
            match seg {
                "" | "." => {}
                ".." => {
                    parts.pop().ok_or(PathError::Escapes)?;
                }
                s => parts.push(s),
            }
        }
        Ok(ProjectPath(parts.join("/")))
    }

    /// `rel` relative to the folder holding this file (see [`ProjectPath::join`]).
    pub fn beside(&self, rel: &str) -> Result<ProjectPath, PathError> {
        self.parent().join(rel)
    }

    /// The folder holding this path (the root for a top-level name and for the root).
    pub fn parent(&self) -> ProjectPath {
        match self.0.rsplit_once('/') {
            Some((dir, _)) => ProjectPath(dir.to_string()),
            None => ProjectPath::root(),
        }
    }

    /// The last segment (`""` for the root).
    pub fn file_name(&self) -> &str {
        self.0.rsplit_once('/').map_or(self.0.as_str(), |(_, n)| n)
    }

    /// Whether this is `folder` or lies under it.
    pub fn starts_with(&self, folder: &ProjectPath) -> bool {
        folder.0.is_empty()
            || self.0 == folder.0
            || (self.0.starts_with(&folder.0)
                && self.0.as_bytes().get(folder.0.len()) == Some(&b'/'))
    }

    /// This path relative to `folder`, `/`-separated, when it lies under it.
    pub fn strip_prefix(&self, folder: &ProjectPath) -> Option<&str> {
        if !self.starts_with(folder) {
            return None;
        }
        Some(self.0[folder.0.len()..].trim_start_matches('/'))
    }

    /// The segments, root first.
    pub fn segments(&self) -> impl Iterator<Item = &str> {
        self.0.split('/').filter(|s| !s.is_empty())
    }

    /// The path text (`""` for the root).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ProjectPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_empty() { "." } else { &self.0 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> ProjectPath {
        ProjectPath::new(s).expect(s)
    }

    #[test]
    fn joins_normalize_and_refuse_escapes() {
        assert_eq!(p("./a//b/../c.skel").as_str(), "a/c.skel");
        assert_eq!(p("scenes").join("../graphs/x.bpg"), Ok(p("graphs/x.bpg")));
        assert_eq!(p("a/b.animseq").beside("rig.skel"), Ok(p("a/rig.skel")));
        assert_eq!(p("a/b.animseq").beside("../rig.skel"), Ok(p("rig.skel")));
        assert_eq!(
            p("scenes").join("../../etc/passwd"),
            Err(PathError::Escapes)
        );
        assert_eq!(
            p("scenes").join("/proc/self/environ"),
            Err(PathError::Absolute)
        );
        assert_eq!(ProjectPath::new(".."), Err(PathError::Escapes));
        assert_eq!(p("").join("a/../.."), Err(PathError::Escapes));
        assert_eq!(p("x").join(""), Ok(p("x")));
    }

    #[test]
    fn prefixes_match_whole_segments() {
        assert!(p("assets/a.animseq").starts_with(&p("assets")));
        assert!(!p("assets2/a.animseq").starts_with(&p("assets")));
        assert!(p("anything").starts_with(&ProjectPath::root()));
        assert_eq!(
            p("assets/sub/a.animseq").strip_prefix(&p("assets")),
            Some("sub/a.animseq")
        );
        assert_eq!(p("a/b").parent(), p("a"));
        assert_eq!(p("a").parent(), ProjectPath::root());
        assert_eq!(p("a/b.skel").file_name(), "b.skel");
        assert_eq!(ProjectPath::root().to_string(), ".");
    }
}
