//! The reload core (`sinew::reload::Reloader`) on projects in memory: what `sinew run --watch`
//! and the Bevy plugin do after a file changed, checked on the running world — variables carried
//! over by name and type, old delays dropped, failures keeping the old module, a changed clip
//! keeping playback time (clamped), a changed state machine keeping the active state when it
//! still exists and entering the entry state otherwise.

use sinew::project::{self, Layout, LoadedScene, MemSource, ProjectPath};
use sinew::reload::Reloader;
use sinew::runtime::scene::{Spawned, headless, spawn};
use sinew::runtime::{Animator, Graphs, TraceKind, Value};

const SCENE: &str = r#"Scene(entities: [
    (name: "e",
     animator: Some((clips: {"a": "a.animseq", "b": "b.animseq"}, state_machine: Some("m.animsm"))),
     graphs: ["g.bpg"]),
    (name: "p", animator: Some((clips: {"a": "a.animseq"}, default_clip: Some("a")))),
])"#;

fn clip(id: &str, duration: f64) -> String {
    format!(
        r#"AnimSeq(format: 3, id: "{id}", name: "{id}", duration: {duration}, tracks: [],
        notifies: [(id: "n", name: "N", time: 0.0)])"#
    )
}

fn machine(states: &[&str]) -> String {
    let states: Vec<String> = states
        .iter()
        .map(|s| {
            format!(
                r#"(name: "{s}", motion: Clip("{}"))"#,
                if *s == "one" { "a" } else { "b" }
            )
        })
        .collect();
    format!(
        r#"StateMachine(entry: "{}", states: [{}], transitions: [])"#,
        states_entry(&states),
        states.join(", ")
    )
}

fn states_entry(states: &[String]) -> String {
    states[0]
        .split('"')
        .nth(1)
        .expect("a state name")
        .to_string()
}

fn graph(vars: &str, delay: bool) -> String {
    let hold = if delay {
        "node start = event begin_play\nnode hold = flow.delay { seconds = 1000 }\nstart.then -> hold.exec\n"
    } else {
        ""
    };
    format!("graph g\n\n{vars}\n{hold}")
}

struct Live {
    mem: MemSource,
    layout: Layout,
    world: bevy_ecs::world::World,
    schedule: bevy_ecs::schedule::Schedule,
    spawned: Spawned,
    reloader: Reloader,
}

impl Live {
    fn new(files: &[(&str, String)]) -> Live {
        let mem = MemSource::from_files(files.iter().map(|(p, t)| (*p, t.clone()))).expect("paths");
        let layout = Layout::new(
            ProjectPath::new("s.scene.ron").expect("path"),
            ProjectPath::root(),
        );
        let loaded = project::load(&mem, &layout).expect("loads");
        let (def, assets) = loaded.ready().expect("ready");
        let (mut world, schedule) = headless(0.1).expect("dt");
        let spawned = spawn(&mut world, def, assets).expect("spawns");
        let reloader = Reloader::new(&loaded, &mem, &layout).expect("ready");
        Live {
            mem,
            layout,
            world,
            schedule,
            spawned,
            reloader,
        }
    }

    fn ticks(&mut self, n: usize) {
        for _ in 0..n {
            self.schedule.run(&mut self.world);
        }
    }

    /// Writes `path` and reloads; the records.
    fn save(&mut self, path: &str, text: String) -> Vec<TraceKind> {
        self.mem.insert(ProjectPath::new(path).expect("path"), text);
        let new: LoadedScene = project::load(&self.mem, &self.layout).expect("loads");
        self.reloader.apply(&mut self.world, &self.spawned, &new)
    }

    fn entity(&self) -> bevy_ecs::entity::Entity {
        self.spawned.entities[0].1
    }

    fn animator(&self) -> &Animator {
        self.world.get::<Animator>(self.entity()).expect("animator")
    }

    /// The animator of `p` (no state machine: it plays clip slot `a`).
    fn player(&self) -> &Animator {
        self.world
            .get::<Animator>(self.spawned.entities[1].1)
            .expect("animator")
    }

    fn vars(&self) -> Vec<(String, Value)> {
        let g = self.world.get::<Graphs>(self.entity()).expect("graphs");
        g.instances()[0]
            .vars()
            .into_iter()
            .map(|(n, _, v)| (n.to_string(), v.clone()))
            .collect()
    }
}

fn project(vars: &str) -> Vec<(&'static str, String)> {
    vec![
        ("s.scene.ron", SCENE.to_string()),
        ("a.animseq", clip("a", 1.0)),
        ("b.animseq", clip("b", 1.0)),
        ("m.animsm", machine(&["one", "two"])),
        ("g.bpg", graph(vars, true)),
    ]
}

#[test]
fn graph_reload_keeps_same_name_and_type_resets_the_rest_and_drops_old_delays() {
    let mut live = Live::new(&project(
        "var keep: int = 1\nvar retyped: int = 2\nvar gone: bool = true",
    ));
    live.ticks(2);
    // Give the variables values the defaults do not have.
    let records = live.save(
        "g.bpg",
        graph(
            "var keep: int = 7\nvar retyped: float = 0.5\nvar fresh: int = 3",
            false,
        ),
    );
    assert_eq!(
        records,
        [TraceKind::Reload {
            file: "g.bpg".into(),
            graph: Some("g".into()),
            kept: vec!["keep".into()],
            reset: vec!["retyped".into(), "fresh".into()],
            dropped_delays: 1,
        }]
    );
    assert_eq!(
        live.vars(),
        [
            ("keep".to_string(), Value::Int(1)),
            ("retyped".to_string(), Value::Float(0.5)),
            ("fresh".to_string(), Value::Int(3)),
        ]
    );
    let g = live.world.get::<Graphs>(live.entity()).expect("graphs");
    assert_eq!(g.instances()[0].pending_delays(), 0);
    // The same module again (a comment only): nothing to switch.
    let same = graph(
        "var keep: int = 7\nvar retyped: float = 0.5\nvar fresh: int = 3",
        false,
    );
    assert_eq!(live.save("g.bpg", format!("// edited\n{same}")), []);
    live.ticks(3);
}

#[test]
fn a_graph_that_does_not_compile_keeps_the_old_module_and_is_reported_once() {
    let mut live = Live::new(&project("var keep: int = 1"));
    live.ticks(1);
    let broken = "graph g\nnode x = no.such.node\n".to_string();
    let records = live.save("g.bpg", broken.clone());
    let [TraceKind::ReloadFailed { file, diagnostics }] = records.as_slice() else {
        panic!("{records:?}");
    };
    assert_eq!(file, "g.bpg");
    assert!(
        diagnostics
            .iter()
            .any(|d| d.is_error() && d.file == "g.bpg"),
        "{diagnostics:?}"
    );
    assert_eq!(live.vars(), [("keep".to_string(), Value::Int(1))]);
    // An unrelated save: the same failure is not repeated.
    assert_eq!(live.save("g.bpg", broken), []);
    live.ticks(2);
    // Fixed to the very module that runs: it reloads (the failure is over).
    let records = live.save("g.bpg", graph("var keep: int = 1", true));
    assert!(
        matches!(records.as_slice(), [TraceKind::Reload { .. }]),
        "{records:?}"
    );
}

#[test]
fn a_changed_clip_keeps_playback_time_clamped_and_a_changed_machine_keeps_its_state() {
    let mut live = Live::new(&project("var keep: int = 1"));
    live.ticks(8); // `p` plays clip a (1 s) for 0.8 s; `e` is in state `one`
    assert_eq!(live.animator().current_state().map(|s| &**s), Some("one"));
    let before = live.player().time();
    assert!(before > 0.5 && before < 1.0, "{before}");
    let records = live.save("a.animseq", clip("a", 0.5));
    assert_eq!(
        records,
        [TraceKind::Reload {
            file: "a.animseq".into(),
            graph: None,
            kept: vec![],
            reset: vec![],
            dropped_delays: 0,
        }]
    );
    assert_eq!(live.animator().current_state().map(|s| &**s), Some("one"));
    assert_eq!(
        live.player().time(),
        0.5,
        "the time inside the cycle, clamped"
    );
    assert_eq!(live.player().playing(), Some("a"));
    live.ticks(1);
    assert!(
        (live.player().time() - 0.6).abs() < 1e-9,
        "{}",
        live.player().time()
    );

    // A machine keeping `one` (a new state added): still `one`.
    live.save("m.animsm", machine(&["one", "two", "three"]));
    assert_eq!(live.animator().current_state().map(|s| &**s), Some("one"));
    // `one` removed: the new entry state.
    live.save("m.animsm", machine(&["two", "three"]));
    assert_eq!(live.animator().current_state().map(|s| &**s), Some("two"));
    live.ticks(2);

    // A clip that no longer loads: reported, the animator keeps running.
    let records = live.save("b.animseq", "AnimSeq(".to_string());
    assert!(
        matches!(records.as_slice(), [TraceKind::ReloadFailed { file, .. }] if file == "b.animseq"),
        "{records:?}"
    );
    assert_eq!(live.animator().current_state().map(|s| &**s), Some("two"));
    live.ticks(2);
}
