//! Fuzz target: `.animseq` bytes → load; whatever loads must write and reload to itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sinew::animseq;
use sinew::diag::SourceFile;

fuzz_target!(|data: &[u8]| {
    let loaded = animseq::load_bytes("fuzz.animseq", data);
    assert_eq!(loaded.seq.is_some(), loaded.spans.is_some());
    match &loaded.seq {
        Some(seq) => {
            let written = animseq::to_ron(seq);
            let back = animseq::load(&SourceFile::new("rewritten.animseq", written.as_str()));
            assert_eq!(back.seq.as_ref(), Some(seq), "{written}");
            let codes = |l: &animseq::Loaded| l.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>();
            assert_eq!(codes(&back), codes(&loaded), "{written}");
        }
        None => assert!(loaded.diagnostics.iter().any(|d| d.is_error())),
    }
});
