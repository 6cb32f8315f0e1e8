//! Filesystem helpers: the one bounded reader for inputs ([`read_input`], `read.rs`) and atomic
//! file replacement ([`stage`] + [`Staged::commit`], or [`write_atomic`]: the one writer every
//! command uses, `write.rs`).

mod read;
mod write;

pub use read::{InputError, InputKind, read_input};
pub use write::{STALE_AFTER, Staged, stage, write_atomic};
