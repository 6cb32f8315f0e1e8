//! Hot reload in a Bevy app, for real: `AssetPlugin` watching a temporary folder
//! (`file_watcher`), `SinewPlugin` running a scene; the test edits the scene's graph on disk
//! and Bevy's watcher, the scene loader and the library's reload core switch it — a new log
//! text while the counter keeps counting, a broken graph reported while the old one keeps
//! running, then the fix.

use std::path::Path;
use std::time::{Duration, Instant};

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::{AssetMetaCheck, AssetPlugin, AssetServer};
use bevy_time::{TimePlugin, TimeUpdateStrategy};
use sinew::bevy::{SinewPlugin, SinewScene, SinewSceneAsset, SinewSpawned};
use sinew::runtime::{Graphs, Trace, TraceKind, TraceRecord, Value};

fn graph(message: &str, add: &str) -> String {
    format!(
        r#"graph counter

var count: int = 0

node start = event begin_play
node hold  = flow.delay {{ seconds = 1000 }}
node tick  = event tick
node get   = var.get count
node inc   = {add} {{ b = 1 }}
node set   = var.set count
node say   = debug.log {{ message = "{message}" }}

start.then -> hold.exec
tick.then  -> set.exec
get.value  -> inc.a
inc.out    -> set.value
set.then   -> say.exec
"#
    )
}

struct Game {
    app: App,
    carrier: bevy_ecs::entity::Entity,
    seen: Vec<TraceRecord>,
}

impl Game {
    fn new(root: &Path) -> Game {
        let mut app = App::new();
        app.add_plugins((
            TaskPoolPlugin::default(),
            TimePlugin,
            AssetPlugin {
                file_path: root.to_string_lossy().into_owned(),
                watch_for_changes_override: Some(true),
                meta_check: AssetMetaCheck::Never,
                ..AssetPlugin::default()
            },
        ));
        app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
            20,
        )));
        app.add_plugins(SinewPlugin {
            trace: true,
            ..SinewPlugin::default()
        });
        let handle = app
            .world()
            .resource::<AssetServer>()
            .load::<SinewSceneAsset>("s.scene.ron");
        let carrier = app.world_mut().spawn(SinewScene(handle)).id();
        Game {
            app,
            carrier,
            seen: Vec::new(),
        }
    }

    /// Runs frames (about one per 5 ms of wall-clock time, so the watcher's events arrive)
    /// until `want` holds for a traced record; returns its index in `seen`.
    fn until(&mut self, what: &str, want: impl Fn(&TraceKind) -> bool) -> usize {
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut checked = self.seen.len();
        while Instant::now() < deadline {
            self.app.update();
            let drained = self.app.world_mut().resource_mut::<Trace>().drain();
            self.seen.extend(drained);
            if let Some(i) = self.seen[checked..].iter().position(|r| want(&r.kind)) {
                return checked + i;
            }
            checked = self.seen.len();
            std::thread::sleep(Duration::from_millis(5));
        }
        panic!("no {what} within 60 s; saw {:#?}", self.seen);
    }

    fn logs(&mut self, message: &str, n: usize) {
        for _ in 0..n {
            self.until(
                message,
                |k| matches!(k, TraceKind::Log { message: m, .. } if m == message),
            );
        }
    }

    fn count(&self) -> i64 {
        let s = self
            .app
            .world()
            .get::<SinewSpawned>(self.carrier)
            .expect("spawned");
        let e = s.spawned.entities[0].1;
        let g = self.app.world().get::<Graphs>(e).expect("graphs");
        match g.instances()[0].vars()[0].2 {
            Value::Int(n) => *n,
            ref v => panic!("count is {v:?}"),
        }
    }
}

#[test]
fn the_plugin_hot_reloads_a_changed_graph_and_keeps_the_old_one_when_it_breaks() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    std::fs::create_dir(dir.join("assets")).expect("assets");
    std::fs::write(
        dir.join("s.scene.ron"),
        r#"Scene(entities: [(name: "c", graphs: ["counter.bpg"])])"#,
    )
    .expect("scene");
    let bpg = dir.join("counter.bpg");
    std::fs::write(&bpg, graph("hello", "int.add")).expect("graph");
    let mut game = Game::new(dir);
    game.logs("hello", 5);

    std::fs::write(&bpg, graph("world", "int.add")).expect("edit");
    let r = game.until("reload", |k| matches!(k, TraceKind::Reload { .. }));
    match &game.seen[r].kind {
        TraceKind::Reload {
            file,
            graph,
            kept,
            reset,
            dropped_delays,
        } => {
            assert_eq!(file, "counter.bpg");
            assert_eq!(graph.as_deref(), Some("counter"));
            assert_eq!(
                (kept.as_slice(), reset.len()),
                (&["count".to_string()][..], 0)
            );
            assert_eq!(*dropped_delays, 1);
        }
        k => panic!("{k:?}"),
    }
    game.logs("world", 3);

    std::fs::write(&bpg, graph("broken", "int.nope")).expect("break");
    let f = game.until("reload_failed", |k| {
        matches!(k, TraceKind::ReloadFailed { .. })
    });
    match &game.seen[f].kind {
        TraceKind::ReloadFailed { file, diagnostics } => {
            assert_eq!(file, "counter.bpg");
            assert!(diagnostics.iter().any(|d| d.is_error()), "{diagnostics:?}");
        }
        k => panic!("{k:?}"),
    }
    game.logs("world", 3);

    std::fs::write(&bpg, graph("again", "int.add")).expect("fix");
    game.logs("again", 3);
    let logs = game
        .seen
        .iter()
        .filter(|r| matches!(r.kind, TraceKind::Log { .. }))
        .count() as i64;
    assert_eq!(
        game.count(),
        logs,
        "the counter kept counting across reloads"
    );
}
