//! The decisions the host makes, as one trait whose default methods are the correct
//! behaviour (design "The emulated client": faults that change a decision go through a
//! policy trait). The handlers ask it and never test for a fault; the built-in host's
//! fault plan (`vex-faults`) keeps every default until it is told to break a rule.

use crate::reason::Dropped;
use crate::schedule::KEEPALIVE_INTERVAL_MS;
use crate::schedule::TimedCommit;
use crate::world::World;
use vex_wire::activity::authority::Purge;
use vex_wire::activity::global_state::GlobalActivityState;
use vex_wire::activity::join::{JoinRequest, JoinResult};
use vex_wire::activity::membership::ReplicateMembership;
use vex_wire::activity::sensor_auth::SensorAuthUpdate;
use vex_wire::activity::session::SessionId;
use vex_wire::activity::small::{AdvanceEpoch, EntitySlotMask, PatchEpoch, WorldGlobals};
use vex_wire::bits::BitError;
use vex_wire::peer::message::TimeSamples;
use vex_wire::scenario::Scenario;

/// What a link's roster is built from (`crate::roster::sensor_auth`), for a policy or a
/// hook that builds one the correct path does not need.
#[derive(Debug, Clone, Copy)]
pub struct RosterInputs<'a> {
    /// The content the host serves.
    pub scenario: &'a Scenario,
    /// The link's join.
    pub join: &'a JoinRequest,
    /// The slice set the member stands in: its roster is that bubble's.
    pub region: i16,
    /// The Auth bodies the host holds.
    pub world: &'a World,
    /// The patch epoch the roster echoes.
    pub epoch: [u64; 2],
}

/// Which message 5 of its link a roster is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RosterSend {
    /// Message 5s sent on the link before this one.
    pub sent: u32,
    /// It answers a snapshot request (message 18, or 11 with activation on).
    pub snapshot: bool,
}

impl RosterSend {
    /// The link's first message 5.
    pub fn first(self) -> bool {
        self.sent == 0
    }
}

/// One `(message id, body)` of a burst, in sending order.
pub type Burst = Vec<(u32, Vec<u8>)>;

/// A membership the group-session host publishes, before its hash: the root and the
/// deltas (NS "Session membership, peer message 30").
#[derive(Debug, Clone, Default)]
pub struct Membership {
    /// The nanopb region's root.
    pub root: vex_wire::peer::membership::MembershipRoot,
    /// The peer-table deltas.
    pub peers: Vec<vex_wire::peer::membership::PeerDelta>,
    /// The player-table deltas.
    pub players: Vec<vex_wire::peer::membership::PlayerDelta>,
}

/// What a group-session host answers a join-request (PEER-17).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinAnswer {
    /// Nothing at all: the protocol version is not the host's.
    Silence,
    /// Join-refuse with this reason.
    Refuse(u8),
    /// Admission, and membership-update to every member.
    Admit,
}

/// The host's decisions. Every default is what the pages ask.
pub trait Policy {
    /// The struct_size a peer message `id` is declared with on the chain: its id's own,
    /// `size` (PEER-13).
    fn peer_struct_size(&self, _id: u8, size: u32) -> u32 {
        size
    }

    /// The answer to a time-synchronize with `samples` that arrived at `now_ms`: a request
    /// gets a reply, its t1 echoed, received and sent at once; a reply is terminal and
    /// gets nothing (NS "Peer message ids"; PEER-16).
    fn time_sync_answer(&self, samples: TimeSamples, now_ms: u64) -> Option<TimeSamples> {
        match samples {
            TimeSamples::Request(t1) => Some(TimeSamples::Reply([t1, now_ms, now_ms])),
            TimeSamples::Reply(_) => None,
        }
    }

    /// The sequence of an association's record whose next is `next` (NS "The association
    /// handshake"; PEER-12): `next`, each record its own.
    fn record_sequence(&self, next: u32) -> u32 {
        next
    }

    /// The answer to a join-request whose checks gave `checked` (NS "What a host checks in
    /// a join request"; PEER-17): that answer.
    fn join_answer(&self, checked: JoinAnswer) -> JoinAnswer {
        checked
    }

    /// An established datagram as it leaves (NS "The peer message channel"): as built.
    fn established_packet(&self, _packet: &mut vex_wire::peer::established::EstablishedPacket) {}

    /// A membership the host publishes (NS "Session membership, peer message 30"): its
    /// root, peer deltas and player deltas (none: the host adds no players) as built; the
    /// hash is computed over what this leaves.
    fn group_membership(&self, _membership: &mut Membership) {}

    /// A group session's membership-update as it leaves, hash included: as built.
    fn group_membership_update(&self, _update: &mut vex_wire::peer::membership::MembershipUpdate) {}

    /// The base nonce service 26 gives: `drawn`, random (facts 1.3, 1.4; BAP-18).
    fn base_nonce(&self, drawn: [u8; 12]) -> [u8; 12] {
        drawn
    }

    /// The session id service 7 gives: `shaped`, the account's shape (ENV-09).
    fn session_id(&self, shaped: SessionId) -> SessionId {
        shaped
    }

    /// Message 4 for an accepted join: `accepted` (JOIN-04, JOIN-07).
    fn join_result(&self, accepted: JoinResult) -> JoinResult {
        accepted
    }

    /// The join_request record message 4 echoes: the request's own (JOIN-05, JOIN-06).
    fn join_echo(&self, record: Vec<u8>) -> Vec<u8> {
        record
    }

    /// Message 1, the burst's when `in_burst` (GLOBAL-02 to GLOBAL-04).
    fn global_state(
        &self,
        state: GlobalActivityState,
        _in_burst: bool,
    ) -> Result<GlobalActivityState, BitError> {
        Ok(state)
    }

    /// Message 2 (WORLD-01, WORLD-02).
    fn world_globals(&self, globals: WorldGlobals) -> WorldGlobals {
        globals
    }

    /// Message 54's body (BHS-01).
    fn bubble_host_state(&self, body: Vec<u8>) -> Vec<u8> {
        body
    }

    /// The join burst in sending order: 4, 0, 1, 2, 54, then 12 (JOIN-01, JOIN-02,
    /// JOIN-09; AUTH-02: no message 5 in it).
    fn join_burst(&self, burst: Burst, _context: RosterInputs<'_>) -> Result<Burst, BitError> {
        Ok(burst)
    }

    /// Whether a public join's burst carries the player's own private session's table
    /// (HOST-14), rather than the activity's.
    fn public_burst_private_table(&self) -> bool {
        true
    }

    /// Message 12: the activity's `table` (MEMBER-01, MEMBER-02, MEMBER-07).
    fn membership(&self, table: ReplicateMembership) -> ReplicateMembership {
        table
    }

    /// Whether the keepalive carries message 12 again: only while `unacknowledged`
    /// (MEMBER-03).
    fn resend_membership(&self, unacknowledged: bool) -> bool {
        unacknowledged
    }

    /// Message 5 with the whole roster, `send` saying which of its link's (AUTH-01 to
    /// AUTH-12, SLOT-01, SLOT-02).
    fn roster(&self, roster: SensorAuthUpdate, _send: RosterSend) -> SensorAuthUpdate {
        roster
    }

    /// The keepalive interval after a join, none for no keepalive (LINK-01, LINK-03).
    fn keepalive_interval(&self) -> Option<u64> {
        Some(KEEPALIVE_INTERVAL_MS)
    }

    /// Message 44 after the epoch the client `holds`: the next one, abort clear (EPOCH-01,
    /// EPOCH-02).
    fn next_epoch(&self, holds: u8) -> AdvanceEpoch {
        AdvanceEpoch {
            epoch: holds.wrapping_add(1),
            abort: false,
        }
    }

    /// Whether message 23 is committed (HOST-15).
    fn commit_identity(&self) -> bool {
        true
    }

    /// The host program's timeline, as the host runs it.
    fn program(&self, timeline: Vec<TimedCommit>) -> Vec<TimedCommit> {
        timeline
    }

    /// The purge notice answering message 27: the request itself, its mask and reason
    /// kept (HOST-08); `None` sends none.
    fn purge_notice(&self, request: Purge) -> Option<Purge> {
        Some(request)
    }

    /// The fraction of the Sense override that finishes a stalled Ghost bar (T65-02).
    fn ghost_finish(&self, fraction: f32) -> f32 {
        fraction
    }

    /// The generation of that override: the bar's own (T65-02).
    fn ghost_finish_generation(&self, generation: i32) -> i32 {
        generation
    }

    /// The patch epoch the link keeps after message 52 `reported`, when it held `held`:
    /// the latest, which every message 5 echoes (AUTH-01).
    fn patch_epoch(&self, _held: Option<PatchEpoch>, reported: PatchEpoch) -> PatchEpoch {
        reported
    }

    /// Whether the first message 52 gets the first message 5 (AUTH-16).
    fn first_roster(&self) -> bool {
        true
    }

    /// Whether message 22 is committed (HOST-05).
    fn commit_client_state(&self) -> bool {
        true
    }

    /// Whether a region move holds every message 5 until the client's roster request
    /// (AUTH-13); a host that does not sends the moved roster at once.
    fn hold_rosters_for_region_request(&self) -> bool {
        true
    }

    /// Whether message 15 gets its answer (LEAVE-01).
    fn answer_leave(&self) -> bool {
        true
    }

    /// Whether message 15 takes the member out of its activity's table (MEMBER-01).
    fn leave_frees_member(&self) -> bool {
        true
    }

    /// The message 5 answering message 15 from the member's roster `inputs`, after `sent`
    /// message 5s on the link: the leave `delta` (LEAVE-01).
    fn leave_delta(
        &self,
        delta: SensorAuthUpdate,
        _inputs: RosterInputs<'_>,
        _sent: u32,
    ) -> Result<SensorAuthUpdate, BitError> {
        Ok(delta)
    }

    /// Whether message 18 gets its snapshot (HOST-03).
    fn answer_refresh(&self) -> bool {
        true
    }

    /// Whether message 11 gets its snapshot while `default_client_activation` is on
    /// (HOST-03).
    fn answer_start_activity(&self) -> bool {
        true
    }

    /// Whether message 18's snapshot ends with message 5 (HOST-03).
    fn refresh_roster(&self) -> bool {
        true
    }

    /// The join burst's grant: the `free` slots found for it (SLOTS-04).
    fn join_grant(&self, free: EntitySlotMask) -> EntitySlotMask {
        free
    }

    /// Message 20's answer for `count` slots: the `free` ones found, none for no answer
    /// (HOST-04).
    fn slot_grant(&self, _count: usize, free: EntitySlotMask) -> Option<EntitySlotMask> {
        Some(free)
    }

    /// Whether a service 6 that does not decode still gets service 7 (BAP-14).
    fn answer_malformed_selection(&self) -> bool {
        true
    }

    /// Whether a message 18 with bytes past its body is taken as one without (HOST-03).
    fn take_trailing_bytes(&self) -> bool {
        true
    }

    /// Whether a service-8 message on discriminator 2 is taken as on 1 (HOST-10).
    fn take_discriminator_two(&self) -> bool {
        true
    }

    /// Whether the link closes after input dropped for `reason`; it goes on (HOST-01,
    /// HOST-06).
    fn close_after_drop(&self, _reason: &Dropped) -> bool {
        false
    }
}
