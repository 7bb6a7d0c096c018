//! A message 2 no request owes (HOST-01, HOST-06, HOST-16, HOST-17). Message 2 goes with
//! the join burst and a snapshot (SR "The join burst", "What each client message gets"),
//! and when the host's world globals change (SR "What the host pushes on its own"). One
//! that changes nothing the client holds, within the answer grace of a client message
//! that gets no such answer, answered that message: a request gets its whole answer, a
//! report the state change it implies, "nothing else".
//!
//! Message 1 is not judged so: it also rides the keepalive every 2 s (SR "Timed sends
//! that remain"), on a beat the pages give no tolerance for, and lands beside a
//! snapshot's own message 1, so a repeat of it cannot be told from a keepalive's.

use crate::ANSWER_GRACE_MS;
use crate::links::Sent;
use crate::rules::Rule;
use crate::verdict::Verdict;
use vex_wire::activity::ids;
use vex_wire::time::Instant;

/// What the last message 2 said.
#[derive(Debug, Default)]
pub(crate) struct Unasked {
    world: Option<Vec<u8>>,
}

/// The rule a host breaks by answering `sent` with a snapshot part: its own rows for
/// the authority answers (HOST-16) and the abdication (HOST-17), HOST-06 for a message
/// naming a session the link does not own, HOST-01 for every other.
fn broken_by_answering(sent: &Sent, own_handle: u64) -> Rule {
    match sent.message {
        _ if sent.handle != own_handle => Rule::Host06,
        ids::RESET_AUTHORITY_ACK | ids::AUTHORITY_BUBBLE_MASK | ids::AUTHORITY_FULL_MASK => {
            Rule::Host16
        }
        ids::ABDICATE_AUTHORITY => Rule::Host17,
        _ => Rule::Host01,
    }
}

impl Unasked {
    /// Message 2, push `idx` at `now`, with `payload`; `owed` when the burst or a snapshot
    /// request owes it; `sent`, the client's last activity message, and the client's
    /// `own_handle`.
    pub(super) fn check(
        &mut self,
        verdict: &mut Verdict,
        (now, idx): (Instant, u64),
        payload: &[u8],
        owed: bool,
        (sent, own_handle): (Option<&Sent>, u64),
    ) {
        let repeats = self.world.replace(payload.to_vec()).as_deref() == Some(payload);
        let Some(sent) = sent.filter(|s| now.since(s.at) < ANSWER_GRACE_MS) else {
            return;
        };
        if owed || !repeats {
            return;
        }
        let reason = format!(
            "a message 2 that changes nothing the client holds and no request owes, {} ms after the client's message {}, which gets no such answer",
            now.since(sent.at),
            sent.message
        );
        verdict.violate(
            broken_by_answering(sent, own_handle),
            Some(idx),
            None,
            reason,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(message: u32, handle: u64, ms: u64) -> Sent {
        Sent {
            message,
            handle,
            at: Instant::from_millis(ms),
        }
    }

    /// Messages 2 `(payload, at)` after `last`, the client's message, owed by nothing: the
    /// rules reported.
    fn judged(last: Sent, pushes: &[(&[u8], u64)]) -> Vec<Rule> {
        let (mut u, mut v) = (Unasked::default(), Verdict::new());
        for (i, (payload, ms)) in pushes.iter().enumerate() {
            let now = Instant::from_millis(*ms);
            let earlier = (last.at <= now).then_some(&last);
            u.check(&mut v, (now, i as u64), payload, false, (earlier, 7));
        }
        v.rules()
    }

    /// A repeat of message 2 within the grace of a report is blamed on the report:
    /// HOST-16 for 29, 31 and 32, HOST-17 for 33, HOST-06 for another session's message,
    /// HOST-01 for any other.
    #[test]
    fn a_repeat_soon_after_a_report_answered_it() {
        for (message, handle, rule) in [
            (ids::RESET_AUTHORITY_ACK, 7, Rule::Host16),
            (ids::AUTHORITY_BUBBLE_MASK, 7, Rule::Host16),
            (ids::AUTHORITY_FULL_MASK, 7, Rule::Host16),
            (ids::ABDICATE_AUTHORITY, 7, Rule::Host17),
            (ids::STATE_REFRESH, 8, Rule::Host06),
            (ids::PATCH_EPOCH, 7, Rule::Host01),
            (ids::SENSOR_SENSE_UPDATE, 7, Rule::Host01),
        ] {
            let last = sent(message, handle, 2_000);
            let edge = 2_000 + ANSWER_GRACE_MS - 1;
            for at in [2_000, edge] {
                let got = judged(last, &[(&[1], 0), (&[1], at)]);
                assert_eq!(got, [rule], "after {message}, at {at} ms");
            }
        }
    }

    /// Silent: a changed body (the host's own change), a push at the end of the grace or
    /// before the report, the first message 2, and one a request owes.
    #[test]
    fn a_change_or_a_late_push_is_no_answer() {
        let last = sent(ids::PATCH_EPOCH, 7, 2_000);
        let grace_end = 2_000 + ANSWER_GRACE_MS;
        for pushes in [
            vec![(&[1][..], 0), (&[2][..], 2_100)],
            vec![(&[1][..], 0), (&[1][..], grace_end)],
            vec![(&[1][..], 0), (&[1][..], 1_999)],
            vec![(&[1][..], 2_100)],
        ] {
            assert_eq!(judged(last, &pushes), [], "{pushes:?}");
        }
        let (mut u, mut v) = (Unasked::default(), Verdict::new());
        for (i, ms) in [2_050, 2_100].into_iter().enumerate() {
            let now = Instant::from_millis(ms);
            u.check(&mut v, (now, i as u64), &[1], true, (Some(&last), 7));
        }
        assert_eq!(v.rules(), [], "owed by a request");
    }
}
