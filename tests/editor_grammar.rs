//! The VS Code extension's TextMate grammar (`editors/code/syntaxes/bpg.tmLanguage.json`)
//! checked against the `.bpg` lexer on every fixture graph.
//!
//! Editors run TextMate grammars with Oniguruma; this test holds the grammar to the subset the
//! `regex` crate compiles (no look-around, no backreferences), so it can run here without a
//! JavaScript toolchain. A small tokenizer with TextMate's rule — at each position the
//! earliest-starting match wins, ties go to the first rule; `begin`/`end` rules scan their
//! inner patterns before `end` — scopes every line; then every comment, string, number, event
//! reference, arrow and item keyword the lexer finds must carry the matching scope.

use regex::Regex;
use serde_json::Value;
use sinew::graph::lexer::{self, Tok};
use std::path::{Path, PathBuf};

enum Rule {
    Match {
        re: Regex,
        name: Option<String>,
        captures: Vec<(usize, String)>,
    },
    Span {
        begin: Regex,
        end: Regex,
        name: Option<String>,
        inner: Vec<Rule>,
    },
}

fn compile(re: &str) -> Regex {
    // TextMate matches line by line: `$` is the end of the line.
    Regex::new(re)
        .unwrap_or_else(|e| panic!("the grammar regex {re:?} is outside the tested subset: {e}"))
}

fn name(v: &Value) -> Option<String> {
    v.get("name").and_then(Value::as_str).map(str::to_string)
}

/// Flattens `patterns` (resolving `#includes` against the repository) into rules, in order.
fn rules(patterns: &Value, repo: &Value, depth: usize) -> Vec<Rule> {
    assert!(depth < 8, "include cycle");
    let mut out = Vec::new();
    for p in patterns.as_array().unwrap() {
        if let Some(inc) = p.get("include").and_then(Value::as_str) {
            let key = inc.strip_prefix('#').expect("only repository includes");
            let target = &repo[key];
            assert!(!target.is_null(), "unknown include {inc}");
            out.extend(rules(&Value::Array(vec![target.clone()]), repo, depth + 1));
        } else if let Some(m) = p.get("match").and_then(Value::as_str) {
            let captures = p
                .get("captures")
                .and_then(Value::as_object)
                .map(|c| {
                    c.iter()
                        .map(|(k, v)| (k.parse().unwrap(), name(v).unwrap()))
                        .collect()
                })
                .unwrap_or_default();
            out.push(Rule::Match {
                re: compile(m),
                name: name(p),
                captures,
            });
        } else if let Some(b) = p.get("begin").and_then(Value::as_str) {
            out.push(Rule::Span {
                begin: compile(b),
                end: compile(p["end"].as_str().unwrap()),
                name: name(p),
                inner: p
                    .get("patterns")
                    .map(|ps| rules(ps, repo, depth + 1))
                    .unwrap_or_default(),
            });
        } else if let Some(ps) = p.get("patterns") {
            out.extend(rules(ps, repo, depth + 1));
        } else {
            panic!("a grammar rule this test does not know: {p}");
        }
    }
    out
}

fn first_regex(r: &Rule) -> &Regex {
    match r {
        Rule::Match { re, .. } => re,
        Rule::Span { begin, .. } => begin,
    }
}

/// The scope of every byte of `line`.
fn scope_line(rules: &[Rule], line: &str) -> Vec<Option<String>> {
    let mut scopes = vec![None; line.len()];
    let set = |scopes: &mut Vec<Option<String>>, r: std::ops::Range<usize>, s: &str| {
        for b in &mut scopes[r] {
            *b = Some(s.to_string());
        }
    };
    let mut pos = 0;
    while pos < line.len() {
        let best = rules
            .iter()
            .filter_map(|r| first_regex(r).captures_at(line, pos).map(|c| (r, c)))
            .min_by_key(|(_, c)| c.get(0).unwrap().start());
        let Some((rule, caps)) = best else { break };
        let whole = caps.get(0).unwrap();
        match rule {
            Rule::Match { name, captures, .. } => {
                if let Some(n) = name {
                    set(&mut scopes, whole.range(), n);
                }
                for (i, n) in captures {
                    if let Some(c) = caps.get(*i) {
                        set(&mut scopes, c.range(), n);
                    }
                }
                pos = whole.end().max(whole.start() + 1);
            }
            Rule::Span {
                end, name, inner, ..
            } => {
                let mut p = whole.end();
                let stop = loop {
                    let e = end.find_at(line, p).map_or(line.len(), |m| m.start());
                    let i = inner
                        .iter()
                        .filter_map(|r| first_regex(r).find_at(line, p))
                        .min_by_key(|m| m.start());
                    match (i, end.find_at(line, p)) {
                        (Some(m), _) if m.start() < e && m.end() > m.start() => p = m.end(),
                        (_, Some(m)) => break m.end(),
                        (_, None) => break line.len(),
                    }
                };
                if let Some(n) = name {
                    set(&mut scopes, whole.start()..stop, n);
                }
                pos = stop.max(whole.start() + 1);
            }
        }
    }
    scopes
}

fn graphs(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            graphs(&p, out);
        } else if p.extension().is_some_and(|e| e == "bpg") {
            out.push(p);
        }
    }
}

#[test]
fn the_textmate_grammar_scopes_what_the_lexer_finds_in_every_fixture() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let grammar: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("editors/code/syntaxes/bpg.tmLanguage.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(grammar["scopeName"], "source.bpg");
    let rules = rules(&grammar["patterns"], &grammar["repository"], 0);
    let mut files = Vec::new();
    graphs(&root.join("tests/fixtures"), &mut files);
    files.sort();
    assert!(files.len() > 20, "{files:?}");
    let mut checked = 0;
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        // Scopes of the whole text, line by line.
        let mut scopes: Vec<Option<String>> = Vec::with_capacity(text.len());
        for line in text.split_inclusive('\n') {
            let body = line.trim_end_matches('\n');
            scopes.extend(scope_line(&rules, body));
            scopes.extend(std::iter::repeat_n(None, line.len() - body.len()));
        }
        let toks = lexer::lex(&text);
        let all = toks.tokens.iter().chain(&toks.comments);
        for t in all {
            let want: &[&str] = match t.kind {
                Tok::Comment => &["comment."],
                Tok::Str(_) => &["string."],
                Tok::Int | Tok::Float => &["constant.numeric."],
                Tok::AnimseqRef | Tok::CustomRef => {
                    &["constant.other.event.", "entity.name.type.event."]
                }
                Tok::Arrow => &["keyword.operator.arrow."],
                Tok::Ident
                    if t.line_start
                        && ["graph", "var", "node", "event"].contains(&&text[t.span.range()]) =>
                {
                    &["keyword.", "storage.type."]
                }
                _ => continue,
            };
            let r = t.span.range();
            // A string cut by the end of its line keeps the line break out of it.
            let r = r.start
                ..r.end.min(
                    text[..r.end]
                        .trim_end_matches(['\n', '\r'])
                        .len()
                        .max(r.start),
                );
            for b in r.clone() {
                let s = scopes[b].as_deref().unwrap_or("<none>");
                assert!(
                    want.iter().any(|w| s.starts_with(w)),
                    "{}: `{}` ({:?}) at byte {b} has scope {s}, not {want:?}",
                    f.display(),
                    &text[t.span.range()],
                    t.kind
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 1000, "only {checked} tokens checked");
}
