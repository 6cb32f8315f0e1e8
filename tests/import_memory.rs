//! Peak heap use of an import, measured with a counting global allocator (one test in this
//! binary, so nothing else allocates meanwhile): parsing plus importing, with each generated
//! file dropped as soon as it is handed out (what `sinew import` does after writing it), must
//! stay within 4× the model file's size. The numbers are printed for `docs/benchmarks.md`.

#[path = "support/big_model.rs"]
mod big_model;
#[path = "support/gltf_gen.rs"]
mod gltf_gen;

use sinew::import::{Identity, prepare};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = CURRENT.fetch_add(l.size(), Ordering::SeqCst) + l.size();
            PEAK.fetch_max(now, Ordering::SeqCst);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        CURRENT.fetch_sub(l.size(), Ordering::SeqCst);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            if new >= l.size() {
                let now = CURRENT.fetch_add(new - l.size(), Ordering::SeqCst) + new - l.size();
                PEAK.fetch_max(now, Ordering::SeqCst);
            } else {
                CURRENT.fetch_sub(l.size() - new, Ordering::SeqCst);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Peak bytes allocated above the baseline while importing `bytes`, and the bytes written.
fn peak(name: &str, bytes: &[u8]) -> (usize, usize) {
    let id = Identity {
        model: uuid::Uuid::from_u128(1),
        source: name.to_string(),
    };
    let ext = std::collections::BTreeMap::new();
    let base = CURRENT.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    let mut written = 0usize;
    let out = prepare(name, bytes).import(&id, &ext, &mut |a| written += a.text().len());
    assert!(out.manifest.runtime_supported, "{:?}", out.diagnostics);
    drop(out);
    (PEAK.load(Ordering::SeqCst) - base, written)
}

#[test]
fn peak_allocation_is_within_four_times_the_file() {
    let fox = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/models/Fox.glb"
    ))
    .expect("fox");
    let big = big_model::big_model();
    for (name, bytes) in [("Fox.glb", &fox), ("generated.glb", &big)] {
        let (p, written) = peak(name, bytes);
        let ratio = p as f64 / bytes.len() as f64;
        println!(
            "{name}: file {} bytes, peak {} bytes ({ratio:.2}× the file), {} bytes written",
            bytes.len(),
            p,
            written
        );
        assert!(ratio <= 4.0, "{name}: peak {p} is {ratio:.2}× the file");
    }
}
