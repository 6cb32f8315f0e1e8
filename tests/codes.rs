//! Diagnostic codes are declared once, in the `diag::codes` table: every registered code is
//! documented in `docs/diagnostics.md` and reported somewhere, every documented code is
//! registered, and no module declares or spells a code the table lacks.

use std::path::Path;

/// (file, text) of every `.rs` file under `dir`, in path order.
fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            let text = std::fs::read_to_string(&p).unwrap();
            out.push((p.display().to_string().replace('\\', "/"), text));
        }
    }
}

fn is_code(s: &str) -> bool {
    s.len() == 5
        && (s.starts_with('E') || s.starts_with('W') || s.starts_with('N'))
        && s[1..].chars().all(|c| c.is_ascii_digit())
}

/// Every `"CODE"` string literal in `text`.
fn code_literals(text: &str) -> Vec<&str> {
    text.split('"')
        .skip(1)
        .step_by(2)
        .filter(|s| is_code(s))
        .collect()
}

/// Whether `text` uses the identifier `name` (as a whole word).
fn uses(text: &str, name: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(name)
        .any(|(i, _)| !text[..i].ends_with(word) && !text[i + name.len()..].starts_with(word))
}

const TABLE: &str = "src/diag/codes.rs";

#[test]
fn every_code_is_declared_once_registered_and_documented() {
    let mut files = Vec::new();
    sources(Path::new("src"), &mut files);
    assert!(files.iter().any(|(f, _)| f == TABLE));
    let registry = sinew::diag::codes::CODES;
    assert!(registry.len() > 100, "only {} codes", registry.len());
    let docs = std::fs::read_to_string("docs/diagnostics.md").unwrap();

    for (code, summary) in registry {
        assert!(
            docs.contains(&format!("| {code} |")),
            "{code} is not documented in docs/diagnostics.md"
        );
        // A live code is reported somewhere: its constant is used outside the table.
        if summary.starts_with("retired:") {
            continue;
        }
        let table = &files.iter().find(|(f, _)| f == TABLE).unwrap().1;
        let line = table
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{code} ")))
            .unwrap_or_else(|| panic!("{code} has no table row"));
        let name = line.split_whitespace().nth(1).unwrap();
        assert!(
            files.iter().any(|(f, t)| f != TABLE && uses(t, name)),
            "{code} ({name}) is registered but nothing reports it"
        );
    }

    // Every code the docs list (a table row `| CODE |`) is registered.
    for line in docs.lines() {
        let cell = line
            .trim_start_matches('|')
            .split('|')
            .next()
            .unwrap_or("")
            .trim();
        if line.starts_with('|') && is_code(cell) {
            assert!(
                sinew::diag::codes::summary(cell).is_some(),
                "docs/diagnostics.md lists {cell}, which src/diag/codes.rs does not register"
            );
        }
    }

    // No module declares a code of its own or spells one the table lacks.
    for (file, text) in &files {
        if file == TABLE {
            continue;
        }
        for line in text.lines() {
            let l = line.trim();
            assert!(
                !(l.contains("const ") && code_literals(l).iter().any(|c| is_code(c))),
                "{file}: declare codes in the table of {TABLE}, not here: {l}"
            );
        }
        for code in code_literals(text) {
            assert!(
                sinew::diag::codes::summary(code).is_some(),
                "{file} uses {code}, which {TABLE} does not register"
            );
        }
    }
}
