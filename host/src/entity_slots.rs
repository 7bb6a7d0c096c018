//! Entity slots after the join: message 20 asks for more and gets a message 0 grant of the
//! lowest free slots; message 21 returns slots with no reply (SR "hand out entity
//! indices"; facts 4.3, 4.4; HOST-04).

use crate::core::{HostCore, LinkId};
use crate::fault::Fault;
use std::ops::Range;
use vex_wire::activity::ids::ENTITY_SLOTS_ALLOCATED;
use vex_wire::activity::small::{ENTITY_SLOTS, EntitySlotMask, SLOT_MASK_LEN, SlotRequest};

/// The top 256 slots are the server's and are never granted (facts 4.3).
pub const SERVER_RESERVE: usize = 256;
/// Entity slots granted on a join: every slot below the server reserve (facts 4.3).
pub const JOIN_GRANT: Range<usize> = 0..ENTITY_SLOTS - SERVER_RESERVE;

impl HostCore {
    /// Message 20: a count of 0 or less is refused; any other gets message 0 with the
    /// lowest slots no link holds, which may be none when every slot is held (facts 4.4).
    pub(crate) fn allocate_entity_slots(&mut self, link: LinkId, payload: &[u8]) {
        let count = match SlotRequest::decode(payload) {
            Ok(r) => r.count,
            Err(e) => return self.drop_input(link, format!("allocate_entity_indices: {e}")),
        };
        if count <= 0 {
            let reason = format!("allocate_entity_indices: a count of {count} is refused");
            return self.drop_input(link, reason);
        }
        let joined = self
            .links
            .get(&link)
            .and_then(|l| l.binding.as_ref())
            .is_some_and(|b| b.join.is_some());
        if !joined {
            return self.drop_input(link, "allocate_entity_indices with no joined client".into());
        }
        if self.config.faults.has(Fault::SlotRequestIgnored) {
            return;
        }
        let faults = &self.config.faults;
        let grant = if faults.has(Fault::SlotGrantEmpty) {
            EntitySlotMask::empty()
        } else if faults.has(Fault::SlotGrantHeld) {
            EntitySlotMask::with_range(0..count as usize) // the join grant's lowest slots
        } else {
            self.free_slots(count as usize, None)
        };
        let Some(binding) = self.links.get_mut(&link).and_then(|l| l.binding.as_mut()) else {
            return;
        };
        binding.lease.add(&grant);
        self.push_message(link, ENTITY_SLOTS_ALLOCATED, grant.0);
    }

    /// The lowest `count` slots below the server reserve that no link holds, `except`'s
    /// own lease aside: a join's grant and message 20's (facts 4.3, 4.4), so two clients
    /// never hold one slot (SLOTS-04). A link that joins again may be granted what it
    /// holds already; message 0 only ever adds.
    pub(crate) fn free_slots(&self, count: usize, except: Option<LinkId>) -> EntitySlotMask {
        let mut held = EntitySlotMask::empty();
        let others = self.links.values().filter(|l| Some(l.id) != except);
        for b in others.filter_map(|l| l.binding.as_ref()) {
            held.add(&b.lease);
        }
        let mut grant = EntitySlotMask::empty();
        for i in JOIN_GRANT.filter(|&i| !held.get(i)).take(count) {
            grant.set(i);
        }
        grant
    }

    /// The join burst's grant: every free slot below the reserve (facts 4.3), or under
    /// [`Fault::JoinGrantIgnoresOthers`] all of them, held by another member or not.
    pub(crate) fn join_grant(&self, link: LinkId) -> EntitySlotMask {
        if self.config.faults.has(Fault::JoinGrantIgnoresOthers) {
            EntitySlotMask::with_range(JOIN_GRANT)
        } else {
            self.free_slots(JOIN_GRANT.len(), Some(link))
        }
    }

    /// Message 21: the link stops holding the slots it returns; there is no reply.
    pub(crate) fn free_entity_slots(&mut self, link: LinkId, payload: &[u8]) {
        let Some(mask) = payload.get(..SLOT_MASK_LEN) else {
            let reason = format!("free_entity_indices: {} bytes, not 1,024", payload.len());
            return self.drop_input(link, reason);
        };
        if let Some(binding) = self.links.get_mut(&link).and_then(|l| l.binding.as_mut()) {
            binding.lease.remove(&EntitySlotMask(mask.to_vec()));
        }
    }
}
