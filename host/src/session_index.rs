//! Session ids unique across a shared fleet ([`crate::HostConfig::shared`]; ENV-08: every
//! activity session has its own id). A host alone counts its own indexes
//! (`HostCore::new_session_id`); processes sharing the store would each count from 1 and
//! hand one account the same id twice, so there the 16-bit index of a new session's id
//! comes from the store's counter for the account, 1 to 65,535 and round again, never 0.
//! Several processes behind one lobby is Vex's choice: the pages have one host.
//!
//! The core asks and the store answers through this seam: [`IndexAsk`] out by
//! `HostCore::poll_index`, [`Indexed`] back by `HostCore::handle_indexed`; the service-7
//! answer waits on its link meanwhile (BAP-16).

/// A question for the store: the next session index of the account whose ids carry
/// `account_half` (their high 32 bits, ENV-09).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexAsk {
    /// The core's name for the question; the answer carries it back.
    pub ticket: u64,
    /// The account's half of its session ids.
    pub account_half: u32,
}

/// The store's answer to an [`IndexAsk`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Indexed {
    /// The index to use, never 0.
    Next(u16),
    /// The store could not count: why. The process counts the index itself, as a host
    /// alone does.
    Failed(String),
}
