//! The join and the two routing arms of an activity client (AH "The activity envelope",
//! "join_result"; SR "The join burst"): before the join, a push must name the id
//! join_request named and be message 4; after it, every push must carry the id message 4
//! stored, and the burst owed after message 4 must arrive whole and in order.

use crate::rules::Rule;
use crate::verdict::{Verdict, bit_of};
use std::collections::VecDeque;
use vex_wire::activity::body::Body;
use vex_wire::activity::envelope::ActivityPush;
use vex_wire::activity::ids;
use vex_wire::activity::join::{JOIN_REQUEST_BITS, JoinResult};

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
    /// having been reported at service 7).
    pub(super) fn arm(
        &mut self,
        verdict: &mut Verdict,
        idx: u64,
        push: &ActivityPush,
    ) -> Option<Arm> {
        let f = Some(idx);
        if self.established {
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
    /// accepted with, which stores its host id and starts the burst.
    pub(super) fn accept(
        &mut self,
        verdict: &mut Verdict,
        idx: u64,
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

    /// At the deadline: a burst still owed was never sent whole (JOIN-02).
    pub(super) fn check_burst_owed(&self, verdict: &mut Verdict) {
        if !self.burst_owed.is_empty() {
            let owed: Vec<u32> = self.burst_owed.iter().copied().collect();
            let reason = format!("the join burst never sent messages {owed:?}");
            verdict.violate(Rule::Join02, None, None, reason);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vex_wire::activity::join::{JOIN_RESULT_LEN, JoinRequest};

    const SESSION: u64 = 0x9EAA_3001_0020_0001;
    const NONCE: u32 = 0x1122_3344;

    /// A join_result accepting a join of [`SESSION`] with `result`.
    fn join_result(result: i8) -> Vec<u8> {
        let request = JoinRequest::new(NONCE, SESSION, 7, 9);
        let mut r = JoinResult::accept(&request, SESSION);
        r.result = result;
        r.encode().unwrap()
    }

    fn rules_for(payload: &[u8]) -> Vec<Rule> {
        let (mut join, mut v) = (Join::new(SESSION, false, false), Verdict::new());
        join.accept(&mut v, 1, payload, NONCE);
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
}
