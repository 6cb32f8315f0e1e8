//! The in-memory [`Source`]: a project as a map of paths to bytes (tests, tools, fuzzing).

use std::collections::BTreeMap;

use super::{InputError, InputKind, PathError, ProjectPath, ReadError, Source};
use crate::catalog::{Catalog, FileEntry};

/// A project held in memory: files by [`ProjectPath`]. Reads obey the same size limits as
/// the file system's; display names are the paths themselves.
#[derive(Debug, Clone, Default)]
pub struct MemSource {
    files: BTreeMap<ProjectPath, Vec<u8>>,
}

impl MemSource {
    /// An empty project.
    pub fn new() -> MemSource {
        MemSource::default()
    }

    /// A project of `(path, content)` files; a path that is absolute or climbs out is refused.
    pub fn from_files<P: AsRef<str>, B: Into<Vec<u8>>>(
        files: impl IntoIterator<Item = (P, B)>,
    ) -> Result<MemSource, PathError> {
        let mut m = MemSource::new();
        for (p, b) in files {
            m.insert(ProjectPath::new(p.as_ref())?, b);
        }
        Ok(m)
    }

    /// Adds or replaces the file at `path`.
    pub fn insert(&mut self, path: ProjectPath, bytes: impl Into<Vec<u8>>) {
        self.files.insert(path, bytes.into());
    }

    /// Removes the file at `path`.
    pub fn remove(&mut self, path: &ProjectPath) -> Option<Vec<u8>> {
        self.files.remove(path)
    }
}

impl Source for MemSource {
    fn read(&self, path: &ProjectPath, kind: InputKind) -> Result<Vec<u8>, ReadError> {
        let bytes = self.files.get(path).ok_or_else(|| {
            InputError::Io(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "no such file in the project",
            ))
        })?;
        if bytes.len() as u64 > kind.limit() {
            return Err(InputError::TooLarge {
                size: bytes.len() as u64,
                limit: kind.limit(),
                kind,
            }
            .into());
        }
        Ok(bytes.clone())
    }

    fn list(&self, dir: &ProjectPath) -> Vec<String> {
        self.files
            .keys()
            .filter(|p| p.parent() == *dir && !p.as_str().is_empty())
            .map(|p| p.file_name().to_string())
            .collect()
    }

    fn folders(&self, dir: &ProjectPath) -> Vec<String> {
        let names: std::collections::BTreeSet<String> = self
            .files
            .keys()
            .filter(|p| p.starts_with(dir) && p.parent() != *dir)
            .filter_map(|p| p.strip_prefix(dir)?.split('/').next().map(str::to_string))
            .collect();
        names.into_iter().collect()
    }

    fn display(&self, path: &ProjectPath) -> String {
        path.to_string()
    }

    /// Every `.animseq` and `*.nodes.ron` under `assets` (none: an empty catalog).
    fn catalog(&self, assets: &ProjectPath) -> Result<Catalog, ReadError> {
        Ok(Catalog::from_entries(
            self.files
                .iter()
                .filter(|(p, _)| {
                    p.starts_with(assets)
                        && (p.as_str().ends_with(".animseq")
                            || crate::nodes::game::is_nodes_file(p.as_str()))
                })
                .map(|(p, b)| FileEntry::from_bytes(&self.display(p), b)),
        ))
    }
}
