//! The simulation queue's per-tick budget: every message 5 of one tick shares 471,859
//! bytes, and a body that does not fit is refused, after which message 5 is ignored for
//! the rest of the session (AH "The activity envelope"; AUTH-10). The ticks are the
//! client's own, 1000 / 30 ms; the other events of a tick are the client's and not
//! counted here.

use vex_wire::activity::sensor_auth::BODY_BUDGET;
use vex_wire::time::Instant;

/// Ticks a second (AH "world_globals_state": the client's default, 1000 / 30 ms).
const TICKS_PER_SECOND: u64 = 30;

/// The bytes of message 5 taken in the current tick.
#[derive(Debug, Default)]
pub(crate) struct TickBudget {
    tick: u64,
    taken: usize,
}

impl TickBudget {
    /// A message 5 of `len` bytes at `now`: the bytes the tick held before it, when it
    /// does not fit beside them.
    pub(super) fn take(&mut self, now: Instant, len: usize) -> Result<(), usize> {
        let tick = now.millis() * TICKS_PER_SECOND / 1000;
        if tick != self.tick {
            (self.tick, self.taken) = (tick, 0);
        }
        if self.taken + len > BODY_BUDGET {
            return Err(self.taken);
        }
        self.taken += len;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two bodies that each fit do not fit one tick together; in the next tick they do.
    #[test]
    fn the_budget_is_shared_within_a_tick() {
        let mut b = TickBudget::default();
        let half = BODY_BUDGET / 2 + 1;
        assert_eq!(b.take(Instant::from_millis(0), half), Ok(()));
        assert_eq!(
            b.take(Instant::from_millis(33), half),
            Err(half),
            "the same tick"
        );
        assert_eq!(
            b.take(Instant::from_millis(34), half),
            Ok(()),
            "the next tick"
        );
        assert_eq!(b.take(Instant::from_millis(40), BODY_BUDGET + 1), Err(half));
    }

    /// AUTH-10's boundary: a body of exactly 471,859 bytes fits an empty tick, and one
    /// of 471,860 does not (its rule, through the dispatch, is tested there).
    #[test]
    fn a_body_of_exactly_the_budget_fits() {
        assert_eq!(BODY_BUDGET, 471_859);
        let mut b = TickBudget::default();
        assert_eq!(b.take(Instant::from_millis(0), BODY_BUDGET), Ok(()));
        assert_eq!(
            b.take(Instant::from_millis(0), 1),
            Err(BODY_BUDGET),
            "nothing left"
        );
        let mut b = TickBudget::default();
        assert_eq!(b.take(Instant::from_millis(0), BODY_BUDGET + 1), Err(0));
        assert_eq!(
            b.take(Instant::from_millis(0), BODY_BUDGET),
            Ok(()),
            "nothing taken"
        );
    }
}
