//! The project a server serves: its folder (the workspace folder or `rootUri`), its assets
//! folder (`assets/`, or the `assets` initialization option) and the catalog scanned from it,
//! refreshed from changed paths as `sinew watch` refreshes it; and the file URIs the editor
//! names documents by.

use crate::catalog::Catalog;
use crate::catalog::scan::LiveCatalog;
use lsp_types::Uri;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The project's folders and catalog.
pub struct Project {
    /// The folder display names are relative to (as `sinew check` run there names them).
    pub root: Option<PathBuf>,
    pub assets: PathBuf,
    live: Option<LiveCatalog>,
    /// A catalog without files, while the assets folder cannot be read.
    empty: Catalog,
    /// Why the assets folder could not be scanned (shown once to the user).
    pub error: Option<String>,
    /// The palette's kinds in its order ([`crate::palette::kinds`]), kept with the catalog:
    /// completion filters these strings and builds only the entries it answers.
    kinds: Vec<Box<str>>,
}

impl Project {
    /// A project rooted at `root` (none: the current folder) with `assets` (relative to the
    /// root) as its assets folder; not scanned yet.
    pub fn new(root: Option<PathBuf>, assets: Option<PathBuf>) -> Project {
        let base = root.clone().unwrap_or_else(|| PathBuf::from("."));
        let assets = match assets {
            Some(a) if a.is_absolute() => a,
            Some(a) => base.join(a),
            None => base.join("assets"),
        };
        Project {
            root,
            assets,
            live: None,
            empty: Catalog::default(),
            error: None,
            kinds: Vec::new(),
        }
    }

    /// The palette's kinds, in its order.
    pub fn kinds(&self) -> &[Box<str>] {
        &self.kinds
    }

    fn rebuild_kinds(&mut self) {
        self.kinds = crate::palette::kinds(self.catalog())
            .map(|k| k.kind().into())
            .collect();
    }

    /// Scans the assets folder (again, whole).
    pub fn scan(&mut self) {
        match LiveCatalog::scan(&self.assets, self.root.as_deref(), None) {
            Ok(l) => {
                self.live = Some(l);
                self.error = None;
            }
            Err(e) => {
                self.live = None;
                self.error = Some(format!(
                    "cannot read the assets folder {}: {e}",
                    self.assets.display()
                ));
            }
        }
        self.rebuild_kinds();
    }

    /// Brings the catalog up to date after `changed` paths changed (as `sinew watch` does):
    /// incrementally when the assets folder was scanned, else by scanning it again (it may have
    /// appeared). Returns whether the catalog's events or diagnostics changed.
    pub fn refresh(&mut self, changed: &[PathBuf]) -> bool {
        let changed: Vec<PathBuf> = changed
            .iter()
            .filter(|p| self.concerns(p))
            .cloned()
            .collect();
        if changed.is_empty() {
            return false;
        }
        let changed = match &mut self.live {
            Some(l) if self.assets.is_dir() => {
                let before = l.catalog().diagnostics();
                let delta = l.refresh(&changed);
                !delta.is_empty() || l.catalog().diagnostics() != before
            }
            _ => {
                let had = self.live.is_some();
                self.scan();
                had || self.live.is_some()
            }
        };
        if changed {
            self.rebuild_kinds();
        }
        changed
    }

    /// Whether `p` lies in the assets folder.
    pub fn concerns(&self, p: &Path) -> bool {
        let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
        let assets = canon(&self.assets);
        p.starts_with(&self.assets)
            || p.starts_with(&assets)
            || p.parent().is_some_and(|d| canon(d).starts_with(&assets))
    }

    /// The catalog graphs are checked against.
    pub fn catalog(&self) -> &Catalog {
        self.live.as_ref().map_or(&self.empty, LiveCatalog::catalog)
    }

    /// How diagnostics name the file at `path` (relative to the root, as `sinew check FILE`
    /// run in the project folder names it).
    pub fn display(&self, path: &Path) -> String {
        crate::catalog::display_path(path, self.root.as_deref())
    }

    /// The path of a file display name (relative to the root).
    pub fn path_of(&self, display: &str) -> PathBuf {
        let p = PathBuf::from(display);
        match &self.root {
            Some(r) if p.is_relative() => r.join(p),
            _ => p,
        }
    }
}

/// The file path of a `file:` URI (percent-decoded), or `None` for another scheme.
pub fn uri_path(uri: &Uri) -> Option<PathBuf> {
    let s = uri.as_str();
    let rest = s.strip_prefix("file://")?;
    // `file:///p` (empty authority) or `file://localhost/p`.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h)? * 16 + hex(l)?) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    let text = String::from_utf8(out).ok()?;
    Some(PathBuf::from(text))
}

/// The `file:` URI of an absolute path (every byte but unreserved ones and `/` escaped).
pub fn path_uri(path: &Path) -> Option<Uri> {
    let text = path.to_str()?;
    let mut s = String::from("file://");
    if !text.starts_with('/') {
        s.push('/');
    }
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                s.push(b as char)
            }
            _ => s.push_str(&format!("%{b:02X}")),
        }
    }
    Uri::from_str(&s).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_round_trip_with_escapes() {
        let p = Path::new("/tmp/héros dir/a#b.bpg");
        let u = path_uri(p).unwrap();
        assert_eq!(u.as_str(), "file:///tmp/h%C3%A9ros%20dir/a%23b.bpg");
        assert_eq!(uri_path(&u).unwrap(), p);
        let other = Uri::from_str("untitled:Untitled-1").unwrap();
        assert_eq!(uri_path(&other), None);
    }
}
