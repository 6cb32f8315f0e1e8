//! The file-system [`Source`]: the CLI's, and an embedder's that loads a project from disk.

use std::path::{Component, Path, PathBuf};

use super::{Layout, LoadError, LoadedScene, ProjectPath, ReadError, Source};
use crate::catalog::scan::LiveCatalog;
use crate::catalog::{Catalog, display_path};
use crate::fsutil::{InputKind, read_input};

/// Files under one root folder, read through [`read_input`] (regular files only, bounded per
/// kind). A file's real location (symbolic links resolved) must lie inside the project folder,
/// the scene's folder or the assets folder it was opened with; otherwise it is not read
/// ([`ReadError::Outside`]).
#[derive(Debug, Clone)]
pub struct FsSource {
    /// The folder [`ProjectPath`]s are relative to.
    root: PathBuf,
    /// Display names are relative to this folder when under it (the current folder).
    display_base: Option<PathBuf>,
    /// Canonical folders a file's real path may lie in.
    trusted: Vec<PathBuf>,
}

/// `p` made absolute against `cwd` (when known) with `.` and `name/..` removed lexically.
fn lexical(cwd: Option<&Path>, p: &Path) -> PathBuf {
    let joined = match cwd {
        Some(c) if !p.is_absolute() => c.join(p),
        _ => p.to_path_buf(),
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            c => out.push(c.as_os_str()),
        }
    }
    out
}

/// The deepest folder holding every path of `paths`.
fn common_ancestor(paths: &[&Path]) -> PathBuf {
    let mut out = PathBuf::new();
    let Some((first, rest)) = paths.split_first() else {
        return out;
    };
    for (i, c) in first.components().enumerate() {
        if rest.iter().all(|p| p.components().nth(i) == Some(c)) {
            out.push(c.as_os_str());
        } else {
            break;
        }
    }
    out
}

/// `p` (under `root`) as a [`ProjectPath`]; `None` when it is not under it or not UTF-8.
fn relative(root: &Path, p: &Path) -> Option<ProjectPath> {
    let rel = p.strip_prefix(root).ok()?;
    let mut parts = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(s) => parts.push(s.to_str()?),
            _ => return None,
        }
    }
    ProjectPath::new(&parts.join("/")).ok()
}

impl FsSource {
    /// A source for running `scene` with assets folder `assets` (both as given on a command
    /// line, relative to `project` when relative) and the project folder `project` (the
    /// current folder; `None` when unknown): the root is the deepest folder holding the
    /// project folder, the scene's folder and the assets folder (normally the project folder
    /// itself), and the layout names the three inside it. Fails when the paths cannot be
    /// placed under one root (relative paths climbing out of an unknown current folder).
    pub fn open(
        project: Option<&Path>,
        scene: &Path,
        assets: &Path,
    ) -> Result<(FsSource, Layout), ReadError> {
        let scene_abs = lexical(project, scene);
        let scene_dir = scene_abs
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let assets_abs = lexical(project, assets);
        let project_abs = project.map(|p| lexical(None, p));
        let mut folders: Vec<&Path> = vec![&scene_dir, &assets_abs];
        folders.extend(project_abs.as_deref());
        let root = common_ancestor(&folders);
        let place = |p: &Path| {
            relative(&root, p).ok_or_else(|| {
                ReadError::from(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!(
                        "{} cannot be placed in the project (its path climbs out of an unknown \
                         current folder, or is not UTF-8)",
                        p.display()
                    ),
                ))
            })
        };
        let layout = Layout {
            scene: place(&scene_abs)?,
            assets: place(&assets_abs)?,
            project: match &project_abs {
                Some(p) => place(p)?,
                None => ProjectPath::root(),
            },
        };
        let mut trusted: Vec<PathBuf> = Vec::new();
        let real_scene_dir = scene_abs
            .canonicalize()
            .ok()
            .and_then(|s| s.parent().map(Path::to_path_buf));
        for t in [
            project_abs.as_ref().and_then(|p| p.canonicalize().ok()),
            real_scene_dir,
            scene_dir.canonicalize().ok(),
            assets_abs.canonicalize().ok(),
        ]
        .into_iter()
        .flatten()
        {
            if !trusted.contains(&t) {
                trusted.push(t);
            }
        }
        Ok((
            FsSource {
                root,
                display_base: project.map(Path::to_path_buf),
                trusted,
            },
            layout,
        ))
    }

    /// A source for writing generated files into the assets folder `assets` (as given,
    /// relative to `project` when relative): only the project folder and the assets folder are
    /// trusted (see [`FsSource::confine`]).
    pub fn for_assets(project: Option<&Path>, assets: &Path) -> FsSource {
        let assets_abs = lexical(project, assets);
        let project_abs = project.map(|p| lexical(None, p));
        let mut folders: Vec<&Path> = vec![&assets_abs];
        folders.extend(project_abs.as_deref());
        let root = common_ancestor(&folders);
        let mut trusted: Vec<PathBuf> = Vec::new();
        for t in [
            project_abs.as_ref().and_then(|p| p.canonicalize().ok()),
            assets_abs.canonicalize().ok(),
        ]
        .into_iter()
        .flatten()
        {
            if !trusted.contains(&t) {
                trusted.push(t);
            }
        }
        FsSource {
            root,
            display_base: project.map(Path::to_path_buf),
            trusted,
        }
    }

    /// The real location of the existing file or folder `p` (symbolic links resolved), when it
    /// lies inside a folder this source trusts; [`ReadError::Outside`] otherwise. The one check
    /// behind every read of [`Source::read`] and every write of `sinew import`.
    pub fn confine(&self, p: &Path) -> Result<PathBuf, ReadError> {
        let real = p.canonicalize()?;
        if self.trusted.iter().any(|t| real.starts_with(t)) {
            Ok(real)
        } else {
            Err(ReadError::Outside)
        }
    }

    /// The file-system path of `p`.
    pub fn path(&self, p: &ProjectPath) -> PathBuf {
        if p.as_str().is_empty() {
            self.root.clone()
        } else {
            self.root.join(p.as_str())
        }
    }

    /// `p` under the root as a [`ProjectPath`] (for files found by walking a folder).
    pub fn project_path(&self, p: &Path) -> Option<ProjectPath> {
        relative(&self.root, &lexical(self.display_base.as_deref(), p))
    }

    /// The names of the entries of folder `dir` whose type (symbolic links not followed)
    /// passes `keep`, sorted; empty when the folder is outside the project or unreadable.
    fn entries(&self, dir: &ProjectPath, keep: fn(&std::fs::FileType) -> bool) -> Vec<String> {
        let Ok(real) = self.real(dir) else {
            return Vec::new();
        };
        // `fsutil::list` sorts by name, so the names stay sorted.
        crate::fsutil::list(&real)
            .into_iter()
            .flatten()
            .filter(|e| keep(&e.file_type))
            .filter_map(|e| e.name.into_string().ok())
            .collect()
    }

    /// The real path of `p`, when it lies inside a trusted folder.
    fn real(&self, p: &ProjectPath) -> Result<PathBuf, ReadError> {
        self.confine(&self.path(p))
    }
}

impl Source for FsSource {
    fn read(&self, path: &ProjectPath, kind: InputKind) -> Result<Vec<u8>, ReadError> {
        let real = self.real(path)?;
        Ok(read_input(&real, kind)?)
    }

    fn list(&self, dir: &ProjectPath) -> Vec<String> {
        self.entries(dir, std::fs::FileType::is_file)
    }

    fn folders(&self, dir: &ProjectPath) -> Vec<String> {
        self.entries(dir, std::fs::FileType::is_dir)
    }

    fn display(&self, path: &ProjectPath) -> String {
        display_path(&self.path(path), self.display_base.as_deref())
    }

    fn catalog(&self, assets: &ProjectPath) -> Result<Catalog, ReadError> {
        Ok(
            LiveCatalog::scan(&self.path(assets), self.display_base.as_deref(), None)?
                .into_catalog(),
        )
    }
}

/// Loads scene file `scene` with assets folder `assets` from the file system, the current
/// folder being the project folder: [`FsSource::open`], then [`super::load`].
pub fn load_files(scene: &Path, assets: &Path) -> Result<LoadedScene, LoadError> {
    let cwd = std::env::current_dir().ok();
    let (source, layout) =
        FsSource::open(cwd.as_deref(), scene, assets).map_err(|error| LoadError::Scene {
            name: display_path(scene, cwd.as_deref()),
            error,
        })?;
    super::load(&source, &layout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_holds_project_scene_and_assets() {
        let cwd = Path::new("/p/proj");
        let (s, l) = FsSource::open(
            Some(cwd),
            Path::new("scenes/./a.scene.ron"),
            Path::new("assets"),
        )
        .expect("open");
        assert_eq!(s.root, cwd);
        assert_eq!(
            (l.scene.as_str(), l.assets.as_str(), l.project.as_str()),
            ("scenes/a.scene.ron", "assets", "")
        );
        let (s, l) = FsSource::open(
            Some(cwd),
            Path::new("../other/s.scene.ron"),
            Path::new("/p/proj/assets"),
        )
        .expect("open");
        assert_eq!(s.root, Path::new("/p"));
        assert_eq!(
            (l.scene.as_str(), l.assets.as_str(), l.project.as_str()),
            ("other/s.scene.ron", "proj/assets", "proj")
        );
        assert_eq!(s.display(&l.scene), "/p/other/s.scene.ron");
        assert_eq!(s.display(&l.assets), "assets");
    }
}
