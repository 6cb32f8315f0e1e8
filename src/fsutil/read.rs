//! The one bounded reader for inputs ([`read_input`]).

use std::io::{self, Read};
use std::path::Path;

/// What an input file is: picks its size limit (`docs/limits.md`) and names it in errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum InputKind {
    /// A `.scene.ron` scene.
    Scene,
    /// A `.bpg` graph.
    Graph,
    /// An `.animseq` clip.
    Clip,
    /// A `.skel` skeleton.
    Skeleton,
    /// An `.animsm` state machine.
    StateMachine,
    /// An `.sbc` bytecode module.
    Module,
    /// A model for `sinew import` (`.gltf`, `.glb`, `.fbx`) or an external buffer it names.
    Model,
    /// A model's `.meta` sidecar.
    Sidecar,
    /// A generated `manifest.ron`.
    Manifest,
    /// A file of the studio's page read from `SINEW_STUDIO_DIST` (working on the page).
    Page,
}

const MIB: u64 = 1024 * 1024;

impl InputKind {
    /// Every kind, in declaration order.
    pub const ALL: [InputKind; 10] = [
        InputKind::Scene,
        InputKind::Graph,
        InputKind::Clip,
        InputKind::Skeleton,
        InputKind::StateMachine,
        InputKind::Module,
        InputKind::Model,
        InputKind::Sidecar,
        InputKind::Manifest,
        InputKind::Page,
    ];

    /// The largest file of this kind Sinew reads, in bytes.
    pub const fn limit(self) -> u64 {
        match self {
            InputKind::Scene => 64 * MIB,
            InputKind::Graph => 16 * MIB,
            InputKind::Clip => 256 * MIB,
            InputKind::Skeleton => 16 * MIB,
            InputKind::StateMachine => 16 * MIB,
            InputKind::Module => 64 * MIB,
            InputKind::Model => 512 * MIB,
            InputKind::Sidecar => 64 * 1024,
            InputKind::Manifest => 16 * MIB,
            InputKind::Page => 16 * MIB,
        }
    }

    /// The kind's name in messages (`scene`, `graph`, …).
    pub const fn noun(self) -> &'static str {
        match self {
            InputKind::Scene => "scene",
            InputKind::Graph => "graph",
            InputKind::Clip => "clip",
            InputKind::Skeleton => "skeleton",
            InputKind::StateMachine => "state machine",
            InputKind::Module => "module",
            InputKind::Model => "model",
            InputKind::Sidecar => "sidecar",
            InputKind::Manifest => "manifest",
            InputKind::Page => "page",
        }
    }
}

/// Why [`read_input`] refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The operating system's error (missing file, permissions, …), printed as it prints it.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The path names a folder, FIFO, socket or device: never opened, so never a block.
    #[error("not a regular file ({0})")]
    NotAFile(&'static str),
    /// The file is larger than its kind's limit; nothing beyond the limit was read.
    #[error(
        "file is {size} bytes; {noun} files are limited to {}",
        binary_size(*limit),
        noun = kind.noun()
    )]
    TooLarge {
        /// Its size (as far as it was read: at least `limit + 1`).
        size: u64,
        /// The limit of its kind.
        limit: u64,
        /// Its kind.
        kind: InputKind,
    },
}

impl InputError {
    /// Whether the file does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, InputError::Io(e) if e.kind() == io::ErrorKind::NotFound)
    }
}

/// A limit as people write it: `16 MiB`, `64 KiB` (whole units), else bytes.
fn binary_size(bytes: u64) -> String {
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= 1024 && bytes.is_multiple_of(1024) {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} bytes")
    }
}

/// What a non-regular file is, for [`InputError::NotAFile`].
fn describe(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    if t.is_dir() { "a folder" } else { "not a file" }
}

/// Reads a whole input file of `kind`, the one bounded reader for every input Sinew loads:
/// only regular files (symbolic links followed), checked before opening, so a FIFO or device
/// is an error, never a block; at most `kind.limit()` bytes are read (a file that grows past
/// the limit while being read is refused too), so memory stays bounded by the limit.
pub fn read_input(path: &Path, kind: InputKind) -> Result<Vec<u8>, InputError> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(InputError::NotAFile(describe(meta.file_type())));
    }
    let limit = kind.limit();
    if meta.len() > limit {
        return Err(InputError::TooLarge {
            size: meta.len(),
            limit,
            kind,
        });
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        // Swapped for a FIFO after the check above, the open still returns at once.
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let f = options.open(path)?;
    let meta = f.metadata()?;
    if !meta.is_file() {
        return Err(InputError::NotAFile(describe(meta.file_type())));
    }
    let mut buf = Vec::with_capacity(meta.len().min(limit) as usize);
    f.take(limit + 1).read_to_end(&mut buf)?;
    if buf.len() as u64 > limit {
        return Err(InputError::TooLarge {
            size: buf.len() as u64,
            limit,
            kind,
        });
    }
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_input_reads_regular_files_whole() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("a.bpg");
        std::fs::write(&p, b"graph a\n").expect("write");
        assert_eq!(
            read_input(&p, InputKind::Graph).expect("read"),
            b"graph a\n"
        );
        let e = read_input(&dir.path().join("nope.bpg"), InputKind::Graph).unwrap_err();
        assert!(e.is_not_found(), "{e}");
        let e = read_input(dir.path(), InputKind::Graph).unwrap_err();
        assert_eq!(e.to_string(), "not a regular file (a folder)");
    }

    #[cfg(unix)]
    #[test]
    fn read_input_refuses_fifos_and_devices_without_blocking() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("pipe.bpg");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).expect("path");
        // SAFETY: `c` is a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read_input(&fifo, InputKind::Graph).unwrap_err();
        assert_eq!(e.to_string(), "not a regular file (a FIFO)");
        let e = read_input(Path::new("/dev/zero"), InputKind::Module).unwrap_err();
        assert_eq!(e.to_string(), "not a regular file (a device)");
    }

    #[test]
    fn read_input_stops_at_the_kind_limit() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("big.bpg");
        let limit = InputKind::Graph.limit();
        let f = std::fs::File::create(&p).expect("create");
        f.set_len(limit).expect("sparse file at the limit");
        assert_eq!(
            read_input(&p, InputKind::Graph)
                .expect("at the limit")
                .len() as u64,
            limit
        );
        f.set_len(limit + 1).expect("one byte more");
        let e = read_input(&p, InputKind::Graph).unwrap_err();
        assert!(
            matches!(e, InputError::TooLarge { size, .. } if size == limit + 1),
            "{e}"
        );
        assert_eq!(
            e.to_string(),
            format!(
                "file is {} bytes; graph files are limited to 16 MiB",
                limit + 1
            )
        );
        // The same file is within the clip limit.
        assert!(read_input(&p, InputKind::Clip).is_ok());
    }

    #[test]
    fn limits_are_named_in_whole_units() {
        assert_eq!(binary_size(InputKind::Graph.limit()), "16 MiB");
        assert_eq!(binary_size(InputKind::Sidecar.limit()), "64 KiB");
        assert_eq!(binary_size(1000), "1000 bytes");
    }
}
