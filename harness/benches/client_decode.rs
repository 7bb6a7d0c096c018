//! Issue 12's row for the emulated client: a sealed frame carrying message 5 (facts
//! 10.1's example) opened and decoded by a joined client, the work the load generator does
//! for every client. The host seals the frames on the client's own link (untimed); the
//! timed part is `ClientCore::handle_bytes` and taking what it read. A second row sends
//! bodies the client has not held on every frame (the example's type-17 spawn-point
//! hashes moved), so no body it reads repeats the one its slot holds.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::{Duration, Instant as Clock};
use vex_fake_client::LinkKind;
use vex_harness::in_process::{joined, link_id};
use vex_wire::activity::auth::AuthBody;
use vex_wire::activity::auth::lifetime::{LifetimeAuth, SpawnPair};
use vex_wire::activity::body::Body;
use vex_wire::activity::ids::SENSOR_AUTH_UPDATE;
use vex_wire::vectors::sensor_auth_full_example;

/// The client's tick: each frame comes in a tick of its own.
const TICK_MS: u64 = 34;
/// Frames sealed ahead of each timed batch.
const BATCH: u64 = 4096;
/// The changing bodies sent in turn.
const CHANGING: u32 = 16;

/// Facts 10.1's example with its type-17 body's spawn-point hashes moved by `k`.
fn moved_example(k: u32) -> Vec<u8> {
    let mut m = sensor_auth_full_example();
    let mut lifetime = LifetimeAuth::sunrise_default(3);
    lifetime.spawn_pairs = [SpawnPair {
        index: 0,
        hash: 0xCAFE_F00D + k,
    }; 3];
    let lifetime = AuthBody::Lifetime(lifetime).to_bits().unwrap();
    if let Some(part) = &mut m.groups[0].objects[1].auth {
        part.body = Some(lifetime);
    }
    m.encode().unwrap()
}

/// A joined client reading `bodies` in turn, one sealed frame each.
fn bench_bodies(c: &mut Criterion, name: &str, bodies: &[Vec<u8>]) {
    let (mut host, mut parts, mut now) = joined(1);
    let (client, _) = parts.first_mut().expect("one client");
    assert!(client.session().is_some(), "the client joined");
    let link = link_id(0, LinkKind::Activity);
    let mut g = c.benchmark_group("hot paths");
    g.throughput(Throughput::Elements(1));
    let mut sent = 0usize;
    g.bench_function(name, |b| {
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            let mut left = iters;
            while left > 0 {
                let n = left.min(BATCH);
                let frames: Vec<Vec<u8>> = (0..n)
                    .map(|_| {
                        sent += 1;
                        let body = &bodies[sent % bodies.len()];
                        host.push_raw(link, SENSOR_AUTH_UPDATE, body);
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
    });
    g.finish();
    for v in client.violations().iter().take(5) {
        eprintln!("{} {:?}", v.rule, v.reason);
    }
    // a bench the command line's filter left out sent nothing
    let read = client.rosters_applied();
    assert!(
        sent == 0 || read > 1000,
        "the client applied the rosters it was sent ({read} of {sent})"
    );
}

fn open_and_decode(c: &mut Criterion) {
    let example = sensor_auth_full_example().encode().unwrap();
    bench_bodies(
        c,
        "emulated client: open + decode message 5 (facts 10.1 example)",
        &[example],
    );
    let moved: Vec<Vec<u8>> = (0..CHANGING).map(moved_example).collect();
    bench_bodies(
        c,
        "emulated client: open + decode message 5, a body it has not held every frame",
        &moved,
    );
}

criterion_group!(benches, open_and_decode);
criterion_main!(benches);
