//! The `.bpg` graph front end: lexer, syntax tree, parser, the graph as data (`model`, also the
//! one writer of `.bpg` text), canonical formatter and the `expr` sub-language. No I/O: text
//! in, tree and diagnostics out.

pub mod ast;
pub mod diff;
pub mod expr;
pub mod fmt;
pub mod lexer;
pub mod model;
pub mod parser;
pub mod reroute;

pub use ast::File;
pub use fmt::{format, format_source};
pub use model::Model;
pub use parser::parse;
