//! What a link owns of the activity it is bound to: its sessions, its join, and what its
//! client was sent and answered, each ledger in a file of its own (SR "Service 6 and 7",
//! "The join burst").

use super::authority::AuthorityLedger;
use super::epoch::EpochLedger;
use super::roster::RosterLedger;
use super::table::TableLedger;
use vex_wire::activity::join::{INITIAL_REPLICATION_EPOCH, JoinRequest};
use vex_wire::activity::selection::DescriptorBits;
use vex_wire::activity::session::SessionId;
use vex_wire::activity::small::PatchEpoch;

/// What one link owns of the activity it is bound to (SR "Service 6 and 7", "The join
/// burst"): its own session, the session it joined, and what it was sent and answered.
#[derive(Debug, Clone)]
pub struct Binding {
    /// The session the link is bound to: its own until a public join names another.
    pub session: SessionId,
    /// The link's own private session, from its service 7.
    pub private_session: SessionId,
    /// The client's descriptor, kept bit for bit (GLOBAL-04).
    pub descriptor: DescriptorBits,
    /// The join, once message 3 arrived.
    pub join: Option<JoinRequest>,
    /// The client's latest message 52.
    pub epoch: Option<PatchEpoch>,
    /// The rosters the client was sent and is owed (AUTH-16, AUTH-13, AUTH-15, AUTH-10).
    pub roster: RosterLedger,
    /// The replication epoch the client holds, and whether a new one waits (EPOCH-01).
    pub replication: EpochLedger,
    /// The member table the client was sent and acknowledged (MEMBER-03).
    pub table: TableLedger,
    /// Bubble 64's grant and the host's open authority exchanges (AUTH-11, HOST-16).
    pub authority: AuthorityLedger,
}

impl Binding {
    /// The binding service 7 makes: no join yet, at the initial replication epoch.
    pub fn new(session: SessionId, descriptor: DescriptorBits) -> Self {
        Self {
            session,
            private_session: session,
            descriptor,
            join: None,
            epoch: None,
            roster: RosterLedger::default(),
            replication: EpochLedger::joined(INITIAL_REPLICATION_EPOCH),
            table: TableLedger::default(),
            authority: AuthorityLedger::default(),
        }
    }

    /// True when the link joined a session other than its own (SR "The join burst": a
    /// public join).
    pub fn is_public(&self) -> bool {
        self.session != self.private_session
    }
}
