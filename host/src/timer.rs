//! The host's clock: every timer is one [`HostTimer`] of one link, its deadline comes from
//! the one table in [`HostCore::deadline`] and waits in the host's
//! [`crate::timer_queue::TimerQueue`], and [`HostCore::handle_timeout`] fires each due one
//! through [`HostCore::fire`] (design "Sans-IO cores": the core never reads a clock).

use crate::core::HostCore;
use crate::host_timer::HostTimer;
use crate::limits::Limit;
use crate::link::Link;
use crate::link_id::LinkId;
use crate::reason::Closed;
use vex_wire::time::Instant;

impl HostCore {
    /// When [`HostCore::handle_timeout`] next has work: the earliest timer of any link, a
    /// member table's retry, the next commit of an activity's timeline, the mission
    /// stage's next work, or the UDP port's.
    pub fn poll_timeout(&mut self) -> Option<Instant> {
        let first_link = self.links.next_deadline();
        let first_commit = self.activities.next_commit();
        let first_resend = self.peer.poll_timeout();
        [
            first_link,
            self.activities.next_membership_retry(),
            first_commit,
            self.activities.mission_timeout(),
            first_resend,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Time passed: every timer due at `now` fires, earliest first, and at one instant
    /// link by link in id order. The slice runs SR's four stages in their order ("Where
    /// mission scripts plug in"): transport (the links' timers: keepalives, deferred
    /// rosters, the hello and slow-frame bounds; then the member tables held back for a
    /// host record, SR "Timed sends that remain"), host (the program's commits due), mission
    /// (the script's timers and events), then gameplay, which SR names "the gameplay
    /// services" and describes no further: in Vex, the peer transport's upkeep (its
    /// reliable connections' resends). A slice for bytes or a closed link runs the first
    /// three; the gameplay stage has only timed work.
    pub fn handle_timeout(&mut self, now: Instant) {
        self.activities.now = now;
        for (link, timer) in self.links.take_due(now) {
            self.fire(now, link, timer);
        }
        self.activities.retry_membership_due(&mut self.links, now);
        self.activities.commit_due(&mut self.links, now);
        self.activities.run_mission(&mut self.links, now);
        self.peer.handle_timeout(now, &self.config.hooks);
    }

    /// Fires `link`'s `timer` at `now`.
    fn fire(&mut self, now: Instant, link: LinkId, timer: HostTimer) {
        match timer {
            HostTimer::Keepalive => self.activities.keepalive(&mut self.links, now, link),
            HostTimer::DeferredRoster => {
                if let Some(b) = self.links.binding_mut(link) {
                    b.roster_mut().deferred_due();
                }
                self.activities.push_current_roster(&mut self.links, link);
            }
            HostTimer::Hello => {
                let limit = Limit::Hello(self.config.limits.hello_within_ms);
                self.links.shut(link, Closed::Limit(limit));
            }
            HostTimer::SlowFrame => {
                let held = self.links.get(link).map_or(0, Link::buffered);
                let within_ms = self.config.limits.frame_within_ms;
                self.links
                    .shut(link, Closed::Limit(Limit::SlowFrame { within_ms, held }));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{HostConfig, HostCore, LinkId};
    use vex_wire::time::Instant;

    /// A frame sent a byte at a time keeps one slow-frame deadline, not one per read (a
    /// queue entry per read would let a peer grow the host's memory without bound).
    #[test]
    fn a_frame_read_a_byte_at_a_time_is_one_deadline() {
        let mut host = HostCore::new(HostConfig::builtin(HostConfig::default_address()));
        let link = LinkId(1);
        host.handle_connect(Instant::default(), link);
        let header = [1u8, 0, 0, 0, 0x10, 0]; // a plaintext frame of 4,096 bytes
        for (ms, byte) in header.iter().chain(&[0u8; 500]).enumerate() {
            host.handle_bytes(Instant::from_millis(ms as u64), link, &[*byte]);
        }
        assert_eq!(
            host.links.queued_deadlines(),
            2,
            "the hello and the slow-frame deadlines"
        );
        assert_eq!(host.poll_timeout(), Some(Instant::from_millis(10_000)));
    }
}
