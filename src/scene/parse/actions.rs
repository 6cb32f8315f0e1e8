//! Scene actions: the action list (the command table's scene actions, then `Send` and
//! `Despawn`) and the `Action(at:, entity:, action:)` entries of a scene.

use std::collections::BTreeMap;

use super::*;

/// The scene actions that are not animation commands, as written.
const OTHER_ACTIONS: &[(&str, &str)] = &[
    (
        "Send",
        "Send(target, \"custom::NAME\"[, {\"field\": Type(value)}])",
    ),
    ("Despawn", "Despawn"),
];

/// Every scene action's name: the command table's scene actions (`anim::command`), then
/// `Send` and `Despawn`.
pub fn action_names() -> Vec<&'static str> {
    command::COMMANDS
        .iter()
        .filter_map(|c| c.scene)
        .chain(OTHER_ACTIONS.iter().map(|(n, _)| *n))
        .collect()
}

/// Every scene action as written, with its arguments (`SetParam(name, value)`, `Pause`).
pub fn action_forms() -> Vec<String> {
    command::COMMANDS
        .iter()
        .filter_map(|c| {
            let name = c.scene?;
            Some(if c.args.is_empty() {
                name.to_string()
            } else {
                let args: Vec<&str> = c.args.iter().map(|a| a.name).collect();
                format!("{name}({})", args.join(", "))
            })
        })
        .chain(OTHER_ACTIONS.iter().map(|(_, f)| f.to_string()))
        .collect()
}

/// The action forms as a message lists them: `` `SetParam(name, value)`, …, `Despawn` ``.
fn listed_actions() -> String {
    action_forms()
        .iter()
        .map(|f| format!("`{f}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Cx<'_> {
    pub(super) fn action(
        &mut self,
        v: &Value,
        names: &BTreeMap<String, (usize, Span)>,
        entities: &[EntityDef],
    ) -> Option<ActionDef> {
        let f = self.strukt(v, "Action", ACTION_FIELDS)?;
        let mut errs = Vec::new();
        let entity_v = f.required("entity", &mut errs);
        let action_v = f.required("action", &mut errs);
        for e in errs {
            self.decode(e);
        }
        let at = match f.get("at") {
            Some(a) => self.finite(&a.value, "action time `at`"),
            None => Some(0.0),
        };
        let entity = entity_v.and_then(|e| self.entity_ref(e, names));
        let action = action_v.and_then(|a| self.action_kind(a, names));
        let (at, entity, action) = (at?, entity?, action?);
        if action.needs_animator()
            && let Some(e) = entities.get(entity)
            && e.animator.is_none()
            && let Some(av) = action_v
        {
            self.error(
                E_SCENE_NO_ANIMATOR,
                av.span,
                format!(
                    "action `{}` needs an animator; entity `{}` has none",
                    action.name(),
                    short(&e.name)
                ),
            );
            return None;
        }
        let arg_spans = action_v
            .and_then(Value::as_variant)
            .and_then(|v| v.args)
            .map(|args| args.iter().map(|a| a.span).collect())
            .unwrap_or_default();
        Some(ActionDef {
            at,
            entity,
            action,
            arg_spans,
        })
    }

    pub(super) fn action_kind(
        &mut self,
        v: &Value,
        names: &BTreeMap<String, (usize, Span)>,
    ) -> Option<Action> {
        let Some(var) = v.as_variant() else {
            let expected = format!("an action ({})", listed_actions());
            self.decode(DecodeError::mismatch(expected, v));
            return None;
        };
        let command = command::by_scene(var.name);
        let arity = match (var.name, command) {
            ("Despawn", _) => 0,
            ("Send", _) => 2,
            (_, Some(c)) => c.args.len(),
            _ => {
                let names = action_names();
                let mut d = Diagnostic::error(
                    E_SCENE_TYPE,
                    format!("unknown action `{}`", short(var.name)),
                )
                .at(self.src, var.name_span);
                if let Some(k) = ron_span::closest(var.name, &names) {
                    d = d.with_note(format!("did you mean `{k}`?"));
                }
                self.push(d.with_note(format!("the actions are {}", listed_actions())));
                return None;
            }
        };
        let args = var.args.unwrap_or(&[]);
        // `Send` takes an optional third argument, its payload values.
        let optional = usize::from(var.name == "Send");
        if !(arity..=arity + optional).contains(&args.len()) || (arity == 0 && var.args.is_some()) {
            let takes = if optional > 0 {
                format!("{arity} or {} arguments", arity + optional)
            } else {
                format!("{arity} argument{}", if arity == 1 { "" } else { "s" })
            };
            self.error(
                E_SCENE_TYPE,
                v.span,
                format!("action `{}` takes {takes}, found {}", var.name, args.len()),
            );
            return None;
        }
        let Some(spec) = command else {
            return self.other_action(var.name, args, names);
        };
        // Every argument is decoded (each error reported) before any failure returns.
        let values: Vec<Option<ArgValue>> = spec
            .args
            .iter()
            .zip(args)
            .map(|(arg, v)| match arg.ty {
                Type::Str => self.string(v).map(|s| ArgValue::Str(s.into())),
                // The table's other argument type is `float`.
                _ => self.finite(v, arg.what).map(ArgValue::Float),
            })
            .collect();
        let values: Vec<ArgValue> = values.into_iter().collect::<Option<_>>()?;
        if spec.kind == CommandKind::SetSpeed
            && let [ArgValue::Float(s)] = values[..]
            && s.abs() > MAX_SPEED
        {
            self.error(
                E_SCENE_BAD_VALUE,
                args[0].span,
                format!("speed must be within ±{MAX_SPEED}"),
            );
            return None;
        }
        if spec.kind == CommandKind::Play
            && let [_, ArgValue::Float(at)] = values[..]
            && at < 0.0
        {
            self.error(
                E_SCENE_BAD_VALUE,
                args[1].span,
                format!("clip time `at` must be ≥ 0, found {at}"),
            );
            return None;
        }
        AnimCommand::from_values(spec.kind, &values).map(Action::Anim)
    }

    /// The actions that are not animation commands (`Despawn`, `Send`), arity checked.
    pub(super) fn other_action(
        &mut self,
        name: &str,
        args: &[Value],
        names: &BTreeMap<String, (usize, Span)>,
    ) -> Option<Action> {
        let a = |i: usize| &args[i];
        Some(match name {
            "Despawn" => Action::Despawn,
            _ => {
                // Send
                let target = self.entity_ref(a(0), names);
                let event = self.string(a(1))?;
                let ok = event.strip_prefix("custom::").is_some_and(is_identifier);
                if !ok {
                    self.error(
                        E_SCENE_BAD_VALUE,
                        a(1).span,
                        format!(
                            "`Send` takes an event `custom::NAME`, found \"{}\"",
                            short(&event)
                        ),
                    );
                    return None;
                }
                let fields = match args.get(2) {
                    Some(v) => self.payload_values(v, names)?,
                    None => Vec::new(),
                };
                Action::Send {
                    target: target?,
                    event,
                    fields,
                }
            }
        })
    }

    /// A `Send`'s payload values: a `vars`-style map `{"field": Type(value), …}` (the same
    /// value forms and limits as graph variables), with `Entity("name")` resolved at once
    /// (actions are read after every entity is known).
    fn payload_values(
        &mut self,
        v: &Value,
        names: &BTreeMap<String, (usize, Span)>,
    ) -> Option<Vec<VarSetting>> {
        let mut fields = self.var_settings(v, "payload field")?;
        let pending = std::mem::take(&mut self.1.0);
        let mut ok = true;
        for f in &mut fields {
            if let VarValue::Entity(index) = &mut f.value
                && let Some((name, span)) = pending.get(*index)
            {
                match self.entity_named(name, *span, names) {
                    Some(e) => *index = e,
                    None => ok = false,
                }
            }
        }
        ok.then_some(fields)
    }
}
