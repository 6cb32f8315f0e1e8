//! `sinew::ron_span` against the `ron` crate: both read the same samples to the same tree
//! (compared in a normal form, since `ron::Value` forgets struct and variant names).

use sinew::ron_span::{self, Value, ValueKind};

/// A shape both readers can be reduced to.
#[derive(Debug, PartialEq)]
enum N {
    Bool(bool),
    Num(f64),
    Str(String),
    Seq(Vec<N>),
    Map(Vec<(N, N)>),
    Opt(Option<Box<N>>),
    Unit,
}

fn from_ours(v: &Value) -> N {
    match &v.kind {
        ValueKind::Bool(b) => N::Bool(*b),
        ValueKind::Int(i) => N::Num(*i as f64),
        ValueKind::Float { f64, .. } => N::Num(*f64),
        ValueKind::Str(s) => N::Str(s.clone()),
        ValueKind::Ident(n) if n == "None" => N::Opt(None),
        ValueKind::Ident(_) => N::Unit,
        ValueKind::Tuple {
            name: Some(n),
            items,
            ..
        } if n.text == "Some" && items.len() == 1 => N::Opt(Some(Box::new(from_ours(&items[0])))),
        ValueKind::Tuple { items, .. } if items.is_empty() => N::Unit,
        ValueKind::Tuple { items, .. } | ValueKind::List(items) => {
            N::Seq(items.iter().map(from_ours).collect())
        }
        ValueKind::Struct { fields, .. } => N::Map(
            fields
                .iter()
                .map(|f| (N::Str(f.name.clone()), from_ours(&f.value)))
                .collect(),
        ),
        ValueKind::Map(entries) => N::Map(
            entries
                .iter()
                .map(|(k, v)| (from_ours(k), from_ours(v)))
                .collect(),
        ),
    }
}

fn from_ron(v: ron::Value) -> N {
    match v {
        ron::Value::Bool(b) => N::Bool(b),
        ron::Value::Number(n) => N::Num(n.into_f64()),
        ron::Value::String(s) => N::Str(s),
        ron::Value::Seq(items) => N::Seq(items.into_iter().map(from_ron).collect()),
        ron::Value::Map(m) => N::Map(
            m.into_iter()
                .map(|(k, v)| (from_ron(k), from_ron(v)))
                .collect(),
        ),
        ron::Value::Option(o) => N::Opt(o.map(|b| Box::new(from_ron(*b)))),
        ron::Value::Unit => N::Unit,
        other => panic!("unexpected ron value {other:?}"),
    }
}

/// Both readers accept `text` and agree on its tree.
fn check(text: &str) {
    let ours = ron_span::parse(text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
    let theirs: ron::Value = ron::from_str(text).unwrap_or_else(|e| panic!("ron: {text}: {e}"));
    let mut a = from_ours(&ours);
    let mut b = from_ron(theirs);
    sort_maps(&mut a);
    sort_maps(&mut b);
    assert_eq!(a, b, "{text}");
}

/// `ron::Value::Map` is ordered by key; put ours in the same order.
fn sort_maps(n: &mut N) {
    match n {
        N::Seq(items) => items.iter_mut().for_each(sort_maps),
        N::Map(entries) => {
            for (k, v) in entries.iter_mut() {
                sort_maps(k);
                sort_maps(v);
            }
            entries.sort_by(|a, b| format!("{:?}", a.0).cmp(&format!("{:?}", b.0)));
        }
        N::Opt(Some(b)) => sort_maps(b),
        _ => {}
    }
}

#[test]
fn scalars() {
    for s in [
        "true",
        "false",
        "0",
        "-17",
        "+5",
        "1_000_000",
        "0x1F",
        "0o17",
        "0b1011",
        "-0x10",
        "1.5",
        "-2.25",
        "1e3",
        "2.5e-3",
        "1E10",
        "\"\"",
        "\"plain\"",
    ] {
        check(s);
    }
}

#[test]
fn strings_and_escapes() {
    check(r#""tab\tnew\nquote\"back\\slash\u{1F600}\x41\0""#);
    check(r##"r#"raw "quoted" \n"#"##);
    check("\"multi\nline\"");
    check("\"unicode: héllo ☃\"");
}

#[test]
fn containers() {
    check("[1, 2, 3,]");
    check("[]");
    check("(1, \"a\", true)");
    check("{\"a\": 1, \"b\": [2, 3]}");
    check("{1: \"one\", 2: \"two\",}");
    check("Some(3)");
    check("None");
    check("[Some([1]), None]");
    check("Point(x: 1.5, y: -2.5)");
    check("(x: 1, y: 2,)");
    check("Wrapper([1, 2])");
    check("[(1, 2), (3, 4)]");
}

#[test]
fn comments_and_whitespace() {
    check("// line\n[1, /* block /* nested */ */ 2]\n// trailing");
    check("\t\r\n ( a : 1 , b : 2 ) \n");
}

#[test]
fn the_example_assets() {
    for name in ["idle", "walk", "run"] {
        let path = format!("{}/assets/{name}.animseq", env!("CARGO_MANIFEST_DIR"));
        check(&std::fs::read_to_string(path).expect("asset"));
    }
}
