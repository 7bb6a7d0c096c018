//! Replicated objects (NS "Replicated objects, service 123"): a family subscription on
//! service 12 is answered (13, empty) and followed by a full snapshot of that family on
//! service 123, one version past the link's last for it. Family 4 under an account the
//! lobby stores holds its family-4 objects, raw (encoding 3), each one's first qword its
//! key; every other family's snapshot names no object, which is legal. A kept change of
//! the family-4 objects is published to every link subscribed to the account's family 4.

use super::LobbyServices;
use super::stored::StoredObject;
use crate::link::Links;
use crate::link_id::LinkId;
use vex_wire::bap::header::InnerHeader;
use vex_wire::bap::queuez::{
    ACCOUNT_FAMILY, ACCOUNT_OBJECT, ENCODING_RAW, FamilyUpdate, MAX_PAYLOAD, ObjectUpdate,
    Subscription, UPDATE, Update,
};

impl LobbyServices {
    /// After answering a subscription (service 12, or web-service opcode 206): the
    /// subscribed family's snapshot on service 123.
    pub(crate) fn push_family(&self, links: &mut Links, link: LinkId, sub: Subscription) {
        let Some(l) = links.get_mut(link) else {
            return;
        };
        let family = u32::from(sub.family);
        let version = l.subscribe_family(family, sub.root);
        let objects = self.family_objects(family, sub.root);
        let update = family_update(family, sub.root, version, true, objects);
        push(links, link, update);
    }

    /// `objects`, the family-4 objects of `account` after a kept change, to every link
    /// subscribed to them, each at its next version (QZ-01).
    pub(crate) fn publish(&self, links: &mut Links, account: u64, objects: &[StoredObject]) {
        let subscribed: Vec<LinkId> = links.ids().collect();
        for link in subscribed {
            let Some(version) = links
                .get_mut(link)
                .and_then(|l| l.push_family_version(ACCOUNT_FAMILY, account))
            else {
                continue;
            };
            let objects = objects.iter().map(StoredObject::update).collect();
            let update = family_update(ACCOUNT_FAMILY, account, version, false, objects);
            push(links, link, update);
        }
    }

    /// What `family` under `root` holds: for family 4, the stored account's objects.
    fn family_objects(&self, family: u32, root: u64) -> Vec<ObjectUpdate> {
        match self.accounts.get(&root) {
            Some(account) if family == ACCOUNT_FAMILY => {
                account.objects.iter().map(StoredObject::update).collect()
            }
            _ => Vec::new(),
        }
    }
}

/// One family's update, alone in its message.
fn family_update(
    family: u32,
    root: u64,
    version: i32,
    full_snapshot: bool,
    objects: Vec<ObjectUpdate>,
) -> Update {
    Update {
        families: vec![FamilyUpdate {
            family,
            root,
            version,
            full_snapshot,
            objects,
        }],
    }
}

/// Sends `update` on `link` as service-123 pushes, through the outbound hook.
fn push(links: &mut Links, link: LinkId, update: Update) {
    for body in links.outbound().queuez(update) {
        let header = InnerHeader::request(UPDATE, 0);
        links.send_with(link, |l| l.framed(l.push_type(), header, &body));
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
