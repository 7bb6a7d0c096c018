//! Why each message 5 comes: the first answers the client's first message 52, and every
//! later one follows a change the host owns or a request of the client's (SR "The steps",
//! "Answer what was asked"; AUTH-16).

use crate::ANSWER_GRACE_MS;
use crate::had_time_to_answer;
use crate::rules::{Choice, Rule};
use crate::verdict::Verdict;
use std::collections::BTreeMap;
use vex_wire::activity::sensor_auth::RosterDelta;
use vex_wire::activity::slot::ClientRef;
use vex_wire::bits::Bits;
use vex_wire::time::Instant;

/// What a message 5 says, its prefix aside: the roster, and each block's slot and content.
pub(super) type Said<'a> = (Option<&'a RosterDelta>, &'a [(ClientRef, Bits)]);

/// The first message 52, and the message 5s since.
#[derive(Debug, Default)]
pub(crate) struct AuthCause {
    /// When the client sent its first message 52.
    first_epoch_at: Option<Instant>,
    /// A message 5 arrived.
    seen: bool,
    /// A message 5 was applied: the first answers the first message 52, whatever it holds.
    applied: bool,
    /// The last roster applied.
    roster: Option<RosterDelta>,
    /// The last block applied to each slot.
    blocks: BTreeMap<ClientRef, Bits>,
}

impl AuthCause {
    /// A message 52 went out at `now`.
    pub(crate) fn on_epoch_sent(&mut self, now: Instant) {
        self.first_epoch_at.get_or_insert(now);
    }

    /// A message 5 arrives, `idx` at `now`, whatever it holds: the first must answer the
    /// first message 52 (AUTH-16); one that comes a second after it may answer something
    /// else, which is Vex's reading of "late" (advisory).
    pub(super) fn on_read(&mut self, verdict: &mut Verdict, now: Instant, idx: u64) {
        if let (false, Some(at)) = (self.seen, self.first_epoch_at)
            && now.since(at) > ANSWER_GRACE_MS
        {
            let reason = format!(
                "the first message 5 comes {} ms after the client's first message 52: it did not answer it",
                now.since(at)
            );
            let choice = Choice::FirstRosterLatency;
            verdict.advise(Rule::Auth16, choice, Some(idx), None, reason);
        }
        self.seen = true;
    }

    /// The roster and blocks `said` of message 5 `idx`, which the client applied; `caused`
    /// when it answers a request of the client's or moved a bubble grant. One after the
    /// first (which answers the first message 52) with no such cause that changes nothing the client holds (its roster absent or the one applied
    /// last, every block the one its slot got last) follows no change the host owns
    /// (AUTH-16).
    pub(super) fn on_applied(
        &mut self,
        verdict: &mut Verdict,
        idx: u64,
        said: Said<'_>,
        caused: bool,
    ) {
        let (roster, blocks) = said;
        let new_roster = roster.is_some() && roster != self.roster.as_ref();
        // what it holds already is kept as it is: a repeat copies nothing
        let mut new_blocks = 0;
        for (slot, bits) in blocks {
            match self.blocks.get_mut(slot) {
                Some(held) if held == bits => {}
                Some(held) => {
                    held.copy_from(bits);
                    new_blocks += 1;
                }
                None => {
                    self.blocks.insert(*slot, bits.clone());
                    new_blocks += 1;
                }
            }
        }
        if self.applied && !caused && !new_roster && new_blocks == 0 {
            let count = blocks.len();
            let key = crate::verdict::key_of([u64::from(roster.is_some()), count as u64]);
            verdict.violate_again(Rule::Auth16, (Some(idx), None), key, || {
                format!(
                    "message 5 changes nothing the client holds (its roster {}, its {count} blocks each the one its slot got last), asked by nothing: it follows no change the host owns",
                    if roster.is_some() {
                        "the one applied last"
                    } else {
                        "absent"
                    },
                )
            });
        }
        self.applied = true;
        if new_roster {
            self.roster = roster.cloned();
        }
    }

    /// The client swept its roster (a region report): it holds nothing the next message 5
    /// could repeat.
    pub(crate) fn forget(&mut self) {
        self.roster = None;
        self.blocks.clear();
    }

    /// At the deadline `now`: a first message 52 the host had time to answer with the
    /// first roster and did not (AUTH-16).
    pub(super) fn check_answered(&self, verdict: &mut Verdict, now: Instant) {
        if let Some(at) = self.first_epoch_at
            && !self.seen
            && had_time_to_answer(at, now)
        {
            let reason = "no message 5 answered the client's first message 52: the roster it is owed never came".to_string();
            verdict.violate(Rule::Auth16, None, None, reason);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a message 5 says, owned.
    type Owned = (Option<RosterDelta>, Vec<(ClientRef, Bits)>);

    /// `said` applied as message `idx`.
    fn applied(a: &mut AuthCause, v: &mut Verdict, idx: u64, said: Owned, caused: bool) {
        a.on_applied(v, idx, (said.0.as_ref(), &said.1), caused);
    }

    /// The first roster owed after the grace, not before; a repeat asked for is no breach,
    /// one unasked is, and so is one after the client swept its roster.
    #[test]
    fn rosters_have_a_cause() {
        let (mut a, mut v) = (AuthCause::default(), Verdict::new());
        a.on_epoch_sent(Instant::default());
        a.check_answered(&mut v, Instant::from_millis(ANSWER_GRACE_MS - 1));
        assert!(v.rules().is_empty());
        a.check_answered(&mut v, Instant::from_millis(ANSWER_GRACE_MS));
        assert_eq!(v.rules(), [Rule::Auth16]);
        let said = |keys: Vec<u32>| -> Owned {
            let n = keys.len();
            let roster = RosterDelta {
                keys,
                mask: RosterDelta::mask_for(n),
                states: vec![1; n],
                sub_blocks: None,
            };
            (Some(roster), Vec::new())
        };
        let t = Instant::default();
        let (mut a, mut v) = (AuthCause::default(), Verdict::new());
        a.on_epoch_sent(t);
        a.on_read(&mut v, t, 1);
        applied(&mut a, &mut v, 1, said(vec![1]), false);
        applied(&mut a, &mut v, 2, said(vec![1]), true);
        applied(&mut a, &mut v, 3, said(vec![1, 2]), false);
        assert!(v.rules().is_empty());
        applied(&mut a, &mut v, 4, said(vec![1, 2]), false);
        assert_eq!(v.rules(), [Rule::Auth16], "nothing changed");
        a.forget();
        applied(&mut a, &mut v, 5, said(vec![1, 2]), false);
        assert_eq!(v.rules(), [Rule::Auth16], "the client held nothing");
        a.check_answered(&mut v, Instant::from_millis(ANSWER_GRACE_MS));
        assert_eq!(v.rules(), [Rule::Auth16], "the first roster came");
        let (mut a, mut v) = (AuthCause::default(), Verdict::new());
        a.on_epoch_sent(t);
        a.on_read(&mut v, Instant::from_millis(ANSWER_GRACE_MS + 1), 1);
        assert_eq!(v.rules(), [Rule::Auth16], "too late to answer the first 52");
    }

    /// AUTH-16 on blocks: a message 5 whose blocks each repeat what their slot got last,
    /// in any earlier message, is caught with its roster absent or repeated; one new bit in
    /// any block, or a new roster, is a change.
    #[test]
    fn a_message_5_that_repeats_held_blocks_is_caught() {
        let slot = |index| ClientRef {
            key: 7,
            slot_type: 3,
            index,
        };
        let bits = |v: u8| Bits {
            bytes: vec![v],
            bit_len: 8,
        };
        let roster = RosterDelta {
            keys: vec![7],
            mask: RosterDelta::mask_for(1),
            states: vec![1],
            sub_blocks: None,
        };
        let (mut a, mut v) = (AuthCause::default(), Verdict::new());
        applied(
            &mut a,
            &mut v,
            1,
            (Some(roster.clone()), vec![(slot(1), bits(1))]),
            false,
        );
        applied(&mut a, &mut v, 2, (None, vec![(slot(2), bits(2))]), false);
        assert!(v.rules().is_empty(), "each carries something new");
        applied(&mut a, &mut v, 3, (None, vec![(slot(1), bits(3))]), false);
        applied(
            &mut a,
            &mut v,
            4,
            (None, vec![(slot(1), bits(3)), (slot(2), bits(3))]),
            false,
        );
        assert!(v.rules().is_empty(), "one new block is a change");
        let mut other = roster.clone();
        other.states[0] = 2;
        applied(
            &mut a,
            &mut v,
            5,
            (Some(other), vec![(slot(1), bits(3))]),
            false,
        );
        assert!(v.rules().is_empty(), "a new state byte is a change");
        applied(
            &mut a,
            &mut v,
            6,
            (None, vec![(slot(1), bits(3)), (slot(2), bits(3))]),
            false,
        );
        assert_eq!(v.rules(), [Rule::Auth16], "every block held already");
        applied(&mut a, &mut v, 7, (None, Vec::new()), false);
        assert_eq!(
            v.rules(),
            [Rule::Auth16, Rule::Auth16],
            "an empty message 5"
        );
        applied(&mut a, &mut v, 8, (None, Vec::new()), true);
        assert_eq!(v.rules().len(), 2, "asked for");
    }
}
