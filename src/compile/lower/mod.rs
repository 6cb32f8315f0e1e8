//! Lower: a checked, error-free IR graph → a bytecode [`Module`] (then verified by the caller).
//!
//! Layout (`layout`): variables become module variables; every data output of an exec or event
//! node that something reads becomes a hidden per-instance slot ("holds the last value it
//! produced"), as do the `do_once`/`flip_flop`/`gate` states. Analysis (`analysis`, once per
//! graph): loops whose index can live in a register, and each handler's call contexts.
//! Emission (`emit`, `pure`), reading the analysis' result: each event node becomes one handler
//! (a window's node two, `begin` then `end`, each starting at that exec output) whose
//! parameters are its data outputs in pin order. Inside a handler every reachable exec
//! input is a block emitted once; an exec link is a `call` (or a `jmp` in tail position, or the
//! callee laid out inline when no other site enters it), so merges in the exec graph never
//! duplicate code. Pure nodes are evaluated per exec node that needs them (each once per such
//! use, in dependency order, iteratively — deep chains cannot overflow the stack).

mod analysis;
mod emit;
mod game;
mod layout;
mod pure;

use super::ir::{Const, Graph, HandlerEntry, Node, NodeId, Op};
use crate::bytecode::{BuildError, Module, ModuleBuilder, Type};
use crate::nodes::KindId;

/// Lowers a checked graph without errors.
pub fn lower(g: &Graph) -> Result<Module, BuildError> {
    let mut mb = ModuleBuilder::new(&g.name);
    for v in &g.vars {
        mb.var_raw(&v.name, v.ty, bc_const(&v.init, v.ty));
    }
    let mut lay = layout::Layout::new(g);
    let mut table = analysis::ContextTable::default();
    let analysis = analysis::analyze(g, &lay, &mut table);
    lay.allocate(g, &mut mb, &analysis.elide);
    emit::handlers(g, &lay, &analysis, &mut table, &mut mb)?;
    Ok(mb.finish())
}

/// The node-table row of a built-in node (`None` for variables, expressions, sends, events and
/// error nodes, which the IR describes by their [`Op`]).
fn kind_of(n: &Node) -> Option<KindId> {
    match &n.op {
        Op::Builtin(k) => Some(k.id),
        _ => None,
    }
}

/// The constant `c` as a value of type `ty`: an int literal read as a float converts; a
/// constant of another type (never produced by `resolve`) is the type's default. An `entity`
/// variable declared `""` starts unset (`EntityConst::None`); pins default to the own entity,
/// which `input_at` emits as `entity.self`, never through here.
fn bc_const(c: &Const, ty: Type) -> Const {
    match c {
        Const::Int(i) if ty == Type::Float => Const::Float(*i as f64),
        c if c.ty() == ty => c.clone(),
        _ => Const::default_of(ty),
    }
}

/// Builds a typed instruction from raw register/slot/var indices, by bytecode type.
macro_rules! typed {
    ($ty:expr, [$b:ident, $i:ident, $f:ident, $v:ident, $s:ident, $e:ident] { $($field:ident : $wrap:ident ($val:expr)),* $(,)? }) => {
        match $ty {
            Type::Bool => Instr::$b { $($field: bc::$wrap::new($val)),* },
            Type::Int => Instr::$i { $($field: bc::$wrap::new($val)),* },
            Type::Float => Instr::$f { $($field: bc::$wrap::new($val)),* },
            Type::Vec3 => Instr::$v { $($field: bc::$wrap::new($val)),* },
            Type::Str => Instr::$s { $($field: bc::$wrap::new($val)),* },
            Type::Entity => Instr::$e { $($field: bc::$wrap::new($val)),* },
        }
    };
}
use typed;

macro_rules! bin {
    ($e:expr, $op:ident, $dst:expr, $a:expr, $b:expr) => {
        $e.hb.emit(Instr::$op {
            dst: bc::Reg::new($dst),
            a: bc::Reg::new($a),
            b: bc::Reg::new($b),
        })
    };
}
use bin;

macro_rules! un {
    ($e:expr, $op:ident, $dst:expr, $a:expr) => {
        $e.hb.emit(Instr::$op {
            dst: bc::Reg::new($dst),
            a: bc::Reg::new($a),
        })
    };
}
use un;
