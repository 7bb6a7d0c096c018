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
    /// The session the link is bound to: its own until a join names another.
    session: SessionId,
    /// The link's own private session, from its service 7.
    private_session: SessionId,
    /// The client's descriptor, kept bit for bit (GLOBAL-04).
    descriptor: DescriptorBits,
    /// The join, once message 3 arrived.
    join: Option<JoinRequest>,
    /// The client's latest message 52.
    epoch: Option<PatchEpoch>,
    /// The rosters the client was sent and is owed (AUTH-16, AUTH-13, AUTH-15, AUTH-10).
    roster: RosterLedger,
    /// The replication epoch the client holds, and whether a new one waits (EPOCH-01).
    replication: EpochLedger,
    /// The member table the client was sent and acknowledged (MEMBER-03).
    table: TableLedger,
    /// Bubble 64's grant and the host's open authority exchanges (AUTH-11, HOST-16).
    authority: AuthorityLedger,
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

    /// The rosters the client was sent and is owed.
    pub(crate) fn roster(&self) -> &RosterLedger {
        &self.roster
    }

    /// [`Binding::roster`], to change.
    pub(crate) fn roster_mut(&mut self) -> &mut RosterLedger {
        &mut self.roster
    }

    /// The replication epoch the client holds.
    pub(crate) fn replication(&self) -> &EpochLedger {
        &self.replication
    }

    /// [`Binding::replication`], to change.
    pub(crate) fn replication_mut(&mut self) -> &mut EpochLedger {
        &mut self.replication
    }

    /// The member table the client was sent and acknowledged.
    pub(crate) fn table_mut(&mut self) -> &mut TableLedger {
        &mut self.table
    }

    /// The member table the client was sent and acknowledged, to read.
    pub(crate) fn table(&self) -> &TableLedger {
        &self.table
    }

    /// Bubble 64's grant and the host's open authority exchanges.
    pub(crate) fn authority(&self) -> &AuthorityLedger {
        &self.authority
    }

    /// [`Binding::authority`], to change.
    pub(crate) fn authority_mut(&mut self) -> &mut AuthorityLedger {
        &mut self.authority
    }

    /// True when the link joined a session other than its own (SR "The join burst": a
    /// public join).
    pub fn is_public(&self) -> bool {
        self.session != self.private_session
    }

    /// The session the link is bound to.
    pub fn session(&self) -> SessionId {
        self.session
    }

    /// The link's own private session.
    pub fn private_session(&self) -> SessionId {
        self.private_session
    }

    /// The client's descriptor, as its service 6 carried it.
    pub fn descriptor(&self) -> &DescriptorBits {
        &self.descriptor
    }

    /// The join, once its burst went out.
    pub fn join(&self) -> Option<&JoinRequest> {
        self.join.as_ref()
    }

    /// True once the join's burst went out, until the member leaves.
    pub fn is_joined(&self) -> bool {
        self.join.is_some()
    }

    /// The client's latest patch epoch (message 52).
    pub fn epoch(&self) -> Option<PatchEpoch> {
        self.epoch
    }

    /// Message 52 reported `epoch`.
    pub fn report_epoch(&mut self, epoch: PatchEpoch) {
        self.epoch = Some(epoch);
    }

    /// A join names `session`: the link is bound to it from now on. Through
    /// [`super::Links::enter`], which counts the sessions bindings name.
    pub(super) fn enter(&mut self, session: SessionId) {
        self.session = session;
    }

    /// The join's burst went out with the activity's table at `revision` and message 4's
    /// `initial` replication epoch: the first roster and the table are owed.
    pub fn joined(&mut self, join: JoinRequest, initial: u8, revision: u32) {
        self.join = Some(join);
        self.roster.joined();
        self.replication = EpochLedger::joined(initial);
        self.table = TableLedger::joined(revision);
    }

    /// The join did not go through: the link is back on its own session, not joined.
    /// Through [`super::Links::unjoin`].
    pub(super) fn unjoin(&mut self) {
        self.session = self.private_session;
        self.join = None;
    }

    /// The member leaves: the join it had.
    pub fn leave(&mut self) -> Option<JoinRequest> {
        self.join.take()
    }
}
