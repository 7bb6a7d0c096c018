//! The activity message ids that code refers to by name (AH "Message ids", "The main
//! messages"). What each id is (name, direction, schema, codec) is declared once, in
//! [`super::table`].

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
/// claim_authority_over_abandoned_entity_slots (H->C): a 1,024-byte mask.
pub const CLAIM_AUTHORITY: u32 = 24;
/// connectivity_failure (both): one peer key and a 2-bit reason.
pub const CONNECTIVITY_FAILURE: u32 = 37;
/// script_state (H->C): decoded and discarded in this build.
pub const SCRIPT_STATE: u32 = 40;
/// script_event (H->C): decoded and discarded in this build.
pub const SCRIPT_EVENT: u32 = 41;
/// perf_request_kill (H->C): decoded and discarded.
pub const PERF_REQUEST_KILL: u32 = 56;
/// perf_request_reflect (H->C): decoded and discarded.
pub const PERF_REQUEST_REFLECT: u32 = 57;
/// purge_abandoned_entity_slots (H->C): the purge notice answering message 27.
pub const PURGE_NOTICE: u32 = 25;
/// The client's purge request (C->H).
pub const PURGE_REQUEST: u32 = 27;
/// reset_entity_slot_authority_mask (H->C): a token.
pub const RESET_AUTHORITY: u32 = 28;
/// reset_entity_slot_authority_mask_acknowledgement (C->H): the token echoed.
pub const RESET_AUTHORITY_ACK: u32 = 29;
/// query_entity_slot_authority_mask (H->C): a token.
pub const QUERY_AUTHORITY: u32 = 30;
/// The client's per-bubble answer to message 30 (C->H).
pub const AUTHORITY_BUBBLE_MASK: u32 = 31;
/// The client's whole-mask answer to message 30 (C->H).
pub const AUTHORITY_FULL_MASK: u32 = 32;
/// abdicate_authority (C->H).
pub const ABDICATE_AUTHORITY: u32 = 33;
/// start_new_activity (C->H): the selection head, then opaque bits (facts 4.14).
pub const START_NEW_ACTIVITY: u32 = 11;
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
