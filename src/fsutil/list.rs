//! The one listing of a single folder ([`list`]): the entries of one folder, not a walk (a
//! recursive walk is [`walk()`](super::walk())). Outside `fsutil`, nothing calls `read_dir`
//! (`tests/boundaries.rs`).

use std::ffi::OsString;
use std::fs::FileType;
use std::io;
use std::path::{Path, PathBuf};

/// One entry of a folder: its path (the folder joined with its name), its name as found, and
/// its type (symbolic links not followed).
#[derive(Clone, Debug)]
pub struct Entry {
    pub path: PathBuf,
    pub name: OsString,
    pub file_type: FileType,
}

/// The entries of folder `dir`, sorted by name; entries that vanish while listed are left out.
/// Bounded like a walk: more than [`MAX_ENTRIES`](super::walk::MAX_ENTRIES) entries is an
/// error, never a list without bound.
pub fn list(dir: &Path) -> io::Result<Vec<Entry>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir)? {
        let Ok(e) = e else { continue };
        let Ok(file_type) = e.file_type() else {
            continue;
        };
        if out.len() == super::walk::MAX_ENTRIES {
            return Err(io::Error::other(format!(
                "more than {} entries",
                super::walk::MAX_ENTRIES
            )));
        }
        out.push(Entry {
            path: e.path(),
            name: e.file_name(),
            file_type,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn lists_one_folder_sorted_without_recursing() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("b.txt"), b"b").expect("write");
        std::fs::create_dir(dir.path().join("a")).expect("mkdir");
        std::fs::write(dir.path().join("a/inner.txt"), b"i").expect("write");
        let names: Vec<_> = super::list(dir.path())
            .expect("list")
            .into_iter()
            .map(|e| (e.name.into_string().expect("utf-8"), e.file_type.is_dir()))
            .collect();
        assert_eq!(names, [("a".into(), true), ("b.txt".into(), false)]);
        assert!(super::list(&dir.path().join("missing")).is_err());
    }
}
