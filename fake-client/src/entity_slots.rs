//! Entity slots after the join: the client can return slots with message 21 and ask for
//! more with message 20, which the host answers with a message 0 grant (SR "hand out
//! entity indices"; facts 4.3, 4.4; HOST-04, SLOTS-02).

use crate::core::ClientCore;
use crate::rules::Rule;
use vex_wire::activity::ids;
use vex_wire::activity::small::{ENTITY_SLOTS, EntitySlotMask, SLOT_MASK_LEN};
use vex_wire::time::Instant;

/// Slots the client returns with message 21: the highest it holds.
pub const RETURNED_SLOTS: usize = 32;
/// Slots the client then asks for with message 20.
pub const REQUESTED_SLOTS: i64 = 8;
/// Message 20's count is an i32 with bias 2^31 (facts 4.4).
const COUNT_BIAS: i64 = 0x8000_0000;

impl ClientCore {
    /// Message 0: the grant is ORed into the lease (SLOTS-01).
    pub(crate) fn on_slots_allocated(&mut self, payload: &[u8]) {
        if let (Some(slot), Some(mask)) = (self.slot.as_mut(), payload.get(..SLOT_MASK_LEN)) {
            slot.lease.add(&EntitySlotMask(mask.to_vec()));
        }
    }

    /// Once its time has come: returns the highest slots held with message 21, then asks
    /// for more with message 20 (see `ClientConfig::slot_request_after_ms`).
    pub(crate) fn request_slots_if_due(&mut self, now: Instant) {
        let Some(slot) = self.slot.as_mut() else {
            return;
        };
        if slot.slot_request_at.is_none_or(|t| t > now) {
            return;
        }
        slot.slot_request_at = None;
        let mut returned = EntitySlotMask::empty();
        for i in (0..ENTITY_SLOTS)
            .rev()
            .filter(|&i| slot.lease.get(i))
            .take(RETURNED_SLOTS)
        {
            returned.set(i);
        }
        slot.lease.remove(&returned);
        slot.awaiting_slots = true;
        let handle = slot.stored_id;
        self.send_activity(now, handle, ids::FREE_ENTITY_INDICES, returned.0);
        let count = (REQUESTED_SLOTS + COUNT_BIAS) as u32;
        let body = count.to_be_bytes().to_vec();
        self.send_activity(now, handle, ids::ALLOCATE_ENTITY_INDICES, body);
    }

    /// At the deadline: a message 20 the host never answered (HOST-04).
    pub(crate) fn check_slot_request_answered(&mut self) {
        if self.slot.as_ref().is_some_and(|s| s.awaiting_slots) {
            let reason = "message 20 got no message 0 grant".to_string();
            self.violate(Rule::Host04, None, None, reason);
        }
    }
}
