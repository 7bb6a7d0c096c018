//! Entity slots after the join: message 20 asks for more and gets a message 0 grant of the
//! lowest free slots of the activity; message 21 returns slots with no reply (SR "hand out
//! entity indices"; facts 4.3, 4.4; HOST-04, SLOTS-04).

use crate::activities::Activities;
use crate::activity::JOIN_GRANT_COUNT;
use crate::link::Links;
use crate::link_id::LinkId;
use crate::reason::Dropped;
use vex_wire::activity::ids::{ALLOCATE_ENTITY_INDICES, ENTITY_SLOTS_ALLOCATED};
use vex_wire::activity::session::SessionId;
use vex_wire::activity::small::{EntitySlotMask, SlotRequest};

impl Activities {
    /// Message 20: a count of 0 or less is refused; any other gets message 0 with the
    /// lowest slots no member holds, which may be none when every slot is held (facts 4.4).
    pub(crate) fn allocate_entity_slots(
        &mut self,
        links: &mut Links,
        link: LinkId,
        SlotRequest { count }: SlotRequest,
    ) {
        if count <= 0 {
            return links.drop_input(link, Dropped::SlotCount(count));
        }
        let Some(session) = self.joined_session(links, link) else {
            return links.drop_input(link, Dropped::NotJoined(ALLOCATE_ENTITY_INDICES));
        };
        let Some(activity) = self.map.get(&session) else {
            return;
        };
        let free = activity.free_slots(count as usize, None);
        let Some(grant) = self.policy().slot_grant(count as usize, free) else {
            return;
        };
        if let Some(activity) = self.map.get_mut(&session) {
            activity.add_lease(link, &grant);
        }
        links.push_message(link, ENTITY_SLOTS_ALLOCATED, &grant.0);
    }

    /// The join burst's grant, added to the member's lease: [`JOIN_GRANT_COUNT`] free
    /// slots (facts 4.3).
    pub(crate) fn join_grant(&mut self, link: LinkId, session: SessionId) -> EntitySlotMask {
        let Some(activity) = self.map.get(&session) else {
            return EntitySlotMask::empty();
        };
        let grant = self
            .policy()
            .join_grant(activity.free_slots(JOIN_GRANT_COUNT, Some(link)));
        if let Some(activity) = self.map.get_mut(&session) {
            activity.add_lease(link, &grant);
        }
        grant
    }

    /// Message 21: the member stops holding the slots it returns; there is no reply.
    pub(crate) fn free_entity_slots(
        &mut self,
        links: &mut Links,
        link: LinkId,
        mask: EntitySlotMask,
    ) {
        let Some(session) = self.joined_session(links, link) else {
            return;
        };
        if let Some(activity) = self.map.get_mut(&session) {
            activity.release(link, &mask);
        }
    }
}
