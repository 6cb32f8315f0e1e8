//! Stable diagnostic codes of the graph compiler's semantic passes (declared in the
//! [`diag::codes`](crate::diag::codes) table, listed in `docs/diagnostics.md`).

pub use crate::diag::codes::compile::*;
