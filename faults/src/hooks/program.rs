//! Commits the [`crate::HostPlan`] adds to the host program's timeline: requests the
//! world accepts, whose bodies break a slot type's rule against what the built-in
//! timeline published before (T65-01), set up what a fault breaks (T3-01, SEED-06), or
//! take a freedom the pages leave (SEED-05, T3-01, T3-02, AUTH-09).

use crate::fault::Fault;
use crate::plan::HostPlan;
use crate::variation::Variation;
use vex_host::schedule::TimedCommit;
use vex_host::world::WorldRequest;
use vex_wire::activity::auth::AuthBody;
use vex_wire::activity::auth::lifetime::{LifetimeAuth, SpawnPair, Switch};
use vex_wire::activity::incident::Incident;
use vex_wire::activity::slot::{
    ClientRef, TYPE_CHANNEL, TYPE_GHOST_LINK, TYPE_LIFETIME, TYPE_OBJECTIVE,
};
use vex_wire::schema::tables::LIFETIME;
use vex_wire::schema::{Value, decode};

/// After the built-in timeline's last commit (4 s).
const AFTER_MS: u64 = 4_500;
/// After the built-in timeline publishes the objective (2.5 s), before a scripted
/// snapshot request (3 s).
const OBJECTIVE_MOVED_MS: u64 = 2_600;
/// A commit after the built-in timeline's, which gives a link one more roster.
const ONE_MORE_ROSTER_MS: u64 = 4_500;
/// When a loading lifetime state gives way to the live one.
const LOADED_MS: u64 = 1_500;
/// The built-in scenario's object with the objective, the channel and the ghost link.
const OBJECT: u32 = 0xBBBB_0001;
/// The built-in scenario's top-level group, whose type-17 slot is the first registered.
const TOP_GROUP: u32 = 0xAAAA_0001;
/// The lifetime state that hides the HUD while loading (AH "Type 17").
const LOADING_STATE: i8 = 1;
/// The live lifetime state (AH "Type 17": "the live case").
const LIVE_STATE: i128 = 3;

fn field(slot_type: i8, index: i16, field: &str, value: Value) -> WorldRequest {
    WorldRequest::SetAuthField {
        slot: ClientRef {
            key: OBJECT,
            slot_type,
            index,
        },
        field: field.into(),
        value,
    }
}

fn lifetime_slot() -> ClientRef {
    ClientRef {
        key: TOP_GROUP,
        slot_type: TYPE_LIFETIME,
        index: 1,
    }
}

/// The live default type-17 body at `state`, as the world holds bodies.
fn lifetime(state: i8) -> Option<Value> {
    let mut a = LifetimeAuth::sunrise_default(state);
    a.join_flag_inverted = true;
    let bits = AuthBody::Lifetime(a).to_bits().ok()?;
    decode(&LIFETIME, &mut bits.reader()).ok()
}

/// The commits `plan` adds.
pub(crate) fn commits(plan: &HostPlan) -> Vec<TimedCommit> {
    let mut later = Vec::new();
    if plan.has(Fault::GhostChangeWithoutGeneration) {
        later.push(field(TYPE_GHOST_LINK, 4, "active", Value::Bool(true)));
    }
    if plan.varies(Variation::ObjectiveReset) {
        later.push(field(TYPE_OBJECTIVE, 1, "objective", Value::Absent));
        later.push(field(TYPE_OBJECTIVE, 1, "generation", Value::Absent));
    }
    if plan.varies(Variation::AuthCleared) {
        later.push(WorldRequest::ClearAuth {
            slot: ClientRef {
                key: OBJECT,
                slot_type: TYPE_CHANNEL,
                index: 3,
            },
        });
    }
    let mut commits = Vec::new();
    if plan.has(Fault::SnapshotDropsObjective) || plan.has(Fault::SnapshotDropsObjectiveArray) {
        commits.push(TimedCommit {
            after_ms: OBJECTIVE_MOVED_MS,
            requests: vec![field(
                TYPE_OBJECTIVE,
                1,
                "objective[0].value",
                Value::Int(3),
            )],
        });
    }
    if plan.has(Fault::StateByteCounter) {
        commits.push(TimedCommit {
            after_ms: ONE_MORE_ROSTER_MS,
            requests: vec![field(TYPE_CHANNEL, 3, "rows[0].revision", Value::Int(2))],
        });
    }
    commits.extend(at_limits(plan));
    if plan.varies(Variation::LoadingStateFirst)
        && let Some(body) = lifetime(LOADING_STATE)
    {
        let slot = lifetime_slot();
        commits.push(TimedCommit {
            after_ms: 0,
            requests: vec![WorldRequest::SetAuth { slot, body }],
        });
        commits.push(TimedCommit {
            after_ms: LOADED_MS,
            requests: vec![WorldRequest::SetAuthField {
                slot,
                field: "state".into(),
                value: Value::Int(LIVE_STATE),
            }],
        });
    }
    if !later.is_empty() {
        commits.push(TimedCommit {
            after_ms: AFTER_MS,
            requests: later,
        });
    }
    commits
}

/// After the built-in timeline publishes the channel (2.5 s).
const AT_LIMITS_MS: u64 = 2_700;
/// The incident table's last row (AH "incident, message 19": 7763 rows; INCIDENT-01).
const LAST_ROW: u16 = 7_762;
/// An incident's extra targets at most (INCIDENT-03).
const MAX_TARGETS: usize = 25;
/// An incident's payload bytes at most (INCIDENT-05).
const MAX_PAYLOAD: usize = 500;
/// A type-17 switch list's capacity (T17-03).
const MAX_SWITCHES: usize = 50;
/// A channel body's rows at most (T24-01).
const MAX_ROWS: usize = 4;

/// The commits of the variations that fill a list to its capacity: 50 switches, four
/// channel rows, an incident at every limit.
fn at_limits(plan: &HostPlan) -> Vec<TimedCommit> {
    let mut requests = Vec::new();
    if plan.varies(Variation::SwitchListFull)
        && let Some(body) = lifetime_with_switches(MAX_SWITCHES)
    {
        let slot = lifetime_slot();
        requests.push(WorldRequest::SetAuth { slot, body });
    }
    if plan.varies(Variation::LifetimeEdges)
        && let Some(body) = lifetime_at_edges()
    {
        let slot = lifetime_slot();
        requests.push(WorldRequest::SetAuth { slot, body });
    }
    if plan.varies(Variation::ChannelRowsFull) {
        let row = |i: i128| {
            Value::Record(vec![
                Value::Int(i),
                Value::Raw {
                    bits: u128::from(10.0f32.to_bits()),
                    width: 32,
                },
                Value::Raw {
                    bits: u128::from(1.0f32.to_bits()),
                    width: 32,
                },
            ])
        };
        let rows = (1..=MAX_ROWS as i128).map(row).collect();
        requests.push(WorldRequest::SetAuth {
            slot: ClientRef {
                key: OBJECT,
                slot_type: TYPE_CHANNEL,
                index: 3,
            },
            body: Value::Record(vec![Value::Array(rows)]),
        });
    }
    if plan.varies(Variation::IncidentAtLimits) {
        requests.push(WorldRequest::FireIncident(Incident {
            definition: LAST_ROW,
            targets: (0..MAX_TARGETS as u16).collect(),
            payload: vec![0x5A; MAX_PAYLOAD],
        }));
    }
    if requests.is_empty() {
        return Vec::new();
    }
    vec![TimedCommit {
        after_ms: AT_LIMITS_MS,
        requests,
    }]
}

/// The live default type-17 body with `n` gameplay switches.
fn lifetime_with_switches(n: usize) -> Option<Value> {
    let mut a = LifetimeAuth::sunrise_default(LIVE_STATE as i8);
    a.join_flag_inverted = true;
    a.switches = (0..n as u32)
        .map(|key| Switch {
            key: SWITCH_KEYS + key,
            value: Some(0),
        })
        .collect();
    let bits = AuthBody::Lifetime(a).to_bits().ok()?;
    decode(&LIFETIME, &mut bits.reader()).ok()
}

/// The live type-17 body at its edges ([`Variation::LifetimeEdges`]): no switch, the
/// first spawn-point pair on at the built-in arrival slice set (0) with its spawn set, and
/// selection_id 63.
fn lifetime_at_edges() -> Option<Value> {
    let mut a = LifetimeAuth::sunrise_default(LIVE_STATE as i8);
    a.join_flag_inverted = true;
    a.switches.clear();
    a.spawn_pairs[0] = SpawnPair {
        index: 0,
        hash: BUILTIN_SPAWN_SET,
    };
    a.selection_id = LAST_SELECTION_ID;
    let bits = AuthBody::Lifetime(a).to_bits().ok()?;
    decode(&LIFETIME, &mut bits.reader()).ok()
}

/// The built-in selection's spawn set (`Scenario::builtin`).
const BUILTIN_SPAWN_SET: u32 = 0x5566_7788;
/// The last selection_id that installs a record (T17-09).
const LAST_SELECTION_ID: i32 = 63;

/// The first key of the switches [`lifetime_with_switches`] sets.
const SWITCH_KEYS: u32 = 0x5157_0000;
