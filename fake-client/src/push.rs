//! Service-9 pushes up to their activity client: the service's sequence and the envelope
//! checks, the message table's inbound check, then the push goes to the activity client it
//! names (AH "The activity envelope", "Message ids"; ENV-01 to ENV-05, ENV-10, ENV-11).

use crate::activity_client::Context;
use crate::core::ClientCore;
use crate::rules::Rule;
use vex_wire::activity::envelope::{
    ActivityPush, CRASHING_PAYLOAD_LEN, MAX_PAYLOAD_LEN, PUSH_DISCRIMINATOR, PUSH_HEADER_LEN,
};
use vex_wire::activity::table::{self, Direction, Message};
use vex_wire::time::Instant;

/// The byte the emulated client uses for the stale buffer bytes a too-large payload_len
/// copies (ENV-02).
const STALE_BYTE: u8 = 0xCD;
/// The most bytes a payload can take from the client's receive buffer: a larger
/// payload_len copies no more than this (it is also the largest legal payload, facts 4.0).
const RECEIVE_BUFFER: usize = MAX_PAYLOAD_LEN;

/// What the client's copy of `declared` bytes gives when the frame holds `payload`: the
/// real bytes, then stale buffer bytes, never more than the receive buffer (ENV-02).
fn copied_payload(mut payload: Vec<u8>, declared: usize) -> Vec<u8> {
    payload.resize(declared.min(RECEIVE_BUFFER), STALE_BYTE);
    payload
}

impl ClientCore {
    /// Service 9's sequence has no reader; a host sends zero (ENV-10).
    pub(crate) fn check_push_sequence(&mut self, idx: u64, sequence: u32) {
        if sequence != 0 {
            let reason = format!("service 9 sequence {sequence}, not 0");
            self.verdict.violate(Rule::Env10, Some(idx), None, reason);
        }
    }

    /// A service-9 body.
    pub(crate) fn handle_push(&mut self, now: Instant, idx: u64, body: &[u8]) {
        let f = Some(idx);
        let Ok(mut push) = ActivityPush::decode(body) else {
            let reason = format!(
                "service-9 body of {} bytes is shorter than its {PUSH_HEADER_LEN}-byte envelope: dropped",
                body.len()
            );
            return self.verdict.violate(Rule::Body04, f, None, reason);
        };
        if push.payload_len >= CRASHING_PAYLOAD_LEN {
            let reason = format!("payload_len {:#x} is 0xFFFFFF70 or more", push.payload_len);
            return self.verdict.violate(Rule::Env03, f, None, reason);
        }
        if push.discriminator != PUSH_DISCRIMINATOR {
            let reason = format!("discriminator {} is not 1", push.discriminator);
            return self.verdict.violate(Rule::Env01, f, None, reason);
        }
        let declared = push.payload_len as usize;
        if declared != push.payload.len() {
            let reason = format!(
                "payload_len {declared} but {} bytes follow; the client copies {declared}",
                push.payload.len()
            );
            self.verdict.violate(Rule::Env02, f, None, reason);
            push.payload = copied_payload(std::mem::take(&mut push.payload), declared);
        }
        let id = push.msg_type;
        let message = table::message(id);
        let handled = message.is_some_and(Message::has_inbound_handler);
        let outbound = message.filter(|m| m.direction == Direction::NameOnly || m.client_sends());
        if let (false, Some(m)) = (handled, outbound) {
            let reason = format!(
                "message {id} ({}) is one the client only names or only sends: it has no inbound handler",
                m.label()
            );
            return self.verdict.violate(Rule::Env11, f, None, reason);
        }
        if !handled {
            let reason = format!("message {id} has no inbound handler");
            return self.verdict.violate(Rule::Env04, f, None, reason);
        }
        let Some(activity) = &mut self.activity else {
            let reason = format!("session {:#x}: no activity client", push.session_id);
            return self.verdict.violate(Rule::Env05, f, None, reason);
        };
        let mut cx = Context {
            now,
            config: &self.config,
            status: &mut self.status,
            verdict: &mut self.verdict,
            links: &mut self.links,
        };
        activity.on_push(&mut cx, idx, &push);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the client_core fuzz target: a payload_len of 0xFFFF0000 (below the
    /// crashing range) made the emulated client allocate 4 GiB of stale bytes.
    #[test]
    fn a_huge_payload_len_copies_at_most_the_receive_buffer() {
        assert_eq!(copied_payload(vec![1], 0xFFFF_0000).len(), RECEIVE_BUFFER);
        assert_eq!(copied_payload(vec![1, 2, 3], 2), [1, 2]);
        assert_eq!(copied_payload(vec![1], 3), [1, STALE_BYTE, STALE_BYTE]);
    }
}
