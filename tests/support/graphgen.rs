//! Generator of random well-typed `.bpg` graphs from a choice stream (proptest shrinks the
//! stream toward zeros and shortens it; choice 0 is always the simplest option). Shared by
//! `tests/differential.rs` and `tests/compile_hostile.rs`.
//!
//! Every graph has a `begin_play`, a `tick` and a `custom::ping` handler, variables of every
//! type, exec chains of `var.set`, `debug.log`, `flow.branch`/`sequence`/`for` (ranges of at
//! most four iterations)/`do_once`/`flip_flop`/`gate`/`delay`, `anim.*` commands (`anim.play` too) and
//! `event.send custom::ping` (whose payload is declared with up to three typed fields, or not at
//! all), and pure nodes over int/float/bool/vec3/string/entity with
//! type-correct links. Exec links only go forward within a handler, or into a handler generated
//! earlier, so there is never an exec cycle; pure inputs only come from nodes created earlier,
//! so there is never a data cycle.
#![allow(dead_code)]

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    Bool,
    Int,
    Float,
    Vec3,
    Str,
    Ent,
}

const TYS: [Ty; 6] = [Ty::Bool, Ty::Int, Ty::Float, Ty::Vec3, Ty::Str, Ty::Ent];

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::Bool => "bool",
            Ty::Int => "int",
            Ty::Float => "float",
            Ty::Vec3 => "vec3",
            Ty::Str => "string",
            Ty::Ent => "entity",
        }
    }
}

/// `(name, value)` pairs: ARGS of a node, or (source, pin) links to make.
type Args = Vec<(String, String)>;

struct Gen<'a> {
    c: &'a [u16],
    pos: usize,
    vars: Vec<(String, Ty)>,
    nodes: Vec<String>,
    links: Vec<String>,
    /// Data outputs readable so far (`node.pin`, type).
    pool: Vec<(String, Ty)>,
    /// Exec inputs of terminal control pins (`gate.open`, `once.reset`, …) of earlier handlers
    /// (a node's own control pin downstream of it would close an exec cycle).
    controls: Vec<String>,
    /// Control pins of the handler being generated.
    current_controls: Vec<String>,
    /// Exec entry inputs of earlier handlers' statements (merge targets).
    earlier: Vec<String>,
    /// Entries of the handler being generated (become `earlier` when it is done).
    current: Vec<String>,
    /// Entries of statements inside completed earlier outputs of an enclosing
    /// `flow.sequence`/`flow.branch` (merge targets inside one handler: neither an ancestor nor
    /// a descendant of the statement being generated, so never a cycle).
    siblings: Vec<String>,
    /// Node budget left.
    left: usize,
    next: usize,
    /// How many `flow.for` bodies enclose the statement being generated.
    in_loop: u32,
    /// The declared payload fields of `custom::ping` (none: no declaration).
    ping: Vec<(&'static str, Ty)>,
    /// Whether a `flow.delay` may run inside a `flow.for` body (see `graph_with`).
    loop_delays: bool,
}

const INTS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "7",
    "100",
    "-3",
    "9223372036854775807",
    "-9223372036854775808",
    "3",
];
const FLOATS: &[&str] = &[
    "0.0",
    "1.5",
    "-2.25",
    "0.1",
    "1e300",
    "-1e-300",
    "3",
    "1000000.5",
    "-0.0",
    "2",
];
const VECS: &[&str] = &[
    "(0, 0, 0)",
    "(1, 2, 3)",
    "(-1.5, 0.25, 1e30)",
    "(0.1, -0.0, 7)",
];
const STRS: &[&str] = &[
    "\"\"",
    "\"a\"",
    "\"grass\"",
    "\"move\"",
    "\"idle\"",
    "\"x y\"",
    "\"q\\\"\\n\"",
];
const EXPRS: &[&str] = &[
    "a + b",
    "a * b - 1",
    "sin(a) + cos(b)",
    "a / b",
    "a % b",
    "pow(a, b)",
    "sqrt(a)",
    "clamp(a, 0, 1)",
    "lerp(a, b, 0.5)",
    "min(a, b) * max(a, pi)",
    "-a",
    "floor(a) + ceil(b)",
    "tan(a)",
    "abs(a - b) + 0.5e1",
];

impl Gen<'_> {
    fn pick(&mut self, n: usize) -> usize {
        let v = self.c.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        v as usize % n.max(1)
    }

    fn lit(&mut self, t: Ty) -> String {
        match t {
            Ty::Bool => ["false", "true"][self.pick(2)].into(),
            Ty::Int => INTS[self.pick(INTS.len())].into(),
            Ty::Float => FLOATS[self.pick(FLOATS.len())].into(),
            Ty::Vec3 => VECS[self.pick(VECS.len())].into(),
            Ty::Str => STRS[self.pick(STRS.len())].into(),
            Ty::Ent => "\"\"".into(),
        }
    }

    fn fresh(&mut self) -> String {
        self.next += 1;
        format!("n{}", self.next - 1)
    }

    /// Declares a node; returns its name.
    fn node(&mut self, kind: &str, args: &[(String, String)]) -> String {
        let name = self.fresh();
        self.node_named(name, kind, args)
    }

    fn node_named(&mut self, name: String, kind: &str, args: &[(String, String)]) -> String {
        self.left = self.left.saturating_sub(1);
        let mut line = format!("node {name} = {kind}");
        if !args.is_empty() {
            let a: Vec<String> = args.iter().map(|(k, v)| format!("{k} = {v}")).collect();
            line.push_str(&format!(" {{ {} }}", a.join(", ")));
        }
        self.nodes.push(line);
        name
    }

    fn link(&mut self, from: &str, to: &str) {
        self.links.push(format!("{from} -> {to}"));
    }

    /// Fills the data inputs `pins` of a node about to be declared: linked sources are linked
    /// to `node.pin` afterwards; the rest may get an ARGS literal.
    fn inputs(&mut self, pins: &[(&str, Ty)], depth: u32) -> (Args, Args) {
        let mut args = Vec::new();
        let mut linked = Vec::new();
        for &(pin, ty) in pins {
            match self.source(ty, depth) {
                Some(src) => linked.push((src, pin.to_string())),
                None => {
                    if ty != Ty::Ent && self.pick(2) == 1 {
                        let l = self.lit(ty);
                        args.push((pin.to_string(), l));
                    }
                }
            }
        }
        (args, linked)
    }

    fn finish(&mut self, name: &str, linked: Vec<(String, String)>) {
        for (src, pin) in linked {
            self.link(&src, &format!("{name}.{pin}"));
        }
    }

    /// A node with data inputs `pins`; returns its name.
    fn with_inputs(
        &mut self,
        kind: &str,
        pins: &[(&str, Ty)],
        depth: u32,
        extra: Vec<(String, String)>,
    ) -> String {
        let name = self.fresh();
        self.with_inputs_named(name, kind, pins, depth, extra)
    }

    fn with_inputs_named(
        &mut self,
        name: String,
        kind: &str,
        pins: &[(&str, Ty)],
        depth: u32,
        extra: Vec<(String, String)>,
    ) -> String {
        let (mut args, linked) = self.inputs(pins, depth);
        args.extend(extra);
        let name = self.node_named(name, kind, &args);
        self.finish(&name, linked);
        name
    }

    /// A data source of type `t`, or `None` (leave the input unlinked).
    fn source(&mut self, t: Ty, depth: u32) -> Option<String> {
        let choice = self.pick(6);
        if choice == 0 || self.left == 0 {
            return None;
        }
        if choice == 1 || depth == 0 {
            // A variable of that type (every type has one), or a pooled output.
            if self.pick(2) == 0 || depth == 0 {
                let vs: Vec<String> = self
                    .vars
                    .iter()
                    .filter(|v| v.1 == t)
                    .map(|v| v.0.clone())
                    .collect();
                let v = vs[self.pick(vs.len())].clone();
                let n = self.node(&format!("var.get {v}"), &[]);
                let out = format!("{n}.value");
                self.pool.push((out.clone(), t));
                return Some(out);
            }
        }
        if choice == 2 {
            let same: Vec<String> = self
                .pool
                .iter()
                .filter(|p| p.1 == t || (t == Ty::Float && p.1 == Ty::Int))
                .map(|p| p.0.clone())
                .collect();
            if !same.is_empty() {
                return Some(same[self.pick(same.len())].clone());
            }
        }
        if t == Ty::Float && choice == 3 {
            // int → float implicit conversion.
            return self.source(Ty::Int, depth - 1);
        }
        let d = depth - 1;
        use Ty::*;
        let out = match t {
            Int => {
                let ops = [
                    "int.add", "int.sub", "int.mul", "int.div", "int.rem", "int.min", "int.max",
                ];
                match self.pick(4) {
                    0 => {
                        let k = ops[self.pick(ops.len())];
                        self.with_inputs(k, &[("a", Int), ("b", Int)], d, Vec::new())
                    }
                    1 => {
                        let k = ["int.neg", "int.abs"][self.pick(2)];
                        self.with_inputs(k, &[("a", Int)], d, Vec::new())
                    }
                    2 => self.with_inputs(
                        "int.clamp",
                        &[("value", Int), ("min", Int), ("max", Int)],
                        d,
                        Vec::new(),
                    ),
                    _ => self.with_inputs("float.to_int", &[("a", Float)], d, Vec::new()),
                }
            }
            Float => match self.pick(8) {
                0 => {
                    let ops = [
                        "float.add",
                        "float.sub",
                        "float.mul",
                        "float.div",
                        "float.min",
                        "float.max",
                    ];
                    let k = ops[self.pick(ops.len())];
                    self.with_inputs(k, &[("a", Float), ("b", Float)], d, Vec::new())
                }
                1 => {
                    let ops = [
                        "float.neg",
                        "float.abs",
                        "float.sqrt",
                        "float.sin",
                        "float.cos",
                        "float.floor",
                    ];
                    let k = ops[self.pick(ops.len())];
                    self.with_inputs(k, &[("a", Float)], d, Vec::new())
                }
                2 => {
                    let k = ["float.clamp", "float.lerp"][self.pick(2)];
                    let pins: &[(&str, Ty)] = if k == "float.clamp" {
                        &[("value", Float), ("min", Float), ("max", Float)]
                    } else {
                        &[("a", Float), ("b", Float), ("t", Float)]
                    };
                    self.with_inputs(k, pins, d, Vec::new())
                }
                3 => self.with_inputs("int.to_float", &[("a", Int)], d, Vec::new()),
                4 => {
                    let e = EXPRS[self.pick(EXPRS.len())];
                    let pins: &[(&str, Ty)] = if e.contains('b') && e.contains('a') {
                        &[("a", Float), ("b", Float)]
                    } else {
                        &[("a", Float)]
                    };
                    self.with_inputs(&format!("expr \"{e}\""), pins, d, Vec::new())
                }
                5 => match self.pick(3) {
                    0 => self.with_inputs("vec3.length", &[("v", Vec3)], d, Vec::new()),
                    1 => self.with_inputs("vec3.dot", &[("a", Vec3), ("b", Vec3)], d, Vec::new()),
                    _ => {
                        let n = self.with_inputs("vec3.break", &[("v", Vec3)], d, Vec::new());
                        let pin = ["x", "y", "z"][self.pick(3)];
                        let out = format!("{n}.{pin}");
                        self.pool.push((out.clone(), Float));
                        return Some(out);
                    }
                },
                6 => {
                    let k = ["anim.get_param", "anim.curve"][self.pick(2)];
                    let name = ["\"speed\"", "\"fatigue\"", "\"\""][self.pick(3)].to_string();
                    let n = self.node(k, &[("name".into(), name)]);
                    let out = format!("{n}.value");
                    self.pool.push((out.clone(), Float));
                    return Some(out);
                }
                _ => self.with_inputs("float.mul", &[("a", Float), ("b", Float)], d, Vec::new()),
            },
            Bool => match self.pick(4) {
                0 => {
                    let ops = ["int.eq", "int.ne", "int.lt", "int.le", "int.gt", "int.ge"];
                    let k = ops[self.pick(ops.len())];
                    self.with_inputs(k, &[("a", Int), ("b", Int)], d, Vec::new())
                }
                1 => {
                    let ops = ["float.lt", "float.le", "float.gt", "float.ge"];
                    let k = ops[self.pick(ops.len())];
                    self.with_inputs(k, &[("a", Float), ("b", Float)], d, Vec::new())
                }
                2 => {
                    let ops = ["bool.and", "bool.or", "bool.xor", "bool.not", "string.eq"];
                    let k = ops[self.pick(ops.len())];
                    match k {
                        "bool.not" => self.with_inputs(k, &[("a", Bool)], d, Vec::new()),
                        "string.eq" => {
                            self.with_inputs(k, &[("a", Str), ("b", Str)], d, Vec::new())
                        }
                        _ => self.with_inputs(k, &[("a", Bool), ("b", Bool)], d, Vec::new()),
                    }
                }
                _ => self.with_inputs("bool.not", &[("a", Bool)], d, Vec::new()),
            },
            Vec3 => match self.pick(3) {
                0 => self.with_inputs(
                    "vec3.make",
                    &[("x", Float), ("y", Float), ("z", Float)],
                    d,
                    Vec::new(),
                ),
                1 => {
                    let k = ["vec3.add", "vec3.sub"][self.pick(2)];
                    self.with_inputs(k, &[("a", Vec3), ("b", Vec3)], d, Vec::new())
                }
                _ => self.with_inputs("vec3.scale", &[("v", Vec3), ("s", Float)], d, Vec::new()),
            },
            Str => match self.pick(4) {
                0 => self.with_inputs("string.concat", &[("a", Str), ("b", Str)], d, Vec::new()),
                1 => self.with_inputs("string.from_int", &[("a", Int)], d, Vec::new()),
                2 => self.with_inputs("string.from_float", &[("a", Float)], d, Vec::new()),
                _ => {
                    let n = self.node("anim.current_state", &[]);
                    let out = format!("{n}.state");
                    self.pool.push((out.clone(), Str));
                    return Some(out);
                }
            },
            Ent => self.node("entity.self", &[]),
        };
        let out = format!("{out}.out");
        self.pool.push((out.clone(), t));
        Some(out)
    }

    /// A chain of statements; returns the exec input of its first statement, if any.
    fn chain(&mut self, depth: u32) -> Option<String> {
        let len = self.pick(5) + usize::from(depth == 3);
        let mut entry: Option<String> = None;
        let mut prev: Option<String> = None;
        for _ in 0..len {
            if self.left == 0 {
                break;
            }
            let (input, next) = self.statement(depth);
            if let Some(p) = &prev {
                self.link(p, &input);
            }
            if entry.is_none() {
                entry = Some(input);
            }
            match next {
                Some(n) => prev = Some(n),
                None => return entry,
            }
        }
        entry
    }

    /// Chains for sibling outputs in order; each later one may merge into statements of the
    /// earlier ones (see `siblings`).
    fn subs(&mut self, outs: &[String], depth: u32) {
        let saved = self.siblings.len();
        for o in outs {
            let mark = self.current.len();
            self.sub(o.clone(), depth);
            let done: Vec<String> = self.current[mark..].to_vec();
            self.siblings.extend(done);
        }
        self.siblings.truncate(saved);
    }

    fn sub(&mut self, from: String, depth: u32) {
        if depth > 0
            && let Some(e) = self.chain(depth - 1)
        {
            self.link(&from, &e);
        }
    }

    /// One exec statement: (its exec input, the output the chain continues from, if any).
    fn statement(&mut self, depth: u32) -> (String, Option<String>) {
        use Ty::*;
        let d = 3;
        let (input, next) = match self.pick(13) {
            0 | 1 => {
                let vi = self.pick(self.vars.len());
                let (v, t) = self.vars[vi].clone();
                // The node's own stored `value` output may feed its input.
                let name = self.fresh();
                self.pool.push((format!("{name}.value"), t));
                let n = self.with_inputs_named(
                    name,
                    &format!("var.set {v}"),
                    &[("value", t)],
                    d,
                    Vec::new(),
                );
                (format!("{n}.exec"), Some(format!("{n}.then")))
            }
            2 => {
                let n = self.with_inputs("debug.log", &[("message", Str)], d, Vec::new());
                (format!("{n}.exec"), Some(format!("{n}.then")))
            }
            3 => {
                let n = self.with_inputs("flow.branch", &[("condition", Bool)], d, Vec::new());
                self.subs(&[format!("{n}.true"), format!("{n}.false")], depth);
                (format!("{n}.exec"), None)
            }
            4 => {
                let count = 1 + self.pick(3);
                let n = self.node("flow.sequence", &[("count".into(), count.to_string())]);
                let outs: Vec<String> = (0..count).map(|i| format!("{n}.then_{i}")).collect();
                self.subs(&outs, depth);
                (format!("{n}.exec"), None)
            }
            5 => {
                let first = ["0", "1", "-1", "2"][self.pick(4)].to_string();
                let mut args = vec![("first".to_string(), first)];
                let mut linked = Vec::new();
                if self.pick(2) == 0 {
                    args.push(("last".into(), ["2", "0", "-1", "1"][self.pick(4)].into()));
                } else {
                    let c = self.with_inputs(
                        "int.clamp",
                        &[("value", Int)],
                        d,
                        vec![("min".into(), "-1".into()), ("max".into(), "2".into())],
                    );
                    linked.push((format!("{c}.out"), "last".to_string()));
                }
                let n = self.node("flow.for", &args);
                self.finish(&n, linked);
                self.pool.push((format!("{n}.index"), Int));
                self.in_loop += 1;
                self.sub(format!("{n}.body"), depth);
                self.in_loop -= 1;
                (format!("{n}.exec"), Some(format!("{n}.completed")))
            }
            6 => {
                let n = self.node("flow.do_once", &[]);
                self.current_controls.push(format!("{n}.reset"));
                (format!("{n}.exec"), Some(format!("{n}.then")))
            }
            7 => {
                let n = self.node("flow.flip_flop", &[]);
                self.pool.push((format!("{n}.is_a"), Bool));
                self.sub(format!("{n}.a"), depth);
                (format!("{n}.exec"), Some(format!("{n}.b")))
            }
            8 => {
                let open = ["true", "false"][self.pick(2)].to_string();
                let n = self.node("flow.gate", &[("start_open".into(), open)]);
                for c in ["open", "close", "toggle"] {
                    self.current_controls.push(format!("{n}.{c}"));
                }
                (format!("{n}.enter"), Some(format!("{n}.exit")))
            }
            9 => {
                let n = match self.pick(7) {
                    6 => self.with_inputs("anim.set_speed", &[("speed", Float)], d, Vec::new()),
                    5 => self.with_inputs(
                        "anim.play",
                        &[("clip", Str), ("at", Float)],
                        d,
                        Vec::new(),
                    ),
                    0 => {
                        let n =
                            self.with_inputs("anim.set_state", &[("state", Str)], d, Vec::new());
                        self.pool.push((format!("{n}.ok"), Bool));
                        n
                    }
                    1 => self.with_inputs(
                        "anim.set_param",
                        &[("value", Float)],
                        d,
                        vec![("name".into(), "\"speed\"".into())],
                    ),
                    2 => self.with_inputs(
                        "anim.play_on_layer",
                        &[("layer", Str), ("clip", Str)],
                        d,
                        Vec::new(),
                    ),
                    3 => self.with_inputs("anim.stop_layer", &[("layer", Str)], d, Vec::new()),
                    _ => self.with_inputs(
                        "anim.set_layer_weight",
                        &[("layer", Str), ("weight", Float)],
                        d,
                        Vec::new(),
                    ),
                };
                (format!("{n}.exec"), Some(format!("{n}.then")))
            }
            10 => {
                let mut pins = vec![("target", Ent)];
                pins.extend(self.ping.iter().copied());
                let n = self.with_inputs("event.send custom::ping", &pins, d, Vec::new());
                (format!("{n}.exec"), Some(format!("{n}.then")))
            }
            11 if self.in_loop == 0 || self.loop_delays => {
                let secs = ["0.5", "0", "2", "-1"][self.pick(4)].to_string();
                let n = if self.pick(2) == 0 {
                    self.node("flow.delay", &[("seconds".into(), secs)])
                } else {
                    self.with_inputs("flow.delay", &[("seconds", Float)], d, Vec::new())
                };
                (format!("{n}.exec"), Some(format!("{n}.then")))
            }
            _ => {
                // Merge into an earlier handler's statement, a statement of an earlier sibling
                // output in this handler, or a terminal control pin.
                let (earlier, siblings): (&[String], &[String]) =
                    if self.in_loop == 0 || self.loop_delays {
                        (&self.earlier, &self.siblings)
                    } else {
                        (&[], &[])
                    };
                let targets: Vec<String> = earlier
                    .iter()
                    .chain(siblings)
                    .chain(&self.controls)
                    .cloned()
                    .collect();
                if targets.is_empty() {
                    let n = self.node("debug.log", &[("message".into(), "\"m\"".into())]);
                    (format!("{n}.exec"), Some(format!("{n}.then")))
                } else {
                    let t = targets[self.pick(targets.len())].clone();
                    let n = self.node("debug.log", &[("message".into(), "\"jump\"".into())]);
                    self.link(&format!("{n}.then"), &t);
                    (format!("{n}.exec"), None)
                }
            }
        };
        self.current.push(input.clone());
        (input, next)
    }
}

/// A random well-typed graph (`.bpg` text) from a choice stream, with no `flow.delay` inside a
/// `flow.for` body.
pub fn graph(choices: &[u16]) -> String {
    graph_with(choices, false)
}

/// A random well-typed graph; `loop_delays` allows `flow.delay` inside `flow.for` bodies (where
/// a re-entered loop during the delay exposes the per-instance loop counter, see
/// `tests/differential.rs`).
pub fn graph_with(choices: &[u16], loop_delays: bool) -> String {
    let mut g = Gen {
        c: choices,
        pos: 0,
        vars: Vec::new(),
        nodes: Vec::new(),
        links: Vec::new(),
        pool: Vec::new(),
        controls: Vec::new(),
        current_controls: Vec::new(),
        earlier: Vec::new(),
        current: Vec::new(),
        siblings: Vec::new(),
        left: 160,
        next: 0,
        in_loop: 0,
        loop_delays,
        ping: Vec::new(),
    };
    let mut out = String::from("graph random\n\n");
    for t in TYS {
        let k = 1 + g.pick(2);
        for i in 0..k {
            let name = format!("{}{i}", t.name());
            let lit = g.lit(t);
            out.push_str(&format!("var {name}: {} = {lit}\n", t.name()));
            g.vars.push((name, t));
        }
    }
    // `custom::ping`'s payload: none (choice 0), or up to three typed fields the handler reads
    // and every `event.send custom::ping` gives.
    const FIELDS: [&str; 3] = ["f0", "f1", "f2"];
    for f in FIELDS.iter().take(g.pick(4)) {
        let t = TYS[g.pick(TYS.len())];
        g.ping.push((f, t));
    }
    if !g.ping.is_empty() {
        let fields: Vec<String> = g
            .ping
            .iter()
            .map(|(f, t)| format!("{f}: {}", t.name()))
            .collect();
        out.push_str(&format!(
            "\nevent custom::ping {{ {} }}\n",
            fields.join(", ")
        ));
    }
    let mut ping_outs = vec![("sender", Ty::Ent)];
    ping_outs.extend(g.ping.iter().copied());
    for (ev, outs) in [
        ("begin_play", &[][..]),
        ("tick", &[("dt", Ty::Float)][..]),
        ("custom::ping", &ping_outs[..]),
    ] {
        let n = g.node(&format!("event {ev}"), &[]);
        for (pin, t) in outs {
            g.pool.push((format!("{n}.{pin}"), *t));
        }
        if let Some(e) = g.chain(3) {
            g.link(&format!("{n}.then"), &e);
        }
        let cur = std::mem::take(&mut g.current);
        g.earlier.extend(cur);
        let cur = std::mem::take(&mut g.current_controls);
        g.controls.extend(cur);
    }
    out.push('\n');
    for n in &g.nodes {
        out.push_str(n);
        out.push('\n');
    }
    out.push('\n');
    for l in &g.links {
        out.push_str(l);
        out.push('\n');
    }
    out
}
