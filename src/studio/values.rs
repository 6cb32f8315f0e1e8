//! `POST /api/run`'s `values` (`studio.md`, "Debugger with values"): for each invocation, parallel
//! to `executed`, `{"graph", "entity", "nodes": {"<node>": {"inputs": {…}, "outputs": {…}}},
//! "vars_before": {…}, "vars_after": {…}}`, values written as `end` lines write `vars`
//! ([`crate::runtime::render::value_json`]).
//!
//! What is known (`runtime::values`): every variable before and after, and for each node that
//! ran, the outputs the invocation left in the node's slots — the data outputs of exec and event
//! nodes that something reads (an event's payload pins, `var.set.value`, `flow.for.index`, …) —
//! and the inputs fed by such a slot ([`super::inputs`]: the graph's wires joined to slot
//! names). Pure nodes hold no value between instructions: their outputs, and inputs they feed,
//! are not reported (decided, `docs/studio.md`). Every node that ran has an entry.

use super::inputs::InputSlots;
use crate::runtime::Invocation;
use crate::runtime::render::value_json;
use crate::runtime::scene::Spawned;
use serde_json::{Map, Value, json};

/// The `values` entry of one invocation (`null` when its values were not recorded).
pub fn entry(spawned: &Spawned, inv: &Invocation, inputs: Option<&InputSlots>) -> Value {
    let Some(v) = &inv.values else {
        return Value::Null;
    };
    let vars = |values: &[crate::bytecode::Value]| -> Map<String, Value> {
        v.var_names()
            .zip(values)
            .map(|(n, x)| (n.to_string(), value_json(spawned, x)))
            .collect()
    };
    let mut nodes = Map::new();
    for n in &inv.nodes {
        nodes
            .entry(n.clone())
            .or_insert_with(|| json!({"inputs": {}, "outputs": {}}));
    }
    if let Some(table) = inputs {
        for (node, entry) in nodes.iter_mut() {
            if let Some(Value::Object(ins)) = entry.get_mut("inputs") {
                for (pin, x) in table.inputs(node, v) {
                    ins.insert(pin.to_string(), value_json(spawned, x));
                }
            }
        }
    }
    for (node, pin, x) in v.node_outputs() {
        if let Some(Value::Object(o)) = nodes.get_mut(node)
            && let Some(Value::Object(outs)) = o.get_mut("outputs")
        {
            outs.insert(pin.to_string(), value_json(spawned, x));
        }
    }
    json!({
        "graph": &*inv.graph,
        "entity": spawned.name_of(inv.entity.to_bits()),
        "nodes": nodes,
        "vars_before": vars(&v.vars_before),
        "vars_after": vars(&v.vars_after),
    })
}
