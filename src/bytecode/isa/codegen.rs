//! What the [`isa!`] table expands through: the operand types and their encoding, [`OpInfo`],
//! and the macros that turn the table's rows into the `Instr` enums and their methods
//! (encoder, decoder, verifier metadata, disassembly text, by-name constructor). The table
//! itself is in the parent module.

use std::fmt;
use std::marker::PhantomData;

use crate::bytecode::types::{Type, TypeMarker};

/// What an operand refers to; the verifier checks each against the module and handler.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OperandKind {
    /// A register of the given type's bank.
    Reg(Type),
    /// A constant pool index whose constant has the given type.
    Const(Type),
    /// A variable index whose variable has the given type.
    Var(Type),
    /// A hidden instance slot whose slot has the given type.
    Slot(Type),
    /// An event payload parameter of the handler with the given type.
    Param(Type),
    /// A `flow.delay` table index.
    Delay,
    /// An absolute code address inside the current handler.
    Target,
    /// An import table index (`bytecode::game`).
    Import,
}

/// Operand encoding shared by all operand newtypes.
pub trait Operand: Copy {
    /// The kind of this operand (with its type), for the verifier.
    const KIND: OperandKind;
    /// Bytes used by the encoded operand.
    const WIDTH: usize;
    /// The raw index the operand carries.
    fn index(self) -> u32;
    /// Builds the operand from a raw index (`None` when it does not fit the encoding).
    fn from_index(i: u32) -> Option<Self>;
}

macro_rules! typed_operand {
    ($(#[$m:meta])* $name:ident, $raw:ty, $kind:ident, $prefix:literal) => {
        $(#[$m])*
        pub struct $name<T>(pub $raw, PhantomData<T>);
        impl<T> $name<T> {
            /// Wraps a raw index.
            pub const fn new(i: $raw) -> Self {
                $name(i, PhantomData)
            }
        }
        impl<T> Clone for $name<T> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<T> Copy for $name<T> {}
        impl<T> PartialEq for $name<T> {
            fn eq(&self, o: &Self) -> bool {
                self.0 == o.0
            }
        }
        impl<T> Eq for $name<T> {}
        impl<T: TypeMarker> fmt::Debug for $name<T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(self, f)
            }
        }
        impl<T: TypeMarker> fmt::Display for $name<T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                if $prefix.is_empty() {
                    write!(f, "{}{}", T::TYPE.reg_prefix(), self.0)
                } else {
                    write!(f, "{}{}", $prefix, self.0)
                }
            }
        }
        impl<T: TypeMarker> Operand for $name<T> {
            const KIND: OperandKind = OperandKind::$kind(T::TYPE);
            const WIDTH: usize = std::mem::size_of::<$raw>();
            fn index(self) -> u32 {
                u32::from(self.0)
            }
            fn from_index(i: u32) -> Option<Self> {
                <$raw>::try_from(i).ok().map(Self::new)
            }
        }
    };
}

typed_operand!(
    /// A register in bank `T` (printed `b3`, `i0`, `f2`, `v1`, `s0`, `e4`).
    Reg, u16, Reg, ""
);
typed_operand!(
    /// A constant pool index holding a constant of type `T`.
    ConstRef, u32, Const, "c"
);
typed_operand!(
    /// A variable of type `T`.
    Var, u16, Var, "var"
);
typed_operand!(
    /// A hidden per-instance slot of type `T`.
    Slot, u16, Slot, "slot"
);
typed_operand!(
    /// An event payload parameter of type `T`.
    Param, u16, Param, "p"
);

/// A `flow.delay` table index (printed `d0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DelayRef(pub u16);

impl fmt::Display for DelayRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "d{}", self.0)
    }
}

impl Operand for DelayRef {
    const KIND: OperandKind = OperandKind::Delay;
    const WIDTH: usize = 2;
    fn index(self) -> u32 {
        u32::from(self.0)
    }
    fn from_index(i: u32) -> Option<Self> {
        u16::try_from(i).ok().map(DelayRef)
    }
}

/// An absolute code address (printed `@0012`); must lie inside the current handler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target(pub u32);

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@{:04}", self.0)
    }
}

impl Operand for Target {
    const KIND: OperandKind = OperandKind::Target;
    const WIDTH: usize = 4;
    fn index(self) -> u32 {
        self.0
    }
    fn from_index(i: u32) -> Option<Self> {
        Some(Target(i))
    }
}

/// Static description of one opcode, generated from the table.
#[derive(Clone, Copy, Debug)]
pub struct OpInfo {
    /// Encoded opcode number (explicit, append-only).
    pub opcode: u16,
    /// Disassembly mnemonic.
    pub mnemonic: &'static str,
    /// Operand names and kinds, in encoding order.
    pub operands: &'static [(&'static str, OperandKind)],
}

/// Reads little-endian operand bytes; never panics.
pub(crate) fn read_uint(bytes: &[u8], pos: &mut usize, width: usize) -> Option<u32> {
    let end = pos.checked_add(width)?;
    let s = bytes.get(*pos..end)?;
    let mut v: u32 = 0;
    for (k, b) in s.iter().enumerate() {
        v |= u32::from(*b) << (8 * k);
    }
    *pos = end;
    Some(v)
}

pub(super) fn write_uint(out: &mut Vec<u8>, v: u32, width: usize) {
    out.extend_from_slice(&v.to_le_bytes()[..width]);
}

/// One instruction enum and its methods from rows of the table; `[Nested(Type)]` names the
/// variant holding a second such enum (the animation commands), whose methods the outer ones
/// defer to.
macro_rules! instr_set {
    ($(#[$em:meta])* $name:ident [$($nv:ident($nty:ident))?] $(
        $(#[$m:meta])*
        $variant:ident = $opcode:literal, $mnemonic:literal { $($field:ident : $kind:ty),* $(,)? };
    )*) => {
        $(#[$em])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name {
            $( $(#[$m])* $variant { $($field: $kind),* }, )*
            $(
                /// An animation command (the `commands!` table's graph rows).
                $nv($nty),
            )?
        }

        impl $name {
            /// This set's own rows, in table order.
            const ROWS: &'static [OpInfo] = &[
                $( OpInfo {
                    opcode: $opcode,
                    mnemonic: $mnemonic,
                    operands: &[$((stringify!($field), <$kind as Operand>::KIND)),*],
                }, )*
            ];

            /// The encoded opcode number.
            pub fn opcode(&self) -> u16 {
                match self {
                    $( Self::$variant { .. } => $opcode, )*
                    $( Self::$nv(c) => c.opcode(), )?
                }
            }

            /// The disassembly mnemonic (also the node-library name where one exists).
            pub fn mnemonic(&self) -> &'static str {
                match self {
                    $( Self::$variant { .. } => $mnemonic, )*
                    $( Self::$nv(c) => c.mnemonic(), )?
                }
            }

            /// Appends the encoding: opcode (u16 LE) then each operand (LE, fixed width).
            pub fn encode(&self, out: &mut Vec<u8>) {
                match self {
                    $( Self::$variant { $($field),* } => {
                        write_uint(out, $opcode, 2);
                        $( write_uint(out, Operand::index(*$field), <$kind as Operand>::WIDTH); )*
                    } )*
                    $( Self::$nv(c) => c.encode(out), )?
                }
            }

            /// Decodes one instruction at `*pos`, advancing it. `None` on an unknown opcode or
            /// truncated operands.
            pub fn decode(bytes: &[u8], pos: &mut usize) -> Option<Self> {
                let op = read_uint(bytes, pos, 2)?;
                Self::decode_operands(op, bytes, pos)
            }

            /// Decodes the operands of opcode `op` at `*pos` (just past the opcode).
            fn decode_operands(op: u32, bytes: &[u8], pos: &mut usize) -> Option<Self> {
                match op {
                    $( $opcode => {
                        $( let $field = <$kind as Operand>::from_index(
                            read_uint(bytes, pos, <$kind as Operand>::WIDTH)?)?; )*
                        Some(Self::$variant { $($field),* })
                    } )*
                    _ => nested!($( $nty::decode_operands(op, bytes, pos).map(Self::$nv) )?),
                }
            }

            /// The opcode whose mnemonic is `m` (node-library names: `int.add`, `vec3.break`, …).
            pub fn opcode_of(m: &str) -> Option<u16> {
                match m {
                    $( $mnemonic => Some($opcode), )*
                    _ => nested!($( $nty::opcode_of(m) )?),
                }
            }

            /// Builds instruction `opcode` from raw operand indices in encoding order; `None`
            /// for an unknown opcode, a wrong operand count or an index that does not fit.
            pub fn from_operands(opcode: u16, ops: &[u32]) -> Option<Self> {
                match opcode {
                    $( $opcode => {
                        let mut it = ops.iter().copied();
                        $( let $field = <$kind as Operand>::from_index(it.next()?)?; )*
                        if it.next().is_some() {
                            return None;
                        }
                        Some(Self::$variant { $($field),* })
                    } )*
                    _ => nested!($( $nty::from_operands(opcode, ops).map(Self::$nv) )?),
                }
            }

            /// Calls `f(name, kind, index)` for each operand, in encoding order.
            pub fn for_each_operand(&self, f: &mut dyn FnMut(&'static str, OperandKind, u32)) {
                match self {
                    $( Self::$variant { $($field),* } => {
                        $( f(stringify!($field), <$kind as Operand>::KIND, Operand::index(*$field)); )*
                    } )*
                    $( Self::$nv(c) => c.for_each_operand(f), )?
                }
            }

            /// Rewrites every `Target` operand with `f` (used by the builder to resolve labels).
            pub fn map_targets(&mut self, f: &mut dyn FnMut(u32) -> u32) {
                match self {
                    $( Self::$variant { $($field),* } => {
                        $( map_target_field($field, f); )*
                    } )*
                    $( Self::$nv(c) => c.map_targets(f), )?
                }
            }

            /// Disassembly text: mnemonic padded, then operands separated by `, `.
            pub fn text(&self) -> String {
                let ops: Vec<String> = match self {
                    $( Self::$variant { $($field),* } => vec![$($field.to_string()),*], )*
                    $( Self::$nv(c) => return c.text(), )?
                };
                if ops.is_empty() {
                    self.mnemonic().to_string()
                } else {
                    format!("{:<22}{}", self.mnemonic(), ops.join(", "))
                }
            }
        }
    };
}

/// The fallback of a lookup that missed this set's rows: the nested set's answer, or `None`.
macro_rules! nested {
    () => {
        None
    };
    ($e:expr) => {
        $e
    };
}

/// The register bank marker of a command argument's type.
macro_rules! reg_of {
    (Bool) => {
        B
    };
    (Int) => {
        I
    };
    (Float) => {
        F
    };
    (Vec3) => {
        V
    };
    (Str) => {
        S
    };
    (Entity) => {
        E
    };
}

/// The instruction set: the rows below, then one instruction per graph command of the
/// `commands!` table (`crate::commands`), its operands the `bool` result register if the
/// node has one, then one register per argument.
macro_rules! isa {
    ([$($rows:tt)*] $(
        $cmd:ident $nid:ident = $op:literal, $node:literal, $title:literal, $ndoc:literal,
            [$($res:ident)?] ($($arg:ident : $ty:ident $pin:ident),*);
    )*) => {
        instr_set! {
            /// One decoded instruction. Operand types are part of the variant.
            Instr [Command(CommandInstr)] $($rows)*
        }

        instr_set! {
            /// An animation-command instruction: one variant per graph command of the
            /// `commands!` table (the VM hands its registers to the host as that command).
            CommandInstr [] $(
                #[doc = concat!("`", $node, "`: ", $ndoc)]
                $nid = $op, $node { $($res: Reg<B>,)? $($arg: Reg<reg_of!($ty)>),* };
            )*
        }

        /// Every opcode, in opcode order (the command instructions among the others).
        pub const OPCODES: &[OpInfo] = &sorted_opcodes::<{ Instr::ROWS.len() + CommandInstr::ROWS.len() }>(
            Instr::ROWS,
            CommandInstr::ROWS,
        );
    };
}

/// `a` and `b` in one array, sorted by opcode (insertion sort at compile time).
pub(super) const fn sorted_opcodes<const N: usize>(a: &[OpInfo], b: &[OpInfo]) -> [OpInfo; N] {
    let mut out = [a[0]; N];
    let mut i = 0;
    while i < N {
        out[i] = if i < a.len() { a[i] } else { b[i - a.len()] };
        let mut j = i;
        while j > 0 && out[j - 1].opcode > out[j].opcode {
            let t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
            j -= 1;
        }
        i += 1;
    }
    out
}

/// Helper so the macro can treat every operand field uniformly.
pub(super) trait MaybeTarget {
    fn map_target(&mut self, f: &mut dyn FnMut(u32) -> u32);
}

impl<T: Operand> MaybeTarget for T {
    fn map_target(&mut self, f: &mut dyn FnMut(u32) -> u32) {
        if T::KIND == OperandKind::Target
            && let Some(n) = T::from_index(f(self.index()))
        {
            *self = n;
        }
    }
}

pub(super) fn map_target_field<T: MaybeTarget>(x: &mut T, f: &mut dyn FnMut(u32) -> u32) {
    x.map_target(f);
}
