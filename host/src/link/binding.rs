//! What a link owns of the activity it is bound to: its sessions, its join, and what its
//! client was sent and answered, each ledger in a file of its own (SR "Service 6 and 7",
//! "The join burst").

use super::authority::AuthorityLedger;
use super::epoch::EpochLedger;
use super::table::TableLedger;
use std::collections::BTreeSet;
use vex_wire::activity::join::{INITIAL_REPLICATION_EPOCH, JoinRequest};
use vex_wire::activity::selection::DescriptorBits;
use vex_wire::activity::slot::ClientRef;
use vex_wire::activity::small::PatchEpoch;
use vex_wire::bits::Bits;
use vex_wire::time::Instant;

/// What one link owns of the activity it is bound to (SR "Service 6 and 7", "The join
/// burst"): its own session, the session it joined, and what it was sent and answered.
#[derive(Debug, Clone)]
pub struct Binding {
    /// The session the link is bound to: its own until a public join names another.
    pub session: u64,
    /// The link's own private session, from its service 7.
    pub private_session: u64,
    /// The client's descriptor, kept bit for bit (GLOBAL-04).
    pub descriptor: DescriptorBits,
    /// The join, once message 3 arrived.
    pub join: Option<JoinRequest>,
    /// The client's latest message 52.
    pub epoch: Option<PatchEpoch>,
    /// True until the first message 5 answers the first message 52 (AUTH-16).
    pub roster_owed: bool,
    /// True from a message 22 that moved the member's region until the client's roster
    /// request (message 18): every message 5 waits, and the request is answered in full
    /// (AUTH-13).
    pub roster_request_owed: bool,
    /// Message 5 bodies sent with the whole roster.
    pub rosters_sent: u32,
    /// The replication epoch the client holds, and whether a new one waits (EPOCH-01).
    pub replication: EpochLedger,
    /// The member table the client was sent and acknowledged (MEMBER-03).
    pub table: TableLedger,
    /// Bubble 64's grant and the host's open authority exchanges (AUTH-11, HOST-16).
    pub authority: AuthorityLedger,
    /// The slots the last message 5 sent on the link registered: Sense is read against
    /// them (SR "Client reports come in"; AUTH-15).
    pub identity_map: BTreeSet<ClientRef>,
    /// A Sense override the next message 5 carries, once.
    pub sense_override: Option<(ClientRef, Bits)>,
    /// The client tick of the last message 5 sent, and the message-5 bytes sent in it
    /// (AUTH-10: every message 5 of a tick shares the budget).
    pub tick_bytes: (u64, usize),
    /// When a roster that did not fit its tick goes out.
    pub roster_deferred: Option<Instant>,
}

impl Binding {
    /// The binding service 7 makes: no join yet, at the initial replication epoch.
    pub fn new(session: u64, descriptor: DescriptorBits) -> Self {
        Self {
            session,
            private_session: session,
            descriptor,
            join: None,
            epoch: None,
            roster_owed: false,
            roster_request_owed: false,
            rosters_sent: 0,
            replication: EpochLedger::joined(INITIAL_REPLICATION_EPOCH),
            table: TableLedger::default(),
            authority: AuthorityLedger::default(),
            identity_map: BTreeSet::new(),
            tick_bytes: (0, 0),
            roster_deferred: None,
            sense_override: None,
        }
    }

    /// True when the link joined a session other than its own (SR "The join burst": a
    /// public join).
    pub fn is_public(&self) -> bool {
        self.session != self.private_session
    }
}
