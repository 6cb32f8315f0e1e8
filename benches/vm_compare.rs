//! VM speed side by side in one criterion run: the same footstep-counting handler and the same
//! arithmetic loop as a Sinew graph (compiled from `.bpg` text, run by `Vm::run_handler`), as a
//! rhai script, as Lua 5.4 (mlua, vendored), as WebAssembly text (compiled by `wat`, run by the
//! `wasmi` interpreter) and as native Rust. Every implementation is checked to compute the same
//! result before anything is timed.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use mlua::{Function, Lua};
use rhai::{CallFnOptions, Engine, OptimizationLevel, Scope};
use sinew::bytecode::{DEFAULT_BUDGET, Value, VerifiedModule};
use sinew::catalog::Catalog;
use sinew::diag::SourceFile;
use sinew::vm::{InstanceState, NullHost, Outcome, Vm};

/// Footstep handler: count the step; every fourth step is loud and is remembered.
const FOOTSTEP_BPG: &str = include_str!("../tests/fixtures/graphs/vm/footsteps.bpg");

/// Arithmetic loop: `sum = 0; for i in 0..=999 { sum = sum + i }`, the sum kept in a variable.
const SUM_BPG: &str = include_str!("../tests/fixtures/graphs/vm/sum_loop.bpg");

const FOOTSTEP_RHAI: &str = r#"
fn on_footstep() {
    steps += 1;
    if steps % 4 == 0 {
        last_loud_step = steps;
    }
}
"#;

const SUM_RHAI: &str = r#"
fn run() {
    sum = 0;
    for i in 0..1000 {
        sum += i;
    }
}
"#;

/// State in upvalues (the fastest Lua form); returns the handler and a state reader.
const FOOTSTEP_LUA_UPVALUES: &str = r#"
local steps, last_loud_step = 0, 0
local function on_footstep()
    steps = steps + 1
    if steps % 4 == 0 then
        last_loud_step = steps
    end
end
return on_footstep, function() return steps, last_loud_step end
"#;

/// State in globals (the "script variables" form).
const FOOTSTEP_LUA_GLOBALS: &str = r#"
steps, last_loud_step = 0, 0
return function()
    steps = steps + 1
    if steps % 4 == 0 then
        last_loud_step = steps
    end
end
"#;

const SUM_LUA: &str = r#"
local sum = 0
local function run()
    sum = 0
    for i = 0, 999 do
        sum = sum + i
    end
end
return run, function() return sum end
"#;

/// State in mutable globals (a wasm module's own variables, as a graph's are its instance's).
const FOOTSTEP_WAT: &str = r#"
(module
  (global $steps (export "steps") (mut i64) (i64.const 0))
  (global $last_loud_step (export "last_loud_step") (mut i64) (i64.const 0))
  (func (export "on_footstep")
    (global.set $steps (i64.add (global.get $steps) (i64.const 1)))
    (if (i64.eqz (i64.rem_s (global.get $steps) (i64.const 4)))
      (then (global.set $last_loud_step (global.get $steps))))))
"#;

/// The sum in a global written every iteration, the counter in a local (as Lua's `for`).
const SUM_WAT: &str = r#"
(module
  (global $sum (export "sum") (mut i64) (i64.const 0))
  (func (export "run") (local $i i64)
    (global.set $sum (i64.const 0))
    (loop $next
      (global.set $sum (i64.add (global.get $sum) (local.get $i)))
      (local.set $i (i64.add (local.get $i) (i64.const 1)))
      (br_if $next (i64.le_s (local.get $i) (i64.const 999))))))
"#;

/// Events per correctness check: ends on a loud step after a quiet one.
const CHECK_EVENTS: i64 = 1002;
const CHECK_STEPS: i64 = 1002;
const CHECK_LAST_LOUD: i64 = 1000;
const CHECK_SUM: i64 = 499_500;

// ---------------------------------------------------------------------------------------------
// Sinew

struct Sinew {
    module: VerifiedModule,
    handler: usize,
    state: InstanceState,
    payload: Vec<Value>,
    vm: Vm,
}

impl Sinew {
    fn new(name: &str, text: &str, event: &str) -> Sinew {
        let src = SourceFile::new(name, text);
        let compiled = sinew::compile::compile(&src, &Catalog::from_entries([]));
        let module = compiled.module.unwrap_or_else(|| {
            panic!(
                "{name} does not compile: {:#?}",
                compiled.checked.diagnostics
            )
        });
        let handler = module.handler_index(event).expect("handler exists");
        if std::env::var_os("VM_COMPARE_DISASM").is_some() {
            eprintln!("{}", sinew::bytecode::disasm(&module));
        }
        let state = InstanceState::new(&module, 1);
        Sinew {
            module,
            handler,
            state,
            payload: vec![Value::Entity(None)],
            vm: Vm::new(),
        }
    }

    #[inline]
    fn run(&mut self) {
        let o = self.vm.run_handler(
            &self.module,
            &mut self.state,
            self.handler,
            &self.payload,
            &mut NullHost,
            DEFAULT_BUDGET,
        );
        black_box(matches!(o, Outcome::Completed));
    }

    fn var(&self, name: &str) -> i64 {
        let i = self
            .module
            .module()
            .vars
            .iter()
            .position(|v| v.name == name)
            .expect("variable exists");
        match self.state.vars()[i] {
            Value::Int(x) => x,
            ref v => panic!("{name} is {v:?}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// rhai

struct Rhai {
    engine: Engine,
    ast: rhai::AST,
    scope: Scope<'static>,
    func: &'static str,
}

impl Rhai {
    fn new(script: &str, func: &'static str, vars: &[&'static str]) -> Rhai {
        let mut engine = Engine::new();
        engine.set_optimization_level(OptimizationLevel::Full);
        let ast = engine.compile(script).expect("rhai script compiles");
        let mut scope = Scope::new();
        for v in vars {
            scope.push(*v, 0_i64);
        }
        Rhai {
            engine,
            ast,
            scope,
            func,
        }
    }

    #[inline]
    fn run(&mut self) {
        // The script function reads and writes the persistent scope's variables.
        let opts = CallFnOptions::new().eval_ast(false).rewind_scope(false);
        let r: () = self
            .engine
            .call_fn_with_options(opts, &mut self.scope, &self.ast, self.func, ())
            .expect("rhai call");
        black_box(r);
    }

    fn var(&self, name: &str) -> i64 {
        self.scope.get_value::<i64>(name).expect("rhai variable")
    }
}

// ---------------------------------------------------------------------------------------------
// Lua

struct LuaSide {
    _lua: Lua,
    func: Function,
    read: Option<Function>,
}

impl LuaSide {
    fn new(script: &str) -> LuaSide {
        let lua = Lua::new();
        let (func, read): (Function, Option<Function>) =
            lua.load(script).eval().expect("lua chunk loads");
        LuaSide {
            _lua: lua,
            func,
            read,
        }
    }

    #[inline]
    fn run(&self) {
        let r: () = self.func.call(()).expect("lua call");
        black_box(r);
    }

    fn state<R: mlua::FromLuaMulti>(&self) -> R {
        match &self.read {
            Some(f) => f.call(()).expect("lua state"),
            None => panic!("no reader"),
        }
    }

    fn global(&self, name: &str) -> i64 {
        self._lua.globals().get(name).expect("lua global")
    }
}

// ---------------------------------------------------------------------------------------------
// wasmi

struct Wasmi {
    store: wasmi::Store<()>,
    instance: wasmi::Instance,
    func: wasmi::TypedFunc<(), ()>,
}

impl Wasmi {
    fn new(text: &str, func: &str) -> Wasmi {
        let bytes = wat::parse_str(text).expect("wat parses");
        let engine = wasmi::Engine::default();
        let module = wasmi::Module::new(&engine, &bytes).expect("wasm module validates");
        let mut store = wasmi::Store::new(&engine, ());
        let instance = wasmi::Linker::<()>::new(&engine)
            .instantiate_and_start(&mut store, &module)
            .expect("wasm module instantiates");
        let func = instance
            .get_typed_func::<(), ()>(&store, func)
            .expect("exported function");
        Wasmi {
            store,
            instance,
            func,
        }
    }

    #[inline]
    fn run(&mut self) {
        let r: () = self.func.call(&mut self.store, ()).expect("wasm call");
        black_box(r);
    }

    fn global(&self, name: &str) -> i64 {
        self.instance
            .get_global(&self.store, name)
            .and_then(|g| g.get(&self.store).i64())
            .expect("wasm i64 global")
    }
}

// ---------------------------------------------------------------------------------------------
// Native

#[derive(Default)]
struct NativeFootsteps {
    steps: i64,
    last_loud_step: i64,
}

impl NativeFootsteps {
    #[inline(never)]
    fn on_footstep(&mut self) {
        self.steps = self.steps.wrapping_add(1);
        if self.steps % 4 == 0 {
            self.last_loud_step = self.steps;
        }
    }
}

#[derive(Default)]
struct NativeSum {
    sum: i64,
}

impl NativeSum {
    #[inline(never)]
    fn run(&mut self) {
        self.sum = 0;
        let last = black_box(999_i64);
        let mut i = 0;
        while i <= last {
            // black_box keeps the loop a loop (otherwise LLVM folds it to a closed form).
            self.sum = black_box(self.sum.wrapping_add(i));
            i += 1;
        }
    }
}

// ---------------------------------------------------------------------------------------------

fn footsteps(c: &mut Criterion) {
    let mut sinew = Sinew::new("footsteps.bpg", FOOTSTEP_BPG, "custom::footstep");
    let mut rhai = Rhai::new(FOOTSTEP_RHAI, "on_footstep", &["steps", "last_loud_step"]);
    let lua = LuaSide::new(FOOTSTEP_LUA_UPVALUES);
    let lua_g = LuaSide::new(FOOTSTEP_LUA_GLOBALS);
    let mut wasm = Wasmi::new(FOOTSTEP_WAT, "on_footstep");
    let mut native = NativeFootsteps::default();
    for _ in 0..CHECK_EVENTS {
        sinew.run();
        rhai.run();
        lua.run();
        lua_g.run();
        wasm.run();
        native.on_footstep();
    }
    let want = (CHECK_STEPS, CHECK_LAST_LOUD);
    assert_eq!(
        (sinew.var("steps"), sinew.var("last_loud_step")),
        want,
        "sinew"
    );
    assert_eq!(
        (rhai.var("steps"), rhai.var("last_loud_step")),
        want,
        "rhai"
    );
    assert_eq!(lua.state::<(i64, i64)>(), want, "lua upvalues");
    assert_eq!(
        (lua_g.global("steps"), lua_g.global("last_loud_step")),
        want,
        "lua globals"
    );
    assert_eq!(
        (wasm.global("steps"), wasm.global("last_loud_step")),
        want,
        "wasmi"
    );
    assert_eq!((native.steps, native.last_loud_step), want, "native");

    let mut g = c.benchmark_group("vm_compare/footstep");
    g.bench_function("sinew", |b| b.iter(|| sinew.run()));
    g.bench_function("rhai", |b| b.iter(|| rhai.run()));
    g.bench_function("lua54_upvalues", |b| b.iter(|| lua.run()));
    g.bench_function("lua54_globals", |b| b.iter(|| lua_g.run()));
    g.bench_function("wasmi", |b| b.iter(|| wasm.run()));
    g.bench_function("native", |b| {
        b.iter(|| black_box(&mut native).on_footstep())
    });
    g.finish();
}

fn sum_loop(c: &mut Criterion) {
    let mut sinew = Sinew::new("sum_loop.bpg", SUM_BPG, "custom::run");
    let mut rhai = Rhai::new(SUM_RHAI, "run", &["sum"]);
    let lua = LuaSide::new(SUM_LUA);
    let mut wasm = Wasmi::new(SUM_WAT, "run");
    let mut native = NativeSum::default();
    for _ in 0..3 {
        sinew.run();
        rhai.run();
        lua.run();
        wasm.run();
        native.run();
    }
    assert_eq!(sinew.var("sum"), CHECK_SUM, "sinew");
    assert_eq!(rhai.var("sum"), CHECK_SUM, "rhai");
    assert_eq!(lua.state::<i64>(), CHECK_SUM, "lua");
    assert_eq!(wasm.global("sum"), CHECK_SUM, "wasmi");
    assert_eq!(native.sum, CHECK_SUM, "native");

    let mut g = c.benchmark_group("vm_compare/sum_0_999");
    g.bench_function("sinew", |b| b.iter(|| sinew.run()));
    g.bench_function("rhai", |b| b.iter(|| rhai.run()));
    g.bench_function("lua54", |b| b.iter(|| lua.run()));
    g.bench_function("wasmi", |b| b.iter(|| wasm.run()));
    g.bench_function("native", |b| b.iter(|| black_box(&mut native).run()));
    g.finish();
}

criterion_group!(benches, footsteps, sum_loop);
criterion_main!(benches);
