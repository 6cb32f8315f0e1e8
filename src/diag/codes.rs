//! Every stable diagnostic code, declared once: the [`codes!`] table below generates each
//! code's constant (in a module named after the part of Sinew that reports it, re-exported
//! there: `animseq::E_SYNTAX` is `diag::codes::animseq::E_SYNTAX`), each group's `CODES` list
//! and the registry [`CODES`] with a one-line summary per code (SARIF rules, docs).
//!
//! Codes are never renumbered or reused; new ones are appended to their group. A retired code
//! stays in the table (its summary starts with `retired:`) so it is never reused.
//! `docs/diagnostics.md` lists each with an example; `tests/codes.rs` checks that every
//! registered code is documented there, that every code the docs list is registered, and that
//! no module declares or spells a code outside this table.

/// One table row per code: `CODE NAME "summary";` inside a `pub mod GROUP { … }`.
macro_rules! codes {
    ($(
        $(#[$gmeta:meta])*
        pub mod $group:ident {
            $( $(#[$meta:meta])* $code:ident $name:ident $summary:literal; )*
        }
    )*) => {
        $(
            $(#[$gmeta])*
            pub mod $group {
                $( $(#[$meta])* pub const $name: &str = stringify!($code); )*
                /// Every code of this group, in table order.
                pub const CODES: &[&str] = &[$($name),*];
            }
        )*
        /// (code, summary) of every registered code, in table order (grouped by the part of
        /// Sinew that reports it; codes ascend within a group).
        pub static CODES: &[(&str, &str)] = &[$($((stringify!($code), $summary),)*)*];
    };
}

codes! {
    /// General and I/O: reading files and folders.
    pub mod files {
        /// A file or folder could not be read.
        E0001 E_UNREADABLE "a file or folder cannot be read";
        /// A text file (graph, scene) is not UTF-8.
        E0002 E_NOT_UTF8 "a text file is not UTF-8";
        /// A file is larger than the catalog will load.
        E0003 E_TOO_LARGE "a file is larger than Sinew loads";
        /// A file a folder walk looks for has a name that is not UTF-8 (`fsutil::walk`).
        E0004 E_NAME_NOT_UTF8 "a file name is not UTF-8";
        /// A folder walk reached its depth or entry limit (`fsutil::walk`).
        E0005 E_WALK_LIMIT "a folder walk reaches its depth or entry limit";
    }
    /// Binary bytecode modules (`bytecode`).
    pub mod bytecode {
        /// Bytes are not a valid module (bad magic/version, truncated, malformed).
        E0060 E_MODULE_DECODE "the bytes are not a valid bytecode module";
        /// A decoded module failed verification.
        E0061 E_MODULE_VERIFY "a bytecode module fails verification";
        /// A module imports a game node the project no longer declares, or declares with
        /// another signature (`bytecode::imports`; refused at load and attach).
        E0062 E_IMPORT_SIGNATURE "a module's game node import is undeclared or has another signature";
    }
    /// `.animseq` assets (`animseq`).
    pub mod animseq {
        /// The file is not valid UTF-8.
        E0100 E_NOT_UTF8 "an .animseq file is not UTF-8";
        /// RON syntax error (including nesting too deep).
        E0101 E_SYNTAX "an .animseq file is not valid RON";
        /// `format` is newer than this reader knows.
        E0102 E_FORMAT_TOO_NEW "the .animseq format version is newer than this reader";
        /// `format` is not a valid version number.
        E0103 E_FORMAT_INVALID "the .animseq format version is invalid";
        /// Unknown field.
        E0104 E_UNKNOWN_FIELD "an unknown field in an .animseq file";
        /// A field the declared format version does not allow.
        E0105 E_FIELD_NOT_IN_VERSION "a field the declared .animseq version does not allow";
        /// A field written twice in one struct.
        E0106 E_DUPLICATE_FIELD "a field is written twice";
        /// A required field is missing.
        E0107 E_MISSING_FIELD "a required field is missing";
        /// A value of the wrong type or shape.
        E0108 E_TYPE "a value has the wrong type";
        /// A sequence or notify ID that does not match `[A-Za-z0-9][A-Za-z0-9_-]{0,63}`.
        E0109 E_BAD_ID "a sequence or notify ID is malformed";
        /// Two notifies or windows with one ID in one sequence (an identity conflict; the file
        /// still loads).
        E0110 E_DUPLICATE_NOTIFY_ID "two notifies or windows share one ID in one sequence";
        /// Duration not finite or not positive.
        E0111 E_BAD_DURATION "the duration is not finite and positive";
        /// Notify time not finite or outside `[0, duration]`.
        E0112 E_BAD_NOTIFY_TIME "a notify time is not finite or outside [0, duration]";
        /// An empty (or whitespace-only) name.
        E0113 E_EMPTY_NAME "a display name is empty";
        /// A notify field name that is not an identifier.
        E0114 E_BAD_FIELD_NAME "a notify field name is not an identifier";
        /// Two notify fields with one name.
        E0115 E_DUPLICATE_FIELD_NAME "two notify fields share one name";
        /// Curve keys out of order.
        E0116 E_CURVE_UNSORTED "curve keys are not in increasing time order";
        /// Two curve keys at one time.
        E0117 E_CURVE_DUPLICATE_KEY "two curve keys share one time";
        /// A curve key time outside `[0, duration]`.
        E0118 E_CURVE_OUT_OF_RANGE "a curve key lies outside [0, duration]";
        /// A curve key time or value that is not finite.
        E0119 E_CURVE_NON_FINITE "a curve key is not finite";
        /// A curve mixing `Float` and `Vec3` keys.
        E0120 E_CURVE_MIXED_TYPES "a curve mixes value types";
        /// Track keys not strictly increasing in time.
        E0121 E_TRACK_UNSORTED "track keys are not in increasing time order";
        /// A track key time or value that is not finite.
        E0122 E_TRACK_NON_FINITE "a track key is not finite";
        /// A rotation key of zero length (cannot be normalized).
        E0123 E_TRACK_ZERO_ROTATION "a rotation key is the zero quaternion";
        /// Two tracks for one bone.
        E0124 E_DUPLICATE_TRACK "two tracks animate one bone";
        /// The root-motion bone has no track and no skeleton bone of that name.
        E0125 E_ROOT_BONE_MISSING "the root-motion bone has no track and no skeleton bone";
        /// A notify field value that is not finite.
        E0126 E_FIELD_NON_FINITE "a notify field value is not finite";
        /// Two curves with one name.
        E0127 E_DUPLICATE_CURVE "two curves share one name";
        /// A `Variable(...)` target whose name is not an identifier.
        E0128 E_BAD_TARGET "a notify target is malformed";
        /// A window whose `begin` is not before its `end`.
        E0129 E_WINDOW_EMPTY "a window does not end after it begins";
        /// A window edge (`begin` or `end`) not finite or outside `[0, duration]`.
        E0130 E_BAD_WINDOW_EDGE "a window edge is not finite or outside [0, duration]";
        /// A `weight_threshold` or `chance` not finite or outside `[0, 1]`.
        E0131 E_BAD_GATING "a weight threshold or chance is not finite or outside [0, 1]";
        /// More windows in one sequence than [`MAX_WINDOWS`](crate::animseq::MAX_WINDOWS).
        E0132 E_TOO_MANY_WINDOWS "a sequence has more windows than Sinew loads";
    }
    /// The event catalog (`catalog`).
    pub mod catalog {
        /// Two or more files declare one sequence ID (an error on every claimant).
        E0201 E_SEQUENCE_CONFLICT "two or more files declare one sequence ID (identities quarantined)";
        /// A `.nodes.ron` file is not valid RON or has the wrong shape (unknown, missing or
        /// duplicate fields, a value of the wrong type).
        E0202 E_NODES_SYNTAX "a .nodes.ron file is malformed";
        /// A `.nodes.ron` `format` newer than this reader (refused by name).
        E0203 E_NODES_FORMAT "the .nodes.ron format version is newer than this reader";
        /// A game node declaration is invalid: a bad kind, pin name, type or default, too many pins.
        E0204 E_NODES_BAD_DECL "a game node declaration is invalid";
        /// A game node kind declared twice: in one file (the second is refused) or by two files
        /// (both quarantined).
        E0205 E_NODES_DUPLICATE "a game node kind is declared twice";
        /// A game node kind that is a built-in node kind.
        E0206 E_NODES_BUILTIN "a game node kind shadows a built-in node kind";
    }
    /// The graph compiler's semantic passes (`compile`).
    pub mod compile {
        /// A link joins pins of different data types.
        E0301 E_TYPE_MISMATCH "type mismatch across a link";
        /// A node kind that is not in the node table.
        E0302 E_UNKNOWN_KIND "unknown node kind";
        /// A link names a pin the node does not have.
        E0303 E_UNKNOWN_PIN "unknown pin";
        /// A link starts at an input or ends at an output.
        E0304 E_LINK_DIRECTION "a link starts at an input or ends at an output";
        /// A link joins an exec pin and a data pin.
        E0305 E_EXEC_DATA "a link joins an exec pin and a data pin";
        /// A data input has more than one incoming link.
        E0306 E_DATA_IN_TWICE "a data input is linked twice";
        /// An exec output has more than one outgoing link.
        E0307 E_EXEC_OUT_TWICE "an exec output is linked twice";
        /// Exec links form a cycle.
        E0308 E_EXEC_CYCLE "exec links form a cycle";
        /// Data links between pure nodes form a cycle.
        E0309 E_DATA_CYCLE "data links between pure nodes form a cycle";
        /// A variable that is not declared.
        E0310 E_UNKNOWN_VAR "unknown variable";
        /// A literal of the wrong type for its variable, pin or property.
        E0311 E_BAD_LITERAL "a literal of the wrong type";
        /// An event identity the catalog does not publish.
        E0312 E_UNKNOWN_EVENT "unknown event identity";
        /// An event identity the catalog quarantined.
        E0313 E_QUARANTINED_EVENT "quarantined event identity";
        /// One graph handles one event twice.
        E0314 E_EVENT_TWICE "an event is handled twice in one graph";
        /// An argument that is neither a data input nor a property, or a property out of range.
        E0316 E_BAD_PROPERTY "invalid argument or property";
        /// Two nodes with one name.
        E0317 E_DUPLICATE_NODE "duplicate node name";
        /// Two variables with one name.
        E0318 E_DUPLICATE_VAR "duplicate variable name";
        /// A link names a node that does not exist.
        E0319 E_UNKNOWN_NODE "a link names an unknown node";
        /// A node's subject is missing or of the wrong form for its kind.
        E0320 E_BAD_SUBJECT "a node's subject is missing or of the wrong form";
        /// Exec nesting (call sites inside call sites) deeper than the VM's call limit.
        E0321 E_NESTING "exec nesting deeper than the VM's call limit";
        /// A graph crosses a limit of the bytecode format (variables, slots, instructions,
        /// registers or parameters of one handler), at the declaration or node that crosses it.
        E0322 E_FORMAT_LIMIT "a graph crosses a limit of the bytecode format";
        /// One instance of a graph would hold more state than an instance may.
        E0323 E_INSTANCE_STATE "a graph instance would hold more state than allowed (1 MiB)";
        /// Two graphs checked together give one custom event different payloads (one declares
        /// `{ amount: float }`, another other fields or none).
        E0324 E_PAYLOAD_CONFLICT "graphs checked together give one custom event different payloads";
        /// A custom event declaration is invalid: declared twice in one graph, a field twice, a
        /// field named like one of the event's pins, or too many fields.
        E0325 E_BAD_PAYLOAD "an invalid custom event payload declaration";
        /// A reroute node wired wrongly: wires out of it but none into it, reroutes in a loop,
        /// or more joined wires than [`MAX_JOINED`](crate::graph::reroute::MAX_JOINED).
        E0340 E_REROUTE "a reroute node has nothing wired into it or is part of a loop";
        /// A compiler defect: lowering or verification rejected a graph that passed every check.
        E0399 E_INTERNAL "internal compiler error";
        /// A node no event reaches.
        W0301 W_UNREACHABLE "a node no event reaches";
        /// A variable no node reads or writes.
        W0302 W_UNUSED_VAR "a variable no node reads or writes";
        /// An exec node's input whose default changes what the node does (a log's message, a
        /// send's target, a variable's new value) is neither linked nor given a literal.
        W0303 W_UNSET_INPUT "an exec node's input is left at a default that changes what it does";
        /// A reroute node with no wire at all (it changes nothing).
        W0340 W_REROUTE_UNCONNECTED "a reroute node with no wire";
    }
    /// `.bpg` syntax (`graph::parser`).
    pub mod parser {
        /// A character no token starts with (non-ASCII outside strings and comments, NUL, lone `-`, …).
        E0401 E_UNEXPECTED_CHAR "unexpected character";
        /// A string literal without its closing quote on the same line.
        E0402 E_UNTERMINATED_STRING "unterminated string";
        /// An escape other than `\"`, `\\`, `\n` in a string literal.
        E0403 E_INVALID_ESCAPE "invalid escape in a string";
        /// An integer outside i64, or a float that overflows to infinity.
        E0404 E_NUMBER_OUT_OF_RANGE "number out of range";
        /// A token other than the grammar allows here ("expected X, found Y").
        E0405 E_EXPECTED "syntax error: expected something else";
        /// The file does not start with `graph NAME`.
        E0406 E_MISSING_HEADER "missing `graph NAME` header";
        /// A second `graph NAME` line.
        E0407 E_DUPLICATE_HEADER "a second `graph` header";
        /// A `var` type that is not `bool int float vec3 string entity`.
        E0408 E_UNKNOWN_TYPE "unknown variable type";
        /// An `animseq::` sequence or notify ID longer than 64 characters.
        E0409 E_EVENT_ID_TOO_LONG "event ID longer than 64 characters";
        /// More syntax errors than [`MAX_DIAGNOSTICS`](crate::graph::parser::MAX_DIAGNOSTICS); the rest are counted, not listed.
        E0410 E_TOO_MANY_ERRORS "too many syntax errors; the rest are counted";
        /// A comment box (`box`) whose position or size is outside the documented bounds
        /// ([`MAX_BOX_COORD`](crate::graph::parser::MAX_BOX_COORD), sizes 1 to
        /// [`MAX_BOX_SIZE`](crate::graph::parser::MAX_BOX_SIZE)).
        E0415 E_BOX_BOUNDS "a comment box's position or size is out of bounds";
        /// A comment box argument other than `color = "#RRGGBB"` (or a color of another form).
        E0416 E_BOX_ARG "a comment box argument is not `color = \"#RRGGBB\"`";
    }
    /// The `expr` sub-language (`graph::expr`).
    pub mod expr {
        /// An expression that does not parse ("expected X, found Y").
        E0411 E_EXPR_SYNTAX "an expression does not parse";
        /// A call of a function that does not exist.
        E0412 E_EXPR_UNKNOWN_FUNCTION "unknown function in an expression";
        /// A call with the wrong number of arguments.
        E0413 E_EXPR_ARITY "wrong number of arguments in an expression call";
        /// An expression nested deeper than the limits.
        E0414 E_EXPR_TOO_DEEP "an expression is nested too deeply";
    }
    /// Skeletons, blending, retargeting and state machines (`anim`).
    pub mod anim {
        /// `.skel` file is not valid UTF-8.
        E0500 E_SKEL_NOT_UTF8 "a .skel file is not UTF-8";
        /// `.skel` RON syntax error.
        E0501 E_SKEL_SYNTAX "a .skel file is not valid RON";
        /// `.skel` value of the wrong type or shape (also unknown/duplicate/missing fields).
        E0502 E_SKEL_SHAPE "a .skel value has the wrong shape (unknown, duplicate or missing field, wrong type)";
        /// A bone with an empty name.
        E0503 E_SKEL_EMPTY_NAME "a bone name is empty";
        /// Two bones whose names match (exactly, or across `:`/`_`/case).
        E0504 E_SKEL_DUPLICATE_BONE "two bones share a name (matching across `:`/`_`/case)";
        /// A parent that names no bone of the skeleton.
        E0505 E_SKEL_UNKNOWN_PARENT "a bone names an unknown parent";
        /// Bones whose parents form a cycle (a bone its own ancestor).
        E0506 E_SKEL_CYCLE "bone parents form a cycle";
        /// A rest transform value that is not finite.
        E0507 E_SKEL_NON_FINITE "a rest-pose value is not finite";
        /// A rest rotation of zero length (cannot be normalized).
        E0508 E_SKEL_ZERO_ROTATION "a rest rotation cannot be normalized";
        /// A skeleton without bones, or with more than [`MAX_BONES`](crate::anim::skeleton::MAX_BONES).
        E0509 E_SKEL_BONE_COUNT "a skeleton has no bones or more than 4096";
        /// Blend entries invalid: none, non-finite, 1D thresholds out of order, 2D coincident points.
        E0512 E_BLEND_ENTRIES "bad blend entries (none, non-finite, 1D unsorted, 2D coincident)";
        /// A blend tree nested deeper than [`MAX_TREE_DEPTH`](crate::anim::blend::MAX_TREE_DEPTH) or naming a missing clip.
        E0513 E_BLEND_TREE "bad blend tree (too deep, missing clip slot, entry/clip mismatch)";
        /// Retargeting could not bake a clip (too many keys) or found no usable hips.
        E0514 E_RETARGET "retargeting cannot pair the rigs or would bake too many keys";
        /// `.animsm` file is not UTF-8 or has a RON syntax error.
        E0515 E_SM_SYNTAX "a state machine file is not UTF-8 or not valid RON";
        /// `.animsm` value of the wrong type or shape (unknown/duplicate/missing fields, bad variant).
        E0516 E_SM_SHAPE "a state machine value has the wrong shape";
        /// A state name (entry, transition `from`/`to`) that names no state, or no states at all.
        E0517 E_SM_UNKNOWN_STATE "a state machine names a state it lacks";
        /// A motion names a clip slot the animator lacks.
        E0518 E_SM_UNKNOWN_CLIP "a state's motion names a clip slot the animator lacks";
        /// Two states share a name.
        E0519 E_SM_DUPLICATE_STATE "two states share a name";
        /// A transition that can never fire (self, `Finished` on a looping state, contradictory
        /// conditions, shadowed by an earlier unconditional transition).
        E0520 E_SM_NEVER_FIRES "a transition can never fire";
        /// A number out of range (non-finite speed/threshold/value, negative blend, too many items).
        E0522 E_SM_BAD_VALUE "a state machine number is out of range";
        /// A clip track names a bone the skeleton lacks (warning; the track is ignored).
        W0510 W_TRACK_UNBOUND "a clip track names a bone the skeleton lacks (ignored)";
        /// A mask entry names a bone the skeleton lacks (warning; the entry is ignored).
        W0511 W_MASK_UNKNOWN_BONE "a mask entry names no bone (ignored)";
        /// Warning: a parameter a scene action or graph sets is read by nothing (no condition,
        /// blend tree or literal `anim.get_param`).
        W0521 W_SM_UNREAD_PARAM "a parameter a scene action or graph sets is read by nothing";
    }
    /// Scenes (`.scene.ron`, `runtime::scene`).
    pub mod scene {
        /// Scene file is not UTF-8.
        E0550 E_SCENE_NOT_UTF8 "a scene file is not UTF-8";
        /// RON syntax error.
        E0551 E_SCENE_SYNTAX "a scene file is not valid RON";
        /// A value has the wrong shape (type mismatch, bad variant, wrong arity).
        E0552 E_SCENE_TYPE "a scene value has the wrong shape, or an unknown or mis-called action";
        /// Unknown struct field.
        E0553 E_SCENE_UNKNOWN_FIELD "an unknown field in a scene";
        /// A struct field written twice.
        E0554 E_SCENE_DUPLICATE_FIELD "a scene field or clip slot is written twice";
        /// A required field is missing.
        E0555 E_SCENE_MISSING_FIELD "a required scene field is missing";
        /// Two entities share a name.
        E0556 E_SCENE_DUPLICATE_ENTITY "two scene entities share a name";
        /// An action, or an `Entity("name")` variable value, names an entity the scene does
        /// not declare.
        E0557 E_SCENE_UNKNOWN_ENTITY "a scene action or variable value names an entity the scene does not declare";
        /// A number or name is out of range (non-finite, negative where it cannot be, bad event name).
        E0558 E_SCENE_BAD_VALUE "a scene value is out of range";
        /// `default_clip` (or a layer clip) names no clip slot of the animator.
        E0559 E_SCENE_UNKNOWN_CLIP "a default or layer clip names no clip slot";
        /// An animation action or a graph's anim request targets an entity without an animator.
        E0560 E_SCENE_NO_ANIMATOR "an animation action or a graph's anim request targets an entity without an animator";
        /// A file the scene references (graph, clip) cannot be read.
        E0561 E_SCENE_MISSING_FILE "a graph or clip a scene names cannot be read";
        /// A graph the scene references does not compile, or a clip does not load.
        E0562 E_SCENE_BAD_ASSET "a graph a scene names does not compile, or a clip does not load";
        /// A path a scene names leads outside the project (absolute, `..` climbing out, or a
        /// symbolic link to elsewhere); the file is never read (`project`).
        E0564 E_SCENE_OUTSIDE_PROJECT "a path a scene names leads outside the project (never read)";
        /// A state request (`SetState`, literal `anim.set_state`) names no state of the
        /// entity's state machine, or it has none (`project::names`).
        E0565 E_UNKNOWN_STATE "a state request names no state of the entity's state machine (or it has none)";
        /// A clip request (layer or base) names no clip slot of the entity's animator.
        E0566 E_UNKNOWN_SLOT "a clip request names no clip slot of the entity's animator";
        /// A layer request names a layer the entity's animator does not declare.
        E0567 E_UNKNOWN_LAYER "a layer request names a layer the entity's animator does not declare";
        /// `Play` / a literal `anim.play` targets an animator that runs a state machine
        /// (`project::names`; the animator would refuse it).
        E0568 E_PLAY_WITH_MACHINE "a base clip request (`Play`, `anim.play`) targets an animator that runs a state machine";
        /// A scene sets a variable (`("b.bpg", vars: {…})`) the graph does not declare
        /// (`project`).
        E0569 E_SCENE_UNKNOWN_VAR "a scene sets a graph variable the graph does not declare";
        /// A scene sets a graph variable to a value of another type than the variable's.
        E0570 E_SCENE_VAR_TYPE "a scene sets a graph variable to a value of the wrong type";
        /// A scene's `Send(target, "custom::NAME", {…})` gives a payload field the event's
        /// payload (as the scene's graphs declare it) does not have (`project`).
        E0571 E_SEND_UNKNOWN_FIELD "a scene's `Send` gives a payload field the custom event does not declare";
        /// A scene's `Send` gives a payload field a value of another type than the field's.
        E0572 E_SEND_FIELD_TYPE "a scene's `Send` gives a payload field a value of the wrong type";
        /// A scene entity's `returns` names a game node its graphs do not call, or an output
        /// the node does not declare (`project`, naming the choices).
        E0573 E_RETURNS_UNKNOWN "a scene's `returns` names a game node or output its entity's graphs do not have";
        /// A scene entity's `returns` gives an output a value of another type than the output's.
        E0574 E_RETURNS_TYPE "a scene's `returns` gives a game node output a value of the wrong type";
        /// Retired (the full animator supports every feature); kept registered so the code is not
        /// reused. Formerly: a full-runtime feature the minimal animator ignored.
        W0550 W_SCENE_UNSUPPORTED "retired: the minimal animator ignored a full-runtime feature";
        /// The source skeleton a clip names (its `skeleton` field) cannot be read or does not load:
        /// the slot plays the clip un-retargeted, by name (warning).
        W0563 W_SCENE_SOURCE_SKELETON "a clip's source skeleton cannot be read or does not load (played un-retargeted)";
    }
    /// Reports themselves (`diag::render`): notes about what a report lists.
    pub mod report {
        /// More diagnostics in one file than a report lists: the rest are counted.
        N0001 N_MORE "more diagnostics in one file than a report lists (the rest are counted)";
    }
    /// Model import (`import`: `sinew import`, and the validation of imported models in the
    /// project loader).
    pub mod import {
        /// The file is not glTF JSON (syntax, or a value of the wrong shape).
        E0701 E_JSON "a model file is not glTF JSON";
        /// A `.glb` container is malformed: magic, version, total length or a chunk length.
        E0702 E_GLB "a .glb container is malformed (header or chunk lengths)";
        /// The glTF document is invalid: an index out of range or a value outside its set.
        E0703 E_INVALID "a glTF document is invalid (an index out of range, a bad value)";
        /// A buffer cannot be resolved: missing external file, bad `data:` URI, fewer bytes than declared.
        E0704 E_BUFFER "a model's buffer cannot be resolved";
        /// An accessor an animation uses is out of bounds or unusable (type, component type, count).
        E0705 E_ACCESSOR "an accessor an animation uses is out of bounds or unusable";
        /// The node hierarchy or a skin is malformed (a cycle, a node with two parents, a repeated joint).
        E0706 E_HIERARCHY "a model's node hierarchy or skin is malformed";
        /// The animations reach more than one top-level root (several players would be needed).
        E0707 E_SEVERAL_ROOTS "a model's animations reach several top-level roots";
        /// An FBX file with animation stacks or skin deformers (export glTF instead).
        E0708 E_ANIMATED_FBX "an animated FBX file (export glTF instead)";
        /// A file that is neither glTF, GLB nor readable FBX (or a corrupt FBX node tree).
        E0709 E_FORMAT "a model file is neither glTF nor readable FBX";
        /// The model's animation data is beyond the importer's limits (keys, bones).
        E0710 E_LIMIT "a model's animation data exceeds the importer's limits";
        /// Sampler key times that are not finite or go backwards.
        E0711 E_KEY_TIMES "animation key times are not finite or go backwards";
        /// A `.meta` sidecar that cannot be read as `ModelMeta(uuid: "...")`.
        E0712 E_SIDECAR "a model's .meta sidecar cannot be read";
        /// A model without a sidecar whose fingerprint matches several manifests.
        E0713 E_AMBIGUOUS_MATCH "a model without sidecar matches several manifests";
        /// Two sidecars claim one model UUID.
        E0714 E_DUPLICATE_UUID "two sidecars claim one model UUID";
        /// The model requires an extension that changes how animation data is stored.
        E0715 E_EXTENSION "a model requires an extension that compresses animation data";
        /// Validation (`sinew check`, `sinew run`): a manifest's source model cannot be read.
        E0716 E_SOURCE_MISSING "an imported model's source file cannot be read";
        /// Validation: a manifest's source model changed since it was imported (stale: re-import).
        E0717 E_STALE "an imported model changed since its import (stale: re-import)";
        /// Validation: a skeleton or clip file a manifest lists is missing.
        E0718 E_GENERATED_MISSING "a file an import manifest lists is missing";
        /// Validation: two manifests claim one model UUID.
        E0719 E_DUPLICATE_MANIFEST "two import manifests claim one model UUID";
        /// Validation: a scene's `Imported(model, clip)` reference resolves to no clip.
        E0720 E_UNRESOLVED_CLIP "an Imported(model, clip) reference resolves to no clip";
        /// Validation: a clip slot plays a clip whose skeleton signature differs from the animator's
        /// generated skeleton, and the slot does not retarget.
        E0721 E_SIGNATURE_MISMATCH "a clip's skeleton signature differs from the animator's skeleton (no retargeting)";
        /// Validation: a `manifest.ron` cannot be read or is not a valid manifest.
        E0722 E_BAD_MANIFEST "an import manifest cannot be read or is invalid";
        /// `sinew import` would write or delete outside the project: its output folder, a
        /// generated file or the model's `.meta` sidecar leads out (`..`, a symbolic link).
        E0723 E_OUTSIDE_PROJECT "an import's output folder, generated file or sidecar leads outside the project";
        /// A node name changed for Sinew: duplicates become `name~index`, empty names `GltfNode{index}`.
        W0701 W_RENAMED "a node was renamed for Sinew (duplicate or empty name)";
        /// An animation channel was skipped (an unsupported path, a repeated target, weights on a
        /// node without morph targets).
        W0702 W_CHANNEL_SKIPPED "an animation channel was skipped";
        /// A notify entry in `extras.notifies` was skipped.
        W0703 W_BAD_NOTIFY "a notify entry in a model's extras was skipped";
        /// A clip's earliest key is after 0: its times were shifted to start at 0.
        W0704 W_SHIFTED "a clip was shifted to start at time 0";
        /// A clip whose keys all sit at one time: imported as a single pose.
        W0705 W_ZERO_LENGTH "a clip with all keys at one time became a single pose";
        /// Repeated key times in a sampler: the later key of each run was kept.
        W0706 W_REPEATED_TIMES "repeated key times: the later key was kept";
        /// A clip drives nodes outside the skeleton it was assigned.
        W0707 W_OUTSIDE_SKELETON "a clip drives nodes outside its skeleton";
        /// A cubic spline could not be resampled within tolerance everywhere.
        W0708 W_RESAMPLE "a cubic spline could not be resampled within tolerance";
        /// A note: a static FBX (no clips), a model without animations, or a model matched by fingerprint.
        W0709 W_NOTE "import note: static FBX, no animations, or a model matched by fingerprint";
        /// Two animations share one name: the later ones are labelled `name~index`.
        W0710 W_DUPLICATE_LABEL "two animations share one name";
        /// Validation: a manifest's source model lies outside the project, so it is not checked.
        W0711 W_SOURCE_OUTSIDE "an imported model's source lies outside the project (not checked)";
    }
    /// Pictures (`picture`: `sinew graph --svg`, `sinew diff --svg`, the studio's picture).
    pub mod picture {
        /// A picture's SVG would pass the output budget of one picture (nothing is written).
        E0801 E_PICTURE_TOO_LARGE "a graph's picture is larger than the budget of one picture";
    }
}

/// The summary of a code, if registered.
pub fn summary(code: &str) -> Option<&'static str> {
    CODES.iter().find(|(c, _)| *c == code).map(|(_, s)| *s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_is_unique_and_well_formed() {
        let mut seen = std::collections::BTreeSet::new();
        for (code, summary) in CODES {
            assert!(seen.insert(*code), "{code} is declared twice");
            assert!(
                code.len() == 5
                    && (code.starts_with('E') || code.starts_with('W') || code.starts_with('N'))
                    && code[1..].chars().all(|c| c.is_ascii_digit()),
                "{code} is not a code"
            );
            assert!(!summary.is_empty(), "{code} has no summary");
        }
        assert_eq!(summary("E0301"), Some("type mismatch across a link"));
        assert_eq!(summary("E9999"), None);
        assert_eq!(compile::E_TYPE_MISMATCH, "E0301");
    }

    #[test]
    fn groups_partition_the_registry_and_ascend() {
        // Each group with the code ranges (after the `E`/`W`/`N`) it owns.
        let groups: [(&[&str], &[&str]); 12] = [
            (files::CODES, &["000"]),
            (bytecode::CODES, &["006"]),
            (animseq::CODES, &["01"]),
            (catalog::CODES, &["02"]),
            (compile::CODES, &["03"]),
            (parser::CODES, &["040", "041"]),
            (expr::CODES, &["041"]),
            (anim::CODES, &["050", "051", "052"]),
            (scene::CODES, &["055", "056", "057"]),
            (report::CODES, &["000"]),
            (import::CODES, &["07"]),
            (picture::CODES, &["08"]),
        ];
        let all: Vec<&str> = groups.iter().flat_map(|g| g.0.iter().copied()).collect();
        let registry: Vec<&str> = CODES.iter().map(|(c, _)| *c).collect();
        assert_eq!(all, registry);
        for (g, ranges) in groups {
            // Errors ascend, then warnings ascend.
            assert!(g.windows(2).all(|w| w[0] < w[1]), "{g:?}");
            for c in g {
                assert!(ranges.iter().any(|r| c[1..].starts_with(r)), "{c} in {g:?}");
            }
        }
    }
}
