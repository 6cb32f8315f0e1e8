//! Criterion benches for `sinew graph --svg` and `sinew diff` on a 10,000-node graph, side by
//! side in one run with the compiler's own parse (and check) of the same file (targets:
//! picture < 100 ms, diff against an edited copy < 50 ms; `docs/benchmarks.md`).

use criterion::{Criterion, criterion_group, criterion_main};
use sinew::catalog::Catalog;
use sinew::diag::SourceFile;
use sinew::graph::{Model, diff::diff, parse};
use std::hint::black_box;

/// A 10,000-node graph as an editor saves it: 1,250 handlers of eight nodes (event, variable
/// update, string building, branch, log), every node positioned, every handler commented.
fn big_graph(placed: bool) -> String {
    let mut nodes = String::new();
    let mut links = String::new();
    for h in 0..1250 {
        let (x, y) = (0, h * 260);
        let at = |dx: i64, dy: i64| {
            if placed {
                format!(" at ({}, {})", x + dx, y + dy)
            } else {
                String::new()
            }
        };
        nodes.push_str(&format!(
            "// handler {h}\nnode e{h} = event custom::ev{h}{}\nnode g{h} = var.get steps{}\n\
             node a{h} = int.add {{ b = {h} }}{}\nnode s{h} = var.set steps{}\n\
             node f{h} = string.from_int{}\nnode c{h} = string.concat {{ a = \"step \" }}{}\n\
             node q{h} = int.gt {{ b = 100 }}{}\nnode l{h} = debug.log{} // log it\n",
            at(0, 0),
            at(0, 120),
            at(220, 120),
            at(440, 0),
            at(660, 120),
            at(880, 120),
            at(660, 0),
            at(1100, 0),
        ));
        links.push_str(&format!(
            "e{h}.then -> s{h}.exec\ng{h}.value -> a{h}.a\na{h}.out -> s{h}.value\n\
             s{h}.value -> f{h}.a\nf{h}.out -> c{h}.b\nc{h}.out -> l{h}.message\n\
             s{h}.then -> l{h}.exec\ns{h}.value -> q{h}.a\n"
        ));
    }
    format!("graph big\n\nvar steps: int = 0\n\n{nodes}\n{links}")
}

/// The same graph edited: 200 nodes moved, 100 literals changed, 50 nodes added, 50 links
/// removed.
fn edited(text: &str) -> String {
    let mut m = Model::parse(&SourceFile::new("a.bpg", text)).unwrap();
    for (i, n) in m.nodes.iter_mut().enumerate() {
        if i % 50 == 0 {
            n.x = n.x.map(|x| x + 10);
        }
    }
    for n in m.nodes.iter_mut().filter(|n| n.kind == "int.add").take(100) {
        n.props.0[0].1 = sinew::graph::model::Value::Int(-1);
    }
    for i in 0..50 {
        let mut n = m.nodes[1].clone();
        n.id = format!("added{i}");
        m.nodes.push(n);
    }
    let keep: Vec<_> = m
        .links
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 200 != 7)
        .map(|(_, l)| l.clone())
        .collect();
    m.links = keep;
    m.to_text()
}

fn benches(c: &mut Criterion) {
    let text = big_graph(true);
    let src = SourceFile::new("big.bpg", text.as_str());
    assert_eq!(Model::parse(&src).unwrap().nodes.len(), 10_000);
    let unplaced = SourceFile::new("unplaced.bpg", big_graph(false));
    let new_text = edited(&text);
    let new_src = SourceFile::new("new.bpg", new_text.as_str());
    let catalog = Catalog::default();

    let mut g = c.benchmark_group("picture_10k");
    g.sample_size(10);
    g.bench_function("compiler_parse", |b| b.iter(|| parse(black_box(&src))));
    g.bench_function("compiler_check", |b| {
        b.iter(|| sinew::compile::check_source(black_box(&src), &catalog))
    });
    g.bench_function("graph_svg_placed", |b| {
        b.iter(|| sinew::picture::graph_svg(black_box(&src), &catalog).unwrap())
    });
    g.bench_function("graph_svg_unplaced", |b| {
        b.iter(|| sinew::picture::graph_svg(black_box(&unplaced), &catalog).unwrap())
    });
    g.bench_function("diff_parse_both_and_compare", |b| {
        b.iter(|| {
            let a = Model::parse(black_box(&src)).unwrap();
            let n = Model::parse(black_box(&new_src)).unwrap();
            diff(&a, &n)
        })
    });
    let (a, n) = (Model::parse(&src).unwrap(), Model::parse(&new_src).unwrap());
    g.bench_function("diff_compare_only", |b| {
        b.iter(|| diff(black_box(&a), black_box(&n)))
    });
    g.finish();
}

criterion_group!(picture, benches);
criterion_main!(picture);
