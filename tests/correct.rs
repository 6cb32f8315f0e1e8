//! Issue 24: results that were wrong and output that could be forged — each case here failed
//! before its fix.

use std::fmt::Write as _;

// ---------------------------------------------------------------------------------------------
// Capped reports list errors before warnings (human, JSON and SARIF).
// ---------------------------------------------------------------------------------------------

#[test]
fn a_capped_report_of_many_unused_variables_still_lists_its_limit_errors() {
    let mut t = String::from("graph big\n");
    for i in 0..65_537 {
        writeln!(t, "var v{i}: int = 0").unwrap();
    }
    let src = sinew::diag::SourceFile::new("big.bpg", t);
    let c = sinew::compile::compile(&src, &sinew::catalog::Catalog::default());
    let diags = c.diagnostics();
    let (errors, warnings) = sinew::diag::counts(diags);
    assert!(errors >= 1 && warnings > 65_000, "{errors} {warnings}");
    let listed = |n: usize| n.min(sinew::diag::render::MAX_PER_FILE);
    let human = sinew::diag::render::human(diags, false);
    assert_eq!(human.matches("error[").count(), listed(errors), "{human}");
    let json = sinew::diag::render::to_json(diags);
    let json_errors = json
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "error")
        .count();
    assert_eq!(json_errors, listed(errors));
    let sarif = sinew::diag::sarif::to_sarif(diags, "0");
    let sarif_errors = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["level"] == "error")
        .count();
    assert_eq!(sarif_errors, listed(errors));
}
