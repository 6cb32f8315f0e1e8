//! Exact tick clocks: a playback time that is a function of the number of ticks since its
//! rate took effect, never a running sum (`runtime.md`, "No drift").
//!
//! A [`TickClock`] anchored at `origin` reads, after `k` ticks at `rate` ticks per second and
//! `speed` units per second, `origin + (k / rate) · speed` — one division and one
//! multiplication of the exact integer `k`, so after 10⁶ ticks it is still within an ulp of
//! the real value, and a marker at clip time 1.5 of a clip started at tick 0 is reached at the
//! end of tick 90 at 60 Hz (`90 / 60 = 1.5` exactly; 90 additions of `1/60` give
//! `1.4999999999999998`). A change of rate or speed re-anchors at the current value (the new
//! speed takes effect from there); so do [`TickClock::set`] (a seek, a clamp) and
//! [`TickClock::reanchor`] (a resume). Each tick's interval starts at exactly the value where
//! the previous one ended: the value is a pure function of the clock's state.

/// A time advanced in whole ticks (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TickClock {
    /// The value when the current rate and speed took effect.
    origin: f64,
    /// Ticks since then.
    ticks: u64,
    /// Ticks per second of the current anchor (unused while `ticks == 0`).
    rate: f64,
    /// Units per second of the current anchor (unused while `ticks == 0`).
    speed: f64,
}

impl Default for TickClock {
    fn default() -> Self {
        TickClock::at(0.0)
    }
}

impl TickClock {
    /// A clock reading `origin`, anchored there.
    pub const fn at(origin: f64) -> TickClock {
        TickClock {
            origin,
            ticks: 0,
            rate: 0.0,
            speed: 0.0,
        }
    }

    /// The current value.
    #[inline]
    pub fn now(&self) -> f64 {
        if self.ticks == 0 {
            self.origin
        } else {
            value(self.origin, self.ticks, self.rate, self.speed)
        }
    }

    /// Ticks since the current anchor.
    pub fn ticks(&self) -> u64 {
        self.ticks
    }

    /// The value one tick from now at `rate` and `speed` (what [`TickClock::tick`] would
    /// return as its end), without moving.
    #[inline]
    pub fn peek(&self, rate: f64, speed: f64) -> f64 {
        if self.same(rate, speed) {
            value(self.origin, self.ticks.saturating_add(1), rate, speed)
        } else {
            value(self.now(), 1, rate, speed)
        }
    }

    /// Moves one tick at `rate` ticks per second and `speed` units per second (re-anchoring
    /// first when either differs from the anchor's) and returns the tick's `(from, to)`; `from`
    /// is exactly the previous `to`. When `to` would not be finite the clock does not move and
    /// `None` is returned.
    #[inline]
    pub fn tick(&mut self, rate: f64, speed: f64) -> Option<(f64, f64)> {
        let from = self.now();
        if !self.same(rate, speed) {
            let to = value(from, 1, rate, speed);
            if !to.is_finite() {
                return None;
            }
            *self = TickClock {
                origin: from,
                ticks: 1,
                rate,
                speed,
            };
            return Some((from, to));
        }
        let ticks = self.ticks.checked_add(1)?;
        let to = value(self.origin, ticks, rate, speed);
        if !to.is_finite() {
            return None;
        }
        self.ticks = ticks;
        Some((from, to))
    }

    /// Sets the value to `t` and anchors there (a seek, a clamp at a clip's end).
    pub fn set(&mut self, t: f64) {
        *self = TickClock::at(t);
    }

    /// Anchors at the current value: the next tick starts a new `(u₀, n₀)` (a resume).
    pub fn reanchor(&mut self) {
        self.set(self.now());
    }

    /// Whether `(rate, speed)` is the anchor's, bit for bit (and the anchor has ticked).
    #[inline]
    fn same(&self, rate: f64, speed: f64) -> bool {
        self.ticks > 0
            && self.rate.to_bits() == rate.to_bits()
            && self.speed.to_bits() == speed.to_bits()
    }
}

/// `origin + (ticks / rate) · speed`.
#[inline]
fn value(origin: f64, ticks: u64, rate: f64, speed: f64) -> f64 {
    origin + (ticks as f64 / rate) * speed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ninety_ticks_at_60_hz_reach_exactly_one_and_a_half() {
        let mut c = TickClock::default();
        let mut summed = 0.0f64;
        for _ in 0..90 {
            c.tick(60.0, 1.0);
            summed += 1.0 / 60.0;
        }
        assert_eq!(c.now(), 1.5);
        // The accumulated sum falls short: the bug this clock exists for.
        assert!(summed < 1.5, "{summed}");
    }

    #[test]
    fn intervals_chain_exactly_across_speed_changes() {
        let mut c = TickClock::at(0.25);
        let mut last = c.now();
        for (i, speed) in [1.0, 1.0, -0.5, 2.0, 2.0, 0.0, 3.0].into_iter().enumerate() {
            let (from, to) = c.tick(60.0, speed).expect("finite");
            assert_eq!(from.to_bits(), last.to_bits(), "tick {i}");
            assert_eq!(c.now().to_bits(), to.to_bits());
            last = to;
        }
    }

    #[test]
    fn a_speed_change_anchors_where_the_clock_stood() {
        let mut c = TickClock::default();
        for _ in 0..30 {
            c.tick(60.0, 1.0);
        }
        assert_eq!(c.now(), 0.5);
        assert_eq!(c.peek(60.0, 2.0), 0.5 + (1.0 / 60.0) * 2.0);
        for _ in 0..30 {
            c.tick(60.0, 2.0);
        }
        assert_eq!(c.ticks(), 30);
        assert_eq!(c.now(), 0.5 + (30.0 / 60.0) * 2.0);
    }

    #[test]
    fn set_and_reanchor_start_a_new_anchor() {
        let mut c = TickClock::default();
        c.tick(60.0, 1.0);
        c.set(2.0);
        assert_eq!((c.now(), c.ticks()), (2.0, 0));
        assert_eq!(c.tick(60.0, 1.0), Some((2.0, 2.0 + 1.0 / 60.0)));
        c.reanchor();
        assert_eq!(c.ticks(), 0);
        assert_eq!(c.now(), 2.0 + 1.0 / 60.0);
    }

    #[test]
    fn a_non_finite_step_leaves_the_clock_where_it_was() {
        let mut c = TickClock::at(f64::MAX);
        assert_eq!(c.tick(1.0, f64::MAX), None);
        assert_eq!(c.now(), f64::MAX);
        let mut d = TickClock::default();
        d.tick(60.0, 1.0);
        assert_eq!(d.tick(60.0, f64::INFINITY), None);
        assert_eq!(d.now(), 1.0 / 60.0);
    }
}
