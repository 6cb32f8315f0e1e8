//! The values an invocation saw, for the studio's debugger (`POST /api/run` → `values`).
//!
//! Recorded only by a [`VmDispatch::recording_values`](super::VmDispatch::recording_values)
//! dispatcher (the plain dispatcher checks one boolean and records nothing): the graph's
//! variables before and after the invocation, and the values the executed nodes' outputs hold
//! afterwards — every output of an exec or event node that something reads lives in a
//! per-instance slot named `node.pin` (`compile::lower::layout`), so its value is the one the
//! invocation left there (the last one, for a node that ran several times in a loop). Pure
//! nodes keep no value between instructions and are not reported. Every other named output
//! slot is kept too, so an input fed by a slot (an event's payload, a `var.set`'s value, …)
//! can be given its value (the studio joins inputs to slots through the graph's wires).

use crate::bytecode::{Value, VerifiedModule};
use crate::vm::InstanceState;
use std::sync::Arc;

/// What one invocation saw (equal when the same module saw the same values).
#[derive(Debug, Clone)]
pub struct InvocationValues {
    /// The module that ran (names of its variables and slots).
    pub module: Arc<VerifiedModule>,
    /// The variables, in declaration order, before and after.
    pub vars_before: Vec<Value>,
    pub vars_after: Vec<Value>,
    /// `(slot index, value)` of the outputs of the nodes that ran, in slot order.
    pub outputs: Vec<(u32, Value)>,
}

impl PartialEq for InvocationValues {
    fn eq(&self, o: &Self) -> bool {
        Arc::ptr_eq(&self.module, &o.module)
            && self.vars_before == o.vars_before
            && self.vars_after == o.vars_after
            && self.outputs == o.outputs
    }
}

impl InvocationValues {
    /// Starts a record: the variables before the invocation.
    pub fn before(module: &Arc<VerifiedModule>, state: &InstanceState) -> InvocationValues {
        InvocationValues {
            module: module.clone(),
            vars_before: state.vars().to_vec(),
            vars_after: Vec::new(),
            outputs: Vec::new(),
        }
    }

    /// Completes it: the variables after, and every output slot (`node.pin`; hidden state
    /// slots, `node#what`, are not outputs). The outputs of the nodes that ran are what the
    /// studio reports as theirs; the others are what those nodes' inputs read from nodes that
    /// ran earlier or elsewhere (an event's payload, a `var.set`'s value read by a pure node):
    /// an input fed by a slot has that slot's value. `_ran` is kept for the callers.
    pub fn after(&mut self, state: &InstanceState, _ran: &[&str]) {
        self.vars_after = state.vars().to_vec();
        let slots = &self.module.module().slots;
        self.outputs = slots
            .iter()
            .zip(state.slots())
            .enumerate()
            .filter(|(_, (d, _))| d.name.contains('.'))
            .map(|(i, (_, v))| (i as u32, v.clone()))
            .collect();
    }

    /// The recorded value of slot `i`, if any.
    pub fn slot(&self, i: u32) -> Option<&Value> {
        self.outputs
            .binary_search_by_key(&i, |(j, _)| *j)
            .ok()
            .map(|k| &self.outputs[k].1)
    }

    /// The index of the slot named `node.pin` (an output's per-instance slot).
    pub fn slot_index(&self, name: &str) -> Option<u32> {
        self.module
            .module()
            .slots
            .iter()
            .position(|d| d.name == name)
            .map(|i| i as u32)
    }

    /// The variables' names, in declaration order.
    pub fn var_names(&self) -> impl Iterator<Item = &str> {
        self.module.module().vars.iter().map(|v| v.name.as_str())
    }

    /// `(node, pin, value)` of each recorded output.
    pub fn node_outputs(&self) -> impl Iterator<Item = (&str, &str, &Value)> {
        let slots = &self.module.module().slots;
        self.outputs.iter().filter_map(|(i, v)| {
            let (node, pin) = slots.get(*i as usize)?.name.split_once('.')?;
            Some((node, pin, v))
        })
    }
}
