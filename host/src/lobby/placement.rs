//! Which host process holds an activity, when several processes share one database
//! ([`crate::HostConfig::shared`]): service 16's answer names the process the store places
//! the activity on, not the answering process's own listener. SR "A destination load in
//! pseudocode" has one host answer with its own address; several processes behind one
//! lobby is Vex's choice (README "Several host processes"). The store keeps each activity
//! host id on one live process while that process's lease runs (`vex-store`), so every
//! member of an activity is sent to the same process, and a process whose lease ran out
//! is handed no new activity.
//!
//! The core asks and the store answers through this seam, as with writes
//! (`super::write`): [`Lookup`] out by `HostCore::poll_lookup`, [`Placed`] back by
//! `HostCore::handle_placed`. The answer waits on its link meanwhile, and the link's later
//! answers wait behind it (BAP-16).

use std::net::SocketAddrV4;

/// A question for the store: which process holds (or will hold) the activity `host_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lookup {
    /// The core's name for the question; the answer carries it back.
    pub ticket: u64,
    /// The activity host id service 16 asked for.
    pub host_id: u64,
}

/// The store's answer to a [`Lookup`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placed {
    /// The process whose listener is at this address holds the activity.
    At(SocketAddrV4),
    /// The store could not place it: why. The answering process names itself, as a host
    /// alone does: it is alive, so it can hold the activity.
    Failed(String),
}
