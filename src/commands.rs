//! The animation-command vocabulary, stated once: the [`commands!`] table. Each row is one
//! command an animator obeys — its variant, the graph node that issues it (node id, opcode,
//! kind, title, result pin, one-sentence doc), the scene action that writes it, and its typed
//! arguments, each with its role (what the name names) and its pin rule.
//!
//! Nothing here has a type: the table is tokens, expanded by a callback macro in each module
//! that needs a view of it, so the modules stay in their layers (`bytecode` never names
//! `anim`):
//! - `anim::command` (`all`): the [`AnimCommand`](crate::anim::AnimCommand) enum, `CommandKind`
//!   and the `COMMANDS` table (arguments with their [`ArgRole`](crate::anim::command::ArgRole)),
//!   which the scene reader and `project::names` iterate;
//! - `bytecode::isa` (`graph`): one `CommandInstr` variant per graph command, its opcode
//!   explicit (numbering is append-only; the opcode table is sorted by opcode);
//! - `nodes` (`graph`): the node row, placed in palette order by a `Kind command;` row;
//! - `vm::rare` (`graph`): the instruction-to-command match (exhaustive, generated).
//!
//! Row grammar:
//!
//! ```text
//! /// doc of the command
//! Variant
//!     node NodeId = 0xOPCODE, "anim.kind", "Title" [-> result], "node doc"   (optional)
//!     scene "SceneAction"                                                     (optional)
//!     (arg: Type Role pin "what it is", ...)                                  (optional)
//!     ;
//! ```
//!
//! `Type` is `Str` or `Float`; `Role` one of `ArgRole`'s variants; `pin` is `must` (leaving the
//! node's input unset warns, `W0303`) or `p`. The recipe for a new command is in
//! `docs/ARCHITECTURE.md` ("Recipe: add an animation command").

/// Expands the table through `$cb!`: `commands! { all cb [fwd] }` passes every row as
/// written; `commands! { graph cb [fwd] }` passes only the rows with a graph node, normalised
/// to `Variant NodeId = opcode, "kind", "Title", "doc", [result] (arg: Type pin, ...);`. The
/// bracketed `fwd` tokens are handed to `$cb!` first, unchanged.
macro_rules! commands {
    ($mode:ident $cb:ident [$($fwd:tt)*]) => {
        $crate::commands::dispatch! { $mode $cb [$($fwd)*]
            /// Plays clip slot `clip` on the base from clip time `at` (a new clip instance whose
            /// first update is a `Start` at `at`, so a window containing `at` opens), replacing
            /// what the base plays with a crossfade over the blend duration. `at` is clamped to
            /// the clip's `[0, duration]`; a time that is not finite, an unknown slot, or an
            /// animator with a state machine refuses the request (`docs/windows.md`).
            Play
                node AnimPlay = 0x00CB, "anim.play", "Play Clip",
                    "Plays the clip slot `clip` from clip time `at` on a default-clip animator (ignored with a state machine)."
                scene "Play"
                (clip: Str BaseSlot must "clip slot", at: Float Value p "clip time");
            /// Records a parameter (read by conditions, blend trees and `anim.get_param`).
            SetParam
                node AnimSetParam = 0x00C3, "anim.set_param", "Set Parameter",
                    "Sets the state-machine parameter `name` to `value`."
                scene "SetParam"
                (name: Str Param must "parameter name", value: Float Value must "parameter value");
            /// Requests a state (crossfade over the blend duration); an unknown state is refused.
            SetState
                node AnimSetState = 0x00C2, "anim.set_state", "Set State" -> ok,
                    "Requests the named state of this entity's state machine; `ok` is false (and nothing changes) for an unknown state or no state machine. Applies at the next animation update."
                scene "SetState"
                (state: Str State must "state name");
            /// Plays a clip slot on a layer (crossfading from the clip it was playing).
            PlayOnLayer
                node AnimPlayOnLayer = 0x00C5, "anim.play_on_layer", "Play On Layer",
                    "Plays the clip slot `clip` on the animator layer `layer`, crossfading from the clip it was playing."
                scene "PlayOnLayer"
                (layer: Str Layer must "layer name", clip: Str Slot must "clip slot");
            /// Empties a layer at once.
            StopLayer
                node AnimStopLayer = 0x00C6, "anim.stop_layer", "Stop Layer",
                    "Empties the animator layer `layer` at once."
                scene "StopLayer"
                (layer: Str Layer must "layer name");
            /// Sets a layer's weight (clamped to [0, 1]).
            SetLayerWeight
                node AnimSetLayerWeight = 0x00C7, "anim.set_layer_weight", "Set Layer Weight",
                    "Sets the weight of the animator layer `layer` (clamped to [0, 1])."
                scene "SetLayerWeight"
                (layer: Str Layer must "layer name", weight: Float Value must "layer weight");
            /// Moves the playhead to clip time `t` (unwrapped); fires nothing.
            Seek
                scene "Seek"
                (time: Float Value p "seek time");
            /// Stops advancing.
            Pause
                scene "Pause";
            /// Advances again.
            Resume
                scene "Resume";
            /// Sets the playback speed of every clip the animator plays (negative plays in
            /// reverse). A speed that is not finite or beyond ±`scene::MAX_SPEED` is refused.
            SetSpeed
                node AnimSetSpeed = 0x00D2, "anim.set_speed", "Set Speed",
                    "Sets the animator's playback speed (every clip it plays; negative plays in reverse); a speed that is not finite or beyond ±1000000 is refused with an `error` record. Applies at the next animation update."
                scene "SetSpeed"
                (speed: Float Value must "speed");
        }
    };
}
pub(crate) use commands;

/// `commands!`'s mode switch (see there).
macro_rules! dispatch {
    (all $cb:ident [$($fwd:tt)*] $($rows:tt)*) => {
        $cb! { [$($fwd)*] $($rows)* }
    };
    (graph $cb:ident [$($fwd:tt)*] $($rows:tt)*) => {
        $crate::commands::graph_rows! { $cb [$($fwd)*] [] $($rows)* }
    };
}
pub(crate) use dispatch;

/// Keeps the rows with a graph node, normalised (one row at a time).
macro_rules! graph_rows {
    ($cb:ident [$($fwd:tt)*] [$($acc:tt)*]) => {
        $cb! { [$($fwd)*] $($acc)* }
    };
    ($cb:ident [$($fwd:tt)*] [$($acc:tt)*]
        $(#[$m:meta])*
        $variant:ident
            node $nid:ident = $op:literal, $kind:literal, $title:literal $(-> $res:ident)?, $ndoc:literal
            $(scene $scene:literal)?
            $(( $($arg:ident : $ty:ident $role:ident $pin:ident $what:literal),* ))?;
        $($rest:tt)*
    ) => {
        $crate::commands::graph_rows! { $cb [$($fwd)*] [$($acc)*
            $variant $nid = $op, $kind, $title, $ndoc, [$($res)?] ($($($arg: $ty $pin),*)?);
        ] $($rest)* }
    };
    ($cb:ident [$($fwd:tt)*] [$($acc:tt)*]
        $(#[$m:meta])*
        $variant:ident
            $(scene $scene:literal)?
            $(( $($arg:ident : $ty:ident $role:ident $pin:ident $what:literal),* ))?;
        $($rest:tt)*
    ) => {
        $crate::commands::graph_rows! { $cb [$($fwd)*] [$($acc)*] $($rest)* }
    };
}
pub(crate) use graph_rows;
