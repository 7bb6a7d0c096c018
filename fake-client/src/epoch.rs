//! Message 44, advance_replication_epoch: an 8-bit epoch and one abort bit, checked as the
//! client applies them (AH "Hazards for a host"; EPOCH-01, EPOCH-02).

use crate::core::ClientCore;
use crate::rules::Rule;
use vex_wire::activity::small::AdvanceEpoch;

/// Bit offset of the abort bit, after the 8-bit epoch.
const ABORT_BIT: usize = 8;

impl ClientCore {
    /// The abort bit sets the permanent give-up flag (EPOCH-02); the epoch must be the one
    /// the client holds plus one, or the client ends with "incorrect epoch sequence"
    /// (EPOCH-01). The client starts at join_result's initial epoch.
    pub(crate) fn on_advance_epoch(&mut self, idx: u64, payload: &[u8]) {
        let f = Some(idx);
        let Ok(m) = AdvanceEpoch::decode(payload) else {
            return tracing::warn!(frame = idx, "message 44 does not decode; dropped (BODY-04)");
        };
        let Some(slot) = &mut self.slot else {
            return;
        };
        let held = slot.replication_epoch;
        let next = held.wrapping_add(1);
        if m.epoch == next {
            slot.replication_epoch = next;
        }
        if m.abort {
            let reason = "abort bit set: the give-up flag is permanent, and message 5 is ignored for the rest of the session".to_string();
            self.violate(Rule::Epoch02, f, Some(ABORT_BIT), reason);
        }
        if m.epoch != next {
            let reason = format!(
                "epoch {} while the client holds {held}: only {next} follows; the client ends with incorrect epoch sequence",
                m.epoch
            );
            self.violate(Rule::Epoch01, f, Some(0), reason);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Outcome;
    use crate::test_client::joined;

    fn client_at(epoch: u8) -> ClientCore {
        let mut c = joined();
        if let Some(slot) = c.slot.as_mut() {
            slot.replication_epoch = epoch;
        }
        c
    }

    fn body(epoch: u8, abort: bool) -> Vec<u8> {
        AdvanceEpoch { epoch, abort }.encode()
    }

    /// The epoch is 8 bits: 0 follows 255; the same epoch again ends the client.
    #[test]
    fn the_epoch_wraps_and_a_repeat_ends_the_client() {
        let mut c = client_at(255);
        c.on_advance_epoch(1, &body(0, false));
        assert!(c.violations().is_empty());
        c.on_advance_epoch(2, &body(0, false));
        assert_eq!(c.violations()[0].rule, Rule::Epoch01);
        assert!(matches!(c.outcome(), Outcome::Ended { .. }));
    }

    /// The abort bit is reported and sets the give-up flag even with the right epoch,
    /// and the epoch still advances.
    #[test]
    fn the_abort_bit_sets_the_give_up_flag_and_the_epoch_advances() {
        let mut c = client_at(7);
        c.on_advance_epoch(1, &body(8, true));
        let rules: Vec<Rule> = c.violations().iter().map(|v| v.rule).collect();
        assert_eq!(rules, [Rule::Epoch02]);
        assert_eq!(c.gave_up, Some(Rule::Epoch02));
        c.on_advance_epoch(2, &body(9, false));
        assert_eq!(c.violations().len(), 1);
    }
}
