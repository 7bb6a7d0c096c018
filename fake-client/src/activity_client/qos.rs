//! The QoS probe of the session the client is in, when the script sends one (NS "QoS
//! probe and the session advertisement"; QOS-01 to QOS-06): the request to the Activity
//! Host's address on UDP, and the reply judged as the client judges one before it joins
//! a session matchmaking found: a session whose reply fails a check is marked unsuitable
//! and never joined.

use crate::rules::{Choice, Rule};
use crate::verdict::Verdict;
use vex_wire::peer::advertisement::{
    AdvertisementHeader, GROUP_SESSION, GROUP_SESSION_DESCRIPTOR_LEN, Unsuitable, judge,
};
use vex_wire::peer::qos::{QosReply, QosRequest};
use vex_wire::time::Instant;

/// How long the client waits for the reply before it marks the session unsuitable: Vex's
/// choice [`Choice::QosReplyWait`] (the pages give no time; a loopback or LAN reply takes
/// milliseconds).
pub(crate) const REPLY_WITHIN_MS: u64 = 3_000;
/// The probe id the client routes the reply by.
const PROBE_ID: u32 = 0x5145_0001;
/// The security id the client sends, echoed back.
const SECURITY_ID: u32 = 0x0BAD_CAFE;
/// The header's bytes, rounded up (147 bits).
const HEADER_BYTES: usize = 19;

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

    /// The request at `now`, asking for the payload.
    pub(crate) fn send(&mut self, now: Instant) -> QosRequest {
        self.due = None;
        let request = QosRequest::new(now.millis(), PROBE_ID, SECURITY_ID, true);
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
        for (rule, reason) in breaches(&request, bytes, session) {
            verdict.violate(rule, None, None, reason);
        }
    }
}

/// What of QOS-01 to QOS-06 a reply to `request` for `session` breaks; empty when the
/// client would join the session.
fn breaches(request: &QosRequest, bytes: &[u8], session: u64) -> Vec<(Rule, String)> {
    let reply = match QosReply::read(bytes) {
        Ok(r) => r,
        Err(e) => return vec![(Rule::Qos03, format!("the QoS reply is not one: {e}"))],
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
            found.push((Rule::Qos03, reason));
        }
    }
    if head.accepted == 0 {
        let reason = "the reply refuses the probe (accepted 0): the session is not joined";
        found.push((Rule::Qos04, reason.to_string()));
    }
    match judge(reply.payload, GROUP_SESSION) {
        Ok(header) => found.extend(judge_block(&header, reply.payload.len(), session)),
        Err(why) => found.push((rule_of(&why), format!("the session is unsuitable: {why}"))),
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

/// The block past its header: it names the session probed, and holds payload type 2's
/// 688-byte descriptor (QOS-06); shorter, it does not decode (QOS-05). The descriptor's
/// own fields are not on the pages, so they are not judged.
fn judge_block(header: &AdvertisementHeader, len: usize, session: u64) -> Vec<(Rule, String)> {
    let mut found = Vec::new();
    if header.session_id != session {
        let reason = format!(
            "the advertisement names session {:#x}, not the one probed, {session:#x}",
            header.session_id
        );
        found.push((Rule::Qos06, reason));
    }
    let least = HEADER_BYTES + GROUP_SESSION_DESCRIPTOR_LEN;
    if len < least {
        let reason = format!(
            "a {len}-byte advertisement cannot hold its header and the 688-byte group-session descriptor ({least} bytes): it does not decode"
        );
        found.push((Rule::Qos05, reason));
    }
    found
}
