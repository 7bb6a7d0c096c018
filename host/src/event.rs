//! What the host core reports, for logs, transcripts and tests.

use crate::LinkId;
use crate::mission::MissionReport;
use crate::reason::{Closed, Dropped};
use crate::requests::CommitError;
use vex_wire::activity::slot::ClientRef;
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
        session: u64,
        /// The committed Auth revision.
        revision: u64,
    },
    /// A commit was refused, and nothing of it applied.
    Refused {
        /// The activity's session.
        session: u64,
        /// Why.
        error: CommitError,
    },
    /// What the mission stage did.
    Mission(MissionReport),
    /// A client joined an activity session.
    Joined {
        /// The link.
        link: LinkId,
        /// The session id.
        session: u64,
    },
}

/// A change in the activity's world that a client report caused, after the host committed
/// it (SR "Client reports come in", "How a script runs").
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WorldEvent {
    /// A member reported a slot's Sense (message 6), with the client's counter.
    Sensed {
        /// The member's link.
        link: LinkId,
        /// The slot.
        slot: ClientRef,
        /// The client's per-slot counter.
        counter: u32,
    },
    /// A member's Ghost scan bar (a type-65 Sense report).
    GhostScan {
        /// The member's link.
        link: LinkId,
        /// The ghost_link slot.
        slot: ClientRef,
        /// The bar is running.
        active: bool,
        /// How far it ran.
        fraction: f32,
        /// The Auth generation it runs for.
        generation: i32,
    },
    /// A member asked for `slots` slots to be purged (message 27), and got the notice.
    PurgeRequested {
        /// The member's link.
        link: LinkId,
        /// Slots in its mask.
        slots: usize,
    },
    /// A member rebuilt its authority mask for the host's reset `token` (message 29).
    AuthorityReset {
        /// The member's link.
        link: LinkId,
        /// The reset's token.
        token: u32,
    },
    /// A member has authority over `slots` slots in `bubble` (message 31).
    AuthorityInBubble {
        /// The member's link.
        link: LinkId,
        /// The query's token.
        token: u32,
        /// The bubble selector.
        bubble: u8,
        /// Slots in its mask.
        slots: usize,
    },
    /// A member has authority over `slots` slots in all (message 32).
    AuthorityReported {
        /// The member's link.
        link: LinkId,
        /// The query's token.
        token: u32,
        /// Slots in its mask.
        slots: usize,
    },
    /// A member's incident (message 19): the definition row, and how many targets and
    /// payload bytes it carried.
    Incident {
        /// The member's link.
        link: LinkId,
        /// The definition table row.
        definition: u16,
        /// Extra targets.
        targets: usize,
        /// Payload bytes.
        payload: usize,
    },
    /// A member gave up authority over `slots` slots (message 33).
    AuthorityReleased {
        /// The member's link.
        link: LinkId,
        /// Slots it gave up.
        slots: usize,
    },
    /// A member's message 22 moved it from slice set `from` to slice set `to`.
    RegionChanged {
        /// The member's link.
        link: LinkId,
        /// Where it stood.
        from: i16,
        /// Where it stands.
        to: i16,
    },
}

impl WorldEvent {
    /// The link of the member whose report raised it.
    pub fn link(&self) -> LinkId {
        match *self {
            Self::Sensed { link, .. }
            | Self::GhostScan { link, .. }
            | Self::PurgeRequested { link, .. }
            | Self::AuthorityReset { link, .. }
            | Self::AuthorityInBubble { link, .. }
            | Self::AuthorityReported { link, .. }
            | Self::Incident { link, .. }
            | Self::AuthorityReleased { link, .. }
            | Self::RegionChanged { link, .. } => link,
        }
    }

    /// The slot a Sense report names, for the events that come from one.
    pub fn slot(&self) -> Option<ClientRef> {
        match *self {
            Self::Sensed { slot, .. } | Self::GhostScan { slot, .. } => Some(slot),
            _ => None,
        }
    }
}
