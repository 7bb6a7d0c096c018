//! Which process hosts each region of an activity in a shared fleet
//! ([`crate::HostConfig::shared`]; which one is Vex's choice, `activity::advertised_host`).
//! The core asks the store and the store answers through this seam, as with service 17's
//! placement (`lobby::placement`): a [`RegionAsk`] out by `HostCore::poll_region_ask`, the
//! answers back by `HostCore::handle_region_placed` and `HostCore::handle_hosted`.
//!
//! Three questions: where a region goes that a member of an activity this process holds
//! moved into (its table waits meanwhile, SR "Timed sends that remain": "a membership body
//! held back for a missing host record is retried after 250 ms"); that an activity ended,
//! so its regions are hosted nowhere; and, when a peer asks to join a group session this
//! process does not hold, whether it hosts a region of it for the process that does
//! (`peer::foreign`).

use crate::activities::Activities;
use crate::core::HostCore;
use crate::lobby::Placed;
use std::collections::{BTreeSet, VecDeque};
use std::net::SocketAddrV4;
use vex_wire::activity::session::SessionId;
use vex_wire::time::Instant;

/// A question for the store about the regions of a fleet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegionAsk {
    /// Which process hosts a region of an activity this process holds.
    Place {
        /// The activity's session id.
        session: u64,
        /// The region, by bubble.
        bubble: u8,
        /// This process: the one holding the activity.
        owner: SocketAddrV4,
    },
    /// An activity ended: its regions are hosted nowhere now.
    End {
        /// The activity's session id.
        session: u64,
    },
    /// Whether a process hosts a region of an activity for the process holding it.
    Hosted {
        /// The activity's session id.
        session: u64,
        /// This process: the one a peer asked to join the session.
        address: SocketAddrV4,
    },
}

/// The store's answer to [`RegionAsk::Hosted`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hosted {
    /// It does, while the holder's lease runs.
    For {
        /// How long the holder's lease runs yet: then the port asks again.
        ms: u64,
    },
    /// It does not.
    No,
    /// The store could not say: why. The port takes it as a no.
    Failed(String),
}

/// The activity layer's questions, each asked once until its answer.
#[derive(Debug, Default)]
pub(crate) struct RegionAsks {
    queue: VecDeque<RegionAsk>,
    placing: BTreeSet<(SessionId, u8)>,
}

impl Activities {
    /// A bubble a member of `session` stands in with no host record yet (only in a shared
    /// fleet: a host alone hosts every bubble) is asked of the store, once.
    pub(crate) fn place_missing_region(&mut self, session: SessionId) {
        let Some(bubble) = self.map.get(&session).and_then(|a| a.missing_host_record()) else {
            return;
        };
        if self.region_asks.placing.insert((session, bubble)) {
            self.region_asks.queue.push_back(RegionAsk::Place {
                session: session.0,
                bubble,
                owner: self.config.advertised,
            });
        }
    }

    /// The store placed region `bubble` of `session`: its record names that process, or
    /// this one when the store could not place it. The table held back goes out at its
    /// retry.
    pub(crate) fn region_placed(&mut self, session: SessionId, bubble: u8, placed: Placed) {
        self.region_asks.placing.remove(&(session, bubble));
        let address = match placed {
            Placed::At(address) => address,
            Placed::Failed(why) => {
                tracing::warn!(%session, bubble, %why, "the store placed no region: this process hosts it");
                self.config.advertised
            }
        };
        if let Some(activity) = self.map.get_mut(&session) {
            activity.place_bubble(bubble, address);
        }
    }

    /// `session` ended: when the store placed any of its regions, it is told.
    pub(crate) fn regions_ended(&mut self, session: SessionId, any_placed: bool) {
        if any_placed {
            let ask = RegionAsk::End { session: session.0 };
            self.region_asks.queue.push_back(ask);
        }
    }
}

impl HostCore {
    /// The next question for the store about the regions of a fleet.
    pub fn poll_region_ask(&mut self) -> Option<RegionAsk> {
        self.activities.region_asks.queue.pop_front().or_else(|| {
            let address = self.config.advertised;
            let session = self.peer.poll_hosted_ask()?;
            Some(RegionAsk::Hosted { session, address })
        })
    }

    /// The store placed region `bubble` of `session` (a [`RegionAsk::Place`]).
    pub fn handle_region_placed(&mut self, session: u64, bubble: u8, placed: Placed) {
        self.activities
            .region_placed(SessionId(session), bubble, placed);
    }

    /// The store said at `now` whether this process hosts a region of `session` (a
    /// [`RegionAsk::Hosted`]): the joins that waited for it are answered.
    pub fn handle_hosted(&mut self, now: Instant, session: u64, hosted: Hosted) {
        self.activities.now = now;
        let sessions = &self.activities.map;
        let own = |session: u64| sessions.contains_key(&SessionId(session));
        self.peer
            .hosted(now, session, hosted, &own, &self.config.hooks);
    }
}
