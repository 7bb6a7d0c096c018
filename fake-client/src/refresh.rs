//! Message 18, state refresh: the client asks for the whole snapshot, and the host owes
//! messages 1, 2 and 12, then 5, in that order (SR "What each client message gets";
//! HOST-03).

use crate::core::ClientCore;
use crate::duties::ANSWER_GRACE_MS;
use crate::rules::Rule;
use vex_wire::activity::ids;
use vex_wire::time::Instant;

/// The snapshot a message 18 is owed on a private link, in order.
pub const SNAPSHOT: [u32; 4] = [
    ids::GLOBAL_ACTIVITY_STATE,
    ids::WORLD_GLOBALS_STATE,
    ids::REPLICATE_MEMBERSHIP,
    ids::SENSOR_AUTH_UPDATE,
];
/// The bubble field of message 18 is an i32 with bias 2^31 (facts 4.14).
const BUBBLE_BIAS: i64 = 0x8000_0000;

impl ClientCore {
    /// Sends message 18 once its time has come (see `Script::refresh_after_ms`):
    /// the membership revision it holds and the bubble it stands in.
    pub(crate) fn refresh_if_due(&mut self, now: Instant) {
        let bubble = i64::from(self.config.scenario.arrival_bubble());
        let Some(slot) = self.slot.as_mut() else {
            return;
        };
        if slot.refresh_at.is_none_or(|t| t > now) {
            return;
        }
        slot.refresh_at = None;
        slot.refresh_asked_at = Some(now);
        // SR: message 12 is part of the snapshot on a private link only
        let public = slot.public;
        slot.refresh_owed = SNAPSHOT
            .into_iter()
            .filter(|&m| !(public && m == ids::REPLICATE_MEMBERSHIP))
            .collect();
        let revision = slot.membership_acknowledged.map_or(0, |(r, _)| r);
        let mut body = revision.to_be_bytes().to_vec();
        body.extend_from_slice(&((bubble + BUBBLE_BIAS) as u32).to_be_bytes());
        let handle = slot.stored_id;
        self.send_activity(now, handle, ids::STATE_REFRESH, body);
    }

    /// True when `msg` is the next part of a snapshot the host owes.
    pub(crate) fn answers_refresh(&self, msg: u32) -> bool {
        self.slot
            .as_ref()
            .is_some_and(|s| s.refresh_owed.front() == Some(&msg))
    }

    /// After a push is applied: it may be the next part of the snapshot.
    pub(crate) fn track_refresh(&mut self, msg: u32) {
        if let Some(slot) = self.slot.as_mut()
            && slot.refresh_owed.front() == Some(&msg)
        {
            slot.refresh_owed.pop_front();
        }
    }

    /// At the deadline: a snapshot the host had time to finish and did not (HOST-03).
    pub(crate) fn check_refresh_answered(&mut self, now: Instant) {
        let owed: Vec<u32> = self
            .slot
            .as_ref()
            .filter(|s| {
                s.refresh_asked_at
                    .is_some_and(|t| now.since(t) >= ANSWER_GRACE_MS)
            })
            .map(|s| s.refresh_owed.iter().copied().collect())
            .unwrap_or_default();
        if !owed.is_empty() {
            let reason = format!("message 18's snapshot never sent messages {owed:?}, in order");
            self.violate(Rule::Host03, None, None, reason);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_client::{joined, rules};

    /// A snapshot the host had less than the grace period to send is not judged; one
    /// sent in order clears the debt.
    #[test]
    fn an_unfinished_snapshot_is_judged_after_the_grace_period() {
        let mut c = joined();
        if let Some(slot) = c.slot.as_mut() {
            slot.refresh_at = Some(Instant::default());
        }
        c.refresh_if_due(Instant::default());
        c.check_refresh_answered(Instant::from_millis(ANSWER_GRACE_MS - 1));
        assert!(rules(&c).is_empty());
        c.check_refresh_answered(Instant::from_millis(ANSWER_GRACE_MS));
        assert_eq!(rules(&c), [Rule::Host03]);
        let mut c = joined();
        if let Some(slot) = c.slot.as_mut() {
            slot.refresh_at = Some(Instant::default());
        }
        c.refresh_if_due(Instant::default());
        for msg in SNAPSHOT {
            c.track_refresh(msg);
        }
        c.check_refresh_answered(Instant::from_millis(ANSWER_GRACE_MS));
        assert!(rules(&c).is_empty());
    }
}
