//! The host's clock: every timer is one [`HostTimer`] of one link, its deadline comes from
//! the one table in [`HostCore::deadline`], and [`HostCore::handle_timeout`] fires each due
//! one through [`HostCore::fire`] (design "Sans-IO cores": the core never reads a clock).

use crate::core::{HostCore, LinkId};
use crate::link::Link;
use vex_wire::time::Instant;

/// Everything the host does on its own clock (SR "Timed sends that remain").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HostTimer {
    /// The keepalive of a joined link: message 1, message 44 when an epoch waits, message
    /// 12 while unacknowledged (LINK-03).
    Keepalive,
}

impl HostTimer {
    /// Every timer, in the order a link's due ones fire.
    const ALL: [HostTimer; 1] = [HostTimer::Keepalive];
}

impl HostCore {
    /// The timer table: when `link`'s `timer` is due, if it is set.
    fn deadline(link: &Link, timer: HostTimer) -> Option<Instant> {
        match timer {
            HostTimer::Keepalive => link.next_keepalive,
        }
    }

    /// When [`HostCore::handle_timeout`] next has work: the earliest timer of any link.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.links
            .values()
            .flat_map(|l| HostTimer::ALL.map(|t| Self::deadline(l, t)))
            .flatten()
            .min()
    }

    /// Time passed: every timer due at `now` fires, link by link in id order.
    pub fn handle_timeout(&mut self, now: Instant) {
        let due: Vec<(LinkId, HostTimer)> = self
            .links
            .values()
            .flat_map(|l| HostTimer::ALL.map(|t| (l, t)))
            .filter(|(l, t)| Self::deadline(l, *t).is_some_and(|at| at <= now))
            .map(|(l, t)| (l.id, t))
            .collect();
        for (link, timer) in due {
            self.fire(now, link, timer);
        }
    }

    /// Fires `link`'s `timer` at `now`.
    fn fire(&mut self, now: Instant, link: LinkId, timer: HostTimer) {
        match timer {
            HostTimer::Keepalive => self.keepalive(now, link),
        }
    }
}
