//! The rows of issue 12's target table, one bench each, named after its row: the bit
//! reader, the bodies the host sends most (messages 19, 4, 12, 1 and 5, each into a buffer
//! the caller keeps) and the secure channel's seal. The emulated client's row is
//! `cargo bench -p vex-harness --bench client_decode`.
#![allow(missing_docs, clippy::unwrap_used)]

use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
};
use std::hint::black_box;
use vex_wire::activity::body::Body;
use vex_wire::activity::incident::Incident;
use vex_wire::activity::join::{JOIN_RESULT_LEN, JoinRequest, JoinResult};
use vex_wire::activity::join_template::JoinResultTemplate;
use vex_wire::activity::membership::{MEMBER_LANES, Member, ReplicateMembership};
use vex_wire::bap::secure::{ChannelSecrets, Role, SecureChannel, TAG_LEN};
use vex_wire::bits::{BitReader, written};
use vex_wire::vectors::{global_state_example, sensor_auth_full_example};

/// Fields the bit reader row reads per pass.
const FIELDS: usize = 10_000_000;

/// A xorshift stream: the widths are random but the same every run.
fn xorshift(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

fn bit_reader(c: &mut Criterion) {
    let mut seed = 0x9E37_79B9_7F4A_7C15;
    let widths: Vec<u8> = (0..FIELDS)
        .map(|_| (xorshift(&mut seed) % 32) as u8 + 1)
        .collect();
    let bytes = written(|w| {
        for width in &widths {
            let width = u32::from(*width);
            w.write(xorshift(&mut seed) >> (64 - width), width);
        }
    })
    .unwrap();
    let mut g = c.benchmark_group("hot paths");
    g.sample_size(10);
    g.throughput(Throughput::Elements(FIELDS as u64));
    g.bench_function("bit reader, 10M fields of random width 1-32", |b| {
        b.iter(|| {
            let mut r = BitReader::new(&bytes);
            let mut sum = 0u64;
            for width in &widths {
                sum = sum.wrapping_add(r.read(u32::from(*width)).unwrap());
            }
            black_box(sum)
        })
    });
    g.finish();
}

/// Facts 10.1: target 100, extra target 200, payload AB CD (58 bits).
fn facts_incident() -> Incident {
    Incident {
        definition: 100,
        targets: vec![200],
        payload: vec![0xAB, 0xCD],
    }
}

fn member(i: u64) -> Member {
    Member::seed(0x0123_4567_89AB_CDEF + i, 0x2000 + i, 0x3000 + i)
}

/// The bench `name`: `body` encoded into a buffer kept from one call to the next.
fn encode_into_kept(g: &mut BenchmarkGroup<'_, WallTime>, name: &str, body: &impl Body) {
    let mut out = Vec::with_capacity(8 * 1024);
    g.bench_function(name, |b| {
        b.iter(|| {
            out.clear();
            black_box(body).encode_into(&mut out).unwrap();
            black_box(&out);
        })
    });
}

fn bodies(c: &mut Criterion) {
    let mut g = c.benchmark_group("hot paths");
    g.throughput(Throughput::Elements(1));
    encode_into_kept(&mut g, "message 19 (facts 10.1 example)", &facts_incident());
    let request = JoinRequest::new(0x1122_3344, 0x9EAA_3001_0020_0001, 2, 3);
    let template = JoinResultTemplate::new(&JoinResult::accept(&request, 0)).unwrap();
    let mut session = 0x9EAA_3001_0020_0001u64;
    let mut out = Vec::with_capacity(JOIN_RESULT_LEN);
    g.bench_function("message 4 into a kept buffer", |b| {
        b.iter(|| {
            session = session.wrapping_add(1);
            out.clear();
            template.encode_into(&mut out, black_box(&request.record), session);
            black_box(&out);
        })
    });
    let one = ReplicateMembership::for_local_member(member(0), 1);
    encode_into_kept(&mut g, "message 12, one member", &one);
    let full = ReplicateMembership::for_members(
        std::array::from_fn(|lane| Some(member(lane as u64))),
        7,
        member(0).member_key,
    );
    assert_eq!(full.member_keys().len(), MEMBER_LANES);
    encode_into_kept(&mut g, "message 12, 32 members", &full);
    let global = global_state_example();
    encode_into_kept(&mut g, "message 1", &global);
    let roster = sensor_auth_full_example();
    encode_into_kept(&mut g, "message 5 (facts 10.1 example)", &roster);
    g.finish();
}

fn gcm_seal(c: &mut Criterion) {
    let secrets = ChannelSecrets {
        base_nonce: [0xA0; 12],
        session_key: [0xB0; 16],
    };
    let mut channel = SecureChannel::new(&secrets, Role::Host);
    let mut g = c.benchmark_group("hot paths");
    for (name, len) in [
        ("GCM seal, 1 KiB frame", 1024),
        ("GCM seal, 64 KiB frame", 65536),
    ] {
        let inner = vec![0x5A; len];
        g.throughput(Throughput::Bytes(len as u64));
        g.bench_with_input(BenchmarkId::new(name, len), &inner, |b, inner| {
            b.iter(|| {
                let sealed = channel.seal(black_box(inner));
                debug_assert_eq!(sealed.len(), TAG_LEN + len);
                black_box(sealed)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bit_reader, bodies, gcm_seal);
criterion_main!(benches);
