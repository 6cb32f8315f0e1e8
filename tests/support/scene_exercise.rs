//! The body of the `run_scene` fuzz target, shared with `tests/hostile.rs` (which runs the
//! seeds in `fuzz/seeds/scene/` through it): bytes → a memory project → `project::load` → spawn
//! → a few ticks, with the trace written in both formats.
//!
//! Input: up to three parts separated by the byte `0xFF` (never part of UTF-8 text): the scene
//! (`s.scene.ron`), a graph (`graphs/g.bpg`) and a clip (`assets/c.animseq`). Nothing may
//! panic, hang or grow without bound; a scene runs deterministically (two runs, same JSON
//! trace); human trace lines and diagnostics hold no raw control character and no line break
//! (a name or message cannot forge a line); every JSON line parses.

use std::collections::BTreeMap;

use sinew::project::{self, Layout, MemSource, ProjectPath};
use sinew::runtime::scene::{headless, spawn};
use sinew::runtime::{EventHub, Trace, TraceFormat, TraceWriter};

/// Ticks each scene runs.
pub const TICKS: usize = 4;

fn clean(text: &str) -> bool {
    !text
        .chars()
        .any(|c| c != '\n' && sinew::escape::needs_escape(c))
}

/// Runs the input; returns the JSON trace (`None` when the scene did not load or spawn).
pub fn exercise(data: &[u8]) -> Option<String> {
    let mut parts = data.splitn(3, |&b| b == 0xFF);
    let scene = parts.next().unwrap_or_default();
    let graph = parts.next().unwrap_or_default();
    let clip = parts.next().unwrap_or_default();
    let mem = MemSource::from_files([
        ("s.scene.ron", scene),
        ("graphs/g.bpg", graph),
        ("assets/c.animseq", clip),
    ])
    .expect("fixed paths");
    let layout = Layout::new(
        ProjectPath::new("s.scene.ron").expect("path"),
        ProjectPath::new("assets").expect("path"),
    );
    let loaded = project::load(&mem, &layout).ok()?;
    let human = sinew::diag::render::human(&loaded.diagnostics, false);
    assert!(clean(&human), "{human:?}");
    let _ = sinew::diag::render::to_json(&loaded.diagnostics);
    let (def, assets) = loaded.ready()?;
    let run = || -> Option<String> {
        let (mut world, mut schedule) = headless(1.0 / 30.0).ok()?;
        // A storm costs deliveries × budget per tick: keep each input quick.
        world.resource_mut::<EventHub>().set_delivery_limit(512);
        let spawned = spawn(&mut world, def, assets).ok()?;
        let names = BTreeMap::new();
        let human = TraceWriter::new(&spawned, &names, TraceFormat::Human);
        let json = TraceWriter::new(&spawned, &names, TraceFormat::Json);
        let mut out = String::new();
        let check = |h: String, j: String, out: &mut String| {
            assert!(clean(&h) && !h.contains('\n'), "{h:?}");
            serde_json::from_str::<serde_json::Value>(&j).expect("a JSON line");
            out.push_str(&j);
            out.push('\n');
        };
        for _ in 0..TICKS {
            schedule.run(&mut world);
            let records = world.resource_mut::<Trace>().drain();
            for r in &records {
                check(human.record(r), json.record(r), &mut out);
            }
        }
        for (h, j) in human
            .end_lines(&world)
            .into_iter()
            .zip(json.end_lines(&world))
        {
            check(h, j, &mut out);
        }
        Some(out)
    };
    let first = run();
    assert_eq!(first, run(), "a scene runs deterministically");
    first
}
