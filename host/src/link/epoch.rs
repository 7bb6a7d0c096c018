//! The replication epoch a link's client holds, and whether a new one waits for the
//! keepalive (AH "Hazards for a host": message 44's epoch is the previous plus one;
//! SR "Timed sends that remain"; EPOCH-01).

/// The replication epoch as one link's client holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EpochLedger {
    /// join_result's initial epoch, then each message 44's.
    held: u8,
    /// The peers the member replicates with changed: the keepalive carries message 44.
    waiting: bool,
}

impl EpochLedger {
    /// At a join: the client holds message 4's `initial` epoch, and nothing waits.
    pub fn joined(initial: u8) -> Self {
        Self {
            held: initial,
            waiting: false,
        }
    }

    /// The member's peers or advertised host changed: a new epoch is owed.
    pub fn wait(&mut self) {
        self.waiting = true;
    }

    /// The epoch the client holds, when a new one waits to follow it.
    pub fn waiting(&self) -> Option<u8> {
        self.waiting.then_some(self.held)
    }

    /// Message 44 of `epoch` went out: the client holds it, and nothing waits.
    pub fn advanced(&mut self, epoch: u8) {
        self.held = epoch;
        self.waiting = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A wait names the epoch held, which message 44 then moves on, once.
    #[test]
    fn an_epoch_waits_once_and_moves_on() {
        let mut e = EpochLedger::joined(255);
        assert_eq!(e.waiting(), None);
        e.wait();
        e.wait();
        assert_eq!(e.waiting(), Some(255));
        e.advanced(0);
        assert_eq!(e.waiting(), None);
        e.wait();
        assert_eq!(e.waiting(), Some(0));
    }
}
