//! Issue 12's row for the emulated client: a sealed frame carrying message 5 (facts
//! 10.1's example) opened and decoded by a joined client, the work the load generator does
//! for every client. The host seals the frames on the client's own link (untimed); the
//! timed part is `ClientCore::handle_bytes` and taking what it read.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::{Duration, Instant as Clock};
use vex_fake_client::LinkKind;
use vex_harness::in_process::{joined, link_id};
use vex_wire::activity::body::Body;
use vex_wire::activity::ids::SENSOR_AUTH_UPDATE;
use vex_wire::vectors::sensor_auth_full_example;

/// The client's tick: each frame comes in a tick of its own.
const TICK_MS: u64 = 34;
/// Frames sealed ahead of each timed batch.
const BATCH: u64 = 4096;

fn open_and_decode(c: &mut Criterion) {
    let (mut host, mut parts, mut now) = joined(1);
    let (client, _) = parts.first_mut().expect("one client");
    assert!(client.session().is_some(), "the client joined");
    let link = link_id(0, LinkKind::Activity);
    let body = sensor_auth_full_example().encode().unwrap();
    let mut g = c.benchmark_group("hot paths");
    g.throughput(Throughput::Elements(1));
    g.bench_function(
        "emulated client: open + decode message 5 (facts 10.1 example)",
        |b| {
            b.iter_custom(|iters| {
                let mut spent = Duration::ZERO;
                let mut left = iters;
                while left > 0 {
                    let n = left.min(BATCH);
                    let frames: Vec<Vec<u8>> = (0..n)
                        .map(|_| {
                            host.push_raw(link, SENSOR_AUTH_UPDATE, &body);
                            host.poll_transmit().expect("a sealed push").bytes
                        })
                        .collect();
                    let start = Clock::now();
                    for frame in &frames {
                        now = now + TICK_MS; // one message 5 a tick (AUTH-10)
                        client.handle_bytes(now, LinkKind::Activity, frame);
                        while let Some(r) = client.poll_received() {
                            black_box(r);
                        }
                    }
                    spent += start.elapsed();
                    black_box(client.poll_violations());
                    left -= n;
                }
                spent
            })
        },
    );
    g.finish();
    for v in client.violations().iter().take(5) {
        eprintln!("{} {:?}", v.rule, v.reason);
    }
    eprintln!("{:?} {:?}", client.status(), client.rosters_applied());
    let read = client.rosters_applied();
    assert!(
        read > 1000,
        "the client applied the rosters it was sent ({read})"
    );
}

criterion_group!(benches, open_and_decode);
criterion_main!(benches);
