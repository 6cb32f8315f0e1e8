//! Sinew: connects authored animation (`.animseq`) to gameplay logic (`.bpg` node graphs).
//!
//! See `docs/ARCHITECTURE.md` for the code map and the invariants each module keeps.

pub mod crossing;
pub mod diag;
