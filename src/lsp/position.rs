//! The one place where byte offsets and LSP positions meet: a line index over a document's
//! text. LSP positions are 0-based lines and 0-based `character`s counted in UTF-16 code units
//! (the protocol's default encoding); Sinew's spans are byte ranges. Every conversion the
//! server makes goes through [`LineIndex`].

use crate::diag::Span;
use lsp_types::{Position, Range};

/// Byte offsets of the start of every line of one text.
#[derive(Clone, Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex {
            starts,
            len: text.len(),
        }
    }

    /// The LSP position of byte `offset` of `text` (clamped to the text, snapped back to a
    /// char boundary).
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(self.len).min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.starts[line];
        let character: usize = text[start..offset].chars().map(char::len_utf16).sum();
        Position::new(
            u32::try_from(line).unwrap_or(u32::MAX),
            u32::try_from(character).unwrap_or(u32::MAX),
        )
    }

    /// The LSP range of a byte span of `text`.
    pub fn range(&self, text: &str, span: Span) -> Range {
        Range::new(
            self.position(text, span.start as usize),
            self.position(text, span.end as usize),
        )
    }

    /// The byte offset of an LSP position: `None` past the last line; a `character` past the
    /// line's end (or inside a surrogate pair) is clamped to the line's end (the char's start).
    pub fn offset(&self, text: &str, pos: Position) -> Option<usize> {
        let line = usize::try_from(pos.line).ok()?;
        let start = *self.starts.get(line)?;
        let end = self
            .starts
            .get(line + 1)
            .map_or(self.len, |&e| e - 1)
            .min(text.len());
        let mut units = 0usize;
        for (i, c) in text[start..end].char_indices() {
            let next = units + c.len_utf16();
            if next > pos.character as usize {
                return Some(start + i);
            }
            units = next;
        }
        // At or past the line end; a `\r` before the `\n` belongs to the line break.
        Some(
            if text[start..end].ends_with('\r') && pos.character as usize >= units {
                end - 1
            } else {
                end
            },
        )
    }

    /// The range of the whole text.
    pub fn whole(&self, text: &str) -> Range {
        Range::new(Position::new(0, 0), self.position(text, text.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_count_utf16_units_and_round_trip() {
        let text = "a👣é\nxé😀z\r\nlast";
        let ix = LineIndex::new(text);
        // `z` on line 1: x(1) é(1) 😀(2) → character 4.
        let z = text.find('z').unwrap();
        assert_eq!(ix.position(text, z), Position::new(1, 4));
        assert_eq!(ix.offset(text, Position::new(1, 4)), Some(z));
        // After 👣 on line 0: a(1) + 2 units.
        let e = text.find('é').unwrap();
        assert_eq!(ix.position(text, e), Position::new(0, 3));
        assert_eq!(ix.offset(text, Position::new(0, 3)), Some(e));
        // Inside the surrogate pair: the char's start.
        assert_eq!(ix.offset(text, Position::new(0, 2)), Some(1));
        // Past the line end: the end of the line, before `\r\n`.
        assert_eq!(ix.offset(text, Position::new(1, 99)), Some(z + 1));
        assert_eq!(
            ix.offset(text, Position::new(0, 99)),
            Some(text.find('\n').unwrap())
        );
        // Past the last line: nothing.
        assert_eq!(ix.offset(text, Position::new(3, 0)), None);
        assert_eq!(ix.offset(text, Position::new(2, 9)), Some(text.len()));
        assert_eq!(ix.whole(text).end, Position::new(2, 4));
    }

    #[test]
    fn an_empty_text_has_one_empty_line() {
        let ix = LineIndex::new("");
        assert_eq!(ix.offset("", Position::new(0, 5)), Some(0));
        assert_eq!(ix.offset("", Position::new(1, 0)), None);
        assert_eq!(ix.position("", 10), Position::new(0, 0));
    }
}
