//! The graph compiler: `.bpg` text → syntax tree → typed IR → checks → bytecode.
//!
//! parse (`graph`) → [`resolve`] (names, kinds, events, variables, link rules) → [`check`]
//! (cycles, reachability) → lower (bytecode). Every pass takes values and returns values plus
//! diagnostics; the compiler never does I/O (the catalog is handed in as an [`EventCatalog`]).

pub mod check;
pub mod codes;
pub mod ir;
pub mod limits;
pub mod lower;
pub mod payload;
pub mod reroute;
pub mod resolve;

use crate::diag::{Diagnostic, SourceFile};
use crate::types::Type;

/// What the compiler needs to know about one event identity.
#[derive(Clone, Debug, PartialEq)]
pub enum EventInfo {
    /// Published, with its typed fields in authored order; `window` for a window (its event
    /// node has `begin` and `end` outputs), else a point notify.
    Published {
        fields: Vec<(String, Type)>,
        window: bool,
    },
    /// Claimed more than once; the claimant files.
    Quarantined {
        files: Vec<String>,
    },
    Unknown,
}

/// What the compiler needs to know about one game node kind (`game.*`, `nodes::game`).
#[derive(Clone, Debug, PartialEq)]
pub enum GameInfo {
    Published(Box<crate::nodes::game::GameNode>),
    /// Declared by several files; the files.
    Quarantined(Vec<String>),
    Unknown,
}

/// The catalog as the compiler sees it.
pub trait EventCatalog {
    fn event(&self, identity: &str) -> EventInfo;
    /// Every published identity, sorted (for suggestions).
    fn published(&self) -> Vec<String>;
    /// A game node kind's declaration (none by default: a catalog without `.nodes.ron`).
    fn game_node(&self, kind: &str) -> GameInfo {
        let _ = kind;
        GameInfo::Unknown
    }
    /// Every published game node kind, sorted (for suggestions).
    fn game_kinds(&self) -> Vec<String> {
        Vec::new()
    }
    /// For an identity no asset publishes: the first error of an asset that appears to
    /// declare it but does not load (its real cause), if any.
    fn broken_source(&self, _identity: &str) -> Option<Diagnostic> {
        None
    }
}

/// The result of compiling one graph up to the checked IR.
#[derive(Clone, Debug)]
pub struct Checked {
    pub graph: ir::Graph,
    pub spans: ir::GraphSpans,
    pub diagnostics: Vec<Diagnostic>,
}

impl Checked {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Parses, resolves and checks one graph source.
pub fn check_source(src: &SourceFile, events: &dyn EventCatalog) -> Checked {
    let (file, mut diagnostics) = crate::graph::parse(src);
    let (joined, notes, reroute_diags) = reroute::join(src, &file);
    let (graph, spans, d) = resolve::resolve(src, joined.as_ref().unwrap_or(&file), events);
    diagnostics.extend(d);
    diagnostics.extend(reroute_diags);
    let clean = !diagnostics.iter().any(Diagnostic::is_error);
    let d = check::check(src, &graph, &spans, clean);
    diagnostics.extend(d);
    reroute::annotate(&mut diagnostics, &notes);
    crate::diag::sort(&mut diagnostics);
    Checked {
        graph,
        spans,
        diagnostics,
    }
}

impl EventCatalog for crate::catalog::Catalog {
    fn event(&self, identity: &str) -> EventInfo {
        match self.status(identity) {
            crate::catalog::Status::Published(d) => EventInfo::Published {
                window: d.kind.is_window(),
                fields: d.fields,
            },
            crate::catalog::Status::Quarantined(files) => EventInfo::Quarantined { files },
            crate::catalog::Status::Absent => EventInfo::Unknown,
        }
    }
    fn published(&self) -> Vec<String> {
        self.events()
            .into_iter()
            .map(|d| d.id.to_string())
            .collect()
    }
    fn game_node(&self, kind: &str) -> GameInfo {
        match self.game_status(kind) {
            crate::catalog::GameStatus::Published(n) => GameInfo::Published(Box::new(n)),
            crate::catalog::GameStatus::Quarantined(f) => GameInfo::Quarantined(f),
            crate::catalog::GameStatus::Absent => GameInfo::Unknown,
        }
    }
    fn game_kinds(&self) -> Vec<String> {
        self.game_nodes()
            .into_iter()
            .map(|n| n.kind.clone())
            .collect()
    }
    fn broken_source(&self, identity: &str) -> Option<Diagnostic> {
        let sequence = identity.strip_prefix("animseq::")?.split('.').next()?;
        self.broken_source(sequence).map(|(_, d)| d.clone())
    }
}

pub use crate::diag::codes::compile::E_INTERNAL;

/// The result of compiling one graph to a verified module.
#[derive(Debug)]
pub struct Compiled {
    pub checked: Checked,
    /// Present iff there are no errors.
    pub module: Option<crate::bytecode::VerifiedModule>,
}

impl Compiled {
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.checked.diagnostics
    }
}

/// Compiles one graph source: parse → resolve → check → lower → verify.
pub fn compile(src: &SourceFile, events: &dyn EventCatalog) -> Compiled {
    let mut checked = check_source(src, events);
    if checked.has_errors() {
        return Compiled {
            checked,
            module: None,
        };
    }
    let lowered = match lower::lower(&checked.graph) {
        Ok(m) => {
            // A graph past a limit of the format or of instance state is the user's to fix:
            // an ordinary diagnostic at the node that crosses it, not an internal error.
            let over = limits::check(src, &checked.graph, &checked.spans, &m);
            if !over.is_empty() {
                checked.diagnostics.extend(over);
                crate::diag::sort(&mut checked.diagnostics);
                return Compiled {
                    checked,
                    module: None,
                };
            }
            Ok(m)
        }
        Err(e) => Err(e.message),
    };
    let result = lowered.and_then(|m| crate::bytecode::verify(m).map_err(|e| e.to_string()));
    match result {
        Ok(m) => Compiled {
            checked,
            module: Some(m),
        },
        Err(msg) => {
            checked.diagnostics.push(
                Diagnostic::error(E_INTERNAL, format!("internal compiler error: {msg}"))
                    .in_file(src.name())
                    .with_note("this is a bug in Sinew; please report it with this graph"),
            );
            Compiled {
                checked,
                module: None,
            }
        }
    }
}
