//! The reply's version barrier (NS "The reply's version barrier"): a web-service reply that
//! completes and names a revision other than -1 parks its operation until the client's own
//! copy of the family-4 objects reaches that revision, so "a reply to a change must name
//! the revision of the object update that publishes the change, and that update must
//! follow" (WS-01). An operation still parked when the run ends hangs.
//!
//! The copy is the family-4 version of the client's store (`queuez.rs`); a reply naming a
//! revision the copy holds already parks nothing.

use crate::core::ClientCore;
use crate::had_time_to_answer;
use crate::rules::{Choice, Rule};
use vex_wire::bap::queuez::ACCOUNT_FAMILY;
use vex_wire::time::Instant;

/// An operation parked on a revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Parked {
    /// The web-service opcode.
    pub(crate) opcode: u16,
    /// Its transaction id.
    pub(crate) transaction: u32,
    /// The revision it waits for.
    pub(crate) revision: i32,
    /// The frame of the reply that named it.
    pub(crate) frame: u64,
    /// When that reply was read.
    pub(crate) at: Instant,
}

/// The operations parked, oldest first.
#[derive(Debug, Clone, Default)]
pub(crate) struct Barrier(Vec<Parked>);

impl Barrier {
    /// `op` waits unless `held`, the copy's version, has reached its revision already.
    pub(crate) fn park(&mut self, op: Parked, held: Option<i32>) {
        if held.is_none_or(|v| v < op.revision) {
            self.0.push(op);
        }
    }

    /// The copy reached `version`: the operations waiting for it or less go on.
    pub(crate) fn reached(&mut self, version: i32) {
        self.0.retain(|p| p.revision > version);
    }

    /// The operations still parked at the run's end `now` that were parked at least
    /// [`crate::ANSWER_GRACE_MS`] before it: a later one's update may still be on the wire.
    pub(crate) fn hung(&self, now: Instant) -> impl Iterator<Item = Parked> + '_ {
        let hung = move |p: &&Parked| had_time_to_answer(p.at, now);
        self.0.iter().filter(hung).copied()
    }
}

impl ClientCore {
    /// At the run's end `now`: every operation still parked hangs (WS-01; advisory, as
    /// where the revision sits is the reply's shape, Vex's choice), but one parked in the
    /// run's last second ([`Barrier::hung`]). A store that failed earlier applies nothing,
    /// so its first error is the finding, not this.
    pub(crate) fn judge_barrier(&mut self, now: Instant) {
        if self.store.failed() {
            return;
        }
        let held = self.store.version(ACCOUNT_FAMILY);
        let hung: Vec<Parked> = self.barrier.hung(now).collect();
        for p in hung {
            let copy = held.map_or("no family-4 update".to_string(), |v| format!("version {v}"));
            let reason = format!(
                "opcode {} (transaction {}) completed naming revision {} of the family-4 objects, and the run ended with the client's copy at {copy}: the operation stays parked (the update that publishes a change must follow its reply)",
                p.opcode, p.transaction, p.revision
            );
            self.verdict.advise(
                Rule::Ws01,
                Choice::WebServiceReplyShapes,
                Some(p.frame),
                None,
                reason,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ANSWER_GRACE_MS;

    fn op(revision: i32) -> Parked {
        Parked {
            opcode: 403,
            transaction: 3,
            revision,
            frame: 9,
            at: Instant::from_millis(5_000),
        }
    }

    /// The operations still parked, however recently.
    fn parked(barrier: &Barrier) -> Vec<Parked> {
        barrier.hung(Instant::from_millis(u64::MAX)).collect()
    }

    #[test]
    fn an_operation_waits_until_the_copy_reaches_its_revision() {
        let mut barrier = Barrier::default();
        barrier.park(op(3), Some(2));
        barrier.park(op(5), None);
        barrier.reached(2);
        assert_eq!(
            parked(&barrier),
            [op(3), op(5)],
            "version 2 is short of both"
        );
        barrier.reached(3);
        assert_eq!(parked(&barrier), [op(5)], "the revision itself releases");
        barrier.reached(6);
        assert!(parked(&barrier).is_empty(), "a later version releases too");
    }

    #[test]
    fn a_revision_the_copy_holds_parks_nothing() {
        let mut barrier = Barrier::default();
        barrier.park(op(3), Some(3));
        barrier.park(op(2), Some(3));
        assert!(parked(&barrier).is_empty());
    }

    /// WS-01 at a run's end: an operation parked less than [`ANSWER_GRACE_MS`] before the
    /// end may have its update on the wire and does not hang; one parked that long does.
    #[test]
    fn an_operation_parked_just_before_the_end_does_not_hang() {
        let mut barrier = Barrier::default();
        barrier.park(op(3), None);
        let hung_at = |end: u64| barrier.hung(Instant::from_millis(end)).count();
        assert_eq!(hung_at(5_000 + ANSWER_GRACE_MS - 1), 0, "within the grace");
        assert_eq!(hung_at(5_000 + ANSWER_GRACE_MS), 1);
    }
}
