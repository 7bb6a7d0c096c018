//! The group sessions a port hosts for other processes of a shared fleet: a region of an
//! activity another process holds, which the store placed on this one
//! (`crate::fleet_regions`). The port learns one when a peer asks to join it, and holds it
//! while the store says so: the store's answer bounds how long before it asks again (the
//! holder's lease), and a no ends it.

use crate::fleet_regions::Hosted;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use vex_wire::time::Instant;

/// Each session hosted for another process, the questions about sessions for the store,
/// and those asked and not answered yet.
#[derive(Debug, Default)]
pub(crate) struct ForeignSessions {
    /// Each session hosted, and when to ask about it again (`None`: asked).
    hosted: BTreeMap<u64, Option<Instant>>,
    asks: VecDeque<u64>,
    asked: BTreeSet<u64>,
}

impl ForeignSessions {
    /// True while `session` is hosted here for another process.
    pub(crate) fn runs(&self, session: u64) -> bool {
        self.hosted.contains_key(&session)
    }

    /// Asks the store about `session`, unless a question about it is out.
    pub(crate) fn ask(&mut self, session: u64) {
        if self.asked.insert(session) {
            self.asks.push_back(session);
        }
    }

    /// The next question for the store.
    pub(crate) fn poll_ask(&mut self) -> Option<u64> {
        self.asks.pop_front()
    }

    /// The store's answer about `session` at `now`; true when it is hosted here.
    pub(crate) fn answered(&mut self, now: Instant, session: u64, hosted: &Hosted) -> bool {
        self.asked.remove(&session);
        match hosted {
            Hosted::For { ms } => {
                self.hosted.insert(session, Some(now + *ms));
                true
            }
            Hosted::No => {
                self.hosted.remove(&session);
                false
            }
            Hosted::Failed(why) => {
                tracing::warn!(session, %why, "the store could not say whether a region is hosted here");
                self.hosted.remove(&session);
                false
            }
        }
    }

    /// When a hosted session is next asked about again.
    pub(crate) fn next_ask(&self) -> Option<Instant> {
        self.hosted.values().flatten().min().copied()
    }

    /// Every hosted session due at `now` is asked about again; it stays hosted meanwhile.
    pub(crate) fn ask_due(&mut self, now: Instant) {
        let due: Vec<u64> = self
            .hosted
            .iter()
            .filter(|(_, at)| at.is_some_and(|at| at <= now))
            .map(|(session, _)| *session)
            .collect();
        for session in due {
            self.hosted.insert(session, None);
            self.ask(session);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_is_hosted_while_the_store_says_so_and_asked_again_at_its_time() {
        let mut f = ForeignSessions::default();
        f.ask(7);
        f.ask(7);
        assert_eq!((f.poll_ask(), f.poll_ask()), (Some(7), None), "asked once");
        assert!(f.answered(Instant::from_millis(10), 7, &Hosted::For { ms: 100 }));
        assert!(f.runs(7));
        assert_eq!(f.next_ask(), Some(Instant::from_millis(110)));
        f.ask_due(Instant::from_millis(109));
        assert_eq!(f.poll_ask(), None, "not due yet");
        f.ask_due(Instant::from_millis(110));
        assert_eq!(f.poll_ask(), Some(7));
        assert!(f.runs(7), "hosted while the question is out");
        assert_eq!(f.next_ask(), None);
        assert!(!f.answered(Instant::from_millis(120), 7, &Hosted::No));
        assert!(!f.runs(7));
        f.ask(8);
        let failed = Hosted::Failed("down".into());
        assert!(!f.answered(Instant::from_millis(130), 8, &failed));
        assert!(!f.runs(8));
    }
}
