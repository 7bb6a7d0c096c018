//! The identity report of an activity client: the scripted message 23,
//! client_identity_update, sends the member identity record, and the host commits it and,
//! on a private link, sends message 12 with it (SR "What each client message gets"; facts
//! 4.12; HOST-15). What the client changes is field 6, whose meaning the pages do not give;
//! fields 1 and 2 stay -1 (MEMBER-04).

use crate::had_time_to_answer;
use crate::links::Outgoing;
use crate::rules::Rule;
use crate::verdict::Verdict;
use vex_wire::activity::body::Body;
use vex_wire::activity::identity::ClientIdentity;
use vex_wire::activity::ids;
use vex_wire::activity::membership::Member;
use vex_wire::scenario::Player;
use vex_wire::time::Instant;

/// The field-6 value the client reports: a mark that is not the seed's 0.
const REPORTED_FIELD6: u64 = 0x0000_0001_0000_0023;

/// When the client reports its identity, and whether the host's answer came (SR "What
/// each client message gets"; facts 4.12).
#[derive(Debug, Default)]
pub(crate) struct IdentityReport {
    /// When the client sends message 23 (HOST-15).
    at: Option<Instant>,
    /// When it sent one a message 12 is owed for: on a private link.
    owed_since: Option<Instant>,
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

    /// Message 23 for `player` at `now` (see `Script::identity_after_ms`); none when it
    /// does not encode. On a private link (`public` false) a message 12 carrying it is owed.
    pub(crate) fn report(
        &mut self,
        player: &Player,
        now: Instant,
        public: bool,
    ) -> Option<Outgoing> {
        self.at = None;
        self.owed_since = (!public).then_some(now);
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

    /// A member table the client applied: one whose record of `me` carries the reported
    /// identity is the answer owed.
    pub(super) fn on_table(&mut self, members: &[Member], me: u64) {
        let carries = members
            .iter()
            .any(|m| m.member_key == me && m.field6 == REPORTED_FIELD6);
        if carries {
            self.owed_since = None;
        }
    }

    /// At the run's end `now`: a message 23 on a private link that had time for its
    /// message 12 and got none carrying the identity (HOST-15).
    pub(super) fn check_answered(&self, verdict: &mut Verdict, now: Instant) {
        if self.owed_since.is_some_and(|t| had_time_to_answer(t, now)) {
            let reason =
                "message 23 on a private link got no message 12 carrying the identity".into();
            verdict.violate(Rule::Host15, None, None, reason);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ANSWER_GRACE_MS;
    use vex_wire::scenario::Scenario;

    fn reported(public: bool) -> (IdentityReport, Player) {
        let player = Scenario::builtin().player;
        let mut r = IdentityReport::default();
        assert!(r.report(&player, Instant::default(), public).is_some());
        (r, player)
    }

    #[test]
    fn a_private_link_is_owed_a_table_with_the_identity() {
        let late = Instant::from_millis(ANSWER_GRACE_MS);
        let (mut r, p) = reported(false);
        let mut stale = Member::seed(p.member_key, p.account_soid, p.character_id);
        r.on_table(&[stale], p.member_key);
        let mut v = Verdict::new();
        r.check_answered(&mut v, late);
        assert_eq!(v.rules(), [Rule::Host15], "a table without it is no answer");
        stale.field6 = REPORTED_FIELD6;
        let other = Member::seed(p.member_key + 1, p.account_soid, 1);
        r.on_table(&[other, stale], p.member_key);
        let mut v = Verdict::new();
        r.check_answered(&mut v, late);
        assert!(v.rules().is_empty(), "answered");
    }

    #[test]
    fn a_public_link_and_a_late_report_owe_nothing_yet() {
        let (r, _) = reported(true);
        let mut v = Verdict::new();
        r.check_answered(&mut v, Instant::from_millis(ANSWER_GRACE_MS));
        assert!(v.rules().is_empty());
        let (r, _) = reported(false);
        r.check_answered(&mut v, Instant::from_millis(ANSWER_GRACE_MS - 1));
        assert!(v.rules().is_empty(), "within the grace");
    }
}
