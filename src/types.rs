//! The one value-type enum: the data types of the graph language, used alike by the syntax
//! (`var` declarations), the node table's pins, the catalog's notify fields and the bytecode
//! (register banks, constants, module tags). Exec is a pin kind, not a value type
//! ([`crate::nodes::PinType`]).

use std::fmt;

/// A data type of the graph language. The discriminant is the bytecode tag and register bank
/// (`bytecode::Type::tag`), so the order is part of the module format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    /// `bool`
    Bool = 0,
    /// `int` (i64)
    Int = 1,
    /// `float` (f64)
    Float = 2,
    /// `vec3` (three f32)
    Vec3 = 3,
    /// `string`
    Str = 4,
    /// `entity` (u64 bits or none)
    Entity = 5,
}

/// The name table: every type with its name as written in graphs, JSON and messages.
const NAMES: [(Type, &str); 6] = [
    (Type::Bool, "bool"),
    (Type::Int, "int"),
    (Type::Float, "float"),
    (Type::Vec3, "vec3"),
    (Type::Str, "string"),
    (Type::Entity, "entity"),
];

impl Type {
    /// Every type, in tag order (the spec's order).
    pub const ALL: [Type; 6] = [
        Type::Bool,
        Type::Int,
        Type::Float,
        Type::Vec3,
        Type::Str,
        Type::Entity,
    ];

    /// The name as written in a graph (`bool`, `int`, `float`, `vec3`, `string`, `entity`).
    pub fn name(self) -> &'static str {
        NAMES[self as usize].1
    }

    /// The type of that name.
    pub fn from_name(name: &str) -> Option<Type> {
        NAMES.iter().find(|(_, n)| *n == name).map(|(t, _)| *t)
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl serde::Serialize for Type {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_tag_order() {
        for (i, t) in Type::ALL.into_iter().enumerate() {
            assert_eq!(t as usize, i);
            assert_eq!(NAMES[i].0, t);
            assert_eq!(Type::from_name(t.name()), Some(t));
        }
        assert_eq!(Type::Str.name(), "string");
        assert_eq!(Type::from_name("exec"), None);
        assert_eq!(Type::from_name("str"), None);
    }
}
