//! Messages 2, 12 and 54, checked as the client applies them (AH "world_globals_state",
//! "The main messages", "Values that crash the client"; WORLD-01, WORLD-02, MEMBER-02,
//! MEMBER-03, BHS-01).

use crate::core::ClientCore;
use crate::duties::ACK_CROSSING_MS;
use crate::rules::Rule;
use vex_wire::activity::ids;
use vex_wire::activity::membership::ReplicateMembership;
use vex_wire::activity::small::{BUBBLE_HOST_MAX_ROWS, BubbleHostState, WorldGlobals};
use vex_wire::time::Instant;

impl ClientCore {
    /// Message 2: the tick period runs the activity clock only when positive (WORLD-01),
    /// and NaN splits the two readers (WORLD-02).
    pub(crate) fn on_world_globals(&mut self, idx: u64, payload: &[u8]) {
        let Ok(m) = WorldGlobals::decode(payload) else {
            return tracing::warn!(frame = idx, "message 2 does not decode; dropped (BODY-04)");
        };
        let f = Some(idx);
        if m.tick_ms.is_nan() {
            let reason =
                "tick period is NaN: one reader runs the clock, the other freezes it".into();
            self.violate(Rule::World02, f, Some(1), reason);
        } else if m.tick_ms <= 0.0 {
            let reason = format!("tick period {} ms freezes the activity clock", m.tick_ms);
            self.violate(Rule::World01, f, Some(1), reason);
        }
    }

    /// Message 12, applied without checks (MEMBER-01): a table without the local player
    /// removes the local player from the activity (MEMBER-02). The client applies one
    /// update per revision, so a different body under the revision it holds is not
    /// applied (MEMBER-07). It acknowledges each new revision with message 38, so a repeat
    /// of an acknowledged revision with nothing changed is a push the host does not owe
    /// (MEMBER-03), unless it is part of the snapshot message 18 asked for (HOST-03) or left
    /// the host before the acknowledgement reached it.
    pub(crate) fn on_membership(&mut self, now: Instant, idx: u64, payload: &[u8]) {
        self.status.m = true;
        let me = self.config.scenario.player.member_key;
        let Ok(m) = ReplicateMembership::decode(payload) else {
            return tracing::warn!(frame = idx, "message 12 does not decode");
        };
        let in_snapshot = self.answers_refresh(ids::REPLICATE_MEMBERSHIP);
        let held = self.slot.as_ref().and_then(|s| s.membership.clone());
        if let Some((revision, body)) = held
            && revision == m.revision
            && body != payload
        {
            let reason = format!(
                "message 12 carries another table under revision {revision}, which the client holds: not applied"
            );
            return self.violate(Rule::Member07, Some(idx), None, reason);
        }
        if !m.has_member(me) {
            let reason = format!(
                "the membership table has no member {me:#018x}: the local player is removed"
            );
            self.violate(Rule::Member02, Some(idx), None, reason);
        }
        let Some(slot) = self.slot.as_mut() else {
            return;
        };
        let acknowledged = slot
            .membership_acknowledged
            .filter(|(r, _)| *r == m.revision);
        // a host resend that crossed the acknowledgement on the wire is not a repeat
        let settled = acknowledged.is_some_and(|(_, at)| now.since(at) > ACK_CROSSING_MS);
        let unchanged = slot
            .membership
            .as_ref()
            .is_some_and(|(r, body)| *r == m.revision && body == payload);
        slot.membership = Some((m.revision, payload.to_vec()));
        slot.tables.push((m.revision, m.member_keys()));
        if settled && unchanged && !in_snapshot {
            let reason = format!(
                "message 12 repeats revision {}, which the client acknowledged, with nothing changed",
                m.revision
            );
            return self.violate(Rule::Member03, Some(idx), None, reason);
        }
        if acknowledged.is_none() {
            slot.membership_acknowledged = Some((m.revision, now));
            let handle = slot.stored_id;
            let body = m.revision.to_be_bytes().to_vec();
            self.send_activity(now, handle, ids::MEMBERSHIP_ACKNOWLEDGEMENT, body);
        }
    }

    /// Message 54: more than 32 rows write past the client's table (BHS-01).
    pub(crate) fn on_bubble_host_state(&mut self, idx: u64, payload: &[u8]) {
        if let Ok(m) = BubbleHostState::decode(payload)
            && m.row_count > BUBBLE_HOST_MAX_ROWS
        {
            let reason = format!("{} rows in a 32-row table", m.row_count);
            self.violate(Rule::Bhs01, Some(idx), Some(0), reason);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_client::{joined, rules};
    use vex_wire::activity::membership::Member;

    /// An acknowledged revision sent again unchanged is a repeat only once the
    /// acknowledgement had time to reach the host (MEMBER-03).
    #[test]
    fn a_repeat_within_the_crossing_window_is_spared() {
        let mut c = joined();
        let p = c.config.scenario.player;
        let member = Member::seed(p.member_key, p.account_soid, p.character_id);
        let body = ReplicateMembership::for_local_member(member, 1)
            .encode()
            .unwrap();
        c.on_membership(Instant::from_millis(0), 1, &body);
        let acked = c.slot.as_ref().and_then(|s| s.membership_acknowledged);
        assert_eq!(acked, Some((1, Instant::from_millis(0))), "message 38 sent");
        c.on_membership(Instant::from_millis(ACK_CROSSING_MS), 2, &body);
        assert!(rules(&c).is_empty(), "crossed the acknowledgement");
        c.on_membership(Instant::from_millis(ACK_CROSSING_MS + 1), 3, &body);
        assert_eq!(rules(&c), [Rule::Member03]);
    }
}
