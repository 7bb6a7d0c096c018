//! What a client report changed in an activity's world, as the host committed it: the
//! typed events a mission handles (SR "Client reports come in").

use crate::link_id::LinkId;
use vex_wire::activity::slot::ClientRef;

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
