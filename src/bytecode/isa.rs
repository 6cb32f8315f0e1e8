//! The instruction set, described once in the [`isa!`] table: opcodes, operand kinds, encoder,
//! decoder, verifier metadata, disassembly text and the by-name constructor the compiler lowers
//! pure nodes with are all generated from it.
//!
//! This file holds the table (and the few methods written by hand); what it expands through —
//! operand types, encoding helpers, the generating macros — is in `codegen`.

#[macro_use]
mod codegen;

pub use codegen::{
    ConstRef, DelayRef, OpInfo, Operand, OperandKind, Param, Reg, Slot, Target, Var,
};
use codegen::{map_target_field, read_uint, sorted_opcodes, write_uint};

use super::game::ImportRef;
use super::types::{B, E, F, I, S, V};

crate::commands::commands! { graph isa [
    // ---- control (0x00..) ----
    /// End the invocation.
    Ret = 0x0000, "ret" {};
    /// Jump to `target`.
    Jmp = 0x0001, "jmp" { target: Target };
    /// Jump to `target` when `cond` is true.
    JmpIf = 0x0002, "jmp_if" { cond: Reg<B>, target: Target };
    /// Jump to `target` when `cond` is false.
    JmpIfNot = 0x0003, "jmp_ifnot" { cond: Reg<B>, target: Target };
    /// `flow.delay`: if delay `delay` is pending, jump to `busy`; else mark it pending and yield
    /// for `seconds`; the continuation resumes at the next instruction.
    Delay = 0x0004, "flow.delay" { delay: DelayRef, seconds: Reg<F>, busy: Target };
    /// Pushes the return address and jumps; the matching `ret` returns here (bounded depth).
    Call = 0x0005, "call" { target: Target };
    /// `flow.for` step: when `counter < last`, add one to `counter` and jump to `target`;
    /// otherwise fall through (the counter never passes `last`, so it cannot overflow).
    ForNext = 0x0006, "for.next" { counter: Reg<I>, last: Reg<I>, target: Target };

    // ---- moves (0x10..) ----
    /// Copy a bool register.
    MovB = 0x0010, "mov.b" { dst: Reg<B>, src: Reg<B> };
    /// Copy an int register.
    MovI = 0x0011, "mov.i" { dst: Reg<I>, src: Reg<I> };
    /// Copy a float register.
    MovF = 0x0012, "mov.f" { dst: Reg<F>, src: Reg<F> };
    /// Copy a vec3 register.
    MovV = 0x0013, "mov.v" { dst: Reg<V>, src: Reg<V> };
    /// Copy a string register.
    MovS = 0x0014, "mov.s" { dst: Reg<S>, src: Reg<S> };
    /// Copy an entity register.
    MovE = 0x0015, "mov.e" { dst: Reg<E>, src: Reg<E> };
    /// Load a bool constant.
    LdcB = 0x0018, "ldc.b" { dst: Reg<B>, c: ConstRef<B> };
    /// Load an int constant.
    LdcI = 0x0019, "ldc.i" { dst: Reg<I>, c: ConstRef<I> };
    /// Load a float constant.
    LdcF = 0x001A, "ldc.f" { dst: Reg<F>, c: ConstRef<F> };
    /// Load a vec3 constant.
    LdcV = 0x001B, "ldc.v" { dst: Reg<V>, c: ConstRef<V> };
    /// Load a string constant.
    LdcS = 0x001C, "ldc.s" { dst: Reg<S>, c: ConstRef<S> };
    /// Load an entity constant (`none` or `self`).
    LdcE = 0x001D, "ldc.e" { dst: Reg<E>, c: ConstRef<E> };

    // ---- event payload (0x20..) ----
    /// Read a bool payload parameter.
    ParamB = 0x0020, "param.b" { dst: Reg<B>, p: Param<B> };
    /// Read an int payload parameter.
    ParamI = 0x0021, "param.i" { dst: Reg<I>, p: Param<I> };
    /// Read a float payload parameter.
    ParamF = 0x0022, "param.f" { dst: Reg<F>, p: Param<F> };
    /// Read a vec3 payload parameter.
    ParamV = 0x0023, "param.v" { dst: Reg<V>, p: Param<V> };
    /// Read a string payload parameter.
    ParamS = 0x0024, "param.s" { dst: Reg<S>, p: Param<S> };
    /// Read an entity payload parameter.
    ParamE = 0x0025, "param.e" { dst: Reg<E>, p: Param<E> };

    // ---- variables (0x28..) ----
    /// `var.get` (bool).
    VarGetB = 0x0028, "var.get.b" { dst: Reg<B>, var: Var<B> };
    /// `var.get` (int).
    VarGetI = 0x0029, "var.get.i" { dst: Reg<I>, var: Var<I> };
    /// `var.get` (float).
    VarGetF = 0x002A, "var.get.f" { dst: Reg<F>, var: Var<F> };
    /// `var.get` (vec3).
    VarGetV = 0x002B, "var.get.v" { dst: Reg<V>, var: Var<V> };
    /// `var.get` (string).
    VarGetS = 0x002C, "var.get.s" { dst: Reg<S>, var: Var<S> };
    /// `var.get` (entity).
    VarGetE = 0x002D, "var.get.e" { dst: Reg<E>, var: Var<E> };
    /// `var.set` (bool).
    VarSetB = 0x0030, "var.set.b" { var: Var<B>, src: Reg<B> };
    /// `var.set` (int).
    VarSetI = 0x0031, "var.set.i" { var: Var<I>, src: Reg<I> };
    /// `var.set` (float).
    VarSetF = 0x0032, "var.set.f" { var: Var<F>, src: Reg<F> };
    /// `var.set` (vec3).
    VarSetV = 0x0033, "var.set.v" { var: Var<V>, src: Reg<V> };
    /// `var.set` (string).
    VarSetS = 0x0034, "var.set.s" { var: Var<S>, src: Reg<S> };
    /// `var.set` (entity).
    VarSetE = 0x0035, "var.set.e" { var: Var<E>, src: Reg<E> };

    // ---- hidden instance slots (0x38..) ----
    /// Read a bool slot.
    SlotGetB = 0x0038, "slot.get.b" { dst: Reg<B>, slot: Slot<B> };
    /// Read an int slot.
    SlotGetI = 0x0039, "slot.get.i" { dst: Reg<I>, slot: Slot<I> };
    /// Read a float slot.
    SlotGetF = 0x003A, "slot.get.f" { dst: Reg<F>, slot: Slot<F> };
    /// Read a vec3 slot.
    SlotGetV = 0x003B, "slot.get.v" { dst: Reg<V>, slot: Slot<V> };
    /// Read a string slot.
    SlotGetS = 0x003C, "slot.get.s" { dst: Reg<S>, slot: Slot<S> };
    /// Read an entity slot.
    SlotGetE = 0x003D, "slot.get.e" { dst: Reg<E>, slot: Slot<E> };
    /// Write a bool slot.
    SlotSetB = 0x0040, "slot.set.b" { slot: Slot<B>, src: Reg<B> };
    /// Write an int slot.
    SlotSetI = 0x0041, "slot.set.i" { slot: Slot<I>, src: Reg<I> };
    /// Write a float slot.
    SlotSetF = 0x0042, "slot.set.f" { slot: Slot<F>, src: Reg<F> };
    /// Write a vec3 slot.
    SlotSetV = 0x0043, "slot.set.v" { slot: Slot<V>, src: Reg<V> };
    /// Write a string slot.
    SlotSetS = 0x0044, "slot.set.s" { slot: Slot<S>, src: Reg<S> };
    /// Write an entity slot.
    SlotSetE = 0x0045, "slot.set.e" { slot: Slot<E>, src: Reg<E> };

    // ---- int (0x50..) ----
    /// Wrapping add.
    IntAdd = 0x0050, "int.add" { dst: Reg<I>, a: Reg<I>, b: Reg<I> };
    /// Wrapping subtract.
    IntSub = 0x0051, "int.sub" { dst: Reg<I>, a: Reg<I>, b: Reg<I> };
    /// Wrapping multiply.
    IntMul = 0x0052, "int.mul" { dst: Reg<I>, a: Reg<I>, b: Reg<I> };
    /// Truncating divide; by zero is a runtime error; `MIN / -1` wraps to `MIN`.
    IntDiv = 0x0053, "int.div" { dst: Reg<I>, a: Reg<I>, b: Reg<I> };
    /// Remainder (sign of `a`); by zero is a runtime error; `MIN % -1` is 0.
    IntRem = 0x0054, "int.rem" { dst: Reg<I>, a: Reg<I>, b: Reg<I> };
    /// Minimum.
    IntMin = 0x0055, "int.min" { dst: Reg<I>, a: Reg<I>, b: Reg<I> };
    /// Maximum.
    IntMax = 0x0056, "int.max" { dst: Reg<I>, a: Reg<I>, b: Reg<I> };
    /// Wrapping negate.
    IntNeg = 0x0057, "int.neg" { dst: Reg<I>, a: Reg<I> };
    /// Wrapping absolute value (`MIN` stays `MIN`).
    IntAbs = 0x0058, "int.abs" { dst: Reg<I>, a: Reg<I> };
    /// `a == b`.
    IntEq = 0x0059, "int.eq" { dst: Reg<B>, a: Reg<I>, b: Reg<I> };
    /// `a != b`.
    IntNe = 0x005A, "int.ne" { dst: Reg<B>, a: Reg<I>, b: Reg<I> };
    /// `a < b`.
    IntLt = 0x005B, "int.lt" { dst: Reg<B>, a: Reg<I>, b: Reg<I> };
    /// `a <= b`.
    IntLe = 0x005C, "int.le" { dst: Reg<B>, a: Reg<I>, b: Reg<I> };
    /// `a > b`.
    IntGt = 0x005D, "int.gt" { dst: Reg<B>, a: Reg<I>, b: Reg<I> };
    /// `a >= b`.
    IntGe = 0x005E, "int.ge" { dst: Reg<B>, a: Reg<I>, b: Reg<I> };
    /// `max(value, min)` then `min(_, max)` (never panics; `min > max` gives `max`).
    IntClamp = 0x005F, "int.clamp" { dst: Reg<I>, value: Reg<I>, min: Reg<I>, max: Reg<I> };
    /// Convert to float (nearest).
    IntToFloat = 0x0060, "int.to_float" { dst: Reg<F>, a: Reg<I> };
    /// Decimal text.
    IntToString = 0x0061, "string.from_int" { dst: Reg<S>, a: Reg<I> };

    // ---- float (0x70..) ----
    /// IEEE add.
    FloatAdd = 0x0070, "float.add" { dst: Reg<F>, a: Reg<F>, b: Reg<F> };
    /// IEEE subtract.
    FloatSub = 0x0071, "float.sub" { dst: Reg<F>, a: Reg<F>, b: Reg<F> };
    /// IEEE multiply.
    FloatMul = 0x0072, "float.mul" { dst: Reg<F>, a: Reg<F>, b: Reg<F> };
    /// IEEE divide (by zero gives ±inf/NaN).
    FloatDiv = 0x0073, "float.div" { dst: Reg<F>, a: Reg<F>, b: Reg<F> };
    /// Remainder `a % b` (Rust/C fmod; `expr` `%`).
    FloatRem = 0x0074, "float.rem" { dst: Reg<F>, a: Reg<F>, b: Reg<F> };
    /// Minimum (NaN operands ignored, as `f64::min`).
    FloatMin = 0x0075, "float.min" { dst: Reg<F>, a: Reg<F>, b: Reg<F> };
    /// Maximum (NaN operands ignored, as `f64::max`).
    FloatMax = 0x0076, "float.max" { dst: Reg<F>, a: Reg<F>, b: Reg<F> };
    /// `a` to the power `b` (`expr` `pow`).
    FloatPow = 0x0077, "float.pow" { dst: Reg<F>, a: Reg<F>, b: Reg<F> };
    /// Negate.
    FloatNeg = 0x0078, "float.neg" { dst: Reg<F>, a: Reg<F> };
    /// Absolute value.
    FloatAbs = 0x0079, "float.abs" { dst: Reg<F>, a: Reg<F> };
    /// Square root (negative gives NaN).
    FloatSqrt = 0x007A, "float.sqrt" { dst: Reg<F>, a: Reg<F> };
    /// Sine (radians).
    FloatSin = 0x007B, "float.sin" { dst: Reg<F>, a: Reg<F> };
    /// Cosine (radians).
    FloatCos = 0x007C, "float.cos" { dst: Reg<F>, a: Reg<F> };
    /// Tangent (radians; `expr` `tan`).
    FloatTan = 0x007D, "float.tan" { dst: Reg<F>, a: Reg<F> };
    /// Round toward negative infinity.
    FloatFloor = 0x007E, "float.floor" { dst: Reg<F>, a: Reg<F> };
    /// Round toward positive infinity (`expr` `ceil`).
    FloatCeil = 0x007F, "float.ceil" { dst: Reg<F>, a: Reg<F> };
    /// `a < b` (false with NaN).
    FloatLt = 0x0080, "float.lt" { dst: Reg<B>, a: Reg<F>, b: Reg<F> };
    /// `a <= b` (false with NaN).
    FloatLe = 0x0081, "float.le" { dst: Reg<B>, a: Reg<F>, b: Reg<F> };
    /// `a > b` (false with NaN).
    FloatGt = 0x0082, "float.gt" { dst: Reg<B>, a: Reg<F>, b: Reg<F> };
    /// `a >= b` (false with NaN).
    FloatGe = 0x0083, "float.ge" { dst: Reg<B>, a: Reg<F>, b: Reg<F> };
    /// `max(value, min)` then `min(_, max)` with `f64::max`/`f64::min` (never panics).
    FloatClamp = 0x0084, "float.clamp" { dst: Reg<F>, value: Reg<F>, min: Reg<F>, max: Reg<F> };
    /// `a + (b - a) * t`.
    FloatLerp = 0x0085, "float.lerp" { dst: Reg<F>, a: Reg<F>, b: Reg<F>, t: Reg<F> };
    /// Truncate toward zero; NaN gives 0; out of range saturates.
    FloatToInt = 0x0086, "float.to_int" { dst: Reg<I>, a: Reg<F> };
    /// Shortest round-trip text (Rust `{:?}` of `f64`: `1.0`, `0.1`, `1e300`, `NaN`, `inf`).
    FloatToString = 0x0087, "string.from_float" { dst: Reg<S>, a: Reg<F> };

    // ---- bool (0x90..) ----
    /// Logical and.
    BoolAnd = 0x0090, "bool.and" { dst: Reg<B>, a: Reg<B>, b: Reg<B> };
    /// Logical or.
    BoolOr = 0x0091, "bool.or" { dst: Reg<B>, a: Reg<B>, b: Reg<B> };
    /// Logical exclusive or.
    BoolXor = 0x0092, "bool.xor" { dst: Reg<B>, a: Reg<B>, b: Reg<B> };
    /// Logical not.
    BoolNot = 0x0093, "bool.not" { dst: Reg<B>, a: Reg<B> };

    // ---- vec3 (0xA0..) ----
    /// Build from three floats (each rounded to f32).
    Vec3Make = 0x00A0, "vec3.make" { dst: Reg<V>, x: Reg<F>, y: Reg<F>, z: Reg<F> };
    /// Split into three floats.
    Vec3Break = 0x00A1, "vec3.break" { x: Reg<F>, y: Reg<F>, z: Reg<F>, v: Reg<V> };
    /// Component-wise add (f32).
    Vec3Add = 0x00A2, "vec3.add" { dst: Reg<V>, a: Reg<V>, b: Reg<V> };
    /// Component-wise subtract (f32).
    Vec3Sub = 0x00A3, "vec3.sub" { dst: Reg<V>, a: Reg<V>, b: Reg<V> };
    /// Multiply each component by `s` (in f64, rounded to f32).
    Vec3Scale = 0x00A4, "vec3.scale" { dst: Reg<V>, v: Reg<V>, s: Reg<F> };
    /// Euclidean length (computed in f64).
    Vec3Length = 0x00A5, "vec3.length" { dst: Reg<F>, v: Reg<V> };
    /// Dot product (computed in f64).
    Vec3Dot = 0x00A6, "vec3.dot" { dst: Reg<F>, a: Reg<V>, b: Reg<V> };

    // ---- string (0xB0..) ----
    /// Concatenate (result longer than the VM's string limit is a runtime error).
    StrConcat = 0x00B0, "string.concat" { dst: Reg<S>, a: Reg<S>, b: Reg<S> };
    /// Byte-wise equality.
    StrEq = 0x00B1, "string.eq" { dst: Reg<B>, a: Reg<S>, b: Reg<S> };

    // ---- entity and host calls (0xC0..) ----
    /// `entity.self`: the instance's own entity (from the host).
    EntitySelf = 0x00C0, "entity.self" { dst: Reg<E> };
    /// `debug.log`.
    Log = 0x00C1, "debug.log" { message: Reg<S> };
    // 0x00C2, 0x00C3, 0x00C5..=0x00C7, 0x00CB, 0x00D2: the animation commands, generated
    // from the `commands!` table (`crate::commands`) as `Instr::Command(CommandInstr::…)`.
    /// `anim.get_param`.
    AnimGetParam = 0x00C4, "anim.get_param" { dst: Reg<F>, name: Reg<S> };
    /// `anim.current_state`.
    AnimCurrentState = 0x00C8, "anim.current_state" { dst: Reg<S> };
    /// `anim.curve`.
    AnimCurve = 0x00C9, "anim.curve" { dst: Reg<F>, name: Reg<S> };
    /// `event.send`: the event identity is a string constant (`custom::NAME`).
    EventSend = 0x00CA, "event.send" { event: ConstRef<S>, target: Reg<E> };
    /// Append a bool to the payload of the next `event.send` (a custom event's typed fields,
    /// in declaration order, then `event.send`).
    SendArgB = 0x00CC, "send.arg.b" { src: Reg<B> };
    /// Append an int to the payload of the next `event.send`.
    SendArgI = 0x00CD, "send.arg.i" { src: Reg<I> };
    /// Append a float to the payload of the next `event.send`.
    SendArgF = 0x00CE, "send.arg.f" { src: Reg<F> };
    /// Append a vec3 to the payload of the next `event.send`.
    SendArgV = 0x00CF, "send.arg.v" { src: Reg<V> };
    /// Append a string to the payload of the next `event.send`.
    SendArgS = 0x00D0, "send.arg.s" { src: Reg<S> };
    /// Append an entity to the payload of the next `event.send`.
    SendArgE = 0x00D1, "send.arg.e" { src: Reg<E> };

    // ---- superinstructions (0xE0..): one instruction where lowering would emit two ----
    /// `int.add` of a constant: `a + b` (wrapping), `b` from the pool (`ldc.i` + `int.add`).
    IntAddK = 0x00E0, "int.add.k" { dst: Reg<I>, a: Reg<I>, b: ConstRef<I> };
    /// `int.sub` of a constant (wrapping).
    IntSubK = 0x00E1, "int.sub.k" { dst: Reg<I>, a: Reg<I>, b: ConstRef<I> };
    /// `int.mul` by a constant (wrapping).
    IntMulK = 0x00E2, "int.mul.k" { dst: Reg<I>, a: Reg<I>, b: ConstRef<I> };
    /// `int.div` by a constant (by zero is a runtime error, as `int.div`).
    IntDivK = 0x00E3, "int.div.k" { dst: Reg<I>, a: Reg<I>, b: ConstRef<I> };
    /// `int.rem` by a constant (by zero is a runtime error, as `int.rem`).
    IntRemK = 0x00E4, "int.rem.k" { dst: Reg<I>, a: Reg<I>, b: ConstRef<I> };
    /// `a == b` with a constant `b`.
    IntEqK = 0x00E5, "int.eq.k" { dst: Reg<B>, a: Reg<I>, b: ConstRef<I> };
    /// `a != b` with a constant `b`.
    IntNeK = 0x00E6, "int.ne.k" { dst: Reg<B>, a: Reg<I>, b: ConstRef<I> };
    /// `a < b` with a constant `b`.
    IntLtK = 0x00E7, "int.lt.k" { dst: Reg<B>, a: Reg<I>, b: ConstRef<I> };
    /// `a <= b` with a constant `b`.
    IntLeK = 0x00E8, "int.le.k" { dst: Reg<B>, a: Reg<I>, b: ConstRef<I> };
    /// `a > b` with a constant `b`.
    IntGtK = 0x00E9, "int.gt.k" { dst: Reg<B>, a: Reg<I>, b: ConstRef<I> };
    /// `a >= b` with a constant `b`.
    IntGeK = 0x00EA, "int.ge.k" { dst: Reg<B>, a: Reg<I>, b: ConstRef<I> };
    /// `float.add` of a constant.
    FloatAddK = 0x00EB, "float.add.k" { dst: Reg<F>, a: Reg<F>, b: ConstRef<F> };
    /// `float.sub` of a constant.
    FloatSubK = 0x00EC, "float.sub.k" { dst: Reg<F>, a: Reg<F>, b: ConstRef<F> };
    /// `float.mul` by a constant.
    FloatMulK = 0x00ED, "float.mul.k" { dst: Reg<F>, a: Reg<F>, b: ConstRef<F> };
    /// `float.div` by a constant.
    FloatDivK = 0x00EE, "float.div.k" { dst: Reg<F>, a: Reg<F>, b: ConstRef<F> };
    /// `a < b` with a constant `b` (false with NaN).
    FloatLtK = 0x00EF, "float.lt.k" { dst: Reg<B>, a: Reg<F>, b: ConstRef<F> };
    /// `a <= b` with a constant `b` (false with NaN).
    FloatLeK = 0x00F0, "float.le.k" { dst: Reg<B>, a: Reg<F>, b: ConstRef<F> };
    /// `a > b` with a constant `b` (false with NaN).
    FloatGtK = 0x00F1, "float.gt.k" { dst: Reg<B>, a: Reg<F>, b: ConstRef<F> };
    /// `a >= b` with a constant `b` (false with NaN).
    FloatGeK = 0x00F2, "float.ge.k" { dst: Reg<B>, a: Reg<F>, b: ConstRef<F> };
    /// Compare and branch: jump to `target` when `a == b` (`int.eq` + `jmp_if`, without
    /// writing the bool).
    JmpIntEq = 0x00F3, "jmp.int.eq" { a: Reg<I>, b: Reg<I>, target: Target };
    /// Jump to `target` when `a != b`.
    JmpIntNe = 0x00F4, "jmp.int.ne" { a: Reg<I>, b: Reg<I>, target: Target };
    /// Jump to `target` when `a < b`.
    JmpIntLt = 0x00F5, "jmp.int.lt" { a: Reg<I>, b: Reg<I>, target: Target };
    /// Jump to `target` when `a <= b`.
    JmpIntLe = 0x00F6, "jmp.int.le" { a: Reg<I>, b: Reg<I>, target: Target };
    /// Jump to `target` when `a > b`.
    JmpIntGt = 0x00F7, "jmp.int.gt" { a: Reg<I>, b: Reg<I>, target: Target };
    /// Jump to `target` when `a >= b`.
    JmpIntGe = 0x00F8, "jmp.int.ge" { a: Reg<I>, b: Reg<I>, target: Target };
    /// Jump to `target` when `a == b`, `b` a constant.
    JmpIntEqK = 0x00F9, "jmp.int.eq.k" { a: Reg<I>, b: ConstRef<I>, target: Target };
    /// Jump to `target` when `a != b`, `b` a constant.
    JmpIntNeK = 0x00FA, "jmp.int.ne.k" { a: Reg<I>, b: ConstRef<I>, target: Target };
    /// Jump to `target` when `a < b`, `b` a constant.
    JmpIntLtK = 0x00FB, "jmp.int.lt.k" { a: Reg<I>, b: ConstRef<I>, target: Target };
    /// Jump to `target` when `a <= b`, `b` a constant.
    JmpIntLeK = 0x00FC, "jmp.int.le.k" { a: Reg<I>, b: ConstRef<I>, target: Target };
    /// Jump to `target` when `a > b`, `b` a constant.
    JmpIntGtK = 0x00FD, "jmp.int.gt.k" { a: Reg<I>, b: ConstRef<I>, target: Target };
    /// Jump to `target` when `a >= b`, `b` a constant.
    JmpIntGeK = 0x00FE, "jmp.int.ge.k" { a: Reg<I>, b: ConstRef<I>, target: Target };
    /// Variable update (`var.get.i` + `int.add` + `var.set.i` of the same variable):
    /// `dst = var + b` (wrapping), then `var = dst`.
    VarAddI = 0x0100, "var.add.i" { dst: Reg<I>, var: Var<I>, b: Reg<I> };
    /// `dst = var + b` with a constant `b`, then `var = dst`.
    VarAddIK = 0x0101, "var.add.i.k" { dst: Reg<I>, var: Var<I>, b: ConstRef<I> };
    /// `dst = var - b` (wrapping), then `var = dst`.
    VarSubI = 0x0102, "var.sub.i" { dst: Reg<I>, var: Var<I>, b: Reg<I> };
    /// `dst = var - b` with a constant `b`, then `var = dst`.
    VarSubIK = 0x0103, "var.sub.i.k" { dst: Reg<I>, var: Var<I>, b: ConstRef<I> };
    /// `dst = var + b`, then `var = dst` (float).
    VarAddF = 0x0104, "var.add.f" { dst: Reg<F>, var: Var<F>, b: Reg<F> };
    /// `dst = var + b` with a constant `b`, then `var = dst`.
    VarAddFK = 0x0105, "var.add.f.k" { dst: Reg<F>, var: Var<F>, b: ConstRef<F> };
    /// `dst = var - b` with a constant `b`, then `var = dst` (float; the register form has no
    /// graph shape: a float right operand is always computed after the `var.get`).
    VarSubFK = 0x0106, "var.sub.f.k" { dst: Reg<F>, var: Var<F>, b: ConstRef<F> };
    /// `dst = var * b`, then `var = dst` (float).
    VarMulF = 0x0107, "var.mul.f" { dst: Reg<F>, var: Var<F>, b: Reg<F> };
    /// `dst = var * b` with a constant `b`, then `var = dst`.
    VarMulFK = 0x0108, "var.mul.f.k" { dst: Reg<F>, var: Var<F>, b: ConstRef<F> };
    /// A `flow.for` whose body is one `var.add.i`: `var.add.i dst, var, b` then `for.next
    /// counter, last` back to itself — `dst = var + b` (wrapping), `var = dst`; then when
    /// `counter < last`, add one to `counter` and run this instruction again (each run one
    /// instruction of the budget), else fall through.
    ForVarAddI = 0x0109, "for.var.add.i" { dst: Reg<I>, var: Var<I>, b: Reg<I>, counter: Reg<I>, last: Reg<I> };

    // ---- game-node calls (0x110..; `bytecode::game`): args, call, results ----
    /// Append a bool argument to the next `game.call`.
    GameArgB = 0x0110, "game.arg.b" { src: Reg<B> };
    /// Append an int argument to the next `game.call`.
    GameArgI = 0x0111, "game.arg.i" { src: Reg<I> };
    /// Append a float argument to the next `game.call`.
    GameArgF = 0x0112, "game.arg.f" { src: Reg<F> };
    /// Append a vec3 argument to the next `game.call`.
    GameArgV = 0x0113, "game.arg.v" { src: Reg<V> };
    /// Append a string argument to the next `game.call`.
    GameArgS = 0x0114, "game.arg.s" { src: Reg<S> };
    /// Append an entity argument to the next `game.call`.
    GameArgE = 0x0115, "game.arg.e" { src: Reg<E> };
    /// Call game node `import` (the module's import table) with the arguments pushed since the
    /// last call; its outputs are read by the `game.ret.*` that follow, in declaration order.
    GameCall = 0x0116, "game.call" { import: ImportRef };
    /// Take the next output of the last `game.call` (bool).
    GameRetB = 0x0118, "game.ret.b" { dst: Reg<B> };
    /// Take the next output of the last `game.call` (int).
    GameRetI = 0x0119, "game.ret.i" { dst: Reg<I> };
    /// Take the next output of the last `game.call` (float).
    GameRetF = 0x011A, "game.ret.f" { dst: Reg<F> };
    /// Take the next output of the last `game.call` (vec3).
    GameRetV = 0x011B, "game.ret.v" { dst: Reg<V> };
    /// Take the next output of the last `game.call` (string).
    GameRetS = 0x011C, "game.ret.s" { dst: Reg<S> };
    /// Take the next output of the last `game.call` (entity).
    GameRetE = 0x011D, "game.ret.e" { dst: Reg<E> };
] }

impl Instr {
    /// Looks up the table entry for an opcode number.
    pub fn info(opcode: u16) -> Option<&'static OpInfo> {
        OPCODES.iter().find(|o| o.opcode == opcode)
    }

    /// True for instructions after which control never falls through to `pc + 1`.
    pub fn is_terminator(&self) -> bool {
        matches!(self, Instr::Ret {} | Instr::Jmp { .. })
    }
}
