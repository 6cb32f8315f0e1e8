//! The registry of every stable diagnostic code with a one-line summary (SARIF rules, docs).
//!
//! Codes are never renumbered or reused; new ones are appended. `docs/diagnostics.md` lists each
//! with an example, and a test checks that every code a module declares is registered here and
//! documented there.

/// (code, summary) in code order.
pub static CODES: &[(&str, &str)] = &[
    ("E0001", "a file or folder cannot be read"),
    ("E0002", "a text file is not UTF-8"),
    ("E0003", "a file is larger than Sinew loads"),
    ("E0060", "the bytes are not a valid bytecode module"),
    ("E0061", "a bytecode module fails verification"),
    ("E0100", "an .animseq file is not UTF-8"),
    ("E0101", "an .animseq file is not valid RON"),
    (
        "E0102",
        "the .animseq format version is newer than this reader",
    ),
    ("E0103", "the .animseq format version is invalid"),
    ("E0104", "an unknown field in an .animseq file"),
    (
        "E0105",
        "a field the declared .animseq version does not allow",
    ),
    ("E0106", "a field is written twice"),
    ("E0107", "a required field is missing"),
    ("E0108", "a value has the wrong type"),
    ("E0109", "a sequence or notify ID is malformed"),
    (
        "E0110",
        "two notifies or windows share one ID in one sequence",
    ),
    ("E0111", "the duration is not finite and positive"),
    (
        "E0112",
        "a notify time is not finite or outside [0, duration]",
    ),
    ("E0113", "a display name is empty"),
    ("E0114", "a notify field name is not an identifier"),
    ("E0115", "two notify fields share one name"),
    ("E0116", "curve keys are not in increasing time order"),
    ("E0117", "two curve keys share one time"),
    ("E0118", "a curve key lies outside [0, duration]"),
    ("E0119", "a curve key is not finite"),
    ("E0120", "a curve mixes value types"),
    ("E0121", "track keys are not in increasing time order"),
    ("E0122", "a track key is not finite"),
    ("E0123", "a rotation key is the zero quaternion"),
    ("E0124", "two tracks animate one bone"),
    (
        "E0125",
        "the root-motion bone has no track and no skeleton bone",
    ),
    ("E0126", "a notify field value is not finite"),
    ("E0127", "two curves share one name"),
    ("E0128", "a notify target is malformed"),
    ("E0129", "a window does not end after it begins"),
    (
        "E0130",
        "a window edge is not finite or outside [0, duration]",
    ),
    (
        "E0131",
        "a weight threshold or chance is not finite or outside [0, 1]",
    ),
    ("E0132", "a sequence has more windows than Sinew loads"),
    (
        "E0201",
        "two or more files declare one sequence ID (identities quarantined)",
    ),
    ("E0301", "type mismatch across a link"),
    ("E0302", "unknown node kind"),
    ("E0303", "unknown pin"),
    ("E0304", "a link starts at an input or ends at an output"),
    ("E0305", "a link joins an exec pin and a data pin"),
    ("E0306", "a data input is linked twice"),
    ("E0307", "an exec output is linked twice"),
    ("E0308", "exec links form a cycle"),
    ("E0309", "data links between pure nodes form a cycle"),
    ("E0310", "unknown variable"),
    ("E0311", "a literal of the wrong type"),
    ("E0312", "unknown event identity"),
    ("E0313", "quarantined event identity"),
    ("E0314", "an event is handled twice in one graph"),
    ("E0316", "invalid argument or property"),
    ("E0317", "duplicate node name"),
    ("E0318", "duplicate variable name"),
    ("E0319", "a link names an unknown node"),
    ("E0320", "a node's subject is missing or of the wrong form"),
    ("E0321", "exec nesting deeper than the VM's call limit"),
    ("E0399", "internal compiler error"),
    ("E0401", "unexpected character"),
    ("E0402", "unterminated string"),
    ("E0403", "invalid escape in a string"),
    ("E0404", "number out of range"),
    ("E0405", "syntax error: expected something else"),
    ("E0406", "missing `graph NAME` header"),
    ("E0407", "a second `graph` header"),
    ("E0408", "unknown variable type"),
    ("E0409", "event ID longer than 64 characters"),
    ("E0410", "too many syntax errors; the rest are counted"),
    ("E0411", "an expression does not parse"),
    ("E0412", "unknown function in an expression"),
    ("E0413", "wrong number of arguments in an expression call"),
    ("E0414", "an expression is nested too deeply"),
    ("E0500", "a .skel file is not UTF-8"),
    ("E0501", "a .skel file is not valid RON"),
    (
        "E0502",
        "a .skel value has the wrong shape (unknown, duplicate or missing field, wrong type)",
    ),
    ("E0503", "a bone name is empty"),
    (
        "E0504",
        "two bones share a name (matching across `:`/`_`/case)",
    ),
    ("E0505", "a bone names an unknown parent"),
    ("E0506", "bone parents form a cycle"),
    ("E0507", "a rest-pose value is not finite"),
    ("E0508", "a rest rotation cannot be normalized"),
    ("E0509", "a skeleton has no bones or more than 4096"),
    (
        "E0512",
        "bad blend entries (none, non-finite, 1D unsorted, 2D coincident)",
    ),
    (
        "E0513",
        "bad blend tree (too deep, missing clip slot, entry/clip mismatch)",
    ),
    (
        "E0514",
        "retargeting cannot pair the rigs or would bake too many keys",
    ),
    (
        "E0515",
        "a state machine file is not UTF-8 or not valid RON",
    ),
    ("E0516", "a state machine value has the wrong shape"),
    ("E0517", "a state machine names a state it lacks"),
    (
        "E0518",
        "a state's motion names a clip slot the animator lacks",
    ),
    ("E0519", "two states share a name"),
    ("E0520", "a transition can never fire"),
    ("E0522", "a state machine number is out of range"),
    ("E0550", "a scene file is not UTF-8"),
    ("E0551", "a scene file is not valid RON"),
    (
        "E0552",
        "a scene value has the wrong shape, or an unknown or mis-called action",
    ),
    ("E0553", "an unknown field in a scene"),
    ("E0554", "a scene field or clip slot is written twice"),
    ("E0555", "a required scene field is missing"),
    ("E0556", "two scene entities share a name"),
    (
        "E0557",
        "a scene action names an entity the scene does not declare",
    ),
    ("E0558", "a scene value is out of range"),
    ("E0559", "a default or layer clip names no clip slot"),
    (
        "E0560",
        "an animation action targets an entity without an animator",
    ),
    ("E0561", "a graph or clip a scene names cannot be read"),
    (
        "E0562",
        "a graph a scene names does not compile, or a clip does not load",
    ),
    (
        "E0564",
        "a path a scene names leads outside the project (never read)",
    ),
    ("W0301", "a node no event reaches"),
    ("W0302", "a variable no node reads or writes"),
    (
        "W0510",
        "a clip track names a bone the skeleton lacks (ignored)",
    ),
    ("W0511", "a mask entry names no bone (ignored)"),
    (
        "W0521",
        "a parameter the scene sets is read by no condition or blend tree",
    ),
    (
        "W0550",
        "retired: the minimal animator ignored a full-runtime feature",
    ),
    (
        "W0563",
        "a clip's source skeleton cannot be read or does not load (played un-retargeted)",
    ),
];

/// The summary of a code, if registered.
pub fn summary(code: &str) -> Option<&'static str> {
    CODES
        .binary_search_by(|(c, _)| (*c).cmp(code))
        .ok()
        .map(|i| CODES[i].1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_is_sorted_and_unique() {
        for w in CODES.windows(2) {
            assert!(w[0].0 < w[1].0, "{} then {}", w[0].0, w[1].0);
        }
        assert_eq!(summary("E0301"), Some("type mismatch across a link"));
        assert_eq!(summary("E9999"), None);
    }
}
