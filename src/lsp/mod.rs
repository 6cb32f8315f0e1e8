//! `sinew lsp`: a language server for `.bpg` graphs over standard input and output (contract:
//! `lsp.md`, setup: `docs/editors.md`). Built on `lsp-server`'s messages and `lsp-types`, and on
//! the library's own pieces — the compiler's diagnostics, the node table and palette, the
//! catalog, `fmt` — never a second parser or checker.
//!
//! `transport` frames JSON-RPC (bounded), `server` is the protocol loop and the project state,
//! `document` the store of open buffers and their analysis, `position` the one byte ↔ UTF-16
//! conversion, `features` the requests (completion, hover, navigation, edits).

mod document;
mod features;
mod position;
mod project;
mod server;
mod transport;

pub use position::LineIndex;
pub use server::run;
