//! Issue 24: results that were wrong and output that could be forged — each case here failed
//! before its fix.

use std::fmt::Write as _;

// ---------------------------------------------------------------------------------------------
// Capped reports list errors before warnings (human, JSON and SARIF).
// ---------------------------------------------------------------------------------------------

#[test]
fn a_capped_report_of_many_unused_variables_still_lists_its_limit_errors() {
    let mut t = String::from("graph big\n");
    for i in 0..65_537 {
        writeln!(t, "var v{i}: int = 0").unwrap();
    }
    let src = sinew::diag::SourceFile::new("big.bpg", t);
    let c = sinew::compile::compile(&src, &sinew::catalog::Catalog::default());
    let diags = c.diagnostics();
    let (errors, warnings) = sinew::diag::counts(diags);
    assert!(errors >= 1 && warnings > 65_000, "{errors} {warnings}");
    let listed = |n: usize| n.min(sinew::diag::render::MAX_PER_FILE);
    let human = sinew::diag::render::human(diags, false);
    assert_eq!(human.matches("error[").count(), listed(errors), "{human}");
    let json = sinew::diag::render::to_json(diags);
    let json_errors = json
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "error")
        .count();
    assert_eq!(json_errors, listed(errors));
    let sarif = sinew::diag::sarif::to_sarif(diags, "0");
    let sarif_errors = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["level"] == "error")
        .count();
    assert_eq!(sarif_errors, listed(errors));
}

// ---------------------------------------------------------------------------------------------
// A window one ulp long on a looping clip opens and closes in one update, every cycle.
// ---------------------------------------------------------------------------------------------

#[test]
fn an_ulp_long_window_opens_and_closes_in_each_cycle_at_run_time() {
    use sinew::crossing::Edge;
    use sinew::project::{self, Layout, MemSource, ProjectPath};
    use sinew::runtime::{Trace, TraceKind, scene};
    let end = 0.5f64.next_up();
    let clip = format!(
        "AnimSeq(format: 4, id: \"c\", name: \"c\", duration: 1.0, tracks: [], notifies: [], \
         windows: [(id: \"w\", name: \"W\", begin: 0.5, end: {end:?})])"
    );
    let mut mem = MemSource::new();
    mem.insert(ProjectPath::new("assets/c.animseq").unwrap(), clip.as_str());
    mem.insert(
        ProjectPath::new("t.scene.ron").unwrap(),
        "Scene(entities: [(name: \"a\", animator: Some((clips: {\"c\": \"c.animseq\"}, \
         default_clip: Some(\"c\"))))])",
    );
    let layout = Layout::new(
        ProjectPath::new("t.scene.ron").unwrap(),
        ProjectPath::new("assets").unwrap(),
    );
    let loaded = project::load(&mem, &layout).expect("readable");
    let (def, assets) = loaded
        .ready()
        .unwrap_or_else(|| panic!("{:?}", loaded.diagnostics));
    let (mut world, mut schedule) = scene::headless(0.1).unwrap();
    world.insert_resource(Trace::default());
    scene::spawn(&mut world, def, assets).unwrap();
    let mut edges = Vec::new();
    for _ in 0..46 {
        schedule.run(&mut world);
        for r in world.resource_mut::<Trace>().drain() {
            if let TraceKind::Notify {
                edge: Some(edge),
                cycle,
                completed,
                ..
            } = r.kind
            {
                edges.push((r.tick, edge, cycle, completed));
            }
        }
    }
    // Cycles 0 to 4 (the clip is at 4.6 s): each a begin then its completed end; from cycle 1
    // on both edges are one canonical time, so one tick (before: the end came first and found
    // the window closed, which then stayed open a cycle and closed with the next cycle's end).
    let cycles: Vec<i64> = edges.iter().map(|e| e.2).collect();
    assert_eq!(cycles, [0, 0, 1, 1, 2, 2, 3, 3, 4, 4], "{edges:?}");
    for pair in edges.chunks(2) {
        let [(t0, Edge::Begin, k, false), (t1, Edge::End, _, true)] = pair else {
            panic!("{edges:?}");
        };
        assert!(*k == 0 || t0 == t1, "{edges:?}");
    }
}
