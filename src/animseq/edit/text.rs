//! The text side of clip edits: one list of the root struct (`notifies` or `windows`) edited at
//! the spans `ron_span` gives — values replaced, fields and items inserted, items deleted.

use super::{EditError, Entry, Marker, default_text};
use crate::animseq::migrate::Edits;
use crate::ron_span::{self, Field, Value, ValueKind};

/// What editing one list of the root struct needs.
pub(super) struct ListCtx<'a> {
    pub(super) text: &'a str,
    pub(super) root: &'a Value,
    pub(super) fields: &'a [Field],
    pub(super) eol: &'a str,
}

/// The root fields in the order the writer writes them.
const ROOT_ORDER: [&str; 10] = [
    "format",
    "id",
    "name",
    "duration",
    "skeleton",
    "tracks",
    "notifies",
    "windows",
    "curves",
    "root_motion",
];

impl ListCtx<'_> {
    /// The blanks that start the line `at` is on, when only blanks precede `at` there.
    fn indent_at(&self, at: usize) -> Option<&str> {
        let start = self.text[..at].rfind('\n').map_or(0, |i| i + 1);
        let ind = &self.text[start..at];
        ind.chars().all(|c| c == ' ' || c == '\t').then_some(ind)
    }

    /// The `,` right after `v` (past whitespace and comments), if there is one.
    fn comma_after(&self, end: usize) -> Option<usize> {
        let at = ron_span::trivia_end(self.text, end);
        (self.text.as_bytes().get(at) == Some(&b',')).then_some(at)
    }

    /// Where text appended after position `p` on its line goes: before the line's end (before
    /// a `\r\n`), or `p` when `limit` (a closing bracket) comes first.
    fn line_end(&self, p: usize, limit: usize) -> usize {
        match self.text[p..limit.max(p)].find('\n') {
            Some(i) => {
                let at = p + i;
                if at > 0 && self.text.as_bytes()[at - 1] == b'\r' {
                    at - 1
                } else {
                    at
                }
            }
            None => p,
        }
    }

    pub(super) fn edit_list<M: Marker>(
        &self,
        name: &str,
        list: &[Entry<M>],
        ed: &mut Edits,
    ) -> Result<(), EditError> {
        let lost = |m: String| EditError::NotLossless(m);
        let field = self.fields.iter().find(|f| f.name == name);
        let items: Vec<Value> = match field {
            Some(f) => f
                .value
                .items(self.text)
                .map_err(|e| lost(e.message().to_string()))?
                .collect(),
            None => Vec::new(),
        };
        if items.len() != list.iter().filter(|e| e.orig.is_some()).count() {
            return Err(lost(format!("the {name} list does not match its text")));
        }
        let b = self.text.as_bytes();
        let blank = |c: u8| c == b' ' || c == b'\t';
        for e in list.iter().filter(|e| e.orig.is_some()) {
            let item = &items[e.orig.unwrap_or(0)];
            if e.removed {
                let start = item.span.start as usize;
                match self.comma_after(item.span.end as usize) {
                    Some(comma) => {
                        let mut end = comma + 1;
                        while end < b.len() && blank(b[end]) {
                            end += 1;
                        }
                        if self.text[end..].starts_with("//") {
                            end = self.line_end(end, self.text.len());
                            if end < b.len() && b[end] != b'\n' && b[end] != b'\r' {
                                end = b.len();
                            }
                        }
                        ed.delete(start..end);
                    }
                    None => {
                        let mut s = start;
                        while s > 0 && blank(b[s - 1]) {
                            s -= 1;
                        }
                        ed.delete(s..item.span.end as usize);
                    }
                }
                continue;
            }
            if e.touched.is_empty() {
                continue;
            }
            let ValueKind::Struct { fields, .. } = &item.kind else {
                return Err(lost(format!("a {} is not a struct", M::WHAT)));
            };
            let Some(last) = fields.last() else {
                return Err(lost(format!("a {} has no fields", M::WHAT)));
            };
            for &f in &e.touched {
                let new = e.value.field_text(f);
                match fields.iter().find(|x| x.name == f) {
                    Some(x) => ed.replace(
                        x.value.span.range(),
                        new.unwrap_or_else(|| default_text(f).to_string()),
                    ),
                    None => {
                        if let Some(t) = new {
                            let at = last.value.span.end as usize;
                            ed.replace(at..at, format!(", {f}: {t}"));
                        }
                    }
                }
            }
        }
        let new: Vec<String> = list
            .iter()
            .filter(|e| e.orig.is_none() && !e.removed)
            .map(|e| e.value.item_text())
            .collect();
        if new.is_empty() {
            return Ok(());
        }
        let eol = self.eol;
        match (field, items.last()) {
            (Some(f), Some(last)) => {
                let list_start = f.value.span.start as usize;
                let list_end = (f.value.span.end as usize).saturating_sub(1);
                let first = items[0].span.start as usize;
                let multiline = self.text[list_start..first].contains('\n');
                let last_removed = list
                    .iter()
                    .any(|e| e.orig == Some(items.len() - 1) && e.removed);
                let end = last.span.end as usize;
                let comma = self.comma_after(end);
                let lead = if comma.is_none() && !last_removed {
                    ","
                } else {
                    ""
                };
                if multiline {
                    let ind = self
                        .indent_at(last.span.start as usize)
                        .unwrap_or("        ")
                        .to_string();
                    let p = comma.map_or(end, |c| c + 1);
                    let at = self.line_end(p, list_end);
                    let mut t = String::from(lead);
                    for item in &new {
                        t.push_str(&format!("{eol}{ind}{item},"));
                    }
                    // `lead` belongs right after the item, before anything else on its line.
                    if lead.is_empty() || at == end {
                        ed.replace(at..at, t);
                    } else {
                        ed.replace(end..end, lead.to_string());
                        ed.replace(at..at, t[lead.len()..].to_string());
                    }
                } else {
                    let mut t = String::new();
                    for item in &new {
                        t.push_str(", ");
                        t.push_str(item);
                    }
                    if comma.is_none() && last_removed {
                        t.drain(..2);
                        t.push(',');
                    }
                    ed.replace(end..end, t);
                }
            }
            (Some(f), None) => {
                // An empty list: the items on their own lines before its `]`.
                let ind = self
                    .indent_at(f.name_span.start as usize)
                    .unwrap_or("    ")
                    .to_string();
                let close = (f.value.span.end as usize).saturating_sub(1);
                let mut t = String::new();
                for item in &new {
                    t.push_str(&format!("{eol}{ind}    {item},"));
                }
                t.push_str(eol);
                t.push_str(&ind);
                ed.replace(close..close, t);
            }
            (None, _) => {
                // No such field: a new one after the last field the writer puts before it.
                let rank = |n: &str| ROOT_ORDER.iter().position(|x| *x == n).unwrap_or(99);
                let mine = rank(name);
                let anchor = self
                    .fields
                    .iter()
                    .rfind(|x| rank(&x.name) < mine)
                    .or(self.fields.last())
                    .ok_or_else(|| lost("the root has no fields".into()))?;
                let ind = self
                    .indent_at(anchor.name_span.start as usize)
                    .unwrap_or("    ")
                    .to_string();
                let end = anchor.value.span.end as usize;
                let root_end = (self.root.span.end as usize).saturating_sub(1);
                let mut t = format!("{eol}{ind}{name}: [");
                for item in &new {
                    t.push_str(&format!("{eol}{ind}    {item},"));
                }
                t.push_str(&format!("{eol}{ind}],"));
                match self.comma_after(end) {
                    Some(c) => {
                        let at = self.line_end(c + 1, root_end);
                        ed.replace(at..at, t);
                    }
                    None => {
                        ed.replace(end..end, ",".to_string());
                        let at = self.line_end(end, root_end);
                        ed.replace(at..at, t);
                    }
                }
            }
        }
        Ok(())
    }
}
