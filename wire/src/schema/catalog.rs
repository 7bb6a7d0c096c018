//! Every body `vex decode` and `vex encode` know, by the game's name, by message id, or as
//! `auth:TYPE` for a slot type's Auth body.

use super::kind::Schema;
use super::{messages as m, tables as t};
use crate::activity::ids;

/// Message id, then its body's schema.
const MESSAGES: [(u32, &Schema); 30] = [
    (ids::ENTITY_SLOTS_ALLOCATED, &m::ENTITY_SLOTS_ALLOCATED),
    (ids::GLOBAL_ACTIVITY_STATE, &m::GLOBAL_ACTIVITY_STATE),
    (ids::WORLD_GLOBALS_STATE, &m::WORLD_GLOBALS_STATE),
    (ids::JOIN_REQUEST, &m::JOIN_REQUEST),
    (ids::JOIN_RESULT, &m::JOIN_RESULT),
    (11, &m::START_NEW_ACTIVITY),
    (14, &m::RELEASE_RESERVATION),
    (ids::PEER_LEAVE_REQUEST, &m::PEER_LEAVE_REQUEST),
    (ids::KEEPALIVE_REQUEST, &m::KEEPALIVE_REQUEST),
    (ids::STATE_REFRESH, &m::STATE_REFRESH),
    (ids::INCIDENT, &m::INCIDENT),
    (ids::ALLOCATE_ENTITY_INDICES, &m::ALLOCATE_ENTITY_INDICES),
    (ids::FREE_ENTITY_INDICES, &m::FREE_ENTITY_INDICES),
    (
        ids::CLIENT_AUTHORITATIVE_DATA_UPDATE,
        &m::CLIENT_AUTHORITATIVE_DATA_UPDATE,
    ),
    (23, &m::CLIENT_IDENTITY_UPDATE),
    (26, &m::ABANDON),
    (27, &m::PURGE_REQUEST),
    (28, &m::RESET_ENTITY_SLOT_AUTHORITY_MASK),
    (29, &m::RESET_ACKNOWLEDGEMENT),
    (30, &m::QUERY_ENTITY_SLOT_AUTHORITY_MASK),
    (31, &m::AUTHORITY_BUBBLE_MASK),
    (32, &m::AUTHORITY_FULL_MASK),
    (33, &m::ABDICATE_AUTHORITY),
    (37, &m::CONNECTIVITY_FAILURE),
    (
        ids::MEMBERSHIP_ACKNOWLEDGEMENT,
        &m::MEMBERSHIP_ACKNOWLEDGEMENT,
    ),
    (48, &m::SPECULATIVE_MIGRATION),
    (49, &m::HIGH_WATER),
    (
        ids::ADVANCE_REPLICATION_EPOCH,
        &m::ADVANCE_REPLICATION_EPOCH,
    ),
    (ids::PATCH_EPOCH, &m::PATCH_EPOCH),
    (ids::BUBBLE_HOST_STATE, &m::BUBBLE_HOST_STATE),
];

/// Slot type, then its Auth body's schema (AH "Key slot types").
const AUTH: [(i8, &Schema); 8] = [
    (2, &t::COMBATANT),
    (3, &t::OBJECTIVE),
    (13, &t::PARTICIPATION),
    (17, &t::LIFETIME),
    (18, &t::ACTIVITY_TIMER),
    (24, &t::CHANNEL),
    (65, &t::GHOST_LINK),
    (67, &t::TEAM_SIDE),
];

/// Bodies that are not messages or slot bodies but have names of their own.
const OTHERS: [&Schema; 3] = [&t::CLIENT_REF, &t::CLOCK_WINDOW, &m::SELECTION_DESCRIPTOR];

/// The schema for `name`: a message name or id, `auth:TYPE`, or another body's name.
pub fn lookup(name: &str) -> Option<&'static Schema> {
    if let Some(ty) = name.strip_prefix("auth:") {
        let ty: i8 = ty.parse().ok()?;
        return AUTH.iter().find(|(t, _)| *t == ty).map(|(_, s)| *s);
    }
    if let Ok(id) = name.parse::<u32>() {
        return MESSAGES.iter().find(|(i, _)| *i == id).map(|(_, s)| *s);
    }
    MESSAGES
        .iter()
        .map(|(_, s)| *s)
        .chain(AUTH.iter().map(|(_, s)| *s))
        .chain(OTHERS)
        .find(|s| s.name == name)
}

/// Every name [`lookup`] takes, one line each, for help text.
pub fn names() -> Vec<String> {
    let messages = MESSAGES
        .iter()
        .map(|(id, s)| format!("{id:>2}  {}", s.name));
    let auth = AUTH.iter().map(|(ty, s)| format!("auth:{ty}  {}", s.name));
    let others = OTHERS.iter().map(|s| format!("    {}", s.name));
    messages.chain(auth).chain(others).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_by_name_id_and_slot_type() {
        assert_eq!(lookup("join_result").map(|s| s.name), Some("join_result"));
        assert_eq!(lookup("4").map(|s| s.name), Some("join_result"));
        assert_eq!(
            lookup("auth:17").map(|s| s.name),
            Some("activity_lifetime_sensor")
        );
        assert_eq!(lookup("client_ref").map(|s| s.name), Some("client_ref"));
        assert!(lookup("auth:99").is_none());
        assert!(lookup("nope").is_none());
        for (id, s) in MESSAGES {
            assert_eq!(ids::name(id).unwrap_or(s.name), s.name, "message {id}");
        }
    }
}
