//! The decisions a [`HostPlan`] changes: each override breaks one rule when its fault is
//! in the plan, and keeps [`Policy`]'s correct default otherwise.

use super::one_slot;
use super::{group, program, sensor_auth};
use crate::fault::Fault;
use crate::plan::HostPlan;
use crate::variation::Variation;
use vex_host::activity::{GRANTABLE, JOIN_GRANT_COUNT};
use vex_host::policy::{Burst, JoinAnswer, Membership, Policy, RosterInputs, RosterSend};
use vex_host::reason::Dropped;
use vex_host::schedule::{KEEPALIVE_INTERVAL_MS, TimedCommit};
use vex_wire::activity::authority::Purge;
use vex_wire::activity::body::Body;
use vex_wire::activity::global_state::{BUBBLE_ENABLED, GlobalActivityState};
use vex_wire::activity::ids::{
    ENTITY_SLOTS_ALLOCATED, GLOBAL_ACTIVITY_STATE, JOIN_RESULT, REPLICATE_MEMBERSHIP,
    SENSOR_AUTH_UPDATE, WORLD_GLOBALS_STATE,
};
use vex_wire::activity::join::JoinResult;
use vex_wire::activity::membership::ReplicateMembership;
use vex_wire::activity::selection::SelectionDescriptor;
use vex_wire::activity::sensor_auth::{AuthPart, SensorAuthUpdate};
use vex_wire::activity::session::SessionId;
use vex_wire::activity::slot::EMPTY_KEY;
use vex_wire::activity::small::{AdvanceEpoch, EntitySlotMask, PatchEpoch, WorldGlobals};
use vex_wire::activity::table;
use vex_wire::bits::BitError;
use vex_wire::peer::established::EstablishedPacket;
use vex_wire::peer::membership::MembershipUpdate;
use vex_wire::peer::message::TimeSamples;

/// Rows [`Fault::TooManyHostRows`] declares (BHS-01 allows 32).
const TOO_MANY_ROWS: u8 = 40;
/// The client keepalive interval Sunrise's message 4 gives (facts 9).
const SUNRISE_CLIENT_KEEPALIVE_MS: u16 = 5_000;
/// Sunrise's activity keepalive interval (facts 7 item 8, 9), past SR's 2 s (LINK-03).
const SLOW_KEEPALIVE_MS: u64 = 5_000;
/// The client's own tick period, 1000 / 30 ms, written to six figures.
const ROUNDED_TICK_MS: f32 = 33.3333;
/// A link's first message 5s, during which Sunrise moves the state byte (facts 4.7).
const STATE_BYTE_WARM_UP: u32 = 3;
/// A slice set past the built-in scenario's two bubbles (GLOBAL-07).
const OUTSIDE_SLICE_SET: i16 = 16;

impl Policy for HostPlan {
    fn time_sync_answer(&self, samples: TimeSamples, now_ms: u64) -> Option<TimeSamples> {
        match samples {
            TimeSamples::Reply(_) if self.has(Fault::TimeSyncReplyAnswered) => Some(samples),
            TimeSamples::Request(t1) => Some(TimeSamples::Reply([t1, now_ms, now_ms])),
            TimeSamples::Reply(_) => None,
        }
    }

    fn peer_struct_size(&self, id: u8, size: u32) -> u32 {
        if self.has(Fault::PongSizeWrong) && id == vex_wire::peer::message::PONG {
            size - 1
        } else {
            size
        }
    }

    fn record_sequence(&self, next: u32) -> u32 {
        // every record after the first takes the sequence of the one before it
        if self.has(Fault::RecordReplayed) && next > 1 {
            next - 1
        } else {
            next
        }
    }

    fn join_answer(&self, checked: JoinAnswer) -> JoinAnswer {
        group::join_answer(self, checked)
    }

    fn established_packet(&self, packet: &mut EstablishedPacket) {
        group::established(self, packet);
    }

    fn group_membership(&self, membership: &mut Membership) {
        group::membership(self, membership);
    }

    fn group_membership_update(&self, update: &mut MembershipUpdate) {
        group::membership_update(self, update);
    }

    fn base_nonce(&self, drawn: [u8; 12]) -> [u8; 12] {
        if self.varies(Variation::NonceCarries) {
            // bytes 0 to 10 all 0xFF: the second frame's increment carries into byte 11
            let mut carries = [0xFF; 12];
            carries[11] = drawn[11];
            carries
        } else {
            drawn
        }
    }

    fn session_id(&self, shaped: SessionId) -> SessionId {
        let (account_half, class, index) = (shaped.account_half(), shaped.class(), shaped.index());
        if self.has(Fault::BareSessionId) {
            SessionId::from_parts(0, 0, index)
        } else if self.has(Fault::SessionClassWrong) {
            SessionId::from_parts(account_half, class ^ 1, index) // 0x0020 becomes 0x0021
        } else if self.has(Fault::SessionOtherAccount) {
            SessionId::from_parts(account_half ^ 1, class, index)
        } else if self.varies(Variation::SessionIndexTop) {
            SessionId::from_parts(account_half, class, u16::MAX)
        } else {
            shaped
        }
    }

    fn join_result(&self, mut accepted: JoinResult) -> JoinResult {
        if self.has(Fault::JoinRejected) {
            accepted.result = -1;
        }
        if self.has(Fault::ZeroKeepaliveInterval) {
            accepted.keepalive_interval_ms = 0;
        }
        if self.varies(Variation::EpochWraps) {
            accepted.initial_epoch = u8::MAX;
        }
        if self.varies(Variation::KeepaliveIntervalOne) {
            accepted.keepalive_interval_ms = 1;
        }
        if self.varies(Variation::SunriseJoinTimings) {
            accepted.keepalive_interval_ms = SUNRISE_CLIENT_KEEPALIVE_MS;
            accepted.peer_heard_window_ms = 0;
        }
        accepted
    }

    fn join_echo(&self, mut record: Vec<u8>) -> Vec<u8> {
        if self.has(Fault::NonceMismatch)
            && let Some(b) = record.first_mut()
        {
            *b ^= 0xFF;
        }
        if self.has(Fault::WrongHostId)
            && let Some(b) = record.get_mut(11)
        {
            *b ^= 1; // the last byte of the echoed host id (bits 32-95)
        }
        if self.has(Fault::ZeroHostId) {
            for b in record.iter_mut().skip(4).take(8) {
                *b = 0;
            }
        }
        record
    }

    fn global_state(
        &self,
        mut state: GlobalActivityState,
        in_burst: bool,
    ) -> Result<GlobalActivityState, BitError> {
        if !in_burst {
            return Ok(state);
        }
        if self.has(Fault::BubbleCountMismatch) {
            state.bubble_count += 1;
        }
        if self.has(Fault::BubbleStateOther)
            && let Some(s) = state.bubble_states.get_mut(1)
        {
            *s = BUBBLE_ENABLED + 1;
        }
        if self.has(Fault::UnbiasedBubbleStates) {
            for s in &mut state.bubble_states {
                *s = s.wrapping_sub(BUBBLE_ENABLED); // the bias left out: 0x80 is 0, 0x7F is 0xFF
            }
        }
        if self.varies(Variation::InitialSliceSetUnarmed) {
            state.arm_initial_slice_set = false;
        }
        if self.has(Fault::InitialSliceSetOutside) {
            state.initial_slice_set = OUTSIDE_SLICE_SET;
        }
        if self.has(Fault::InitialSpawnSetOther) {
            state.spawn_set_hash ^= 1;
        }
        if self.has(Fault::RebuiltDescriptor) {
            let mut rebuilt = SelectionDescriptor::from_bits(&state.descriptor)?;
            rebuilt.flag = !rebuilt.flag;
            state.descriptor = rebuilt.to_bits()?;
        }
        Ok(state)
    }

    fn world_globals(&self, mut globals: WorldGlobals) -> WorldGlobals {
        if self.has(Fault::ZeroTickPeriod) {
            globals.tick_ms = 0.0;
        }
        if self.has(Fault::NegativeTickPeriod) {
            globals.tick_ms = -1000.0 / 30.0;
        }
        if self.has(Fault::NanTickPeriod) {
            globals.tick_ms = f32::NAN;
        }
        if self.varies(Variation::TickPeriodRounded) {
            globals.tick_ms = ROUNDED_TICK_MS;
        }
        if self.has(Fault::OtherTickPeriod) {
            globals.tick_ms = 50.0;
        }
        globals
    }

    fn bubble_host_state(&self, body: Vec<u8>) -> Vec<u8> {
        if self.has(Fault::TooManyHostRows) {
            vec![TOO_MANY_ROWS << 2] // 6-bit count, MSB first: a row count the encoder refuses
        } else {
            body
        }
    }

    fn join_burst(&self, mut burst: Burst, context: RosterInputs<'_>) -> Result<Burst, BitError> {
        if self.has(Fault::BurstWithoutWorldGlobals) {
            burst.retain(|(msg, _)| *msg != WORLD_GLOBALS_STATE);
        }
        if self.has(Fault::NoMembership) || self.varies(Variation::MembershipAfterBurst) {
            burst.retain(|(msg, _)| *msg != REPLICATE_MEMBERSHIP);
        }
        if self.has(Fault::AuthBeforeEpoch) {
            let early = vex_host::roster::sensor_auth(&context)?;
            let early = early.encode()?;
            let at = burst
                .iter()
                .position(|(msg, _)| *msg == REPLICATE_MEMBERSHIP)
                .unwrap_or(burst.len());
            burst.insert(at, (SENSOR_AUTH_UPDATE, early));
        }
        if self.has(Fault::BurstWorldBeforeGlobal) {
            let global = burst
                .iter()
                .position(|(msg, _)| *msg == GLOBAL_ACTIVITY_STATE);
            let world = burst
                .iter()
                .position(|(msg, _)| *msg == WORLD_GLOBALS_STATE);
            if let (Some(a), Some(b)) = (global, world) {
                burst.swap(a, b);
            }
        }
        if self.has(Fault::BurstOrder) {
            let first = burst.iter().position(|(msg, _)| *msg == JOIN_RESULT);
            let grant = burst
                .iter()
                .position(|(msg, _)| *msg == ENTITY_SLOTS_ALLOCATED);
            if let (Some(a), Some(b)) = (first, grant) {
                burst.swap(a, b);
            }
        }
        Ok(burst)
    }

    fn membership(&self, mut table: ReplicateMembership) -> ReplicateMembership {
        if self.has(Fault::MembershipRevisionKept) {
            table.revision = table.revision.saturating_sub(1).max(1);
        }
        if self.has(Fault::MembershipRevisionSkips) {
            table.revision = table.revision.wrapping_mul(2);
        }
        if self.has(Fault::ForeignMembership) {
            for m in table.members.iter_mut().flatten() {
                m.member_key ^= 1;
            }
            table.host.host_key ^= 1; // a table of other members, whole
        }
        if self.has(Fault::MemberFieldsZero) {
            for m in table.members.iter_mut().flatten() {
                (m.field1, m.field2) = (0, 0);
            }
        }
        if self.has(Fault::MemberField2Only) {
            for m in table.members.iter_mut().flatten() {
                m.field2 = 0;
            }
        }
        if self.has(Fault::MembershipEpochMoves) {
            table.epoch = table.revision;
        }
        if self.has(Fault::MemberMaskWrong) {
            table.member_mask |= 1 << 31;
        }
        if self.has(Fault::HostKeyForeign) {
            table.host.host_key ^= 1;
        }
        if self.has(Fault::AmbassadorSlotZero) {
            table.regions[1].ambassador_slot = 0;
        }
        for record in &mut table.regions {
            if let Some(d) = record.citizen_descriptor.as_mut() {
                if self.has(Fault::CitizenDescriptorShort) {
                    d.pop();
                }
                if self.has(Fault::CitizenDescriptorLong) {
                    d.push(0);
                }
            }
        }
        table
    }

    fn public_burst_private_table(&self) -> bool {
        !self.has(Fault::PublicBurstActivityTable)
    }

    fn resend_membership(&self, unacknowledged: bool) -> bool {
        (unacknowledged && !self.has(Fault::NoMembership)) || self.has(Fault::MembershipOnTimer)
    }

    fn roster(&self, mut roster: SensorAuthUpdate, send: RosterSend) -> SensorAuthUpdate {
        let first = send.first();
        if self.has(Fault::WrongEpochEcho) {
            roster.prefix.patch_epoch[1] = roster.prefix.patch_epoch[1].wrapping_add(1);
        }
        roster.prefix.roster_enable = !self.has(Fault::RosterDisabled);
        if self.has(Fault::MissingBlock)
            && let Some(g) = roster.groups.last_mut()
        {
            g.objects.pop();
        }
        if self.has(Fault::EmptyGroupKey)
            && let Some(g) = roster.groups.first_mut()
        {
            g.key = EMPTY_KEY;
        }
        sensor_auth::roster_faults(self, &mut roster);
        if self.has(Fault::FirstSendWithoutReset)
            && first
            && let Some(auth) = roster
                .groups
                .first_mut()
                .and_then(|g| g.objects.first_mut())
                .and_then(|o| o.auth.as_mut())
        {
            auth.reset = false;
        }
        if self.has(Fault::TopGroupUnregistered)
            && let Some(r) = roster.roster.as_mut()
        {
            r.mask[0] &= !1; // the first top-level key, with the type-13 and type-17 slots
        }
        self.move_state_byte(&mut roster, send.sent);
        if self.has(Fault::GenerationOnEverySend) {
            sensor_auth::generation_on_every_send(&mut roster, send.sent);
        }
        if self.has(Fault::BlocksOnKeepalive) && !first && !send.snapshot {
            roster.roster = None;
        }
        if self.has(Fault::RosterWithoutBodies) && send.snapshot {
            for o in roster.groups.iter_mut().flat_map(|g| &mut g.objects) {
                o.auth = o.auth.take().map(|_| AuthPart {
                    reset: true,
                    body: None,
                }); // AUTH-09: every block of the snapshot reset-only
            }
        }
        if send.snapshot {
            sensor_auth::snapshot_objective(self, &mut roster);
        }
        if self.varies(Variation::DeltasAfterSeed) && !first && !send.snapshot {
            let parts = roster.groups.iter_mut().flat_map(|g| &mut g.objects);
            for auth in parts
                .filter_map(|o| o.auth.as_mut())
                .filter(|a| a.body.is_some())
            {
                auth.reset = false; // SEED-01: a delta on the body the client holds
            }
        }
        roster
    }

    fn keepalive_interval(&self) -> Option<u64> {
        if self.has(Fault::SilentAfterJoin) {
            None
        } else if self.has(Fault::SlowKeepalive) {
            Some(SLOW_KEEPALIVE_MS)
        } else {
            Some(KEEPALIVE_INTERVAL_MS)
        }
    }

    fn next_epoch(&self, holds: u8) -> AdvanceEpoch {
        let step = if self.has(Fault::RepeatedEpoch) {
            0
        } else if self.has(Fault::SkippedEpoch) {
            2
        } else {
            1
        };
        AdvanceEpoch {
            epoch: holds.wrapping_add(step),
            abort: self.has(Fault::AbortEpoch) || self.has(Fault::RosterAfterAbort),
        }
    }

    fn patch_epoch(&self, held: Option<PatchEpoch>, reported: PatchEpoch) -> PatchEpoch {
        match held {
            Some(first) if self.has(Fault::PatchEpochLatched) => first,
            _ => reported,
        }
    }

    fn commit_identity(&self) -> bool {
        !self.has(Fault::IdentityIgnored)
    }

    fn program(&self, mut timeline: Vec<TimedCommit>) -> Vec<TimedCommit> {
        timeline.extend(program::commits(self));
        timeline.sort_by_key(|c| c.after_ms); // the host runs it in order
        timeline
    }

    fn purge_notice(&self, mut request: Purge) -> Option<Purge> {
        if self.has(Fault::PurgeIgnored) {
            return None;
        }
        if self.has(Fault::PurgeNoticeOtherReason) {
            request.reason = request.reason.wrapping_add(1);
        }
        if self.has(Fault::PurgeNoticeOtherMask)
            && let Some(first) = request.mask.lowest()
        {
            request.mask.remove(&one_slot(first));
        }
        Some(request)
    }

    fn ghost_finish(&self, fraction: f32) -> f32 {
        if self.has(Fault::GhostFinishAtOne) {
            1.0
        } else if self.varies(Variation::GhostFinishJustAbove) {
            f32::from_bits(1.0f32.to_bits() + 1)
        } else {
            fraction
        }
    }

    fn ghost_finish_generation(&self, generation: i32) -> i32 {
        if self.has(Fault::GhostFinishOldGeneration) {
            generation.wrapping_sub(1)
        } else {
            generation
        }
    }

    fn first_roster(&self) -> bool {
        !self.has(Fault::NoFirstRoster)
    }

    fn commit_client_state(&self) -> bool {
        !self.has(Fault::RegionNotCommitted)
    }

    fn hold_rosters_for_region_request(&self) -> bool {
        !self.has(Fault::RosterOnRegionReport)
    }

    fn answer_leave(&self) -> bool {
        !self.has(Fault::LeaveIgnored)
    }

    fn leave_frees_member(&self) -> bool {
        !self.has(Fault::LeaverKeptInTable)
    }

    fn leave_delta(
        &self,
        mut delta: SensorAuthUpdate,
        inputs: RosterInputs<'_>,
        sent: u32,
    ) -> Result<SensorAuthUpdate, BitError> {
        if self.has(Fault::LeaveKeepsPresence) {
            delta = vex_host::roster::sensor_auth(&inputs)?;
            delta.groups.clear(); // every key still present
        }
        // the leave delta keeps the byte of the roster before it (LEAVE-01)
        self.move_state_byte(&mut delta, sent.saturating_sub(1));
        Ok(delta)
    }

    fn answer_start_activity(&self) -> bool {
        !self.has(Fault::StartActivityIgnored)
    }

    fn answer_refresh(&self) -> bool {
        !self.has(Fault::RefreshIgnored)
    }

    fn refresh_roster(&self) -> bool {
        !self.has(Fault::RefreshWithoutRoster)
    }

    fn join_grant(&self, free: EntitySlotMask) -> EntitySlotMask {
        if self.has(Fault::JoinGrantIgnoresOthers) {
            EntitySlotMask::with_range(GRANTABLE)
        } else {
            free
        }
    }

    fn slot_grant(&self, count: usize, free: EntitySlotMask) -> Option<EntitySlotMask> {
        if self.has(Fault::SlotRequestIgnored)
            || (self.has(Fault::LargeSlotRequestIgnored) && count > JOIN_GRANT_COUNT)
        {
            None
        } else if self.has(Fault::SlotGrantEmpty) {
            Some(EntitySlotMask::empty())
        } else if self.has(Fault::SlotGrantHeld) {
            Some(EntitySlotMask::with_range(0..count)) // the join grant's lowest slots
        } else if self.varies(Variation::SlotGrantOne) {
            Some(free.lowest().map_or(free, one_slot))
        } else {
            Some(free)
        }
    }

    fn answer_malformed_selection(&self) -> bool {
        !self.has(Fault::MalformedSelectionUnanswered)
    }

    fn take_trailing_bytes(&self) -> bool {
        !self.has(Fault::TrailingBytesRefused)
    }

    fn take_discriminator_two(&self) -> bool {
        !self.has(Fault::DiscriminatorTwoDropped)
    }

    fn close_after_drop(&self, reason: &Dropped) -> bool {
        match reason {
            Dropped::Unowned { .. } => self.has(Fault::CloseOnForeignSession),
            Dropped::NotClientSent(msg) if table::message(*msg).is_none() => {
                self.has(Fault::CloseOnUnknownMessage)
            }
            Dropped::NotClientSent(_) => self.has(Fault::CloseOnHostMessage),
            Dropped::Body { .. } => self.has(Fault::CloseOnShortBody),
            _ => false,
        }
    }
}

impl HostPlan {
    /// Moves the first key's state byte of `roster`, the link's message 5 after `sent`
    /// others: on every send (SEED-06's counter), or on each of the first three only, as
    /// Sunrise's warm-up does (facts 4.7), reaching the host's own byte, which the later
    /// rosters keep.
    fn move_state_byte(&self, roster: &mut SensorAuthUpdate, sent: u32) {
        let moves = if self.has(Fault::StateByteCounter) {
            i64::from(sent)
        } else if self.varies(Variation::StateByteWarmUp) {
            let warm = i64::from(STATE_BYTE_WARM_UP - 1);
            i64::from(sent).min(warm) - warm
        } else {
            return;
        };
        if let Some(r) = roster.roster.as_mut()
            && let Some(s) = r.states.first_mut()
        {
            *s = s.wrapping_add((moves % 128) as i8);
        }
    }
}
