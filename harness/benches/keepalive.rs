//! Issue 10's steady-state figure: keepalive rounds a second for 1,000 joined links, in
//! process on the virtual clock, so a regression in the host's timer path shows without a
//! 10-minute `vex load`. A round is one keepalive interval (2 s of virtual time): every
//! due timer fires, every push is built, sealed and taken from the host.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use vex_fake_client::{ClientConfig, ClientCore};
use vex_harness::in_process::exchange;
use vex_harness::transcript::Transcript;
use vex_harness::wire::Wire;
use vex_host::config::KEEPALIVE_INTERVAL_MS;
use vex_host::{HostConfig, HostCore};
use vex_wire::time::Instant;

const LINKS: usize = 1000;

/// A host with `n` clients joined, each in its own activity, and the virtual time it is at.
fn joined(n: usize) -> (HostCore, Instant) {
    let address = HostConfig::default_address();
    let mut host = HostCore::new(HostConfig::builtin(address));
    let mut parts: Vec<(ClientCore, Transcript)> = (0..n)
        .map(|i| {
            let c = ClientConfig::member(address, i as u64 + 1);
            (ClientCore::new(c.clone()), Transcript::of(c.script))
        })
        .collect();
    let mut events = Vec::new();
    let mut wire = Wire::clean();
    let mut now = Instant::default();
    loop {
        while exchange(&mut host, &mut parts, &mut wire, now, &mut events) {}
        if parts.iter().all(|(c, _)| c.session().is_some()) {
            return (host, now);
        }
        now = parts
            .iter()
            .filter_map(|(c, _)| c.poll_timeout())
            .chain(host.poll_timeout())
            .min()
            .expect("a timer while joining");
        for (c, _) in &mut parts {
            c.handle_timeout(now);
        }
        host.handle_timeout(now);
    }
}

fn keepalive_rounds(c: &mut Criterion) {
    let (mut host, mut now) = joined(LINKS);
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

criterion_group!(benches, keepalive_rounds);
criterion_main!(benches);
