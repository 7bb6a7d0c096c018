//! The join and the two routing arms of an activity client (AH "The activity envelope",
//! "join_result"; SR "The join burst"): before the join, a push must name the id
//! join_request named and be message 4; after it, every push must carry the id message 4
//! stored, and the burst owed after message 4 must arrive whole and in order.

use crate::had_time_to_answer;
use crate::rules::Rule;
use crate::verdict::{Verdict, bit_of};
use std::collections::VecDeque;
use vex_wire::activity::body::Body;
use vex_wire::activity::envelope::PushHeader;
use vex_wire::activity::ids;
use vex_wire::activity::join::{JOIN_REQUEST_BITS, JoinResult};
use vex_wire::time::Instant;

/// The burst after message 4 (JOIN-02); message 12 follows "when ready".
const BURST_AFTER_JOIN: [u32; 4] = [
    ids::ENTITY_SLOTS_ALLOCATED,
    ids::GLOBAL_ACTIVITY_STATE,
    ids::WORLD_GLOBALS_STATE,
    ids::BUBBLE_HOST_STATE,
];
/// The bit of join_result's result field, after the join_request it echoes.
const RESULT_BIT: usize = JOIN_REQUEST_BITS;
/// The bit of the echoed host id, the id join_result stores, after the echoed nonce.
const HOST_ID_BIT: usize = 32;

/// Which arm takes a push that passed the routing checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Arm {
    /// The pre-join arm: a message 4 for the join.
    JoinResult,
    /// The established arm: a push for the activity.
    Established,
}

/// The join: the id it names, the id message 4 stored, and the burst still owed (AH "The
/// activity envelope", "join_result"; SR "The join burst").
#[derive(Debug)]
pub(crate) struct Join {
    /// The id join_request field 1 names, which the pre-join arm matches message 4
    /// against: service 7's, or the public session the client joins.
    id: u64,
    /// The join names a session other than the client's own (SR "The join burst").
    public: bool,
    /// The id failed ENV-09: pushes naming it are dropped.
    badly_shaped: bool,
    /// The first push after join_request has been seen (JOIN-01).
    first_push_seen: bool,
    /// A join_result was accepted.
    established: bool,
    /// The id join_result stored; every later push must carry it (ENV-07).
    stored_id: u64,
    /// The burst messages still owed after message 4, in order (JOIN-02).
    burst_owed: VecDeque<u32>,
    /// When message 4 started the burst.
    burst_since: Instant,
}

impl Join {
    /// A join of `id` just sent; `public` when it names another member's session,
    /// `badly_shaped` when `id` failed ENV-09.
    pub(super) fn new(id: u64, public: bool, badly_shaped: bool) -> Self {
        Self {
            id,
            public,
            badly_shaped,
            first_push_seen: false,
            established: false,
            stored_id: 0,
            burst_owed: VecDeque::new(),
            burst_since: Instant::default(),
        }
    }

    /// True once a join_result was accepted.
    pub(crate) fn established(&self) -> bool {
        self.established
    }

    /// The session every push carries, once the join was accepted.
    pub(crate) fn session(&self) -> Option<u64> {
        self.established.then_some(self.stored_id)
    }

    /// The handle the client's own messages carry: the id join_result stored.
    pub(crate) fn handle(&self) -> u64 {
        self.stored_id
    }

    /// True when the join names another member's session (SR "The join burst").
    pub(crate) fn public(&self) -> bool {
        self.public
    }

    /// The routing arms: which takes `push`, or none when it is dropped (ENV-05, ENV-06,
    /// ENV-07, JOIN-01; a push naming a badly shaped id is dropped in silence, ENV-09
    /// having been reported at service 7, and so is every push after a join_result that
    /// stored host id 0, JOIN-06 having been reported there: "zero makes the router drop
    /// everything after", whatever session the push names).
    pub(super) fn arm(
        &mut self,
        verdict: &mut Verdict,
        idx: u64,
        push: &PushHeader,
    ) -> Option<Arm> {
        let f = Some(idx);
        if self.established {
            if self.stored_id == 0 {
                return None;
            }
            if push.session_id != self.stored_id {
                let reason = format!(
                    "message {} carries session {:#x}, the join stored {:#x}",
                    push.msg_type, push.session_id, self.stored_id
                );
                verdict.violate(Rule::Env07, f, None, reason);
                return None;
            }
            return Some(Arm::Established);
        }
        if push.session_id != self.id {
            let reason = format!(
                "message {} carries session {:#x}, no activity client has it",
                push.msg_type, push.session_id
            );
            verdict.violate(Rule::Env05, f, None, reason);
            return None;
        }
        if self.badly_shaped {
            return None;
        }
        if !self.first_push_seen {
            self.first_push_seen = true;
            if push.msg_type != ids::JOIN_RESULT {
                let reason = format!("the burst starts with message {}, not 4", push.msg_type);
                verdict.violate(Rule::Join01, f, None, reason);
            }
        }
        if push.msg_type != ids::JOIN_RESULT {
            let reason = format!("message {} before the join is accepted", push.msg_type);
            verdict.violate(Rule::Env06, f, None, reason);
            return None;
        }
        Some(Arm::JoinResult)
    }

    /// Message 4 on the pre-join arm (JOIN-03 to JOIN-06): the result the join was
    /// accepted with, which stores its host id and starts the burst at `now`.
    pub(super) fn accept(
        &mut self,
        verdict: &mut Verdict,
        (idx, now): (u64, Instant),
        payload: &[u8],
        nonce: u32,
    ) -> Option<JoinResult> {
        let f = Some(idx);
        let r = match JoinResult::decode(payload) {
            Ok(r) => r,
            Err(e) => {
                let reason = format!(
                    "join_result of {} bytes does not decode: {e}",
                    payload.len()
                );
                verdict.violate(Rule::Join03, f, bit_of(&e), reason);
                return None;
            }
        };
        if r.result != 0 {
            let reason = format!("result is {}, only 0 accepts", r.result);
            verdict.violate(Rule::Join04, f, Some(RESULT_BIT), reason);
            return None;
        }
        if r.echoed_nonce() != nonce {
            let reason = format!("echoed nonce {:#x}, sent {nonce:#x}", r.echoed_nonce());
            verdict.violate(Rule::Join05, f, Some(0), reason);
            return None;
        }
        let host_id = r.echoed_host_id();
        if host_id != 0 && host_id != self.id {
            let reason = format!("echoed host id {host_id:#x}, the join named {:#x}", self.id);
            verdict.violate(Rule::Join05, f, Some(HOST_ID_BIT), reason);
            return None;
        }
        self.established = true;
        self.stored_id = host_id;
        self.burst_owed = BURST_AFTER_JOIN.into_iter().collect();
        self.burst_since = now;
        if host_id == 0 {
            let reason = "join_result stores host id 0: every later push is dropped".to_string();
            verdict.violate(Rule::Join06, f, Some(HOST_ID_BIT), reason);
        }
        Some(r)
    }

    /// Every push on the established arm: the burst arrives whole and in order (JOIN-02).
    /// True when `msg` is the next message of the burst.
    pub(super) fn observe(&mut self, verdict: &mut Verdict, idx: u64, msg: u32) -> bool {
        let expected = self.burst_owed.front().copied();
        let in_burst = expected == Some(msg);
        if in_burst {
            self.burst_owed.pop_front();
        } else if let Some(want) = expected {
            self.burst_owed.clear();
            let reason = format!("message {msg} where the burst owes message {want}");
            verdict.violate(Rule::Join02, Some(idx), None, reason);
        }
        in_burst
    }

    /// At the deadline `now`: a burst still owed was never sent whole (JOIN-02), unless
    /// message 4 came less than [`crate::ANSWER_GRACE_MS`] before and the rest may be on the wire.
    pub(super) fn check_burst_owed(&self, verdict: &mut Verdict, now: Instant) {
        if !self.burst_owed.is_empty() && had_time_to_answer(self.burst_since, now) {
            let owed: Vec<u32> = self.burst_owed.iter().copied().collect();
            let reason = format!("the join burst never sent messages {owed:?}");
            verdict.violate(Rule::Join02, None, None, reason);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ANSWER_GRACE_MS;
    use vex_wire::activity::join::{JOIN_RESULT_LEN, JoinRequest};

    const SESSION: u64 = 0x9EAA_3001_0020_0001;
    const NONCE: u32 = 0x1122_3344;
    /// When the tests' join_result comes.
    const T0: Instant = Instant::from_millis(0);
    /// The tests' run's end: the grace after [`T0`], when a burst still owed is judged.
    const END: Instant = Instant::from_millis(ANSWER_GRACE_MS);

    /// A join_result accepting a join of [`SESSION`] with `result`.
    fn join_result(result: i8) -> Vec<u8> {
        let request = JoinRequest::new(NONCE, SESSION, 7, 9);
        let mut r = JoinResult::accept(&request, SESSION);
        r.result = result;
        r.encode().unwrap()
    }

    fn rules_for(payload: &[u8]) -> Vec<Rule> {
        let (mut join, mut v) = (Join::new(SESSION, false, false), Verdict::new());
        join.accept(&mut v, (1, T0), payload, NONCE);
        v.rules()
    }

    /// JOIN-03: 757 bytes (6,053 bits) decode; 756 do not.
    #[test]
    fn join_result_is_at_least_757_bytes() {
        let body = join_result(0);
        assert_eq!(body.len(), JOIN_RESULT_LEN);
        assert!(rules_for(&body).is_empty(), "757 bytes");
        assert_eq!(rules_for(&body[..756]), [Rule::Join03], "756 bytes");
    }

    /// JOIN-04: only logical 0 accepts; -1 (wire 0) and every positive result, up to the
    /// 3-bit field's 6, are caught.
    #[test]
    fn only_result_0_accepts() {
        assert!(rules_for(&join_result(0)).is_empty());
        for result in [-1, 1, 2, 6] {
            assert_eq!(
                rules_for(&join_result(result)),
                [Rule::Join04],
                "result {result}"
            );
        }
    }

    /// A join of [`SESSION`] just sent, and its verdict.
    fn fresh() -> (Join, Verdict) {
        (Join::new(SESSION, false, false), Verdict::new())
    }

    /// A push of `msg` carrying `session`.
    fn push(session: u64, msg: u32) -> PushHeader {
        PushHeader::new(session, msg, 4)
    }

    /// A join of [`SESSION`] whose join_result was routed and accepted.
    fn joined() -> (Join, Verdict) {
        let (mut j, mut v) = fresh();
        let arm = j.arm(&mut v, 0, &push(SESSION, ids::JOIN_RESULT));
        assert_eq!(arm, Some(Arm::JoinResult));
        assert!(j.accept(&mut v, (0, T0), &join_result(0), NONCE).is_some());
        assert!(v.rules().is_empty());
        (j, v)
    }

    /// Sessions one bit away from [`SESSION`] at each end, an index away, zero and all
    /// ones.
    const OTHER_SESSIONS: [u64; 6] = [
        SESSION ^ 1,
        SESSION ^ (1 << 63),
        SESSION + 0x1_0000,
        SESSION + 1,
        0,
        u64::MAX,
    ];

    /// ENV-05: before the join, a push naming any other session than the one join_request
    /// named (one bit off at either end, the next index, 0, all ones) matches no client
    /// and is dropped, and does not count as the burst's first push; message 4 naming the
    /// join's own session routes.
    #[test]
    fn a_push_naming_no_client_is_dropped() {
        for session in OTHER_SESSIONS {
            let (mut j, mut v) = fresh();
            for msg in [ids::JOIN_RESULT, ids::ENTITY_SLOTS_ALLOCATED] {
                assert_eq!(j.arm(&mut v, 1, &push(session, msg)), None);
            }
            assert_eq!(v.rules(), [Rule::Env05, Rule::Env05], "{session:#x}");
            let arm = j.arm(&mut v, 2, &push(SESSION, ids::JOIN_RESULT));
            assert_eq!(arm, Some(Arm::JoinResult), "{session:#x}, then its own");
            assert_eq!(v.rules(), [Rule::Env05, Rule::Env05], "no JOIN-01 after it");
        }
    }

    /// ENV-06: before a join is accepted only message 4 routes: each other message the
    /// host pushes, the burst's own (0, 1, 2, 54, 12) and message 5 among them, is dropped,
    /// as the first push (JOIN-01 too) or after one; so is one after a join_result that
    /// was not accepted (JOIN-04). Message 4 routes at any place.
    #[test]
    fn only_message_4_routes_before_the_join() {
        for msg in [0, 1, 2, 54, 12, 5, 44] {
            let (mut j, mut v) = fresh();
            assert_eq!(j.arm(&mut v, 1, &push(SESSION, msg)), None, "message {msg}");
            assert_eq!(j.arm(&mut v, 2, &push(SESSION, msg)), None, "message {msg}");
            assert_eq!(v.rules(), [Rule::Join01, Rule::Env06, Rule::Env06]);
            let arm = j.arm(&mut v, 3, &push(SESSION, ids::JOIN_RESULT));
            assert_eq!(arm, Some(Arm::JoinResult), "message 4 after {msg}");
        }
        let (mut j, mut v) = fresh();
        j.arm(&mut v, 1, &push(SESSION, ids::JOIN_RESULT));
        assert!(j.accept(&mut v, (1, T0), &join_result(1), NONCE).is_none());
        assert!(!j.established());
        assert_eq!(j.arm(&mut v, 2, &push(SESSION, 0)), None);
        assert_eq!(v.rules(), [Rule::Join04, Rule::Env06]);
    }

    /// JOIN-01: message 4 first passes; each of the burst's other messages (0, 1, 2, 54,
    /// 12) first is caught, once: the message 4 after it, and what follows, are not.
    #[test]
    fn message_4_comes_first() {
        let (mut j, mut v) = fresh();
        assert_eq!(
            j.arm(&mut v, 1, &push(SESSION, ids::JOIN_RESULT)),
            Some(Arm::JoinResult)
        );
        assert!(v.rules().is_empty());
        for msg in BURST_AFTER_JOIN
            .into_iter()
            .chain([ids::REPLICATE_MEMBERSHIP])
        {
            let (mut j, mut v) = fresh();
            j.arm(&mut v, 1, &push(SESSION, msg));
            let first: Vec<Rule> = v.rules();
            assert_eq!(first, [Rule::Join01, Rule::Env06], "message {msg} first");
            j.arm(&mut v, 2, &push(SESSION, ids::JOIN_RESULT));
            j.accept(&mut v, (2, T0), &join_result(0), NONCE);
            assert!(j.established());
            assert_eq!(v.rules(), first, "message {msg} first, then 4");
        }
    }

    /// ENV-07: after the join every push must carry the host id join_result stored: the
    /// stored id routes, and any other (one bit off at either end, the next index, 0, all
    /// ones) is dropped, a second message 4 included.
    #[test]
    fn after_the_join_every_push_carries_the_stored_id() {
        let (mut j, mut v) = joined();
        assert_eq!(j.session(), Some(SESSION));
        for msg in [0, 1, 5, ids::JOIN_RESULT] {
            assert_eq!(
                j.arm(&mut v, 1, &push(SESSION, msg)),
                Some(Arm::Established)
            );
        }
        assert!(v.rules().is_empty());
        for session in OTHER_SESSIONS {
            for msg in [1, ids::JOIN_RESULT] {
                let (mut j, mut v) = joined();
                assert_eq!(j.arm(&mut v, 1, &push(session, msg)), None);
                assert_eq!(v.rules(), [Rule::Env07], "{session:#x}, message {msg}");
            }
        }
    }

    /// `body` with bit `at` flipped.
    fn flipped(mut body: Vec<u8>, at: usize) -> Vec<u8> {
        body[at / 8] ^= 0x80 >> (at % 8);
        body
    }

    /// JOIN-05: the nonce in bits 0-31 and the host id in bits 32-95 of the echoed request
    /// correlate: either's first or last bit flipped, or each off by one, is not accepted
    /// (reported at its field's bit); the bit after the host id (96) and the echo's last
    /// (569) are no correlation and pass. The envelope's session id, the third
    /// correlation, is ENV-05's (above).
    #[test]
    fn join_result_correlates_nonce_and_host_id() {
        let body = join_result(0);
        let judged = |payload: &[u8]| {
            let (mut j, mut v) = fresh();
            j.accept(&mut v, (1, T0), payload, NONCE);
            let got: Vec<_> = v.violations().iter().map(|x| (x.rule, x.bit)).collect();
            (got, j.established())
        };
        let nonce = (vec![(Rule::Join05, Some(0))], false);
        let host = (vec![(Rule::Join05, Some(HOST_ID_BIT))], false);
        for (at, want) in [(0, &nonce), (31, &nonce), (32, &host), (95, &host)] {
            assert_eq!(&judged(&flipped(body.clone(), at)), want, "bit {at}");
        }
        for at in [96, JOIN_REQUEST_BITS - 1] {
            assert_eq!(
                judged(&flipped(body.clone(), at)),
                (vec![], true),
                "bit {at}"
            );
        }
        let echo = |nonce: u32, host_id: u64| {
            let request = JoinRequest::new(nonce, host_id, 7, 9);
            JoinResult::accept(&request, SESSION).encode().unwrap()
        };
        assert_eq!(judged(&echo(NONCE + 1, SESSION)), nonce, "nonce + 1");
        assert_eq!(judged(&echo(NONCE - 1, SESSION)), nonce, "nonce - 1");
        assert_eq!(judged(&echo(NONCE, SESSION + 1)), host, "host id + 1");
        assert_eq!(judged(&echo(NONCE, SESSION - 1)), host, "host id - 1");
        assert_eq!(judged(&echo(NONCE, SESSION)), (vec![], true));
    }

    /// JOIN-06: the echoed host id becomes the id every later push must carry. Echoing
    /// the join's own id, a push carrying it routes; echoing 0 is reported at bit 32, and
    /// after it a push carrying the join's id is dropped.
    #[test]
    fn a_host_id_of_zero_drops_everything_after() {
        let (mut j, mut v) = joined();
        assert_eq!(j.handle(), SESSION);
        assert_eq!(j.arm(&mut v, 1, &push(SESSION, 1)), Some(Arm::Established));
        assert!(v.rules().is_empty());
        let (mut j, mut v) = fresh();
        let request = JoinRequest::new(NONCE, 0, 7, 9);
        let zero = JoinResult::accept(&request, SESSION).encode().unwrap();
        j.arm(&mut v, 1, &push(SESSION, ids::JOIN_RESULT));
        assert!(j.accept(&mut v, (1, T0), &zero, NONCE).is_some());
        let got: Vec<_> = v.violations().iter().map(|x| (x.rule, x.bit)).collect();
        assert_eq!(got, [(Rule::Join06, Some(HOST_ID_BIT))]);
        for session in [SESSION, 0] {
            for msg in [0, 1, 12, 5] {
                let got = j.arm(&mut v, 2, &push(session, msg));
                assert_eq!(got, None, "message {msg} naming {session:#x}");
            }
        }
        assert_eq!(
            v.rules(),
            [Rule::Join06],
            "dropped under the cause reported"
        );
    }

    /// The rules a joined client reports for the messages `after` message 4, in order,
    /// at the run's end too.
    fn burst_rules(after: &[u32]) -> Vec<Rule> {
        let (mut j, mut v) = joined();
        for (i, msg) in after.iter().enumerate() {
            j.observe(&mut v, i as u64, *msg);
        }
        j.check_burst_owed(&mut v, END);
        v.rules()
    }

    /// JOIN-02: after message 4 the burst is 0, 1, 2, 54, then 12 when ready: the four in
    /// order pass, with 12 after them, later or never. Each of the four missing (the next
    /// one in its place), two swapped, another message inside the burst, 12 before 54, a
    /// burst cut off after 2, and nothing after message 4 are each caught once.
    #[test]
    fn the_join_burst_comes_whole_and_in_order() {
        for after in [
            vec![0, 1, 2, 54],
            vec![0, 1, 2, 54, 12],
            vec![0, 1, 2, 54, 1, 5, 12],
        ] {
            assert_eq!(burst_rules(&after), [], "{after:?}");
        }
        for after in [
            vec![1, 2, 54],
            vec![0, 2, 54],
            vec![0, 1, 54],
            vec![0, 1, 2, 12],
            vec![1, 0, 2, 54],
            vec![0, 1, 2, 12, 54],
            vec![0, 1, 5, 2, 54],
            vec![0, 1, 2],
            vec![],
        ] {
            assert_eq!(burst_rules(&after), [Rule::Join02], "{after:?}");
        }
    }

    /// JOIN-02 at a run's end: a burst message 4 started less than [`ANSWER_GRACE_MS`]
    /// before may still be on the wire and is not judged; one started that long before is.
    #[test]
    fn a_burst_started_just_before_the_end_is_not_judged() {
        let owed_at = |end: u64| {
            let (j, mut v) = joined();
            j.check_burst_owed(&mut v, Instant::from_millis(end));
            v.rules()
        };
        assert_eq!(owed_at(ANSWER_GRACE_MS - 1), [], "within the grace");
        assert_eq!(owed_at(ANSWER_GRACE_MS), [Rule::Join02]);
    }
}
