//! Which sequence a broken `.animseq` file declares: the real cause of an "unknown event".
//!
//! A file that does not load publishes nothing, so every graph node naming one of its events
//! reads "unknown event" — and a designer believes the notify was deleted. To point at the file
//! instead, the catalog keeps, for a file that failed to load, the sequence ID it *appears* to
//! declare: the first `id: "…"` field at the top level of its outer struct, found by a lenient
//! scan that skips strings and comments and tracks bracket depth (so a syntax error further
//! down does not hide it). Linear, bounded by the text, never fails.

/// The top-level `id: "…"` of a RON text, if one can be seen.
pub fn claimed_id(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
            }
            b'"' => i = string_end(b, i + 1),
            b'(' | b'[' | b'{' => {
                depth += 1;
                i += 1;
            }
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                if depth == 1 && &b[start..i] == b"id" {
                    let mut j = skip_ws(b, i);
                    if b.get(j) == Some(&b':') {
                        j = skip_ws(b, j + 1);
                        if b.get(j) == Some(&b'"') {
                            let end = string_end(b, j + 1);
                            // An unterminated string (the line or the text ended) claims nothing.
                            if end < j + 2 || b[end - 1] != b'"' {
                                return None;
                            }
                            let value = text.get(j + 1..end - 1)?;
                            return (!value.is_empty() && !value.contains('\\'))
                                .then(|| value.to_string());
                        }
                    }
                }
            }
            _ => i += 1,
        }
    }
    None
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// The index after the closing quote of a string whose body starts at `i` (or the end).
fn string_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            b'\n' => return i,
            _ => i += 1,
        }
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::claimed_id;

    #[test]
    fn the_top_level_id_is_found_past_a_later_syntax_error() {
        let text = "AnimSeq(\n  format: 3, // id: \"no\"\n  name: \"id: x\",\n  notifies: [(id: \"inner\")],\n  id: \"run\",\n  duration: 1.0 oops,\n";
        assert_eq!(claimed_id(text).as_deref(), Some("run"));
        assert_eq!(claimed_id("AnimSeq(id: 3)"), None);
        assert_eq!(claimed_id("(id: \"unterminated"), None);
        assert_eq!(claimed_id(""), None);
    }
}
