//! Atomic file replacement: the one writer every command uses.
//!
//! Every file Sinew writes goes through [`stage`] + [`Staged::commit`] (or [`write_atomic`],
//! which is both): the bytes go to a temporary beside the file, are flushed to disk, then the
//! temporary is renamed over the file, so readers see either the old or the new content, never a
//! partial file. A rewrite keeps what the file was (see `docs/limits.md` and `docs/cli.md`):
//! * a **symlink** stays a symlink: the link's final target is rewritten, beside itself;
//! * the **mode** (permission bits) and the **owner and group** are kept; when the owner cannot
//!   be kept (another user's file) the file is not rewritten;
//! * a file with **more than one hard link** is not rewritten (a rename would split the links:
//!   the other names would keep the old content), nor a **read-only** file (no write bit), nor
//!   anything that is not a regular file;
//! * **temporaries** are named `.<file>.<32 hex digits>.sinew.tmp`; one left behind by a killed
//!   run is removed by the next write into its folder once it is [`STALE_AFTER`] old (a fresh
//!   one may belong to a concurrent run).

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Age after which a leftover temporary of a killed run is removed.
pub const STALE_AFTER: Duration = Duration::from_secs(10 * 60);

/// A file written beside its destination, not yet in place. Dropping it removes the temporary;
/// [`Staged::commit`] renames it over the destination.
#[derive(Debug)]
pub struct Staged {
    tmp: PathBuf,
    target: PathBuf,
    dir: PathBuf,
    committed: bool,
}

impl Staged {
    /// The file the temporary replaces (a symlink's final target).
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Renames the temporary over its destination and syncs the folder.
    pub fn commit(mut self) -> io::Result<()> {
        std::fs::rename(&self.tmp, &self.target)?;
        self.committed = true;
        // Make the rename itself durable where the platform allows syncing a directory.
        if let Ok(d) = std::fs::File::open(&self.dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Writes `bytes` to `path` atomically (see the module docs for what is kept and refused).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    stage(path, bytes)?.commit()
}

fn refuse(kind: io::ErrorKind, what: String) -> io::Error {
    io::Error::new(kind, what)
}

/// Writes `bytes` to a temporary beside `path`'s final target, with the target's mode and owner
/// when it exists, flushed to disk; nothing at `path` changes until [`Staged::commit`].
pub fn stage(path: &Path, bytes: &[u8]) -> io::Result<Staged> {
    let target = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path).map_err(|e| {
            refuse(
                e.kind(),
                format!("it is a symlink whose target cannot be resolved ({e})"),
            )
        })?,
        Ok(_) => path.to_path_buf(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => path.to_path_buf(),
        Err(e) => return Err(e),
    };
    let existing = match std::fs::metadata(&target) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    if let Some(m) = &existing {
        keepable(m)?;
    }
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .ok_or_else(|| refuse(io::ErrorKind::InvalidInput, "path has no file name".into()))?;
    sweep(&dir);
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    // A random part: concurrent writers (threads or processes) never share a temporary.
    tmp_name.push(format!(".{}{TMP_SUFFIX}", uuid::Uuid::new_v4().simple()));
    let staged = Staged {
        tmp: dir.join(tmp_name),
        target,
        dir,
        committed: false,
    };
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&staged.tmp)?;
    if let Some(m) = &existing {
        keep_owner_and_mode(&f, m, &staged.target)?;
    }
    f.write_all(bytes)?;
    f.sync_all()?;
    Ok(staged)
}

/// Refuses what a rename cannot keep: not a regular file, read-only, several hard links.
fn keepable(m: &std::fs::Metadata) -> io::Result<()> {
    if !m.is_file() {
        return Err(refuse(
            io::ErrorKind::InvalidInput,
            "it is not a regular file".into(),
        ));
    }
    if m.permissions().readonly() {
        return Err(refuse(
            io::ErrorKind::PermissionDenied,
            "it is read-only (no write permission); not rewritten".into(),
        ));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if m.nlink() > 1 {
            return Err(refuse(
                io::ErrorKind::InvalidInput,
                format!(
                    "it has {} hard links; rewriting it would split them (not rewritten)",
                    m.nlink()
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(unix)]
fn keep_owner_and_mode(f: &std::fs::File, m: &std::fs::Metadata, target: &Path) -> io::Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let mine = f.metadata()?;
    if (mine.uid(), mine.gid()) != (m.uid(), m.gid()) {
        std::os::unix::fs::fchown(f, Some(m.uid()), Some(m.gid())).map_err(|e| {
            refuse(
                e.kind(),
                format!(
                    "its owner (uid {}, gid {}) cannot be kept ({e}); not rewritten",
                    m.uid(),
                    m.gid()
                ),
            )
        })?;
    }
    // After chown (which may clear set-id bits); fchmod is not subject to the umask.
    f.set_permissions(std::fs::Permissions::from_mode(m.mode() & 0o7777))
        .map_err(|e| {
            refuse(
                e.kind(),
                format!("cannot keep the mode of {}: {e}", target.display()),
            )
        })
}

#[cfg(not(unix))]
fn keep_owner_and_mode(f: &std::fs::File, m: &std::fs::Metadata, _: &Path) -> io::Result<()> {
    f.set_permissions(m.permissions())
}

/// The end of every temporary's name.
const TMP_SUFFIX: &str = ".sinew.tmp";

/// Whether `name` is a temporary of [`stage`] (or of earlier versions: `.<file>.<hex>.tmp`).
fn is_temporary(name: &str) -> bool {
    let Some(rest) = name.strip_prefix('.') else {
        return false;
    };
    let rest = rest
        .strip_suffix(TMP_SUFFIX)
        .or_else(|| rest.strip_suffix(".tmp"));
    let Some((file, hex)) = rest.and_then(|r| r.rsplit_once('.')) else {
        return false;
    };
    !file.is_empty()
        && hex.len() == 32
        && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Removes temporaries older than [`STALE_AFTER`] from `dir`, once per folder per process.
fn sweep(dir: &Path) {
    use std::sync::Mutex;
    static SWEPT: Mutex<std::collections::BTreeSet<PathBuf>> =
        Mutex::new(std::collections::BTreeSet::new());
    let key = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let first = SWEPT.lock().is_ok_and(|mut swept| swept.insert(key));
    if !first {
        return;
    }
    sweep_now(dir, STALE_AFTER);
}

/// Removes regular files in `dir` named like a temporary and older than `age`.
fn sweep_now(dir: &Path, age: Duration) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let now = std::time::SystemTime::now();
    for ent in rd.flatten() {
        let name = ent.file_name();
        if !name.to_str().is_some_and(is_temporary) {
            continue;
        }
        let Ok(m) = ent.metadata() else { continue };
        let old = m
            .modified()
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|d| d >= age);
        if m.file_type().is_file() && old {
            let _ = std::fs::remove_file(ent.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .expect("dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn replaces_content_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("a.animseq");
        write_atomic(&p, b"one").expect("write");
        write_atomic(&p, b"two").expect("rewrite");
        assert_eq!(std::fs::read(&p).expect("read"), b"two");
        assert_eq!(names(dir.path()), ["a.animseq"]);
    }

    #[test]
    fn concurrent_writers_do_not_collide() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("a.animseq");
        std::thread::scope(|s| {
            for i in 0..8u8 {
                let p = &p;
                s.spawn(move || write_atomic(p, &[b'0' + i; 1000]).expect("write"));
            }
        });
        let content = std::fs::read(&p).expect("read");
        assert_eq!(content.len(), 1000);
        assert!(
            content.iter().all(|&b| b == content[0]),
            "one writer's bytes, whole"
        );
        assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 1);
    }

    #[test]
    fn missing_directory_is_an_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("nope").join("a.animseq");
        assert!(write_atomic(&p, b"x").is_err());
    }

    #[test]
    fn a_staged_file_changes_nothing_until_committed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("a.sbc");
        std::fs::write(&p, b"old").expect("write");
        let staged = stage(&p, b"new").expect("stage");
        assert_eq!(std::fs::read(&p).expect("read"), b"old");
        drop(staged);
        assert_eq!(names(dir.path()), ["a.sbc"], "dropped: temporary removed");
        stage(&p, b"new").expect("stage").commit().expect("commit");
        assert_eq!(std::fs::read(&p).expect("read"), b"new");
    }

    #[test]
    fn temporaries_are_recognized_exactly() {
        let hex = "0123456789abcdef0123456789abcdef";
        assert!(is_temporary(&format!(".a.bpg.{hex}.sinew.tmp")));
        assert!(
            is_temporary(&format!(".a.bpg.{hex}.tmp")),
            "older versions' names"
        );
        assert!(!is_temporary(&format!("a.bpg.{hex}.tmp")), "not hidden");
        assert!(!is_temporary(&format!(".{hex}.tmp")), "no file name");
        assert!(!is_temporary(".a.bpg.0123.tmp"));
        assert!(!is_temporary(&format!(".a.bpg.{}.tmp", hex.to_uppercase())));
        assert!(!is_temporary(".notes.tmp"));
    }

    #[test]
    fn stale_temporaries_are_swept_and_fresh_ones_kept() {
        let dir = tempfile::tempdir().expect("tempdir");
        let hex = "0123456789abcdef0123456789abcdef";
        let stale = dir.path().join(format!(".a.bpg.{hex}.sinew.tmp"));
        let other = dir.path().join(".notes.tmp");
        std::fs::write(&stale, b"half").expect("write");
        std::fs::write(&other, b"mine").expect("write");
        sweep_now(dir.path(), STALE_AFTER);
        assert!(stale.exists(), "fresh: may belong to a running writer");
        sweep_now(dir.path(), Duration::ZERO);
        assert!(!stale.exists(), "stale: removed");
        assert!(other.exists(), "not a temporary name: kept");
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_modes_and_hard_links_are_kept_or_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let real = dir.path().join("real.bpg");
        let link = dir.path().join("link.bpg");
        std::fs::write(&real, b"old").expect("write");
        std::os::unix::fs::symlink("real.bpg", &link).expect("symlink");
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        write_atomic(&link, b"new").expect("write through the link");
        assert!(
            std::fs::symlink_metadata(&link)
                .expect("meta")
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&real).expect("read"), b"new");
        let mode = std::fs::metadata(&real).expect("meta").permissions().mode() & 0o7777;
        assert_eq!(mode, 0o600);
        // Read-only: refused, untouched.
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o444)).expect("chmod");
        let e = write_atomic(&real, b"x").expect_err("read-only");
        assert!(e.to_string().contains("read-only"), "{e}");
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        // Hard links: refused, both names keep sharing the old content.
        let twin = dir.path().join("twin.bpg");
        std::fs::hard_link(&real, &twin).expect("link");
        let e = write_atomic(&real, b"y").expect_err("hard links");
        assert!(e.to_string().contains("2 hard links"), "{e}");
        assert_eq!(std::fs::read(&twin).expect("read"), b"new");
        // Not a regular file.
        let e = write_atomic(dir.path(), b"z").expect_err("a folder");
        assert!(e.to_string().contains("not a regular file"), "{e}");
        assert_eq!(
            names(dir.path()),
            ["link.bpg", "real.bpg", "twin.bpg"],
            "no temporary left behind"
        );
    }
}
