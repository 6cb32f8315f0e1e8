//! One `PUT /api/clip` on a generated clip of about 5 MB, for `valgrind --tool=callgrind`
//! (issue 28): a real studio server on port 0, one `GET /api/clip` for the base version (as the
//! page does), then one `set_notify` edit. Prints the PUT's wall time and the clip's size, then
//! SHA-256 of the saved text natively and the atomic write of it alone (the disk's share).
//!
//!   CARGO_PROFILE_DEV_OPT_LEVEL=3 cargo build --example clips_put_once
//!   valgrind --tool=callgrind target/debug/examples/clips_put_once
//!
//! (`put_clip` is inlined into the router, so `--toggle-collect` on it records nothing: read the
//! whole run's per-function counts.)
//!
//! An argument sets the keys per bone (default 1,333: about 5 MB over 64 bones).

use std::time::Instant;

#[path = "support/studio.rs"]
mod support;
use support::http;

/// The CPU time this process has used (every thread, ended ones included), in milliseconds:
/// what a loaded machine does not stretch, as it stretches wall time.
fn cpu_ms() -> f64 {
    // SAFETY: `getrusage` fills the zeroed struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let ms = |t: libc::timeval| t.tv_sec as f64 * 1000.0 + t.tv_usec as f64 / 1000.0;
    ms(u.ru_utime) + ms(u.ru_stime)
}

fn main() {
    let keys: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1333);
    let (dir, assets) = support::project();
    let text = support::big_clip(&assets, keys);
    let running = support::start(&dir);
    let (port, token) = (running.addr.port(), running.token.clone());
    let (_, b) = http(port, "GET", "/api/clip?path=big.animseq", &token, "");
    let v: serde_json::Value = serde_json::from_slice(&b).unwrap();
    let base = v["version"].as_str().unwrap().to_string();
    let body = serde_json::json!({"base": base, "edits": [
        {"op": "set_notify", "id": "step", "notify": {"time": 0.75}}
    ]})
    .to_string();
    let (t, cpu) = (Instant::now(), cpu_ms());
    let (s, b) = http(port, "PUT", "/api/clip?path=big.animseq", &token, &body);
    let (ms, cpu) = (t.elapsed().as_secs_f64() * 1000.0, cpu_ms() - cpu);
    assert_eq!(s, 200, "{}", String::from_utf8_lossy(&b));
    println!(
        "PUT /api/clip one edit on a {:.2} MB clip: {ms:.1} ms (CPU time of the process meanwhile, server and client: {cpu:.1} ms)",
        text.len() as f64 / 1e6
    );
    // SHA-256 of the saved text, natively (valgrind hides SHA-NI from the CPU's feature bits,
    // so under callgrind `sha2` runs its portable code instead).
    let saved = std::fs::read(assets.join("big.animseq")).unwrap();
    let mut hashes: Vec<f64> = (0..5)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(sinew::workspace::version_of(&saved));
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    hashes.sort_by(f64::total_cmp);
    println!("  SHA-256 of the saved clip, natively: {:.2} ms", hashes[2]);
    // The atomic write alone (temporary, `fsync`, rename, folder `fsync`): the disk's share.
    let copy = assets.join("copy.bin");
    let mut writes: Vec<f64> = (0..5)
        .map(|_| {
            let t = Instant::now();
            sinew::fsutil::write_atomic(&copy, &saved).unwrap();
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    writes.sort_by(f64::total_cmp);
    println!(
        "  the atomic write of the saved clip alone: {:.1} ms (median of 5; {:.1}-{:.1})",
        writes[2], writes[0], writes[4]
    );
    running.stop();
}
