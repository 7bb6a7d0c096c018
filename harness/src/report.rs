//! What one run of the emulated client against a host came to.

use crate::transcript::Transcript;
use vex_fake_client::{ClientCore, Outcome, StatusLine, Violation};
use vex_wire::time::Instant;

/// The result of one run.
#[derive(Debug, Clone)]
pub struct RunReport {
    /// How the client's run ended.
    pub outcome: Outcome,
    /// The status line at the end.
    pub status: StatusLine,
    /// Every violation, in order.
    pub violations: Vec<Violation>,
    /// Message-5 bodies the client applied.
    pub rosters_applied: u32,
    /// Every frame.
    pub transcript: Transcript,
    /// How long the run lasted, in (virtual or real) milliseconds.
    pub elapsed_ms: u64,
}

impl RunReport {
    /// The report of a client whose run ended at `end`, with the frames it exchanged.
    pub fn of(client: &ClientCore, mut transcript: Transcript, end: Instant) -> Self {
        transcript.ended_at = Some(end);
        Self {
            outcome: client.outcome().clone(),
            status: client.status(),
            violations: client.violations().to_vec(),
            rosters_applied: client.rosters_applied(),
            transcript,
            elapsed_ms: end.millis(),
        }
    }

    /// True when some violation has rule id `id`.
    pub fn has_violation(&self, id: &str) -> bool {
        self.violations.iter().any(|v| v.rule.id() == id)
    }
}
