//! Hot reload in a Bevy app, for real: `AssetPlugin` watching a temporary folder
//! (`file_watcher`), `SinewPlugin` running a scene; the test edits its files on disk and Bevy's
//! watcher, the scene loader and the library's reload core switch it — the scenario `sinew run
//! --watch` goes through too (`support/watch.rs`): a new log text while the counter keeps
//! counting, a broken graph reported while the old one keeps running, the fix, 100 saves in one
//! second ending in the last file's state, saves by rename-over (a temporary renamed over the
//! graph, which Bevy 0.20's asset server alone does not reload when the rename comes in a later
//! debounce window than the temporary), and every hostile seed of the fuzz corpora saved
//! over the graph, the clip and the scene without a crash.

#[path = "support/logs.rs"]
mod logs;
#[path = "support/wait.rs"]
mod wait;
#[path = "support/watch.rs"]
mod watch;

use std::collections::VecDeque;
use std::path::Path;
use std::time::{Duration, Instant};

use bevy_app::App;
use bevy_asset::AssetServer;
use bevy_ecs::entity::Entity;
use serde_json::Value;
use sinew::bevy::headless_app;
use sinew::bevy::{SinewPlugin, SinewScene, SinewSceneAsset, SinewSpawned};
use sinew::runtime::render::record_json;
use sinew::runtime::{Graphs, Trace};
use watch::{Feed, Session};

/// A headless app running the project in `root` with watching on; its trace records (as
/// `sinew run --format json` prints them) as a [`Feed`], one frame per 5 ms of wall-clock time
/// so the watcher's events arrive.
struct Game {
    app: App,
    carrier: Entity,
    queued: VecDeque<Value>,
}

impl Game {
    fn new(root: &Path) -> Game {
        let mut app = headless_app(root, true, Some(Duration::from_millis(20)));
        app.add_plugins(SinewPlugin {
            assets: "assets".into(),
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
            queued: VecDeque::new(),
        }
    }

    /// The counter's value.
    fn count(&self) -> i64 {
        let s = self
            .app
            .world()
            .get::<SinewSpawned>(self.carrier)
            .expect("spawned");
        let e = s.spawned.entities[0].1;
        let g = self.app.world().get::<Graphs>(e).expect("graphs");
        match g.instances()[0].vars()[0].2 {
            sinew::runtime::Value::Int(n) => *n,
            ref v => panic!("count is {v:?}"),
        }
    }
}

impl Feed for Game {
    fn next(&mut self, left: Duration) -> Option<Value> {
        let deadline = Instant::now() + left;
        while self.queued.is_empty() && Instant::now() < deadline {
            self.app.update();
            let drained = self.app.world_mut().resource_mut::<Trace>().drain();
            if let Some(s) = self.app.world().get::<SinewSpawned>(self.carrier) {
                self.queued
                    .extend(drained.iter().map(|r| record_json(&s.spawned, r)));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        self.queued.pop_front()
    }
}

#[test]
fn the_plugin_hot_reloads_a_changed_graph_and_keeps_the_old_one_when_it_breaks() {
    let tmp = tempfile::tempdir().expect("tempdir");
    watch::project(tmp.path());
    let mut s = Session::new(Game::new(tmp.path()));
    watch::edit_break_fix(&mut s, tmp.path());
    watch::burst(&mut s, tmp.path());
    assert_eq!(
        s.feed.count(),
        s.log_count() as i64,
        "the counter kept counting across reloads"
    );
    s.assert_every_tick_logged();
}

#[test]
fn the_plugin_survives_every_hostile_seed_of_the_fuzz_corpora() {
    let tmp = tempfile::tempdir().expect("tempdir");
    watch::project(tmp.path());
    let mut s = Session::new(Game::new(tmp.path()));
    s.logs("hello", 3);
    watch::hostile(&mut s, tmp.path());
    assert!(
        s.feed
            .app
            .world()
            .get::<SinewSpawned>(s.feed.carrier)
            .is_some(),
        "still running"
    );
}

/// Saves `text` over `path` as many editors (and `fsutil::write_atomic`) do: the new text is
/// written to a temporary beside it, then renamed over it at once (in the write's debounce
/// window: Bevy 0.20 ignores a rename in a later one without asset processing, and the plugin
/// adds no watcher of its own, `docs/bevy.md` "Hot reload").
fn save_by_rename(path: &Path, text: &str) {
    let tmp = path.with_file_name(".counter.bpg.save~");
    std::fs::write(&tmp, text).expect("temporary");
    std::fs::rename(&tmp, path).expect("rename over");
}

#[test]
fn the_plugin_hot_reloads_a_graph_saved_by_rename_over() {
    let tmp = tempfile::tempdir().expect("tempdir");
    watch::project(tmp.path());
    let bpg = tmp.path().join("counter.bpg");
    let mut s = Session::new(Game::new(tmp.path()));
    s.logs("hello", 3);
    save_by_rename(&bpg, &watch::graph("renamed", "int.add"));
    let r = s.until("reload", |v| watch::kind(v) == "reload");
    assert_eq!(s.seen[r]["file"], "counter.bpg", "{}", s.seen[r]);
    assert_eq!(
        s.seen[r]["kept"],
        serde_json::json!(["count"]),
        "{}",
        s.seen[r]
    );
    s.logs("renamed", 3);
    sinew::fsutil::write_atomic(&bpg, watch::graph("atomic", "int.add").as_bytes())
        .expect("write_atomic");
    s.until("reload", |v| watch::kind(v) == "reload");
    s.logs("atomic", 3);
    assert_eq!(
        s.feed.count(),
        s.log_count() as i64,
        "the counter kept counting"
    );
    s.assert_every_tick_logged();
}

#[derive(bevy_ecs::prelude::Resource, Default)]
struct LoadFailures(usize);

/// Counts the scene loads Bevy reports failed.
fn count_failures(
    mut failed: bevy_ecs::prelude::MessageReader<bevy_asset::AssetLoadFailedEvent<SinewSceneAsset>>,
    mut n: bevy_ecs::prelude::ResMut<LoadFailures>,
) {
    n.0 += failed.read().count();
}

/// A scene that does not load is a failed Bevy load, not a `Loaded` asset: `LoadState::Failed`,
/// `AssetLoadFailedEvent`, `SinewSceneFailed` with the scene's diagnostics, a `tracing` error;
/// fixing the file on disk loads and spawns it (Bevy's watcher reloads the failed path).
#[test]
fn a_broken_scene_fails_its_load_and_spawns_once_fixed() {
    use bevy_asset::LoadState;
    use sinew::bevy::SinewSceneFailed;

    let tmp = tempfile::tempdir().expect("tempdir");
    watch::project(tmp.path());
    let scene = tmp.path().join("s.scene.ron");
    std::fs::write(&scene, watch::SCENE.replace("graphs:", "grafs:")).expect("break");
    let logs = logs::Logs::default();
    tracing::subscriber::with_default(logs.clone(), || {
        let mut app = headless_app(tmp.path(), true, Some(Duration::from_millis(20)));
        app.add_plugins(SinewPlugin {
            assets: "assets".into(),
            trace: true,
            ..SinewPlugin::default()
        });
        app.init_resource::<LoadFailures>();
        app.add_systems(bevy_app::Update, count_failures);
        let handle = app
            .world()
            .resource::<AssetServer>()
            .load::<SinewSceneAsset>("s.scene.ron");
        let carrier = app.world_mut().spawn(SinewScene(handle.clone())).id();
        let deadline = Instant::now() + Duration::from_secs(60);
        let failed = wait::wait_until(deadline, || {
            app.update();
            app.world().get::<SinewSceneFailed>(carrier).cloned()
        })
        .expect("the broken scene fails");
        assert!(
            failed.diagnostics.iter().any(|d| d.code == "E0553"),
            "{failed:?}"
        );
        let state = app.world().resource::<AssetServer>().load_state(&handle);
        assert!(matches!(state, LoadState::Failed(_)), "{state:?}");
        assert!(
            app.world().resource::<LoadFailures>().0 >= 1,
            "no AssetLoadFailedEvent"
        );
        assert!(app.world().get::<SinewSpawned>(carrier).is_none());
        let errors = logs.lines();
        assert!(
            errors
                .iter()
                .any(|l| l.starts_with("ERROR") && l.contains("`s.scene.ron` did not spawn")),
            "{errors:#?}"
        );

        std::fs::write(&scene, watch::SCENE).expect("fix");
        let deadline = Instant::now() + Duration::from_secs(60);
        wait::wait_until(deadline, || {
            app.update();
            app.world().get::<SinewSpawned>(carrier).map(|_| ())
        })
        .expect("the fixed scene spawns");
        assert!(app.world().get::<SinewSceneFailed>(carrier).is_none());
        let state = app.world().resource::<AssetServer>().load_state(&handle);
        assert!(matches!(state, LoadState::Loaded), "{state:?}");
    });
}
