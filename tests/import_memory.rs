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
    let out = prepare(name, bytes).import(&id, &ext, &mut |a| written += a.text_ref().len());
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
    // Many animated skins in a file with many nodes: what the import keeps per skeleton must
    // not be as long as the file's node list (that would be skins × nodes, 400 MB here). The
    // parsed glTF alone holds a few hundred bytes per node, so the bound is looser than 4×.
    let many = many_skins(10_000, 1_000);
    let (p, _) = peak("many_skins.gltf", &many);
    let ratio = p as f64 / many.len() as f64;
    println!(
        "many_skins.gltf: file {} bytes, peak {p} bytes ({ratio:.2}× the file)",
        many.len()
    );
    assert!(
        ratio <= 64.0,
        "many skins: peak {p} is {ratio:.2}× the file"
    );
}

/// A glTF of one root with `nodes` children, `skins` one-joint skins on the first children,
/// and one animation translating every skinned joint (all channels share one sampler).
fn many_skins(nodes: usize, skins: usize) -> Vec<u8> {
    let children: Vec<String> = (1..=nodes).map(|i| i.to_string()).collect();
    let mut node_list = vec![format!(
        "{{\"name\":\"root\",\"children\":[{}]}}",
        children.join(",")
    )];
    node_list.extend((1..=nodes).map(|i| format!("{{\"name\":\"n{i}\"}}")));
    let skin_list: Vec<String> = (1..=skins)
        .map(|i| format!("{{\"joints\":[{i}]}}"))
        .collect();
    let channels: Vec<String> = (1..=skins)
        .map(|i| format!("{{\"sampler\":0,\"target\":{{\"node\":{i},\"path\":\"translation\"}}}}"))
        .collect();
    format!(
        "{{\"asset\":{{\"version\":\"2.0\"}},\"scene\":0,\"scenes\":[{{\"nodes\":[0]}}],\
         \"nodes\":[{}],\"skins\":[{}],\
         \"animations\":[{{\"name\":\"Move\",\"samplers\":[{{\"input\":0,\"output\":1}}],\"channels\":[{}]}}],\
         \"buffers\":[{{\"byteLength\":16,\"uri\":\"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAAAAAA==\"}}],\
         \"bufferViews\":[{{\"buffer\":0,\"byteLength\":16}}],\
         \"accessors\":[{{\"bufferView\":0,\"componentType\":5126,\"count\":1,\"type\":\"SCALAR\",\"min\":[0],\"max\":[0]}},\
         {{\"bufferView\":0,\"byteOffset\":4,\"componentType\":5126,\"count\":1,\"type\":\"VEC3\"}}]}}",
        node_list.join(","),
        skin_list.join(","),
        channels.join(",")
    )
    .into_bytes()
}
