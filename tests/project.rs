//! The project loader through its public API: a project in memory ([`MemSource`]) loaded,
//! spawned and run; diagnostics as data; paths confined to the project; size limits; the
//! validation passes; [`ProjectPath`] normalization under proptest.

use proptest::prelude::*;
use sinew::fsutil::InputKind;
use sinew::project::{self, Layout, LoadedScene, MemSource, PASSES, PathError, ProjectPath};
use sinew::runtime::scene::{headless, spawn};
use sinew::runtime::{TraceFormat, TraceWriter};

const CLIP: &str = r#"AnimSeq(format: 2, id: "steps", name: "Steps", duration: 1.0, tracks: [],
    notifies: [(id: "a", name: "A", time: 0.25)])"#;
const GRAPH: &str = "graph counter\n\nvar a: int = 0\n\nnode on_a = event animseq::steps.a\n\
    node get = var.get a\nnode inc = int.add { b = 1 }\nnode set = var.set a\n\n\
    on_a.then -> set.exec\nget.value -> inc.a\ninc.out -> set.value\n";
const SCENE: &str = r#"Scene(entities: [(name: "hero",
    animator: Some((clips: {"steps": "steps.animseq"}, default_clip: Some("steps"))),
    graphs: ["../graphs/counter.bpg"])])"#;

fn path(p: &str) -> ProjectPath {
    ProjectPath::new(p).expect(p)
}

/// A project: `scenes/s.scene.ron` (text `scene`), `assets/steps.animseq`,
/// `graphs/counter.bpg`, plus `extra` files.
fn project(scene: &str, extra: &[(&str, &str)]) -> MemSource {
    let mut files = vec![
        ("scenes/s.scene.ron", scene),
        ("assets/steps.animseq", CLIP),
        ("graphs/counter.bpg", GRAPH),
    ];
    files.extend_from_slice(extra);
    MemSource::from_files(files).expect("paths")
}

fn layout() -> Layout {
    Layout::new(path("scenes/s.scene.ron"), path("assets"))
}

fn load(mem: &MemSource) -> LoadedScene {
    project::load(mem, &layout()).expect("scene readable")
}

fn codes(l: &LoadedScene) -> Vec<&'static str> {
    l.diagnostics.iter().map(|d| d.code).collect()
}

#[test]
fn a_project_in_memory_loads_spawns_and_runs() {
    let loaded = load(&project(SCENE, &[]));
    assert!(loaded.is_ok(), "{:?}", loaded.diagnostics);
    let (def, assets) = loaded.ready().expect("ready");
    assert_eq!(
        assets.graphs.keys().collect::<Vec<_>>(),
        ["../graphs/counter.bpg"]
    );
    assert_eq!(loaded.event_names["animseq::steps.a"], "Steps / A");
    let (mut world, mut schedule) = headless(0.1).expect("dt");
    let spawned = spawn(&mut world, def, assets).expect("spawn");
    let trace = TraceWriter::new(&spawned, &loaded.event_names, TraceFormat::Json);
    let mut out = Vec::new();
    for _ in 0..13 {
        schedule.run(&mut world);
        trace.write_tick(&mut world, &mut out).expect("write");
    }
    trace.write_end(&world, &mut out).expect("write");
    let text = String::from_utf8(out).expect("UTF-8");
    // Marker at 0.25 of a 1 s loop: ticks 3 and 13 at dt 0.1.
    assert_eq!(text.matches("\"kind\":\"notify\"").count(), 2, "{text}");
    let end = text.lines().last().expect("end line");
    assert!(end.contains("\"vars\":{\"counter\":{\"a\":2}}"), "{text}");
}

#[test]
fn loading_is_deterministic() {
    let mem = project(SCENE, &[]);
    let (a, b) = (load(&mem), load(&mem));
    assert_eq!(a.diagnostics, b.diagnostics);
    let bytes = |l: &LoadedScene| l.assets.graphs["../graphs/counter.bpg"].module().encode();
    assert_eq!(bytes(&a), bytes(&b));
}

#[test]
fn problems_are_diagnostics_at_the_scene_entry() {
    let mut mem = project(SCENE, &[]);
    mem.remove(&path("graphs/counter.bpg"));
    let loaded = load(&mem);
    assert!(!loaded.is_ok() && loaded.ready().is_none());
    assert_eq!(codes(&loaded), ["E0561"]);
    let d = &loaded.diagnostics[0];
    assert_eq!(d.file, "scenes/s.scene.ron");
    assert!(
        d.message
            .starts_with("cannot read graph graphs/counter.bpg: ")
    );
    assert_eq!(
        d.notes,
        ["graph paths are relative to the scene file's folder"]
    );
    // A scene that does not parse loads nothing else (and needs no assets folder).
    let loaded = load(&MemSource::from_files([("scenes/s.scene.ron", "Scene(")]).unwrap());
    assert_eq!(
        (codes(&loaded), loaded.def.is_none()),
        (vec!["E0551"], true)
    );
    // A missing scene file is a load error, not a diagnostic.
    let e = project::load(&MemSource::new(), &layout()).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("cannot read scenes/s.scene.ron: "),
        "{e}"
    );
}

#[test]
fn paths_leading_outside_the_project_are_refused_unread() {
    let scene = r#"Scene(entities: [(name: "hero",
        animator: Some((clips: {"x": "../../x.animseq", "y": "/abs.animseq"},
                        skeleton: Some("../../../rig.skel"))),
        graphs: ["../../outside.bpg", "/etc/passwd", "../graphs/counter.bpg"])])"#;
    let loaded = load(&project(scene, &[]));
    assert_eq!(codes(&loaded), ["E0564"; 5]);
    for d in &loaded.diagnostics {
        assert!(
            d.message.ends_with("leads outside the project"),
            "{}",
            d.message
        );
    }
    // Inside the project, `..` may leave the scene's folder (as the demo's graphs do) and an
    // assets path may leave the assets folder.
    let scene = r#"Scene(entities: [(name: "hero",
        animator: Some((clips: {"x": "../assets/./steps.animseq"})),
        graphs: ["./../graphs/counter.bpg"])])"#;
    assert!(load(&project(scene, &[])).is_ok());
}

#[test]
fn a_narrower_project_folder_confines_the_scene_further() {
    // Project folder `game`: the scene's own folder and the assets folder stay allowed, the
    // rest of the source root does not.
    let scene = r#"Scene(entities: [(name: "hero", graphs: ["../shared/g.bpg", "g.bpg"])])"#;
    let mem = MemSource::from_files([
        ("game/scenes/s.scene.ron", scene),
        ("game/scenes/g.bpg", "graph g\n"),
        ("game/shared/g.bpg", "graph g\n"),
        ("elsewhere/assets/steps.animseq", CLIP),
    ])
    .unwrap();
    let mut layout = Layout::new(path("game/scenes/s.scene.ron"), path("elsewhere/assets"));
    assert!(project::load(&mem, &layout).unwrap().is_ok());
    layout.project = path("game/scenes");
    let loaded = project::load(&mem, &layout).unwrap();
    assert_eq!(codes(&loaded), ["E0564"]);
    assert!(
        loaded.diagnostics[0].notes[0].contains("the assets folder (`elsewhere/assets`)"),
        "{:?}",
        loaded.diagnostics[0].notes
    );
}

#[test]
fn inputs_larger_than_their_kind_limit_are_refused() {
    let big = format!(
        "graph big\n//{}\n",
        "x".repeat(InputKind::Graph.limit() as usize)
    );
    let scene = r#"Scene(entities: [(name: "hero", graphs: ["../graphs/big.bpg"])])"#;
    let loaded = load(&project(scene, &[("graphs/big.bpg", &big)]));
    assert_eq!(codes(&loaded), ["E0561"]);
    assert_eq!(
        loaded.diagnostics[0].message,
        format!(
            "cannot read graph graphs/big.bpg: file is {} bytes; graph files are limited to 16 MiB",
            big.len()
        )
    );
}

#[test]
fn a_source_skeleton_outside_the_project_plays_by_name() {
    let clip = CLIP.replace(
        "tracks: []",
        r#"skeleton: Some("../../../../rig.skel"), tracks: []"#,
    );
    let rig = r#"Skeleton(bones: [(name: "hips", parent: None, translation: (0.0, 1.0, 0.0), rotation: (0.0, 0.0, 0.0, 1.0))])"#;
    let scene = r#"Scene(entities: [(name: "hero", animator: Some((skeleton: Some("rig.skel"),
        clips: {"steps": "steps.animseq"}, default_clip: Some("steps"))))])"#;
    let mem = MemSource::from_files([
        ("scenes/s.scene.ron", scene),
        ("assets/steps.animseq", &clip),
        ("assets/rig.skel", rig),
    ])
    .unwrap();
    let loaded = load(&mem);
    assert!(loaded.is_ok(), "{:?}", loaded.diagnostics);
    assert_eq!(codes(&loaded), ["W0563"]);
    assert!(
        loaded.diagnostics[0]
            .message
            .starts_with("source skeleton path `../../../../rig.skel` leads outside the project"),
        "{}",
        loaded.diagnostics[0].message
    );
}

#[test]
fn validation_passes_run_over_the_loaded_scene() {
    assert!(!PASSES.is_empty());
    let sm = r#"StateMachine(entry: "a", states: [(name: "a", motion: Clip("steps"))])"#;
    let scene = r#"Scene(entities: [(name: "hero", animator: Some((clips: {"steps": "steps.animseq"},
        state_machine: Some("m.animsm"))))],
        actions: [(at: 0.0, entity: "hero", action: SetParam("speed", 1.0))])"#;
    let loaded = load(&project(scene, &[("assets/m.animsm", sm)]));
    assert_eq!(codes(&loaded), ["W0521"]);
}

/// The name check over `scene` whose one entity `hero` has graph `graphs/g.bpg` (`graph`)
/// and the state machine `assets/m.animsm` (states `a`, `b`; reads parameter `speed`): the codes
/// but the graph's own warnings.
fn name_codes(animator_extra: &str, graph: &str, actions: &str) -> Vec<&'static str> {
    let sm = r#"StateMachine(entry: "a", states: [(name: "a", motion: Clip("steps")),
        (name: "b", motion: Clip("steps"))],
        transitions: [(from: "a", to: "b", when: [Greater("speed", 1.0)])])"#;
    let scene = format!(
        r#"Scene(entities: [(name: "hero", animator: Some((clips: {{"steps": "steps.animseq"}},
        state_machine: Some("m.animsm"){animator_extra})), graphs: ["../graphs/g.bpg"])],
        actions: [{actions}])"#
    );
    let loaded = load(&project(
        &scene,
        &[("assets/m.animsm", sm), ("graphs/g.bpg", graph)],
    ));
    // The graph's own warnings (unused variables, unreached nodes) are not the check's.
    codes(&loaded)
        .into_iter()
        .filter(|c| !c.starts_with("W03"))
        .collect()
}

#[test]
fn the_name_check_sees_literals_only() {
    let head = "graph g\n\nvar s: string = \"nope\"\n\nnode t = event tick\n";
    // A literal unknown state is refused before the run; a computed one is left to the animator.
    let literal = format!("{head}node r = anim.set_state {{ state = \"c\" }}\nt.then -> r.exec\n");
    assert_eq!(name_codes("", &literal, ""), ["E0565"]);
    let computed = format!(
        "{head}node v = var.get s\nnode r = anim.set_state\nt.then -> r.exec\nv.value -> r.state\n"
    );
    assert_eq!(name_codes("", &computed, ""), Vec::<&str>::new());
    // Known names pass: a state, a declared layer, a clip slot, a parameter the machine reads.
    let known = format!(
        "{head}node r = anim.set_state {{ state = \"b\" }}\n\
         node l = anim.play_on_layer {{ layer = \"up\", clip = \"steps\" }}\n\
         node p = anim.set_param {{ name = \"speed\", value = 2.0 }}\n\
         t.then -> r.exec\nr.then -> l.exec\nl.then -> p.exec\n"
    );
    assert_eq!(
        name_codes(r#", layers: [(name: "up")]"#, &known, ""),
        Vec::<&str>::new()
    );
    assert_eq!(name_codes("", &known, ""), ["E0567"], "undeclared layer");
}

#[test]
fn a_parameter_is_read_by_the_machine_or_a_graph() {
    let set =
        |name: &str| format!("(at: 0.0, entity: \"hero\", action: SetParam(\"{name}\", 1.0))");
    let idle = "graph g\n";
    assert_eq!(name_codes("", idle, &set("speed")), Vec::<&str>::new());
    assert_eq!(name_codes("", idle, &set("combo")), ["W0521"]);
    // A literal `anim.get_param` reads it; a computed one might read anything.
    let reads = |pin: &str| {
        format!(
            "graph g\n\nvar n: string = \"x\"\nvar out: float = 0.0\n\nnode t = event tick\n\
             node v = var.get n\nnode g = anim.get_param {pin}\nnode w = var.set out\n\
             t.then -> w.exec\ng.value -> w.value\n{}",
            if pin.is_empty() {
                "v.value -> g.name\n"
            } else {
                ""
            }
        )
    };
    assert_eq!(
        name_codes("", &reads("{ name = \"combo\" }"), &set("combo")),
        Vec::<&str>::new()
    );
    assert_eq!(
        name_codes("", &reads("{ name = \"other\" }"), &set("combo")),
        ["W0521"]
    );
    assert_eq!(
        name_codes("", &reads(""), &set("combo")),
        Vec::<&str>::new()
    );
}

#[test]
fn asset_diagnostics_are_kept_apart_and_shown_as_warnings_by_run() {
    let broken = r#"AnimSeq(format: 1, id: "broken", name: "B", duration: -1.0, tracks: [])"#;
    let loaded = load(&project(SCENE, &[("assets/broken.animseq", broken)]));
    assert!(loaded.is_ok());
    assert_eq!(loaded.asset_diagnostics.len(), 1);
    assert!(loaded.asset_diagnostics[0].is_error());
    let run = loaded.run_diagnostics();
    assert_eq!(run.len(), 1);
    assert!(!run[0].is_error());
}

/// SimpleSkin imported in memory (the pure importer): the project's files under `assets/`.
fn imported_simple_skin(model: uuid::Uuid) -> Vec<(String, Vec<u8>)> {
    let gltf = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/models/SimpleSkin.gltf"
    ))
    .expect("model");
    let id = sinew::import::Identity {
        model,
        source: "models/SimpleSkin.gltf".into(),
    };
    let out = sinew::import::import("SimpleSkin.gltf", &gltf, &id, &Default::default());
    assert!(out.manifest.runtime_supported, "{:?}", out.diagnostics);
    let dir = format!("assets/{}/{model}", project::GENERATED);
    let mut files = vec![
        ("assets/models/SimpleSkin.gltf".to_string(), gltf),
        (
            format!("{dir}/manifest.ron"),
            out.manifest.to_ron().into_bytes(),
        ),
    ];
    files.extend(
        out.assets
            .iter()
            .map(|a| (format!("{dir}/{}", a.file), a.text().into_bytes())),
    );
    files
}

#[test]
fn imported_clips_resolve_through_the_manifests_of_any_source() {
    let model = uuid::Uuid::from_u128(0x5473eea4_4dd5_4860_bd3d_87fd3ae04744);
    let scene = format!(
        r#"Scene(entities: [(name: "skin", animator: Some((
        skeleton: Some("animations/generated/{model}/SimpleSkin.skel"),
        clips: {{"bend": Imported(model: "{model}", clip: "Animation0")}}, default_clip: Some("bend"))))])"#
    );
    let mut mem = project(&scene, &[]);
    for (p, b) in imported_simple_skin(model) {
        mem.insert(path(&p), b);
    }
    let loaded = load(&mem);
    assert!(loaded.is_ok(), "{:?}", loaded.diagnostics);
    let (def, assets) = loaded.ready().expect("ready");
    let clip = format!("animations/generated/{model}/Animation0.animseq");
    let slot = &def.entities[0].animator.as_ref().expect("animator").clips[0].1;
    assert_eq!(slot.path, clip, "the reference names the manifest's file");
    assert!(assets.clips.contains_key(&clip));
    let (mut world, _) = headless(0.1).expect("dt");
    spawn(&mut world, def, assets).expect("spawn");
    // A changed source is stale for this scene (an error), and unknown labels resolve to none.
    mem.insert(path("assets/models/SimpleSkin.gltf"), b"{}".to_vec());
    assert_eq!(codes(&load(&mem)), ["E0717"]);
    let other = scene.replace("Animation0", "Animation1");
    mem.insert(path("scenes/s.scene.ron"), other.into_bytes());
    assert_eq!(codes(&load(&mem)), ["E0717", "E0720"]);
    assert!(
        project::check_imports(&mem, &layout())[0]
            .message
            .contains("stale")
    );
}

proptest! {
    /// Joined paths are normal (no `.`, `..` or empty segments, never absolute), `..` never
    /// climbs above the root, and joining in two steps equals joining once.
    #[test]
    fn project_paths_stay_normal(
        base in prop::collection::vec(prop::sample::select(vec!["a", "b", "..", ".", ""]), 0..6),
        rel in prop::collection::vec(prop::sample::select(vec!["a", "b", "..", ".", "", "c.bpg"]), 0..8),
        more in prop::collection::vec(prop::sample::select(vec!["a", "..", "."]), 0..4),
    ) {
        let (base, rel, more) = (base.join("/"), rel.join("/"), more.join("/"));
        let Ok(b) = ProjectPath::new(&base) else { return Ok(()) };
        match b.join(&rel) {
            Ok(p) => {
                prop_assert!(!p.as_str().starts_with('/'));
                prop_assert!(p.segments().all(|s| !matches!(s, "" | "." | "..")));
                prop_assert_eq!(ProjectPath::new(p.as_str()), Ok(p.clone()));
                let both = if rel.is_empty() { more.clone() } else { format!("{rel}/{more}") };
                prop_assert_eq!(p.join(&more).ok(), b.join(&both).ok());
            }
            Err(e) if rel.starts_with('/') => prop_assert_eq!(e, PathError::Absolute),
            Err(e) => {
                prop_assert_eq!(e, PathError::Escapes);
                // The depth went below zero somewhere.
                let mut depth = b.segments().count() as i64;
                let mut min = depth;
                for s in rel.split('/') {
                    match s {
                        "" | "." => {}
                        ".." => depth -= 1,
                        _ => depth += 1,
                    }
                    min = min.min(depth);
                }
                prop_assert!(min < 0);
            }
        }
    }
}

/// A hand-built scene (not through the loader's checks) whose `Send` payload does not match the
/// graphs' declaration is refused at spawn with a [`sinew::runtime::scene::SpawnError`], and
/// nothing of the scene is left in the world.
#[test]
fn a_hand_built_send_payload_that_does_not_match_is_a_spawn_error() {
    use sinew::scene::{Action, VarValue};
    const HIT: &str = "graph hit\n\nevent custom::hit { amount: float }\n\nvar total: float = 0.0\n\n\
        node on = event custom::hit\nnode set = var.set total\n\non.then -> set.exec\n\
        on.amount -> set.value\n";
    let scene = r#"Scene(entities: [(name: "hero", graphs: ["../graphs/hit.bpg"])],
        actions: [(at: 0.0, entity: "hero", action: Send("hero", "custom::hit", {"amount": Float(2.0)}))])"#;
    let loaded = load(&project(scene, &[("graphs/hit.bpg", HIT)]));
    assert!(loaded.is_ok(), "{:?}", loaded.diagnostics);
    let (def, assets) = loaded.ready().expect("ready");
    let with_value = |value: VarValue, name: &str| {
        let mut d = def.clone();
        let Action::Send { fields, .. } = &mut d.actions[0].action else {
            panic!("the scene's action is a Send");
        };
        fields[0].value = value;
        fields[0].name = name.to_string();
        d
    };
    let cases = [
        (
            with_value(VarValue::Float(2.0), "amuont"),
            "custom event `custom::hit` declares no payload field `amuont` of type float",
        ),
        (
            with_value(VarValue::Int(2), "amount"),
            "custom event `custom::hit` declares no payload field `amount` of type int",
        ),
    ];
    for (bad, message) in cases {
        let (mut world, _) = headless(0.1).expect("dt");
        let before = world.entities().len();
        let err = spawn(&mut world, &bad, assets).expect_err("mismatch refused");
        assert_eq!(err.to_string(), message);
        assert_eq!(world.entities().len(), before, "nothing half-spawned");
    }
    // The loader's scene itself spawns, and delivers the value.
    let (mut world, mut schedule) = headless(0.1).expect("dt");
    let spawned = spawn(&mut world, def, assets).expect("spawn");
    let trace = TraceWriter::new(&spawned, &loaded.event_names, TraceFormat::Json);
    schedule.run(&mut world);
    let mut out = Vec::new();
    trace.write_end(&world, &mut out).expect("write");
    let text = String::from_utf8(out).expect("UTF-8");
    assert!(text.contains("\"total\":2.0"), "{text}");
}
