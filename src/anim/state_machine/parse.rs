//! Reading `.animsm` text: the shared [`Decoder`] plus the format's own shape checks, into a
//! [`StateMachineDef`] with spans (validation and compilation are in the parent module).

use super::*;
use crate::ron_span::{self, DecodeCodes};

const ROOT_FIELDS: &[&str] = &["entry", "states", "transitions"];
const STATE_FIELDS: &[&str] = &["name", "motion", "speed", "looping"];
const TRANSITION_FIELDS: &[&str] = &["from", "to", "blend", "when"];
const B1_FIELDS: &[&str] = &["param", "entries", "notifies"];
const B1_ENTRY: &[&str] = &["clip", "threshold"];
const B2_FIELDS: &[&str] = &["param_x", "param_y", "entries", "notifies"];
const B2_ENTRY: &[&str] = &["clip", "x", "y"];
const LERP_FIELDS: &[&str] = &["a", "b", "param"];
const ADD_FIELDS: &[&str] = &["base", "overlay", "param"];

/// Parses `.animsm` bytes (`E0515` for non-UTF-8 and syntax, `E0516` for shape).
pub fn parse_state_machine_bytes(name: &str, bytes: &[u8]) -> ParsedStateMachine {
    match std::str::from_utf8(bytes) {
        Ok(t) => parse_state_machine(&SourceFile::new(name, t)),
        Err(e) => {
            let at = e.valid_up_to();
            let src = SourceFile::new(name, String::from_utf8_lossy(bytes));
            ParsedStateMachine {
                def: None,
                diagnostics: vec![
                    Diagnostic::error(E_SM_SYNTAX, "file is not valid UTF-8")
                        .at(&src, Span::new(at, at + 1)),
                ],
            }
        }
    }
}

/// Parses a `.animsm` source.
pub fn parse_state_machine(src: &SourceFile) -> ParsedStateMachine {
    let value = match ron_span::parse(src.text()) {
        Ok(v) => v,
        Err(e) => {
            return ParsedStateMachine {
                def: None,
                diagnostics: vec![Diagnostic::error(E_SM_SYNTAX, e.message).at(src, e.span)],
            };
        }
    };
    let mut p = P(Decoder::new(src, DecodeCodes::all(E_SM_SHAPE)));
    let def = p.root(&value);
    let diagnostics = p.0.finish();
    ParsedStateMachine {
        def: if diagnostics.iter().any(Diagnostic::is_error) {
            None
        } else {
            def
        },
        diagnostics,
    }
}

/// The `.animsm` decoder: the shared [`Decoder`] plus the format's own checks.
struct P<'a>(Decoder<'a>);

impl<'a> std::ops::Deref for P<'a> {
    type Target = Decoder<'a>;
    fn deref(&self) -> &Decoder<'a> {
        &self.0
    }
}

impl std::ops::DerefMut for P<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl P<'_> {
    /// `notifies: Highest | All | Silent` (absent: `None`).
    fn notify_mode(&mut self, v: Option<&Value>) -> Option<NotifyMode> {
        let v = v?;
        match v.as_variant() {
            Some(var) if var.args.is_none() => match var.name {
                "Highest" => return Some(NotifyMode::Highest),
                "All" => return Some(NotifyMode::All),
                "Silent" => return Some(NotifyMode::Silent),
                _ => {}
            },
            _ => {}
        }
        self.error(
            E_SM_BAD_VALUE,
            v.span,
            "`notifies` is `Highest`, `All` or `Silent`",
        );
        None
    }

    fn number(&mut self, v: &Value, what: &str) -> Option<f64> {
        match v.as_f64() {
            Ok(x) if x.is_finite() => Some(x),
            Ok(_) => {
                self.error(E_SM_BAD_VALUE, v.span, format!("{what} must be finite"));
                None
            }
            Err(e) => {
                self.decode(e);
                None
            }
        }
    }

    fn list<'v>(&mut self, v: &'v Value) -> Option<&'v [Value]> {
        match v.as_list() {
            Ok(items) if items.len() <= MAX_STATES => Some(items),
            Ok(items) => {
                self.error(
                    E_SM_BAD_VALUE,
                    v.span,
                    format!("at most {MAX_STATES} items, found {}", items.len()),
                );
                None
            }
            Err(e) => {
                self.decode(e);
                None
            }
        }
    }

    fn root(&mut self, v: &Value) -> Option<StateMachineDef> {
        let f = self.strukt(v, "StateMachine", ROOT_FIELDS)?;
        let entry_v = self.required(&f, "entry");
        let states_v = self.required(&f, "states");
        let (entry_v, states_v) = (entry_v?, states_v?);
        let entry = self.string(entry_v)?;
        let mut states = Vec::new();
        for s in self.list(states_v)? {
            if let Some(s) = self.state(s) {
                states.push(s);
            }
        }
        let mut transitions = Vec::new();
        if let Some(t) = f.get("transitions") {
            for t in self.list(&t.value).unwrap_or(&[]) {
                if let Some(t) = self.transition(t) {
                    transitions.push(t);
                }
            }
        }
        Some(StateMachineDef {
            entry,
            entry_span: entry_v.span,
            states,
            transitions,
        })
    }

    fn state(&mut self, v: &Value) -> Option<StateDef> {
        let f = self.strukt(v, "State", STATE_FIELDS)?;
        let name_v = self.required(&f, "name");
        let motion_v = self.required(&f, "motion");
        let name = self.string(name_v?)?;
        let motion_v = motion_v?;
        let motion = match motion_v.as_variant() {
            Some(var) if var.name == "Clip" && var.args.is_some_and(|a| a.len() == 1) => {
                let a = var.args.and_then(|a| a.first())?;
                TreeDef::Clip(self.string(a)?, a.span)
            }
            Some(var) if var.name == "Blend" && var.args.is_some_and(|a| a.len() == 1) => {
                let a = var.args.and_then(|a| a.first())?;
                self.tree(a, 1)?
            }
            _ => {
                self.decode(DecodeError::mismatch(
                    "`Clip(\"slot\")` or `Blend(TREE)`",
                    motion_v,
                ));
                return None;
            }
        };
        let mut speed = 1.0;
        if let Some(s) = f.get("speed") {
            speed = self.number(&s.value, "speed")?;
        }
        let mut looping = true;
        if let Some(l) = f.get("looping") {
            match l.value.as_bool() {
                Ok(b) => looping = b,
                Err(e) => self.decode(e),
            }
        }
        Some(StateDef {
            name,
            span: name_v?.span,
            motion,
            speed,
            looping,
        })
    }

    fn tree(&mut self, v: &Value, depth: usize) -> Option<TreeDef> {
        if depth > MAX_TREE_DEPTH {
            self.error(
                E_BLEND_TREE,
                v.span,
                format!("blend tree nested deeper than {MAX_TREE_DEPTH}"),
            );
            return None;
        }
        let name = match &v.kind {
            ValueKind::Struct { name: Some(n), .. } => n.text.as_str(),
            ValueKind::Tuple { name: Some(n), .. } => n.text.as_str(),
            _ => "",
        };
        match name {
            "Clip" => {
                let var = v.as_variant()?;
                match var.args {
                    Some([a]) => Some(TreeDef::Clip(self.string(a)?, a.span)),
                    _ => {
                        self.decode(DecodeError::mismatch("`Clip(\"slot\")`", v));
                        None
                    }
                }
            }
            "Blend1D" => {
                let f = self.strukt(v, "Blend1D", B1_FIELDS)?;
                let pv = self.required(&f, "param");
                let ev = self.required(&f, "entries");
                let param = self.string(pv?)?;
                let mut entries = Vec::new();
                for e in self.list(ev?)? {
                    let Some(ef) = self.strukt(e, "Entry", B1_ENTRY) else {
                        continue;
                    };
                    let (c, t) = (self.required(&ef, "clip"), self.required(&ef, "threshold"));
                    let (Some(c), Some(t)) = (c, t) else { continue };
                    let (Some(slot), Some(th)) = (self.string(c), self.number(t, "threshold"))
                    else {
                        continue;
                    };
                    entries.push((slot, c.span, th as f32));
                }
                let notifies = self.notify_mode(f.get("notifies").map(|n| &n.value));
                Some(TreeDef::Blend1D {
                    param,
                    entries,
                    notifies,
                    span: v.span,
                })
            }
            "BlendSpace2D" => {
                let f = self.strukt(v, "BlendSpace2D", B2_FIELDS)?;
                let (px, py, ev) = (
                    self.required(&f, "param_x"),
                    self.required(&f, "param_y"),
                    self.required(&f, "entries"),
                );
                let param_x = self.string(px?)?;
                let param_y = self.string(py?)?;
                let mut entries = Vec::new();
                for e in self.list(ev?)? {
                    let Some(ef) = self.strukt(e, "Entry", B2_ENTRY) else {
                        continue;
                    };
                    let (c, x, y) = (
                        self.required(&ef, "clip"),
                        self.required(&ef, "x"),
                        self.required(&ef, "y"),
                    );
                    let (Some(c), Some(x), Some(y)) = (c, x, y) else {
                        continue;
                    };
                    let (Some(slot), Some(x), Some(y)) =
                        (self.string(c), self.number(x, "x"), self.number(y, "y"))
                    else {
                        continue;
                    };
                    entries.push((slot, c.span, x as f32, y as f32));
                }
                let notifies = self.notify_mode(f.get("notifies").map(|n| &n.value));
                Some(TreeDef::BlendSpace2D {
                    param_x,
                    param_y,
                    entries,
                    notifies,
                    span: v.span,
                })
            }
            "Lerp" | "Additive" => {
                let lerp = name == "Lerp";
                let (fields, a, b) = if lerp {
                    (LERP_FIELDS, "a", "b")
                } else {
                    (ADD_FIELDS, "base", "overlay")
                };
                let f = self.strukt(v, name, fields)?;
                let (av, bv, pv) = (
                    self.required(&f, a),
                    self.required(&f, b),
                    self.required(&f, "param"),
                );
                let ta = self.tree(av?, depth + 1);
                let tb = self.tree(bv?, depth + 1);
                let param = self.string(pv?)?;
                let (ta, tb) = (Box::new(ta?), Box::new(tb?));
                Some(if lerp {
                    TreeDef::Lerp(ta, tb, param)
                } else {
                    TreeDef::Additive(ta, tb, param)
                })
            }
            _ => {
                self.decode(DecodeError::mismatch(
                    "`Clip`, `Blend1D`, `BlendSpace2D`, `Lerp` or `Additive`",
                    v,
                ));
                None
            }
        }
    }

    fn transition(&mut self, v: &Value) -> Option<TransitionDef> {
        let f = self.strukt(v, "Transition", TRANSITION_FIELDS)?;
        let (fv, tv) = (self.required(&f, "from"), self.required(&f, "to"));
        let (fv, tv) = (fv?, tv?);
        let from = self.string(fv)?;
        let to = self.string(tv)?;
        let mut blend = 0.0;
        if let Some(b) = f.get("blend") {
            blend = self.number(&b.value, "blend")?;
            if blend < 0.0 {
                self.error(E_SM_BAD_VALUE, b.value.span, "blend must be ≥ 0");
                return None;
            }
        }
        let mut when = Vec::new();
        if let Some(w) = f.get("when") {
            for c in self.list(&w.value).unwrap_or(&[]) {
                match c.as_variant() {
                    Some(var) if var.name == "Finished" && var.args.is_none() => {
                        when.push(Condition::Finished)
                    }
                    Some(var)
                        if (var.name == "Greater" || var.name == "Less")
                            && var.args.is_some_and(|a| a.len() == 2) =>
                    {
                        let args = var.args.unwrap_or(&[]);
                        let (Some(p), Some(x)) = (
                            args.first().and_then(|a| self.string(a)),
                            args.get(1).and_then(|a| self.number(a, "condition value")),
                        ) else {
                            continue;
                        };
                        when.push(if var.name == "Greater" {
                            Condition::Greater(p, x)
                        } else {
                            Condition::Less(p, x)
                        });
                    }
                    _ => self.decode(DecodeError::mismatch(
                        "`Greater(\"param\", v)`, `Less(\"param\", v)` or `Finished`",
                        c,
                    )),
                }
            }
        }
        Some(TransitionDef {
            from,
            from_span: fv.span,
            to,
            to_span: tv.span,
            blend,
            when,
            span: v.span,
        })
    }
}
