//! A change the lobby asks its store to keep, and the store's answer: the sans-IO seam
//! between the core and a database. The core hands out each [`Write`] by
//! `HostCore::poll_write` and acts on it only when `HostCore::handle_written` says it is
//! kept: the web-service reply and the service-123 update that publishes the change go out
//! after the commit, never before (NS "The reply's version barrier": the reply names the
//! revision of the update that follows).

use super::stored::{StoredAccount, StoredObject};

/// A change to one account, kept whole or not at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Write {
    /// The core's name for the write; the answer carries it back.
    pub ticket: u64,
    /// The account changed.
    pub account: u64,
    /// What changes.
    pub change: Change,
}

/// What a [`Write`] changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The family-4 objects become `objects` and the revision moves from `from` to
    /// `from + 1`; a store whose revision is not `from` refuses (another writer was first).
    Objects {
        /// The revision the change was made on.
        from: u64,
        /// The family-4 objects after the change, every one.
        objects: Vec<StoredObject>,
    },
    /// One more Investment sign-in (web-service 503): the count becomes `sign_ins`; a store
    /// whose count is not one less refuses (another writer was first).
    SignIn {
        /// The count after this sign-in.
        sign_ins: u64,
    },
}

/// The store's answer to a [`Write`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    /// Kept: the change is durable.
    Kept,
    /// Not kept: another writer changed the account first (another host process on the
    /// same database). The account as the store holds it now; the call is made again on it.
    Superseded(StoredAccount),
    /// Not kept, and nothing of it is: why.
    Refused(String),
}
