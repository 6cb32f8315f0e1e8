//! Every diagnostic code a module declares is registered (with a summary) and documented.

use std::path::Path;

fn declared_codes(dir: &Path, out: &mut Vec<(String, String)>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            declared_codes(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            let text = std::fs::read_to_string(&p).unwrap();
            for line in text.lines() {
                let l = line.trim();
                if l.starts_with("pub const ") && l.contains(": &str = \"") {
                    let code = l.split('"').nth(1).unwrap_or("");
                    let is_code = code.len() == 5
                        && (code.starts_with('E') || code.starts_with('W'))
                        && code[1..].chars().all(|c| c.is_ascii_digit());
                    if is_code {
                        out.push((code.to_string(), p.display().to_string()));
                    }
                }
            }
        }
    }
}

#[test]
fn every_declared_code_is_registered_and_documented() {
    let mut declared = Vec::new();
    declared_codes(Path::new("src"), &mut declared);
    assert!(declared.len() > 50, "found only {declared:?}");
    let docs = std::fs::read_to_string("docs/diagnostics.md").unwrap();
    for (code, file) in &declared {
        assert!(
            sinew::diag::codes::summary(code).is_some(),
            "{code} ({file}) is not in src/diag/codes.rs"
        );
    }
    for (code, _) in sinew::diag::codes::CODES {
        assert!(
            docs.contains(&format!("| {code} |")),
            "{code} is not documented in docs/diagnostics.md"
        );
        assert!(
            declared.iter().any(|(c, _)| c == code),
            "{code} is registered but no module declares it"
        );
    }
}
