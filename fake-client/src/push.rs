//! Service-9 pushes up to their activity client: the service's sequence and the envelope
//! checks, the message table's inbound check, then the push goes to the activity client it
//! names (AH "The activity envelope", "Message ids"; ENV-01 to ENV-05, ENV-10, ENV-11).

use crate::activity_client::Context;
use crate::core::ClientCore;
use crate::rules::Rule;
use vex_wire::activity::envelope::{
    CRASHING_PAYLOAD_LEN, MAX_PAYLOAD_LEN, PUSH_DISCRIMINATOR, PUSH_HEADER_LEN, PushHeader,
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
        let Ok((push, mut payload)) = PushHeader::read(body) else {
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
        let copied;
        if declared != payload.len() {
            let reason = format!(
                "payload_len {declared} but {} bytes follow; the client copies {declared}",
                payload.len()
            );
            self.verdict.violate(Rule::Env02, f, None, reason);
            copied = copied_payload(payload.to_vec(), declared);
            payload = &copied;
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
        activity.on_push(&mut cx, idx, push, payload);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vex_wire::activity::envelope::ActivityPush;

    /// Found by the client_core fuzz target: a payload_len of 0xFFFF0000 (below the
    /// crashing range) made the emulated client allocate 4 GiB of stale bytes.
    #[test]
    fn a_huge_payload_len_copies_at_most_the_receive_buffer() {
        assert_eq!(copied_payload(vec![1], 0xFFFF_0000).len(), RECEIVE_BUFFER);
        assert_eq!(copied_payload(vec![1, 2, 3], 2), [1, 2]);
        assert_eq!(copied_payload(vec![1], 3), [1, STALE_BYTE, STALE_BYTE]);
    }

    use crate::activity_client::ActivityClient;
    use crate::config::ClientConfig;
    use std::net::{Ipv4Addr, SocketAddrV4};
    use vex_wire::activity::body::Body;
    use vex_wire::activity::join::{JoinRequest, JoinResult};

    /// A session id of the built-in account's shape (ENV-09).
    const SESSION: u64 = 0x9EAA_3001_0020_0001;

    /// A client whose service 7 named [`SESSION`], and the join_result that accepts its
    /// join followed by one trailing byte, which its decoder reads past (BODY-04): so a
    /// payload_len one short or one long still copies a join_result that decodes.
    fn joining() -> (ClientCore, Vec<u8>) {
        let config = ClientConfig::builtin(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 1));
        let p = config.scenario.player;
        let request = JoinRequest::new(config.join_nonce, SESSION, p.member_key, p.character_id);
        let mut body = JoinResult::accept(&request, SESSION).encode().unwrap();
        body.push(0);
        let mut c = ClientCore::new(config);
        c.activity = Some(ActivityClient::new(SESSION, false, false, 0));
        (c, body)
    }

    /// The rules one service-9 body breaks on a fresh [`joining`] client.
    fn rules_for(push: &ActivityPush) -> Vec<Rule> {
        let (mut c, _) = joining();
        c.handle_push(Instant::default(), 1, &push.encode());
        c.verdict.rules()
    }

    fn join_push() -> ActivityPush {
        ActivityPush::new(SESSION, vex_wire::activity::ids::JOIN_RESULT, joining().1)
    }

    /// ENV-02: payload_len one below or one above the bytes that follow is caught (and
    /// the copy it makes still decodes, so nothing else is); equal passes.
    #[test]
    fn payload_len_must_equal_the_bytes_that_follow() {
        let good = join_push();
        let len = good.payload_len;
        for (declared, want) in [
            (len, vec![]),
            (len - 1, vec![Rule::Env02]),
            (len + 1, vec![Rule::Env02]),
        ] {
            let push = ActivityPush {
                payload_len: declared,
                ..good.clone()
            };
            assert_eq!(
                rules_for(&push),
                want,
                "payload_len {declared}, {len} follow"
            );
        }
    }

    /// ENV-03: 0xFFFFFF70 and above crash; 0xFFFFFF6F does not, and is only ENV-02 (the
    /// copy stops at the receive buffer, and the join_result in it still decodes).
    #[test]
    fn a_payload_len_of_0xffffff70_or_more_crashes() {
        for (declared, want) in [
            (0xFFFF_FF70, Rule::Env03),
            (0xFFFF_FF71, Rule::Env03),
            (0xFFFF_FFFF, Rule::Env03),
            (0xFFFF_FF6F, Rule::Env02),
        ] {
            let push = ActivityPush {
                payload_len: declared,
                ..join_push()
            };
            assert_eq!(rules_for(&push), [want], "payload_len {declared:#x}");
        }
    }

    /// ENV-01: only discriminator 1 is accepted.
    #[test]
    fn only_discriminator_1_is_accepted() {
        for (discriminator, want) in [
            (1, vec![]),
            (0, vec![Rule::Env01]),
            (2, vec![Rule::Env01]),
            (255, vec![Rule::Env01]),
        ] {
            let push = ActivityPush {
                discriminator,
                ..join_push()
            };
            assert_eq!(rules_for(&push), want, "discriminator {discriminator}");
        }
    }

    /// ENV-11: each of the nine name-only ids, and every id the client only sends, pushed
    /// by the host is caught; an id with an inbound handler is not.
    #[test]
    fn name_only_and_client_only_ids_are_caught() {
        let name_only = [9, 17, 35, 36, 42, 51, 53, 55, 58];
        let in_table: Vec<u32> = (0..=58)
            .filter(|&id| table::message(id).is_some_and(|m| m.direction == Direction::NameOnly))
            .collect();
        assert_eq!(in_table, name_only, "the table's name-only ids");
        let client_only: Vec<u32> = (0..=58)
            .filter(|&id| {
                table::message(id).is_some_and(|m| m.direction == Direction::ClientToHost)
            })
            .collect();
        for example in [3, 6, 15, 16, 52] {
            assert!(
                client_only.contains(&example),
                "{example} is one the client only sends"
            );
        }
        for id in name_only.into_iter().chain(client_only) {
            let push = ActivityPush::new(SESSION, id, vec![0; 8]);
            assert_eq!(rules_for(&push), [Rule::Env11], "message {id}");
        }
        assert!(rules_for(&join_push()).is_empty(), "message 4");
        for id in
            (0..=58).filter(|&id| table::message(id).is_some_and(Message::has_inbound_handler))
        {
            let push = ActivityPush::new(SESSION, id, vec![0; 8]);
            assert!(!rules_for(&push).contains(&Rule::Env11), "message {id}");
        }
    }

    /// ENV-04: msg_type is 0 to 58. In a valid envelope, an id past 58 (59, 60, 200,
    /// 2^31, u32::MAX) and every id in 0 to 58 that has no inbound handler and is neither
    /// name-only nor one the client sends (ENV-11) is unknown and dropped; every id with an
    /// inbound handler is not ENV-04, and 58 (name-only) is ENV-11. An unknown id in an
    /// envelope that is not valid (discriminator 2) is refused for the envelope (ENV-01).
    #[test]
    fn an_id_with_no_inbound_handler_is_unknown() {
        let push = |id| ActivityPush::new(SESSION, id, vec![0; 8]);
        for id in [59, 60, 200, 0x8000_0000, u32::MAX] {
            assert_eq!(rules_for(&push(id)), [Rule::Env04], "message {id}");
        }
        let mut unknown_in_table = 0;
        for id in 0..=58 {
            let m = table::message(id).unwrap();
            let rules = rules_for(&push(id));
            if m.has_inbound_handler() {
                assert!(!rules.contains(&Rule::Env04), "message {id}: {rules:?}");
            } else if m.direction != Direction::NameOnly && !m.client_sends() {
                unknown_in_table += 1;
                assert_eq!(rules, [Rule::Env04], "message {id}");
            }
        }
        assert!(unknown_in_table > 0, "the table has a local-only id");
        assert_eq!(rules_for(&push(58)), [Rule::Env11], "message 58");
        let invalid = ActivityPush {
            discriminator: 2,
            ..push(59)
        };
        assert_eq!(rules_for(&invalid), [Rule::Env01], "discriminator 2");
    }

    /// ENV-05: a push with a handled id and no activity client at all (before service 7
    /// made one) matches no client and is dropped; the same push to a client that has
    /// its session routes.
    #[test]
    fn a_push_matching_no_activity_client_is_dropped() {
        let config = ClientConfig::builtin(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 1));
        let mut c = ClientCore::new(config);
        c.handle_push(Instant::default(), 1, &join_push().encode());
        assert_eq!(c.verdict.rules(), [Rule::Env05]);
        assert!(c.verdict.running());
        assert!(c.session().is_none());
        let (mut c, _) = joining();
        c.handle_push(Instant::default(), 1, &join_push().encode());
        assert_eq!(c.verdict.rules(), []);
        assert_eq!(c.session(), Some(SESSION));
    }

    /// ENV-10: service 9's sequence (the task id of its 6-byte inner header) is 0; 1,
    /// 2^31 and u32::MAX are reported, and the push is still applied (a duty: nothing
    /// reads it).
    #[test]
    fn service_9_sequence_is_zero() {
        use crate::link::LinkKind;
        use vex_wire::bap::header::{FrameType, InnerHeader, plain_frame};
        for (sequence, want) in [
            (0, vec![]),
            (1, vec![Rule::Env10]),
            (0x8000_0000, vec![Rule::Env10]),
            (u32::MAX, vec![Rule::Env10]),
        ] {
            let (mut c, _) = joining();
            let now = Instant::default();
            c.handle_connected(now, LinkKind::Activity);
            let header = InnerHeader::request(vex_wire::bap::services::ACTIVITY_PUSH, sequence);
            let frame = plain_frame(FrameType::Plain, header, &join_push().encode());
            c.handle_bytes(now, LinkKind::Activity, &frame);
            assert_eq!(c.verdict.rules(), want, "sequence {sequence}");
            assert_eq!(c.session(), Some(SESSION), "sequence {sequence}: applied");
        }
    }
}
