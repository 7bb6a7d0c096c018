//! Message 12 after the join: the client acknowledges a revision with message 38, and the
//! keepalive carries message 12 again only while the current revision is unacknowledged
//! (SR "Timed sends that remain"; facts 4.10 "Publication rules"; MEMBER-03).

use crate::core::{HostCore, LinkId};
use crate::fault::Fault;
use crate::roster;
use vex_wire::activity::ids::REPLICATE_MEMBERSHIP;
use vex_wire::activity::join::JoinRequest;
use vex_wire::activity::membership::ReplicateMembership;
use vex_wire::bits::BitReader;

impl HostCore {
    /// The membership table for `join`.
    pub(crate) fn membership_table(&self, join: &JoinRequest) -> ReplicateMembership {
        let mut table = roster::membership(&self.config.scenario, join);
        if self.config.faults.has(Fault::ForeignMembership) {
            for m in table.members.iter_mut().flatten() {
                m.member_key ^= 1;
            }
        }
        table
    }

    /// Message 38: the revision the client applied.
    pub(crate) fn membership_acknowledged(&mut self, link: LinkId, payload: &[u8]) {
        let revision = match BitReader::new(payload).read(32) {
            Ok(r) => r as u32,
            Err(e) => return self.drop_input(link, format!("membership_acknowledgement: {e}")),
        };
        if let Some(binding) = self.links.get_mut(&link).and_then(|l| l.binding.as_mut()) {
            binding.membership_acknowledged = Some(revision);
        }
    }

    /// On the keepalive: message 12 again while its revision is unacknowledged.
    pub(crate) fn resend_membership_if_owed(&mut self, link: LinkId) {
        let Some(binding) = self.links.get(&link).and_then(|l| l.binding.as_ref()) else {
            return;
        };
        let (Some(sent), Some(join)) = (binding.membership_revision, binding.join.as_ref()) else {
            return;
        };
        let on_timer = self.config.faults.has(Fault::MembershipOnTimer);
        if binding.membership_acknowledged == Some(sent) && !on_timer {
            return;
        }
        match self.membership_table(join).encode() {
            Ok(body) => self.push_message(link, REPLICATE_MEMBERSHIP, body),
            Err(e) => self.drop_input(link, format!("message 12 not built: {e}")),
        }
    }
}
