//! The message table: one declaration per activity message id, 0 to 58, with its name,
//! direction, body schema and typed codec (AH "Message ids", "The main messages"; facts
//! 4.14, 4.15).
//!
//! Host and client dispatch, `vex decode` and `vex encode` and the fuzz targets read what a
//! message is from here. The pages give names in id order but not every id's name; where a
//! name is not known the row says so instead of guessing. Directions the pages leave out
//! come from the client messages Sunrise parses or records (facts 4.14, 4.15).

use super::authority::{Abdication, AuthorityToken, BubbleMaskAnswer, FullMaskAnswer, Purge};
use super::body::Body;
use super::client_state::ClientState;
use super::global_state::GlobalActivityState;
use super::identity::ClientIdentity;
use super::ids::*;
use super::incident::Incident;
use super::join::{JoinRequest, JoinResult};
use super::membership::ReplicateMembership;
use super::sense_update::SenseUpdate;
use super::sensor_auth::SensorAuthUpdate;
use super::small::{
    AdvanceEpoch, BubbleHostState, ConnectivityFailure, EntitySlotMask, MembershipAcknowledgement,
    PatchEpoch, PeerLeave, SlotRequest, StateRefresh, WorldGlobals,
};
use crate::bits::BitError;
use crate::schema::Schema;
use crate::schema::messages as s;
use Direction::{Both, ClientToHost as C2H, HostToClient as H2C, Local, NameOnly};

/// Which way a message goes (AH "The main messages": H is the host, C the client; the
/// three overlapping sets of AH "Message ids").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// H->C: the client has an inbound handler and never sends it.
    HostToClient,
    /// C->H: the client sends it and has no inbound handler.
    ClientToHost,
    /// Both ways: the client sends it and acts on it.
    Both,
    /// Never on the wire: the transport turns it into a bdLobby service, or makes it from
    /// one, inside the client.
    Local,
    /// A name only: no sender, no handler, no body schema.
    NameOnly,
}

/// A typed codec as the table holds it: the Rust type that carries the body, and a reader
/// through that type's [`Body`] impl (design "The wire crate").
#[derive(Debug, Clone, Copy)]
pub struct Codec {
    /// The type's name.
    pub type_name: &'static str,
    /// Reads a whole body with the type's [`Body::decode`] and prints what it read.
    pub decode: fn(&[u8]) -> Result<String, BitError>,
}

/// One message id's declaration (AH "Message ids").
#[derive(Debug, Clone, Copy)]
pub struct Message {
    /// The id, 0 to 58: also the row's place in [`MESSAGES`].
    pub id: u32,
    /// The game's name, where the pages give it.
    pub name: Option<&'static str>,
    /// Which way it goes.
    pub direction: Direction,
    /// The body's schema, for `vex decode` and `vex encode`.
    pub schema: Option<&'static Schema>,
    /// The typed codec, where Vex has one.
    pub codec: Option<Codec>,
}

impl Message {
    /// True when the client acts on it from the host (AH "Message ids": the inbound
    /// handler set). Any other id is logged as unknown and dropped (ENV-04, ENV-11).
    pub fn has_inbound_handler(&self) -> bool {
        matches!(self.direction, H2C | Both)
    }

    /// True when the client can send it (AH "Message ids": the client sender set).
    pub fn client_sends(&self) -> bool {
        matches!(self.direction, C2H | Both)
    }

    /// A printable label: the name, or `message_N` where the pages give none.
    pub fn label(&self) -> String {
        self.name
            .map_or_else(|| format!("message_{}", self.id), str::to_string)
    }

    const fn new(id: u32, name: Option<&'static str>, direction: Direction) -> Self {
        Self {
            id,
            name,
            direction,
            schema: None,
            codec: None,
        }
    }

    const fn schema(self, schema: &'static Schema) -> Self {
        Self {
            schema: Some(schema),
            ..self
        }
    }

    const fn codec(self, codec: Codec) -> Self {
        Self {
            codec: Some(codec),
            ..self
        }
    }
}

fn print<B: Body>(body: &[u8]) -> Result<String, BitError>
where
    B::Decoded: std::fmt::Debug,
{
    B::decode(body).map(|decoded| format!("{decoded:#?}"))
}

/// The codec of a type that implements [`Body`].
macro_rules! codec {
    ($ty:ident) => {
        Codec {
            type_name: stringify!($ty),
            decode: print::<$ty>,
        }
    };
}

const fn named(id: u32, name: &'static str, direction: Direction) -> Message {
    Message::new(id, Some(name), direction)
}

const fn unnamed(id: u32, direction: Direction) -> Message {
    Message::new(id, None, direction)
}

/// Every id the client's table carries, in id order (AH "Message ids", "The main
/// messages"; facts 4.14, 4.15 for the client messages the pages do not name).
pub static MESSAGES: [Message; MESSAGE_COUNT as usize] = [
    named(ENTITY_SLOTS_ALLOCATED, "entity_slots_allocated", H2C)
        .schema(&s::ENTITY_SLOTS_ALLOCATED)
        .codec(codec!(EntitySlotMask)),
    named(GLOBAL_ACTIVITY_STATE, "global_activity_state", H2C)
        .schema(&s::GLOBAL_ACTIVITY_STATE)
        .codec(codec!(GlobalActivityState)),
    named(WORLD_GLOBALS_STATE, "world_globals_state", H2C)
        .schema(&s::WORLD_GLOBALS_STATE)
        .codec(codec!(WorldGlobals)),
    named(JOIN_REQUEST, "join_request", C2H)
        .schema(&s::JOIN_REQUEST)
        .codec(codec!(JoinRequest)),
    named(JOIN_RESULT, "join_result", H2C)
        .schema(&s::JOIN_RESULT)
        .codec(codec!(JoinResult)),
    named(SENSOR_AUTH_UPDATE, "sensor_auth_update", H2C).codec(codec!(SensorAuthUpdate)),
    named(SENSOR_SENSE_UPDATE, "sensor_sense_update", C2H).codec(codec!(SenseUpdate)),
    named(7, "sensor_message", H2C),
    named(8, "request_activity_host", Local),
    unnamed(9, NameOnly),
    named(10, "start_activity_host_response", Local),
    named(START_NEW_ACTIVITY, "start_new_activity", C2H).schema(&s::START_NEW_ACTIVITY),
    named(REPLICATE_MEMBERSHIP, "replicate_membership", H2C).codec(codec!(ReplicateMembership)),
    unnamed(13, C2H),
    unnamed(14, C2H).schema(&s::RELEASE_RESERVATION),
    named(PEER_LEAVE_REQUEST, "peer_leave_request", C2H)
        .schema(&s::PEER_LEAVE_REQUEST)
        .codec(codec!(PeerLeave)),
    named(KEEPALIVE_REQUEST, "activity_client_keepalive_request", C2H)
        .schema(&s::KEEPALIVE_REQUEST),
    named(
        KEEPALIVE_RESPONSE,
        "activity_client_keepalive_response",
        NameOnly,
    ),
    unnamed(STATE_REFRESH, C2H)
        .schema(&s::STATE_REFRESH)
        .codec(codec!(StateRefresh)),
    named(INCIDENT, "incident", Both)
        .schema(&s::INCIDENT)
        .codec(codec!(Incident)),
    named(ALLOCATE_ENTITY_INDICES, "allocate_entity_indices", C2H)
        .schema(&s::ALLOCATE_ENTITY_INDICES)
        .codec(codec!(SlotRequest)),
    named(FREE_ENTITY_INDICES, "free_entity_indices", C2H)
        .schema(&s::FREE_ENTITY_INDICES)
        .codec(codec!(EntitySlotMask)),
    named(
        CLIENT_AUTHORITATIVE_DATA_UPDATE,
        "client_authoritative_data_update",
        C2H,
    )
    .schema(&s::CLIENT_AUTHORITATIVE_DATA_UPDATE)
    .codec(codec!(ClientState)),
    named(CLIENT_IDENTITY_UPDATE, "client_identity_update", C2H)
        .schema(&s::CLIENT_IDENTITY_UPDATE)
        .codec(codec!(ClientIdentity)),
    named(
        CLAIM_AUTHORITY,
        "claim_authority_over_abandoned_entity_slots",
        H2C,
    )
    .codec(codec!(EntitySlotMask)),
    named(PURGE_NOTICE, "purge_abandoned_entity_slots", H2C).codec(codec!(Purge)),
    unnamed(26, C2H).schema(&s::ABANDON),
    unnamed(PURGE_REQUEST, C2H)
        .schema(&s::PURGE_REQUEST)
        .codec(codec!(Purge)),
    named(RESET_AUTHORITY, "reset_entity_slot_authority_mask", H2C)
        .schema(&s::RESET_ENTITY_SLOT_AUTHORITY_MASK)
        .codec(codec!(AuthorityToken)),
    named(
        RESET_AUTHORITY_ACK,
        "reset_entity_slot_authority_mask_acknowledgement",
        C2H,
    )
    .schema(&s::RESET_ACKNOWLEDGEMENT)
    .codec(codec!(AuthorityToken)),
    named(QUERY_AUTHORITY, "query_entity_slot_authority_mask", H2C)
        .schema(&s::QUERY_ENTITY_SLOT_AUTHORITY_MASK)
        .codec(codec!(AuthorityToken)),
    unnamed(AUTHORITY_BUBBLE_MASK, C2H)
        .schema(&s::AUTHORITY_BUBBLE_MASK)
        .codec(codec!(BubbleMaskAnswer)),
    unnamed(AUTHORITY_FULL_MASK, C2H)
        .schema(&s::AUTHORITY_FULL_MASK)
        .codec(codec!(FullMaskAnswer)),
    named(ABDICATE_AUTHORITY, "abdicate_authority", C2H)
        .schema(&s::ABDICATE_AUTHORITY)
        .codec(codec!(Abdication)),
    unnamed(34, C2H),
    unnamed(35, NameOnly),
    unnamed(36, NameOnly),
    named(CONNECTIVITY_FAILURE, "connectivity_failure", Both)
        .schema(&s::CONNECTIVITY_FAILURE)
        .codec(codec!(ConnectivityFailure)),
    named(
        MEMBERSHIP_ACKNOWLEDGEMENT,
        "membership_acknowledgement",
        C2H,
    )
    .schema(&s::MEMBERSHIP_ACKNOWLEDGEMENT)
    .codec(codec!(MembershipAcknowledgement)),
    named(39, "send_client_heartbeat", C2H),
    named(SCRIPT_STATE, "script_state", H2C),
    named(SCRIPT_EVENT, "script_event", H2C),
    unnamed(42, NameOnly),
    unnamed(43, C2H),
    named(ADVANCE_REPLICATION_EPOCH, "advance_replication_epoch", H2C)
        .schema(&s::ADVANCE_REPLICATION_EPOCH)
        .codec(codec!(AdvanceEpoch)),
    named(45, "reservations_failed", H2C),
    unnamed(46, C2H),
    unnamed(47, C2H),
    unnamed(48, C2H).schema(&s::SPECULATIVE_MIGRATION),
    unnamed(49, C2H).schema(&s::HIGH_WATER),
    unnamed(50, C2H),
    unnamed(51, NameOnly),
    named(PATCH_EPOCH, "patch_epoch", C2H)
        .schema(&s::PATCH_EPOCH)
        .codec(codec!(PatchEpoch)),
    unnamed(53, NameOnly),
    named(BUBBLE_HOST_STATE, "bubble_host_state_update", H2C)
        .schema(&s::BUBBLE_HOST_STATE)
        .codec(codec!(BubbleHostState)),
    unnamed(55, NameOnly),
    named(PERF_REQUEST_KILL, "perf_request_kill", H2C),
    named(PERF_REQUEST_REFLECT, "perf_request_reflect", H2C),
    unnamed(58, NameOnly),
];

/// The declaration of `id`; `None` past the table's 59 ids (AH "Message ids").
pub fn message(id: u32) -> Option<&'static Message> {
    MESSAGES.get(usize::try_from(id).ok()?)
}

/// A printable label for any id: the name, or `message_N` where the pages give none.
pub fn label(id: u32) -> String {
    message(id).map_or_else(|| format!("message_{id}"), Message::label)
}

/// The declaration a name or id names, as `vex decode` takes them: an id, or the game's
/// name where the pages give it.
pub fn find(name_or_id: &str) -> Option<&'static Message> {
    match name_or_id.parse::<u32>() {
        Ok(id) => message(id),
        Err(_) => MESSAGES.iter().find(|m| m.name == Some(name_or_id)),
    }
}

/// True when the client can send `id` (AH "Message ids": the client sender set); false
/// for host-to-client, local and name-only ids and for ids past the table.
pub fn client_sends(id: u32) -> bool {
    message(id).is_some_and(Message::client_sends)
}

#[cfg(test)]
mod tests;
