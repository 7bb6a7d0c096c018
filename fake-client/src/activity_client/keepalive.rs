//! The two keepalives of an activity client: its own message 16 after a keepalive
//! interval with nothing sent (AH "join_result"; LINK-02, JOIN-07), and the host's,
//! which carries message 1 every 2 s (SR "Timed sends that remain"; LINK-03).

use crate::config::{CLIENT_TICK_MS, HOST_KEEPALIVE_MS};
use crate::links::Outgoing;
use crate::rules::Rule;
use crate::verdict::Verdict;
use vex_wire::activity::ids;
use vex_wire::activity::join::KEEPALIVE_INTERVAL_BIT;
use vex_wire::activity::small::KEEPALIVE_BODY;
use vex_wire::time::Instant;

/// Slack on the host keepalive for scheduling and the network.
const KEEPALIVE_SLACK_MS: u64 = 500;

/// The client's keepalive interval and the watch on the host's (AH "join_result"; SR
/// "Timed sends that remain").
#[derive(Debug, Default)]
pub(crate) struct Keepalive {
    /// join_result field 9.
    interval_ms: u64,
    /// When the last message 1 arrived after the join (LINK-03).
    last_global_state: Option<Instant>,
    /// LINK-03 was reported once already.
    overdue_reported: bool,
}

impl Keepalive {
    /// join_result's keepalive interval; at 0 the client sends message 16 every tick
    /// (JOIN-07).
    pub(super) fn start(&mut self, verdict: &mut Verdict, idx: u64, interval_ms: u16) {
        self.interval_ms = u64::from(interval_ms);
        if interval_ms == 0 {
            let reason =
                "keepalive interval 0: the client sends message 16 every tick, about 144 a second"
                    .to_string();
            verdict.violate(
                Rule::Join07,
                Some(idx),
                Some(KEEPALIVE_INTERVAL_BIT),
                reason,
            );
        }
    }

    /// Message 16 is due a keepalive interval after the client's last send on the link,
    /// `last_sent`; never sooner than one tick.
    pub(crate) fn send_due(&self, last_sent: Instant) -> Instant {
        last_sent + self.interval_ms.max(CLIENT_TICK_MS)
    }

    /// Message 16.
    pub(crate) fn send(&self) -> Outgoing {
        Outgoing {
            message: ids::KEEPALIVE_REQUEST,
            body: KEEPALIVE_BODY.to_vec(),
        }
    }

    /// A push on the established arm at `now`: message 1 restarts the host's clock.
    pub(super) fn observe(&mut self, now: Instant, msg: u32) {
        if msg == ids::GLOBAL_ACTIVITY_STATE {
            self.last_global_state = Some(now);
        }
    }

    /// When the host keepalive is overdue, until that was reported (LINK-03).
    pub(crate) fn host_overdue_at(&self) -> Option<Instant> {
        if self.overdue_reported {
            return None;
        }
        Some(self.last_global_state? + HOST_KEEPALIVE_MS + KEEPALIVE_SLACK_MS)
    }

    /// Reports the overdue host keepalive, once (LINK-03).
    pub(crate) fn report_host_overdue(&mut self, verdict: &mut Verdict) {
        self.overdue_reported = true;
        let reason = format!("no message 1 for over {HOST_KEEPALIVE_MS} ms after the join");
        verdict.violate(Rule::Link03, None, None, reason);
    }
}
