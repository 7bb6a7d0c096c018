//! Any sequence of host requests, generated, gives message bodies the emulated client
//! applies with no crash, no end and no sticky give-up: the host's one door either
//! refuses a request (and nothing of its commit goes out) or sends what the client takes
//! (SR "Auth state goes out"; AH "Values that crash the client"): Auth bodies and fields,
//! incidents (rows past the table or crashing, too many targets, payloads past 500
//! bytes), teleports, authority exchanges and retired groups.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code

use proptest::prelude::*;
use vex_fake_client::{ClientConfig, Effect, Outcome};
use vex_harness::in_process;
use vex_host::HostConfig;
use vex_host::config::TimedCommit;
use vex_host::world::WorldRequest;
use vex_wire::activity::auth::AuthBody;
use vex_wire::activity::auth::lifetime::LifetimeAuth;
use vex_wire::activity::incident::Incident;
use vex_wire::activity::slot::{
    ClientRef, TYPE_CHANNEL, TYPE_GHOST_LINK, TYPE_LIFETIME, TYPE_OBJECTIVE,
};
use vex_wire::schema::tables::LIFETIME;
use vex_wire::schema::{Value, decode};

fn slot(key: u32, slot_type: i8, index: i16) -> ClientRef {
    ClientRef {
        key,
        slot_type,
        index,
    }
}

const LIFETIME_SLOT: (u32, i8, i16) = (0xAAAA_0001, TYPE_LIFETIME, 1);
const OBJECT: u32 = 0xBBBB_0001;

/// The type-17 body the host starts from, as a record.
fn lifetime_default() -> Value {
    let bits = AuthBody::Lifetime(LifetimeAuth::sunrise_default(3))
        .to_bits()
        .unwrap();
    decode(&LIFETIME, &mut bits.reader()).unwrap()
}

fn int() -> impl Strategy<Value = Value> {
    any::<i32>().prop_map(|v| Value::Int(v.into()))
}

fn real() -> impl Strategy<Value = Value> {
    any::<u32>().prop_map(|bits| Value::Raw {
        bits: bits.into(),
        width: 32,
    })
}

/// One request on one of the built-in scenario's slots, values anywhere in their widths.
fn request() -> impl Strategy<Value = WorldRequest> {
    let (k, t, i) = LIFETIME_SLOT;
    let lifetime_field = prop_oneof![
        (-1i128..=14).prop_map(|s| ("state", Value::Int(s))),
        int().prop_map(|v| ("marker_revision", v)),
        any::<u32>().prop_map(|v| ("spawn_entry_hash", Value::Int(v.into()))),
        any::<bool>().prop_map(|b| ("cycle_override_on", Value::Bool(b))),
        int().prop_map(|v| ("selection_id", v)),
    ]
    .prop_map(move |(field, value)| WorldRequest::SetAuthField {
        slot: slot(k, t, i),
        field: field.into(),
        value,
    });
    let objective = (
        prop::collection::vec(prop::option::of(0i128..=127), 24),
        prop::option::of(0i128..(1 << 31)),
    )
        .prop_map(|(bytes, generation)| {
            let entries = bytes
                .into_iter()
                .map(|b| Value::Record(vec![b.map_or(Value::Absent, Value::Int)]))
                .collect();
            WorldRequest::SetAuth {
                slot: slot(OBJECT, TYPE_OBJECTIVE, 1),
                body: Value::Record(vec![
                    Value::Array(entries),
                    generation.map_or(Value::Absent, Value::Int),
                ]),
            }
        });
    let channel = prop::collection::vec((int(), real(), real()), 0..=6).prop_map(|rows| {
        let rows = rows
            .into_iter()
            .map(|(r, t, b)| Value::Record(vec![r, t, b]))
            .collect();
        WorldRequest::SetAuth {
            slot: slot(OBJECT, TYPE_CHANNEL, 3),
            body: Value::Record(vec![Value::Array(rows)]),
        }
    });
    let ghost =
        (int(), any::<bool>(), any::<u32>()).prop_map(|(g, active, hash)| WorldRequest::SetAuth {
            slot: slot(OBJECT, TYPE_GHOST_LINK, 4),
            body: Value::Record(vec![g, Value::Bool(active), Value::Int(hash.into())]),
        });
    let incident = (
        0u16..8192,
        prop::collection::vec(0u16..8192, 0..28),
        0usize..520,
    )
        .prop_map(|(definition, targets, payload)| {
            WorldRequest::FireIncident(Incident {
                definition,
                targets,
                payload: vec![0; payload],
            })
        });
    let teleport = (-2i8..8, -2i16..40, any::<u32>()).prop_map(|(state, slice_set, slice_hash)| {
        WorldRequest::ArmTeleport {
            state,
            slice_set,
            slice_hash,
        }
    });
    let authority = prop_oneof![
        Just(WorldRequest::ResetAuthority),
        Just(WorldRequest::QueryAuthority)
    ];
    let retire = prop_oneof![
        Just(WorldRequest::Retire { key: OBJECT }),
        Just(WorldRequest::Retire { key: 0xBBBB_0002 }),
        Just(WorldRequest::Retire { key: 0xBBBB_0003 }),
    ];
    prop_oneof![
        lifetime_field,
        objective,
        channel,
        ghost,
        incident,
        teleport,
        authority,
        retire
    ]
}

/// A group retired in the client's bubble, and one in the bubble it moves into, leave
/// the client with nothing to report: it retires the keys cleanly (AH "How the client
/// applies an Auth body"), and every later roster and request keeps to that.
#[test]
fn retired_groups_leave_the_client_nothing_to_report() {
    let address = HostConfig::default_address();
    let mut host = HostConfig::builtin(address);
    host.timeline = vec![TimedCommit {
        after_ms: 1_500,
        requests: vec![
            WorldRequest::Retire { key: 0xBBBB_0003 },
            WorldRequest::Retire { key: 0xBBBB_0002 },
        ],
    }];
    let mut client = ClientConfig::builtin(address);
    client.script.move_region_after_ms = Some(2_500);
    let report = in_process::run(host, client, 5_000);
    assert!(report.violations.is_empty(), "{:#?}", report.violations);
    assert_eq!(report.outcome, Outcome::Running);
    assert!(
        report.rosters_applied >= 3,
        "the retirement and the move's roster"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn any_request_sequence_keeps_the_client_alive(
        commits in prop::collection::vec(prop::collection::vec(request(), 1..4), 1..8)
    ) {
        let address = HostConfig::default_address();
        let mut host = HostConfig::builtin(address);
        let (k, t, i) = LIFETIME_SLOT;
        let mut timeline = vec![TimedCommit {
            after_ms: 1_500,
            requests: vec![WorldRequest::SetAuth { slot: slot(k, t, i), body: lifetime_default() }],
        }];
        timeline.extend(commits.into_iter().enumerate().map(|(n, requests)| TimedCommit {
            after_ms: 1_600 + 100 * n as u64,
            requests,
        }));
        host.timeline = timeline;
        let report = in_process::run(host, ClientConfig::builtin(address), 3_000);
        let fatal: Vec<String> = report
            .violations
            .iter()
            .filter(|v| matches!(v.effect, Effect::Crash | Effect::End | Effect::Sticky))
            .map(ToString::to_string)
            .collect();
        prop_assert!(fatal.is_empty(), "{fatal:#?}");
        prop_assert_eq!(report.outcome, Outcome::Running);
        prop_assert!(report.rosters_applied >= 2, "the commits were applied");
    }
}
