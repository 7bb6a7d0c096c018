//! The entity slots of an activity client: the lease every message 0 is ORed into, and
//! the scripted request that returns slots with message 21 and asks for more with message
//! 20, which the host answers with a message 0 grant (AH "The main messages"; SR "hand out
//! entity indices"; facts 4.3, 4.4; SLOTS-01, SLOTS-02, HOST-04).

use crate::had_time_to_answer;
use crate::links::Outgoing;
use crate::rules::Rule;
use crate::verdict::Verdict;
use vex_wire::activity::body::Body;
use vex_wire::activity::ids;
use vex_wire::activity::small::{ENTITY_SLOTS, EntitySlotMask, SLOT_MASK_LEN, SlotRequest};
use vex_wire::time::Instant;

/// Slots the client returns with message 21: the highest it holds.
const RETURNED_SLOTS: usize = 32;
/// Slots the client then asks for with message 20.
pub(crate) const REQUESTED_SLOTS: i32 = 8;

/// A message 20 waiting for its message 0.
#[derive(Debug, Clone, Copy)]
struct SlotAsk {
    /// When it was sent.
    at: Instant,
    /// Slots the client returned with message 21 just before.
    returned: usize,
}

/// The slots the client holds and its request for more (AH "The main messages"; SR "hand
/// out entity indices"; facts 4.3, 4.4).
#[derive(Debug)]
pub(crate) struct EntitySlots {
    /// Every message 0 ORed, less what the client returned.
    lease: EntitySlotMask,
    /// When the client returns slots and asks for more (HOST-04).
    request_at: Option<Instant>,
    /// A message 20 waiting for its message 0.
    ask: Option<SlotAsk>,
}

impl Default for EntitySlots {
    fn default() -> Self {
        Self {
            lease: EntitySlotMask::empty(),
            request_at: None,
            ask: None,
        }
    }
}

impl EntitySlots {
    /// The entity slots the client holds.
    pub(crate) fn lease(&self) -> &EntitySlotMask {
        &self.lease
    }

    /// The request is made at `at`, if the script makes one.
    pub(super) fn schedule(&mut self, at: Option<Instant>) {
        self.request_at = at;
    }

    /// When the request is due.
    pub(crate) fn request_due(&self) -> Option<Instant> {
        self.request_at
    }

    /// Message 0, exactly a 1,024-byte mask ORed into the lease (SLOTS-01; facts 4.3): a
    /// shorter one does not decode and is dropped; a longer one breaks the rule too, and
    /// the model applies its first 1,024 bytes (what the client does with the rest is not
    /// documented). It comes in the join burst, or as the answer to a message 20, which
    /// grants free slots, so none the client holds and at least one after the client
    /// returned some (HOST-04); any other is a push the host does not
    /// owe (SLOTS-02).
    pub(super) fn on_allocated(
        &mut self,
        verdict: &mut Verdict,
        idx: u64,
        payload: &[u8],
        in_burst: bool,
    ) {
        let f = Some(idx);
        let Some(mask) = payload.get(..SLOT_MASK_LEN) else {
            let reason = format!(
                "message 0 of {} bytes: the 1,024-byte mask does not decode, dropped before its consumer runs",
                payload.len()
            );
            return verdict.violate(Rule::Slots01, f, Some(8 * payload.len()), reason);
        };
        // bytes past the mask decode fine and name no slot (AH "Body encoding": "A body
        // with unread bits or a trailing byte decodes fine")
        let grant = EntitySlotMask(mask.to_vec());
        let ask = if in_burst { None } else { self.ask.take() };
        let held_before = self.lease.clone();
        self.lease.add(&grant);
        if !in_burst && ask.is_none() {
            let reason = "message 0 outside the join burst, with no message 20 to answer";
            return verdict.violate(Rule::Slots02, f, None, reason.into());
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
            verdict.violate(Rule::Host04, f, None, reason);
        } else if regranted > 0 {
            let reason = format!("message 20's answer grants {regranted} slots the client holds");
            verdict.violate(Rule::Host04, f, None, reason);
        }
    }

    /// The request at `now`: returns the highest slots held with message 21, then asks
    /// for `count` more with message 20 (see `Script::slot_request_after_ms`).
    pub(crate) fn request(&mut self, now: Instant, count: i32) -> [Outgoing; 2] {
        self.request_at = None;
        let mut returned = EntitySlotMask::empty();
        for i in (0..ENTITY_SLOTS)
            .rev()
            .filter(|&i| self.lease.get(i))
            .take(RETURNED_SLOTS)
        {
            returned.set(i);
        }
        self.lease.remove(&returned);
        self.ask = Some(SlotAsk {
            at: now,
            returned: returned.count(),
        });
        let ask = SlotRequest { count };
        [
            Outgoing {
                message: ids::FREE_ENTITY_INDICES,
                body: returned.0,
            },
            Outgoing {
                message: ids::ALLOCATE_ENTITY_INDICES,
                body: ask.encode().unwrap_or_default(), // 32 bits: never fails
            },
        ]
    }

    /// At the deadline `now`: a message 20 the host had time to answer and did not
    /// (HOST-04).
    pub(super) fn check_answered(&self, verdict: &mut Verdict, now: Instant) {
        if self.ask.is_some_and(|a| had_time_to_answer(a.at, now)) {
            let reason = "message 20 got no message 0 grant".to_string();
            verdict.violate(Rule::Host04, None, None, reason);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ANSWER_GRACE_MS;

    fn asked(returned: usize) -> EntitySlots {
        EntitySlots {
            lease: EntitySlotMask::with_range(0..100),
            request_at: None,
            ask: Some(SlotAsk {
                at: Instant::default(),
                returned,
            }),
        }
    }

    /// A zero mask is allowed when every slot is held (facts 4.4): after returning none,
    /// an empty grant is an answer; after returning some, it is not a grant of free slots.
    #[test]
    fn an_empty_grant_is_wrong_only_after_slots_were_returned() {
        let empty = EntitySlotMask::empty().0;
        let (mut s, mut v) = (asked(0), Verdict::new());
        s.on_allocated(&mut v, 1, &empty, false);
        assert!(v.rules().is_empty());
        let (mut s, mut v) = (asked(32), Verdict::new());
        s.on_allocated(&mut v, 1, &empty, false);
        assert_eq!(v.rules(), [Rule::Host04]);
    }

    /// A request the host had less than the grace period to answer is not judged.
    #[test]
    fn an_unanswered_request_is_judged_after_the_grace_period() {
        let (s, mut v) = (asked(32), Verdict::new());
        s.check_answered(&mut v, Instant::from_millis(ANSWER_GRACE_MS - 1));
        assert!(v.rules().is_empty());
        s.check_answered(&mut v, Instant::from_millis(ANSWER_GRACE_MS));
        assert_eq!(v.rules(), [Rule::Host04]);
    }

    /// A grant of free slots passes; one of held slots does not; an unasked one is SLOTS-02;
    /// a short message 0 is dropped (SLOTS-01) and the request still waits.
    #[test]
    fn grants_are_judged_against_the_lease() {
        let (mut s, mut v) = (asked(32), Verdict::new());
        s.on_allocated(&mut v, 1, &[0; SLOT_MASK_LEN - 1], false);
        assert_eq!(v.rules(), [Rule::Slots01], "one byte short");
        s.on_allocated(&mut v, 2, &EntitySlotMask::with_range(200..208).0, false);
        assert_eq!(v.rules(), [Rule::Slots01], "free slots");
        s.on_allocated(&mut v, 3, &EntitySlotMask::with_range(200..208).0, false);
        assert_eq!(
            v.rules(),
            [Rule::Slots01, Rule::Slots02],
            "no request outstanding"
        );
        let (mut s, mut v) = (asked(32), Verdict::new());
        s.on_allocated(&mut v, 1, &EntitySlotMask::with_range(0..8).0, false);
        assert_eq!(v.rules(), [Rule::Host04], "held slots");
    }

    /// SLOTS-01 at each length boundary, in the burst and as the answer to message 20:
    /// 1,024 bytes passes, and so do one long and twice the length (AH "Body encoding":
    /// bytes past the body decode fine); empty, one byte and one short are caught. A long
    /// mask's first 1,024 bytes are ORed into the lease; a short one is dropped whole.
    #[test]
    fn a_mask_is_exactly_1024_bytes() {
        for in_burst in [true, false] {
            for len in [
                0,
                1,
                SLOT_MASK_LEN - 1,
                SLOT_MASK_LEN,
                SLOT_MASK_LEN + 1,
                2 * SLOT_MASK_LEN,
            ] {
                let mut body = EntitySlotMask::with_range(200..208).0;
                body.resize(len, 0xFF);
                let (mut s, mut v) = (asked(0), Verdict::new());
                s.on_allocated(&mut v, 1, &body, in_burst);
                let want: &[Rule] = if len >= SLOT_MASK_LEN {
                    &[]
                } else {
                    &[Rule::Slots01]
                };
                assert_eq!(v.rules(), want, "{len} bytes, in burst: {in_burst}");
                assert_eq!(
                    s.lease().get(200),
                    len >= SLOT_MASK_LEN,
                    "{len} bytes: the grant applied"
                );
                assert!(
                    !s.lease().get(8191),
                    "{len} bytes: nothing past the mask applied"
                );
            }
        }
    }
}
