//! Adversarial inputs for the `.animseq` loader: truncation at every byte, non-UTF-8, huge
//! strings, deep nesting on a small stack. Each ends in diagnostics, never a panic.

use sinew::animseq::{self, E_BAD_ID, E_NOT_UTF8, E_SYNTAX, load_bytes};

/// Runs `f` on a thread with a 1 MB stack (half the default for spawned threads), so
/// unbounded recursion would crash the test. Parsing at the depth limit needs ~200 KB in
/// release builds and under 1 MB in debug builds.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(1024 * 1024)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("no panic, no overflow")
}

/// Loads `bytes` and returns the diagnostic codes (asserting the Some/diagnostics contract).
fn check(bytes: &[u8]) -> Vec<&'static str> {
    let l = load_bytes("adv.animseq", bytes);
    assert_eq!(l.seq.is_some(), l.spans.is_some());
    if l.seq.is_none() {
        assert!(!l.diagnostics.is_empty());
    }
    l.diagnostics.iter().map(|d| d.code).collect()
}

fn asset(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/assets/{name}.animseq",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("asset")
}

#[test]
fn every_truncation_is_a_diagnostic() {
    for name in ["walk", "idle"] {
        let full = asset(name);
        let end = full.trim_ascii_end().len();
        for cut in 0..full.len() {
            let l = load_bytes("cut.animseq", &full[..cut]);
            if cut < end {
                assert!(l.seq.is_none(), "{name} cut at {cut} loaded");
                assert!(!l.diagnostics.is_empty());
            } else {
                assert!(
                    l.seq.is_some(),
                    "{name} cut at {cut} (only whitespace lost)"
                );
            }
        }
    }
}

#[test]
fn non_utf8_is_reported_at_the_first_bad_byte() {
    let mut bytes = asset("run");
    for at in [0, 10, 57, bytes.len() - 1] {
        let saved = bytes[at];
        bytes[at] = 0xFF;
        let l = load_bytes("bad.animseq", &bytes);
        assert!(l.seq.is_none());
        assert_eq!(l.diagnostics.len(), 1);
        let d = &l.diagnostics[0];
        assert_eq!(d.code, E_NOT_UTF8);
        assert_eq!(d.span.start as usize, at);
        bytes[at] = saved;
    }
    // A truncated multi-byte sequence at the very end.
    let l = load_bytes("bad.animseq", b"AnimSeq(id: \"\xC3");
    assert_eq!(l.diagnostics[0].code, E_NOT_UTF8);
    assert_eq!(l.diagnostics[0].span.start, 13);
}

#[test]
fn a_100_mb_string_is_a_short_diagnostic() {
    let big = "a".repeat(100 * 1024 * 1024);
    let text = format!("AnimSeq(id: \"{big}\", name: \"x\", duration: 1.0, tracks: [])");
    drop(big);
    let l = load_bytes("big.animseq", text.as_bytes());
    assert!(l.seq.is_none());
    assert_eq!(l.diagnostics.len(), 1);
    assert_eq!(l.diagnostics[0].code, E_BAD_ID);
    assert!(l.diagnostics[0].message.len() < 200, "message stays short");
}

#[test]
fn ten_thousand_deep_nesting_of_every_bracket_is_a_syntax_error() {
    on_small_stack(|| {
        for open in ["[", "(", "{", "Some(", "(a: ", "{1: "] {
            let text = format!("AnimSeq(id: {})", open.repeat(10_000));
            assert_eq!(check(text.as_bytes()), [E_SYNTAX], "{open}");
            let text = format!("{}{}", open.repeat(10_000), "]".repeat(10_000));
            assert_eq!(check(text.as_bytes()), [E_SYNTAX], "{open}");
        }
        // Deep but legal nesting, then a decoding error: still fine.
        let deep = format!("{}{}", "[".repeat(100), "]".repeat(100));
        let text = format!("AnimSeq(id: {deep}, name: \"x\", duration: 1.0, tracks: [])");
        assert_eq!(check(text.as_bytes()), [animseq::E_TYPE]);
    });
}

#[test]
fn extreme_numbers() {
    let seq = |dur: &str, time: &str| {
        format!(
            "AnimSeq(format: 2, id: \"s\", name: \"S\", duration: {dur}, tracks: [], \
             notifies: [(id: \"n\", name: \"N\", time: {time})])"
        )
    };
    assert!(check(seq("1e308", "1e308").as_bytes()).is_empty());
    assert!(check(seq("5e-324", "5e-324").as_bytes()).is_empty());
    assert_eq!(
        check(seq("1e308", "-1e-300").as_bytes()),
        [animseq::E_BAD_NOTIFY_TIME]
    );
    assert_eq!(
        check(seq("-inf", "0.0").as_bytes()),
        [animseq::E_BAD_DURATION]
    );
    assert_eq!(
        check(seq("NaN", "0.0").as_bytes()),
        [animseq::E_BAD_DURATION]
    );
    assert_eq!(check(seq("1.0", "-0.0").as_bytes()), Vec::<&str>::new());
    assert_eq!(
        check(seq("99999999999999999999999", "1").as_bytes()),
        Vec::<&str>::new()
    );
    assert_eq!(check(seq("0x", "1").as_bytes()), [E_SYNTAX]);
    assert_eq!(
        check(seq("1e99999999999", "1").as_bytes()),
        [animseq::E_BAD_DURATION]
    );
    // An integer literal out of i64 range in an Int field is a syntax-free type error.
    let int_field = "AnimSeq(format: 3, id: \"s\", name: \"S\", duration: 1.0, tracks: [], \
         notifies: [(id: \"n\", name: \"N\", time: 0.0, fields: [(\"i\", Int(9223372036854775808))])])";
    assert_eq!(check(int_field.as_bytes()), [animseq::E_TYPE]);
}

#[test]
fn format_refusal_names_the_value_even_when_huge() {
    let text = "AnimSeq(format: 99999999999999, id: \"s\", name: \"S\", duration: 1.0, tracks: [])";
    let l = load_bytes("new.animseq", text.as_bytes());
    assert_eq!(l.format, u32::MAX);
    assert_eq!(l.diagnostics[0].code, animseq::E_FORMAT_TOO_NEW);
    assert_eq!(&text[l.diagnostics[0].span.range()], "99999999999999");
    let text = "AnimSeq(format: -3, id: \"s\", name: \"S\", duration: 1.0, tracks: [])";
    assert_eq!(check(text.as_bytes()), [animseq::E_FORMAT_INVALID]);
}

#[test]
fn huge_tokens_give_short_messages() {
    let digits = "1".repeat(5_000_000);
    let ident = "x".repeat(5_000_000);
    for text in [
        format!("AnimSeq(id: \"s\", name: \"S\", duration: {digits}.5.5, tracks: [])"),
        format!("AnimSeq(id: \"s\", name: \"S\", duration: 0x{digits}, tracks: [])"),
        format!("AnimSeq(id: \"s\", name: \"S\", duration: 1.0, tracks: [], {ident}: 1)"),
        format!("AnimSeq(id: \"s\", name: \"S\", duration: 1.0, tracks: [], target: {ident})"),
    ] {
        let l = load_bytes("huge.animseq", text.as_bytes());
        assert!(l.seq.is_none());
        for d in &l.diagnostics {
            let notes: usize = d.notes.iter().map(String::len).sum();
            assert!(d.message.len() + notes < 1000, "{}", &d.message[..200]);
        }
    }
    // A huge but valid number is fine.
    let text = format!("AnimSeq(id: \"s\", name: \"S\", duration: 0.{digits}5, tracks: [])");
    assert!(load_bytes("huge.animseq", text.as_bytes()).seq.is_some());
}
