//! Message 23, client_identity_update: the client sends its member identity record, and
//! the host commits it and sends every member the table with it (SR "What each client
//! message gets"; facts 4.12; HOST-15). What the client changes is field 6, whose meaning
//! the pages do not give; fields 1 and 2 stay -1 (MEMBER-04).

use crate::core::ClientCore;
use vex_wire::activity::identity::ClientIdentity;
use vex_wire::activity::ids;
use vex_wire::activity::membership::Member;
use vex_wire::time::Instant;

/// The field-6 value the client reports: a mark that is not the seed's 0.
pub const REPORTED_FIELD6: u64 = 0x0000_0001_0000_0023;

impl ClientCore {
    /// Sends message 23 once its time has come (see `Script::identity_after_ms`).
    pub(crate) fn send_identity_if_due(&mut self, now: Instant) {
        let player = self.config.scenario.player;
        let Some(slot) = self.slot.as_mut() else {
            return;
        };
        if slot.identity_at.is_none_or(|t| t > now) {
            return;
        }
        slot.identity_at = None;
        let handle = slot.stored_id;
        let mut member = Member::seed(player.member_key, player.account_soid, player.character_id);
        member.field6 = REPORTED_FIELD6;
        match ClientIdentity(member).encode() {
            Ok(body) => self.send_activity(now, handle, ids::CLIENT_IDENTITY_UPDATE, body),
            Err(e) => tracing::error!(%e, "message 23 not built"),
        }
    }
}
