//! The register banks: one allocation of plain-data banks plus the string and entity banks,
//! reset per handler only as far as it uses them, saved into and restored from continuations.

use std::sync::Arc;

use crate::bytecode::types::Value;
use crate::bytecode::verify::MAX_REGS_PER_BANK;

/// Registers per bank the VM holds: the verifier's per-handler limit, a power of two so a
/// masked index is always in bounds (no bounds check in the interpreter loop).
pub(super) const BANK: usize = MAX_REGS_PER_BANK as usize;
const _: () = assert!(BANK.is_power_of_two());

/// A register index, masked into the bank. The verifier guarantees every register operand is
/// below the handler's count (≤ `BANK`), so the mask never changes a verified index.
#[inline(always)]
pub(super) fn ix(r: u16) -> usize {
    usize::from(r) & (BANK - 1)
}

/// The plain-data register banks in one allocation, so the interpreter addresses every
/// numeric register from a single base pointer.
#[derive(Debug)]
pub(super) struct Nums {
    pub(super) i: [i64; BANK],
    pub(super) f: [f64; BANK],
    pub(super) v: [[f32; 3]; BANK],
    pub(super) b: [bool; BANK],
}

/// The live typed register banks, allocated once per VM at the largest size a verified handler
/// may use; a handler only ever touches (and resets) the prefix its counts give.
#[derive(Debug)]
pub(super) struct Banks {
    pub(super) n: Box<Nums>,
    pub(super) s: Box<[Arc<str>; BANK]>,
    pub(super) e: Box<[Option<u64>; BANK]>,
    /// The payload `send.arg.*` builds for the next `event.send` (emptied per invocation).
    pub(super) send: Vec<Value>,
    /// The arguments and outputs of the game-node call being made (`vm::game`).
    pub(super) game: super::game::CallBuf,
}

fn bank<T: Clone>(x: T) -> Box<[T; BANK]> {
    match vec![x; BANK].into_boxed_slice().try_into() {
        Ok(b) => b,
        Err(_) => unreachable!("a vector of BANK elements converts to a BANK array"),
    }
}

impl Banks {
    pub(super) fn new(empty: &Arc<str>) -> Self {
        Banks {
            n: Box::new(Nums {
                i: [0; BANK],
                f: [0.0; BANK],
                v: [[0.0; 3]; BANK],
                b: [false; BANK],
            }),
            s: bank(empty.clone()),
            e: bank(None),
            send: Vec::new(),
            game: Default::default(),
        }
    }

    /// Resets the first `c[k]` registers of each bank to their zero values.
    pub(super) fn reset(&mut self, c: [usize; 6], empty: &Arc<str>) {
        self.n.b[..c[0].min(BANK)].fill(false);
        self.n.i[..c[1].min(BANK)].fill(0);
        self.n.f[..c[2].min(BANK)].fill(0.0);
        self.n.v[..c[3].min(BANK)].fill([0.0; 3]);
        // Registers past the prefix may keep an earlier handler's strings alive until they
        // are reused; a verified handler never reads them.
        for x in &mut self.s[..c[4].min(BANK)] {
            if !Arc::ptr_eq(x, empty) {
                *x = empty.clone();
            }
        }
        self.e[..c[5].min(BANK)].fill(None);
        self.send.clear();
        self.game.clear();
    }

    /// Copies out the first `c[k]` registers of each bank.
    pub(super) fn save(&self, c: [usize; 6]) -> Regs {
        Regs {
            b: self.n.b[..c[0].min(BANK)].to_vec(),
            i: self.n.i[..c[1].min(BANK)].to_vec(),
            f: self.n.f[..c[2].min(BANK)].to_vec(),
            v: self.n.v[..c[3].min(BANK)].to_vec(),
            s: self.s[..c[4].min(BANK)].to_vec(),
            e: self.e[..c[5].min(BANK)].to_vec(),
        }
    }

    /// Copies saved registers back in (their counts were checked against the handler's).
    pub(super) fn restore(&mut self, r: Regs) {
        fn put<T: Clone>(dst: &mut [T], src: Vec<T>) {
            let n = src.len().min(dst.len());
            dst[..n].clone_from_slice(&src[..n]);
        }
        put(&mut self.n.b, r.b);
        put(&mut self.n.i, r.i);
        put(&mut self.n.f, r.f);
        put(&mut self.n.v, r.v);
        put(&mut *self.s, r.s);
        put(&mut *self.e, r.e);
        self.send.clear();
        self.game.clear();
    }
}

/// Saved typed register banks of a suspended handler (exactly its verified counts).
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Regs {
    b: Vec<bool>,
    i: Vec<i64>,
    f: Vec<f64>,
    v: Vec<[f32; 3]>,
    s: Vec<Arc<str>>,
    e: Vec<Option<u64>>,
}

impl Regs {
    pub(super) fn counts(&self) -> [usize; 6] {
        [
            self.b.len(),
            self.i.len(),
            self.f.len(),
            self.v.len(),
            self.s.len(),
            self.e.len(),
        ]
    }
}
