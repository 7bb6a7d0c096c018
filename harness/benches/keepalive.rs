//! Issue 10's steady-state figure: keepalive rounds a second for 1,000 joined links, in
//! process on the virtual clock, so a regression in the host's timer path shows without a
//! 10-minute `vex load`. A round is one keepalive interval (2 s of virtual time): every
//! due timer fires, every push is built, sealed and taken from the host.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use vex_harness::in_process::joined;
use vex_host::config::KEEPALIVE_INTERVAL_MS;

const LINKS: usize = 1000;

fn keepalive_rounds(c: &mut Criterion) {
    let (mut host, _, mut now) = joined(LINKS);
    let mut g = c.benchmark_group("host_steady_state");
    g.throughput(Throughput::Elements(1));
    g.bench_function("keepalive_round_1000_links", |b| {
        b.iter(|| {
            now = now + KEEPALIVE_INTERVAL_MS;
            host.handle_timeout(now);
            let mut frames = 0;
            while let Some(t) = host.poll_transmit() {
                frames += black_box(t.bytes.len()).min(1);
            }
            while host.poll_event().is_some() {}
            assert!(frames >= LINKS, "{frames} frames in a round");
        });
    });
    g.finish();
}

/// What the IO loop asks after every input: the host's next deadline among 1,000 joined
/// links (issue 12: a deadline queue, where it was a scan of every link's timers).
fn next_deadline(c: &mut Criterion) {
    let (mut host, _, now) = joined(LINKS);
    host.handle_timeout(now);
    while host.poll_transmit().is_some() {}
    let mut g = c.benchmark_group("host_steady_state");
    g.bench_function("poll_timeout_1000_links", |b| {
        b.iter(|| black_box(host.poll_timeout()).expect("a keepalive is due"))
    });
    g.finish();
}

criterion_group!(benches, keepalive_rounds, next_deadline);
criterion_main!(benches);
