//! One member of an activity: a lane of the member table (facts 4.10), the link it joined
//! on, its record in message 12, the entity slots it leases (facts 4.3), what its message
//! 22s committed (SR "What each client message gets"), and the slots it said it has
//! authority over (message 32, less what message 33 gave up).

use super::member_state::MemberState;
use crate::link_id::LinkId;
use vex_wire::activity::client_state::ClientState;
use vex_wire::activity::membership::Member as MemberRecord;
use vex_wire::activity::small::EntitySlotMask;

/// One member of an activity, owned by its lane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    link: LinkId,
    record: MemberRecord,
    lease: EntitySlotMask,
    state: MemberState,
    authority: Option<EntitySlotMask>,
}

impl Member {
    /// A member that joined on `link` with `record`: no slot leased, nothing reported.
    pub fn new(link: LinkId, record: MemberRecord) -> Self {
        Self {
            link,
            record,
            lease: EntitySlotMask::empty(),
            state: MemberState::default(),
            authority: None,
        }
    }

    /// The link it joined on.
    pub fn link(&self) -> LinkId {
        self.link
    }

    /// Its record in the member table.
    pub fn record(&self) -> MemberRecord {
        self.record
    }

    /// A join again or message 23 gave `record`: true when the table changed.
    pub fn set_record(&mut self, record: MemberRecord) -> bool {
        let changed = self.record != record;
        self.record = record;
        changed
    }

    /// The entity slots it leases: what the messages 0 to it gave, less what it returned.
    pub fn lease(&self) -> &EntitySlotMask {
        &self.lease
    }

    /// A message 0 to it gave `grant`.
    pub fn grant(&mut self, grant: &EntitySlotMask) {
        self.lease.add(grant);
    }

    /// Message 21: it stops holding `returned`.
    pub fn release(&mut self, returned: &EntitySlotMask) {
        self.lease.remove(returned);
    }

    /// What its message 22s committed.
    pub fn state(&self) -> MemberState {
        self.state
    }

    /// Message 22, as a delta over what it reported before; true when its region moved
    /// (see [`MemberState::commit`]).
    pub fn commit(&mut self, report: &ClientState, arrival: i16) -> bool {
        self.state.commit(report, arrival)
    }

    /// The slots it said it has authority over in its last answer to a query.
    pub fn authority(&self) -> Option<&EntitySlotMask> {
        self.authority.as_ref()
    }

    /// Message 32: it has authority over `mask`.
    pub fn set_authority(&mut self, mask: EntitySlotMask) {
        self.authority = Some(mask);
    }

    /// Message 33: it gives up authority over `mask`.
    pub fn release_authority(&mut self, mask: &EntitySlotMask) {
        if let Some(held) = self.authority.as_mut() {
            held.remove(mask);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lease is what was granted less what was returned; authority is the last answer
    /// less what was given up since, and none before an answer.
    #[test]
    fn a_member_holds_its_lease_and_its_authority() {
        let mut m = Member::new(LinkId(1), MemberRecord::seed(1, 2, 3));
        m.grant(&EntitySlotMask::with_range(0..4));
        m.release(&EntitySlotMask::with_range(2..3));
        assert_eq!(m.lease().count(), 3);
        assert!(!m.lease().get(2));
        m.release_authority(&EntitySlotMask::with_range(0..1));
        assert_eq!(m.authority(), None);
        m.set_authority(EntitySlotMask::with_range(0..8));
        m.release_authority(&EntitySlotMask::with_range(0..1));
        assert_eq!(m.authority().map(EntitySlotMask::count), Some(7));
        assert!(!m.set_record(MemberRecord::seed(1, 2, 3)));
        assert!(m.set_record(MemberRecord::seed(1, 2, 4)));
    }
}
