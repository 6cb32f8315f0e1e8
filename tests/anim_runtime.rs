//! The full animator through the project loader and the scene API: poses are evaluated every update (finite, root bone
//! held horizontally under root motion, masked layers moving only their bones), state queries.

use sinew::anim::Pose;
use sinew::project::{self, Layout, LoadedScene, MemSource, ProjectPath};
use sinew::runtime::Animator;
use sinew::runtime::scene;

/// Loads scene text `scene` through the project loader, with the files directly in the
/// repository's `assets/` folder (read into memory) as its assets.
fn load(scene: &str) -> LoadedScene {
    let mut mem = MemSource::new();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/assets");
    for e in std::fs::read_dir(dir).expect("assets folder") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            continue; // the imported models' folders; the hero scene uses none of them
        }
        let name = p.file_name().expect("name").to_string_lossy().into_owned();
        let path = ProjectPath::new(&format!("assets/{name}")).expect("path");
        mem.insert(path, std::fs::read(&p).expect("asset"));
    }
    mem.insert(ProjectPath::new("t.scene.ron").expect("path"), scene);
    let layout = Layout::new(
        ProjectPath::new("t.scene.ron").expect("path"),
        ProjectPath::new("assets").expect("path"),
    );
    let loaded = project::load(&mem, &layout).expect("readable");
    assert!(loaded.is_ok(), "{:?}", loaded.diagnostics);
    loaded
}

/// Runs the demo hero scene (assets from `assets/`) for `ticks` at 1/60 s with `actions` RON
/// inserted; returns the hero's animator state after the run: (state, position, pose).
fn check(actions: &str, ticks: usize) -> (Option<String>, [f64; 3], Pose) {
    let text = format!(
        r#"Scene(entities: [(name: "hero", animator: Some((
            skeleton: Some("hero.skel"),
            clips: {{"idle": "hero_idle.animseq", "walk": "hero_walk.animseq", "run": "run.animseq", "wave": "hero_turn.animseq"}},
            state_machine: Some("hero.animsm"),
            layers: [(name: "upper_body", mask: Some(["spine1"]), clip: Some("wave"))],
            root_motion: (mode: Transform, bone: "hips"),
        )))], actions: [{actions}])"#
    );
    let loaded = load(&text);
    let (def, assets) = loaded.ready().expect("the scene loads");
    let (mut world, mut schedule) = scene::headless(1.0 / 60.0).unwrap();
    let spawned = scene::spawn(&mut world, def, assets).unwrap();
    for _ in 0..ticks {
        schedule.run(&mut world);
    }
    let a = world.get::<Animator>(spawned.entities[0].1).unwrap();
    (
        a.current_state().map(|s| s.to_string()),
        a.position(),
        a.pose().unwrap().clone(),
    )
}

fn finite(p: &Pose) -> bool {
    p.translations.iter().all(|t| t.is_finite())
        && p.rotations
            .iter()
            .all(|r| r.is_finite() && (r.length() - 1.0).abs() < 1e-3)
        && p.scales.iter().all(|s| s.is_finite())
}

#[test]
fn idle_then_move_with_root_held() {
    let (state, pos, pose) = check("", 30);
    assert_eq!(state.as_deref(), Some("idle"));
    assert_eq!(pos, [0.0, 0.0, 0.0]);
    assert!(finite(&pose));
    let (state, pos, pose) = check(
        r#"(at: 0.0, entity: "hero", action: SetParam("speed", 4.0))"#,
        120,
    );
    assert_eq!(state.as_deref(), Some("move"));
    // Run alone at speed ≥ 4: 4 m/s along +Z from tick 2 on (tick 1 starts idle), minus the
    // 0.25 s crossfade's share: strictly between 1.99·4 − 1 and 1.99·4.
    assert!(pos[2] > 6.9 && pos[2] < 7.96, "{pos:?}");
    assert!(finite(&pose));
    // hips (bone 0, a root) held at rest X/Z.
    assert_eq!((pose.translations[0].x, pose.translations[0].z), (0.0, 0.0));
}

#[test]
fn extreme_parameters_stay_finite() {
    for v in ["1e30", "-1e30", "0.0"] {
        let (_, pos, pose) = check(
            &format!(r#"(at: 0.0, entity: "hero", action: SetParam("speed", {v}))"#),
            90,
        );
        assert!(pos.iter().all(|x| x.is_finite()));
        assert!(finite(&pose));
    }
}

/// `Extract`: the entity stays put and the last update's motion is published in the entity's
/// parent space — the run clip's +Z motion (4 m/s, `assets/run.animseq`) at yaw 0, turned onto
/// +X when the game has turned the entity a quarter turn.
#[test]
fn extract_publishes_the_delta_in_parent_space() {
    let run = |yaw: f64| {
        let text = r#"Scene(entities: [(name: "runner", animator: Some((
            clips: {"run": "run.animseq"}, default_clip: Some("run"),
            root_motion: (mode: Extract, bone: "hips"),
        )))])"#;
        let loaded = load(text);
        let (def, assets) = loaded.ready().expect("the scene loads");
        let (mut world, mut schedule) = scene::headless(1.0 / 60.0).unwrap();
        let spawned = scene::spawn(&mut world, def, assets).unwrap();
        let e = spawned.entities[0].1;
        world.get_mut::<Animator>(e).unwrap().set_yaw(yaw);
        for _ in 0..10 {
            schedule.run(&mut world);
        }
        let a = world.get::<Animator>(e).unwrap();
        (a.position(), a.root_motion_delta().translation)
    };
    let (pos, d) = run(0.0);
    assert_eq!(pos, [0.0, 0.0, 0.0], "Extract leaves the entity in place");
    let step = 4.0 / 60.0;
    assert!((d.z - step).abs() < 1e-6 && d.x.abs() < 1e-9, "{d:?}");
    let (pos, d) = run(std::f64::consts::FRAC_PI_2);
    assert_eq!(pos, [0.0, 0.0, 0.0]);
    assert!((d.x - step).abs() < 1e-6 && d.z.abs() < 1e-6, "{d:?}");
}
