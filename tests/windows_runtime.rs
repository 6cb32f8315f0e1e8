//! The runtime's window guarantee over random scenes: random clips with windows, random state
//! machines (single clips and 1D blends, crossfading transitions on parameters), layers, seeks,
//! pauses, speeds (reverse too), `Play(clip, at)`, despawns and tick lengths. In every trace, for every (target,
//! window event), an end never comes before its begin, and after every animator is removed
//! every begin has had exactly one end. Where no two clip instances share a window, begins and
//! ends strictly alternate.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use bevy_ecs::prelude::*;
use proptest::prelude::*;
use sinew::crossing::Edge;
use sinew::project::{self, Layout, MemSource, ProjectPath};
use sinew::runtime::scene;
use sinew::runtime::{Trace, TraceKind};

/// One random clip: duration and windows `(begin, end)` (some ending at the clip's end).
fn clip_text(id: &str, duration: f64, windows: &[(f64, f64)]) -> String {
    let mut s = format!(
        "AnimSeq(format: 4, id: \"{id}\", name: \"{id}\", duration: {duration:?}, tracks: [], \
         notifies: [(id: \"p\", name: \"P\", time: {:?})], windows: [",
        duration / 2.0
    );
    for (i, (b, e)) in windows.iter().enumerate() {
        write!(
            s,
            "(id: \"w{i}\", name: \"W{i}\", begin: {b:?}, end: {e:?}),"
        )
        .unwrap();
    }
    s.push_str("])");
    s
}

/// A scene drawn from `c` (a stream of choices): returns (files, ticks, dt).
fn scene(c: &[u16]) -> (Vec<(String, String)>, usize, f64) {
    let mut it = c.iter().copied().cycle();
    let mut next = move |n: u16| it.next().unwrap_or(0) % n.max(1);
    let mut files = Vec::new();
    // Six clips: c0–c3 for the base machine, c4–c5 for the layer (no clip plays twice at once).
    for k in 0..6 {
        let d = [0.5, 0.8, 1.0, 1.3][next(4) as usize];
        let mut w = Vec::new();
        for _ in 0..next(4) {
            let b = f64::from(next(10)) / 10.0 * d;
            let e = if next(3) == 0 {
                d
            } else {
                (b + f64::from(1 + next(5)) / 10.0 * d).min(d)
            };
            if b < e {
                w.push((b, e));
            }
        }
        files.push((
            format!("assets/c{k}.animseq"),
            clip_text(&format!("c{k}"), d, &w),
        ));
    }
    // A state machine: s0 (c0), s1 (c1), s2 (a 1D blend of c2 and c3 on `x`).
    let blend = |n: &mut dyn FnMut(u16) -> u16| [0.0, 0.05, 0.1, 0.3][n(4) as usize];
    let looping = |n: &mut dyn FnMut(u16) -> u16| if n(4) == 0 { "false" } else { "true" };
    let mut sm = String::from("StateMachine(entry: \"s0\", states: [");
    let s0_loops = looping(&mut next);
    write!(
        sm,
        "(name: \"s0\", motion: Clip(\"c0\"), looping: {s0_loops}),"
    )
    .unwrap();
    write!(
        sm,
        "(name: \"s1\", motion: Clip(\"c1\"), speed: {:?}, looping: {}),",
        [1.0, 2.0, 0.5][next(3) as usize],
        looping(&mut next)
    )
    .unwrap();
    sm.push_str(
        "(name: \"s2\", motion: Blend(Blend1D(param: \"x\", entries: [(clip: \"c2\", threshold: 0.0), \
         (clip: \"c3\", threshold: 1.0)]))),",
    );
    sm.push_str("], transitions: [");
    for (from, to) in [("s0", "s1"), ("s1", "s2"), ("s2", "s0"), ("s1", "s0")] {
        if next(2) == 0 {
            write!(
                sm,
                "(from: \"{from}\", to: \"{to}\", blend: {:?}, when: [Greater(\"go\", {:?})]),",
                blend(&mut next),
                f64::from(next(3)) / 2.0
            )
            .unwrap();
        }
    }
    if s0_loops == "false" {
        sm.push_str("(from: \"s0\", to: \"s1\", blend: 0.1, when: [Finished]),");
    }
    sm.push_str("])");
    files.push(("assets/m.animsm".into(), sm));
    // Two entities: one with the machine and a layer, one with a default clip and a layer.
    let mut actions = String::new();
    let t = |n: &mut dyn FnMut(u16) -> u16| f64::from(n(40)) * 0.05;
    for _ in 0..(4 + next(16)) {
        let at = t(&mut next);
        let who = ["a", "b"][next(2) as usize];
        let action = match next(12) {
            // Only `a` has a state machine: a state request on `b` is a load error (E0565).
            0 if who == "a" => format!("SetState(\"s{}\")", next(3)),
            1 => format!("SetParam(\"go\", {:?})", f64::from(next(3)) / 2.0),
            2 => format!("SetParam(\"x\", {:?})", f64::from(next(5)) / 4.0),
            3 => format!("PlayOnLayer(\"top\", \"c{}\")", 4 + next(2)),
            4 => "StopLayer(\"top\")".into(),
            5 => format!("SetLayerWeight(\"top\", {:?})", f64::from(next(3)) / 2.0),
            6 => format!("Seek({:?})", f64::from(next(30)) / 10.0 - 0.5),
            7 => "Pause".into(),
            8 => "Resume".into(),
            9 => format!(
                "SetSpeed({:?})",
                [1.0, -1.0, 2.0, -0.5, 0.0][next(5) as usize]
            ),
            10 if next(4) == 0 => "Despawn".into(),
            // `Play` only on `b` (an animator with a state machine refuses it: E0568); every
            // clip is at least 0.5 s long.
            11 if who == "b" => format!(
                "Play(\"c{}\", {:?})",
                [0, 4, 5][next(3) as usize],
                f64::from(next(3)) * 0.25
            ),
            _ => format!("SetParam(\"x\", {:?})", f64::from(next(5)) / 4.0),
        };
        writeln!(
            actions,
            "(at: {at:?}, entity: \"{who}\", action: {action}),"
        )
        .unwrap();
    }
    let blend_duration = blend(&mut next);
    let text = format!(
        "Scene(seed: {}, entities: [\
         (name: \"a\", animator: Some((clips: {{\"c0\": \"c0.animseq\", \"c1\": \"c1.animseq\", \
           \"c2\": \"c2.animseq\", \"c3\": \"c3.animseq\", \"c4\": \"c4.animseq\", \"c5\": \"c5.animseq\"}}, \
           state_machine: Some(\"m.animsm\"), blend_duration: {blend_duration:?}, \
           layers: [(name: \"top\", weight: 1.0)]))),\
         (name: \"b\", animator: Some((clips: {{\"c0\": \"c0.animseq\", \"c4\": \"c4.animseq\", \
           \"c5\": \"c5.animseq\"}}, default_clip: Some(\"c0\"), blend_duration: {blend_duration:?}, \
           layers: [(name: \"top\", weight: 1.0)])))], actions: [{actions}])",
        next(100)
    );
    files.push(("t.scene.ron".into(), text));
    let ticks = 20 + next(60) as usize;
    let dt = [1.0 / 60.0, 0.05, 0.1, 0.35][next(4) as usize];
    (files, ticks, dt)
}

/// Runs the scene, removes every animator, runs one more tick; returns the window edge lines
/// per (target, event): `(edge, completed)`.
fn run(
    files: &[(String, String)],
    ticks: usize,
    dt: f64,
) -> BTreeMap<(u64, String), Vec<(Edge, bool)>> {
    let mut mem = MemSource::new();
    for (p, t) in files {
        mem.insert(ProjectPath::new(p).unwrap(), t.as_str());
    }
    let layout = Layout::new(
        ProjectPath::new("t.scene.ron").unwrap(),
        ProjectPath::new("assets").unwrap(),
    );
    let loaded = project::load(&mem, &layout).expect("readable");
    let (def, assets) = loaded
        .ready()
        .unwrap_or_else(|| panic!("{:?}\n{files:#?}", loaded.diagnostics));
    let (mut world, mut schedule) = scene::headless(dt).unwrap();
    world.insert_resource(Trace::default());
    let spawned = scene::spawn(&mut world, def, assets).unwrap();
    let mut records = Vec::new();
    for _ in 0..ticks {
        schedule.run(&mut world);
        records.extend(world.resource_mut::<Trace>().drain());
    }
    for (_, e, _) in &spawned.entities {
        if let Ok(mut ent) = world.get_entity_mut(*e) {
            ent.remove::<sinew::runtime::Animator>();
        }
    }
    schedule.run(&mut world);
    records.extend(world.resource_mut::<Trace>().drain());
    let mut out: BTreeMap<(u64, String), Vec<(Edge, bool)>> = BTreeMap::new();
    for r in records {
        if let TraceKind::Notify {
            entity,
            event,
            edge: Some(edge),
            completed,
            ..
        } = r.kind
        {
            out.entry((entity.to_bits(), event.to_string()))
                .or_default()
                .push((edge, completed));
        }
    }
    out
}

/// Every begin has exactly one end: no end before its begin, none left open.
fn check(edges: &BTreeMap<(u64, String), Vec<(Edge, bool)>>) -> Result<(), String> {
    for (k, list) in edges {
        let mut open = 0i64;
        for (edge, completed) in list {
            match edge {
                Edge::Begin if *completed => return Err(format!("{k:?}: a completed begin")),
                Edge::Begin => open += 1,
                Edge::End => open -= 1,
            }
            if open < 0 {
                return Err(format!("{k:?}: an end without a begin: {list:?}"));
            }
        }
        if open != 0 {
            return Err(format!("{k:?}: {open} begins without an end: {list:?}"));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn every_begin_has_exactly_one_end(choices in proptest::collection::vec(any::<u16>(), 1..200)) {
        let (files, ticks, dt) = scene(&choices);
        let edges = run(&files, ticks, dt);
        if let Err(e) = check(&edges) {
            return Err(TestCaseError::fail(format!("{e}\n{files:#?}\nticks {ticks} dt {dt}")));
        }
    }
}

#[test]
fn random_scenes_open_and_cut_windows() {
    // The generator reaches what the property is about: many begins, ends at their edges and
    // ends cut short.
    let (mut begins, mut completed, mut cut) = (0, 0, 0);
    for seed in 0..40u16 {
        let choices: Vec<u16> = (0..200u16)
            .map(|i| i.wrapping_mul(7919).wrapping_add(seed.wrapping_mul(10_477)) ^ (i >> 3))
            .collect();
        let (files, ticks, dt) = scene(&choices);
        let edges = run(&files, ticks, dt);
        check(&edges).unwrap_or_else(|e| panic!("{e}\n{files:#?}"));
        for list in edges.values() {
            for (e, c) in list {
                match (e, c) {
                    (Edge::Begin, _) => begins += 1,
                    (Edge::End, true) => completed += 1,
                    (Edge::End, false) => cut += 1,
                }
            }
        }
    }
    assert!(
        begins > 100 && completed > 20 && cut > 20,
        "{begins} begins, {completed} completed, {cut} cut"
    );
}
