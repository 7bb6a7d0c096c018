//! Host duties the emulated client can observe: they change nothing in the client, and
//! fail a run only in strict mode (`rules.md`: effect "duty").

use crate::core::ClientCore;
use crate::rules::Rule;
use vex_wire::activity::ids;
use vex_wire::time::Instant;

/// The burst after message 4 (JOIN-02); message 12 follows "when ready".
pub const BURST_AFTER_JOIN: [u32; 4] = [
    ids::ENTITY_SLOTS_ALLOCATED,
    ids::GLOBAL_ACTIVITY_STATE,
    ids::WORLD_GLOBALS_STATE,
    ids::BUBBLE_HOST_STATE,
];
/// The host keepalive interval (SR "Timed sends that remain": every 2 s).
pub const HOST_KEEPALIVE_MS: u64 = 2000;
/// Slack on the keepalive for scheduling and the network.
pub const KEEPALIVE_SLACK_MS: u64 = 500;
/// How long a host push can still cross an acknowledgement the client sent: a round trip
/// on any link Vex expects to test over.
pub const ACK_CROSSING_MS: u64 = 1000;
/// A request the client made in a run's last second is not judged at its end: its
/// answer may still be on the wire.
pub const ANSWER_GRACE_MS: u64 = 1000;

impl ClientCore {
    /// Service 9's sequence has no reader; a host sends zero (ENV-10).
    pub(crate) fn check_push_sequence(&mut self, idx: u64, sequence: u32) {
        if sequence != 0 {
            let reason = format!("service 9 sequence {sequence}, not 0");
            self.violate(Rule::Env10, Some(idx), None, reason);
        }
    }

    /// Every push on the established arm: the burst arrives whole and in order (JOIN-02),
    /// and message 1 restarts the keepalive clock (LINK-03). True when `msg` is the next
    /// message of the burst.
    pub(crate) fn observe_push(&mut self, now: Instant, idx: u64, msg: u32) -> bool {
        let Some(slot) = &mut self.slot else {
            return false;
        };
        let in_burst = slot.burst_owed.front() == Some(&msg);
        let broken_burst = !slot.burst_owed.is_empty() && !in_burst;
        let expected = slot.burst_owed.front().copied();
        if in_burst {
            slot.burst_owed.pop_front();
        } else if broken_burst {
            slot.burst_owed.clear();
        }
        if msg == ids::GLOBAL_ACTIVITY_STATE {
            slot.last_global_state = Some(now);
        }
        if let (true, Some(want)) = (broken_burst, expected) {
            let reason = format!("message {msg} where the burst owes message {want}");
            self.violate(Rule::Join02, Some(idx), None, reason);
        }
        in_burst
    }

    /// When the host keepalive is overdue (LINK-03).
    pub(crate) fn keepalive_deadline(&self) -> Option<Instant> {
        let slot = self.slot.as_ref().filter(|s| !s.keepalive_reported)?;
        Some(slot.last_global_state? + HOST_KEEPALIVE_MS + KEEPALIVE_SLACK_MS)
    }

    /// Reports an overdue host keepalive once (LINK-03).
    pub(crate) fn check_keepalive(&mut self, now: Instant) {
        if self.keepalive_deadline().is_some_and(|d| d <= now) {
            if let Some(slot) = &mut self.slot {
                slot.keepalive_reported = true;
            }
            let reason = format!("no message 1 for over {HOST_KEEPALIVE_MS} ms after the join");
            self.violate(Rule::Link03, None, None, reason);
        }
    }

    /// At the deadline: a burst still owed was never sent whole (JOIN-02).
    pub(crate) fn check_burst_owed(&mut self) {
        let owed: Vec<u32> = self
            .slot
            .as_ref()
            .map(|s| s.burst_owed.iter().copied().collect())
            .unwrap_or_default();
        if !owed.is_empty() {
            let reason = format!("the join burst never sent messages {owed:?}");
            self.violate(Rule::Join02, None, None, reason);
        }
    }
}
