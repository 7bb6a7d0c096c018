//! An activity's world: the Auth body the host holds for each slot, and the one door that
//! changes it (SR "Auth state goes out": message 5 is retained state, and every message 5
//! repeats what the host holds; "Where mission scripts plug in": typed requests that
//! commit together go out in one push).

use std::collections::{BTreeMap, BTreeSet};
use thiserror::Error;
use vex_wire::activity::incident::Incident;
use vex_wire::activity::slot::ClientRef;
use vex_wire::bits::{BitError, Bits};
use vex_wire::scenario::Scenario;
use vex_wire::schema::path::{self, PathError};
use vex_wire::schema::{SchemaError, Value, catalog, encode_bits};

/// A change to the world a host program asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum WorldRequest {
    /// The whole Auth body of `slot`, as a record of its slot type's schema.
    SetAuth {
        /// The slot.
        slot: ClientRef,
        /// The body.
        body: Value,
    },
    /// One part of the Auth body `slot` holds.
    SetAuthField {
        /// The slot.
        slot: ClientRef,
        /// A field path in the slot type's schema: `generation`, `objective[0].value`.
        field: String,
        /// Its new value.
        value: Value,
    },
    /// The host holds no body for `slot` any more: its blocks go out reset-only, which
    /// installs the schema's defaults (AH "How the client applies an Auth body": "reset =
    /// 1, root = 0 installs the schema's defaults").
    ClearAuth {
        /// The slot.
        slot: ClientRef,
    },
    /// Every member rebuilds its entity-slot authority mask: message 28 with a token the
    /// member's 29 carries back (SLOTS-05).
    ResetAuthority,
    /// Every member reports its authority: message 30 with a token its 31 and 32 carry
    /// back (SLOTS-05).
    QueryAuthority,
    /// A host teleport every member is told of through the member table's tail, message
    /// 12 (SR "What the host pushes on its own": a host teleport the host armed; facts
    /// 4.10): a state (3 bits, bias 1) and a target slice set of the activity.
    ArmTeleport {
        /// The teleport state, -1 to 6; a negative one goes out as 0 (facts 4.10).
        state: i8,
        /// The target slice set.
        slice_set: i16,
        /// The target's hash.
        slice_hash: u32,
    },
    /// Every member gets this incident, message 19 (SR "Auth state goes out": the host
    /// can also send an incident through the same output slot).
    FireIncident(Incident),
    /// The object group `key` is retired: every later roster keeps its key and state byte
    /// with its presence bit clear, and holds no Auth body of its slots (AH "How the
    /// client applies an Auth body": the roster delta registers or retires groups, and a
    /// clear presence bit retires the key cleanly, as the leave's message 5 does; SR "What
    /// the host pushes on its own": a retirement that is due goes out at once). When a
    /// group is retired is the program's to say; a retired group stays retired.
    Retire {
        /// The group's registry key.
        key: u32,
    },
}

/// Why a request was refused; nothing of its commit was applied.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RequestError {
    /// The scenario has no such slot.
    #[error("slot {0:?} is not in the scenario")]
    UnknownSlot(ClientRef),
    /// The slot has no Auth schema, so it has no Auth body (AUTH-06).
    #[error("slot {0:?} has no Auth schema")]
    NoAuthSchema(ClientRef),
    /// Vex does not know the slot type's Auth schema.
    #[error("slot type {0} has no Auth schema Vex knows")]
    UnknownSchema(i8),
    /// The field path names no part of the slot type's Auth body, or one the held body
    /// has absent.
    #[error("slot type {slot_type}: {error}")]
    Path {
        /// The slot type.
        slot_type: i8,
        /// Why.
        error: PathError,
    },
    /// A field set on a slot that holds no body yet: send the whole body first.
    #[error("slot {0:?} holds no body to set a field of")]
    NoBody(ClientRef),
    /// A teleport whose state does not fit 3 bits, or whose slice set is not in the
    /// activity's bubbles.
    #[error("teleport: {0}")]
    Teleport(String),
    /// The scenario has no object group with this key.
    #[error("no object group has key {0:#x}")]
    UnknownGroup(u32),
    /// The group carries the player key (the first top-level group, facts 4.7): the
    /// player's own group is not retired.
    #[error("group {0:#x} carries the player key")]
    PlayerGroup(u32),
    /// The slot's group is retired: it holds no body any more.
    #[error("slot {0:?} is in a retired group")]
    Retired(ClientRef),
    /// An incident the client cannot take (INCIDENT-01 to INCIDENT-03, INCIDENT-05).
    #[error("incident: {0}")]
    Incident(BitError),
    /// The body does not encode, or breaks a client rule the encoder guards.
    #[error("slot {slot:?}: {error}")]
    Refused {
        /// The slot.
        slot: ClientRef,
        /// Why.
        error: SchemaError,
    },
}

/// What an activity's host holds of its world.
#[derive(Debug, Default, Clone)]
pub struct World {
    bodies: BTreeMap<ClientRef, Retained>,
    /// The object groups retired, by key.
    retired: BTreeSet<u32>,
    revision: u64,
}

/// One slot's retained body: its value and its encoding.
#[derive(Debug, Clone)]
struct Retained {
    value: Value,
    bits: Bits,
}

/// The world of a session no activity has: nothing held.
static EMPTY: World = World {
    bodies: BTreeMap::new(),
    retired: BTreeSet::new(),
    revision: 0,
};

impl World {
    /// A world that holds nothing.
    pub fn empty() -> &'static World {
        &EMPTY
    }

    /// The committed Auth revision: +1 per commit that changed a body.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The encoded body the host holds for `slot`.
    pub fn body_bits(&self, slot: &ClientRef) -> Option<&Bits> {
        self.bodies.get(slot).map(|r| &r.bits)
    }

    /// True once the object group `key` is retired.
    pub fn is_retired(&self, key: u32) -> bool {
        self.retired.contains(&key)
    }

    /// The body the host holds for `slot`.
    pub fn body(&self, slot: &ClientRef) -> Option<&Value> {
        self.bodies.get(slot).map(|r| &r.value)
    }

    /// Applies the body requests of `requests` together, all or none, against
    /// `scenario`'s slots; the rest (authority exchanges, incidents) are the host's to
    /// send, and an incident the client cannot take refuses the commit. The slots whose
    /// body changed; when there are any, the revision rose.
    pub fn commit(
        &mut self,
        scenario: &Scenario,
        requests: &[WorldRequest],
    ) -> Result<BTreeSet<ClientRef>, RequestError> {
        // a staged None clears the slot's body
        let mut staged: BTreeMap<ClientRef, Option<Retained>> = BTreeMap::new();
        let mut retiring: BTreeSet<u32> = BTreeSet::new();
        for request in requests {
            if let Some(slot) = request.slot().filter(|s| self.is_retired(s.key)) {
                return Err(RequestError::Retired(slot));
            }
            let (slot, value) = match request {
                WorldRequest::Retire { key } => {
                    retiring.insert(retire_check(scenario, *key)?);
                    continue;
                }
                WorldRequest::ResetAuthority | WorldRequest::QueryAuthority => continue,
                WorldRequest::FireIncident(incident) => {
                    incident.check().map_err(RequestError::Incident)?;
                    continue;
                }
                WorldRequest::ArmTeleport {
                    state, slice_set, ..
                } => {
                    check_teleport(scenario, *state, *slice_set)?;
                    continue;
                }
                WorldRequest::ClearAuth { slot } => {
                    if !scenario
                        .schemas_of(slot)
                        .is_some_and(|(_, d)| d.schemas.auth)
                    {
                        return Err(RequestError::NoAuthSchema(*slot));
                    }
                    staged.insert(*slot, None);
                    continue;
                }
                WorldRequest::SetAuth { slot, body } => (*slot, body.clone()),
                WorldRequest::SetAuthField { slot, field, value } => {
                    let held = match staged.get(slot) {
                        Some(staged) => staged.as_ref(),
                        None => self.bodies.get(slot),
                    };
                    let body = held.map(|r| &r.value).ok_or(RequestError::NoBody(*slot))?;
                    (*slot, with_field(*slot, body, field, value.clone())?)
                }
            };
            let bits = encode_body(scenario, slot, &value)?;
            staged.insert(slot, Some(Retained { value, bits }));
        }
        let mut changed: BTreeSet<ClientRef> = staged
            .iter()
            .filter(|(slot, r)| {
                let held = self.bodies.get(slot).map(|h| &h.bits);
                held != r.as_ref().map(|r| &r.bits)
            })
            .map(|(slot, _)| *slot)
            .collect();
        for (slot, retained) in staged {
            match retained {
                Some(r) => self.bodies.insert(slot, r),
                None => self.bodies.remove(&slot),
            };
        }
        for key in retiring.into_iter().filter(|k| self.retired.insert(*k)) {
            // the group's slots leave the roster: each is a change its members are owed
            changed.extend(slots_of(scenario, key));
            self.bodies.retain(|slot, _| slot.key != key);
        }
        if !changed.is_empty() {
            self.revision += 1;
        }
        Ok(changed)
    }
}

impl WorldRequest {
    /// The slot the request changes the body of, if it changes one.
    fn slot(&self) -> Option<ClientRef> {
        match self {
            WorldRequest::SetAuth { slot, .. }
            | WorldRequest::SetAuthField { slot, .. }
            | WorldRequest::ClearAuth { slot } => Some(*slot),
            _ => None,
        }
    }
}

/// `key` when the scenario has a group of that key that may be retired: any but the one
/// carrying the player key.
fn retire_check(scenario: &Scenario, key: u32) -> Result<u32, RequestError> {
    let mut groups = scenario.objects.iter();
    if groups
        .clone()
        .find(|o| o.bubble.is_none())
        .is_some_and(|o| o.key == key)
    {
        return Err(RequestError::PlayerGroup(key));
    }
    groups
        .find(|o| o.key == key)
        .map(|o| o.key)
        .ok_or(RequestError::UnknownGroup(key))
}

/// Every slot of the group `key`.
fn slots_of(scenario: &Scenario, key: u32) -> Vec<ClientRef> {
    let group = scenario.objects.iter().filter(|o| o.key == key);
    group
        .flat_map(|o| o.slots.iter())
        .map(|s| ClientRef {
            key,
            slot_type: s.slot_type,
            index: s.index,
        })
        .collect()
}

/// A teleport state of 3 bits (bias 1), into a slice set of the activity's bubbles.
fn check_teleport(scenario: &Scenario, state: i8, slice_set: i16) -> Result<(), RequestError> {
    if !(-1..=6).contains(&state) {
        return Err(RequestError::Teleport(format!(
            "state {state} does not fit 3 bits with bias 1"
        )));
    }
    let bubbles = i16::from(scenario.bubble_count);
    if !(0..bubbles * 8).contains(&slice_set) {
        return Err(RequestError::Teleport(format!(
            "slice set {slice_set} is not in the activity's {bubbles} bubbles"
        )));
    }
    Ok(())
}

/// `body` with the part `field` names (a field path) set to `value`.
fn with_field(
    slot: ClientRef,
    body: &Value,
    field: &str,
    value: Value,
) -> Result<Value, RequestError> {
    let schema =
        catalog::auth(slot.slot_type).ok_or(RequestError::UnknownSchema(slot.slot_type))?;
    let mut body = body.clone();
    path::set_at(schema, &mut body, field, value).map_err(|error| RequestError::Path {
        slot_type: slot.slot_type,
        error,
    })?;
    Ok(body)
}

/// `value` encoded by `slot`'s Auth schema, once the scenario has the slot with one.
fn encode_body(scenario: &Scenario, slot: ClientRef, value: &Value) -> Result<Bits, RequestError> {
    let (_, decl) = scenario
        .schemas_of(&slot)
        .ok_or(RequestError::UnknownSlot(slot))?;
    if !decl.schemas.auth {
        return Err(RequestError::NoAuthSchema(slot));
    }
    let schema =
        catalog::auth(slot.slot_type).ok_or(RequestError::UnknownSchema(slot.slot_type))?;
    encode_bits(schema, value).map_err(|error| RequestError::Refused { slot, error })
}

#[cfg(test)]
mod tests {
    use super::*;
    use vex_wire::activity::slot::{TYPE_CHANNEL, TYPE_TIMER};

    fn slot(slot_type: i8, index: i16) -> ClientRef {
        ClientRef {
            key: 0xBBBB_0001,
            slot_type,
            index,
        }
    }

    fn rows(n: usize) -> Value {
        let row = Value::Record(vec![
            Value::Int(1),
            Value::Raw { bits: 0, width: 32 },
            Value::Raw { bits: 0, width: 32 },
        ]);
        Value::Record(vec![Value::Array(vec![row; n])])
    }

    fn timer(running: bool) -> Value {
        let zero = Value::Int(0);
        let window = vec![
            Value::Bool(running),
            zero.clone(),
            zero.clone(),
            zero.clone(),
            zero.clone(),
            zero.clone(),
            Value::Raw { bits: 0, width: 32 },
        ];
        Value::Record(vec![Value::Record(window), Value::Bool(false), zero])
    }

    /// The door refuses a body the client cannot take, and the commit applies none of
    /// its requests: a channel of five rows (T24-01: the walker would otherwise drop the
    /// fifth without a word) and a zeroed clock window (SLOT-03); four rows and a running
    /// window commit.
    #[test]
    fn bodies_the_client_cannot_take_are_refused_whole() {
        let scenario = Scenario::builtin();
        let (channel, timer_slot) = (slot(TYPE_CHANNEL, 3), slot(TYPE_TIMER, 2));
        let mut world = World::default();
        let set = |slot, body| WorldRequest::SetAuth { slot, body };
        for (what, requests) in [
            ("five rows", vec![set(channel, rows(5))]),
            (
                "a zeroed window",
                vec![set(channel, rows(4)), set(timer_slot, timer(false))],
            ),
        ] {
            assert!(
                matches!(
                    world.commit(&scenario, &requests),
                    Err(RequestError::Refused { .. })
                ),
                "{what}"
            );
            assert_eq!(world.revision(), 0, "{what}: nothing applied");
        }
        let good = [set(channel, rows(4)), set(timer_slot, timer(true))];
        assert_eq!(world.commit(&scenario, &good).map(|s| s.len()), Ok(2));
    }

    /// A cleared slot holds no body (its blocks go out reset-only) and counts as a change
    /// once; clearing one that holds none changes nothing; a slot with no Auth schema is
    /// refused, and a field set after a clear in the same commit finds no body.
    #[test]
    fn a_cleared_slot_holds_no_body() {
        let scenario = Scenario::builtin();
        let channel = slot(TYPE_CHANNEL, 3);
        let mut world = World::default();
        let clear = WorldRequest::ClearAuth { slot: channel };
        assert_eq!(
            world
                .commit(&scenario, std::slice::from_ref(&clear))
                .map(|s| s.len()),
            Ok(0)
        );
        let set = WorldRequest::SetAuth {
            slot: channel,
            body: rows(1),
        };
        world.commit(&scenario, &[set]).unwrap();
        assert_eq!(
            world
                .commit(&scenario, std::slice::from_ref(&clear))
                .map(|s| s.len()),
            Ok(1)
        );
        assert!(world.body(&channel).is_none());
        assert_eq!(world.revision(), 2);
        let field = WorldRequest::SetAuthField {
            slot: channel,
            field: "rows".into(),
            value: Value::Array(Vec::new()),
        };
        assert_eq!(
            world.commit(&scenario, &[clear, field]),
            Err(RequestError::NoBody(channel))
        );
        let no_auth = ClientRef {
            key: 0xAAAA_0001,
            slot_type: 99,
            index: 0,
        };
        assert!(matches!(
            world.commit(&scenario, &[WorldRequest::ClearAuth { slot: no_auth }]),
            Err(RequestError::NoAuthSchema(_))
        ));
    }
}
