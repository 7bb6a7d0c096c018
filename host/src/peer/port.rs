//! The host's UDP port (NS "The engine peer transport", "QoS probe and the session
//! advertisement"): each datagram goes by its first byte to the QoS responder (40) or the
//! association responder (1 to 4 and 6); NAT traversal's types (10 to 13) and every other
//! byte are dropped and reported. A record's plaintext goes by its first bit: an
//! out-of-band container (1) or an established datagram of a reliable connection (0).

use super::foreign::ForeignSessions;
use super::group::{GroupHost, Liveness};
use super::responder::{PeerDrop, Responder};
use crate::event::{Datagram, HostEvent};
use crate::fleet_regions::Hosted;
use crate::hooks::Hooks;
use crate::outbound::Outbound;
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use std::collections::VecDeque;
use std::net::SocketAddrV4;
use vex_wire::bits::BitWriter;
use vex_wire::peer::advertisement::{AdvertisementHeader, BLOCK_LEN, GROUP_SESSION_DESCRIPTOR_LEN};
use vex_wire::peer::association::AssocPacket;
use vex_wire::peer::chain;
use vex_wire::peer::message::{self, PeerMessage};
use vex_wire::peer::net_addr::NetAddr;
use vex_wire::peer::qos::{self, QosReply, QosReplyHead, QosRequest};
use vex_wire::time::Instant;
use zerocopy::IntoBytes;

/// The hold time a reply reports: the host answers at once (QOS-03).
const HOLD_TIME_S: f32 = 0.0;

/// The ChaCha stream the port draws from: its own, so the links' draws (stream 0) are
/// the same whatever the port does.
const PORT_STREAM: u64 = 1;

/// The UDP port's state: the associations, its randomness, and the datagrams waiting to
/// go.
#[derive(Debug)]
pub struct PeerPort {
    responder: Responder,
    group: GroupHost,
    /// In a shared fleet, the group sessions hosted for other processes; `None` for a
    /// host alone, where a session this process does not hold runs nowhere.
    foreign: Option<ForeignSessions>,
    rng: ChaCha20Rng,
    out: VecDeque<Datagram>,
}

impl PeerPort {
    /// A port at `address` (the UDP port of the activity listener's number), drawing from
    /// `seed` (its own stream), with at most `capacity` associations, in a shared fleet
    /// when `fleet`. The join key its records' keys are derived with is zero, as
    /// Sunrise's (facts, not pages).
    pub fn new(address: SocketAddrV4, seed: [u8; 32], capacity: usize, fleet: bool) -> Self {
        let mut rng = ChaCha20Rng::from_seed(seed);
        rng.set_stream(PORT_STREAM);
        let mut cookie_key = [0u8; 64];
        rng.fill_bytes(&mut cookie_key);
        Self {
            responder: Responder::new(cookie_key, [0; 16], capacity),
            group: GroupHost::at(NetAddr::direct(address.ip().octets(), address.port(), 0)),
            foreign: fleet.then(ForeignSessions::default),
            rng,
            out: VecDeque::new(),
        }
    }

    /// The associations it holds.
    pub fn responder(&self) -> &Responder {
        &self.responder
    }

    /// A datagram from `from` at `now`; `sessions` finds the live sessions. What it did,
    /// as an event.
    pub fn handle(
        &mut self,
        now: Instant,
        from: SocketAddrV4,
        bytes: &[u8],
        sessions: &LiveSessions<'_>,
        hooks: &Hooks,
    ) -> Option<HostEvent> {
        let outbound = hooks.outbound();
        let dropped = |reason: PeerDrop| Some(HostEvent::PeerDropped { from, reason });
        if bytes.first() == Some(&qos::REQUEST) {
            return match QosRequest::read(bytes) {
                Ok(request) => {
                    let probed = (sessions.by_security_id)(request.security_id.get());
                    self.answer_probe(from, &request, probed, outbound);
                    None
                }
                Err(e) => dropped(PeerDrop::Packet(e)),
            };
        }
        match AssocPacket::read(bytes) {
            Ok(AssocPacket::Init(init)) => {
                let ack = self.responder.init(now, from, &init, &mut self.rng);
                self.send(from, ack.as_bytes().to_vec(), outbound);
                None
            }
            Ok(AssocPacket::CookieEcho(echo)) => {
                match self.responder.cookie_echo(now, from, &echo, &mut self.rng) {
                    Ok((ack, opened)) => {
                        self.send(from, ack, outbound);
                        let tag = echo.echoed.responder_tag.get();
                        opened.then_some(HostEvent::Associated { from, tag })
                    }
                    Err(reason) => dropped(reason),
                }
            }
            Ok(AssocPacket::Data { head, .. }) => {
                let tag = head.header.addressed_tag.get();
                match self.responder.open(from, tag, bytes) {
                    Ok(plaintext) => {
                        if chain::is_established(&plaintext) {
                            if let Err(e) = self.group.established(tag, &plaintext, hooks) {
                                return dropped(PeerDrop::Reliable(e));
                            }
                        } else {
                            self.answer(now, tag, &plaintext, sessions.live, hooks);
                        }
                        self.send_due(now, hooks);
                        Some(HostEvent::PeerReceived {
                            from,
                            tag,
                            len: plaintext.len(),
                        })
                    }
                    Err(reason) => dropped(reason),
                }
            }
            Ok(AssocPacket::InitAck(_) | AssocPacket::CookieAck(_)) => {
                dropped(PeerDrop::NotForResponder)
            }
            Ok(AssocPacket::NatTraversal(kind)) => dropped(PeerDrop::NatTraversal(kind)),
            Err(e) => dropped(PeerDrop::Packet(e)),
        }
    }

    /// The reply to `request`: accepted with the probed session's advertisement when it
    /// runs, else an explicit refusal with no payload (QOS-03, QOS-04).
    fn answer_probe(
        &mut self,
        from: SocketAddrV4,
        request: &QosRequest,
        session: Option<u64>,
        outbound: &dyn Outbound,
    ) {
        let payload = session.map_or_else(Vec::new, advertisement);
        let reply = QosReply {
            head: QosReplyHead::answering(request, session.is_some(), HOLD_TIME_S, payload.len()),
            payload: &payload,
        };
        self.send(from, reply.encode(), outbound);
    }

    /// The messages of the out-of-band container `plaintext` on association `tag` that
    /// are owed an answer get it, each in a record of its own: a ping or time-synchronize
    /// [`answer`]'s, a connect or join request the group host's. `own` says whether a
    /// session is an activity this process holds.
    fn answer(
        &mut self,
        now: Instant,
        tag: u16,
        plaintext: &[u8],
        own: &dyn Fn(u64) -> bool,
        hooks: &Hooks,
    ) {
        let foreign = self.foreign.as_ref();
        let live = |session: u64| liveness(own, foreign, session);
        let mut answers = Vec::new();
        for message in chain::read_container(plaintext).messages {
            let rng = &mut self.rng;
            let mut announce = || rng.next_u32();
            answers.extend(
                self.group
                    .out_of_band(tag, &message, &live, &mut announce, hooks),
            );
            answers.extend(answer(now, message, hooks));
        }
        while let Some(session) = self.group.poll_unknown() {
            if let Some(foreign) = &mut self.foreign {
                foreign.ask(session);
            }
        }
        self.send_answers(tag, answers, hooks);
    }

    /// The store said at `now` whether this port hosts a region of `session` for another
    /// process (`crate::fleet_regions`); `own` says whether a session is an activity this
    /// process holds. The joins that waited for it are answered.
    pub fn hosted(
        &mut self,
        now: Instant,
        session: u64,
        hosted: Hosted,
        own: &dyn Fn(u64) -> bool,
        hooks: &Hooks,
    ) {
        let Some(foreign) = &mut self.foreign else {
            return;
        };
        let runs = foreign.answered(now, session, &hosted);
        let foreign = self.foreign.as_ref();
        let live = |s: u64| match liveness(own, foreign, s) {
            Liveness::Unknown if s == session && !runs => Liveness::Ended,
            known => known,
        };
        for (tag, answers) in self.group.release(session, &live, hooks) {
            self.send_answers(tag, answers, hooks);
        }
        self.send_due(now, hooks);
    }

    /// The next question about a session for the store.
    pub fn poll_hosted_ask(&mut self) -> Option<u64> {
        self.foreign.as_mut()?.poll_ask()
    }

    /// Each of `answers` on association `tag`, each in a record of its own.
    fn send_answers(&mut self, tag: u16, answers: Vec<PeerMessage>, hooks: &Hooks) {
        for answer in answers {
            let id = answer.id();
            let size = hooks.policy().peer_struct_size(id, answer.declared_size());
            let sent = chain::write_declared(&[(&answer, size)])
                .map_err(PeerDrop::Body)
                .and_then(|mut container| {
                    hooks.outbound().peer_container(&mut container);
                    self.send_record(tag, &container, hooks)
                });
            if let Err(e) = sent {
                tracing::error!(%e, id, "peer message not built");
            }
        }
    }

    /// Seals and sends every established datagram due at `now`.
    fn send_due(&mut self, now: Instant, hooks: &Hooks) {
        for (tag, plaintext) in self.group.due(now, hooks) {
            if let Err(e) = self.send_record(tag, &plaintext, hooks) {
                tracing::error!(%e, tag, "established datagram not sealed");
            }
        }
    }

    /// Seals `plaintext` in a record of association `tag`, with the sequence the policy
    /// gives it, and sends it to the association's peer.
    fn send_record(&mut self, tag: u16, plaintext: &[u8], hooks: &Hooks) -> Result<(), PeerDrop> {
        let policy = hooks.policy();
        let (to, record) = self
            .responder
            .seal(tag, plaintext, |next| policy.record_sequence(next))?;
        self.send(to, record, hooks.outbound());
        Ok(())
    }

    /// Time passed: the reliable connections resend what is due, and the sessions hosted
    /// for other processes that are due are asked about again.
    pub fn handle_timeout(&mut self, now: Instant, hooks: &Hooks) {
        self.send_due(now, hooks);
        if let Some(foreign) = &mut self.foreign {
            foreign.ask_due(now);
        }
    }

    /// When [`PeerPort::handle_timeout`] next has work.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let ask = self.foreign.as_ref().and_then(ForeignSessions::next_ask);
        self.group.next_due().into_iter().chain(ask).min()
    }

    /// Queues `bytes` to `to` as often as the outbound hook says (once), as it leaves it.
    fn send(&mut self, to: SocketAddrV4, mut bytes: Vec<u8>, outbound: &dyn Outbound) {
        for _ in 0..outbound.datagram(&mut bytes) {
            self.out.push_back(Datagram {
                peer: to,
                bytes: bytes.clone(),
            });
        }
    }

    /// The next datagram to send.
    pub fn poll(&mut self) -> Option<Datagram> {
        self.out.pop_front()
    }
}

/// What the port asks of the host's sessions.
pub struct LiveSessions<'a> {
    /// The live session a QoS probe's security id names.
    pub by_security_id: &'a dyn Fn(u32) -> Option<u64>,
    /// Whether a session is an activity this process holds.
    pub live: &'a dyn Fn(u64) -> bool,
}

/// Whether `session`'s group session runs here: an activity this process holds (`own`),
/// or one it hosts a region of for another; in a shared fleet (`foreign`), any other is
/// not known until the store says.
fn liveness(
    own: &dyn Fn(u64) -> bool,
    foreign: Option<&ForeignSessions>,
    session: u64,
) -> Liveness {
    match foreign {
        _ if own(session) => Liveness::Runs,
        Some(f) if f.runs(session) => Liveness::Runs,
        Some(_) => Liveness::Unknown,
        None => Liveness::Ended,
    }
}

/// The answer a ping or a time-synchronize is owed (NS "Peer message ids"): a ping its
/// pong, the sequence and timestamp echoed; a time-synchronize request its reply, a reply
/// nothing (PEER-16).
fn answer(now: Instant, message: PeerMessage, hooks: &Hooks) -> Option<PeerMessage> {
    match message {
        PeerMessage::Ping {
            sequence,
            timestamp,
            ..
        } => Some(PeerMessage::Pong {
            sequence,
            timestamp,
            kind: message::PONG_KIND,
        }),
        PeerMessage::TimeSync { session, samples } => hooks
            .policy()
            .time_sync_answer(samples, now.millis())
            .map(|samples| PeerMessage::TimeSync { session, samples }),
        _ => None,
    }
}

/// `session`'s advertisement block (QOS-06): the header, then payload type 2's descriptor,
/// whose layout neither the pages nor Sunrise give, so it is zeros, then zeros to the
/// block's 13,184 bytes.
fn advertisement(session: u64) -> Vec<u8> {
    let mut block = Vec::with_capacity(BLOCK_LEN);
    let mut w = BitWriter::appending(&mut block);
    AdvertisementHeader::for_session(session).write(&mut w);
    // a header the writer refused leaves the block empty, so all zeros below
    w.finish().ok();
    block.resize(block.len() + GROUP_SESSION_DESCRIPTOR_LEN, 0);
    block.resize(BLOCK_LEN, 0);
    block
}
