//! The studio's memory budget (issue 24): what all connections together may make the server
//! hold, whatever each one is allowed on its own.
//!
//! * **Request bodies in flight** share [`Limits::max_bodies`](super::http::Limits) bytes: a
//!   body is reserved from its `Content-Length` before it is read and released when its answer
//!   has been written; one that does not fit is answered `503` with `Retry-After` at once.
//! * **Heavy requests** (checking, saving, drawing and running a graph: everything that
//!   compiles or runs) share [`HEAVY_SLOTS`] slots. A request waits up to [`HEAVY_WAIT`] for a
//!   slot while at most [`HEAVY_QUEUE`] others wait; past that it is answered `503` with
//!   `Retry-After: 1`. A slot is held until the answer has been written, so an answer waiting
//!   for a slow client is counted too.
//! * **A run's answer** is capped at [`super::run::MAX_RUN_BYTES`] of records (see `run.rs`).
//!
//! `docs/studio.md` ("Memory budget") gives the numbers behind the choices.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Heavy requests served at once.
pub const HEAVY_SLOTS: usize = 4;
/// Heavy requests that may wait for a slot (beyond: 503 at once).
pub const HEAVY_QUEUE: usize = 8;
/// Longest wait for a heavy slot.
pub const HEAVY_WAIT: Duration = Duration::from_secs(2);
/// The `Retry-After` of a 503 from the budget, in seconds.
pub const RETRY_AFTER: &str = "1";

/// Something an answer keeps alive until it has been written (a slot, a reservation).
pub type Hold = Box<dyn Send>;

/// A fixed number of slots, with a bounded, time-limited queue.
#[derive(Debug)]
pub struct Pool {
    state: Mutex<(usize, usize)>, // (slots in use, waiting)
    freed: Condvar,
    slots: usize,
    queue: usize,
    wait: Duration,
}

/// One slot of a [`Pool`], freed on drop.
#[derive(Debug)]
pub struct Slot(Arc<Pool>);

impl Drop for Slot {
    fn drop(&mut self) {
        if let Ok(mut s) = self.0.state.lock() {
            s.0 = s.0.saturating_sub(1);
        }
        self.0.freed.notify_one();
    }
}

impl Pool {
    /// A pool of `slots` slots where at most `queue` requests wait up to `wait`.
    pub fn new(slots: usize, queue: usize, wait: Duration) -> Arc<Pool> {
        Arc::new(Pool {
            state: Mutex::new((0, 0)),
            freed: Condvar::new(),
            slots,
            queue,
            wait,
        })
    }

    /// The heavy-request pool with the defaults above.
    pub fn heavy() -> Arc<Pool> {
        Pool::new(HEAVY_SLOTS, HEAVY_QUEUE, HEAVY_WAIT)
    }

    /// A slot, or `None` when none frees up in time (or the queue is full).
    pub fn take(self: &Arc<Pool>) -> Option<Slot> {
        let mut s = self.state.lock().ok()?;
        if s.0 < self.slots {
            s.0 += 1;
            return Some(Slot(self.clone()));
        }
        if s.1 >= self.queue {
            return None;
        }
        s.1 += 1;
        let deadline = Instant::now() + self.wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if s.0 < self.slots {
                s.0 += 1;
                s.1 -= 1;
                return Some(Slot(self.clone()));
            }
            if left.is_zero() {
                s.1 -= 1;
                return None;
            }
            s = match self.freed.wait_timeout(s, left) {
                Ok((g, _)) => g,
                Err(_) => return None,
            };
        }
    }
}

/// Bytes shared by all connections (request bodies in flight).
#[derive(Debug)]
pub struct Bytes {
    used: AtomicUsize,
    max: usize,
}

/// A reservation of [`Bytes`], released on drop.
#[derive(Debug)]
pub struct Reserved(Arc<Bytes>, usize);

impl Drop for Reserved {
    fn drop(&mut self) {
        self.0.used.fetch_sub(self.1, Ordering::SeqCst);
    }
}

impl Bytes {
    /// A budget of `max` bytes.
    pub fn new(max: usize) -> Arc<Bytes> {
        Arc::new(Bytes {
            used: AtomicUsize::new(0),
            max,
        })
    }

    /// Reserves `n` bytes, or `None` when they do not fit beside what is reserved.
    pub fn reserve(self: &Arc<Bytes>, n: usize) -> Option<Reserved> {
        let mut used = self.used.load(Ordering::SeqCst);
        loop {
            let next = used.checked_add(n).filter(|&t| t <= self.max)?;
            match self
                .used
                .compare_exchange(used, next, Ordering::SeqCst, Ordering::SeqCst)
            {
                Ok(_) => return Some(Reserved(self.clone(), n)),
                Err(now) => used = now,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_queue_and_free() {
        let p = Pool::new(1, 1, Duration::from_millis(50));
        let a = p.take().expect("free slot");
        assert!(p.take().is_none(), "waits, then times out");
        drop(a);
        assert!(p.take().is_some());
    }

    #[test]
    fn bytes_are_shared() {
        let b = Bytes::new(10);
        let r = b.reserve(6).unwrap();
        assert!(b.reserve(5).is_none());
        drop(r);
        assert!(b.reserve(10).is_some());
    }
}
