//! `for.var.add.i`: a `flow.for` whose body is one `var.add.i`, run as that one instruction
//! looping on itself. Out of line from the interpreter loop ([`super::exec`]): its own loop
//! needs machine registers the dispatch would otherwise lose (the dispatch head measured one
//! x86 instruction more per instruction with it inline).

use crate::bytecode::isa::Reg;
use crate::bytecode::types::I;
use crate::bytecode::verify::VerifiedModule;

use super::Recorder;
use super::regs::{Nums, ix};

/// Runs `for.var.add.i` at `here` whose execution was already charged, with `left`
/// instructions of budget left: `var += b` (into `dst`), then while `counter < last` one
/// more execution, each charged (and recorded) as a dispatch back to `here` would be.
/// Returns the budget left, or `None` when it ran out before an execution (the state then
/// holds every execution paid for).
#[inline(never)]
pub(super) fn for_var_add_i<R: Recorder>(
    m: &VerifiedModule,
    here: u32,
    v: &mut i64,
    n: &mut Nums,
    [dst, b, counter, last]: [Reg<I>; 4],
    mut left: u64,
    rec: &mut R,
) -> Option<u64> {
    let (d, bi, ci, li) = (ix(dst.0), ix(b.0), ix(counter.0), ix(last.0));
    if d != ci && d != li && ci != li && bi != d && bi != li {
        // No operand register written by the loop is another's: the sum, the counter and the
        // right operand stay in machine registers, stored once at the end.
        let (bound, from_counter, other) = (n.i[li], bi == ci, n.i[bi]);
        let (mut x, mut c) = (*v, n.i[ci]);
        let exhausted = loop {
            x = x.wrapping_add(if from_counter { c } else { other });
            if c >= bound {
                break false;
            }
            c += 1;
            if left == 0 {
                break true;
            }
            left -= 1;
            rec.at(m, here);
        };
        *v = x;
        n.i[d] = x;
        n.i[ci] = c;
        return (!exhausted).then_some(left);
    }
    loop {
        let y = v.wrapping_add(n.i[bi]);
        *v = y;
        n.i[d] = y;
        let c = n.i[ci];
        if c >= n.i[li] {
            return Some(left);
        }
        n.i[ci] = c + 1;
        if left == 0 {
            return None;
        }
        left -= 1;
        rec.at(m, here);
    }
}
