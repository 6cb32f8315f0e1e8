//! Criterion benches of notify crossing queries: the index against a naive linear scan of all
//! notifies, for short (0–2 crossings) and long multi-loop advances, the flat cost of a
//! sequence without notifies over 1 to 1e9 cycles, and the cost of window edges: 64 notifies
//! against 64 notifies + 16 windows (and 96 notifies, the same number of markers), side by side
//! on the same queries.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use sinew::crossing::{Crossing, DEFAULT_LIMIT, NotifyIndex, PlaybackInterval};

/// The notify-only index as it was when issue 14 was filed (the cost its target names).
#[path = "peers/crossing_before_windows.rs"]
mod before_windows;

/// Deterministic xorshift so every run benches the same inputs.
struct Rng(u64);
impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

const D: f64 = 1.0;

fn notify_times(n: usize, rng: &mut Rng) -> Vec<f64> {
    (0..n).map(|_| rng.unit() * D).collect()
}

/// The naive evaluator: every notify, every cycle it may touch, then a sort.
fn naive_scan(times: &[f64], from: f64, to: f64, limit: usize, out: &mut Vec<Crossing>) -> bool {
    out.clear();
    for (i, &t) in times.iter().enumerate() {
        let mut k = ((from - t) / D).floor() as i64 - 1;
        loop {
            let time = (k as f64) * D + t;
            if time > to {
                break;
            }
            if time > from {
                out.push(Crossing {
                    notify: i as u32,
                    edge: None,
                    time,
                    clip_time: t,
                    cycle: k,
                });
            }
            k += 1;
        }
    }
    out.sort_unstable_by(|a, b| {
        a.time
            .partial_cmp(&b.time)
            .unwrap()
            .then(a.cycle.cmp(&b.cycle))
            .then(a.notify.cmp(&b.notify))
    });
    let truncated = out.len() > limit;
    out.truncate(limit);
    truncated
}

/// `count` forward advances starting anywhere in the first 1000 s, each `span(rng)` long.
fn advances(count: usize, rng: &mut Rng, span: impl Fn(&mut Rng) -> f64) -> Vec<(f64, f64)> {
    (0..count)
        .map(|_| {
            let from = rng.unit() * 1000.0;
            (from, from + span(rng))
        })
        .collect()
}

fn bench_group(c: &mut Criterion, name: &str, span: impl Fn(usize, &mut Rng) -> f64) {
    let mut group = c.benchmark_group(name);
    for n in [8usize, 64, 4096] {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ n as u64);
        let times = notify_times(n, &mut rng);
        let index = NotifyIndex::new(D, &times).unwrap();
        let queries = advances(1024, &mut rng, |r| span(n, r));
        let mut out = Vec::with_capacity(DEFAULT_LIMIT + n);
        // Both evaluators must agree before their speed is compared.
        let mut scan = Vec::new();
        for &(from, to) in &queries {
            let iv = PlaybackInterval::Advance {
                from,
                to,
                looping: true,
            };
            let t1 = index.query_into(&mut out, &iv, DEFAULT_LIMIT).unwrap();
            let t2 = naive_scan(&times, from, to, DEFAULT_LIMIT, &mut scan);
            assert!(t1 == t2 && out == scan, "index and scan disagree on {iv:?}");
        }
        group.bench_with_input(BenchmarkId::new("index", n), &n, |b, _| {
            let mut i = 0;
            b.iter(|| {
                let (from, to) = queries[i & 1023];
                i += 1;
                let iv = PlaybackInterval::Advance {
                    from,
                    to,
                    looping: true,
                };
                black_box(
                    index
                        .query_into(&mut out, black_box(&iv), DEFAULT_LIMIT)
                        .unwrap(),
                );
                black_box(out.len())
            })
        });
        group.bench_with_input(BenchmarkId::new("linear_scan", n), &n, |b, _| {
            let mut i = 0;
            b.iter(|| {
                let (from, to) = queries[i & 1023];
                i += 1;
                black_box(naive_scan(
                    &times,
                    black_box(from),
                    black_box(to),
                    DEFAULT_LIMIT,
                    &mut out,
                ));
                black_box(out.len())
            })
        });
    }
    group.finish();
}

fn short_advances(c: &mut Criterion) {
    // Expected one crossing per query (0–2 typically): the span is 0..2 notify spacings.
    bench_group(c, "crossings_short", |n, r| r.unit() * 2.0 * D / n as f64);
}

fn long_advances(c: &mut Criterion) {
    // 2.5 to 3.5 loops per query.
    bench_group(c, "crossings_long", |_, r| (2.5 + r.unit()) * D);
}

fn no_notifies(c: &mut Criterion) {
    let mut group = c.benchmark_group("crossings_no_notifies");
    let index = NotifyIndex::new(D, &[]).unwrap();
    let mut out = Vec::new();
    for cycles in [1.0, 1e3, 1e6, 1e9] {
        group.bench_with_input(
            BenchmarkId::from_parameter(cycles),
            &cycles,
            |b, &cycles| {
                b.iter(|| {
                    let iv = PlaybackInterval::Advance {
                        from: 0.25,
                        to: 0.25 + cycles * D,
                        looping: true,
                    };
                    black_box(
                        index
                            .query_into(&mut out, black_box(&iv), DEFAULT_LIMIT)
                            .unwrap(),
                    )
                })
            },
        );
    }
    group.finish();
}

/// `count` windows at random, each 2 % to 20 % of the clip long.
fn window_spans(count: usize, rng: &mut Rng) -> Vec<(f64, f64)> {
    (0..count)
        .map(|_| {
            let len = (0.02 + 0.18 * rng.unit()) * D;
            let begin = rng.unit() * (D - len);
            (begin, begin + len)
        })
        .collect()
}

fn windows(c: &mut Criterion) {
    let mut rng = Rng(0x51_7cc1_b727_220a ^ 64);
    let times = notify_times(64, &mut rng);
    let spans = window_spans(16, &mut rng);
    let more_times: Vec<f64> = times
        .iter()
        .copied()
        .chain(notify_times(32, &mut rng))
        .collect();
    let indexes = [
        ("notifies_64", NotifyIndex::new(D, &times).unwrap()),
        (
            "notifies_64_windows_16",
            NotifyIndex::with_windows(D, &times, &spans).unwrap(),
        ),
        ("notifies_96", NotifyIndex::new(D, &more_times).unwrap()),
    ];
    // Same queries for every index: per-frame advances at 60 Hz, and short advances of about
    // one notify spacing at 64 notifies (0–2 notify crossings).
    type Span = fn(&mut Rng) -> f64;
    let kinds: [(&str, Span); 2] = [
        ("frame", |_| D / 60.0),
        ("short", |r| r.unit() * 2.0 * D / 64.0),
    ];
    for (kind, span) in kinds {
        let mut group = c.benchmark_group(format!("crossings_windows_{kind}"));
        let queries = advances(1024, &mut rng, span);
        for (name, index) in &indexes {
            let mut out = Vec::with_capacity(DEFAULT_LIMIT);
            group.bench_function(*name, |b| {
                let mut i = 0;
                b.iter(|| {
                    let (from, to) = queries[i & 1023];
                    i += 1;
                    let iv = PlaybackInterval::Advance {
                        from,
                        to,
                        looping: true,
                    };
                    black_box(
                        index
                            .query_into(&mut out, black_box(&iv), DEFAULT_LIMIT)
                            .unwrap(),
                    );
                    black_box(out.len())
                })
            });
        }
        // The peer the target names: the notify-only index of the day the issue was
        // filed, on the same 64 notifies and the same queries.
        let before = before_windows::NotifyIndex::new(D, &times).unwrap();
        // Same answers as today's notify-only index on every query, or the comparison is void.
        for &(from, to) in &queries {
            let now = indexes[0]
                .1
                .query(
                    &PlaybackInterval::Advance {
                        from,
                        to,
                        looping: true,
                    },
                    DEFAULT_LIMIT,
                )
                .unwrap();
            let then = before
                .query(
                    &before_windows::PlaybackInterval::Advance {
                        from,
                        to,
                        looping: true,
                    },
                    DEFAULT_LIMIT,
                )
                .unwrap();
            let key = |t: f64, c: i64, n: u32| (t.to_bits(), c, n);
            assert!(
                now.list
                    .iter()
                    .map(|c| key(c.time, c.cycle, c.notify))
                    .eq(then.list.iter().map(|c| key(c.time, c.cycle, c.notify))),
                "the filed-day index disagrees with today's on {from}..{to}"
            );
        }
        let mut out = Vec::with_capacity(DEFAULT_LIMIT);
        group.bench_function("notifies_64_when_filed", |b| {
            let mut i = 0;
            b.iter(|| {
                let (from, to) = queries[i & 1023];
                i += 1;
                let iv = before_windows::PlaybackInterval::Advance {
                    from,
                    to,
                    looping: true,
                };
                black_box(
                    before
                        .query_into(&mut out, black_box(&iv), DEFAULT_LIMIT)
                        .unwrap(),
                );
                black_box(out.len())
            })
        });
        group.finish();
    }
}

criterion_group!(benches, short_advances, long_advances, no_notifies, windows);
criterion_main!(benches);
