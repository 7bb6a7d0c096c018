//! The identity report of an activity client: the scripted message 23,
//! client_identity_update, sends the member identity record, and the host commits it and
//! sends every member the table with it (SR "What each client message gets"; facts 4.12;
//! HOST-15). What the client changes is field 6, whose meaning the pages do not give;
//! fields 1 and 2 stay -1 (MEMBER-04).

use crate::links::Outgoing;
use vex_wire::activity::body::Body;
use vex_wire::activity::identity::ClientIdentity;
use vex_wire::activity::ids;
use vex_wire::activity::membership::Member;
use vex_wire::scenario::Player;
use vex_wire::time::Instant;

/// The field-6 value the client reports: a mark that is not the seed's 0.
const REPORTED_FIELD6: u64 = 0x0000_0001_0000_0023;

/// When the client reports its identity (SR "What each client message gets"; facts 4.12).
#[derive(Debug, Default)]
pub(crate) struct IdentityReport {
    /// When the client sends message 23 (HOST-15).
    at: Option<Instant>,
}

impl IdentityReport {
    /// Message 23 is sent at `at`, if the script sends one.
    pub(super) fn schedule(&mut self, at: Option<Instant>) {
        self.at = at;
    }

    /// When message 23 is due.
    pub(crate) fn due(&self) -> Option<Instant> {
        self.at
    }

    /// Message 23 for `player` (see `Script::identity_after_ms`); none when it does not
    /// encode.
    pub(crate) fn report(&mut self, player: &Player) -> Option<Outgoing> {
        self.at = None;
        let mut member = Member::seed(player.member_key, player.account_soid, player.character_id);
        member.field6 = REPORTED_FIELD6;
        match ClientIdentity(member).encode() {
            Ok(body) => Some(Outgoing {
                message: ids::CLIENT_IDENTITY_UPDATE,
                body,
            }),
            Err(e) => {
                tracing::error!(%e, "message 23 not built");
                None
            }
        }
    }
}
