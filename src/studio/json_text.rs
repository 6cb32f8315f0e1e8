//! A large text as a JSON string, fast (issue 28: the `source` a `PUT /api/clip` answers is the
//! whole saved clip, 5 MB and more). The bytes are the ones `serde_json` writes for the same
//! `&str` (tested on random texts); the difference is the scan: eight bytes at a time while
//! none needs escaping, where `serde_json` looks each byte up in a table.

/// What a byte is written as when it must be escaped: `b'u'` for `\u00XX`, else the letter after
/// the backslash; `0`: as itself.
const fn escape(b: u8) -> u8 {
    match b {
        0x08 => b'b',
        b'\t' => b't',
        b'\n' => b'n',
        0x0C => b'f',
        b'\r' => b'r',
        b'"' => b'"',
        b'\\' => b'\\',
        0x00..=0x1F => b'u',
        _ => 0,
    }
}

const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);

/// Whether a byte of `w` is zero (exact as "any", the classic test).
fn has_zero(w: u64) -> bool {
    w.wrapping_sub(ONES) & !w & HIGHS != 0
}

/// Whether one of the eight bytes of `w` needs escaping: below 0x20, `"` or `\`.
fn needs_escape(w: u64) -> bool {
    let below_space = w.wrapping_sub(ONES * 0x20) & !w & HIGHS != 0;
    below_space || has_zero(w ^ (ONES * u64::from(b'"'))) || has_zero(w ^ (ONES * u64::from(b'\\')))
}

/// Appends `s` to `out` as a JSON string, quotes included.
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let b = s.as_bytes();
    out.reserve(b.len() + b.len() / 32 + 2);
    out.push(b'"');
    let (mut run, mut i) = (0, 0);
    while i < b.len() {
        if let Some(word) = b.get(i..i + 8) {
            let mut w = [0u8; 8];
            w.copy_from_slice(word);
            if !needs_escape(u64::from_ne_bytes(w)) {
                i += 8;
                continue;
            }
        }
        let c = b[i];
        let e = escape(c);
        if e != 0 {
            out.extend_from_slice(&b[run..i]);
            if e == b'u' {
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(c >> 4)]);
                out.push(HEX[usize::from(c & 0xF)]);
            } else {
                out.push(b'\\');
                out.push(e);
            }
            run = i + 1;
        }
        i += 1;
    }
    out.extend_from_slice(&b[run..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ours(s: &str) -> String {
        let mut out = Vec::new();
        write_str(&mut out, s);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn every_byte_class_is_written_as_serde_json_writes_it() {
        let all: String = (0u8..=0x7F).map(char::from).collect();
        for s in [
            String::new(),
            all.clone(),
            all.repeat(3),
            "é \u{2028} 日本 \"q\" \\ \n\r\t".repeat(5),
            "        (0.0, (0.0123, 0.0456, 0.0789, 0.9961)),\n".repeat(40),
        ] {
            assert_eq!(ours(&s), serde_json::to_string(&s).unwrap(), "{s:?}");
        }
    }

    proptest! {
        /// Any text, at any alignment of its special bytes.
        #[test]
        fn any_text_is_written_as_serde_json_writes_it(s in "(.|\n|\"|\\\\|[\u{0}-\u{1f}]){0,200}") {
            prop_assert_eq!(ours(&s), serde_json::to_string(&s).unwrap());
        }
    }
}
