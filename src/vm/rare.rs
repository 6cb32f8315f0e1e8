//! The instructions no hot loop needs (strings, vectors, host calls, wide moves) and the
//! generic animation-command call.

use std::sync::Arc;

use crate::anim::command::{AnimCommand, CommandKind, CommandSpec};
use crate::bytecode::isa::{CommandInstr, Instr, OperandKind};
use crate::bytecode::types::{Const, EntityConst, Type, Value};
use crate::bytecode::verify::{MAX_PAYLOAD_FIELDS, MAX_STRING_LEN, VerifiedModule};

use super::regs::{BANK, Nums, ix};
use super::{Host, InstanceState, Outcome, STATE_MISMATCH, fail};

/// The instructions no hot loop needs (strings, vectors, host calls, wide moves), kept out of
/// [`exec`]'s dispatch loop so the loop keeps its state in registers.
#[inline(never)]
// The error is the very `Outcome` the interpreter returns (built on the cold path only).
#[allow(clippy::too_many_arguments, clippy::result_large_err)]
pub(super) fn rare(
    m: &VerifiedModule,
    st: &mut InstanceState,
    n: &mut Nums,
    rs: &mut [Arc<str>; BANK],
    re: &mut [Option<u64>; BANK],
    send: &mut Vec<Value>,
    payload: &[Value],
    host: &mut dyn Host,
    here: u32,
    ins: &Instr,
) -> Result<(), Outcome> {
    let consts = &m.module().consts[..];
    macro_rules! var_get {
        ($m:expr, $pc:expr, $store:expr, $idx:expr, $variant:ident) => {
            match $store.get($idx.0 as usize) {
                Some(Value::$variant(x)) => x.clone(),
                _ => return Err(fail($m, $pc, STATE_MISMATCH)),
            }
        };
    }
    macro_rules! var_set {
        ($m:expr, $pc:expr, $store:expr, $idx:expr, $variant:ident, $val:expr) => {
            match $store.get_mut($idx.0 as usize) {
                Some(Value::$variant(x)) => *x = $val,
                _ => return Err(fail($m, $pc, STATE_MISMATCH)),
            }
        };
    }
    macro_rules! param {
        ($m:expr, $pc:expr, $payload:expr, $idx:expr, $variant:ident) => {
            match $payload.get($idx.0 as usize) {
                Some(Value::$variant(x)) => x.clone(),
                _ => {
                    return Err(fail(
                        $m,
                        $pc,
                        "event payload does not match the handler's parameters",
                    ))
                }
            }
        };
    }
    macro_rules! konst {
        ($c:expr, $variant:ident) => {
            match m.const_value($c.0) {
                Some(Value::$variant(x)) => x.clone(),
                _ => return Err(fail(m, here, "constant type mismatch")),
            }
        };
    }
    match *ins {
        Instr::MovV { dst, src } => n.v[ix(dst.0)] = n.v[ix(src.0)],
        Instr::MovS { dst, src } => rs[ix(dst.0)] = rs[ix(src.0)].clone(),
        Instr::MovE { dst, src } => re[ix(dst.0)] = re[ix(src.0)],
        Instr::LdcV { dst, c } => n.v[ix(dst.0)] = konst!(c, Vec3),
        Instr::LdcS { dst, c } => rs[ix(dst.0)] = konst!(c, Str),
        Instr::LdcE { dst, c } => {
            re[ix(dst.0)] = match consts.get(c.0 as usize) {
                Some(Const::Entity(EntityConst::None)) => None,
                Some(Const::Entity(EntityConst::Owner)) => Some(host.self_entity()),
                _ => return Err(fail(m, here, "constant type mismatch")),
            }
        }

        Instr::ParamV { dst, p } => n.v[ix(dst.0)] = param!(m, here, payload, p, Vec3),
        Instr::ParamS { dst, p } => rs[ix(dst.0)] = param!(m, here, payload, p, Str),
        Instr::ParamE { dst, p } => re[ix(dst.0)] = param!(m, here, payload, p, Entity),

        Instr::VarGetV { dst, var } => n.v[ix(dst.0)] = var_get!(m, here, st.vars, var, Vec3),
        Instr::VarGetS { dst, var } => rs[ix(dst.0)] = var_get!(m, here, st.vars, var, Str),
        Instr::VarGetE { dst, var } => re[ix(dst.0)] = var_get!(m, here, st.vars, var, Entity),
        Instr::VarSetV { var, src } => {
            var_set!(m, here, st.vars, var, Vec3, n.v[ix(src.0)])
        }
        Instr::VarSetS { var, src } => {
            var_set!(m, here, st.vars, var, Str, rs[ix(src.0)].clone())
        }
        Instr::VarSetE { var, src } => {
            var_set!(m, here, st.vars, var, Entity, re[ix(src.0)])
        }

        Instr::SlotGetV { dst, slot } => n.v[ix(dst.0)] = var_get!(m, here, st.slots, slot, Vec3),
        Instr::SlotGetS { dst, slot } => rs[ix(dst.0)] = var_get!(m, here, st.slots, slot, Str),
        Instr::SlotGetE { dst, slot } => re[ix(dst.0)] = var_get!(m, here, st.slots, slot, Entity),
        Instr::SlotSetV { slot, src } => {
            var_set!(m, here, st.slots, slot, Vec3, n.v[ix(src.0)])
        }
        Instr::SlotSetS { slot, src } => {
            var_set!(m, here, st.slots, slot, Str, rs[ix(src.0)].clone())
        }
        Instr::SlotSetE { slot, src } => {
            var_set!(m, here, st.slots, slot, Entity, re[ix(src.0)])
        }

        Instr::IntClamp {
            dst,
            value,
            min,
            max,
        } => n.i[ix(dst.0)] = n.i[ix(value.0)].max(n.i[ix(min.0)]).min(n.i[ix(max.0)]),
        Instr::IntToString { dst, a } => rs[ix(dst.0)] = Arc::from(n.i[ix(a.0)].to_string()),

        Instr::FloatPow { dst, a, b } => n.f[ix(dst.0)] = n.f[ix(a.0)].powf(n.f[ix(b.0)]),
        Instr::FloatSin { dst, a } => n.f[ix(dst.0)] = n.f[ix(a.0)].sin(),
        Instr::FloatCos { dst, a } => n.f[ix(dst.0)] = n.f[ix(a.0)].cos(),
        Instr::FloatTan { dst, a } => n.f[ix(dst.0)] = n.f[ix(a.0)].tan(),
        Instr::FloatClamp {
            dst,
            value,
            min,
            max,
        } => n.f[ix(dst.0)] = n.f[ix(value.0)].max(n.f[ix(min.0)]).min(n.f[ix(max.0)]),
        Instr::FloatLerp { dst, a, b, t } => {
            let (a, b, t) = (n.f[ix(a.0)], n.f[ix(b.0)], n.f[ix(t.0)]);
            n.f[ix(dst.0)] = a + (b - a) * t;
        }
        Instr::FloatToString { dst, a } => rs[ix(dst.0)] = Arc::from(format!("{:?}", n.f[ix(a.0)])),

        Instr::Vec3Make { dst, x, y, z } => {
            n.v[ix(dst.0)] = [
                n.f[ix(x.0)] as f32,
                n.f[ix(y.0)] as f32,
                n.f[ix(z.0)] as f32,
            ]
        }
        Instr::Vec3Break { x, y, z, v } => {
            let [a, b, c] = n.v[ix(v.0)];
            n.f[ix(x.0)] = f64::from(a);
            n.f[ix(y.0)] = f64::from(b);
            n.f[ix(z.0)] = f64::from(c);
        }
        Instr::Vec3Add { dst, a, b } => {
            let (a, b) = (n.v[ix(a.0)], n.v[ix(b.0)]);
            n.v[ix(dst.0)] = [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
        }
        Instr::Vec3Sub { dst, a, b } => {
            let (a, b) = (n.v[ix(a.0)], n.v[ix(b.0)]);
            n.v[ix(dst.0)] = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
        }
        Instr::Vec3Scale { dst, v, s } => {
            let (v, s) = (n.v[ix(v.0)], n.f[ix(s.0)]);
            n.v[ix(dst.0)] = v.map(|c| (f64::from(c) * s) as f32);
        }
        Instr::Vec3Length { dst, v } => {
            let v = n.v[ix(v.0)].map(f64::from);
            n.f[ix(dst.0)] = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        }
        Instr::Vec3Dot { dst, a, b } => {
            let (a, b) = (n.v[ix(a.0)].map(f64::from), n.v[ix(b.0)].map(f64::from));
            n.f[ix(dst.0)] = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
        }

        Instr::StrConcat { dst, a, b } => {
            let (a, b) = (&rs[ix(a.0)], &rs[ix(b.0)]);
            if a.len().saturating_add(b.len()) > MAX_STRING_LEN {
                return Err(fail(
                    m,
                    here,
                    format!("string longer than {MAX_STRING_LEN} bytes"),
                ));
            }
            let mut s = String::with_capacity(a.len() + b.len());
            s.push_str(a);
            s.push_str(b);
            rs[ix(dst.0)] = Arc::from(s);
        }
        Instr::StrEq { dst, a, b } => n.b[ix(dst.0)] = rs[ix(a.0)] == rs[ix(b.0)],

        Instr::EntitySelf { dst } => re[ix(dst.0)] = Some(host.self_entity()),
        Instr::Log { message } => host.log(&rs[ix(message.0)]),
        Instr::AnimGetParam { dst, name } => n.f[ix(dst.0)] = host.get_param(&rs[ix(name.0)]),
        Instr::AnimCurrentState { dst } => rs[ix(dst.0)] = host.current_state(),
        Instr::AnimCurve { dst, name } => n.f[ix(dst.0)] = host.curve(&rs[ix(name.0)]),
        Instr::EventSend { event, target } => {
            let Some(Value::Str(ev)) = m.const_value(event.0) else {
                return Err(fail(m, here, "constant type mismatch"));
            };
            host.send(ev, re[ix(target.0)], send);
            send.clear();
        }
        Instr::SendArgB { src } => push_arg(m, here, send, Value::Bool(n.b[ix(src.0)]))?,
        Instr::SendArgI { src } => push_arg(m, here, send, Value::Int(n.i[ix(src.0)]))?,
        Instr::SendArgF { src } => push_arg(m, here, send, Value::Float(n.f[ix(src.0)]))?,
        Instr::SendArgV { src } => push_arg(m, here, send, Value::Vec3(n.v[ix(src.0)]))?,
        Instr::SendArgS { src } => push_arg(m, here, send, Value::Str(rs[ix(src.0)].clone()))?,
        Instr::SendArgE { src } => push_arg(m, here, send, Value::Entity(re[ix(src.0)]))?,
        // Animation commands: the instruction's registers become the table's command
        // (`command_kind`, generated and exhaustive) and go to the host.
        Instr::Command(c) => host_command(command_kind(&c), &c, n, rs, re, host)
            .ok_or_else(|| fail(m, here, "operands do not match the animation command"))?,
        // The instructions `exec` and `game::step` run (named, so this match stays
        // exhaustive: a new instruction without an arm here or there is a compile error).
        inline_instrs!() | game_instrs!() => {
            return Err(fail(m, here, "instruction dispatched out of line"));
        }
    }
    Ok(())
}

/// Appends one value to the next `event.send`'s payload, at most [`MAX_PAYLOAD_FIELDS`].
#[allow(clippy::result_large_err)]
fn push_arg(m: &VerifiedModule, here: u32, send: &mut Vec<Value>, v: Value) -> Result<(), Outcome> {
    if send.len() >= MAX_PAYLOAD_FIELDS {
        return Err(fail(
            m,
            here,
            format!("an event.send payload holds at most {MAX_PAYLOAD_FIELDS} values"),
        ));
    }
    send.push(v);
    Ok(())
}

/// Most operands a command instruction has (a result and three arguments).
const MAX_COMMAND_OPERANDS: usize = 4;

/// `crate::commands!`'s callback: which command each command instruction issues.
macro_rules! command_kinds {
    ([] $(
        $cmd:ident $nid:ident = $op:literal, $node:literal, $title:literal, $ndoc:literal,
            [$($res:ident)?] ($($arg:ident : $ty:ident $pin:ident),*);
    )*) => {
        /// The command instruction `c` issues.
        fn command_kind(c: &CommandInstr) -> CommandKind {
            match c {
                $( CommandInstr::$nid { .. } => CommandKind::$cmd, )*
            }
        }
    };
}

crate::commands::commands! { graph command_kinds [] }

/// Runs a command instruction: its operands are the result register (a `bool`: accepted)
/// if the node has one, then the argument registers, in the command's argument order.
/// `None` when they do not match the command's table row (both are generated from it).
fn host_command(
    kind: CommandKind,
    ins: &CommandInstr,
    n: &mut Nums,
    rs: &[Arc<str>; BANK],
    re: &[Option<u64>; BANK],
    host: &mut dyn Host,
) -> Option<()> {
    let mut ops = [(OperandKind::Delay, 0u32); MAX_COMMAND_OPERANDS];
    let mut count = 0;
    let mut overflow = false;
    ins.for_each_operand(&mut |_, kind, index| match ops.get_mut(count) {
        Some(o) => {
            *o = (kind, index);
            count += 1;
        }
        None => overflow = true,
    });
    let spec: &CommandSpec = kind.spec();
    let results = count
        .checked_sub(spec.args.len())
        .filter(|&r| !overflow && r <= 1)?;
    let mut args: [Value; MAX_COMMAND_OPERANDS] = std::array::from_fn(|_| Value::Bool(false));
    for (a, &(kind, i)) in args.iter_mut().zip(&ops[results..count]) {
        let r = ix(u16::try_from(i).ok()?);
        *a = match kind {
            OperandKind::Reg(Type::Str) => Value::Str(rs[r].clone()),
            OperandKind::Reg(Type::Float) => Value::Float(n.f[r]),
            OperandKind::Reg(Type::Int) => Value::Int(n.i[r]),
            OperandKind::Reg(Type::Bool) => Value::Bool(n.b[r]),
            OperandKind::Reg(Type::Vec3) => Value::Vec3(n.v[r]),
            OperandKind::Reg(Type::Entity) => Value::Entity(re[r]),
            _ => return None,
        };
    }
    let c = AnimCommand::from_values(spec.kind, &args[..count - results])?;
    let accepted = host.command(c);
    if results == 1 {
        match ops[0] {
            (OperandKind::Reg(Type::Bool), i) => n.b[ix(u16::try_from(i).ok()?)] = accepted,
            _ => return None,
        }
    }
    Some(())
}
