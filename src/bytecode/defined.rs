//! Definite assignment of registers: whether some path through a handler may read a register
//! before writing it. When none can, the VM need not zero the handler's registers before
//! running it (a read always sees a value this invocation wrote), which is most of the fixed
//! cost of a short handler. A conservative answer ("may") is always safe: the VM then resets.

use super::isa::{Instr, OperandKind};
use super::types::Type;

/// Largest analysis, in bitset words per handler (pcs × words per set), and in words
/// processed; a larger handler is simply reset before each run.
const MAX_WORDS: usize = 1 << 20;
const MAX_WORK: usize = 1 << 24;

/// Whether operand `name` of `ins` is a register the instruction writes (its outputs: `dst`,
/// `anim.set_state`'s `ok`, `vec3.break`'s components); every other register operand is read.
/// `tests/bytecode.rs` checks this against the node table's outputs.
pub fn writes(ins: &Instr, name: &str) -> bool {
    match name {
        "dst" | "ok" => true,
        "x" | "y" | "z" => matches!(ins, Instr::Vec3Break { .. }),
        _ => false,
    }
}

/// Does some path through the handler `start..end` (verified: operands in range, targets
/// inside, last instruction a terminator) read a register before writing it? `regs` are its
/// register counts per bank.
pub(super) fn reads_unwritten(code: &[Instr], start: u32, end: u32, regs: [u16; 6]) -> bool {
    let mut base = [0usize; 6];
    let mut bits = 0usize;
    for t in Type::ALL {
        base[t.bank()] = bits;
        bits += usize::from(regs[t.bank()]);
    }
    if bits == 0 {
        return false;
    }
    let words = bits.div_ceil(64);
    let len = (end - start) as usize;
    if len.saturating_mul(words) > MAX_WORDS {
        return true;
    }
    // Per pc: the registers written on every path reaching it (`None`: not reached yet).
    let mut state: Vec<Option<Vec<u64>>> = vec![None; len];
    state[0] = Some(vec![0; words]);
    let mut work = vec![0usize];
    let mut done = 0usize;
    let bit = |kind: OperandKind, idx: u32| match kind {
        OperandKind::Reg(t) => Some(base[t.bank()] + idx as usize),
        _ => None,
    };
    while let Some(at) = work.pop() {
        done += words;
        if done > MAX_WORK {
            return true;
        }
        let ins = &code[start as usize + at];
        let Some(mut set) = state[at].clone() else {
            continue;
        };
        let mut unread = false;
        let mut written = Vec::new();
        let mut targets = Vec::new();
        ins.for_each_operand(&mut |name, kind, idx| {
            if kind == OperandKind::Target {
                targets.push(idx);
            } else if let Some(b) = bit(kind, idx) {
                if writes(ins, name) {
                    written.push(b);
                } else if set.get(b / 64).is_none_or(|w| w & (1 << (b % 64)) == 0) {
                    unread = true;
                }
            }
        });
        if unread {
            return true;
        }
        for b in written {
            if let Some(w) = set.get_mut(b / 64) {
                *w |= 1 << (b % 64);
            }
        }
        let falls = !matches!(ins, Instr::Ret {} | Instr::Jmp { .. });
        let next = (start as usize + at + 1) as u32;
        let succ = targets.into_iter().chain(falls.then_some(next));
        for s in succ {
            let Some(k) = s
                .checked_sub(start)
                .map(|k| k as usize)
                .filter(|&k| k < len)
            else {
                return true;
            };
            match &mut state[k] {
                None => {
                    state[k] = Some(set.clone());
                    work.push(k);
                }
                Some(old) => {
                    let mut changed = false;
                    for (o, n) in old.iter_mut().zip(&set) {
                        let m = *o & n;
                        changed |= m != *o;
                        *o = m;
                    }
                    if changed {
                        work.push(k);
                    }
                }
            }
        }
    }
    false
}
