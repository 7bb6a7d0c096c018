//! Every activity's mission timers, in due order, with an index by activity so that what
//! one activity does (cancel by name, count, end) costs in its own timers only.

use std::collections::{BTreeMap, BTreeSet};
use vex_wire::activity::session::SessionId;
use vex_wire::time::Instant;

/// A timer's place: its due time, then the order it was set in.
type Place = (Instant, u64);

/// The timers of every activity.
#[derive(Debug, Default)]
pub struct Timers {
    /// Every timer by its place: its activity session and name.
    due: BTreeMap<Place, (SessionId, String)>,
    /// Each activity's timers.
    of_session: BTreeMap<SessionId, BTreeSet<Place>>,
    /// Timers set so far, for the order of those due at once.
    set: u64,
}

impl Timers {
    /// Sets `name` of `session` due at `at`.
    pub fn set(&mut self, session: SessionId, at: Instant, name: String) {
        let place = (at, self.set);
        self.set += 1;
        self.due.insert(place, (session, name));
        self.of_session.entry(session).or_default().insert(place);
    }

    /// Drops every timer of `session` called `name`.
    pub fn cancel(&mut self, session: SessionId, name: &str) {
        let Some(places) = self.of_session.get_mut(&session) else {
            return;
        };
        let named: Vec<Place> = places
            .iter()
            .filter(|p| self.due.get(p).is_some_and(|(_, n)| n == name))
            .copied()
            .collect();
        for place in named {
            places.remove(&place);
            self.due.remove(&place);
        }
    }

    /// The earliest due time.
    pub fn next(&self) -> Option<Instant> {
        self.due.keys().next().map(|(at, _)| *at)
    }

    /// The earliest timer due at `now`, taken off: its session and name.
    pub fn take_due(&mut self, now: Instant) -> Option<(SessionId, String)> {
        let first = self.due.first_entry()?;
        if first.key().0 > now {
            return None;
        }
        let place = *first.key();
        let (session, name) = first.remove();
        if let Some(places) = self.of_session.get_mut(&session) {
            places.remove(&place);
        }
        Some((session, name))
    }

    /// Drops every timer of `session`.
    pub fn end(&mut self, session: SessionId) {
        for place in self.of_session.remove(&session).unwrap_or_default() {
            self.due.remove(&place);
        }
    }

    /// How many timers `session` holds.
    pub fn held(&self, session: SessionId) -> usize {
        self.of_session.get(&session).map_or(0, BTreeSet::len)
    }
}
