//! The sans-IO host core: bytes and time in, frames and events out (design "Sans-IO
//! cores"). It never reads a clock, sleeps or touches a socket.
//!
//! [`HostCore`] routes and owns nothing else: a frame goes to its link ([`Links`], the
//! transport), a BAP request to the route (`route.rs`) or the lobby services, an activity
//! message to the activity layer ([`Activities`]), and time to the timers (`timer.rs`).

use crate::activities::Activities;
use crate::activity::Activity;
use crate::commit_error::CommitError;
use crate::config::HostConfig;
use crate::event::{Datagram, HostEvent, Transmit};
use crate::host_timer::HostTimer;
use crate::limits::Limit;
use crate::link::{Link, Links};
use crate::link_id::LinkId;
use crate::lobby::pending::Pending;
use crate::lobby::{Listed, Listing, LobbyServices, Lookup, StoredLobby, Write, Written};
use crate::mission::{Mission, MissionStage};
use crate::peer::port::{LiveSessions, PeerPort};
use crate::policy::Policy;
use crate::reason::{Closed, Dropped};
use crate::session_index::IndexAsk;
use crate::world::WorldRequest;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use std::collections::BTreeSet;
use std::net::SocketAddrV4;
use vex_wire::activity::selection::DescriptorBits;
use vex_wire::activity::session::SessionId;
use vex_wire::activity::slot::ClientRef;
use vex_wire::bap::deframer::Frame;
use vex_wire::bap::header::{FrameType, InnerHeader};
use vex_wire::bap::services::ACTIVITY_TO_HOST;
use vex_wire::time::Instant;

/// How many nonces past the one due a frame that does not open is tried with, to tell a
/// stream that lost frames on the way from a lone bad frame (BAP-18).
const OUT_OF_STEP_WINDOW: u8 = 4;

/// The Activity Host: the links below, the activities above, and the route between.
#[derive(Debug)]
pub struct HostCore {
    pub(crate) config: HostConfig,
    pub(crate) rng: ChaCha20Rng,
    /// Every link, their timers, and the outbox.
    pub(crate) links: Links,
    /// The activity layer: every activity, its timeline and the mission stage.
    pub(crate) activities: Activities,
    /// The index of the next session id the route hands out.
    pub(crate) next_session_index: u16,
    /// In a shared fleet, the service-6 requests waiting for the store's session index,
    /// with the selection each named.
    pub(crate) session_indexes: Pending<IndexAsk, DescriptorBits>,
    /// The lobby services beside the route.
    pub(crate) lobby: LobbyServices,
    /// The UDP port: QoS probes and bdNet associations.
    pub(crate) peer: PeerPort,
}

impl HostCore {
    /// A host with no links.
    pub fn new(mut config: HostConfig) -> Self {
        let timeline = std::mem::take(&mut config.timeline);
        config.timeline = config.hooks.policy().program(timeline);
        let links = Links::new(config.hooks.clone());
        let stored = config
            .stored
            .take()
            .unwrap_or_else(|| StoredLobby::seed(&config.scenario));
        let lobby = LobbyServices::new(
            config.scenario.player,
            stored,
            config.advertised,
            config.shared,
        );
        Self {
            rng: ChaCha20Rng::from_seed(config.seed),
            peer: PeerPort::new(
                config.advertised,
                config.seed,
                config.limits.max_associations,
                config.shared,
            ),
            links,
            lobby,
            activities: Activities::new(config.clone()),
            config,
            next_session_index: 1,
            session_indexes: Pending::default(),
        }
    }

    /// A host that runs `mission` in every activity it starts (SR "Where mission scripts
    /// plug in").
    pub fn with_mission(config: HostConfig, mut mission: Box<dyn Mission>) -> Self {
        mission.serve(&config.scenario);
        let mut host = Self::new(config);
        host.activities.mission = Some(MissionStage::new(mission));
        host
    }

    /// The activity of `session`, for a host program or a test to read.
    pub fn activity(&self, session: SessionId) -> Option<&Activity> {
        self.activities.get(session)
    }

    /// The links the host holds, in id order.
    pub fn link_ids(&self) -> impl Iterator<Item = LinkId> + '_ {
        self.links.ids()
    }

    /// The configuration.
    pub fn config(&self) -> &HostConfig {
        &self.config
    }

    /// A connection opened. One past [`crate::Limits::max_links`] is closed at once.
    pub fn handle_connect(&mut self, now: Instant, link: LinkId) {
        tracing::debug!(%link, "link opened");
        let limits = self.config.limits;
        if self.links.len() >= limits.max_links {
            self.links
                .close(link, Closed::Limit(Limit::Links(limits.max_links)));
            return;
        }
        self.links.insert(link, Link::new(link, now, &limits));
        self.links.arm(link, HostTimer::Hello);
    }

    /// A connection closed; its state is dropped, and its member leaves its activity.
    pub fn handle_close(&mut self, now: Instant, link: LinkId) {
        self.activities.now = now;
        tracing::debug!(%link, "link closed");
        let sessions = self
            .links
            .remove(link)
            .and_then(Link::into_binding)
            .map(|b| [b.session(), b.private_session()]);
        for session in sessions.into_iter().flatten() {
            self.activities.depart(&mut self.links, link, session);
        }
        self.activities.run_mission(&mut self.links, now);
    }

    /// Bytes arrived on `link`, split anywhere.
    pub fn handle_bytes(&mut self, now: Instant, link: LinkId, bytes: &[u8]) {
        self.activities.now = now;
        self.read_frames(now, link, bytes);
        self.activities.run_mission(&mut self.links, now);
    }

    /// The transport and host stages of [`HostCore::handle_bytes`]: every whole frame.
    fn read_frames(&mut self, now: Instant, link: LinkId, bytes: &[u8]) {
        let Some(l) = self.links.get_mut(link) else {
            return;
        };
        if l.is_closed() {
            return;
        }
        l.take_bytes(bytes);
        let limits = self.config.limits;
        let mut whole = false;
        loop {
            let Some(l) = self.links.get_mut(link) else {
                return;
            };
            if l.is_closed() {
                return;
            }
            match l.next_frame() {
                Ok(Some(frame)) => {
                    whole = true;
                    if !l.admit_frame(now.millis(), limits.frames_per_second) {
                        let limit = Limit::Rate(limits.frames_per_second);
                        return self.links.shut(link, Closed::Limit(limit));
                    }
                    self.handle_frame(now, link, frame);
                }
                Ok(None) => {
                    // a frame begun in this read started its clock now
                    let due = match (l.buffered(), l.frame_due()) {
                        (0, _) => None,
                        (_, Some(due)) if !whole => Some(due),
                        _ => Some(now + limits.frame_within_ms),
                    };
                    // armed only when it moves: a frame read a byte at a time is one entry
                    if l.set_frame_due(due) {
                        self.links.arm(link, HostTimer::SlowFrame);
                    }
                    return;
                }
                Err(e) => return self.links.shut(link, Closed::Framing(e)),
            }
        }
    }

    fn handle_frame(&mut self, now: Instant, link: LinkId, frame: Frame) {
        let Some(l) = self.links.get_mut(link) else {
            return;
        };
        let inner = match (frame.frame_type, l.channel()) {
            (FrameType::Encrypted, Some(channel)) => match channel.open(&frame.payload) {
                Ok(inner) => inner,
                // facts 1.4: a frame that does not open is dropped and the link stays; one
                // sealed with a later nonce proves frames were lost on the way, and no
                // frame of the link will open again
                Err(e) => match channel.out_of_step(&frame.payload, OUT_OF_STEP_WINDOW) {
                    Some(lost) if lost > 0 => {
                        return self.links.shut(link, Closed::OutOfStep(lost));
                    }
                    _ => return self.links.drop_input(link, Dropped::Open(e)),
                },
            },
            (FrameType::Encrypted, None) => {
                return self.links.drop_input(link, Dropped::EncryptedBeforeHello);
            }
            _ => frame.payload,
        };
        let (header, body) = match InnerHeader::read(&inner, false) {
            Ok(h) => h,
            Err(e) => return self.links.drop_input(link, Dropped::InnerHeader(e)),
        };
        // facts 1.5: an answer goes in its request's frame type, so a plaintext request
        // gets a plaintext answer even on an armed link.
        let reply_type = frame.frame_type;
        if header.service == ACTIVITY_TO_HOST {
            if reply_type == FrameType::Encrypted {
                self.activities
                    .handle_activity(&mut self.links, now, link, header.task, body);
            } else {
                self.links.drop_input(link, Dropped::PlaintextActivity);
            }
        } else {
            self.links.record(link, header.service, header.task, None);
            self.handle_service(now, link, reply_type, header, body);
        }
    }

    /// The host's decisions (design "The emulated client": a policy trait whose defaults
    /// are the correct behaviour).
    pub(crate) fn policy(&self) -> &dyn Policy {
        self.config.hooks.policy()
    }

    /// Sends activity message `msg` with `payload` on `link`'s session, as it is: no check
    /// of the body, for experiments and fuzzing (the built-in host never sends an
    /// unchecked body of its own).
    pub fn push_raw(&mut self, link: LinkId, msg: u32, payload: &[u8]) {
        self.links.push_message(link, msg, payload);
    }

    /// Commits `requests` to the world of `session`'s activity, all or none, and sends
    /// what the commit owes (the world's one door, `requests.rs`). The slots whose body
    /// changed.
    pub fn request(
        &mut self,
        session: SessionId,
        requests: &[WorldRequest],
    ) -> Result<BTreeSet<ClientRef>, CommitError> {
        self.activities.request(&mut self.links, session, requests)
    }

    /// Asks for `source` to replace the running mission: it compiles now, and is swapped
    /// in at the end of the stage once nothing is in flight; a newer request replaces one
    /// still held (SR "Where mission scripts plug in").
    pub fn request_reload(&mut self, now: Instant, source: &str) {
        self.activities.request_reload(&mut self.links, now, source);
    }

    /// What each running instance holds: its session and its variables.
    pub fn mission_status(&self) -> Vec<(SessionId, String)> {
        self.activities.mission_status()
    }

    /// A datagram arrived on the UDP port from `from`. A QoS probe's security id names the
    /// session it probes by the id's low 32 bits (Vex's choice `qos-security-id`: the pages
    /// give the id no source), which the reply advertises.
    pub fn handle_datagram(&mut self, now: Instant, from: SocketAddrV4, bytes: &[u8]) {
        let sessions = &self.activities.map;
        let by_security_id = |security_id: u32| {
            let named = sessions.keys().find(|s| s.0 as u32 == security_id);
            named.map(|s| s.0)
        };
        let live = |session: u64| sessions.contains_key(&SessionId(session));
        let sessions = LiveSessions {
            by_security_id: &by_security_id,
            live: &live,
        };
        let hooks = &self.config.hooks;
        if let Some(event) = self.peer.handle(now, from, bytes, &sessions, hooks) {
            tracing::info!(?event, "peer");
            self.links.event(event);
        }
    }

    /// How many bdNet associations the UDP port holds.
    pub fn associations(&self) -> usize {
        self.peer.responder().len()
    }

    /// The next datagram to send on the UDP port.
    pub fn poll_datagram(&mut self) -> Option<Datagram> {
        self.peer.poll()
    }

    /// The next change for the lobby's store to keep (`vex-store`); the call that made it
    /// is answered once [`Self::handle_written`] says what became of it.
    pub fn poll_write(&mut self) -> Option<Write> {
        self.lobby.poll_write()
    }

    /// The store kept (or refused) the write `ticket`: its call is answered, and a kept
    /// change of the family-4 objects is published (NS "The reply's version barrier").
    pub fn handle_written(&mut self, ticket: u64, written: Written) {
        self.lobby.written(&mut self.links, ticket, written);
    }

    /// The next lookup for the store in a shared fleet (`HostConfig::shared`): which
    /// process holds an activity; the service-16 request that asked is answered once
    /// [`Self::handle_placed`] says.
    pub fn poll_lookup(&mut self) -> Option<Lookup> {
        self.lobby.poll_lookup()
    }

    /// The next question for the store in a shared fleet about a new session's index
    /// (`session_index`); the service-6 request that asked is answered once
    /// [`Self::handle_indexed`] says.
    pub fn poll_index(&mut self) -> Option<IndexAsk> {
        self.session_indexes.poll()
    }

    /// The next question about the matchmaking advertisements for the store in a shared
    /// fleet (`lobby::listing`); the service-42 request that asked is answered once
    /// [`Self::handle_listed`] says.
    pub fn poll_listing(&mut self) -> Option<Listing> {
        self.lobby.poll_listing()
    }

    /// The store answered the listing `ticket`: its service-42 reply goes out.
    pub fn handle_listed(&mut self, ticket: u64, listed: Listed) {
        self.lobby.listed(&mut self.links, ticket, listed);
    }

    /// The next frame to send.
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.links.poll_transmit()
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<HostEvent> {
        self.links.poll_event()
    }
}
