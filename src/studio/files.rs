//! Files the page creates: "New graph" and "Save as" in folders that do not exist yet.
//!
//! `PUT /api/graph?path=P` with `"base": null` creates `P`, and with it every missing folder of
//! `P` — inside `--graphs` only. What exists of the path is checked as every path is (plain,
//! relative, symbolic links followed and required to stay inside the folder; a dangling link
//! is refused), and each folder is made one level at a time with `create_dir` (never
//! `create_dir_all`), checked again after it is made, so neither a `..`, nor a link that leads
//! out, nor a link swapped in while folders are being made can put a file outside the folder.
//! Nothing is created unless the write is going to happen (the version check passed).

use super::Folder;
use super::security::{BadPath, plain_relative};
use std::path::{Path, PathBuf};

/// A graph path resolved for writing: the file, and the folders to make first (outermost
/// first; empty when its folder exists).
#[derive(Debug)]
pub struct NewPath {
    pub file: PathBuf,
    pub missing: Vec<PathBuf>,
}

/// Most folder levels a new graph's path may add at once.
pub const MAX_NEW_FOLDERS: usize = 32;

/// Resolves `rel` inside `folder` for a write that may create its missing folders.
pub fn resolve_new(folder: &Folder, rel: &str) -> Result<NewPath, BadPath> {
    let relp = plain_relative(rel)?;
    let file = folder.root.join(&relp);
    let parent_exists = file.parent().is_some_and(|p| p.symlink_metadata().is_ok());
    if parent_exists {
        // The usual rule (`security::resolve`) for a path whose folder exists.
        let file = folder.resolve(rel)?;
        if file.parent().is_some_and(|p| !p.is_dir()) {
            return Err(BadPath(format!("the folder of `{rel}` is a file")));
        }
        return Ok(NewPath {
            file,
            missing: Vec::new(),
        });
    }
    let outside = || BadPath(format!("path `{rel}` leads out of its folder"));
    // The deepest ancestor that exists (as anything, a link included) must lead inside.
    let mut missing = Vec::new();
    let mut at: &Path = file.parent().unwrap_or(&folder.root);
    while at.symlink_metadata().is_err() {
        if !at.starts_with(&folder.root) || at == folder.root {
            return Err(outside());
        }
        missing.push(at.to_path_buf());
        at = at.parent().ok_or_else(outside)?;
    }
    let Ok(real) = at.canonicalize() else {
        return Err(outside()); // a dangling link: where it leads is unknown
    };
    if !real.starts_with(&folder.canonical) || !real.is_dir() {
        return Err(if real.starts_with(&folder.canonical) {
            BadPath(format!("`{}` is not a folder", folder.name_of(at)))
        } else {
            outside()
        });
    }
    if missing.len() > MAX_NEW_FOLDERS {
        return Err(BadPath(format!(
            "path `{rel}` would create {} folders; at most {MAX_NEW_FOLDERS} at once",
            missing.len()
        )));
    }
    missing.reverse();
    Ok(NewPath { file, missing })
}

/// Makes the missing folders, outermost first, each checked to be inside the folder once made.
pub fn make_folders(folder: &Folder, new: &NewPath) -> Result<(), String> {
    for dir in &new.missing {
        match std::fs::create_dir(dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(format!("cannot create folder {}: {e}", folder.name_of(dir))),
        }
        let inside = dir
            .canonicalize()
            .is_ok_and(|c| c.starts_with(&folder.canonical) && c.is_dir());
        if !inside {
            return Err(format!(
                "folder {} leads out of the graphs folder",
                folder.name_of(dir)
            ));
        }
    }
    Ok(())
}
