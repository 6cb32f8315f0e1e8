//! Notify crossing tests: conformance cases, the spec's worked example and named edges, and
//! properties against an independent brute-force reference (`support/crossing_reference.rs`).

#[path = "support/crossing_reference.rs"]
mod support;

use proptest::prelude::*;
use sinew::crossing::{
    Crossing, DEFAULT_LIMIT, Edge, IndexError, NotifyIndex, PlaybackInterval, QueryError,
};
use support::{check_invariants, fuzz_one, reference, same, spec_time};

use PlaybackInterval::{Advance, Paused, Seek, Start};

/// Queries a sequence (`d`, authored `times`) and compares with the expected crossings, each
/// `(authored index, T, cycle)`, bit for bit; the clip time must be the notify's own time.
#[track_caller]
fn check(
    d: f64,
    times: &[f64],
    iv: PlaybackInterval,
    limit: usize,
    want: &[(u32, f64, i64)],
    truncated: bool,
) {
    let index = NotifyIndex::new(d, times).expect("valid index");
    let got = index.query(&iv, limit).expect("valid query");
    let want: Vec<Crossing> = want
        .iter()
        .map(|&(notify, time, cycle)| Crossing {
            notify,
            edge: None,
            time,
            clip_time: times[notify as usize],
            cycle,
        })
        .collect();
    if let Err(e) = same(&got.list, &want) {
        panic!("{iv:?}: {e}\n got: {:?}", got.list);
    }
    assert_eq!(got.truncated, truncated, "truncated for {iv:?}");
    // The allocation-free entry point agrees and reuses its buffer.
    let mut buf = Vec::with_capacity(4);
    buf.push(Crossing {
        notify: 99,
        edge: None,
        time: 0.0,
        clip_time: 0.0,
        cycle: 0,
    });
    assert_eq!(index.query_into(&mut buf, &iv, limit), Ok(truncated));
    assert_eq!(buf, got.list);
}

fn adv(from: f64, to: f64) -> PlaybackInterval {
    Advance {
        from,
        to,
        looping: true,
    }
}
fn adv_once(from: f64, to: f64) -> PlaybackInterval {
    Advance {
        from,
        to,
        looping: false,
    }
}
fn start(at: f64, to: f64) -> PlaybackInterval {
    Start {
        at,
        to,
        looping: true,
    }
}
fn start_once(at: f64, to: f64) -> PlaybackInterval {
    Start {
        at,
        to,
        looping: false,
    }
}

/// `steps`-like sequence: 1 s, markers at 0 (0), 0.5 (1), 1.0 (2).
const STEPS: [f64; 3] = [0.0, 0.5, 1.0];
const L: usize = DEFAULT_LIMIT;

// ---------------------------------------------------------------- conformance

#[derive(serde::Deserialize)]
struct AnimSeq {
    duration: f64,
    notifies: Vec<Notify>,
}
#[derive(serde::Deserialize)]
struct Notify {
    id: String,
    name: String,
    time: f64,
}

#[test]
fn conformance_cases() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/crossings");
    let cases: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{dir}/cases.json")).unwrap())
            .unwrap();
    let cases = cases.as_array().unwrap();
    assert!(cases.len() >= 30);
    for (n, case) in cases.iter().enumerate() {
        let file = case["file"].as_str().unwrap();
        let seq: AnimSeq =
            ron::from_str(&std::fs::read_to_string(format!("{dir}/{file}")).unwrap()).unwrap();
        let times: Vec<f64> = seq.notifies.iter().map(|x| x.time).collect();
        let (a, b, looping) = (
            case["frm"].as_f64().unwrap(),
            case["to"].as_f64().unwrap(),
            case["looping"].as_bool().unwrap(),
        );
        let iv = match case["kind"].as_str().unwrap() {
            "advance" => Advance {
                from: a,
                to: b,
                looping,
            },
            "start" => Start {
                at: a,
                to: b,
                looping,
            },
            "seek" => Seek,
            "paused" => Paused,
            other => panic!("unknown kind {other}"),
        };
        let limit = case["limit"].as_u64().map_or(DEFAULT_LIMIT, |l| l as usize);
        let got = NotifyIndex::new(seq.duration, &times)
            .unwrap()
            .query(&iv, limit)
            .unwrap();
        let want = case["expected"].as_array().unwrap();
        assert_eq!(
            got.list.len(),
            want.len(),
            "case {n} {iv:?}: {:?}",
            got.list
        );
        for (g, w) in got.list.iter().zip(want) {
            let notify = &seq.notifies[g.notify as usize];
            assert_eq!(notify.id, w["id"].as_str().unwrap(), "case {n}");
            assert_eq!(notify.name, w["name"].as_str().unwrap(), "case {n}");
            assert_eq!(
                g.time.to_bits(),
                w["time"].as_f64().unwrap().to_bits(),
                "case {n}"
            );
            assert_eq!(
                g.clip_time.to_bits(),
                w["clip_time"].as_f64().unwrap().to_bits(),
                "case {n}"
            );
            assert_eq!(g.cycle, w["cycle"].as_i64().unwrap(), "case {n}");
        }
        assert_eq!(
            got.truncated,
            case["truncated"].as_bool().unwrap(),
            "case {n}"
        );
    }
}

// ---------------------------------------------------------------- worked example and edges

#[test]
fn worked_example() {
    // footstep_a at 0.2, footstep_b at 0.8, one-second loop.
    check(
        1.0,
        &[0.2, 0.8],
        adv(0.75, 1.25),
        L,
        &[(1, 0.8, 0), (0, 1.2, 1)],
        false,
    );
}

#[test]
fn seek_and_paused_fire_nothing() {
    check(1.0, &STEPS, Seek, L, &[], false);
    check(1.0, &STEPS, Paused, L, &[], false);
}

#[test]
fn forward_excludes_departure_includes_arrival() {
    check(
        1.0,
        &STEPS,
        adv(0.5, 1.5),
        L,
        &[(2, 1.0, 0), (0, 1.0, 1), (1, 1.5, 1)],
        false,
    );
}

#[test]
fn reverse_includes_arrival_excludes_departure() {
    check(
        1.0,
        &STEPS,
        adv(1.5, 0.5),
        L,
        &[(0, 1.0, 1), (2, 1.0, 0), (1, 0.5, 0)],
        false,
    );
}

#[test]
fn equal_from_to_fires_nothing() {
    check(1.0, &STEPS, adv(0.5, 0.5), L, &[], false);
    check(1.0, &STEPS, adv_once(0.5, 0.5), L, &[], false);
}

#[test]
fn start_includes_departure() {
    check(1.0, &STEPS, start(0.5, 0.75), L, &[(1, 0.5, 0)], false);
}

#[test]
fn start_not_moving_fires_exactly_at() {
    check(1.0, &STEPS, start(0.5, 0.5), L, &[(1, 0.5, 0)], false);
    check(1.0, &STEPS, start(0.25, 0.25), L, &[], false);
}

#[test]
fn looping_start_at_zero_skips_end_marker_of_previous_cycle() {
    check(1.0, &STEPS, start(0.0, 0.25), L, &[(0, 0.0, 0)], false);
    check(1.0, &STEPS, start(0.0, 0.0), L, &[(0, 0.0, 0)], false);
    check(1.0, &STEPS, start(3.0, 3.0), L, &[(0, 3.0, 3)], false);
}

#[test]
fn looping_reverse_start_on_loop_point_skips_zero_marker() {
    check(1.0, &STEPS, start(2.0, 1.75), L, &[(2, 2.0, 1)], false);
}

#[test]
fn loop_point_rule_is_only_for_looping() {
    // Non-looping: start at the end clamps and fires the end marker; reverse start at 0 fires 0.
    check(1.0, &STEPS, start_once(1.0, 1.0), L, &[(2, 1.0, 0)], false);
    check(1.0, &STEPS, start_once(0.0, -1.0), L, &[(0, 0.0, 0)], false);
}

#[test]
fn non_looping_start_past_end_clamps_to_end() {
    check(1.0, &STEPS, start_once(7.5, 9.0), L, &[(2, 1.0, 0)], false);
}

#[test]
fn non_looping_clamps_and_uses_cycle_zero_only() {
    check(
        1.0,
        &STEPS,
        adv_once(-3.0, 5.0),
        L,
        &[(1, 0.5, 0), (2, 1.0, 0)],
        false,
    );
    check(
        1.0,
        &STEPS,
        adv_once(5.0, -3.0),
        L,
        &[(1, 0.5, 0), (0, 0.0, 0)],
        false,
    );
    check(1.0, &STEPS, adv_once(2.0, 3.0), L, &[], false);
    check(
        1.0,
        &STEPS,
        start_once(-2.0, -1.0),
        L,
        &[(0, 0.0, 0)],
        false,
    );
}

#[test]
fn ulp_collision_fires_smaller_time_first() {
    // 5*0.3 + 0.3 = 1.8 but 6*0.3 = 1.7999999999999998: cycle 6's zero fires before cycle 5's end.
    let (end5, zero6) = (5.0 * 0.3 + 0.3, 6.0 * 0.3);
    assert!(zero6 < end5);
    check(
        0.3,
        &[0.0, 0.3],
        adv(1.7, 1.85),
        L,
        &[(0, zero6, 6), (1, end5, 5)],
        false,
    );
    check(
        0.3,
        &[0.0, 0.3],
        adv(1.85, 1.7),
        L,
        &[(1, end5, 5), (0, zero6, 6)],
        false,
    );
}

#[test]
fn boundary_between_colliding_loop_points_fires_one() {
    let (end5, zero6) = (5.0 * 0.3 + 0.3, 6.0 * 0.3);
    check(
        0.3,
        &[0.0, 0.3],
        adv(1.7, zero6),
        L,
        &[(0, zero6, 6)],
        false,
    );
    check(
        0.3,
        &[0.0, 0.3],
        adv(zero6, 1.85),
        L,
        &[(1, end5, 5)],
        false,
    );
    check(0.3, &[0.0, 0.3], adv(1.85, end5), L, &[(1, end5, 5)], false);
    check(0.3, &[0.0, 0.3], adv(end5, 1.7), L, &[(0, zero6, 6)], false);
}

#[test]
fn equal_times_order_by_cycle_then_authored() {
    // Markers authored out of time order; duplicates at 0.5 keep authored order.
    check(
        1.0,
        &[1.0, 0.5, 0.0, 0.5],
        adv(0.25, 1.0),
        L,
        &[(1, 0.5, 0), (3, 0.5, 0), (0, 1.0, 0), (2, 1.0, 1)],
        false,
    );
    check(
        1.0,
        &[1.0, 0.5, 0.0, 0.5],
        adv(0.75, 1.0 + 1e-9),
        L,
        &[(0, 1.0, 0), (2, 1.0, 1)],
        false,
    );
    check(
        1.0,
        &[1.0, 0.5, 0.0, 0.5],
        adv(1.0 + 1e-9, 0.5),
        L,
        &[(2, 1.0, 1), (0, 1.0, 0), (1, 0.5, 0), (3, 0.5, 0)],
        false,
    );
}

#[test]
fn negative_cycles() {
    check(
        1.0,
        &[0.25],
        adv(-2.0, -0.5),
        L,
        &[(0, -1.75, -2), (0, -0.75, -1)],
        false,
    );
    check(
        1.0,
        &[0.25],
        adv(-0.5, -2.0),
        L,
        &[(0, -0.75, -1), (0, -1.75, -2)],
        false,
    );
}

#[test]
fn limit_zero_reports_truncation_only_if_something_fires() {
    check(1.0, &STEPS, adv(0.25, 0.75), 0, &[], true);
    check(1.0, &STEPS, adv(0.6, 0.9), 0, &[], false);
}

#[test]
fn limit_exactly_reached_is_not_truncated() {
    let all = [(1, 0.5, 0), (2, 1.0, 0), (0, 1.0, 1)];
    check(1.0, &STEPS, adv(0.25, 1.0), 3, &all, false);
    check(1.0, &STEPS, adv(0.25, 1.0), 2, &all[..2], true);
}

#[test]
fn limit_cuts_inside_a_group_of_equal_times() {
    check(
        1.0,
        &[0.5, 0.5, 0.5],
        adv(0.0, 1.0),
        2,
        &[(0, 0.5, 0), (1, 0.5, 0)],
        true,
    );
}

#[test]
fn non_finite_interval_is_rejected() {
    let index = NotifyIndex::new(1.0, &STEPS).unwrap();
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        for (iv, field) in [
            (adv(bad, 1.0), "from"),
            (adv(1.0, bad), "to"),
            (start(bad, 1.0), "at"),
            (start_once(1.0, bad), "to"),
            (adv_once(bad, 1.0), "from"),
        ] {
            match index.query(&iv, L) {
                Err(QueryError::NonFinite { field: f, .. }) => assert_eq!(f, field),
                other => panic!("{iv:?}: {other:?}"),
            }
        }
    }
    // Also without notifies.
    let empty = NotifyIndex::new(1.0, &[]).unwrap();
    assert!(empty.query(&adv(f64::NAN, 1.0), L).is_err());
}

#[test]
fn invalid_index_is_rejected() {
    for d in [0.0, -1.0, f64::NAN, f64::INFINITY, -0.0] {
        assert!(
            matches!(
                NotifyIndex::new(d, &[]),
                Err(IndexError::InvalidDuration(_))
            ),
            "{d}"
        );
    }
    for t in [-0.1, 1.5, f64::NAN, f64::INFINITY, 1.0 + f64::EPSILON] {
        match NotifyIndex::new(1.0, &[0.5, t]) {
            Err(IndexError::InvalidTime { notify: 1, .. }) => {}
            other => panic!("{t}: {other:?}"),
        }
    }
}

#[test]
fn negative_zero_clip_time_reads_as_zero() {
    let got = NotifyIndex::new(1.0, &[-0.0])
        .unwrap()
        .query(&start(0.0, 0.5), L)
        .unwrap();
    assert_eq!(got.list.len(), 1);
    assert_eq!(got.list[0].clip_time.to_bits(), 0.0f64.to_bits());
}

#[test]
fn no_notifies_long_interval_is_empty() {
    check(1.0, &[], adv(-1e300, 1e300), L, &[], false);
    check(1e-300, &[], adv(0.0, 1e300), 0, &[], false);
}

#[test]
fn huge_unwrapped_times_use_canonical_formula() {
    // 1e15 s at D = 0.7: cycles far beyond i32, times exactly (k as f64) * 0.7 + t.
    let (d, t) = (0.7, [0.1, 0.7]);
    let k0 = (1e15 / d) as i64;
    let want: Vec<(u32, f64, i64)> = (k0 - 3..k0 + 6)
        .flat_map(|k| [(0, spec_time(d, t[0], k), k), (1, spec_time(d, t[1], k), k)])
        .filter(|&(_, big_t, _)| big_t > 1e15 && big_t <= 1e15 + 2.0)
        .collect();
    assert!(want.len() >= 4 && want[0].2 > i32::MAX as i64);
    let mut sorted = want.clone();
    sorted.sort_by(|a, b| a.1.partial_cmp(&b.1).unwrap().then(a.2.cmp(&b.2)));
    check(d, &t, adv(1e15, 1e15 + 2.0), L, &sorted, false);
}

#[test]
fn distinct_clip_times_rounding_to_one_time_fire_in_authored_order() {
    // At 2^33 s the spacing is 2^-19: 0.5 and 0.5 + 2^-40 round to the same T.
    let t = [0.5 + 2f64.powi(-40), 0.5];
    let k = 1i64 << 33;
    let big_t = spec_time(1.0, 0.5, k);
    assert_eq!(big_t, spec_time(1.0, t[0], k));
    check(
        1.0,
        &t,
        adv(big_t - 0.25, big_t + 0.25),
        L,
        &[(0, big_t, k), (1, big_t, k)],
        false,
    );
    check(
        1.0,
        &t,
        adv(big_t + 0.25, big_t - 0.25),
        L,
        &[(0, big_t, k), (1, big_t, k)],
        false,
    );
}

#[test]
fn cycles_beyond_i64_do_not_exist() {
    check(1.0, &[0.5], adv(1e19, 1e19 + 1e6), L, &[], false);
    check(1.0, &[0.5], adv(-1e19 - 1e6, -1e19), L, &[], false);
    // Crossing the i64 edge: only cycles up to i64::MAX fire, their T all equal to 2^63.
    let edge = i64::MAX as f64;
    let got = NotifyIndex::new(1.0, &[0.5])
        .unwrap()
        .query(&adv(edge - 4096.0, 1e19), 3)
        .unwrap();
    assert!(got.truncated);
    assert_eq!(got.list.len(), 3);
}

#[test]
fn tiny_duration_many_cycles_is_truncated_not_enumerated() {
    // 1e300 cycles in one second: the limit stops it; cycles 0, 1, 2 in order.
    let d = 1e-300;
    check(
        d,
        &[0.0],
        adv(-0.5 * d, 1.0),
        3,
        &[(0, 0.0, 0), (0, d, 1), (0, 2.0 * d, 2)],
        true,
    );
}

#[test]
fn huge_duration_times() {
    let d = f64::MAX / 2.0;
    // T(end, -1) = -d + d = 0 and T(end, 1) = d + d = f64::MAX (past the arrival).
    check(
        d,
        &[0.0, d],
        adv(-1.0, 1e308),
        L,
        &[(1, 0.0, -1), (0, 0.0, 0), (1, d, 0), (0, d, 1)],
        false,
    );
}

// ---------------------------------------------------------------- window edges

const P: Option<Edge> = None;
const B: Option<Edge> = Some(Edge::Begin);
const E: Option<Edge> = Some(Edge::End);

/// As [`check`] for a sequence with windows: each expected crossing is
/// `(edge, authored index, T, clip time, cycle)`. Also checked against the reference.
#[track_caller]
fn check_w(
    d: f64,
    times: &[f64],
    windows: &[(f64, f64)],
    iv: PlaybackInterval,
    limit: usize,
    want: &[(Option<Edge>, u32, f64, f64, i64)],
    truncated: bool,
) {
    let index = NotifyIndex::with_windows(d, times, windows).expect("valid index");
    let got = index.query(&iv, limit).expect("valid query");
    let want: Vec<Crossing> = want
        .iter()
        .map(|&(edge, notify, time, clip_time, cycle)| Crossing {
            notify,
            edge,
            time,
            clip_time,
            cycle,
        })
        .collect();
    if let Err(e) = same(&got.list, &want) {
        panic!("{iv:?}: {e}\n got: {:?}", got.list);
    }
    assert_eq!(got.truncated, truncated, "truncated for {iv:?}");
    let mut buf = Vec::with_capacity(limit.min(64));
    assert_eq!(index.query_into(&mut buf, &iv, limit), Ok(truncated));
    assert_eq!(buf, got.list);
    check_invariants(d, times, windows, &iv, limit);
}

const HIT: (f64, f64) = (0.3, 0.55);

#[test]
fn window_edges_forward_and_reverse() {
    check_w(
        1.0,
        &[],
        &[HIT],
        adv(0.2, 0.6),
        L,
        &[(B, 0, 0.3, 0.3, 0), (E, 0, 0.55, 0.55, 0)],
        false,
    );
    // Reverse playback enters at the end and leaves at the begin.
    check_w(
        1.0,
        &[],
        &[HIT],
        adv(0.6, 0.2),
        L,
        &[(B, 0, 0.55, 0.55, 0), (E, 0, 0.3, 0.3, 0)],
        false,
    );
    // Across a loop: cycle 0's end, then cycle 1's begin.
    check_w(
        1.0,
        &[],
        &[HIT],
        adv(0.5, 1.4),
        L,
        &[(E, 0, 0.55, 0.55, 0), (B, 0, 1.3, 0.3, 1)],
        false,
    );
    check_w(
        1.0,
        &[],
        &[HIT],
        adv_once(0.5, 1.4),
        L,
        &[(E, 0, 0.55, 0.55, 0)],
        false,
    );
}

#[test]
fn at_one_time_ends_then_points_then_begins() {
    // Back-to-back windows [0.2, 0.5) and [0.5, 0.8) with a point at 0.5, authored in an order
    // that differs from the firing order.
    let w = [(0.5, 0.8), (0.2, 0.5)];
    let t = [0.5];
    let fwd = [
        (E, 1, 0.5, 0.5, 0),
        (P, 0, 0.5, 0.5, 0),
        (B, 0, 0.5, 0.5, 0),
    ];
    check_w(1.0, &t, &w, adv(0.4, 0.6), L, &fwd, false);
    // In reverse the window [0.5, 0.8) is left at 0.5 (an end) and [0.2, 0.5) entered.
    let rev = [
        (E, 0, 0.5, 0.5, 0),
        (P, 0, 0.5, 0.5, 0),
        (B, 1, 0.5, 0.5, 0),
    ];
    check_w(1.0, &t, &w, adv(0.6, 0.4), L, &rev, false);
    // The limit counts edges: it can stop between an end and a begin at one time.
    check_w(1.0, &t, &w, adv(0.4, 0.6), 2, &fwd[..2], true);
}

#[test]
fn looping_window_ending_at_the_duration_ends_at_the_next_cycle_zero() {
    // 6·0.3 = 1.7999999999999998 but 5·0.3 + 0.3 = 1.8: the whole-clip window closes at
    // E(5) = 6·0.3, exactly where it reopens (B(6)); the point at 0 fires between them, the
    // point at D (cycle 5, 1.8) after.
    let (zero6, end5) = (6.0 * 0.3, 5.0 * 0.3 + 0.3);
    assert!(zero6 < end5);
    let t = [0.0, 0.3];
    let w = [(0.0, 0.3)];
    check_w(
        0.3,
        &t,
        &w,
        adv(1.7, 1.85),
        L,
        &[
            (E, 0, zero6, 0.3, 5),
            (P, 0, zero6, 0.0, 6),
            (B, 0, zero6, 0.0, 6),
            (P, 1, end5, 0.3, 5),
        ],
        false,
    );
    check_w(
        0.3,
        &t,
        &w,
        adv(1.85, 1.7),
        L,
        &[
            (P, 1, end5, 0.3, 5),
            (E, 0, zero6, 0.0, 6),
            (P, 0, zero6, 0.0, 6),
            (B, 0, zero6, 0.3, 5),
        ],
        false,
    );
    // One second, where k·D + D == (k+1)·D: the point at D (cycle 0) fires after the end and
    // before the point and begin of cycle 1 (ends, then points by cycle, then begins).
    check_w(
        1.0,
        &[0.0, 1.0],
        &[(0.0, 1.0)],
        adv(0.5, 1.5),
        L,
        &[
            (E, 0, 1.0, 1.0, 0),
            (P, 1, 1.0, 1.0, 0),
            (P, 0, 1.0, 0.0, 1),
            (B, 0, 1.0, 0.0, 1),
        ],
        false,
    );
    check_w(
        1.0,
        &[0.0, 1.0],
        &[(0.0, 1.0)],
        adv(1.5, 0.5),
        L,
        &[
            (E, 0, 1.0, 0.0, 1),
            (P, 0, 1.0, 0.0, 1),
            (P, 1, 1.0, 1.0, 0),
            (B, 0, 1.0, 1.0, 0),
        ],
        false,
    );
    // Not looping, the end is at D of cycle 0.
    check_w(
        1.0,
        &[],
        &[(0.5, 1.0)],
        adv_once(0.9, 2.0),
        L,
        &[(E, 0, 1.0, 1.0, 0)],
        false,
    );
}

#[test]
fn start_inside_a_window_opens_it() {
    // A begin at `at`, with `at`'s clip time, then the window's own end.
    check_w(
        1.0,
        &[],
        &[HIT],
        start(0.4, 0.6),
        L,
        &[(B, 0, 0.4, 0.4, 0), (E, 0, 0.55, 0.55, 0)],
        false,
    );
    check_w(
        1.0,
        &[],
        &[HIT],
        start(3.4, 3.5),
        L,
        &[(B, 0, 3.4, 3.4 - 3.0, 3)],
        false,
    );
    check_w(
        1.0,
        &[],
        &[HIT],
        start_once(0.4, 0.4),
        L,
        &[(B, 0, 0.4, 0.4, 0)],
        false,
    );
    // Reverse: opened at `at`, left at its begin.
    check_w(
        1.0,
        &[],
        &[HIT],
        start(0.4, 0.2),
        L,
        &[(B, 0, 0.4, 0.4, 0), (E, 0, 0.3, 0.3, 0)],
        false,
    );
    // On the begin edge: that edge, once.
    check_w(
        1.0,
        &[],
        &[HIT],
        start(0.3, 0.35),
        L,
        &[(B, 0, 0.3, 0.3, 0)],
        false,
    );
    // Opened begins come after ends and points at `at`, in authored order among begins.
    check_w(
        1.0,
        &[0.4],
        &[(0.4, 0.9), (0.1, 0.4), (0.2, 0.6)],
        start(0.4, 0.4),
        L,
        &[
            (E, 1, 0.4, 0.4, 0),
            (P, 0, 0.4, 0.4, 0),
            (B, 0, 0.4, 0.4, 0),
            (B, 2, 0.4, 0.4, 0),
        ],
        false,
    );
    // ... and count against the limit.
    check_w(
        1.0,
        &[0.4],
        &[(0.2, 0.6)],
        start(0.4, 0.4),
        1,
        &[(P, 0, 0.4, 0.4, 0)],
        true,
    );
    check_w(1.0, &[], &[(0.2, 0.6)], start(0.4, 0.4), 0, &[], true);
}

#[test]
fn start_on_an_end_edge_opens_nothing_but_reports_the_end() {
    check_w(
        1.0,
        &[],
        &[HIT],
        start(0.55, 0.6),
        L,
        &[(E, 0, 0.55, 0.55, 0)],
        false,
    );
    check_w(
        1.0,
        &[],
        &[HIT],
        start(0.3, 0.2),
        L,
        &[(E, 0, 0.3, 0.3, 0)],
        false,
    );
    // Not looping, a start past the end clamps to D: the end at D fires, nothing opens.
    check_w(
        1.0,
        &[],
        &[(0.5, 1.0)],
        start_once(4.0, 5.0),
        L,
        &[(E, 0, 1.0, 1.0, 0)],
        false,
    );
}

#[test]
fn start_at_the_loop_point_of_a_window_ending_at_the_duration() {
    let w = [(0.5, 1.0)];
    // Forward from 1.0: E(0) = 1·D ends cycle 0, which this start never played: the
    // loop-point rule keeps it behind as it keeps an end marker (issue 24); nothing opens.
    check_w(1.0, &[], &w, start(1.0, 1.2), L, &[], false);
    check_w(
        1.0,
        &[],
        &w,
        start(1.0, 1.6),
        L,
        &[(B, 0, 1.5, 0.5, 1)],
        false,
    );
    // Reverse from 1.0: the zero-time marker stays behind (loop-point rule), and the start
    // is inside occurrence 0 (B(0) < at ≤ E(0)): it opens it, then leaves at 0.5.
    check_w(
        1.0,
        &[],
        &w,
        start(1.0, 0.4),
        L,
        &[(B, 0, 1.0, 1.0, 0), (E, 0, 0.5, 0.5, 0)],
        false,
    );
    // A whole-clip window started at 0: this cycle's begin only, not the end of cycle −1
    // (issue 24: `--start --from 0` reported it before the zero-time notify).
    check_w(
        1.0,
        &[0.0, 1.0],
        &[(0.0, 1.0)],
        start(0.0, 0.1),
        L,
        &[(P, 0, 0.0, 0.0, 0), (B, 0, 0.0, 0.0, 0)],
        false,
    );
    // The same at a huge time (the general path) and on the fast path's later cycles.
    for k in [3i64, -7, 1 << 45] {
        let at = spec_time(1.0, 0.0, k);
        check_w(
            1.0,
            &[],
            &[(0.0, 1.0)],
            start(at, at),
            L,
            &[(B, 0, at, 0.0, k)],
            false,
        );
    }
    check_w(
        1.0,
        &[],
        &[(0.0, 1.0)],
        start(0.0, -0.1),
        L,
        &[(B, 0, 0.0, 1.0, -1)],
        false,
    );
}

#[test]
fn a_window_an_ulp_long_begins_before_it_ends_in_every_cycle() {
    // [0.5, 0.5 + 1 ulp): from cycle 1 on, B(k) and E(k) round to one canonical time. The
    // occurrence still begins first (issue 24: its end came first, from the cycle before).
    let e = 0.5f64.next_up();
    for k in [0i64, 1, 3, 1 << 20, -(1 << 20)] {
        let (b_t, e_t) = (spec_time(1.0, 0.5, k), spec_time(1.0, e, k));
        let from = spec_time(1.0, 0.25, k);
        let to = spec_time(1.0, 0.75, k);
        check_w(
            1.0,
            &[],
            &[(0.5, e)],
            adv(from, to),
            L,
            &[(B, 0, b_t, 0.5, k), (E, 0, e_t, e, k)],
            false,
        );
        check_w(
            1.0,
            &[],
            &[(0.5, e)],
            adv(to, from),
            L,
            &[(B, 0, e_t, e, k), (E, 0, b_t, 0.5, k)],
            false,
        );
        // A start exactly there opens and closes it too.
        check_w(
            1.0,
            &[],
            &[(0.5, e)],
            start(b_t, to),
            L,
            &[(B, 0, b_t, 0.5, k), (E, 0, e_t, e, k)],
            false,
        );
    }
    // An ulp-long window ending at the duration: E(k) = (k+1)·D meets B(k) far out.
    let b = 1.0f64.next_down();
    let k = 1i64 << 30;
    let (b_t, e_t) = (spec_time(1.0, b, k), spec_time(1.0, 0.0, k + 1));
    assert_eq!(b_t, e_t);
    check_w(
        1.0,
        &[],
        &[(b, 1.0)],
        adv(b_t - 0.5, b_t + 0.25),
        L,
        &[(B, 0, b_t, b, k), (E, 0, e_t, 1.0, k)],
        false,
    );
}

#[test]
fn windows_at_huge_times_take_the_general_path_with_the_same_rules() {
    let w = [(0.0, 1.0), (0.25, 0.5)];
    for base in [1e15, 4.5e15, -1e15, 1e18] {
        for iv in [
            adv(base - 2.0, base + 2.0),
            adv(base + 2.0, base - 2.0),
            start(base + 0.3, base + 2.0),
            start(base + 0.3, base - 2.0),
        ] {
            check_invariants(1.0, &[0.0, 0.5], &w, &iv, L);
        }
    }
    let k = 1_000_000_000_000_000i64;
    let b = 1e15;
    check_w(
        1.0,
        &[],
        &w,
        adv(b - 0.5, b + 0.5),
        L,
        &[
            (E, 0, b, 1.0, k - 1),
            (B, 0, b, 0.0, k),
            (B, 1, b + 0.25, 0.25, k),
            (E, 1, b + 0.5, 0.5, k),
        ],
        false,
    );
}

#[test]
fn invalid_windows_are_rejected() {
    for (b, e) in [
        (0.5, 0.5),
        (0.6, 0.4),
        (-0.1, 0.5),
        (0.5, 1.5),
        (f64::NAN, 0.5),
        (0.0, f64::INFINITY),
    ] {
        match NotifyIndex::with_windows(1.0, &[0.5], &[(0.1, 0.2), (b, e)]) {
            Err(IndexError::InvalidWindow { window: 1, .. }) => {}
            other => panic!("({b}, {e}): {other:?}"),
        }
    }
    let index = NotifyIndex::with_windows(1.0, &[], &[(0.0, 1.0)]).unwrap();
    assert_eq!(
        (index.len(), index.window_count(), index.is_empty()),
        (0, 1, false)
    );
}

// ---------------------------------------------------------------- properties

fn duration() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(0.3),
        Just(0.7),
        Just(1.0 / 3.0),
        Just(1.0),
        Just(1.0 / 60.0),
        1e-12f64..1e-3,
        1e3f64..1e7,
        0.01f64..10.0,
    ]
}

/// Notify times as fractions of `d`, with exact 0 and `d`, duplicates and 1-ulp neighbours.
fn times(d: f64) -> impl Strategy<Value = Vec<f64>> {
    let one = prop_oneof![
        2 => Just(0.0),
        2 => Just(d),
        1 => Just(d * 0.1),
        1 => (0u32..=10).prop_map(move |j| (f64::from(j) * d / 10.0).min(d)),
        3 => (0.0f64..=1.0).prop_map(move |f| (f * d).min(d)),
        1 => (0u32..=10, 1u64..4).prop_map(move |(j, u)| f64::from_bits((f64::from(j) * d / 10.0).to_bits() + u).min(d)),
    ];
    prop::collection::vec(one, 0..=20)
}

/// A time near cycle `base`: arbitrary, or exactly an occurrence `T(i, k)`, or 1 ulp off one.
fn point(d: f64, times: Vec<f64>, base: f64) -> impl Strategy<Value = f64> {
    let kb = (base / d).floor();
    let n = times.len().max(1);
    let occ = (0..n, -40i64..40, -1i64..=1).prop_map(move |(i, dk, ulp)| {
        let t = times.get(i).copied().unwrap_or(0.0);
        let k = (kb as i64).saturating_add(dk);
        let x = spec_time(d, t, k);
        match ulp {
            -1 => x.next_down(),
            1 => x.next_up(),
            _ => x,
        }
    });
    prop_oneof![
        2 => occ,
        1 => (-40.0f64..40.0).prop_map(move |f| base + f * d),
    ]
}

/// Windows as pairs of fractions of `d` (often touching 0, `d` or each other), 0 to 5 of them.
fn windows(d: f64) -> impl Strategy<Value = Vec<(f64, f64)>> {
    let edge = prop_oneof![
        2 => Just(0.0),
        2 => Just(d),
        2 => (0u32..=10).prop_map(move |j| (f64::from(j) * d / 10.0).min(d)),
        3 => (0.0f64..=1.0).prop_map(move |f| (f * d).min(d)),
    ];
    let pair = (edge.clone(), edge.clone()).prop_filter_map("begin < end", |(a, b)| {
        let (a, b) = (a.min(b), a.max(b));
        (a < b).then_some((a, b))
    });
    // Windows a few ulps long (issue 24): their edges meet in one canonical time from some
    // cycle on.
    let ulps =
        (edge, 1u64..4, prop::bool::ANY).prop_filter_map("inside [0, d]", move |(a, n, up)| {
            let b = f64::from_bits(a.to_bits().checked_add(n)?).min(d);
            let c = if a == 0.0 { f64::from_bits(n) } else { b };
            let (lo, hi) = if up {
                (a, c)
            } else {
                (f64::from_bits(a.to_bits().checked_sub(n)?).max(0.0), a)
            };
            (lo < hi && hi <= d).then_some((lo, hi))
        });
    let one = prop_oneof![3 => pair, 1 => ulps];
    prop_oneof![
        1 => Just(Vec::new()),
        3 => prop::collection::vec(one, 1..=5),
    ]
}

/// A sequence and a base time: duration, notify times, windows, and where queries happen.
type Scenario = (f64, Vec<f64>, Vec<(f64, f64)>, f64);

fn scenario() -> impl Strategy<Value = Scenario> {
    duration().prop_flat_map(|d| {
        let base = prop_oneof![
            3 => Just(0.0),
            1 => -1e3f64..1e3,
            1 => Just(1e9),
            1 => Just(-1e9),
            1 => Just(1e12),
            1 => Just(1e15),
            1 => Just(4.5e15),
            1 => Just(1e18),
        ];
        (Just(d), times(d), windows(d), base)
    })
}

/// The clip times queries aim at: notify times and window edges.
fn marks(times: &[f64], windows: &[(f64, f64)]) -> Vec<f64> {
    let edges = windows.iter().flat_map(|&(b, e)| [b, e]);
    times.iter().copied().chain(edges).collect()
}

fn interval(kind: u8, a: f64, b: f64, looping: bool) -> PlaybackInterval {
    if kind == 0 {
        Advance {
            from: a,
            to: b,
            looping,
        }
    } else {
        Start {
            at: a,
            to: b,
            looping,
        }
    }
}

fn query(d: f64, times: &[f64], iv: PlaybackInterval, limit: usize) -> sinew::crossing::Crossings {
    query_w(d, times, &[], iv, limit)
}

fn query_w(
    d: f64,
    times: &[f64],
    windows: &[(f64, f64)],
    iv: PlaybackInterval,
    limit: usize,
) -> sinew::crossing::Crossings {
    NotifyIndex::with_windows(d, times, windows)
        .unwrap()
        .query(&iv, limit)
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, max_global_rejects: 1_000_000, ..ProptestConfig::default() })]

    /// (1) Every query equals the brute-force reference (whenever the reference can bound its
    /// cycle window), and always satisfies ordering and canonical-time invariants.
    #[test]
    fn matches_reference(
        (d, times, windows, a, b) in scenario().prop_flat_map(|(d, t, w, base)| {
            let m = marks(&t, &w);
            (Just(d), Just(t), Just(w), point(d, m.clone(), base), point(d, m, base))
        }),
        kind in 0u8..2,
        looping in prop::bool::weighted(0.8),
    ) {
        check_invariants(d, &times, &windows, &interval(kind, a, b, looping), DEFAULT_LIMIT);
        check_invariants(d, &times, &windows, &interval(kind, a, a, looping), DEFAULT_LIMIT);
    }

    /// (2) Split-query equivalence, forward and reverse, for a < b < c, window edges included.
    #[test]
    fn split_queries_concatenate(
        (d, times, windows, mut p) in scenario().prop_flat_map(|(d, t, w, base)| {
            let m = marks(&t, &w);
            let pts = [point(d, m.clone(), base), point(d, m.clone(), base), point(d, m, base)];
            (Just(d), Just(t), Just(w), pts)
        }),
        looping in prop::bool::weighted(0.8),
    ) {
        p.sort_by(|x, y| x.partial_cmp(y).unwrap());
        let [a, b, c] = p;
        prop_assume!(a < b && b < c);
        let lim = 200_000;
        for (x, y, z) in [(a, b, c), (c, b, a)] {
            let q = |from, to| query_w(d, &times, &windows, Advance { from, to, looping }, lim);
            let (whole, first, second) = (q(x, z), q(x, y), q(y, z));
            if whole.truncated || first.truncated || second.truncated {
                continue; // astronomically many cycles (tiny D at huge times)
            }
            let joined: Vec<Crossing> = first.list.iter().chain(&second.list).copied().collect();
            if let Err(e) = same(&whole.list, &joined) {
                return Err(TestCaseError::fail(format!("{x} {y} {z}: {e}")));
            }
        }
    }

    /// (3) A limited result is the prefix of the unlimited one; truncated iff more would fire.
    #[test]
    fn limit_gives_prefix(
        (d, times, windows, a, b) in scenario().prop_flat_map(|(d, t, w, base)| {
            let m = marks(&t, &w);
            (Just(d), Just(t), Just(w), point(d, m.clone(), base), point(d, m, base))
        }),
        kind in 0u8..2,
        looping in prop::bool::weighted(0.8),
        limit in 0usize..40,
    ) {
        let full = query_w(d, &times, &windows, interval(kind, a, b, looping), 200_000);
        prop_assume!(!full.truncated);
        let part = query_w(d, &times, &windows, interval(kind, a, b, looping), limit);
        let n = full.list.len().min(limit);
        prop_assert!(same(&part.list, &full.list[..n]).is_ok());
        prop_assert_eq!(part.truncated, full.list.len() > limit);
    }

    /// (4) Windows do not change what the point notifies do: the notify-only crossings are the
    /// edge-free subsequence of the crossings with windows.
    #[test]
    fn windows_leave_notifies_alone(
        (d, times, windows, a, b) in scenario().prop_flat_map(|(d, t, w, base)| {
            let m = marks(&t, &w);
            (Just(d), Just(t), Just(w), point(d, m.clone(), base), point(d, m, base))
        }),
        kind in 0u8..2,
        looping in prop::bool::weighted(0.8),
    ) {
        let with = query_w(d, &times, &windows, interval(kind, a, b, looping), 200_000);
        let without = query(d, &times, interval(kind, a, b, looping), 200_000);
        prop_assume!(!with.truncated && !without.truncated);
        let points: Vec<Crossing> = with.list.iter().filter(|c| c.edge.is_none()).copied().collect();
        prop_assert!(same(&points, &without.list).is_ok());
    }

    /// The fuzz target's body over random bytes (so CI exercises it without cargo-fuzz).
    #[test]
    fn fuzz_body_on_random_bytes(data in prop::collection::vec(any::<u8>(), 0..256)) {
        fuzz_one(&data);
    }
}

#[test]
fn reference_agrees_with_spec_example() {
    // Guards the reference itself against drifting from the spec's worked example.
    let want = reference(1.0, &[0.2, 0.8], &[], &adv(0.75, 1.25)).unwrap();
    let got: Vec<(u32, f64, i64)> = want.iter().map(|c| (c.notify, c.time, c.cycle)).collect();
    assert_eq!(got, [(1, 0.8, 0), (0, 1.2, 1)]);
}

#[test]
fn fuzz_regressions() {
    // Subnormal duration: 1 / D overflows; used to overflow the cycle estimate.
    fuzz_one(&[
        0, 0, 0, 0, 50, 7, 0, 0, 0, 26, 182, 182, 182, 182, 182, 182, 182, 182, 182, 182, 182, 182,
        182, 182, 182, 182, 1, 1, 182, 182, 182, 182, 182, 182, 182, 182, 182, 182, 182, 182, 182,
        182, 182, 182, 182, 182, 182, 182, 182, 182, 0, 26, 179, 26, 26, 213, 26, 179, 26, 26,
    ]);
}

#[test]
fn subnormal_duration() {
    let d = 5e-324;
    check_invariants(d, &[0.0, d], &[], &adv(-1e-310, -1e-310 + 2.5 * d), L);
    let got = query(d, &[0.0, d], adv(0.0, 2.0 * d), L);
    assert_eq!(
        got.list
            .iter()
            .map(|c| (c.notify, c.cycle))
            .collect::<Vec<_>>(),
        [(1, 0), (0, 1), (1, 1), (0, 2)]
    );
}
