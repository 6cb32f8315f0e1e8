//! Notify crossing tests: conformance cases, the spec's worked example and named edges, and
//! properties against an independent brute-force reference (`support/crossing_reference.rs`).

#[path = "support/crossing_reference.rs"]
mod support;

use proptest::prelude::*;
use sinew::crossing::{
    Crossing, DEFAULT_LIMIT, IndexError, NotifyIndex, PlaybackInterval, QueryError,
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

fn scenario() -> impl Strategy<Value = (f64, Vec<f64>, f64)> {
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
        (Just(d), times(d), base)
    })
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
    NotifyIndex::new(d, times)
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
        (d, times, a, b) in scenario().prop_flat_map(|(d, t, base)| {
            (Just(d), Just(t.clone()), point(d, t.clone(), base), point(d, t, base))
        }),
        kind in 0u8..2,
        looping in prop::bool::weighted(0.8),
    ) {
        check_invariants(d, &times, &interval(kind, a, b, looping), DEFAULT_LIMIT);
        check_invariants(d, &times, &interval(kind, a, a, looping), DEFAULT_LIMIT);
    }

    /// (2) Split-query equivalence, forward and reverse, for a < b < c.
    #[test]
    fn split_queries_concatenate(
        (d, times, mut p) in scenario().prop_flat_map(|(d, t, base)| {
            let pts = [point(d, t.clone(), base), point(d, t.clone(), base), point(d, t.clone(), base)];
            (Just(d), Just(t), pts)
        }),
        looping in prop::bool::weighted(0.8),
    ) {
        p.sort_by(|x, y| x.partial_cmp(y).unwrap());
        let [a, b, c] = p;
        prop_assume!(a < b && b < c);
        let lim = 200_000;
        for (x, y, z) in [(a, b, c), (c, b, a)] {
            let whole = query(d, &times, Advance { from: x, to: z, looping }, lim);
            let first = query(d, &times, Advance { from: x, to: y, looping }, lim);
            let second = query(d, &times, Advance { from: y, to: z, looping }, lim);
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
        (d, times, a, b) in scenario().prop_flat_map(|(d, t, base)| {
            (Just(d), Just(t.clone()), point(d, t.clone(), base), point(d, t, base))
        }),
        kind in 0u8..2,
        looping in prop::bool::weighted(0.8),
        limit in 0usize..40,
    ) {
        let full = query(d, &times, interval(kind, a, b, looping), 200_000);
        prop_assume!(!full.truncated);
        let part = query(d, &times, interval(kind, a, b, looping), limit);
        let n = full.list.len().min(limit);
        prop_assert!(same(&part.list, &full.list[..n]).is_ok());
        prop_assert_eq!(part.truncated, full.list.len() > limit);
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
    let want = reference(1.0, &[0.2, 0.8], &adv(0.75, 1.25)).unwrap();
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
    check_invariants(d, &[0.0, d], &adv(-1e-310, -1e-310 + 2.5 * d), L);
    let got = query(d, &[0.0, d], adv(0.0, 2.0 * d), L);
    assert_eq!(
        got.list
            .iter()
            .map(|c| (c.notify, c.cycle))
            .collect::<Vec<_>>(),
        [(1, 0), (0, 1), (1, 1), (0, 2)]
    );
}
