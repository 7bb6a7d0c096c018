//! Faults in message 5: edits of the typed body, and bit surgery on the encoded body for
//! what the encoders refuse to commit (a type-17 state of 11, a remainder one bit long).
//! Used only by the [`crate::HostPlan`].

use crate::fault::Fault;
use crate::plan::HostPlan;
use crate::variation::Variation;
use vex_wire::activity::auth::AuthBody;
use vex_wire::activity::auth::lifetime::{CURRENT_BUBBLE_BIT, MAX_SWITCHES, SWITCH_COUNT_BIT};
use vex_wire::activity::auth::participation::ParticipationAuth;
use vex_wire::activity::body::Body;
use vex_wire::activity::sensor_auth::{
    AUTHORITY_BUBBLES, AuthPart, BubbleAuthority, DecodedObject, OBJECT_HEAD_BITS, ObjectBlock,
    SensorAuthUpdate,
};
use vex_wire::activity::slot::{
    CLIENT_REF_BITS, ClientRef, NEVER_DESCRIBED, TYPE_CHANNEL, TYPE_CONFIGURATION, TYPE_GHOST_LINK,
    TYPE_LIFETIME, TYPE_OBJECTIVE, TYPE_PARTICIPATION, TYPE_TIMER,
};
use vex_wire::bits::{BitReader, Bits, I32_BIAS};
use vex_wire::schema::measure::min_bits;
use vex_wire::schema::path::set_at;
use vex_wire::schema::tables::{ACTIVITY_TIMER, LIFETIME, OBJECTIVE};
use vex_wire::schema::{Schema, Value, decode, encode_bits};
use vex_wire::tag::FNV1_EMPTY;

/// Overwrites `width` bits at bit `at` of `bytes` with the low bits of `value`.
fn patch(bytes: &mut [u8], at: usize, width: usize, value: u64) {
    for i in 0..width {
        let bit = (value >> (width - 1 - i)) & 1 == 1;
        let pos = at + i;
        if let Some(b) = bytes.get_mut(pos / 8) {
            let mask = 0x80 >> (pos % 8);
            if bit {
                *b |= mask;
            } else {
                *b &= !mask;
            }
        }
    }
}

/// SEED-03: the type-13 body that carries the player key, on the key group's first
/// type-13 slot, copied onto the `more` type-13 slots after it in the message (all of them:
/// Sunrise's `rosterKeyOnAllSlots` option, facts 4.8).
fn key_on_participation_slots(m: &mut SensorAuthUpdate, more: usize) {
    let keyed = |o: &ObjectBlock| {
        (o.slot.slot_type == TYPE_PARTICIPATION)
            .then(|| o.auth.clone())
            .flatten()
            .filter(|a| a.body.is_some())
    };
    let mut objects = m.groups.iter_mut().flat_map(|g| &mut g.objects);
    let Some(key) = objects.by_ref().find_map(|o| keyed(o)) else {
        return;
    };
    for o in objects
        .filter(|o| o.slot.slot_type == TYPE_PARTICIPATION)
        .take(more)
    {
        o.auth = Some(key.clone());
    }
}

/// HOST-05: the type-13 body that carries the player key names slice set 0, where the
/// built-in scenario arrives, whatever region the member reported.
fn stale_participation_region(m: &mut SensorAuthUpdate) {
    let bodies = m.groups.iter_mut().flat_map(|g| &mut g.objects);
    let keyed = bodies
        .filter(|o| o.slot.slot_type == TYPE_PARTICIPATION)
        .filter_map(|o| o.auth.as_mut()?.body.as_mut());
    for body in keyed {
        if let Ok(mut p) = ParticipationAuth::read(&mut body.reader())
            && p.player_key.is_some()
        {
            p.region = Some(0);
            if let Ok(bits) = AuthBody::Participation(p).to_bits() {
                *body = bits;
            }
        }
    }
}

/// The index of the slot [`Fault::UnknownSlotBlock`] publishes: past every placed object's.
const UNKNOWN_SLOT_INDEX: i16 = 999;

/// The hash of a spawn point that is on, which [`Fault::SpawnPairIndexOffOnly`] pairs with
/// the off index.
const REAL_SPAWN_HASH: u32 = 0x1234_5678;

/// The index of the slot a descriptorless block names (SLOT-02).
const DESCRIPTORLESS_INDEX: i16 = 9;

/// How far [`Fault::WrongRemainderLast`] moves the last block's remainder.
const REMAINDER_OFF: u32 = 8;

/// Applies the message-5 faults of `plan` that the typed body can express.
pub fn roster_faults(plan: &HostPlan, m: &mut SensorAuthUpdate) {
    if plan.has(Fault::UnresolvableRef)
        && let Some(o) = m.groups.first_mut().and_then(|g| g.objects.first_mut())
    {
        o.slot.index = -1; // SLOT-01
    }
    if plan.has(Fault::UnresolvableType)
        && let Some(o) = m.groups.first_mut().and_then(|g| g.objects.first_mut())
    {
        o.slot.slot_type = -1; // SLOT-01
    }
    if plan.has(Fault::KeyOnAllParticipationSlots) {
        key_on_participation_slots(m, usize::MAX);
    }
    if plan.has(Fault::KeyOnSecondParticipationSlot) {
        key_on_participation_slots(m, 1);
    }
    if plan.has(Fault::StaleParticipationRegion) {
        stale_participation_region(m);
    }
    if plan.has(Fault::UnknownSlotBlock)
        && let Some(g) = m.groups.first_mut()
    {
        // AUTH-05: a configuration slot no placed object declares
        g.objects
            .push(reset_only(g.key, TYPE_CONFIGURATION, UNKNOWN_SLOT_INDEX));
    }
    let descriptorless = [
        (Fault::DescriptorlessType, NEVER_DESCRIBED.first()),
        (Fault::DescriptorlessTypeLast, NEVER_DESCRIBED.last()),
    ];
    for (_, slot_type) in descriptorless.into_iter().filter(|(f, _)| plan.has(*f)) {
        if let (Some(&slot_type), Some(g)) = (slot_type, m.groups.first_mut()) {
            // SLOT-02: a type that never has a descriptor
            g.objects
                .push(reset_only(g.key, slot_type, DESCRIPTORLESS_INDEX));
        }
    }
    if plan.has(Fault::SenseBitWithoutSchema)
        && let Some(o) = block_of(m, TYPE_LIFETIME)
    {
        o.sense = Some(None); // AUTH-06: a Sense-present bit the client does not read
    }
    if plan.has(Fault::AuthBitsLeftOut)
        && let Some(o) = block_of(m, TYPE_CONFIGURATION)
    {
        o.auth = None; // AUTH-06: an Auth schema's reset and root bits left out
    }
    if plan.has(Fault::SenseBitLeftOut)
        && let Some(o) = block_of(m, TYPE_GHOST_LINK)
    {
        o.sense = None; // AUTH-06: a Sense schema's bit left out
    }
    edit_lifetime(plan, m);
    if plan.has(Fault::SecondLifetimeDiffers)
        && let Some(body) = m
            .groups
            .iter_mut()
            .flat_map(|g| &mut g.objects)
            .filter(|o| o.slot.slot_type == TYPE_LIFETIME)
            .nth(1)
            .and_then(|o| o.auth.as_mut())
            .and_then(|a| a.body.as_mut())
    {
        patch(&mut body.bytes, 0, 4, 7); // state 6 (wire 7): valid, but not the first's 3
    }
    if plan.has(Fault::ChannelRowsOverflow)
        && let Some(body) = body_of(m, TYPE_CHANNEL)
    {
        patch(&mut body.bytes, 0, 3, 5); // T24-01: the 3-bit row count says 5; four rows fit
    }
    if plan.has(Fault::ZeroedTimerWindow)
        && let Some(auth) = block_of(m, TYPE_TIMER).and_then(|o| o.auth.as_mut())
    {
        auth.body = Some(zeroed_timer()); // SLOT-03
    }
    bubble_grant_faults(plan, m);
    if plan.has(Fault::GrantBubbleZero) {
        // AUTH-12: a grant the per-bubble arm of this build never applies
        m.prefix.bubble_block = Some(BubbleAuthority::granting(0, 1));
    }
}

/// A type-18 body of zero bits: its clock window all zeros, which the encoder refuses.
fn zeroed_timer() -> Bits {
    let bit_len = min_bits(&ACTIVITY_TIMER);
    Bits {
        bytes: vec![0; bit_len.div_ceil(8)],
        bit_len,
    }
}

/// The AUTH-11 faults, on the bubble-64 element of the block that grants it, or on every
/// later roster a block renewing it.
fn bubble_grant_faults(plan: &HostPlan, m: &mut SensorAuthUpdate) {
    const GRANTED: usize = AUTHORITY_BUBBLES - 1;
    let Some(block) = m.prefix.bubble_block.as_mut() else {
        if plan.has(Fault::BubbleGrantRenewed) {
            // a token other than the first grant's 1, with the bit set
            m.prefix.bubble_block = Some(BubbleAuthority::granting(GRANTED, 7));
        }
        return;
    };
    if plan.has(Fault::BubbleHeaderSet) {
        block.header = Some(0);
    }
    if plan.has(Fault::BubbleHostTokenSet) {
        block.set_host_token(GRANTED, Some(0));
    }
    if plan.has(Fault::BubbleBitWithoutToken) {
        block.set_grant(GRANTED, None);
    }
    if plan.has(Fault::BubbleTokenSpent) {
        block.set_authority(GRANTED, false);
    }
    if plan.has(Fault::BubbleTokenZero) {
        block.set_grant(GRANTED, Some(0));
    }
    if plan.varies(Variation::BubbleTokenTop) {
        block.set_grant(GRANTED, Some(u16::MAX));
    }
}

/// A block of slot `(key, slot_type, index)` with a reset-only Auth body.
fn reset_only(key: u32, slot_type: i8, index: i16) -> ObjectBlock {
    ObjectBlock {
        slot: ClientRef {
            key,
            slot_type,
            index,
        },
        auth: Some(AuthPart {
            reset: true,
            body: None,
        }),
        sense: None,
    }
}

/// The first block of `slot_type` in `m`.
fn block_of(m: &mut SensorAuthUpdate, slot_type: i8) -> Option<&mut ObjectBlock> {
    m.groups
        .iter_mut()
        .flat_map(|g| &mut g.objects)
        .find(|o| o.slot.slot_type == slot_type)
}

/// The Auth body of the first block of `slot_type` in `m`, when one carries a body.
fn body_of(m: &mut SensorAuthUpdate, slot_type: i8) -> Option<&mut Bits> {
    block_of(m, slot_type)
        .and_then(|o| o.auth.as_mut())
        .and_then(|a| a.body.as_mut())
}

/// T3-02: the objective's reset generation set to `sent`, the link's message 5 count,
/// so it moves on every send while the objectives stay.
pub fn generation_on_every_send(m: &mut SensorAuthUpdate, sent: u32) {
    if let Some(body) = body_of(m, TYPE_OBJECTIVE) {
        let generation = Value::Int(i128::from(sent));
        edit_by_name(&OBJECTIVE, body, vec![("generation", generation)]);
    }
}

/// The type-3 faults on the message 5 answering a snapshot request: objective 0's byte,
/// the whole objective array or the reset generation left out, which the next message 5
/// sends again (T3-01, T3-02).
pub fn snapshot_objective(plan: &HostPlan, m: &mut SensorAuthUpdate) {
    let edits = chosen(
        plan,
        [
            (
                Fault::SnapshotDropsObjective,
                "objective[0].value",
                Value::Absent,
            ),
            (
                Fault::SnapshotDropsObjectiveArray,
                "objective",
                Value::Absent,
            ),
            (Fault::SnapshotDropsGeneration, "generation", Value::Absent),
        ],
    );
    if let Some(body) = body_of(m, TYPE_OBJECTIVE) {
        edit_by_name(&OBJECTIVE, body, edits);
    }
}

/// The `(path, value)` edits whose fault is in `plan`.
fn chosen<const N: usize>(
    plan: &HostPlan,
    edits: [(Fault, &'static str, Value); N],
) -> Vec<(&'static str, Value)> {
    (edits.into_iter())
        .filter(|(fault, ..)| plan.has(*fault))
        .map(|(_, path, value)| (path, value))
        .collect()
}

/// `body`, a body of `schema`, with each field `edits` names by its path set to its value;
/// left as it was when there is no edit, it does not decode, a path names nothing it holds
/// or the edited body does not encode.
fn edit_by_name(schema: &'static Schema, body: &mut Bits, edits: Vec<(&str, Value)>) {
    if edits.is_empty() {
        return;
    }
    let Ok(mut value) = decode(schema, &mut body.reader()) else {
        return;
    };
    for (path, new) in edits {
        if set_at(schema, &mut value, path, new).is_err() {
            return;
        }
    }
    if let Ok(bits) = encode_bits(schema, &value) {
        *body = bits;
    }
}

/// The type-17 faults on every type-17 body: fields set to what breaks T17-04, T17-07,
/// T17-08, T17-09 or SEED-05, or the body cut one bit short (T17-02); the encoder computes
/// the remainder.
fn edit_lifetime(plan: &HostPlan, m: &mut SensorAuthUpdate) {
    let bodies = m
        .groups
        .iter_mut()
        .flat_map(|g| &mut g.objects)
        .filter(|o| o.slot.slot_type == TYPE_LIFETIME)
        .filter_map(|o| o.auth.as_mut().and_then(|a| a.body.as_mut()));
    for body in bodies {
        edit_one_lifetime(plan, body);
    }
}

/// One type-17 body of [`edit_lifetime`]: every type-17 slot gets the same (T17-05).
fn edit_one_lifetime(plan: &HostPlan, body: &mut Bits) {
    if plan.has(Fault::LifetimeBodyShort) {
        body.bit_len -= 1; // T17-02
        return;
    }
    let pair =
        |index: i128, hash: u32| Value::Record(vec![Value::Int(index), Value::Int(hash.into())]);
    let edits = chosen(
        plan,
        [
            // SEED-05: a safe state the spawn gate does not accept
            (Fault::LifetimeStateFour, "state", Value::Int(4)),
            (
                Fault::JoinFlagZero,
                "join_flag_inverted",
                Value::Bool(false),
            ), // T17-07
            // T17-08: our host owns no authored phase
            (
                Fault::CycleOverrideWithoutPhase,
                "cycle_override_on",
                Value::Bool(true),
            ),
            // T17-09: zero bits on the wire, not the neutral -1; or past the 64 records
            (
                Fault::SelectionIdZeroBits,
                "selection_id",
                Value::Int(i32::MIN.into()),
            ),
            (Fault::SelectionIdPast63, "selection_id", Value::Int(64)),
            // T17-04: off by its hash alone (index 0, wire 1), or by its index alone
            (
                Fault::SpawnPairHalfOff,
                "spawn_override[1]",
                pair(0, FNV1_EMPTY),
            ),
            (
                Fault::SpawnPairIndexOffOnly,
                "spawn_override[1]",
                pair(-1, REAL_SPAWN_HASH),
            ),
        ],
    );
    edit_by_name(&LIFETIME, body, edits);
}

/// The faults [`sensor_auth`] writes into a message-5 body.
const BODY_FAULTS: [Fault; 8] = [
    Fault::WrongRemainder,
    Fault::WrongRemainderLast,
    Fault::LifetimeStateEleven,
    Fault::LifetimeBubbleAsSliceSet,
    Fault::LifetimeBubbleZeroBits,
    Fault::SwitchListOverflow,
    Fault::DefinitionRefsOverflow,
    Fault::SingletonGateSet,
];

/// Applies the message-5 faults and variations of `plan` to an encoded body; a plan with
/// none of them leaves the body unread (every message 5 the host sends passes here).
pub fn sensor_auth(plan: &HostPlan, body: &mut [u8]) {
    if BODY_FAULTS.iter().any(|f| plan.has(*f)) || plan.varies(Variation::CurrentBubbleKept) {
        apply_body_faults(plan, body);
    }
}

/// [`sensor_auth`]'s work, for a plan with one of its faults.
fn apply_body_faults(plan: &HostPlan, body: &mut [u8]) {
    let Ok(m) = SensorAuthUpdate::decode(body) else {
        return;
    };
    let objects = m.groups.iter().flat_map(|g| &g.objects);
    if plan.has(Fault::WrongRemainder)
        && let Some(first) = objects.clone().next()
    {
        // AUTH-05: one bit more than the block holds
        let at = first.at + 1 + CLIENT_REF_BITS;
        patch(body, at, 32, u64::from(first.remainder) + 1);
    }
    if plan.has(Fault::WrongRemainderLast)
        && let Some(last) = objects.clone().last()
    {
        // AUTH-05 on the message's last block: 8 bits fewer than it holds (8 more for a
        // shorter block), past what a block written for other schemas explains (AUTH-06:
        // 1 to 3 flag bits), whatever the slot's schemas
        let at = last.at + 1 + CLIENT_REF_BITS;
        let wrong = match last.remainder.checked_sub(REMAINDER_OFF) {
            Some(fewer) => fewer,
            None => last.remainder + REMAINDER_OFF,
        };
        patch(body, at, 32, u64::from(wrong));
    }
    for lifetime in objects.filter(|o| o.slot.slot_type == TYPE_LIFETIME) {
        patch_lifetime(plan, body, lifetime);
    }
    if plan.has(Fault::SingletonGateSet) {
        patch(body, m.gate_at, 1, 1); // AUTH-17
    }
}

/// One type-17 block of [`sensor_auth`]: every type-17 slot gets the same (T17-05).
fn patch_lifetime(plan: &HostPlan, body: &mut [u8], lifetime: &DecodedObject) {
    let body_at = lifetime.at + OBJECT_HEAD_BITS + 2; // after the reset and root bits
    if plan.has(Fault::LifetimeStateEleven) {
        patch(body, body_at, 4, 12); // T17-01: state 11 is wire 12
    }
    let at = body_at + CURRENT_BUBBLE_BIT;
    let bias = I32_BIAS as u64;
    if plan.has(Fault::LifetimeBubbleAsSliceSet) {
        // T17-06: the slice set (the bubble times 8)
        let mut r = BitReader::new(body);
        let bubble = r
            .skip(at)
            .and_then(|()| r.read(32))
            .map_or(0, |b| b.wrapping_sub(bias));
        patch(body, at, 32, (bubble * 8).wrapping_add(bias));
    }
    if plan.has(Fault::LifetimeBubbleZeroBits) {
        patch(body, at, 32, 0); // T17-06: zero bits decode to INT32_MIN
    }
    if plan.varies(Variation::CurrentBubbleKept) {
        // the activity's current bubble stays the arrival bubble, 0, whoever moves
        patch(body, at, 32, bias);
    }
    if plan.has(Fault::SwitchListOverflow) {
        patch(body, body_at + SWITCH_COUNT_BIT, 6, MAX_SWITCHES as u64 + 1); // T17-03
    }
    if plan.has(Fault::DefinitionRefsOverflow) {
        // BODY-05: the 3-bit count at the end of the body says 7; the array holds 6. The
        // count is the body's last field only because the host sends no definition refs.
        let mut r = lifetime.content.reader();
        let end = r.skip(2).ok().and_then(|()| decode(&LIFETIME, &mut r).ok());
        if end.is_some() {
            let count_at = lifetime.at + OBJECT_HEAD_BITS + r.position() - 3;
            patch(body, count_at, 3, 7);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vex_wire::activity::body::Body;

    /// No fault that changes a message-5 body is left out of the list that lets a body
    /// through unread.
    #[test]
    fn every_fault_that_writes_a_body_is_listed() {
        let sample = vex_wire::vectors::sensor_auth_full_example()
            .encode()
            .unwrap();
        for fault in Fault::ALL {
            let mut body = sample.clone();
            apply_body_faults(&HostPlan::single(*fault), &mut body);
            if body != sample {
                assert!(BODY_FAULTS.contains(fault), "{fault:?} changes the body");
            }
        }
    }

    #[test]
    fn patch_sets_bits_across_bytes() {
        let mut b = [0u8; 3];
        patch(&mut b, 6, 4, 0b1011);
        assert_eq!(b, [0b0000_0010, 0b1100_0000, 0]);
        patch(&mut b, 6, 4, 0);
        assert_eq!(b, [0; 3]);
    }
}
