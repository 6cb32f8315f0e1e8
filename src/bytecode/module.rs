//! The binary module format: data model, deterministic encoder, and a decoder that never panics
//! and never allocates more than the input can justify.

use std::fmt;

use super::isa::Instr;
use super::types::{Const, EntityConst, Type};
use crate::crossing::Edge;

/// File magic: the first four bytes of every module.
pub const MAGIC: [u8; 4] = *b"SNWB";
/// Current format version (u16 LE after the magic). Version 2 added each handler's window
/// edge byte; only the current version is read (rebuild older modules with `sinew build`).
pub const FORMAT_VERSION: u16 = 2;

/// Section tags, in the only order the decoder accepts.
pub mod section {
    /// Graph name.
    pub const NAME: u8 = 1;
    /// Budget metadata.
    pub const META: u8 = 2;
    /// Constant pool.
    pub const CONSTS: u8 = 3;
    /// Variables.
    pub const VARS: u8 = 4;
    /// Hidden instance slots.
    pub const SLOTS: u8 = 5;
    /// Delay table.
    pub const DELAYS: u8 = 6;
    /// Handler table.
    pub const HANDLERS: u8 = 7;
    /// Code.
    pub const CODE: u8 = 8;
    /// Debug info (node names and per-instruction node index).
    pub const DEBUG: u8 = 9;
    /// The import table (`bytecode::game`): written only when the module calls a game node,
    /// so a module without one has the bytes it always had.
    pub const IMPORTS: u8 = 10;
}

/// A declared variable or hidden slot: name, type and initial value.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    /// Variable name (for slots: `node.pin` or a purpose such as `gate.open`).
    pub name: String,
    /// Declared type.
    pub ty: Type,
    /// Initial value; must have type `ty`.
    pub default: Const,
}

/// One `flow.delay` node: its pending flag lives per instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DelayDecl {
    /// Index into [`Module::nodes`] of the delay node.
    pub node: u32,
}

/// One event handler: a contiguous code range with its own register file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handler {
    /// Event identity (`begin_play`, `tick`, `animseq::S.N`, `custom::NAME`); unique together
    /// with `edge`.
    pub event: String,
    /// The window edge this handler runs on (`animseq::S.W` of a window has a `begin` and an
    /// `end` handler); `None` for every other event.
    pub edge: Option<Edge>,
    /// First instruction (entry pc), absolute.
    pub start: u32,
    /// Number of instructions; jumps must stay in `start..start + len`.
    pub len: u32,
    /// Event payload types, in payload order.
    pub params: Vec<Type>,
    /// Register count per bank, indexed by [`Type::bank`].
    pub regs: [u16; 6],
}

/// A bytecode module (one compiled graph). Unverified: run it only through
/// [`super::verify::verify`].
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// Graph name.
    pub name: String,
    /// Instruction budget per invocation the compiler recorded (metadata, checked by `verify`).
    pub budget: u64,
    /// Constant pool.
    pub consts: Vec<Const>,
    /// Declared variables.
    pub vars: Vec<VarDecl>,
    /// Hidden per-instance slots (exec-node outputs, `do_once`/`flip_flop`/`gate` state).
    pub slots: Vec<VarDecl>,
    /// `flow.delay` table.
    pub delays: Vec<DelayDecl>,
    /// Handlers.
    pub handlers: Vec<Handler>,
    /// All handlers' code.
    pub code: Vec<Instr>,
    /// Node names referenced by debug info.
    pub nodes: Vec<String>,
    /// Per instruction: index into `nodes` (same length as `code`).
    pub debug: Vec<u32>,
    /// Debug info of superinstructions: `(pc, node)` for each node whose instructions the
    /// instruction at `pc` replaced (`var.get` + `int.add` + `var.set` as one `var.add.i`), in
    /// the order they ran and before the instruction's own `debug` node; sorted by `pc`. A
    /// recorded run ([`crate::vm::NodeTrace`]) reports every node a fused instruction stands for.
    pub fused: Vec<(u32, u32)>,
    /// The game nodes the module calls (kind and full signature), by import index.
    pub imports: Vec<super::game::Import>,
}

/// Why bytes are not a module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    /// Byte offset where decoding failed.
    pub offset: usize,
    /// What was wrong.
    pub message: String,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid module at byte {}: {}",
            self.offset, self.message
        )
    }
}

impl std::error::Error for DecodeError {}

// ---------------------------------------------------------------- encoding

/// The handler table's edge byte: `0` no edge, `1` begin, `2` end.
fn edge_tag(e: Option<Edge>) -> u8 {
    match e {
        None => 0,
        Some(Edge::Begin) => 1,
        Some(Edge::End) => 2,
    }
}

struct W(Vec<u8>);

impl W {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    /// Lengths beyond u32 cannot be encoded; they are clamped (verify rejects such modules
    /// long before, and decode then fails cleanly).
    fn len(&mut self, n: usize) {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX));
    }
    fn str(&mut self, s: &str) {
        self.len(s.len());
        self.0.extend_from_slice(s.as_bytes());
    }
    fn ty(&mut self, t: Type) {
        self.u8(t.tag());
    }
    fn konst(&mut self, c: &Const) {
        self.ty(c.ty());
        match c {
            Const::Bool(b) => self.u8(u8::from(*b)),
            Const::Int(i) => self.u64(*i as u64),
            Const::Float(f) => self.u64(f.to_bits()),
            Const::Vec3(v) => v.iter().for_each(|x| self.u32(x.to_bits())),
            Const::Str(s) => self.str(s),
            Const::Entity(EntityConst::None) => self.u8(0),
            Const::Entity(EntityConst::Owner) => self.u8(1),
        }
    }
    fn decl(&mut self, d: &VarDecl) {
        self.str(&d.name);
        self.ty(d.ty);
        self.konst(&d.default);
    }
    fn section(&mut self, tag: u8, body: W) {
        self.u8(tag);
        self.len(body.0.len());
        self.0.extend_from_slice(&body.0);
    }
}

/// The format's limits on each section's element count: the decoder refuses a larger count
/// before reading the section, the verifier refuses a built module that exceeds one. Every
/// compiled module is far inside them (one instruction per constant it loads, per delay, per
/// handler at least).
pub mod limits {
    /// Instructions (also: delays, handlers, node names, debug entries).
    pub const CODE: usize = super::super::verify::MAX_CODE;
    /// Constants (each is loaded by an instruction, so never more than [`CODE`]).
    pub const CONSTS: usize = CODE;
    /// Variables, and slots (16-bit operands).
    pub const VARS: usize = u16::MAX as usize + 1;
    /// Payload parameters of one handler.
    pub const PARAMS: usize = super::super::verify::MAX_PARAMS;
}

impl Module {
    /// Encodes the module. Deterministic: equal modules give equal bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = W(Vec::new());
        out.0.extend_from_slice(&MAGIC);
        out.u16(FORMAT_VERSION);

        let mut s = W(Vec::new());
        s.str(&self.name);
        out.section(section::NAME, s);

        let mut s = W(Vec::new());
        s.u64(self.budget);
        out.section(section::META, s);

        let mut s = W(Vec::new());
        s.len(self.consts.len());
        self.consts.iter().for_each(|c| s.konst(c));
        out.section(section::CONSTS, s);

        for (tag, decls) in [(section::VARS, &self.vars), (section::SLOTS, &self.slots)] {
            let mut s = W(Vec::new());
            s.len(decls.len());
            decls.iter().for_each(|d| s.decl(d));
            out.section(tag, s);
        }

        let mut s = W(Vec::new());
        s.len(self.delays.len());
        self.delays.iter().for_each(|d| s.u32(d.node));
        out.section(section::DELAYS, s);

        let mut s = W(Vec::new());
        s.len(self.handlers.len());
        for h in &self.handlers {
            s.str(&h.event);
            s.u8(edge_tag(h.edge));
            s.u32(h.start);
            s.u32(h.len);
            s.len(h.params.len());
            h.params.iter().for_each(|t| s.ty(*t));
            h.regs.iter().for_each(|r| s.u16(*r));
        }
        out.section(section::HANDLERS, s);

        let mut s = W(Vec::new());
        s.len(self.code.len());
        self.code.iter().for_each(|i| i.encode(&mut s.0));
        out.section(section::CODE, s);

        let mut s = W(Vec::new());
        s.len(self.nodes.len());
        self.nodes.iter().for_each(|n| s.str(n));
        s.len(self.debug.len());
        self.debug.iter().for_each(|d| s.u32(*d));
        s.len(self.fused.len());
        self.fused.iter().for_each(|(pc, n)| {
            s.u32(*pc);
            s.u32(*n);
        });
        out.section(section::DEBUG, s);

        if !self.imports.is_empty() {
            let mut s = W(Vec::new());
            s.len(self.imports.len());
            for i in &self.imports {
                s.str(&i.kind);
                s.u8(match i.flow {
                    super::game::GameFlow::Exec => 0,
                    super::game::GameFlow::Pure => 1,
                });
                s.len(i.inputs.len());
                for (n, t) in &i.inputs {
                    s.str(n);
                    s.ty(*t);
                }
                s.len(i.outputs.len());
                for (n, t, d) in &i.outputs {
                    s.str(n);
                    s.ty(*t);
                    s.konst(d);
                }
            }
            out.section(section::IMPORTS, s);
        }

        out.0
    }

    /// Decodes a module. Never panics; every count is bounded by the remaining input (each
    /// element consumes at least one byte, and nothing is pre-allocated from a count).
    pub fn decode(bytes: &[u8]) -> Result<Module, DecodeError> {
        let mut r = R { b: bytes, pos: 0 };
        let magic = r.take(4)?;
        if magic != MAGIC {
            return Err(r.err_at(0, "bad magic (expected `SNWB`)"));
        }
        let version = r.u16()?;
        if version != FORMAT_VERSION {
            return Err(r.err_at(
                4,
                &format!("unsupported format version {version} (expected {FORMAT_VERSION})"),
            ));
        }

        let mut s = r.section(section::NAME)?;
        let name = s.str()?;
        s.end()?;

        let mut s = r.section(section::META)?;
        let budget = s.u64()?;
        s.end()?;

        let mut s = r.section(section::CONSTS)?;
        let mut consts = Vec::new();
        for _ in 0..s.count("constants", limits::CONSTS)? {
            consts.push(s.konst()?);
        }
        s.end()?;

        let mut decls = [Vec::new(), Vec::new()];
        for (k, tag) in [section::VARS, section::SLOTS].into_iter().enumerate() {
            let mut s = r.section(tag)?;
            for _ in 0..s.count("variables or slots", limits::VARS)? {
                let name = s.str()?;
                let ty = s.ty()?;
                let default = s.konst()?;
                decls[k].push(VarDecl { name, ty, default });
            }
            s.end()?;
        }
        let [vars, slots] = decls;

        let mut s = r.section(section::DELAYS)?;
        let mut delays = Vec::new();
        for _ in 0..s.count("delays", limits::CODE)? {
            delays.push(DelayDecl { node: s.u32()? });
        }
        s.end()?;

        let mut s = r.section(section::HANDLERS)?;
        let mut handlers = Vec::new();
        for _ in 0..s.count("handlers", limits::CODE)? {
            let event = s.str()?;
            let edge = match s.u8()? {
                0 => None,
                1 => Some(Edge::Begin),
                2 => Some(Edge::End),
                t => return Err(s.err(&format!("unknown handler edge {t}"))),
            };
            let start = s.u32()?;
            let len = s.u32()?;
            let mut params = Vec::new();
            for _ in 0..s.count("parameters of one handler", limits::PARAMS)? {
                params.push(s.ty()?);
            }
            let mut regs = [0u16; 6];
            for r in &mut regs {
                *r = s.u16()?;
            }
            handlers.push(Handler {
                event,
                edge,
                start,
                len,
                params,
                regs,
            });
        }
        s.end()?;

        let mut s = r.section(section::CODE)?;
        let mut code = Vec::new();
        for _ in 0..s.count("instructions", limits::CODE)? {
            let at = s.pos;
            match Instr::decode(s.b, &mut s.pos) {
                Some(i) => code.push(i),
                None => {
                    s.pos = at;
                    return Err(s.err("unknown opcode or truncated instruction"));
                }
            }
        }
        s.end()?;

        let mut s = r.section(section::DEBUG)?;
        let mut nodes = Vec::new();
        for _ in 0..s.count("node names", limits::CODE)? {
            nodes.push(s.str()?);
        }
        let mut debug = Vec::new();
        for _ in 0..s.count("debug entries", limits::CODE)? {
            debug.push(s.u32()?);
        }
        let mut fused = Vec::new();
        for _ in 0..s.count("fused debug entries", limits::CODE)? {
            fused.push((s.u32()?, s.u32()?));
        }
        s.end()?;

        let mut imports = Vec::new();
        if r.b.get(r.pos) == Some(&section::IMPORTS) {
            let mut s = r.section(section::IMPORTS)?;
            let pins = super::game::MAX_GAME_PINS;
            for _ in 0..s.count("imports", super::game::MAX_IMPORTS)? {
                let kind = s.str()?;
                let flow = match s.u8()? {
                    0 => super::game::GameFlow::Exec,
                    1 => super::game::GameFlow::Pure,
                    t => return Err(s.err(&format!("unknown game node flow {t}"))),
                };
                let mut inputs = Vec::new();
                for _ in 0..s.count("inputs of one game node", pins)? {
                    inputs.push((s.str()?, s.ty()?));
                }
                let mut outputs = Vec::new();
                for _ in 0..s.count("outputs of one game node", pins)? {
                    outputs.push((s.str()?, s.ty()?, s.konst()?));
                }
                imports.push(super::game::Import {
                    kind,
                    flow,
                    inputs,
                    outputs,
                });
            }
            s.end()?;
        }

        if r.pos != r.b.len() {
            return Err(r.err("trailing bytes after the last section"));
        }
        Ok(Module {
            name,
            budget,
            consts,
            vars,
            slots,
            delays,
            handlers,
            code,
            nodes,
            debug,
            fused,
            imports,
        })
    }
}

// ---------------------------------------------------------------- decoding

/// A cursor over a byte slice; `base` offsets positions inside sections for error messages.
struct R<'a> {
    b: &'a [u8],
    pos: usize,
}

/// A section's payload, with its absolute start for error offsets.
struct Sec<'a> {
    b: &'a [u8],
    pos: usize,
    base: usize,
}

impl<'a> R<'a> {
    fn err(&self, m: &str) -> DecodeError {
        self.err_at(self.pos, m)
    }
    fn err_at(&self, offset: usize, m: &str) -> DecodeError {
        DecodeError {
            offset,
            message: m.to_string(),
        }
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|e| *e <= self.b.len())
            .ok_or_else(|| self.err("unexpected end of input"))?;
        let s = &self.b[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u16(&mut self) -> Result<u16, DecodeError> {
        let s = self.take(2)?;
        Ok(u16::from_le_bytes([s[0], s[1]]))
    }
    fn section(&mut self, tag: u8) -> Result<Sec<'a>, DecodeError> {
        let at = self.pos;
        let t = self.take(1)?[0];
        if t != tag {
            return Err(self.err_at(at, &format!("expected section {tag}, found {t}")));
        }
        let len = self.take(4)?;
        let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
        let base = self.pos;
        let b = self.take(len)?;
        Ok(Sec { b, pos: 0, base })
    }
}

impl Sec<'_> {
    fn err(&self, m: &str) -> DecodeError {
        DecodeError {
            offset: self.base + self.pos,
            message: m.to_string(),
        }
    }
    fn take(&mut self, n: usize) -> Result<&[u8], DecodeError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|e| *e <= self.b.len())
            .ok_or_else(|| self.err("unexpected end of section"))?;
        let s = &self.b[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Result<u16, DecodeError> {
        let s = self.take(2)?;
        Ok(u16::from_le_bytes([s[0], s[1]]))
    }
    fn u32(&mut self) -> Result<u32, DecodeError> {
        let s = self.take(4)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }
    fn u64(&mut self) -> Result<u64, DecodeError> {
        let s = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(s);
        Ok(u64::from_le_bytes(a))
    }
    /// An element count: rejected when it exceeds the remaining bytes (every element takes at
    /// least one byte), so loops over it are bounded by the input length, or when it exceeds
    /// the format's limit for that section (`max`, see [`limits`]), so the decoded module's
    /// size is bounded whatever the input.
    fn count(&mut self, what: &str, max: usize) -> Result<u32, DecodeError> {
        let at = self.pos;
        let n = self.u32()?;
        if n as usize > max {
            self.pos = at;
            return Err(self.err(&format!("{n} {what}; a module holds at most {max}")));
        }
        let remaining = self.b.len() - self.pos;
        if n as usize > remaining {
            return Err(self.err(&format!(
                "count {n} exceeds the {remaining} remaining bytes"
            )));
        }
        Ok(n)
    }
    fn str(&mut self) -> Result<String, DecodeError> {
        let n = self.u32()? as usize;
        let at = self.pos;
        let s = self.take(n)?;
        match std::str::from_utf8(s) {
            Ok(s) => Ok(s.to_string()),
            Err(_) => {
                self.pos = at;
                Err(self.err("string is not UTF-8"))
            }
        }
    }
    fn ty(&mut self) -> Result<Type, DecodeError> {
        let t = self.u8()?;
        Type::from_tag(t).ok_or_else(|| self.err(&format!("unknown type tag {t}")))
    }
    fn konst(&mut self) -> Result<Const, DecodeError> {
        Ok(match self.ty()? {
            Type::Bool => match self.u8()? {
                0 => Const::Bool(false),
                1 => Const::Bool(true),
                b => return Err(self.err(&format!("bad bool byte {b}"))),
            },
            Type::Int => Const::Int(self.u64()? as i64),
            Type::Float => Const::Float(f64::from_bits(self.u64()?)),
            Type::Vec3 => Const::Vec3([
                f32::from_bits(self.u32()?),
                f32::from_bits(self.u32()?),
                f32::from_bits(self.u32()?),
            ]),
            Type::Str => Const::Str(self.str()?),
            Type::Entity => match self.u8()? {
                0 => Const::Entity(EntityConst::None),
                1 => Const::Entity(EntityConst::Owner),
                b => return Err(self.err(&format!("bad entity constant {b}"))),
            },
        })
    }
    fn end(&self) -> Result<(), DecodeError> {
        if self.pos == self.b.len() {
            Ok(())
        } else {
            Err(self.err("section has trailing bytes"))
        }
    }
}
