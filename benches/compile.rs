//! Compiler throughput: one generated 10,000-node graph, and 1,000 typical (20–50 node) graphs
//! checked in parallel as `sinew check` does.

use criterion::{Criterion, criterion_group, criterion_main};
use rayon::prelude::*;
use sinew::catalog::Catalog;
use sinew::compile;
use sinew::diag::SourceFile;
use std::fmt::Write as _;

/// A graph of `n` nodes: `n / 4` handlers-worth of chains (tick → log ← concat ← from_int ← add).
fn big_graph(n: usize) -> String {
    let mut s = String::from("graph big\n\nvar total: int = 0\n\nnode tick = event tick\n");
    let groups = n / 4;
    for i in 0..groups {
        writeln!(s, "node log{i} = debug.log").unwrap();
        writeln!(s, "node cat{i} = string.concat {{ a = \"step \" }}").unwrap();
        writeln!(s, "node str{i} = string.from_int").unwrap();
        writeln!(s, "node add{i} = int.add {{ a = {i}, b = 1 }}").unwrap();
    }
    s.push('\n');
    writeln!(s, "tick.then -> log0.exec").unwrap();
    for i in 0..groups {
        writeln!(s, "add{i}.out -> str{i}.a").unwrap();
        writeln!(s, "str{i}.out -> cat{i}.b").unwrap();
        writeln!(s, "cat{i}.out -> log{i}.message").unwrap();
        if i + 1 < groups {
            writeln!(s, "log{i}.then -> log{}.exec", i + 1).unwrap();
        }
    }
    s
}

/// A typical graph: ~30 nodes of mixed kinds.
fn typical(k: usize) -> String {
    let mut s = format!(
        "graph g{k}\n\nvar steps: int = 0\nvar speed: float = 1.5\n\nnode start = event begin_play\nnode tick = event tick\n"
    );
    s.push_str(
        "node get = var.get steps\nnode inc = int.add { b = 1 }\nnode set = var.set steps\n",
    );
    s.push_str("node gs = var.get speed\nnode ex = expr \"speed * dt + sin(dt)\"\nnode setf = var.set speed\n");
    s.push_str("node cmp = int.gt { b = 100 }\nnode br = flow.branch\nnode reset = var.set steps { value = 0 }\n");
    s.push_str("node seq = flow.sequence { count = 3 }\nnode loop = flow.for { first = 0, last = 3 }\nnode once = flow.do_once\n");
    s.push_str("node log = debug.log { message = \"start\" }\nnode log2 = debug.log\nnode str = string.from_int\nnode cat = string.concat { a = \"steps: \" }\n");
    s.push_str("node ff = flow.flip_flop\nnode v = vec3.make { x = 1 }\nnode len = vec3.length\nnode sf = string.from_float\nnode log3 = debug.log\n");
    s.push_str("node gate = flow.gate\nnode state = anim.set_state { state = \"move\" }\nnode param = anim.set_param { name = \"speed\" }\n\n");
    s.push_str("start.then -> log.exec\ntick.then -> seq.exec\nseq.then_0 -> set.exec\nget.value -> inc.a\ninc.out -> set.value\n");
    s.push_str(
        "set.then -> br.exec\nset.value -> cmp.a\ncmp.out -> br.condition\nbr.true -> reset.exec\n",
    );
    s.push_str("seq.then_1 -> setf.exec\ngs.value -> ex.speed\ntick.dt -> ex.dt\nex.out -> setf.value\nsetf.then -> param.exec\nsetf.value -> param.value\n");
    s.push_str("seq.then_2 -> loop.exec\nloop.body -> ff.exec\nff.a -> log2.exec\nloop.index -> str.a\nstr.out -> cat.b\ncat.out -> log2.message\n");
    s.push_str("ff.b -> gate.enter\ngate.exit -> log3.exec\nv.out -> len.v\nlen.out -> sf.a\nsf.out -> log3.message\nloop.completed -> once.exec\nonce.then -> state.exec\n");
    s
}

fn bench(c: &mut Criterion) {
    let catalog = Catalog::default();
    let big = SourceFile::new("big.bpg", big_graph(10_000));
    let r = compile::compile(&big, &catalog);
    assert!(r.module.is_some(), "{:?}", r.diagnostics().first());
    let mut g = c.benchmark_group("compile");
    g.sample_size(20);
    g.bench_function("graph_10000_nodes", |b| {
        b.iter(|| compile::compile(&big, &catalog))
    });
    let many: Vec<SourceFile> = (0..1000)
        .map(|k| SourceFile::new(format!("g{k}.bpg"), typical(k)))
        .collect();
    let r = compile::compile(&many[0], &catalog);
    assert!(r.module.is_some(), "{:?}", r.diagnostics());
    g.bench_function("check_1000_typical_graphs_parallel", |b| {
        b.iter(|| {
            many.par_iter()
                .map(|s| compile::compile(s, &catalog).diagnostics().len())
                .sum::<usize>()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
