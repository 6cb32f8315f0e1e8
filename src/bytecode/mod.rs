//! Bytecode: value types, the instruction set, the binary module format, the builder the
//! compiler uses, the verifier and the disassembler. No I/O.

pub mod builder;
pub mod disasm;
pub mod isa;
pub mod module;
pub mod types;
pub mod verify;

pub use builder::{BuildError, HandlerBuilder, Label, ModuleBuilder, NodeId};
pub use disasm::disasm;
pub use isa::{
    ConstRef, DelayRef, Instr, OPCODES, OpInfo, Operand, OperandKind, Param, Reg, Slot, Target, Var,
};
pub use module::{DecodeError, DelayDecl, FORMAT_VERSION, Handler, MAGIC, Module, VarDecl};
pub use types::{B, Const, E, EntityConst, F, I, S, Type, TypeMarker, V, Value};
pub use verify::{VerifiedModule, VerifyError, verify};
