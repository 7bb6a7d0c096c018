//! Replicated objects (NS "Replicated objects, service 123"): a family subscription on
//! service 12 is answered (13, empty) and followed by a full snapshot of that family on
//! service 123, one version past the link's last for it. Family 4 holds the player's
//! character object, raw (encoding 3), its first qword the key; every other family's
//! snapshot names no object, which is legal.

use super::LobbyServices;
use crate::link::Links;
use crate::link_id::LinkId;
use vex_wire::bap::header::InnerHeader;
use vex_wire::bap::queuez::{
    ACCOUNT_FAMILY, ACCOUNT_OBJECT, CHARACTER_OBJECT, ENCODING_RAW, FamilyUpdate, MAX_PAYLOAD,
    ObjectUpdate, Subscription, UPDATE, Update,
};

/// The character object's payload: its key, then zeros. The pages do not give the
/// object's size or fields; a raw payload shorter than the slot is copied as it is.
const CHARACTER_PAYLOAD: usize = 64;

impl LobbyServices {
    /// After answering a subscription (service 12, or web-service opcode 206): the
    /// subscribed family's snapshot on service 123.
    pub(crate) fn push_family(&self, links: &mut Links, link: LinkId, sub: Subscription) {
        let Some(l) = links.get_mut(link) else {
            return;
        };
        let family = u32::from(sub.family);
        let version = l.next_queuez_version(family);
        let update = Update {
            families: vec![FamilyUpdate {
                family,
                root: sub.root,
                version,
                full_snapshot: true,
                objects: self.family_objects(family),
            }],
        };
        for body in links.outbound().queuez(update) {
            let header = InnerHeader::request(UPDATE, 0);
            links.send_with(link, |l| l.framed(l.push_type(), header, &body));
        }
    }

    /// What a family holds: family 4, the player's character.
    fn family_objects(&self, family: u32) -> Vec<ObjectUpdate> {
        if family != ACCOUNT_FAMILY {
            return Vec::new();
        }
        let key = self.player.character_id;
        vec![raw(CHARACTER_OBJECT, key, CHARACTER_PAYLOAD)]
    }
}

/// An object of `len` raw bytes whose first qword is `key`.
pub fn raw(object_id: u32, key: u64, len: usize) -> ObjectUpdate {
    let mut payload = key.to_be_bytes().to_vec();
    payload.resize(len.max(8), 0);
    ObjectUpdate {
        object_id,
        key,
        encoding: ENCODING_RAW,
        payload,
    }
}

/// The account object at its full size, `extra` bytes past it.
pub fn account(key: u64, extra: usize) -> ObjectUpdate {
    raw(ACCOUNT_OBJECT, key, MAX_PAYLOAD + extra)
}
