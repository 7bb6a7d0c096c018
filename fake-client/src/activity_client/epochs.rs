//! The two epochs of an activity client: the replication epoch the host advances with
//! message 44 (AH "Hazards for a host"; EPOCH-01, EPOCH-02), and the patch epoch the
//! client reports with message 52 every second, which every message 5 must echo (AH
//! "join_result", "Message 5"; LINK-02, AUTH-01, AUTH-02).

use super::bubble_grants::BubbleGrants;
use super::roster::Roster;
use crate::config::PATCH_EPOCH_INTERVAL_MS;
use crate::links::Outgoing;
use crate::rules::Rule;
use crate::verdict::Verdict;
use vex_wire::activity::body::Body;
use vex_wire::activity::ids;
use vex_wire::activity::small::{AdvanceEpoch, PatchEpoch};
use vex_wire::time::Instant;

/// Bit offset of message 44's abort bit, after the 8-bit epoch.
const ABORT_BIT: usize = 8;
/// Bit offset of message 5's patch epoch, after the hardwipe token.
const PATCH_EPOCH_BIT: usize = 8;

/// The replication epoch and the message 52 schedule (AH "Hazards for a host",
/// "join_result").
#[derive(Debug, Default)]
pub(crate) struct Epochs {
    /// The replication epoch: join_result field 7, then each message 44's (EPOCH-01).
    replication: u8,
    /// When message 52 is next due.
    patch_due: Option<Instant>,
    /// The latest message 52 the client sent (AUTH-01, AUTH-02).
    patch_sent: Option<[u64; 2]>,
    /// When the client changes its patch epoch, if the script changes it.
    change_at: Option<Instant>,
    /// The patch epoch it reports since it changed it, and the one before with when it
    /// changed (AUTH-01: a message 5 echoes the latest message 52).
    changed: Option<([u64; 2], [u64; 2], Instant)>,
}

impl Epochs {
    /// The join was accepted at `now` with `initial` as the replication epoch: message
    /// 52 is due at once, and the patch epoch changes at `change_at` if the script says.
    pub(super) fn start(&mut self, now: Instant, initial: u8, change_at: Option<Instant>) {
        self.replication = initial;
        self.change_at = change_at;
        self.patch_due = Some(now);
    }

    /// The latest message 52 the client sent, which its message 6 repeats.
    pub(crate) fn patch_sent(&self) -> Option<[u64; 2]> {
        self.patch_sent
    }

    /// When message 52 is next due.
    pub(crate) fn patch_due(&self) -> Option<Instant> {
        self.patch_due
    }

    /// When the client changes its patch epoch.
    pub(crate) fn change_due(&self) -> Option<Instant> {
        self.change_at
    }

    /// The client changes its patch epoch at `now` (a patch applied): its next message
    /// 52, due at once, reports the new one.
    pub(crate) fn change_patch(&mut self, now: Instant, configured: [u64; 2]) {
        self.change_at = None;
        let before = self.patch_sent.unwrap_or(configured);
        let after = [before[0], before[1] ^ 1];
        self.changed = Some((after, before, now));
        self.patch_due = Some(now);
    }

    /// Message 52 sent at `now`, reporting `configured` or the epoch the client changed
    /// to; the next is due a second later.
    pub(crate) fn send_patch(&mut self, now: Instant, configured: [u64; 2]) -> Outgoing {
        let epoch = self.changed.map_or(configured, |(after, ..)| after);
        self.patch_due = Some(now + PATCH_EPOCH_INTERVAL_MS);
        self.patch_sent = Some(epoch);
        Outgoing {
            message: ids::PATCH_EPOCH,
            body: PatchEpoch(epoch).encode().unwrap_or_default(), // 128 bits: never fails
        }
    }

    /// Message 5's prefix, judged before the rest as the client reads it whole before it
    /// looks at the epoch: a message 5 before the client's first message 52 (AUTH-02), or
    /// one whose patch epoch is not the last the client sent, is dropped. One that echoes
    /// the epoch before the client changed it may have left the host before the new
    /// message 52 reached it, and is dropped without a word, unless it answers a request
    /// the client sent after the change (`asked_at`): reports reach the host in order (SR
    /// "Client reports come in"), so the host had the new epoch (AUTH-01). Any other epoch
    /// is AUTH-01. The prefix is read into `roster`'s next message; for a message 5 that
    /// passes, the bits it took.
    pub(super) fn check_auth_prefix(
        &self,
        verdict: &mut Verdict,
        (idx, asked_at): (u64, Option<Instant>),
        payload: &[u8],
        grants: &mut BubbleGrants,
        roster: &mut Roster,
    ) -> Option<usize> {
        let f = Some(idx);
        let Some(sent) = self.patch_sent else {
            let reason = "message 5 before the client's first message 52".to_string();
            verdict.violate(Rule::Auth02, f, None, reason);
            return None;
        };
        let (prefix_bits, prefix) = match roster.read_prefix(payload) {
            Ok(read) => read,
            Err(e) => {
                verdict.undecodable(
                    Rule::Body04,
                    idx,
                    ids::SENSOR_AUTH_UPDATE,
                    payload.len(),
                    &e,
                );
                return None;
            }
        };
        // the client reads the bubble block with the prefix, before it looks at the epoch,
        // and its mirror takes every token sent (AH "How the client applies an Auth body")
        if let Some(block) = &prefix.bubble_block {
            grants.apply(verdict, idx, block);
        }
        if prefix.patch_epoch != sent {
            let before = self
                .changed
                .filter(|(_, before, _)| prefix.patch_epoch == *before);
            let after_change = before.is_some_and(|(.., at)| asked_at.is_some_and(|a| a >= at));
            if before.is_none() || after_change {
                let why = if after_change {
                    "echoes the message 52 before the latest, in the answer to a request sent after the latest"
                } else {
                    "is no message 52 the client sent"
                };
                let reason = format!(
                    "patch epoch {:x?} {why}: the client sent {sent:x?}",
                    prefix.patch_epoch
                );
                verdict.violate(Rule::Auth01, f, Some(PATCH_EPOCH_BIT), reason);
            }
            return None;
        }
        Some(prefix_bits)
    }

    /// Message 44: the abort bit sets the permanent give-up flag (EPOCH-02); the epoch
    /// must be the one the client holds plus one, or the client ends with "incorrect
    /// epoch sequence" (EPOCH-01).
    pub(super) fn on_advance(&mut self, verdict: &mut Verdict, idx: u64, payload: &[u8]) {
        let f = Some(idx);
        let m = match AdvanceEpoch::decode(payload) {
            Ok(m) => m,
            Err(e) => {
                let (msg, len) = (ids::ADVANCE_REPLICATION_EPOCH, payload.len());
                return verdict.undecodable(Rule::Body04, idx, msg, len, &e);
            }
        };
        let held = self.replication;
        let next = held.wrapping_add(1);
        if m.epoch == next {
            self.replication = next;
        }
        if m.abort {
            let reason = "abort bit set: the give-up flag is permanent, and message 5 is ignored for the rest of the session".to_string();
            verdict.violate(Rule::Epoch02, f, Some(ABORT_BIT), reason);
        }
        if m.epoch != next {
            let reason = format!(
                "epoch {} while the client holds {held}: only {next} follows; the client ends with incorrect epoch sequence",
                m.epoch
            );
            verdict.violate(Rule::Epoch01, f, Some(0), reason);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::Outcome;
    use vex_wire::activity::sensor_auth::AuthPrefix;

    fn at(replication: u8) -> Epochs {
        Epochs {
            replication,
            ..Epochs::default()
        }
    }

    fn body(epoch: u8, abort: bool) -> Vec<u8> {
        AdvanceEpoch { epoch, abort }.encode().unwrap()
    }

    /// The epoch is 8 bits: 0 follows 255; the same epoch again ends the client.
    #[test]
    fn the_epoch_wraps_and_a_repeat_ends_the_client() {
        let (mut e, mut v) = (at(255), Verdict::new());
        e.on_advance(&mut v, 1, &body(0, false));
        assert!(v.violations().is_empty());
        e.on_advance(&mut v, 2, &body(0, false));
        assert_eq!(v.rules(), [Rule::Epoch01]);
        assert!(matches!(v.outcome(), Outcome::Ended { .. }));
    }

    /// The abort bit is reported and sets the give-up flag even with the right epoch,
    /// and the epoch still advances.
    #[test]
    fn the_abort_bit_sets_the_give_up_flag_and_the_epoch_advances() {
        let (mut e, mut v) = (at(7), Verdict::new());
        e.on_advance(&mut v, 1, &body(8, true));
        assert_eq!(v.rules(), [Rule::Epoch02]);
        assert_eq!(v.gave_up(), Some(Rule::Epoch02));
        e.on_advance(&mut v, 2, &body(9, false));
        assert_eq!(v.violations().len(), 1);
    }

    /// A message 5 prefix echoing `epoch`, with roster enable set.
    fn prefix(epoch: [u64; 2]) -> Vec<u8> {
        AuthPrefix::echoing(epoch).encode().unwrap()
    }

    /// AUTH-01: message 5 echoes the latest message 52, both 64-bit words. The latest
    /// passes; a mismatch in word 0 alone or word 1 alone, at its lowest and its highest
    /// bit, the words swapped, and the previous message 52 echoed are each dropped
    /// (nothing after the prefix is read) and reported alone.
    #[test]
    fn message_5_echoes_the_latest_message_52() {
        let (previous, latest) = ([1, 2], [0x0102_0304_0506_0708, 0x1112_1314_1516_1718]);
        let mut e = Epochs::default();
        e.send_patch(Instant::from_millis(0), previous);
        e.send_patch(Instant::from_millis(1000), latest);
        let judged = |epoch: [u64; 2]| {
            let mut v = Verdict::new();
            let read = e.check_auth_prefix(
                &mut v,
                (1, None),
                &prefix(epoch),
                &mut BubbleGrants::default(),
                &mut Roster::default(),
            );
            (read.is_some(), v.rules())
        };
        assert_eq!(judged(latest), (true, vec![]), "the latest");
        let mut wrong = vec![
            ("the previous message 52".to_string(), previous),
            ("the words swapped".to_string(), [latest[1], latest[0]]),
        ];
        for word in 0..2 {
            for bit in [0, 63] {
                let mut epoch = latest;
                epoch[word] ^= 1 << bit;
                wrong.push((format!("word {word}, bit {bit} flipped"), epoch));
            }
        }
        for (what, epoch) in wrong {
            assert_eq!(
                judged(epoch),
                (false, vec![Rule::Auth01]),
                "{what}: {epoch:x?}"
            );
        }
    }

    /// AUTH-01 after the client changed its epoch at 3 s: the new epoch passes; the one
    /// before is dropped without a word while it may have crossed the new message 52,
    /// and is AUTH-01 in the answer to a request sent at or after the change; an epoch the
    /// client never sent is AUTH-01 either way.
    #[test]
    fn after_a_change_the_old_epoch_is_judged_by_what_it_answers() {
        let configured = [7, 8];
        let mut e = Epochs::default();
        e.send_patch(Instant::from_millis(0), configured);
        let change = Instant::from_millis(3_000);
        e.change_patch(change, configured);
        e.send_patch(change, configured);
        let new = e.patch_sent().unwrap();
        assert_ne!(new, configured);
        let judged = |epoch: [u64; 2], asked_at: Option<u64>| {
            let mut v = Verdict::new();
            let at = asked_at.map(Instant::from_millis);
            let grants = &mut BubbleGrants::default();
            let read = e.check_auth_prefix(
                &mut v,
                (1, at),
                &prefix(epoch),
                grants,
                &mut Default::default(),
            );
            (read.is_some(), v.rules())
        };
        assert_eq!(judged(new, None), (true, vec![]));
        assert_eq!(judged(new, Some(4_000)), (true, vec![]));
        assert_eq!(judged(configured, None), (false, vec![]), "in flight");
        assert_eq!(
            judged(configured, Some(2_999)),
            (false, vec![]),
            "asked before"
        );
        let latched = (false, vec![Rule::Auth01]);
        assert_eq!(
            judged(configured, Some(3_000)),
            latched,
            "asked at the change"
        );
        assert_eq!(judged(configured, Some(4_000)), latched, "asked after");
        assert_eq!(judged([9, 9], None), latched, "never sent");
    }

    /// AUTH-02: before the client's first message 52 every message 5 is dropped and
    /// reported as AUTH-02 alone, whatever its epoch (the one the client is about to send,
    /// zero, any other) and even when it is too short to hold a prefix; so is one after
    /// the join started the schedule (message 52 due at once) but before it went out. The
    /// same message 5, echoing it, passes once the first message 52 is sent.
    #[test]
    fn no_message_5_before_the_first_message_52() {
        let configured = [0x0102_0304_0506_0708, 0x1112_1314_1516_1718];
        let judged = |e: &Epochs, payload: &[u8]| {
            let mut v = Verdict::new();
            let grants = &mut BubbleGrants::default();
            let read =
                e.check_auth_prefix(&mut v, (1, None), payload, grants, &mut Default::default());
            let got: Vec<_> = v.violations().iter().map(|x| (x.rule, x.frame)).collect();
            (read.is_some(), got)
        };
        let dropped = (false, vec![(Rule::Auth02, Some(1))]);
        let mut scheduled = Epochs::default();
        scheduled.start(Instant::from_millis(0), 0, None);
        assert_eq!(scheduled.patch_due(), Some(Instant::from_millis(0)));
        for (what, e) in [("never joined", Epochs::default()), ("52 due", scheduled)] {
            for (epoch_what, payload) in [
                ("the epoch the client will send", prefix(configured)),
                ("a zero epoch", prefix([0, 0])),
                ("another epoch", prefix([9, 9])),
                ("one byte", vec![0]),
            ] {
                assert_eq!(judged(&e, &payload), dropped, "{what}: {epoch_what}");
            }
        }
        let mut sent = Epochs::default();
        sent.start(Instant::from_millis(0), 0, None);
        sent.send_patch(Instant::from_millis(0), configured);
        assert_eq!(
            judged(&sent, &prefix(configured)),
            (true, vec![]),
            "after it"
        );
    }
}
