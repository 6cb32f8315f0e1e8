//! VM throughput: bytecode handlers next to the same logic in native Rust.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use sinew::bytecode::{Const, I, Instr, Module, ModuleBuilder, verify};
use sinew::vm::{DEFAULT_BUDGET, InstanceState, NullHost, Outcome, Vm};

#[path = "../tests/support/sum_loop.rs"]
mod sum_loop_module;
use sum_loop_module::sum_loop;

/// Footstep counter: `steps += 1; if steps >= 100 { steps = 0 }` (8 or 9 instructions).
fn footstep_module() -> Module {
    let mut mb = ModuleBuilder::new("footsteps");
    let steps = mb.var::<I>("steps", Const::Int(0));
    let one = mb.const_int(1);
    let hundred = mb.const_int(100);
    let zero = mb.const_int(0);
    let mut h = mb.handler("animseq::run.footstep_l", &[]);
    h.at_node("step");
    let (n, a, b) = (h.reg::<I>(), h.reg::<I>(), h.reg::<I>());
    let c = h.reg();
    let keep = h.label();
    h.emit(Instr::VarGetI { dst: n, var: steps });
    h.emit(Instr::LdcI { dst: a, c: one });
    h.emit(Instr::IntAdd { dst: n, a: n, b: a });
    h.emit(Instr::LdcI { dst: b, c: hundred });
    h.emit(Instr::IntGe { dst: c, a: n, b });
    h.emit(Instr::JmpIfNot {
        cond: c,
        target: keep.target(),
    });
    h.emit(Instr::LdcI { dst: n, c: zero });
    h.bind(keep);
    h.emit(Instr::VarSetI { var: steps, src: n });
    h.emit(Instr::Ret {});
    h.finish().expect("labels bound");
    mb.finish()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("vm");
    let sum = verify(sum_loop(999)).expect("verifies");
    let mut vm = Vm::new();
    let mut st = InstanceState::new(&sum, 0);
    g.bench_function("sum_0_1000_bytecode", |b| {
        b.iter(|| {
            let o = vm.run_handler(&sum, &mut st, 0, &[], &mut NullHost, DEFAULT_BUDGET);
            assert_eq!(o, Outcome::Completed);
        })
    });
    g.bench_function("sum_0_1000_native", |b| {
        b.iter(|| {
            let mut s: i64 = 0;
            let mut i: i64 = 0;
            let last = black_box(999);
            while i <= last {
                s = black_box(s.wrapping_add(i));
                i += 1;
            }
            s
        })
    });

    let fs = verify(footstep_module()).expect("verifies");
    let mut st = InstanceState::new(&fs, 0);
    g.bench_function("footstep_counter_bytecode", |b| {
        b.iter(|| {
            let o = vm.run_handler(&fs, &mut st, 0, &[], &mut NullHost, DEFAULT_BUDGET);
            assert_eq!(o, Outcome::Completed);
        })
    });
    let mut steps: i64 = 0;
    g.bench_function("footstep_counter_native", |b| {
        b.iter(|| {
            let mut n = black_box(steps) + 1;
            if n >= 100 {
                n = 0;
            }
            steps = black_box(n);
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
