//! The document store: every open `.bpg` buffer with its version, its line index and its
//! analysis — the syntax tree of what parsed, the compiler's result and exactly the
//! diagnostics `sinew check FILE` reports for the buffer's text.

use super::position::LineIndex;
use crate::catalog::Catalog;
use crate::compile::{self, Compiled, payload};
use crate::diag::{self, Diagnostic, SourceFile};
use crate::fsutil::{InputError, InputKind};
use crate::graph::ast;
use lsp_types::Uri;
use std::collections::HashMap;

/// One open document.
pub struct Document {
    pub uri: Uri,
    /// Its display name (what diagnostics call it).
    pub name: String,
    pub version: i32,
    pub text: String,
    pub index: LineIndex,
    pub analysis: Analysis,
}

/// What the server knows about one buffer's text.
pub struct Analysis {
    /// The syntax tree of what parsed (partial after syntax errors).
    pub file: ast::File,
    /// The compiler's result (`None` when the text is over the graph size limit).
    pub compiled: Option<Compiled>,
    /// `sinew check`'s diagnostics for this file, as its report lists them.
    pub diagnostics: Vec<Diagnostic>,
}

impl Document {
    pub fn new(uri: Uri, name: String, version: i32, text: String, catalog: &Catalog) -> Document {
        let analysis = analyse(&name, &text, catalog);
        Document {
            uri,
            name,
            version,
            index: LineIndex::new(&text),
            text,
            analysis,
        }
    }

    /// Replaces the text (a full-document change) and analyses it again.
    pub fn set_text(&mut self, version: i32, text: String, catalog: &Catalog) {
        self.version = version;
        self.index = LineIndex::new(&text);
        self.text = text;
        self.reanalyse(catalog);
    }

    /// Analyses the text again (the catalog changed).
    pub fn reanalyse(&mut self, catalog: &Catalog) {
        self.analysis = analyse(&self.name, &self.text, catalog);
    }

    /// The byte offset of an LSP position (`None` past the end).
    pub fn offset(&self, pos: lsp_types::Position) -> Option<usize> {
        self.index.offset(&self.text, pos)
    }

    pub fn range(&self, span: diag::Span) -> lsp_types::Range {
        self.index.range(&self.text, span)
    }
}

/// The diagnostics `sinew check FILE --assets DIR` reports for a graph named `name` with
/// `text`: the same size limit and read diagnostic, the compiler's diagnostics, the custom-event
/// payload agreement of the graphs checked together (here: this one), in canonical order and
/// bounded as the report lists them.
pub fn analyse(name: &str, text: &str, catalog: &Catalog) -> Analysis {
    let limit = InputKind::Graph.limit();
    if text.len() as u64 > limit {
        let e = InputError::TooLarge {
            size: text.len() as u64,
            limit,
            kind: InputKind::Graph,
        };
        return Analysis {
            file: crate::graph::parse(&SourceFile::new(name, "")).0,
            compiled: None,
            diagnostics: vec![crate::workspace::unreadable(name, &e)],
        };
    }
    let src = SourceFile::new(name, text);
    let (file, _) = crate::graph::parse(&src);
    let compiled = compile::compile(&src, catalog);
    let mut all = compiled.diagnostics().to_vec();
    let p = payload::Payloads::of(&compiled.checked.graph, &compiled.checked.spans);
    all.extend(payload::conflicts(&[(&src, &p)]));
    all.retain(|d| d.file == name);
    diag::sort(&mut all);
    Analysis {
        file,
        compiled: Some(compiled),
        diagnostics: diag::render::bounded(&all),
    }
}

/// The open documents by URI.
#[derive(Default)]
pub struct Store {
    docs: HashMap<Uri, Document>,
}

impl Store {
    pub fn get(&self, uri: &Uri) -> Option<&Document> {
        self.docs.get(uri)
    }
    pub fn get_mut(&mut self, uri: &Uri) -> Option<&mut Document> {
        self.docs.get_mut(uri)
    }
    pub fn insert(&mut self, doc: Document) {
        self.docs.insert(doc.uri.clone(), doc);
    }
    pub fn remove(&mut self, uri: &Uri) -> Option<Document> {
        self.docs.remove(uri)
    }
    /// Every open document, in URI order (publishing order never depends on hashing).
    pub fn all_mut(&mut self) -> Vec<&mut Document> {
        let mut v: Vec<&mut Document> = self.docs.values_mut().collect();
        v.sort_by(|a, b| a.uri.as_str().cmp(b.uri.as_str()));
        v
    }
}
