//! The revisions of the message 12s a client applied, for MEMBER-07's "goes back to a
//! revision the client applied" (AH "replicate_membership": +1 per change), held as runs of
//! consecutive revisions: a host that publishes +1 per change leaves one run, so a life of
//! any length holds a few numbers, not one per table.

/// Revisions applied, as inclusive runs, in the order each began.
#[derive(Debug, Default)]
pub(super) struct Revisions(Vec<(u32, u32)>);

impl Revisions {
    /// `revision` was applied: the run it follows grows, or a new run begins (after a
    /// skip, a step back, or the wrap past `u32::MAX`, each a run of its own).
    pub(super) fn insert(&mut self, revision: u32) {
        if self.contains(revision) {
            return;
        }
        match self.0.last_mut() {
            Some((_, last)) if last.checked_add(1) == Some(revision) => *last = revision,
            _ => self.0.push((revision, revision)),
        }
    }

    /// True when `revision` was applied.
    pub(super) fn contains(&self, revision: u32) -> bool {
        self.0
            .iter()
            .any(|(first, last)| (*first..=*last).contains(&revision))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Revisions +1 apart, however many, are one run.
    #[test]
    fn a_revision_a_change_is_one_run() {
        let mut r = Revisions::default();
        for revision in 7..10_007 {
            r.insert(revision);
        }
        assert_eq!(r.0, [(7, 10_006)]);
        r.insert(u32::MAX);
        r.insert(0);
        assert_eq!(r.0, [(7, 10_006), (u32::MAX, u32::MAX), (0, 0)], "the wrap");
    }

    proptest! {
        /// Whatever the order, a revision is held exactly when it was inserted.
        #[test]
        fn holds_what_was_inserted(inserted in proptest::collection::vec(0u32..40, 0..60), asked in 0u32..40) {
            let mut r = Revisions::default();
            for revision in &inserted {
                r.insert(*revision);
            }
            prop_assert_eq!(r.contains(asked), inserted.contains(&asked));
        }
    }
}
