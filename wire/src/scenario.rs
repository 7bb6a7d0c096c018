//! Scenario content: what both the host and the client's packages know about an
//! activity: its destination, bubbles, placed objects and their slot tables.
//!
//! AH "Two kinds of authority": the activity catalog is inside the client, so the host and
//! the client must agree on content. Facts 4.7: a usable roster needs a type-13 and a
//! type-17 slot; slots are sorted by index; per slot the Auth and Sense schemas exist or not.

use crate::activity::selection::SelectionDescriptor;
use crate::activity::slot::{
    ClientRef, SlotSchemas, TYPE_CHANNEL, TYPE_CONFIGURATION, TYPE_GHOST_LINK, TYPE_LIFETIME,
    TYPE_OBJECTIVE, TYPE_PARTICIPATION, TYPE_TIMER,
};
use crate::scenario_lobby::Lobby;
use std::collections::BTreeMap;

/// One slot of a placed object's slot table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotDecl {
    /// The slot type.
    pub slot_type: i8,
    /// The slot index.
    pub index: i16,
    /// Which schemas the slot has.
    pub schemas: SlotSchemas,
}

/// A placed object: a registry key and its slot table. `bubble` is `None` for a top-level
/// group, else the bubble whose per-bubble roster sub-block lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacedObject {
    /// The registry key (also the group key in message 5).
    pub key: u32,
    /// The bubble of a per-bubble group; `None` for a top-level group.
    pub bubble: Option<u8>,
    /// The slot table, sorted by index.
    pub slots: Vec<SlotDecl>,
}

/// The player the emulated client signs in as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Player {
    /// The member key of join_request (8 bytes little-endian on the wire).
    pub member_key: u64,
    /// The signed-in character id (join_request bit 330); the roster's player key.
    pub character_id: u64,
    /// The account SOID; its high half shapes session ids (ENV-09).
    pub account_soid: u64,
    /// The Steam account SignOn names (request field 22).
    pub steam_id: u64,
}

impl Player {
    /// The Steam id of a player whose scenario names none.
    pub const STEAM_ID: u64 = 76_561_197_960_287_930;
}

/// An activity's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scenario {
    /// A short name for reports.
    pub name: String,
    /// The activity host id the client asks for in service 16.
    pub activity_host_id: u64,
    /// The selection descriptor the client sends in service 6.
    pub destination: SelectionDescriptor,
    /// Bubbles in the activity (GLOBAL-02).
    pub bubble_count: u8,
    /// The arrival slice set; its bubble is slice set / 8.
    pub arrival_slice_set: i16,
    /// The placed objects with roster slots.
    pub objects: Vec<PlacedObject>,
    /// The player.
    pub player: Player,
    /// Names for slots, as a mission script asks for them (`slot("ghost")`): a scenario
    /// file's `name = "..."` on a slot.
    pub slot_names: BTreeMap<String, ClientRef>,
    /// What the lobby serves before the activity.
    pub lobby: Lobby,
    /// The activity authors a cycle phase, which a host may own and pin with type 17's
    /// cycle_override_on (AH "Type 17": "Keep the override off unless the host owns an
    /// authored phase"; T17-08).
    pub authored_phase: bool,
}

/// One slot of every other type whose body the pages document, with the schemas each
/// has (AH "Slot types", "Key slot types"), and a second lifetime slot (T17-05). Type 67
/// is left out: a body for it replaces the whole faction matrix (T67-01).
fn every_documented_type() -> Vec<SlotDecl> {
    [
        (1, AUTH_AND_SENSE),
        (2, AUTH_AND_SENSE),
        (4, AUTH_AND_SENSE),
        (5, AUTH_ONLY),
        (TYPE_LIFETIME, AUTH_ONLY),
        (30, AUTH_AND_SENSE),
        (31, AUTH_ONLY),
        (37, AUTH_ONLY),
        (43, AUTH_AND_SENSE),
        (53, AUTH_ONLY),
    ]
    .into_iter()
    .zip(0..)
    .map(|((slot_type, schemas), index)| SlotDecl {
        slot_type,
        index,
        schemas,
    })
    .collect()
}

const AUTH_AND_SENSE: SlotSchemas = SlotSchemas {
    auth: true,
    sense: true,
};
const AUTH_ONLY: SlotSchemas = SlotSchemas {
    auth: true,
    sense: false,
};

impl Scenario {
    /// The built-in scenario: a two-bubble patrol destination with the roster of facts
    /// 10.1's message-5 example (a top-level group with a type-13 and a type-17 slot, and a
    /// per-bubble group with a type-8 slot in bubble 0, which also holds an objective (3), a
    /// timer (18), a channel (24) and a ghost link (65) for the host's requests), and a
    /// type-8 group in bubble 1 to move into.
    pub fn builtin() -> Self {
        Self {
            name: "edz_patrol".into(),
            activity_host_id: 0x0000_0000_0000_1234,
            destination: SelectionDescriptor {
                reason: 2,
                source_activity: 10,
                destination_activity: 42,
                arrival_hash: Some(0x1122_3344),
                spawn_hash: Some(0x5566_7788),
                name: Some("edz_patrol".into()),
                ..SelectionDescriptor::default()
            },
            bubble_count: 2,
            arrival_slice_set: 0,
            objects: vec![
                PlacedObject {
                    key: 0xAAAA_0001,
                    bubble: None,
                    slots: vec![
                        SlotDecl {
                            slot_type: TYPE_PARTICIPATION,
                            index: 0,
                            schemas: AUTH_AND_SENSE,
                        },
                        SlotDecl {
                            slot_type: TYPE_LIFETIME,
                            index: 1,
                            schemas: AUTH_ONLY,
                        },
                        SlotDecl {
                            slot_type: TYPE_PARTICIPATION,
                            index: 2,
                            schemas: AUTH_AND_SENSE,
                        },
                    ],
                },
                PlacedObject {
                    key: 0xBBBB_0001,
                    bubble: Some(0),
                    slots: vec![
                        SlotDecl {
                            slot_type: TYPE_CONFIGURATION,
                            index: 0,
                            schemas: AUTH_ONLY,
                        },
                        SlotDecl {
                            slot_type: TYPE_OBJECTIVE,
                            index: 1,
                            schemas: AUTH_AND_SENSE,
                        },
                        SlotDecl {
                            slot_type: TYPE_TIMER,
                            index: 2,
                            schemas: AUTH_ONLY,
                        },
                        SlotDecl {
                            slot_type: TYPE_CHANNEL,
                            index: 3,
                            schemas: AUTH_ONLY,
                        },
                        SlotDecl {
                            slot_type: TYPE_GHOST_LINK,
                            index: 4,
                            schemas: AUTH_AND_SENSE,
                        },
                    ],
                },
                PlacedObject {
                    key: 0xBBBB_0003,
                    bubble: Some(0),
                    slots: every_documented_type(),
                },
                PlacedObject {
                    key: 0xBBBB_0002,
                    bubble: Some(1),
                    slots: vec![
                        SlotDecl {
                            slot_type: TYPE_CONFIGURATION,
                            index: 0,
                            schemas: AUTH_ONLY,
                        },
                        SlotDecl {
                            slot_type: TYPE_PARTICIPATION,
                            index: 1,
                            schemas: AUTH_AND_SENSE,
                        },
                    ],
                },
            ],
            player: Player {
                member_key: 0x0102_0304_0506_0708,
                character_id: 0x0123_4567_89AB_CDEF,
                account_soid: 0x9EAA_3001_0000_0001,
                steam_id: Player::STEAM_ID,
            },
            slot_names: [
                ("objective", TYPE_OBJECTIVE, 1),
                ("timer", TYPE_TIMER, 2),
                ("channel", TYPE_CHANNEL, 3),
                ("ghost", TYPE_GHOST_LINK, 4),
            ]
            .into_iter()
            .map(|(name, slot_type, index)| {
                let slot = ClientRef {
                    key: 0xBBBB_0001,
                    slot_type,
                    index,
                };
                (name.to_string(), slot)
            })
            .collect(),
            lobby: Lobby {
                items: vec![0x1000_0000_0000_0001, 0x1000_0000_0000_0002],
                ..Lobby::default()
            },
            authored_phase: false,
        }
    }

    /// The built-in scenario with `extra` more placed objects in bubble 0, each with a
    /// configuration, two objectives, two channels and two ghost links, for load and
    /// benchmarks. A sub-block registers at most 96 keys (facts 4.7), so `extra` is
    /// clamped to what fits beside the built-in objects of bubble 0.
    pub fn large(extra: usize) -> Self {
        let mut s = Self::builtin();
        s.name = "edz_patrol_large".into();
        let held = s.objects.iter().filter(|o| o.bubble == Some(0)).count();
        let slot = |slot_type, index, schemas| SlotDecl {
            slot_type,
            index,
            schemas,
        };
        for i in 0..extra.min(crate::activity::sensor_auth::MAX_SUB_KEYS - held) {
            s.objects.push(PlacedObject {
                key: 0xCC00_0000 + i as u32,
                bubble: Some(0),
                slots: vec![
                    slot(TYPE_CONFIGURATION, 0, AUTH_ONLY),
                    slot(TYPE_OBJECTIVE, 1, AUTH_AND_SENSE),
                    slot(TYPE_OBJECTIVE, 2, AUTH_AND_SENSE),
                    slot(TYPE_CHANNEL, 3, AUTH_ONLY),
                    slot(TYPE_CHANNEL, 4, AUTH_ONLY),
                    slot(TYPE_GHOST_LINK, 5, AUTH_AND_SENSE),
                    slot(TYPE_GHOST_LINK, 6, AUTH_AND_SENSE),
                ],
            });
        }
        s
    }

    /// The bubble the player arrives in: the arrival slice set divided by 8 (AH type 17
    /// "current_bubble").
    pub fn arrival_bubble(&self) -> u8 {
        (self.arrival_slice_set.max(0) / 8) as u8
    }

    /// The schemas of a slot, or `None` when the reference does not resolve.
    pub fn schemas_of(&self, slot: &ClientRef) -> Option<(u8, SlotDecl)> {
        let object = self.objects.iter().find(|o| o.key == slot.key)?;
        let decl = object
            .slots
            .iter()
            .find(|s| s.slot_type == slot.slot_type && s.index == slot.index)?;
        Some((object.bubble.unwrap_or(u8::MAX), *decl))
    }
}
