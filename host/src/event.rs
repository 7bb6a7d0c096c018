//! What the host core reports, for logs, transcripts and tests.

use crate::commit_error::CommitError;
use crate::link_id::LinkId;
use crate::mission::MissionReport;
use crate::peer::responder::PeerDrop;
use crate::reason::{Closed, Dropped};
pub use crate::world_event::WorldEvent;
use std::net::SocketAddrV4;
use vex_wire::activity::session::SessionId;
use vex_wire::bits::BitError;

/// A frame the core wants sent, with what it carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transmit {
    /// The link.
    pub link: LinkId,
    /// The whole frame, outer header included.
    pub bytes: Vec<u8>,
    /// The BAP service of the inner message.
    pub service: u16,
    /// The activity message id, for service 9.
    pub message: Option<u32>,
}

/// A datagram the core wants sent on its UDP port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Datagram {
    /// Where it goes.
    pub peer: SocketAddrV4,
    /// The whole datagram.
    pub bytes: Vec<u8>,
}

/// Something that happened on a link.
#[derive(Debug, Clone, PartialEq)]
pub enum HostEvent {
    /// A frame arrived and was understood.
    Received {
        /// The link.
        link: LinkId,
        /// The BAP service.
        service: u16,
        /// The task id.
        task: u32,
        /// The activity message id, for service 8.
        message: Option<u32>,
    },
    /// Input was refused or dropped; the link goes on.
    Dropped {
        /// The link.
        link: LinkId,
        /// Why.
        reason: Dropped,
    },
    /// The host could not build one of its own messages, so it did not send it: an
    /// internal error of the host, never the client's doing; the link goes on.
    NotBuilt {
        /// The link.
        link: LinkId,
        /// The activity message id.
        msg: u32,
        /// Why.
        error: BitError,
    },
    /// The link cannot go on (its byte stream cannot be framed, its channel lost frames,
    /// or it went over a limit); the IO layer closes it.
    Close {
        /// The link.
        link: LinkId,
        /// Why.
        reason: Closed,
    },
    /// A report changed the world (SR "Client reports come in": each accepted report
    /// becomes one or more events).
    World(WorldEvent),
    /// A commit of the host's world reached the transport queue of every member it could:
    /// the strongest outcome the host can prove (SR "Auth state goes out":
    /// transport_staged).
    Staged {
        /// The activity's session.
        session: SessionId,
        /// The committed Auth revision.
        revision: u64,
    },
    /// A commit was refused, and nothing of it applied.
    Refused {
        /// The activity's session.
        session: SessionId,
        /// Why.
        error: CommitError,
    },
    /// What the mission stage did.
    Mission(MissionReport),
    /// A member reported it lost its peer with `peer_key` (message 37, diagnostic only:
    /// nothing changes and nothing is answered; AH "Message ids").
    ConnectivityFailure {
        /// The member's link.
        link: LinkId,
        /// The key of the peer it lost.
        peer_key: u64,
        /// The 2-bit reason, raw.
        reason: u8,
    },
    /// A datagram on the UDP port was dropped.
    PeerDropped {
        /// Its sender.
        from: SocketAddrV4,
        /// Why.
        reason: PeerDrop,
    },
    /// A bdNet association opened: its handshake completed (PEER-07).
    Associated {
        /// The requester.
        from: SocketAddrV4,
        /// The host's tag for it.
        tag: u16,
    },
    /// A record of an association opened.
    PeerReceived {
        /// Its sender.
        from: SocketAddrV4,
        /// The association's tag.
        tag: u16,
        /// The plaintext's bytes.
        len: usize,
    },
    /// A client joined an activity session.
    Joined {
        /// The link.
        link: LinkId,
        /// The session id.
        session: SessionId,
    },
}
