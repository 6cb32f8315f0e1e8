//! `for.var.add.i` (issue 30): a `flow.for` whose body is one `var.add.i` runs as one
//! instruction that loops on itself. Checked against the same loop written as `var.add.i` +
//! `for.next` on the VM: the same variables at every budget, and running out of budget at the
//! same instruction (the loop's pc) after the same number of iterations — the fused loop charges
//! one instruction per iteration where the two-instruction loop charges two.

use sinew::bytecode::{
    Const, DEFAULT_BUDGET, HandlerBuilder, I, Instr, ModuleBuilder, Reg, Value, VerifiedModule,
    verify,
};
use sinew::vm::{InstanceState, NullHost, Outcome, Vm};

/// Instructions before the loop (four `ldc.i`) and after it (two `var.set.i`, `ret`).
const SETUP: u64 = 4;
const AFTER: u64 = 3;

/// Which registers the loop's operands name (aliasing included: the verifier allows it).
#[derive(Clone, Copy, Debug)]
enum R {
    Counter,
    Last,
    Dst,
    Other,
}

/// `counter = first; last; dst = 5; other = 3; loop { var += b (into dst) } ; out = dst;
/// count = counter`, the loop fused or as `var.add.i` + `for.next`.
fn module(fused: bool, first: i64, last: i64, dst: R, b: R) -> VerifiedModule {
    let mut mb = ModuleBuilder::new("loop");
    let var = mb.var::<I>("sum", Const::Int(10));
    let out = mb.var::<I>("out", Const::Int(0));
    let count = mb.var::<I>("count", Const::Int(0));
    let mut h = mb.handler("tick", &[]);
    h.at_node("setup");
    let ldc = |h: &mut HandlerBuilder, v: i64| {
        let r = h.reg::<I>();
        let c = h.module().const_int(v);
        h.emit(Instr::LdcI { dst: r, c });
        r
    };
    let regs: [Reg<I>; 4] = [
        ldc(&mut h, first),
        ldc(&mut h, last),
        ldc(&mut h, 5),
        ldc(&mut h, 3),
    ];
    let pick = |r: R| regs[r as usize];
    let (counter, lastr) = (regs[0], regs[1]);
    h.at_node("loop");
    let top = h.label();
    h.bind(top);
    if fused {
        h.emit(Instr::ForVarAddI {
            dst: pick(dst),
            var,
            b: pick(b),
            counter,
            last: lastr,
        });
    } else {
        h.emit(Instr::VarAddI {
            dst: pick(dst),
            var,
            b: pick(b),
        });
        h.emit(Instr::ForNext {
            counter,
            last: lastr,
            target: top.target(),
        });
    }
    h.at_node("out");
    h.emit(Instr::VarSetI {
        var: out,
        src: pick(dst),
    });
    h.emit(Instr::VarSetI {
        var: count,
        src: counter,
    });
    h.emit(Instr::Ret {});
    h.finish().expect("handler");
    verify(mb.finish()).expect("verifies")
}

/// The outcome (completed, or the pc and node of the error) and the variables after running
/// with `budget`.
fn run(m: &VerifiedModule, budget: u64) -> (Result<(), (u32, String)>, Vec<Value>) {
    let mut st = InstanceState::new(m, 0);
    let o = Vm::new().run_handler(m, &mut st, 0, &[], &mut NullHost, budget);
    let r = match o {
        Outcome::Completed => Ok(()),
        Outcome::Error(e) => {
            assert_eq!(
                e.message,
                format!("instruction budget of {budget} exhausted")
            );
            Err((e.pc, e.node))
        }
        o => panic!("{o:?}"),
    };
    (r, st.vars().to_vec())
}

/// The smallest budget the module completes with (at most `cap`).
fn needed(m: &VerifiedModule, cap: u64) -> Option<u64> {
    (0..=cap).find(|&b| run(m, b).0.is_ok())
}

#[test]
fn fused_loop_matches_the_two_instruction_loop_at_every_budget() {
    use R::*;
    let mut shapes = 0;
    for (first, last) in [(0, 9), (5, 5), (7, 3), (-3, 4), (i64::MAX - 2, i64::MAX)] {
        for dst in [Dst, Counter, Last] {
            for b in [Counter, Dst, Other, Last] {
                let (f, x) = (
                    module(true, first, last, dst, b),
                    module(false, first, last, dst, b),
                );
                let case = format!("{first}..={last} dst {dst:?} b {b:?}");
                // Iterations of the fused loop (None: still looping after 300 instructions).
                let iters = needed(&f, 300).map(|n| n - SETUP - AFTER);
                if let Some(k) = iters {
                    assert_eq!(
                        needed(&x, 700),
                        Some(SETUP + 2 * k + AFTER),
                        "{case}: two per iteration"
                    );
                    shapes += 1;
                }
                let top = iters.map_or(200, |k| SETUP + k + AFTER);
                for budget in 0..=top {
                    // The same point of the run in the two-instruction loop.
                    let loops = budget.saturating_sub(SETUP).min(iters.unwrap_or(u64::MAX));
                    let other = budget + loops;
                    let (a, mut b2) = (run(&f, budget), run(&x, other));
                    // The code after the loop sits one pc later in the two-instruction form.
                    if let Err((pc, _)) = &mut b2.0
                        && u64::from(*pc) > SETUP
                    {
                        *pc -= 1;
                    }
                    assert_eq!(a, b2, "{case}: budget {budget} vs {other}");
                }
            }
        }
    }
    assert!(shapes >= 40, "{shapes} terminating shapes");
}

/// Out of budget inside the loop: the error names the loop instruction and exactly
/// `budget - SETUP` iterations ran (the sum of 0..k added to the variable's 10).
#[test]
fn fused_loop_runs_out_of_budget_at_the_exact_iteration() {
    let m = module(true, 0, 1_000_000, R::Dst, R::Counter);
    for k in [1u64, 2, 3, 10, 999, 50_000] {
        let (r, vars) = run(&m, SETUP + k);
        assert_eq!(r, Err((SETUP as u32, "loop".to_string())), "{k}");
        let k = k as i64;
        assert_eq!(vars[0], Value::Int(10 + k * (k - 1) / 2));
    }
    let (r, _) = run(&m, DEFAULT_BUDGET);
    assert!(r.is_err());
}
