//! Fuzz target: `.animseq` bytes → load; whatever loads must write and reload to itself, and
//! migrate losslessly (in its own text) to every format that holds it; the diagnostics render
//! (human and JSON) without a raw control character reaching the terminal.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sinew::animseq;
use sinew::diag::SourceFile;

fuzz_target!(|data: &[u8]| {
    let loaded = animseq::load_bytes("fuzz.animseq", data);
    let human = sinew::diag::render::human(&loaded.diagnostics, false);
    assert!(!human.chars().any(|c| c != '\n' && sinew::escape::needs_escape(c)), "{human:?}");
    let _ = sinew::diag::render::to_json(&loaded.diagnostics);
    assert_eq!(loaded.seq.is_some(), loaded.spans.is_some());
    match &loaded.seq {
        Some(seq) => {
            let written = animseq::to_ron(seq);
            let back = animseq::load(&SourceFile::new("rewritten.animseq", written.as_str()));
            assert_eq!(back.seq.as_ref(), Some(seq), "{written}");
            let codes = |l: &animseq::Loaded| l.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>();
            assert_eq!(codes(&back), codes(&loaded), "{written}");
            if loaded.diagnostics.is_empty()
                && let Ok(text) = std::str::from_utf8(data)
            {
                let src = SourceFile::new("fuzz.animseq", text);
                for to in animseq::min_format(seq)..=animseq::CURRENT_FORMAT {
                    // `migrate` reads its result back; it must never find it different.
                    match animseq::migrate(&src, Some(to)) {
                        Ok(_) => {}
                        Err(e) => panic!("migrate to {to}: {e}\n{text}"),
                    }
                }
            }
        }
        None => assert!(loaded.diagnostics.iter().any(|d| d.is_error())),
    }
});
