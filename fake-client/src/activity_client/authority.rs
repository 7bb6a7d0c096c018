//! Entity-slot authority as the client keeps it (AH "The main messages": on 28 the client
//! rebuilds its authority mask and echoes the token in 29, on 30 it answers with
//! per-bubble masks, 31, then the full mask, 32; SR "What each client message gets": its
//! purge request, 27, gets a notice that keeps its mask and reason; 33 gives authority up;
//! SLOTS-05, HOST-08).
//!
//! The client's authority mask is the lease it was granted: the slots whose entities it
//! creates and runs.

use crate::had_time_to_answer;
use crate::links::Outgoing;
use crate::rules::Choice::PurgeNoticeLayout;
use crate::rules::Rule;
use crate::verdict::Verdict;
use vex_wire::activity::authority::{
    Abdication, AuthorityToken, BubbleMaskAnswer, FullMaskAnswer, Purge,
};
use vex_wire::activity::body::Body;
use vex_wire::activity::ids;
use vex_wire::activity::small::{EntitySlotMask, SLOT_MASK_LEN};
use vex_wire::bits::BitReader;
use vex_wire::time::Instant;

/// The reason the client's purge request gives: 1, a documented value (-1 to 6 fit).
const PURGE_REASON: i8 = 1;
/// Slots of the lease the client asks to purge, or gives up: its lowest eight.
const RELEASED_SLOTS: usize = 8;

/// The client's scripted purge request and abdication, and the purge it is owed an
/// answer to.
#[derive(Debug, Default)]
pub(crate) struct Authority {
    /// When the client sends message 27.
    purge_at: Option<Instant>,
    /// When the client sends message 33.
    abdicate_at: Option<Instant>,
    /// The purge request sent, and when: its notice is owed (HOST-08).
    owed: Option<(Purge, Instant)>,
}

/// The lowest `n` slots of `lease`.
fn lowest(lease: &EntitySlotMask, n: usize) -> EntitySlotMask {
    let mut m = EntitySlotMask::empty();
    for i in (0..lease.0.len() * 8).filter(|&i| lease.get(i)).take(n) {
        m.set(i);
    }
    m
}

fn outgoing(message: u32, body: Result<Vec<u8>, vex_wire::bits::BitError>) -> Outgoing {
    Outgoing {
        message,
        body: body.unwrap_or_default(), // fixed layouts of in-range values: never fail
    }
}

impl Authority {
    /// Message 27 is sent at `purge_at` and 33 at `abdicate_at`, if the script sends them.
    pub(super) fn schedule(&mut self, purge_at: Option<Instant>, abdicate_at: Option<Instant>) {
        self.purge_at = purge_at;
        self.abdicate_at = abdicate_at;
    }

    /// When message 27 is due.
    pub(crate) fn purge_due(&self) -> Option<Instant> {
        self.purge_at
    }

    /// When message 33 is due.
    pub(crate) fn abdicate_due(&self) -> Option<Instant> {
        self.abdicate_at
    }

    /// Message 27 at `now`: the lowest slots of `lease`, which the client asks the host to
    /// purge; the notice is owed.
    pub(crate) fn purge(&mut self, now: Instant, lease: &EntitySlotMask) -> Outgoing {
        self.purge_at = None;
        let request = Purge {
            reason: PURGE_REASON,
            mask: lowest(lease, RELEASED_SLOTS),
        };
        let out = outgoing(ids::PURGE_REQUEST, request.encode());
        self.owed = Some((request, now));
        out
    }

    /// Message 33: the client gives up authority over the lowest slots of `lease` in
    /// `bubble`.
    pub(crate) fn abdicate(&mut self, lease: &EntitySlotMask, bubble: u8) -> Outgoing {
        self.abdicate_at = None;
        let body = Abdication {
            selector: bubble,
            mask: lowest(lease, RELEASED_SLOTS),
        };
        outgoing(ids::ABDICATE_AUTHORITY, body.encode())
    }

    /// Message 28: the client rebuilds its mask from `lease` and echoes the token in 29.
    pub(super) fn on_reset(verdict: &mut Verdict, idx: u64, payload: &[u8]) -> Option<Outgoing> {
        let token = token(verdict, idx, ids::RESET_AUTHORITY, payload)?;
        Some(outgoing(
            ids::RESET_AUTHORITY_ACK,
            AuthorityToken(token).encode(),
        ))
    }

    /// Message 30: one 31 for the bubble the client stands in, then 32 with its whole
    /// mask, both carrying the token.
    pub(super) fn on_query(
        verdict: &mut Verdict,
        idx: u64,
        payload: &[u8],
        lease: &EntitySlotMask,
        bubble: u8,
    ) -> Vec<Outgoing> {
        let Some(token) = token(verdict, idx, ids::QUERY_AUTHORITY, payload) else {
            return Vec::new();
        };
        let per_bubble = BubbleMaskAnswer {
            token,
            selector: bubble,
            mask: lease.clone(),
        };
        let full = FullMaskAnswer {
            token,
            mask: lease.clone(),
        };
        vec![
            outgoing(ids::AUTHORITY_BUBBLE_MASK, per_bubble.encode()),
            outgoing(ids::AUTHORITY_FULL_MASK, full.encode()),
        ]
    }

    /// Message 25: a notice answering the client's purge request keeps its mask and
    /// reason (HOST-08, SR "What each client message gets"); one the client did not ask
    /// for is the host's own purge. AH gives message 25 as a 1,024-byte mask: a body of
    /// exactly that is read so, and must keep the request's mask; a shorter one does not
    /// decode (BODY-04). A longer one is read in message 27's layout, reason then mask,
    /// the layout Vex chose for a notice that keeps both: advisory.
    pub(super) fn on_purge_notice(&mut self, verdict: &mut Verdict, idx: u64, payload: &[u8]) {
        let (msg, len) = (ids::PURGE_NOTICE, payload.len());
        if let Err(e) = BitReader::new(payload).read_stream(SLOT_MASK_LEN * 8) {
            return verdict.undecodable(Rule::Body04, idx, msg, len, &e);
        }
        let Some((request, _)) = self.owed.take() else {
            return;
        };
        if len == SLOT_MASK_LEN {
            let mask = EntitySlotMask(payload.to_vec());
            if mask != request.mask {
                let reason = format!(
                    "the purge notice's mask holds {} slots, not the {} the client asked to purge",
                    mask.count(),
                    request.mask.count()
                );
                verdict.violate(Rule::Host08, Some(idx), None, reason);
            }
            return;
        }
        let Ok(notice) = Purge::decode(payload) else {
            return; // a body of 1,025 bytes or more holds 27's layout
        };
        let mut lost = Vec::new();
        if notice.reason != request.reason {
            lost.push(format!("reason {} for {}", notice.reason, request.reason));
        }
        if notice.mask != request.mask {
            lost.push(format!(
                "a mask of {} slots for the {} asked",
                notice.mask.count(),
                request.mask.count()
            ));
        }
        if !lost.is_empty() {
            let reason = format!(
                "the purge notice, read in message 27's layout, does not keep the client's request: {}",
                lost.join(", ")
            );
            verdict.advise(Rule::Host08, PurgeNoticeLayout, Some(idx), None, reason);
        }
    }

    /// At the deadline `now`: a purge request the host had time to answer with message 25
    /// and did not (HOST-08: SR names the notice, not its id, so the finding is advisory).
    pub(super) fn check_answered(&self, verdict: &mut Verdict, now: Instant) {
        if let Some((_, at)) = self.owed
            && had_time_to_answer(at, now)
        {
            let reason = "message 27 got no purge notice (message 25)".to_string();
            verdict.advise(Rule::Host08, PurgeNoticeLayout, None, None, reason);
        }
    }
}

/// The token of message `msg` (28 or 30); a body too short for it is dropped (BODY-04).
fn token(verdict: &mut Verdict, idx: u64, msg: u32, payload: &[u8]) -> Option<u32> {
    match AuthorityToken::decode(payload) {
        Ok(t) => Some(t.0),
        Err(e) => {
            verdict.undecodable(Rule::Body04, idx, msg, payload.len(), &e);
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ANSWER_GRACE_MS;

    /// AH's bare 1,024-byte mask that keeps the request passes, one slot off is HOST-08 on
    /// the pages; a notice in message 27's layout that keeps mask and reason passes, and
    /// one with another reason or mask is HOST-08, advisory; one byte short of the mask
    /// does not decode; none at all is HOST-08, advisory; an unasked notice is the host's
    /// own.
    #[test]
    fn the_purge_notice_keeps_mask_and_reason() {
        let lease = EntitySlotMask::with_range(0..32);
        let notice = |reason: i8, mask: EntitySlotMask| Purge { reason, mask }.encode().unwrap();
        let asked = lowest(&lease, RELEASED_SLOTS);
        let short = asked.0[..SLOT_MASK_LEN - 1].to_vec();
        let cases = [
            (asked.0.clone(), vec![]),
            (lowest(&lease, 7).0, vec![(Rule::Host08, false)]),
            (lowest(&lease, 9).0, vec![(Rule::Host08, false)]),
            (short, vec![(Rule::Body04, false)]),
            (notice(PURGE_REASON, asked.clone()), vec![]),
            (
                notice(PURGE_REASON + 1, asked.clone()),
                vec![(Rule::Host08, true)],
            ),
            (
                notice(PURGE_REASON, lowest(&lease, 7)),
                vec![(Rule::Host08, true)],
            ),
            (
                notice(PURGE_REASON, EntitySlotMask::empty()),
                vec![(Rule::Host08, true)],
            ),
        ];
        for (body, want) in cases {
            let (mut a, mut v) = (Authority::default(), Verdict::new());
            a.purge(Instant::default(), &lease);
            a.on_purge_notice(&mut v, 1, &body);
            if !want.iter().any(|(r, _)| *r == Rule::Body04) {
                a.check_answered(&mut v, Instant::from_millis(ANSWER_GRACE_MS));
            }
            let got: Vec<(Rule, bool)> = v
                .violations()
                .iter()
                .map(|f| (f.rule, f.advisory()))
                .collect();
            assert_eq!(got, want, "{} bytes", body.len());
        }
        let (mut a, mut v) = (Authority::default(), Verdict::new());
        a.purge(Instant::default(), &lease);
        a.check_answered(&mut v, Instant::from_millis(ANSWER_GRACE_MS - 1));
        assert!(v.rules().is_empty(), "within the grace");
        a.check_answered(&mut v, Instant::from_millis(ANSWER_GRACE_MS));
        assert_eq!(v.rules(), [Rule::Host08], "unanswered");
        let (mut a, mut v) = (Authority::default(), Verdict::new());
        a.on_purge_notice(&mut v, 1, &notice(3, asked));
        assert!(v.rules().is_empty(), "the host's own purge");
    }

    /// A reset is echoed with its token; a query gets 31 then 32 with it; a token body
    /// that does not decode is dropped (BODY-04).
    #[test]
    fn resets_and_queries_are_answered_with_their_token() {
        let mut v = Verdict::new();
        let ack = Authority::on_reset(&mut v, 1, &7u32.to_be_bytes()).unwrap();
        assert_eq!(
            (ack.message, ack.body),
            (ids::RESET_AUTHORITY_ACK, 7u32.to_be_bytes().to_vec())
        );
        let lease = EntitySlotMask::with_range(0..4);
        let answers = Authority::on_query(&mut v, 2, &9u32.to_be_bytes(), &lease, 0);
        let messages: Vec<u32> = answers.iter().map(|o| o.message).collect();
        assert_eq!(
            messages,
            [ids::AUTHORITY_BUBBLE_MASK, ids::AUTHORITY_FULL_MASK]
        );
        assert_eq!(
            FullMaskAnswer::decode(&answers[1].body).unwrap().mask,
            lease
        );
        assert!(v.rules().is_empty());
        assert!(Authority::on_reset(&mut v, 3, &[0, 1, 2]).is_none());
        assert_eq!(v.rules(), [Rule::Body04]);
    }
}
