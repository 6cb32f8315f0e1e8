//! The deferred mode: [`parse_lazy`] checks every list but keeps none of its items, and
//! [`ListItems`] ([`Value::items`]) reads a list's items again from its text, one at a time, so a
//! large file (an `.animseq`'s keys) never becomes a tree.

use super::{ParseError, Parser, parse_with};
use crate::ron_span::value::Value;

/// [`parse`](super::parse) with deferred lists: every list is read and checked (syntax, nesting) but its
/// items are not kept — its value is an empty `List` with the list's span — so the tree holds
/// only the structure around the lists, whatever their length. [`ListItems`] reads a list's
/// items again one at a time ([`Value::items`]). Readers of large files (`.animseq`) use it to
/// stay within a small multiple of the file's size.
pub fn parse_lazy(text: &str) -> Result<Value, ParseError> {
    parse_with(text, true)
}

/// The items of a list read again from its text, one at a time ([`Value::items`]); nested
/// lists inside them are deferred too. Ends at the list's `]` (or at an error, which cannot
/// happen for a list [`parse_lazy`] has read).
pub struct ListItems<'a> {
    inner: Items<'a>,
}

enum Items<'a> {
    Kept(std::slice::Iter<'a, Value>),
    Text(Parser<'a>, usize),
}

impl<'a> ListItems<'a> {
    /// The items of `list` (a `List` value read from `text`): its kept items, or, when it has
    /// none, those its text holds.
    pub(in crate::ron_span) fn new(
        text: &'a str,
        list: &'a Value,
        kept: &'a [Value],
    ) -> ListItems<'a> {
        let inner =
            if kept.is_empty() && text.as_bytes().get(list.span.start as usize) == Some(&b'[') {
                let p = Parser {
                    src: text,
                    bytes: text.as_bytes(),
                    pos: list.span.start as usize + 1,
                    lazy: true,
                };
                Items::Text(p, (list.span.end as usize).min(text.len()))
            } else {
                Items::Kept(kept.iter())
            };
        ListItems { inner }
    }
}

impl Iterator for ListItems<'_> {
    type Item = Value;

    fn next(&mut self) -> Option<Value> {
        match &mut self.inner {
            Items::Kept(it) => it.next().cloned(),
            Items::Text(p, end) => {
                p.skip_trivia().ok()?;
                if p.pos >= *end || p.peek() == Some(b']') {
                    return None;
                }
                let item = p.value(0).ok()?;
                p.skip_trivia().ok()?;
                if p.peek() == Some(b',') {
                    p.pos += 1;
                }
                Some(item)
            }
        }
    }
}

impl Parser<'_> {
    /// A list's items (after its `[`) read and checked, then dropped: the list's value keeps
    /// only its span ([`parse_lazy`]).
    pub(super) fn deferred_list(&mut self, depth: usize) -> Result<(), ParseError> {
        self.seq(b']', depth, drop)
    }
}
