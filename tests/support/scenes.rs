//! Scene fixtures and `sinew run` in process, for tests that compare another runner's trace
//! with `sinew run`'s.

use std::path::Path;

use clap::Parser;
use sinew::cli::{Cli, Command, Ctx};

/// `sinew run ARGV…` in process: (status, stdout).
pub fn sinew_run(argv: &[&str]) -> (u8, String) {
    let ctx = Ctx {
        color: false,
        cwd: Some(Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()),
    };
    let args = match Cli::try_parse_from(["sinew", "run"].into_iter().chain(argv.iter().copied())) {
        Ok(Cli {
            command: Command::Run(args),
        }) => args,
        other => panic!("not a run command: {other:?}"),
    };
    let mut out = Vec::new();
    let status = sinew::cli::run::execute(&ctx, &args, &mut out, &mut std::io::sink());
    (status, String::from_utf8(out).expect("UTF-8 trace"))
}

/// Every scene fixture with its assets folder: `tests/fixtures/scenes/**.scene.ron` and the
/// demo.
pub fn fixtures() -> Vec<(String, &'static str)> {
    let mut out = vec![("scenes/demo.scene.ron".to_string(), "assets")];
    for (dir, assets) in [
        ("tests/fixtures/scenes", "tests/fixtures/scenes/assets"),
        (
            "tests/fixtures/scenes/err",
            "tests/fixtures/scenes/err/assets",
        ),
    ] {
        let mut found: Vec<String> = std::fs::read_dir(dir)
            .expect("fixture folder")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.to_string_lossy().ends_with(".scene.ron"))
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        found.sort();
        out.extend(found.into_iter().map(|s| (s, assets)));
    }
    out
}
