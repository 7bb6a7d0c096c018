//! The reply's version barrier (NS "The reply's version barrier"): a web-service reply that
//! completes and names a revision other than -1 parks its operation until the client's own
//! copy of the family-4 objects reaches that revision, so "a reply to a change must name
//! the revision of the object update that publishes the change, and that update must
//! follow" (WS-01). An operation still parked when the run ends hangs.
//!
//! The copy is the family-4 version of the client's store (`queuez.rs`); a reply naming a
//! revision the copy holds already parks nothing.

use crate::core::ClientCore;
use crate::rules::{Choice, Rule};
use vex_wire::bap::queuez::ACCOUNT_FAMILY;

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

    /// The operations still parked.
    pub(crate) fn parked(&self) -> &[Parked] {
        &self.0
    }
}

impl ClientCore {
    /// At the run's end: every operation still parked hangs (WS-01; advisory, as where the
    /// revision sits is the reply's shape, Vex's choice). A store that failed earlier
    /// applies nothing, so its first error is the finding, not this.
    pub(crate) fn judge_barrier(&mut self) {
        if self.store.failed() {
            return;
        }
        let held = self.store.version(ACCOUNT_FAMILY);
        for p in self.barrier.parked().to_vec() {
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

    fn op(revision: i32) -> Parked {
        Parked {
            opcode: 403,
            transaction: 3,
            revision,
            frame: 9,
        }
    }

    #[test]
    fn an_operation_waits_until_the_copy_reaches_its_revision() {
        let mut barrier = Barrier::default();
        barrier.park(op(3), Some(2));
        barrier.park(op(5), None);
        barrier.reached(2);
        assert_eq!(
            barrier.parked(),
            [op(3), op(5)],
            "version 2 is short of both"
        );
        barrier.reached(3);
        assert_eq!(barrier.parked(), [op(5)], "the revision itself releases");
        barrier.reached(6);
        assert!(barrier.parked().is_empty(), "a later version releases too");
    }

    #[test]
    fn a_revision_the_copy_holds_parks_nothing() {
        let mut barrier = Barrier::default();
        barrier.park(op(3), Some(3));
        barrier.park(op(2), Some(3));
        assert!(barrier.parked().is_empty());
    }
}
