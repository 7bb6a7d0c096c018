//! The typed codecs of the bodies the host sends and the schema walker agree, bit for bit,
//! on generated values (issue 12: the walker stays the reference the typed codecs are
//! tested against), and so do the client's requests that have one (18, 21, 37, 38). For each
//! body: the typed bytes are the walker's bytes for the same field values, the walker
//! reads the typed bytes back to those values, and the typed decoder reads the walker's
//! bytes back to the typed value. Messages 5 and 12 have no
//! walker schema (the pages give their layouts only as facts 4.7 and 4.10); they are held
//! by the facts vectors and their own round trips.

use super::messages::{
    ADVANCE_REPLICATION_EPOCH, BUBBLE_HOST_STATE, CONNECTIVITY_FAILURE, ENTITY_SLOTS_ALLOCATED,
    FREE_ENTITY_INDICES, GLOBAL_ACTIVITY_STATE, INCIDENT, JOIN_REQUEST, JOIN_RESULT,
    MEMBERSHIP_ACKNOWLEDGEMENT, SELECTION_DESCRIPTOR, STATE_REFRESH, WORLD_GLOBALS_STATE,
};
use super::{Schema, Value, decode, encode_bits};
use crate::activity::body::Body;
use crate::activity::global_state::{GlobalActivityState, MAX_BUBBLES};
use crate::activity::incident::Incident;
use crate::activity::join::{JOIN_REQUEST_BITS, JoinResult, SESSION_NAME_CHARS};
use crate::activity::join::{WORKSPACE_NAME_CHARS, text_field};
use crate::activity::selection::SelectionDescriptor;
use crate::activity::small::{
    AdvanceEpoch, BubbleHostState, ConnectivityFailure, EntitySlotMask, MembershipAcknowledgement,
    SLOT_MASK_LEN, StateRefresh, WorldGlobals,
};
use crate::bits::{BitReader, written};
use crate::vectors::global_state_example;
use proptest::prelude::*;
use std::fmt::Debug;

fn int(v: impl Into<i128>) -> Value {
    Value::Int(v.into())
}

fn ints<T: Copy + Into<i128>>(v: &[T]) -> Value {
    Value::Array(v.iter().map(|x| int(*x)).collect())
}

/// `width` zero bits as the walker holds a [`super::Kind::Bits`] field.
fn zero_bits(width: usize) -> Value {
    Value::Bits(vec![0; width.div_ceil(8)])
}

/// The three ways round: typed bytes = walker bytes of `value`, the walker reads the
/// typed bytes as `value`, and the typed decoder reads the walker's bytes as `typed`.
fn agree<B>(schema: &Schema, typed: &B, value: &Value) -> Result<(), TestCaseError>
where
    B: Body,
    B::Decoded: PartialEq<B> + Debug,
    B: Debug,
{
    let typed_bytes = typed
        .encode()
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let walker = encode_bits(schema, value).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let (walker_bits, walker_bytes) = (walker.bit_len, walker.bytes);
    prop_assert_eq!(
        typed.measure().ok(),
        Some(walker_bits),
        "{}: bit length",
        schema.name
    );
    prop_assert_eq!(
        hex(&typed_bytes),
        hex(&walker_bytes),
        "{}: typed and walker bytes",
        schema.name
    );
    let read = decode(schema, &mut BitReader::new(&typed_bytes));
    prop_assert_eq!(
        read.as_ref().ok(),
        Some(value),
        "{}: the walker reads",
        schema.name
    );
    let back = B::decode(&walker_bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(&back, typed, "{}: the typed decoder reads", schema.name);
    Ok(())
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// `width` bits of `r` as the walker holds a [`super::Kind::Bits`] field.
fn bits_of(r: &mut BitReader<'_>, width: usize) -> Value {
    let bytes = written(|w| {
        let mut left = width;
        while left > 0 {
            let n = left.min(64) as u32;
            w.write(r.read(n).unwrap_or(0), n);
            left -= n as usize;
        }
    });
    Value::Bits(bytes.unwrap_or_default())
}

/// The walker's value of a join_request record kept as its 570 bits.
fn request_value(record: &[u8]) -> Value {
    let mut r = BitReader::with_bit_len(record, JOIN_REQUEST_BITS);
    let nonce = r.read(32).unwrap_or(0);
    let host_id = r.read(64).unwrap_or(0);
    let key: Vec<u8> = (0..8).map(|_| r.read(8).unwrap_or(0) as u8).collect();
    let unnamed_160 = bits_of(&mut r, 170);
    let character_id = r.read(64).unwrap_or(0);
    let unnamed_394 = bits_of(&mut r, 176);
    Value::Record(vec![
        int(nonce),
        int(host_id),
        ints(&key),
        unnamed_160,
        int(character_id),
        unnamed_394,
    ])
}

fn join_result_value(j: &JoinResult) -> Value {
    Value::Record(vec![
        request_value(&j.request),
        int(j.result),
        ints(&j.session_name),
        int(j.process_id),
        int(j.return_code),
        int(j.handoff_nonce),
        int(j.clock_base),
        int(j.initial_epoch),
        int(j.peer_heard_window_ms),
        int(j.keepalive_interval_ms),
        zero_bits(2208),
        ints(&j.workspace_name),
    ])
}

fn global_state_value(g: &GlobalActivityState) -> Value {
    let descriptor = SelectionDescriptor::from_bits(&g.descriptor)
        .map(|_| decode(&SELECTION_DESCRIPTOR, &mut g.descriptor.reader()));
    let Ok(Ok(descriptor)) = descriptor else {
        return Value::Absent;
    };
    Value::Record(vec![
        Value::Bool(g.arm_initial_slice_set),
        zero_bits(66),
        int(g.bubble_count),
        ints(&g.bubble_states),
        int(g.initial_slice_set),
        int(g.spawn_set_hash),
        zero_bits(33),
        descriptor,
        zero_bits(103),
    ])
}

fn incident_value(i: &Incident) -> Value {
    Value::Record(vec![
        int(i.definition),
        ints(&i.targets),
        Value::Absent,
        Value::Absent,
        ints(&i.payload),
    ])
}

fn text(max: usize, chars: usize) -> impl Strategy<Value = Vec<i8>> {
    proptest::collection::vec(any::<i8>(), 0..=max).prop_map(move |mut v| {
        v.resize(chars, 0);
        v
    })
}

prop_compose! {
    fn join_result()(
        mut request in proptest::collection::vec(any::<u8>(), JOIN_REQUEST_BITS.div_ceil(8)),
        result in -1i8..=6,
        session_name in text(20, SESSION_NAME_CHARS),
        process_id in any::<u32>(),
        return_code in any::<i32>(),
        handoff_nonce in any::<u32>(),
        clock_base in any::<u64>(),
        initial_epoch in any::<u8>(),
        peer_heard_window_ms in any::<u16>(),
        keepalive_interval_ms in any::<u16>(),
        workspace_name in text(40, WORKSPACE_NAME_CHARS),
    ) -> JoinResult {
        if let Some(last) = request.last_mut() {
            *last &= 0xFF << (8 - JOIN_REQUEST_BITS % 8); // the bits past 570 are not echoed
        }
        JoinResult {
            request, result, session_name, process_id, return_code, handoff_nonce, clock_base,
            initial_epoch, peer_heard_window_ms, keepalive_interval_ms, workspace_name,
        }
    }
}

prop_compose! {
    fn global_state()(
        arm_initial_slice_set in any::<bool>(),
        bubble_count in any::<i32>(),
        states in proptest::collection::vec(any::<u8>(), MAX_BUBBLES),
        initial_slice_set in -1i16..=1022,
        spawn_set_hash in any::<u32>(),
    ) -> GlobalActivityState {
        let mut bubble_states = [0u8; MAX_BUBBLES];
        bubble_states.copy_from_slice(&states);
        GlobalActivityState {
            arm_initial_slice_set,
            bubble_count,
            bubble_states,
            initial_slice_set,
            spawn_set_hash,
            ..global_state_example()
        }
    }
}

prop_compose! {
    fn incident()(
        definition in (0u16..7763).prop_filter("a crashing row", |d| ![795, 4690, 5375].contains(d)),
        targets in proptest::collection::vec(0u16..7763, 0..=25),
        payload in proptest::collection::vec(any::<u8>(), 0..=500),
    ) -> Incident {
        Incident { definition, targets, payload }
    }
}

proptest! {
    #[test]
    fn message_4_join_result(j in join_result()) {
        agree(&JOIN_RESULT, &j, &join_result_value(&j))?;
    }

    #[test]
    fn message_0_entity_slots(mask in proptest::collection::vec(any::<u8>(), SLOT_MASK_LEN)) {
        let value = Value::Record(vec![Value::Bits(mask.clone())]);
        agree(&ENTITY_SLOTS_ALLOCATED, &EntitySlotMask(mask), &value)?;
    }

    #[test]
    fn message_1_global_state(g in global_state()) {
        agree(&GLOBAL_ACTIVITY_STATE, &g, &global_state_value(&g))?;
    }

    #[test]
    fn message_2_world_globals(flag in any::<bool>(), bits in any::<u32>()) {
        let typed = WorldGlobals { flag, tick_ms: f32::from_bits(bits) };
        let value = Value::Record(vec![Value::Bool(flag), Value::Raw { bits: bits.into(), width: 32 }]);
        prop_assume!(!f32::from_bits(bits).is_nan()); // NaN is not equal to itself
        agree(&WORLD_GLOBALS_STATE, &typed, &value)?;
    }

    #[test]
    fn message_54_bubble_host_state(row_count in 0u8..=32) {
        let value = Value::Record(vec![int(row_count)]);
        agree(&BUBBLE_HOST_STATE, &BubbleHostState { row_count }, &value)?;
    }

    #[test]
    fn message_19_incident(i in incident()) {
        agree(&INCIDENT, &i, &incident_value(&i))?;
    }

    #[test]
    fn message_18_state_refresh(membership_revision in any::<u32>(), bubble in any::<i32>()) {
        let value = Value::Record(vec![int(membership_revision), int(bubble)]);
        agree(&STATE_REFRESH, &StateRefresh { membership_revision, bubble }, &value)?;
    }

    #[test]
    fn message_21_free_entity_slots(mask in proptest::collection::vec(any::<u8>(), SLOT_MASK_LEN)) {
        let value = Value::Record(vec![Value::Bits(mask.clone())]);
        agree(&FREE_ENTITY_INDICES, &EntitySlotMask(mask), &value)?;
    }

    #[test]
    fn message_38_membership_acknowledgement(revision in any::<u32>()) {
        let value = Value::Record(vec![int(revision)]);
        agree(&MEMBERSHIP_ACKNOWLEDGEMENT, &MembershipAcknowledgement { revision }, &value)?;
    }

    #[test]
    fn message_37_connectivity_failure(peer_key in any::<u64>(), reason in 0u8..4) {
        let value = Value::Record(vec![int(peer_key), int(reason)]);
        agree(&CONNECTIVITY_FAILURE, &ConnectivityFailure { peer_key, reason }, &value)?;
    }

    #[test]
    fn message_44_advance_epoch(epoch in any::<u8>(), abort in any::<bool>()) {
        let value = Value::Record(vec![int(epoch), Value::Bool(abort)]);
        agree(&ADVANCE_REPLICATION_EPOCH, &AdvanceEpoch { epoch, abort }, &value)?;
    }
}

/// The join_request record the walker reads is the one the typed join_result echoes.
#[test]
fn the_echoed_request_is_the_join_request_schema() {
    let request = crate::activity::join::JoinRequest::new(0x1122_3344, 0x9EAA, 0x0102, 0x0304);
    let read = decode(&JOIN_REQUEST, &mut BitReader::new(&request.record)).ok();
    assert_eq!(read, Some(request_value(&request.record)));
    assert_eq!(text_field("ab", 3), [97, 98, 0]);
}
