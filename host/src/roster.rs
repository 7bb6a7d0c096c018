//! The host's state bodies, built from the scenario and the link's binding: message 1 and
//! message 5 (the roster of the current bubble and its Auth bodies).
//!
//! AH "global_activity_state", "Message 5", "Type 17"; SR "Auth state goes out";
//! facts 4.5, 4.7, 4.8, 4.10.

use crate::policy::RosterInputs;
use crate::world::World;
use vex_wire::activity::auth::AuthBody;
use vex_wire::activity::auth::lifetime::LifetimeAuth;
use vex_wire::activity::auth::participation::ParticipationAuth;
use vex_wire::activity::global_state::{
    BUBBLE_ENABLED, BUBBLE_SKIPPED, GlobalActivityState, MAX_BUBBLES,
};
use vex_wire::activity::join::JoinRequest;
use vex_wire::activity::selection::DescriptorBits;
use vex_wire::activity::sensor_auth::{
    AuthPart, AuthPrefix, EntityGroup, ObjectBlock, RosterDelta, SUB_MASK_WORDS, SensorAuthUpdate,
    SubBlock, TOP_MASK_WORDS,
};
use vex_wire::activity::slot::{ClientRef, TYPE_CONFIGURATION, TYPE_LIFETIME, TYPE_PARTICIPATION};
use vex_wire::bits::{BitError, Bits};
use vex_wire::scenario::{PlacedObject, Scenario};
use vex_wire::schema::tables::LIFETIME;
use vex_wire::schema::{Value, encode_bits};

/// The index of current_bubble among the type-17 fields (AH "Type 17").
const LIFETIME_CURRENT_BUBBLE: usize = 5;

/// The lifetime state the host publishes: 3, the live case (AH "Type 17").
pub const LIVE_STATE: i8 = 3;
/// The roster state byte's stateSequence (facts 4.7).
pub const STATE_SEQUENCE: i8 = 1;
/// The first membership revision (facts 4.10).
pub const FIRST_REVISION: u32 = 1;

/// Message 1: the scenario's bubbles and the client's own descriptor replayed exactly.
pub fn global_state(scenario: &Scenario, descriptor: &DescriptorBits) -> GlobalActivityState {
    let mut bubble_states = [BUBBLE_SKIPPED; MAX_BUBBLES];
    for s in bubble_states
        .iter_mut()
        .take(usize::from(scenario.bubble_count))
    {
        *s = BUBBLE_ENABLED;
    }
    GlobalActivityState {
        arm_initial_slice_set: true,
        bubble_count: i32::from(scenario.bubble_count),
        bubble_states,
        initial_slice_set: scenario.arrival_slice_set,
        spawn_set_hash: scenario.destination.spawn_hash.unwrap_or(0),
        descriptor: descriptor.clone(),
    }
}

/// The Auth part of one slot: a typed body for the types Vex publishes, reset-only for the
/// others (AUTH-09: reset-only installs the schema defaults).
fn auth_part(bodies: &Bodies<'_>, slot: ClientRef, key_slot: bool) -> Result<AuthPart, BitError> {
    let typed = |b: AuthBody| b.to_bits().map(Some);
    let world = bodies.world;
    let body = match (slot.slot_type, world.body(&slot)) {
        (TYPE_LIFETIME, _) => Some(bodies.lifetime.clone()),
        (TYPE_PARTICIPATION, _) if key_slot => typed(AuthBody::Participation(ParticipationAuth {
            region: Some(i32::from(bodies.region)),
            player_key: Some(bodies.join.character_id),
            sync_state: 0,
        }))?,
        (_, Some(_)) => world.body_bits(&slot).cloned(),
        (TYPE_CONFIGURATION, None) => typed(AuthBody::ConfigurationNeutral)?,
        _ => None,
    };
    Ok(AuthPart { reset: true, body })
}

/// What one member's roster is built from.
struct Bodies<'a> {
    world: &'a World,
    region: i16,
    join: &'a JoinRequest,
    /// The one type-17 body every type-17 slot gets (T17-05).
    lifetime: Bits,
}

/// The type-17 body of the roster for slice set `region`: the first type-17 slot's that
/// the host holds, in roster order, else the live default; current_bubble the member's
/// own either way (T17-05: only the first registered type-17 slot is read, so every one
/// gets the same body).
fn lifetime_body(world: &World, placed: &[&PlacedObject], region: i16) -> Result<Bits, BitError> {
    let held = placed
        .iter()
        .flat_map(|o| o.slots.iter().map(move |d| (o.key, d)))
        .filter(|(_, d)| d.slot_type == TYPE_LIFETIME)
        .find_map(|(key, d)| {
            world.body(&ClientRef {
                key,
                slot_type: d.slot_type,
                index: d.index,
            })
        });
    if let Some(held) = held {
        return lifetime_held(held, region);
    }
    let mut a = LifetimeAuth::sunrise_default(LIVE_STATE);
    // Sunrise sends 0, which raises join-policy bit 3 (AH "Type 17"; T17-07)
    a.join_flag_inverted = true;
    a.current_bubble = i32::from(bubble_of(region));
    AuthBody::Lifetime(a).to_bits()
}

/// The type-17 body the host holds, with current_bubble the member's own: the bubble of
/// `region` (T17-06).
fn lifetime_held(held: &Value, region: i16) -> Result<Bits, BitError> {
    let mut body = held.clone();
    if let Value::Record(fields) = &mut body
        && let Some(f) = fields.get_mut(LIFETIME_CURRENT_BUBBLE)
    {
        *f = Value::Int(i128::from(bubble_of(region)));
    }
    encode_bits(&LIFETIME, &body).map_err(|_| BitError::Unsafe {
        what: "the type-17 body the host holds",
        value: 0,
    })
}

fn group(
    bodies: &Bodies<'_>,
    object: &PlacedObject,
    carries_key: bool,
) -> Result<EntityGroup, BitError> {
    let mut key_given = !carries_key;
    let mut objects = Vec::with_capacity(object.slots.len());
    for decl in &object.slots {
        let slot = ClientRef {
            key: object.key,
            slot_type: decl.slot_type,
            index: decl.index,
        };
        let key_slot = !key_given && decl.slot_type == TYPE_PARTICIPATION;
        key_given |= key_slot;
        objects.push(ObjectBlock {
            slot,
            auth: if decl.schemas.auth {
                Some(auth_part(bodies, slot, key_slot)?)
            } else {
                None
            },
            sense: decl.schemas.sense.then_some(None),
        });
    }
    Ok(EntityGroup {
        key: object.key,
        filler: 0,
        objects,
    })
}

/// The bubble of slice set `region`: the slice set divided by 8 (AH "Type 17":
/// current_bubble "is the selected region divided by 8").
pub fn bubble_of(region: i16) -> u8 {
    u8::try_from(region.max(0) / 8).unwrap_or(u8::MAX)
}

/// Message 5 for the bubble of slice set `region`, where the member stands: the top-level
/// groups, the bubble's sub-block, and an object block for every slot, so the
/// all-or-nothing apply succeeds (AUTH-08), each with the body the host holds (AUTH-09).
/// Only the first top-level group carries the player key (facts 4.7).
pub fn sensor_auth(inputs: &RosterInputs<'_>) -> Result<SensorAuthUpdate, BitError> {
    let RosterInputs {
        scenario,
        join,
        region,
        world,
        epoch,
    } = *inputs;
    let (top, local) = placed(scenario, bubble_of(region));
    let all: Vec<&PlacedObject> = top
        .iter()
        .chain(&local)
        .copied()
        .filter(|o| !world.is_retired(o.key))
        .collect();
    let bodies = Bodies {
        world,
        region,
        join,
        lifetime: lifetime_body(world, &all, region)?,
    };
    let mut groups = Vec::with_capacity(all.len());
    for (i, o) in all.iter().enumerate() {
        groups.push(group(&bodies, o, i == 0)?);
    }
    Ok(SensorAuthUpdate {
        prefix: AuthPrefix::echoing(epoch),
        roster: Some(roster_delta(scenario, bubble_of(region), world)),
        groups,
    })
}

/// Message 5 answering a leave (AH "peer_leave_request, message 15"; LEAVE-01): every
/// key and state byte of the roster of slice set `region` kept, every presence bit clear,
/// roster enable set, no Auth body and no grant.
pub fn leave_delta(scenario: &Scenario, region: i16, epoch: [u64; 2]) -> SensorAuthUpdate {
    let mut roster = roster_delta(scenario, bubble_of(region), World::empty());
    roster.mask = [0; TOP_MASK_WORDS];
    for s in roster.sub_blocks.iter_mut().flatten() {
        s.mask = [0; SUB_MASK_WORDS];
    }
    SensorAuthUpdate {
        prefix: AuthPrefix::echoing(epoch),
        roster: Some(roster),
        groups: Vec::new(),
    }
}

/// The objects message 5 registers: the top-level ones, then `bubble`'s.
fn placed(scenario: &Scenario, bubble: u8) -> (Vec<&PlacedObject>, Vec<&PlacedObject>) {
    let of_bubble = |b: Option<u8>| {
        scenario
            .objects
            .iter()
            .filter(move |o| o.bubble == b)
            .collect()
    };
    (of_bubble(None), of_bubble(Some(bubble)))
}

/// The roster delta registering [`placed`]: the top-level keys, and a sub-block of
/// `bubble`'s keys; a group `world` retired keeps its key and state byte, its presence
/// bit clear.
fn roster_delta(scenario: &Scenario, bubble: u8, world: &World) -> RosterDelta {
    let (top, local) = placed(scenario, bubble);
    let keys = |objects: &[&PlacedObject]| objects.iter().map(|o| o.key).collect::<Vec<_>>();
    let sub_blocks = (!local.is_empty()).then(|| {
        vec![SubBlock {
            bubble: i32::from(bubble),
            keys: keys(&local),
            mask: presence(&local, world),
            states: vec![STATE_SEQUENCE; local.len()],
        }]
    });
    RosterDelta {
        keys: keys(&top),
        mask: presence(&top, world),
        states: vec![STATE_SEQUENCE; top.len()],
        sub_blocks,
    }
}

/// The presence mask of `objects`: key k at bit k % 32 of word k / 32, set unless its
/// group is retired.
fn presence<const W: usize>(objects: &[&PlacedObject], world: &World) -> [u32; W] {
    let mut mask = RosterDelta::mask_for::<W>(objects.len());
    for (i, o) in objects.iter().enumerate() {
        if world.is_retired(o.key)
            && let Some(word) = mask.get_mut(i / 32)
        {
            *word &= !(1 << (i % 32));
        }
    }
    mask
}
