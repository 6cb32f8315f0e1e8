//! Bytecode: value types, the instruction set, the binary module format, the builder the
//! compiler uses, the verifier and the disassembler. No I/O.

pub mod builder;
pub mod defined;
pub mod disasm;
pub mod game;
pub mod imports;
pub mod isa;
pub mod module;
pub mod types;
pub mod verify;

pub use builder::{BuildError, HandlerBuilder, Label, ModuleBuilder, NodeId};
pub use disasm::disasm;
pub use game::{GameFlow, Import, ImportRef};
pub use imports::{ImportMismatch, mismatched_imports};
pub use isa::{
    CommandInstr, ConstRef, DelayRef, Instr, OPCODES, OpInfo, Operand, OperandKind, Param, Reg,
    Slot, Target, Var,
};
pub use module::{DecodeError, DelayDecl, FORMAT_VERSION, Handler, MAGIC, Module, VarDecl};
pub use types::{B, Const, E, EntityConst, F, I, S, Type, TypeMarker, V, Value};
pub use verify::{DEFAULT_BUDGET, VerifiedModule, VerifyError, verify};

use crate::diag::Diagnostic;

pub use crate::diag::codes::bytecode::*;

impl DecodeError {
    /// As a diagnostic for `file` (code [`E_MODULE_DECODE`]).
    pub fn to_diagnostic(&self, file: &str) -> Diagnostic {
        Diagnostic::error(E_MODULE_DECODE, self.to_string()).in_file(file)
    }
}

impl VerifyError {
    /// As a diagnostic for `file` (code [`E_MODULE_VERIFY`]).
    pub fn to_diagnostic(&self, file: &str) -> Diagnostic {
        Diagnostic::error(E_MODULE_VERIFY, self.to_string()).in_file(file)
    }
}
