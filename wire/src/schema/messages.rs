//! Activity message bodies declared as schemas, so `vex decode` and `vex encode` cover them
//! field by field. The host and the emulated client use the typed codecs of
//! [`crate::activity`]; tests check that both agree bit for bit.
//!
//! Sources: AH "join_result", "global_activity_state", "world_globals_state", "incident",
//! "peer_leave_request"; facts 4.1, 4.5, 4.6, 4.13, 4.14, 5.2.

use super::kind::{Field, Guard, I32, Kind, Schema, U32, U64, int, uint};
use super::text::CHAR;
use vex_rules::Rule;

const BYTE: Kind = uint(8, 0);

const SKULL: Schema = Schema {
    name: "skull",
    fields: &[
        Field::always("group", int(2, 1)),
        Field::always("value", int(7, 1)),
    ],
};

/// The activity-selection descriptor (facts 5.2): 372 to 1,814 bits.
pub const SELECTION_DESCRIPTOR: Schema = Schema {
    name: "selection_descriptor",
    fields: &[
        Field::always("reason", int(4, 1)),
        Field::always("source_activity", int(12, 1)),
        Field::always("destination_activity", int(12, 1)),
        Field::optional("element_index", int(9, 1)),
        Field::optional("id_0", U64),
        Field::optional("id_1", U64),
        Field::always(
            "skulls",
            Kind::Array {
                element: &Kind::Record(&SKULL),
                count_width: 5,
                capacity: 31,
            },
        ),
        Field::always("fixed_byte", BYTE),
        Field::optional("optional_byte", BYTE),
        Field::optional("arrival_hash", U32),
        Field::optional("spawn_hash", U32),
        Field::optional(
            "package_name",
            Kind::FixedArray {
                element: &CHAR,
                len: 40,
            },
        ),
        Field::optional("optional_hash", U32),
        Field::always("flag", Kind::Bool),
        Field::optional(
            "refs",
            Kind::Array {
                element: &Kind::Bits { width: 96 },
                count_width: 1,
                capacity: 1,
            },
        ),
        Field::optional(
            "pairs",
            Kind::Array {
                element: &uint(13, 0),
                count_width: 6,
                capacity: 63,
            },
        ),
    ],
};

/// Message 1, global_activity_state (facts 4.5): 1,161 bits with the minimal descriptor.
pub const GLOBAL_ACTIVITY_STATE: Schema = Schema {
    name: "global_activity_state",
    fields: &[
        Field::always("arm_initial_slice_set", Kind::Bool),
        Field::always("unnamed_1", Kind::Bits { width: 66 }),
        Field::always("bubble_count", I32),
        Field::always(
            "bubble_states",
            Kind::FixedArray {
                element: &BYTE,
                len: 64,
            },
        ),
        Field::always("initial_slice_set", int(10, 1)),
        Field::always("spawn_set_hash", U32),
        Field::always("unnamed_653", Kind::Bits { width: 33 }),
        Field::always("descriptor", Kind::Record(&SELECTION_DESCRIPTOR)),
        Field::always("tail", Kind::Bits { width: 103 }),
    ],
};

/// Message 3, join_request: the 570-bit record (facts 4.1). Only the nonce, the host id,
/// the member key (8 bytes, low byte first) and the character id are named.
pub const JOIN_REQUEST: Schema = Schema {
    name: "join_request",
    fields: &[
        Field::always("nonce", U32),
        Field::always("host_id", U64),
        Field::always(
            "member_key_le",
            Kind::FixedArray {
                element: &BYTE,
                len: 8,
            },
        ),
        Field::always("unnamed_160", Kind::Bits { width: 170 }),
        Field::always("character_id", U64),
        Field::always("unnamed_394", Kind::Bits { width: 176 }),
    ],
};

/// Message 4, join_result: 18 fields, no presence bits, 6,053 bits (AH "join_result").
pub const JOIN_RESULT: Schema = Schema {
    name: "join_result",
    fields: &[
        Field::always("request", Kind::Record(&JOIN_REQUEST)),
        Field::always("result", int(3, 1)),
        Field::always(
            "session_name",
            Kind::FixedArray {
                element: &CHAR,
                len: 128,
            },
        ),
        Field::always("process_id", U32),
        Field::always("return_code", I32),
        Field::always("handoff_nonce", U32),
        Field::always("clock_base", U64),
        Field::always("initial_epoch", BYTE),
        Field::always("peer_heard_window_ms", uint(16, 0)),
        Field::always("keepalive_interval_ms", uint(16, 0)),
        Field::always("fields_10_to_16", Kind::Bits { width: 2208 }),
        Field::always(
            "workspace_name",
            Kind::FixedArray {
                element: &CHAR,
                len: 256,
            },
        ),
    ],
};

const OPAQUE_B2: Schema = Schema {
    name: "opaque_branch",
    fields: &[
        Field::optional("w6", Kind::Bits { width: 6 }),
        Field::optional("w1024", Kind::Bits { width: 1024 }),
        Field::optional("w64_a", Kind::Bits { width: 64 }),
        Field::optional("w64_b", Kind::Bits { width: 64 }),
        Field::optional("w64_c", Kind::Bits { width: 64 }),
        Field::optional("w64_d", Kind::Bits { width: 64 }),
        Field::optional("w32_a", Kind::Bits { width: 32 }),
        Field::optional("w32_b", Kind::Bits { width: 32 }),
        Field::optional("w64_e", Kind::Bits { width: 64 }),
        Field::optional("w32_c", Kind::Bits { width: 32 }),
        Field::optional("w688_a", Kind::Bits { width: 688 }),
        Field::optional("w688_b", Kind::Bits { width: 688 }),
        Field::optional("w688_c", Kind::Bits { width: 688 }),
        Field::optional("w512", Kind::Bits { width: 512 }),
        Field::optional(
            "bytes",
            Kind::Array {
                element: &BYTE,
                count_width: 14,
                capacity: 10_000,
            },
        ),
        Field::always("flag", Kind::Bool),
    ],
};

const REGION_EXTRA: Schema = Schema {
    name: "region_extra",
    fields: &[
        Field::always("a", BYTE),
        Field::always("b", uint(2, 0)),
        Field::always(
            "bytes",
            Kind::Array {
                element: &BYTE,
                count_width: 8,
                capacity: 128,
            },
        ),
        Field::always("tail", U64),
    ],
};

const REGION_LEG: Schema = Schema {
    name: "region_leg",
    fields: &[
        Field::always("region_index", int(10, 1)),
        Field::always("region_hash", U32),
        Field::always("skipped_32", Kind::Bits { width: 32 }),
        Field::always("skipped_2a", Kind::Bits { width: 2 }),
        Field::always("skipped_2b", Kind::Bits { width: 2 }),
        Field::optional("byte", BYTE),
        Field::optional("extra", Kind::Record(&REGION_EXTRA)),
    ],
};

const REGIONS: Schema = Schema {
    name: "regions",
    fields: &[
        Field::optional("leg_1", Kind::Record(&REGION_LEG)),
        // leg 2 carries the player's current region (facts 4.11)
        Field::optional("current", Kind::Record(&REGION_LEG)),
        Field::optional("transition_token", BYTE),
        Field::optional("byte", BYTE),
        Field::optional("three_bits", uint(3, 0)),
    ],
};

const SPAWN: Schema = Schema {
    name: "spawn",
    fields: &[
        Field::always("state", int(3, 1)),
        Field::always("opaque_8", BYTE),
        Field::always("opaque_64", U64),
    ],
};

const TELEPORT: Schema = Schema {
    name: "teleport",
    fields: &[
        Field::always("state", int(3, 1)),
        Field::always("token", BYTE),
        Field::always("slice_set", int(10, 1)),
        Field::always("slice_hash", U32),
        Field::always("skipped_64", Kind::Bits { width: 64 }),
    ],
};

const CLIENT_STATE_DELTA: Schema = Schema {
    name: "client_state_delta",
    fields: &[
        Field::optional("opaque", Kind::Record(&OPAQUE_B2)),
        Field::optional("regions", Kind::Record(&REGIONS)),
        Field::optional("spawn", Kind::Record(&SPAWN)),
        Field::optional("teleport", Kind::Record(&TELEPORT)),
    ],
};

/// Message 22, client_authoritative_data_update: a sparse delta behind a root bit
/// (facts 4.11): an opaque branch, two region legs (the second is the player's current
/// region; -1 on the way out), spawn and teleport state.
pub const CLIENT_AUTHORITATIVE_DATA_UPDATE: Schema = Schema {
    name: "client_authoritative_data_update",
    fields: &[Field::optional("delta", Kind::Record(&CLIENT_STATE_DELTA))],
};

/// Message 2, world_globals_state: a bool and the raw float32 tick period; 33 bits.
pub const WORLD_GLOBALS_STATE: Schema = Schema {
    name: "world_globals_state",
    fields: &[
        Field::always("flag", Kind::Bool),
        Field::always("tick_ms", Kind::Real),
    ],
};

const EXTRA_PAIR: Schema = Schema {
    name: "unread_words",
    fields: &[Field::always("word_0", U32), Field::always("word_1", U32)],
};

/// Message 19, incident: five fields, no biases, at least 29 bits (AH "incident"; the
/// selector as facts 4.13 reads it: a 9-bit byte length, at most 260, and the bytes).
pub const INCIDENT: Schema = Schema {
    name: "incident",
    fields: &[
        Field::always("definition_index", uint(13, 0)).guarded(&[
            Guard::Range {
                rule: Rule::Incident01,
                min: 0,
                max: 7762,
            },
            Guard::Refused {
                rule: Rule::Incident02,
                values: &[795, 4690, 5375],
            },
        ]),
        Field::always(
            "extra_targets",
            Kind::Array {
                element: &uint(13, 0),
                count_width: 5,
                capacity: 25,
            },
        ),
        Field::optional(
            "compressed_selector",
            Kind::Array {
                element: &BYTE,
                count_width: 9,
                capacity: 260,
            },
        )
        .guarded(&[Guard::Absent {
            rule: Rule::Incident04,
        }]),
        Field::optional("unread", Kind::Record(&EXTRA_PAIR)),
        Field::always(
            "payload",
            Kind::Array {
                element: &BYTE,
                count_width: 9,
                capacity: 500,
            },
        ),
    ],
};

/// Message 52, patch_epoch: two u64 (facts 4.14).
pub const PATCH_EPOCH: Schema = Schema {
    name: "patch_epoch",
    fields: &[Field::always("word_0", U64), Field::always("word_1", U64)],
};

/// Message 44, advance_replication_epoch: an 8-bit epoch and the abort bit.
pub const ADVANCE_REPLICATION_EPOCH: Schema = Schema {
    name: "advance_replication_epoch",
    fields: &[
        Field::always("epoch", BYTE),
        Field::always("abort", Kind::Bool),
    ],
};

/// Message 54, bubble host state update: the 6-bit row count (rows are not documented).
pub const BUBBLE_HOST_STATE: Schema = Schema {
    name: "bubble_host_state_update",
    fields: &[
        Field::always("row_count", uint(6, 0)).guarded(&[Guard::Range {
            rule: Rule::Bhs01,
            min: 0,
            max: 32,
        }]),
    ],
};

/// A 1,024-byte entity-slot mask: slot i at byte i/8, bit 1 << (i % 8) (SLOTS-01).
const SLOT_MASK: Kind = Kind::Bits { width: 8192 };

/// Message 0, entity_slots_allocated: the mask (SLOTS-01).
pub const ENTITY_SLOTS_ALLOCATED: Schema = Schema {
    name: "entity_slots_allocated",
    fields: &[Field::always("mask", SLOT_MASK)],
};

/// Message 21, free_entity_indices: the returned slots (facts 4.3).
pub const FREE_ENTITY_INDICES: Schema = Schema {
    name: "free_entity_indices",
    fields: &[Field::always("mask", SLOT_MASK)],
};

/// Message 11, start_new_activity: the selection's head; the rest is opaque (facts 4.14).
pub const START_NEW_ACTIVITY: Schema = Schema {
    name: "start_new_activity",
    fields: &[
        Field::always("selector", int(4, 1)),
        Field::always("source_activity", int(12, 1)),
        Field::always("destination_activity", int(12, 1)),
        Field::optional("element_index", int(9, 1)),
        Field::optional("id_0", U64),
        Field::optional("id_1", U64),
    ],
};

/// Message 14, release reservation: the first 16 bytes of message 15 (facts 4.14).
pub const RELEASE_RESERVATION: Schema = Schema {
    name: "release_reservation",
    fields: &[
        Field::always("word_0", U32),
        Field::always("word_4", U32),
        Field::always("peer_key_le", PEER_KEY),
    ],
};

/// An 8-byte little-endian key, as bytes in memory order.
const PEER_KEY: Kind = Kind::FixedArray {
    element: &BYTE,
    len: 8,
};

/// Message 23, client_identity_update: 362 bits and 6 of padding, 46 bytes (facts 4.12).
pub const CLIENT_IDENTITY_UPDATE: Schema = Schema {
    name: "client_identity_update",
    fields: &[
        Field::always("member_key_le", PEER_KEY),
        Field::always("field_1", int(10, 1)),
        Field::always("field_2", I32),
        Field::always("join_identity", U64),
        Field::always("account_soid", U64),
        Field::always("character_soid", U64),
        Field::always("field_6", U64),
        Field::always("padding", Kind::Bits { width: 6 }),
    ],
};

/// Message 26, abandon: a selector, the mask and a reason (facts 4.14).
pub const ABANDON: Schema = Schema {
    name: "abandon_entity_slots",
    fields: &[
        Field::always("selector", BYTE),
        Field::always("mask", SLOT_MASK),
        Field::always("reason", int(3, 1)),
    ],
};

/// Message 27, purge request: a field and an unaligned mask (facts 4.14).
pub const PURGE_REQUEST: Schema = Schema {
    name: "purge_request",
    fields: &[
        Field::always("field", int(3, 1)),
        Field::always("mask", SLOT_MASK),
    ],
};

/// Message 28, reset_entity_slot_authority_mask: a 32-bit token the client echoes.
pub const RESET_ENTITY_SLOT_AUTHORITY_MASK: Schema = Schema {
    name: "reset_entity_slot_authority_mask",
    fields: &[Field::always("token", U32)],
};

/// Message 30, query_entity_slot_authority_mask: a 32-bit token the answers carry.
pub const QUERY_ENTITY_SLOT_AUTHORITY_MASK: Schema = Schema {
    name: "query_entity_slot_authority_mask",
    fields: &[Field::always("token", U32)],
};

/// Message 29, reset_entity_slot_authority_mask_acknowledgement: the echoed token.
pub const RESET_ACKNOWLEDGEMENT: Schema = Schema {
    name: "reset_entity_slot_authority_mask_acknowledgement",
    fields: &[Field::always("token", U32)],
};

/// Message 31: the query's token, a bubble selector and that bubble's mask (facts 4.14).
pub const AUTHORITY_BUBBLE_MASK: Schema = Schema {
    name: "authority_bubble_mask",
    fields: &[
        Field::always("token", U32),
        Field::always("selector", BYTE),
        Field::always("mask", SLOT_MASK),
    ],
};

/// Message 32: the query's token and the full mask (facts 4.14).
pub const AUTHORITY_FULL_MASK: Schema = Schema {
    name: "authority_full_mask",
    fields: &[
        Field::always("token", U32),
        Field::always("mask", SLOT_MASK),
    ],
};

/// Message 33, abdicate_authority: a selector and the mask (facts 4.14).
pub const ABDICATE_AUTHORITY: Schema = Schema {
    name: "abdicate_authority",
    fields: &[
        Field::always("selector", BYTE),
        Field::always("mask", SLOT_MASK),
    ],
};

/// Message 37, connectivity_failure: one peer key and a 2-bit reason; 66 bits.
pub const CONNECTIVITY_FAILURE: Schema = Schema {
    name: "connectivity_failure",
    fields: &[
        Field::always("peer_key", U64),
        Field::always("reason", uint(2, 0)),
    ],
};

/// Message 48, speculative migration: a signed value and a peer key, 12 bytes.
pub const SPECULATIVE_MIGRATION: Schema = Schema {
    name: "speculative_migration",
    fields: &[
        Field::always("value", I32),
        Field::always("peer_key_le", PEER_KEY),
    ],
};

/// Message 49, high water: nine u32 and two u64, exactly 52 bytes (facts 4.14).
pub const HIGH_WATER: Schema = Schema {
    name: "high_water",
    fields: &[
        Field::always(
            "words",
            Kind::FixedArray {
                element: &U32,
                len: 9,
            },
        ),
        Field::always(
            "wide",
            Kind::FixedArray {
                element: &U64,
                len: 2,
            },
        ),
    ],
};

/// Message 15, peer_leave_request: 20 bytes (facts 4.14; AH: the reason hash at +16).
pub const PEER_LEAVE_REQUEST: Schema = Schema {
    name: "peer_leave_request",
    fields: &[
        Field::always("word_0", U32),
        Field::always("word_4", U32),
        Field::always(
            "peer_key_le",
            Kind::FixedArray {
                element: &BYTE,
                len: 8,
            },
        ),
        Field::always("reason_hash", U32),
    ],
};

/// Message 16, activity_client_keepalive_request: one byte, no schema.
pub const KEEPALIVE_REQUEST: Schema = Schema {
    name: "activity_client_keepalive_request",
    fields: &[Field::always("byte", BYTE)],
};

/// Message 18, state refresh: the membership revision and the bubble (facts 4.14).
pub const STATE_REFRESH: Schema = Schema {
    name: "state_refresh",
    fields: &[
        Field::always("membership_revision", U32),
        Field::always("bubble", I32),
    ],
};

/// Message 20, allocate_entity_indices: a signed count, bias 2^31 (facts 4.4).
pub const ALLOCATE_ENTITY_INDICES: Schema = Schema {
    name: "allocate_entity_indices",
    fields: &[Field::always("count", I32)],
};

/// Message 38, membership_acknowledgement: the revision (facts 4.14).
pub const MEMBERSHIP_ACKNOWLEDGEMENT: Schema = Schema {
    name: "membership_acknowledgement",
    fields: &[Field::always("revision", U32)],
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::activity::body::Body;
    use crate::bits::written;
    use crate::bits::{BitReader, BitWriter};
    use crate::schema::measure::{max_bits, min_bits};
    use crate::schema::{decode, encode, encode_bits};

    fn re_encode(schema: &Schema, bytes: &[u8]) -> Vec<u8> {
        let v = decode(schema, &mut BitReader::new(bytes)).unwrap();
        encode_bits(schema, &v).unwrap().bytes
    }

    /// The encoder refuses what AH's crash table names; the decoder still reads it.
    #[test]
    fn crashing_values_are_refused() {
        use crate::schema::{SchemaError, Value};
        let incident = |index: i128, selector: Value| {
            Value::Record(vec![
                Value::Int(index),
                Value::Array(vec![]),
                selector,
                Value::Absent,
                Value::Array(vec![]),
            ])
        };
        let refuses = |schema: &Schema, v: &Value, rule: Rule| {
            let e = encode(schema, v, &mut BitWriter::measuring()).unwrap_err();
            assert!(
                matches!(e, SchemaError::Unsafe { rule: r, .. } if r == rule),
                "{e}"
            );
        };
        assert!(
            encode(
                &INCIDENT,
                &incident(7762, Value::Absent),
                &mut BitWriter::measuring()
            )
            .is_ok()
        );
        refuses(&INCIDENT, &incident(7763, Value::Absent), Rule::Incident01);
        refuses(&INCIDENT, &incident(4690, Value::Absent), Rule::Incident02);
        refuses(
            &INCIDENT,
            &incident(1, Value::Array(vec![])),
            Rule::Incident04,
        );
        refuses(
            &BUBBLE_HOST_STATE,
            &Value::Record(vec![Value::Int(33)]),
            Rule::Bhs01,
        );
        let mut bytes = written(|w| {
            encode(&INCIDENT, &incident(1, Value::Absent), w).unwrap();
        })
        .unwrap();
        bytes[0] = 0xFF; // index 8191 and up: read as sent
        assert!(decode(&INCIDENT, &mut BitReader::new(&bytes)).is_ok());
    }

    #[test]
    fn documented_sizes() {
        // facts 5.2: the 372-bit minimal descriptor carries a 320-bit name
        assert_eq!(min_bits(&SELECTION_DESCRIPTOR), 372 - 320);
        assert_eq!(max_bits(&SELECTION_DESCRIPTOR), Some(1814));
        assert_eq!(min_bits(&JOIN_REQUEST), 570);
        assert_eq!(min_bits(&JOIN_RESULT), 6053);
        assert_eq!(min_bits(&WORLD_GLOBALS_STATE), 33);
        assert_eq!(min_bits(&INCIDENT), 29);
        assert_eq!(min_bits(&ENTITY_SLOTS_ALLOCATED), 8192);
        assert_eq!(min_bits(&PEER_LEAVE_REQUEST), 160);
        // facts 4.11: the body is 1 to 10,833 bytes
        assert_eq!(min_bits(&CLIENT_AUTHORITATIVE_DATA_UPDATE), 1);
        assert_eq!(
            max_bits(&CLIENT_AUTHORITATIVE_DATA_UPDATE).map(|b| b.div_ceil(8)),
            Some(10_833)
        );
        assert_eq!(min_bits(&RELEASE_RESERVATION), 128);
        assert_eq!(min_bits(&CLIENT_IDENTITY_UPDATE), 46 * 8);
        assert_eq!(min_bits(&CONNECTIVITY_FAILURE), 66);
        assert_eq!(min_bits(&SPECULATIVE_MIGRATION), 96);
        assert_eq!(min_bits(&HIGH_WATER), 52 * 8);
        assert_eq!(min_bits(&AUTHORITY_FULL_MASK), 32 + 8192);
    }

    /// Facts 10.1: incident with target 100, extra [200], payload AB CD is 58 bits.
    #[test]
    fn incident_vector() {
        let bytes = [0x03, 0x20, 0x41, 0x90, 0x00, 0xAA, 0xF3, 0x40];
        let mut lines = Vec::new();
        let v =
            crate::schema::walk::decode_traced(&INCIDENT, &mut BitReader::new(&bytes), &mut lines)
                .unwrap();
        let crate::schema::Value::Record(fields) = &v else {
            panic!("a record")
        };
        assert_eq!(fields[0], crate::schema::Value::Int(100));
        assert_eq!(lines.last().map(|l| l.at + l.width), Some(58));
        assert_eq!(re_encode(&INCIDENT, &bytes), bytes);
    }

    /// The schemas read the typed encoders' output (facts 10.1 vectors) and write it back.
    #[test]
    fn schemas_agree_with_the_typed_codecs() {
        use crate::activity::global_state::GLOBAL_STATE_LEN;
        use crate::activity::join::{JoinRequest, JoinResult};
        let req = JoinRequest::new(0x1122_3344, 0x9EAA_3001_0020_0001, 7, 9);
        let msg4 = JoinResult::accept(&req, 0x9EAA_3001_0020_0001)
            .encode()
            .unwrap();
        assert_eq!(re_encode(&JOIN_RESULT, &msg4), msg4);
        let msg1 = crate::vectors::global_state_example().encode().unwrap();
        assert_eq!(msg1.len(), GLOBAL_STATE_LEN);
        assert_eq!(re_encode(&GLOBAL_ACTIVITY_STATE, &msg1), msg1);
    }
}
