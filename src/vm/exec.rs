//! The interpreter loop: the hot instructions of a handler, run on the register banks under
//! the instruction budget; everything else goes out of line to [`super::rare`].

use crate::bytecode::isa::{Instr, Reg};
use crate::bytecode::types::Value;
use crate::bytecode::verify::VerifiedModule;

use super::rare::rare;
use super::regs::{BANK, Banks, Nums, ix};
use super::{
    Continuation, Host, InstanceState, Outcome, Recorder, STATE_MISMATCH, budget_exhausted, fail,
};

macro_rules! var_get {
    ($m:expr, $pc:expr, $store:expr, $idx:expr, $variant:ident) => {
        match $store.get($idx.0 as usize) {
            Some(Value::$variant(x)) => x.clone(),
            _ => return fail($m, $pc, STATE_MISMATCH),
        }
    };
}

macro_rules! var_set {
    ($m:expr, $pc:expr, $store:expr, $idx:expr, $variant:ident, $val:expr) => {
        match $store.get_mut($idx.0 as usize) {
            Some(Value::$variant(x)) => *x = $val,
            _ => return fail($m, $pc, STATE_MISMATCH),
        }
    };
}

/// `dst = op(var)`, then `var = dst`: one lookup of the variable, the value kept in a machine
/// register (the `var.*` update superinstructions).
macro_rules! var_update {
    ($m:expr, $pc:expr, $st:expr, $bank:expr, $dst:expr, $idx:expr, $variant:ident, |$x:ident| $op:expr) => {{
        let y = match $st.vars.get_mut($idx.0 as usize) {
            Some(Value::$variant(v)) => {
                let $x = *v;
                let y = $op;
                *v = y;
                y
            }
            _ => return fail($m, $pc, STATE_MISMATCH),
        };
        $bank[ix($dst.0)] = y;
    }};
}

macro_rules! param {
    ($m:expr, $pc:expr, $payload:expr, $idx:expr, $variant:ident) => {
        match $payload.get($idx.0 as usize) {
            Some(Value::$variant(x)) => x.clone(),
            _ => {
                return fail(
                    $m,
                    $pc,
                    "event payload does not match the handler's parameters",
                )
            }
        }
    };
}

/// Register `r` of `bank`, or `x` when `r` is `dst` (the value just loaded into it but not yet
/// read back from memory): the operands of a fused variable update.
#[inline(always)]
fn reg_or<T: Copy, M>(bank: &[T; BANK], r: Reg<M>, dst: Reg<M>, x: T) -> T {
    if r == dst { x } else { bank[ix(r.0)] }
}

/// The deepest nesting of `call`s one invocation may reach (exec chains under
/// `flow.sequence`, `flow.for`, `flow.branch`, …); deeper is a runtime error.
pub const MAX_CALL_DEPTH: usize = 1024;

/// Where execution stands: handler, pc and the return addresses of active calls.
pub(super) struct Frame {
    pub(super) handler: u32,
    pub(super) pc: u32,
    pub(super) stack: Vec<u32>,
}

#[allow(clippy::too_many_arguments)]
pub(super) fn exec<R: Recorder>(
    m: &VerifiedModule,
    st: &mut InstanceState,
    r: &mut Banks,
    frame: Frame,
    payload: &[Value],
    host: &mut dyn Host,
    budget: u64,
    mut rec: R,
) -> Outcome {
    let code = &m.module().code[..];
    let mut left = budget;
    let Frame {
        handler,
        mut pc,
        mut stack,
    } = frame;
    let Banks {
        n,
        s: rs,
        e: re,
        send,
        game,
    } = r;
    let n: &mut Nums = n;
    loop {
        let Some(ins) = code.get(pc as usize) else {
            return fail(m, pc, "pc outside the code");
        };
        if left == 0 {
            return budget_exhausted(m, pc, budget);
        }
        left -= 1;
        let here = pc;
        rec.at(m, here);
        pc += 1;
        macro_rules! konst {
            ($c:expr, $variant:ident) => {
                match m.const_value($c.0) {
                    Some(Value::$variant(x)) => x.clone(),
                    _ => return fail(m, here, "constant type mismatch"),
                }
            };
        }
        match *ins {
            Instr::Ret {} => match stack.pop() {
                Some(ret) => {
                    pc = ret;
                }
                None => return Outcome::Completed,
            },
            Instr::Call { target } => {
                if stack.len() >= MAX_CALL_DEPTH {
                    return fail(
                        m,
                        here,
                        format!("exec nesting deeper than {MAX_CALL_DEPTH} calls"),
                    );
                }
                stack.push(pc);
                pc = target.0;
            }
            Instr::Jmp { target } => {
                pc = target.0;
            }
            Instr::ForNext {
                counter,
                last,
                target,
            } => {
                let c = n.i[ix(counter.0)];
                if c < n.i[ix(last.0)] {
                    n.i[ix(counter.0)] = c + 1;
                    pc = target.0;
                }
            }
            Instr::JmpIf { cond, target } => {
                if n.b[ix(cond.0)] {
                    pc = target.0;
                }
            }
            Instr::JmpIfNot { cond, target } => {
                if !n.b[ix(cond.0)] {
                    pc = target.0;
                }
            }
            Instr::Delay {
                delay,
                seconds,
                busy,
            } => {
                let Some(p) = st.pending.get_mut(usize::from(delay.0)) else {
                    return fail(m, here, STATE_MISMATCH);
                };
                if *p {
                    pc = busy.0;
                    continue;
                }
                *p = true;
                let counts = m
                    .module()
                    .handlers
                    .get(handler as usize)
                    .map(|h| h.regs.map(usize::from))
                    .unwrap_or_default();
                let s = n.f[ix(seconds.0)];
                let delay_seconds = if s.is_nan() || s < 0.0 { 0.0 } else { s };
                return Outcome::Yielded {
                    delay_seconds,
                    continuation: Continuation {
                        handler,
                        pc,
                        delay: delay.0,
                        regs: r.save(counts),
                        payload: payload.to_vec(),
                        stack,
                    },
                };
            }

            Instr::MovB { dst, src } => n.b[ix(dst.0)] = n.b[ix(src.0)],
            Instr::MovI { dst, src } => n.i[ix(dst.0)] = n.i[ix(src.0)],
            Instr::MovF { dst, src } => n.f[ix(dst.0)] = n.f[ix(src.0)],
            Instr::LdcB { dst, c } => n.b[ix(dst.0)] = konst!(c, Bool),
            Instr::LdcI { dst, c } => n.i[ix(dst.0)] = konst!(c, Int),
            Instr::LdcF { dst, c } => n.f[ix(dst.0)] = konst!(c, Float),
            Instr::ParamB { dst, p } => n.b[ix(dst.0)] = param!(m, here, payload, p, Bool),
            Instr::ParamI { dst, p } => n.i[ix(dst.0)] = param!(m, here, payload, p, Int),
            Instr::ParamF { dst, p } => n.f[ix(dst.0)] = param!(m, here, payload, p, Float),
            Instr::VarGetB { dst, var } => n.b[ix(dst.0)] = var_get!(m, here, st.vars, var, Bool),
            Instr::VarGetI { dst, var } => {
                let x = var_get!(m, here, st.vars, var, Int);
                n.i[ix(dst.0)] = x;
                if m.fused(here) && left >= 2 {
                    // A variable update (see `verify::fusable`): the value stays in a machine
                    // register; each of the three instructions' effects and costs remains.
                    let pick = |n: &Nums, r| reg_or(&n.i, r, dst, x);
                    let (d, y) = match code.get(here as usize + 1) {
                        Some(&Instr::IntAdd { dst: d, a, b }) => {
                            (d, pick(n, a).wrapping_add(pick(n, b)))
                        }
                        Some(&Instr::IntSub { dst: d, a, b }) => {
                            (d, pick(n, a).wrapping_sub(pick(n, b)))
                        }
                        Some(&Instr::IntAddK { dst: d, a, b }) => {
                            (d, pick(n, a).wrapping_add(m.int_k(b)))
                        }
                        Some(&Instr::IntSubK { dst: d, a, b }) => {
                            (d, pick(n, a).wrapping_sub(m.int_k(b)))
                        }
                        _ => continue,
                    };
                    n.i[ix(d.0)] = y;
                    var_set!(m, here + 2, st.vars, var, Int, y);
                    left -= 2;
                    pc = here + 3;
                }
            }
            Instr::VarGetF { dst, var } => {
                let x = var_get!(m, here, st.vars, var, Float);
                n.f[ix(dst.0)] = x;
                if m.fused(here) && left >= 2 {
                    let pick = |n: &Nums, r| reg_or(&n.f, r, dst, x);
                    let (d, y) = match code.get(here as usize + 1) {
                        Some(&Instr::FloatAdd { dst: d, a, b }) => (d, pick(n, a) + pick(n, b)),
                        Some(&Instr::FloatSub { dst: d, a, b }) => (d, pick(n, a) - pick(n, b)),
                        Some(&Instr::FloatMul { dst: d, a, b }) => (d, pick(n, a) * pick(n, b)),
                        Some(&Instr::FloatAddK { dst: d, a, b }) => (d, pick(n, a) + m.float_k(b)),
                        Some(&Instr::FloatSubK { dst: d, a, b }) => (d, pick(n, a) - m.float_k(b)),
                        Some(&Instr::FloatMulK { dst: d, a, b }) => (d, pick(n, a) * m.float_k(b)),
                        _ => continue,
                    };
                    n.f[ix(d.0)] = y;
                    var_set!(m, here + 2, st.vars, var, Float, y);
                    left -= 2;
                    pc = here + 3;
                }
            }
            Instr::VarSetB { var, src } => {
                var_set!(m, here, st.vars, var, Bool, n.b[ix(src.0)])
            }
            Instr::VarSetI { var, src } => {
                var_set!(m, here, st.vars, var, Int, n.i[ix(src.0)])
            }
            Instr::VarSetF { var, src } => {
                var_set!(m, here, st.vars, var, Float, n.f[ix(src.0)])
            }
            Instr::SlotGetB { dst, slot } => {
                n.b[ix(dst.0)] = var_get!(m, here, st.slots, slot, Bool)
            }
            Instr::SlotGetI { dst, slot } => {
                n.i[ix(dst.0)] = var_get!(m, here, st.slots, slot, Int)
            }
            Instr::SlotGetF { dst, slot } => {
                n.f[ix(dst.0)] = var_get!(m, here, st.slots, slot, Float)
            }
            Instr::SlotSetB { slot, src } => {
                var_set!(m, here, st.slots, slot, Bool, n.b[ix(src.0)])
            }
            Instr::SlotSetI { slot, src } => {
                var_set!(m, here, st.slots, slot, Int, n.i[ix(src.0)])
            }
            Instr::SlotSetF { slot, src } => {
                var_set!(m, here, st.slots, slot, Float, n.f[ix(src.0)])
            }
            Instr::IntAdd { dst, a, b } => n.i[ix(dst.0)] = n.i[ix(a.0)].wrapping_add(n.i[ix(b.0)]),
            Instr::IntSub { dst, a, b } => n.i[ix(dst.0)] = n.i[ix(a.0)].wrapping_sub(n.i[ix(b.0)]),
            Instr::IntMul { dst, a, b } => n.i[ix(dst.0)] = n.i[ix(a.0)].wrapping_mul(n.i[ix(b.0)]),
            Instr::IntDiv { dst, a, b } => {
                let d = n.i[ix(b.0)];
                if d == 0 {
                    return fail(m, here, "integer division by zero");
                }
                n.i[ix(dst.0)] = n.i[ix(a.0)].wrapping_div(d);
            }
            Instr::IntRem { dst, a, b } => {
                let d = n.i[ix(b.0)];
                if d == 0 {
                    return fail(m, here, "integer remainder by zero");
                }
                n.i[ix(dst.0)] = n.i[ix(a.0)].wrapping_rem(d);
            }
            Instr::IntMin { dst, a, b } => n.i[ix(dst.0)] = n.i[ix(a.0)].min(n.i[ix(b.0)]),
            Instr::IntMax { dst, a, b } => n.i[ix(dst.0)] = n.i[ix(a.0)].max(n.i[ix(b.0)]),
            Instr::IntNeg { dst, a } => n.i[ix(dst.0)] = n.i[ix(a.0)].wrapping_neg(),
            Instr::IntAbs { dst, a } => n.i[ix(dst.0)] = n.i[ix(a.0)].wrapping_abs(),
            Instr::IntEq { dst, a, b } => n.b[ix(dst.0)] = n.i[ix(a.0)] == n.i[ix(b.0)],
            Instr::IntNe { dst, a, b } => n.b[ix(dst.0)] = n.i[ix(a.0)] != n.i[ix(b.0)],
            Instr::IntLt { dst, a, b } => n.b[ix(dst.0)] = n.i[ix(a.0)] < n.i[ix(b.0)],
            Instr::IntLe { dst, a, b } => n.b[ix(dst.0)] = n.i[ix(a.0)] <= n.i[ix(b.0)],
            Instr::IntGt { dst, a, b } => n.b[ix(dst.0)] = n.i[ix(a.0)] > n.i[ix(b.0)],
            Instr::IntGe { dst, a, b } => n.b[ix(dst.0)] = n.i[ix(a.0)] >= n.i[ix(b.0)],
            Instr::IntToFloat { dst, a } => n.f[ix(dst.0)] = n.i[ix(a.0)] as f64,
            Instr::FloatAdd { dst, a, b } => n.f[ix(dst.0)] = n.f[ix(a.0)] + n.f[ix(b.0)],
            Instr::FloatSub { dst, a, b } => n.f[ix(dst.0)] = n.f[ix(a.0)] - n.f[ix(b.0)],
            Instr::FloatMul { dst, a, b } => n.f[ix(dst.0)] = n.f[ix(a.0)] * n.f[ix(b.0)],
            Instr::FloatDiv { dst, a, b } => n.f[ix(dst.0)] = n.f[ix(a.0)] / n.f[ix(b.0)],
            Instr::FloatRem { dst, a, b } => n.f[ix(dst.0)] = n.f[ix(a.0)] % n.f[ix(b.0)],
            Instr::FloatMin { dst, a, b } => n.f[ix(dst.0)] = n.f[ix(a.0)].min(n.f[ix(b.0)]),
            Instr::FloatMax { dst, a, b } => n.f[ix(dst.0)] = n.f[ix(a.0)].max(n.f[ix(b.0)]),
            Instr::FloatNeg { dst, a } => n.f[ix(dst.0)] = -n.f[ix(a.0)],
            Instr::FloatAbs { dst, a } => n.f[ix(dst.0)] = n.f[ix(a.0)].abs(),
            Instr::FloatSqrt { dst, a } => n.f[ix(dst.0)] = n.f[ix(a.0)].sqrt(),
            Instr::FloatFloor { dst, a } => n.f[ix(dst.0)] = n.f[ix(a.0)].floor(),
            Instr::FloatCeil { dst, a } => n.f[ix(dst.0)] = n.f[ix(a.0)].ceil(),
            Instr::FloatLt { dst, a, b } => n.b[ix(dst.0)] = n.f[ix(a.0)] < n.f[ix(b.0)],
            Instr::FloatLe { dst, a, b } => n.b[ix(dst.0)] = n.f[ix(a.0)] <= n.f[ix(b.0)],
            Instr::FloatGt { dst, a, b } => n.b[ix(dst.0)] = n.f[ix(a.0)] > n.f[ix(b.0)],
            Instr::FloatGe { dst, a, b } => n.b[ix(dst.0)] = n.f[ix(a.0)] >= n.f[ix(b.0)],
            Instr::FloatToInt { dst, a } => n.i[ix(dst.0)] = n.f[ix(a.0)] as i64,
            Instr::BoolAnd { dst, a, b } => n.b[ix(dst.0)] = n.b[ix(a.0)] & n.b[ix(b.0)],
            Instr::BoolOr { dst, a, b } => n.b[ix(dst.0)] = n.b[ix(a.0)] | n.b[ix(b.0)],
            Instr::BoolXor { dst, a, b } => n.b[ix(dst.0)] = n.b[ix(a.0)] ^ n.b[ix(b.0)],
            Instr::BoolNot { dst, a } => n.b[ix(dst.0)] = !n.b[ix(a.0)],
            Instr::VarAddI { dst, var, b } => {
                var_update!(m, here, st, n.i, dst, var, Int, |x| x
                    .wrapping_add(n.i[ix(b.0)]))
            }
            Instr::ForVarAddI {
                dst,
                var,
                b,
                counter,
                last,
            } => {
                let Some(Value::Int(v)) = st.vars.get_mut(var.0 as usize) else {
                    return fail(m, here, STATE_MISMATCH);
                };
                match super::loops::for_var_add_i(
                    m,
                    here,
                    v,
                    n,
                    [dst, b, counter, last],
                    left,
                    &mut rec,
                ) {
                    Some(l) => left = l,
                    None => return budget_exhausted(m, here, budget),
                }
            }
            Instr::VarAddIK { dst, var, b } => {
                var_update!(m, here, st, n.i, dst, var, Int, |x| x
                    .wrapping_add(m.int_k(b)))
            }
            Instr::VarSubI { dst, var, b } => {
                var_update!(m, here, st, n.i, dst, var, Int, |x| x
                    .wrapping_sub(n.i[ix(b.0)]))
            }
            Instr::VarSubIK { dst, var, b } => {
                var_update!(m, here, st, n.i, dst, var, Int, |x| x
                    .wrapping_sub(m.int_k(b)))
            }
            Instr::VarAddF { dst, var, b } => {
                var_update!(m, here, st, n.f, dst, var, Float, |x| x + n.f[ix(b.0)])
            }
            Instr::VarAddFK { dst, var, b } => {
                var_update!(m, here, st, n.f, dst, var, Float, |x| x + m.float_k(b))
            }
            Instr::VarSubFK { dst, var, b } => {
                var_update!(m, here, st, n.f, dst, var, Float, |x| x - m.float_k(b))
            }
            Instr::VarMulF { dst, var, b } => {
                var_update!(m, here, st, n.f, dst, var, Float, |x| x * n.f[ix(b.0)])
            }
            Instr::VarMulFK { dst, var, b } => {
                var_update!(m, here, st, n.f, dst, var, Float, |x| x * m.float_k(b))
            }
            Instr::IntAddK { dst, a, b } => n.i[ix(dst.0)] = n.i[ix(a.0)].wrapping_add(m.int_k(b)),
            Instr::IntSubK { dst, a, b } => n.i[ix(dst.0)] = n.i[ix(a.0)].wrapping_sub(m.int_k(b)),
            Instr::IntMulK { dst, a, b } => n.i[ix(dst.0)] = n.i[ix(a.0)].wrapping_mul(m.int_k(b)),
            Instr::IntDivK { dst, a, b } => {
                let d = m.int_k(b);
                if d == 0 {
                    return fail(m, here, "integer division by zero");
                }
                n.i[ix(dst.0)] = n.i[ix(a.0)].wrapping_div(d);
            }
            Instr::IntRemK { dst, a, b } => {
                let d = m.int_k(b);
                if d == 0 {
                    return fail(m, here, "integer remainder by zero");
                }
                n.i[ix(dst.0)] = n.i[ix(a.0)].wrapping_rem(d);
            }
            Instr::IntEqK { dst, a, b } => n.b[ix(dst.0)] = n.i[ix(a.0)] == m.int_k(b),
            Instr::IntNeK { dst, a, b } => n.b[ix(dst.0)] = n.i[ix(a.0)] != m.int_k(b),
            Instr::IntLtK { dst, a, b } => n.b[ix(dst.0)] = n.i[ix(a.0)] < m.int_k(b),
            Instr::IntLeK { dst, a, b } => n.b[ix(dst.0)] = n.i[ix(a.0)] <= m.int_k(b),
            Instr::IntGtK { dst, a, b } => n.b[ix(dst.0)] = n.i[ix(a.0)] > m.int_k(b),
            Instr::IntGeK { dst, a, b } => n.b[ix(dst.0)] = n.i[ix(a.0)] >= m.int_k(b),
            Instr::FloatAddK { dst, a, b } => n.f[ix(dst.0)] = n.f[ix(a.0)] + m.float_k(b),
            Instr::FloatSubK { dst, a, b } => n.f[ix(dst.0)] = n.f[ix(a.0)] - m.float_k(b),
            Instr::FloatMulK { dst, a, b } => n.f[ix(dst.0)] = n.f[ix(a.0)] * m.float_k(b),
            Instr::FloatDivK { dst, a, b } => n.f[ix(dst.0)] = n.f[ix(a.0)] / m.float_k(b),
            Instr::FloatLtK { dst, a, b } => n.b[ix(dst.0)] = n.f[ix(a.0)] < m.float_k(b),
            Instr::FloatLeK { dst, a, b } => n.b[ix(dst.0)] = n.f[ix(a.0)] <= m.float_k(b),
            Instr::FloatGtK { dst, a, b } => n.b[ix(dst.0)] = n.f[ix(a.0)] > m.float_k(b),
            Instr::FloatGeK { dst, a, b } => n.b[ix(dst.0)] = n.f[ix(a.0)] >= m.float_k(b),
            Instr::JmpIntEq { a, b, target } => {
                if n.i[ix(a.0)] == n.i[ix(b.0)] {
                    pc = target.0;
                }
            }
            Instr::JmpIntNe { a, b, target } => {
                if n.i[ix(a.0)] != n.i[ix(b.0)] {
                    pc = target.0;
                }
            }
            Instr::JmpIntLt { a, b, target } => {
                if n.i[ix(a.0)] < n.i[ix(b.0)] {
                    pc = target.0;
                }
            }
            Instr::JmpIntLe { a, b, target } => {
                if n.i[ix(a.0)] <= n.i[ix(b.0)] {
                    pc = target.0;
                }
            }
            Instr::JmpIntGt { a, b, target } => {
                if n.i[ix(a.0)] > n.i[ix(b.0)] {
                    pc = target.0;
                }
            }
            Instr::JmpIntGe { a, b, target } => {
                if n.i[ix(a.0)] >= n.i[ix(b.0)] {
                    pc = target.0;
                }
            }
            Instr::JmpIntEqK { a, b, target } => {
                if n.i[ix(a.0)] == m.int_k(b) {
                    pc = target.0;
                }
            }
            Instr::JmpIntNeK { a, b, target } => {
                if n.i[ix(a.0)] != m.int_k(b) {
                    pc = target.0;
                }
            }
            Instr::JmpIntLtK { a, b, target } => {
                if n.i[ix(a.0)] < m.int_k(b) {
                    pc = target.0;
                }
            }
            Instr::JmpIntLeK { a, b, target } => {
                if n.i[ix(a.0)] <= m.int_k(b) {
                    pc = target.0;
                }
            }
            Instr::JmpIntGtK { a, b, target } => {
                if n.i[ix(a.0)] > m.int_k(b) {
                    pc = target.0;
                }
            }
            Instr::JmpIntGeK { a, b, target } => {
                if n.i[ix(a.0)] >= m.int_k(b) {
                    pc = target.0;
                }
            }
            // Game-node calls (`vm::game`).
            game_instrs!() => {
                if let Err(o) = super::game::step(m, n, rs, re, game, host, here, ins) {
                    return o;
                }
            }
            // Out of line (`rare`): every other instruction, named in `dispatch`, so the match
            // stays exhaustive (a new instruction without a place here is a compile error).
            rare_instrs!() => {
                if let Err(o) = rare(m, st, n, rs, re, send, payload, host, here, ins) {
                    return o;
                }
            }
        }
    }
}
