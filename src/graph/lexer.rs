//! The `.bpg` lexer: source text to spanned tokens (logos), comments kept for the formatter.
//!
//! The lexer never fails: characters it cannot place become [`Tok::Error`] tokens (a run of them
//! is merged into one), an unterminated string becomes [`Tok::Str`] with `terminated == false`,
//! and the parser turns both into diagnostics. Keywords are not tokens: `graph`, `var`, `node`,
//! `at`, `true`, … are [`Tok::Ident`] and the parser gives them meaning by position.

use crate::diag::Span;
use logos::Logos;

/// The kind of one token. Its text is `&src[span]`.
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq)]
#[logos(skip r"[ \t\r\n\f]+")]
pub enum Tok {
    /// `[A-Za-z_][A-Za-z0-9_]*` (also every contextual keyword).
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*")]
    Ident,
    /// `-?[0-9]+`
    #[regex(r"-?[0-9]+")]
    Int,
    /// `-?[0-9]+.[0-9]+` with an optional exponent, or `-?[0-9]+e[0-9]+`.
    #[regex(r"-?[0-9]+\.[0-9]+([eE][+-]?[0-9]+)?")]
    #[regex(r"-?[0-9]+[eE][+-]?[0-9]+")]
    Float,
    /// A double-quoted string on one line; `false` when the line or file ended first. A CR
    /// ends a line like LF does (lone or before LF), as editors show it.
    #[token("\"", lex_string)]
    Str(bool),
    /// `animseq::ID.ID` as one token (IDs may start with a digit and contain `-`).
    #[regex(r"animseq::[A-Za-z0-9][A-Za-z0-9_-]*\.[A-Za-z0-9][A-Za-z0-9_-]*")]
    AnimseqRef,
    /// `custom::IDENT` as one token.
    #[regex(r"custom::[A-Za-z_][A-Za-z0-9_]*")]
    CustomRef,
    /// `// …` to the end of the line (the line break — LF, CR LF or a lone CR — is not part of
    /// it: a lone CR is a line break in every editor, so text after it is never comment text).
    #[regex(r"//[^\r\n]*", allow_greedy = true)]
    Comment,
    #[token("=")]
    Eq,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token(",")]
    Comma,
    #[token(".")]
    Dot,
    #[token(":")]
    Colon,
    #[token("::")]
    ColonColon,
    #[token("->")]
    Arrow,
    /// One or more characters no token starts with (merged into one token).
    Error,
}

/// Scans a string body after the opening quote; `true` when the closing quote was found.
/// Stops before a line break, LF or CR (strings do not span lines); `\` escapes the next byte.
fn lex_string(lex: &mut logos::Lexer<Tok>) -> bool {
    let rest = lex.remainder().as_bytes();
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            b'"' => {
                lex.bump(i + 1);
                return true;
            }
            b'\n' | b'\r' => break,
            b'\\' if rest.get(i + 1).is_some_and(|&b| b != b'\n' && b != b'\r') => i += 2,
            _ => i += 1,
        }
    }
    let end = i.min(rest.len());
    lex.bump(end);
    false
}

/// One token: kind, byte span, and whether it is the first token on its line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: Tok,
    pub span: Span,
    /// True when only whitespace precedes it on its line (always true for the first token).
    pub line_start: bool,
}

/// The tokens of a source text, with comments split off (both in source order).
#[derive(Clone, Debug, Default)]
pub struct Tokens {
    /// Every token except comments.
    pub tokens: Vec<Token>,
    /// Every `//` comment; `line_start` tells an own-line comment from an end-of-line one.
    pub comments: Vec<Token>,
}

/// A leading UTF-8 byte-order mark, which every text input tolerates (editors on some platforms
/// write one; `ron_span` skips it the same way) and the formatter keeps.
pub const BOM: char = '\u{feff}';

/// Lexes `src` completely (linear time, never fails). A leading [`BOM`] is skipped.
pub fn lex(src: &str) -> Tokens {
    let mut out = Tokens::default();
    let mut lexer = Tok::lexer(src);
    let start = if src.starts_with(BOM) {
        lexer.bump(BOM.len_utf8());
        BOM.len_utf8()
    } else {
        0
    };
    let mut prev_end = start;
    while let Some(res) = lexer.next() {
        let mut range = lexer.span();
        let kind = res.unwrap_or(Tok::Error);
        if kind == Tok::Error {
            // Extend to a char boundary so spans never split a UTF-8 sequence.
            while range.end < src.len() && !src.is_char_boundary(range.end) {
                range.end += 1;
            }
            if range.end > lexer.span().end {
                lexer.bump(range.end - lexer.span().end);
            }
        }
        let gap = src.get(prev_end..range.start).unwrap_or("");
        let line_start = prev_end == start && out.tokens.is_empty() && out.comments.is_empty()
            || gap.contains(['\n', '\r']);
        prev_end = range.end;
        let span = Span::new(range.start, range.end);
        if kind == Tok::Comment {
            out.comments.push(Token {
                kind,
                span,
                line_start,
            });
            continue;
        }
        // Merge a run of adjacent error characters into one token.
        if kind == Tok::Error
            && let Some(last) = out.tokens.last_mut()
            && last.kind == Tok::Error
            && last.span.end == span.start
        {
            last.span.end = span.end;
            continue;
        }
        out.tokens.push(Token {
            kind,
            span,
            line_start,
        });
    }
    out
}

/// Decodes the body of a string token (`raw` excludes the quotes). On an invalid escape returns
/// the byte range of the escape within `raw`.
pub fn unescape(raw: &str) -> Result<String, std::ops::Range<usize>> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.char_indices();
    while let Some((i, c)) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some((_, '"')) => out.push('"'),
            Some((_, '\\')) => out.push('\\'),
            Some((_, 'n')) => out.push('\n'),
            Some((j, e)) => return Err(i..j + e.len_utf8()),
            None => return Err(i..i + 1),
        }
    }
    Ok(out)
}

/// Writes `s` as a string literal body: escapes `\`, `"` and newline, keeps everything else.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(src: &str, expected: &[(Tok, &str)]) {
        let toks = lex(src);
        let got: Vec<(Tok, &str)> = toks
            .tokens
            .iter()
            .map(|t| (t.kind, &src[t.span.range()]))
            .collect();
        assert_eq!(got, expected, "lexing {src:?}");
    }

    #[test]
    fn event_refs_are_single_tokens() {
        check(
            "event animseq::5c1e8d0a-3f2b-4a51-9c67-2b8e4d7f1a10.footstep_l",
            &[
                (Tok::Ident, "event"),
                (
                    Tok::AnimseqRef,
                    "animseq::5c1e8d0a-3f2b-4a51-9c67-2b8e4d7f1a10.footstep_l",
                ),
            ],
        );
        check("custom::hit", &[(Tok::CustomRef, "custom::hit")]);
    }

    #[test]
    fn incomplete_event_ref_falls_back_to_pieces() {
        check(
            "animseq::abc",
            &[
                (Tok::Ident, "animseq"),
                (Tok::ColonColon, "::"),
                (Tok::Ident, "abc"),
            ],
        );
        check(
            "custom::9",
            &[
                (Tok::Ident, "custom"),
                (Tok::ColonColon, "::"),
                (Tok::Int, "9"),
            ],
        );
    }

    #[test]
    fn numbers_and_arrows() {
        check(
            "-1 2.5 -0.5e3 1e16 a->b -",
            &[
                (Tok::Int, "-1"),
                (Tok::Float, "2.5"),
                (Tok::Float, "-0.5e3"),
                (Tok::Float, "1e16"),
                (Tok::Ident, "a"),
                (Tok::Arrow, "->"),
                (Tok::Ident, "b"),
                (Tok::Error, "-"),
            ],
        );
    }

    #[test]
    fn strings_stop_at_line_end() {
        check(
            "\"a\\\"b\" \"open\nx",
            &[
                (Tok::Str(true), "\"a\\\"b\""),
                (Tok::Str(false), "\"open"),
                (Tok::Ident, "x"),
            ],
        );
        check("\"ends \\", &[(Tok::Str(false), "\"ends \\")]);
    }

    #[test]
    fn error_runs_merge_and_respect_char_boundaries() {
        check(
            "a ééé\0 b",
            &[(Tok::Ident, "a"), (Tok::Error, "ééé\0"), (Tok::Ident, "b")],
        );
    }

    #[test]
    fn comments_are_split_off_with_line_start() {
        let t = lex("// top\nx // end\n  // own");
        let c: Vec<bool> = t.comments.iter().map(|c| c.line_start).collect();
        assert_eq!(c, [true, false, true]);
        assert!(t.tokens[0].line_start);
    }

    #[test]
    fn unescape_round_trips_escape() {
        for s in ["", "a\"b", "\\", "line\nbreak", "é\t\0"] {
            assert_eq!(unescape(&escape(s)).as_deref(), Ok(s));
        }
        assert_eq!(unescape("ab\\t"), Err(2..4));
        assert_eq!(unescape("\\é"), Err(0..3));
    }
}
