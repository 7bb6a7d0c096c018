//! Activity messages on service 8: ownership, the join and its burst, the patch epoch and
//! the rosters it owes (this file); each other client message, decoded once in
//! `client_message.rs`, has its handler in a file of its own here: membership (23, 38),
//! refresh (18, 11), leave (15), entity slots (20, 21), client state (22), authority (27,
//! 29, 31, 32, 33), incidents (19), Sense (6) and connectivity failures (37).
//!
//! SR "The join burst", "What each client message gets"; AH "The activity envelope",
//! "Hazards for a host"; facts 4.15.

mod authority;
mod client_message;
mod client_state;
mod connectivity;
mod entity_slots;
mod incident;
mod leave;
mod membership;
mod refresh;
pub mod sense;

use crate::activities::Activities;
use crate::event::HostEvent;
use crate::host_timer::HostTimer;
use crate::link::Links;
use crate::link_id::LinkId;
use crate::mission::MissionEvent;
use crate::outbound::Moment;
use crate::policy::{RosterInputs, RosterSend};
use crate::reason::Dropped;
use crate::roster;
use crate::world::World;
use client_message::ClientMessage;
use connectivity::connectivity_failure;
use vex_wire::activity::body::Body;
use vex_wire::activity::envelope::ActivityNotification;
use vex_wire::activity::ids::{
    BUBBLE_HOST_STATE, ENTITY_SLOTS_ALLOCATED, GLOBAL_ACTIVITY_STATE, JOIN_REQUEST, JOIN_RESULT,
    REPLICATE_MEMBERSHIP, SENSOR_AUTH_UPDATE, WORLD_GLOBALS_STATE,
};
use vex_wire::activity::join::{JoinRequest, JoinResult};
use vex_wire::activity::join_template::JoinResultTemplate;
use vex_wire::activity::sensor_auth::{BODY_BUDGET, BubbleAuthority};
use vex_wire::activity::session::SessionId;
use vex_wire::activity::small::{BubbleHostState, PatchEpoch};
use vex_wire::activity::table;
use vex_wire::bap::services::ACTIVITY_TO_HOST;
use vex_wire::bits::BitError;
use vex_wire::time::Instant;

/// A roster built for one link.
struct BuiltRoster {
    body: Vec<u8>,
    map: std::collections::BTreeSet<vex_wire::activity::slot::ClientRef>,
    grant: Option<u16>,
}

/// Client ticks a second: its own default, 1000 / 30 ms (AH "world_globals_state").
const TICKS_PER_SECOND: u64 = 30;

/// The client tick `now` falls in.
fn client_tick(now: Instant) -> u64 {
    now.millis() * TICKS_PER_SECOND / 1000
}

/// The first millisecond of client tick `tick`.
fn tick_start(tick: u64) -> u64 {
    (tick * 1000).div_ceil(TICKS_PER_SECOND)
}

/// The bubble whose grant applies in this build (AUTH-12).
const GRANTED_BUBBLE: usize = 64;

impl Activities {
    /// One service-8 body. A message the message table says the client never sends, or
    /// from a link that does not own its session, is recorded and dropped; the frame itself
    /// is accepted (AH "Message ids"; HOST-06).
    pub(crate) fn handle_activity(
        &mut self,
        links: &mut Links,
        now: Instant,
        link: LinkId,
        task: u32,
        body: &[u8],
    ) {
        let n = match ActivityNotification::decode(body) {
            Ok(n) => n,
            Err(e) => return links.drop_input(link, Dropped::Envelope(e)),
        };
        links.record(link, ACTIVITY_TO_HOST, task, Some(n.msg_type));
        let msg = n.msg_type;
        self.inject(links, link, Moment::Reported { msg, task });
        if n.discriminator == 2 && !self.policy().take_discriminator_two() {
            return links.drop_input(link, Dropped::DiscriminatorTwo);
        }
        if !table::client_sends(n.msg_type) {
            return links.drop_input(link, Dropped::NotClientSent(n.msg_type));
        }
        let handle = SessionId(n.handle);
        if !self.owns(links, link, n.msg_type, handle) {
            let (msg, session) = (n.msg_type, handle);
            return links.drop_input(link, Dropped::Unowned { msg, session });
        }
        let message = match ClientMessage::decode(n.msg_type, &n.payload) {
            Ok(m) => m,
            Err(reason) => return links.drop_input(link, reason),
        };
        match message {
            ClientMessage::Join(join) => self.join(links, now, link, handle, join),
            ClientMessage::Identity(identity) => self.client_identity(links, link, identity),
            ClientMessage::PatchEpoch(epoch) => self.patch_epoch(links, link, epoch),
            ClientMessage::Leave(leave) => self.peer_leave(links, link, leave),
            ClientMessage::MembershipAcknowledged(ack) => {
                self.membership_acknowledged(links, link, ack)
            }
            ClientMessage::StateRefresh { trailing } => self.state_refresh(links, link, trailing),
            ClientMessage::ClientState(report) => self.client_state(links, link, report),
            ClientMessage::StartNewActivity => self.start_new_activity(links, link),
            ClientMessage::Purge(purge) => self.purge_request(links, link, purge),
            ClientMessage::Incident(incident) => self.incident(links, link, incident),
            ClientMessage::ResetAcknowledged(token) => self.reset_acknowledged(links, link, token),
            ClientMessage::BubbleMask(answer) => self.bubble_mask_answered(links, link, answer),
            ClientMessage::FullMask(answer) => self.full_mask_answered(links, link, answer),
            ClientMessage::Abdicate(abdication) => self.abdicate(links, link, abdication),
            ClientMessage::AllocateSlots(request) => {
                self.allocate_entity_slots(links, link, request)
            }
            ClientMessage::FreeSlots(mask) => self.free_entity_slots(links, link, mask),
            ClientMessage::Sense(payload) => self.sense_update(links, link, &payload),
            ClientMessage::ConnectivityFailure(failure) => {
                connectivity_failure(links, link, failure)
            }
            ClientMessage::Recorded => {}
        }
    }

    /// facts 4.15: message 3 may name the link's own private session or a public host
    /// session; every other message the session the link is bound to (HOST-06).
    fn owns(&self, links: &Links, link: LinkId, msg: u32, handle: SessionId) -> bool {
        let Some(b) = links.binding(link) else {
            return false;
        };
        if msg == JOIN_REQUEST {
            handle == b.private_session() || self.is_public_host(handle, link)
        } else {
            handle == b.session()
        }
    }

    /// A session another link hosts: an activity whose owner is one of its members, which
    /// any other link may join (SR "The join burst": a public join names "a session that
    /// belongs to a shared region's host").
    fn is_public_host(&self, session: SessionId, link: LinkId) -> bool {
        self.map
            .get(&session)
            .is_some_and(|a| a.owner() != link && a.has_member(a.owner()))
    }

    /// Message 3: the member takes a lane of the session it names, its own (a private
    /// join) or a public host's (a public join), and gets the join burst 4, 0, 1, 2, 54,
    /// 12, all at once (JOIN-02); every other member gets the new table (SR "The join
    /// burst"; HOST-14).
    fn join(
        &mut self,
        links: &mut Links,
        now: Instant,
        link: LinkId,
        handle: SessionId,
        join: JoinRequest,
    ) {
        if SessionId(join.host_id) != handle {
            let named = join.host_id;
            return links.drop_input(link, Dropped::JoinMismatch { named, handle });
        }
        let Some(binding) = links.binding(link) else {
            return;
        };
        let (previous, private) = (binding.session(), binding.private_session());
        let public = handle != private;
        let member = self.seed_member(&join);
        let Some(activity) = self.map.get_mut(&handle) else {
            return links.drop_input(link, Dropped::NoActivity(handle));
        };
        let revision_before = activity.revision();
        if let Err(e) = activity.admit(link, member) {
            return links.drop_input(link, Dropped::Admit(e)); // the link stays where it was
        }
        let started = activity.start(now);
        let lane = activity.lane(link);
        if started {
            self.arm_commit(handle); // armed at once: the timeline runs even if this burst fails
        }
        // it leaves the session it was in, unless that is its own private session, which a
        // public join reads and does not change (SR "The join burst")
        if previous != handle && previous != private {
            self.depart(links, link, previous);
        }
        links.enter(link, handle);
        let burst = match self.join_burst(links, link, &join, handle, public) {
            Ok(b) => b,
            Err(error) => return self.unjoin(links, link, handle, error),
        };
        let membership = burst.iter().any(|(msg, _)| *msg == REPLICATE_MEMBERSHIP);
        let current = self.map.get(&handle).map_or(0, |a| a.revision());
        for (msg, payload) in burst {
            links.push(link, msg, &payload, true);
        }
        self.inject(links, link, Moment::JoinBurst);
        let interval = self.policy().keepalive_interval();
        // the epoch message 4 told the client, which message 44 goes on from (EPOCH-01)
        let epoch = self
            .policy()
            .join_result(JoinResult::accept(&join, handle.0))
            .initial_epoch;
        if let Some(l) = links.get_mut(link)
            && let Some(binding) = l.binding_mut()
        {
            // a public joiner is sent the activity's table right below, after its private one;
            // a burst without one owes it, and the keepalive sends it (MEMBER-03)
            binding.joined(join, epoch, current);
            l.keepalive_at(interval.map(|ms| now + ms));
            links.arm(link, HostTimer::Keepalive);
        }
        // a public joiner's burst carried its private table: it gets the activity's too,
        // from the same encode as the other members when the table changed
        let joiner_too = public && membership;
        if current != revision_before {
            self.publish_membership(links, handle, (!joiner_too).then_some(link));
            self.epoch_waits(links, handle, Some(link));
        } else if joiner_too {
            self.push_membership(links, link, handle);
        }
        links.event(HostEvent::Joined {
            link,
            session: handle,
        });
        if started {
            self.mission_event(handle, MissionEvent::Started);
        }
        if let Some(member) = lane {
            self.mission_event(handle, MissionEvent::MemberJoined { member });
        }
    }

    /// A join whose burst could not be built: the member leaves the session again, and the
    /// link is back on its own private session with no joined client.
    fn unjoin(&mut self, links: &mut Links, link: LinkId, session: SessionId, error: BitError) {
        self.depart(links, link, session);
        if let Some(l) = links.get_mut(link) {
            l.keepalive_at(None);
        }
        links.unjoin(link);
        let msg = JOIN_RESULT;
        links.not_built(link, msg, error);
    }

    /// Builds every message of the burst first, so none is sent unless all are built.
    fn join_burst(
        &mut self,
        links: &mut Links,
        link: LinkId,
        join: &JoinRequest,
        session: SessionId,
        public: bool,
    ) -> Result<Vec<(u32, Vec<u8>)>, BitError> {
        let grant = self.join_grant(link, session);
        let template = match self.join_template.take() {
            Some(template) => template,
            None => JoinResultTemplate::new(
                &self
                    .policy()
                    .join_result(JoinResult::accept(join, session.0)),
            )?,
        };
        let echo = self.policy().join_echo(join.record.clone());
        let msg4 = template.encode(&echo, session.0);
        self.join_template = Some(template);
        let descriptor = links
            .binding(link)
            .map(|b| b.descriptor().clone())
            .unwrap_or_default();
        let msg1 = roster::global_state(&self.config.scenario, &descriptor);
        let msg1 = self.policy().global_state(msg1, true)?.encode()?;
        let membership = if public && self.policy().public_burst_private_table() {
            Some(self.private_table(links, link, join))
        } else if self.hold_table(session) {
            None
        } else {
            self.membership_table(session)
        };
        let scenario = &self.config.scenario;
        let mut burst = vec![
            (JOIN_RESULT, msg4),
            (ENTITY_SLOTS_ALLOCATED, grant.0),
            (GLOBAL_ACTIVITY_STATE, msg1),
            (WORLD_GLOBALS_STATE, self.world_globals().encode()?),
            (BUBBLE_HOST_STATE, self.bubble_host_state()?),
        ];
        if let Some(table) = membership {
            burst.push((REPLICATE_MEMBERSHIP, table.encode()?));
        }
        // no epoch yet: a roster in the burst could only echo zeros (AUTH-02)
        let context = RosterInputs {
            scenario,
            join,
            region: scenario.arrival_slice_set,
            world: self.map.get(&session).map_or(World::empty(), |a| a.world()),
            epoch: [0, 0],
        };
        self.policy().join_burst(burst, context)
    }

    /// Message 54: the empty host table (AH "The main messages").
    fn bubble_host_state(&self) -> Result<Vec<u8>, BitError> {
        let body = BubbleHostState { row_count: 0 }.encode()?;
        Ok(self.policy().bubble_host_state(body))
    }

    /// Message 52: keeps the epoch for the link; the first one answers with the first
    /// message 5 when a roster is owed (AUTH-16, SR step 5).
    fn patch_epoch(&mut self, links: &mut Links, link: LinkId, epoch: PatchEpoch) {
        let held = links.binding(link).and_then(|b| b.epoch());
        let epoch = self.policy().patch_epoch(held, epoch);
        let Some(binding) = links.binding_mut(link) else {
            return;
        };
        binding.report_epoch(epoch);
        let Some(join) = binding.join().cloned() else {
            return;
        };
        if !binding.roster_mut().take_first() {
            return;
        }
        if !self.policy().first_roster() {
            return;
        }
        self.push_roster(links, link, &join, epoch, false);
        self.inject(links, link, Moment::FirstRoster);
    }

    /// Message 5 with the whole roster of the member's region and every Auth body the host
    /// holds, echoing the client's `epoch` (AUTH-01, AUTH-09), as part of a `snapshot` or
    /// not; none while a region move waits for the client's roster request (AUTH-13, the
    /// HOST-05 note of `rules.md`).
    pub(crate) fn push_roster(
        &mut self,
        links: &mut Links,
        link: LinkId,
        join: &JoinRequest,
        epoch: PatchEpoch,
        snapshot: bool,
    ) {
        let Some(binding) = links.binding(link) else {
            return;
        };
        if binding.roster().held() {
            return; // held until the region move's roster request (AUTH-13)
        }
        match self.build_roster(links, link, join, epoch, snapshot) {
            Err(error) => {
                let msg = SENSOR_AUTH_UPDATE;
                links.not_built(link, msg, error);
            }
            Ok(built) if !self.fits_tick(links, link, built.body.len()) => {
                // the whole roster again in the next tick; this one is not sent (AUTH-10)
                let next = tick_start(client_tick(self.now) + 1);
                let due = Instant::from_millis(next);
                if links
                    .binding_mut(link)
                    .is_some_and(|b| b.roster_mut().defer(due))
                {
                    links.arm(link, HostTimer::DeferredRoster);
                }
            }
            Ok(built) => {
                links.push_message(link, SENSOR_AUTH_UPDATE, &built.body);
                if let Some(b) = links.binding_mut(link) {
                    b.roster_mut().sent_one(built.map); // what Sense is read against (AUTH-15)
                    if let Some(token) = built.grant {
                        b.authority_mut().granted(token);
                    }
                }
            }
        }
    }

    /// The link's roster as [`HostCore::push_roster`] sends it: the body, the slots it
    /// registers, and the bubble-64 grant token it carries.
    fn build_roster(
        &self,
        links: &Links,
        link: LinkId,
        join: &JoinRequest,
        epoch: PatchEpoch,
        snapshot: bool,
    ) -> Result<BuiltRoster, BitError> {
        let b = links.binding(link);
        let send = RosterSend {
            sent: b.map_or(0, |b| b.roster().sent()),
            snapshot,
        };
        let session = b.map_or(SessionId::default(), |b| b.session());
        let sense_override = b.and_then(|b| b.roster().sense_override().cloned());
        let grant = self.bubble_grant_due(links, link, session);
        let mut m = roster::sensor_auth(&self.roster_inputs(link, session, join, epoch.0))?;
        m.prefix.bubble_block = grant.map(|t| BubbleAuthority::granting(GRANTED_BUBBLE, t));
        if let Some((slot, bits)) = sense_override {
            let block = m
                .groups
                .iter_mut()
                .flat_map(|g| &mut g.objects)
                .find(|o| o.slot == slot);
            if let Some(o) = block.filter(|o| o.sense.is_some()) {
                o.sense = Some(Some(bits)); // overwrites the client's Sense (AH "Message 5")
            }
        }
        let m = self.policy().roster(m, send);
        let map = m
            .groups
            .iter()
            .flat_map(|g| g.objects.iter().map(|o| o.slot))
            .collect();
        let body = m.encode()?;
        if body.len() > BODY_BUDGET {
            // a body the client refuses, and then it ignores message 5 (AUTH-10)
            return Err(BitError::Unsafe {
                what: "message 5 bytes, over the per-tick budget",
                value: body.len() as i64,
            });
        }
        Ok(BuiltRoster { body, map, grant })
    }

    /// The token of bubble 64's grant, when `link` is the owner of `session` and does not
    /// hold it yet: the token after the client's mirror (AH "The bubble-authority block";
    /// AUTH-11, AUTH-12: bubble 64 is the one bubble whose grant applies). The activity's
    /// owner runs the activity's actors.
    fn bubble_grant_due(&self, links: &Links, link: LinkId, session: SessionId) -> Option<u16> {
        let owner = self.map.get(&session).map(|a| a.owner());
        let b = links.binding(link)?;
        b.authority().grant_due().filter(|_| owner == Some(link))
    }

    /// True when a message 5 of `len` bytes fits the client's current tick beside the
    /// ones sent in it; then it is counted (AUTH-10).
    fn fits_tick(&mut self, links: &mut Links, link: LinkId, len: usize) -> bool {
        let tick = client_tick(self.now);
        links
            .binding_mut(link)
            .is_some_and(|b| b.roster_mut().fits_tick(tick, len))
    }

    /// What member `link` of `session`'s roster is built from: the scenario, its join,
    /// the region it stands in, the world the host holds, and `epoch`.
    pub(crate) fn roster_inputs<'a>(
        &'a self,
        link: LinkId,
        session: SessionId,
        join: &'a JoinRequest,
        epoch: [u64; 2],
    ) -> RosterInputs<'a> {
        RosterInputs {
            scenario: &self.config.scenario,
            join,
            region: self.region_of(link, session),
            world: self.map.get(&session).map_or(World::empty(), |a| a.world()),
            epoch,
        }
    }

    /// The link's whole roster again, when its client is joined and its epoch known.
    pub(crate) fn push_current_roster(&mut self, links: &mut Links, link: LinkId) {
        let Some(b) = links.binding(link) else {
            return;
        };
        if let (Some(join), Some(epoch)) = (b.join().cloned(), b.epoch()) {
            self.push_roster(links, link, &join, epoch, false);
        }
    }
}
