//! The group-session host (NS "What a host checks in a join request", "Session membership,
//! peer message 30"): a peer on an association opens a reliable connection, asks to join
//! a session, and is admitted or refused; every member hears membership-update on each
//! change, its hash computed over a replica of the state the receiver will hold (PEER-22).
//!
//! The connection's flow is Sunrise's (facts, not pages: `sv/gameplay/peer`
//! `answer_connect`, `sv/gameplay/group/group_host` `admit`, `publish_snapshot`): the
//! host's channel ids count from 1, a connect-response is followed by a reliable
//! connect-establish, the host is member 0 with the session id as its machine id and its
//! own address (the activity listener's, whose port number the UDP port shares), a peer's
//! machine id is its join id, every member is state 9 (ready) until its join-complete makes
//! it 10 (established), and every update is a complete snapshot.

use crate::hooks::Hooks;
use crate::policy::{JoinAnswer, Membership};
use std::collections::{BTreeMap, VecDeque};
use vex_wire::peer::membership::{
    self, MembershipMember, MembershipRoot, MembershipUpdate, PeerDelta,
};
use vex_wire::peer::message::{self, JoinRequest, PeerMessage, refuse};
use vex_wire::peer::net_addr::NetAddr;
use vex_wire::peer::reliable::{Connection, Delivered, ReliableError};
use vex_wire::peer::session_state::SessionState;
use vex_wire::time::Instant;
use zerocopy::FromZeros;

/// A peer's reliable connection and what it asked for.
#[derive(Debug)]
struct PeerLink {
    /// The peer's channel id and sequence, as its connect-request gave them: the same
    /// pair again is a retransmission.
    requested: (u32, u32),
    /// The host's channel id and announced sequence for it.
    own: (u32, u32),
    /// The 86 bytes the peer sent as its address: its member entry echoes them.
    addr: NetAddr,
    connection: Connection,
}

/// A member of a group session.
#[derive(Debug, Clone)]
struct Member {
    /// The association it is on; `None` for the host itself.
    tag: Option<u16>,
    addr: NetAddr,
    machine_id: u64,
    join_id: u64,
    state: u8,
}

/// A group session: its members in table order, the host first, and its revision.
#[derive(Debug)]
struct GroupSession {
    revision: u32,
    members: Vec<Member>,
}

/// Whether the group session a join names runs here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Liveness {
    /// It runs (state 6 to 9): an activity this process holds, or a region of one it hosts
    /// for another process.
    Runs,
    /// It does not.
    Ended,
    /// In a shared fleet, not known yet: the store says whether this process hosts a
    /// region of it (`crate::fleet_regions`), and the join waits for that.
    Unknown,
}

/// Every peer link and group session of the port.
#[derive(Debug)]
pub struct GroupHost {
    /// The host's own address: its connect-responses and its member entry carry it.
    own: NetAddr,
    links: BTreeMap<u16, PeerLink>,
    sessions: BTreeMap<u64, GroupSession>,
    /// The join of each association that waits to know whether its session runs here: one
    /// per association, so as many as the associations at most.
    held: BTreeMap<u16, JoinRequest>,
    /// The sessions whose joins wait, to be asked about.
    unknown: VecDeque<u64>,
    next_channel: u32,
}

impl GroupHost {
    /// A group host whose address is `own`.
    pub fn at(own: NetAddr) -> Self {
        Self {
            own,
            links: BTreeMap::new(),
            sessions: BTreeMap::new(),
            held: BTreeMap::new(),
            unknown: VecDeque::new(),
            next_channel: 0,
        }
    }

    /// The out-of-band `message` on association `tag`, and the host's out-of-band
    /// answers; `live` says whether a session runs (state 6 to 9), `announce` draws a
    /// transport sequence.
    pub fn out_of_band(
        &mut self,
        tag: u16,
        message: &PeerMessage,
        live: &dyn Fn(u64) -> Liveness,
        announce: &mut dyn FnMut() -> u32,
        hooks: &Hooks,
    ) -> Vec<PeerMessage> {
        match message {
            PeerMessage::ConnectRequest {
                channel,
                sequence,
                addr,
            } => vec![self.connect(tag, (*channel, *sequence), *addr, announce)],
            PeerMessage::JoinRequest(request) => self.join(tag, request, live, hooks),
            _ => Vec::new(),
        }
    }

    /// A connect-request: a new pair opens a connection whose first reliable message is
    /// connect-establish; the same pair again is answered the same way (facts).
    fn connect(
        &mut self,
        tag: u16,
        requested: (u32, u32),
        addr: NetAddr,
        announce: &mut dyn FnMut() -> u32,
    ) -> PeerMessage {
        let again = self
            .links
            .get(&tag)
            .is_some_and(|l| l.requested == requested);
        if !again {
            self.next_channel = self.next_channel.wrapping_add(1).max(1);
            let own = (self.next_channel, announce() & !0x3FF);
            let mut connection = Connection::new(own.0, requested.0, requested.1);
            let establish = PeerMessage::ConnectEstablish {
                remote_channel: requested.0,
                channel: own.0,
            };
            // the first message of a fresh connection always fits
            let _ = connection.send(&establish, establish.declared_size());
            self.links.insert(
                tag,
                PeerLink {
                    requested,
                    own,
                    addr,
                    connection,
                },
            );
        }
        let own = self.links.get(&tag).map_or((0, 0), |l| l.own);
        PeerMessage::ConnectResponse {
            echoed_channel: requested.0,
            echoed_sequence: requested.1,
            channel: own.0,
            sequence: own.1,
            addr: self.own,
        }
    }

    /// A join-request, checked in the page's order (PEER-17): a protocol that is not ours
    /// gets no reply at all; a session that does not run, reason 4; a high build bound
    /// below ours, 27; a low bound above it, 28; an executable type other than 5, 29; a
    /// peer with no connection to carry membership, 6 not-joinable; a full session, 7.
    /// An admitted peer joins its session and every member hears the new membership. The
    /// group sessions of activities that ended go first. A join whose session is not known
    /// to run here yet waits for [`GroupHost::release`].
    fn join(
        &mut self,
        tag: u16,
        request: &JoinRequest,
        live: &dyn Fn(u64) -> Liveness,
        hooks: &Hooks,
    ) -> Vec<PeerMessage> {
        // a group session lasts as long as its activity
        self.sessions
            .retain(|session, _| live(*session) == Liveness::Runs);
        let liveness = live(request.session);
        if request.protocol == message::PROTOCOL_VERSION && liveness == Liveness::Unknown {
            self.held.insert(tag, *request);
            self.unknown.push_back(request.session);
            return Vec::new();
        }
        let checked = if request.protocol != message::PROTOCOL_VERSION {
            JoinAnswer::Silence
        } else if liveness == Liveness::Ended {
            JoinAnswer::Refuse(refuse::NOT_FOUND)
        } else if request.high_build < message::BUILD {
            JoinAnswer::Refuse(refuse::PEER_VERSION_TOO_LOW)
        } else if request.low_build > message::BUILD {
            JoinAnswer::Refuse(refuse::HOST_VERSION_TOO_LOW)
        } else if request.executable_type != message::EXECUTABLE_TYPE {
            JoinAnswer::Refuse(refuse::EXECUTABLE_TYPE_MISMATCH)
        } else if !self.links.contains_key(&tag) {
            JoinAnswer::Refuse(refuse::NOT_JOINABLE)
        } else if self.sessions.get(&request.session).is_some_and(|s| {
            s.members.len() >= membership::CAPACITY && !s.members.iter().any(|m| m.tag == Some(tag))
        }) {
            JoinAnswer::Refuse(refuse::SESSION_FULL)
        } else {
            JoinAnswer::Admit
        };
        match hooks.policy().join_answer(checked) {
            JoinAnswer::Silence => Vec::new(),
            // the same join again is a retransmission: its membership is on its way
            JoinAnswer::Admit if self.admitted(tag, request) => Vec::new(),
            JoinAnswer::Admit => {
                self.admit(tag, request);
                self.publish(request.session, hooks);
                Vec::new()
            }
            JoinAnswer::Refuse(reason) => vec![PeerMessage::JoinRefuse {
                session: request.session,
                join_id: request.join_id,
                reason,
            }],
        }
    }

    /// A session whose joins wait, to be asked about.
    pub fn poll_unknown(&mut self) -> Option<u64> {
        self.unknown.pop_front()
    }

    /// Whether `session` runs here is now known (`live` says it): each join that waited
    /// for it is answered, with the association it came on.
    pub fn release(
        &mut self,
        session: u64,
        live: &dyn Fn(u64) -> Liveness,
        hooks: &Hooks,
    ) -> Vec<(u16, Vec<PeerMessage>)> {
        let waiting: Vec<(u16, JoinRequest)> = self
            .held
            .iter()
            .filter(|(_, r)| r.session == session)
            .map(|(tag, r)| (*tag, *r))
            .collect();
        waiting
            .into_iter()
            .map(|(tag, request)| {
                self.held.remove(&tag);
                (tag, self.join(tag, &request, live, hooks))
            })
            .collect()
    }

    /// Whether the peer on `tag` is a member of `request`'s session by this join already.
    fn admitted(&self, tag: u16, request: &JoinRequest) -> bool {
        self.sessions.get(&request.session).is_some_and(|s| {
            s.members
                .iter()
                .any(|m| m.tag == Some(tag) && m.join_id == request.join_id)
        })
    }

    /// Puts the peer on `tag` in the session `request` names, as a new member or, joining
    /// again, in its old place with its new join id.
    fn admit(&mut self, tag: u16, request: &JoinRequest) {
        let addr = self
            .links
            .get(&tag)
            .map_or_else(NetAddr::new_zeroed, |l| l.addr);
        let own = self.own;
        let session = self
            .sessions
            .entry(request.session)
            .or_insert_with(|| GroupSession {
                revision: 0,
                members: vec![Member {
                    tag: None,
                    addr: own,
                    machine_id: request.session,
                    join_id: request.join_id,
                    state: membership::STATE_READY,
                }],
            });
        let member = Member {
            tag: Some(tag),
            addr,
            machine_id: request.join_id,
            join_id: request.join_id,
            state: membership::STATE_READY,
        };
        match session.members.iter_mut().find(|m| m.tag == Some(tag)) {
            Some(held) => *held = member,
            None => session.members.push(member),
        }
    }

    /// An established datagram's plaintext on association `tag`: the messages it
    /// completes are taken (a join-complete makes its member established).
    pub fn established(
        &mut self,
        tag: u16,
        plaintext: &[u8],
        hooks: &Hooks,
    ) -> Result<(), ReliableError> {
        let packet = vex_wire::peer::established::EstablishedPacket::read(plaintext)?;
        let Some(link) = self.links.get_mut(&tag) else {
            return Ok(());
        };
        let delivered: Vec<Delivered> = link.connection.receive(&packet)?;
        for message in delivered.into_iter().flatten() {
            if let (PeerMessage::JoinComplete { session, .. }, _) = message {
                self.complete(tag, session, hooks);
            }
        }
        Ok(())
    }

    fn complete(&mut self, tag: u16, session: u64, hooks: &Hooks) {
        let Some(s) = self.sessions.get_mut(&session) else {
            return;
        };
        let established = membership::STATE_ESTABLISHED;
        match s.members.iter_mut().find(|m| m.tag == Some(tag)) {
            Some(m) if m.state != established => m.state = established,
            _ => return,
        }
        self.publish(session, hooks);
    }

    /// A new revision of `session`'s membership to every member on a connection.
    fn publish(&mut self, session: u64, hooks: &Hooks) {
        let Some(s) = self.sessions.get_mut(&session) else {
            return;
        };
        s.revision += 1;
        let policy = hooks.policy();
        let mut membership = membership_of(s);
        policy.group_membership(&mut membership);
        let mut update = snapshot(session, membership);
        policy.group_membership_update(&mut update);
        let message = PeerMessage::MembershipUpdate(Box::new(update));
        for tag in s.members.iter().filter_map(|m| m.tag) {
            if let Some(link) = self.links.get_mut(&tag)
                && let Err(e) = link.connection.send(&message, message.declared_size())
            {
                tracing::warn!(%e, tag, "membership-update not queued");
            }
        }
    }

    /// The established datagrams due at `now`, each with its association.
    pub fn due(&mut self, now: Instant, hooks: &Hooks) -> Vec<(u16, Vec<u8>)> {
        let mut out = Vec::new();
        for (tag, link) in &mut self.links {
            while let Some(mut packet) = link.connection.poll(now) {
                hooks.policy().established_packet(&mut packet);
                match packet.write() {
                    Ok(bytes) => out.push((*tag, bytes)),
                    Err(e) => tracing::error!(%e, tag, "established datagram not built"),
                }
            }
        }
        out
    }

    /// When a connection next has something to send.
    pub fn next_due(&self) -> Option<Instant> {
        self.links
            .values()
            .filter_map(|l| l.connection.next_due())
            .min()
    }
}

/// `s`'s membership: the root, every member with its address, machine id and join id,
/// a full peer delta for each, its state and empty connection data, and no players.
fn membership_of(s: &GroupSession) -> Membership {
    let count = s.members.len() as u32;
    let root = MembershipRoot {
        revision: Some(s.revision),
        host_index: Some(0),
        succession_index: Some(0),
        member_count: Some(count),
        member_mask: Some((1u64 << count) - 1),
        members: s
            .members
            .iter()
            .map(|m| MembershipMember {
                addr: Some(zerocopy::IntoBytes::as_bytes(&m.addr).to_vec()),
                machine_id: Some(m.machine_id.to_le_bytes().to_vec()),
                join_id: Some(m.join_id),
                ..MembershipMember::default()
            })
            .collect(),
    };
    let peers = s
        .members
        .iter()
        .enumerate()
        .map(|(index, m)| PeerDelta {
            index: index as u8,
            state: m.state,
            connection: Some((0, 0, 0)),
        })
        .collect();
    Membership {
        root,
        peers,
        players: Vec::new(),
    }
}

/// A complete snapshot of `m`, its hash over the state every receiver will hold after
/// applying it (PEER-22): one state for all, a snapshot replacing what each held.
fn snapshot(session: u64, m: Membership) -> MembershipUpdate {
    let mut state = SessionState::default();
    state.apply(true, &m.root, &m.peers, &m.players);
    MembershipUpdate {
        peers: m.peers,
        players: m.players,
        hash: state.hash(),
        ..MembershipUpdate::snapshot(session, &m.root)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SESSION: u64 = 0x9EAA_3001_0020_0001;
    const TAG: u16 = 7;

    fn request() -> JoinRequest {
        JoinRequest {
            protocol: message::PROTOCOL_VERSION,
            low_build: message::BUILD,
            high_build: message::BUILD,
            executable_type: message::EXECUTABLE_TYPE,
            session: SESSION,
            join_id: 99,
        }
    }

    /// A group host with a connection on [`TAG`].
    fn connected() -> GroupHost {
        let mut g = GroupHost::at(NetAddr::direct([127, 0, 0, 1], 30974, 0));
        let connect = PeerMessage::ConnectRequest {
            channel: 1,
            sequence: 0x400,
            addr: NetAddr::direct([10, 0, 0, 9], 3074, 1),
        };
        let runs = |_| Liveness::Runs;
        let answers = g.out_of_band(TAG, &connect, &runs, &mut || 0x1234, &Hooks::default());
        assert!(matches!(
            answers[..],
            [PeerMessage::ConnectResponse {
                channel: 1,
                sequence: 0x1000,
                ..
            }]
        ));
        g
    }

    fn answer(g: &mut GroupHost, r: JoinRequest) -> Vec<PeerMessage> {
        let live = |s: u64| {
            if s == SESSION {
                Liveness::Runs
            } else {
                Liveness::Ended
            }
        };
        let join = PeerMessage::JoinRequest(r);
        g.out_of_band(TAG, &join, &live, &mut || 0, &Hooks::default())
    }

    fn refused(reason: u8) -> Vec<PeerMessage> {
        refused_in(SESSION, reason)
    }

    fn refused_in(session: u64, reason: u8) -> Vec<PeerMessage> {
        vec![PeerMessage::JoinRefuse {
            session,
            join_id: 99,
            reason,
        }]
    }

    /// The page's checks in its order (PEER-17): each request breaks its check and every
    /// later one, so only the order gives the reason expected; a protocol that is not ours
    /// gets nothing, and a request at both build bounds is admitted.
    #[test]
    fn the_checks_in_the_pages_order() {
        let mut g = connected();
        let cases: [(JoinRequest, Vec<PeerMessage>); 6] = [
            (
                JoinRequest {
                    protocol: 1,
                    session: 5,
                    ..request()
                },
                vec![],
            ),
            (
                JoinRequest {
                    session: 5,
                    high_build: message::BUILD - 1,
                    ..request()
                },
                refused_in(5, refuse::NOT_FOUND),
            ),
            (
                JoinRequest {
                    high_build: message::BUILD - 1,
                    low_build: message::BUILD + 1,
                    ..request()
                },
                refused(refuse::PEER_VERSION_TOO_LOW),
            ),
            (
                JoinRequest {
                    low_build: message::BUILD + 1,
                    executable_type: 4,
                    ..request()
                },
                refused(refuse::HOST_VERSION_TOO_LOW),
            ),
            (
                JoinRequest {
                    executable_type: 4,
                    ..request()
                },
                refused(refuse::EXECUTABLE_TYPE_MISMATCH),
            ),
            (request(), vec![]),
        ];
        for (r, want) in cases {
            assert_eq!(answer(&mut g, r), want, "{r:?}");
        }
        assert_eq!(
            g.sessions[&SESSION].members.len(),
            2,
            "the host and the joiner"
        );
    }

    /// In a shared fleet, a join naming a session not known to run here waits, and its
    /// session is asked about once; released, it is admitted when the store says the
    /// session runs here and refused with 4 when not.
    #[test]
    fn a_join_whose_session_is_unknown_waits_for_the_answer() {
        let mut g = connected();
        let join = PeerMessage::JoinRequest(request());
        let unknown = |_| Liveness::Unknown;
        let hooks = Hooks::default();
        assert!(
            g.out_of_band(TAG, &join, &unknown, &mut || 0, &hooks)
                .is_empty()
        );
        assert_eq!((g.poll_unknown(), g.poll_unknown()), (Some(SESSION), None));
        assert!(g.sessions.is_empty(), "not admitted yet");
        let runs = |_| Liveness::Runs;
        assert_eq!(g.release(SESSION, &runs, &hooks), [(TAG, vec![])]);
        assert_eq!(g.sessions[&SESSION].members.len(), 2, "admitted");
        assert!(
            g.release(SESSION, &runs, &hooks).is_empty(),
            "released once"
        );

        let mut g = connected();
        g.out_of_band(TAG, &join, &unknown, &mut || 0, &hooks);
        let ended = |_| Liveness::Ended;
        assert_eq!(
            g.release(SESSION, &ended, &hooks),
            [(TAG, refused(refuse::NOT_FOUND))]
        );
    }

    /// A peer with no connection is not joinable (6); a new member of a full session
    /// finds it full (7), a member of it joining again does not.
    #[test]
    fn admission_refuses_what_it_cannot_hold() {
        let mut g = GroupHost::at(NetAddr::direct([127, 0, 0, 1], 30974, 0));
        assert_eq!(answer(&mut g, request()), refused(refuse::NOT_JOINABLE));
        let mut g = connected();
        answer(&mut g, request());
        let members = &mut g.sessions.get_mut(&SESSION).unwrap().members;
        let other = Member {
            tag: Some(1),
            ..members[1].clone()
        };
        members.resize(membership::CAPACITY, other);
        let again = JoinRequest {
            join_id: 100,
            ..request()
        };
        assert_eq!(answer(&mut g, again), vec![]);
        let members = &mut g.sessions.get_mut(&SESSION).unwrap().members;
        if let Some(m) = members.iter_mut().find(|m| m.tag == Some(TAG)) {
            m.tag = Some(2);
        }
        assert_eq!(answer(&mut g, request()), refused(refuse::SESSION_FULL));
    }

    /// Admission publishes revision 1 to the joiner, whose entry echoes its address and
    /// join id, and whose hash is the state's after applying it; its join-complete makes
    /// it established in revision 2.
    #[test]
    fn admission_publishes_and_completion_republishes() {
        let mut g = connected();
        answer(&mut g, request());
        let s = &g.sessions[&SESSION];
        assert_eq!(
            (s.revision, s.members[1].state),
            (1, membership::STATE_READY)
        );
        assert_eq!(s.members[1].addr, NetAddr::direct([10, 0, 0, 9], 3074, 1));
        let own = NetAddr::direct([127, 0, 0, 1], 30974, 0);
        assert_eq!(s.members[0].addr, own, "the host's own address");
        let m = membership_of(s);
        let mut state = SessionState::default();
        state.apply(true, &m.root, &m.peers, &m.players);
        assert_eq!(snapshot(SESSION, m).hash, state.hash());
        g.complete(TAG, SESSION, &Hooks::default());
        let s = &g.sessions[&SESSION];
        assert_eq!(
            (s.revision, s.members[1].state),
            (2, membership::STATE_ESTABLISHED)
        );
        g.complete(TAG, SESSION, &Hooks::default());
        assert_eq!(g.sessions[&SESSION].revision, 2, "once");
    }
}
