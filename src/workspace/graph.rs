//! One graph file as the workspace reads and checks it: the one read path (the bounded reader at
//! the graph kind's limit), the one version (SHA-256 of the bytes), the one diagnostic of a file
//! that cannot be read. `sinew check`, `build`, `watch` and the studio all go through here, so
//! they agree on every file.

use std::path::Path;

use sha2::{Digest, Sha256};

use super::files::Found;
use crate::catalog::scan::E_UNREADABLE;
use crate::compile::EventCatalog;
use crate::compile::{self, Compiled};
use crate::diag::{self, Diagnostic, SourceFile};
use crate::fsutil::{InputError, InputKind, read_input};

/// The version of a file's bytes: lowercase hexadecimal SHA-256 (the studio's `version`).
pub fn version_of(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let d = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in d {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Reads a graph file: regular files only, at most [`InputKind::Graph`]'s limit
/// (`docs/limits.md`). The workspace reads every graph through this, and the studio every graph
/// it serves or saves over.
pub fn read_graph(path: &Path) -> Result<Vec<u8>, InputError> {
    read_input(path, InputKind::Graph)
}

/// The diagnostic of a file named `name` that cannot be read (`E0001`): what `sinew check`
/// reports and what the studio answers.
pub fn unreadable(name: &str, e: &InputError) -> Diagnostic {
    Diagnostic::error(E_UNREADABLE, format!("cannot read file: {e}")).in_file(name)
}

/// One checked graph.
#[derive(Debug)]
pub struct GraphState {
    /// Where it was found and where its module goes.
    pub file: Found,
    /// Its text under its display name (empty when unreadable; lossy when not UTF-8).
    pub source: SourceFile,
    /// The compiler's result (`None` when the file cannot be read or is not UTF-8).
    pub compiled: Option<Compiled>,
    /// Read and UTF-8 failures, else the compiler's diagnostics.
    pub diagnostics: Vec<Diagnostic>,
    /// The [`version_of`] its bytes (`None` when it cannot be read).
    pub version: Option<String>,
}

impl GraphState {
    /// Its display name (the name its diagnostics use).
    pub fn name(&self) -> &str {
        self.source.name()
    }

    /// Its `graph NAME` (empty when it cannot be read or does not parse that far).
    pub fn graph_name(&self) -> &str {
        self.compiled
            .as_ref()
            .map_or("", |c| c.checked.graph.name.as_str())
    }

    /// Checks `bytes` (or the read failure) of the graph `f`, named `name`, against `catalog`.
    pub(super) fn check(
        f: &Found,
        name: String,
        bytes: Result<Vec<u8>, InputError>,
        catalog: &dyn EventCatalog,
    ) -> GraphState {
        let bytes = match bytes {
            Ok(b) => b,
            Err(e) => {
                return GraphState {
                    file: f.clone(),
                    diagnostics: vec![unreadable(&name, &e)],
                    source: SourceFile::new(name, ""),
                    compiled: None,
                    version: None,
                };
            }
        };
        let version = Some(version_of(&bytes));
        match String::from_utf8(bytes) {
            Err(e) => {
                let src = SourceFile::new(name, String::from_utf8_lossy(e.as_bytes()).into_owned());
                let at = e.utf8_error().valid_up_to();
                GraphState {
                    file: f.clone(),
                    diagnostics: vec![
                        Diagnostic::error(diag::E_NOT_UTF8, "file is not valid UTF-8")
                            .at(&src, diag::Span::new(at, at + 1)),
                    ],
                    source: src,
                    compiled: None,
                    version,
                }
            }
            Ok(text) => {
                let src = SourceFile::new(name, text);
                let compiled = compile::compile(&src, catalog);
                GraphState {
                    file: f.clone(),
                    diagnostics: compiled.diagnostics().to_vec(),
                    source: src,
                    compiled: Some(compiled),
                    version,
                }
            }
        }
    }
}
