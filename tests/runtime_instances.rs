//! Graph instances, the VM dispatcher and the animator, driven with hand-built modules
//! (`ModuleBuilder`) in a headless world: payload mapping, errors, delays, targets.

use std::sync::Arc;

use bevy_ecs::prelude::*;
use sinew::animseq::{AnimSeq, FieldValue, Notify, Target};
use sinew::bytecode::{
    Const, E, EntityConst, F, I, Instr, Module, ModuleBuilder, S, Type, Value, VerifiedModule,
    verify,
};
use sinew::runtime::scene::headless;
use sinew::runtime::{
    AnimCommand, Animator, AttachError, Clip, EventHub, Graphs, Trace, TraceKind, attach_graphs,
};

fn seq(notifies: Vec<Notify>) -> Arc<AnimSeq> {
    Arc::new(AnimSeq {
        id: "s".into(),
        name: "S".into(),
        duration: 1.0,
        skeleton: None,
        tracks: Vec::new(),
        notifies,
        windows: Vec::new(),
        curves: Vec::new(),
        root_motion: None,
    })
}

fn notify(id: &str, time: f64, target: Target, fields: Vec<(String, FieldValue)>) -> Notify {
    Notify {
        id: id.into(),
        name: id.into(),
        time,
        target,
        fields,
        gating: Default::default(),
    }
}

/// The boundary under test: a headless world with `entities` (each: optional clip, modules),
/// run for `ticks` ticks of `dt`; returns the world, the entities and every trace record kind.
fn check(
    dt: f64,
    ticks: usize,
    entities: Vec<(Option<Arc<AnimSeq>>, Vec<Module>)>,
) -> (World, Vec<Entity>, Vec<(u64, TraceKind)>) {
    let (mut world, mut schedule) = headless(dt).expect("valid dt");
    let mut ids = Vec::new();
    for (clip, modules) in entities {
        let e = world.spawn_empty().id();
        if let Some(s) = clip {
            let clip = Clip::new(s, &mut world.resource_mut::<EventHub>()).expect("clip");
            let mut a = Animator::new();
            a.add_clip("c", Arc::new(clip));
            assert!(a.play("c"));
            world.entity_mut(e).insert(a);
        }
        let modules: Vec<Arc<VerifiedModule>> = modules
            .into_iter()
            .map(|m| Arc::new(verify(m).expect("verifies")))
            .collect();
        if !modules.is_empty() {
            attach_graphs(&mut world, e, &modules).expect("attach");
        }
        ids.push(e);
    }
    let mut records = Vec::new();
    for _ in 0..ticks {
        schedule.run(&mut world);
        records.extend(
            world
                .resource_mut::<Trace>()
                .drain()
                .into_iter()
                .map(|r| (r.tick, r.kind)),
        );
    }
    (world, ids, records)
}

fn vars(world: &World, e: Entity) -> Vec<Value> {
    world.get::<Graphs>(e).expect("graphs").instances()[0]
        .vars()
        .into_iter()
        .map(|(_, _, v)| v.clone())
        .collect()
}

/// A module storing every parameter of the `animseq::s.a` handler (entity, time, clip_time,
/// cycle, surface, weight) into variables.
fn store_notify_params() -> Module {
    let mut mb = ModuleBuilder::new("store");
    let ve = mb.var::<E>("entity", Const::Entity(EntityConst::None));
    let vt = mb.var::<F>("time", Const::Float(-1.0));
    let vc = mb.var::<F>("clip_time", Const::Float(-1.0));
    let vk = mb.var::<I>("cycle", Const::Int(-1));
    let vs = mb.var::<S>("surface", Const::Str(String::new()));
    let vw = mb.var::<I>("weight", Const::Int(-1));
    // entity, time, clip_time, cycle, clip_weight, then the fields.
    let params = [
        Type::Entity,
        Type::Float,
        Type::Float,
        Type::Int,
        Type::Float,
        Type::Str,
        Type::Int,
    ];
    let mut h = mb.handler("animseq::s.a", &params);
    let (e, t, c, k, s, w) = (
        h.reg::<E>(),
        h.reg::<F>(),
        h.reg::<F>(),
        h.reg::<I>(),
        h.reg::<S>(),
        h.reg::<I>(),
    );
    h.emit(Instr::ParamE {
        dst: e,
        p: h.param(0),
    });
    h.emit(Instr::ParamF {
        dst: t,
        p: h.param(1),
    });
    h.emit(Instr::ParamF {
        dst: c,
        p: h.param(2),
    });
    h.emit(Instr::ParamI {
        dst: k,
        p: h.param(3),
    });
    h.emit(Instr::ParamS {
        dst: s,
        p: h.param(5),
    });
    h.emit(Instr::ParamI {
        dst: w,
        p: h.param(6),
    });
    h.emit(Instr::VarSetE { var: ve, src: e });
    h.emit(Instr::VarSetF { var: vt, src: t });
    h.emit(Instr::VarSetF { var: vc, src: c });
    h.emit(Instr::VarSetI { var: vk, src: k });
    h.emit(Instr::VarSetS { var: vs, src: s });
    h.emit(Instr::VarSetI { var: vw, src: w });
    h.emit(Instr::Ret {});
    h.finish().expect("labels");
    mb.finish()
}

fn step_a() -> Notify {
    notify(
        "a",
        0.25,
        Target::Owner,
        vec![
            ("surface".into(), FieldValue::String("mud".into())),
            ("weight".into(), FieldValue::Int(7)),
        ],
    )
}

#[test]
fn notify_payload_maps_to_handler_params() {
    // dt 0.5: tick 1 plays [0, 0.5] (a at 0.25, cycle 0); tick 2 (0.5, 1.0]; tick 3 (1.0, 1.5]
    // plays a again in cycle 1 at unwrapped 1.25.
    let (world, ids, records) = check(
        0.5,
        3,
        vec![(Some(seq(vec![step_a()])), vec![store_notify_params()])],
    );
    let owner = ids[0].to_bits();
    assert_eq!(
        vars(&world, ids[0]),
        vec![
            Value::Entity(Some(owner)),
            Value::Float(1.25),
            Value::Float(0.25),
            Value::Int(1),
            Value::Str("mud".into()),
            Value::Int(7),
        ]
    );
    let notifies: Vec<u64> = records
        .iter()
        .filter(|(_, k)| matches!(k, TraceKind::Notify { .. }))
        .map(|(t, _)| *t)
        .collect();
    assert_eq!(notifies, vec![1, 3]);
}

#[test]
fn shared_sequence_reaches_only_the_playing_entity() {
    // Both entities play the same sequence; only the first starts at once (the second is paused).
    let s = seq(vec![step_a()]);
    let (mut world, mut schedule) = headless(0.5).expect("dt");
    let mut ids = Vec::new();
    for paused in [false, true] {
        let e = world.spawn_empty().id();
        let clip = Clip::new(s.clone(), &mut world.resource_mut::<EventHub>()).expect("clip");
        let mut a = Animator::new();
        a.add_clip("c", Arc::new(clip));
        a.play("c");
        if paused {
            a.queue(AnimCommand::Pause);
        }
        world.entity_mut(e).insert(a);
        let m = Arc::new(verify(store_notify_params()).expect("verifies"));
        attach_graphs(&mut world, e, &[m]).expect("attach");
        ids.push(e);
    }
    schedule.run(&mut world);
    assert_eq!(vars(&world, ids[0])[3], Value::Int(0));
    assert_eq!(
        vars(&world, ids[1])[3],
        Value::Int(-1),
        "paused entity heard nothing"
    );
}

#[test]
fn payload_mismatch_is_a_runtime_error() {
    let mut mb = ModuleBuilder::new("wrong");
    let mut h = mb.handler("tick", &[Type::Int]);
    h.emit(Instr::Ret {});
    h.finish().expect("labels");
    let (_, _, records) = check(0.1, 2, vec![(None, vec![mb.finish()])]);
    let errors: Vec<&TraceKind> = records
        .iter()
        .map(|(_, k)| k)
        .filter(|k| matches!(k, TraceKind::Error { .. }))
        .collect();
    assert_eq!(errors.len(), 2, "{records:?}");
    let TraceKind::Error { graph, message, .. } = errors[0] else {
        unreachable!()
    };
    assert_eq!(graph.as_deref(), Some("wrong"));
    assert!(message.contains("payload"), "{message}");
}

/// `tick` → delay `seconds` → count into `resumed`.
fn delayed_counter(seconds: f64) -> Module {
    let mut mb = ModuleBuilder::new("delayed");
    let out = mb.var::<I>("resumed", Const::Int(0));
    let node = mb.node("wait");
    let d = mb.delay(node);
    let secs = mb.const_float(seconds);
    let one = mb.const_int(1);
    let mut h = mb.handler("tick", &[Type::Float]);
    h.at(node);
    let (s, n, k) = (h.reg::<F>(), h.reg::<I>(), h.reg::<I>());
    let busy = h.label();
    h.emit(Instr::LdcF { dst: s, c: secs });
    h.emit(Instr::Delay {
        delay: d,
        seconds: s,
        busy: busy.target(),
    });
    h.emit(Instr::VarGetI { dst: n, var: out });
    h.emit(Instr::LdcI { dst: k, c: one });
    h.emit(Instr::IntAdd { dst: n, a: n, b: k });
    h.emit(Instr::VarSetI { var: out, src: n });
    h.bind(busy);
    h.emit(Instr::Ret {});
    h.finish().expect("labels");
    mb.finish()
}

#[test]
fn delays_resume_on_the_due_tick_and_infinite_ones_never() {
    // 0.3 s at dt 0.1: started in tick 1 (t 0), resumes in tick 4 (t 0.3), restarted by tick
    // 4's tick event, resumes in tick 7, 10: three resumes in 10 ticks.
    let (world, ids, records) = check(
        0.1,
        10,
        vec![
            (None, vec![delayed_counter(0.3)]),
            (None, vec![delayed_counter(f64::INFINITY)]),
        ],
    );
    assert_eq!(vars(&world, ids[0]), vec![Value::Int(3)]);
    assert_eq!(vars(&world, ids[1]), vec![Value::Int(0)]);
    let g = world.get::<Graphs>(ids[1]).expect("graphs");
    assert_eq!(g.instances()[0].pending_delays(), 1);
    assert!(records.is_empty(), "{records:?}");
}

#[test]
fn variable_target_resolves_at_fire_time() {
    // The owner's graph declares `buddy: entity` (default: the owner itself).
    let mut mb = ModuleBuilder::new("holder");
    mb.var::<E>("buddy", Const::Entity(EntityConst::Owner));
    let holder = mb.finish();
    let s = seq(vec![notify(
        "a",
        0.25,
        Target::Variable("buddy".into()),
        vec![
            ("surface".into(), FieldValue::String("mud".into())),
            ("weight".into(), FieldValue::Int(7)),
        ],
    )]);
    let (world, ids, records) = check(0.5, 1, vec![(Some(s), vec![holder, store_notify_params()])]);
    // Delivered to the owner (buddy = owner), whose second instance stores the source entity.
    let g = world.get::<Graphs>(ids[0]).expect("graphs");
    let stored: Vec<Value> = g.instances()[1]
        .vars()
        .into_iter()
        .map(|(_, _, v)| v.clone())
        .collect();
    assert_eq!(stored[0], Value::Entity(Some(ids[0].to_bits())));
    assert!(matches!(&records[0].1, TraceKind::Notify { entity, .. } if *entity == ids[0]));
}

#[test]
fn attach_refuses_twice_and_missing_entities() {
    let (mut world, _) = headless(0.1).expect("dt");
    let e = world.spawn_empty().id();
    let m = Arc::new(verify(delayed_counter(1.0)).expect("verifies"));
    attach_graphs(&mut world, e, std::slice::from_ref(&m)).expect("first attach");
    assert_eq!(
        attach_graphs(&mut world, e, std::slice::from_ref(&m)),
        Err(AttachError::AlreadyAttached)
    );
    world.despawn(e);
    assert_eq!(
        attach_graphs(&mut world, e, &[m]),
        Err(AttachError::NoEntity)
    );
}

#[test]
fn trace_is_bounded_between_drains() {
    // A tick handler logging 50 times per invocation, with the trace limited to 10 records.
    let mut mb = ModuleBuilder::new("chatty");
    let hello = mb.const_str("hello");
    let mut h = mb.handler("tick", &[Type::Float]);
    let s = h.reg::<S>();
    h.emit(Instr::LdcS { dst: s, c: hello });
    for _ in 0..50 {
        h.emit(Instr::Log { message: s });
    }
    h.emit(Instr::Ret {});
    h.finish().expect("labels");
    let (mut world, mut schedule) = headless(0.1).expect("dt");
    world.resource_mut::<Trace>().limit = 10;
    let e = world.spawn_empty().id();
    let m = Arc::new(verify(mb.finish()).expect("verifies"));
    attach_graphs(&mut world, e, &[m]).expect("attach");
    for _ in 0..2 {
        schedule.run(&mut world);
        let records = world.resource_mut::<Trace>().drain();
        assert_eq!(records.len(), 11);
        assert!(
            matches!(&records[10].kind, TraceKind::Error { message, .. } if message.starts_with("40 trace record(s) dropped"))
        );
    }
}
