//! The sans-IO emulated client: the route into an activity, the join, the epoch report and
//! the link clock, with every check of [`crate::rules`] at the point the real client
//! applies it (design "The emulated client").

use crate::activity::MemberView;
use crate::config::{
    CHANNEL_START_LEN, CLIENT_TICK_MS, ClientConfig, LINK_SILENCE_MS, PATCH_EPOCH_INTERVAL_MS,
};
use crate::link::{ClientLink, LinkKind};
use crate::rules::{Effect, Rule};
use crate::session::ActivitySlot;
use crate::status::StatusLine;
use crate::violation::Violation;
use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddrV4;
use vex_wire::activity::envelope::{ActivityNotification, ActivityPush};
use vex_wire::activity::ids;
use vex_wire::bap::deframer::{DeframeError, Frame};
use vex_wire::bap::header::{FrameType, InnerHeader, SERVICE_ID_LIMIT, outer_frame};
use vex_wire::bap::services::{
    ACTIVITY_PUSH, ACTIVITY_TO_HOST, CHANNEL_START, HELLO, HeaderShape, SEND_ONLY,
    client_inbound_shape, response_for,
};
use vex_wire::time::Instant;

/// A frame the client wants sent, with what it carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientTransmit {
    /// The link.
    pub link: LinkKind,
    /// The whole frame.
    pub bytes: Vec<u8>,
    /// The BAP service.
    pub service: u16,
    /// The activity message id, for service 8.
    pub message: Option<u32>,
    /// The activity message body, for service 8.
    pub payload: Option<Vec<u8>>,
}

/// What a run came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Still going.
    Running,
    /// The emulated client could not go on for a reason of its own (an input past its
    /// bounded buffers); no documented rule was broken.
    Aborted {
        /// What stopped it.
        reason: String,
    },
    /// The activity ended with an error, as the real client would end it.
    Ended {
        /// The rule whose breach ended it.
        rule: Rule,
        /// The client's error, e.g. `error_host_crashed`.
        reason: String,
    },
    /// The real client would have crashed.
    Crashed {
        /// The rule whose breach crashed it.
        rule: Rule,
        /// What crashed it.
        reason: String,
    },
}

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

/// The emulated client.
#[derive(Debug)]
pub struct ClientCore {
    pub(crate) config: ClientConfig,
    pub(crate) links: BTreeMap<LinkKind, ClientLink>,
    pub(crate) slot: Option<ActivitySlot>,
    pub(crate) status: StatusLine,
    pub(crate) outcome: Outcome,
    violations: Vec<Violation>,
    new_violations: usize,
    /// The give-up flag and the rule that set it: message 5 is ignored from then on
    /// (STICKY-02).
    pub(crate) gave_up: Option<Rule>,
    frames_in: u64,
    pub(crate) connects: VecDeque<(LinkKind, SocketAddrV4)>,
    transmits: VecDeque<ClientTransmit>,
    received: VecDeque<Received>,
}

impl ClientCore {
    /// A client that will first open its primary link to `config.target`.
    pub fn new(config: ClientConfig) -> Self {
        let target = config.target;
        Self {
            config,
            links: BTreeMap::new(),
            slot: None,
            status: StatusLine::default(),
            outcome: Outcome::Running,
            violations: Vec::new(),
            new_violations: 0,
            gave_up: None,
            frames_in: 0,
            connects: VecDeque::from([(LinkKind::Primary, target)]),
            transmits: VecDeque::new(),
            received: VecDeque::new(),
        }
    }

    /// The status line.
    pub fn status(&self) -> StatusLine {
        self.status
    }

    /// What the run has come to.
    pub fn outcome(&self) -> &Outcome {
        &self.outcome
    }

    /// Message-5 bodies applied so far.
    pub fn rosters_applied(&self) -> u32 {
        self.slot.as_ref().map_or(0, |s| s.rosters_applied)
    }

    /// The session every push carries, once a join_result was accepted: what another
    /// member names to join the same activity (SR "The join burst": a public join).
    pub fn session(&self) -> Option<u64> {
        self.slot
            .as_ref()
            .filter(|s| s.established)
            .map(|s| s.stored_id)
    }

    /// What the client knows of its activity's members, for the checks between members.
    pub fn member_view(&self) -> MemberView {
        let slot = self.slot.as_ref().filter(|s| s.established);
        MemberView {
            member_key: self.config.scenario.player.member_key,
            lease: slot.map(|s| s.lease.clone()),
            tables: slot.map(|s| s.tables.clone()).unwrap_or_default(),
            left: slot.is_some_and(|s| s.departure.is_some()),
            present: slot.is_some_and(|s| s.departure.is_none())
                && self.outcome == Outcome::Running,
        }
    }

    /// Every violation so far.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// Violations recorded since the last call.
    pub fn poll_violations(&mut self) -> Vec<Violation> {
        let new = self.violations[self.new_violations..].to_vec();
        self.new_violations = self.violations.len();
        new
    }

    /// A link the IO layer should open.
    pub fn poll_connect(&mut self) -> Option<(LinkKind, SocketAddrV4)> {
        self.connects.pop_front()
    }

    /// The next frame to send.
    pub fn poll_transmit(&mut self) -> Option<ClientTransmit> {
        self.transmits.pop_front()
    }

    /// The next received frame report.
    pub fn poll_received(&mut self) -> Option<Received> {
        self.received.pop_front()
    }

    fn running(&self) -> bool {
        self.outcome == Outcome::Running
    }

    /// Records a violation and does what the real client does for its effect.
    pub(crate) fn violate(
        &mut self,
        rule: Rule,
        frame: Option<u64>,
        bit: Option<usize>,
        reason: String,
    ) {
        debug_assert!(
            crate::rules::is_enforced(rule),
            "{rule} is not in rules::ENFORCED"
        );
        tracing::warn!(rule = rule.id(), frame, bit, %reason, "client check failed");
        let effect = rule.effect();
        let running = self.running();
        match effect {
            Effect::End if running => {
                self.outcome = Outcome::Ended {
                    rule,
                    reason: reason.clone(),
                };
            }
            Effect::Crash if running => {
                self.outcome = Outcome::Crashed {
                    rule,
                    reason: reason.clone(),
                };
            }
            Effect::Sticky if self.gave_up.is_none() => self.gave_up = Some(rule),
            _ => {}
        }
        self.violations.push(Violation {
            rule,
            effect,
            frame,
            bit,
            reason,
        });
    }

    /// The IO layer opened `link`: start channel setup and the hello (facts 1.5).
    pub fn handle_connected(&mut self, now: Instant, link: LinkKind) {
        let mut l = ClientLink::new(now);
        let start = l.request(now, CHANNEL_START, &[0; CHANNEL_START_LEN], true);
        let mut hello_body = vec![0x0A, 0x20];
        hello_body.extend_from_slice(&self.config.token);
        hello_body.extend_from_slice(&[0x10, 0x01]);
        let hello = l.request(now, HELLO, &hello_body, true);
        self.links.insert(link, l);
        self.queue(link, start, CHANNEL_START);
        self.queue(link, hello, HELLO);
    }

    /// The link closed under the client. Losing the Activity Host link of a joined activity
    /// ends it as the link timeout does (LINK-01, `error_host_crashed`).
    pub fn handle_closed(&mut self, _now: Instant, link: LinkKind) {
        let Some(l) = self.links.get_mut(&link) else {
            return;
        };
        let was_open = !l.dead;
        l.dead = true;
        let joined = self.slot.as_ref().is_some_and(|s| s.established);
        if was_open && joined && link == LinkKind::Activity && self.running() {
            let reason = "error_host_crashed: the host closed the Activity Host link".to_string();
            self.violate(Rule::Link01, None, None, reason);
        }
    }

    fn queue(&mut self, link: LinkKind, bytes: Vec<u8>, service: u16) {
        self.transmits.push_back(ClientTransmit {
            link,
            bytes,
            service,
            message: None,
            payload: None,
        });
    }

    /// Sends a request on `link`.
    pub(crate) fn send_request(&mut self, now: Instant, link: LinkKind, service: u16, body: &[u8]) {
        let expects = response_for(service).is_some();
        if let Some(l) = self.links.get_mut(&link) {
            let bytes = l.request(now, service, body, expects);
            self.queue(link, bytes, service);
        }
    }

    /// Sends activity message `msg` on service 8 with `handle` (the session id).
    pub(crate) fn send_activity(&mut self, now: Instant, handle: u64, msg: u32, payload: Vec<u8>) {
        let body = ActivityNotification::new(handle, msg, 0, payload.clone()).encode();
        if let Some(l) = self.links.get_mut(&LinkKind::Activity) {
            let bytes = l.request(now, ACTIVITY_TO_HOST, &body, false);
            self.transmits.push_back(ClientTransmit {
                link: LinkKind::Activity,
                bytes,
                service: ACTIVITY_TO_HOST,
                message: Some(msg),
                payload: Some(payload),
            });
        }
    }

    /// Bytes arrived on `link`.
    pub fn handle_bytes(&mut self, now: Instant, link: LinkKind, bytes: &[u8]) {
        let running = self.running();
        let Some(l) = self.links.get_mut(&link) else {
            return;
        };
        if l.dead || !running {
            return;
        }
        l.deframer.push(bytes);
        while self.running() {
            let Some(l) = self.links.get_mut(&link) else {
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
                    self.outcome = Outcome::Aborted {
                        reason: format!("{link} link: {e}, past the emulated client's buffer"),
                    };
                    return;
                }
                Err(e) => {
                    l.dead = true;
                    let header = l.deframer.rejected_header().unwrap_or_default().to_vec();
                    let frame = self.report_unframed(link, header);
                    return self.violate(
                        Rule::Bap01,
                        Some(frame),
                        None,
                        format!("{link} link: {e}"),
                    );
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
        let Some(l) = self.links.get_mut(&link) else {
            return;
        };
        let inner = match (frame.frame_type, &mut l.secure) {
            (FrameType::Encrypted, Some(channel)) => match channel.open(&frame.payload) {
                Ok(inner) => inner,
                Err(e) => {
                    return self.violate(Rule::Bap02, Some(idx), None, format!("{link} link: {e}"));
                }
            },
            (FrameType::Encrypted, None) => {
                let reason = format!("{link} link: encrypted frame before the hello");
                return self.violate(Rule::Bap02, Some(idx), None, reason);
            }
            _ => frame.payload,
        };
        let Some(service) = InnerHeader::peek_service(&inner) else {
            let reason = format!("{}-byte inner message has no service id", inner.len());
            return self.violate(Rule::Bap03, Some(idx), None, reason);
        };
        if service >= SERVICE_ID_LIMIT {
            let reason = format!("service {service} is at or above {SERVICE_ID_LIMIT}");
            return self.violate(Rule::Bap04, Some(idx), None, reason);
        }
        let shape = client_inbound_shape(service);
        if SEND_ONLY.contains(&service) {
            let reason = format!("a reply on service {service}, which is send-only");
            return self.violate(Rule::Bap07, Some(idx), None, reason);
        }
        let (header, body) = match InnerHeader::read(&inner, shape == HeaderShape::Response) {
            Ok(h) => h,
            Err(e) => {
                return self.violate(
                    Rule::Bap03,
                    Some(idx),
                    None,
                    format!("service {service}: {e}"),
                );
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
                self.check_push_sequence(idx, header.task);
                self.handle_push(now, idx, body);
            }
            HeaderShape::Request => {
                tracing::info!(service, "push on a service the model does not act on")
            }
            HeaderShape::Response => self.handle_response(now, link, idx, header, body),
        }
    }

    /// Time passed: the link clock (LINK-01), message 52 every second and message 16 after
    /// a silent keepalive interval (LINK-02).
    pub fn handle_timeout(&mut self, now: Instant) {
        if !self.running() {
            return;
        }
        if let Some(l) = self.links.get(&LinkKind::Activity)
            && !l.dead
            && now.since(l.last_rx) >= LINK_SILENCE_MS
        {
            let reason = format!(
                "error_host_crashed: no bytes on the Activity Host link for {} ms",
                now.since(l.last_rx)
            );
            return self.violate(Rule::Link01, None, None, reason);
        }
        self.check_keepalive(now);
        let Some(slot) = &mut self.slot else {
            return;
        };
        let (handle, established) = (slot.stored_id, slot.established);
        if !established {
            return;
        }
        if slot.next_epoch.is_some_and(|t| t <= now) {
            slot.next_epoch = Some(now + PATCH_EPOCH_INTERVAL_MS);
            slot.last_epoch_sent = Some(self.config.patch_epoch);
            let body = vex_wire::activity::small::PatchEpoch(self.config.patch_epoch).encode();
            self.send_activity(now, handle, ids::PATCH_EPOCH, body);
        }
        if self.keepalive_due().is_some_and(|due| due <= now) {
            let body = vex_wire::activity::small::KEEPALIVE_BODY.to_vec();
            self.send_activity(now, handle, ids::KEEPALIVE_REQUEST, body);
        }
        self.request_slots_if_due(now);
        self.refresh_if_due(now);
        self.send_identity_if_due(now);
        self.leave_if_due(now);
    }

    /// Message 16 is due a keepalive interval after the last send; at interval 0 the client
    /// sends one every tick (JOIN-07), so never sooner than one tick.
    fn keepalive_due(&self) -> Option<Instant> {
        let slot = self.slot.as_ref().filter(|s| s.established)?;
        let l = self.links.get(&LinkKind::Activity).filter(|l| !l.dead)?;
        Some(l.last_tx + slot.keepalive_interval_ms.max(CLIENT_TICK_MS))
    }

    /// When [`ClientCore::handle_timeout`] next has work.
    pub fn poll_timeout(&self) -> Option<Instant> {
        if !self.running() {
            return None;
        }
        let silence = self
            .links
            .get(&LinkKind::Activity)
            .filter(|l| !l.dead)
            .map(|l| l.last_rx + LINK_SILENCE_MS);
        let epoch = self.slot.as_ref().and_then(|s| s.next_epoch);
        let leave = self.slot.as_ref().and_then(|s| s.leave_at);
        let slot_request = self.slot.as_ref().and_then(|s| s.slot_request_at);
        let refresh = self.slot.as_ref().and_then(|s| s.refresh_at);
        let identity = self.slot.as_ref().and_then(|s| s.identity_at);
        [
            silence,
            epoch,
            leave,
            slot_request,
            refresh,
            identity,
            self.keepalive_due(),
            self.keepalive_deadline(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// The run's deadline passed: every check whose effect is a hang is judged now.
    pub fn finish(&mut self, now: Instant) {
        if !self.running() {
            return;
        }
        let pending: Vec<(LinkKind, u32, u16)> = self
            .links
            .iter()
            .filter(|(_, l)| !l.dead)
            .flat_map(|(k, l)| l.pending.iter().map(move |(t, s)| (*k, *t, *s)))
            .collect();
        for (link, task, service) in pending {
            let reason =
                format!("{link} link: service {service} request (task {task}) was never answered");
            self.violate(Rule::Bap06, None, None, reason);
        }
        self.check_burst_owed();
        self.check_leave_answered(now);
        self.check_slot_request_answered(now);
        self.check_refresh_answered(now);
        if !self.status.in_activity() {
            let reason = format!("the run ended at {} without E, G and M", self.status);
            self.violate(Rule::Join09, None, None, reason);
        }
    }
}
