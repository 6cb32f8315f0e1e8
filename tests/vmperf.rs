//! Issue 30: the instructions the VM executes for the two programs of `benches/vm_compare.rs`
//! (the footstep handler and the arithmetic loop, `tests/fixtures/graphs/vm`). Counted exactly
//! through the instruction budget (the smallest budget an invocation completes with), so the
//! superinstructions the compiler emits are guarded without timing anything.

use sinew::bytecode::{Value, VerifiedModule};
use sinew::catalog::Catalog;
use sinew::diag::SourceFile;
use sinew::vm::{InstanceState, NullHost, Outcome, Vm};

fn module(name: &str) -> VerifiedModule {
    let path = format!("tests/fixtures/graphs/vm/{name}");
    let text = std::fs::read_to_string(&path).expect("fixture");
    let c = sinew::compile::compile(&SourceFile::new(&path, text), &Catalog::from_entries([]));
    c.module
        .unwrap_or_else(|| panic!("{name}: {:#?}", c.checked.diagnostics))
}

/// Instructions one invocation of `event`'s handler executes from `state` (which it then
/// leaves as that invocation does): the smallest budget it completes with.
fn executed(m: &VerifiedModule, st: &mut InstanceState, event: &str) -> u64 {
    let h = m.handler_index(event).expect("handler");
    let payload = [Value::Entity(None)];
    let mut vm = Vm::new();
    let mut run = |budget: u64| {
        let mut trial = st.clone();
        match vm.run_handler(m, &mut trial, h, &payload, &mut NullHost, budget) {
            Outcome::Completed => Some(trial),
            Outcome::Error(e) if e.message.contains("budget") => None,
            other => panic!("{event}: {other:?}"),
        }
    };
    let (mut lo, mut hi) = (0, 100_000);
    assert!(
        run(hi).is_some(),
        "{event} needs more than {hi} instructions"
    );
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if run(mid).is_some() {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    *st = run(hi).expect("completes");
    hi
}

fn int(m: &VerifiedModule, st: &InstanceState, name: &str) -> i64 {
    let i = m
        .module()
        .vars
        .iter()
        .position(|v| v.name == name)
        .expect("var");
    match st.vars()[i] {
        Value::Int(x) => x,
        ref v => panic!("{name}: {v:?}"),
    }
}

/// The footstep handler: one variable update, the stored output, the remainder, one compare
/// and branch and `ret` (12 instructions before, 15 on a loud step); a loud step adds the
/// stored output's read and the second `var.set`.
#[test]
fn footstep_handler_runs_six_instructions_eight_when_loud() {
    let m = module("footsteps.bpg");
    let mut st = InstanceState::new(&m, 1);
    let counts: Vec<u64> = (0..8)
        .map(|_| executed(&m, &mut st, "custom::footstep"))
        .collect();
    assert_eq!(counts, [6, 6, 6, 8, 6, 6, 6, 8]);
    assert_eq!(
        (int(&m, &st, "steps"), int(&m, &st, "last_loud_step")),
        (8, 8)
    );
}

/// The arithmetic loop: one instruction per iteration (`for.var.add.i`, the body's variable
/// update looping on itself; two before, `var.add.i` + `for.next`, and four before that).
#[test]
fn sum_loop_runs_one_instruction_per_iteration() {
    let m = module("sum_loop.bpg");
    let mut st = InstanceState::new(&m, 1);
    let n = executed(&m, &mut st, "custom::run");
    assert_eq!(int(&m, &st, "sum"), 499_500);
    // Setup (`var.set` of 0, the range test, the counter and bound) and `ret` are a handful.
    assert!((1_000..1_010).contains(&n), "{n} instructions");
}

/// The compiler writes every register before reading it, and the verifier proves it for every
/// handler of every fixture, so the VM zeroes no registers before running them.
#[test]
fn compiled_handlers_need_no_register_reset() {
    let live = sinew::catalog::scan::LiveCatalog::scan(
        std::path::Path::new("tests/fixtures/catalog"),
        None,
        None,
    )
    .expect("fixture catalog");
    let mut handlers = 0;
    for dir in [
        "tests/fixtures/graphs/ok",
        "tests/fixtures/graphs/vm",
        "graphs/demo",
    ] {
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .expect(dir)
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "bpg"))
            .collect();
        paths.sort();
        for p in paths {
            let text = std::fs::read_to_string(&p).expect("read");
            let src = SourceFile::new(p.to_string_lossy(), text);
            let Some(m) = sinew::compile::compile(&src, live.catalog()).module else {
                continue;
            };
            for (h, hd) in m.module().handlers.iter().enumerate() {
                assert!(
                    !m.needs_reset(h),
                    "{}: {} may read a register unwritten",
                    p.display(),
                    hd.event
                );
                handlers += 1;
            }
        }
    }
    assert!(handlers >= 15, "{handlers} handlers");
}
