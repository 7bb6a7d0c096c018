//! The snapshot requests of an activity client: the scripted message 18 (state refresh) or
//! 11 (start_new_activity) asks for the whole snapshot, and the host owes messages 1, 2 and
//! 12, then 5, in that order (SR "What each client message gets"; facts 4.14; HOST-03).

use crate::had_time_to_answer;
use crate::links::Outgoing;
use crate::rules::{Choice, Rule};
use crate::verdict::Verdict;
use std::collections::VecDeque;
use vex_wire::activity::body::Body;
use vex_wire::activity::ids;
use vex_wire::activity::small::StateRefresh;
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
/// in part). How long "together" is, the pages do not say: a finding on it is advisory.
const SNAPSHOT_GAP_MS: u64 = 100;

/// Message 18 and 11, and the snapshots they are owed, oldest first (SR "What each client
/// message gets"; facts 4.14). A host answers them in order, each whole, however long it
/// takes: a request is judged unanswered only at the run's end.
#[derive(Debug, Default)]
pub(crate) struct Refresh {
    /// When the client sends message 18 (HOST-03).
    at: Option<Instant>,
    /// When the client sends message 11 (HOST-03).
    start_at: Option<Instant>,
    /// The snapshots owed, oldest first.
    owed: VecDeque<Owed>,
}

/// One request's snapshot.
#[derive(Debug)]
struct Owed {
    /// The request, and when it went out.
    msg: u32,
    at: Instant,
    /// The parts still owed, in order.
    parts: VecDeque<u32>,
    /// The parts that arrived.
    received: Vec<u32>,
    /// When the last part arrived.
    last_part: Option<Instant>,
    /// How the request went: a snapshot it never gets is the host refusing that form.
    form: Form,
}

/// The form a snapshot request went in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// The plain message 18 or 11 (HOST-03).
    Plain,
    /// On service-8 discriminator 2, which is legal (HOST-10).
    DiscriminatorTwo,
    /// With bytes past its body, which the client's own decoder takes (BODY-07).
    TrailingBytes,
}

impl Owed {
    /// The rule an unanswered snapshot breaks, and what the request was.
    fn rule(&self) -> (Rule, &'static str) {
        match self.form {
            Form::Plain => (Rule::Host03, ""),
            Form::DiscriminatorTwo => (
                Rule::Host10,
                " (sent on service-8 discriminator 2, which is legal)",
            ),
            Form::TrailingBytes => (
                Rule::Body07,
                " (with 4 bytes past its body, which the client's own decoder takes)",
            ),
        }
    }
}

/// Message 18's body: the membership revision the client holds and the bubble it stands
/// in (facts 4.14).
pub(super) fn state_refresh_body(revision: u32, bubble: u8) -> Vec<u8> {
    let request = StateRefresh {
        membership_revision: revision,
        bubble: bubble.into(),
    };
    request.encode().unwrap_or_default() // 64 bits: never fails
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
        now: Instant,
        public: bool,
        descriptor: Vec<u8>,
    ) -> Outgoing {
        self.start_at = None;
        self.owe(ids::START_NEW_ACTIVITY, now, public);
        Outgoing {
            message: ids::START_NEW_ACTIVITY,
            body: descriptor,
        }
    }

    /// Request `msg` went out at `now`: its snapshot is owed after those before it,
    /// without message 12 on a `public` link (SR).
    fn owe(&mut self, msg: u32, now: Instant, public: bool) {
        let parts = SNAPSHOT
            .into_iter()
            .filter(|&m| !(public && m == ids::REPLICATE_MEMBERSHIP))
            .collect();
        self.owed.push_back(Owed {
            msg,
            at: now,
            parts,
            received: Vec::new(),
            last_part: None,
            form: Form::Plain,
        });
    }

    /// Message 18 at `now` (see `Script::refresh_after_ms`): the membership revision the
    /// client holds and the bubble it stands in. On a `public` link message 12 is not part
    /// of the snapshot (SR).
    pub(crate) fn ask(
        &mut self,
        now: Instant,
        public: bool,
        revision: u32,
        bubble: u8,
    ) -> Outgoing {
        self.at = None;
        self.owe(ids::STATE_REFRESH, now, public);
        Outgoing {
            message: ids::STATE_REFRESH,
            body: state_refresh_body(revision, bubble),
        }
    }

    /// The request just asked went on service-8 discriminator 2 (HOST-10).
    pub(crate) fn sent_on_two(&mut self) {
        if let Some(o) = self.owed.back_mut() {
            o.form = Form::DiscriminatorTwo;
        }
    }

    /// The request just asked carries bytes past its body (BODY-07).
    pub(crate) fn sent_with_trailing_bytes(&mut self) {
        if let Some(o) = self.owed.back_mut() {
            o.form = Form::TrailingBytes;
        }
    }

    /// True when `msg` is the next part of the oldest snapshot the host owes.
    pub(super) fn answers(&self, msg: u32) -> bool {
        self.answering(msg).is_some()
    }

    /// When the request went out whose snapshot's next part is `msg`, if it is.
    pub(super) fn answering(&self, msg: u32) -> Option<Instant> {
        self.owed
            .front()
            .filter(|o| o.parts.front() == Some(&msg))
            .map(|o| o.at)
    }

    /// After push `idx` of `msg` is applied: it may be the next part of the oldest
    /// snapshot owed. A part that snapshot sent already, coming again before it ended,
    /// means the request was answered in part (SR "Answer what was asked": a request is
    /// never answered in part; HOST-03).
    pub(super) fn track(&mut self, verdict: &mut Verdict, now: Instant, idx: u64, msg: u32) {
        let Some(o) = self.owed.front_mut() else {
            return;
        };
        // a keepalive's message 1 between the request and its snapshot looks like the
        // snapshot's first part: the snapshot starts again at the next one, however long
        // after (the request and its answer may be on a slow wire)
        if o.received == [msg] && SNAPSHOT.first() == Some(&msg) {
            o.last_part = Some(now);
            return;
        }
        if o.parts.front() == Some(&msg) {
            if let Some(last) = o.last_part.filter(|t| now.since(*t) > SNAPSHOT_GAP_MS) {
                let (asked, gap) = (o.msg, now.since(last));
                let reason = format!(
                    "message {asked}'s snapshot: message {msg} came {gap} ms after the part before it, not together with it"
                );
                verdict.advise(Rule::Host03, Choice::SnapshotGap, Some(idx), None, reason);
            }
            o.parts.pop_front();
            o.last_part = Some(now);
            o.received.push(msg);
            if o.parts.is_empty() {
                self.owed.pop_front();
            }
            return;
        }
        if o.received.contains(&msg) {
            let (rule, how) = o.rule();
            let reason = format!(
                "message {}'s snapshot{how} was answered in part: message {msg} came again, before messages {:?}",
                o.msg, o.parts
            );
            verdict.violate(rule, Some(idx), None, reason);
            self.owed.pop_front();
        }
    }

    /// At the run's deadline `now`: each snapshot the host had time to send and did not
    /// finish (HOST-03, HOST-10).
    pub(super) fn check_answered(&self, verdict: &mut Verdict, now: Instant) {
        for o in self.owed.iter().filter(|o| had_time_to_answer(o.at, now)) {
            let (rule, how) = o.rule();
            let reason = format!(
                "message {}'s snapshot{how} never sent messages {:?}, in order",
                o.msg, o.parts
            );
            verdict.violate(rule, None, None, reason);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ANSWER_GRACE_MS;

    fn at(ms: u64) -> Instant {
        Instant::from_millis(ms)
    }

    /// Each finding, and whether it is advisory.
    fn found(v: &Verdict) -> Vec<(Rule, bool)> {
        v.violations()
            .iter()
            .map(|f| (f.rule, f.advisory()))
            .collect()
    }

    /// A snapshot the host had less than the grace period to send is not judged at the
    /// run's end; one sent in order clears the debt.
    #[test]
    fn an_unfinished_snapshot_is_judged_after_the_grace_period() {
        let (mut r, mut v) = (Refresh::default(), Verdict::new());
        r.ask(at(0), false, 0, 0);
        r.check_answered(&mut v, at(ANSWER_GRACE_MS - 1));
        assert!(v.rules().is_empty());
        r.check_answered(&mut v, at(ANSWER_GRACE_MS));
        assert_eq!(v.rules(), [Rule::Host03]);
        let (mut r, mut v) = (Refresh::default(), Verdict::new());
        r.ask(at(0), false, 0, 0);
        for msg in SNAPSHOT {
            r.track(&mut v, at(0), 1, msg);
        }
        r.check_answered(&mut v, at(ANSWER_GRACE_MS));
        assert!(v.rules().is_empty());
    }

    /// On a public link the snapshot is owed without message 12.
    #[test]
    fn a_public_link_is_owed_no_membership() {
        let mut r = Refresh::default();
        r.ask(at(0), true, 0, 0);
        assert!(r.answers(ids::GLOBAL_ACTIVITY_STATE));
        let mut v = Verdict::new();
        r.track(&mut v, at(0), 1, ids::GLOBAL_ACTIVITY_STATE);
        r.track(&mut v, at(0), 2, ids::WORLD_GLOBALS_STATE);
        assert!(r.answers(ids::SENSOR_AUTH_UPDATE));
    }

    /// A part of the snapshot sent again before the rest, e.g. a keepalive's message 1
    /// before the snapshot's message 5, is an answer in part, reported once.
    #[test]
    fn a_snapshot_broken_off_is_an_answer_in_part() {
        let (mut r, mut v) = (Refresh::default(), Verdict::new());
        r.ask(at(0), false, 0, 0);
        for (i, msg) in [1, 2, 12, 1, 5, 1].into_iter().enumerate() {
            r.track(&mut v, at(0), i as u64, msg);
        }
        assert_eq!(v.rules(), [Rule::Host03]);
        r.check_answered(&mut v, at(ANSWER_GRACE_MS));
        assert_eq!(v.rules(), [Rule::Host03], "reported once");
    }

    /// A part that comes long after the one before is, on Vex's 100 ms, not together with
    /// it: advisory; the snapshot it finishes is whole, and the gap itself is the boundary.
    #[test]
    fn a_part_that_comes_late_is_advisory() {
        for (gap, want) in [
            (SNAPSHOT_GAP_MS, vec![]),
            (SNAPSHOT_GAP_MS + 1, vec![(Rule::Host03, true)]),
        ] {
            let (mut r, mut v) = (Refresh::default(), Verdict::new());
            r.ask(at(0), false, 0, 0);
            for msg in [1, 2, 12] {
                r.track(&mut v, at(10), 1, msg);
            }
            r.track(&mut v, at(10 + gap), 2, 5);
            r.check_answered(&mut v, at(5 * ANSWER_GRACE_MS));
            assert_eq!(found(&v), want, "a gap of {gap} ms");
        }
    }

    /// On a slow wire a keepalive's message 1 comes between the request and its snapshot,
    /// long before the snapshot: the snapshot starts at the next one. A lone message 1
    /// followed long after by message 2 is advisory.
    #[test]
    fn a_keepalive_long_before_the_snapshot_is_no_part_of_it() {
        let (mut r, mut v) = (Refresh::default(), Verdict::new());
        r.ask(at(0), false, 0, 0);
        r.track(&mut v, at(300), 1, 1);
        for (i, msg) in [1, 2, 12, 5].into_iter().enumerate() {
            r.track(&mut v, at(900), 2 + i as u64, msg);
        }
        r.check_answered(&mut v, at(5 * ANSWER_GRACE_MS));
        assert!(v.rules().is_empty(), "{:?}", v.rules());
        let (mut r, mut v) = (Refresh::default(), Verdict::new());
        r.ask(at(0), false, 0, 0);
        r.track(&mut v, at(300), 1, 1);
        r.track(&mut v, at(900), 2, 2);
        assert_eq!(found(&v), [(Rule::Host03, true)]);
    }

    /// On a public link message 12 is no part of the snapshot, so a table that comes
    /// during it (another member joined) breaks nothing.
    #[test]
    fn a_table_during_a_public_snapshot_is_no_part_of_it() {
        let (mut r, mut v) = (Refresh::default(), Verdict::new());
        r.ask(at(0), true, 0, 0);
        for (i, msg) in [1, 12, 2, 5].into_iter().enumerate() {
            r.track(&mut v, at(0), i as u64, msg);
        }
        r.check_answered(&mut v, at(ANSWER_GRACE_MS));
        assert!(v.rules().is_empty(), "{:?}", v.rules());
    }

    /// Two requests in flight: a host that answers them in order, the first after the
    /// second went out, draws nothing; one that never answers the first is judged at the
    /// end under that request's own rule (HOST-10 for discriminator 2), and the second too
    /// when it is left.
    #[test]
    fn requests_in_flight_are_answered_in_order_however_slowly() {
        let (mut r, mut v) = (Refresh::default(), Verdict::new());
        r.ask(at(0), false, 0, 0);
        r.sent_on_two();
        r.ask(at(1_000), false, 0, 0);
        for (i, msg) in [1, 2, 12, 5, 1, 2, 12, 5].into_iter().enumerate() {
            r.track(&mut v, at(2_500), i as u64, msg);
        }
        r.check_answered(&mut v, at(10_000));
        assert!(v.rules().is_empty(), "{:?}", v.rules());
        let (mut r, mut v) = (Refresh::default(), Verdict::new());
        r.ask(at(0), false, 0, 0);
        r.sent_on_two();
        r.ask(at(1_000), false, 0, 0);
        r.check_answered(&mut v, at(1_999));
        assert_eq!(
            v.rules(),
            [Rule::Host10],
            "the second is too young to judge"
        );
        let (mut v, end) = (Verdict::new(), at(2_000));
        r.check_answered(&mut v, end);
        assert_eq!(v.rules(), [Rule::Host10, Rule::Host03]);
    }

    /// The keepalive's message 1 arriving just before the snapshot is no part of it: the
    /// snapshot that follows is whole. Message 2 twice is still answered in part.
    #[test]
    fn a_keepalive_message_1_before_the_snapshot_is_not_a_repeat() {
        let mut r = Refresh::default();
        r.ask(at(0), false, 0, 0);
        let mut v = Verdict::new();
        for (idx, msg) in [1, 1, 2, 12, 5].into_iter().enumerate() {
            r.track(&mut v, at(1), idx as u64, msg);
        }
        assert!(v.rules().is_empty());
        r.check_answered(&mut v, at(5_000));
        assert!(v.rules().is_empty(), "the snapshot was whole");
        r.ask(at(6_000), false, 0, 0);
        for (idx, msg) in [1, 2, 2].into_iter().enumerate() {
            r.track(&mut v, at(6_001), idx as u64, msg);
        }
        assert_eq!(v.rules(), [Rule::Host03]);
    }

    /// BODY-07: a message 18 carrying bytes past its body (the trailing-bytes probe) is
    /// valid and owed its snapshot as the plain one is: answered whole, nothing; never
    /// answered, or answered in part (message 2 again before 12 and 5), it is reported
    /// under BODY-07, where the plain request left so is HOST-03's.
    #[test]
    fn a_request_with_trailing_bytes_is_owed_its_snapshot() {
        let judged = |trailing: bool, answer: &[u32]| {
            let (mut r, mut v) = (Refresh::default(), Verdict::new());
            let out = r.ask(at(0), false, 0, 0);
            assert_eq!(out.body.len(), 8);
            if trailing {
                r.sent_with_trailing_bytes();
            }
            for (i, msg) in answer.iter().enumerate() {
                r.track(&mut v, at(10), i as u64, *msg);
            }
            r.check_answered(&mut v, at(ANSWER_GRACE_MS));
            v.rules()
        };
        assert_eq!(judged(true, &SNAPSHOT), [], "answered whole");
        assert_eq!(judged(true, &[]), [Rule::Body07], "never answered");
        assert_eq!(judged(true, &[1, 2]), [Rule::Body07], "cut off");
        assert_eq!(judged(true, &[1, 2, 2]), [Rule::Body07], "in part");
        assert_eq!(judged(false, &[]), [Rule::Host03], "plain, never answered");
    }
}
