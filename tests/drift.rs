//! No drift (`runtime.md`, "No drift"): a playback time at the end of tick `n` is
//! `u₀ + ((n − n₀) / rate) · speed`, with `(u₀, n₀)` taken when its current speed (or rate)
//! took effect or at a seek — never a running sum of `dt`s.
//!
//! The pure core (`anim::TickClock` driving `crossing::NotifyIndex` queries, as the animator
//! does) over 10⁶ ticks with random speed changes (reverse and zero too), tick-rate changes and
//! seeks, against a model written from the formula alone:
//!
//! - **exactness**: every tick's `(from, to)` is the formula's, bit for bit, and `from` is the
//!   previous `to` (or the seek target);
//! - **split equivalence**: over every run of ticks in one direction without a seek, the
//!   crossings of the per-tick queries, concatenated, are exactly one reference scan
//!   (`support/crossing_reference.rs`, independent of `sinew::crossing`) over the whole
//!   interval: each crossing once, none missing, in firing order;
//! - **exact tick placement**: each crossing fires in the tick whose exact interval (the
//!   formula's `(end(n − 1), end(n)]`) contains its time, found by a binary search over the
//!   formula's tick ends.

#[path = "support/crossing_reference.rs"]
#[allow(dead_code)]
mod support;

use proptest::prelude::*;
use sinew::anim::TickClock;
use sinew::crossing::{Crossing, DEFAULT_LIMIT, NotifyIndex, PlaybackInterval};
use support::{reference, same};

/// The clip: 1.25 s (75 ticks at 60 Hz), markers on tick boundaries at 60 Hz and off them.
const D: f64 = 1.25;
const TIMES: [f64; 6] = [0.0, 0.1, 0.25, 0.5, 0.7, 1.0];
const WINDOWS: [(f64, f64); 3] = [(0.25, 0.5), (0.1, 0.9), (1.0, 1.25)];

/// Longest run of ticks checked as one interval (keeps the brute-force reference's cycle window
/// small); a run is cut there without touching playback, which changes nothing by the property.
const MAX_RUN: usize = 20_000;

#[derive(Clone, Copy, Debug)]
enum Ev {
    Speed(f64),
    Rate(f64),
    Seek(f64),
}

/// The formula's anchor: the value `u0` at the end of tick `n0`.
#[derive(Clone, Copy, Debug)]
struct Anchor {
    u0: f64,
    n0: u64,
    rate: f64,
    speed: f64,
}

impl Anchor {
    /// The value at the end of tick `n` (`n ≥ n0`).
    fn end(&self, n: u64) -> f64 {
        if n == self.n0 {
            self.u0
        } else {
            self.u0 + ((n - self.n0) as f64 / self.rate) * self.speed
        }
    }
}

/// One tick of a run: its number and the formula's `(from, to)`.
type Tick = (u64, f64, f64);

/// Checks one run: per-tick crossings `fired` (tick, crossing) against one reference scan over
/// the run's whole interval, and each crossing's tick against the formula's tick ends.
fn check_run(ticks: &[Tick], fired: &[(u64, Crossing)]) -> Result<(), String> {
    let (Some(first), Some(last)) = (ticks.first(), ticks.last()) else {
        return Ok(());
    };
    let (a, b) = (first.1, last.2);
    if a == b {
        return if fired.is_empty() {
            Ok(())
        } else {
            Err(format!("a run that does not move fired {fired:?}"))
        };
    }
    let whole = PlaybackInterval::Advance {
        from: a,
        to: b,
        looping: true,
    };
    let want = reference(D, &TIMES, &WINDOWS, &whole)
        .ok_or_else(|| format!("reference cannot evaluate {whole:?}"))?;
    let got: Vec<Crossing> = fired.iter().map(|(_, c)| *c).collect();
    same(&got, &want).map_err(|e| format!("split over {} ticks of {whole:?}: {e}", ticks.len()))?;
    let forward = b > a;
    for (n, c) in fired {
        // The first tick of the run whose end reaches the crossing's time.
        let i = ticks.partition_point(|t| if forward { t.2 < c.time } else { t.2 > c.time });
        let Some(&(m, from, to)) = ticks.get(i) else {
            return Err(format!("{c:?} lies past the run"));
        };
        let inside = if forward {
            from < c.time && c.time <= to
        } else {
            to <= c.time && c.time < from
        };
        if m != *n || !inside {
            return Err(format!(
                "{c:?} fired in tick {n}, but its exact interval is tick {m}'s ({from:?}, {to:?}]"
            ));
        }
    }
    Ok(())
}

/// Runs `ticks` ticks from time 0 at `rate` and speed 1, applying `events` (sorted by tick) at
/// step 1 of their tick, and checks everything (see the module docs).
fn drive(ticks: u64, rate: f64, events: &[(u64, Ev)]) -> Result<(), String> {
    let index = NotifyIndex::with_windows(D, &TIMES, &WINDOWS).map_err(|e| e.to_string())?;
    let mut clock = TickClock::default();
    let mut model = Anchor {
        u0: 0.0,
        n0: 0,
        rate,
        speed: 1.0,
    };
    let (mut rate, mut speed) = (rate, 1.0f64);
    let mut ev = events.iter().peekable();
    let mut run: Vec<Tick> = Vec::new();
    let mut fired: Vec<(u64, Crossing)> = Vec::new();
    let mut direction = 0.0f64;
    let mut out = Vec::with_capacity(DEFAULT_LIMIT);
    let mut total = 0usize;
    for n in 1..=ticks {
        let mut cut = false;
        while let Some(&&(at, e)) = ev.peek() {
            if at != n {
                break;
            }
            ev.next();
            match e {
                Ev::Speed(s) => speed = s,
                Ev::Rate(r) => rate = r,
                Ev::Seek(t) => {
                    clock.set(t);
                    model = Anchor {
                        u0: t,
                        n0: n - 1,
                        ..model
                    };
                    cut = true;
                }
            }
        }
        // The speed that governs this tick took effect now when it differs from the anchor's
        // (a change and its undoing within one tick's actions change nothing).
        if rate.to_bits() != model.rate.to_bits() || speed.to_bits() != model.speed.to_bits() {
            model = Anchor {
                u0: model.end(n - 1),
                n0: n - 1,
                rate,
                speed,
            };
        }
        let (want_from, want_to) = (model.end(n - 1), model.end(n));
        let (from, to) = clock
            .tick(rate, speed)
            .ok_or_else(|| format!("tick {n}: not finite"))?;
        if from.to_bits() != want_from.to_bits() || to.to_bits() != want_to.to_bits() {
            return Err(format!(
                "tick {n}: clock ({from:?}, {to:?}), formula ({want_from:?}, {want_to:?})"
            ));
        }
        if let Some(&(_, _, last_to)) = run.last()
            && last_to.to_bits() != from.to_bits()
            && !cut
        {
            return Err(format!(
                "tick {n} starts at {from:?}, the last ended at {last_to:?}"
            ));
        }
        let dir = (to - from).signum() * f64::from(u8::from(to != from));
        if cut || run.len() >= MAX_RUN || (dir != 0.0 && direction != 0.0 && dir != direction) {
            check_run(&run, &fired)?;
            total += fired.len();
            run.clear();
            fired.clear();
            direction = 0.0;
        }
        if dir != 0.0 {
            direction = dir;
        }
        run.push((n, from, to));
        let iv = PlaybackInterval::Advance {
            from,
            to,
            looping: true,
        };
        index
            .query_into(&mut out, &iv, DEFAULT_LIMIT)
            .map_err(|e| e.to_string())?;
        fired.extend(out.iter().map(|c| (n, *c)));
    }
    check_run(&run, &fired)?;
    total += fired.len();
    if ticks >= 10_000 && total == 0 {
        return Err("nothing fired: the test checks nothing".into());
    }
    Ok(())
}

#[test]
fn a_marker_at_one_and_a_half_seconds_fires_in_tick_90_at_60_hz() {
    let index = NotifyIndex::new(3.0, &[1.5]).expect("index");
    let mut clock = TickClock::default();
    let mut fired = Vec::new();
    for n in 1..=120u64 {
        let (from, to) = clock.tick(60.0, 1.0).expect("finite");
        let iv = PlaybackInterval::Advance {
            from,
            to,
            looping: true,
        };
        if !index.query(&iv, 16).expect("query").list.is_empty() {
            fired.push(n);
        }
    }
    assert_eq!(fired, [90]);
    // Summing `dt` would have missed tick 90: 90 additions of 1/60 fall short of 1.5.
    let summed = (0..90).fold(0.0f64, |t, _| t + 1.0 / 60.0);
    assert!(summed < 1.5, "{summed}");
}

#[test]
fn a_million_ticks_at_constant_speed_stay_exact() {
    let mut clock = TickClock::default();
    for n in 1..=1_000_000u64 {
        let (_, to) = clock.tick(60.0, 1.0).expect("finite");
        assert_eq!(to.to_bits(), (n as f64 / 60.0).to_bits(), "tick {n}");
    }
    // The accumulated sum is 1.6e-7 s off by then.
    assert_eq!(clock.now(), 1_000_000.0 / 60.0);
}

/// Random events: speed changes (reverse and 0 among them), tick-rate changes, seeks.
fn events(ticks: u64, max: usize) -> impl Strategy<Value = Vec<(u64, Ev)>> {
    let speed = prop_oneof![
        Just(1.0),
        Just(2.0),
        Just(0.5),
        Just(-1.0),
        Just(0.0),
        -3.0f64..3.0,
    ];
    let rate = prop_oneof![
        Just(60.0),
        Just(30.0),
        Just(144.0),
        Just(50.0),
        20.0f64..240.0
    ];
    let seek = prop_oneof![
        (0u32..6000).prop_map(|k| f64::from(k) / 60.0),
        -50.0f64..50.0,
    ];
    let ev = prop_oneof![
        4 => speed.prop_map(Ev::Speed),
        1 => rate.prop_map(Ev::Rate),
        2 => seek.prop_map(Ev::Seek),
    ];
    proptest::collection::vec((1..=ticks, ev), 0..max).prop_map(|mut v| {
        v.sort_by_key(|(n, _)| *n);
        v
    })
}

proptest! {
    // The 10⁶-tick case: few cases (each is a few hundred milliseconds in release).
    #![proptest_config(ProptestConfig::with_cases(3))]
    #[test]
    fn a_million_ticks_with_random_speeds_rates_and_seeks(evs in events(1_000_000, 400)) {
        let r = drive(1_000_000, 60.0, &evs);
        prop_assert!(r.is_ok(), "{:?}", r);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn short_runs_with_dense_events(evs in events(3_000, 200), rate in prop_oneof![Just(60.0), 20.0f64..240.0]) {
        let r = drive(3_000, rate, &evs);
        prop_assert!(r.is_ok(), "{:?}", r);
    }
}
