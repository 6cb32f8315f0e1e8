//! Fuzz target: the studio's `model` JSON. Arbitrary bytes never panic the reader; a model it
//! accepts writes text that parses back to the same model, draws as SVG, and diffs against
//! itself as empty. Clean `.bpg` inputs go the other way: text → model → JSON → model.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sinew::diag::SourceFile;
use sinew::graph::Model;

fuzz_target!(|data: &[u8]| {
    if let Ok(m) = serde_json::from_slice::<Model>(data) {
        let text = m.to_text();
        let back = Model::parse(&SourceFile::new("m.bpg", text.as_str()))
            .unwrap_or_else(|d| panic!("accepted model writes text that does not parse: {d:?}\n{text}"));
        assert_eq!(back, m, "{text}");
        let _ = sinew::picture::model_svg(&m);
        assert!(sinew::graph::diff::diff(&m, &back).is_empty());
    }
    if let Ok(text) = std::str::from_utf8(data)
        && let Ok(m) = Model::parse(&SourceFile::new("t.bpg", text))
    {
        let json = serde_json::to_vec(&m).expect("serialize");
        let again: Model = serde_json::from_slice(&json).expect("a parsed model reads back");
        assert_eq!(again, m);
    }
});
