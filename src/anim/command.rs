//! The animation-command types, generated from the one table (`crate::commands`): what graphs
//! (`anim.*` exec nodes, through the VM's [`Host`](crate::vm::Host)), scene actions and
//! embedders ask of an animator. This module expands the table into the [`AnimCommand`] enum,
//! [`CommandKind`], the [`COMMANDS`] table (each argument with its [`ArgRole`]) and the value
//! conversions the VM, the scene reader and `project::names` use. The animator gives each
//! command its behaviour (`runtime::animator`, an exhaustive match).
//!
//! Adding a command: see "Recipe: add an animation command" in `docs/ARCHITECTURE.md`.

use std::sync::Arc;

use crate::bytecode::Value;
use crate::types::Type;

/// What an argument names, for the name checks of `project::names`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ArgRole {
    /// An animator layer.
    Layer,
    /// A state of the state machine.
    State,
    /// A clip slot played on a layer.
    Slot,
    /// A clip slot played on the base (refused with a state machine).
    BaseSlot,
    /// A parameter set.
    Param,
    /// A number: names nothing.
    Value,
}

/// One argument of a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arg {
    /// The name (the graph node's input pin).
    pub name: &'static str,
    /// The value type (`string` or `float`).
    pub ty: Type,
    /// What the argument names.
    pub role: ArgRole,
    /// What it is, for messages ("parameter value").
    pub what: &'static str,
}

/// One row of the command table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommandSpec {
    pub kind: CommandKind,
    /// The variant's name.
    pub name: &'static str,
    /// The graph node kind that issues it (and the ISA mnemonic), if graphs may.
    pub node: Option<&'static str>,
    /// The node's `bool` result pin (the host's answer), if any.
    pub result: Option<&'static str>,
    /// The scene action that writes it, if scenes may.
    pub scene: Option<&'static str>,
    /// Its arguments, in order.
    pub args: &'static [Arg],
}

macro_rules! arg_type {
    (Str) => { Arc<str> };
    (Float) => { f64 };
}

macro_rules! arg_value {
    (Str, $v:expr) => {
        match $v {
            Value::Str(s) => Some(s.clone()),
            _ => None,
        }
    };
    (Float, $v:expr) => {
        match $v {
            Value::Float(f) => Some(*f),
            _ => None,
        }
    };
}

macro_rules! to_value {
    (Str, $v:expr) => {
        Value::Str($v.clone())
    };
    (Float, $v:expr) => {
        Value::Float(*$v)
    };
}

macro_rules! opt {
    () => {
        None
    };
    ($x:expr) => {
        Some($x)
    };
}

/// `crate::commands!`'s callback: the types of this module.
macro_rules! command_items {
    ([] $(
        $(#[$m:meta])*
        $variant:ident
            $(node $nid:ident = $op:literal, $kind:literal, $title:literal $(-> $res:ident)?, $ndoc:literal)?
            $(scene $scene:literal)?
            $(( $($arg:ident : $ty:ident $role:ident $pin:ident $what:literal),* ))?;
    )*) => {
        /// A request to an animator. Queued (`Animator::queue`) and applied at the start of
        /// the next animation update.
        #[derive(Debug, Clone, PartialEq)]
        pub enum AnimCommand {
            $( $(#[$m])* $variant $(( $(arg_type!($ty)),* ))?, )*
        }

        /// Which command (one variant per row of the table).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum CommandKind {
            $( $variant, )*
        }

        /// Every command, in table order (`COMMANDS[k as usize].kind == k`).
        pub static COMMANDS: &[CommandSpec] = &[$(
            CommandSpec {
                kind: CommandKind::$variant,
                name: stringify!($variant),
                node: opt!($($kind)?),
                result: opt!($($(stringify!($res))?)?),
                scene: opt!($($scene)?),
                args: &[$($(Arg {
                    name: stringify!($arg),
                    ty: Type::$ty,
                    role: ArgRole::$role,
                    what: $what,
                }),*)?],
            },
        )*];

        impl AnimCommand {
            /// Which command this is.
            pub fn kind(&self) -> CommandKind {
                match self {
                    $( AnimCommand::$variant { .. } => CommandKind::$variant, )*
                }
            }

            /// The command `kind` with `args` (one value of each argument's type, in order);
            /// `None` when they do not match.
            pub fn from_values(kind: CommandKind, args: &[Value]) -> Option<AnimCommand> {
                match kind {
                    $( CommandKind::$variant => {
                        #[allow(unused_mut, unused_variables)]
                        let mut it = args.iter();
                        $($( let $arg = arg_value!($ty, it.next()?)?; )*)?
                        if it.next().is_some() {
                            return None;
                        }
                        Some(AnimCommand::$variant $(( $($arg),* ))?)
                    } )*
                }
            }

            /// The arguments, in the table's order (the inverse of [`Self::from_values`]).
            pub fn values(&self) -> Vec<Value> {
                match self {
                    $( AnimCommand::$variant $(( $($arg),* ))? => {
                        vec![$($(to_value!($ty, $arg)),*)?]
                    } )*
                }
            }
        }
    };
}

crate::commands::commands! { all command_items [] }

impl CommandKind {
    /// The command's table row.
    pub fn spec(self) -> &'static CommandSpec {
        &COMMANDS[self as usize]
    }
}

impl AnimCommand {
    /// The command's table row.
    pub fn spec(&self) -> &'static CommandSpec {
        self.kind().spec()
    }
}

/// The command a graph node kind (or ISA mnemonic) issues.
pub fn by_node(kind: &str) -> Option<&'static CommandSpec> {
    COMMANDS.iter().find(|c| c.node == Some(kind))
}

/// The command a scene action writes.
pub fn by_scene(action: &str) -> Option<&'static CommandSpec> {
    COMMANDS.iter().find(|c| c.scene == Some(action))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_rows_are_in_kind_order_and_round_trip_values() {
        for (i, c) in COMMANDS.iter().enumerate() {
            assert_eq!(c.kind as usize, i, "{}", c.name);
            let args: Vec<Value> = c
                .args
                .iter()
                .map(|a| match a.ty {
                    Type::Str => Value::Str(Arc::from(a.name)),
                    _ => Value::Float(1.5),
                })
                .collect();
            let cmd = AnimCommand::from_values(c.kind, &args).expect(c.name);
            assert_eq!(cmd.kind(), c.kind);
            // Wrong count or type is refused.
            let mut more = args.clone();
            more.push(Value::Float(0.0));
            assert_eq!(AnimCommand::from_values(c.kind, &more), None);
            if let Some(first) = args.first() {
                let wrong = match first {
                    Value::Str(_) => Value::Float(0.0),
                    _ => Value::Str(Arc::from("x")),
                };
                let mut bad = args.clone();
                bad[0] = wrong;
                assert_eq!(AnimCommand::from_values(c.kind, &bad), None);
            }
        }
        assert_eq!(
            AnimCommand::from_values(
                CommandKind::SetParam,
                &[Value::Str(Arc::from("speed")), Value::Float(2.0)]
            ),
            Some(AnimCommand::SetParam(Arc::from("speed"), 2.0))
        );
        assert_eq!(
            by_node("anim.stop_layer").map(|c| c.kind),
            Some(CommandKind::StopLayer)
        );
        assert_eq!(by_scene("Pause").map(|c| c.kind), Some(CommandKind::Pause));
        assert_eq!(by_scene("Despawn"), None);
    }

    #[test]
    fn node_table_isa_and_commands_agree() {
        use crate::bytecode::{Instr, OperandKind};
        use crate::nodes::{self, Flow, PinType};
        for c in COMMANDS {
            let Some(node) = c.node else { continue };
            let k = nodes::lookup(node).unwrap_or_else(|| panic!("no node row `{node}`"));
            assert_eq!(k.flow, Flow::Exec, "{node}");
            let ins: Vec<(&str, Option<PinType>)> = k
                .inputs
                .iter()
                .map(|p| (p.name, p.ty.resolve(None)))
                .collect();
            let mut want = vec![("exec", Some(PinType::Exec))];
            want.extend(c.args.iter().map(|a| (a.name, Some(PinType::Data(a.ty)))));
            assert_eq!(
                ins, want,
                "{node}: inputs are `exec` then the command's arguments"
            );
            let results: Vec<Option<PinType>> = k
                .outputs
                .iter()
                .map(|p| p.ty.resolve(None))
                .filter(|t| *t != Some(PinType::Exec))
                .collect();
            assert!(
                results.is_empty() || results == [Some(PinType::Data(Type::Bool))],
                "{node}: at most one bool result"
            );
            let op = Instr::opcode_of(node).unwrap_or_else(|| panic!("no instruction `{node}`"));
            let info = Instr::info(op).expect("opcode of a mnemonic");
            let kinds: Vec<OperandKind> = info.operands.iter().map(|o| o.1).collect();
            let mut want: Vec<OperandKind> = results
                .iter()
                .map(|_| OperandKind::Reg(Type::Bool))
                .collect();
            want.extend(c.args.iter().map(|a| OperandKind::Reg(a.ty)));
            assert_eq!(
                kinds, want,
                "{node}: operands are the result, then the arguments"
            );
        }
        // Every `anim.*` exec node is a command.
        for k in nodes::BUILTINS {
            if k.flow == Flow::Exec && k.kind.starts_with("anim.") {
                assert!(
                    by_node(k.kind).is_some(),
                    "{} is not in the command table",
                    k.kind
                );
            }
        }
    }
}
