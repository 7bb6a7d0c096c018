//! The group session the client joins over its association (NS "What a host checks in a
//! join request", "Session membership, peer message 30"; PEER-01, PEER-02, PEER-14,
//! PEER-17 to PEER-22): a connect-request out of band, the host's connect-response
//! answered with the client's reliable connect-establish and a join-request, then
//! membership-update over the reliable connection, applied first and validated after as
//! the real client does, its hash checked last over the client's own session state.
//!
//! The bodies' widths, the established datagram's layout and the session state past the
//! nanopb region are Sunrise's, not the pages' (Vex's choices
//! [`Choice::PeerMessageBodies`], [`Choice::EstablishedLayout`] and
//! [`Choice::SessionStateReplica`]); a finding that rests on them is advisory.

use super::association::ANSWER_WITHIN_MS;
use crate::rules::{Choice, Rule};
use crate::verdict::Verdict;
use prost::Message;
use vex_wire::peer::established::EstablishedPacket;
use vex_wire::peer::membership::{self, MembershipRoot, MembershipUpdate};
use vex_wire::peer::message::{self, JoinRequest, PeerMessage, refuse};
use vex_wire::peer::net_addr::NetAddr;
use vex_wire::peer::reliable::{Connection, ReliableError};
use vex_wire::peer::session_state::SessionState;
use vex_wire::time::Instant;
use zerocopy::IntoBytes;

/// The client's channel id: the first of its counter (facts: counted from 1).
const CHANNEL: u32 = 1;
/// The sequence the client announces: the one before its first packet, low 10 bits clear.
const ANNOUNCED_SEQUENCE: u32 = 0x400;
/// How often the client sends its connect-request or join-request again while it waits
/// for the answer: Vex's (they go out of band, where nothing resends them).
const REQUEST_RESEND_MS: u64 = 1_000;

/// The out-of-band request the client waits on an answer to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Request {
    /// The connect-request, until the connect-response.
    Connect,
    /// The join-request, until a membership-update or a join-refuse.
    Join,
}

/// What the group session sends unasked at one time.
#[derive(Debug, Default)]
pub(crate) struct Due {
    /// An out-of-band request sent again.
    pub(crate) out_of_band: Option<Vec<PeerMessage>>,
    /// The reliable connection's datagrams.
    pub(crate) established: Vec<Vec<u8>>,
}

/// Where the join is.
#[derive(Debug, Default)]
enum Stage {
    /// Nothing sent.
    #[default]
    Idle,
    /// The connect-request is out, since then.
    Connecting(Instant),
    /// The connection is up and the join-request out, or answered.
    Connected {
        connection: Box<Connection>,
        /// When the join-request went.
        asked: Instant,
        /// Whether the host's first reliable message came (it must be connect-establish).
        established: bool,
        /// Whether the client sent its join-complete.
        completed: bool,
    },
    /// The join ended: refused, or the connection broken.
    Ended,
}

/// The client's side of the group session.
#[derive(Debug, Default)]
pub(crate) struct GroupSession {
    stage: Stage,
    session: u64,
    join_id: u64,
    /// The session state the client holds, as membership-update left it: none before the
    /// first (28 KiB a client that never joins a group session does not hold).
    state: Option<SessionState>,
    /// The updates applied and validated, hash included.
    accepted: u32,
    /// Whether any answer to the join came: a membership-update, good or bad.
    answered: bool,
    /// When the out-of-band request waiting for its answer goes again.
    resend_at: Option<Instant>,
}

impl GroupSession {
    /// The connect-request at `now` that opens the join of `session`.
    pub(crate) fn connect(&mut self, now: Instant, session: u64) -> PeerMessage {
        self.session = session;
        self.join_id = session.rotate_left(17) | 1;
        self.stage = Stage::Connecting(now);
        self.resend_at = Some(now + REQUEST_RESEND_MS);
        self.request(Request::Connect)
    }

    /// The request waiting for its answer, and when it first went.
    fn waiting(&self) -> Option<(Request, Instant)> {
        match &self.stage {
            Stage::Connecting(at) => Some((Request::Connect, *at)),
            Stage::Connected { asked, .. } if !self.answered => Some((Request::Join, *asked)),
            _ => None,
        }
    }

    /// `request`'s message.
    fn request(&self, request: Request) -> PeerMessage {
        match request {
            Request::Connect => PeerMessage::ConnectRequest {
                channel: CHANNEL,
                sequence: ANNOUNCED_SEQUENCE,
                addr: self.addr(),
            },
            Request::Join => PeerMessage::JoinRequest(JoinRequest {
                protocol: message::PROTOCOL_VERSION,
                low_build: message::BUILD,
                high_build: message::BUILD,
                executable_type: message::EXECUTABLE_TYPE,
                session: self.session,
                join_id: self.join_id,
            }),
        }
    }

    /// The address the client claims: its member entry must echo these 86 bytes.
    fn addr(&self) -> NetAddr {
        own_addr(self.join_id)
    }

    /// How many membership-updates the client applied and validated.
    pub(crate) fn accepted(&self) -> u32 {
        self.accepted
    }

    /// The membership revision the client holds.
    pub(crate) fn revision(&self) -> u32 {
        self.state.as_ref().map_or(0, SessionState::revision)
    }

    /// An out-of-band message of the host's: a connect-response opens the connection and
    /// the client asks to join; a join-refuse ends the join, judged when its reason names
    /// a check the client's request passes (PEER-17: admission may still refuse with 4,
    /// 6, 7 or 26, the host's freedom). What the client sends out of band in answer.
    pub(crate) fn on_out_of_band(
        &mut self,
        verdict: &mut Verdict,
        now: Instant,
        message: &PeerMessage,
    ) -> Option<PeerMessage> {
        match (message, &self.stage) {
            (
                PeerMessage::ConnectResponse {
                    echoed_channel,
                    echoed_sequence,
                    channel,
                    sequence,
                    ..
                },
                Stage::Connecting(_),
            ) => {
                if (*echoed_channel, *echoed_sequence) != (CHANNEL, ANNOUNCED_SEQUENCE) {
                    let reason = format!(
                        "the connect-response echoes channel {echoed_channel} and sequence {echoed_sequence:#x}, not the request's {CHANNEL} and {ANNOUNCED_SEQUENCE:#x}: no connection opens"
                    );
                    verdict.advise(Rule::Peer14, Choice::PeerMessageBodies, None, None, reason);
                    self.stage = Stage::Ended;
                    return None;
                }
                let mut connection = Connection::new(CHANNEL, *channel, *sequence);
                let establish = PeerMessage::ConnectEstablish {
                    remote_channel: *channel,
                    channel: CHANNEL,
                };
                // the first message of a fresh connection always fits
                let _ = connection.send(&establish, establish.declared_size());
                self.stage = Stage::Connected {
                    connection: Box::new(connection),
                    asked: now,
                    established: false,
                    completed: false,
                };
                self.resend_at = Some(now + REQUEST_RESEND_MS);
                Some(self.request(Request::Join))
            }
            (PeerMessage::JoinRefuse { reason, .. }, Stage::Connected { .. }) => {
                self.stage = Stage::Ended;
                // admission is the host's to decide (NS): these need no failed check
                let admission = [
                    refuse::NOT_FOUND,
                    refuse::NOT_JOINABLE,
                    refuse::SESSION_FULL,
                    refuse::REJECTED_BY_HOST,
                ];
                if admission.contains(reason) {
                    tracing::info!(reason, "the host's admission refused the join");
                    return None;
                }
                let reason = format!(
                    "the host refused a join-request that passes every check, with reason {reason} ({}): the session it advertises runs, the builds and the executable type are its own",
                    refusal_name(*reason)
                );
                verdict.advise(Rule::Peer17, Choice::PeerMessageBodies, None, None, reason);
                None
            }
            _ => None,
        }
    }

    /// An established datagram of the host's: read (PEER-14), admitted to the window
    /// (PEER-01), and the messages it completes taken.
    pub(crate) fn on_established(&mut self, verdict: &mut Verdict, plaintext: &[u8]) {
        let (connection, established, completed) = match &mut self.stage {
            Stage::Connected {
                connection,
                established,
                completed,
                ..
            } => (connection, established, completed),
            // before the connect-response (lost or overtaken: the host sends it again) or
            // after the join ended, no connection takes it; a host that never answers the
            // connect-request is judged at the run's end
            Stage::Idle | Stage::Connecting(_) | Stage::Ended => {
                return tracing::debug!("an established datagram with no connection: dropped");
            }
        };
        let delivered = match EstablishedPacket::read(plaintext)
            .map_err(ReliableError::from)
            .and_then(|packet| connection.receive(&packet))
        {
            Ok(delivered) => delivered,
            Err(e @ ReliableError::Ahead { .. }) => {
                self.stage = Stage::Ended;
                let reason = format!("{e}: the connection never recovers");
                return verdict.violate(Rule::Peer01, None, None, reason);
            }
            Err(e) => {
                let reason = format!("an established datagram the client cannot take: {e}");
                return verdict.advise(Rule::Peer14, Choice::EstablishedLayout, None, None, reason);
            }
        };
        let mut complete = None;
        for message in delivered {
            let message = match message {
                Ok((message, _)) => message,
                Err(e) => {
                    let reason = format!("a reliable message the client cannot read: {e}");
                    verdict.advise(Rule::Peer14, Choice::PeerMessageBodies, None, None, reason);
                    continue;
                }
            };
            if !std::mem::replace(established, true) && message.id() != message::CONNECT_ESTABLISH {
                let reason = format!(
                    "the host's first reliable message is {}, not connect-establish (8)",
                    message.id()
                );
                verdict.advise(Rule::Peer14, Choice::EstablishedLayout, None, None, reason);
            }
            if let PeerMessage::MembershipUpdate(update) = message {
                self.answered = true;
                let state = self.state.get_or_insert_with(SessionState::default);
                if Self::apply(state, self.join_id, verdict, &update) {
                    self.accepted += 1;
                    complete = Some(state.revision());
                }
            }
        }
        if let Some(revision) = complete.filter(|_| !std::mem::replace(completed, true)) {
            let done = PeerMessage::JoinComplete {
                session: self.session,
                machine: self.join_id,
                revision,
            };
            if let Err(e) = connection.send(&done, done.declared_size()) {
                tracing::warn!(%e, "join-complete not queued");
            }
        }
    }

    /// Applies `update` into `state` and validates after, as the real client does
    /// (PEER-21): the join id first (a stale join drops the update, PEER-02), then the
    /// member fields (PEER-02, PEER-19), each player row's profile (PEER-20: the reader
    /// takes none with one, whose layout no source gives), the hash last (PEER-22). True
    /// when it holds.
    fn apply(
        state: &mut SessionState,
        join_id: u64,
        verdict: &mut Verdict,
        update: &MembershipUpdate,
    ) -> bool {
        let root = match MembershipRoot::decode(&update.root[..]) {
            Ok(root) => root,
            Err(e) => {
                let reason = format!(
                    "membership-update's nanopb region does not decode ({e}): the update is dropped (PB-01)"
                );
                verdict.violate(Rule::Peer18, None, None, reason);
                return false;
            }
        };
        if let Some((rule, breach)) = nanopb_bounds(&root) {
            let reason = format!(
                "membership-update's nanopb region: {breach}: nanopb refuses the whole message (PB-01)"
            );
            verdict.violate(rule, None, None, reason);
            return false;
        }
        let own = own_addr(join_id);
        let entry = root
            .members
            .iter()
            .find(|m| m.addr.as_deref() == Some(own.as_bytes()));
        let Some(entry) = entry else {
            let reason = "no member entry of membership-update carries the client's own 86-byte address: it has no join to match, and the update is dropped".into();
            verdict.violate(Rule::Peer02, None, None, reason);
            return false;
        };
        if entry.join_id.unwrap_or_default() != join_id {
            let reason = format!(
                "the client's member entry carries join id {:#x}, not its current join's {join_id:#x}: the update is from a stale join and is dropped",
                entry.join_id.unwrap_or_default()
            );
            verdict.violate(Rule::Peer02, None, None, reason);
            return false;
        }
        let snapshot = matches!(update.revisions, Some((0, _)));
        state.apply(snapshot, &root, &update.peers, &update.players);
        if let Some((rule, breach)) = held_breach(state, &root, update) {
            state.clear_tables();
            let reason = format!(
                "{breach}: the client clears its member and player tables and rebuilds a two-member session (PEER-21)"
            );
            verdict.violate(rule, None, None, reason);
            return false;
        }
        for p in &update.players {
            let reason = format!(
                "the player delta of slot {} (member {}) carries no profile: an activity join reads the player's account and character ids from this row, so the peer loses its player",
                p.slot, p.member
            );
            verdict.violate(Rule::Peer20, None, None, reason);
        }
        let held = state.hash();
        if held != update.hash {
            let reason = format!(
                "membership-update's hash is {:#010x}; lookup3 over the client's own session state after applying is {held:#010x}: no membership information, a disconnect and a retried join",
                update.hash
            );
            verdict.advise(
                Rule::Peer22,
                Choice::SessionStateReplica,
                None,
                None,
                reason,
            );
            return false;
        }
        true
    }

    /// At the run's end `now`: a connect-request or join-request unanswered for
    /// [`ANSWER_WITHIN_MS`] (PEER-17: only a protocol that is not the host's goes without a
    /// reply, and the client's is; advisory on the bodies Vex takes).
    pub(crate) fn check_answered(&self, verdict: &mut Verdict, now: Instant) {
        let Some((request, asked)) = self.waiting() else {
            return;
        };
        let what = match request {
            Request::Connect => "connect-request",
            Request::Join => "join-request",
        };
        if now.since(asked) >= ANSWER_WITHIN_MS {
            let reason = format!(
                "the host left the group session's {what} unanswered for {} ms: no membership-update, no join-refuse",
                now.since(asked)
            );
            verdict.advise(Rule::Peer17, Choice::PeerMessageBodies, None, None, reason);
        }
    }

    /// What is due at `now`: the request waiting for its answer again, once a second,
    /// and the reliable connection's datagrams.
    pub(crate) fn poll(&mut self, now: Instant) -> Due {
        let mut due = Due::default();
        if let Some((request, _)) = self.waiting()
            && self.resend_at.is_some_and(|at| at <= now)
        {
            self.resend_at = Some(now + REQUEST_RESEND_MS);
            due.out_of_band = Some(vec![self.request(request)]);
        }
        if let Stage::Connected { connection, .. } = &mut self.stage {
            due.established = std::iter::from_fn(|| connection.poll(now))
                .filter_map(|packet| packet.write().ok())
                .collect();
        }
        due
    }

    /// When [`GroupSession::poll`] next has something.
    pub(crate) fn next_due(&self) -> Option<Instant> {
        let request = self.resend_at.filter(|_| self.waiting().is_some());
        let connection = match &self.stage {
            Stage::Connected { connection, .. } => connection.next_due(),
            _ => None,
        };
        request.into_iter().chain(connection).min()
    }
}

/// What nanopb refuses in the root before any field is copied (PB-01, PB-02): more than
/// 32 members, an address past its 88-byte slot or a machine id past its 8 (PEER-18), a
/// member with more than its one player slot (PEER-19).
fn nanopb_bounds(root: &MembershipRoot) -> Option<(Rule, String)> {
    if root.members.len() > membership::CAPACITY {
        let breach = format!("{} members; the table holds 32", root.members.len());
        return Some((Rule::Peer18, breach));
    }
    root.members.iter().enumerate().find_map(|(i, m)| {
        let addr = m.addr.as_ref().map_or(0, Vec::len);
        let machine = m.machine_id.as_ref().map_or(0, Vec::len);
        let slots = m.player_slot.len();
        if addr > 88 || machine > 8 {
            let breach = format!(
                "member {i}'s address is {addr} bytes and its machine id {machine}; the slots hold 88 and 8"
            );
            Some((Rule::Peer18, breach))
        } else if slots > 1 {
            let breach = format!("member {i} owns {slots} player slots; a member owns at most 1");
            Some((Rule::Peer19, breach))
        } else {
            None
        }
    })
}

/// The first field the state holds after applying that the receiver refuses: an address
/// not 86 bytes or a machine id not 8 (PEER-02), a host index past the members, a member
/// state past 10 (PEER-19).
fn held_breach(
    state: &SessionState,
    root: &MembershipRoot,
    update: &MembershipUpdate,
) -> Option<(Rule, String)> {
    let members: Vec<_> = state.members().collect();
    if let Some((i, m)) = members.iter().enumerate().find(|(_, m)| {
        m.addr_len != membership::ADDR_LEN || m.machine_id_len != membership::MACHINE_ID_LEN
    }) {
        let breach = format!(
            "member {i} holds an address of {} bytes and a machine id of {}; the client needs 86 and 8",
            m.addr_len, m.machine_id_len
        );
        return Some((Rule::Peer02, breach));
    }
    let host = root.host_index.unwrap_or_default();
    if host as usize >= members.len() {
        let breach = format!(
            "the host member index is {host}, past the {} members",
            members.len()
        );
        return Some((Rule::Peer19, breach));
    }
    let past = update
        .peers
        .iter()
        .find(|p| p.state > membership::MAX_STATE);
    past.map(|p| {
        let breach = format!(
            "member {}'s connection state is {}, past the highest the client names (10 _established)",
            p.index, p.state
        );
        (Rule::Peer19, breach)
    })
}

/// The 86 bytes the client of join `join_id` claims as its address: no endpoint (it
/// dials no peer), its join id as the address id.
fn own_addr(join_id: u64) -> NetAddr {
    NetAddr::direct([0; 4], 0, join_id as u32)
}

/// The name the client gives a reason no admission gives, where the pages name it.
fn refusal_name(reason: u8) -> &'static str {
    match reason {
        refuse::NO_REASON_GIVEN => "no-reason-given",
        refuse::PEER_VERSION_TOO_LOW => "peer-version-too-low",
        refuse::HOST_VERSION_TOO_LOW => "host-version-too-low",
        refuse::EXECUTABLE_TYPE_MISMATCH => "executable-type-mismatch",
        r if r <= refuse::MAX => "a reason the pages do not name",
        _ => "past the 30 the client names",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vex_wire::peer::membership::{MembershipMember, PeerDelta};
    use zerocopy::FromZeros;

    const SESSION: u64 = 0x9EAA_3001_0020_0001;

    fn at(ms: u64) -> Instant {
        Instant::from_millis(ms)
    }

    /// A client the host answered with its connect-response (the host's channel 2): its
    /// join-request is out.
    fn responded() -> (GroupSession, Verdict) {
        let mut v = Verdict::new();
        let mut g = GroupSession::default();
        g.connect(at(0), SESSION);
        let response = PeerMessage::ConnectResponse {
            echoed_channel: CHANNEL,
            echoed_sequence: ANNOUNCED_SEQUENCE,
            channel: 2,
            sequence: 0x800,
            addr: NetAddr::new_zeroed(),
        };
        let join = g.on_out_of_band(&mut v, at(1), &response);
        assert!(matches!(join, Some(PeerMessage::JoinRequest(_))));
        (g, v)
    }

    /// A client whose join-request is out, and the host's side of its connection, with
    /// the host's connect-establish already taken.
    fn asked() -> (GroupSession, Connection, Verdict) {
        let (mut g, mut v) = responded();
        let mut host = Connection::new(2, CHANNEL, ANNOUNCED_SEQUENCE);
        let establish = PeerMessage::ConnectEstablish {
            remote_channel: CHANNEL,
            channel: 2,
        };
        host.send(&establish, 8).unwrap();
        g.on_established(&mut v, &host.poll(at(2)).unwrap().write().unwrap());
        (g, host, v)
    }

    /// The membership a correct host publishes for `g`: the host and the client, the
    /// client's entry with its address and join id.
    fn membership(g: &GroupSession) -> (MembershipRoot, Vec<PeerDelta>) {
        let member = |addr: Vec<u8>, machine: u64| MembershipMember {
            addr: Some(addr),
            machine_id: Some(machine.to_le_bytes().to_vec()),
            join_id: Some(g.join_id),
            ..MembershipMember::default()
        };
        let root = MembershipRoot {
            revision: Some(1),
            host_index: Some(0),
            succession_index: Some(0),
            member_count: Some(2),
            member_mask: Some(0b11),
            members: vec![
                member(vec![0; 86], SESSION),
                member(g.addr().as_bytes().to_vec(), g.join_id),
            ],
        };
        let peers = (0..2)
            .map(|index| PeerDelta {
                index,
                state: membership::STATE_READY,
                connection: Some((0, 0, 0)),
            })
            .collect();
        (root, peers)
    }

    /// `root` and `peers` as a snapshot whose hash is the state's after applying them.
    fn update(root: &MembershipRoot, peers: Vec<PeerDelta>) -> MembershipUpdate {
        let mut state = SessionState::default();
        state.apply(true, root, &peers, &[]);
        MembershipUpdate {
            peers,
            hash: state.hash(),
            ..MembershipUpdate::snapshot(SESSION, root)
        }
    }

    /// The rules a membership edited by `edit`, its hash recomputed, draws; and by
    /// `wire`, after the hash.
    fn judged(
        edit: impl FnOnce(&mut MembershipRoot, &mut Vec<PeerDelta>),
        wire: impl FnOnce(&mut MembershipUpdate),
    ) -> (Vec<Rule>, GroupSession) {
        let (mut g, mut host, mut v) = asked();
        let (mut root, mut peers) = membership(&g);
        edit(&mut root, &mut peers);
        let mut u = update(&root, peers);
        wire(&mut u);
        let message = PeerMessage::MembershipUpdate(Box::new(u));
        host.send(&message, 31_104).unwrap();
        while let Some(packet) = host.poll(at(3)) {
            g.on_established(&mut v, &packet.write().unwrap());
        }
        (v.rules(), g)
    }

    fn rules_of(edit: impl FnOnce(&mut MembershipRoot, &mut Vec<PeerDelta>)) -> Vec<Rule> {
        judged(edit, |_| {}).0
    }

    /// A correct membership is taken: applied, its hash the client's own, and the
    /// client's join-complete queued for the host.
    #[test]
    fn a_correct_membership_is_taken() {
        let (rules, mut g) = judged(|_, _| {}, |_| {});
        assert_eq!(rules, []);
        assert_eq!((g.accepted(), g.revision()), (1, 1));
        assert!(!g.poll(at(4)).established.is_empty(), "the join-complete");
    }

    /// PEER-02 at each field: an address of 85, 87 or 88 bytes, a machine id of 7, a stale
    /// join id, no entry with the client's address; 86 and 8 are taken.
    #[test]
    fn peer_02_each_field() {
        for len in [85, 87, 88] {
            let rules = rules_of(|r, _| r.members[0].addr = Some(vec![0; len]));
            assert_eq!(rules, [Rule::Peer02], "address {len}");
        }
        let short = rules_of(|r, _| r.members[0].machine_id = Some(vec![0; 7]));
        assert_eq!(short, [Rule::Peer02]);
        let stale = rules_of(|r, _| r.members[1].join_id = r.members[1].join_id.map(|j| j ^ 1));
        assert_eq!(stale, [Rule::Peer02]);
        let absent = rules_of(|r, _| r.members[1].addr = Some(vec![1; 86]));
        assert_eq!(absent, [Rule::Peer02]);
    }

    /// PEER-18: what nanopb refuses (an address of 89 bytes, a machine id of 9, 33
    /// members) and a region that is no protobuf.
    #[test]
    fn peer_18_what_nanopb_refuses() {
        let long = rules_of(|r, _| r.members[0].addr = Some(vec![0; 89]));
        assert_eq!(long, [Rule::Peer18]);
        let machine = rules_of(|r, _| r.members[0].machine_id = Some(vec![0; 9]));
        assert_eq!(machine, [Rule::Peer18]);
        let many = rules_of(|r, _| {
            let extra = r.members[0].clone();
            r.members.extend(std::iter::repeat_n(extra, 31));
        });
        assert_eq!(many, [Rule::Peer18]);
        let garbage = judged(|_, _| {}, |u| u.root = vec![0x0F, 0]).0;
        assert_eq!(garbage, [Rule::Peer18]);
    }

    /// PEER-19: two player slots (one is taken), a host index at the member count (one
    /// below is taken), a state of 11 (10 is taken).
    #[test]
    fn peer_19_each_bound() {
        assert_eq!(
            rules_of(|r, _| r.members[0].player_slot = vec![0, 1]),
            [Rule::Peer19]
        );
        assert_eq!(rules_of(|r, _| r.members[0].player_slot = vec![0]), []);
        assert_eq!(rules_of(|r, _| r.host_index = Some(2)), [Rule::Peer19]);
        assert_eq!(rules_of(|r, _| r.host_index = Some(1)), []);
        assert_eq!(rules_of(|_, p| p[0].state = 11), [Rule::Peer19]);
        assert_eq!(
            rules_of(|_, p| p[0].state = membership::STATE_ESTABLISHED),
            []
        );
    }

    /// PEER-20: a player row with no profile is caught, the update applied all the same.
    #[test]
    fn peer_20_a_player_without_its_profile() {
        let (mut g, mut host, mut v) = asked();
        let (root, peers) = membership(&g);
        let player = vex_wire::peer::membership::PlayerDelta {
            slot: 0,
            player_id: 7,
            member: 1,
            add_sequence: 0,
            flag: false,
        };
        let mut state = SessionState::default();
        state.apply(true, &root, &peers, &[player]);
        let u = MembershipUpdate {
            peers,
            players: vec![player],
            hash: state.hash(),
            ..MembershipUpdate::snapshot(SESSION, &root)
        };
        host.send(&PeerMessage::MembershipUpdate(Box::new(u)), 31_104)
            .unwrap();
        while let Some(packet) = host.poll(at(3)) {
            g.on_established(&mut v, &packet.write().unwrap());
        }
        assert_eq!(v.rules(), [Rule::Peer20]);
        assert_eq!(g.accepted(), 1);
    }

    /// PEER-22: a hash one bit off the state's is caught, advisory on the replica; the
    /// tables are left as applied.
    #[test]
    fn peer_22_the_hash() {
        let (rules, g) = judged(|_, _| {}, |u| u.hash ^= 1);
        assert_eq!(rules, [Rule::Peer22]);
        assert_eq!(g.accepted(), 0);
    }

    /// The host's next packet after its connect-establish, a ping in it.
    fn next_packet(host: &mut Connection) -> EstablishedPacket {
        let ping = PeerMessage::Ping {
            sequence: 1,
            timestamp: 1,
            flag: false,
        };
        host.send(&ping, 24).unwrap();
        host.poll(at(3)).unwrap()
    }

    /// PEER-01: a host packet 129 ahead of the window ends the connection; 128 is taken.
    /// PEER-14: a guard that is not the host's channel mod 4 is refused.
    #[test]
    fn peer_01_and_14_the_window_and_the_guard() {
        for (ahead, rules) in [(128, vec![]), (129, vec![Rule::Peer01])] {
            let (mut g, mut host, mut v) = asked();
            let mut packet = next_packet(&mut host);
            // the window stands at packet 1, the host's connect-establish
            packet.ack.head = Some((1 + ahead, 1));
            g.on_established(&mut v, &packet.write().unwrap());
            assert_eq!(v.rules(), rules, "{ahead} ahead");
        }
        let (mut g, mut host, mut v) = asked();
        let mut packet = next_packet(&mut host);
        packet.guard ^= 1;
        g.on_established(&mut v, &packet.write().unwrap());
        assert_eq!(v.rules(), [Rule::Peer14]);
    }

    /// PEER-14: the host's first reliable message is not connect-establish.
    #[test]
    fn peer_14_the_first_reliable_message() {
        let (mut g, mut v) = responded();
        let mut host = Connection::new(2, CHANNEL, ANNOUNCED_SEQUENCE);
        g.on_established(&mut v, &next_packet(&mut host).write().unwrap());
        assert_eq!(v.rules(), [Rule::Peer14]);
    }

    /// PEER-17: a valid request refused with 27 is caught, with 26 (admission's) not; a
    /// request unanswered for 3,000 ms is caught, for 2,999 not.
    #[test]
    fn peer_17_refusals_and_silence() {
        for (reason, rules) in [
            (refuse::PEER_VERSION_TOO_LOW, vec![Rule::Peer17]),
            (refuse::REJECTED_BY_HOST, vec![]),
        ] {
            let (mut g, _, mut v) = asked();
            let refusal = PeerMessage::JoinRefuse {
                session: SESSION,
                join_id: g.join_id,
                reason,
            };
            g.on_out_of_band(&mut v, at(3), &refusal);
            assert_eq!(v.rules(), rules, "reason {reason}");
        }
        for (end, rules) in [(3_000, vec![]), (3_001, vec![Rule::Peer17])] {
            let (g, _, mut v) = asked();
            g.check_answered(&mut v, at(end));
            assert_eq!(v.rules(), rules, "at {end}");
        }
    }
}
