//! Bytecode and VM tests: builder, encode/decode, verifier rejections, every op's semantics,
//! budget, delays, errors keeping state, disassembly snapshot and mutation properties.

use sinew::anim::AnimCommand;
use std::sync::Arc;

use proptest::prelude::*;
use sinew::bytecode::*;
use sinew::crossing::Edge;
use sinew::vm::*;

#[path = "support/sum_loop.rs"]
mod sum_loop_module;
#[path = "support/bytecode_exercise.rs"]
mod support;
use sum_loop_module::sum_loop;
use support::exercise;

// ---------------------------------------------------------------- helpers

/// A binary op constructor: `(dst, a, b) -> Instr`.
type Op2<D, A> = fn(Reg<D>, Reg<A>, Reg<A>) -> Instr;
/// A ternary op constructor: `(dst, a, b, c) -> Instr`.
type Op3<D, A> = fn(Reg<D>, Reg<A>, Reg<A>, Reg<A>) -> Instr;
/// Emits code from two vec3 registers, returning a result register.
type VecEmit<'a> = &'a dyn Fn(&mut HandlerBuilder, Reg<V>, Reg<V>) -> Reg<V>;

/// Records every host call as a line of text.
#[derive(Default)]
struct TestHost {
    calls: Vec<String>,
}

impl Host for TestHost {
    fn self_entity(&mut self) -> u64 {
        42
    }
    fn log(&mut self, message: &str) {
        self.calls.push(format!("log {message}"));
    }
    fn command(&mut self, c: AnimCommand) -> bool {
        self.calls.push(match &c {
            AnimCommand::SetState(state) => format!("set_state {state}"),
            AnimCommand::SetParam(name, value) => format!("set_param {name} {value}"),
            AnimCommand::PlayOnLayer(layer, clip) => format!("play_on_layer {layer} {clip}"),
            AnimCommand::StopLayer(layer) => format!("stop_layer {layer}"),
            AnimCommand::SetLayerWeight(layer, weight) => {
                format!("set_layer_weight {layer} {weight}")
            }
            other => format!("{other:?}"),
        });
        match &c {
            AnimCommand::SetState(state) => &**state == "run" || &**state == "idle",
            _ => true,
        }
    }
    fn get_param(&mut self, name: &str) -> f64 {
        self.calls.push(format!("get_param {name}"));
        if name == "speed" { 2.5 } else { 0.0 }
    }
    fn current_state(&mut self) -> Arc<str> {
        self.calls.push("current_state".into());
        Arc::from("idle")
    }
    fn curve(&mut self, name: &str) -> f64 {
        self.calls.push(format!("curve {name}"));
        0.75
    }
    fn send(&mut self, event: &str, target: Option<u64>, payload: &[Value]) {
        self.calls
            .push(format!("send {event} {target:?} {payload:?}"));
    }
}

fn var_set(ty: Type, var: u16, src: u16) -> Instr {
    match ty {
        Type::Bool => Instr::VarSetB {
            var: Var::new(var),
            src: Reg::new(src),
        },
        Type::Int => Instr::VarSetI {
            var: Var::new(var),
            src: Reg::new(src),
        },
        Type::Float => Instr::VarSetF {
            var: Var::new(var),
            src: Reg::new(src),
        },
        Type::Vec3 => Instr::VarSetV {
            var: Var::new(var),
            src: Reg::new(src),
        },
        Type::Str => Instr::VarSetS {
            var: Var::new(var),
            src: Reg::new(src),
        },
        Type::Entity => Instr::VarSetE {
            var: Var::new(var),
            src: Reg::new(src),
        },
    }
}

/// Builds a one-handler (`tick`) module whose code `emit` writes; the register it returns is
/// stored into variable `out`. Runs it with `TestHost`; returns `out` or the runtime error.
fn check<T: TypeMarker>(
    emit: impl FnOnce(&mut HandlerBuilder) -> Reg<T>,
) -> Result<Value, RuntimeError> {
    let mut mb = ModuleBuilder::new("t");
    let out = mb.var::<T>("out", Const::default_of(T::TYPE));
    let mut h = mb.handler("tick", &[]);
    h.at_node("n");
    let r = emit(&mut h);
    h.emit(var_set(T::TYPE, out.0, r.0));
    h.emit(Instr::Ret {});
    h.finish().expect("labels bound");
    let vm = verify(mb.finish()).expect("verifies");
    let mut st = InstanceState::new(&vm, 7);
    match Vm::new().run_handler(
        &vm,
        &mut st,
        0,
        &[],
        &mut TestHost::default(),
        DEFAULT_BUDGET,
    ) {
        Outcome::Completed => Ok(st.vars()[0].clone()),
        Outcome::Error(e) => Err(e),
        o => panic!("unexpected outcome {o:?}"),
    }
}

fn int_reg(h: &mut HandlerBuilder, v: i64) -> Reg<I> {
    let r = h.reg::<I>();
    let c = h.module().const_int(v);
    h.emit(Instr::LdcI { dst: r, c });
    r
}

fn float_reg(h: &mut HandlerBuilder, v: f64) -> Reg<F> {
    let r = h.reg::<F>();
    let c = h.module().const_float(v);
    h.emit(Instr::LdcF { dst: r, c });
    r
}

fn bool_reg(h: &mut HandlerBuilder, v: bool) -> Reg<B> {
    let r = h.reg::<B>();
    let c = h.module().const_bool(v);
    h.emit(Instr::LdcB { dst: r, c });
    r
}

fn str_reg(h: &mut HandlerBuilder, v: &str) -> Reg<S> {
    let r = h.reg::<S>();
    let c = h.module().const_str(v);
    h.emit(Instr::LdcS { dst: r, c });
    r
}

fn vec_reg(h: &mut HandlerBuilder, v: [f32; 3]) -> Reg<V> {
    let r = h.reg::<V>();
    let c = h.module().const_vec3(v);
    h.emit(Instr::LdcV { dst: r, c });
    r
}

/// Binary op on two int constants.
fn int2<T: TypeMarker>(
    op: fn(Reg<T>, Reg<I>, Reg<I>) -> Instr,
    a: i64,
    b: i64,
) -> Result<Value, RuntimeError> {
    check::<T>(|h| {
        let (ra, rb) = (int_reg(h, a), int_reg(h, b));
        let d = h.reg::<T>();
        h.emit(op(d, ra, rb));
        d
    })
}

/// Binary op on two float constants.
fn float2<T: TypeMarker>(op: fn(Reg<T>, Reg<F>, Reg<F>) -> Instr, a: f64, b: f64) -> Value {
    check::<T>(|h| {
        let (ra, rb) = (float_reg(h, a), float_reg(h, b));
        let d = h.reg::<T>();
        h.emit(op(d, ra, rb));
        d
    })
    .expect("float ops never fail")
}

/// Unary float op.
fn float1<T: TypeMarker>(op: fn(Reg<T>, Reg<F>) -> Instr, a: f64) -> Value {
    check::<T>(|h| {
        let ra = float_reg(h, a);
        let d = h.reg::<T>();
        h.emit(op(d, ra));
        d
    })
    .expect("float ops never fail")
}

fn f(v: Value) -> f64 {
    match v {
        Value::Float(x) => x,
        v => panic!("not a float: {v:?}"),
    }
}

/// A module exercising most features, used for round-trips, snapshots and mutations.
fn sample() -> Module {
    let mut mb = ModuleBuilder::new("hero_footsteps");
    let steps = mb.var::<I>("steps", Const::Int(0));
    let _surface = mb.var::<S>("last_surface", Const::Str(String::new()));
    let time_slot = mb.slot::<F>("step.time", Const::Float(0.0));
    let once = mb.slot::<B>("once.done", Const::Bool(false));
    let wait_node = mb.node("wait");
    let d = mb.delay(wait_node);

    let mut h = mb.handler("animseq::run.footstep_l", &[Type::Entity, Type::Float]);
    h.at_node("step");
    let t = h.reg::<F>();
    let p = h.param::<F>(1);
    h.emit(Instr::ParamF { dst: t, p });
    h.emit(Instr::SlotSetF {
        slot: time_slot,
        src: t,
    });
    h.at_node("get");
    let n = h.reg::<I>();
    h.emit(Instr::VarGetI { dst: n, var: steps });
    h.at_node("inc");
    let one = int_reg(h.borrow(), 1);
    h.emit(Instr::IntAdd {
        dst: n,
        a: n,
        b: one,
    });
    h.at_node("set");
    h.emit(Instr::VarSetI { var: steps, src: n });
    h.at_node("say");
    let msg = str_reg(&mut h, "step");
    h.emit(Instr::Log { message: msg });
    h.at_node("step");
    h.emit(Instr::Ret {});
    h.finish().unwrap();

    let mut h = mb.handler("begin_play", &[]);
    h.at_node("once");
    let done = h.reg::<B>();
    let skip = h.label();
    h.emit(Instr::SlotGetB {
        dst: done,
        slot: once,
    });
    h.emit(Instr::JmpIf {
        cond: done,
        target: skip.target(),
    });
    let tr = bool_reg(&mut h, true);
    h.emit(Instr::SlotSetB {
        slot: once,
        src: tr,
    });
    h.at_node("wait");
    let secs = float_reg(&mut h, 0.5);
    h.emit(Instr::Delay {
        delay: d,
        seconds: secs,
        busy: skip.target(),
    });
    h.at_node("hello");
    let m = str_reg(&mut h, "hello");
    h.emit(Instr::Log { message: m });
    h.bind(skip);
    h.at_node("once");
    h.emit(Instr::Ret {});
    h.finish().unwrap();
    mb.finish()
}

trait Borrow {
    fn borrow(&mut self) -> &mut Self;
}
impl Borrow for HandlerBuilder<'_> {
    fn borrow(&mut self) -> &mut Self {
        self
    }
}

// ---------------------------------------------------------------- int

#[test]
fn int_arithmetic() {
    let add = |d, a, b| Instr::IntAdd { dst: d, a, b };
    let sub = |d, a, b| Instr::IntSub { dst: d, a, b };
    let mul = |d, a, b| Instr::IntMul { dst: d, a, b };
    let div = |d, a, b| Instr::IntDiv { dst: d, a, b };
    let rem = |d, a, b| Instr::IntRem { dst: d, a, b };
    let min = |d, a, b| Instr::IntMin { dst: d, a, b };
    let max = |d, a, b| Instr::IntMax { dst: d, a, b };
    assert_eq!(int2(add, 2, 3), Ok(Value::Int(5)));
    assert_eq!(int2(add, i64::MAX, 1), Ok(Value::Int(i64::MIN)));
    assert_eq!(int2(sub, 2, 5), Ok(Value::Int(-3)));
    assert_eq!(int2(mul, -4, 6), Ok(Value::Int(-24)));
    assert_eq!(int2(div, 7, 2), Ok(Value::Int(3)));
    assert_eq!(int2(div, -7, 2), Ok(Value::Int(-3)));
    assert_eq!(int2(div, i64::MIN, -1), Ok(Value::Int(i64::MIN)));
    assert_eq!(int2(rem, -7, 2), Ok(Value::Int(-1)));
    assert_eq!(int2(rem, i64::MIN, -1), Ok(Value::Int(0)));
    assert_eq!(int2(min, 3, -9), Ok(Value::Int(-9)));
    assert_eq!(int2(max, 3, -9), Ok(Value::Int(3)));
}

#[test]
fn int_division_by_zero_is_an_error_naming_the_node() {
    let e = int2(|d, a, b| Instr::IntDiv { dst: d, a, b }, 1, 0).unwrap_err();
    assert_eq!(e.node, "n");
    assert!(e.message.contains("division by zero"), "{e}");
    assert_eq!(e.pc, 2);
    let e = int2(|d, a, b| Instr::IntRem { dst: d, a, b }, 1, 0).unwrap_err();
    assert!(e.message.contains("remainder by zero"), "{e}");
}

#[test]
fn int_comparisons() {
    let cases: [(Op2<B, I>, [bool; 3]); 6] = [
        (
            |d, a, b| Instr::IntEq { dst: d, a, b },
            [false, true, false],
        ),
        (|d, a, b| Instr::IntNe { dst: d, a, b }, [true, false, true]),
        (
            |d, a, b| Instr::IntLt { dst: d, a, b },
            [true, false, false],
        ),
        (|d, a, b| Instr::IntLe { dst: d, a, b }, [true, true, false]),
        (
            |d, a, b| Instr::IntGt { dst: d, a, b },
            [false, false, true],
        ),
        (|d, a, b| Instr::IntGe { dst: d, a, b }, [false, true, true]),
    ];
    for (op, want) in cases {
        // (1, 2), (2, 2), (3, 2)
        for (k, a) in [1, 2, 3].into_iter().enumerate() {
            assert_eq!(int2(op, a, 2), Ok(Value::Bool(want[k])), "{a} vs 2");
        }
    }
}

#[test]
fn int_unary_clamp_and_conversions() {
    let un = |op: fn(Reg<I>, Reg<I>) -> Instr, a| {
        check::<I>(|h| {
            let r = int_reg(h, a);
            let d = h.reg::<I>();
            h.emit(op(d, r));
            d
        })
    };
    assert_eq!(
        un(|d, a| Instr::IntNeg { dst: d, a }, 5),
        Ok(Value::Int(-5))
    );
    assert_eq!(
        un(|d, a| Instr::IntNeg { dst: d, a }, i64::MIN),
        Ok(Value::Int(i64::MIN))
    );
    assert_eq!(
        un(|d, a| Instr::IntAbs { dst: d, a }, -5),
        Ok(Value::Int(5))
    );
    assert_eq!(
        un(|d, a| Instr::IntAbs { dst: d, a }, i64::MIN),
        Ok(Value::Int(i64::MIN))
    );
    let clamp = |v, lo, hi| {
        check::<I>(|h| {
            let (v, lo, hi) = (int_reg(h, v), int_reg(h, lo), int_reg(h, hi));
            let d = h.reg::<I>();
            h.emit(Instr::IntClamp {
                dst: d,
                value: v,
                min: lo,
                max: hi,
            });
            d
        })
    };
    assert_eq!(clamp(5, 0, 3), Ok(Value::Int(3)));
    assert_eq!(clamp(-5, 0, 3), Ok(Value::Int(0)));
    assert_eq!(clamp(2, 0, 3), Ok(Value::Int(2)));
    assert_eq!(
        clamp(2, 5, 1),
        Ok(Value::Int(1)),
        "min > max gives max, never panics"
    );
    let to_f = check::<F>(|h| {
        let r = int_reg(h, -3);
        let d = h.reg::<F>();
        h.emit(Instr::IntToFloat { dst: d, a: r });
        d
    });
    assert_eq!(to_f, Ok(Value::Float(-3.0)));
    let to_s = check::<S>(|h| {
        let r = int_reg(h, -120);
        let d = h.reg::<S>();
        h.emit(Instr::IntToString { dst: d, a: r });
        d
    });
    assert_eq!(to_s, Ok(Value::Str(Arc::from("-120"))));
}

// ---------------------------------------------------------------- float

#[test]
fn float_arithmetic_is_ieee() {
    assert_eq!(
        f(float2(
            |d, a, b| Instr::FloatAdd { dst: d, a, b },
            0.5,
            0.25
        )),
        0.75
    );
    assert_eq!(
        f(float2(|d, a, b| Instr::FloatSub { dst: d, a, b }, 0.5, 2.0)),
        -1.5
    );
    assert_eq!(
        f(float2(
            |d, a, b| Instr::FloatMul { dst: d, a, b },
            1.5,
            -2.0
        )),
        -3.0
    );
    assert_eq!(
        f(float2(|d, a, b| Instr::FloatDiv { dst: d, a, b }, 1.0, 4.0)),
        0.25
    );
    assert_eq!(
        f(float2(|d, a, b| Instr::FloatDiv { dst: d, a, b }, 1.0, 0.0)),
        f64::INFINITY
    );
    assert_eq!(
        f(float2(
            |d, a, b| Instr::FloatDiv { dst: d, a, b },
            -1.0,
            0.0
        )),
        f64::NEG_INFINITY
    );
    assert!(f(float2(|d, a, b| Instr::FloatDiv { dst: d, a, b }, 0.0, 0.0)).is_nan());
    assert_eq!(
        f(float2(|d, a, b| Instr::FloatRem { dst: d, a, b }, 7.5, 2.0)),
        1.5
    );
    assert_eq!(
        f(float2(
            |d, a, b| Instr::FloatRem { dst: d, a, b },
            -7.5,
            2.0
        )),
        -1.5
    );
    assert_eq!(
        f(float2(
            |d, a, b| Instr::FloatMin { dst: d, a, b },
            1.0,
            -2.0
        )),
        -2.0
    );
    assert_eq!(
        f(float2(
            |d, a, b| Instr::FloatMax { dst: d, a, b },
            1.0,
            -2.0
        )),
        1.0
    );
    assert_eq!(
        f(float2(
            |d, a, b| Instr::FloatMax { dst: d, a, b },
            f64::NAN,
            -2.0
        )),
        -2.0
    );
    assert_eq!(
        f(float2(
            |d, a, b| Instr::FloatPow { dst: d, a, b },
            2.0,
            10.0
        )),
        1024.0
    );
}

#[test]
fn float_unary() {
    assert_eq!(f(float1(|d, a| Instr::FloatNeg { dst: d, a }, 2.5)), -2.5);
    assert_eq!(f(float1(|d, a| Instr::FloatAbs { dst: d, a }, -2.5)), 2.5);
    assert_eq!(f(float1(|d, a| Instr::FloatSqrt { dst: d, a }, 9.0)), 3.0);
    assert!(f(float1(|d, a| Instr::FloatSqrt { dst: d, a }, -1.0)).is_nan());
    assert_eq!(f(float1(|d, a| Instr::FloatSin { dst: d, a }, 0.0)), 0.0);
    assert_eq!(f(float1(|d, a| Instr::FloatCos { dst: d, a }, 0.0)), 1.0);
    assert!(
        (f(float1(
            |d, a| Instr::FloatTan { dst: d, a },
            std::f64::consts::FRAC_PI_4
        )) - 1.0)
            .abs()
            < 1e-12
    );
    assert_eq!(
        f(float1(|d, a| Instr::FloatFloor { dst: d, a }, -1.5)),
        -2.0
    );
    assert_eq!(f(float1(|d, a| Instr::FloatCeil { dst: d, a }, -1.5)), -1.0);
}

#[test]
fn float_comparisons_are_false_with_nan() {
    let ops: [(Op2<B, F>, [bool; 3]); 4] = [
        (
            |d, a, b| Instr::FloatLt { dst: d, a, b },
            [true, false, false],
        ),
        (
            |d, a, b| Instr::FloatLe { dst: d, a, b },
            [true, true, false],
        ),
        (
            |d, a, b| Instr::FloatGt { dst: d, a, b },
            [false, false, true],
        ),
        (
            |d, a, b| Instr::FloatGe { dst: d, a, b },
            [false, true, true],
        ),
    ];
    for (op, want) in ops {
        for (k, a) in [1.0, 2.0, 3.0].into_iter().enumerate() {
            assert_eq!(float2(op, a, 2.0), Value::Bool(want[k]));
        }
        assert_eq!(float2(op, f64::NAN, 2.0), Value::Bool(false));
    }
}

#[test]
fn float_clamp_lerp() {
    let three = |op: Op3<F, F>, a, b, c| {
        f(check::<F>(|h| {
            let (a, b, c) = (float_reg(h, a), float_reg(h, b), float_reg(h, c));
            let d = h.reg::<F>();
            h.emit(op(d, a, b, c));
            d
        })
        .unwrap())
    };
    let clamp = |d, value, min, max| Instr::FloatClamp {
        dst: d,
        value,
        min,
        max,
    };
    let lerp = |d, a, b, t| Instr::FloatLerp { dst: d, a, b, t };
    assert_eq!(three(clamp, 5.0, 0.0, 1.0), 1.0);
    assert_eq!(three(clamp, -5.0, 0.0, 1.0), 0.0);
    assert_eq!(three(clamp, 0.5, 0.0, 1.0), 0.5);
    assert_eq!(three(clamp, 0.5, 2.0, 1.0), 1.0, "min > max gives max");
    assert_eq!(three(clamp, f64::NAN, 0.0, 1.0), 0.0);
    assert_eq!(three(lerp, 2.0, 6.0, 0.25), 3.0);
    assert_eq!(three(lerp, 2.0, 6.0, 2.0), 10.0);
}

#[test]
fn float_to_int_truncates_and_saturates() {
    let to_int = |a| float1(|d, a| Instr::FloatToInt { dst: d, a }, a);
    assert_eq!(to_int(2.9), Value::Int(2));
    assert_eq!(to_int(-2.9), Value::Int(-2));
    assert_eq!(to_int(f64::NAN), Value::Int(0));
    assert_eq!(to_int(1e300), Value::Int(i64::MAX));
    assert_eq!(to_int(f64::NEG_INFINITY), Value::Int(i64::MIN));
}

#[test]
fn string_from_float_is_shortest_round_trip() {
    let s = |a| float1(|d, a| Instr::FloatToString { dst: d, a }, a);
    assert_eq!(s(0.1), Value::Str(Arc::from("0.1")));
    assert_eq!(s(1.0), Value::Str(Arc::from("1.0")));
    assert_eq!(s(-2.5), Value::Str(Arc::from("-2.5")));
    assert_eq!(s(1e300), Value::Str(Arc::from("1e300")));
    assert_eq!(s(f64::NAN), Value::Str(Arc::from("NaN")));
    assert_eq!(s(f64::INFINITY), Value::Str(Arc::from("inf")));
}

// ---------------------------------------------------------------- bool, vec3, string

#[test]
fn bool_ops() {
    type Op = fn(Reg<B>, Reg<B>, Reg<B>) -> Instr;
    let table: [(Op, [bool; 4]); 3] = [
        (
            |d, a, b| Instr::BoolAnd { dst: d, a, b },
            [false, false, false, true],
        ),
        (
            |d, a, b| Instr::BoolOr { dst: d, a, b },
            [false, true, true, true],
        ),
        (
            |d, a, b| Instr::BoolXor { dst: d, a, b },
            [false, true, true, false],
        ),
    ];
    for (op, want) in table {
        for (k, (a, b)) in [(false, false), (false, true), (true, false), (true, true)]
            .into_iter()
            .enumerate()
        {
            let got = check::<B>(|h| {
                let (ra, rb) = (bool_reg(h, a), bool_reg(h, b));
                let d = h.reg::<B>();
                h.emit(op(d, ra, rb));
                d
            });
            assert_eq!(got, Ok(Value::Bool(want[k])), "{a} {b}");
        }
    }
    let not = check::<B>(|h| {
        let r = bool_reg(h, false);
        h.emit(Instr::BoolNot { dst: r, a: r });
        r
    });
    assert_eq!(not, Ok(Value::Bool(true)));
}

#[test]
fn vec3_ops() {
    let v = |emit: VecEmit| {
        check::<V>(|h| {
            let a = vec_reg(h, [1.0, 2.0, 3.0]);
            let b = vec_reg(h, [0.5, -1.0, 4.0]);
            emit(h, a, b)
        })
    };
    let add = v(&|h, a, b| {
        let d = h.reg::<V>();
        h.emit(Instr::Vec3Add { dst: d, a, b });
        d
    });
    assert_eq!(add, Ok(Value::Vec3([1.5, 1.0, 7.0])));
    let sub = v(&|h, a, b| {
        let d = h.reg::<V>();
        h.emit(Instr::Vec3Sub { dst: d, a, b });
        d
    });
    assert_eq!(sub, Ok(Value::Vec3([0.5, 3.0, -1.0])));
    let scale = v(&|h, a, _| {
        let s = float_reg(h, -2.0);
        let d = h.reg::<V>();
        h.emit(Instr::Vec3Scale { dst: d, v: a, s });
        d
    });
    assert_eq!(scale, Ok(Value::Vec3([-2.0, -4.0, -6.0])));
    let make = check::<V>(|h| {
        let (x, y, z) = (float_reg(h, 1.0), float_reg(h, 0.1), float_reg(h, -3.0));
        let d = h.reg::<V>();
        h.emit(Instr::Vec3Make { dst: d, x, y, z });
        d
    });
    assert_eq!(make, Ok(Value::Vec3([1.0, 0.1f32, -3.0])));
    let length = check::<F>(|h| {
        let a = vec_reg(h, [3.0, 0.0, 4.0]);
        let d = h.reg::<F>();
        h.emit(Instr::Vec3Length { dst: d, v: a });
        d
    });
    assert_eq!(length, Ok(Value::Float(5.0)));
    let dot = check::<F>(|h| {
        let a = vec_reg(h, [1.0, 2.0, 3.0]);
        let b = vec_reg(h, [0.5, -1.0, 4.0]);
        let d = h.reg::<F>();
        h.emit(Instr::Vec3Dot { dst: d, a, b });
        d
    });
    assert_eq!(dot, Ok(Value::Float(10.5)));
    for (k, want) in [1.0, 2.0, 3.0].into_iter().enumerate() {
        let got = check::<F>(|h| {
            let a = vec_reg(h, [1.0, 2.0, 3.0]);
            let (x, y, z) = (h.reg::<F>(), h.reg::<F>(), h.reg::<F>());
            h.emit(Instr::Vec3Break { x, y, z, v: a });
            [x, y, z][k]
        });
        assert_eq!(got, Ok(Value::Float(want)));
    }
}

#[test]
fn string_ops_and_length_limit() {
    let cat = check::<S>(|h| {
        let (a, b) = (str_reg(h, "foot"), str_reg(h, "step"));
        let d = h.reg::<S>();
        h.emit(Instr::StrConcat { dst: d, a, b });
        d
    });
    assert_eq!(cat, Ok(Value::Str(Arc::from("footstep"))));
    for (a, b, want) in [("x", "x", true), ("x", "y", false), ("", "", true)] {
        let eq = check::<B>(|h| {
            let (ra, rb) = (str_reg(h, a), str_reg(h, b));
            let d = h.reg::<B>();
            h.emit(Instr::StrEq {
                dst: d,
                a: ra,
                b: rb,
            });
            d
        });
        assert_eq!(eq, Ok(Value::Bool(want)));
    }
    // Doubling a string in a loop hits the length limit, not memory exhaustion.
    let e = check::<S>(|h| {
        let s = str_reg(h, "ab");
        let top = h.label();
        h.bind(top);
        h.emit(Instr::StrConcat { dst: s, a: s, b: s });
        h.emit(Instr::Jmp {
            target: top.target(),
        });
        s
    })
    .unwrap_err();
    assert!(e.message.contains("string longer than"), "{e}");
}

// ---------------------------------------------------------------- moves, vars, slots, params

#[test]
fn moves_and_constants_of_every_type() {
    assert_eq!(
        check::<E>(|h| {
            let (a, b) = (h.reg::<E>(), h.reg::<E>());
            let c = h.module().const_entity(EntityConst::Owner);
            h.emit(Instr::LdcE { dst: a, c });
            h.emit(Instr::MovE { dst: b, src: a });
            b
        }),
        Ok(Value::Entity(Some(42)))
    );
    assert_eq!(
        check::<E>(|h| {
            let a = h.reg::<E>();
            let c = h.module().const_entity(EntityConst::None);
            h.emit(Instr::LdcE { dst: a, c });
            a
        }),
        Ok(Value::Entity(None))
    );
    assert_eq!(
        check::<S>(|h| {
            let (a, b) = (str_reg(h, "hi"), h.reg::<S>());
            h.emit(Instr::MovS { dst: b, src: a });
            b
        }),
        Ok(Value::Str(Arc::from("hi")))
    );
    assert_eq!(
        check::<V>(|h| {
            let (a, b) = (vec_reg(h, [1.0, 2.0, 3.0]), h.reg::<V>());
            h.emit(Instr::MovV { dst: b, src: a });
            b
        }),
        Ok(Value::Vec3([1.0, 2.0, 3.0]))
    );
    assert_eq!(
        check::<I>(|h| {
            let (a, b) = (int_reg(h, 9), h.reg::<I>());
            h.emit(Instr::MovI { dst: b, src: a });
            b
        }),
        Ok(Value::Int(9))
    );
    assert_eq!(
        check::<F>(|h| {
            let (a, b) = (float_reg(h, 9.5), h.reg::<F>());
            h.emit(Instr::MovF { dst: b, src: a });
            b
        }),
        Ok(Value::Float(9.5))
    );
    assert_eq!(
        check::<B>(|h| {
            let (a, b) = (bool_reg(h, true), h.reg::<B>());
            h.emit(Instr::MovB { dst: b, src: a });
            b
        }),
        Ok(Value::Bool(true))
    );
    // Registers start at their type's default each invocation.
    assert_eq!(check::<I>(|h| h.reg::<I>()), Ok(Value::Int(0)));
    assert_eq!(check::<S>(|h| h.reg::<S>()), Ok(Value::Str(Arc::from(""))));
}

/// Runs `event` of `m` once with `payload` against `st`.
fn run(
    m: &VerifiedModule,
    st: &mut InstanceState,
    event: &str,
    payload: &[Value],
    host: &mut TestHost,
) -> Outcome {
    let h = m.handler_index(event).expect("handler exists");
    Vm::new().run_handler(m, st, h, payload, host, DEFAULT_BUDGET)
}

#[test]
fn vars_slots_and_params_keep_values_per_instance() {
    let mut mb = ModuleBuilder::new("t");
    let vb = mb.var::<B>("b", Const::Bool(true));
    let vs = mb.var::<S>("s", Const::Str("init".into()));
    let ve = mb.var::<E>("e", Const::Entity(EntityConst::Owner));
    let vv = mb.var::<V>("v", Const::Vec3([1.0, 1.0, 1.0]));
    let sf = mb.slot::<F>("ev.time", Const::Float(0.0));
    let si = mb.slot::<I>("ev.cycle", Const::Int(0));
    let mut h = mb.handler(
        "ev",
        &[
            Type::Float,
            Type::Int,
            Type::Str,
            Type::Bool,
            Type::Vec3,
            Type::Entity,
        ],
    );
    let (f0, i0, s0, b0, v0, e0) = (
        h.reg::<F>(),
        h.reg::<I>(),
        h.reg::<S>(),
        h.reg::<B>(),
        h.reg::<V>(),
        h.reg::<E>(),
    );
    h.emit(Instr::ParamF {
        dst: f0,
        p: h.param(0),
    });
    h.emit(Instr::ParamI {
        dst: i0,
        p: h.param(1),
    });
    h.emit(Instr::ParamS {
        dst: s0,
        p: h.param(2),
    });
    h.emit(Instr::ParamB {
        dst: b0,
        p: h.param(3),
    });
    h.emit(Instr::ParamV {
        dst: v0,
        p: h.param(4),
    });
    h.emit(Instr::ParamE {
        dst: e0,
        p: h.param(5),
    });
    h.emit(Instr::SlotSetF { slot: sf, src: f0 });
    h.emit(Instr::SlotSetI { slot: si, src: i0 });
    // old string var -> new value is old ++ param
    let old = h.reg::<S>();
    h.emit(Instr::VarGetS { dst: old, var: vs });
    h.emit(Instr::StrConcat {
        dst: old,
        a: old,
        b: s0,
    });
    h.emit(Instr::VarSetS { var: vs, src: old });
    let nb = h.reg::<B>();
    h.emit(Instr::VarGetB { dst: nb, var: vb });
    h.emit(Instr::BoolXor {
        dst: nb,
        a: nb,
        b: b0,
    });
    h.emit(Instr::VarSetB { var: vb, src: nb });
    h.emit(Instr::VarSetE { var: ve, src: e0 });
    let ov = h.reg::<V>();
    h.emit(Instr::VarGetV { dst: ov, var: vv });
    h.emit(Instr::Vec3Add {
        dst: ov,
        a: ov,
        b: v0,
    });
    h.emit(Instr::VarSetV { var: vv, src: ov });
    h.emit(Instr::Ret {});
    h.finish().unwrap();
    let mut h = mb.handler("read", &[]);
    let (f1, i1, e1) = (h.reg::<F>(), h.reg::<I>(), h.reg::<E>());
    h.emit(Instr::SlotGetF { dst: f1, slot: sf });
    h.emit(Instr::SlotGetI { dst: i1, slot: si });
    h.emit(Instr::VarGetE { dst: e1, var: ve });
    let fv = h.module().var::<F>("f_copy", Const::Float(0.0));
    let iv = h.module().var::<I>("i_copy", Const::Int(0));
    h.emit(Instr::VarSetF { var: fv, src: f1 });
    h.emit(Instr::VarSetI { var: iv, src: i1 });
    h.emit(Instr::Ret {});
    h.finish().unwrap();
    let m = verify(mb.finish()).unwrap();
    let mut st = InstanceState::new(&m, 5);
    assert_eq!(
        st.vars()[2],
        Value::Entity(Some(5)),
        "entity default `self` is the owner"
    );
    let payload = [
        Value::Float(0.5),
        Value::Int(3),
        Value::Str(Arc::from("+x")),
        Value::Bool(true),
        Value::Vec3([0.0, 1.0, 2.0]),
        Value::Entity(None),
    ];
    let mut host = TestHost::default();
    for _ in 0..2 {
        assert_eq!(
            run(&m, &mut st, "ev", &payload, &mut host),
            Outcome::Completed
        );
    }
    assert_eq!(run(&m, &mut st, "read", &[], &mut host), Outcome::Completed);
    assert_eq!(
        st.vars(),
        &[
            Value::Bool(true),
            Value::Str(Arc::from("init+x+x")),
            Value::Entity(None),
            Value::Vec3([1.0, 3.0, 5.0]),
            Value::Float(0.5),
            Value::Int(3),
        ]
    );
    assert_eq!(st.slots(), &[Value::Float(0.5), Value::Int(3)]);
    // A payload of the wrong shape is an error, not a panic, and changes nothing.
    let before = st.clone();
    let o = run(&m, &mut st, "ev", &[Value::Int(1)], &mut host);
    assert!(
        matches!(o, Outcome::Error(ref e) if e.message.contains("payload")),
        "{o:?}"
    );
    assert_eq!(st, before);
}

// ---------------------------------------------------------------- control flow, host, budget

#[test]
fn loops_and_conditional_jumps() {
    let m = verify(sum_loop(1000)).unwrap();
    let mut st = InstanceState::new(&m, 0);
    assert_eq!(
        run(&m, &mut st, "tick", &[], &mut TestHost::default()),
        Outcome::Completed
    );
    assert_eq!(st.vars()[0], Value::Int(500_500));
    // jmp_ifnot: branch taken on false
    let got = check::<I>(|h| {
        let (c, r) = (bool_reg(h, false), int_reg(h, 1));
        let skip = h.label();
        h.emit(Instr::JmpIfNot {
            cond: c,
            target: skip.target(),
        });
        let two = int_reg(h, 2);
        h.emit(Instr::MovI { dst: r, src: two });
        h.bind(skip);
        r
    });
    assert_eq!(got, Ok(Value::Int(1)));
}

#[test]
fn budget_exhaustion_aborts_naming_the_node_and_keeps_state() {
    let mut mb = ModuleBuilder::new("spin");
    let v = mb.var::<I>("v", Const::Int(0));
    let mut h = mb.handler("tick", &[]);
    h.at_node("set");
    let one = int_reg(&mut h, 1);
    h.emit(Instr::VarSetI { var: v, src: one });
    h.at_node("spin");
    let top = h.label();
    h.bind(top);
    h.emit(Instr::Jmp {
        target: top.target(),
    });
    h.finish().unwrap();
    let m = verify(mb.finish()).unwrap();
    let mut st = InstanceState::new(&m, 0);
    let o = run(&m, &mut st, "tick", &[], &mut TestHost::default());
    let Outcome::Error(e) = o else {
        panic!("{o:?}")
    };
    assert_eq!(e.node, "spin");
    assert_eq!(e.message, "instruction budget of 100000 exhausted");
    assert_eq!(
        st.vars()[0],
        Value::Int(1),
        "state changed before the error is kept"
    );
    // An exact budget: 2 instructions before the loop, so budget 2 stops at the jmp (pc 2).
    let o = Vm::new().run_handler(&m, &mut st, 0, &[], &mut TestHost::default(), 2);
    assert!(
        matches!(o, Outcome::Error(RuntimeError { pc: 2, .. })),
        "{o:?}"
    );
    // The sum loop needs 5*1001+4 instructions: one short fails, exact succeeds.
    let s = verify(sum_loop(1000)).unwrap();
    let mut st = InstanceState::new(&s, 0);
    let need = 5 * 1001 + 2 + 2 + 2;
    let o = Vm::new().run_handler(&s, &mut st, 0, &[], &mut TestHost::default(), need - 1);
    assert!(matches!(o, Outcome::Error(_)), "{o:?}");
    let o = Vm::new().run_handler(&s, &mut st, 0, &[], &mut TestHost::default(), need);
    assert_eq!(o, Outcome::Completed);
}

/// `var.get` → add/sub/mul → `var.set` of one variable, the shape the VM runs as one step
/// (`verify::fusable`), with the operand order `op`/`var_first` and an optional `mov` between
/// the get and the arithmetic that keeps the VM from fusing. The handler runs both updates,
/// then jumps back once into the middle of the int one (at the arithmetic, not the get).
fn var_update(op: &str, var_first: bool, split: bool) -> Module {
    let mut mb = ModuleBuilder::new("upd");
    let vi = mb.var::<I>("n", Const::Int(40));
    let vf = mb.var::<F>("x", Const::Float(1.5));
    let mut h = mb.handler("tick", &[]);
    h.at_node("upd");
    let (gi, ki, di) = (h.reg::<I>(), int_reg(h.borrow(), 7), h.reg::<I>());
    let (gf, kf, df) = (h.reg::<F>(), float_reg(h.borrow(), 2.5), h.reg::<F>());
    let again = h.reg::<B>();
    let mid_i = h.label();
    let (a_i, b_i) = if var_first { (gi, ki) } else { (ki, gi) };
    let (a_f, b_f) = if var_first { (gf, kf) } else { (kf, gf) };
    h.emit(Instr::VarGetI { dst: gi, var: vi });
    if split {
        h.emit(Instr::MovI { dst: gi, src: gi });
    }
    h.bind(mid_i);
    h.emit(match op {
        "sub" => Instr::IntSub {
            dst: di,
            a: a_i,
            b: b_i,
        },
        _ => Instr::IntAdd {
            dst: di,
            a: a_i,
            b: b_i,
        },
    });
    h.emit(Instr::VarSetI { var: vi, src: di });
    h.emit(Instr::VarGetF { dst: gf, var: vf });
    if split {
        h.emit(Instr::MovF { dst: gf, src: gf });
    }
    h.emit(match op {
        "sub" => Instr::FloatSub {
            dst: df,
            a: a_f,
            b: b_f,
        },
        "mul" => Instr::FloatMul {
            dst: df,
            a: a_f,
            b: b_f,
        },
        _ => Instr::FloatAdd {
            dst: df,
            a: a_f,
            b: b_f,
        },
    });
    h.emit(Instr::VarSetF { var: vf, src: df });
    // Second pass enters both updates in the middle (after the get): registers as left.
    let done = h.label();
    h.emit(Instr::JmpIf {
        cond: again,
        target: done.target(),
    });
    let t = bool_reg(h.borrow(), true);
    h.emit(Instr::MovB { dst: again, src: t });
    h.emit(Instr::Jmp {
        target: mid_i.target(),
    });
    h.bind(done);
    h.emit(Instr::Ret {});
    h.finish().unwrap();
    mb.finish()
}

#[test]
fn fused_variable_updates_match_the_instructions_one_by_one() {
    for op in ["add", "sub", "mul"] {
        for var_first in [true, false] {
            let fused = verify(var_update(op, var_first, false)).unwrap();
            let plain = verify(var_update(op, var_first, true)).unwrap();
            let (mut a, mut b) = (InstanceState::new(&fused, 0), InstanceState::new(&plain, 0));
            let oa = run(&fused, &mut a, "tick", &[], &mut TestHost::default());
            let ob = run(&plain, &mut b, "tick", &[], &mut TestHost::default());
            assert_eq!(
                (&oa, a.vars()),
                (&ob, b.vars()),
                "{op} var_first={var_first}"
            );
            // Hand-computed: the int update runs twice, the second time entered after its get
            // (reusing the loaded register), so n = f(40) either way.
            let int = |x: i64| match (op, var_first) {
                ("sub", true) => x - 7,
                ("sub", false) => 7 - x,
                _ => x + 7,
            };
            let flt = |x: f64| match (op, var_first) {
                ("sub", true) => x - 2.5,
                ("sub", false) => 2.5 - x,
                ("mul", _) => x * 2.5,
                _ => x + 2.5,
            };
            let n = if op == "mul" { 47 } else { int(40) };
            // The second pass loads the float variable again (its get is after the jump target).
            let x = flt(flt(1.5));
            assert_eq!(a.vars()[0], Value::Int(n), "{op} {var_first}");
            assert_eq!(a.vars()[1], Value::Float(x), "{op} {var_first}");
        }
    }
    // Budget exactness inside a fused update: every instruction still costs one.
    let m = verify(var_update("add", true, false)).unwrap();
    for (budget, pc) in [(1, 1), (2, 2), (3, 3), (4, 4)] {
        // Registers are loaded first (ldc ×3 + ...): find the get's pc from the code.
        let get = m
            .module()
            .code
            .iter()
            .position(|i| matches!(i, Instr::VarGetI { .. }))
            .unwrap() as u64;
        let mut st = InstanceState::new(&m, 0);
        let o = Vm::new().run_handler(&m, &mut st, 0, &[], &mut TestHost::default(), get + budget);
        let Outcome::Error(e) = o else {
            panic!("{o:?}")
        };
        assert_eq!(u64::from(e.pc), get + pc, "budget {budget}");
        // Exactly the instructions paid for ran: the set (third) only with budget ≥ 3.
        let expect = if budget >= 3 { 47 } else { 40 };
        assert_eq!(st.vars()[0], Value::Int(expect), "budget {budget}");
    }
}

/// `Instr::from_operands` (what the lowering builds pure-node instructions with) agrees with
/// the decoder for every opcode, refuses a wrong operand count, and `opcode_of` finds every
/// mnemonic.
#[test]
fn instructions_build_from_operands_like_the_decoder() {
    for info in sinew::bytecode::isa::OPCODES {
        let n = info.operands.len();
        let ops: Vec<u32> = (0..n as u32).map(|k| k + 1).collect();
        let ins = Instr::from_operands(info.opcode, &ops).expect(info.mnemonic);
        let mut bytes = Vec::new();
        ins.encode(&mut bytes);
        let mut pos = 0;
        assert_eq!(
            Instr::decode(&bytes, &mut pos),
            Some(ins),
            "{}",
            info.mnemonic
        );
        let mut seen = Vec::new();
        ins.for_each_operand(&mut |_, _, i| seen.push(i));
        assert_eq!(seen, ops, "{}", info.mnemonic);
        assert_eq!(
            Instr::from_operands(info.opcode, &ops[..n.saturating_sub(1)]).is_some(),
            n == 0
        );
        let mut more = ops.clone();
        more.push(0);
        assert_eq!(
            Instr::from_operands(info.opcode, &more),
            None,
            "{}",
            info.mnemonic
        );
        assert_eq!(Instr::opcode_of(info.mnemonic), Some(info.opcode));
    }
    assert_eq!(Instr::opcode_of("int.nope"), None);
    assert_eq!(Instr::from_operands(0xFFFF, &[]), None);
}

#[test]
fn errors_abort_only_the_invocation() {
    let mut mb = ModuleBuilder::new("t");
    let count = mb.var::<I>("count", Const::Int(0));
    let mut h = mb.handler("tick", &[Type::Int]);
    h.at_node("inc");
    let (n, one, d) = (h.reg::<I>(), int_reg(h.borrow(), 1), h.reg::<I>());
    h.emit(Instr::VarGetI { dst: n, var: count });
    h.emit(Instr::IntAdd {
        dst: n,
        a: n,
        b: one,
    });
    h.emit(Instr::VarSetI { var: count, src: n });
    h.at_node("div");
    h.emit(Instr::ParamI {
        dst: d,
        p: h.param(0),
    });
    h.emit(Instr::IntDiv { dst: n, a: n, b: d });
    h.emit(Instr::Ret {});
    h.finish().unwrap();
    let m = verify(mb.finish()).unwrap();
    let mut st = InstanceState::new(&m, 0);
    let mut host = TestHost::default();
    let o = run(&m, &mut st, "tick", &[Value::Int(0)], &mut host);
    assert!(
        matches!(o, Outcome::Error(ref e) if e.node == "div"),
        "{o:?}"
    );
    assert_eq!(
        run(&m, &mut st, "tick", &[Value::Int(1)], &mut host),
        Outcome::Completed
    );
    assert_eq!(st.vars()[0], Value::Int(2));
}

#[test]
fn a_send_payload_is_bounded_and_emptied_per_invocation() {
    let mut mb = ModuleBuilder::new("t");
    let ev = mb.const_str("custom::hit");
    let mut h = mb.handler("tick", &[]);
    let b = h.reg::<B>();
    for _ in 0..sinew::bytecode::verify::MAX_PAYLOAD_FIELDS {
        h.emit(Instr::SendArgB { src: b });
    }
    // One value past the bound: a runtime error at this instruction, never unbounded growth.
    h.emit(Instr::SendArgB { src: b });
    let e = h.reg::<E>();
    h.emit(Instr::EventSend {
        event: ev,
        target: e,
    });
    h.emit(Instr::Ret {});
    h.finish().unwrap();
    let m = verify(mb.finish()).unwrap();
    let mut st = InstanceState::new(&m, 42);
    let mut host = TestHost::default();
    let mut vm = Vm::new();
    let h = m.handler_index("tick").unwrap();
    for _ in 0..2 {
        match vm.run_handler(&m, &mut st, h, &[], &mut host, DEFAULT_BUDGET) {
            Outcome::Error(e) => assert!(
                e.message.contains("holds at most 63 values"),
                "{}",
                e.message
            ),
            other => panic!("{other:?}"),
        }
    }
    // The aborted invocation's values never reach a later send.
    assert!(host.calls.is_empty(), "{:?}", host.calls);
}

#[test]
fn host_calls_in_order() {
    let mut mb = ModuleBuilder::new("t");
    let ok_var = mb.var::<B>("ok", Const::Bool(false));
    let bad_var = mb.var::<B>("bad", Const::Bool(true));
    let f_var = mb.var::<F>("f", Const::Float(0.0));
    let s_var = mb.var::<S>("s", Const::Str(String::new()));
    let ev = mb.const_str("custom::hit");
    let mut h = mb.handler("tick", &[]);
    let msg = str_reg(&mut h, "hello");
    h.emit(Instr::Log { message: msg });
    let (run_s, fly_s) = (str_reg(&mut h, "run"), str_reg(&mut h, "fly"));
    let (ok, bad) = (h.reg::<B>(), h.reg::<B>());
    h.emit(Instr::Command(CommandInstr::AnimSetState {
        ok,
        state: run_s,
    }));
    h.emit(Instr::Command(CommandInstr::AnimSetState {
        ok: bad,
        state: fly_s,
    }));
    h.emit(Instr::VarSetB {
        var: ok_var,
        src: ok,
    });
    h.emit(Instr::VarSetB {
        var: bad_var,
        src: bad,
    });
    let speed = str_reg(&mut h, "speed");
    let v = float_reg(&mut h, 1.5);
    h.emit(Instr::Command(CommandInstr::AnimSetParam {
        name: speed,
        value: v,
    }));
    let (p, c) = (h.reg::<F>(), h.reg::<F>());
    h.emit(Instr::AnimGetParam {
        dst: p,
        name: speed,
    });
    h.emit(Instr::AnimCurve {
        dst: c,
        name: speed,
    });
    h.emit(Instr::FloatAdd { dst: p, a: p, b: c });
    h.emit(Instr::VarSetF { var: f_var, src: p });
    let (layer, clip) = (str_reg(&mut h, "upper"), str_reg(&mut h, "wave"));
    h.emit(Instr::Command(CommandInstr::AnimPlayOnLayer {
        layer,
        clip,
    }));
    h.emit(Instr::Command(CommandInstr::AnimSetLayerWeight {
        layer,
        weight: v,
    }));
    h.emit(Instr::Command(CommandInstr::AnimStopLayer { layer }));
    let cur = h.reg::<S>();
    h.emit(Instr::AnimCurrentState { dst: cur });
    h.emit(Instr::VarSetS {
        var: s_var,
        src: cur,
    });
    let (me, none) = (h.reg::<E>(), h.reg::<E>());
    h.emit(Instr::EntitySelf { dst: me });
    // A payload: the values pushed before the send, in order; the next send starts empty.
    h.emit(Instr::SendArgF { src: v });
    h.emit(Instr::SendArgS { src: speed });
    h.emit(Instr::SendArgE { src: me });
    h.emit(Instr::EventSend {
        event: ev,
        target: me,
    });
    h.emit(Instr::EventSend {
        event: ev,
        target: none,
    });
    h.emit(Instr::Ret {});
    h.finish().unwrap();
    let m = verify(mb.finish()).unwrap();
    let mut st = InstanceState::new(&m, 42);
    let mut host = TestHost::default();
    assert_eq!(run(&m, &mut st, "tick", &[], &mut host), Outcome::Completed);
    assert_eq!(
        host.calls,
        [
            "log hello",
            "set_state run",
            "set_state fly",
            "set_param speed 1.5",
            "get_param speed",
            "curve speed",
            "play_on_layer upper wave",
            "set_layer_weight upper 1.5",
            "stop_layer upper",
            "current_state",
            "send custom::hit Some(42) [Float(1.5), Str(\"speed\"), Entity(Some(42))]",
            "send custom::hit None []",
        ]
    );
    assert_eq!(
        st.vars(),
        &[
            Value::Bool(true),
            Value::Bool(false),
            Value::Float(3.25),
            Value::Str(Arc::from("idle"))
        ]
    );
}

// ---------------------------------------------------------------- delays

#[test]
fn delay_yields_ignores_retrigger_and_resumes_with_registers() {
    let m = verify(sample()).unwrap();
    let mut st = InstanceState::new(&m, 1);
    let mut host = TestHost::default();
    let mut vm = Vm::new();
    let bp = m.handler_index("begin_play").unwrap();
    let o = vm.run_handler(&m, &mut st, bp, &[], &mut host, DEFAULT_BUDGET);
    let Outcome::Yielded {
        delay_seconds,
        continuation,
    } = o
    else {
        panic!("{o:?}")
    };
    assert_eq!(delay_seconds, 0.5);
    assert!(st.delay_pending(0));
    assert!(host.calls.is_empty());
    // Clearing the do_once slot and retriggering reaches the pending delay: ignored (busy path).
    let mut st2 = st.clone();
    assert_eq!(
        vm.run_handler(&m, &mut st2, bp, &[], &mut host, DEFAULT_BUDGET),
        Outcome::Completed
    );
    // Meanwhile another handler runs on the same VM (clobbering its registers).
    let fs = m.handler_index("animseq::run.footstep_l").unwrap();
    let o = vm.run_handler(
        &m,
        &mut st,
        fs,
        &[Value::Entity(Some(1)), Value::Float(0.2)],
        &mut host,
        DEFAULT_BUDGET,
    );
    assert_eq!(o, Outcome::Completed);
    assert_eq!(
        vm.resume(&m, &mut st, continuation.clone(), &mut host, DEFAULT_BUDGET),
        Outcome::Completed
    );
    assert_eq!(host.calls, ["log step", "log hello"]);
    assert!(!st.delay_pending(0));
    // A continuation cannot be resumed against a module it does not fit.
    let other = verify(sum_loop(3)).unwrap();
    let mut st3 = InstanceState::new(&other, 0);
    let o = vm.resume(&other, &mut st3, continuation, &mut host, DEFAULT_BUDGET);
    assert!(
        matches!(o, Outcome::Error(ref e) if e.message.starts_with("invalid continuation")),
        "{o:?}"
    );
}

#[test]
fn delay_seconds_are_never_negative_or_nan() {
    for (secs, want) in [(-1.0, 0.0), (f64::NAN, 0.0), (2.0, 2.0)] {
        let mut mb = ModuleBuilder::new("t");
        let n = mb.node("wait");
        let d = mb.delay(n);
        let mut h = mb.handler("tick", &[]);
        let s = float_reg(&mut h, secs);
        let busy = h.label();
        h.emit(Instr::Delay {
            delay: d,
            seconds: s,
            busy: busy.target(),
        });
        h.bind(busy);
        h.emit(Instr::Ret {});
        h.finish().unwrap();
        let m = verify(mb.finish()).unwrap();
        let mut st = InstanceState::new(&m, 0);
        let o = run(&m, &mut st, "tick", &[], &mut TestHost::default());
        assert!(
            matches!(o, Outcome::Yielded { delay_seconds, .. } if delay_seconds == want),
            "{o:?}"
        );
    }
}

// ---------------------------------------------------------------- encoding

#[test]
fn encode_decode_round_trip_is_deterministic() {
    let m = sample();
    let bytes = m.encode();
    assert_eq!(&bytes[..4], b"SNWB");
    assert_eq!(&bytes[4..6], &2u16.to_le_bytes());
    assert_eq!(Module::decode(&bytes), Ok(m.clone()));
    assert_eq!(sample().encode(), bytes, "same input, same bytes");
    assert_eq!(Module::decode(&bytes).unwrap().encode(), bytes);
}

/// Expects decoding `bytes` to fail with a message containing `want`.
fn check_decode_err(bytes: &[u8], want: &str) {
    match Module::decode(bytes) {
        Ok(_) => panic!("decoded corrupt bytes (expected `{want}`)"),
        Err(e) => assert!(e.message.contains(want), "`{}` lacks `{want}`", e.message),
    }
}

#[test]
fn decode_rejects_corruption() {
    let bytes = sample().encode();
    let mut b = bytes.clone();
    b[0] = b'X';
    check_decode_err(&b, "magic");
    let mut b = bytes.clone();
    b[4] = 1;
    check_decode_err(&b, "version 1");
    for n in 0..bytes.len() {
        assert!(
            Module::decode(&bytes[..n]).is_err(),
            "prefix of {n} bytes decoded"
        );
    }
    let mut b = bytes.clone();
    b.push(0);
    check_decode_err(&b, "trailing");
    // A huge count in the constants section is bounded by the remaining bytes.
    let name_len = u32::from_le_bytes(bytes[7..11].try_into().unwrap()) as usize;
    let consts_count_at = 6 + 5 + name_len + 5 + 8 + 5;
    let mut b = bytes.clone();
    b[consts_count_at..consts_count_at + 4].copy_from_slice(&100_000u32.to_le_bytes());
    check_decode_err(&b, "exceeds");
    // A count above the format's limit is refused before anything is read.
    b[consts_count_at..consts_count_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    check_decode_err(&b, "constants; a module holds at most 1048576");
}

#[test]
fn opcode_table_is_unique_and_every_opcode_round_trips() {
    let mut seen = std::collections::BTreeSet::new();
    let mut names = std::collections::BTreeSet::new();
    for op in OPCODES {
        assert!(seen.insert(op.opcode), "duplicate opcode {:#x}", op.opcode);
        assert!(
            names.insert(op.mnemonic),
            "duplicate mnemonic {}",
            op.mnemonic
        );
        let mut bytes = op.opcode.to_le_bytes().to_vec();
        let width: usize = op
            .operands
            .iter()
            .map(|(_, k)| {
                if matches!(k, OperandKind::Const(_) | OperandKind::Target) {
                    4
                } else {
                    2
                }
            })
            .sum();
        bytes.extend((0..width).map(|k| k as u8 + 1));
        let mut pos = 0;
        let ins = Instr::decode(&bytes, &mut pos).expect("decodes");
        assert_eq!(pos, bytes.len());
        assert_eq!(ins.opcode(), op.opcode);
        assert_eq!(ins.mnemonic(), op.mnemonic);
        let mut again = Vec::new();
        ins.encode(&mut again);
        assert_eq!(again, bytes);
        let mut n = 0;
        ins.for_each_operand(&mut |_, _, _| n += 1);
        assert_eq!(n, op.operands.len());
    }
    assert!(OPCODES.len() >= 100);
    assert!(Instr::decode(&[0xff, 0xff], &mut 0).is_none());
}

// ---------------------------------------------------------------- verifier

/// Expects `verify` to reject `m` mutated by `corrupt`, with `want` in the message and the
/// given pc.
fn check_rejects(corrupt: impl FnOnce(&mut Module), want: &str, pc: Option<u32>) {
    let mut m = sample();
    assert!(verify(m.clone()).is_ok());
    corrupt(&mut m);
    match verify(m) {
        Ok(_) => panic!("accepted a module that should fail with `{want}`"),
        Err(e) => {
            assert!(e.message.contains(want), "`{}` lacks `{want}`", e.message);
            assert_eq!(e.pc, pc, "{e}");
        }
    }
}

#[test]
fn verifier_rejects_each_class_of_corruption() {
    // code of handler 0: 0 param.f, 1 slot.set.f, 2 var.get.i, 3 ldc.i, 4 int.add, 5 var.set.i,
    // 6 ldc.s, 7 debug.log, 8 ret
    check_rejects(
        |m| {
            m.code[4] = Instr::IntAdd {
                dst: Reg::new(0),
                a: Reg::new(9),
                b: Reg::new(0),
            }
        },
        "register 9 out of range",
        Some(4),
    );
    check_rejects(
        |m| {
            m.code[3] = Instr::LdcI {
                dst: Reg::new(0),
                c: ConstRef::new(1),
            }
        },
        "has type string, expected int",
        Some(3),
    );
    check_rejects(
        |m| {
            m.code[3] = Instr::LdcI {
                dst: Reg::new(0),
                c: ConstRef::new(99),
            }
        },
        "constant 99 out of range",
        Some(3),
    );
    check_rejects(
        |m| {
            m.code[2] = Instr::VarGetI {
                dst: Reg::new(0),
                var: Var::new(1),
            }
        },
        "variable 1 has type string",
        Some(2),
    );
    check_rejects(
        |m| {
            m.code[2] = Instr::VarGetI {
                dst: Reg::new(0),
                var: Var::new(7),
            }
        },
        "variable 7 out of range",
        Some(2),
    );
    check_rejects(
        |m| {
            m.code[1] = Instr::SlotSetF {
                slot: Slot::new(1),
                src: Reg::new(0),
            }
        },
        "slot 1 has type bool",
        Some(1),
    );
    check_rejects(
        |m| {
            m.code[0] = Instr::ParamF {
                dst: Reg::new(0),
                p: Param::new(0),
            }
        },
        "parameter 0 has type entity",
        Some(0),
    );
    check_rejects(
        |m| {
            m.code[0] = Instr::ParamF {
                dst: Reg::new(0),
                p: Param::new(5),
            }
        },
        "parameter 5 out of range",
        Some(0),
    );
    check_rejects(
        |m| m.code[8] = Instr::Jmp { target: Target(10) },
        "outside the handler",
        Some(8),
    );
    check_rejects(
        |m| {
            m.code[8] = Instr::Log {
                message: Reg::new(0),
            }
        },
        "fall through",
        Some(8),
    );
    check_rejects(
        |m| m.handlers[1].event = m.handlers[0].event.clone(),
        "handled twice",
        None,
    );
    check_rejects(
        |m| {
            m.handlers[1].start = 8;
            m.handlers[1].len = 10;
        },
        "overlaps",
        Some(8),
    );
    check_rejects(|m| m.handlers[1].len = 99, "outside the", None);
    check_rejects(
        |m| m.handlers[0].regs[1] = 5000,
        "registers (max 4096)",
        None,
    );
    check_rejects(
        |m| m.debug.pop().map(|_| ()).unwrap_or(()),
        "debug info covers",
        None,
    );
    check_rejects(|m| m.debug[3] = 99, "names node 99", Some(3));
    check_rejects(|m| m.delays[0].node = 99, "delay d0 names node 99", None);
    check_rejects(
        |m| m.vars[0].default = Const::Float(1.0),
        "declared int",
        None,
    );
    check_rejects(
        |m| m.vars[1].name = "steps".into(),
        "duplicate variable",
        None,
    );
    check_rejects(|m| m.budget = 0, "budget 0", None);
    check_rejects(
        |m| {
            let pc = m
                .code
                .iter()
                .position(|i| matches!(i, Instr::Delay { .. }))
                .unwrap();
            if let Instr::Delay { delay, .. } = &mut m.code[pc] {
                *delay = DelayRef(3);
            }
        },
        "delay 3 out of range",
        Some(14),
    );
}

// ---------------------------------------------------------------- window edge handlers

/// A module with a window's `begin` and `end` handlers (payload: entity, completed) and a
/// plain `tick` handler.
fn window_module() -> Module {
    let mut mb = ModuleBuilder::new("windows");
    let open = mb.var::<B>("open", Const::Bool(false));
    let params = [Type::Entity, Type::Bool];
    for (edge, value) in [(Edge::Begin, true), (Edge::End, false)] {
        let mut h = mb.edge_handler("animseq::attack.hit", Some(edge), &params);
        h.at_node("hit");
        let r = bool_reg(&mut h, value);
        h.emit(Instr::VarSetB { var: open, src: r });
        h.emit(Instr::Ret {});
        h.finish().unwrap();
    }
    let mut h = mb.handler("tick", &[Type::Float]);
    h.at_node("tick");
    h.emit(Instr::Ret {});
    h.finish().unwrap();
    mb.finish()
}

#[test]
fn window_edge_handlers_round_trip_and_are_found_by_edge() {
    let m = window_module();
    let bytes = m.encode();
    assert_eq!(Module::decode(&bytes), Ok(m.clone()));
    assert_eq!(Module::decode(&bytes).unwrap().encode(), bytes);
    let v = verify(m).unwrap();
    let id = "animseq::attack.hit";
    assert_eq!(v.edge_handler_index(id, Some(Edge::Begin)), Some(0));
    assert_eq!(v.edge_handler_index(id, Some(Edge::End)), Some(1));
    assert_eq!(v.handler_index(id), None, "a window has no plain handler");
    assert_eq!(v.handler_index("tick"), Some(2));
    assert_eq!(v.edge_handler_index("tick", Some(Edge::Begin)), None);
    let text = disasm(&v);
    assert!(
        text.contains("handler h0 \"animseq::attack.hit\" begin (entity, bool)"),
        "{text}"
    );
    assert!(
        text.contains("handler h1 \"animseq::attack.hit\" end (entity, bool)"),
        "{text}"
    );
    // The edge byte follows the event name in the handler table; an unknown one is refused.
    let name = b"animseq::attack.hit";
    let at = bytes.windows(name.len()).position(|w| w == name).unwrap() + name.len();
    assert_eq!(bytes[at], 1, "begin");
    let mut b = bytes.clone();
    b[at] = 3;
    check_decode_err(&b, "unknown handler edge 3");
}

#[test]
fn verifier_checks_window_edge_handlers() {
    let rejects = |corrupt: &dyn Fn(&mut Module), want: &str| {
        let mut m = window_module();
        corrupt(&mut m);
        match verify(m) {
            Ok(_) => panic!("accepted a module that should fail with `{want}`"),
            Err(e) => assert!(e.message.contains(want), "`{}` lacks `{want}`", e.message),
        }
    };
    rejects(
        &|m| m.handlers[1].edge = Some(Edge::Begin),
        "handled twice on its begin edge",
    );
    rejects(
        &|m| m.handlers[1].edge = None,
        "both a plain handler and window edge handlers",
    );
    rejects(
        &|m| m.handlers[2].edge = Some(Edge::End),
        "only `animseq::` windows have edges",
    );
    rejects(
        &|m| m.handlers[1].params = vec![Type::Entity],
        "take different payloads",
    );
    // Either edge may stand alone.
    let mut m = window_module();
    m.handlers.remove(0);
    assert!(verify(m).is_ok());
}

// ---------------------------------------------------------------- disassembly

#[test]
fn disassembly_snapshot() {
    let text = disasm(&verify(sample()).unwrap());
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("bytecode_disasm", text);
    });
}

// ---------------------------------------------------------------- properties

proptest! {
    #[test]
    fn mutated_modules_never_panic(muts in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8), cut in any::<usize>()) {
        let mut bytes = sample().encode();
        for (at, b) in muts {
            let i = at % bytes.len();
            bytes[i] = b;
        }
        exercise(&bytes);
        let keep = cut % (bytes.len() + 1);
        exercise(&bytes[..keep]);
    }

    #[test]
    fn mutated_instructions_verify_or_run_safely(pc in 0usize..20, op in 0usize..200, ops in proptest::collection::vec(0u32..24, 4)) {
        // Replace one instruction by an arbitrary opcode with small operands; whatever
        // verifies must run without panicking.
        let mut m = sample();
        let info = &OPCODES[op % OPCODES.len()];
        let mut bytes = info.opcode.to_le_bytes().to_vec();
        for (k, (_, kind)) in info.operands.iter().enumerate() {
            let w = if matches!(kind, OperandKind::Const(_) | OperandKind::Target) { 4 } else { 2 };
            bytes.extend_from_slice(&ops[k % 4].to_le_bytes()[..w]);
        }
        let ins = Instr::decode(&bytes, &mut 0).expect("valid encoding");
        let pc = pc % m.code.len();
        m.code[pc] = ins;
        exercise(&m.encode());
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let mut b = b"SNWB\x01\x00".to_vec();
        b.extend(bytes);
        exercise(&b);
    }
}

#[test]
fn instructions_stay_compact() {
    // Dispatch speed depends on a small pre-decoded instruction.
    assert!(
        std::mem::size_of::<Instr>() <= 12,
        "{}",
        std::mem::size_of::<Instr>()
    );
}

#[test]
fn errors_become_diagnostics() {
    let d = Module::decode(b"NOPE").unwrap_err().to_diagnostic("a.sbc");
    assert_eq!((d.code, d.file.as_str()), ("E0060", "a.sbc"));
    assert!(d.message.contains("bad magic"), "{}", d.message);
    let mut m = sample();
    m.budget = 0;
    let d = verify(m).unwrap_err().to_diagnostic("a.sbc");
    assert_eq!(d.code, "E0061");
    assert!(
        d.message.starts_with("invalid module: budget 0"),
        "{}",
        d.message
    );
}

#[test]
fn opcode_table_snapshot_guards_append_only_numbering() {
    // Any renumbering or operand change shows up here; only appended lines are acceptable.
    let text: String = OPCODES
        .iter()
        .map(|o| {
            let ops: Vec<String> = o
                .operands
                .iter()
                .map(|(n, k)| format!("{n}:{k:?}"))
                .collect();
            let line = format!("{:#06x} {:<22} {}", o.opcode, o.mnemonic, ops.join(" "));
            format!("{}\n", line.trim_end())
        })
        .collect();
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("bytecode_opcodes", text);
    });
}

#[test]
fn state_of_another_module_is_an_error_not_a_panic() {
    let a = verify(sample()).unwrap();
    let b = verify(sum_loop(3)).unwrap();
    let mut st = InstanceState::new(&b, 0);
    let payload = [Value::Entity(None), Value::Float(1.0)];
    let o = run(
        &a,
        &mut st,
        "animseq::run.footstep_l",
        &payload,
        &mut TestHost::default(),
    );
    assert!(
        matches!(o, Outcome::Error(ref e) if e.message.contains("does not match")),
        "{o:?}"
    );
    let o = Vm::new().run_handler(&a, &mut st, 99, &[], &mut NullHost, DEFAULT_BUDGET);
    assert!(
        matches!(o, Outcome::Error(ref e) if e.message == "no handler 99"),
        "{o:?}"
    );
}

proptest! {
    #[test]
    fn int_ops_match_rust(a in any::<i64>(), b in any::<i64>()) {
        let add = |d, a, b| Instr::IntAdd { dst: d, a, b };
        let sub = |d, a, b| Instr::IntSub { dst: d, a, b };
        let mul = |d, a, b| Instr::IntMul { dst: d, a, b };
        let div = |d, a, b| Instr::IntDiv { dst: d, a, b };
        prop_assert_eq!(int2(add, a, b), Ok(Value::Int(a.wrapping_add(b))));
        prop_assert_eq!(int2(sub, a, b), Ok(Value::Int(a.wrapping_sub(b))));
        prop_assert_eq!(int2(mul, a, b), Ok(Value::Int(a.wrapping_mul(b))));
        match a.checked_div(b) {
            Some(q) => prop_assert_eq!(int2(div, a, b), Ok(Value::Int(q))),
            None if b == 0 => prop_assert!(int2(div, a, b).is_err()),
            None => prop_assert_eq!(int2(div, a, b), Ok(Value::Int(i64::MIN))),
        }
    }

    #[test]
    fn float_to_int_matches_truncation(x in any::<f64>()) {
        let got = float1(|d, a| Instr::FloatToInt { dst: d, a }, x);
        // 2^63: every float strictly between -2^63 and 2^63 truncates to a representable i64.
        let two63 = 9_223_372_036_854_775_808.0;
        let want = if x.is_nan() { 0 } else if x >= two63 { i64::MAX } else if x < -two63 { i64::MIN } else { x.trunc() as i64 };
        prop_assert_eq!(got, Value::Int(want));
    }

    #[test]
    fn string_from_float_round_trips(x in any::<f64>().prop_filter("finite", |x| x.is_finite())) {
        let Value::Str(s) = float1(|d, a| Instr::FloatToString { dst: d, a }, x) else { panic!() };
        prop_assert_eq!(s.parse::<f64>().unwrap().to_bits(), x.to_bits());
    }
}

#[test]
fn many_overlapping_handlers_are_rejected_before_scanning_code() {
    let mut m = sum_loop(3);
    let h = m.handlers[0].clone();
    m.handlers = (0..20_000)
        .map(|k| Handler {
            event: format!("e{k}"),
            ..h.clone()
        })
        .collect();
    let e = verify(m).unwrap_err();
    assert!(e.message.contains("overlaps"), "{e}");
}

/// The definite-assignment analysis' notion of which register operands an instruction writes
/// (`bytecode::defined::writes`) agrees with the node table: the instruction of a built-in
/// node's name takes the node's data outputs first, then its inputs (`docs/bytecode.md`), so
/// its first operands — exactly as many as the node has data outputs — are the written ones.
#[test]
fn written_operands_are_the_node_tables_outputs() {
    use sinew::nodes::{PinSpec, PinType};
    let mut checked = 0;
    for k in sinew::nodes::BUILTINS {
        let Some(op) = Instr::opcode_of(k.kind) else {
            continue;
        };
        let info = Instr::info(op).expect("opcode");
        let n = info.operands.len() as u32;
        let ins = Instr::from_operands(op, &(0..n).collect::<Vec<_>>()).expect(k.kind);
        let outs = k
            .outputs
            .iter()
            .filter(|p| !matches!(p.ty, PinSpec::Fixed(PinType::Exec)))
            .count();
        let mut regs = Vec::new();
        ins.for_each_operand(&mut |name, kind, _| {
            if matches!(kind, OperandKind::Reg(_)) {
                regs.push(sinew::bytecode::defined::writes(&ins, name));
            }
        });
        let want: Vec<bool> = (0..regs.len()).map(|i| i < outs).collect();
        assert_eq!(regs, want, "{}", k.kind);
        checked += 1;
    }
    assert!(checked >= 60, "{checked} node kinds with an instruction");
    // The superinstructions write their `dst` and read everything else.
    for o in OPCODES.iter().filter(|o| o.opcode >= 0xE0) {
        let ins = Instr::from_operands(o.opcode, &vec![0; o.operands.len()]).expect(o.mnemonic);
        for (name, kind) in o.operands {
            if matches!(kind, OperandKind::Reg(_)) {
                assert_eq!(sinew::bytecode::defined::writes(&ins, name), *name == "dst");
            }
        }
    }
}

/// Registers are zeroed before a handler runs exactly when some path may read one before
/// writing it: a handler whose jump skips the write reads 0 even right after another handler
/// left 5 in that register; one that writes on every path (a loop, both sides of a branch)
/// needs no zeroing.
#[test]
fn registers_read_before_written_are_zeroed_and_only_then() {
    let mut mb = ModuleBuilder::new("defined");
    let out = mb.var::<I>("out", Const::Int(-1));
    let five = mb.const_int(5);
    let yes = mb.const_bool(true);
    // `writer`: i0 = 5.
    let mut h = mb.handler("custom::writer", &[]);
    let (r, c) = (h.reg::<I>(), h.reg::<B>());
    h.emit(Instr::LdcI { dst: r, c: five });
    h.emit(Instr::VarSetI { var: out, src: r });
    h.emit(Instr::Ret {});
    h.finish().unwrap();
    // `skipper`: jumps over its write of i0, then reads it.
    let mut h = mb.handler("custom::skipper", &[]);
    let (r, c2) = (h.reg::<I>(), h.reg::<B>());
    let over = h.label();
    h.emit(Instr::LdcB { dst: c2, c: yes });
    h.emit(Instr::JmpIf {
        cond: c2,
        target: over.target(),
    });
    h.emit(Instr::LdcI { dst: r, c: five });
    h.bind(over);
    h.emit(Instr::VarSetI { var: out, src: r });
    h.emit(Instr::Ret {});
    h.finish().unwrap();
    // `both`: writes i0 on both sides of a branch and in a loop, then reads it.
    let mut h = mb.handler("custom::both", &[]);
    let (r, c3) = (h.reg::<I>(), h.reg::<B>());
    let (other, join) = (h.label(), h.label());
    h.emit(Instr::LdcB { dst: c3, c: yes });
    h.emit(Instr::JmpIfNot {
        cond: c3,
        target: other.target(),
    });
    h.emit(Instr::LdcI { dst: r, c: five });
    h.emit(Instr::Jmp {
        target: join.target(),
    });
    h.bind(other);
    h.emit(Instr::LdcI { dst: r, c: five });
    h.bind(join);
    h.emit(Instr::VarSetI { var: out, src: r });
    h.emit(Instr::Ret {});
    h.finish().unwrap();
    let _ = c;
    let m = verify(mb.finish()).unwrap();
    let idx = |e: &str| m.handler_index(e).unwrap();
    assert!(!m.needs_reset(idx("custom::writer")));
    assert!(m.needs_reset(idx("custom::skipper")));
    assert!(!m.needs_reset(idx("custom::both")));
    let mut vm = Vm::new();
    let mut st = InstanceState::new(&m, 0);
    for e in ["custom::writer", "custom::skipper"] {
        let o = vm.run_handler(&m, &mut st, idx(e), &[], &mut NullHost, DEFAULT_BUDGET);
        assert_eq!(o, Outcome::Completed);
    }
    assert_eq!(
        st.vars()[0],
        Value::Int(0),
        "the skipped register reads zero"
    );
    let o = vm.run_handler(
        &m,
        &mut st,
        idx("custom::both"),
        &[],
        &mut NullHost,
        DEFAULT_BUDGET,
    );
    assert_eq!(
        (o, st.vars()[0].clone()),
        (Outcome::Completed, Value::Int(5))
    );
}

#[test]
fn fused_debug_entries_round_trip_and_are_verified() {
    // A superinstruction's replaced nodes travel with the module's bytes…
    let mut m = sample();
    assert!(!m.code.is_empty() && !m.nodes.is_empty());
    m.fused = vec![(0, 0)];
    let back = Module::decode(&m.encode()).expect("decodes");
    assert_eq!(back.fused, vec![(0, 0)]);
    verify(back).expect("a fused entry inside the code verifies");
    // …and the verifier refuses one past the code, naming a missing node, or out of order.
    for bad in [
        vec![(m.code.len() as u32, 0)],
        vec![(0, m.nodes.len() as u32)],
        vec![(1, 0), (0, 0)],
    ] {
        let mut m = sample();
        m.fused = bad.clone();
        assert!(verify(m).is_err(), "{bad:?} verified");
    }
}
