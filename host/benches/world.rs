//! Issue 7's figures: message-5 builds a second for the large scenario after a change to
//! one slot (the host keeps every body encoded and re-encodes only what changed), and
//! Sense reports read and turned into events a second.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::collections::BTreeSet;
use std::hint::black_box;
use vex_host::LinkId;
use vex_host::messages::sense::{read_reports, report_events};
use vex_host::policy::RosterInputs;
use vex_host::roster;
use vex_host::world::{World, WorldRequest};
use vex_wire::activity::body::Body;
use vex_wire::activity::join::JoinRequest;
use vex_wire::activity::sense_update::{SenseGroup, SenseObject, SenseUpdate};
use vex_wire::activity::slot::{ClientRef, TYPE_CHANNEL, TYPE_GHOST_LINK, TYPE_OBJECTIVE};
use vex_wire::scenario::Scenario;
use vex_wire::schema::tables::GHOST_LINK_SENSE;
use vex_wire::schema::{Value, encode_bits};

const EPOCH: [u64; 2] = [1, 2];

fn int(v: i128) -> Value {
    Value::Int(v)
}

fn real(v: f32) -> Value {
    Value::Raw {
        bits: v.to_bits().into(),
        width: 32,
    }
}

fn objective(generation: i128) -> Value {
    let entries = (0..24).map(|i| Value::Record(vec![int(i % 5)])).collect();
    Value::Record(vec![Value::Array(entries), int(generation)])
}

/// Every objective, channel and ghost link of `scenario` given a body.
fn world(scenario: &Scenario) -> World {
    let mut requests = Vec::new();
    for o in &scenario.objects {
        for d in &o.slots {
            let slot = ClientRef {
                key: o.key,
                slot_type: d.slot_type,
                index: d.index,
            };
            let body = match d.slot_type {
                TYPE_OBJECTIVE => objective(1),
                TYPE_CHANNEL => Value::Record(vec![Value::Array(vec![Value::Record(vec![
                    int(1),
                    real(10.0),
                    real(1.0),
                ])])]),
                TYPE_GHOST_LINK => {
                    Value::Record(vec![int(1), Value::Bool(false), int(0x811C_9DC5)])
                }
                _ => continue,
            };
            requests.push(WorldRequest::SetAuth { slot, body });
        }
    }
    let mut w = World::default();
    w.commit(scenario, &requests).unwrap();
    w
}

fn message5(c: &mut Criterion) {
    let scenario = Scenario::large(usize::MAX);
    let slots: usize = scenario.objects.iter().map(|o| o.slots.len()).sum();
    let mut world = world(&scenario);
    let join = JoinRequest::new(1, 0x9EAA_3001_0020_0001, 5, 6);
    let changed = ClientRef {
        key: 0xCC00_0000,
        slot_type: TYPE_OBJECTIVE,
        index: 1,
    };
    let mut g = c.benchmark_group("message 5, large scenario");
    g.throughput(Throughput::Elements(1));
    let build = |world: &World| {
        let inputs = RosterInputs {
            scenario: &scenario,
            join: &join,
            region: 0,
            world,
            epoch: EPOCH,
        };
        roster::sensor_auth(&inputs).unwrap().encode().unwrap()
    };
    let bytes = build(&world).len();
    println!("large scenario: {slots} slots, message 5 of {bytes} bytes");
    let mut generation = 1;
    g.bench_function(
        format!("one slot changed, then built ({slots} slots)"),
        |b| {
            b.iter(|| {
                generation += 1;
                let change = WorldRequest::SetAuth {
                    slot: changed,
                    body: objective(generation),
                };
                world.commit(&scenario, &[change]).unwrap();
                black_box(build(&world))
            })
        },
    );
    g.finish();
}

/// A message 6 with `n` ghost reports, each in a group of its own key.
fn reports(n: usize) -> (BTreeSet<ClientRef>, Vec<u8>) {
    let mut map = BTreeSet::new();
    let groups = (0..n)
        .map(|i| {
            let slot = ClientRef {
                key: 0xCC00_0000 + i as u32,
                slot_type: TYPE_GHOST_LINK,
                index: 5,
            };
            map.insert(slot);
            let v = Value::Record(vec![Value::Bool(true), real(0.5), int(1)]);
            SenseGroup {
                key: slot.key,
                objects: vec![SenseObject {
                    slot,
                    sense: encode_bits(&GHOST_LINK_SENSE, &v).unwrap(),
                    counter: 1,
                }],
            }
        })
        .collect();
    let body = SenseUpdate {
        patch_epoch: EPOCH,
        groups,
    }
    .encode()
    .unwrap();
    (map, body)
}

fn sense(c: &mut Criterion) {
    let mut g = c.benchmark_group("message 6");
    for n in [1, 64] {
        let (map, body) = reports(n);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(format!("{n} reports read into events"), |b| {
            b.iter(|| {
                let groups = read_reports(&map, Some(EPOCH), &body).unwrap();
                let events: Vec<_> = groups
                    .iter()
                    .flat_map(|g| g.as_ref().unwrap())
                    .flat_map(|o| report_events(LinkId(1), o))
                    .collect();
                black_box(events)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, message5, sense);
criterion_main!(benches);
