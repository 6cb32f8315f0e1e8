//! The game bridge (issue 26), side by side in one run; results in `docs/benchmarks.md`.
//!
//! `calls`: one handler invocation (`custom::go`, sent and flushed) running a 100-iteration
//! `flow.for` whose body calls, per iteration: `game_pure` a Pure game node `game.add(a, b) ->
//! out` bound with `GameNodes::bind` (`int` in, `int` out, reached through `GameCall`'s typed
//! getters and setter); `builtin_pure` the built-in `int.add` in the same place; `loop_only` no
//! call (the body stores the index: the cost every variant shares); `game_exec` an Exec game
//! node `game.note(message)`; `builtin_exec` `debug.log` with the same message (no trace
//! installed, as in a game). `rust_closure_*`: the bare Rust closures the bindings wrap, called
//! 100 times. Per call = (variant − `loop_only`) / 100.
//!
//! `events`: one tick of 1,000 animated characters each looping a 1 s clip with two footsteps
//! (2,000 footsteps per second, about 33 per 60 Hz tick): `off` without the `GameEvents`
//! resource (no event is built), `no_reader` with it and nobody reading (the default),
//! `on_event` with a callback that reads every notify (`is`, a typed field), `drain` with a game
//! system draining every tick after the flush.

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use bevy_ecs::prelude::*;
use criterion::{Criterion, criterion_group, criterion_main};
use sinew::project::{self, Layout, MemSource, ProjectPath};
use sinew::runtime::scene::{headless, spawn};
use sinew::runtime::{GameEvents, GameNodes, SinewSet, Trace, flush_events, on_event, send};

const NODES: &str = r#"Nodes(format: 1, nodes: [
    (kind: "game.add", flow: Pure,
     inputs: [(name: "a", type: Int), (name: "b", type: Int)],
     outputs: [(name: "out", type: Int)]),
    (kind: "game.note", flow: Exec,
     inputs: [(name: "message", type: String)]),
])"#;

/// A graph whose `custom::go` handler runs `body` 100 times (`loop.body -> X.exec`).
fn graph(name: &str, nodes: &str, links: &str) -> String {
    format!(
        "graph {name}\n\
         var acc: int = 0\n\
         node go = event custom::go\n\
         node loop = flow.for {{ first = 1, last = 100 }}\n\
         node get = var.get acc\n\
         node set = var.set acc\n\
         {nodes}\n\
         go.then -> loop.exec\n\
         {links}\n"
    )
}

fn variants() -> Vec<(&'static str, String)> {
    vec![
        (
            "loop_only",
            graph(
                "loop_only",
                "",
                "loop.body -> set.exec\nloop.index -> set.value",
            ),
        ),
        (
            "builtin_pure",
            graph(
                "builtin_pure",
                "node add = int.add",
                "loop.body -> set.exec\nget.value -> add.a\nloop.index -> add.b\nadd.out -> set.value",
            ),
        ),
        (
            "game_pure",
            graph(
                "game_pure",
                "node add = game.add",
                "loop.body -> set.exec\nget.value -> add.a\nloop.index -> add.b\nadd.out -> set.value",
            ),
        ),
        (
            "builtin_exec",
            graph(
                "builtin_exec",
                "node say = debug.log { message = \"step\" }",
                "loop.body -> say.exec",
            ),
        ),
        (
            "game_exec",
            graph(
                "game_exec",
                "node say = game.note { message = \"step\" }",
                "loop.body -> say.exec",
            ),
        ),
    ]
}

fn path(p: &str) -> ProjectPath {
    ProjectPath::new(p).expect(p)
}

/// A headless world (no trace) running `scene` over the in-memory `files`, with `prepare`
/// run before spawning.
fn world(
    files: &[(String, String)],
    scene: String,
    prepare: impl FnOnce(&mut World),
) -> (World, Schedule, Vec<Entity>) {
    let mut mem = MemSource::new();
    for (p, text) in files {
        mem.insert(path(p), text.as_str());
    }
    mem.insert(path("scenes/bench.scene.ron"), scene);
    let layout = Layout::new(path("scenes/bench.scene.ron"), path("assets"));
    let loaded = project::load(&mem, &layout).expect("readable");
    let Some((def, assets)) = loaded.ready() else {
        panic!("the bench scene loads: {:#?}", loaded.run_diagnostics());
    };
    let (mut world, schedule) = headless(1.0 / 60.0).expect("dt");
    world.remove_resource::<Trace>();
    prepare(&mut world);
    let spawned = spawn(&mut world, def, assets).expect("spawn");
    let entities = spawned.entities.iter().map(|(_, e, _)| *e).collect();
    (world, schedule, entities)
}

fn bindings() -> GameNodes {
    let mut nodes = GameNodes::new();
    nodes.bind("game.add", |c| {
        let (a, b) = (c.int("a")?, c.int("b")?);
        c.set_int("out", a.wrapping_add(b));
        Ok(())
    });
    nodes.bind("game.note", |c| {
        black_box(c.str("message")?);
        Ok(())
    });
    nodes
}

fn bench_calls(c: &mut Criterion) {
    let mut g = c.benchmark_group("bridge_calls");
    for (name, text) in variants() {
        let files = vec![
            ("assets/game.nodes.ron".to_string(), NODES.to_string()),
            (format!("scenes/{name}.bpg"), text),
        ];
        let scene = format!("Scene(entities: [(name: \"e\", graphs: [\"{name}.bpg\"])])");
        let (mut world, mut schedule, entities) =
            world(&files, scene, |w| w.insert_resource(bindings()));
        schedule.run(&mut world); // begin_play
        let e = entities[0];
        g.bench_function(name, |b| {
            b.iter(|| {
                send(&mut world, e, "custom::go", None, &[]).expect("handled");
                flush_events(&mut world);
            })
        });
    }
    let add = |a: i64, b: i64| a.wrapping_add(b);
    g.bench_function("rust_closure_pure", |b| {
        b.iter(|| {
            let mut acc = 0i64;
            for i in 1..=100 {
                acc = black_box(add(black_box(acc), i));
            }
            acc
        })
    });
    let note = |m: &str| {
        black_box(m);
    };
    g.bench_function("rust_closure_exec", |b| {
        b.iter(|| {
            for _ in 0..100 {
                note(black_box("step"));
            }
        })
    });
    g.finish();
}

const CHARACTERS: usize = 1_000;

const STEPS: &str = r#"AnimSeq(format: 4, id: "steps", name: "Steps", duration: 1.0, tracks: [],
    notifies: [
        (id: "footstep_l", name: "Footstep L", time: 0.25, fields: [("surface", String("grass")), ("volume", Float(0.9))]),
        (id: "footstep_r", name: "Footstep R", time: 0.75, fields: [("surface", String("grass")), ("volume", Float(0.9))]),
    ])"#;

#[derive(Resource, Default)]
struct Steps(u64);

fn drain_steps(mut events: ResMut<GameEvents>, mut steps: ResMut<Steps>) {
    for ev in events.drain() {
        if ev.is("footstep_l") || ev.f32("volume").is_some() {
            steps.0 += 1;
        }
    }
}

fn bench_events(c: &mut Criterion) {
    let files = vec![("assets/steps.animseq".to_string(), STEPS.to_string())];
    // Start times spread over the cycle, so every tick carries its share of the footsteps.
    let entities: Vec<String> = (0..CHARACTERS)
        .map(|i| {
            format!(
                r#"(name: "c{i}", animator: Some((clips: {{"walk": "steps.animseq"}}, default_clip: Some("walk"))))"#
            )
        })
        .collect();
    let actions: Vec<String> = (0..CHARACTERS)
        .map(|i| {
            let at = (i as f64) / CHARACTERS as f64;
            format!(r#"(at: 0.0, entity: "c{i}", action: Seek({at:?}))"#)
        })
        .collect();
    let scene = format!(
        "Scene(entities: [{}], actions: [{}])",
        entities.join(","),
        actions.join(",")
    );
    let mut g = c.benchmark_group("bridge_events");
    let heard = Arc::new(AtomicU64::new(0));
    for name in ["off", "no_reader", "on_event", "drain"] {
        let h = heard.clone();
        let (mut world, mut schedule, _) = world(&files, scene.clone(), move |w| match name {
            "off" => {
                w.remove_resource::<GameEvents>();
            }
            "on_event" => on_event(w, move |_, ev| {
                if ev.is("footstep_l") || ev.f32("volume").is_some() {
                    h.fetch_add(1, Ordering::Relaxed);
                }
            }),
            "drain" => {
                w.init_resource::<Steps>();
            }
            _ => {}
        });
        if name == "drain" {
            schedule.add_systems(drain_steps.after(SinewSet::Flush));
        }
        for _ in 0..60 {
            schedule.run(&mut world);
        }
        g.bench_function(name, |b| b.iter(|| schedule.run(&mut world)));
        if name == "drain" {
            assert!(world.resource::<Steps>().0 > 1_000, "the reader heard them");
        }
    }
    assert!(
        heard.load(Ordering::Relaxed) > 1_000,
        "the callback heard them"
    );
    g.finish();
}

criterion_group!(benches, bench_calls, bench_events);
criterion_main!(benches);
