//! The QoS probe of the session the client is in, when the script sends one (NS "QoS
//! probe and the session advertisement"; QOS-01 to QOS-06): the request to the Activity
//! Host's address on UDP, and the reply judged as the client judges one before it joins
//! a session matchmaking found: a session whose reply fails a check is marked unsuitable
//! and never joined.

use crate::rules::{Choice, Rule};
use crate::verdict::Verdict;
use vex_wire::peer::advertisement::{
    AdvertisementHeader, GROUP_SESSION, GROUP_SESSION_DESCRIPTOR_LEN, HEADER_BYTES, Unsuitable,
    judge,
};
use vex_wire::peer::qos::{QosReply, QosRequest};
use vex_wire::time::Instant;

/// How long the client waits for the reply before it marks the session unsuitable: Vex's
/// choice [`Choice::QosReplyWait`] (the pages give no time; a loopback or LAN reply takes
/// milliseconds).
pub(crate) const REPLY_WITHIN_MS: u64 = 3_000;
/// The probe id the client routes the reply by.
const PROBE_ID: u32 = 0x5145_0001;

/// The probe: when it is due, and the request once sent.
#[derive(Debug, Default)]
pub(crate) struct QosProbe {
    due: Option<Instant>,
    sent: Option<(QosRequest, Instant)>,
    answered: bool,
}

impl QosProbe {
    /// The probe goes out at `at`, if the script sends one.
    pub(crate) fn schedule(&mut self, at: Option<Instant>) {
        self.due = at;
    }

    /// When the probe is due.
    pub(crate) fn due(&self) -> Option<Instant> {
        self.due
    }

    /// When the reply is overdue.
    pub(crate) fn reply_due(&self) -> Option<Instant> {
        let (_, at) = self.sent.filter(|_| !self.answered)?;
        Some(at + REPLY_WITHIN_MS)
    }

    /// The probe of `session` at `now`, asking for the payload; its security id is the
    /// session's low 32 bits (Vex's choice [`Choice::QosSecurityId`]).
    pub(crate) fn send(&mut self, now: Instant, session: u64) -> QosRequest {
        self.due = None;
        let request = QosRequest::new(now.millis(), PROBE_ID, session as u32, true);
        self.sent = Some((request, now));
        request
    }

    /// No reply within [`REPLY_WITHIN_MS`]: the session is marked unsuitable (QOS-02).
    pub(crate) fn report_unanswered(&mut self, verdict: &mut Verdict) {
        self.answered = true;
        let reason = format!(
            "no QoS reply within {REPLY_WITHIN_MS} ms: the session is marked unsuitable and never joined"
        );
        verdict.advise(Rule::Qos02, Choice::QosReplyWait, None, None, reason);
    }

    /// A datagram from the host, judged as the reply to the probe of `session`; one that
    /// comes with no probe out, or after the reply, is not the probe's.
    pub(crate) fn on_reply(&mut self, verdict: &mut Verdict, bytes: &[u8], session: u64) {
        let Some((request, _)) = self.sent.filter(|_| !self.answered) else {
            return;
        };
        self.answered = true;
        for Breach { rule, on, reason } in breaches(&request, bytes, session) {
            match on {
                Some(choice) => verdict.advise(rule, choice, None, None, reason),
                None => verdict.violate(rule, None, None, reason),
            }
        }
    }
}

/// One thing a reply breaks: the rule, the choice of Vex's the finding rests on when it
/// rests on one, and why.
struct Breach {
    rule: Rule,
    on: Option<Choice>,
    reason: String,
}

/// A breach of `rule` on the pages.
fn paged(rule: Rule, reason: String) -> Breach {
    Breach {
        rule,
        on: None,
        reason,
    }
}

/// What of QOS-01 to QOS-06 a reply to `request` for `session` breaks; empty when the
/// client would join the session.
fn breaches(request: &QosRequest, bytes: &[u8], session: u64) -> Vec<Breach> {
    let reply = match QosReply::read(bytes) {
        Ok(r) => r,
        Err(e) => return vec![paged(Rule::Qos03, format!("the QoS reply is not one: {e}"))],
    };
    let head = reply.head;
    let mut found = Vec::new();
    let echoes = [
        (
            "probe id",
            head.probe_id.get().into(),
            request.probe_id.get().into(),
        ),
        ("send time", head.send_time.get(), request.send_time.get()),
        (
            "security id",
            head.security_id.get().into(),
            request.security_id.get().into(),
        ),
    ];
    for (field, got, sent) in echoes {
        if got != sent {
            let reason = format!("the reply's {field} is {got:#x}, not the request's {sent:#x}");
            found.push(paged(Rule::Qos03, reason));
        }
    }
    if head.accepted == 0 {
        let reason = "the reply refuses the probe (accepted 0): the session is not joined";
        found.push(paged(Rule::Qos04, reason.to_string()));
    }
    match judge(reply.payload, GROUP_SESSION) {
        Ok(header) => found.extend(judge_block(&header, reply.payload.len(), session)),
        Err(why) => found.push(paged(
            rule_of(&why),
            format!("the session is unsuitable: {why}"),
        )),
    }
    found
}

/// The rule a failed header check breaks: an empty or undecodable payload is QOS-05's,
/// the version, kind and build checks QOS-01's, the payload type QOS-06's.
fn rule_of(why: &Unsuitable) -> Rule {
    match why {
        Unsuitable::PayloadEmpty | Unsuitable::Undecodable(_) => Rule::Qos05,
        Unsuitable::IncompatibleVersions(_)
        | Unsuitable::Kind(_)
        | Unsuitable::BuildHighBelow(_)
        | Unsuitable::BuildLowAbove(_) => Rule::Qos01,
        Unsuitable::PayloadType { .. } => Rule::Qos06,
    }
}

/// The block past its header: it names the session probed (QOS-06, on Vex's choice of
/// which session a probe names), and holds payload type 2's 688-byte descriptor; shorter,
/// it does not decode (QOS-05). The descriptor's own fields are not on the pages, so they
/// are not judged.
fn judge_block(header: &AdvertisementHeader, len: usize, session: u64) -> Vec<Breach> {
    let mut found = Vec::new();
    if header.session_id != session {
        let reason = format!(
            "the advertisement names session {:#x}, not the one probed, {session:#x}",
            header.session_id
        );
        found.push(Breach {
            rule: Rule::Qos06,
            on: Some(Choice::QosSecurityId),
            reason,
        });
    }
    let least = HEADER_BYTES + GROUP_SESSION_DESCRIPTOR_LEN;
    if len < least {
        let reason = format!(
            "a {len}-byte advertisement cannot hold its header and the 688-byte group-session descriptor ({least} bytes): it does not decode"
        );
        found.push(paged(Rule::Qos05, reason));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use vex_wire::bits::written;
    use vex_wire::peer::advertisement::{BLOCK_LEN, FULL_ADVERTISEMENT};
    use vex_wire::peer::qos::QosReplyHead;
    use zerocopy::FromBytes;

    const SESSION: u64 = 0x9EAA_3001_0020_0001;

    fn request() -> QosRequest {
        QosRequest::new(1_234, PROBE_ID, SESSION as u32, true)
    }

    /// A reply as our host sends it, with the header `edit` leaves and `len` bytes of
    /// block.
    fn reply(edit: impl FnOnce(&mut AdvertisementHeader), len: usize) -> Vec<u8> {
        let mut header = AdvertisementHeader::for_session(SESSION);
        edit(&mut header);
        let mut block = written(|w| {
            header.write(w);
        })
        .unwrap();
        block.resize(len, 0);
        let head = QosReplyHead::answering(&request(), true, 0.0, block.len());
        QosReply {
            head,
            payload: &block,
        }
        .encode()
    }

    fn rules(bytes: &[u8]) -> Vec<Rule> {
        breaches(&request(), bytes, SESSION)
            .into_iter()
            .map(|b| b.rule)
            .collect()
    }

    /// The reply our host sends passes, at the page's size and at the least that holds
    /// the header and the descriptor.
    #[test]
    fn a_right_reply_passes() {
        assert_eq!(rules(&reply(|_| {}, BLOCK_LEN)), []);
        assert_eq!(
            rules(&reply(|_| {}, HEADER_BYTES + GROUP_SESSION_DESCRIPTOR_LEN)),
            []
        );
    }

    /// Each field of the head, broken alone, is named under its rule: the three echoes,
    /// the type and payload_len either way (QOS-03), accepted 0 (QOS-04).
    #[test]
    fn each_head_field_is_judged() {
        type Edit = fn(&mut QosReplyHead);
        let edits: [(Edit, Rule); 5] = [
            (|h| h.probe_id = (h.probe_id.get() ^ 1).into(), Rule::Qos03),
            (
                |h| h.send_time = (h.send_time.get() + 1).into(),
                Rule::Qos03,
            ),
            (
                |h| h.security_id = (h.security_id.get() ^ 1).into(),
                Rule::Qos03,
            ),
            (|h| h.kind = 40, Rule::Qos03),
            (|h| h.accepted = 0, Rule::Qos04),
        ];
        for (edit, rule) in edits {
            let mut bytes = reply(|_| {}, BLOCK_LEN);
            let mut head = QosReplyHead::read_from_prefix(&bytes).unwrap().0;
            edit(&mut head);
            bytes[..27].copy_from_slice(zerocopy::IntoBytes::as_bytes(&head));
            assert_eq!(rules(&bytes), [rule]);
        }
        let good = reply(|_| {}, BLOCK_LEN);
        assert_eq!(
            rules(&good[..good.len() - 1]),
            [Rule::Qos03],
            "a byte short"
        );
        assert_eq!(
            rules(&[good.as_slice(), &[0]].concat()),
            [Rule::Qos03],
            "a byte long"
        );
        assert_eq!(rules(&good[..26]), [Rule::Qos03], "no whole head");
    }

    /// The block: empty or too short to decode (QOS-05), each header check at its bound
    /// (QOS-01), the payload type and the session (QOS-06).
    #[test]
    fn each_block_check_is_judged() {
        let empty = QosReply {
            head: QosReplyHead::answering(&request(), true, 0.0, 0),
            payload: &[],
        };
        assert_eq!(rules(&empty.encode()), [Rule::Qos05]);
        assert_eq!(
            rules(&reply(|_| {}, 18)),
            [Rule::Qos05],
            "short of the header"
        );
        let least = HEADER_BYTES + GROUP_SESSION_DESCRIPTOR_LEN;
        assert_eq!(
            rules(&reply(|_| {}, least - 1)),
            [Rule::Qos05],
            "a byte short"
        );
        type Edit = fn(&mut AdvertisementHeader);
        let edits: [(Edit, Rule); 6] = [
            (|h| h.protocol_version = 0xA4F7, Rule::Qos01),
            (|h| h.kind = 4, Rule::Qos01),
            (|h| h.build_high = 86_656, Rule::Qos01),
            (|h| h.build_low = 86_658, Rule::Qos01),
            (|h| h.payload_type = FULL_ADVERTISEMENT, Rule::Qos06),
            (|h| h.session_id ^= 1, Rule::Qos06),
        ];
        for (edit, rule) in edits {
            assert_eq!(rules(&reply(edit, BLOCK_LEN)), [rule]);
        }
    }

    /// No reply within the wait is QOS-02, advisory; a reply then is not judged again,
    /// and one with no probe out is not the probe's.
    #[test]
    fn an_unanswered_probe_and_stray_replies() {
        let mut verdict = Verdict::new();
        let mut probe = QosProbe::default();
        probe.on_reply(&mut verdict, &[0], SESSION);
        assert!(verdict.violations().is_empty(), "no probe out");
        probe.schedule(Some(Instant::from_millis(10)));
        let request = probe.send(Instant::from_millis(10), SESSION);
        assert_eq!(probe.reply_due(), Some(Instant::from_millis(3_010)));
        probe.report_unanswered(&mut verdict);
        assert_eq!(verdict.rules(), [Rule::Qos02]);
        assert_eq!(probe.reply_due(), None);
        let late = QosReply {
            head: QosReplyHead::answering(&request, true, 0.0, 0),
            payload: &[],
        };
        probe.on_reply(&mut verdict, &late.encode(), SESSION);
        assert_eq!(
            verdict.rules(),
            [Rule::Qos02],
            "the late reply is not judged"
        );
    }
}
