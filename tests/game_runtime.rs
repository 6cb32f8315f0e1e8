//! Game nodes at run time (`bridge.md` §1): the demo scene's graphs call `game.play_sound`,
//! `game.health` and `game.apply_damage` (assets/game.nodes.ron). Bound through
//! `runtime::GameNodes`, the implementations see typed inputs, set outputs and reach the world;
//! an unbound node refuses to spawn, naming it; an implementation's error is an `error` record
//! on the calling entity; without bindings (`sinew run`) every call returns its defaults.

use bevy_ecs::prelude::*;
use sinew::project;
use sinew::runtime::scene::spawn;
use sinew::runtime::{
    AnimationSet, Dispatcher, GameNodeError, GameNodes, GameTime, Trace, TraceKind, VmDispatch,
    add_sinew_systems, animate, init_world,
};

#[derive(Resource, Default)]
struct Sounds(Vec<(Entity, String, f32)>);

/// The demo loaded into a world with `nodes` (when given); spawn's result and the world.
fn world_with(nodes: Option<GameNodes>) -> (Result<(), String>, World, Schedule) {
    let loaded = project::load_files(
        std::path::Path::new("scenes/demo.scene.ron"),
        std::path::Path::new("assets"),
    )
    .unwrap();
    let (def, assets) = loaded.ready().expect("the demo loads");
    let mut world = World::new();
    init_world(&mut world);
    world.insert_resource(GameTime::new(1.0 / 60.0).unwrap());
    world.insert_resource(Dispatcher::new(VmDispatch::new()));
    world.insert_resource(Trace::default());
    world.init_resource::<Sounds>();
    if let Some(n) = nodes {
        world.insert_resource(n);
    }
    let mut schedule = Schedule::default();
    add_sinew_systems(&mut schedule);
    schedule.add_systems(animate.in_set(AnimationSet));
    let r = spawn(&mut world, def, assets)
        .map(|_| ())
        .map_err(|e| e.to_string());
    (r, world, schedule)
}

fn run(world: &mut World, schedule: &mut Schedule, ticks: usize) -> Vec<TraceKind> {
    let mut out = Vec::new();
    for _ in 0..ticks {
        schedule.run(world);
        out.extend(
            world
                .resource_mut::<Trace>()
                .drain()
                .into_iter()
                .map(|r| r.kind),
        );
    }
    out
}

fn calls(trace: &[TraceKind]) -> Vec<String> {
    trace
        .iter()
        .filter_map(|k| match k {
            TraceKind::Call {
                call,
                inputs,
                outputs,
                node,
                ..
            } => Some(format!("{node} {call} {inputs:?} -> {outputs:?}")),
            _ => None,
        })
        .collect()
}

#[test]
fn an_unbound_game_node_refuses_to_spawn_naming_it_and_nothing_is_spawned() {
    let mut nodes = GameNodes::new();
    nodes.bind("game.health", |_| Ok(()));
    let (r, mut world, _) = world_with(Some(nodes));
    let e = r.unwrap_err();
    assert!(
        e.contains(
            "graph `villager` calls game node `game.play_sound`, which the game does not bind"
        ),
        "{e}"
    );
    let mut q = world.query::<&sinew::runtime::Graphs>();
    assert_eq!(q.iter(&world).count(), 0, "nothing half-spawned");
}

#[test]
fn bound_game_nodes_see_typed_inputs_set_outputs_and_reach_the_world() {
    let mut nodes = GameNodes::new();
    nodes
        .bind("game.play_sound", |call| {
            let sound = call.str("sound")?.to_string();
            let volume = call.f32("volume")?;
            let who = call.entity();
            call.world()
                .resource_mut::<Sounds>()
                .0
                .push((who, sound, volume));
            call.set_bool("played", false);
            Ok(())
        })
        .bind("game.health", |call| {
            // The unlinked entity input is the caller itself.
            assert_eq!(call.entity_in("of")?, call.entity());
            call.set_f32("value", 75.0);
            Ok(())
        })
        .bind("game.apply_damage", |call| {
            let amount = call.f32("amount")?;
            call.set_f32("remaining", 75.0 - amount);
            Ok(())
        });
    let (r, mut world, mut schedule) = world_with(Some(nodes));
    r.unwrap();
    let trace = run(&mut world, &mut schedule, 80);
    let sounds = &world.resource::<Sounds>().0;
    assert_eq!(sounds.len(), 2, "{sounds:?}");
    assert!(
        sounds
            .iter()
            .all(|(_, s, v)| s == "villager_step" && *v == 0.5)
    );
    let calls = calls(&trace);
    assert_eq!(calls.len(), 4, "{calls:#?}");
    assert!(
        calls[0].contains("step game.play_sound")
            && calls[0].ends_with("[(\"played\", Bool(false))]")
    );
    assert!(
        calls[2].starts_with("hp game.health") && calls[2].ends_with("[(\"value\", Float(75.0))]")
    );
    assert!(
        calls[3].starts_with("strike game.apply_damage")
            && calls[3].ends_with("[(\"remaining\", Float(63.0))]"),
        "{}",
        calls[3]
    );
}

#[test]
fn an_implementation_error_is_an_error_record_on_the_calling_entity() {
    let mut nodes = GameNodes::new();
    nodes
        .bind("game.play_sound", |_| {
            Err(GameNodeError::from("no audio device"))
        })
        .bind("game.health", |call| {
            // A misnamed output fails the call rather than being ignored.
            call.set_f32("hp", 1.0);
            Ok(())
        })
        .bind("game.apply_damage", |_| Ok(()));
    let (r, mut world, mut schedule) = world_with(Some(nodes));
    r.unwrap();
    let trace = run(&mut world, &mut schedule, 80);
    let errors: Vec<String> = trace
        .iter()
        .filter_map(|k| match k {
            TraceKind::Error {
                graph: Some(g),
                node: Some(n),
                message,
                entity: Some(_),
            } => Some(format!("{g}.{n}: {message}")),
            _ => None,
        })
        .collect();
    assert_eq!(
        errors,
        [
            "villager.step: `game.play_sound`: no audio device",
            "villager.step: `game.play_sound`: no audio device",
            "knight.hp: `game.health`: `game.health` has no output `hp` (outputs: value)",
        ]
    );
    // The game keeps running: later notifies still arrive.
    assert!(trace.iter().any(|k| matches!(k, TraceKind::Log { .. })));
}

#[test]
fn without_bindings_every_call_returns_its_declared_defaults() {
    for nodes in [None, Some(GameNodes::headless())] {
        let (r, mut world, mut schedule) = world_with(nodes);
        r.unwrap();
        let calls = calls(&run(&mut world, &mut schedule, 80));
        assert_eq!(calls.len(), 4, "{calls:#?}");
        assert!(
            calls[3].ends_with("[(\"remaining\", Float(90.0))]"),
            "{}",
            calls[3]
        );
    }
}

/// A call finds its binding by a slot the instance resolved at attach: a kind bound after the
/// spawn, and a whole new `GameNodes` whose slots are in another order, are still the ones
/// called (the resolution is redone, never taken from another set of bindings).
#[test]
fn bindings_made_after_the_spawn_or_replaced_whole_are_the_ones_called() {
    let health = |call: &mut sinew::runtime::GameCall<'_>| {
        call.set_f32("value", 75.0);
        Ok(())
    };
    let damage = |call: &mut sinew::runtime::GameCall<'_>| {
        let amount = call.f32("amount")?;
        call.set_f32("remaining", 50.0 - amount);
        Ok(())
    };
    // Bound after the spawn (headless: spawning needed none).
    let (r, mut world, mut schedule) = world_with(Some(GameNodes::headless()));
    r.unwrap();
    world
        .resource_mut::<GameNodes>()
        .bind("game.health", health);
    let late = calls(&run(&mut world, &mut schedule, 80));
    assert!(late[2].ends_with("[(\"value\", Float(75.0))]"), "{late:#?}");
    assert!(
        late[3].ends_with("[(\"remaining\", Float(90.0))]"),
        "{late:#?}"
    );
    // Replaced whole, the kinds in other slots.
    let mut first = GameNodes::headless();
    first.bind("game.health", |_| Err("the replaced binding ran".into()));
    first.bind("game.apply_damage", |_| {
        Err("the replaced binding ran".into())
    });
    let (r, mut world, mut schedule) = world_with(Some(first));
    r.unwrap();
    let mut second = GameNodes::headless();
    second.bind("game.apply_damage", damage);
    second.bind("game.health", health);
    world.insert_resource(second);
    let trace = run(&mut world, &mut schedule, 80);
    let replaced = calls(&trace);
    assert!(
        !trace.iter().any(|k| matches!(k, TraceKind::Error { .. })),
        "{trace:#?}"
    );
    assert!(
        replaced[2].ends_with("[(\"value\", Float(75.0))]"),
        "{replaced:#?}"
    );
    assert!(
        replaced[3].ends_with("[(\"remaining\", Float(38.0))]"),
        "{replaced:#?}"
    );
}

fn load(scene: &str) -> project::LoadedScene {
    project::load_files(
        std::path::Path::new(scene),
        std::path::Path::new("tests/fixtures/game/assets"),
    )
    .unwrap()
}

#[test]
fn a_scenes_returns_override_what_the_recorder_returns_per_entity() {
    let loaded = load("tests/fixtures/game/returns.scene.ron");
    let (def, assets) = loaded.ready().unwrap_or_else(|| {
        panic!(
            "{}",
            sinew::diag::render::human(&loaded.run_diagnostics(), false)
        )
    });
    let mut world = World::new();
    init_world(&mut world);
    world.insert_resource(GameTime::new(1.0 / 60.0).unwrap());
    world.insert_resource(Dispatcher::new(VmDispatch::new()));
    world.insert_resource(Trace::default());
    let mut schedule = Schedule::default();
    add_sinew_systems(&mut schedule);
    spawn(&mut world, def, assets).unwrap();
    let calls = calls(&run(&mut world, &mut schedule, 20));
    // One call: `killed` is true, so the branch's false side (the second call) never runs;
    // `remaining` keeps its declared default.
    assert_eq!(calls.len(), 1, "{calls:#?}");
    assert!(
        calls[0].ends_with("[(\"remaining\", Float(90.0)), (\"killed\", Bool(true))]"),
        "{}",
        calls[0]
    );
}

#[test]
fn bad_returns_are_scene_diagnostics_naming_the_choices() {
    let loaded = load("tests/fixtures/game/bad_returns.scene.ron");
    assert!(loaded.ready().is_none());
    let text = sinew::diag::render::human(&loaded.run_diagnostics(), false);
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false, omit_expression => true}, {
        insta::assert_snapshot!("game_bad_returns", text);
    });
}

#[test]
fn returns_give_no_entity_values() {
    let src = sinew::diag::SourceFile::new(
        "x.scene.ron",
        "Scene(entities: [(name: \"a\", returns: {\"game.x\": {\"who\": Entity(\"a\")}})])",
    );
    let parsed = sinew::scene::parse(&src);
    assert!(parsed.scene.is_none());
    let text = sinew::diag::render::human(&parsed.diagnostics, false);
    assert!(
        text.contains("E0558") && text.contains("`returns` gives no entity values"),
        "{text}"
    );
}
