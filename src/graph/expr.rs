//! The `expr "…"` language: lexer (logos), parser to a small tree, and the reference evaluator.
//!
//! Grammar (lowest precedence first; binary operators are left-associative):
//! `sum = product (("+" | "-") product)*`, `product = unary (("*" | "/" | "%") unary)*`,
//! `unary = "-" unary | primary`, `primary = NUMBER | "pi" | NAME | FUNC "(" args ")" | "(" sum ")"`.
//! `NUMBER` is `[0-9]+(.[0-9]*)?` or `.[0-9]+`, each with an optional exponent. Function names
//! and `pi` are reserved; every other name is a free input, numbered in order of first
//! appearance. Spans are relative to the decoded string contents; [`map_span`] maps them into
//! the file. Parsing is bounded: [`MAX_NESTING`] levels of parentheses/unary/call nesting and a
//! tree at most [`MAX_HEIGHT`] high, so neither parsing, evaluating nor dropping can overflow
//! the stack.

use super::ast::{Ident, StrLit};
use super::parser::{E_NUMBER_OUT_OF_RANGE, E_UNEXPECTED_CHAR};
use crate::diag::{Diagnostic, SourceFile, Span};
use logos::Logos;

pub use crate::diag::codes::expr::*;

/// Most nested parentheses, unary minus and calls inside one another.
pub const MAX_NESTING: usize = 64;
/// Greatest height of the expression tree (long operator chains count too).
pub const MAX_HEIGHT: usize = 256;

/// One expression tree node with its span (relative to the string contents).
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

/// What an expression node computes.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A finite float literal.
    Num(f64),
    /// The constant `pi`.
    Pi,
    /// The free input with this index into [`ParsedExpr::inputs`].
    Input(usize),
    Neg(Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// A call; the argument count matches [`Func::arity`].
    Call(Func, Vec<Expr>),
}

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    /// Rust's `%` on f64 (remainder with the sign of the dividend).
    Rem,
}

/// A built-in function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    Sin,
    Cos,
    Tan,
    Abs,
    Sqrt,
    Floor,
    Ceil,
    Min,
    Max,
    Clamp,
    Lerp,
    Pow,
}

impl Func {
    /// Every function.
    pub const ALL: [Func; 12] = [
        Func::Sin,
        Func::Cos,
        Func::Tan,
        Func::Abs,
        Func::Sqrt,
        Func::Floor,
        Func::Ceil,
        Func::Min,
        Func::Max,
        Func::Clamp,
        Func::Lerp,
        Func::Pow,
    ];
    /// The function's name in expressions.
    pub fn name(self) -> &'static str {
        match self {
            Func::Sin => "sin",
            Func::Cos => "cos",
            Func::Tan => "tan",
            Func::Abs => "abs",
            Func::Sqrt => "sqrt",
            Func::Floor => "floor",
            Func::Ceil => "ceil",
            Func::Min => "min",
            Func::Max => "max",
            Func::Clamp => "clamp",
            Func::Lerp => "lerp",
            Func::Pow => "pow",
        }
    }
    /// How many arguments it takes.
    pub fn arity(self) -> usize {
        match self {
            Func::Min | Func::Max | Func::Pow => 2,
            Func::Clamp | Func::Lerp => 3,
            _ => 1,
        }
    }
    /// The function with that name.
    pub fn from_name(name: &str) -> Option<Func> {
        Func::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// A parsed expression and its free inputs (names with the span of their first appearance).
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedExpr {
    pub root: Expr,
    pub inputs: Vec<Ident>,
}

/// Why an expression does not parse; `span` is relative to the string contents.
#[derive(Clone, Debug, PartialEq)]
pub struct ExprError {
    pub code: &'static str,
    pub message: String,
    pub span: Span,
    pub notes: Vec<String>,
}

#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq)]
#[logos(skip r"[ \t\r\n\f]+")]
enum ETok {
    #[regex(r"[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]+)?")]
    #[regex(r"\.[0-9]+([eE][+-]?[0-9]+)?")]
    Num,
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*")]
    Name,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token(",")]
    Comma,
    Error,
}

/// Parses an expression (the decoded string contents).
pub fn parse(text: &str) -> Result<ParsedExpr, ExprError> {
    let mut toks = Vec::new();
    let mut lexer = ETok::lexer(text);
    while let Some(r) = lexer.next() {
        let mut range = lexer.span();
        let kind = r.unwrap_or(ETok::Error);
        if kind == ETok::Error {
            while range.end < text.len() && !text.is_char_boundary(range.end) {
                range.end += 1;
            }
            let c = text.get(range.clone()).and_then(|s| s.chars().next());
            return Err(ExprError {
                code: E_UNEXPECTED_CHAR,
                message: format!("unexpected character {:?} in expression", c.unwrap_or('?')),
                span: Span::new(range.start, range.end),
                notes: Vec::new(),
            });
        }
        toks.push((kind, Span::new(range.start, range.end)));
    }
    let mut p = ExprParser {
        text,
        toks,
        pos: 0,
        nesting: 0,
        inputs: Vec::new(),
    };
    let (root, _) = p.sum()?;
    if p.pos < p.toks.len() {
        return Err(p.expected("an operator or the end of the expression"));
    }
    Ok(ParsedExpr {
        root,
        inputs: p.inputs,
    })
}

/// Parses the expression of a string subject; an error becomes one diagnostic (in the `Vec`)
/// pointing inside the string in `src`.
pub fn parse_lit(src: &SourceFile, lit: &StrLit) -> Result<ParsedExpr, Vec<Diagnostic>> {
    parse(&lit.value).map_err(|e| {
        let span = map_span(src.text(), lit.content_span, e.span);
        let mut d = Diagnostic::error(e.code, e.message).at(src, span);
        for n in e.notes {
            d = d.with_note(n);
        }
        vec![d]
    })
}

/// Maps a span relative to a string literal's decoded value into the file, given the literal's
/// raw `content_span` (escapes take two bytes in the file and one in the value).
pub fn map_span(file_text: &str, content_span: Span, rel: Span) -> Span {
    let raw = file_text.get(content_span.range()).unwrap_or("");
    let base = content_span.start as usize;
    let map = |target: u32| -> usize {
        let target = target as usize;
        let (mut raw_i, mut dec_i) = (0usize, 0usize);
        let bytes = raw.as_bytes();
        while raw_i < bytes.len() && dec_i < target {
            let step = if bytes[raw_i] == b'\\' { 2 } else { 1 };
            raw_i += step;
            dec_i += 1;
        }
        base + raw_i.min(bytes.len())
    };
    Span::new(map(rel.start), map(rel.end))
}

struct ExprParser<'a> {
    text: &'a str,
    toks: Vec<(ETok, Span)>,
    pos: usize,
    nesting: usize,
    inputs: Vec<Ident>,
}

type Parsed = Result<(Expr, usize), ExprError>;

impl ExprParser<'_> {
    fn peek(&self) -> Option<ETok> {
        self.toks.get(self.pos).map(|t| t.0)
    }

    fn slice(&self, span: Span) -> &str {
        self.text.get(span.range()).unwrap_or("")
    }

    fn expected(&self, what: &str) -> ExprError {
        match self.toks.get(self.pos) {
            Some(&(_, span)) => {
                let mut found: String = self.slice(span).chars().take(32).collect();
                if found.len() < span.range().len() {
                    found.push('…');
                }
                ExprError {
                    code: E_EXPR_SYNTAX,
                    message: format!("expected {what}, found `{found}`"),
                    span,
                    notes: Vec::new(),
                }
            }
            None => ExprError {
                code: E_EXPR_SYNTAX,
                message: format!("expected {what}, found the end of the expression"),
                span: Span::point(self.text.len()),
                notes: Vec::new(),
            },
        }
    }

    fn enter(&mut self, span: Span) -> Result<(), ExprError> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return Err(too_deep(span, format!("{MAX_NESTING} levels of nesting")));
        }
        Ok(())
    }

    fn node(kind: ExprKind, span: Span, height: usize) -> Parsed {
        if height > MAX_HEIGHT {
            return Err(too_deep(span, format!("a tree height of {MAX_HEIGHT}")));
        }
        Ok((Expr { kind, span }, height))
    }

    /// A left-associative chain of `next` operands joined by the operators `op` recognises.
    fn binary(
        &mut self,
        op: fn(Option<ETok>) -> Option<BinOp>,
        next: fn(&mut Self) -> Parsed,
    ) -> Parsed {
        let (mut lhs, mut h) = next(self)?;
        while let Some(op) = op(self.peek()) {
            self.pos += 1;
            let (rhs, rh) = next(self)?;
            let span = lhs.span.join(rhs.span);
            (lhs, h) = Self::node(
                ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                span,
                h.max(rh) + 1,
            )?;
        }
        Ok((lhs, h))
    }

    fn sum(&mut self) -> Parsed {
        self.binary(
            |t| match t {
                Some(ETok::Plus) => Some(BinOp::Add),
                Some(ETok::Minus) => Some(BinOp::Sub),
                _ => None,
            },
            Self::product,
        )
    }

    fn product(&mut self) -> Parsed {
        self.binary(
            |t| match t {
                Some(ETok::Star) => Some(BinOp::Mul),
                Some(ETok::Slash) => Some(BinOp::Div),
                Some(ETok::Percent) => Some(BinOp::Rem),
                _ => None,
            },
            Self::unary,
        )
    }

    fn unary(&mut self) -> Parsed {
        if self.peek() != Some(ETok::Minus) {
            return self.primary();
        }
        let start = self.toks[self.pos].1;
        self.pos += 1;
        self.enter(start)?;
        let (inner, h) = self.unary()?;
        self.nesting -= 1;
        let span = start.join(inner.span);
        Self::node(ExprKind::Neg(Box::new(inner)), span, h + 1)
    }

    fn primary(&mut self) -> Parsed {
        let Some(&(tok, span)) = self.toks.get(self.pos) else {
            return Err(self.expected("an expression"));
        };
        match tok {
            ETok::Num => {
                self.pos += 1;
                match self.slice(span).parse::<f64>() {
                    Ok(v) if v.is_finite() => Ok((
                        Expr {
                            kind: ExprKind::Num(v),
                            span,
                        },
                        1,
                    )),
                    _ => Err(ExprError {
                        code: E_NUMBER_OUT_OF_RANGE,
                        message: "number out of range".to_string(),
                        span,
                        notes: vec!["a number must be finite as an f64".to_string()],
                    }),
                }
            }
            ETok::LParen => {
                self.pos += 1;
                self.enter(span)?;
                let (inner, h) = self.sum()?;
                if self.peek() != Some(ETok::RParen) {
                    return Err(self.expected("`)`"));
                }
                self.pos += 1;
                self.nesting -= 1;
                Ok((inner, h))
            }
            ETok::Name => {
                self.pos += 1;
                let name = self.slice(span).to_string();
                let called = self.peek() == Some(ETok::LParen);
                if called {
                    return self.call(name, span);
                }
                if name == "pi" {
                    return Ok((
                        Expr {
                            kind: ExprKind::Pi,
                            span,
                        },
                        1,
                    ));
                }
                if Func::from_name(&name).is_some() {
                    return Err(ExprError {
                        code: E_EXPR_SYNTAX,
                        message: format!("`{name}` is a function; call it as `{name}(…)`"),
                        span,
                        notes: Vec::new(),
                    });
                }
                let index = match self.inputs.iter().position(|i| i.name == name) {
                    Some(i) => i,
                    None => {
                        self.inputs.push(Ident { name, span });
                        self.inputs.len() - 1
                    }
                };
                Ok((
                    Expr {
                        kind: ExprKind::Input(index),
                        span,
                    },
                    1,
                ))
            }
            _ => Err(self.expected("an expression")),
        }
    }

    /// Parses `( args )` after a function name at `name_span`.
    fn call(&mut self, name: String, name_span: Span) -> Parsed {
        let Some(func) = Func::from_name(&name) else {
            let mut notes = Vec::new();
            if name == "pi" {
                return Err(ExprError {
                    code: E_EXPR_SYNTAX,
                    message: "`pi` is a constant, not a function".to_string(),
                    span: name_span,
                    notes,
                });
            }
            if let Some(best) = suggest(&name) {
                notes.push(format!("did you mean `{best}`?"));
            }
            let names: Vec<&str> = Func::ALL.iter().map(|f| f.name()).collect();
            notes.push(format!("the functions are: {}", names.join(", ")));
            return Err(ExprError {
                code: E_EXPR_UNKNOWN_FUNCTION,
                message: format!("unknown function `{name}`"),
                span: name_span,
                notes,
            });
        };
        self.pos += 1; // `(`
        self.enter(name_span)?;
        let mut args = Vec::new();
        let mut height = 0;
        if self.peek() != Some(ETok::RParen) {
            loop {
                let (arg, h) = self.sum()?;
                height = height.max(h);
                args.push(arg);
                match self.peek() {
                    Some(ETok::Comma) => self.pos += 1,
                    Some(ETok::RParen) => break,
                    _ => return Err(self.expected("`,` or `)`")),
                }
            }
        }
        let close = self.toks[self.pos].1;
        self.pos += 1;
        self.nesting -= 1;
        let span = name_span.join(close);
        if args.len() != func.arity() {
            return Err(ExprError {
                code: E_EXPR_ARITY,
                message: format!(
                    "`{name}` takes {} argument{}, found {}",
                    func.arity(),
                    if func.arity() == 1 { "" } else { "s" },
                    args.len()
                ),
                span,
                notes: Vec::new(),
            });
        }
        Self::node(ExprKind::Call(func, args), span, height + 1)
    }
}

fn too_deep(span: Span, limit: String) -> ExprError {
    ExprError {
        code: E_EXPR_TOO_DEEP,
        message: format!("expression nests too deeply (the limit is {limit})"),
        span,
        notes: vec!["split it over several `expr` nodes".to_string()],
    }
}

/// The closest function name within optimal-string-alignment distance max(2, len/3).
fn suggest(name: &str) -> Option<&'static str> {
    crate::suggest::closest(name, Func::ALL.iter().map(|f| f.name()))
}

/// Evaluates a parsed expression: the reference semantics the compiled code must match.
///
/// IEEE f64 throughout (division by zero gives ±inf or NaN); `%` is Rust's `%` on f64;
/// `min`/`max` are `f64::min`/`f64::max` (a NaN operand yields the other one);
/// `clamp(v, lo, hi)` is `v.max(lo).min(hi)` (never panics, `hi` wins when `lo > hi`);
/// `lerp(a, b, t)` is `a + (b - a) * t`; `pow` is `powf`; `pi` is `std::f64::consts::PI`.
/// `inputs[i]` is input `i`; a missing input reads as `0.0`.
pub fn eval(expr: &Expr, inputs: &[f64]) -> f64 {
    match &expr.kind {
        ExprKind::Num(v) => *v,
        ExprKind::Pi => std::f64::consts::PI,
        ExprKind::Input(i) => inputs.get(*i).copied().unwrap_or(0.0),
        ExprKind::Neg(e) => -eval(e, inputs),
        ExprKind::Binary(op, a, b) => {
            let (a, b) = (eval(a, inputs), eval(b, inputs));
            match op {
                BinOp::Add => a + b,
                BinOp::Sub => a - b,
                BinOp::Mul => a * b,
                BinOp::Div => a / b,
                BinOp::Rem => a % b,
            }
        }
        ExprKind::Call(f, args) => {
            let arg = |i: usize| args.get(i).map_or(0.0, |e| eval(e, inputs));
            match f {
                Func::Sin => arg(0).sin(),
                Func::Cos => arg(0).cos(),
                Func::Tan => arg(0).tan(),
                Func::Abs => arg(0).abs(),
                Func::Sqrt => arg(0).sqrt(),
                Func::Floor => arg(0).floor(),
                Func::Ceil => arg(0).ceil(),
                Func::Min => arg(0).min(arg(1)),
                Func::Max => arg(0).max(arg(1)),
                Func::Clamp => arg(0).max(arg(1)).min(arg(2)),
                Func::Lerp => {
                    let (a, b, t) = (arg(0), arg(1), arg(2));
                    a + (b - a) * t
                }
                Func::Pow => arg(0).powf(arg(1)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses `text`, evaluates with `inputs` (by name) and compares with `expected`.
    fn check(text: &str, inputs: &[(&str, f64)], expected: f64) {
        let p = parse(text).unwrap_or_else(|e| panic!("{text:?}: {e:?}"));
        let values: Vec<f64> = p
            .inputs
            .iter()
            .map(|i| {
                inputs
                    .iter()
                    .find(|(n, _)| *n == i.name)
                    .map_or(f64::NAN, |x| x.1)
            })
            .collect();
        let got = eval(&p.root, &values);
        assert!(
            got == expected || (got.is_nan() && expected.is_nan()),
            "{text:?} = {got}, expected {expected}"
        );
    }

    fn check_err(text: &str, code: &str, span: std::ops::Range<usize>) {
        let e = parse(text).expect_err(text);
        assert_eq!((e.code, e.span.range()), (code, span), "{text:?}: {e:?}");
    }

    #[test]
    fn precedence_and_associativity() {
        check("1 + 2 * 3", &[], 7.0);
        check("10 - 4 - 3", &[], 3.0);
        check("2 * -3", &[], -6.0);
        check("-2 * 3 + 1", &[], -5.0);
        check("(1 + 2) * 3", &[], 9.0);
        check("7 % 4 / 2", &[], 1.5);
        check("-7 % 4", &[], -3.0);
        check("1 / 0", &[], f64::INFINITY);
        check("0 / 0", &[], f64::NAN);
        check(".5e1 + 1.", &[], 6.0);
    }

    #[test]
    fn functions_and_inputs() {
        check("clamp(x, 0, 1)", &[("x", 3.0)], 1.0);
        check("clamp(x, 1, 0)", &[("x", 0.5)], 0.0);
        check("lerp(a, b, 0.25)", &[("a", 2.0), ("b", 6.0)], 3.0);
        check(
            "pow(2, 10) + max(a, b) - min(a, b)",
            &[("a", 1.0), ("b", 4.0)],
            1027.0,
        );
        check("floor(-1.5) + ceil(1.2) + abs(-3) + sqrt(16)", &[], 7.0);
        check("sin(0) + cos(0) + tan(0)", &[], 1.0);
        check("pi", &[], std::f64::consts::PI);
    }

    #[test]
    fn inputs_in_order_of_first_appearance() {
        let p = parse("speed * b + speed - a").expect("parses");
        let names: Vec<&str> = p.inputs.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["speed", "b", "a"]);
        assert_eq!(p.inputs[1].span.range(), 8..9);
    }

    #[test]
    fn errors_point_at_the_problem() {
        check_err("", E_EXPR_SYNTAX, 0..0);
        check_err("1 +", E_EXPR_SYNTAX, 3..3);
        check_err("(1 + 2", E_EXPR_SYNTAX, 6..6);
        check_err("1 2", E_EXPR_SYNTAX, 2..3);
        check_err("sinn(1)", E_EXPR_UNKNOWN_FUNCTION, 0..4);
        check_err("pow(1)", E_EXPR_ARITY, 0..6);
        check_err("sin", E_EXPR_SYNTAX, 0..3);
        check_err("pi(1)", E_EXPR_SYNTAX, 0..2);
        check_err("a $ b", E_UNEXPECTED_CHAR, 2..3);
        check_err("1e999", E_NUMBER_OUT_OF_RANGE, 0..5);
        check_err("é", E_UNEXPECTED_CHAR, 0..2);
    }

    #[test]
    fn unknown_function_suggests_a_close_name() {
        let e = parse("clmap(1, 2, 3)").expect_err("unknown");
        assert!(
            e.notes.iter().any(|n| n == "did you mean `clamp`?"),
            "{e:?}"
        );
    }

    #[test]
    fn deep_input_is_a_diagnostic() {
        for text in [
            "(".repeat(100_000),
            "-".repeat(100_000) + "1",
            "sin(".repeat(1000),
            "1".to_string() + &"+1".repeat(100_000),
        ] {
            let e = parse(&text).expect_err("too deep");
            assert_eq!(e.code, E_EXPR_TOO_DEEP);
        }
        assert!(parse(&("(".repeat(MAX_NESTING) + "1" + &")".repeat(MAX_NESTING))).is_ok());
        let nested = "(".repeat(MAX_NESTING + 1) + "1" + &")".repeat(MAX_NESTING + 1);
        assert_eq!(parse(&nested).map_err(|e| e.code), Err(E_EXPR_TOO_DEEP));
    }

    #[test]
    fn map_span_accounts_for_escapes() {
        // file: `expr "a\"b + c"`; contents start at byte 6; value is `a"b + c`.
        let file = "expr \"a\\\"b + c\"";
        let content = Span::new(6, file.len() - 1);
        let rel = Span::new(6, 7); // `c` in the value
        assert_eq!(&file[map_span(file, content, rel).range()], "c");
    }
}
