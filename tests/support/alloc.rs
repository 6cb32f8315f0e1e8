//! Allocation accounting for tests that bound memory: a counting global allocator, per thread
//! (tests in one binary run in parallel threads and must not disturb each other's counts).
//! Include with `#[path = "support/alloc.rs"] mod alloc;` (it installs the global allocator).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
    static TOTAL: Cell<usize> = const { Cell::new(0) };
}

fn on_alloc(n: usize) {
    let _ = LIVE.try_with(|l| {
        let v = l.get() + n;
        l.set(v);
        let _ = PEAK.try_with(|p| p.set(p.get().max(v)));
    });
    let _ = TOTAL.try_with(|t| t.set(t.get().saturating_add(n)));
}

fn on_free(n: usize) {
    let _ = LIVE.try_with(|l| l.set(l.get().saturating_sub(n)));
}

// SAFETY: delegates every call to `System`; the counters are thread-local cells that never
// allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        on_alloc(layout.size());
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        on_free(layout.size());
        // SAFETY: forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
        on_free(layout.size());
        on_alloc(new);
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `f` and returns its result with the peak of bytes it held live at once (this thread).
pub fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let r = f();
    (r, PEAK.with(Cell::get) - base)
}

/// Runs `f` and returns its result with the bytes it allocated in all (this thread): a proxy
/// for work that, unlike wall time, does not depend on the machine's load.
#[allow(dead_code)]
pub fn allocated_by<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = TOTAL.with(Cell::get);
    let r = f();
    (r, TOTAL.with(Cell::get) - base)
}
