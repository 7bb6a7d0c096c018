//! The snapshot requests of an activity client: the scripted message 18 (state refresh) or
//! 11 (start_new_activity) asks for the whole snapshot, and the host owes messages 1, 2 and
//! 12, then 5, in that order (SR "What each client message gets"; facts 4.14; HOST-03).

use super::ANSWER_GRACE_MS;
use crate::links::Outgoing;
use crate::rules::Rule;
use crate::verdict::Verdict;
use std::collections::VecDeque;
use vex_wire::activity::ids;
use vex_wire::time::Instant;

/// The snapshot a message 18 is owed on a private link, in order.
const SNAPSHOT: [u32; 4] = [
    ids::GLOBAL_ACTIVITY_STATE,
    ids::WORLD_GLOBALS_STATE,
    ids::REPLICATE_MEMBERSHIP,
    ids::SENSOR_AUTH_UPDATE,
];
/// The parts of one snapshot go out together: a part more than this after the one before
/// it is not part of the answer (SR "Answer what was asked": a request is never answered
/// in part).
const SNAPSHOT_GAP_MS: u64 = 100;
/// The bubble field of message 18 is an i32 with bias 2^31 (facts 4.14).
const BUBBLE_BIAS: i64 = 0x8000_0000;

/// Message 18 and the snapshot it is owed (SR "What each client message gets"; facts
/// 4.14).
#[derive(Debug, Default)]
pub(crate) struct Refresh {
    /// When the client sends message 18 (HOST-03).
    at: Option<Instant>,
    /// When the client sends message 11 (HOST-03).
    start_at: Option<Instant>,
    /// The request the client sent last, and when.
    asked: Option<(u32, Instant)>,
    /// The parts of the snapshot message 18 is still owed, in order.
    owed: VecDeque<u32>,
    /// When the last part of the snapshot arrived.
    last_part: Option<Instant>,
    /// The parts of the snapshot that arrived.
    received: Vec<u32>,
    /// The request went on service-8 discriminator 2: a snapshot it never gets is the
    /// host refusing that arm (HOST-10).
    on_two: bool,
}

/// Message 18's body: the membership revision the client holds and the bubble it stands
/// in (facts 4.14).
pub(super) fn state_refresh_body(revision: u32, bubble: u8) -> Vec<u8> {
    let mut body = revision.to_be_bytes().to_vec();
    body.extend_from_slice(&((i64::from(bubble) + BUBBLE_BIAS) as u32).to_be_bytes());
    body
}

impl Refresh {
    /// Message 18 is sent at `at` and message 11 at `start_at`, if the script sends them.
    pub(super) fn schedule(&mut self, at: Option<Instant>, start_at: Option<Instant>) {
        self.at = at;
        self.start_at = start_at;
    }

    /// When message 18 is due.
    pub(crate) fn due(&self) -> Option<Instant> {
        self.at
    }

    /// When message 11 is due.
    pub(crate) fn start_due(&self) -> Option<Instant> {
        self.start_at
    }

    /// Message 11 at `now`: the client's own selection, whose first fields are message
    /// 11's head (facts 4.14), `descriptor`'s bytes. The snapshot is owed as for 18 (with
    /// `default_client_activation` on, Sunrise's default).
    pub(crate) fn start_activity(
        &mut self,
        verdict: &mut Verdict,
        now: Instant,
        public: bool,
        descriptor: Vec<u8>,
    ) -> Outgoing {
        self.start_at = None;
        self.owe(verdict, ids::START_NEW_ACTIVITY, now, public);
        Outgoing {
            message: ids::START_NEW_ACTIVITY,
            body: descriptor,
        }
    }

    /// Request `msg` went out at `now`: the snapshot is owed, without message 12 on a
    /// `public` link (SR). A request before it that the host had time to answer and did
    /// not is judged first (HOST-03, or HOST-10 for one on discriminator 2).
    fn owe(&mut self, verdict: &mut Verdict, msg: u32, now: Instant, public: bool) {
        self.check_answered(verdict, now);
        self.on_two = false;
        self.asked = Some((msg, now));
        self.last_part = None;
        self.received.clear();
        self.owed = SNAPSHOT
            .into_iter()
            .filter(|&m| !(public && m == ids::REPLICATE_MEMBERSHIP))
            .collect();
    }

    /// Message 18 at `now` (see `Script::refresh_after_ms`): the membership revision the
    /// client holds and the bubble it stands in. On a `public` link message 12 is not part
    /// of the snapshot (SR).
    pub(crate) fn ask(
        &mut self,
        verdict: &mut Verdict,
        now: Instant,
        public: bool,
        revision: u32,
        bubble: u8,
    ) -> Outgoing {
        self.at = None;
        self.owe(verdict, ids::STATE_REFRESH, now, public);
        Outgoing {
            message: ids::STATE_REFRESH,
            body: state_refresh_body(revision, bubble),
        }
    }

    /// The request just asked went on service-8 discriminator 2 (HOST-10).
    pub(crate) fn sent_on_two(&mut self) {
        self.on_two = true;
    }

    /// The rule an unanswered snapshot breaks, and what the request was.
    fn owed_rule(&self) -> (Rule, &'static str) {
        if self.on_two {
            (
                Rule::Host10,
                " (sent on service-8 discriminator 2, which is legal)",
            )
        } else {
            (Rule::Host03, "")
        }
    }

    /// True when `msg` is the next part of a snapshot the host owes.
    pub(super) fn answers(&self, msg: u32) -> bool {
        self.owed.front() == Some(&msg)
    }

    /// After push `idx` of `msg` is applied: it may be the next part of the snapshot. A
    /// part the snapshot sent already, coming again before the snapshot ended, means the
    /// request was answered in part (SR "Answer what was asked": a request is never
    /// answered in part; HOST-03).
    pub(super) fn track(&mut self, verdict: &mut Verdict, now: Instant, idx: u64, msg: u32) {
        // a keepalive's message 1 between the request and its snapshot looks like the
        // snapshot's first part: the snapshot starts again at the next one, however long
        // after (the request and its answer may be on a slow wire)
        if self.received == [msg] && SNAPSHOT.first() == Some(&msg) {
            self.last_part = Some(now);
            return;
        }
        let stalled = self
            .last_part
            .is_some_and(|t| now.since(t) > SNAPSHOT_GAP_MS && !self.owed.is_empty());
        if stalled {
            return self.answered_in_part(
                verdict,
                idx,
                format!(
                    "message {msg} came {} ms after the last part",
                    now.since(self.last_part.unwrap_or(now))
                ),
            );
        }
        if self.answers(msg) {
            self.owed.pop_front();
            self.last_part = Some(now);
            self.received.push(msg);
            return;
        }
        if self.received.contains(&msg) && !self.owed.is_empty() {
            self.answered_in_part(verdict, idx, format!("message {msg} came again"));
        }
    }

    /// The snapshot stopped short of `owed`: a request answered in part (HOST-03).
    fn answered_in_part(&mut self, verdict: &mut Verdict, idx: u64, what: String) {
        let owed: Vec<u32> = self.owed.drain(..).collect();
        let asked = self.asked.map_or(0, |(m, _)| m);
        let (rule, how) = self.owed_rule();
        let reason = format!(
            "message {asked}'s snapshot{how} was answered in part: {what}, before messages {owed:?}"
        );
        verdict.violate(rule, Some(idx), None, reason);
    }

    /// At `now` (the deadline, or the next request): a snapshot the host had time to
    /// finish and did not (HOST-03).
    pub(super) fn check_answered(&self, verdict: &mut Verdict, now: Instant) {
        let Some((msg, at)) = self.asked else {
            return;
        };
        if now.since(at) >= ANSWER_GRACE_MS && !self.owed.is_empty() {
            let owed: Vec<u32> = self.owed.iter().copied().collect();
            let (rule, how) = self.owed_rule();
            let reason =
                format!("message {msg}'s snapshot{how} never sent messages {owed:?}, in order");
            verdict.violate(rule, None, None, reason);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A snapshot the host had less than the grace period to send is not judged; one
    /// sent in order clears the debt.
    #[test]
    fn an_unfinished_snapshot_is_judged_after_the_grace_period() {
        let (mut r, mut v) = (Refresh::default(), Verdict::new());
        r.ask(&mut Verdict::new(), Instant::default(), false, 0, 0);
        r.check_answered(&mut v, Instant::from_millis(ANSWER_GRACE_MS - 1));
        assert!(v.rules().is_empty());
        r.check_answered(&mut v, Instant::from_millis(ANSWER_GRACE_MS));
        assert_eq!(v.rules(), [Rule::Host03]);
        let (mut r, mut v) = (Refresh::default(), Verdict::new());
        r.ask(&mut Verdict::new(), Instant::default(), false, 0, 0);
        for msg in SNAPSHOT {
            r.track(&mut v, Instant::default(), 1, msg);
        }
        r.check_answered(&mut v, Instant::from_millis(ANSWER_GRACE_MS));
        assert!(v.rules().is_empty());
    }

    /// On a public link the snapshot is owed without message 12.
    #[test]
    fn a_public_link_is_owed_no_membership() {
        let mut r = Refresh::default();
        r.ask(&mut Verdict::new(), Instant::default(), true, 0, 0);
        assert!(r.answers(ids::GLOBAL_ACTIVITY_STATE));
        let mut v = Verdict::new();
        r.track(&mut v, Instant::default(), 1, ids::GLOBAL_ACTIVITY_STATE);
        r.track(&mut v, Instant::default(), 2, ids::WORLD_GLOBALS_STATE);
        assert!(r.answers(ids::SENSOR_AUTH_UPDATE));
    }

    /// A part of the snapshot sent again before the rest, e.g. a keepalive's message 1
    /// before the snapshot's message 5, is an answer in part, reported once.
    #[test]
    fn a_snapshot_broken_off_is_an_answer_in_part() {
        let (mut r, mut v) = (Refresh::default(), Verdict::new());
        r.ask(&mut Verdict::new(), Instant::default(), false, 0, 0);
        for (i, msg) in [1, 2, 12, 1, 5, 1].into_iter().enumerate() {
            r.track(&mut v, Instant::default(), i as u64, msg);
        }
        assert_eq!(v.rules(), [Rule::Host03]);
        r.check_answered(&mut v, Instant::from_millis(ANSWER_GRACE_MS));
        assert_eq!(v.rules(), [Rule::Host03], "reported once");
    }

    /// A part that comes long after the one before is not part of the answer: the 5 a
    /// later push brings does not finish a snapshot that stopped at 12.
    #[test]
    fn a_part_that_comes_late_is_an_answer_in_part() {
        let (mut r, mut v) = (Refresh::default(), Verdict::new());
        r.ask(&mut Verdict::new(), Instant::default(), false, 0, 0);
        for msg in [1, 2, 12] {
            r.track(&mut v, Instant::from_millis(10), 1, msg);
        }
        r.track(&mut v, Instant::from_millis(10 + SNAPSHOT_GAP_MS), 2, 5);
        assert!(v.rules().is_empty(), "within the gap");
        let (mut r, mut v) = (Refresh::default(), Verdict::new());
        r.ask(&mut Verdict::new(), Instant::default(), false, 0, 0);
        for msg in [1, 2, 12] {
            r.track(&mut v, Instant::from_millis(10), 1, msg);
        }
        r.track(&mut v, Instant::from_millis(11 + SNAPSHOT_GAP_MS), 2, 5);
        assert_eq!(v.rules(), [Rule::Host03]);
    }

    /// On a slow wire a keepalive's message 1 comes between the request and its snapshot,
    /// long before the snapshot: the snapshot starts at the next message 1. A lone message
    /// 1 followed long after by message 2 is still an answer in part.
    #[test]
    fn a_keepalive_long_before_the_snapshot_is_no_part_of_it() {
        let (mut r, mut v) = (Refresh::default(), Verdict::new());
        r.ask(&mut Verdict::new(), Instant::default(), false, 0, 0);
        r.track(&mut v, Instant::from_millis(300), 1, 1);
        for (i, msg) in [1, 2, 12, 5].into_iter().enumerate() {
            r.track(&mut v, Instant::from_millis(900), 2 + i as u64, msg);
        }
        r.check_answered(&mut v, Instant::from_millis(5 * ANSWER_GRACE_MS));
        assert!(v.rules().is_empty(), "{:?}", v.rules());
        let (mut r, mut v) = (Refresh::default(), Verdict::new());
        r.ask(&mut Verdict::new(), Instant::default(), false, 0, 0);
        r.track(&mut v, Instant::from_millis(300), 1, 1);
        r.track(&mut v, Instant::from_millis(900), 2, 2);
        assert_eq!(v.rules(), [Rule::Host03]);
    }

    /// On a public link message 12 is no part of the snapshot, so a table that comes
    /// during it (another member joined) breaks nothing.
    #[test]
    fn a_table_during_a_public_snapshot_is_no_part_of_it() {
        let (mut r, mut v) = (Refresh::default(), Verdict::new());
        r.ask(&mut Verdict::new(), Instant::default(), true, 0, 0);
        for (i, msg) in [1, 12, 2, 5].into_iter().enumerate() {
            r.track(&mut v, Instant::default(), i as u64, msg);
        }
        r.check_answered(&mut v, Instant::from_millis(ANSWER_GRACE_MS));
        assert!(v.rules().is_empty(), "{:?}", v.rules());
    }

    /// A request the host left unanswered is judged when the next one goes out, under the
    /// rule of its own arm: HOST-10 for discriminator 2, HOST-03 for the plain one; one
    /// asked less than the grace before is not.
    #[test]
    fn an_unanswered_request_is_judged_at_the_next() {
        let mut r = Refresh::default();
        r.ask(&mut Verdict::new(), Instant::default(), false, 0, 0);
        r.sent_on_two();
        let mut v = Verdict::new();
        r.ask(
            &mut v,
            Instant::from_millis(ANSWER_GRACE_MS - 1),
            false,
            0,
            0,
        );
        assert!(v.rules().is_empty(), "too soon to judge");
        r.sent_on_two();
        let mut v = Verdict::new();
        r.ask(
            &mut v,
            Instant::from_millis(3 * ANSWER_GRACE_MS),
            false,
            0,
            0,
        );
        assert_eq!(v.rules(), [Rule::Host10]);
        let mut v = Verdict::new();
        r.ask(
            &mut v,
            Instant::from_millis(5 * ANSWER_GRACE_MS),
            false,
            0,
            0,
        );
        assert_eq!(v.rules(), [Rule::Host03], "the flag belongs to one request");
    }

    /// The keepalive's message 1 arriving just before the snapshot is no part of it: the
    /// snapshot that follows is whole. Message 2 twice is still answered in part.
    #[test]
    fn a_keepalive_message_1_before_the_snapshot_is_not_a_repeat() {
        let mut r = Refresh::default();
        r.ask(&mut Verdict::new(), Instant::default(), false, 0, 0);
        let mut v = Verdict::new();
        let now = Instant::from_millis(1);
        for (idx, msg) in [1, 1, 2, 12, 5].into_iter().enumerate() {
            r.track(&mut v, now, idx as u64, msg);
        }
        assert!(v.rules().is_empty());
        r.check_answered(&mut v, Instant::from_millis(5_000));
        assert!(v.rules().is_empty(), "the snapshot was whole");
        r.ask(
            &mut Verdict::new(),
            Instant::from_millis(6_000),
            false,
            0,
            0,
        );
        let now = Instant::from_millis(6_001);
        for (idx, msg) in [1, 2, 2].into_iter().enumerate() {
            r.track(&mut v, now, idx as u64, msg);
        }
        assert_eq!(v.rules(), [Rule::Host03]);
    }
}
