//! Which output slot feeds each input pin of a scene's graphs: the debug information beside
//! a module that lets `POST /api/run` give an executed node's `inputs` (`studio.md`,
//! "Debugger with values"), without changing the module's bytes or the VM.
//!
//! An output of an exec or event node that something reads lives in a per-instance slot named
//! `node.pin` (`compile::lower::layout`); a wire from it to `X.p` means `X.p` read that slot,
//! so the value the invocation recorded there ([`crate::runtime::values`]) is `X.p`'s input
//! (the last one, for a loop, as for outputs). Reroutes compile to nothing: a wire through
//! reroutes is followed back to the node that feeds the chain. An input fed by a pure node
//! (computed in registers, never stored) or by a literal has no slot and is not reported.

use crate::bytecode::VerifiedModule;
use crate::graph::model::Model;
use crate::project::{self, ProjectPath, Source};
use crate::runtime::values::InvocationValues;
use std::collections::HashMap;
use std::sync::Arc;

/// Per node: `(input pin, the slot name of the output feeding it)`.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct InputSlots {
    by_node: HashMap<String, Vec<(String, String)>>,
}

impl InputSlots {
    /// The table of one graph: every data wire, followed back through reroutes. Wires from
    /// outputs without a slot (exec outputs, pure nodes) are dropped when looked up.
    pub fn of(model: &Model) -> InputSlots {
        let reroutes: std::collections::HashSet<&str> = model
            .nodes
            .iter()
            .filter(|n| n.kind == "reroute")
            .map(|n| n.id.as_str())
            .collect();
        // A reroute's source: the wire into its `in`.
        let into: HashMap<(&str, &str), (&str, &str)> = model
            .links
            .iter()
            .map(|l| {
                (
                    (l.to.node.as_str(), l.to.pin.as_str()),
                    (l.from.node.as_str(), l.from.pin.as_str()),
                )
            })
            .collect();
        let mut by_node: HashMap<String, Vec<(String, String)>> = HashMap::new();
        for l in &model.links {
            if reroutes.contains(l.to.node.as_str()) {
                continue;
            }
            let mut from = (l.from.node.as_str(), l.from.pin.as_str());
            // A chain of reroutes is at most every node long (a cycle ends the walk).
            for _ in 0..model.nodes.len() {
                if !reroutes.contains(from.0) {
                    break;
                }
                match into.get(&(from.0, "in")) {
                    Some(f) => from = *f,
                    None => break,
                }
            }
            if reroutes.contains(from.0) {
                continue;
            }
            by_node
                .entry(l.to.node.clone())
                .or_default()
                .push((l.to.pin.clone(), format!("{}.{}", from.0, from.1)));
        }
        InputSlots { by_node }
    }

    /// `(pin, value)` of each input of `node` fed by a slot the invocation recorded.
    pub fn inputs<'a>(
        &'a self,
        node: &str,
        v: &'a InvocationValues,
    ) -> impl Iterator<Item = (&'a str, &'a crate::bytecode::Value)> + 'a {
        self.by_node
            .get(node)
            .into_iter()
            .flatten()
            .filter_map(|(pin, slot)| {
                let x = v.slot(v.slot_index(slot)?)?;
                Some((pin.as_str(), x))
            })
    }
}

/// The tables of a loaded scene's graphs, by module (the `Arc` its instances run).
#[derive(Debug, Default)]
pub struct SceneInputs(Vec<(Arc<VerifiedModule>, InputSlots)>);

impl SceneInputs {
    /// Reads each graph of the scene again as a model (the loader keeps modules, not wires).
    /// A graph that no longer reads as the module's (changed on disk meanwhile: its model's
    /// name differs) or does not parse gets no table: its inputs stay `{}`.
    pub fn read(
        source: &dyn Source,
        layout: &project::Layout,
        loaded: &project::LoadedScene,
    ) -> SceneInputs {
        let Some(def) = &loaded.def else {
            return SceneInputs::default();
        };
        let base: ProjectPath = layout.scene.parent();
        let mut all = Vec::new();
        for p in def.graph_paths() {
            let Some(module) = loaded.assets.graphs.get(&p.path) else {
                continue;
            };
            let Ok(path) = layout.resolve(&base, &p.path) else {
                continue;
            };
            let Ok(bytes) = source.read(&path, crate::fsutil::InputKind::Graph) else {
                continue;
            };
            let Ok(text) = String::from_utf8(bytes) else {
                continue;
            };
            let src = crate::diag::SourceFile::new(source.display(&path), text);
            let Ok(model) = Model::parse(&src) else {
                continue;
            };
            if model.graph != module.module().name {
                continue;
            }
            all.push((module.clone(), InputSlots::of(&model)));
        }
        SceneInputs(all)
    }

    /// The table of the graph `module` (the same `Arc` the scene's instances hold).
    pub fn of(&self, module: &Arc<VerifiedModule>) -> Option<&InputSlots> {
        self.0
            .iter()
            .find(|(m, _)| Arc::ptr_eq(m, module))
            .map(|(_, t)| t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> InputSlots {
        let src = crate::diag::SourceFile::new("t.bpg", text);
        InputSlots::of(&Model::parse(&src).expect("parses"))
    }

    #[test]
    fn wires_are_followed_back_through_reroutes_to_the_slot_that_feeds_them() {
        let t = table(
            "graph t\n\nnode hello = event custom::hello\nnode r1 = reroute\n\
             node r2 = reroute\nnode set = var.set friend\nnode log = debug.log\n\n\
             hello.then -> set.exec\nhello.who -> r1.in\nr1.out -> r2.in\nr2.out -> set.value\n\
             set.then -> log.exec\n",
        );
        // The data input reads the event's payload slot, two reroutes back; no reroute gets
        // an entry of its own.
        assert_eq!(
            t.by_node.get("set").map(Vec::as_slice),
            Some(
                &[
                    ("exec".to_string(), "hello.then".to_string()),
                    ("value".to_string(), "hello.who".to_string())
                ][..]
            )
        );
        assert!(!t.by_node.contains_key("r1") && !t.by_node.contains_key("r2"));
    }

    #[test]
    fn a_cycle_of_reroutes_ends_and_gives_nothing() {
        let t = table(
            "graph t\n\nnode r1 = reroute\nnode r2 = reroute\nnode log = debug.log\n\n\
             r1.out -> r2.in\nr2.out -> r1.in\nr2.out -> log.message\n",
        );
        assert_eq!(t.by_node.get("log"), None);
    }
}
