//! Why each message 5 comes: the first answers the client's first message 52, and every
//! later one follows a change the host owns or a request of the client's (SR "The steps",
//! "Answer what was asked"; AUTH-16).

use super::ANSWER_GRACE_MS;
use crate::rules::{Choice, Rule};
use crate::verdict::Verdict;
use vex_wire::activity::sensor_auth::RosterDelta;
use vex_wire::activity::slot::ClientRef;
use vex_wire::bits::Bits;
use vex_wire::time::Instant;

/// What a message 5 says, its prefix aside: the roster, and each block's slot and content.
pub(super) type Said = (Option<RosterDelta>, Vec<(ClientRef, Bits)>);

/// The first message 52, and the message 5s since.
#[derive(Debug, Default)]
pub(crate) struct AuthCause {
    /// When the client sent its first message 52.
    first_epoch_at: Option<Instant>,
    /// A message 5 arrived.
    seen: bool,
    /// What the last message 5 said.
    last: Option<Said>,
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
    /// when it answers a request of the client's or moved a bubble grant. One that says
    /// what the last one said, with no such cause, follows no change the host owns
    /// (AUTH-16).
    pub(super) fn on_applied(&mut self, verdict: &mut Verdict, idx: u64, said: Said, caused: bool) {
        if !caused && self.last.as_ref() == Some(&said) {
            let reason = "message 5 says what the last one said (the same roster and blocks), asked by nothing: it follows no change the host owns".to_string();
            verdict.violate(Rule::Auth16, Some(idx), None, reason);
        }
        self.last = Some(said);
    }

    /// At the deadline `now`: a first message 52 the host had time to answer with the
    /// first roster and did not (AUTH-16).
    pub(super) fn check_answered(&self, verdict: &mut Verdict, now: Instant) {
        if let Some(at) = self.first_epoch_at
            && !self.seen
            && now.since(at) >= ANSWER_GRACE_MS
        {
            let reason = "no message 5 answered the client's first message 52: the roster it is owed never came".to_string();
            verdict.violate(Rule::Auth16, None, None, reason);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first roster owed after the grace, not before; a repeat asked for is no breach,
    /// one unasked is.
    #[test]
    fn rosters_have_a_cause() {
        let (mut a, mut v) = (AuthCause::default(), Verdict::new());
        a.on_epoch_sent(Instant::default());
        a.check_answered(&mut v, Instant::from_millis(ANSWER_GRACE_MS - 1));
        assert!(v.rules().is_empty());
        a.check_answered(&mut v, Instant::from_millis(ANSWER_GRACE_MS));
        assert_eq!(v.rules(), [Rule::Auth16]);
        let said = |keys: Vec<u32>| -> Said {
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
        a.on_applied(&mut v, 1, said(vec![1]), false);
        a.on_applied(&mut v, 2, said(vec![1]), true);
        a.on_applied(&mut v, 3, said(vec![1, 2]), false);
        assert!(v.rules().is_empty());
        a.on_applied(&mut v, 4, said(vec![1, 2]), false);
        assert_eq!(v.rules(), [Rule::Auth16], "nothing changed");
        a.check_answered(&mut v, Instant::from_millis(ANSWER_GRACE_MS));
        assert_eq!(v.rules(), [Rule::Auth16], "the first roster came");
        let (mut a, mut v) = (AuthCause::default(), Verdict::new());
        a.on_epoch_sent(t);
        a.on_read(&mut v, Instant::from_millis(ANSWER_GRACE_MS + 1), 1);
        assert_eq!(v.rules(), [Rule::Auth16], "too late to answer the first 52");
    }
}
