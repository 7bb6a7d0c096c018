//! What a link was sent of its activity's member table, and what its client acknowledged
//! (SR "Timed sends that remain": the keepalive carries message 12 while the client has
//! not acknowledged the current revision; MEMBER-03).

/// The member table as one link's client holds it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TableLedger {
    /// The revision last sent, or owed since the join.
    sent: Option<u32>,
    /// The revision the client acknowledged with message 38.
    acknowledged: Option<u32>,
}

impl TableLedger {
    /// At a join: the activity's table at `current` is owed (the burst carries it, or the
    /// keepalive does), and nothing is acknowledged.
    pub fn joined(current: u32) -> Self {
        Self {
            sent: Some(current),
            acknowledged: None,
        }
    }

    /// Message 12 of `revision` went out.
    pub fn sent(&mut self, revision: u32) {
        self.sent = Some(revision);
    }

    /// Message 38: the client applied `revision`.
    pub fn acknowledge(&mut self, revision: u32) {
        self.acknowledged = Some(revision);
    }

    /// Once a table is owed: whether the client has yet to acknowledge `current`, the
    /// activity's revision.
    pub fn unacknowledged(&self, current: Option<u32>) -> Option<bool> {
        self.sent.map(|_| self.acknowledged != current)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nothing is owed before a join; after it the table is owed until the client
    /// acknowledges the activity's current revision, and owed again when it moves on.
    #[test]
    fn a_table_is_owed_until_its_revision_is_acknowledged() {
        assert_eq!(TableLedger::default().unacknowledged(Some(1)), None);
        let mut t = TableLedger::joined(3);
        assert_eq!(t.unacknowledged(Some(3)), Some(true));
        t.acknowledge(3);
        assert_eq!(t.unacknowledged(Some(3)), Some(false));
        t.sent(4);
        assert_eq!(t.unacknowledged(Some(4)), Some(true));
    }
}
