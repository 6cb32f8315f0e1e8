//! Game nodes (`game.*`): resolved against the declarations the catalog publishes
//! (`nodes::game`), typed like built-ins; the node's op carries its import (kind and
//! signature) for the module's import table.

use super::*;
use crate::bytecode::GameFlow;
use crate::compile::GameInfo;

impl Resolver<'_> {
    pub(super) fn game_node(&mut self, n: &ast::Node) -> Node {
        let kind_text = n.kind.text();
        let decl = match self.events.game_node(&kind_text) {
            GameInfo::Published(d) => d,
            GameInfo::Quarantined(files) => {
                let d = self.err(
                    E_UNKNOWN_KIND,
                    n.kind.span,
                    format!("game node `{kind_text}` is quarantined"),
                );
                d.notes.push(format!(
                    "declared by {}; keep one declaration",
                    crate::catalog::list_some(
                        &files[..files.len().min(crate::catalog::MAX_LISTED)],
                        files.len()
                    )
                ));
                return Self::error_node(n);
            }
            GameInfo::Unknown => {
                let kinds = self.events.game_kinds();
                let d = self.err(
                    E_UNKNOWN_KIND,
                    n.kind.span,
                    format!("unknown game node `{kind_text}`"),
                );
                match closest(&kind_text, kinds.iter().map(String::as_str)) {
                    Some(s) => d.notes.push(format!("did you mean `{s}`?")),
                    None if kinds.is_empty() => d.notes.push(
                        "no game nodes are declared: declare them in a `*.nodes.ron` file under the assets folder".into(),
                    ),
                    None => {}
                }
                return Self::error_node(n);
            }
        };
        if let Some(s) = &n.subject {
            self.err(
                E_BAD_SUBJECT,
                s.span(),
                format!("`{kind_text}` takes no subject"),
            );
            return Self::error_node(n);
        }
        let exec = decl.flow == GameFlow::Exec;
        let data = |p: &crate::nodes::game::GamePin| Pin {
            name: p.name.clone().into(),
            ty: PinType::Data(p.ty),
        };
        let exec_pin = |name: &'static str| Pin {
            name: name.into(),
            ty: PinType::Exec,
        };
        let mut node = Node {
            name: n.name.name.clone(),
            kind: decl.kind.clone().into(),
            op: Op::Game(Box::new(decl.import())),
            inputs: exec
                .then(|| exec_pin("exec"))
                .into_iter()
                .chain(decl.inputs.iter().map(data))
                .collect(),
            outputs: exec
                .then(|| exec_pin("then"))
                .into_iter()
                .chain(decl.outputs.iter().map(data))
                .collect(),
            defaults: Vec::new(),
            given: Vec::new(),
            props: Props::default(),
        };
        self.args(n, None, &mut node);
        // An input neither linked nor given takes its declared default.
        let skip = usize::from(exec);
        for (i, p) in decl.inputs.iter().enumerate() {
            if p.given && !node.given[i + skip] {
                node.defaults[i + skip] = from_bytecode(&p.default);
            }
        }
        node
    }
}

/// A declared default as the node's constant: the value itself, except that an entity default
/// is "no entity" (an entity literal can only be `""`, as for built-in pins).
fn from_bytecode(c: &crate::bytecode::Const) -> Option<Const> {
    use crate::bytecode::EntityConst;
    Some(match c {
        Const::Entity(_) => Const::Entity(EntityConst::None),
        other => other.clone(),
    })
}
