//! A scene entity's `returns`: `{"game.health": {"value": Float(25.0)}, …}` — what the headless
//! recorder returns for the game nodes its graphs call (`bridge.md` §1). Checked against the
//! graphs' imports by `project` (`E0573`, `E0574`).

use super::*;

impl Cx<'_> {
    pub(super) fn returns(&mut self, v: &Value) -> Vec<GameReturnsDef> {
        let ValueKind::Map(entries) = &v.kind else {
            self.decode(DecodeError::mismatch(
                "a map `{\"game.health\": {\"value\": Float(25.0)}}` of game node outputs",
                v,
            ));
            return Vec::new();
        };
        if entries.len() > MAX_ITEMS {
            self.error(
                E_SCENE_BAD_VALUE,
                v.span,
                format!(
                    "too many game nodes ({}; at most {MAX_ITEMS})",
                    entries.len()
                ),
            );
            return Vec::new();
        }
        let mut out: Vec<GameReturnsDef> = Vec::new();
        for (k, val) in entries {
            let Some(kind) = self.string(k) else { continue };
            if out.iter().any(|r| r.kind == kind) {
                self.error(
                    E_SCENE_DUPLICATE_FIELD,
                    k.span,
                    format!("game node `{}` is given twice", short(&kind)),
                );
                continue;
            }
            let pending = self.1.0.len();
            let outputs = self.var_settings(val, "output");
            // `Entity("…")` values are refused below: their pending names are never resolved.
            self.1.0.truncate(pending);
            let Some(outputs) = outputs else {
                continue;
            };
            let mut ok = true;
            for o in &outputs {
                if let VarValue::Entity(_) = o.value {
                    self.error(
                        E_SCENE_BAD_VALUE,
                        o.value_span,
                        "`returns` gives no entity values (an entity output returns none)",
                    );
                    ok = false;
                }
            }
            if ok {
                out.push(GameReturnsDef {
                    kind,
                    kind_span: k.span,
                    outputs,
                });
            }
        }
        out
    }
}
