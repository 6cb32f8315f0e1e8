//! Filesystem helpers: the one bounded reader for inputs ([`read_input`], `read.rs`), atomic
//! file replacement ([`stage`] + [`Staged::commit`], or [`write_atomic`]: the one writer every
//! command uses, `write.rs`) and the one folder walker ([`walk()`], `walk.rs`: one rule for
//! symbolic links, loops, names that are not UTF-8, depth and order, for every walk) and the one
//! listing of a single folder ([`list()`], `list.rs`).

mod list;
mod read;
pub mod walk;
mod write;

pub use list::{Entry, list};
pub use read::{InputError, InputKind, read_input};
pub use walk::{Policy, walk, walk_in};
pub use write::{STALE_AFTER, Staged, stage, write_atomic};
