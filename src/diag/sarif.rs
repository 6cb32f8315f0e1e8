//! SARIF 2.1.0 output for code-scanning services: one run, rules from the code registry, stable
//! fingerprints so a finding keeps its identity across runs while its line moves.

use super::{Diagnostic, Severity, codes};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// FNV-1a 64-bit: small, stable across platforms and Rust versions (unlike `DefaultHasher`).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The SARIF log of a set of diagnostics (sorted already; the [`bounded`](super::render::bounded)
/// report of them is listed). `version` is the tool's version.
pub fn to_sarif(diags: &[Diagnostic], version: &str) -> Value {
    let diags = &super::render::bounded(diags)[..];
    let mut rule_ids: Vec<&str> = diags.iter().map(|d| d.code).collect();
    rule_ids.sort_unstable();
    rule_ids.dedup();
    let rules: Vec<Value> = rule_ids
        .iter()
        .map(|id| {
            let text = codes::summary(id).unwrap_or("diagnostic");
            json!({
                "id": id,
                "name": id,
                "shortDescription": {"text": text},
                "fullDescription": {"text": text},
                "defaultConfiguration": {"level": match id.as_bytes().first() {
                    Some(b'W') => "warning",
                    Some(b'N') => "note",
                    _ => "error",
                }},
            })
        })
        .collect();
    let mut occurrences: BTreeMap<u64, u32> = BTreeMap::new();
    let results: Vec<Value> = diags
        .iter()
        .map(|d| {
            let rule_index = rule_ids.iter().position(|r| *r == d.code).unwrap_or(0);
            // Fingerprint: rule, file and message (not the line, so edits above keep it), plus
            // an occurrence counter for identical findings in one file.
            let base = fnv1a(format!("{}\u{0}{}\u{0}{}", d.code, d.file, d.message).as_bytes());
            let n = occurrences.entry(base).or_insert(0);
            *n += 1;
            let mut r = json!({
                "ruleId": d.code,
                "ruleIndex": rule_index,
                "level": match d.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                    Severity::Note => "note",
                },
                "message": {"text": if d.notes.is_empty() {
                    d.message.clone()
                } else {
                    format!("{}\n{}", d.message, d.notes.join("\n"))
                }},
                "partialFingerprints": {"sinewFingerprint/v1": format!("{base:016x}:{n}")},
            });
            if !d.file.is_empty() {
                r["locations"] = json!([location(
                    &d.file,
                    d.start.line,
                    d.start.column,
                    d.end.line,
                    d.end.column,
                    None
                )]);
            }
            if !d.labels.is_empty() {
                r["relatedLocations"] = Value::Array(
                    d.labels
                        .iter()
                        .enumerate()
                        .map(|(i, l)| {
                            let mut loc = location(
                                &l.file,
                                l.start.line,
                                l.start.column,
                                l.end.line,
                                l.end.column,
                                Some(&l.message),
                            );
                            loc["id"] = json!(i);
                            loc
                        })
                        .collect(),
                );
            }
            r
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "sinew",
                "version": version,
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "originalUriBaseIds": {"%SRCROOT%": {"uri": "./"}},
            "results": results,
        }],
    })
}

fn location(
    file: &str,
    line: u32,
    col: u32,
    end_line: u32,
    end_col: u32,
    message: Option<&str>,
) -> Value {
    let mut end_column = end_col;
    if end_line == line && end_col <= col {
        end_column = col + 1; // SARIF regions are non-empty
    }
    let mut v = json!({
        "physicalLocation": {
            "artifactLocation": {"uri": file, "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": line.max(1), "startColumn": col.max(1), "endLine": end_line.max(line).max(1), "endColumn": end_column.max(1)},
        }
    });
    if let Some(m) = message {
        v["message"] = json!({"text": m});
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{SourceFile, Span};

    #[test]
    fn sarif_has_rules_results_and_stable_fingerprints() {
        let f = SourceFile::new("graphs/a.bpg", "graph a\nnode x = int.ad\n");
        let g = SourceFile::new("graphs/a.bpg", "graph a\n\n\nnode x = int.ad\n");
        let d1 = Diagnostic::error("E0302", "unknown node kind `int.ad`").at(&f, Span::new(17, 23));
        let d2 = Diagnostic::error("E0302", "unknown node kind `int.ad`").at(&g, Span::new(19, 25));
        let a = to_sarif(std::slice::from_ref(&d1), "1.0");
        let b = to_sarif(std::slice::from_ref(&d2), "1.0");
        assert_eq!(a["version"], "2.1.0");
        let run = &a["runs"][0];
        assert_eq!(run["tool"]["driver"]["rules"][0]["id"], "E0302");
        assert_eq!(run["results"][0]["ruleIndex"], 0);
        let region = &run["results"][0]["locations"][0]["physicalLocation"]["region"];
        assert_eq!(
            (region["startLine"].as_u64(), region["startColumn"].as_u64()),
            (Some(2), Some(10))
        );
        // moved two lines down: same fingerprint
        assert_eq!(
            a["runs"][0]["results"][0]["partialFingerprints"],
            b["runs"][0]["results"][0]["partialFingerprints"]
        );
        assert_eq!(
            b["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"],
            4
        );
    }

    #[test]
    fn identical_findings_get_distinct_fingerprints() {
        let f = SourceFile::new("a.bpg", "x\ny\n");
        let d = Diagnostic::warning("W0302", "variable `v` is never read or written")
            .at(&f, Span::point(0));
        let s = to_sarif(&[d.clone(), d], "1.0");
        let fp = |i: usize| {
            s["runs"][0]["results"][i]["partialFingerprints"]["sinewFingerprint/v1"].clone()
        };
        assert_ne!(fp(0), fp(1));
    }
}
