//! Every body `vex decode` and `vex encode` know, by the game's name, by message id, or as
//! `auth:TYPE` or `sense:TYPE` for a slot type's Auth or Sense body.

use super::kind::Schema;
use super::{messages as m, tables as t};
use crate::activity::table::{self, MESSAGES};

/// Message id, then its body's schema: the table's rows that have one.
fn messages() -> impl Iterator<Item = (u32, &'static Schema)> {
    MESSAGES
        .iter()
        .filter_map(|m| m.schema.map(|schema| (m.id, schema)))
}

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

/// Slot type, then its Sense body's schema.
const SENSE: [(i8, &Schema); 1] = [(65, &t::GHOST_LINK_SENSE)];

/// The Sense schema of slot type `slot_type`, where Vex declares one.
pub fn sense(slot_type: i8) -> Option<&'static Schema> {
    SENSE.iter().find(|(t, _)| *t == slot_type).map(|(_, s)| *s)
}

/// The Auth schema of slot type `slot_type`, where Vex declares one.
pub fn auth(slot_type: i8) -> Option<&'static Schema> {
    AUTH.iter().find(|(t, _)| *t == slot_type).map(|(_, s)| *s)
}

/// The schema for `name`: a message name or id, `auth:TYPE`, or another body's name.
pub fn lookup(name: &str) -> Option<&'static Schema> {
    if let Some(ty) = name.strip_prefix("auth:") {
        return auth(ty.parse().ok()?);
    }
    if let Some(ty) = name.strip_prefix("sense:") {
        return sense(ty.parse().ok()?);
    }
    if let Ok(id) = name.parse::<u32>() {
        return table::message(id)?.schema;
    }
    messages()
        .map(|(_, s)| s)
        .chain(AUTH.iter().map(|(_, s)| *s))
        .chain(OTHERS)
        .find(|s| s.name == name)
}

/// Every name [`lookup`] takes, one line each, for help text.
pub fn names() -> Vec<String> {
    let messages = messages().map(|(id, s)| format!("{id:>2}  {}", s.name));
    let auth = AUTH.iter().map(|(ty, s)| format!("auth:{ty}  {}", s.name));
    let sense = SENSE
        .iter()
        .map(|(ty, s)| format!("sense:{ty}  {}", s.name));
    let others = OTHERS.iter().map(|s| format!("    {}", s.name));
    messages.chain(auth).chain(sense).chain(others).collect()
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
        assert!(lookup("5").is_none(), "message 5 has no schema");
        let by_id = names()
            .iter()
            .filter(|n| n.trim_start().starts_with(char::is_numeric))
            .count();
        assert_eq!(by_id, 30, "every message the table gives a schema");
    }
}
