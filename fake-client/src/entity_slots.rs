//! Entity slots after the join: the client can return slots with message 21 and ask for
//! more with message 20, which the host answers with a message 0 grant (SR "hand out
//! entity indices"; facts 4.3, 4.4; HOST-04, SLOTS-02).

use crate::core::ClientCore;
use crate::duties::ANSWER_GRACE_MS;
use crate::rules::Rule;
use vex_wire::activity::ids;
use vex_wire::activity::small::{ENTITY_SLOTS, EntitySlotMask, SLOT_MASK_LEN, SlotRequest};
use vex_wire::time::Instant;

/// Slots the client returns with message 21: the highest it holds.
pub const RETURNED_SLOTS: usize = 32;
/// Slots the client then asks for with message 20.
pub const REQUESTED_SLOTS: i32 = 8;

/// A message 20 waiting for its message 0.
#[derive(Debug, Clone, Copy)]
pub struct SlotAsk {
    /// When it was sent.
    pub at: Instant,
    /// Slots the client returned with message 21 just before.
    pub returned: usize,
}

impl ClientCore {
    /// Message 0, ORed into the lease (SLOTS-01): in the join burst, or as the answer to
    /// a message 20, which grants free slots, so none the client holds and at least one
    /// after the client returned some (HOST-04); any other is a push the host does not
    /// owe (SLOTS-02).
    pub(crate) fn on_slots_allocated(&mut self, idx: u64, payload: &[u8], in_burst: bool) {
        let f = Some(idx);
        let Some(slot) = self.slot.as_mut() else {
            return;
        };
        let Some(mask) = payload.get(..SLOT_MASK_LEN) else {
            return tracing::warn!(
                frame = idx,
                "message 0 of {} bytes, not 1,024: dropped",
                payload.len()
            );
        };
        let grant = EntitySlotMask(mask.to_vec());
        let ask = if in_burst { None } else { slot.slot_ask.take() };
        let held_before = slot.lease.clone();
        slot.lease.add(&grant);
        if !in_burst && ask.is_none() {
            let reason = "message 0 outside the join burst, with no message 20 to answer";
            return self.violate(Rule::Slots02, f, None, reason.into());
        }
        let Some(ask) = ask else {
            return;
        };
        let regranted = (0..ENTITY_SLOTS)
            .filter(|&i| grant.get(i) && held_before.get(i))
            .count();
        if grant.count() == 0 && ask.returned > 0 {
            let reason = format!(
                "message 20's answer grants no slot, though the client had just returned {}",
                ask.returned
            );
            self.violate(Rule::Host04, f, None, reason);
        } else if regranted > 0 {
            let reason = format!("message 20's answer grants {regranted} slots the client holds");
            self.violate(Rule::Host04, f, None, reason);
        }
    }

    /// Once its time has come: returns the highest slots held with message 21, then asks
    /// for more with message 20 (see `Script::slot_request_after_ms`).
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
        slot.slot_ask = Some(SlotAsk {
            at: now,
            returned: returned.count(),
        });
        let handle = slot.stored_id;
        self.send_activity(now, handle, ids::FREE_ENTITY_INDICES, returned.0);
        let body = SlotRequest {
            count: REQUESTED_SLOTS,
        }
        .encode();
        self.send_activity(now, handle, ids::ALLOCATE_ENTITY_INDICES, body);
    }

    /// At the deadline: a message 20 the host had time to answer and did not (HOST-04).
    pub(crate) fn check_slot_request_answered(&mut self, now: Instant) {
        let ask = self.slot.as_ref().and_then(|s| s.slot_ask);
        if ask.is_some_and(|a| now.since(a.at) >= ANSWER_GRACE_MS) {
            let reason = "message 20 got no message 0 grant".to_string();
            self.violate(Rule::Host04, None, None, reason);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_client::{joined, rules};

    fn asked(returned: usize) -> ClientCore {
        let mut c = joined();
        if let Some(slot) = c.slot.as_mut() {
            slot.lease = EntitySlotMask::with_range(0..100);
            slot.slot_ask = Some(SlotAsk {
                at: Instant::default(),
                returned,
            });
        }
        c
    }

    /// A zero mask is allowed when every slot is held (facts 4.4): after returning none,
    /// an empty grant is an answer; after returning some, it is not a grant of free slots.
    #[test]
    fn an_empty_grant_is_wrong_only_after_slots_were_returned() {
        let empty = EntitySlotMask::empty().0;
        let mut c = asked(0);
        c.on_slots_allocated(1, &empty, false);
        assert!(rules(&c).is_empty());
        let mut c = asked(32);
        c.on_slots_allocated(1, &empty, false);
        assert_eq!(rules(&c), [Rule::Host04]);
    }

    /// A request the host had less than the grace period to answer is not judged.
    #[test]
    fn an_unanswered_request_is_judged_after_the_grace_period() {
        let mut c = asked(32);
        c.check_slot_request_answered(Instant::from_millis(ANSWER_GRACE_MS - 1));
        assert!(rules(&c).is_empty());
        c.check_slot_request_answered(Instant::from_millis(ANSWER_GRACE_MS));
        assert_eq!(rules(&c), [Rule::Host04]);
    }

    /// A grant of free slots passes; one of held slots does not; an unasked one is SLOTS-02;
    /// a short message 0 is dropped and the request still waits.
    #[test]
    fn grants_are_judged_against_the_lease() {
        let mut c = asked(32);
        c.on_slots_allocated(1, &[0; 10], false);
        assert!(rules(&c).is_empty());
        c.on_slots_allocated(2, &EntitySlotMask::with_range(200..208).0, false);
        assert!(rules(&c).is_empty(), "free slots");
        c.on_slots_allocated(3, &EntitySlotMask::with_range(200..208).0, false);
        assert_eq!(rules(&c), [Rule::Slots02], "no request outstanding");
        let mut c = asked(32);
        c.on_slots_allocated(1, &EntitySlotMask::with_range(0..8).0, false);
        assert_eq!(rules(&c), [Rule::Host04], "held slots");
    }
}
