//! The application layer: the services every front end (`cli`, `studio`, `lsp`, `bevy`) calls,
//! so the front ends only parse requests and render. Beside [`workspace`](crate::workspace) (the
//! checked state of a project), it holds:
//!
//! - [`watch`]: the one file watcher (debounced batches, folders re-armed when they vanish and
//!   return), driven by what loads recorded they read ([`watch::scene_dependencies`]); `sinew
//!   watch`, `sinew run --watch` and the studio use it;
//! - [`import`]: the import session (identities planned and reconciled, files written
//!   atomically, stale ones removed) `sinew import` renders;
//! - [`documents`]: the JSON documents the front ends serve and print (catalog, palette,
//!   diagnostics);
//! - [`run`]: the bounds of a headless run (`MAX_DT`, `MAX_TICKS`) and the one run loop `sinew
//!   run` and the studio's `/api/run` share;
//! - [`Ctx`]: how a front end displays paths and whether it colours.
//!
//! Names no front end (`cli`, `studio`, `lsp`, `bevy`): `tests/boundaries.rs`.

pub mod documents;
pub mod import;
pub mod run;
#[cfg(feature = "cli")]
pub mod watch;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// Process-wide output settings.
pub struct Ctx {
    /// Colour only on a terminal and never with `NO_COLOR`.
    pub color: bool,
    /// Display paths are relative to this folder when under it.
    pub cwd: Option<PathBuf>,
}

impl Ctx {
    pub fn from_env() -> Ctx {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Ctx {
            color: !no_color && std::io::stdout().is_terminal(),
            cwd: std::env::current_dir().ok(),
        }
    }
    /// The display form of a path (relative to the current folder, `/`-separated).
    pub fn display(&self, p: &Path) -> String {
        let abs;
        let p = if p.is_absolute() {
            p
        } else if let Some(c) = &self.cwd {
            abs = c.join(p);
            abs.as_path()
        } else {
            p
        };
        crate::catalog::display_path(p, self.cwd.as_deref())
    }
}
