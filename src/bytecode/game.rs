//! Game-node calls in a module: the import table (each game node the module calls, with its
//! full signature) and the verifier's check of every call against it.
//!
//! A call is one straight run of instructions: `game.arg.*` once per input (in declaration
//! order, typed as the input), `game.call imp`, then `game.ret.*` once per output (typed as
//! the output). The verifier refuses any other shape; the VM hands the arguments to
//! [`crate::vm::Host::game`] and the outputs back to the registers.

use std::fmt;

use super::isa::{Instr, Operand, OperandKind};
use super::types::{Const, EntityConst, Type};

/// Most inputs, and most outputs, a game node declares (`bridge.md`).
pub const MAX_GAME_PINS: usize = 16;
/// Most imports one module holds.
pub const MAX_IMPORTS: usize = 4096;

/// How a game node takes part in execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GameFlow {
    /// Exec in and `then` out: runs when control reaches it.
    Exec,
    /// No exec pins: called once per use, right before the exec node that needs it.
    Pure,
}

impl GameFlow {
    /// `Exec` or `Pure`, as `.nodes.ron` writes it.
    pub fn name(self) -> &'static str {
        match self {
            GameFlow::Exec => "Exec",
            GameFlow::Pure => "Pure",
        }
    }
}

/// One imported game node: its kind and full signature (output defaults included: what a host
/// without a binding, the headless recorder, returns).
#[derive(Clone, Debug, PartialEq)]
pub struct Import {
    /// `game.play_sound`.
    pub kind: String,
    pub flow: GameFlow,
    /// Inputs in declaration order.
    pub inputs: Vec<(String, Type)>,
    /// Outputs in declaration order, each with its declared default.
    pub outputs: Vec<(String, Type, Const)>,
}

impl Import {
    /// Same kind, flow, pin names and types (defaults are not part of the signature).
    pub fn same_signature(&self, o: &Import) -> bool {
        self.kind == o.kind
            && self.flow == o.flow
            && self.inputs == o.inputs
            && self.outputs.len() == o.outputs.len()
            && self
                .outputs
                .iter()
                .zip(&o.outputs)
                .all(|(a, b)| a.0 == b.0 && a.1 == b.1)
    }
}

/// `game.play_sound(Exec: sound: string, volume: float -> played: bool)`: a signature as
/// messages print it.
impl fmt::Display for Import {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ins: Vec<String> = self
            .inputs
            .iter()
            .map(|(n, t)| format!("{n}: {t}"))
            .collect();
        let outs: Vec<String> = self
            .outputs
            .iter()
            .map(|(n, t, _)| format!("{n}: {t}"))
            .collect();
        write!(
            f,
            "{}({}: {} -> {})",
            self.kind,
            self.flow.name(),
            ins.join(", "),
            outs.join(", ")
        )
    }
}

/// An import table index (printed `g0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImportRef(pub u16);

impl fmt::Display for ImportRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "g{}", self.0)
    }
}

impl Operand for ImportRef {
    const KIND: OperandKind = OperandKind::Import;
    const WIDTH: usize = 2;
    fn index(self) -> u32 {
        u32::from(self.0)
    }
    fn from_index(i: u32) -> Option<Self> {
        u16::try_from(i).ok().map(ImportRef)
    }
}

/// The type of a `game.arg.*` instruction's value.
pub(crate) fn arg_type(i: &Instr) -> Option<Type> {
    Some(match i {
        Instr::GameArgB { .. } => Type::Bool,
        Instr::GameArgI { .. } => Type::Int,
        Instr::GameArgF { .. } => Type::Float,
        Instr::GameArgV { .. } => Type::Vec3,
        Instr::GameArgS { .. } => Type::Str,
        Instr::GameArgE { .. } => Type::Entity,
        _ => return None,
    })
}

/// The type of a `game.ret.*` instruction's value.
pub(crate) fn ret_type(i: &Instr) -> Option<Type> {
    Some(match i {
        Instr::GameRetB { .. } => Type::Bool,
        Instr::GameRetI { .. } => Type::Int,
        Instr::GameRetF { .. } => Type::Float,
        Instr::GameRetV { .. } => Type::Vec3,
        Instr::GameRetS { .. } => Type::Str,
        Instr::GameRetE { .. } => Type::Entity,
        _ => return None,
    })
}

/// Checks the import table and every call in `code[start..end]` (one handler) against it:
/// each `game.call` preceded by exactly its inputs' `game.arg`s and followed by exactly its
/// outputs' `game.ret`s, and no `game.arg`/`game.ret` outside such a run. `Err((pc, message))`.
pub(crate) fn check_calls(
    imports: &[Import],
    code: &[Instr],
    start: u32,
    end: u32,
) -> Result<(), (u32, String)> {
    let mut pc = start;
    while pc < end {
        let at = |p: u32| code.get(p as usize);
        // A run of arguments must end in a call.
        let run = pc;
        while pc < end && at(pc).and_then(arg_type).is_some() {
            pc += 1;
        }
        let args = &code[run as usize..pc as usize];
        match at(pc) {
            Some(Instr::GameCall { import }) if pc < end => {
                let Some(imp) = imports.get(usize::from(import.0)) else {
                    return Err((pc, format!("import {} of {}", import, imports.len())));
                };
                let want: Vec<Type> = imp.inputs.iter().map(|p| p.1).collect();
                let have: Vec<Type> = args.iter().filter_map(arg_type).collect();
                if want != have {
                    return Err((
                        pc,
                        format!(
                            "`{}` takes {} argument(s) ({}); the call passes {}",
                            imp.kind,
                            want.len(),
                            names(&want),
                            names(&have)
                        ),
                    ));
                }
                pc += 1;
                let first = pc;
                while pc < end && at(pc).and_then(ret_type).is_some() {
                    pc += 1;
                }
                let have: Vec<Type> = code[first as usize..pc as usize]
                    .iter()
                    .filter_map(ret_type)
                    .collect();
                let want: Vec<Type> = imp.outputs.iter().map(|p| p.1).collect();
                if want != have {
                    return Err((
                        first,
                        format!(
                            "`{}` returns {} value(s) ({}); the call takes {}",
                            imp.kind,
                            want.len(),
                            names(&want),
                            names(&have)
                        ),
                    ));
                }
            }
            _ if !args.is_empty() => {
                return Err((pc, "`game.arg` not followed by `game.call`".into()));
            }
            Some(i) if ret_type(i).is_some() => {
                return Err((pc, "`game.ret` not after a `game.call`".into()));
            }
            _ => pc += 1,
        }
    }
    Ok(())
}

fn names(ts: &[Type]) -> String {
    if ts.is_empty() {
        return "none".into();
    }
    ts.iter().map(|t| t.name()).collect::<Vec<_>>().join(", ")
}

/// Checks the table itself: kinds distinct and non-empty, at most [`MAX_GAME_PINS`] pins a
/// side, output defaults of their output's type (an entity's is `none`).
pub(crate) fn check_imports(imports: &[Import]) -> Result<(), String> {
    if imports.len() > MAX_IMPORTS {
        return Err(format!(
            "{} imports; a module holds at most {MAX_IMPORTS}",
            imports.len()
        ));
    }
    let mut kinds: Vec<&str> = imports.iter().map(|i| i.kind.as_str()).collect();
    kinds.sort_unstable();
    if let Some(w) = kinds.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("game node `{}` is imported twice", w[0]));
    }
    for i in imports {
        if i.kind.is_empty() {
            return Err("an import without a kind".into());
        }
        if i.inputs.len() > MAX_GAME_PINS || i.outputs.len() > MAX_GAME_PINS {
            return Err(format!(
                "`{}` has more than {MAX_GAME_PINS} inputs or outputs",
                i.kind
            ));
        }
        for (name, ty, default) in &i.outputs {
            if default.ty() != *ty || *default == Const::Entity(EntityConst::Owner) {
                return Err(format!(
                    "output `{name}` of `{}`: default {default:?} is not a {ty} literal",
                    i.kind
                ));
            }
        }
    }
    Ok(())
}
