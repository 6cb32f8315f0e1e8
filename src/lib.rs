//! Sinew: connects authored animation (`.animseq`) to gameplay logic (`.bpg` node graphs).
//!
//! See `docs/ARCHITECTURE.md` for the code map and the invariants each module keeps.

pub mod anim;
pub mod animseq;
pub mod app;
#[cfg(feature = "bevy")]
pub mod bevy;
pub mod bytecode;
pub mod catalog;
#[cfg(feature = "cli")]
pub mod cli;
pub(crate) mod commands;
pub mod compile;
pub mod crossing;
pub mod diag;
pub mod escape;
pub mod fsutil;
pub mod graph;
pub mod import;
#[cfg(feature = "cli")]
pub mod lsp;
pub mod nodes;
pub mod number;
pub mod palette;
pub mod picture;
pub mod project;
pub mod reload;
pub mod ron_span;
pub mod runtime;
pub mod scene;
#[cfg(feature = "cli")]
pub mod studio;
pub mod suggest;
pub mod types;
pub mod vm;
pub mod workspace;

/// The opening snippets of `docs/bevy.md` ("Receive a footstep in your system", "Expose a game
/// function to graphs"), compiled as doctests so the page cannot drift from the API.
#[cfg(all(doctest, feature = "bevy"))]
#[doc = include_str!("../docs/bevy.md")]
pub struct BevyDocSnippets;
