//! Which instructions run where, as patterns: the interpreter loop ([`super::exec`]) runs some
//! inline, sends the game-call ones to [`super::game::step`] and the rest out of line to
//! [`super::rare`]. Each of the three matches is exhaustive over `Instr` without a wildcard: it
//! names its own instructions one arm each and the others' through these patterns, so a new
//! instruction without an arm in its place (or with two places) is a compile error.
//!
//! `inline_instrs!` lists `exec`'s own arms; `game_instrs!` and `rare_instrs!` the instructions
//! `game::step` and `rare` run (the arms `exec` hands them).

/// The instructions `exec` runs inline (one arm each there).
macro_rules! inline_instrs {
    () => {
        $crate::bytecode::isa::Instr::Ret { .. }
            | $crate::bytecode::isa::Instr::Call { .. }
            | $crate::bytecode::isa::Instr::Jmp { .. }
            | $crate::bytecode::isa::Instr::ForNext { .. }
            | $crate::bytecode::isa::Instr::JmpIf { .. }
            | $crate::bytecode::isa::Instr::JmpIfNot { .. }
            | $crate::bytecode::isa::Instr::Delay { .. }
            | $crate::bytecode::isa::Instr::MovB { .. }
            | $crate::bytecode::isa::Instr::MovI { .. }
            | $crate::bytecode::isa::Instr::MovF { .. }
            | $crate::bytecode::isa::Instr::LdcB { .. }
            | $crate::bytecode::isa::Instr::LdcI { .. }
            | $crate::bytecode::isa::Instr::LdcF { .. }
            | $crate::bytecode::isa::Instr::ParamB { .. }
            | $crate::bytecode::isa::Instr::ParamI { .. }
            | $crate::bytecode::isa::Instr::ParamF { .. }
            | $crate::bytecode::isa::Instr::VarGetB { .. }
            | $crate::bytecode::isa::Instr::VarGetI { .. }
            | $crate::bytecode::isa::Instr::VarGetF { .. }
            | $crate::bytecode::isa::Instr::VarSetB { .. }
            | $crate::bytecode::isa::Instr::VarSetI { .. }
            | $crate::bytecode::isa::Instr::VarSetF { .. }
            | $crate::bytecode::isa::Instr::SlotGetB { .. }
            | $crate::bytecode::isa::Instr::SlotGetI { .. }
            | $crate::bytecode::isa::Instr::SlotGetF { .. }
            | $crate::bytecode::isa::Instr::SlotSetB { .. }
            | $crate::bytecode::isa::Instr::SlotSetI { .. }
            | $crate::bytecode::isa::Instr::SlotSetF { .. }
            | $crate::bytecode::isa::Instr::IntAdd { .. }
            | $crate::bytecode::isa::Instr::IntSub { .. }
            | $crate::bytecode::isa::Instr::IntMul { .. }
            | $crate::bytecode::isa::Instr::IntDiv { .. }
            | $crate::bytecode::isa::Instr::IntRem { .. }
            | $crate::bytecode::isa::Instr::IntMin { .. }
            | $crate::bytecode::isa::Instr::IntMax { .. }
            | $crate::bytecode::isa::Instr::IntNeg { .. }
            | $crate::bytecode::isa::Instr::IntAbs { .. }
            | $crate::bytecode::isa::Instr::IntEq { .. }
            | $crate::bytecode::isa::Instr::IntNe { .. }
            | $crate::bytecode::isa::Instr::IntLt { .. }
            | $crate::bytecode::isa::Instr::IntLe { .. }
            | $crate::bytecode::isa::Instr::IntGt { .. }
            | $crate::bytecode::isa::Instr::IntGe { .. }
            | $crate::bytecode::isa::Instr::IntToFloat { .. }
            | $crate::bytecode::isa::Instr::FloatAdd { .. }
            | $crate::bytecode::isa::Instr::FloatSub { .. }
            | $crate::bytecode::isa::Instr::FloatMul { .. }
            | $crate::bytecode::isa::Instr::FloatDiv { .. }
            | $crate::bytecode::isa::Instr::FloatRem { .. }
            | $crate::bytecode::isa::Instr::FloatMin { .. }
            | $crate::bytecode::isa::Instr::FloatMax { .. }
            | $crate::bytecode::isa::Instr::FloatNeg { .. }
            | $crate::bytecode::isa::Instr::FloatAbs { .. }
            | $crate::bytecode::isa::Instr::FloatSqrt { .. }
            | $crate::bytecode::isa::Instr::FloatFloor { .. }
            | $crate::bytecode::isa::Instr::FloatCeil { .. }
            | $crate::bytecode::isa::Instr::FloatLt { .. }
            | $crate::bytecode::isa::Instr::FloatLe { .. }
            | $crate::bytecode::isa::Instr::FloatGt { .. }
            | $crate::bytecode::isa::Instr::FloatGe { .. }
            | $crate::bytecode::isa::Instr::FloatToInt { .. }
            | $crate::bytecode::isa::Instr::BoolAnd { .. }
            | $crate::bytecode::isa::Instr::BoolOr { .. }
            | $crate::bytecode::isa::Instr::BoolXor { .. }
            | $crate::bytecode::isa::Instr::BoolNot { .. }
            | $crate::bytecode::isa::Instr::VarAddI { .. }
            | $crate::bytecode::isa::Instr::VarAddIK { .. }
            | $crate::bytecode::isa::Instr::VarSubI { .. }
            | $crate::bytecode::isa::Instr::VarSubIK { .. }
            | $crate::bytecode::isa::Instr::VarAddF { .. }
            | $crate::bytecode::isa::Instr::VarAddFK { .. }
            | $crate::bytecode::isa::Instr::VarSubFK { .. }
            | $crate::bytecode::isa::Instr::VarMulF { .. }
            | $crate::bytecode::isa::Instr::VarMulFK { .. }
            | $crate::bytecode::isa::Instr::ForVarAddI { .. }
            | $crate::bytecode::isa::Instr::IntAddK { .. }
            | $crate::bytecode::isa::Instr::IntSubK { .. }
            | $crate::bytecode::isa::Instr::IntMulK { .. }
            | $crate::bytecode::isa::Instr::IntDivK { .. }
            | $crate::bytecode::isa::Instr::IntRemK { .. }
            | $crate::bytecode::isa::Instr::IntEqK { .. }
            | $crate::bytecode::isa::Instr::IntNeK { .. }
            | $crate::bytecode::isa::Instr::IntLtK { .. }
            | $crate::bytecode::isa::Instr::IntLeK { .. }
            | $crate::bytecode::isa::Instr::IntGtK { .. }
            | $crate::bytecode::isa::Instr::IntGeK { .. }
            | $crate::bytecode::isa::Instr::FloatAddK { .. }
            | $crate::bytecode::isa::Instr::FloatSubK { .. }
            | $crate::bytecode::isa::Instr::FloatMulK { .. }
            | $crate::bytecode::isa::Instr::FloatDivK { .. }
            | $crate::bytecode::isa::Instr::FloatLtK { .. }
            | $crate::bytecode::isa::Instr::FloatLeK { .. }
            | $crate::bytecode::isa::Instr::FloatGtK { .. }
            | $crate::bytecode::isa::Instr::FloatGeK { .. }
            | $crate::bytecode::isa::Instr::JmpIntEq { .. }
            | $crate::bytecode::isa::Instr::JmpIntNe { .. }
            | $crate::bytecode::isa::Instr::JmpIntLt { .. }
            | $crate::bytecode::isa::Instr::JmpIntLe { .. }
            | $crate::bytecode::isa::Instr::JmpIntGt { .. }
            | $crate::bytecode::isa::Instr::JmpIntGe { .. }
            | $crate::bytecode::isa::Instr::JmpIntEqK { .. }
            | $crate::bytecode::isa::Instr::JmpIntNeK { .. }
            | $crate::bytecode::isa::Instr::JmpIntLtK { .. }
            | $crate::bytecode::isa::Instr::JmpIntLeK { .. }
            | $crate::bytecode::isa::Instr::JmpIntGtK { .. }
            | $crate::bytecode::isa::Instr::JmpIntGeK { .. }
    };
}

/// The game-node call instructions (`game::step`).
macro_rules! game_instrs {
    () => {
        $crate::bytecode::isa::Instr::GameArgB { .. }
            | $crate::bytecode::isa::Instr::GameArgI { .. }
            | $crate::bytecode::isa::Instr::GameArgF { .. }
            | $crate::bytecode::isa::Instr::GameArgV { .. }
            | $crate::bytecode::isa::Instr::GameArgS { .. }
            | $crate::bytecode::isa::Instr::GameArgE { .. }
            | $crate::bytecode::isa::Instr::GameCall { .. }
            | $crate::bytecode::isa::Instr::GameRetB { .. }
            | $crate::bytecode::isa::Instr::GameRetI { .. }
            | $crate::bytecode::isa::Instr::GameRetF { .. }
            | $crate::bytecode::isa::Instr::GameRetV { .. }
            | $crate::bytecode::isa::Instr::GameRetS { .. }
            | $crate::bytecode::isa::Instr::GameRetE { .. }
    };
}

/// The instructions dispatched out of line (`rare`).
macro_rules! rare_instrs {
    () => {
        $crate::bytecode::isa::Instr::MovV { .. }
            | $crate::bytecode::isa::Instr::MovS { .. }
            | $crate::bytecode::isa::Instr::MovE { .. }
            | $crate::bytecode::isa::Instr::LdcV { .. }
            | $crate::bytecode::isa::Instr::LdcS { .. }
            | $crate::bytecode::isa::Instr::LdcE { .. }
            | $crate::bytecode::isa::Instr::ParamV { .. }
            | $crate::bytecode::isa::Instr::ParamS { .. }
            | $crate::bytecode::isa::Instr::ParamE { .. }
            | $crate::bytecode::isa::Instr::VarGetV { .. }
            | $crate::bytecode::isa::Instr::VarGetS { .. }
            | $crate::bytecode::isa::Instr::VarGetE { .. }
            | $crate::bytecode::isa::Instr::VarSetV { .. }
            | $crate::bytecode::isa::Instr::VarSetS { .. }
            | $crate::bytecode::isa::Instr::VarSetE { .. }
            | $crate::bytecode::isa::Instr::SlotGetV { .. }
            | $crate::bytecode::isa::Instr::SlotGetS { .. }
            | $crate::bytecode::isa::Instr::SlotGetE { .. }
            | $crate::bytecode::isa::Instr::SlotSetV { .. }
            | $crate::bytecode::isa::Instr::SlotSetS { .. }
            | $crate::bytecode::isa::Instr::SlotSetE { .. }
            | $crate::bytecode::isa::Instr::IntClamp { .. }
            | $crate::bytecode::isa::Instr::IntToString { .. }
            | $crate::bytecode::isa::Instr::FloatPow { .. }
            | $crate::bytecode::isa::Instr::FloatSin { .. }
            | $crate::bytecode::isa::Instr::FloatCos { .. }
            | $crate::bytecode::isa::Instr::FloatTan { .. }
            | $crate::bytecode::isa::Instr::FloatClamp { .. }
            | $crate::bytecode::isa::Instr::FloatLerp { .. }
            | $crate::bytecode::isa::Instr::FloatToString { .. }
            | $crate::bytecode::isa::Instr::Vec3Make { .. }
            | $crate::bytecode::isa::Instr::Vec3Break { .. }
            | $crate::bytecode::isa::Instr::Vec3Add { .. }
            | $crate::bytecode::isa::Instr::Vec3Sub { .. }
            | $crate::bytecode::isa::Instr::Vec3Scale { .. }
            | $crate::bytecode::isa::Instr::Vec3Length { .. }
            | $crate::bytecode::isa::Instr::Vec3Dot { .. }
            | $crate::bytecode::isa::Instr::StrConcat { .. }
            | $crate::bytecode::isa::Instr::StrEq { .. }
            | $crate::bytecode::isa::Instr::EntitySelf { .. }
            | $crate::bytecode::isa::Instr::Log { .. }
            | $crate::bytecode::isa::Instr::AnimGetParam { .. }
            | $crate::bytecode::isa::Instr::AnimCurrentState { .. }
            | $crate::bytecode::isa::Instr::AnimCurve { .. }
            | $crate::bytecode::isa::Instr::EventSend { .. }
            | $crate::bytecode::isa::Instr::SendArgB { .. }
            | $crate::bytecode::isa::Instr::SendArgI { .. }
            | $crate::bytecode::isa::Instr::SendArgF { .. }
            | $crate::bytecode::isa::Instr::SendArgV { .. }
            | $crate::bytecode::isa::Instr::SendArgS { .. }
            | $crate::bytecode::isa::Instr::SendArgE { .. }
            | $crate::bytecode::isa::Instr::Command(_)
    };
}
