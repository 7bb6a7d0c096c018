//! The 59 activity message ids and their three sets (AH "Message ids", "The main messages").
//!
//! The pages give names in id order but not every id's name; where a name is not known
//! the table says so instead of guessing.

/// Number of ids in the client's table (0 to 58).
pub const MESSAGE_COUNT: u32 = 59;

/// Message 0, entity_slots_allocated (H->C).
pub const ENTITY_SLOTS_ALLOCATED: u32 = 0;
/// Message 1, global_activity_state (H->C).
pub const GLOBAL_ACTIVITY_STATE: u32 = 1;
/// Message 2, world_globals_state (H->C).
pub const WORLD_GLOBALS_STATE: u32 = 2;
/// Message 3, join_request (C->H).
pub const JOIN_REQUEST: u32 = 3;
/// Message 4, join_result (H->C).
pub const JOIN_RESULT: u32 = 4;
/// Message 5, sensor_auth_update (H->C).
pub const SENSOR_AUTH_UPDATE: u32 = 5;
/// Message 6, sensor_sense_update (C->H).
pub const SENSOR_SENSE_UPDATE: u32 = 6;
/// Message 12, replicate_membership (H->C).
pub const REPLICATE_MEMBERSHIP: u32 = 12;
/// Message 15, peer_leave_request (C->H).
pub const PEER_LEAVE_REQUEST: u32 = 15;
/// Message 16, activity_client_keepalive_request (C->H).
pub const KEEPALIVE_REQUEST: u32 = 16;
/// Message 17, activity_client_keepalive_response: named, with no handler (ENV-11).
pub const KEEPALIVE_RESPONSE: u32 = 17;
/// Message 18, state_refresh (C->H): the client asks for the whole snapshot.
pub const STATE_REFRESH: u32 = 18;
/// Message 19, incident (both).
pub const INCIDENT: u32 = 19;
/// Message 20, allocate_entity_indices (C->H): asks for more entity slots.
pub const ALLOCATE_ENTITY_INDICES: u32 = 20;
/// Message 21, free_entity_indices (C->H): returns entity slots.
pub const FREE_ENTITY_INDICES: u32 = 21;
/// Message 22, client_authoritative_data_update (C->H).
pub const CLIENT_AUTHORITATIVE_DATA_UPDATE: u32 = 22;
/// Message 23, client_identity_update (C->H): the member identity record.
pub const CLIENT_IDENTITY_UPDATE: u32 = 23;
/// Message 38, membership_acknowledgement (C->H): the membership revision applied.
pub const MEMBERSHIP_ACKNOWLEDGEMENT: u32 = 38;
/// Message 44, advance_replication_epoch (H->C).
pub const ADVANCE_REPLICATION_EPOCH: u32 = 44;
/// Message 52, patch_epoch (C->H).
pub const PATCH_EPOCH: u32 = 52;
/// Message 54, bubble host state update (H->C).
pub const BUBBLE_HOST_STATE: u32 = 54;

/// The game's name for an id, where the pages give it.
pub fn name(id: u32) -> Option<&'static str> {
    Some(match id {
        0 => "entity_slots_allocated",
        1 => "global_activity_state",
        2 => "world_globals_state",
        3 => "join_request",
        4 => "join_result",
        5 => "sensor_auth_update",
        6 => "sensor_sense_update",
        7 => "sensor_message",
        8 => "request_activity_host",
        10 => "start_activity_host_response",
        11 => "start_new_activity",
        12 => "replicate_membership",
        15 => "peer_leave_request",
        16 => "activity_client_keepalive_request",
        17 => "activity_client_keepalive_response",
        19 => "incident",
        20 => "allocate_entity_indices",
        21 => "free_entity_indices",
        22 => "client_authoritative_data_update",
        23 => "client_identity_update",
        24 => "claim_authority_over_abandoned_entity_slots",
        25 => "purge_abandoned_entity_slots",
        28 => "reset_entity_slot_authority_mask",
        29 => "reset_entity_slot_authority_mask_acknowledgement",
        30 => "query_entity_slot_authority_mask",
        33 => "abdicate_authority",
        37 => "connectivity_failure",
        38 => "membership_acknowledgement",
        39 => "send_client_heartbeat",
        40 => "script_state",
        41 => "script_event",
        44 => "advance_replication_epoch",
        45 => "reservations_failed",
        52 => "patch_epoch",
        54 => "bubble_host_state_update",
        56 => "perf_request_kill",
        57 => "perf_request_reflect",
        _ => return None,
    })
}

/// A printable label: the name, or `message_N` where the pages give none.
pub fn label(id: u32) -> String {
    name(id).map_or_else(|| format!("message_{id}"), str::to_string)
}

/// The nine name-only ids: no sender, no handler, no body schema (AH "Message ids").
pub const NAME_ONLY: [u32; 9] = [9, 17, 35, 36, 42, 51, 53, 55, 58];

/// Ids the client acts on when the host sends them (AH "The main messages": every H->C
/// and "both" row). Any other id is logged as unknown and dropped (ENV-04, ENV-11).
pub const INBOUND_HANDLERS: [u32; 20] = [
    0, 1, 2, 4, 5, 7, 12, 19, 24, 25, 28, 30, 37, 40, 41, 44, 45, 54, 56, 57,
];

/// Ids the client sends (AH "Message ids": the client sender set). The pages mark the
/// direction of each named message; facts 4.14 and 4.15 give the client messages Sunrise
/// parses or records (11, 13, 14, 18, 26, 27, 31, 32, 34, 39, 43, 46 to 50). 19 and 37
/// go both ways.
pub const CLIENT_SENDERS: [u32; 30] = [
    3, 6, 11, 13, 14, 15, 16, 18, 19, 20, 21, 22, 23, 26, 27, 29, 31, 32, 33, 34, 37, 38, 39, 43,
    46, 47, 48, 49, 50, 52,
];

/// Ids that never cross the wire: 8 becomes service 6, and service 7 becomes 10 inside
/// the client (AH "The main messages").
pub const LOCAL: [u32; 2] = [8, 10];

/// True when the client has an inbound handler for `id`.
pub fn has_inbound_handler(id: u32) -> bool {
    INBOUND_HANDLERS.contains(&id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_only_ids_have_no_handler_and_sets_are_in_range() {
        for id in NAME_ONLY {
            assert!(!has_inbound_handler(id));
        }
        assert!(INBOUND_HANDLERS.iter().all(|&id| id < MESSAGE_COUNT));
        for id in [3, 6, 15, 16, 52] {
            assert!(!has_inbound_handler(id), "client-sent id {id}");
        }
        assert_eq!(label(5), "sensor_auth_update");
        let mut all: Vec<u32> = INBOUND_HANDLERS
            .iter()
            .chain(&NAME_ONLY)
            .chain(&CLIENT_SENDERS)
            .chain(&LOCAL)
            .copied()
            .collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(
            all,
            (0..MESSAGE_COUNT).collect::<Vec<_>>(),
            "every id is in a set"
        );
        for id in NAME_ONLY {
            assert!(!CLIENT_SENDERS.contains(&id));
        }
        assert_eq!(label(11), "start_new_activity");
        assert_eq!(label(13), "message_13");
    }
}
