//! The one animation-command vocabulary: what graphs (`anim.*` exec nodes, through the VM's
//! [`Host`](crate::vm::Host)), scene actions and embedders ask of an animator. The
//! [`commands!`] table declares each command once — its variant, the graph node that issues
//! it, the scene action that writes it and its typed arguments — and generates the
//! [`AnimCommand`] enum, the [`COMMANDS`] table and the value conversions the VM and the scene
//! reader use. The animator gives each command its behaviour (`runtime::animator`).
//!
//! Adding a command: a row here, its behaviour in the animator, and — if graphs may issue
//! it — a node-table row (`nodes::BUILTINS`, inputs `exec` then the arguments) and an
//! instruction of the same name in the ISA table (operands: a `bool` result if any, then the
//! arguments). The lowering, the VM and the scene reader need no change; tests check that the
//! three tables agree.

use std::sync::Arc;

use crate::bytecode::Value;
use crate::types::Type;

/// One argument of a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arg {
    /// The name (the graph node's input pin).
    pub name: &'static str,
    /// The value type (`string` or `float`).
    pub ty: Type,
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

macro_rules! opt {
    () => {
        None
    };
    ($x:literal) => {
        Some($x)
    };
}

macro_rules! commands {
    ($(
        $(#[$m:meta])*
        $variant:ident $(graph $node:literal)? $(scene $scene:literal)?
            $(( $($arg:ident : $ty:ident $what:literal),* ))?;
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
                node: opt!($($node)?),
                scene: opt!($($scene)?),
                args: &[$($(Arg { name: stringify!($arg), ty: Type::$ty, what: $what }),*)?],
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
        }
    };
}

commands! {
    /// Plays clip slot `clip` on the base from clip time `at` (a new clip instance whose first
    /// update is a `Start` at `at`, so a window containing `at` opens), replacing what the
    /// base plays with a crossfade over the blend duration. `at` is clamped to the clip's
    /// `[0, duration]`; a time that is not finite, an unknown slot, or an animator with a state
    /// machine refuses the request (`docs/windows.md`).
    Play graph "anim.play" scene "Play" (clip: Str "clip slot", at: Float "clip time");
    /// Records a parameter (read by conditions, blend trees and `anim.get_param`).
    SetParam graph "anim.set_param" scene "SetParam"
        (name: Str "parameter name", value: Float "parameter value");
    /// Requests a state (crossfade over the blend duration); an unknown state is refused.
    SetState graph "anim.set_state" scene "SetState" (state: Str "state name");
    /// Plays a clip slot on a layer (crossfading from the clip it was playing).
    PlayOnLayer graph "anim.play_on_layer" scene "PlayOnLayer"
        (layer: Str "layer name", clip: Str "clip slot");
    /// Empties a layer at once.
    StopLayer graph "anim.stop_layer" scene "StopLayer" (layer: Str "layer name");
    /// Sets a layer's weight (clamped to [0, 1]).
    SetLayerWeight graph "anim.set_layer_weight" scene "SetLayerWeight"
        (layer: Str "layer name", weight: Float "layer weight");
    /// Moves the playhead to clip time `t` (unwrapped); fires nothing.
    Seek scene "Seek" (time: Float "seek time");
    /// Stops advancing.
    Pause scene "Pause";
    /// Advances again.
    Resume scene "Resume";
    /// Sets the playback speed (negative plays in reverse).
    SetSpeed scene "SetSpeed" (speed: Float "speed");
}

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
