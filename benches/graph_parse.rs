//! Criterion benches for the `.bpg` front end: parsing and formatting large graphs.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sinew::diag::SourceFile;
use sinew::graph::{expr, format, parse};
use std::hint::black_box;

fn big_graph(nodes: usize) -> String {
    let mut text = String::from("graph big\n\nvar steps: int = 0\n\n");
    for i in 0..nodes {
        text.push_str(&format!(
            "node n{i} = int.add {{ b = {i} }} at ({i}, 0) // node {i}\n"
        ));
    }
    for i in 1..nodes {
        text.push_str(&format!("n{}.out -> n{i}.a\n", i - 1));
    }
    text
}

fn benches(c: &mut Criterion) {
    let big = SourceFile::new("big.bpg", big_graph(100_000));
    let mut g = c.benchmark_group("graph");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(big.text().len() as u64));
    g.bench_function("parse_100k_nodes", |b| b.iter(|| parse(black_box(&big))));
    let (file, _) = parse(&big);
    g.bench_function("format_100k_nodes", |b| b.iter(|| format(black_box(&file))));

    let line = SourceFile::new(
        "line.bpg",
        format!(
            "graph g\nnode a = debug.log {{ message = \"{}\" }}\n",
            "x".repeat(1 << 20)
        ),
    );
    g.throughput(Throughput::Bytes(line.text().len() as u64));
    g.bench_function("parse_1mb_string_line", |b| {
        b.iter(|| parse(black_box(&line)))
    });
    let garbage = SourceFile::new("junk.bpg", format!("graph g\n{}\n", "é(".repeat(1 << 19)));
    g.bench_function("parse_1mb_garbage_line", |b| {
        b.iter(|| parse(black_box(&garbage)))
    });
    let deep = "(".repeat(100_000);
    g.bench_function("expr_100k_open_parens", |b| {
        b.iter(|| expr::parse(black_box(&deep)))
    });
    g.finish();
}

criterion_group!(graph, benches);
criterion_main!(graph);
