//! One activity client of the emulated client (AH "Host to client, service 9": the client
//! keeps up to three; the emulated client uses one per run), made of feature states. Each
//! state keeps its fields private behind narrow methods and owns its checks and its timer;
//! the activity client routes a push to them (`dispatch`), and the core's timer table
//! (`crate::timer`) reaches their deadlines.

mod association;
mod auth_blocks;
mod auth_cause;
mod authority;
mod block_judge;
mod bubble_grants;
mod dispatch;
mod entity_slots;
mod epochs;
mod ghost;
mod group_session;
mod identity;
mod incident;
mod join;
mod keepalive;
mod leave;
mod membership;
mod player_key;
mod probe;
#[cfg(test)]
mod push_breaches;
mod qos;
mod refresh;
mod region;
mod reports;
mod revisions;
mod roster;
mod slot_bodies;
mod state_bytes;
mod tick_budget;
mod unasked;
mod world;

use crate::config::ClientConfig;
use crate::links::{Links, Outgoing};
use crate::status::StatusLine;
use crate::verdict::Verdict;
use association::Association;
use auth_cause::AuthCause;
use authority::Authority;
use bubble_grants::BubbleGrants;
use entity_slots::EntitySlots;
pub(crate) use entity_slots::REQUESTED_SLOTS;
use epochs::Epochs;
use ghost::GhostScan;
use identity::IdentityReport;
use join::Join;
use keepalive::Keepalive;
use leave::Leave;
use membership::Membership;
use probe::TimedProbe;
use qos::QosProbe;
use refresh::Refresh;
use region::Region;
use reports::Reports;
use roster::Roster;
use tick_budget::TickBudget;
use unasked::Unasked;
use vex_wire::time::Instant;

/// One activity client and what the host has told it (AH "Host to client, service 9").
#[derive(Debug)]
pub(crate) struct ActivityClient {
    /// The join and the routing arms.
    pub(crate) join: Join,
    /// The replication epoch and the message 52 schedule.
    pub(crate) epochs: Epochs,
    /// The client's message 16 and the watch on the host's message 1.
    pub(crate) keepalive: Keepalive,
    /// What message 5 told it.
    pub(crate) roster: Roster,
    /// What message 12 told it, and what it acknowledged.
    pub(crate) membership: Membership,
    /// Its entity slot lease and its request for more.
    pub(crate) slots: EntitySlots,
    /// Message 18 and the snapshot it is owed.
    pub(crate) refresh: Refresh,
    /// Message 15 and what the client held then.
    pub(crate) leave: Leave,
    /// Message 23.
    pub(crate) identity: IdentityReport,
    /// The region it stands in, and message 22.
    pub(crate) region: Region,
    /// Its purge request and abdication, and the host's authority resets and queries.
    pub(crate) authority: Authority,
    /// Its own gameplay reports.
    pub(crate) reports: Reports,
    /// The Ghost scan bar it runs, reported through Sense.
    pub(crate) ghost: GhostScan,
    /// Why each message 5 came.
    pub(crate) auth_cause: AuthCause,
    /// Messages 2 no request owes (HOST-01, HOST-06, HOST-16, HOST-17).
    unasked: Unasked,
    /// The message 5 bytes of the current tick.
    pub(crate) tick_budget: TickBudget,
    /// Bubble 64's grant as the client mirrors it.
    pub(crate) grants: BubbleGrants,
    /// The scripted probe of the host, when it is a message of its own.
    pub(crate) probe: TimedProbe,
    /// The QoS probe of the session, when the script sends one.
    pub(crate) qos: QosProbe,
    /// The association with the Activity Host's UDP port, when the script opens one.
    pub(crate) association: Association,
}

/// What an activity client reaches outside itself while it handles a push.
pub(crate) struct Context<'a> {
    /// The time of the push.
    pub(crate) now: Instant,
    /// The client's configuration.
    pub(crate) config: &'a ClientConfig,
    /// The status line.
    pub(crate) status: &'a mut StatusLine,
    /// Where checks record.
    pub(crate) verdict: &'a mut Verdict,
    /// Where the client's own messages go.
    pub(crate) links: &'a mut Links,
}

impl Context<'_> {
    /// Sends `out` on service 8 with `handle`.
    fn send(&mut self, handle: u64, out: Outgoing) {
        self.links.send_activity(self.now, handle, out);
    }
}

impl ActivityClient {
    /// The activity client service 7 made, which sends join_request naming `id` at once;
    /// `public` when `id` is another member's session, `badly_shaped` when it failed
    /// ENV-09; it stands in the `arrival` slice set.
    pub(crate) fn new(id: u64, public: bool, badly_shaped: bool, arrival: i16) -> Self {
        Self {
            join: Join::new(id, public, badly_shaped),
            epochs: Epochs::default(),
            keepalive: Keepalive::default(),
            roster: Roster::default(),
            membership: Membership::default(),
            slots: EntitySlots::default(),
            refresh: Refresh::default(),
            leave: Leave::default(),
            identity: IdentityReport::default(),
            region: Region::new(arrival),
            authority: Authority::default(),
            reports: Reports::default(),
            ghost: GhostScan::default(),
            auth_cause: AuthCause::default(),
            unasked: Unasked::default(),
            tick_budget: TickBudget::default(),
            grants: BubbleGrants::default(),
            probe: TimedProbe::default(),
            qos: QosProbe::default(),
            association: Association::default(),
        }
    }

    /// The run's deadline `now` passed: what the host still owes it (JOIN-02, LEAVE-01,
    /// HOST-04, HOST-03, HOST-15, HOST-08, AUTH-16, SEED-05).
    pub(crate) fn finish(&self, verdict: &mut Verdict, now: Instant) {
        self.join.check_burst_owed(verdict, now);
        self.roster.check_spawned(verdict, now);
        self.leave.check_answered(verdict, now);
        self.slots.check_answered(verdict, now);
        self.refresh.check_answered(verdict, now);
        self.identity.check_answered(verdict, now);
        self.authority.check_answered(verdict, now);
        self.auth_cause.check_answered(verdict, now);
        self.association.group().check_answered(verdict, now);
    }
}
