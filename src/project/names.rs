//! The name check over a loaded scene (a [`super::PASSES`] entry, so `sinew run` and `sinew
//! check` share it): every state, clip slot, layer and parameter name that a scene action or a
//! **literal** `anim.*` request of a graph attached to an entity uses must exist in that
//! entity's animator.
//!
//! What is an error (the scene does not start) and what is a warning:
//!
//! - `E0565` a state request (`SetState`, `anim.set_state`) naming a state the entity's state
//!   machine lacks, or on an animator without a state machine (the animator would refuse it);
//! - `E0566` a `PlayOnLayer` / `anim.play_on_layer` or `Play` / `anim.play` clip naming no
//!   clip slot (refused too);
//! - `E0568` a `Play` / `anim.play` on an animator that runs a state machine (refused: the base
//!   plays the machine's states; request a state or play the clip on a layer);
//! - `E0558` a `Play(clip, at)` action whose clip time lies past the clip's duration (negative
//!   times are refused when the scene is read; a graph's computed `at` is clamped at run time);
//! - `E0567` a layer request (`PlayOnLayer`, `StopLayer`, `SetLayerWeight` and their graph
//!   nodes) naming a layer the animator does not declare (it would silently create an unmasked
//!   `Override` layer of weight 1 — the typo a designer never means);
//! - `E0560` a graph with `anim.*` requests attached to an entity without an animator (every
//!   request would be dropped), as for scene actions;
//! - `W0521` a parameter set (`SetParam`, literal `anim.set_param`) that nothing reads: no
//!   condition or blend tree of the entity's state machine and no literal `anim.get_param` of
//!   its graphs. Setting a parameter is never refused (parameters are a free blackboard), so
//!   this is a warning; a graph that reads a computed parameter name silences it.
//!
//! Names that are computed at run time (a linked pin) are not checked here: the animator
//! refuses unknown ones with an `error` trace record. Every diagnostic suggests the closest
//! name (`crate::suggest`) or lists the choices.

use std::collections::{BTreeMap, BTreeSet};

use super::PassInput;
use crate::anim::command::{self, Arg, ArgRole};
use crate::anim::{AnimCommand, W_SM_UNREAD_PARAM};
use crate::bytecode::Value;
use crate::diag::{Diagnostic, SourceFile, Span};
use crate::graph::ast::LitValue;
use crate::ron_span::short;
use crate::scene::{
    Action, AnimatorDef, E_PLAY_WITH_MACHINE, E_SCENE_BAD_VALUE, E_SCENE_NO_ANIMATOR,
    E_UNKNOWN_LAYER, E_UNKNOWN_SLOT, E_UNKNOWN_STATE, EntityDef,
};

/// What a name stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Role {
    State,
    Slot,
    /// A clip slot played on the base (`Play`, `anim.play`).
    Play,
    Layer,
    /// A parameter set.
    Param,
    /// A parameter read (`anim.get_param`).
    Read,
}

/// The role of a command argument that names something (`None` for a number).
fn role_of(arg: &Arg) -> Option<Role> {
    match arg.role {
        ArgRole::Layer => Some(Role::Layer),
        ArgRole::State => Some(Role::State),
        ArgRole::Slot => Some(Role::Slot),
        ArgRole::BaseSlot => Some(Role::Play),
        ArgRole::Param => Some(Role::Param),
        ArgRole::Value => None,
    }
}

/// A node kind, whether it is a request, and its name pins with their roles.
type NamePins = (&'static str, bool, Vec<(&'static str, Role)>);

/// A graph node kind's name pins: whether it is a request (an exec node), and (pin, role)…:
/// the command table's graph rows by their arguments' roles; `anim.get_param` reads.
fn name_pins(kind: &str) -> Option<NamePins> {
    if kind == "anim.get_param" {
        return Some(("anim.get_param", false, vec![("name", Role::Read)]));
    }
    let c = command::by_node(kind)?;
    let pins = c
        .args
        .iter()
        .filter_map(|a| Some((a.name, role_of(a)?)))
        .collect();
    Some((c.node?, true, pins))
}

/// One name as written: in the scene (an action) or in a graph (a literal pin).
struct Use<'a> {
    role: Role,
    name: String,
    /// Where: the file and span.
    file: &'a SourceFile,
    span: Span,
    /// What uses it (`SetState`, `anim.set_state`), for messages.
    by: &'static str,
    /// For a graph literal: the scene's entry attaching the graph to the entity.
    attached: Option<Span>,
}

/// What one graph asks of its entity's animator.
#[derive(Default)]
struct GraphUses {
    /// Literal names: (role, name, span, node kind).
    literals: Vec<(Role, String, Span, &'static str)>,
    /// The first request node (kind and span), if any: for `E0560`.
    request: Option<(&'static str, Span)>,
    /// Whether some `anim.get_param` reads a computed name.
    computed_read: bool,
}

fn graph_uses(src: &SourceFile) -> GraphUses {
    let (file, _) = crate::graph::parse(src);
    let linked: BTreeSet<(&str, &str)> = file
        .links()
        .map(|l| (l.to_node.name.as_str(), l.to_pin.name.as_str()))
        .collect();
    let mut out = GraphUses::default();
    for n in file.nodes() {
        let kind = n.kind.text();
        let Some((kind, request, pins)) = name_pins(&kind) else {
            continue;
        };
        if request && out.request.is_none() {
            out.request = Some((kind, n.kind.span));
        }
        for (pin, role) in pins {
            if linked.contains(&(n.name.name.as_str(), pin)) {
                out.computed_read |= role == Role::Read;
                continue;
            }
            let lit = n.args.iter().find(|a| a.name.name == pin);
            if let Some(a) = lit
                && let LitValue::String(s) = &a.value.value
            {
                out.literals.push((role, s.clone(), a.value.span, kind));
            }
        }
    }
    out
}

/// The pass: see the module docs.
pub(super) fn animator_names(input: &PassInput<'_>) -> Vec<Diagnostic> {
    let uses: BTreeMap<&str, GraphUses> = input
        .graphs
        .iter()
        .map(|(path, src)| (path.as_str(), graph_uses(src)))
        .collect();
    let mut out = Vec::new();
    for (ei, e) in input.def.entities.iter().enumerate() {
        let mut names: Vec<Use<'_>> = Vec::new();
        let mut computed_read = false;
        for a in input.def.actions.iter().filter(|a| a.entity == ei) {
            let at = |i: usize| a.arg_spans.get(i).copied().unwrap_or_default();
            let by = a.action.name();
            let mut push = |role, name: &str, span| {
                names.push(Use {
                    role,
                    name: name.to_string(),
                    file: input.scene,
                    span,
                    by,
                    attached: None,
                })
            };
            let Action::Anim(cmd) = &a.action else {
                continue;
            };
            // Each argument that names something, by its role in the command table.
            for (i, (arg, v)) in cmd.spec().args.iter().zip(cmd.values()).enumerate() {
                if let (Some(role), Value::Str(name)) = (role_of(arg), v) {
                    push(role, &name, at(i));
                }
            }
            if let AnimCommand::Play(c, t) = cmd
                && let Some(d) = play_past_the_end(input, e, c, *t)
            {
                out.push(d.at(input.scene, at(1)));
            }
        }
        let mut seen_graphs = BTreeSet::new();
        for g in e.graphs.iter().map(|g| &g.path) {
            let (Some(u), Some(src)) = (uses.get(g.path.as_str()), input.graphs.get(&g.path))
            else {
                continue; // did not compile: reported already
            };
            if !seen_graphs.insert(g.path.as_str()) {
                continue;
            }
            if e.animator.is_none() {
                if let Some((kind, span)) = u.request {
                    out.push(
                        Diagnostic::error(
                            E_SCENE_NO_ANIMATOR,
                            format!(
                                "`{kind}` needs an animator; entity `{}` has none",
                                short(&e.name)
                            ),
                        )
                        .at(src, span)
                        .with_label(input.scene, g.span, "the graph is attached here")
                        .with_note(
                            "give the entity an `animator`, or attach the graph to one that has",
                        ),
                    );
                }
                continue;
            }
            computed_read |= u.computed_read;
            for (role, name, span, by) in &u.literals {
                names.push(Use {
                    role: *role,
                    name: name.clone(),
                    file: src,
                    span: *span,
                    by,
                    attached: Some(g.span),
                });
            }
        }
        let Some(an) = &e.animator else { continue };
        let machine = an.state_machine.as_ref().map(|p| {
            input
                .assets
                .machines
                .get(&p.path)
                .filter(|_| input.machine_ok.get(ei).copied().unwrap_or(false))
        });
        let reads: BTreeSet<&str> = names
            .iter()
            .filter(|u| u.role == Role::Read)
            .map(|u| u.name.as_str())
            .chain(machine.flatten().map(|m| m.params()).unwrap_or_default())
            .collect();
        let mut reported = BTreeSet::new();
        for u in &names {
            // The same name at the same place (one graph attached twice) reports once.
            if !reported.insert((u.file.name(), u.span.start, u.role)) {
                continue;
            }
            let d = match u.role {
                Role::Read => None,
                Role::State => match machine {
                    None => Some(
                        Diagnostic::error(
                            E_UNKNOWN_STATE,
                            format!(
                                "`{}` requests state `{}`, but entity `{}`'s animator has no \
                                 state machine",
                                u.by,
                                short(&u.name),
                                short(&e.name)
                            ),
                        )
                        .with_note("state requests need a `state_machine` in the animator"),
                    ),
                    Some(None) => None, // the state machine did not load: reported already
                    Some(Some(m)) => {
                        let states: Vec<&str> = m.states.iter().map(|s| s.name.as_str()).collect();
                        (!states.contains(&u.name.as_str())).then(|| {
                            unknown(
                                E_UNKNOWN_STATE,
                                format!(
                                    "`{}` requests state `{}`, which entity `{}`'s state machine \
                                     does not have",
                                    u.by,
                                    short(&u.name),
                                    short(&e.name)
                                ),
                                &u.name,
                                &states,
                                "states",
                            )
                        })
                    }
                },
                Role::Play if an.state_machine.is_some() => Some(
                    Diagnostic::error(
                        E_PLAY_WITH_MACHINE,
                        format!(
                            "`{}` plays clip `{}` on the base, but entity `{}`'s animator runs a \
                             state machine",
                            u.by,
                            short(&u.name),
                            short(&e.name)
                        ),
                    )
                    .with_note(
                        "request a state that plays it (`SetState`), or play it on a layer \
                         (`PlayOnLayer`)",
                    ),
                ),
                Role::Slot | Role::Play => {
                    let slots = slot_names(an);
                    (!slots.contains(&u.name.as_str())).then(|| {
                        unknown(
                            E_UNKNOWN_SLOT,
                            format!(
                                "`{}` plays clip `{}`, which is not a clip slot of entity `{}`'s \
                                 animator",
                                u.by,
                                short(&u.name),
                                short(&e.name)
                            ),
                            &u.name,
                            &slots,
                            "clip slots",
                        )
                    })
                }
                Role::Layer => {
                    let layers: Vec<&str> = an.layers.iter().map(|l| l.name.as_str()).collect();
                    (!layers.contains(&u.name.as_str())).then(|| {
                        unknown(
                            E_UNKNOWN_LAYER,
                            format!(
                                "`{}` names layer `{}`, which entity `{}`'s animator does not \
                                 declare",
                                u.by,
                                short(&u.name),
                                short(&e.name)
                            ),
                            &u.name,
                            &layers,
                            "layers",
                        )
                        .with_note(
                            "declare it in the animator's `layers` (with its mask, blend and \
                             weight)",
                        )
                    })
                }
                Role::Param => {
                    let unknown_readers = computed_read || matches!(machine, Some(None));
                    (!unknown_readers && !reads.contains(u.name.as_str()))
                        .then(|| unread_param(u, e, machine.is_some(), &reads))
                }
            };
            if let Some(mut d) = d {
                d = d.at(u.file, u.span);
                if let Some(span) = u.attached {
                    d = d.with_label(
                        input.scene,
                        span,
                        format!("the graph is attached to entity `{}` here", short(&e.name)),
                    );
                }
                out.push(d);
            }
        }
    }
    out
}

/// `E0558` when `Play(clip, at)`'s `at` lies past the duration of the clip in slot `clip`.
fn play_past_the_end(
    input: &PassInput<'_>,
    e: &EntityDef,
    clip: &str,
    at: f64,
) -> Option<Diagnostic> {
    let an = e.animator.as_ref()?;
    let (_, path) = an.clips.iter().find(|(s, _)| s == clip)?;
    let d = input.assets.clips.get(&path.path)?.duration;
    (at > d).then(|| {
        Diagnostic::error(
            E_SCENE_BAD_VALUE,
            format!(
                "`Play` starts clip `{}` at clip time {at}, past its duration {d}",
                short(clip)
            ),
        )
        .with_note(format!("clip times of `{}` run from 0 to {d}", short(clip)))
    })
}

fn slot_names(an: &AnimatorDef) -> Vec<&str> {
    an.clips.iter().map(|(s, _)| s.as_str()).collect()
}

/// `W0521` for a parameter nothing reads.
fn unread_param(
    u: &Use<'_>,
    e: &EntityDef,
    has_machine: bool,
    reads: &BTreeSet<&str>,
) -> Diagnostic {
    let readers = if has_machine {
        "no condition or blend tree of its state machine and no `anim.get_param` of its graphs \
         reads it"
    } else {
        "its animator has no state machine and no `anim.get_param` of its graphs reads it"
    };
    let mut d = Diagnostic::warning(
        W_SM_UNREAD_PARAM,
        format!(
            "`{}` sets parameter `{}` on entity `{}`, but {readers}",
            u.by,
            short(&u.name),
            short(&e.name)
        ),
    );
    let read: Vec<&str> = reads.iter().copied().collect();
    if let Some(c) = crate::suggest::closest(&u.name, read.iter().copied()) {
        d = d.with_note(format!("did you mean `{c}`?"));
    }
    d
}

/// An unknown-name error with a did-you-mean note, or the list of choices.
pub(crate) fn unknown(
    code: &'static str,
    message: String,
    name: &str,
    choices: &[&str],
    what: &str,
) -> Diagnostic {
    let d = Diagnostic::error(code, message);
    match choices_note(name, choices, what) {
        Some(n) => d.with_note(n),
        None => d,
    }
}

/// `did you mean `x`?` for a close name, else the choices (at most 16 listed), else that
/// there are none.
pub(crate) fn choices_note(name: &str, choices: &[&str], what: &str) -> Option<String> {
    if let Some(c) = crate::suggest::closest(name, choices.iter().copied()) {
        return Some(format!("did you mean `{c}`?"));
    }
    const MAX_LISTED: usize = 16;
    Some(match choices.len() {
        0 => format!("the animator declares no {what}"),
        n if n <= MAX_LISTED => format!(
            "{what}: {}",
            choices
                .iter()
                .map(|c| format!("`{}`", short(c)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        n => format!(
            "{what}: {}, … ({n} in all)",
            choices[..MAX_LISTED]
                .iter()
                .map(|c| format!("`{}`", short(c)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    })
}
