//! Waiting with a deadline, the one way tests wait for something that happens on its own time
//! (a child process ending, threads finishing): the condition is checked, then the thread parks
//! for a short while (never past the deadline) and checks again. Nothing else in the tests
//! sleeps to wait for a condition; where a blocking read or a channel can wait instead
//! (`recv_timeout`), that is used.

#![allow(dead_code)]

use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

/// The longest park between two checks.
const PARK: Duration = Duration::from_millis(10);

/// Checks `ready` until it returns `Some` (that value) or `deadline` passes (`None`). `ready` is
/// checked at least once, and once more at the deadline.
pub fn wait_until<T>(deadline: Instant, mut ready: impl FnMut() -> Option<T>) -> Option<T> {
    loop {
        if let Some(v) = ready() {
            return Some(v);
        }
        let now = Instant::now();
        if now >= deadline {
            return ready();
        }
        std::thread::park_timeout(PARK.min(deadline - now));
    }
}

/// The exit status of `child` once it has ended, or `None` when it is still running at
/// `deadline` (the caller decides whether to kill it).
pub fn wait_exit(child: &mut Child, deadline: Instant) -> Option<ExitStatus> {
    wait_until(deadline, || child.try_wait().expect("try_wait"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_condition_met_later_is_seen_and_a_deadline_ends_the_wait() {
        let start = Instant::now();
        let ready_at = start + Duration::from_millis(30);
        let got = wait_until(start + Duration::from_secs(10), || {
            (Instant::now() >= ready_at).then_some(7)
        });
        assert_eq!(got, Some(7));
        let t = Instant::now();
        assert_eq!(
            wait_until(t + Duration::from_millis(20), || None::<()>),
            None
        );
        assert!(t.elapsed() >= Duration::from_millis(20));
    }
}
