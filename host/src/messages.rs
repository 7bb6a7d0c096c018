//! Activity messages on service 8, the join burst and the keepalive.
//!
//! SR "The join burst", "What each client message gets", "Timed sends that remain";
//! AH "The activity envelope", "Hazards for a host".

use crate::activity::GRANTABLE;
use crate::config::{EPOCH_ADVANCE_AFTER_MS, KEEPALIVE_INTERVAL_MS};
use crate::core::{HostCore, LinkId};
use crate::event::HostEvent;
use crate::fault::{Fault, FaultPlan};
use crate::roster;
use vex_wire::activity::envelope::{ActivityNotification, ActivityPush};
use vex_wire::activity::global_state::BUBBLE_ENABLED;
use vex_wire::activity::ids::{
    ADVANCE_REPLICATION_EPOCH, ALLOCATE_ENTITY_INDICES, BUBBLE_HOST_STATE, CLIENT_IDENTITY_UPDATE,
    ENTITY_SLOTS_ALLOCATED, FREE_ENTITY_INDICES, GLOBAL_ACTIVITY_STATE, JOIN_REQUEST, JOIN_RESULT,
    KEEPALIVE_RESPONSE, MEMBERSHIP_ACKNOWLEDGEMENT, MESSAGE_COUNT, PATCH_EPOCH, PEER_LEAVE_REQUEST,
    REPLICATE_MEMBERSHIP, SENSOR_AUTH_UPDATE, SENSOR_SENSE_UPDATE, STATE_REFRESH,
    WORLD_GLOBALS_STATE,
};
use vex_wire::activity::join::{INITIAL_REPLICATION_EPOCH, JoinRequest, JoinResult};
use vex_wire::activity::join_template::JoinResultTemplate;
use vex_wire::activity::selection::SelectionDescriptor;
use vex_wire::activity::sense_update::DecodedSenseUpdate;
use vex_wire::activity::sensor_auth::{AuthPart, BODY_BUDGET};
use vex_wire::activity::slot::EMPTY_KEY;
use vex_wire::activity::small::{
    AdvanceEpoch, BubbleHostState, EntitySlotMask, PatchEpoch, WorldGlobals,
};
use vex_wire::bap::header::InnerHeader;
use vex_wire::bap::services::{ACTIVITY_PUSH, ACTIVITY_TO_HOST, SEND_ONLY};
use vex_wire::time::Instant;

/// Message 2: the client's own tick period, unless a fault says otherwise.
pub(crate) fn world_globals(faults: &FaultPlan) -> WorldGlobals {
    let mut m = WorldGlobals::default_tick();
    if faults.has(Fault::ZeroTickPeriod) {
        m.tick_ms = 0.0;
    }
    if faults.has(Fault::NanTickPeriod) {
        m.tick_ms = f32::NAN;
    }
    m
}

/// Message 54: the empty table, or (a fault the encoder refuses) 40 rows, raw.
fn bubble_host_state(faults: &FaultPlan) -> Result<Vec<u8>, vex_wire::bits::BitError> {
    if faults.has(Fault::TooManyHostRows) {
        return Ok(vec![TOO_MANY_ROWS << 2]); // 6-bit count, MSB first
    }
    BubbleHostState { row_count: 0 }.encode()
}

/// The service-9 sequence [`Fault::PushSequence`] puts on pushes (ENV-10 wants 0).
const FAULT_SEQUENCE: u32 = 5;
/// Rows [`Fault::TooManyHostRows`] declares (BHS-01 allows 32).
const TOO_MANY_ROWS: u8 = 40;

/// The payload_len [`Fault::PayloadLenLarger`] declares: far more than follows, yet below
/// the crashing range (ENV-03). A fuzz run found the emulated client allocating all of it.
const LARGER_PAYLOAD_LEN: u32 = 0xFFFF_0000;
/// The session id [`Fault::PushWithoutSession`] names.
const UNBOUND_SESSION: u64 = 0x0BAD_5E55_0000_0001;
/// A service id the client drops at the header (BAP-04), for [`Fault::ServiceIdOutOfRange`].
const OUT_OF_RANGE_SERVICE: u16 = 400;

impl HostCore {
    /// One service-8 body. A message from a link that does not own its session is recorded
    /// and dropped; the frame itself is accepted (HOST-06).
    pub(crate) fn handle_activity(&mut self, now: Instant, link: LinkId, task: u32, body: &[u8]) {
        let n = match ActivityNotification::decode(body) {
            Ok(n) => n,
            Err(e) => return self.drop_input(link, format!("service 8: {e}")),
        };
        self.record(link, ACTIVITY_TO_HOST, task, Some(n.msg_type));
        if !self.owns(link, n.msg_type, n.handle) {
            return self.drop_input(
                link,
                format!(
                    "message {} names session {:#x}, which this link does not own",
                    n.msg_type, n.handle
                ),
            );
        }
        match n.msg_type {
            JOIN_REQUEST => self.join(now, link, n.handle, &n.payload),
            CLIENT_IDENTITY_UPDATE => self.client_identity(link, &n.payload),
            PATCH_EPOCH => self.patch_epoch(link, &n.payload),
            PEER_LEAVE_REQUEST => self.peer_leave(link, &n.payload),
            MEMBERSHIP_ACKNOWLEDGEMENT => self.membership_acknowledged(link, &n.payload),
            STATE_REFRESH => self.state_refresh(link, &n.payload),
            ALLOCATE_ENTITY_INDICES => self.allocate_entity_slots(link, &n.payload),
            FREE_ENTITY_INDICES => self.free_entity_slots(link, &n.payload),
            SENSOR_SENSE_UPDATE => self.sense_update(link, &n.payload),
            _ => {} // recorded only (SR "Every other client message ... is recorded only")
        }
    }

    /// facts 4.15: message 3 may name the link's own private session or a public host
    /// session; every other message the session the link is bound to (HOST-06).
    fn owns(&self, link: LinkId, msg: u32, handle: u64) -> bool {
        let Some(b) = self.links.get(&link).and_then(|l| l.binding.as_ref()) else {
            return false;
        };
        if msg == JOIN_REQUEST {
            handle == b.private_session || self.is_public_host(handle, link)
        } else {
            handle == b.session
        }
    }

    /// A session another link hosts: an activity whose owner is one of its members, which
    /// any other link may join (SR "The join burst": a public join names "a session that
    /// belongs to a shared region's host").
    fn is_public_host(&self, session: u64, link: LinkId) -> bool {
        self.activities
            .get(&session)
            .is_some_and(|a| a.owner() != link && a.has_member(a.owner()))
    }

    /// Message 3: the member takes a lane of the session it names, its own (a private
    /// join) or a public host's (a public join), and gets the join burst 4, 0, 1, 2, 54,
    /// 12, all at once (JOIN-02); every other member gets the new table (SR "The join
    /// burst"; HOST-14).
    fn join(&mut self, now: Instant, link: LinkId, handle: u64, payload: &[u8]) {
        let join = match JoinRequest::decode(payload) {
            Ok(j) => j,
            Err(e) => return self.drop_input(link, format!("join_request: {e}")),
        };
        if join.host_id != handle {
            let reason = format!(
                "join names session {:#x} in a message for {handle:#x} (facts 4.1: they are equal)",
                join.host_id
            );
            return self.drop_input(link, reason);
        }
        let Some(previous) = self.links.get(&link).and_then(|l| l.binding.as_ref()) else {
            return;
        };
        let (previous, public) = (previous.session, handle != previous.private_session);
        if previous != handle {
            self.depart(link, previous);
        }
        let member = self.seed_member(&join);
        let Some(activity) = self.activities.get_mut(&handle) else {
            return self.drop_input(link, format!("session {handle:#x} has no activity"));
        };
        let revision_before = activity.revision();
        if let Err(e) = activity.admit(link, member) {
            return self.drop_input(link, format!("join refused: {e}"));
        }
        if let Some(b) = self.links.get_mut(&link).and_then(|l| l.binding.as_mut()) {
            b.session = handle;
        }
        let burst = match self.join_burst(link, &join, handle, public) {
            Ok(b) => b,
            Err(e) => {
                self.depart(link, handle);
                return self.drop_input(link, format!("join burst not built: {e}"));
            }
        };
        let membership = burst.iter().any(|(msg, _)| *msg == REPLICATE_MEMBERSHIP);
        let current = self.activities.get(&handle).map_or(0, |a| a.revision());
        let revision = if public {
            roster::FIRST_REVISION
        } else {
            current
        };
        for (msg, payload) in burst {
            self.push_message(link, msg, payload);
        }
        self.after_burst_faults(link);
        let silent = self.config.faults.has(Fault::SilentAfterJoin);
        let interval = self.keepalive_interval();
        if let Some(l) = self.links.get_mut(&link)
            && let Some(binding) = l.binding.as_mut()
        {
            binding.join = Some(join);
            binding.roster_owed = true;
            binding.epoch_waiting_at = Some(now + EPOCH_ADVANCE_AFTER_MS);
            binding.membership_revision = membership.then_some(revision);
            binding.replication_epoch = INITIAL_REPLICATION_EPOCH;
            binding.membership_acknowledged = None;
            binding.rosters_sent = 0;
            l.next_keepalive = (!silent).then_some(now + interval);
        }
        // a public joiner's burst carried its private table: it gets the activity's too
        if public && membership {
            self.push_membership(link, handle);
        }
        if current != revision_before {
            self.publish_membership(handle, Some(link));
        }
        self.event(HostEvent::Joined {
            link,
            session: handle,
        });
    }

    /// Builds every message of the burst first, so none is sent unless all are built.
    fn join_burst(
        &mut self,
        link: LinkId,
        join: &JoinRequest,
        session: u64,
        public: bool,
    ) -> Result<Vec<(u32, Vec<u8>)>, vex_wire::bits::BitError> {
        let grant = self.join_grant(link, session);
        let faults = &self.config.faults;
        let scenario = &self.config.scenario;
        let template = match self.join_template.take() {
            Some(template) => template,
            None => {
                let mut base = JoinResult::accept(join, session);
                if faults.has(Fault::JoinRejected) {
                    base.result = -1;
                }
                if faults.has(Fault::ZeroKeepaliveInterval) {
                    base.keepalive_interval_ms = 0;
                }
                JoinResultTemplate::new(&base)?
            }
        };
        let mut echo = join.record.clone();
        if faults.has(Fault::NonceMismatch)
            && let Some(b) = echo.first_mut()
        {
            *b ^= 0xFF;
        }
        if faults.has(Fault::WrongHostId)
            && let Some(b) = echo.get_mut(11)
        {
            *b ^= 1; // the last byte of the echoed host id (bits 32-95)
        }
        if faults.has(Fault::ZeroHostId) {
            for b in echo.iter_mut().skip(4).take(8) {
                *b = 0;
            }
        }
        let mut msg4 = template.encode(&echo, session);
        self.join_template = Some(template);
        if faults.has(Fault::ShortJoinResult) {
            msg4.truncate(700);
        }
        let descriptor = self
            .links
            .get(&link)
            .and_then(|l| l.binding.as_ref())
            .map(|b| b.descriptor.clone())
            .unwrap_or_default();
        let mut msg1 = roster::global_state(scenario, &descriptor);
        if faults.has(Fault::BubbleCountMismatch) {
            msg1.bubble_count += 1;
        }
        if faults.has(Fault::UnbiasedBubbleStates) {
            for s in &mut msg1.bubble_states {
                *s = s.wrapping_sub(BUBBLE_ENABLED); // the bias left out: 0x80 is 0, 0x7F is 0xFF
            }
        }
        if faults.has(Fault::RebuiltDescriptor) {
            let mut rebuilt = SelectionDescriptor::from_bits(&descriptor)?;
            rebuilt.flag = !rebuilt.flag;
            msg1.descriptor = rebuilt.to_bits()?;
        }
        let mut msg1 = msg1.encode()?;
        if faults.has(Fault::ShortGlobalState) {
            msg1.truncate(100);
        }
        let mut burst = vec![
            (JOIN_RESULT, msg4),
            (ENTITY_SLOTS_ALLOCATED, grant.0),
            (GLOBAL_ACTIVITY_STATE, msg1),
            (WORLD_GLOBALS_STATE, world_globals(faults).encode()?),
            (BUBBLE_HOST_STATE, bubble_host_state(faults)?),
        ];
        if faults.has(Fault::BurstWithoutWorldGlobals) {
            burst.retain(|(msg, _)| *msg != WORLD_GLOBALS_STATE);
        }
        if faults.has(Fault::AuthBeforeEpoch) {
            burst.push((
                SENSOR_AUTH_UPDATE,
                roster::sensor_auth(scenario, join, [0, 0])?.encode()?,
            ));
        }
        if !faults.has(Fault::NoMembership) {
            let table = if public {
                Some(self.private_table(join))
            } else {
                self.membership_table(session, link)
            };
            if let Some(table) = table {
                burst.push((REPLICATE_MEMBERSHIP, table.encode()?));
            }
        }
        if faults.has(Fault::BurstOrder) {
            burst.swap(0, 1);
        }
        Ok(burst)
    }

    /// Sends activity message `msg` on a link with no session, as a push naming a session
    /// that does not exist (for [`Fault::PushWithoutSession`]).
    pub(crate) fn push_unbound(&mut self, link: LinkId, msg: u32, payload: Vec<u8>) {
        if let Some(l) = self.links.get_mut(&link) {
            let t = l.push(&ActivityPush::new(UNBOUND_SESSION, msg, payload), 0);
            self.send(t);
        }
    }

    /// Sends activity message `msg` as a service-9 push on the link's session.
    pub(crate) fn push_message(&mut self, link: LinkId, msg: u32, payload: Vec<u8>) {
        let faults = self.config.faults.clone();
        let Some(l) = self.links.get_mut(&link) else {
            return;
        };
        let Some(session) = l.binding.as_ref().map(|b| b.session) else {
            return;
        };
        let mut push = ActivityPush::new(session, msg, payload);
        match msg {
            JOIN_RESULT if faults.has(Fault::JoinResultWrongSession) => push.session_id ^= 0xFFFF,
            GLOBAL_ACTIVITY_STATE if faults.has(Fault::PushDiscriminator) => push.discriminator = 0,
            WORLD_GLOBALS_STATE if faults.has(Fault::PayloadLenLarger) => {
                push.payload_len = LARGER_PAYLOAD_LEN;
            }
            BUBBLE_HOST_STATE if faults.has(Fault::PayloadLenHuge) => {
                push.payload_len = 0xFFFF_FF80
            }
            _ => {}
        }
        let joined = l.binding.as_ref().is_some_and(|b| b.join.is_some());
        if joined && faults.has(Fault::WrongSessionAfterJoin) {
            push.session_id = push.session_id.wrapping_add(1);
        }
        let sequence = if faults.has(Fault::PushSequence) {
            FAULT_SEQUENCE
        } else {
            0
        };
        let mut t = l.push(&push, sequence);
        if msg == JOIN_RESULT
            && faults.has(Fault::CorruptTag)
            && let Some(b) = t.bytes.get_mut(6)
        {
            *b ^= 1;
        }
        self.send(t);
    }

    /// Faults that add a frame after the burst.
    fn after_burst_faults(&mut self, link: LinkId) {
        let faults = self.config.faults.clone();
        let Some(l) = self.links.get_mut(&link) else {
            return;
        };
        let mut extra = Vec::new();
        if faults.has(Fault::ShortInnerHeader) {
            // BAP-03: 4 bytes cannot hold a 6-byte inner header.
            extra.push((ACTIVITY_PUSH, l.frame_inner(l.push_type(), &[0, 9, 0, 0])));
        }
        if faults.has(Fault::TinyInnerMessage) {
            // BAP-03: 1 byte cannot even hold a service id.
            extra.push((ACTIVITY_PUSH, l.frame_inner(l.push_type(), &[0])));
        }
        if faults.has(Fault::ServiceIdOutOfRange) {
            let header = InnerHeader::request(OUT_OF_RANGE_SERVICE, 0);
            extra.push((OUT_OF_RANGE_SERVICE, l.frame(l.push_type(), header, &[])));
        }
        if faults.has(Fault::ReplyOnSendOnly) {
            let service = SEND_ONLY[0]; // BAP-07: the client cannot parse a reply on it
            let header = InnerHeader::response(service, 0);
            extra.push((service, l.frame(l.push_type(), header, &[])));
        }
        for (service, bytes) in extra {
            self.send_raw(link, service, bytes);
        }
        if faults.has(Fault::UnknownMessageId) {
            self.push_message(link, MESSAGE_COUNT, vec![0]);
        }
    }

    /// Message 52: keeps the epoch for the link; the first one answers with the first
    /// message 5 when a roster is owed (AUTH-16, SR step 5).
    fn patch_epoch(&mut self, link: LinkId, payload: &[u8]) {
        let epoch = match PatchEpoch::decode(payload) {
            Ok(e) => e,
            Err(e) => return self.drop_input(link, format!("patch_epoch: {e}")),
        };
        let Some(binding) = self.links.get_mut(&link).and_then(|l| l.binding.as_mut()) else {
            return;
        };
        binding.epoch = Some(epoch);
        let (Some(join), true) = (binding.join.clone(), binding.roster_owed) else {
            return;
        };
        binding.roster_owed = false;
        self.push_roster(link, &join, epoch);
        self.incident_faults(link);
        if self.config.faults.has(Fault::CloseAfterJoin) {
            if let Some(l) = self.links.get_mut(&link) {
                l.closed = true;
            }
            self.close(
                link,
                "fault plan: close the link after the first roster".into(),
            );
        }
    }

    /// Message 5 with the whole roster and every Auth body the host holds, echoing the
    /// client's `epoch` (AUTH-01, AUTH-09).
    pub(crate) fn push_roster(&mut self, link: LinkId, join: &JoinRequest, epoch: PatchEpoch) {
        let Some(binding) = self.links.get_mut(&link).and_then(|l| l.binding.as_mut()) else {
            return;
        };
        let first = binding.rosters_sent == 0;
        binding.rosters_sent += 1;
        let faults = &self.config.faults;
        let mut echo = epoch.0;
        if faults.has(Fault::WrongEpochEcho) {
            echo[1] = echo[1].wrapping_add(1);
        }
        let body = roster::sensor_auth(&self.config.scenario, join, echo).and_then(|mut m| {
            m.prefix.roster_enable = !faults.has(Fault::RosterDisabled);
            if faults.has(Fault::MissingBlock)
                && let Some(g) = m.groups.last_mut()
            {
                g.objects.pop();
            }
            if faults.has(Fault::EmptyGroupKey)
                && let Some(g) = m.groups.first_mut()
            {
                g.key = EMPTY_KEY;
            }
            crate::corrupt::roster_faults(faults, &mut m);
            if faults.has(Fault::RosterWithoutBodies) && !first {
                for o in m.groups.iter_mut().flat_map(|g| &mut g.objects) {
                    o.auth = o.auth.take().map(|_| AuthPart {
                        reset: true,
                        body: None,
                    }); // AUTH-09: every block reset-only
                }
            }
            let mut body = m.encode()?;
            crate::corrupt::sensor_auth(faults, &mut body);
            if faults.has(Fault::OverBudgetAuthUpdate) {
                body.resize(BODY_BUDGET + 1, 0); // AUTH-10: trailing zeros the budget counts
            }
            Ok(body)
        });
        match body {
            Ok(body) => self.push_message(link, SENSOR_AUTH_UPDATE, body),
            Err(e) => self.drop_input(link, format!("message 5 not built: {e}")),
        }
    }

    /// Message 6: read group by group and logged; the mission runtime that acts on Sense
    /// is a later step (SR "Client reports come in").
    fn sense_update(&mut self, link: LinkId, payload: &[u8]) {
        match DecodedSenseUpdate::decode(payload) {
            Ok(m) => {
                let keys: Vec<String> = m
                    .groups
                    .iter()
                    .map(|g| format!("{:#010x}", g.key))
                    .collect();
                tracing::info!(%link, groups = ?keys, "sense update");
            }
            Err(e) => self.drop_input(link, format!("sensor_sense_update: {e}")),
        }
    }

    /// Message 1 from the link's binding.
    pub(crate) fn push_global_state(&mut self, link: LinkId) {
        let Some(descriptor) = self
            .links
            .get(&link)
            .and_then(|l| l.binding.as_ref())
            .map(|b| b.descriptor.clone())
        else {
            return;
        };
        match roster::global_state(&self.config.scenario, &descriptor).encode() {
            Ok(body) => self.push_message(link, GLOBAL_ACTIVITY_STATE, body),
            Err(e) => self.drop_input(link, format!("message 1 not built: {e}")),
        }
    }

    /// The 2-second keepalive: message 1 (LINK-03), message 44 when a replication epoch
    /// is waiting, and message 12 while its revision is unacknowledged (MEMBER-03).
    pub(crate) fn keepalive(&mut self, now: Instant, link: LinkId) {
        self.push_global_state(link);
        self.advance_epoch_if_waiting(now, link);
        self.resend_membership_if_owed(link);
        if self.config.faults.has(Fault::KeepaliveResponse) {
            self.push_message(link, KEEPALIVE_RESPONSE, Vec::new());
        }
        if self.config.faults.has(Fault::SlotsOnTimer) {
            let mask = EntitySlotMask::with_range(GRANTABLE).0;
            self.push_message(link, ENTITY_SLOTS_ALLOCATED, mask);
        }
        let interval = self.keepalive_interval();
        if let Some(l) = self.links.get_mut(&link) {
            l.next_keepalive = Some(now + interval);
        }
    }

    /// Message 44: the epoch after the one the client holds, sent once and never retried
    /// (EPOCH-01), with the abort bit clear, since it is permanent (EPOCH-02).
    fn advance_epoch_if_waiting(&mut self, now: Instant, link: LinkId) {
        let faults = &self.config.faults;
        let Some(binding) = self.links.get_mut(&link).and_then(|l| l.binding.as_mut()) else {
            return;
        };
        if binding.epoch_waiting_at.is_none_or(|t| t > now) {
            return;
        }
        binding.epoch_waiting_at = None;
        let step = if faults.has(Fault::RepeatedEpoch) {
            0
        } else if faults.has(Fault::SkippedEpoch) {
            2
        } else {
            1
        };
        binding.replication_epoch = binding.replication_epoch.wrapping_add(step);
        let roster_after = faults.has(Fault::RosterAfterAbort);
        let body = AdvanceEpoch {
            epoch: binding.replication_epoch,
            abort: faults.has(Fault::AbortEpoch) || roster_after,
        }
        .encode();
        let resend = (binding.join.clone(), binding.epoch);
        self.push_message(link, ADVANCE_REPLICATION_EPOCH, body);
        if let (true, (Some(join), Some(epoch))) = (roster_after, resend) {
            self.push_roster(link, &join, epoch);
        }
    }

    /// The keepalive interval: 2 s (LINK-03), or 4 s under [`Fault::SlowKeepalive`].
    fn keepalive_interval(&self) -> u64 {
        if self.config.faults.has(Fault::SlowKeepalive) {
            2 * KEEPALIVE_INTERVAL_MS
        } else {
            KEEPALIVE_INTERVAL_MS
        }
    }
}
