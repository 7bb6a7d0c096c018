//! The host's clock: every timer is one [`HostTimer`] of one link, its deadline comes from
//! the one table in [`HostCore::deadline`] and waits in the host's
//! [`crate::timer_queue::TimerQueue`], and [`HostCore::handle_timeout`] fires each due one
//! through [`HostCore::fire`] (design "Sans-IO cores": the core never reads a clock).

use crate::activity::Activity;
use crate::core::HostCore;
use crate::event::HostEvent;
use crate::host_timer::HostTimer;
use crate::limits::Limit;
use crate::link::Link;
use crate::link_id::LinkId;
use crate::reason::Closed;
use crate::schedule::TimedCommit;
use crate::world::WorldRequest;
use std::collections::BTreeMap;
use vex_wire::activity::session::SessionId;
use vex_wire::time::Instant;

impl HostCore {
    /// Puts `session`'s next timeline commit in the queue, if it has one: when the
    /// activity starts and after each commit.
    pub(crate) fn arm_commit(&mut self, session: SessionId) {
        let (activities, timeline) = (&self.activities, &self.config.timeline);
        if let Some(at) = activities
            .get(&session)
            .and_then(|a| a.next_commit_at(timeline))
        {
            let holds = |d: &(Instant, SessionId)| Self::commit_holds(activities, timeline, d);
            self.commits.arm(at, session, activities.len(), holds);
        }
    }

    /// True while the queue's entry is still its activity's next commit.
    fn commit_holds(
        activities: &BTreeMap<SessionId, Activity>,
        timeline: &[TimedCommit],
        &(at, session): &(Instant, SessionId),
    ) -> bool {
        activities
            .get(&session)
            .is_some_and(|a| a.next_commit_at(timeline) == Some(at))
    }

    /// When [`HostCore::handle_timeout`] next has work: the earliest timer of any link,
    /// the next commit of an activity's timeline, or the mission stage's next work.
    pub fn poll_timeout(&mut self) -> Option<Instant> {
        let first_link = self.links.next_deadline();
        let (activities, timeline) = (&self.activities, &self.config.timeline);
        let first_commit = self
            .commits
            .next(|d| Self::commit_holds(activities, timeline, d));
        [first_link, first_commit, self.mission_timeout()]
            .into_iter()
            .flatten()
            .min()
    }

    /// Time passed: every timer due at `now` fires, earliest first, and at one instant
    /// link by link in id order.
    pub fn handle_timeout(&mut self, now: Instant) {
        self.now = now;
        for (link, timer) in self.links.take_due(now) {
            self.fire(now, link, timer);
        }
        self.commit_due(now);
        self.run_mission(now);
    }

    /// Every activity's next timeline commit that is due at `now`, earliest first and at
    /// one instant in session order. A refused commit is logged with its reason and
    /// reported, and the timeline goes on.
    fn commit_due(&mut self, now: Instant) {
        let (activities, timeline) = (&self.activities, &self.config.timeline);
        let due: Vec<(SessionId, Vec<WorldRequest>)> = self
            .commits
            .take_due(now, |d| Self::commit_holds(activities, timeline, d))
            .into_iter()
            .filter_map(|(_, session)| {
                let i = activities.get(&session)?.timeline_position();
                Some((session, timeline.get(i)?.requests.clone()))
            })
            .collect();
        for (session, requests) in due {
            if let Some(a) = self.activities.get_mut(&session) {
                a.commit_done();
            }
            self.arm_commit(session);
            if let Err(error) = self.request(session, &requests) {
                tracing::warn!(session = format_args!("{session:#x}"), %error, "timeline commit refused");
                self.links.out.event(HostEvent::Refused { session, error });
            }
        }
    }

    /// Fires `link`'s `timer` at `now`.
    fn fire(&mut self, now: Instant, link: LinkId, timer: HostTimer) {
        match timer {
            HostTimer::Keepalive => self.keepalive(now, link),
            HostTimer::DeferredRoster => {
                if let Some(b) = self.links.binding_mut(link) {
                    b.roster.deferred_due();
                }
                self.push_current_roster(link);
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
