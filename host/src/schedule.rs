//! What the host does on its own clock: the keepalive every member's link gets (SR "Timed
//! sends that remain"), and the commits of the host program, each at its time after an
//! activity's first join (SR "Where mission scripts plug in").

use crate::world::WorldRequest;

/// The keepalive push interval after a join (SR "Timed sends that remain": every 2 s).
pub const KEEPALIVE_INTERVAL_MS: u64 = 2000;

/// Requests that commit together, `after_ms` after an activity's first join.
#[derive(Debug, Clone, PartialEq)]
pub struct TimedCommit {
    /// Milliseconds after the activity's first join.
    pub after_ms: u64,
    /// The requests, committed together.
    pub requests: Vec<WorldRequest>,
}
