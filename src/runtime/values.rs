//! The values an invocation saw, for the studio's debugger (`POST /api/run` → `values`).
//!
//! Recorded only by a [`VmDispatch::recording_values`](super::VmDispatch::recording_values)
//! dispatcher (the plain dispatcher checks one boolean and records nothing): the graph's
//! variables before and after the invocation, and the values the executed nodes' outputs hold
//! afterwards — every output of an exec or event node that something reads lives in a
//! per-instance slot named `node.pin` (`compile::lower::layout`), so its value is the one the
//! invocation left there (the last one, for a node that ran several times in a loop). Pure
//! nodes keep no value between instructions and are not reported.

use crate::bytecode::{Value, VerifiedModule};
use crate::vm::InstanceState;
use std::collections::HashSet;
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

    /// Completes it: the variables after, and the output slots of the nodes in `ran`.
    pub fn after(&mut self, state: &InstanceState, ran: &[&str]) {
        self.vars_after = state.vars().to_vec();
        let ran: HashSet<&str> = ran.iter().copied().collect();
        let slots = &self.module.module().slots;
        self.outputs = slots
            .iter()
            .zip(state.slots())
            .enumerate()
            .filter(|(_, (d, _))| {
                d.name
                    .split_once('.')
                    .is_some_and(|(node, _)| ran.contains(node))
            })
            .map(|(i, (_, v))| (i as u32, v.clone()))
            .collect();
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
