//! Game-node calls (`game.arg.*`, `game.call`, `game.ret.*`; `bytecode::game`): arguments
//! collected in order, the call handed to [`Host::game`], its outputs taken back in order.
//! The verifier checked the shape of every call; the checks here only keep a malformed run
//! (a jump into the middle of one) an error, never a panic.

use std::sync::Arc;

use crate::bytecode::isa::Instr;
use crate::bytecode::types::Value;
use crate::bytecode::verify::VerifiedModule;

use super::regs::{BANK, Nums, ix};
use super::{Host, Outcome, fail};

/// The call being made: its arguments so far, then its outputs not yet taken (reversed, so
/// each `game.ret` pops the next).
#[derive(Debug, Default)]
pub(super) struct CallBuf {
    args: Vec<Value>,
    outs: Vec<Value>,
}

impl CallBuf {
    pub(super) fn clear(&mut self) {
        self.args.clear();
        self.outs.clear();
    }
}

/// Runs one game-call instruction.
#[inline(never)]
#[allow(clippy::too_many_arguments, clippy::result_large_err)]
pub(super) fn step(
    m: &VerifiedModule,
    n: &mut Nums,
    rs: &mut [Arc<str>; BANK],
    re: &mut [Option<u64>; BANK],
    buf: &mut CallBuf,
    host: &mut dyn Host,
    here: u32,
    ins: &Instr,
) -> Result<(), Outcome> {
    let arg = |buf: &mut CallBuf, v: Value| -> Result<(), Outcome> {
        if buf.args.len() >= crate::bytecode::game::MAX_GAME_PINS {
            return Err(fail(m, here, "too many game node arguments"));
        }
        buf.args.push(v);
        Ok(())
    };
    macro_rules! ret {
        ($variant:ident, $store:expr) => {
            match buf.outs.pop() {
                Some(Value::$variant(x)) => $store = x,
                _ => {
                    return Err(fail(
                        m,
                        here,
                        "game node outputs do not match its declaration",
                    ))
                }
            }
        };
    }
    match *ins {
        Instr::GameArgB { src } => arg(buf, Value::Bool(n.b[ix(src.0)]))?,
        Instr::GameArgI { src } => arg(buf, Value::Int(n.i[ix(src.0)]))?,
        Instr::GameArgF { src } => arg(buf, Value::Float(n.f[ix(src.0)]))?,
        Instr::GameArgV { src } => arg(buf, Value::Vec3(n.v[ix(src.0)]))?,
        Instr::GameArgS { src } => arg(buf, Value::Str(rs[ix(src.0)].clone()))?,
        Instr::GameArgE { src } => arg(buf, Value::Entity(re[ix(src.0)]))?,
        Instr::GameCall { import } => {
            let Some(imp) = m.module().imports.get(usize::from(import.0)) else {
                return Err(fail(m, here, "import out of range"));
            };
            let args = std::mem::take(&mut buf.args);
            let shape_ok = args.len() == imp.inputs.len()
                && args.iter().zip(&imp.inputs).all(|(v, (_, t))| v.ty() == *t);
            if !shape_ok {
                return Err(fail(
                    m,
                    here,
                    format!("arguments do not match `{}`'s inputs", imp.kind),
                ));
            }
            buf.outs.clear();
            let r = host.game(
                m.node_at(here),
                usize::from(import.0),
                imp,
                &args,
                &mut buf.outs,
            );
            buf.args = args;
            buf.args.clear();
            if let Err(msg) = r {
                buf.outs.clear();
                return Err(fail(m, here, format!("`{}`: {msg}", imp.kind)));
            }
            let outs_ok = buf.outs.len() == imp.outputs.len()
                && buf
                    .outs
                    .iter()
                    .zip(&imp.outputs)
                    .all(|(v, (_, t, _))| v.ty() == *t);
            if !outs_ok {
                buf.outs.clear();
                return Err(fail(
                    m,
                    here,
                    format!(
                        "`{}` returned outputs that do not match its declaration",
                        imp.kind
                    ),
                ));
            }
            buf.outs.reverse();
        }
        Instr::GameRetB { dst } => ret!(Bool, n.b[ix(dst.0)]),
        Instr::GameRetI { dst } => ret!(Int, n.i[ix(dst.0)]),
        Instr::GameRetF { dst } => ret!(Float, n.f[ix(dst.0)]),
        Instr::GameRetV { dst } => ret!(Vec3, n.v[ix(dst.0)]),
        Instr::GameRetS { dst } => ret!(Str, rs[ix(dst.0)]),
        Instr::GameRetE { dst } => ret!(Entity, re[ix(dst.0)]),
        // Run by `exec` and `rare` (named: this match stays exhaustive).
        inline_instrs!() | rare_instrs!() => {
            return Err(fail(m, here, "instruction dispatched out of line"));
        }
    }
    Ok(())
}
