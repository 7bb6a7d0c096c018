//! One activity client of the emulated client (AH "Host to client, service 9": the client
//! keeps up to three; the emulated client uses one per run).

use crate::entity_slots::SlotAsk;
use crate::leave::Departure;
use std::collections::{BTreeSet, VecDeque};
use vex_wire::activity::sensor_auth::RosterDelta;
use vex_wire::activity::slot::ClientRef;
use vex_wire::activity::small::EntitySlotMask;
use vex_wire::time::Instant;

/// One activity client and what the host has told it.
#[derive(Debug)]
pub struct ActivitySlot {
    /// The id join_request field 1 names, which the pre-join arm matches message 4
    /// against: service 7's, or the public session the client joins. The emulated client
    /// sends join_request as soon as it makes the slot.
    pub id: u64,
    /// The join names a session other than the client's own (SR "The join burst").
    pub public: bool,
    /// The id failed ENV-09: pushes naming it are dropped.
    pub badly_shaped: bool,
    /// The first push after join_request has been seen (JOIN-01).
    pub first_push_seen: bool,
    /// A join_result was accepted.
    pub established: bool,
    /// The id join_result stored; every later push must carry it (ENV-07).
    pub stored_id: u64,
    /// join_result field 9.
    pub keepalive_interval_ms: u64,
    /// The replication epoch: join_result field 7, then each message 44's (EPOCH-01).
    pub replication_epoch: u8,
    /// When message 52 is next due.
    pub next_epoch: Option<Instant>,
    /// The latest message 52 the client sent (AUTH-01, AUTH-02).
    pub last_epoch_sent: Option<[u64; 2]>,
    /// Message 5 bodies applied.
    pub rosters_applied: u32,
    /// The last message 12 applied, whole, with its revision.
    pub membership: Option<(u32, Vec<u8>)>,
    /// The revision and member keys of every message 12 applied, in order.
    pub tables: Vec<(u32, Vec<u64>)>,
    /// The membership revision the client acknowledged with message 38, and when.
    pub membership_acknowledged: Option<(u32, Instant)>,
    /// The slots whose last Auth state came with a body (AUTH-09).
    pub auth_bodies: BTreeSet<ClientRef>,
    /// The roster of the last message 5 applied.
    pub roster: Option<RosterDelta>,
    /// The entity slots the client holds: every message 0 ORed, less what it returned.
    pub lease: EntitySlotMask,
    /// When the client returns slots and asks for more (HOST-04).
    pub slot_request_at: Option<Instant>,
    /// A message 20 waiting for its message 0.
    pub slot_ask: Option<SlotAsk>,
    /// When the client sends message 18 (HOST-03).
    pub refresh_at: Option<Instant>,
    /// When the client sent message 18.
    pub refresh_asked_at: Option<Instant>,
    /// The parts of the snapshot message 18 is still owed, in order.
    pub refresh_owed: VecDeque<u32>,
    /// When the client sends message 15 (LEAVE-01).
    pub leave_at: Option<Instant>,
    /// When the client sends message 23 (HOST-15).
    pub identity_at: Option<Instant>,
    /// The client left: what it held then, to judge the host's answer by.
    pub departure: Option<Departure>,
    /// The burst messages still owed after message 4, in order (JOIN-02).
    pub burst_owed: VecDeque<u32>,
    /// When the last message 1 arrived after the join (LINK-03).
    pub last_global_state: Option<Instant>,
    /// LINK-03 was reported once already.
    pub keepalive_reported: bool,
}

impl ActivitySlot {
    /// An activity client made from service 7.
    pub fn new(id: u64, public: bool, badly_shaped: bool) -> Self {
        Self {
            id,
            public,
            badly_shaped,
            first_push_seen: false,
            established: false,
            stored_id: 0,
            keepalive_interval_ms: 0,
            replication_epoch: 0,
            next_epoch: None,
            last_epoch_sent: None,
            rosters_applied: 0,
            membership: None,
            tables: Vec::new(),
            membership_acknowledged: None,
            auth_bodies: BTreeSet::new(),
            roster: None,
            lease: EntitySlotMask::empty(),
            slot_request_at: None,
            slot_ask: None,
            refresh_at: None,
            refresh_asked_at: None,
            refresh_owed: VecDeque::new(),
            leave_at: None,
            identity_at: None,
            departure: None,
            burst_owed: VecDeque::new(),
            last_global_state: None,
            keepalive_reported: false,
        }
    }
}
