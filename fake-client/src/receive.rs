//! Bytes in: the streaming deframer, the secure channel and the inner header, checked as
//! the client reads them (NS "The frame", "The service registry", "Pushes"; BAP-01 to
//! BAP-04, BAP-07, BAP-09, BAP-10), then a response goes to the route and a push to
//! service 9.

use crate::core::ClientCore;
use crate::link::LinkKind;
use crate::rules::{Choice, Rule};
use std::cell::Cell;
use vex_wire::activity::envelope::PushHeader;
use vex_wire::activity::selection::SERVICE6_LEN;
use vex_wire::bap::deframer::DeframeError;
use vex_wire::bap::header::{FrameType, InnerHeader, SERVICE_ID_LIMIT, outer_frame};
use vex_wire::bap::queuez;
use vex_wire::bap::services::{
    ACTIVITY_PUSH, ACTIVITY_TO_HOST, HOST_REQUEST, HeaderShape, SEND_ONLY, UNHANDLED_PUSH_IDS,
    client_inbound,
};
use vex_wire::time::Instant;

/// A received frame, reported for transcripts and the `vex client` log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Received {
    /// The frame index.
    pub frame: u64,
    /// The link.
    pub link: LinkKind,
    /// The BAP service, when the inner header was readable.
    pub service: Option<u16>,
    /// The activity message id, for service 9.
    pub message: Option<u32>,
    /// The activity message body, for service 9, when the client records frames
    /// ([`crate::ClientConfig::keep_for_report`]).
    pub payload: Option<Vec<u8>>,
    /// The whole frame as it arrived, outer header included, when the client records
    /// frames; else empty.
    pub bytes: Vec<u8>,
}

/// The buffers a frame is read into: its payload as it came, and the inner message once
/// opened.
#[derive(Debug, Default)]
pub(crate) struct FrameBuffers {
    frame: Vec<u8>,
    plain: Vec<u8>,
}

thread_local! {
    /// The frame buffers of every client this thread drives. A frame is read and handled
    /// within one [`ClientCore::handle_bytes`], so one set serves them all: a load shard
    /// drives thousands of clients on one thread, and buffers of their own cost each
    /// client memory and, kept small, an allocation and a copy on every large frame (a
    /// member table). The set grows to the largest frame the thread read, which the
    /// deframer bounds.
    static FRAME_BUFFERS: Cell<FrameBuffers> = Cell::default();
}

/// How many nonces either side of the one due a frame that does not open is tried with,
/// to tell a frame sealed out of step (BAP-18) from a bad tag (BAP-02).
const OUT_OF_STEP_WINDOW: u8 = 4;
/// The account handle service 8 carries after its task id (BAP-03).
const HANDLE_LEN: usize = 8;
/// The status codes a BAP response carries (200 answers; others are errors).
const RESPONSE_STATUSES: std::ops::RangeInclusive<u16> = 100..=599;

impl ClientCore {
    /// Bytes arrived on `link`.
    pub fn handle_bytes(&mut self, now: Instant, link: LinkKind, bytes: &[u8]) {
        let running = self.verdict.running();
        let Some(l) = self.links.get_mut(link) else {
            return;
        };
        if l.dead || !running {
            return;
        }
        l.deframer.push(bytes);
        let mut buffers = FRAME_BUFFERS.take();
        self.read_frames(now, link, &mut buffers);
        FRAME_BUFFERS.set(buffers);
    }

    /// Reads and handles the whole frames `link`'s deframer holds, each into `buffers`.
    fn read_frames(&mut self, now: Instant, link: LinkKind, buffers: &mut FrameBuffers) {
        while self.verdict.running() {
            let Some(l) = self.links.get_mut(link) else {
                return;
            };
            match l.deframer.next_frame_into(&mut buffers.frame) {
                Ok(Some(frame_type)) => {
                    l.last_rx = now; // any well-formed frame resets the clock (LINK-01)
                    self.handle_frame(now, link, frame_type, buffers);
                }
                Ok(None) => return,
                Err(e @ DeframeError::TooLong { .. }) => {
                    l.dead = true;
                    let header = l.deframer.rejected_header().unwrap_or_default().to_vec();
                    self.report_unframed(link, header);
                    let reason = format!("{link} link: {e}, past the emulated client's buffer");
                    return self.verdict.abort(reason);
                }
                Err(e) => {
                    l.dead = true;
                    let header = l.deframer.rejected_header().unwrap_or_default().to_vec();
                    let frame = self.report_unframed(link, header);
                    let reason = format!("{link} link: {e}");
                    return self.verdict.violate(Rule::Bap01, Some(frame), None, reason);
                }
            }
        }
    }

    /// Reports the outer header that stopped `link`'s stream as a received frame with no
    /// service, so a transcript keeps what a replay needs to stop there too.
    fn report_unframed(&mut self, link: LinkKind, header: Vec<u8>) -> u64 {
        let frame = self.next_frame_index();
        self.received.push_back(Received {
            frame,
            link,
            service: None,
            message: None,
            payload: None,
            bytes: header,
        });
        frame
    }

    fn next_frame_index(&mut self) -> u64 {
        let i = self.frames_in;
        self.frames_in += 1;
        i
    }

    /// A frame of `frame_type` whose payload `buffers` holds.
    fn handle_frame(
        &mut self,
        now: Instant,
        link: LinkKind,
        frame_type: FrameType,
        buffers: &mut FrameBuffers,
    ) {
        let idx = self.next_frame_index();
        let record = self.config.keep_for_report;
        self.received.push_back(Received {
            frame: idx,
            link,
            service: None,
            message: None,
            payload: None,
            bytes: match record {
                true => outer_frame(frame_type, &buffers.frame),
                false => Vec::new(),
            },
        });
        let Some(l) = self.links.get_mut(link) else {
            return;
        };
        let f = Some(idx);
        let FrameBuffers { frame, plain } = buffers;
        let inner: &[u8] = match (frame_type, &mut l.secure) {
            (FrameType::Encrypted, Some(channel)) => match channel.open_into(frame, plain) {
                Ok(()) => plain,
                Err(e) => {
                    if let Some(k) = channel.out_of_step(frame, OUT_OF_STEP_WINDOW) {
                        let reason = format!(
                            "{link} link: the frame is sealed with the nonce {} {} the one due: every frame, each push included, takes the next nonce",
                            k.unsigned_abs(),
                            if k > 0 { "after" } else { "before" }
                        );
                        return self.verdict.violate(Rule::Bap18, f, None, reason);
                    }
                    let reason = format!("{link} link: {e}");
                    return self.verdict.violate(Rule::Bap02, f, None, reason);
                }
            },
            (FrameType::Encrypted, None) => {
                let reason = format!("{link} link: encrypted frame before the hello");
                return self.verdict.violate(Rule::Bap02, f, None, reason);
            }
            _ => frame,
        };
        let Some(service) = InnerHeader::peek_service(inner) else {
            let reason = format!("{}-byte inner message has no service id", inner.len());
            return self.verdict.violate(Rule::Bap03, f, None, reason);
        };
        if service >= SERVICE_ID_LIMIT {
            let reason = format!("service {service} is at or above {SERVICE_ID_LIMIT}");
            return self.verdict.violate(Rule::Bap04, f, None, reason);
        }
        if SEND_ONLY.contains(&service) {
            let reason = format!("a reply on service {service}, which is send-only");
            return self.verdict.violate(Rule::Bap07, f, None, reason);
        }
        let Some(shape) = client_inbound(service).shape() else {
            let reason = format!(
                "a push on service {service}, outside the 15 push ids: a call through a null pointer"
            );
            return self.verdict.violate(Rule::Bap09, f, None, reason);
        };
        let (header, body) = match InnerHeader::read(inner, shape == HeaderShape::Response) {
            Ok(h) => h,
            Err(e) => {
                let reason = format!("service {service}: {e}");
                return self.verdict.violate(Rule::Bap03, f, None, reason);
            }
        };
        let push = (service == ACTIVITY_PUSH)
            .then(|| PushHeader::read(body).ok())
            .flatten();
        if let Some(r) = self.received.back_mut() {
            r.service = Some(service);
            r.message = push.map(|(h, _)| h.msg_type);
            r.payload = push.filter(|_| record).map(|(_, p)| p.to_vec());
        }
        if shape == HeaderShape::Request
            && let Some(status) = self.answers_one_way(link, (service, header.task), body)
        {
            let reason = format!(
                "a response on service {service} (task {}, status {status}) to a one-way service-8 report: service 8 gets no response, and read as a push it is none",
                header.task
            );
            return self.verdict.violate(Rule::Host12, f, None, reason);
        }
        match shape {
            HeaderShape::Request if service == ACTIVITY_PUSH => {
                self.check_push_sequence(idx, header.task);
                self.handle_push(now, idx, body);
            }
            HeaderShape::Request if service == ACTIVITY_TO_HOST && body.len() < HANDLE_LEN => {
                let reason = format!(
                    "a service-8 push whose header holds {} of the 8 account-handle bytes after the task id: service 8's inner header is 14 bytes",
                    body.len()
                );
                self.verdict.violate(Rule::Bap03, f, None, reason)
            }
            HeaderShape::Request if UNHANDLED_PUSH_IDS.contains(&service) => {
                self.unhandled_push(idx, service, body)
            }
            HeaderShape::Request if service == queuez::UPDATE => self.on_queuez(idx, body),
            HeaderShape::Request if service == queuez::SUBSCRIPTION_LOST => {
                self.on_subscription_lost(idx, body)
            }
            HeaderShape::Request => {
                tracing::info!(service, "a lobby push the emulated client does not model")
            }
            HeaderShape::Response => self.handle_response(now, link, idx, header, body),
        }
    }

    /// The status of a push-shaped frame that is a response to one of `link`'s one-way
    /// service-8 reports: its inner header echoes the report's task, where a push has
    /// sequence 0 (ENV-10), its body opens with a status code, 100 to 599, and on service 9
    /// it is no activity push (whose own sequence is ENV-10's) (HOST-12).
    fn answers_one_way(
        &self,
        link: LinkKind,
        (service, task): (u16, u32),
        body: &[u8],
    ) -> Option<u16> {
        let one_way = self
            .links
            .live(link)
            .is_some_and(|l| task != 0 && l.one_way.contains(&task));
        let push = service == ACTIVITY_PUSH && PushHeader::read(body).is_ok();
        let status = body.first_chunk().map(|b| u16::from_be_bytes(*b))?;
        (one_way && !push && RESPONSE_STATUSES.contains(&status)).then_some(status)
    }

    /// A push on service 124, that a subscription was lost: exactly 14 bytes, as the
    /// fixed-length services take (NS "The service registry"; BAP-08). What it names is
    /// not modelled: the emulated client's one subscription stands.
    fn on_subscription_lost(&mut self, idx: u64, body: &[u8]) {
        if body.len() != queuez::SUBSCRIPTION_LOST_LEN {
            let reason = format!(
                "a {}-byte service-124 push: the service is {} bytes, and its codec rejects any other size",
                body.len(),
                queuez::SUBSCRIPTION_LOST_LEN
            );
            self.verdict.violate(Rule::Bap08, Some(idx), None, reason);
        }
    }

    /// A push on id 6 or 161, which have no handler behind them: one that decodes crashes
    /// the client, one that does not is dropped (NS "Pushes"; BAP-10, BODY-04). Service 6's
    /// codec is its fixed 7,719-byte body (BAP-08); the pages give no codec for 161, so
    /// whether a push there decodes is unknown: taken as one that does, the finding is
    /// advisory, and the emulated client goes on.
    fn unhandled_push(&mut self, idx: u64, service: u16, body: &[u8]) {
        let f = Some(idx);
        if service == HOST_REQUEST && body.len() != SERVICE6_LEN {
            let reason = format!(
                "a push on service 6 of {} bytes does not decode (the body is {SERVICE6_LEN} bytes): dropped",
                body.len()
            );
            return self.verdict.violate(Rule::Body04, f, None, reason);
        }
        if service == HOST_REQUEST {
            let reason = "a push on service 6 that decodes: no handler is behind it".to_string();
            return self.verdict.violate(Rule::Bap10, f, None, reason);
        }
        let reason = format!(
            "a push on service {service} of {} bytes: no handler is behind it, and one that decodes crashes the client",
            body.len()
        );
        self.verdict
            .advise(Rule::Bap10, Choice::Service161Codec, f, None, reason);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ClientConfig;
    use std::net::{Ipv4Addr, SocketAddrV4};
    use vex_wire::bap::header::FrameType;

    /// The rules one plaintext frame on `service` (a response header and four body bytes)
    /// breaks on a fresh client whose primary link just opened.
    fn rules_for(service: u16) -> Vec<Rule> {
        let config = ClientConfig::builtin(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 1));
        let mut c = ClientCore::new(config);
        let now = Instant::default();
        c.handle_connected(now, LinkKind::Primary);
        let mut inner = Vec::new();
        InnerHeader::response(service, 99).write(&mut inner);
        inner.extend_from_slice(&[0; 4]);
        let frame = outer_frame(FrameType::Bootstrap, &inner);
        c.handle_bytes(now, LinkKind::Primary, &frame);
        c.verdict.rules()
    }

    /// BAP-04: 308 and above are dropped at the header; 307, the last id below, is read
    /// on (a response to no request: BAP-05).
    #[test]
    fn service_ids_from_308_are_dropped() {
        assert_eq!(SERVICE_ID_LIMIT, 308);
        for service in [308, 309, u16::MAX] {
            assert_eq!(rules_for(service), [Rule::Bap04], "service {service}");
        }
        assert_eq!(rules_for(307), [Rule::Bap05], "service 307");
    }

    /// BAP-07: a reply on each of the ten send-only services is caught; the services
    /// either side of each are not send-only.
    #[test]
    fn a_reply_on_any_send_only_service_crashes() {
        let send_only = [18, 21, 23, 32, 34, 36, 38, 40, 46, 171];
        assert_eq!(SEND_ONLY, send_only);
        for service in send_only {
            assert_eq!(rules_for(service), [Rule::Bap07], "service {service}");
            for other in [service - 1, service + 1] {
                if !send_only.contains(&other) {
                    assert!(!rules_for(other).contains(&Rule::Bap07), "service {other}");
                }
            }
        }
    }

    /// HOST-12: after a one-way report went out with task T, a response to T on service 9
    /// or 8 (read as a push, its status where the body goes), status 200 or an error, and
    /// on a response id are caught; a push on 9 with sequence 0, a push echoing T whose body
    /// opens with no status, and a response to a task that was never a report (BAP-05),
    /// are not HOST-12.
    #[test]
    fn a_response_to_a_one_way_report_is_caught() {
        let judged_with = |service: u16, task: Option<u32>, status: u16| {
            let config = ClientConfig::builtin(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 1));
            let mut c = ClientCore::new(config);
            let now = Instant::default();
            c.handle_connected(now, LinkKind::Primary);
            let sent = c.links.get_mut(LinkKind::Primary).unwrap();
            sent.request(now, ACTIVITY_PUSH - 1, &[0; 21], false);
            let report = *sent.one_way.back().unwrap();
            let mut inner = Vec::new();
            let mut header = InnerHeader::response(service, task.unwrap_or(report));
            header.status = Some(status);
            header.write(&mut inner);
            let frame = outer_frame(FrameType::Bootstrap, &inner);
            c.handle_bytes(now, LinkKind::Primary, &frame);
            c.verdict.rules()
        };
        let judged = |service: u16, task: Option<u32>| judged_with(service, task, 200);
        assert_eq!(judged(ACTIVITY_PUSH, None), [Rule::Host12], "on service 9");
        assert_eq!(
            judged(ACTIVITY_PUSH - 1, None),
            [Rule::Host12],
            "on service 8"
        );
        for status in [100, 500, 599] {
            let got = judged_with(ACTIVITY_PUSH - 1, None, status);
            assert_eq!(got, [Rule::Host12], "status {status}");
        }
        let no_status = judged_with(ACTIVITY_PUSH - 1, None, 600);
        assert!(!no_status.contains(&Rule::Host12), "a body with no status");
        assert_eq!(judged(307, None), [Rule::Host12], "on a response id");
        assert!(
            !judged(ACTIVITY_PUSH, Some(0)).contains(&Rule::Host12),
            "sequence 0"
        );
        assert_eq!(
            judged(307, Some(77)),
            [Rule::Bap05],
            "no report of that task"
        );
    }

    use crate::verdict::Outcome;
    use vex_wire::bap::header::plain_frame;
    use vex_wire::bap::secure::{ChannelSecrets, Role, SecureChannel, seal_hello};
    use vex_wire::bap::services::{HostLookupResponse, PUSH_IDS, RESPONSE_IDS};

    /// A fresh client whose primary link just opened: task 1 is service 30, task 2 the
    /// hello (service 25).
    fn connected() -> ClientCore {
        let config = ClientConfig::builtin(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 1));
        let mut c = ClientCore::new(config);
        c.handle_connected(Instant::default(), LinkKind::Primary);
        c
    }

    /// The rules `bytes` break, fed to [`connected`] in one read, and what the run came to.
    fn fed(bytes: &[u8]) -> (Vec<Rule>, Outcome) {
        let mut c = connected();
        c.handle_bytes(Instant::default(), LinkKind::Primary, bytes);
        (c.verdict.rules(), c.verdict.outcome().clone())
    }

    /// An inner message: `header`, then `body`.
    fn inner(header: InnerHeader, body: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        header.write(&mut out);
        out.extend_from_slice(body);
        out
    }

    /// The legal answer to task 1: service 31, 128 bytes.
    fn channel_start_reply() -> Vec<u8> {
        inner(InnerHeader::response(31, 1), &[0; 128])
    }

    /// `frame` with its magic byte and type byte set.
    fn with_head(mut frame: Vec<u8>, magic: u8, frame_type: u8) -> Vec<u8> {
        frame[0] = magic;
        frame[1] = frame_type;
        frame
    }

    fn ended(outcome: &Outcome, rule: Rule) -> bool {
        matches!(outcome, Outcome::Ended { rule: r, .. } if *r == rule)
    }

    /// BAP-01: magic 1 and frame types 0 and 2 (plaintext) carry the legal service-31
    /// answer silently; magic 0, 2 and 0xFF, and types 3 and 0xFF, are refused and end the
    /// activity; type 1 is a legal type (refused here only as BAP-02, no hello armed it).
    /// The u32 length is big-endian and counts exactly what follows: one read holding two
    /// frames yields both, a frame split anywhere is waited for, and a length one short or
    /// one long lands the next header off its magic (BAP-01), after the frame it cut or
    /// swelled (BAP-19, its 127 or 129 bytes).
    #[test]
    fn a_frame_with_any_other_magic_or_type_is_refused() {
        let good = |t: FrameType| outer_frame(t, &channel_start_reply());
        for t in [FrameType::Plain, FrameType::Bootstrap] {
            assert_eq!(fed(&good(t)), (vec![], Outcome::Running), "type {t:?}");
        }
        for magic in [0, 2, 0xFF] {
            let (rules, outcome) = fed(&with_head(good(FrameType::Bootstrap), magic, 2));
            assert_eq!(rules, [Rule::Bap01], "magic {magic}");
            assert!(ended(&outcome, Rule::Bap01), "magic {magic}: {outcome:?}");
        }
        for frame_type in [3, 0xFF] {
            let (rules, outcome) = fed(&with_head(good(FrameType::Bootstrap), 1, frame_type));
            assert_eq!(rules, [Rule::Bap01], "type {frame_type}");
            assert!(ended(&outcome, Rule::Bap01), "type {frame_type}");
        }
        let (rules, _) = fed(&with_head(good(FrameType::Bootstrap), 1, 1));
        assert_eq!(rules, [Rule::Bap02], "type 1 is a legal type");
        // two frames in one read, and one split at every byte
        let reply = good(FrameType::Bootstrap);
        let mut two = reply.clone();
        two.extend(outer_frame(
            FrameType::Plain,
            &inner(InnerHeader::request(124, 0), &[0; 14]),
        ));
        assert_eq!(fed(&two).0, [], "two frames in one read");
        for at in 1..reply.len() {
            let mut c = connected();
            c.handle_bytes(Instant::default(), LinkKind::Primary, &reply[..at]);
            assert_eq!(c.frames_in, 0, "split at {at}: waits");
            c.handle_bytes(Instant::default(), LinkKind::Primary, &reply[at..]);
            assert_eq!(
                (c.frames_in, c.verdict.rules()),
                (1, vec![]),
                "split at {at}"
            );
        }
        for (delta, what) in [(-1i64, "one short"), (1, "one long")] {
            let mut bytes = two.clone();
            let len = u32::from_be_bytes([bytes[2], bytes[3], bytes[4], bytes[5]]);
            let wrong = (i64::from(len) + delta) as u32;
            bytes[2..6].copy_from_slice(&wrong.to_be_bytes());
            assert_eq!(fed(&bytes).0, [Rule::Bap19, Rule::Bap01], "length {what}");
        }
    }

    /// A client whose primary link's hello armed its channel (task 3 is then service 16,
    /// task 4 the echo, 250), with the host's end of the channel, for the base nonce
    /// `base_nonce`.
    fn secured(base_nonce: [u8; 12]) -> (ClientCore, SecureChannel, ChannelSecrets) {
        let secrets = ChannelSecrets {
            base_nonce,
            session_key: std::array::from_fn(|i| 0xB0 + i as u8),
        };
        let mut c = connected();
        let hello = seal_hello(&c.config.signon, [0xC0; 16], &secrets);
        let now = Instant::default();
        c.handle_bytes(
            now,
            LinkKind::Primary,
            &outer_frame(FrameType::Bootstrap, &channel_start_reply()),
        );
        let reply = inner(InnerHeader::response(26, 2), &hello);
        c.handle_bytes(
            now,
            LinkKind::Primary,
            &outer_frame(FrameType::Bootstrap, &reply),
        );
        assert_eq!(c.verdict.rules(), []);
        let pending: Vec<(u32, u16)> = c
            .links
            .get_mut(LinkKind::Primary)
            .unwrap()
            .pending
            .iter()
            .map(|(t, p)| (*t, p.service))
            .collect();
        assert_eq!(pending, [(3, 16), (4, 250)]);
        (c, SecureChannel::new(&secrets, Role::Host), secrets)
    }

    const NONCE: [u8; 12] = [
        0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7, 0xA8, 0xA9, 0xAA, 0xAB,
    ];

    /// Three legal frames on [`secured`]'s link, in order: service 17 answering the
    /// lookup (task 3, the head), a push on 124, then 251 answering the echo (task 4).
    fn answers(c: &ClientCore) -> [Vec<u8>; 3] {
        let lookup = HostLookupResponse {
            host_id: c.config.scenario.activity_host_id,
            address: Ipv4Addr::LOCALHOST,
            reserved: 0,
            port: 30974,
        };
        [
            inner(InnerHeader::response(17, 3), &lookup.encode()),
            inner(InnerHeader::request(124, 0), &[0; 14]),
            inner(InnerHeader::response(251, 4), &[]),
        ]
    }

    /// Feeds each of `frames` as an encrypted frame, in order.
    fn feed_sealed(c: &mut ClientCore, frames: &[Vec<u8>]) {
        for payload in frames {
            c.handle_bytes(
                Instant::default(),
                LinkKind::Primary,
                &outer_frame(FrameType::Encrypted, payload),
            );
        }
    }

    /// `inner` sealed with `key` at `nonce`, whatever the channel's count: tag, then
    /// ciphertext.
    fn sealed_at(key: [u8; 16], nonce: [u8; 12], inner: &[u8]) -> Vec<u8> {
        let secrets = ChannelSecrets {
            base_nonce: nonce,
            session_key: key,
        };
        SecureChannel::new(&secrets, Role::Host).seal(inner)
    }

    /// BAP-02: frames sealed with service 26's key, tag first and counted in the length,
    /// open silently. A tag with its first or last byte flipped, a ciphertext with its
    /// first or last byte flipped, the tag after the ciphertext, a length that leaves the
    /// tag out (16 short), a frame shorter than a tag, and a frame sealed under another
    /// key are each refused in the first frame (a response), the second (a push) or the
    /// third (a response after the push), and end the activity.
    #[test]
    fn an_encrypted_frame_whose_tag_does_not_verify_is_refused() {
        let (mut c, mut host, _) = secured(NONCE);
        let frames = answers(&c).map(|m| host.seal(&m));
        feed_sealed(&mut c, &frames);
        assert_eq!(c.verdict.rules(), [], "every frame sealed right");
        type Spoil = fn(Vec<u8>) -> Vec<u8>;
        let spoils: [(&str, Spoil); 6] = [
            ("tag's first byte", |mut f| {
                f[0] ^= 1;
                f
            }),
            ("tag's last byte", |mut f| {
                f[15] ^= 0x80;
                f
            }),
            ("ciphertext's first byte", |mut f| {
                f[16] ^= 1;
                f
            }),
            ("ciphertext's last byte", |mut f| {
                let last = f.len() - 1;
                f[last] ^= 1;
                f
            }),
            ("tag after the ciphertext", |f| {
                [&f[16..], &f[..16]].concat()
            }),
            ("shorter than a tag", |f| f[..15].to_vec()),
        ];
        for at in 0..3 {
            for (what, spoil) in spoils {
                let (mut c, mut host, _) = secured(NONCE);
                let mut frames = answers(&c).map(|m| host.seal(&m));
                frames[at] = spoil(std::mem::take(&mut frames[at]));
                feed_sealed(&mut c, &frames[..=at]);
                assert_eq!(c.verdict.rules(), [Rule::Bap02], "{what}, frame {at}");
                assert!(
                    ended(c.verdict.outcome(), Rule::Bap02),
                    "{what}, frame {at}"
                );
            }
            // the length counts the tag: one that leaves it out cuts the frame 16 short
            let (mut c, mut host, _) = secured(NONCE);
            let frames = answers(&c).map(|m| host.seal(&m));
            feed_sealed(&mut c, &frames[..at]);
            let mut frame = outer_frame(FrameType::Encrypted, &frames[at]);
            let len = (frames[at].len() - 16) as u32;
            frame[2..6].copy_from_slice(&len.to_be_bytes());
            c.handle_bytes(Instant::default(), LinkKind::Primary, &frame);
            assert_eq!(
                c.verdict.rules(),
                [Rule::Bap02],
                "length without the tag, frame {at}"
            );
            // another key than service 26's, at the nonce due
            let (mut c, mut host, secrets) = secured(NONCE);
            let mut frames = answers(&c).map(|m| host.seal(&m));
            let mut nonce = secrets.base_nonce;
            for _ in 0..at {
                vex_wire::bap::secure::increment_nonce(&mut nonce);
            }
            frames[at] = sealed_at([0x5A; 16], nonce, &answers(&c)[at]);
            feed_sealed(&mut c, &frames[..=at]);
            assert_eq!(c.verdict.rules(), [Rule::Bap02], "another key, frame {at}");
        }
    }

    /// BAP-18: the host seals from service 26's N and each frame, the push among them,
    /// takes the next nonce, little-endian over all 12 bytes: a sequence across a carry
    /// through two bytes (FF FF 00 .. to 00 00 01 ..) opens silently. Sealed one nonce
    /// ahead (a nonce skipped), one behind (a nonce used twice, or the push not counted)
    /// is caught as out of step and ends the activity; sealed from the client's own N
    /// (byte 11 XOR 1), or with a big-endian increment, or with the carry dropped, is a
    /// tag that does not verify (BAP-02).
    #[test]
    fn every_frame_takes_the_next_nonce() {
        let carry = [0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10];
        for base in [NONCE, carry] {
            let (mut c, mut host, _) = secured(base);
            let frames = answers(&c).map(|m| host.seal(&m));
            feed_sealed(&mut c, &frames);
            assert_eq!(c.verdict.rules(), [], "base {base:02X?}");
        }
        let ahead = |mut n: [u8; 12], k: usize| {
            for _ in 0..k {
                vex_wire::bap::secure::increment_nonce(&mut n);
            }
            n
        };
        let key: [u8; 16] = std::array::from_fn(|i| 0xB0 + i as u8);
        let mut flipped = NONCE;
        flipped[11] ^= 1;
        let mut big_endian = carry;
        big_endian[11] += 1;
        let mut no_carry = carry;
        no_carry[0] = 0;
        let n = NONCE;
        // what, the base, the nonce each of the three frames is sealed at, frames fed, want
        type Case = (&'static str, [u8; 12], [[u8; 12]; 3], usize, Rule);
        let cases: [Case; 7] = [
            (
                "the first a nonce ahead",
                n,
                [ahead(n, 1); 3],
                1,
                Rule::Bap18,
            ),
            (
                "the push a nonce ahead",
                n,
                [n, ahead(n, 2), n],
                2,
                Rule::Bap18,
            ),
            ("the push at the nonce before", n, [n, n, n], 2, Rule::Bap18),
            (
                "the push not counted",
                n,
                [n, ahead(n, 1), ahead(n, 1)],
                3,
                Rule::Bap18,
            ),
            ("from the client's own N", n, [flipped; 3], 1, Rule::Bap02),
            (
                "a big-endian increment",
                carry,
                [carry, big_endian, big_endian],
                2,
                Rule::Bap02,
            ),
            (
                "the carry dropped",
                carry,
                [carry, no_carry, no_carry],
                2,
                Rule::Bap02,
            ),
        ];
        for (what, base, nonces, fed, want) in cases {
            let (mut c, _, _) = secured(base);
            let messages = answers(&c);
            let frames: Vec<Vec<u8>> = (0..3)
                .map(|i| sealed_at(key, nonces[i], &messages[i]))
                .collect();
            feed_sealed(&mut c, &frames[..fed]);
            assert_eq!(c.verdict.rules(), [want], "{what}");
            assert!(ended(c.verdict.outcome(), want), "{what}");
        }
    }

    /// BAP-03: a request or push header is 6 bytes (u16 service, u32 task) and a
    /// response's 8 (the u16 status added): a push on 124 with its 6-byte header and a
    /// response on 31 with its 8-byte one pass. An inner message of 0 or 1 byte (no whole
    /// service id), a push header of 5 bytes, and a response header of 6 or 7 (no whole
    /// status) are refused and end the activity.
    #[test]
    fn an_inner_header_short_of_its_shape_is_refused() {
        let push = inner(InnerHeader::request(124, 0), &[0; 14]);
        let response = channel_start_reply();
        assert_eq!(
            fed(&outer_frame(FrameType::Plain, &push)).0,
            [],
            "push header"
        );
        assert_eq!(
            fed(&outer_frame(FrameType::Plain, &response)).0,
            [],
            "response header"
        );
        let service_8 = inner(InnerHeader::request(8, 0), &[0; 8]);
        assert_eq!(
            fed(&outer_frame(FrameType::Plain, &service_8)).0,
            [],
            "service 8's 14"
        );
        for (what, bytes) in [
            ("no byte", vec![]),
            ("one byte", vec![0]),
            ("a 5-byte push header", push[..5].to_vec()),
            ("a 6-byte response header", response[..6].to_vec()),
            ("a 7-byte response header", response[..7].to_vec()),
            ("a 13-byte service-8 header", service_8[..13].to_vec()),
            ("a 6-byte service-8 header", service_8[..6].to_vec()),
        ] {
            let (rules, outcome) = fed(&outer_frame(FrameType::Plain, &bytes));
            assert_eq!(rules, [Rule::Bap03], "{what}");
            assert!(ended(&outcome, Rule::Bap03), "{what}");
        }
    }

    /// BAP-09: a frame on every id below 308 that is neither one of the 15 push ids, a
    /// response id nor a send-only id (0, 1 to 5, 10, 29, 48, 52, 99, 101, 125, 149, 151,
    /// 159, 162, 300, 302 among them: the neighbours of the push ids) is a call through a
    /// null pointer and crashes the client; none of the 15 push ids is.
    #[test]
    fn a_push_outside_the_15_ids_crashes() {
        assert_eq!(
            PUSH_IDS,
            [
                6, 8, 9, 20, 27, 28, 47, 51, 100, 123, 124, 150, 160, 161, 301
            ]
        );
        for service in 0..SERVICE_ID_LIMIT {
            let rules = rules_for(service);
            if PUSH_IDS.contains(&service) {
                assert!(
                    !rules.contains(&Rule::Bap09),
                    "push id {service}: {rules:?}"
                );
            } else if !RESPONSE_IDS.contains(&service) && !SEND_ONLY.contains(&service) {
                assert_eq!(rules, [Rule::Bap09], "service {service}");
            }
        }
        for service in [
            0, 5, 10, 29, 48, 52, 99, 101, 125, 149, 151, 159, 162, 300, 302,
        ] {
            let mut c = connected();
            let frame = plain_frame(FrameType::Plain, InnerHeader::request(service, 0), &[0; 4]);
            c.handle_bytes(Instant::default(), LinkKind::Primary, &frame);
            assert_eq!(c.verdict.rules(), [Rule::Bap09], "push on {service}");
            assert!(matches!(
                c.verdict.outcome(),
                Outcome::Crashed {
                    rule: Rule::Bap09,
                    ..
                }
            ));
        }
    }

    /// The rules a push of `body` on `service` breaks on [`connected`], and whether the
    /// run goes on.
    fn pushed(service: u16, body: &[u8]) -> (Vec<Rule>, bool) {
        let mut c = connected();
        let frame = plain_frame(FrameType::Plain, InnerHeader::request(service, 0), body);
        c.handle_bytes(Instant::default(), LinkKind::Primary, &frame);
        (c.verdict.rules(), c.verdict.running())
    }

    /// BAP-10: a push on 6 of exactly 7,719 bytes decodes and crashes the client; one
    /// byte short, one long or empty does not decode and is dropped (BODY-04), not
    /// BAP-10. A push on 161 is caught (advisory: the pages give no codec for 161, so the
    /// client goes on), short or long. The push ids beside them, 160 and 8 (a push on 8
    /// carries the 8-byte handle), are not BAP-10.
    #[test]
    fn a_push_that_decodes_on_6_or_161_crashes() {
        assert_eq!(SERVICE6_LEN, 7_719);
        let (rules, running) = pushed(6, &[0; SERVICE6_LEN]);
        assert_eq!(
            (rules, running),
            (vec![Rule::Bap10], false),
            "7,719 bytes on 6"
        );
        for len in [0, SERVICE6_LEN - 1, SERVICE6_LEN + 1] {
            assert_eq!(
                pushed(6, &vec![0; len]),
                (vec![Rule::Body04], true),
                "{len} bytes on 6"
            );
        }
        for len in [0, 4, SERVICE6_LEN] {
            let mut c = connected();
            let frame = plain_frame(
                FrameType::Plain,
                InnerHeader::request(161, 0),
                &vec![0; len],
            );
            c.handle_bytes(Instant::default(), LinkKind::Primary, &frame);
            assert_eq!(c.verdict.rules(), [Rule::Bap10], "{len} bytes on 161");
            assert!(c.verdict.violations()[0].advisory(), "{len} bytes on 161");
        }
        assert_eq!(pushed(160, &[0; 4]), (vec![], true), "160");
        assert_eq!(pushed(8, &[0; 8]), (vec![], true), "8");
    }

    /// BAP-08: service 124 is one of the fixed-length services, 14 bytes: 14 passes; 13,
    /// 15 and an empty body are rejected.
    #[test]
    fn service_124_takes_exactly_14_bytes() {
        assert_eq!(pushed(124, &[0; 14]), (vec![], true), "14 bytes");
        for len in [0, 13, 15] {
            assert_eq!(pushed(124, &vec![0; len]).0, [Rule::Bap08], "{len} bytes");
        }
    }
}
