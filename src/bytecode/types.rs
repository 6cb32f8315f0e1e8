//! Value types, type markers for typed operands, module constants and runtime values.

use std::fmt;
use std::sync::Arc;

pub use crate::types::Type;

/// Bytecode facets of the value type: tag, register bank, register prefix.
impl Type {
    /// Register-name prefix used by the disassembler.
    pub fn reg_prefix(self) -> &'static str {
        match self {
            Type::Bool => "b",
            Type::Int => "i",
            Type::Float => "f",
            Type::Vec3 => "v",
            Type::Str => "s",
            Type::Entity => "e",
        }
    }

    /// Encoded tag.
    pub fn tag(self) -> u8 {
        self as u8
    }

    /// Decodes a tag.
    pub fn from_tag(t: u8) -> Option<Type> {
        Type::ALL.get(usize::from(t)).copied()
    }

    /// Bank index (same as the tag).
    pub fn bank(self) -> usize {
        self as usize
    }
}

/// Static type marker used by typed operands (`Reg<I>`, `ConstRef<S>`, ...).
pub trait TypeMarker: 'static {
    /// The runtime type this marker stands for.
    const TYPE: Type;
}

macro_rules! markers {
    ($($(#[$m:meta])* $n:ident => $t:ident;)*) => {$(
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $n {}
        impl TypeMarker for $n {
            const TYPE: Type = Type::$t;
        }
    )*};
}

markers! {
    /// Marker: bool.
    B => Bool;
    /// Marker: int.
    I => Int;
    /// Marker: float.
    F => Float;
    /// Marker: vec3.
    V => Vec3;
    /// Marker: string.
    S => Str;
    /// Marker: entity.
    E => Entity;
}

/// An entity constant: modules cannot name concrete entities.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EntityConst {
    /// No entity.
    None,
    /// The instance's own entity (the graph language's default for `entity`).
    Owner,
}

/// A typed constant as stored in a module (constant pool, variable and slot defaults).
#[derive(Clone, Debug, PartialEq)]
pub enum Const {
    /// bool
    Bool(bool),
    /// int
    Int(i64),
    /// float
    Float(f64),
    /// vec3
    Vec3([f32; 3]),
    /// string
    Str(String),
    /// entity
    Entity(EntityConst),
}

impl Const {
    /// The constant's type.
    pub fn ty(&self) -> Type {
        match self {
            Const::Bool(_) => Type::Bool,
            Const::Int(_) => Type::Int,
            Const::Float(_) => Type::Float,
            Const::Vec3(_) => Type::Vec3,
            Const::Str(_) => Type::Str,
            Const::Entity(_) => Type::Entity,
        }
    }

    /// The type's default (`false`, `0`, `0.0`, `(0,0,0)`, `""`, the owner entity).
    pub fn default_of(t: Type) -> Const {
        match t {
            Type::Bool => Const::Bool(false),
            Type::Int => Const::Int(0),
            Type::Float => Const::Float(0.0),
            Type::Vec3 => Const::Vec3([0.0; 3]),
            Type::Str => Const::Str(String::new()),
            Type::Entity => Const::Entity(EntityConst::Owner),
        }
    }

    /// Bitwise identity (floats compared by bits), used to deduplicate constants.
    /// A key equal for two constants iff [`Const::same`] holds (bitwise floats), for hashing.
    pub fn key(&self) -> ConstKey {
        match self {
            Const::Bool(b) => ConstKey::Bool(*b),
            Const::Int(i) => ConstKey::Int(*i),
            Const::Float(f) => ConstKey::Float(f.to_bits()),
            Const::Vec3(v) => ConstKey::Vec3(v.map(f32::to_bits)),
            Const::Str(s) => ConstKey::Str(s.clone()),
            Const::Entity(e) => ConstKey::Entity(*e),
        }
    }

    pub fn same(&self, o: &Const) -> bool {
        match (self, o) {
            (Const::Float(a), Const::Float(b)) => a.to_bits() == b.to_bits(),
            (Const::Vec3(a), Const::Vec3(b)) => {
                a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
            }
            _ => self == o,
        }
    }

    /// The runtime value, resolving `Owner` to `owner`.
    pub fn to_value(&self, owner: Option<u64>) -> Value {
        match self {
            Const::Bool(b) => Value::Bool(*b),
            Const::Int(i) => Value::Int(*i),
            Const::Float(f) => Value::Float(*f),
            Const::Vec3(v) => Value::Vec3(*v),
            Const::Str(s) => Value::Str(Arc::from(s.as_str())),
            Const::Entity(EntityConst::None) => Value::Entity(None),
            Const::Entity(EntityConst::Owner) => Value::Entity(owner),
        }
    }
}

impl fmt::Display for Const {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Const::Bool(b) => write!(f, "{b}"),
            Const::Int(i) => write!(f, "{i}"),
            Const::Float(x) => write!(f, "{x:?}"),
            Const::Vec3([x, y, z]) => write!(f, "({x:?}, {y:?}, {z:?})"),
            Const::Str(s) => write!(f, "{s:?}"),
            Const::Entity(EntityConst::None) => write!(f, "none"),
            Const::Entity(EntityConst::Owner) => write!(f, "self"),
        }
    }
}

/// A runtime value (event payloads, variables, slots).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// bool
    Bool(bool),
    /// int
    Int(i64),
    /// float
    Float(f64),
    /// vec3
    Vec3([f32; 3]),
    /// string
    Str(Arc<str>),
    /// entity bits, or none
    Entity(Option<u64>),
}

impl Value {
    /// The value's type.
    pub fn ty(&self) -> Type {
        match self {
            Value::Bool(_) => Type::Bool,
            Value::Int(_) => Type::Int,
            Value::Float(_) => Type::Float,
            Value::Vec3(_) => Type::Vec3,
            Value::Str(_) => Type::Str,
            Value::Entity(_) => Type::Entity,
        }
    }
}

/// A hashable identity of a constant (floats by their bits).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ConstKey {
    Bool(bool),
    Int(i64),
    Float(u64),
    Vec3([u32; 3]),
    Str(String),
    Entity(EntityConst),
}
