//! What the lobby keeps across restarts, as the host core holds it: per account, its
//! character, the item instances the character holds, and the family-4 objects with
//! their revision (NS "Replicated objects, service 123", "The reply's version barrier").
//! A database (`vex-store`) loads it at start and keeps every [`Write`](super::Write);
//! without one, the scenario seeds it.
//!
//! The pages give the account and character objects' ids but not their fields: the
//! character object's bytes are Vex's choice ([`character_payload`]).

use vex_wire::bap::queuez::{ACCOUNT_FAMILY, CHARACTER_OBJECT, ENCODING_RAW, ObjectUpdate};
use vex_wire::scenario::Scenario;

/// The character object's size, bytes: Vex's choice (the pages give no size); a raw
/// payload shorter than the slot is copied as it is.
pub const CHARACTER_PAYLOAD: usize = 64;
/// Where the character object holds the equipped item instance (u64 BE), after its key:
/// Vex's choice.
const EQUIPPED_AT: usize = 8;

/// A replicated object as the lobby stores it: raw bytes whose first qword is its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredObject {
    /// The family, 0 to 7.
    pub family: u32,
    /// The slot's object id (a definition id, NS "Replicated objects, service 123").
    pub object_id: u32,
    /// The object key, the payload's first qword.
    pub key: u64,
    /// The object's raw bytes.
    pub payload: Vec<u8>,
}

impl StoredObject {
    /// The object as a service-123 raw object (encoding 3).
    pub fn update(&self) -> ObjectUpdate {
        ObjectUpdate {
            object_id: self.object_id,
            key: self.key,
            encoding: ENCODING_RAW,
            payload: self.payload.clone(),
        }
    }
}

/// An account as the lobby stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredAccount {
    /// The account SOID, the family-4 root.
    pub account: u64,
    /// The character id.
    pub character: u64,
    /// The item instances the character holds.
    pub items: Vec<u64>,
    /// The family-4 objects' revision: one more per committed change.
    pub revision: u64,
    /// The family-4 objects.
    pub objects: Vec<StoredObject>,
    /// How many Investment sign-ins (web-service 503) the account made.
    pub sign_ins: u64,
}

impl StoredAccount {
    /// The item instance the character object names as equipped (0: none).
    pub fn equipped(&self) -> u64 {
        self.character_object()
            .and_then(|o| o.payload.get(EQUIPPED_AT..EQUIPPED_AT + 8))
            .and_then(|b| b.try_into().ok())
            .map_or(0, u64::from_be_bytes)
    }

    /// The family-4 objects with `item` equipped: the character object rewritten.
    pub fn objects_equipping(&self, item: u64) -> Vec<StoredObject> {
        let mut objects = self.objects.clone();
        for o in objects
            .iter_mut()
            .filter(|o| o.object_id == CHARACTER_OBJECT)
        {
            o.payload = character_payload(o.key, item);
        }
        objects
    }

    fn character_object(&self) -> Option<&StoredObject> {
        self.objects
            .iter()
            .find(|o| o.object_id == CHARACTER_OBJECT)
    }
}

/// Everything the lobby stores.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoredLobby {
    /// The accounts, by account id order.
    pub accounts: Vec<StoredAccount>,
}

impl StoredLobby {
    /// What a new store holds for `scenario`: its player's account with the character
    /// object (nothing equipped) at revision 1, and the items the scenario's lobby gives.
    pub fn seed(scenario: &Scenario) -> Self {
        let player = scenario.player;
        let character = StoredObject {
            family: ACCOUNT_FAMILY,
            object_id: CHARACTER_OBJECT,
            key: player.character_id,
            payload: character_payload(player.character_id, 0),
        };
        Self {
            accounts: vec![StoredAccount {
                account: player.account_soid,
                character: player.character_id,
                items: scenario.lobby.items.clone(),
                revision: 1,
                objects: vec![character],
                sign_ins: 0,
            }],
        }
    }
}

/// The character object's bytes (Vex's choice): the key (u64 BE, the payload's first
/// qword as QZ-01 wants), the equipped item instance (u64 BE), zeros to
/// [`CHARACTER_PAYLOAD`].
pub fn character_payload(key: u64, equipped: u64) -> Vec<u8> {
    let mut payload = key.to_be_bytes().to_vec();
    payload.extend_from_slice(&equipped.to_be_bytes());
    payload.resize(CHARACTER_PAYLOAD, 0);
    payload
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seed_holds_the_players_character_with_nothing_equipped() {
        let lobby = StoredLobby::seed(&Scenario::builtin());
        let [account] = lobby.accounts.as_slice() else {
            panic!("one account: {lobby:?}");
        };
        assert_eq!(account.equipped(), 0);
        assert_eq!(account.items.len(), 2);
        let item = account.items[1];
        let equipping = StoredAccount {
            objects: account.objects_equipping(item),
            ..account.clone()
        };
        assert_eq!(equipping.equipped(), item);
        assert_eq!(
            equipping.objects[0].payload[..8],
            account.character.to_be_bytes()
        );
    }
}
