//! Stable diagnostic codes of the graph compiler's semantic passes (listed in
//! `docs/diagnostics.md`; never renumbered, only appended).

/// A link joins pins of different data types.
pub const E_TYPE_MISMATCH: &str = "E0301";
/// A node kind that is not in the node table.
pub const E_UNKNOWN_KIND: &str = "E0302";
/// A link names a pin the node does not have.
pub const E_UNKNOWN_PIN: &str = "E0303";
/// A link starts at an input or ends at an output.
pub const E_LINK_DIRECTION: &str = "E0304";
/// A link joins an exec pin and a data pin.
pub const E_EXEC_DATA: &str = "E0305";
/// A data input has more than one incoming link.
pub const E_DATA_IN_TWICE: &str = "E0306";
/// An exec output has more than one outgoing link.
pub const E_EXEC_OUT_TWICE: &str = "E0307";
/// Exec links form a cycle.
pub const E_EXEC_CYCLE: &str = "E0308";
/// Data links between pure nodes form a cycle.
pub const E_DATA_CYCLE: &str = "E0309";
/// A variable that is not declared.
pub const E_UNKNOWN_VAR: &str = "E0310";
/// A literal of the wrong type for its variable, pin or property.
pub const E_BAD_LITERAL: &str = "E0311";
/// An event identity the catalog does not publish.
pub const E_UNKNOWN_EVENT: &str = "E0312";
/// An event identity the catalog quarantined.
pub const E_QUARANTINED_EVENT: &str = "E0313";
/// One graph handles one event twice.
pub const E_EVENT_TWICE: &str = "E0314";
/// An argument that is neither a data input nor a property, or a property out of range.
pub const E_BAD_PROPERTY: &str = "E0316";
/// Two nodes with one name.
pub const E_DUPLICATE_NODE: &str = "E0317";
/// Two variables with one name.
pub const E_DUPLICATE_VAR: &str = "E0318";
/// A link names a node that does not exist.
pub const E_UNKNOWN_NODE: &str = "E0319";
/// A node's subject is missing or of the wrong form for its kind.
pub const E_BAD_SUBJECT: &str = "E0320";
/// Exec nesting (call sites inside call sites) deeper than the VM's call limit.
pub const E_NESTING: &str = "E0321";
/// A node no event reaches.
pub const W_UNREACHABLE: &str = "W0301";
/// A variable no node reads or writes.
pub const W_UNUSED_VAR: &str = "W0302";
