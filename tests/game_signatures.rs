//! A module compiled against one set of game node declarations refuses to attach where a
//! declaration it imports is gone or has another signature (`bridge.md` §1; `E0062`): the
//! message names the graph, its calling node and both signatures. Unchanged declarations attach.
//! The module is precompiled (`.sbc` bytes, decoded and verified again), as a game shipping
//! built graphs would load it.

use std::sync::Arc;

use sinew::bytecode::{self, Module, VerifiedModule};
use sinew::project::{self, Layout, MemSource, ProjectPath};
use sinew::runtime::scene::{headless, spawn};
use sinew::runtime::{GameDeclarations, attach_graphs};
use sinew::scene::{SceneAssets, SceneDef};

const HIT_A: &str = r#"(kind: "game.hit", flow: Exec,
    inputs: [(name: "amount", type: Float)], outputs: [(name: "left", type: Float)])"#;
const HEALTH: &str =
    r#"(kind: "game.health", flow: Pure, outputs: [(name: "value", type: Float)])"#;

const GRAPH: &str = "graph fighter\n\
    node start = event begin_play\n\
    node strike = game.hit { amount = 2.0 }\n\
    start.then -> strike.exec\n";

fn path(p: &str) -> ProjectPath {
    ProjectPath::new(p).expect(p)
}

/// The scene `(fighter: [fighter.bpg])` loaded over `assets/game.nodes.ron` declaring `nodes`
/// (`with_graph: false`: a scene without graphs, for the declarations alone).
fn load(nodes: &[&str], with_graph: bool) -> (SceneDef, SceneAssets) {
    let mut mem = MemSource::new();
    mem.insert(
        path("assets/game.nodes.ron"),
        format!("Nodes(format: 1, nodes: [{}])", nodes.join(",")),
    );
    mem.insert(path("scenes/fighter.bpg"), GRAPH);
    let graphs = if with_graph {
        r#"["fighter.bpg"]"#
    } else {
        "[]"
    };
    mem.insert(
        path("scenes/s.scene.ron"),
        format!(r#"Scene(entities: [(name: "fighter", graphs: {graphs})])"#),
    );
    let loaded = project::load(
        &mem,
        &Layout::new(path("scenes/s.scene.ron"), path("assets")),
    )
    .expect("readable");
    let Some((def, assets)) = loaded.ready() else {
        panic!("loads: {:#?}", loaded.run_diagnostics());
    };
    (def.clone(), assets.clone())
}

/// The graph compiled against `HIT_A`, written to `.sbc` bytes and read back.
fn precompiled() -> Arc<VerifiedModule> {
    let (_, assets) = load(&[HIT_A, HEALTH], true);
    let bytes = assets
        .graphs
        .values()
        .next()
        .expect("compiled")
        .module()
        .encode();
    let m = bytecode::verify(Module::decode(&bytes).expect("decodes")).expect("verifies");
    Arc::new(m)
}

/// Declaration sets that break the module: (what changed, the nodes, the message's tail).
fn changed() -> Vec<(&'static str, Vec<&'static str>, &'static str)> {
    vec![
        (
            "a pin's type",
            vec![
                r#"(kind: "game.hit", flow: Exec,
                    inputs: [(name: "amount", type: Int)], outputs: [(name: "left", type: Float)])"#,
                HEALTH,
            ],
            "but the project declares `game.hit(Exec: amount: int -> left: float)`",
        ),
        (
            "the kind removed",
            vec![HEALTH],
            "but no `*.nodes.ron` declares `game.hit` any more",
        ),
        (
            "an output added",
            vec![
                r#"(kind: "game.hit", flow: Exec, inputs: [(name: "amount", type: Float)],
                    outputs: [(name: "left", type: Float), (name: "dead", type: Bool)])"#,
                HEALTH,
            ],
            "but the project declares `game.hit(Exec: amount: float -> left: float, dead: bool)`",
        ),
    ]
}

/// The scene with `module` in place of the graph it compiles, and `declared` as the
/// declarations of the day.
fn swapped(
    module: &Arc<VerifiedModule>,
    declared: &std::collections::BTreeMap<String, bytecode::Import>,
) -> (SceneDef, SceneAssets) {
    let (def, mut assets) = load(&[HIT_A, HEALTH], true);
    for m in assets.graphs.values_mut() {
        *m = module.clone();
    }
    assets.game_nodes = Some(declared.clone());
    (def, assets)
}

const COMPILED: &str = "graph `fighter` (node `strike`) was compiled against \
    `game.hit(Exec: amount: float -> left: float)`, ";

#[test]
fn a_changed_declaration_refuses_the_precompiled_module_naming_node_and_both_signatures() {
    let module = precompiled();
    for (what, nodes, tail) in changed() {
        // The load-time diagnostic of the module file.
        let (_, now) = load(&nodes, false);
        let declared = now
            .game_nodes
            .clone()
            .expect("the loader fills the declarations");
        let bad = bytecode::mismatched_imports(module.module(), |k| declared.get(k));
        assert_eq!(bad.len(), 1, "{what}: {bad:#?}");
        let d = bad[0].to_diagnostic("fighter.sbc");
        assert_eq!(d.code, "E0062", "{what}");
        assert!(d.message.starts_with(COMPILED), "{what}: {}", d.message);
        assert!(d.message.contains(tail), "{what}: {}", d.message);

        // Spawning the scene with the module swapped in: refused, nothing spawned.
        let (def, assets) = swapped(&module, &declared);
        let (mut world, _) = headless(1.0 / 60.0).expect("dt");
        let e = spawn(&mut world, &def, &assets).unwrap_err().to_string();
        assert!(e.starts_with("entity `fighter`: "), "{what}: {e}");
        assert!(e.contains(COMPILED) && e.contains(tail), "{what}: {e}");
        let mut q = world.query::<&sinew::runtime::Graphs>();
        assert_eq!(q.iter(&world).count(), 0, "{what}: nothing half-spawned");

        // The library's attach, with the declarations in the world.
        world.insert_resource(GameDeclarations(declared));
        let entity = world.spawn_empty().id();
        let e = attach_graphs(&mut world, entity, std::slice::from_ref(&module))
            .unwrap_err()
            .to_string();
        assert!(e.contains(COMPILED) && e.contains(tail), "{what}: {e}");
    }
}

#[test]
fn unchanged_declarations_attach_and_defaults_are_not_part_of_the_signature() {
    let module = precompiled();
    let other_default = r#"(kind: "game.hit", flow: Exec, inputs: [(name: "amount", type: Float)],
        outputs: [(name: "left", type: Float, default: Float(7.0))])"#;
    for nodes in [vec![HIT_A, HEALTH], vec![other_default]] {
        let (_, now) = load(&nodes, false);
        let declared = now.game_nodes.clone().expect("filled");
        assert!(bytecode::mismatched_imports(module.module(), |k| declared.get(k)).is_empty());
        let (def, assets) = swapped(&module, &declared);
        let (mut world, _) = headless(1.0 / 60.0).expect("dt");
        spawn(&mut world, &def, &assets).expect("spawns");
        world.insert_resource(GameDeclarations(declared));
        let entity = world.spawn_empty().id();
        attach_graphs(&mut world, entity, std::slice::from_ref(&module)).expect("attaches");
    }
}
