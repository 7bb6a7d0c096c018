//! The client's links as one set: the links the IO layer should open, the open ones, and
//! the frames queued on them (NS "bdLobby BAP"; facts 1.5).

use crate::config::CHANNEL_START_LEN;
use crate::had_time_to_answer;
use crate::link::{ClientLink, LinkKind, Pending};
use prost::Message;
use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddrV4;
use vex_wire::activity::envelope::ActivityNotification;
use vex_wire::bap::services::{ACTIVITY_TO_HOST, CHANNEL_START, HELLO, response_for};
use vex_wire::lobby::signon::HelloRequest;
use vex_wire::time::Instant;

/// A frame the client wants sent, with what it carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientTransmit {
    /// The link.
    pub link: LinkKind,
    /// The whole frame.
    pub bytes: Vec<u8>,
    /// The BAP service.
    pub service: u16,
    /// The activity message id, for service 8.
    pub message: Option<u32>,
    /// The activity message body, for service 8.
    pub payload: Option<Vec<u8>>,
}

/// An activity message the client sends on service 8.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Outgoing {
    /// The activity message id.
    pub(crate) message: u32,
    /// Its body.
    pub(crate) body: Vec<u8>,
}

/// The client's links.
#[derive(Debug)]
pub(crate) struct Links {
    open: BTreeMap<LinkKind, ClientLink>,
    connects: VecDeque<(LinkKind, SocketAddrV4)>,
    transmits: VecDeque<ClientTransmit>,
    /// The last activity message sent.
    last_sent: Option<Sent>,
    /// The Activity Host's address, once service 17 named it: where the UDP port is.
    activity_address: Option<SocketAddrV4>,
    /// Datagrams to the Activity Host's UDP port.
    datagrams: VecDeque<(SocketAddrV4, Vec<u8>)>,
}

/// An activity message the client sent on service 8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sent {
    /// Its id.
    pub(crate) message: u32,
    /// The session handle it named.
    pub(crate) handle: u64,
    /// When it went out.
    pub(crate) at: Instant,
}

impl Links {
    /// No link yet; the primary link to `target` is the first to open.
    pub(crate) fn new(target: SocketAddrV4) -> Self {
        Self {
            open: BTreeMap::new(),
            connects: VecDeque::from([(LinkKind::Primary, target)]),
            transmits: VecDeque::new(),
            last_sent: None,
            activity_address: None,
            datagrams: VecDeque::new(),
        }
    }

    /// Asks the IO layer to open `link` to `address`.
    pub(crate) fn connect(&mut self, link: LinkKind, address: SocketAddrV4) {
        if link == LinkKind::Activity {
            self.activity_address = Some(address);
        }
        self.connects.push_back((link, address));
    }

    /// The Activity Host's address, once service 17 named it.
    pub(crate) fn activity_address(&self) -> Option<SocketAddrV4> {
        self.activity_address
    }

    /// Sends `bytes` to the UDP port of the Activity Host's address (NS "The engine peer
    /// transport": the port of the activity port's number); none before service 17.
    pub(crate) fn send_datagram(&mut self, bytes: &[u8]) {
        if let Some(to) = self.activity_address {
            self.send_datagram_to(to, bytes);
        }
    }

    /// Sends `bytes` to `to`.
    pub(crate) fn send_datagram_to(&mut self, to: SocketAddrV4, bytes: &[u8]) {
        self.datagrams.push_back((to, bytes.to_vec()));
    }

    /// Sends each of `datagrams` to `to`, an association's peer once it has one.
    pub(crate) fn send_datagrams_to(&mut self, to: Option<SocketAddrV4>, datagrams: &[Vec<u8>]) {
        if let Some(to) = to {
            datagrams.iter().for_each(|d| self.send_datagram_to(to, d));
        }
    }

    /// A datagram the IO layer should send, and where.
    pub(crate) fn poll_datagram(&mut self) -> Option<(SocketAddrV4, Vec<u8>)> {
        self.datagrams.pop_front()
    }

    /// A link the IO layer should open.
    pub(crate) fn poll_connect(&mut self) -> Option<(LinkKind, SocketAddrV4)> {
        self.connects.pop_front()
    }

    /// The next frame to send.
    pub(crate) fn poll_transmit(&mut self) -> Option<ClientTransmit> {
        self.transmits.pop_front()
    }

    /// `link` opened: channel setup and the hello carrying `token` (facts 1.5).
    pub(crate) fn open(&mut self, now: Instant, link: LinkKind, token: &[u8]) {
        let mut l = ClientLink::new(now);
        let start = l.request(now, CHANNEL_START, &[0; CHANNEL_START_LEN], true);
        let hello_body = HelloRequest::new(token).encode_to_vec();
        let hello = l.request(now, HELLO, &hello_body, true);
        self.open.insert(link, l);
        self.queue(link, start, CHANNEL_START);
        self.queue(link, hello, HELLO);
    }

    /// `link` closed under the client: true when it was open until now.
    pub(crate) fn close(&mut self, link: LinkKind) -> bool {
        let Some(l) = self.open.get_mut(&link) else {
            return false;
        };
        let was_open = !l.dead;
        l.dead = true;
        was_open
    }

    /// `link`, dead or alive, once it opened.
    pub(crate) fn get_mut(&mut self, link: LinkKind) -> Option<&mut ClientLink> {
        self.open.get_mut(&link)
    }

    /// `link`, while it is alive.
    pub(crate) fn live(&self, link: LinkKind) -> Option<&ClientLink> {
        self.open.get(&link).filter(|l| !l.dead)
    }

    /// Every request on a live link still unanswered at `now` though sent at least
    /// [`crate::ANSWER_GRACE_MS`] before: link, task and service.
    pub(crate) fn unanswered(&self, now: Instant) -> Vec<(LinkKind, u32, u16)> {
        let owed = move |p: &Pending| had_time_to_answer(p.sent, now);
        self.open
            .iter()
            .filter(|(_, l)| !l.dead)
            .flat_map(|(k, l)| {
                let owed_here = l.pending.iter().filter(move |(_, p)| owed(p));
                owed_here.map(move |(t, p)| (*k, *t, p.service))
            })
            .collect()
    }

    fn queue(&mut self, link: LinkKind, bytes: Vec<u8>, service: u16) {
        self.transmits.push_back(ClientTransmit {
            link,
            bytes,
            service,
            message: None,
            payload: None,
        });
    }

    /// Sends a request on `link`.
    pub(crate) fn send_request(&mut self, now: Instant, link: LinkKind, service: u16, body: &[u8]) {
        let expects = response_for(service).is_some();
        if let Some(l) = self.open.get_mut(&link) {
            let bytes = l.request(now, service, body, expects);
            self.queue(link, bytes, service);
        }
    }

    /// Sends activity message `out` on service 8 with `handle` (the session id).
    pub(crate) fn send_activity(&mut self, now: Instant, handle: u64, out: Outgoing) {
        let n = ActivityNotification::new(handle, out.message, 0, out.body);
        self.send_notification(now, n);
    }

    /// Sends activity message `out` on service-8 discriminator 2, the arm without a
    /// peer-heard mask (AH "Client to host, service 8"; HOST-10).
    pub(crate) fn send_activity_on_two(&mut self, now: Instant, handle: u64, out: Outgoing) {
        let mut n = ActivityNotification::new(handle, out.message, 0, out.body);
        n.discriminator = 2;
        n.peer_heard_mask = None;
        self.send_notification(now, n);
    }

    /// The last activity message sent.
    pub(crate) fn last_sent(&self) -> Option<&Sent> {
        self.last_sent.as_ref()
    }

    fn send_notification(&mut self, now: Instant, n: ActivityNotification) {
        self.last_sent = Some(Sent {
            message: n.msg_type,
            handle: n.handle,
            at: now,
        });
        let envelope = n.encode();
        let (message, body) = (n.msg_type, n.payload);
        if let Some(l) = self.open.get_mut(&LinkKind::Activity) {
            let bytes = l.request(now, ACTIVITY_TO_HOST, &envelope, false);
            self.transmits.push_back(ClientTransmit {
                link: LinkKind::Activity,
                bytes,
                service: ACTIVITY_TO_HOST,
                message: Some(message),
                payload: Some(body),
            });
        }
    }
}
