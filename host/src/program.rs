//! The built-in scenario's host program: the commits the built-in host makes in every
//! activity, so every run shows the host changing its world through the one door (SR
//! "Auth state goes out", "What the host pushes on its own": a new committed Auth
//! revision). A mission script takes this place once scripts exist.

use crate::schedule::TimedCommit;
use crate::world::WorldRequest;
use vex_wire::activity::incident::Incident;
use vex_wire::activity::slot::{ClientRef, TYPE_CHANNEL, TYPE_GHOST_LINK, TYPE_OBJECTIVE};
use vex_wire::schema::Value;
use vex_wire::tag::FNV1_EMPTY;

/// The placed object of the built-in scenario that holds the requested slots.
const OBJECT: u32 = 0xBBBB_0001;
/// The definition row of the incident the program fires: inside the table and off its
/// crashing rows (INCIDENT-01, INCIDENT-02); an empty payload.
const INCIDENT_ROW: u16 = 2;
/// Objectives in a type-3 body (AH "Type 3").
const OBJECTIVES: usize = 24;

fn slot(slot_type: i8, index: i16) -> ClientRef {
    ClientRef {
        key: OBJECT,
        slot_type,
        index,
    }
}

fn int(v: i64) -> Value {
    Value::Int(i128::from(v))
}

fn real(v: f32) -> Value {
    Value::Raw {
        bits: u128::from(v.to_bits()),
        width: 32,
    }
}

/// A type-3 body: every objective's byte sent, since a clear presence bit resets it
/// (T3-01), and the reset generation `generation`.
fn objectives(bytes: [i64; OBJECTIVES], generation: i64) -> Value {
    let entries = bytes.iter().map(|b| Value::Record(vec![int(*b)])).collect();
    Value::Record(vec![Value::Array(entries), int(generation)])
}

/// A type-65 body: generation, active, and the authored interaction hash kept.
fn ghost(generation: i64, active: bool) -> Value {
    Value::Record(vec![
        int(generation),
        Value::Bool(active),
        int(i64::from(FNV1_EMPTY)),
    ])
}

/// At 2.5 s the objective, a channel row and the ghost link are published; at 3.5 s
/// every member is asked to rebuild and report its authority and gets an incident; at 4 s the first objective
/// moves on and the ghost is put away, its generation raised with the change (T65-01).
pub fn builtin_timeline() -> Vec<TimedCommit> {
    let mut moved = [0; OBJECTIVES];
    moved[0] = 3;
    vec![
        TimedCommit {
            after_ms: 2_500,
            requests: vec![
                WorldRequest::SetAuth {
                    slot: slot(TYPE_OBJECTIVE, 1),
                    body: objectives([0; OBJECTIVES], 1),
                },
                WorldRequest::SetAuth {
                    slot: slot(TYPE_CHANNEL, 3),
                    body: Value::Record(vec![Value::Array(vec![Value::Record(vec![
                        int(1),
                        real(50.0),
                        real(2.0),
                    ])])]),
                },
                WorldRequest::SetAuth {
                    slot: slot(TYPE_GHOST_LINK, 4),
                    body: ghost(1, true),
                },
            ],
        },
        TimedCommit {
            after_ms: 3_500,
            requests: vec![
                WorldRequest::ResetAuthority,
                WorldRequest::QueryAuthority,
                WorldRequest::FireIncident(Incident {
                    definition: INCIDENT_ROW,
                    targets: Vec::new(),
                    payload: Vec::new(),
                }),
            ],
        },
        TimedCommit {
            after_ms: 4_000,
            requests: vec![
                WorldRequest::SetAuth {
                    slot: slot(TYPE_OBJECTIVE, 1),
                    body: objectives(moved, 1),
                },
                WorldRequest::SetAuthField {
                    slot: slot(TYPE_GHOST_LINK, 4),
                    field: "generation".into(),
                    value: int(2),
                },
                WorldRequest::SetAuthField {
                    slot: slot(TYPE_GHOST_LINK, 4),
                    field: "active".into(),
                    value: Value::Bool(false),
                },
            ],
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::World;
    use vex_wire::scenario::Scenario;

    /// Every commit of the built-in timeline is accepted by the built-in scenario, and
    /// each that sets a body raises the revision.
    #[test]
    fn the_builtin_timeline_commits() {
        let (scenario, mut world) = (Scenario::builtin(), World::default());
        for (i, commit) in builtin_timeline().iter().enumerate() {
            let sets_a_body = !commit.requests.contains(&WorldRequest::ResetAuthority);
            let changed = world
                .commit(&scenario, &commit.requests)
                .map(|c| !c.is_empty());
            assert_eq!(changed, Ok(sets_a_body), "commit {i}");
        }
        assert_eq!(world.revision(), 2);
        let held = world.body(&slot(TYPE_GHOST_LINK, 4)).unwrap();
        assert_eq!(held, &ghost(2, false));
    }
}
