//! The table against the pages' sets and counts (AH "Message ids") and the schema
//! catalog's names.

use super::*;

fn ids(keep: impl Fn(&Message) -> bool) -> Vec<u32> {
    MESSAGES.iter().filter(|m| keep(m)).map(|m| m.id).collect()
}

#[test]
fn rows_are_in_id_order() {
    assert_eq!(MESSAGES.len(), 59);
    for (i, m) in MESSAGES.iter().enumerate() {
        assert_eq!(m.id as usize, i, "row {i}");
    }
    assert!(message(MESSAGE_COUNT).is_none());
}

/// The three sets of AH "Message ids" with their counts, and the two local ids of AH
/// "The main messages"; every id is in a set.
#[test]
fn the_sets_and_their_counts() {
    let inbound = ids(Message::has_inbound_handler);
    assert_eq!(
        inbound,
        [
            0, 1, 2, 4, 5, 7, 12, 19, 24, 25, 28, 30, 37, 40, 41, 44, 45, 54, 56, 57
        ]
    );
    let senders = ids(Message::client_sends);
    assert_eq!(
        senders,
        [
            3, 6, 11, 13, 14, 15, 16, 18, 19, 20, 21, 22, 23, 26, 27, 29, 31, 32, 33, 34, 37, 38,
            39, 43, 46, 47, 48, 49, 50, 52
        ]
    );
    let name_only = ids(|m| m.direction == Direction::NameOnly);
    assert_eq!(name_only, [9, 17, 35, 36, 42, 51, 53, 55, 58]);
    let local = ids(|m| m.direction == Direction::Local);
    assert_eq!(local, [8, 10]);
    let mut all: Vec<u32> = [inbound, senders, name_only, local].concat();
    all.sort_unstable();
    all.dedup();
    assert_eq!(
        all,
        (0..MESSAGE_COUNT).collect::<Vec<_>>(),
        "every id is in a set"
    );
}

#[test]
fn name_only_ids_have_no_handler_sender_schema_or_codec() {
    for m in MESSAGES
        .iter()
        .filter(|m| m.direction == Direction::NameOnly)
    {
        assert!(!m.has_inbound_handler() && !m.client_sends(), "{}", m.id);
        assert!(m.schema.is_none() && m.codec.is_none(), "{}", m.id);
    }
    for id in [3, 6, 15, 16, 52] {
        assert!(!MESSAGES[id].has_inbound_handler(), "client-sent id {id}");
    }
}

#[test]
fn labels() {
    assert_eq!(label(5), "sensor_auth_update");
    assert_eq!(label(11), "start_new_activity");
    assert_eq!(label(13), "message_13");
    assert_eq!(label(59), "message_59");
    assert!(client_sends(JOIN_REQUEST) && client_sends(INCIDENT));
    assert!(!client_sends(JOIN_RESULT) && !client_sends(8) && !client_sends(9));
    assert!(!client_sends(MESSAGE_COUNT));
    assert_eq!(find("5").map(|m| m.id), Some(5));
    assert_eq!(find("replicate_membership").map(|m| m.id), Some(12));
    assert!(find("message_13").is_none() && find("59").is_none());
}

/// Where the pages name a message and Vex has its schema, the two names agree.
#[test]
fn names_agree_with_the_schemas() {
    for m in &MESSAGES {
        if let (Some(name), Some(schema)) = (m.name, m.schema) {
            assert_eq!(name, schema.name, "message {}", m.id);
        }
    }
}

/// The typed codecs read the facts 10.1 vectors through the table.
#[test]
fn codecs_read_the_facts_vectors() {
    let read = |id: u32, hex_text: &str| {
        let codec = MESSAGES[id as usize].codec.unwrap();
        (codec.decode)(&hex::decode(hex_text).unwrap())
    };
    let m1 = read(GLOBAL_ACTIVITY_STATE, crate::vectors::GLOBAL_STATE_EXAMPLE).unwrap();
    assert!(m1.contains("bubble_count"), "{m1}");
    let m5 = read(SENSOR_AUTH_UPDATE, crate::vectors::SENSOR_AUTH_FULL_EXAMPLE).unwrap();
    assert!(m5.contains("roster"), "{m5}");
    assert!(
        read(JOIN_RESULT, "00").is_err(),
        "JOIN-03: 757 bytes or more"
    );
    assert_eq!(
        MESSAGES[PATCH_EPOCH as usize].codec.map(|c| c.type_name),
        Some("PatchEpoch")
    );
}
