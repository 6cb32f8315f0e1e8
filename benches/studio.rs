//! The studio: the `POST /api/check` handler on a 1,000-node graph (in process, on a running
//! studio's state), side by side with the compiler's own compile of the same text, and
//! the cost of recording node execution (the debugger) next to the plain VM entry point.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use sinew::cli::Ctx;
use sinew::studio::{self, Config, http::Limits};
use sinew::vm::{DEFAULT_BUDGET, InstanceState, NodeTrace, NullHost, Outcome, Vm};

#[path = "../tests/support/sum_loop.rs"]
mod sum_loop_module;
use sum_loop_module::sum_loop;

/// A 1,000-node graph: 25 chains of 40 `int.add` nodes, each at a position.
fn big_graph() -> String {
    let mut s = String::from("graph big\n\n");
    for i in 0..1000 {
        s.push_str(&format!(
            "node n{i} = int.add {{ b = {i} }} at ({}, {})\n",
            (i % 40) * 260,
            (i / 40) * 120
        ));
    }
    s.push('\n');
    for i in 1..1000 {
        if i % 40 != 0 {
            s.push_str(&format!("n{}.out -> n{i}.a\n", i - 1));
        }
    }
    s
}

fn check_1000(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    for d in ["assets", "graphs", "scenes"] {
        std::fs::create_dir(dir.path().join(d)).expect("mkdir");
    }
    let text = big_graph();
    std::fs::write(dir.path().join("graphs/big.bpg"), &text).expect("write");
    let ctx = Ctx {
        color: false,
        cwd: Some(dir.path().to_path_buf()),
    };
    let running = studio::start(
        &ctx,
        &Config {
            assets: dir.path().join("assets"),
            graphs: dir.path().join("graphs"),
            scenes: dir.path().join("scenes"),
            port: 0,
            limits: Limits::default(),
        },
    )
    .expect("studio starts");
    let port = running.addr.port();
    let model =
        sinew::graph::model::Model::parse(&sinew::diag::SourceFile::new("big.bpg", text.clone()))
            .expect("parses");
    assert_eq!(model.nodes.len(), 1000);
    let body = serde_json::json!({"path": "big.bpg", "model": model})
        .to_string()
        .into_bytes();
    let catalog = sinew::catalog::Catalog::default();
    let mut g = c.benchmark_group("studio/check_1000_nodes");
    g.sample_size(30);
    let state = running.state().clone();
    let request = || studio::http::Request {
        method: "POST".into(),
        path: "/api/check".into(),
        query: Vec::new(),
        headers: vec![
            ("host".into(), format!("127.0.0.1:{port}")),
            ("x-sinew-token".into(), running.token.clone()),
            ("content-type".into(), "application/json".into()),
        ],
        body: body.clone(),
    };
    g.bench_function("api_check_in_process", |b| {
        b.iter(|| {
            let r = studio::api::handle(&state, request());
            assert_eq!(r.status, 200);
            r
        })
    });
    g.bench_function("compile_only", |b| {
        b.iter(|| {
            let src = sinew::diag::SourceFile::new("big.bpg", black_box(text.as_str()));
            sinew::compile::compile(&src, &catalog)
        })
    });
    g.finish();
    running.stop();
}

fn recording(c: &mut Criterion) {
    let sum = sinew::bytecode::verify(sum_loop(999)).expect("verifies");
    let mut vm = Vm::new();
    let mut st = InstanceState::new(&sum, 0);
    let mut g = c.benchmark_group("studio/vm_recording_sum_0_1000");
    g.bench_function("run_handler", |b| {
        b.iter(|| {
            let o = vm.run_handler(&sum, &mut st, 0, &[], &mut NullHost, DEFAULT_BUDGET);
            assert_eq!(o, Outcome::Completed);
        })
    });
    g.bench_function("run_handler_recorded", |b| {
        b.iter(|| {
            let mut t = NodeTrace::default();
            let o = vm.run_handler_recorded(
                &sum,
                &mut st,
                0,
                &[],
                &mut NullHost,
                DEFAULT_BUDGET,
                &mut t,
            );
            assert_eq!(o, Outcome::Completed);
            t
        })
    });
    g.finish();
}

criterion_group!(benches, check_1000, recording);
criterion_main!(benches);
