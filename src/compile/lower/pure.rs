//! Emission of pure nodes: each exec node's pure dependencies evaluated once, in dependency
//! order, iteratively, with registers freed after their last use; `expr` trees; built-ins
//! through the ISA table by name.

use super::emit::Emitter;
use super::{NodeId, Op, bin, typed, un};
use crate::bytecode::{self as bc, BuildError, Instr, Type};
use crate::graph::expr::{BinOp, Expr, ExprKind, Func};

impl Emitter<'_, '_> {
    /// Evaluates pure node `root` and every pure node it depends on (not yet evaluated for the
    /// current exec node), in dependency order, without recursion.
    pub(super) fn pure(&mut self, root: NodeId) {
        if self.evaluated(root) {
            return;
        }
        self.s.seen_stamp += 1;
        let stamp = self.s.seen_stamp;
        let mut order = Vec::new();
        let mut stack = vec![(root, false)];
        while let Some((n, expanded)) = stack.pop() {
            if expanded {
                order.push(n);
                continue;
            }
            if self.evaluated(n) || self.s.seen[n as usize] == stamp {
                continue;
            }
            self.s.seen[n as usize] = stamp;
            stack.push((n, true));
            // Reverse pin order onto the stack: inputs are evaluated left to right.
            for pin in (0..self.node(n).inputs.len()).rev() {
                if let Some((src, _)) = self.lay.src(n, pin)
                    && self.node(src).is_pure()
                    && !self.evaluated(src)
                {
                    stack.push((src, false));
                }
            }
        }
        for n in order {
            self.at(n);
            let regs = self.emit_pure(n);
            let start = self.s.memo_regs.len() as u32;
            self.s.memo_regs.extend_from_slice(&regs);
            self.s.memo[n as usize] = (self.s.block_stamp, start);
            // A register is freed after its last use by a pure node of this exec node's
            // dependency graph (counted by `count_uses`); the exec node's own sources are
            // counted once more and never reach zero, so nothing it reads is freed.
            for pin in 0..self.node(n).inputs.len() {
                let Some((src, _)) = self.lay.src(n, pin) else {
                    continue;
                };
                if self.s.dag[src as usize] != self.s.block_stamp || self.s.uses[src as usize] == 0
                {
                    continue;
                }
                self.s.uses[src as usize] -= 1;
                if self.s.uses[src as usize] == 0 {
                    self.release_pure(src);
                }
            }
        }
        self.hb.at(self.current);
    }

    /// Counts, for the exec node `n` about to be emitted, how often each pure node of its
    /// dependency graph is read: by other pure nodes of that graph and by `n` itself. Every pure
    /// node is then evaluated once for `n` (never again after its register is freed).
    pub(super) fn count_uses(&mut self, n: NodeId) {
        let stamp = self.s.block_stamp;
        let mut stack = Vec::new();
        for pin in 0..self.node(n).inputs.len() {
            if let Some((src, _)) = self.lay.src(n, pin)
                && self.node(src).is_pure()
            {
                if self.s.dag[src as usize] != stamp {
                    self.s.dag[src as usize] = stamp;
                    self.s.uses[src as usize] = 0;
                    stack.push(src);
                }
                self.s.uses[src as usize] += 1;
            }
        }
        while let Some(x) = stack.pop() {
            for pin in 0..self.node(x).inputs.len() {
                if let Some((src, _)) = self.lay.src(x, pin)
                    && self.node(src).is_pure()
                {
                    if self.s.dag[src as usize] != stamp {
                        self.s.dag[src as usize] = stamp;
                        self.s.uses[src as usize] = 0;
                        stack.push(src);
                    }
                    self.s.uses[src as usize] += 1;
                }
            }
        }
    }

    /// Frees a pure node's output registers (its last reader has been emitted).
    fn release_pure(&mut self, n: NodeId) {
        let start = self.s.memo[n as usize].1 as usize;
        for (i, p) in self.node(n).outputs.iter().enumerate() {
            if let Some(ty) = p.ty.data() {
                let r = self.s.memo_regs[start + i];
                self.hb.free_reg(ty, r);
            }
        }
        self.s.memo[n as usize].0 = 0;
    }

    /// Was pure node `n` already evaluated for the current exec node?
    fn evaluated(&self, n: NodeId) -> bool {
        self.s.memo[n as usize].0 == self.s.block_stamp
    }

    /// Emits one pure node (its inputs are ready); returns its output registers.
    fn emit_pure(&mut self, n: NodeId) -> Vec<u16> {
        let node = self.node(n);
        match &node.op {
            Op::VarGet(v) => {
                let ty = self.data_type(node.outputs[0].ty);
                let r = self.reg(ty);
                let v = *v as u16;
                self.hb.emit(typed!(ty, [VarGetB, VarGetI, VarGetF, VarGetV, VarGetS, VarGetE] { dst: Reg(r), var: Var(v) }));
                vec![r]
            }
            Op::Expr(parsed) => {
                // Expression inputs are the node's input pins, in order.
                let inputs: Vec<(u16, bool)> = (0..node.inputs.len())
                    .map(|pin| self.input_temp(n, pin))
                    .collect();
                let regs: Vec<u16> = inputs.iter().map(|i| i.0).collect();
                let out = self.expr(&parsed.root, &regs);
                self.free_temps(&inputs, Type::Float, out);
                vec![out]
            }
            Op::Builtin(k) => self.pure_builtin(n, k.kind),
            Op::Game(imp) => self.game_call(n, imp),
            // Events, exec nodes and error nodes are never evaluated as pure.
            _ => Vec::new(),
        }
    }

    fn pure_builtin(&mut self, n: NodeId, kind: &str) -> Vec<u16> {
        let count = self.node(n).inputs.len();
        // A literal right operand becomes the constant operand of the instruction's `.k` form
        // (no `ldc` into a temporary).
        let k =
            constant_form(kind).and_then(|m| Some((m, self.literal(n, count.checked_sub(1)?)?)));
        let evaluated = if k.is_some() { count - 1 } else { count };
        let inputs: Vec<(u16, bool)> = (0..evaluated).map(|pin| self.input_temp(n, pin)).collect();
        let args: Vec<u16> = inputs.iter().map(|i| i.0).collect();
        let result = match k {
            Some((mnemonic, c)) => {
                let c = self.hb.module().constant(c);
                self.op_with_constant(n, mnemonic, &args, c)
            }
            None => self.op_by_name(n, kind, &args),
        };
        for (pin, &(r, temp)) in inputs.iter().enumerate() {
            if temp
                && !result.contains(&r)
                && let Some(ty) = self.node(n).inputs[pin].ty.data()
            {
                self.hb.free_reg(ty, r);
            }
        }
        result
    }

    /// Frees the temporary input registers of an expression (never its result).
    fn free_temps(&mut self, inputs: &[(u16, bool)], ty: Type, keep: u16) {
        for &(r, temp) in inputs {
            if temp && r != keep {
                self.hb.free_reg(ty, r);
            }
        }
    }

    /// Emits the instruction of a built-in over ready argument registers. Every pure built-in
    /// and host call is the instruction of the same name in the ISA table, whose register
    /// operands are the node's data outputs then its data inputs, each in pin order
    /// (`int.clamp`: `dst, value, min, max`; `vec3.break`: `x, y, z, v`), so the table is the
    /// one place that maps them. Returns the output registers.
    pub(super) fn op_by_name(&mut self, n: NodeId, kind: &str, args: &[u16]) -> Vec<u16> {
        let outs: Vec<u16> = self
            .node(n)
            .outputs
            .iter()
            .filter_map(|p| p.ty.data())
            .map(|t| self.reg(t))
            .collect();
        let ops: Vec<u32> = outs.iter().chain(args).map(|&r| u32::from(r)).collect();
        match Instr::opcode_of(kind).and_then(|op| Instr::from_operands(op, &ops)) {
            Some(ins) => {
                self.hb.emit(ins);
            }
            // Resolve only admits kinds from the node table; a kind without an instruction of
            // its name (and operands) is a compiler bug, reported rather than mis-compiled.
            None if self.internal.is_none() => {
                self.internal = Some(BuildError {
                    message: format!("node kind `{kind}` has no instruction of that name"),
                });
            }
            None => {}
        }
        outs
    }

    /// The constant input pin `pin` of `n` has when nothing links into it (its literal or the
    /// type's default), for int and float pins; `None` when it is linked.
    fn literal(&self, n: NodeId, pin: usize) -> Option<bc::Const> {
        if self.lay.src(n, pin).is_some() {
            return None;
        }
        let node = self.node(n);
        let want = match node.inputs[pin].ty.data()? {
            t @ (Type::Int | Type::Float) => t,
            _ => return None,
        };
        Some(match node.defaults.get(pin) {
            Some(Some(d)) => super::bc_const(d, want),
            _ => bc::Const::default_of(want),
        })
    }

    /// [`Self::op_by_name`] for a `.k` form: outputs, then `args`, then constant `c`.
    fn op_with_constant(&mut self, n: NodeId, mnemonic: &str, args: &[u16], c: u32) -> Vec<u16> {
        let outs: Vec<u16> = self
            .node(n)
            .outputs
            .iter()
            .filter_map(|p| p.ty.data())
            .map(|t| self.reg(t))
            .collect();
        let mut ops: Vec<u32> = outs.iter().chain(args).map(|&r| u32::from(r)).collect();
        ops.push(c);
        match Instr::opcode_of(mnemonic).and_then(|op| Instr::from_operands(op, &ops)) {
            Some(ins) => {
                self.hb.emit(ins);
            }
            None if self.internal.is_none() => {
                self.internal = Some(BuildError {
                    message: format!("`{mnemonic}` does not take these operands"),
                });
            }
            None => {}
        }
        outs
    }

    /// Lowers an `expr` tree (height bounded by the expr parser, so recursion is safe).
    fn expr(&mut self, e: &Expr, inputs: &[u16]) -> u16 {
        match &e.kind {
            ExprKind::Num(v) => self.ldc(bc::Const::Float(*v)),
            ExprKind::Pi => self.ldc(bc::Const::Float(std::f64::consts::PI)),
            ExprKind::Input(i) => match inputs.get(*i) {
                Some(&r) => r,
                None => self.ldc(bc::Const::Float(0.0)),
            },
            ExprKind::Neg(a) => {
                let a = self.expr(a, inputs);
                self.free_expr_temp(a, inputs);
                let d = self.reg(Type::Float);
                un!(self, FloatNeg, d, a);
                d
            }
            ExprKind::Binary(op, a, b) => {
                let (a, b) = (self.expr(a, inputs), self.expr(b, inputs));
                // Operands are read by the instruction below, so their registers may be the
                // destination's: free them first (expression size is bounded by the string,
                // register use by the tree's height).
                self.free_expr_temp(a, inputs);
                self.free_expr_temp(b, inputs);
                let d = self.reg(Type::Float);
                match op {
                    BinOp::Add => bin!(self, FloatAdd, d, a, b),
                    BinOp::Sub => bin!(self, FloatSub, d, a, b),
                    BinOp::Mul => bin!(self, FloatMul, d, a, b),
                    BinOp::Div => bin!(self, FloatDiv, d, a, b),
                    BinOp::Rem => bin!(self, FloatRem, d, a, b),
                };
                d
            }
            ExprKind::Call(f, args) => {
                let r: Vec<u16> = args.iter().map(|a| self.expr(a, inputs)).collect();
                for &t in &r {
                    self.free_expr_temp(t, inputs);
                }
                let x = |i: usize| r.get(i).copied().unwrap_or(0);
                let d = self.reg(Type::Float);
                match f {
                    Func::Sin => un!(self, FloatSin, d, x(0)),
                    Func::Cos => un!(self, FloatCos, d, x(0)),
                    Func::Tan => un!(self, FloatTan, d, x(0)),
                    Func::Abs => un!(self, FloatAbs, d, x(0)),
                    Func::Sqrt => un!(self, FloatSqrt, d, x(0)),
                    Func::Floor => un!(self, FloatFloor, d, x(0)),
                    Func::Ceil => un!(self, FloatCeil, d, x(0)),
                    Func::Min => bin!(self, FloatMin, d, x(0), x(1)),
                    Func::Max => bin!(self, FloatMax, d, x(0), x(1)),
                    Func::Pow => bin!(self, FloatPow, d, x(0), x(1)),
                    Func::Clamp => self.hb.emit(Instr::FloatClamp {
                        dst: bc::Reg::new(d),
                        value: bc::Reg::new(x(0)),
                        min: bc::Reg::new(x(1)),
                        max: bc::Reg::new(x(2)),
                    }),
                    Func::Lerp => self.hb.emit(Instr::FloatLerp {
                        dst: bc::Reg::new(d),
                        a: bc::Reg::new(x(0)),
                        b: bc::Reg::new(x(1)),
                        t: bc::Reg::new(x(2)),
                    }),
                };
                d
            }
        }
    }

    /// Frees an expression intermediate (never an input register, which other references of
    /// the same input still read).
    fn free_expr_temp(&mut self, r: u16, inputs: &[u16]) {
        if !inputs.contains(&r) {
            self.hb.free_reg(Type::Float, r);
        }
    }
}

/// The instruction of a binary built-in whose right operand is a constant (`int.add` →
/// `int.add.k`): the ISA's superinstructions for "operation with a literal".
fn constant_form(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "int.add" => "int.add.k",
        "int.sub" => "int.sub.k",
        "int.mul" => "int.mul.k",
        "int.div" => "int.div.k",
        "int.rem" => "int.rem.k",
        "int.eq" => "int.eq.k",
        "int.ne" => "int.ne.k",
        "int.lt" => "int.lt.k",
        "int.le" => "int.le.k",
        "int.gt" => "int.gt.k",
        "int.ge" => "int.ge.k",
        "float.add" => "float.add.k",
        "float.sub" => "float.sub.k",
        "float.mul" => "float.mul.k",
        "float.div" => "float.div.k",
        "float.lt" => "float.lt.k",
        "float.le" => "float.le.k",
        "float.gt" => "float.gt.k",
        "float.ge" => "float.ge.k",
        _ => return None,
    })
}
