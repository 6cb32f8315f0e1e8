//! A scene entity's graph entries: a path, or `("b.bpg", vars: {…})` with typed values, and
//! the `Entity("name")` values resolved once every entity is known.

use std::collections::BTreeMap;

use super::*;

impl Cx<'_> {
    /// A graph entry: a path, or `("b.bpg", vars: {"name": Type(value), …})`.
    pub(super) fn graph_ref(&mut self, v: &Value) -> Option<GraphRef> {
        if matches!(v.kind, ValueKind::Str(_)) {
            return Some(GraphRef {
                path: self.path(v)?,
                vars: Vec::new(),
            });
        }
        let Some(([path_v], fields)) = v.as_tuple_with_fields(1) else {
            self.decode(DecodeError::mismatch(
                "a graph path or `(\"graph.bpg\", vars: {\"name\": Float(1.0)})`",
                v,
            ));
            return None;
        };
        let path = self.path(path_v);
        let mut vars = Vec::new();
        let mut seen_vars = false;
        for f in fields {
            if f.name != GRAPH_ENTRY_FIELDS[0] {
                let mut d = Diagnostic::error(
                    E_SCENE_UNKNOWN_FIELD,
                    format!("unknown field `{}` in a graph entry", short(&f.name)),
                )
                .at(self.src, f.name_span);
                d = d.with_note("a graph entry takes `vars: {\"name\": Type(value), …}`");
                self.push(d);
                continue;
            }
            if seen_vars {
                self.error(
                    E_SCENE_DUPLICATE_FIELD,
                    f.name_span,
                    "field `vars` is written twice",
                );
                continue;
            }
            seen_vars = true;
            vars = self.var_settings(&f.value, "variable").unwrap_or_default();
        }
        Some(GraphRef { path: path?, vars })
    }

    /// A `vars` map: `{"name": Type(value), …}`, names unique, at most [`MAX_ITEMS`]; `what`
    /// names an entry in messages (`variable`, `payload field`).
    pub(super) fn var_settings(&mut self, v: &Value, what: &str) -> Option<Vec<VarSetting>> {
        let ValueKind::Map(entries) = &v.kind else {
            self.decode(DecodeError::mismatch(
                format!("a map `{{\"name\": Float(1.0)}}` of {what} values"),
                v,
            ));
            return None;
        };
        if entries.len() > MAX_ITEMS {
            self.error(
                E_SCENE_BAD_VALUE,
                v.span,
                format!("too many {what}s ({}; at most {MAX_ITEMS})", entries.len()),
            );
            return None;
        }
        let mut seen: HashSet<&str> = HashSet::new();
        let mut out = Vec::new();
        for (k, val) in entries {
            let Some(name) = self.string(k) else { continue };
            let Some(value) = self.var_value(val) else {
                continue;
            };
            if let ValueKind::Str(key) = &k.kind
                && !seen.insert(key.as_str())
            {
                self.error(
                    E_SCENE_DUPLICATE_FIELD,
                    k.span,
                    format!("{what} `{}` is set twice", short(&name)),
                );
                continue;
            }
            out.push(VarSetting {
                name,
                name_span: k.span,
                value,
                value_span: val.span,
            });
        }
        Some(out)
    }

    /// `Bool(b)`, `Int(i)`, `Float(x)`, `String(s)`, `Vec3((x, y, z))` or `Entity("name")`
    /// (the entity is resolved once every entity is known).
    pub(super) fn var_value(&mut self, v: &Value) -> Option<VarValue> {
        const EXPECTED: &str = "a typed value: `Bool(true)`, `Int(3)`, `Float(1.5)`, `String(\"x\")`, `Vec3((0.0, 0.0, 1.0))` or `Entity(\"name\")`";
        let Some(var) = v.as_variant() else {
            self.decode(DecodeError::mismatch(EXPECTED, v));
            return None;
        };
        let arg = match var.args {
            Some([a]) => a,
            _ => {
                self.decode(DecodeError::mismatch(EXPECTED, v));
                return None;
            }
        };
        Some(match var.name {
            "Bool" => VarValue::Bool(self.ok(arg.as_bool())?),
            "Int" => VarValue::Int(self.ok(arg.as_i64())?),
            "Float" => VarValue::Float(self.finite(arg, "a `Float` value")?),
            "String" => {
                let s = self.string(arg)?;
                let max = crate::bytecode::verify::MAX_STRING_LEN;
                if s.len() > max {
                    self.error(
                        E_SCENE_BAD_VALUE,
                        arg.span,
                        format!("string of {} bytes; strings hold at most {max}", s.len()),
                    );
                    return None;
                }
                VarValue::Str(s)
            }
            "Vec3" => {
                let items = self.ok(arg.as_tuple(3))?;
                let mut out = [0f32; 3];
                for (o, item) in out.iter_mut().zip(items) {
                    let x = self.ok(item.as_f32())?;
                    if !x.is_finite() {
                        self.error(
                            E_SCENE_BAD_VALUE,
                            item.span,
                            "a `Vec3` component must be a finite f32",
                        );
                        return None;
                    }
                    *o = x;
                }
                VarValue::Vec3(out)
            }
            "Entity" => {
                let name = self.string(arg)?;
                // Until every entity is known, the index of the pending name.
                self.1.0.push((name, arg.span));
                VarValue::Entity(self.1.0.len() - 1)
            }
            other => {
                let mut d = Diagnostic::error(
                    E_SCENE_TYPE,
                    format!("unknown value type `{}`", short(other)),
                )
                .at(self.src, var.name_span);
                let kinds = ["Bool", "Int", "Float", "String", "Vec3", "Entity"];
                d = match ron_span::closest(other, &kinds) {
                    Some(k) => d.with_note(format!("did you mean `{k}`?")),
                    None => d.with_note(format!("expected {EXPECTED}")),
                };
                self.push(d);
                return None;
            }
        })
    }

    /// Resolves every `Entity("name")` variable value, in the order they were read.
    pub(super) fn resolve_entity_vars(
        &mut self,
        entities: &mut [EntityDef],
        names: &BTreeMap<String, (usize, Span)>,
    ) {
        let pending = std::mem::take(&mut self.1.0);
        for value in entities
            .iter_mut()
            .flat_map(|e| e.graphs.iter_mut())
            .flat_map(|g| g.vars.iter_mut())
            .map(|v| &mut v.value)
        {
            if let VarValue::Entity(index) = value
                && let Some((name, span)) = pending.get(*index)
            {
                // An unknown name is an error, so the scene is not kept: the index is moot.
                *index = self.entity_named(name, *span, names).unwrap_or(usize::MAX);
            }
        }
    }
}
