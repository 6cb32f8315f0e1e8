//! The requests the server answers, each from a document's analysis: diagnostics and their
//! did-you-mean code actions, formatting (`sinew fmt`'s text), document symbols, references
//! and rename here; completion in `complete`, hover and definition in `hover`; `at` finds what
//! stands at the cursor.

mod at;
mod complete;
mod hover;

use super::document::{Document, Store};
use super::project::{Project, path_uri};
use crate::diag::{self, Severity, SourceFile};
use crate::graph::ast::Item;
use lsp_server::{Request, Response};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams,
    CodeActionProviderCapability, CompletionOptions, DiagnosticRelatedInformation,
    DiagnosticSeverity, DocumentFormattingParams, DocumentSymbol, DocumentSymbolParams,
    DocumentSymbolResponse, HoverProviderCapability, Location, NumberOrString, OneOf, Position,
    Range, ReferenceParams, RenameParams, ServerCapabilities, SymbolKind,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    TextDocumentSyncSaveOptions, TextEdit, Uri, WorkspaceEdit,
};
use std::collections::HashMap;

pub use at::is_ident;

/// What the server offers.
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::FULL),
                save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                ..Default::default()
            },
        )),
        completion_provider: Some(CompletionOptions {
            resolve_provider: Some(true),
            trigger_characters: Some(vec![".".into(), " ".into(), "{".into(), ",".into()]),
            ..Default::default()
        }),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Left(true)),
        document_formatting_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
        ..Default::default()
    }
}

/// Answers a request (`None`: the method is unknown).
pub fn dispatch(project: &Project, docs: &Store, req: Request) -> Option<Response> {
    use super::server::call;
    let doc = |uri: &Uri| docs.get(uri);
    Some(match req.method.as_str() {
        "textDocument/completion" => {
            call(req, |p: lsp_types::CompletionParams| {
                let tp = p.text_document_position;
                Ok(doc(&tp.text_document.uri)
                    .and_then(|d| complete::complete(project, d, tp.position)))
            })
        }
        "completionItem/resolve" => call(req, |item: lsp_types::CompletionItem| {
            Ok(complete::resolve(project, item))
        }),
        "textDocument/hover" => call(req, |p: lsp_types::HoverParams| {
            let tp = p.text_document_position_params;
            Ok(doc(&tp.text_document.uri).and_then(|d| hover::hover(project, d, tp.position)))
        }),
        "textDocument/definition" => call(req, |p: lsp_types::GotoDefinitionParams| {
            let tp = p.text_document_position_params;
            Ok(doc(&tp.text_document.uri).and_then(|d| hover::definition(project, d, tp.position)))
        }),
        "textDocument/references" => call(req, |p: ReferenceParams| {
            let tp = p.text_document_position;
            Ok(doc(&tp.text_document.uri)
                .and_then(|d| references(d, tp.position, p.context.include_declaration)))
        }),
        "textDocument/rename" => call(req, |p: RenameParams| {
            let tp = p.text_document_position;
            match doc(&tp.text_document.uri) {
                Some(d) => rename(d, tp.position, &p.new_name),
                None => Err("the document is not open".into()),
            }
        }),
        "textDocument/formatting" => call(req, |p: DocumentFormattingParams| {
            Ok(doc(&p.text_document.uri).and_then(formatting))
        }),
        "textDocument/documentSymbol" => call(req, |p: DocumentSymbolParams| {
            Ok(doc(&p.text_document.uri).map(symbols))
        }),
        "textDocument/codeAction" => call(req, |p: CodeActionParams| {
            Ok(doc(&p.text_document.uri).map(|d| code_actions(project, d, p.range)))
        }),
        _ => return None,
    })
}

/// A document's diagnostics in LSP form: the same code, severity, range (UTF-16 positions of
/// the same byte span), message and labels as `sinew check` reports.
pub fn diagnostics(project: &Project, doc: &Document) -> Vec<lsp_types::Diagnostic> {
    doc.analysis
        .diagnostics
        .iter()
        .map(|d| convert(project, doc, d))
        .collect()
}

fn convert(project: &Project, doc: &Document, d: &diag::Diagnostic) -> lsp_types::Diagnostic {
    let related: Vec<DiagnosticRelatedInformation> = d
        .labels
        .iter()
        .filter_map(|l| {
            let location = if l.file == doc.name {
                Location::new(doc.uri.clone(), doc.range(l.span))
            } else {
                // Another file (an `.animseq`): its 1-based line and char column.
                let pos = |p: diag::Position| {
                    Position::new(p.line.saturating_sub(1), p.column.saturating_sub(1))
                };
                Location::new(
                    path_uri(&absolute(&project.path_of(&l.file)))?,
                    Range::new(pos(l.start), pos(l.end)),
                )
            };
            Some(DiagnosticRelatedInformation {
                location,
                message: l.message.clone(),
            })
        })
        .collect();
    lsp_types::Diagnostic {
        range: doc.range(d.span),
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
            Severity::Note => DiagnosticSeverity::INFORMATION,
        }),
        code: Some(NumberOrString::String(d.code.to_string())),
        source: Some("sinew".into()),
        message: d.message.clone(),
        related_information: (!related.is_empty()).then_some(related),
        data: (!d.notes.is_empty()).then(|| serde_json::json!({ "notes": d.notes })),
        ..Default::default()
    }
}

fn absolute(p: &std::path::Path) -> std::path::PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// The replacement a diagnostic's note suggests (`did you mean `X`?`).
pub fn suggestion(note: &str) -> Option<&str> {
    note.strip_prefix("did you mean `")?.strip_suffix("`?")
}

/// Quick fixes for the diagnostics over `range`: a did-you-mean replaces the diagnostic's
/// text with the suggested name.
fn code_actions(project: &Project, doc: &Document, range: Range) -> Vec<CodeActionOrCommand> {
    let mut out = Vec::new();
    for d in &doc.analysis.diagnostics {
        let r = doc.range(d.span);
        if r.end < range.start || r.start > range.end {
            continue;
        }
        for s in d.notes.iter().filter_map(|n| suggestion(n)) {
            let edit = TextEdit::new(r, s.to_string());
            out.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: format!("Replace with `{s}`"),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![convert(project, doc, d)]),
                edit: Some(WorkspaceEdit {
                    changes: Some(HashMap::from([(doc.uri.clone(), vec![edit])])),
                    ..Default::default()
                }),
                is_preferred: Some(true),
                ..Default::default()
            }));
        }
    }
    out
}

/// `sinew fmt`'s text as one edit of the whole document (none when it is already formatted;
/// `None` when it does not parse).
fn formatting(doc: &Document) -> Option<Vec<TextEdit>> {
    doc.analysis.compiled.as_ref()?;
    let formatted =
        crate::graph::format_source(&SourceFile::new(doc.name.as_str(), doc.text.as_str())).ok()?;
    if formatted == doc.text {
        return Some(Vec::new());
    }
    Some(vec![TextEdit::new(doc.index.whole(&doc.text), formatted)])
}

/// The graph with its custom events, variables and nodes (the kind as detail).
fn symbols(doc: &Document) -> DocumentSymbolResponse {
    #[allow(deprecated)] // `deprecated` is a field every literal must name
    let sym = |name: String, detail: Option<String>, kind, range, selection_range| DocumentSymbol {
        name,
        detail,
        kind,
        tags: None,
        deprecated: None,
        range,
        selection_range,
        children: None,
    };
    let file = &doc.analysis.file;
    let mut children = Vec::new();
    for item in &file.items {
        let range = doc.range(item.span());
        match item {
            Item::Var(v) => children.push(sym(
                v.name.name.clone(),
                Some(v.ty.name().to_string()),
                SymbolKind::VARIABLE,
                range,
                doc.range(v.name.span),
            )),
            Item::Node(n) => {
                let mut kind = n.kind.text();
                if let Some(s) = &n.subject {
                    kind.push(' ');
                    kind.push_str(&doc.text[s.span().range()]);
                }
                children.push(sym(
                    n.name.name.clone(),
                    Some(kind),
                    SymbolKind::FUNCTION,
                    range,
                    doc.range(n.name.span),
                ));
            }
            Item::Event(e) => children.push(sym(
                format!("custom::{}", e.name.name),
                Some("event".into()),
                SymbolKind::EVENT,
                range,
                doc.range(e.name.span),
            )),
            Item::Box(b) => children.push(sym(
                b.title.value.clone(),
                Some("box".into()),
                SymbolKind::NAMESPACE,
                range,
                doc.range(b.title.span),
            )),
            Item::Link(_) => {}
        }
    }
    let name = if file.name.name.is_empty() {
        doc.name.clone()
    } else {
        file.name.name.clone()
    };
    let mut graph = sym(
        name,
        Some("graph".into()),
        SymbolKind::MODULE,
        doc.index.whole(&doc.text),
        doc.range(file.name.span),
    );
    graph.children = Some(children);
    DocumentSymbolResponse::Nested(vec![graph])
}

fn references(doc: &Document, pos: Position, declaration: bool) -> Option<Vec<Location>> {
    let off = doc.offset(pos)?;
    let target = at::at(&doc.analysis.file, off)?;
    let (space, name) = at::named(&target)?;
    let spans = at::occurrences(&doc.analysis.file, space, &name);
    let has_decl = match space {
        at::Space::Node => at::node(&doc.analysis.file, &name).is_some(),
        at::Space::Var => at::var(&doc.analysis.file, &name).is_some(),
    };
    let skip = usize::from(has_decl && !declaration);
    Some(
        spans
            .into_iter()
            .skip(skip)
            .map(|s| Location::new(doc.uri.clone(), doc.range(s)))
            .collect(),
    )
}

/// Renames a node id or a variable everywhere in the file; refuses (an error answer) a name
/// that is not an identifier or that another node or variable already has.
fn rename(doc: &Document, pos: Position, new_name: &str) -> Result<Option<WorkspaceEdit>, String> {
    let Some(target) = doc.offset(pos).and_then(|o| at::at(&doc.analysis.file, o)) else {
        return Err("there is no node id or variable name here to rename".into());
    };
    let Some((space, name)) = at::named(&target) else {
        return Err("only node ids and variable names can be renamed".into());
    };
    let what = match space {
        at::Space::Node => "node",
        at::Space::Var => "variable",
    };
    if !is_ident(new_name) {
        return Err(format!(
            "`{new_name}` is not a valid {what} name (letters, digits and `_`, not starting with a digit)"
        ));
    }
    if new_name != name && !at::occurrences(&doc.analysis.file, space, new_name).is_empty() {
        return Err(format!(
            "a {what} named `{new_name}` already exists in this graph"
        ));
    }
    let edits = at::occurrences(&doc.analysis.file, space, &name)
        .into_iter()
        .map(|s| TextEdit::new(doc.range(s), new_name.to_string()))
        .collect();
    Ok(Some(WorkspaceEdit {
        changes: Some(HashMap::from([(doc.uri.clone(), edits)])),
        ..Default::default()
    }))
}
