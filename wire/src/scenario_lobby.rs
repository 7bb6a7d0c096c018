//! What the lobby serves before the activity, as a scenario holds it: the feature names
//! SignOn gives every account, and per account what SignOn answers, attempt by attempt
//! (NS "SignOn", "The other outcomes"), so a team can test each arm its client meets.
//!
//! ```toml
//! [lobby]
//! features = ["use_hardwipe_tokens"]   # up to eight (SIGNON-05)
//! items = ["0x1000000000000001"]        # the item instances the character holds
//!
//! [[lobby.account]]                     # what SignOn answers this Steam id, in order;
//! steam_id = "76561197960287930"        # the last answer repeats
//! signon = [
//!   { outcome = "queued", position = 12, seconds_remaining = 30, retry_seconds = 1 },
//!   { outcome = "throttled", message = "busy", retry_seconds = 0 },
//!   { outcome = "success" },
//! ]
//! ```

use serde::Deserialize;

/// The most feature names SignOn carries (NS "SignOn").
pub const MAX_FEATURES: usize = 8;

/// The lobby's part of a scenario.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lobby {
    /// The feature names every success carries (SIGNON-05).
    pub features: Vec<String>,
    /// Accounts whose SignOn answers are set; any other account signs on at once.
    pub accounts: Vec<Account>,
    /// The item instances the player's character holds when the lobby's store is new: a
    /// web-service equip (403) names one (NS "Web-service RPC, services 10 and 11").
    pub items: Vec<u64>,
}

impl Lobby {
    /// What SignOn answers `steam_id`'s attempt number `attempt` (0 first): the account's
    /// answers in order, the last repeating; success for an account not listed.
    pub fn answer(&self, steam_id: u64, attempt: usize) -> SignOnAnswer {
        self.accounts
            .iter()
            .find(|a| a.steam_id == steam_id)
            .and_then(|a| a.signon.get(attempt).or(a.signon.last()))
            .cloned()
            .unwrap_or(SignOnAnswer::Success)
    }
}

/// An account and what SignOn answers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    /// The Steam id the request's field 22 names.
    pub steam_id: u64,
    /// The answers, attempt by attempt.
    pub signon: Vec<SignOnAnswer>,
}

/// One SignOn answer: an outcome arm of the response (NS "The other outcomes").
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case", deny_unknown_fields)]
pub enum SignOnAnswer {
    /// The session token, the BAP address and the hello keys.
    Success,
    /// Wait in the queue; a zero keeps the client's previous value (SIGNON-07).
    Queued {
        /// The place in the queue.
        position: u32,
        /// The time remaining, seconds.
        seconds_remaining: u32,
        /// When to ask again, seconds.
        retry_seconds: u32,
        /// Picks the message the player sees.
        #[serde(default)]
        server_offline: bool,
    },
    /// An error whose reason picks the client's terminal state (SIGNON-09).
    Error {
        /// The reason.
        reason: u32,
        /// The title; shown only with a body (SIGNON-10).
        title: Option<String>,
        /// The body.
        body: Option<String>,
    },
    /// Access denied, user action required: no sub-message.
    Denied,
    /// Retry later; no delay means 60 s, zero means zero (SIGNON-08).
    Throttled {
        /// The message.
        message: String,
        /// The retry delay, seconds.
        retry_seconds: Option<u32>,
    },
}
