//! The matchmaking advertisements when several host processes share the store
//! ([`crate::HostConfig::shared`]): a client may advertise its session on one process and
//! another locate it on another, so the advertisements live in the store, each under an
//! id the store hands out, never 0 and never reused by any process (MM-05, MM-06; NS
//! "Matchmaking, services 42 and 43"). A host alone keeps them in memory
//! (`super::advertisements`). A link is named by its process and its id there; an
//! advertisement of a process whose lease ran out is located no more.
//!
//! The core asks and the store answers through this seam: [`Listing`] out by
//! `HostCore::poll_listing`, [`Listed`] back by `HostCore::handle_listed`; the service-42
//! answer waits on its link meanwhile (BAP-16).

use std::net::SocketAddrV4;

/// What a [`Listing`] asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ask {
    /// Keep `descriptor` for `link`: under `existing` when the link holds that id, else
    /// under a new one.
    Advertise {
        /// The link, on this process.
        link: u64,
        /// The id the request names, when it names one.
        existing: Option<u64>,
        /// The join descriptor.
        descriptor: Vec<u8>,
    },
    /// Drop `link`'s advertisements.
    Withdraw {
        /// The link, on this process.
        link: u64,
    },
    /// The latest advertisement with a whole descriptor, of a process whose lease runs.
    Locate,
}

/// A question about the advertisements for the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    /// The core's name for the question; the answer carries it back.
    pub ticket: u64,
    /// The process asking, by the address service 17 names for it: its links' names are
    /// its own.
    pub process: SocketAddrV4,
    /// What it asks.
    pub ask: Ask,
}

/// The store's answer to a [`Listing`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listed {
    /// Kept under this id.
    Advertised(u64),
    /// Dropped.
    Withdrawn,
    /// The advertisement found, its id and descriptor; none when there is none.
    Located(Option<(u64, Vec<u8>)>),
    /// The store could not answer: why. The reply carries nothing (no id, no session).
    Failed(String),
}
