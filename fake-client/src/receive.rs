//! Bytes in: the streaming deframer, the secure channel and the inner header, checked as
//! the client reads them (NS "The frame", "The service registry", "Pushes"; BAP-01 to
//! BAP-04, BAP-07, BAP-09, BAP-10), then a response goes to the route and a push to
//! service 9.

use crate::core::ClientCore;
use crate::link::LinkKind;
use crate::rules::{Choice, Rule};
use vex_wire::activity::envelope::ActivityPush;
use vex_wire::activity::selection::SERVICE6_LEN;
use vex_wire::bap::deframer::{DeframeError, Frame};
use vex_wire::bap::header::{FrameType, InnerHeader, SERVICE_ID_LIMIT, STATUS_OK, outer_frame};
use vex_wire::bap::queuez;
use vex_wire::bap::services::{
    ACTIVITY_PUSH, HOST_REQUEST, HeaderShape, SEND_ONLY, UNHANDLED_PUSH_IDS, client_inbound,
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
    /// The activity message body, for service 9.
    pub payload: Option<Vec<u8>>,
    /// The whole frame as it arrived, outer header included.
    pub bytes: Vec<u8>,
}

/// How many nonces either side of the one due a frame that does not open is tried with,
/// to tell a frame sealed out of step (BAP-18) from a bad tag (BAP-02).
const OUT_OF_STEP_WINDOW: u8 = 4;

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
        while self.verdict.running() {
            let Some(l) = self.links.get_mut(link) else {
                return;
            };
            match l.deframer.next_frame() {
                Ok(Some(frame)) => {
                    l.last_rx = now; // any well-formed frame resets the clock (LINK-01)
                    self.handle_frame(now, link, frame);
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

    fn handle_frame(&mut self, now: Instant, link: LinkKind, frame: Frame) {
        let idx = self.next_frame_index();
        self.received.push_back(Received {
            frame: idx,
            link,
            service: None,
            message: None,
            payload: None,
            bytes: outer_frame(frame.frame_type, &frame.payload),
        });
        let Some(l) = self.links.get_mut(link) else {
            return;
        };
        let f = Some(idx);
        let inner = match (frame.frame_type, &mut l.secure) {
            (FrameType::Encrypted, Some(channel)) => match channel.open(&frame.payload) {
                Ok(inner) => inner,
                Err(e) => {
                    if let Some(k) = channel.out_of_step(&frame.payload, OUT_OF_STEP_WINDOW) {
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
            _ => frame.payload,
        };
        let Some(service) = InnerHeader::peek_service(&inner) else {
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
        let (header, body) = match InnerHeader::read(&inner, shape == HeaderShape::Response) {
            Ok(h) => h,
            Err(e) => {
                let reason = format!("service {service}: {e}");
                return self.verdict.violate(Rule::Bap03, f, None, reason);
            }
        };
        let push = (service == ACTIVITY_PUSH)
            .then(|| ActivityPush::decode(body).ok())
            .flatten();
        if let Some(r) = self.received.back_mut() {
            r.service = Some(service);
            r.message = push.as_ref().map(|p| p.msg_type);
            r.payload = push.map(|p| p.payload);
        }
        match shape {
            HeaderShape::Request if service == ACTIVITY_PUSH => {
                if self.answers_one_way(link, header.task, body) {
                    let reason = format!(
                        "a response on service 9 (task {}, status 200) to a one-way service-8 report: service 8 gets no response, and read as a push it is none",
                        header.task
                    );
                    return self.verdict.violate(Rule::Host12, f, None, reason);
                }
                self.check_push_sequence(idx, header.task);
                self.handle_push(now, idx, body);
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

    /// True when a frame on service 9 is a response to one of `link`'s one-way service-8
    /// reports: its inner header echoes the report's task and carries status 200, where a
    /// push has sequence 0 and discriminator 1 (HOST-12).
    fn answers_one_way(&self, link: LinkKind, task: u32, body: &[u8]) -> bool {
        let one_way = self
            .links
            .live(link)
            .is_some_and(|l| task != 0 && l.one_way.contains(&task));
        one_way && body.starts_with(&STATUS_OK.to_be_bytes())
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
    /// (read as a push, status 200 where the discriminator goes) and on a response id are
    /// caught; a push on 9 with sequence 0, and a response to a task that was never a
    /// report (BAP-05), are not HOST-12.
    #[test]
    fn a_response_to_a_one_way_report_is_caught() {
        let judged = |service: u16, task: Option<u32>| {
            let config = ClientConfig::builtin(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 1));
            let mut c = ClientCore::new(config);
            let now = Instant::default();
            c.handle_connected(now, LinkKind::Primary);
            let sent = c.links.get_mut(LinkKind::Primary).unwrap();
            sent.request(now, ACTIVITY_PUSH - 1, &[0; 21], false);
            let report = *sent.one_way.back().unwrap();
            let mut inner = Vec::new();
            InnerHeader::response(service, task.unwrap_or(report)).write(&mut inner);
            let frame = outer_frame(FrameType::Bootstrap, &inner);
            c.handle_bytes(now, LinkKind::Primary, &frame);
            c.verdict.rules()
        };
        assert_eq!(judged(ACTIVITY_PUSH, None), [Rule::Host12], "on service 9");
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
}
