//! The Auth bodies the host holds, broken or changed on purpose: the objective of type 3,
//! the ghost link of type 65, retained bodies not repeated (AH "How the client applies an
//! Auth body", "Type 3, objective_sensor", "Type 65, ghost_link_sensor"; SR "Auth state
//! goes out"). The legal modes change a body with a commit of the host's own program.

use crate::edit::{int, record};
use crate::mode::{Held, Mode};
use crate::roster::{BUBBLE0, GHOST};
use vex_host::config::TimedCommit;
use vex_host::policy::RosterSend;
use vex_host::world::WorldRequest;
use vex_wire::activity::sensor_auth::{AuthPart, SensorAuthUpdate};
use vex_wire::activity::slot::ClientRef;
use vex_wire::schema::Value;
use vex_wire::schema::tables::{GHOST_LINK, OBJECTIVE};

/// The objective slot of the built-in scenario.
pub const OBJECTIVE_SLOT: ClientRef = ClientRef {
    key: BUBBLE0,
    slot_type: 3,
    index: 1,
};
/// The channel slot.
pub const CHANNEL_SLOT: ClientRef = ClientRef {
    key: BUBBLE0,
    slot_type: 24,
    index: 3,
};

/// The Auth part of `slot` in `m`.
fn part(m: &mut SensorAuthUpdate, slot: ClientRef) -> Option<&mut AuthPart> {
    m.groups
        .iter_mut()
        .flat_map(|g| &mut g.objects)
        .find(|o| o.slot == slot)
        .and_then(|o| o.auth.as_mut())
}

/// Changes the body `slot` carries, when it carries one.
fn change(
    m: &mut SensorAuthUpdate,
    slot: ClientRef,
    schema: &vex_wire::schema::Schema,
    f: impl FnOnce(&mut Vec<Value>),
) {
    if let Some(body) = part(m, slot).and_then(|a| a.body.as_mut()) {
        *body = record(schema, body, f);
    }
}

/// The change of a [`Held`] mode to message 5; `snapshot` is which snapshot (answer to 18
/// or 11) this one is, if it is one.
pub fn roster(
    h: Held,
    mut m: SensorAuthUpdate,
    send: RosterSend,
    snapshot: Option<u32>,
) -> SensorAuthUpdate {
    let first_snapshot = snapshot == Some(0);
    match h {
        Held::ObjectiveDropped if first_snapshot => {
            change(&mut m, OBJECTIVE_SLOT, &OBJECTIVE, |f| {
                if let Some(Value::Array(entries)) = f.get_mut(0)
                    && let Some(e) = entries.get_mut(0)
                {
                    *e = Value::Record(vec![Value::Absent]);
                }
            })
        }
        Held::ObjectiveArrayDropped if first_snapshot => {
            change(&mut m, OBJECTIVE_SLOT, &OBJECTIVE, |f| f[0] = Value::Absent)
        }
        Held::GenerationEverySend => change(&mut m, OBJECTIVE_SLOT, &OBJECTIVE, |f| {
            f[1] = Value::Int(i128::from(send.sent) + 1)
        }),
        Held::GenerationOnSnapshots => {
            if let Some(n) = snapshot {
                change(&mut m, OBJECTIVE_SLOT, &OBJECTIVE, |f| {
                    f[1] = Value::Int(2 + i128::from(n))
                })
            }
        }
        Held::GenerationDropped if first_snapshot => {
            change(&mut m, OBJECTIVE_SLOT, &OBJECTIVE, |f| f[1] = Value::Absent)
        }
        Held::ResetOnlyOnce if first_snapshot => {
            for slot in [CHANNEL_SLOT, GHOST] {
                if let Some(a) = part(&mut m, slot) {
                    a.body = None;
                }
            }
        }
        Held::NotRepeated if snapshot.is_some() => {
            if let Some(a) = part(&mut m, CHANNEL_SLOT) {
                *a = AuthPart {
                    reset: false,
                    body: None,
                };
            }
        }
        Held::GhostGenerationKept => ghost_put_away(&mut m, 1),
        Held::GhostGenerationLowered => ghost_put_away(&mut m, 0),
        Held::GhostGenerationLeap => ghost_put_away(&mut m, 7),
        _ => {}
    }
    m
}

/// The ghost's change to inactive (the built-in program's at 4 s) sent with `generation`.
fn ghost_put_away(m: &mut SensorAuthUpdate, generation: i128) {
    change(m, GHOST, &GHOST_LINK, |f| {
        if f.get(1) == Some(&Value::Bool(false)) && f.first().and_then(int) == Some(2) {
            f[0] = Value::Int(generation);
        }
    });
}

fn objectives(first: Value, generation: Value) -> Value {
    let mut entries = vec![Value::Record(vec![first])];
    entries.extend((1..24).map(|_| Value::Record(vec![Value::Int(0)])));
    Value::Record(vec![Value::Array(entries), generation])
}

/// The host program with the legal modes' commits at 5 s.
pub fn program(mode: Mode, mut timeline: Vec<TimedCommit>) -> Vec<TimedCommit> {
    let request = match mode {
        Mode::Held(Held::ObjectiveResetByCommit) => WorldRequest::SetAuth {
            slot: OBJECTIVE_SLOT,
            body: objectives(Value::Absent, Value::Int(1)),
        },
        Mode::Held(Held::GenerationAbsentByCommit) => WorldRequest::SetAuth {
            slot: OBJECTIVE_SLOT,
            body: objectives(Value::Int(3), Value::Absent),
        },
        Mode::Held(Held::ClearedByCommit) => WorldRequest::ClearAuth { slot: CHANNEL_SLOT },
        Mode::Held(Held::ObjectiveAllAbsent) => {
            for c in &mut timeline {
                for r in &mut c.requests {
                    if let WorldRequest::SetAuth { slot, body } = r
                        && *slot == OBJECTIVE_SLOT
                        && c.after_ms < 3_000
                    {
                        *body = Value::Record(vec![Value::Absent, Value::Absent]);
                    }
                }
            }
            return timeline;
        }
        _ => return timeline,
    };
    let commit = TimedCommit {
        after_ms: 5_000,
        requests: vec![request],
    };
    if !timeline.contains(&commit) {
        timeline.push(commit);
    }
    timeline
}
