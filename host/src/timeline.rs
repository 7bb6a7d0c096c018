//! Each activity's timeline: the commits the configuration schedules, each in the queue at
//! its time from the activity's start, committed through the world's one door when due
//! (SR "What the host pushes on its own").

use crate::activities::Activities;
use crate::activity::Activity;
use crate::event::HostEvent;
use crate::link::Links;
use crate::schedule::TimedCommit;
use crate::world::WorldRequest;
use std::collections::BTreeMap;
use vex_wire::activity::session::SessionId;
use vex_wire::time::Instant;

impl Activities {
    /// Puts `session`'s next timeline commit in the queue, if it has one: when the
    /// activity starts and after each commit.
    pub(crate) fn arm_commit(&mut self, session: SessionId) {
        let (activities, timeline) = (&self.map, &self.config.timeline);
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

    /// The earliest activity's next timeline commit.
    pub(crate) fn next_commit(&mut self) -> Option<Instant> {
        let (activities, timeline) = (&self.map, &self.config.timeline);
        self.commits
            .next(|d| Self::commit_holds(activities, timeline, d))
    }

    /// Every activity's next timeline commit that is due at `now`, earliest first and at
    /// one instant in session order. A refused commit is logged with its reason and
    /// reported, and the timeline goes on.
    pub(crate) fn commit_due(&mut self, links: &mut Links, now: Instant) {
        let (activities, timeline) = (&self.map, &self.config.timeline);
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
            if let Some(a) = self.map.get_mut(&session) {
                a.commit_done();
            }
            self.arm_commit(session);
            if let Err(error) = self.request(links, session, &requests) {
                tracing::warn!(session = format_args!("{session:#x}"), %error, "timeline commit refused");
                links.event(HostEvent::Refused { session, error });
            }
        }
    }
}
