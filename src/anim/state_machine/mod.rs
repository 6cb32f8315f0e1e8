//! `.animsm` state machines: parsing with spans ([`parse_state_machine`]), validation against an
//! animator's clip slots ([`validate`]), compilation into blend trees over slot indices
//! ([`compile`]) and the transition rule ([`Machine::select`]). No I/O, no ECS.
//!
//! Decisions: a transition into the state that is already active never fires (like a request
//! for the active state), so a self-transition is reported as never firing; `"*"` transitions
//! skip their own target state.

use super::blend::{Blend1D, BlendSpace2D, BlendTree, MAX_ENTRIES, MAX_TREE_DEPTH};
use super::*;
use crate::diag::{Diagnostic, SourceFile, Span};
use crate::ron_span::{DecodeError, Decoder, Value, ValueKind};

mod parse;
pub use parse::{parse_state_machine, parse_state_machine_bytes};

/// Most states or transitions one state machine may declare.
pub const MAX_STATES: usize = 4096;

/// A transition condition.
#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    /// `param > v`.
    Greater(String, f64),
    /// `param < v`.
    Less(String, f64),
    /// The (non-looping) source state reached its end.
    Finished,
}

/// Which clips of a blend tree fire markers (point notifies and window begins): the heaviest
/// only (default), every clip with weight > 0, or none. Written `notifies: All` on a
/// `Blend1D` or `BlendSpace2D` node; a state takes the first mode its tree writes (depth
/// first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NotifyMode {
    #[default]
    Highest,
    All,
    Silent,
}

/// A blend tree as written (clip slots by name), with spans.
#[derive(Debug, Clone, PartialEq)]
pub enum TreeDef {
    /// One clip slot.
    Clip(String, Span),
    /// `Blend1D(param, entries: [(clip, threshold)])`.
    Blend1D {
        /// Parameter.
        param: String,
        /// `(slot, slot span, threshold)`.
        entries: Vec<(String, Span, f32)>,
        /// `notifies:`, when written.
        notifies: Option<NotifyMode>,
        /// The whole node.
        span: Span,
    },
    /// `BlendSpace2D(param_x, param_y, entries: [(clip, x, y)])`.
    BlendSpace2D {
        /// X parameter.
        param_x: String,
        /// Y parameter.
        param_y: String,
        /// `(slot, slot span, x, y)`.
        entries: Vec<(String, Span, f32, f32)>,
        /// `notifies:`, when written.
        notifies: Option<NotifyMode>,
        /// The whole node.
        span: Span,
    },
    /// `Lerp(a, b, param)`.
    Lerp(Box<TreeDef>, Box<TreeDef>, String),
    /// `Additive(base, overlay, param)`.
    Additive(Box<TreeDef>, Box<TreeDef>, String),
}

/// One state as written.
#[derive(Debug, Clone, PartialEq)]
pub struct StateDef {
    /// Name.
    pub name: String,
    /// Where the name is written.
    pub span: Span,
    /// `Clip("slot")` or `Blend(TREE)` (both become a tree).
    pub motion: TreeDef,
    /// Playback speed (default 1).
    pub speed: f64,
    /// Looping (default true).
    pub looping: bool,
}

/// One transition as written.
#[derive(Debug, Clone, PartialEq)]
pub struct TransitionDef {
    /// Source state, `"*"` for any.
    pub from: String,
    /// Where `from` is written.
    pub from_span: Span,
    /// Target state.
    pub to: String,
    /// Where `to` is written.
    pub to_span: Span,
    /// Crossfade seconds (≥ 0).
    pub blend: f64,
    /// Conditions, all of which must hold.
    pub when: Vec<Condition>,
    /// The whole transition.
    pub span: Span,
}

/// A parsed `.animsm` file.
#[derive(Debug, Clone, PartialEq)]
pub struct StateMachineDef {
    /// Entry state.
    pub entry: String,
    /// Where the entry is written.
    pub entry_span: Span,
    /// States in authored order.
    pub states: Vec<StateDef>,
    /// Transitions in authored order.
    pub transitions: Vec<TransitionDef>,
}

/// Result of [`parse_state_machine`].
#[derive(Debug, Clone)]
pub struct ParsedStateMachine {
    /// `Some` when the file has the right shape (it may still fail [`validate`]).
    pub def: Option<StateMachineDef>,
    /// Shape problems.
    pub diagnostics: Vec<Diagnostic>,
}

impl TreeDef {
    /// The first `notifies:` the tree writes, depth first.
    pub fn notify_mode(&self) -> Option<NotifyMode> {
        match self {
            TreeDef::Clip(..) => None,
            TreeDef::Blend1D { notifies, .. } | TreeDef::BlendSpace2D { notifies, .. } => *notifies,
            TreeDef::Lerp(a, b, _) | TreeDef::Additive(a, b, _) => {
                a.notify_mode().or_else(|| b.notify_mode())
            }
        }
    }

    fn slots<'a>(&'a self, out: &mut Vec<(&'a str, Span)>) {
        match self {
            TreeDef::Clip(s, sp) => out.push((s, *sp)),
            TreeDef::Blend1D { entries, .. } => out.extend(entries.iter().map(|e| (&*e.0, e.1))),
            TreeDef::BlendSpace2D { entries, .. } => {
                out.extend(entries.iter().map(|e| (&*e.0, e.1)))
            }
            TreeDef::Lerp(a, b, _) | TreeDef::Additive(a, b, _) => {
                a.slots(out);
                b.slots(out);
            }
        }
    }

    /// Every parameter the tree reads.
    pub fn params<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            TreeDef::Clip(..) => {}
            TreeDef::Blend1D { param, .. } => out.push(param),
            TreeDef::BlendSpace2D {
                param_x, param_y, ..
            } => {
                out.push(param_x);
                out.push(param_y);
            }
            TreeDef::Lerp(a, b, p) | TreeDef::Additive(a, b, p) => {
                out.push(p);
                a.params(out);
                b.params(out);
            }
        }
    }

    fn to_tree(&self, slot: &dyn Fn(&str) -> Option<usize>) -> Result<BlendTree, String> {
        Ok(match self {
            TreeDef::Clip(s, _) => BlendTree::Clip(slot(s).ok_or_else(|| unknown_slot(s))?),
            TreeDef::Blend1D { param, entries, .. } => {
                let th: Vec<f32> = entries.iter().map(|e| e.2).collect();
                BlendTree::Blend1D {
                    param: param.clone(),
                    blend: Blend1D::new(&th).map_err(|e| e.diagnostic().message)?,
                    clips: entries
                        .iter()
                        .map(|e| slot(&e.0).ok_or_else(|| unknown_slot(&e.0)))
                        .collect::<Result<_, _>>()?,
                }
            }
            TreeDef::BlendSpace2D {
                param_x,
                param_y,
                entries,
                ..
            } => {
                let pts: Vec<[f32; 2]> = entries.iter().map(|e| [e.2, e.3]).collect();
                BlendTree::BlendSpace2D {
                    param_x: param_x.clone(),
                    param_y: param_y.clone(),
                    space: BlendSpace2D::new(&pts).map_err(|e| e.diagnostic().message)?,
                    clips: entries
                        .iter()
                        .map(|e| slot(&e.0).ok_or_else(|| unknown_slot(&e.0)))
                        .collect::<Result<_, _>>()?,
                }
            }
            TreeDef::Lerp(a, b, p) => BlendTree::Lerp {
                a: Box::new(a.to_tree(slot)?),
                b: Box::new(b.to_tree(slot)?),
                param: p.clone(),
            },
            TreeDef::Additive(a, b, p) => BlendTree::Additive {
                base: Box::new(a.to_tree(slot)?),
                overlay: Box::new(b.to_tree(slot)?),
                param: p.clone(),
            },
        })
    }

    fn check_entries(&self, src: &SourceFile, out: &mut Vec<Diagnostic>) {
        match self {
            TreeDef::Clip(..) => {}
            TreeDef::Blend1D { entries, span, .. } => {
                let th: Vec<f32> = entries.iter().map(|e| e.2).collect();
                if let Err(e) = Blend1D::new(&th) {
                    let at = match e {
                        super::BlendError::Unsorted(i) | super::BlendError::NonFinite(i) => {
                            entries.get(i).map_or(*span, |e| e.1)
                        }
                        _ => *span,
                    };
                    out.push(e.diagnostic().at(src, at));
                }
            }
            TreeDef::BlendSpace2D { entries, span, .. } => {
                let pts: Vec<[f32; 2]> = entries.iter().map(|e| [e.2, e.3]).collect();
                if let Err(e) = BlendSpace2D::new(&pts) {
                    let mut d = match e {
                        super::BlendError::Coincident(a, b) => {
                            let mut d = e
                                .diagnostic()
                                .at(src, entries.get(b).map_or(*span, |e| e.1));
                            if let Some(first) = entries.get(a) {
                                d = d.with_label(src, first.1, "same point as this entry");
                            }
                            d
                        }
                        _ => e.diagnostic().at(src, *span),
                    };
                    if entries.len() > MAX_ENTRIES {
                        d = d.with_note(format!("at most {MAX_ENTRIES} entries"));
                    }
                    out.push(d);
                }
            }
            TreeDef::Lerp(a, b, _) | TreeDef::Additive(a, b, _) => {
                a.check_entries(src, out);
                b.check_entries(src, out);
            }
        }
    }
}

fn unknown_slot(s: &str) -> String {
    format!("clip slot `{s}` is not a clip of this animator")
}

impl StateMachineDef {
    /// Every parameter a condition or tree reads, sorted and deduplicated.
    pub fn params(&self) -> Vec<&str> {
        let mut out = Vec::new();
        for s in &self.states {
            s.motion.params(&mut out);
        }
        for t in &self.transitions {
            for c in &t.when {
                if let Condition::Greater(p, _) | Condition::Less(p, _) = c {
                    out.push(p);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    fn state(&self, name: &str) -> Option<usize> {
        self.states.iter().position(|s| s.name == name)
    }
}

/// Validates a parsed machine. `slots`: the animator's clip slot names (`None` when checking
/// the file on its own: slots are then not checked). Errors: unknown/duplicate states
/// (`E0517`/`E0519`), unknown slots (`E0518`), blend entries (`E0512`), transitions that can
/// never fire (`E0520`).
pub fn validate(
    def: &StateMachineDef,
    src: &SourceFile,
    slots: Option<&[&str]>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if def.states.is_empty() {
        out.push(
            Diagnostic::error(
                E_SM_UNKNOWN_STATE,
                "a state machine needs at least one state",
            )
            .at(src, def.entry_span),
        );
    }
    for (i, s) in def.states.iter().enumerate() {
        if let Some(first) = def.states[..i].iter().find(|f| f.name == s.name) {
            out.push(
                Diagnostic::error(
                    E_SM_DUPLICATE_STATE,
                    format!("state `{}` is declared twice", s.name),
                )
                .at(src, s.span)
                .with_label(src, first.span, "first declared here"),
            );
        }
        if let Some(slots) = slots {
            let mut used = Vec::new();
            s.motion.slots(&mut used);
            for (slot, span) in used {
                if !slots.contains(&slot) {
                    let mut d =
                        Diagnostic::error(E_SM_UNKNOWN_CLIP, unknown_slot(slot)).at(src, span);
                    if let Some(c) = crate::suggest::closest_within(slot, slots.iter().copied(), 2)
                    {
                        d = d.with_note(format!("did you mean `{c}`?"));
                    }
                    d = d.with_note(
                        crate::suggest::listing("the animator's clip slots", slots)
                            .unwrap_or_else(|| "the animator declares no clip slots".into()),
                    );
                    out.push(d);
                }
            }
        }
        s.motion.check_entries(src, &mut out);
    }
    let names: Vec<&str> = def.states.iter().map(|s| s.name.as_str()).collect();
    let unknown = |name: &str, span: Span, what: &str| {
        let mut d = Diagnostic::error(
            E_SM_UNKNOWN_STATE,
            format!("{what} `{name}` is not a state"),
        )
        .at(src, span);
        if let Some(c) = crate::suggest::closest_within(name, names.iter().copied(), 2) {
            d = d.with_note(format!("did you mean `{c}`?"));
        }
        d
    };
    if !def.states.is_empty() && def.state(&def.entry).is_none() {
        out.push(unknown(&def.entry, def.entry_span, "entry state"));
    }
    for (i, t) in def.transitions.iter().enumerate() {
        let from = if t.from == "*" {
            None
        } else {
            match def.state(&t.from) {
                Some(s) => Some(s),
                None => {
                    out.push(unknown(&t.from, t.from_span, "transition source"));
                    continue;
                }
            }
        };
        if def.state(&t.to).is_none() {
            out.push(unknown(&t.to, t.to_span, "transition target"));
            continue;
        }
        let never = |why: String| {
            Diagnostic::error(
                E_SM_NEVER_FIRES,
                format!("this transition can never fire: {why}"),
            )
            .at(src, t.span)
        };
        if t.from == t.to {
            out.push(never(format!(
                "`{}` is already active when it is checked (a transition into the active state does nothing)",
                t.to
            )));
            continue;
        }
        if let Some(f) = from
            && def.states[f].looping
            && t.when.contains(&Condition::Finished)
        {
            out.push(never(format!("`Finished` on looping state `{}`", t.from)));
            continue;
        }
        let mut contradiction = None;
        for c in &t.when {
            if let Condition::Greater(p, lo) = c {
                for d in &t.when {
                    if let Condition::Less(q, hi) = d
                        && p == q
                        && hi <= lo
                    {
                        contradiction = Some(format!("`{p}` cannot be > {lo} and < {hi}"));
                    }
                }
            }
        }
        if let Some(why) = contradiction {
            out.push(never(why));
            continue;
        }
        // Shadowed by an earlier unconditional transition that is checked whenever this one is.
        if let Some(e) = def.transitions[..i].iter().find(|e| {
            e.when.is_empty()
                && e.from != e.to
                && (e.from == t.from || (e.from == "*" && e.to != t.from))
                && def.state(&e.to).is_some()
                && (e.from == "*" || def.state(&e.from).is_some())
        }) {
            out.push(
                never("an earlier transition without conditions always fires first".into())
                    .with_label(src, e.span, "this one fires first"),
            );
        }
    }
    crate::diag::sort(&mut out);
    out
}

/// Warnings (`W0521`) for parameters a scene sets that no condition or tree of `def` reads.
pub fn unread_params<'a>(
    def: &StateMachineDef,
    set: impl IntoIterator<Item = (&'a str, Span)>,
    scene: &SourceFile,
) -> Vec<Diagnostic> {
    let read = def.params();
    set.into_iter()
        .filter(|(p, _)| !read.contains(p))
        .map(|(p, span)| {
            Diagnostic::warning(
                W_SM_UNREAD_PARAM,
                format!("parameter `{p}` is set but no condition or blend tree reads it"),
            )
            .at(scene, span)
        })
        .collect()
}

/// One compiled state.
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    /// Name.
    pub name: std::sync::Arc<str>,
    /// Motion over slot indices.
    pub tree: BlendTree,
    /// Speed.
    pub speed: f64,
    /// Looping.
    pub looping: bool,
    /// Which of the tree's clips fire markers.
    pub notifies: NotifyMode,
}

/// One compiled transition.
#[derive(Debug, Clone, PartialEq)]
pub struct Transition {
    /// Source state index, `None` for `"*"`.
    pub from: Option<usize>,
    /// Target state index.
    pub to: usize,
    /// Crossfade seconds.
    pub blend: f64,
    /// Conditions.
    pub when: Vec<Condition>,
}

/// A compiled, validated state machine.
#[derive(Debug, Clone, PartialEq)]
pub struct Machine {
    /// States.
    pub states: Vec<State>,
    /// Entry state index.
    pub entry: usize,
    /// Transitions in authored order.
    pub transitions: Vec<Transition>,
}

/// Compiles a machine whose [`validate`] found no errors; `slot` maps slot names to indices.
/// Returns the first problem's message otherwise.
pub fn compile(
    def: &StateMachineDef,
    slot: &dyn Fn(&str) -> Option<usize>,
) -> Result<Machine, String> {
    let state = |n: &str| def.state(n).ok_or_else(|| format!("`{n}` is not a state"));
    let states = def
        .states
        .iter()
        .map(|s| {
            Ok(State {
                name: s.name.as_str().into(),
                tree: s.motion.to_tree(slot)?,
                speed: s.speed,
                looping: s.looping,
                notifies: s.motion.notify_mode().unwrap_or_default(),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let transitions = def
        .transitions
        .iter()
        .map(|t| {
            Ok(Transition {
                from: if t.from == "*" {
                    None
                } else {
                    Some(state(&t.from)?)
                },
                to: state(&t.to)?,
                blend: t.blend,
                when: t.when.clone(),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(Machine {
        entry: state(&def.entry)?,
        states,
        transitions,
    })
}

impl Machine {
    /// The transition that fires from `active`: the first, in authored order, whose source is
    /// `active` (or `"*"`), whose target is not `active`, and whose conditions all hold.
    /// `param` reads parameters (unset → 0); `finished` says the active state reached its end.
    pub fn select(
        &self,
        active: usize,
        param: &dyn Fn(&str) -> f64,
        finished: bool,
    ) -> Option<&Transition> {
        self.transitions.iter().find(|t| {
            t.from.is_none_or(|f| f == active)
                && t.to != active
                && t.when.iter().all(|c| match c {
                    Condition::Greater(p, v) => param(p) > *v,
                    Condition::Less(p, v) => param(p) < *v,
                    Condition::Finished => finished,
                })
        })
    }

    /// A state's index by name.
    pub fn state(&self, name: &str) -> Option<usize> {
        self.states.iter().position(|s| &*s.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses and validates `text` against slots `idle, walk, run`; returns the machine (when
    /// valid) and every diagnostic as `code@line:col`.
    fn check(text: &str) -> (Option<Machine>, Vec<String>) {
        let src = SourceFile::new("t.animsm", text);
        let parsed = parse_state_machine(&src);
        let mut diags = parsed.diagnostics;
        let slots = ["idle", "walk", "run"];
        let machine = parsed.def.and_then(|d| {
            diags.extend(validate(&d, &src, Some(&slots)));
            if diags.iter().any(Diagnostic::is_error) {
                return None;
            }
            compile(&d, &|s| slots.iter().position(|x| *x == s)).ok()
        });
        let codes = diags
            .iter()
            .map(|d| format!("{}@{}:{}", d.code, d.start.line, d.start.column))
            .collect();
        (machine, codes)
    }

    const BASE: &str = r#"StateMachine(entry: "idle", states: [
(name: "idle", motion: Clip("idle")),
(name: "move", motion: Blend(Blend1D(param: "speed", entries: [(clip: "walk", threshold: 1.5), (clip: "run", threshold: 4.0)])), speed: 2.0),
(name: "jump", motion: Clip("run"), looping: false),
], transitions: [TRANSITIONS])"#;

    fn with(transitions: &str) -> (Option<Machine>, Vec<String>) {
        check(&BASE.replace("TRANSITIONS", transitions))
    }

    #[test]
    fn parses_the_spec_example_with_defaults() {
        let (m, d) =
            with(r#"(from: "idle", to: "move", blend: 0.25, when: [Greater("speed", 0.1)])"#);
        assert_eq!(d, Vec::<String>::new());
        let m = m.unwrap();
        assert_eq!(m.entry, 0);
        assert_eq!((m.states[0].speed, m.states[0].looping), (1.0, true));
        assert_eq!((m.states[1].speed, m.states[2].looping), (2.0, false));
        assert_eq!(m.transitions[0].blend, 0.25);
        assert!(
            matches!(m.states[1].tree, BlendTree::Blend1D { ref clips, .. } if clips == &[1, 2])
        );
    }

    #[test]
    fn transitions_fire_in_authored_order_when_all_conditions_hold() {
        let (m, d) = with(
            r#"(from: "idle", to: "jump", when: [Greater("speed", 5.0), Less("h", 1.0)]),
               (from: "idle", to: "move", when: [Greater("speed", 0.1)]),
               (from: "*", to: "idle", when: [Less("speed", -1.0)]),
               (from: "jump", to: "idle", when: [Finished])"#,
        );
        assert_eq!(d, Vec::<String>::new());
        let m = m.unwrap();
        let sel = |active: usize, speed: f64, h: f64, fin: bool| {
            let p = |n: &str| match n {
                "speed" => speed,
                "h" => h,
                _ => 0.0,
            };
            m.select(active, &p, fin).map(|t| t.to)
        };
        assert_eq!(sel(0, 0.0, 0.0, false), None); // unset/zero speed: nothing
        assert_eq!(sel(0, 0.2, 0.0, false), Some(1));
        assert_eq!(sel(0, 6.0, 0.0, false), Some(2)); // first listed wins
        assert_eq!(sel(0, 6.0, 2.0, false), Some(1)); // h fails the first
        assert_eq!(sel(1, -2.0, 0.0, false), Some(0)); // "*"
        assert_eq!(sel(0, -2.0, 0.0, false), None); // "*" skips its own target
        assert_eq!(sel(2, 0.0, 0.0, false), None);
        assert_eq!(sel(2, 0.0, 0.0, true), Some(0));
        assert_eq!(sel(1, 1e30, 0.0, false), None);
        assert_eq!(sel(1, f64::NAN, 0.0, false), None); // NaN compares false
    }

    #[test]
    fn never_firing_transitions_are_errors() {
        let (_, d) = with(r#"(from: "idle", to: "idle")"#);
        assert_eq!(d, ["E0520@5:18"]);
        let (_, d) = with(r#"(from: "move", to: "idle", when: [Finished])"#);
        assert_eq!(d, ["E0520@5:18"]);
        let (_, d) =
            with(r#"(from: "idle", to: "move", when: [Greater("s", 2.0), Less("s", 2.0)])"#);
        assert_eq!(d, ["E0520@5:18"]);
        let (_, d) =
            with(r#"(from: "idle", to: "move"), (from: "idle", to: "jump", when: [Finished])"#);
        assert_eq!(d, ["E0520@5:46"]);
        // Non-contradictory and non-shadowed: fine.
        let (_, d) = with(
            r#"(from: "idle", to: "move", when: [Greater("s", 1.0), Less("s", 2.0)]), (from: "jump", to: "idle", when: [Finished])"#,
        );
        assert_eq!(d, Vec::<String>::new());
    }

    #[test]
    fn unknown_names_and_bad_values() {
        let (_, d) = with(r#"(from: "idle", to: "mvoe")"#);
        assert_eq!(d, ["E0517@5:37"]);
        let (_, d) = check(
            &BASE
                .replace("TRANSITIONS", "")
                .replace("Clip(\"idle\")", "Clip(\"jog\")"),
        );
        assert_eq!(d, ["E0518@2:29"]);
        let (_, d) = check(
            &BASE
                .replace("TRANSITIONS", "")
                .replace("threshold: 4.0", "threshold: 1.0"),
        );
        assert_eq!(d, ["E0512@3:103"]);
        let (_, d) = with(r#"(from: "idle", to: "move", blend: -1.0)"#);
        assert_eq!(d, ["E0522@5:52"]);
        let (_, d) = check(
            &BASE
                .replace("TRANSITIONS", "")
                .replace("speed: 2.0", "speed: inf"),
        );
        assert!(d.iter().any(|c| c.starts_with("E05")), "{d:?}");
        let (_, d) = check(
            r#"StateMachine(entry: "x", states: [(name: "a", motion: Clip("idle")), (name: "a", motion: Clip("idle"))])"#,
        );
        assert_eq!(d, ["E0517@1:21", "E0519@1:77"]);
        let (_, d) =
            check("StateMachine(entry: \"a\", states: [(name: \"a\", motion: Play(\"idle\"))])");
        assert_eq!(d, ["E0516@1:55"]);
        let (_, d) = check("StateMachine(entry: ");
        assert_eq!(d.len(), 1);
        assert!(d[0].starts_with("E0515"));
    }

    #[test]
    fn coincident_2d_entries_are_errors() {
        let (_, d) = check(
            r#"StateMachine(entry: "a", states: [(name: "a", motion: Blend(BlendSpace2D(param_x: "x", param_y: "y", entries: [(clip: "idle", x: 0.0, y: 0.0), (clip: "walk", x: 0.0, y: 0.0)])))])"#,
        );
        assert_eq!(d, ["E0512@1:151"]);
    }

    #[test]
    fn unread_parameters_warn() {
        let src = SourceFile::new("t.animsm", BASE.replace("TRANSITIONS", ""));
        let def = parse_state_machine(&src).def.unwrap();
        let scene = SourceFile::new("s.scene.ron", "xxxxxxxx");
        let w = unread_params(
            &def,
            [("speed", Span::new(0, 1)), ("sped", Span::new(2, 3))],
            &scene,
        );
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].code, W_SM_UNREAD_PARAM);
        assert!(w[0].message.contains("`sped`"));
    }

    #[test]
    fn adversarial_bytes_never_panic() {
        let base = BASE.replace(
            "TRANSITIONS",
            r#"(from: "*", to: "move", when: [Finished])"#,
        );
        let bytes = base.as_bytes();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..2000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mut b = bytes.to_vec();
            let i = (seed as usize) % b.len();
            match seed % 3 {
                0 => b[i] = (seed >> 8) as u8,
                1 => {
                    b.truncate(i);
                }
                _ => {
                    b.remove(i);
                }
            }
            let parsed = parse_state_machine_bytes("f.animsm", &b);
            if let Some(d) = parsed.def {
                let src = SourceFile::new("f.animsm", String::from_utf8_lossy(&b));
                let _ = validate(&d, &src, None);
                let _ = compile(&d, &|_| Some(0));
            }
        }
        let deep = format!(
            "StateMachine(entry: \"a\", states: [(name: \"a\", motion: Blend({}Clip(\"idle\"){}))])",
            "Lerp(param: \"t\", b: Clip(\"idle\"), a: ".repeat(100),
            ")".repeat(100)
        );
        let (_, d) = check(&deep);
        assert!(d.iter().any(|c| c.starts_with("E0513")), "{d:?}");
    }
}
