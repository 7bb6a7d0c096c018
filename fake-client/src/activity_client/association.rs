//! The bdNet association the client opens with the Activity Host's UDP port, when the
//! script asks for one (NS "The association handshake"; PEER-07 to PEER-13): the init,
//! the init ack judged field by field against it, the cookie echo with the client's key,
//! and the cookie ack judged and its key agreed; then a ping in the first record, and
//! each record of the host's opened, held to the replay window, and its messages' sizes
//! read.
//!
//! It goes to the group host the citizen record of the client's own region names (NS "The
//! join descriptor", the bdNet path of "The engine peer transport"), else to the activity
//! link's address. When a table names another group host for the region the client
//! stands in (a move into a region another process hosts, SR "What the host pushes on its
//! own": it "changes the advertised host"), the client leaves the association and opens
//! one with the new host under its next tag: a packet addressed to a tag it left belongs
//! to no association it has, and is dropped, as a demultiplexer by tag drops it.

use super::group_session::GroupSession;
use crate::rules::{Choice, Rule};
use crate::verdict::Verdict;
use std::collections::VecDeque;
use std::net::SocketAddrV4;
use vex_wire::peer::association::{
    ADDRESS_CLAIM_LEN, AssocCookieAck, AssocCookieEcho, AssocInit, AssocInitAck, AssocPacket,
    COOKIE_ACK, SecurityId,
};
use vex_wire::peer::chain::{self, ChainError};
use vex_wire::peer::keys::{AssociationKey, COORDINATE_LEN, RecordKeys};
use vex_wire::peer::message::{self, BodyError, PeerMessage, TimeSamples};
use vex_wire::peer::record::{self, REPLAY_SLOTS, ReplayWindow};
use vex_wire::time::Instant;
use zerocopy::IntoBytes;

/// How long the client waits for each answer of the handshake: Vex's choice
/// [`Choice::AssociationWait`] (the pages give no time).
pub(crate) const ANSWER_WITHIN_MS: u64 = 3_000;
/// How often the client sends a handshake packet again while it waits for its answer:
/// Vex's (the pages give no retransmission, and a lost datagram must not end the
/// association).
const HANDSHAKE_RESEND_MS: u64 = 1_000;
/// The tag the client chooses for itself.
const REQUESTER_TAG: u16 = 0x5EC1;
/// The join key of the host's join descriptor: zero, as our host's (and Sunrise's).
const JOIN_KEY: [u8; 16] = [0; 16];
/// The t1 of the time-synchronize reply the client sends as a probe (PEER-16): no time the
/// client's own clock gives, so an answer naming it answers the reply.
const PROBE_T1: u64 = u64::MAX - 1;

/// Where the handshake is.
#[derive(Debug, Default)]
enum Stage {
    /// Nothing sent yet.
    #[default]
    Idle,
    /// The init is out.
    InitSent { init: AssocInit, at: Instant },
    /// The cookie echo is out.
    EchoSent(Echoed),
    /// The handshake completed: the record keys, the responder's tag, the replay window of
    /// the host's records, and the next sequence of the client's.
    Established {
        keys: RecordKeys,
        responder_tag: u16,
        window: ReplayWindow,
        /// The MACs of the host's newest records, by sequence: a record seen again with
        /// the same MAC is the network's duplicate, one with another the host's reuse.
        seen: VecDeque<(u32, [u8; 8])>,
        next_sequence: u32,
        /// The time-synchronize reply the client sent as a probe, once it did.
        probed: bool,
    },
    /// The handshake failed; nothing more is sent.
    Failed,
}

/// What a cookie echo out holds until its cookie ack: the security id the ack must
/// repeat, the responder's tag from the init ack, the client's key, and when it went.
#[derive(Debug)]
struct Echoed {
    security_id: SecurityId,
    responder_tag: u16,
    key: AssociationKey,
    at: Instant,
}

/// The client's association: when it is due, where it goes, and where its handshake is.
#[derive(Debug, Default)]
pub(crate) struct Association {
    due: Option<Instant>,
    /// How many associations the client left before this one: its tag is
    /// [`REQUESTER_TAG`] plus this, and the tags below it are the ones it left.
    generation: u16,
    /// The group host it goes to, once it opened.
    peer: Option<SocketAddrV4>,
    stage: Stage,
    /// The session the association is for, which its time-synchronize messages name.
    session: u64,
    /// The handshake packet out, and when it goes again unless answered.
    outstanding: Option<(Vec<u8>, Instant)>,
    /// The group session joined over it.
    group: GroupSession,
}

impl Association {
    /// The init goes out at `at`, if the script opens an association.
    pub(crate) fn schedule(&mut self, at: Option<Instant>) {
        self.due = at;
    }

    /// When the init is due.
    pub(crate) fn due(&self) -> Option<Instant> {
        self.due
    }

    /// When the answer the handshake waits for is overdue.
    pub(crate) fn answer_due(&self) -> Option<Instant> {
        match self.stage {
            Stage::InitSent { at, .. } | Stage::EchoSent(Echoed { at, .. }) => {
                Some(at + ANSWER_WITHIN_MS)
            }
            _ => None,
        }
    }

    /// The init at `now` to `peer` for the session `session`: the security id is the
    /// session's bytes, low first (the requester chooses it).
    pub(crate) fn open(&mut self, now: Instant, session: u64, peer: SocketAddrV4) -> AssocInit {
        self.due = None;
        let init = AssocInit::new(self.tag(), session.to_le_bytes());
        self.session = session;
        self.peer = Some(peer);
        self.stage = Stage::InitSent { init, at: now };
        self.outstanding = Some((init.as_bytes().to_vec(), now + HANDSHAKE_RESEND_MS));
        init
    }

    /// The group host it goes to, once it opened.
    pub(crate) fn peer(&self) -> Option<SocketAddrV4> {
        self.peer
    }

    /// The region the client stands in names another group host: it leaves this
    /// association, and a new one under the next tag opens at `now`.
    pub(crate) fn move_on(&mut self, now: Instant) {
        *self = Self {
            due: Some(now),
            generation: self.generation.wrapping_add(1),
            ..Self::default()
        };
    }

    /// A new activity's association, on a UDP socket whose tags below `generation` an
    /// association before it used: those are left.
    pub(crate) fn start_at(&mut self, generation: u16) {
        self.generation = generation;
    }

    /// The generation an association after this one starts at.
    pub(crate) fn next_generation(&self) -> u16 {
        self.generation.wrapping_add(1)
    }

    /// The client's tag in this association.
    fn tag(&self) -> u16 {
        REQUESTER_TAG.wrapping_add(self.generation)
    }

    /// True when `bytes` are addressed to an association the client left.
    fn for_one_left(&self, bytes: &[u8]) -> bool {
        let addressed = match AssocPacket::read(bytes) {
            Ok(AssocPacket::Data { head, .. }) => head.header.addressed_tag.get(),
            Ok(AssocPacket::InitAck(ack)) => ack.header.addressed_tag.get(),
            Ok(AssocPacket::CookieAck(ack)) => ack.header.addressed_tag.get(),
            _ => return false,
        };
        let age = self.tag().wrapping_sub(addressed);
        (1..=self.generation).contains(&age)
    }

    /// No answer within [`ANSWER_WITHIN_MS`]: nothing above the association runs
    /// (PEER-07, advisory on the wait).
    pub(crate) fn report_unanswered(&mut self, verdict: &mut Verdict) {
        let waited = match self.stage {
            Stage::InitSent { .. } => "init ack",
            _ => "cookie ack",
        };
        self.stage = Stage::Failed;
        self.outstanding = None;
        let reason = format!(
            "no {waited} within {ANSWER_WITHIN_MS} ms: the association never opens, and nothing above it runs"
        );
        verdict.advise(Rule::Peer07, Choice::AssociationWait, None, None, reason);
    }

    /// The group session joined over the association.
    pub(crate) fn group(&self) -> &GroupSession {
        &self.group
    }

    /// When the association next has a datagram to send again: the handshake packet
    /// out, or the group session's.
    pub(crate) fn resend_due(&self) -> Option<Instant> {
        let handshake = self.outstanding.as_ref().map(|(_, at)| *at);
        handshake.into_iter().chain(self.group.next_due()).min()
    }

    /// What the association sends at `now` unasked: the handshake packet again, or the
    /// group session's due datagrams, sealed.
    pub(crate) fn poll(&mut self, now: Instant) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        if let Some((packet, at)) = self.outstanding.as_mut().filter(|(_, at)| *at <= now) {
            *at = now + HANDSHAKE_RESEND_MS;
            out.push(packet.clone());
        }
        let group = self.group.poll(now);
        out.extend(group.out_of_band.and_then(|m| self.seal(&m)));
        out.extend(group.established.iter().filter_map(|p| self.seal_plain(p)));
        out
    }

    /// A datagram of the association port at `now`: what the client answers. One
    /// addressed to an association the client left is dropped.
    pub(crate) fn on_datagram(
        &mut self,
        verdict: &mut Verdict,
        now: Instant,
        bytes: &[u8],
    ) -> Vec<Vec<u8>> {
        if self.for_one_left(bytes) {
            tracing::debug!("a packet of an association the client left: dropped");
            return Vec::new();
        }
        let answer = self.answer(verdict, now, bytes);
        answer.into_iter().chain(self.poll(now)).collect()
    }

    /// [`Association::on_datagram`]'s answer to the packet itself; the handshake packet
    /// out is answered once the stage moves on.
    fn answer(&mut self, verdict: &mut Verdict, now: Instant, bytes: &[u8]) -> Option<Vec<u8>> {
        let answer = self.step(verdict, now, bytes);
        if !matches!(self.stage, Stage::InitSent { .. } | Stage::EchoSent(_)) {
            self.outstanding = None;
        }
        answer
    }

    /// Moves the handshake for `bytes`, or reads them as a record of the association.
    fn step(&mut self, verdict: &mut Verdict, now: Instant, bytes: &[u8]) -> Option<Vec<u8>> {
        // each arm leaves the stage the packet moves the handshake to
        match (std::mem::take(&mut self.stage), AssocPacket::read(bytes)) {
            (Stage::InitSent { init, .. }, Ok(AssocPacket::InitAck(ack))) => {
                self.on_init_ack(verdict, now, &init, &ack)
            }
            (Stage::EchoSent(echoed), Ok(AssocPacket::CookieAck(ack))) => {
                self.on_cookie_ack(verdict, &ack, echoed);
                self.ping(now)
            }
            (stage @ Stage::Established { .. }, Ok(AssocPacket::Data { .. })) => {
                self.stage = stage;
                self.on_record(verdict, now, bytes)
            }
            (stage @ (Stage::InitSent { .. } | Stage::EchoSent(_)), Err(e)) => {
                self.stage = stage;
                // the router drops what is no packet; the handshake waits on (PEER-07)
                let reason = format!("a datagram the association cannot read: {e}");
                verdict.violate(Rule::Peer07, None, None, reason);
                None
            }
            // another packet, or one after the handshake: not the handshake's
            (stage, _) => {
                self.stage = stage;
                None
            }
        }
    }

    /// The init ack: each PEER-08 field checked against the init; if all hold, the
    /// cookie echo.
    fn on_init_ack(
        &mut self,
        verdict: &mut Verdict,
        now: Instant,
        init: &AssocInit,
        ack: &AssocInitAck,
    ) -> Option<Vec<u8>> {
        let breaches = ack.breaches(init);
        if !breaches.is_empty() {
            self.stage = Stage::Failed;
            let reason = format!(
                "the init ack does not answer the init: {} (the association never opens)",
                breaches.join(", ")
            );
            // a handshake packet's sequence is the header's (PEER-07); the rest PEER-08's
            let rule = if breaches == ["sequence"] {
                Rule::Peer07
            } else {
                Rule::Peer08
            };
            verdict.violate(rule, None, None, reason);
            return None;
        }
        let key = own_key(init);
        let Ok(public_key) = key.public_key_field() else {
            self.stage = Stage::Failed;
            return None;
        };
        let echo = AssocCookieEcho::answering(ack, [0; ADDRESS_CLAIM_LEN], public_key);
        self.stage = Stage::EchoSent(Echoed {
            security_id: init.security_id,
            responder_tag: ack.responder_tag.get(),
            key,
            at: now,
        });
        let echo = echo.as_bytes().to_vec();
        self.outstanding = Some((echo.clone(), now + HANDSHAKE_RESEND_MS));
        Some(echo)
    }

    /// The cookie ack: addressed to the client's tag (PEER-08), the security id repeated
    /// (PEER-09), a key of secp224r1 (PEER-10); then the keys are agreed.
    fn on_cookie_ack(&mut self, verdict: &mut Verdict, ack: &AssocCookieAck, echoed: Echoed) {
        self.stage = Stage::Failed;
        let Echoed {
            security_id,
            responder_tag,
            key,
            ..
        } = echoed;
        let header = ack.header;
        if header.kind != COOKIE_ACK || header.sequence.get() != 0 {
            let reason = format!(
                "the cookie ack's header is type {}, sequence {}: not a handshake packet's",
                header.kind,
                header.sequence.get()
            );
            return verdict.violate(Rule::Peer07, None, None, reason);
        }
        if header.addressed_tag.get() != self.tag() {
            let reason = format!(
                "the cookie ack is addressed to tag {:#06x}, not the requester's {:#06x}",
                header.addressed_tag.get(),
                self.tag()
            );
            return verdict.violate(Rule::Peer08, None, None, reason);
        }
        if ack.security_id != security_id {
            let reason = format!(
                "the cookie ack repeats security id {:02x?}, not the requester's {security_id:02x?}: the router drops it",
                ack.security_id
            );
            return verdict.violate(Rule::Peer09, None, None, reason);
        }
        match key.agree(&ack.public_key) {
            Ok(secret) => {
                self.stage = Stage::Established {
                    keys: RecordKeys::derive(&secret, &JOIN_KEY),
                    responder_tag,
                    window: ReplayWindow::default(),
                    seen: VecDeque::new(),
                    next_sequence: 1,
                    probed: false,
                };
            }
            Err(e) => {
                let reason = format!("the cookie ack's key: {e}: no record key can be agreed");
                let choice = Choice::AssociationKeyForm;
                verdict.advise(Rule::Peer10, choice, None, None, reason);
            }
        }
    }

    /// Once established, the first record: an out-of-band container with a ping and a
    /// time-synchronize request, both timed `now`, and the group session's
    /// connect-request.
    fn ping(&mut self, now: Instant) -> Option<Vec<u8>> {
        let ping = PeerMessage::Ping {
            sequence: 1,
            timestamp: now.millis(),
            flag: false,
        };
        let ask = PeerMessage::TimeSync {
            session: self.session,
            samples: TimeSamples::Request(now.millis()),
        };
        let connect = self.group.connect(now, self.session);
        self.seal(&[ping, ask, connect])
    }

    /// A record of `messages` in an out-of-band container on the established association.
    fn seal(&mut self, messages: &[PeerMessage]) -> Option<Vec<u8>> {
        let container = chain::write_container(messages).ok()?;
        self.seal_plain(&container)
    }

    /// A record of `plaintext` on the established association, with its next sequence.
    fn seal_plain(&mut self, plaintext: &[u8]) -> Option<Vec<u8>> {
        let Stage::Established {
            keys,
            responder_tag,
            next_sequence,
            ..
        } = &mut self.stage
        else {
            return None;
        };
        let sequence = *next_sequence;
        *next_sequence += 1;
        record::seal(keys, *responder_tag, sequence, plaintext).ok()
    }

    /// A record of the host's: its MAC (PEER-11, on the record keys and MAC hash Vex
    /// takes), its sequence against the window (PEER-12); then an established datagram
    /// goes to the group session, and an out-of-band container's messages are read, each
    /// with its declared size (PEER-13, on the sizes Vex takes).
    fn on_record(&mut self, verdict: &mut Verdict, now: Instant, bytes: &[u8]) -> Option<Vec<u8>> {
        let Stage::Established {
            keys,
            window,
            seen,
            probed,
            ..
        } = &mut self.stage
        else {
            return None;
        };
        let (head, plaintext) = match record::open(keys, bytes) {
            Ok(opened) => opened,
            Err(e) => {
                let reason = format!("a record of the host's does not open ({e}): dropped");
                verdict.advise(Rule::Peer11, Choice::RecordCrypto, None, None, reason);
                return None;
            }
        };
        let sequence = head.header.sequence.get();
        if let Err(replay) = window.admit(sequence) {
            if seen.contains(&(sequence, head.mac)) {
                // the same record again: the network doubled it, and the window drops it
                tracing::debug!(sequence, "a record the network doubled");
                return None;
            }
            let reason = format!("a record of the host's: {replay}: dropped as a replay");
            verdict.violate(Rule::Peer12, None, None, reason);
            return None;
        }
        if seen.len() == REPLAY_SLOTS as usize {
            seen.pop_front();
        }
        seen.push_back((sequence, head.mac));
        if chain::is_established(&plaintext) {
            self.group.on_established(verdict, &plaintext);
            return None;
        }
        let container = chain::read_container(&plaintext);
        if let Some(ChainError::Body(BodyError::Unread(id))) = container.ended
            && message::TEST_IDS.contains(&id)
        {
            let reason =
                format!("the host sent peer message {id}, a test control a host never sends");
            verdict.violate(Rule::Peer15, None, None, reason);
        }
        for dropped in container.dropped {
            let reason = format!("{dropped}: the message is dropped");
            verdict.advise(Rule::Peer13, Choice::PeerStructSizes, None, None, reason);
        }
        let mut answered_request = false;
        let mut answers = Vec::new();
        for message in container.messages {
            answers.extend(self.group.on_out_of_band(verdict, now, &message));
            match message {
                PeerMessage::TimeSync {
                    samples: TimeSamples::Reply([t1, ..]) | TimeSamples::Request(t1),
                    ..
                } if t1 == PROBE_T1 => {
                    let reason = "the host answered a time-synchronize reply: a reply is terminal, and answering one loops forever".to_string();
                    verdict.advise(Rule::Peer16, Choice::PeerMessageBodies, None, None, reason);
                }
                PeerMessage::TimeSync { .. } => answered_request = true,
                _ => {}
            }
        }
        // the host answered the request: now a reply, which it must leave unanswered
        if answered_request && !std::mem::replace(probed, true) {
            answers.push(PeerMessage::TimeSync {
                session: self.session,
                samples: TimeSamples::Reply([PROBE_T1, PROBE_T1, PROBE_T1]),
            });
        }
        if answers.is_empty() {
            return None;
        }
        self.seal(&answers)
    }
}

/// The client's own key for the association of `init`: a scalar made from its security
/// id (the emulated client is deterministic), the first of its counters that is one.
fn own_key(init: &AssocInit) -> AssociationKey {
    (0u8..)
        .find_map(|n| {
            let mut scalar = [n.wrapping_add(1); COORDINATE_LEN];
            for (slot, byte) in scalar.iter_mut().zip(init.security_id) {
                *slot ^= byte;
            }
            AssociationKey::from_scalar(scalar)
        })
        .unwrap_or_else(|| unreachable!("a scalar below the order is found at once"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use zerocopy::IntoBytes;

    const SESSION: u64 = 0x9EAA_3001_0020_0001;

    /// The group host the tests' associations go to.
    fn peer() -> SocketAddrV4 {
        SocketAddrV4::new([127, 0, 0, 1].into(), 30974)
    }

    fn rules(v: &Verdict) -> Vec<Rule> {
        v.rules()
    }

    /// A host's side made of the wire's builders: the init ack for `init`.
    fn ack_for(init: &AssocInit) -> AssocInitAck {
        AssocInitAck::answering(init, 7, [3; 16], 0xBEEF, [127, 0, 0, 1, 0x40, 0x9C])
    }

    /// The whole handshake against a host made of the wire's builders: the client answers
    /// the init ack with an echo of it unchanged, and the cookie ack opens the association.
    #[test]
    fn a_handshake_completes() {
        let mut v = Verdict::new();
        let mut a = Association::default();
        let init = a.open(Instant::from_millis(0), SESSION, peer());
        assert_eq!(init.security_id, SESSION.to_le_bytes());
        let ack = ack_for(&init);
        let echo = a
            .on_datagram(&mut v, Instant::from_millis(5), ack.as_bytes())
            .remove(0);
        let Ok(AssocPacket::CookieEcho(echo)) = AssocPacket::read(&echo) else {
            panic!("a cookie echo");
        };
        assert_eq!(echo.echoed, ack);
        let host = AssociationKey::from_scalar([9; 28]).unwrap();
        let cookie_ack = AssocCookieAck::answering(&echo, host.public_key_field().unwrap());
        let ping = a.on_datagram(&mut v, Instant::from_millis(6), cookie_ack.as_bytes());
        assert!(matches!(a.stage, Stage::Established { .. }));
        assert_eq!(ping.first().map(|p| p[0]), Some(6), "the ping's record");
        assert!(rules(&v).is_empty());
        assert_eq!(a.answer_due(), None);
    }

    /// A move leaves the association: the next opens at once under the next tag, to the
    /// new group host, and completes there; a packet addressed to the tag left is dropped
    /// unjudged, and one addressed to a tag the client never had is still judged.
    #[test]
    fn a_move_opens_the_next_association_under_the_next_tag() {
        let mut v = Verdict::new();
        let mut a = Association::default();
        let left = ack_for(&a.open(Instant::default(), SESSION, peer()));
        a.move_on(Instant::from_millis(100));
        assert_eq!((a.due(), a.peer()), (Some(Instant::from_millis(100)), None));
        let other = SocketAddrV4::new([127, 0, 0, 2].into(), 30975);
        let init = a.open(Instant::from_millis(100), SESSION, other);
        assert_eq!(init.requester_tag.get(), REQUESTER_TAG + 1);
        assert_eq!(a.peer(), Some(other));
        let t = Instant::from_millis(101);
        assert!(a.on_datagram(&mut v, t, left.as_bytes()).is_empty());
        assert!(rules(&v).is_empty(), "the association left: dropped");
        let echo = a.on_datagram(&mut v, t, ack_for(&init).as_bytes());
        let Ok(AssocPacket::CookieEcho(echo)) = AssocPacket::read(&echo[0]) else {
            panic!("a cookie echo");
        };
        let host = AssociationKey::from_scalar([9; 28]).unwrap();
        let cookie_ack = AssocCookieAck::answering(&echo, host.public_key_field().unwrap());
        a.on_datagram(&mut v, t, cookie_ack.as_bytes());
        assert!(matches!(a.stage, Stage::Established { .. }) && rules(&v).is_empty());

        let mut a = Association::default();
        a.move_on(Instant::default());
        let init = a.open(Instant::default(), SESSION, other);
        let mut stranger = ack_for(&init);
        stranger.header.addressed_tag = (REQUESTER_TAG + 2).into();
        a.on_datagram(&mut v, t, stranger.as_bytes());
        assert_eq!(rules(&v), [Rule::Peer08], "a tag never had is judged");
    }

    /// A new activity's association follows the old one's tags: the old one's are left,
    /// and a packet addressed to them is dropped unjudged.
    #[test]
    fn a_new_activitys_association_leaves_the_old_ones_tags() {
        let mut v = Verdict::new();
        let mut old = Association::default();
        let left = ack_for(&old.open(Instant::default(), SESSION, peer()));
        old.move_on(Instant::default());
        let moved = ack_for(&old.open(Instant::default(), SESSION, peer()));
        let mut a = Association::default();
        a.start_at(old.next_generation());
        let init = a.open(Instant::default(), SESSION, peer());
        assert_eq!(init.requester_tag.get(), REQUESTER_TAG + 2);
        for packet in [left, moved] {
            assert!(
                a.on_datagram(&mut v, Instant::default(), packet.as_bytes())
                    .is_empty()
            );
        }
        assert!(rules(&v).is_empty());
    }

    /// Each init ack field the page fixes, broken alone, stops the handshake under its
    /// rule: the header's sequence under PEER-07, the rest under PEER-08. The header's
    /// constant is "never read back", the free-running value "never checked", the cookie
    /// the responder's own: none of them is judged.
    #[test]
    fn each_init_ack_field_is_judged() {
        type Edit = fn(&mut AssocInitAck);
        let edits: [(Edit, Rule); 7] = [
            (|a| a.header.sequence = 1.into(), Rule::Peer07),
            (|a| a.header.addressed_tag = 1.into(), Rule::Peer08),
            (|a| a.responder_tag2 = 1.into(), Rule::Peer08),
            (|a| a.requester_tag = 1.into(), Rule::Peer08),
            (|a| a.old_responder_tag = 1.into(), Rule::Peer08),
            (|a| a.old_requester_tag = 1.into(), Rule::Peer08),
            (|a| a.security_id[0] ^= 1, Rule::Peer08),
        ];
        for (edit, rule) in edits {
            let mut v = Verdict::new();
            let mut a = Association::default();
            let init = a.open(Instant::default(), SESSION, peer());
            let mut ack = ack_for(&init);
            edit(&mut ack);
            assert_eq!(
                a.on_datagram(&mut v, Instant::default(), ack.as_bytes()),
                Vec::<Vec<u8>>::new()
            );
            assert_eq!(rules(&v), [rule], "{ack:?}");
            assert!(matches!(a.stage, Stage::Failed));
        }
        let mut v = Verdict::new();
        let mut a = Association::default();
        let init = a.open(Instant::default(), SESSION, peer());
        let mut ack = ack_for(&init);
        (ack.header.constant_2, ack.free_running, ack.cookie) = (9, u32::MAX.into(), [0xFF; 16]);
        assert!(
            a.on_datagram(&mut v, Instant::default(), ack.as_bytes())
                .len()
                == 1
        );
        assert!(rules(&v).is_empty(), "free fields");
    }

    /// The cookie ack: to another tag (PEER-08), another security id (PEER-09), a key off
    /// the curve or not in the export form (PEER-10), another header (PEER-07).
    #[test]
    fn each_cookie_ack_check() {
        let host = AssociationKey::from_scalar([9; 28]).unwrap();
        type Edit = fn(&mut AssocCookieAck);
        let edits: [(Edit, Rule); 5] = [
            (|c| c.header.addressed_tag = 0xBEEF.into(), Rule::Peer08),
            (|c| c.security_id[7] ^= 1, Rule::Peer09),
            (|c| c.public_key[20] ^= 1, Rule::Peer10),
            (|c| c.public_key = [0; 100], Rule::Peer10),
            (|c| c.header.sequence = 2.into(), Rule::Peer07),
        ];
        for (edit, rule) in edits {
            let mut v = Verdict::new();
            let (mut a, echo) = echoed();
            let mut cookie_ack = AssocCookieAck::answering(&echo, host.public_key_field().unwrap());
            edit(&mut cookie_ack);
            a.on_datagram(&mut v, Instant::default(), cookie_ack.as_bytes());
            assert_eq!(rules(&v), [rule]);
            assert!(matches!(a.stage, Stage::Failed));
        }
    }

    /// A client whose cookie echo is out, answering a right init ack, and the echo.
    fn echoed() -> (Association, AssocCookieEcho) {
        let mut a = Association::default();
        let init = a.open(Instant::default(), SESSION, peer());
        let echo = a.on_datagram(
            &mut Verdict::new(),
            Instant::default(),
            ack_for(&init).as_bytes(),
        );
        let Ok(AssocPacket::CookieEcho(echo)) = AssocPacket::read(&echo[0]) else {
            panic!("a cookie echo");
        };
        (a, *echo)
    }

    /// An association opened against a host made of the wire's builders: the client, and
    /// the keys and tag the host's records go out with.
    fn opened() -> (Association, RecordKeys) {
        let mut v = Verdict::new();
        let (mut a, echo) = echoed();
        let host = AssociationKey::from_scalar([9; 28]).unwrap();
        let cookie_ack = AssocCookieAck::answering(&echo, host.public_key_field().unwrap());
        a.on_datagram(&mut v, Instant::default(), cookie_ack.as_bytes());
        let secret = host.agree(&echo.public_key).unwrap();
        (a, RecordKeys::derive(&secret, &JOIN_KEY))
    }

    /// The pong record `sequence`, with the pong declared at `size`.
    fn pong(keys: &RecordKeys, sequence: u32, size: u32) -> Vec<u8> {
        let pong = PeerMessage::Pong {
            sequence: 1,
            timestamp: 0,
            kind: message::PONG_KIND,
        };
        let container = chain::write_declared(&[(&pong, size)]).unwrap();
        record::seal(keys, REQUESTER_TAG, sequence, &container).unwrap()
    }

    /// The host's records: a right pong passes, and so does the same record again (the
    /// network doubled it); a flipped MAC bit (PEER-11), another record with a sequence
    /// seen (PEER-12), a pong declared one under or over its size (PEER-13) are each
    /// caught; the next sequence, and one 31 below the highest, pass.
    #[test]
    fn the_hosts_records() {
        let (mut a, keys) = opened();
        let mut v = Verdict::new();
        a.on_datagram(&mut v, Instant::default(), &pong(&keys, 5, 24));
        a.on_datagram(&mut v, Instant::default(), &pong(&keys, 5, 24));
        assert!(rules(&v).is_empty());
        a.on_datagram(&mut v, Instant::default(), &pong(&keys, 5, 25));
        assert_eq!(rules(&v), [Rule::Peer12]);
        let mut v = Verdict::new();
        a.on_datagram(&mut v, Instant::default(), &pong(&keys, 36, 24));
        a.on_datagram(&mut v, Instant::default(), &pong(&keys, 6, 24));
        assert!(rules(&v).is_empty(), "31 below the highest");
        let mut bad = pong(&keys, 37, 24);
        bad[8] ^= 1;
        a.on_datagram(&mut v, Instant::default(), &bad);
        assert_eq!(rules(&v), [Rule::Peer11]);
        let mut v = Verdict::new();
        for (sequence, size) in [(38, 23), (39, 25)] {
            a.on_datagram(&mut v, Instant::default(), &pong(&keys, sequence, size));
        }
        assert_eq!(rules(&v), [Rule::Peer13, Rule::Peer13]);
    }

    /// The host's record of `messages` with `sequence`.
    fn host_record(keys: &RecordKeys, sequence: u32, messages: &[PeerMessage]) -> Vec<u8> {
        let container = chain::write_container(messages).unwrap();
        record::seal(keys, REQUESTER_TAG, sequence, &container).unwrap()
    }

    /// A host's container that holds id 43 or 44, a test control, is PEER-15; id 42
    /// beside them, which Vex does not read either, is not.
    #[test]
    fn a_test_control_is_caught() {
        for (id, caught) in [(43u8, true), (44, true), (42, false)] {
            let (mut a, keys) = opened();
            let mut v = Verdict::new();
            // marker, more, the id, struct_size 0, more 0
            let container = vex_wire::bits::written(|w| {
                for (value, width) in [(1, 1), (1, 1), (u64::from(id), 6), (0, 18), (0, 1)] {
                    w.write(value, width);
                }
            })
            .unwrap();
            let bytes = record::seal(&keys, REQUESTER_TAG, 1, &container).unwrap();
            a.on_datagram(&mut v, Instant::default(), &bytes);
            assert_eq!(rules(&v) == [Rule::Peer15], caught, "id {id}");
        }
    }

    /// The host's answer to the time-synchronize request draws the client's reply, once;
    /// an answer to that reply is PEER-16 (advisory on the bodies' layout), whichever form
    /// it comes in; the answer to the request draws nothing more the second time.
    #[test]
    fn a_time_sync_reply_is_terminal() {
        let answer = |t1: u64| PeerMessage::TimeSync {
            session: SESSION,
            samples: TimeSamples::Reply([t1, 5, 6]),
        };
        let (mut a, keys) = opened();
        let mut v = Verdict::new();
        let probe = a.on_datagram(
            &mut v,
            Instant::default(),
            &host_record(&keys, 1, &[answer(0)]),
        );
        let (_, plain) = record::open(&keys, probe.first().expect("the client's reply")).unwrap();
        let sent = chain::read_container(&plain).messages;
        assert!(matches!(
            sent[..],
            [PeerMessage::TimeSync {
                samples: TimeSamples::Reply([PROBE_T1, ..]),
                ..
            }]
        ));
        let again = a.on_datagram(
            &mut v,
            Instant::default(),
            &host_record(&keys, 2, &[answer(0)]),
        );
        assert!(again.is_empty(), "one probe");
        assert!(rules(&v).is_empty());
        a.on_datagram(
            &mut v,
            Instant::default(),
            &host_record(&keys, 3, &[answer(PROBE_T1)]),
        );
        let echoed = PeerMessage::TimeSync {
            session: SESSION,
            samples: TimeSamples::Request(PROBE_T1),
        };
        a.on_datagram(
            &mut v,
            Instant::default(),
            &host_record(&keys, 4, &[echoed]),
        );
        assert_eq!(rules(&v), [Rule::Peer16, Rule::Peer16]);
    }

    /// No answer within the wait is PEER-07, advisory; a datagram of no packet while the
    /// handshake waits is PEER-07 too.
    #[test]
    fn an_unanswered_handshake() {
        let mut v = Verdict::new();
        let mut a = Association::default();
        a.open(Instant::from_millis(10), SESSION, peer());
        assert_eq!(a.answer_due(), Some(Instant::from_millis(3_010)));
        a.on_datagram(&mut v, Instant::from_millis(11), &[2, 2, 0]);
        assert_eq!(rules(&v), [Rule::Peer07]);
        a.report_unanswered(&mut v);
        assert_eq!(rules(&v), [Rule::Peer07, Rule::Peer07]);
        assert_eq!(a.answer_due(), None);
    }
}
