//! Speed targets of issue 3 (2-core machine): bit writer and reader at most 3 ns per
//! field; message 5 (facts 10.1's example) 3 million encodes a second and an 8 x 1,280
//! roster 3,000 a second; messages 4 and 1 at 30 and 5 million a second.
#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use vex_wire::activity::auth::AuthBody;
use vex_wire::activity::auth::lifetime::LifetimeAuth;
use vex_wire::activity::auth::participation::ParticipationAuth;
use vex_wire::activity::body::Body;
use vex_wire::activity::join::{JOIN_RESULT_LEN, JoinRequest, JoinResult};
use vex_wire::activity::join_template::JoinResultTemplate;
use vex_wire::activity::sensor_auth::{AuthPart, EntityGroup, ObjectBlock, SensorAuthUpdate};
use vex_wire::activity::slot::ClientRef;
use vex_wire::bits::{BitReader, BitWriter, written};
use vex_wire::vectors::{global_state_example, sensor_auth_full_example};

const FIELDS: usize = 1_000_000;

fn bits(c: &mut Criterion) {
    let widths: Vec<u32> = (0..FIELDS).map(|i| (i % 32) as u32 + 1).collect();
    let values: Vec<u64> = widths
        .iter()
        .enumerate()
        .map(|(i, w)| (i as u64 * 0x9E37_79B9) & ((1 << w) - 1))
        .collect();
    let mut g = c.benchmark_group("bits");
    g.throughput(Throughput::Elements(FIELDS as u64));
    g.bench_function("write 1M fields of 1-32 bits", |b| {
        b.iter(|| {
            let mut bytes = Vec::with_capacity((FIELDS * 17).div_ceil(8));
            let mut w = BitWriter::appending(&mut bytes);
            for (v, width) in values.iter().zip(&widths) {
                w.write(*v, *width);
            }
            w.finish().unwrap();
            black_box(bytes)
        })
    });
    let bytes = written(|w| {
        for (v, width) in values.iter().zip(&widths) {
            w.write(*v, *width);
        }
    })
    .unwrap();
    g.bench_function("read 1M fields of 1-32 bits", |b| {
        b.iter(|| {
            let mut r = BitReader::new(&bytes);
            let mut sum = 0u64;
            for width in &widths {
                sum = sum.wrapping_add(r.read(*width).unwrap());
            }
            black_box(sum)
        })
    });
    g.finish();
}

fn slot(key: u32, slot_type: i8, index: i16) -> ClientRef {
    ClientRef {
        key,
        slot_type,
        index,
    }
}

fn body(b: AuthBody) -> Option<vex_wire::bits::Bits> {
    Some(b.to_bits().unwrap())
}

/// 8 groups x 1,280 slots, types cycling 13, 17, 8, 16, 41, 67, 21, Auth and Sense flags
/// cycling; bodies for 17, 13 and 8, reset-only otherwise.
fn big_roster() -> SensorAuthUpdate {
    const TYPES: [i8; 7] = [13, 17, 8, 16, 41, 67, 21];
    let lifetime = body(AuthBody::Lifetime(LifetimeAuth::sunrise_default(3)));
    let participation = body(AuthBody::Participation(ParticipationAuth {
        region: Some(0),
        player_key: Some(7),
        sync_state: 0,
    }));
    let config = body(AuthBody::ConfigurationNeutral);
    let groups = (0..8u32)
        .map(|g| EntityGroup {
            key: 0xC000_0000 + g,
            filler: 0,
            objects: (0..1280usize)
                .map(|i| {
                    let ty = TYPES[i % TYPES.len()];
                    let (auth, sense) = [(true, true), (true, false), (false, true)][i % 3];
                    let b = match ty {
                        17 => lifetime.clone(),
                        13 => participation.clone(),
                        8 => config.clone(),
                        _ => None,
                    };
                    ObjectBlock {
                        slot: slot(0xC000_0000 + g, ty, i as i16),
                        auth: auth.then_some(AuthPart {
                            reset: true,
                            body: b,
                        }),
                        sense: sense.then_some(None),
                    }
                })
                .collect(),
        })
        .collect();
    let mut m = sensor_auth_full_example();
    m.groups = groups;
    m
}

fn messages(c: &mut Criterion) {
    let mut g = c.benchmark_group("messages");
    g.throughput(Throughput::Elements(1));
    let m5 = sensor_auth_full_example();
    g.bench_function("message 5, facts 10.1 example", |b| {
        b.iter(|| black_box(m5.encode().unwrap()))
    });
    let roster = big_roster();
    g.bench_function("message 5, 8 x 1,280 roster", |b| {
        b.iter(|| black_box(roster.encode().unwrap()))
    });
    let req = JoinRequest::new(1, 0x9EAA_3001_0020_0001, 2, 3);
    let m4 = JoinResult::accept(&req, 0x9EAA_3001_0020_0001);
    g.bench_function("message 4, field by field", |b| {
        b.iter(|| black_box(m4.encode().unwrap()))
    });
    let template = JoinResultTemplate::new(&m4).unwrap();
    let requests: Vec<Vec<u8>> = (0..4u32)
        .map(|i| JoinRequest::new(i, 0x9EAA_3001_0020_0001 + u64::from(i), 2, 3).record)
        .collect();
    let mut session = 0x9EAA_3001_0020_0001u64;
    g.bench_function("message 4, host template", |b| {
        b.iter(|| {
            session = session.wrapping_add(1);
            let request = &requests[(session & 3) as usize];
            black_box(template.encode(black_box(request), session))
        })
    });
    let mut buffer = Vec::with_capacity(JOIN_RESULT_LEN);
    g.bench_function("message 4, host template into a kept buffer", |b| {
        b.iter(|| {
            session = session.wrapping_add(1);
            let request = &requests[(session & 3) as usize];
            buffer.clear();
            template.encode_into(&mut buffer, black_box(request), session);
            black_box(&buffer);
        })
    });
    let m1 = global_state_example();
    g.bench_function("message 1", |b| b.iter(|| black_box(m1.encode().unwrap())));
    g.finish();
}

criterion_group!(benches, bits, messages);
criterion_main!(benches);
