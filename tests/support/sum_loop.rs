//! The hand-written sum loop module shared by `tests/bytecode.rs` (semantics, budget
//! exactness) and `benches/vm.rs` (throughput).

use sinew::bytecode::{B, Const, HandlerBuilder, I, Instr, Module, ModuleBuilder, Reg};

fn ldc(h: &mut HandlerBuilder, v: i64) -> Reg<I> {
    let r = h.reg::<I>();
    let c = h.module().const_int(v);
    h.emit(Instr::LdcI { dst: r, c });
    r
}

/// `for i in 0..=last { sum += i }` in registers, then `sum` stored into variable 0: five
/// instructions per iteration (`int.gt`, `jmp_if`, `int.add` ×2, `jmp`).
pub fn sum_loop(last: i64) -> Module {
    let mut mb = ModuleBuilder::new("sum");
    let out = mb.var::<I>("sum", Const::Int(0));
    let mut h = mb.handler("tick", &[]);
    h.at_node("for");
    let (i, sum, one, last_r) = (
        h.reg::<I>(),
        h.reg::<I>(),
        ldc(&mut h, 1),
        ldc(&mut h, last),
    );
    let c = h.reg::<B>();
    let (top, done) = (h.label(), h.label());
    h.bind(top);
    h.emit(Instr::IntGt {
        dst: c,
        a: i,
        b: last_r,
    });
    h.emit(Instr::JmpIf {
        cond: c,
        target: done.target(),
    });
    h.at_node("add");
    h.emit(Instr::IntAdd {
        dst: sum,
        a: sum,
        b: i,
    });
    h.at_node("for");
    h.emit(Instr::IntAdd {
        dst: i,
        a: i,
        b: one,
    });
    h.emit(Instr::Jmp {
        target: top.target(),
    });
    h.bind(done);
    h.at_node("set");
    h.emit(Instr::VarSetI { var: out, src: sum });
    h.emit(Instr::Ret {});
    h.finish().expect("labels bound");
    mb.finish()
}
