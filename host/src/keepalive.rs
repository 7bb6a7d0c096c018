//! What the host pushes on its own clock and how every push leaves it: the keepalive with
//! message 1, message 44 when a replication epoch is waiting, message 12 while
//! unacknowledged; each push through the outbound hook.
//!
//! SR "Timed sends that remain", "What the host pushes on its own"; AH "Hazards for a
//! host" (message 44); LINK-03, EPOCH-01, EPOCH-02, MEMBER-03.

use crate::activities::Activities;
use crate::event::Transmit;
use crate::host_timer::HostTimer;
use crate::link::Links;
use crate::link_id::LinkId;
use crate::outbound::{Injected, Moment};
use crate::reason::Closed;
use crate::roster;
use vex_wire::activity::body::Body;
use vex_wire::activity::envelope::PushHeader;
use vex_wire::activity::ids::{ADVANCE_REPLICATION_EPOCH, GLOBAL_ACTIVITY_STATE};
use vex_wire::activity::small::WorldGlobals;
use vex_wire::bap::header::{FrameType, InnerHeader};
use vex_wire::bap::services::ACTIVITY_PUSH;
use vex_wire::time::Instant;

impl Activities {
    /// Message 2: the client's own tick period (WORLD-03).
    pub(crate) fn world_globals(&self) -> WorldGlobals {
        self.policy().world_globals(WorldGlobals::default_tick())
    }

    /// Sends what the outbound hook adds at `moment`.
    pub(crate) fn inject(&mut self, links: &mut Links, link: LinkId, moment: Moment<'_>) {
        let added = self.outbound().after(moment);
        self.send_injected(links, link, added);
    }

    /// Sends frames the outbound hook added.
    pub(crate) fn send_injected(&mut self, links: &mut Links, link: LinkId, added: Vec<Injected>) {
        for added in added {
            match added {
                Injected::Inner { service, inner } => links.send_with(link, |l| Transmit {
                    link,
                    bytes: l.frame_inner(l.push_type(), &inner),
                    service,
                    message: None,
                }),
                Injected::Push(msg, payload) => links.push_message(link, msg, &payload),
                Injected::UnboundPush {
                    session,
                    msg,
                    payload,
                } => links.send_with(link, |l| {
                    let mut frame = l.push_frame(payload.len());
                    frame.buffer().extend_from_slice(&payload);
                    let header = PushHeader::new(session.0, msg, payload.len());
                    l.push(frame, &header, 0)
                }),
                Injected::GlobalState => self.push_global_state(links, link),
                Injected::Roster => self.push_current_roster(links, link),
                Injected::LostFrame => {
                    if let Some(l) = links.get_mut(link) {
                        // sealed, so the send nonce moves on, and dropped
                        let header = InnerHeader::request(ACTIVITY_PUSH, 0);
                        drop(l.framed(FrameType::Encrypted, header, &[]));
                    }
                }
                Injected::Close(reason) => {
                    if let Some(l) = links.get_mut(link) {
                        l.shut();
                    }
                    links.close(link, Closed::Plan(reason));
                }
            }
        }
    }

    /// Message 1 from the link's binding.
    pub(crate) fn push_global_state(&mut self, links: &mut Links, link: LinkId) {
        let Some(descriptor) = links.binding(link).map(|b| b.descriptor().clone()) else {
            return;
        };
        let state = roster::global_state(&self.config.scenario, &descriptor);
        match self
            .policy()
            .global_state(state, false)
            .and_then(|s| s.encode())
        {
            Ok(body) => links.push_message(link, GLOBAL_ACTIVITY_STATE, &body),
            Err(error) => links.not_built(link, GLOBAL_ACTIVITY_STATE, error),
        }
    }

    /// The 2-second keepalive: message 1 (LINK-03), message 44 when a replication epoch
    /// is waiting, and message 12 while its revision is unacknowledged (MEMBER-03).
    pub(crate) fn keepalive(&mut self, links: &mut Links, now: Instant, link: LinkId) {
        self.push_global_state(links, link);
        self.advance_epoch_if_waiting(links, link);
        self.resend_membership_if_owed(links, link);
        self.inject(links, link, Moment::Keepalive);
        let interval = self.policy().keepalive_interval();
        if let Some(l) = links.get_mut(link) {
            l.keepalive_at(interval.map(|ms| now + ms));
        }
        links.arm(link, HostTimer::Keepalive);
    }

    /// Message 44: the epoch after the one the client holds, sent once and never retried
    /// (EPOCH-01), with the abort bit clear, since it is permanent (EPOCH-02).
    fn advance_epoch_if_waiting(&mut self, links: &mut Links, link: LinkId) {
        let Some(binding) = links.binding(link) else {
            return;
        };
        let Some(held) = binding.replication().waiting() else {
            return;
        };
        let next = self.policy().next_epoch(held);
        if let Some(b) = links.binding_mut(link) {
            b.replication_mut().advanced(next.epoch);
        }
        let msg = ADVANCE_REPLICATION_EPOCH;
        match next.encode() {
            Ok(body) => links.push_message(link, msg, &body),
            Err(error) => return links.not_built(link, msg, error),
        }
        self.inject(links, link, Moment::EpochSent);
    }
}
