//! Speed targets of issue 3 (2-core machine): bit writer and reader at most 3 ns per
//! field; message 5 (facts 10.1's example) 3 million encodes a second and an 8 x 1,280
//! roster 3,000 a second; messages 4 and 1 at 30 and 5 million a second.
#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use vex_wire::activity::auth::AuthBody;
use vex_wire::activity::auth::lifetime::{LifetimeAuth, SpawnPair};
use vex_wire::activity::auth::participation::ParticipationAuth;
use vex_wire::activity::global_state::GlobalActivityState;
use vex_wire::activity::join::{JoinRequest, JoinResult};
use vex_wire::activity::selection::SelectionDescriptor;
use vex_wire::activity::sensor_auth::{
    AUTHORITY_BUBBLES, AuthPart, BubbleAuthority, BubbleElement, EntityGroup, ObjectBlock,
    RosterDelta, SensorAuthUpdate, SubBlock,
};
use vex_wire::activity::slot::ClientRef;
use vex_wire::bits::{BitReader, BitWriter};

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
            let mut w = BitWriter::with_capacity(FIELDS * 17);
            for (v, width) in values.iter().zip(&widths) {
                w.write(*v, *width);
            }
            black_box(w.finish().unwrap())
        })
    });
    let mut w = BitWriter::new();
    for (v, width) in values.iter().zip(&widths) {
        w.write(*v, *width);
    }
    let bytes = w.finish().unwrap();
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

/// Facts 10.1's full message-5 example.
fn example() -> SensorAuthUpdate {
    let mut authority = [false; AUTHORITY_BUBBLES];
    authority[0] = true;
    let mut elements = [BubbleElement::default(); AUTHORITY_BUBBLES];
    elements[0].grant = Some(1);
    let mut lifetime = LifetimeAuth::sunrise_default(3);
    lifetime.spawn_pairs = [SpawnPair {
        index: 0,
        hash: 0xCAFE_F00D,
    }; 3];
    let participation = ParticipationAuth {
        region: Some(0),
        player_key: Some(0x0123_4567_89AB_CDEF),
        sync_state: 0,
    };
    SensorAuthUpdate {
        hardwipe_token: 0,
        patch_epoch: [0x0102_0304_0506_0708, 0x1112_1314_1516_1718],
        bubble_block: Some(BubbleAuthority {
            authority,
            elements,
        }),
        token: 0,
        roster_enable: true,
        roster: Some(RosterDelta {
            keys: vec![0xAAAA_0001],
            mask: RosterDelta::mask_for(1),
            states: vec![1],
            sub_blocks: Some(vec![SubBlock {
                bubble: 0,
                keys: vec![0xBBBB_0001],
                mask: RosterDelta::mask_for(1),
                states: vec![1],
            }]),
        }),
        groups: vec![
            EntityGroup {
                key: 0xAAAA_0001,
                filler: 0,
                objects: vec![
                    ObjectBlock {
                        slot: slot(0xAAAA_0001, 13, 0),
                        auth: Some(AuthPart {
                            reset: true,
                            body: body(AuthBody::Participation(participation)),
                        }),
                        sense: Some(None),
                    },
                    ObjectBlock {
                        slot: slot(0xAAAA_0001, 17, 1),
                        auth: Some(AuthPart {
                            reset: true,
                            body: body(AuthBody::Lifetime(lifetime)),
                        }),
                        sense: None,
                    },
                ],
            },
            EntityGroup {
                key: 0xBBBB_0001,
                filler: 0,
                objects: vec![ObjectBlock {
                    slot: slot(0xBBBB_0001, 8, 0),
                    auth: Some(AuthPart {
                        reset: true,
                        body: body(AuthBody::ConfigurationNeutral),
                    }),
                    sense: None,
                }],
            },
        ],
    }
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
    let mut m = example();
    m.groups = groups;
    m
}

fn messages(c: &mut Criterion) {
    let mut g = c.benchmark_group("messages");
    g.throughput(Throughput::Elements(1));
    let m5 = example();
    g.bench_function("message 5, facts 10.1 example", |b| {
        b.iter(|| black_box(m5.encode().unwrap()))
    });
    let roster = big_roster();
    g.bench_function("message 5, 8 x 1,280 roster", |b| {
        b.iter(|| black_box(roster.encode().unwrap()))
    });
    let req = JoinRequest::new(1, 0x9EAA_3001_0020_0001, 2, 3);
    let m4 = JoinResult::accept(&req, 0x9EAA_3001_0020_0001);
    g.bench_function("message 4", |b| b.iter(|| black_box(m4.encode().unwrap())));
    let descriptor = SelectionDescriptor {
        destination_activity: 5,
        name: Some("abc".into()),
        ..Default::default()
    };
    let m1 = GlobalActivityState {
        arm_initial_slice_set: true,
        bubble_count: 2,
        bubble_states: [0x7F; 64],
        initial_slice_set: 8,
        spawn_set_hash: 0xDEAD_BEEF,
        descriptor: descriptor.to_bits().unwrap(),
    };
    g.bench_function("message 1", |b| b.iter(|| black_box(m1.encode().unwrap())));
    g.finish();
}

criterion_group!(benches, bits, messages);
criterion_main!(benches);
