//! The emulated client's clock: every timer is one [`ClientTimer`], its deadline comes
//! from the one table in [`Clocks::deadline`], and [`ClientCore::handle_timeout`]
//! fires each due timer through the one match in [`ClientCore::fire`] (design "Sans-IO
//! cores").

use crate::activity_client::{ActivityClient, REQUESTED_SLOTS};
use crate::config::LINK_SILENCE_MS;
use crate::core::ClientCore;
use crate::link::{ClientLink, LinkKind};
use crate::rules::Rule;
use vex_wire::time::Instant;
use zerocopy::IntoBytes;

/// Declares [`ClientTimer`] and [`ClientTimer::ALL`] from one list, in firing order.
macro_rules! client_timers {
    ($($(#[doc = $doc:literal])* $name:ident,)*) => {
        /// Everything the client does on its own clock. `handle_timeout` fires them in this
        /// order, each judged due when its turn comes: message 52 resets the link's send
        /// clock that message 16 waits on.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(crate) enum ClientTimer {
            $($(#[doc = $doc])* $name,)*
        }

        impl ClientTimer {
            /// Every timer, in the order they fire.
            const ALL: &[ClientTimer] = &[$(ClientTimer::$name),*];
        }
    };
}

client_timers! {
    /// 20.5 s with no bytes on the Activity Host link ends the activity (LINK-01).
    LinkSilence,
    /// The host keepalive, message 1 every 2 s, is overdue (LINK-03).
    HostKeepalive,
    /// The client changes its patch epoch, when the script changes it (AUTH-01).
    EpochChange,
    /// Message 52 every second (LINK-02).
    PatchEpoch,
    /// Message 16 after a keepalive interval with nothing sent (LINK-02, JOIN-07).
    Keepalive,
    /// Messages 21 and 20, when the script asks for entity slots (HOST-04).
    SlotRequest,
    /// Message 18, when the script asks for the snapshot (HOST-03).
    Refresh,
    /// Message 11, when the script starts the activity anew (HOST-03).
    StartActivity,
    /// Message 23, when the script reports the identity (HOST-15).
    Identity,
    /// Message 15, when the script leaves (LEAVE-01).
    Leave,
    /// Service 6 again after the leave, when the script joins again (HOST-14).
    Rejoin,
    /// Message 22 moving into the next bubble, when the script moves (HOST-05).
    RegionMove,
    /// Message 18 asking for the new region's roster after the move (AUTH-13).
    RosterRequest,
    /// Message 27, when the script asks for a purge (HOST-08).
    Purge,
    /// Message 33, when the script gives authority up (HOST-17).
    Abdicate,
    /// Message 19, when the script posts an incident (HOST-18).
    Incident,
    /// Message 6, the Ghost scan bar's next Sense report.
    Sense,
    /// The scripted probe's own message (`crate::probe`).
    Probe,
    /// The QoS probe of the session, when the script sends one (QOS-02).
    QosProbe,
    /// The QoS reply is overdue (QOS-02).
    QosReply,
    /// The association's init, when the script opens one (PEER-07).
    Associate,
    /// The association's awaited answer is overdue (PEER-07).
    AssociationAnswer,
    /// The group session's connection has a datagram due: a resend or an ACK (PEER-14).
    PeerResend,
}

impl ClientCore {
    /// When [`ClientCore::handle_timeout`] next has work: the earliest timer.
    pub fn poll_timeout(&self) -> Option<Instant> {
        if !self.verdict.running() {
            return None;
        }
        let clocks = self.clocks();
        (ClientTimer::ALL.iter())
            .filter_map(|&timer| clocks.deadline(timer))
            .min()
    }

    /// Time passed: every timer due at `now` fires, in order, while the run goes on.
    pub fn handle_timeout(&mut self, now: Instant) {
        for &timer in ClientTimer::ALL {
            if !self.verdict.running() {
                return;
            }
            if self.clocks().deadline(timer).is_some_and(|at| at <= now) {
                self.fire(now, timer);
            }
        }
    }

    /// What the timer table reads, looked up once for every timer.
    fn clocks(&self) -> Clocks<'_> {
        let link = self.links.live(LinkKind::Activity);
        let activity = self.activity.as_ref();
        let joined = activity.filter(|a| a.join.established());
        // a client that left asks the activity for nothing more until it joins again (AH
        // "peer_leave_request"): a request its leave overtook is not sent
        let present = joined.filter(|a| !a.leave.left());
        Clocks {
            link,
            activity,
            joined,
            present,
        }
    }

    /// Fires `timer` at `now`: the link's ends the activity, the activity client's
    /// report or send what their states say.
    fn fire(&mut self, now: Instant, timer: ClientTimer) {
        let Self {
            config,
            links,
            activity,
            verdict,
            ..
        } = self;
        let player = &config.scenario.player;
        match (timer, activity.as_mut()) {
            (ClientTimer::LinkSilence, _) => {
                let silent = links
                    .live(LinkKind::Activity)
                    .map_or(0, |l| now.since(l.last_rx));
                let reason = format!(
                    "error_host_crashed: no bytes on the Activity Host link for {silent} ms"
                );
                verdict.violate(Rule::Link01, None, None, reason);
            }
            // every other timer is the activity client's: none is due before it exists
            (_, None) => {}
            (ClientTimer::HostKeepalive, Some(a)) => a.keepalive.report_host_overdue(verdict),
            (ClientTimer::EpochChange, Some(a)) => a.epochs.change_patch(now, config.patch_epoch),
            (ClientTimer::PatchEpoch, Some(a)) => {
                a.auth_cause.on_epoch_sent(now);
                let out = a.epochs.send_patch(now, config.patch_epoch);
                links.send_activity(now, a.join.handle(), out);
            }
            (ClientTimer::Keepalive, Some(a)) => {
                links.send_activity(now, a.join.handle(), a.keepalive.send());
            }
            (ClientTimer::SlotRequest, Some(a)) => {
                for out in a.slots.request(now, REQUESTED_SLOTS) {
                    links.send_activity(now, a.join.handle(), out);
                }
            }
            (ClientTimer::Refresh, Some(a)) => {
                let revision = a.membership.acknowledged_revision();
                let (public, bubble) = (a.join.public(), a.region.bubble());
                let out = a.refresh.ask(now, public, revision, bubble);
                links.send_activity(now, a.join.handle(), out);
            }
            (ClientTimer::Probe, Some(a)) => a.send_probe(now, links),
            (ClientTimer::QosProbe, Some(a)) => {
                let request = a.qos.send(now, a.join.handle());
                links.send_datagram(request.as_bytes());
            }
            (ClientTimer::QosReply, Some(a)) => a.qos.report_unanswered(verdict),
            (ClientTimer::Associate, Some(a)) => {
                let region_host = a.membership.group_host(a.region.bubble());
                if let Some(to) = region_host.or(links.activity_address()) {
                    let init = a.association.open(now, a.join.handle(), to);
                    links.send_datagram_to(to, init.as_bytes());
                }
            }
            (ClientTimer::AssociationAnswer, Some(a)) => a.association.report_unanswered(verdict),
            (ClientTimer::PeerResend, Some(a)) => {
                let datagrams = a.association.poll(now);
                links.send_datagrams_to(a.association.peer(), &datagrams);
            }
            (ClientTimer::StartActivity, Some(a)) => {
                let descriptor = config.scenario.destination.to_bits();
                let body = descriptor.map(|d| d.bytes).unwrap_or_default();
                let out = a.refresh.start_activity(now, a.join.public(), body);
                links.send_activity(now, a.join.handle(), out);
            }
            (ClientTimer::Purge, Some(a)) => {
                let out = a.authority.purge(now, a.slots.lease());
                links.send_activity(now, a.join.handle(), out);
            }
            (ClientTimer::Abdicate, Some(a)) => {
                let out = a.authority.abdicate(a.slots.lease(), a.region.bubble());
                links.send_activity(now, a.join.handle(), out);
            }
            (ClientTimer::Incident, Some(a)) => {
                let player = a.slots.lease().lowest().unwrap_or_default();
                let out = a.reports.incident(player);
                links.send_activity(now, a.join.handle(), out);
            }
            (ClientTimer::Sense, Some(a)) => {
                let epoch = a.epochs.patch_sent().unwrap_or_default();
                if let Some(out) = a.ghost.report(now, epoch) {
                    links.send_activity(now, a.join.handle(), out);
                }
            }
            (ClientTimer::RegionMove, Some(a)) => {
                let out = a.region.report_move(now, &config.scenario);
                a.roster.sweep();
                a.auth_cause.forget();
                links.send_activity(now, a.join.handle(), out);
            }
            (ClientTimer::RosterRequest, Some(a)) => {
                a.region.request_sent(now);
                let revision = a.membership.acknowledged_revision();
                let (public, bubble) = (a.join.public(), a.region.bubble());
                let out = a.refresh.ask(now, public, revision, bubble);
                links.send_activity(now, a.join.handle(), out);
            }
            (ClientTimer::Identity, Some(a)) => {
                if let Some(out) = a.identity.report(player, now, a.join.public()) {
                    links.send_activity(now, a.join.handle(), out);
                }
            }
            (ClientTimer::Leave, Some(a)) => {
                let out =
                    a.leave
                        .depart(now, a.roster.last(), a.region.bubble(), player.member_key);
                links.send_activity(now, a.join.handle(), out);
            }
            // the activity client that left is judged now; service 7 makes the next one
            (ClientTimer::Rejoin, Some(a)) => a.finish(verdict, now),
        }
        if timer == ClientTimer::Rejoin {
            self.end_activity();
            self.request_host(now);
        }
    }
}

/// The client's state as the timer table reads it: the Activity Host link while it lives,
/// and the activity client once it exists, once its join was accepted, and while the
/// client has not left.
#[derive(Clone, Copy)]
struct Clocks<'a> {
    link: Option<&'a ClientLink>,
    activity: Option<&'a ActivityClient>,
    joined: Option<&'a ActivityClient>,
    present: Option<&'a ActivityClient>,
}

impl Clocks<'_> {
    /// The timer table: when `timer` is due, if it is set. The client's own timers run
    /// once the join was accepted; the link's while the link is alive.
    fn deadline(self, timer: ClientTimer) -> Option<Instant> {
        let Self {
            link,
            activity,
            joined,
            present,
        } = self;
        match timer {
            ClientTimer::LinkSilence => link.map(|l| l.last_rx + LINK_SILENCE_MS),
            // a client that left expects nothing more of the host (AH "peer_leave_request")
            ClientTimer::HostKeepalive => activity
                .filter(|a| !a.leave.left())?
                .keepalive
                .host_overdue_at(),
            ClientTimer::EpochChange => present?.epochs.change_due(),
            ClientTimer::PatchEpoch => joined?.epochs.patch_due(),
            ClientTimer::Keepalive => Some(joined?.keepalive.send_due(link?.last_tx)),
            ClientTimer::SlotRequest => present?.slots.request_due(),
            ClientTimer::Refresh => present?.refresh.due(),
            ClientTimer::StartActivity => present?.refresh.start_due(),
            ClientTimer::Identity => present?.identity.due(),
            ClientTimer::Leave => present?.leave.due(),
            ClientTimer::Rejoin => joined?.leave.rejoin_due(),
            ClientTimer::RegionMove => present?.region.move_due(),
            ClientTimer::RosterRequest => present?.region.request_due(),
            ClientTimer::Purge => present?.authority.purge_due(),
            ClientTimer::Abdicate => present?.authority.abdicate_due(),
            ClientTimer::Incident => present?.reports.incident_due(),
            // a client that left reports nothing more (AH "peer_leave_request")
            ClientTimer::Sense => present?.ghost.due(),
            ClientTimer::Probe => present?.probe.due(),
            ClientTimer::QosProbe => present?.qos.due(),
            ClientTimer::QosReply => activity?.qos.reply_due(),
            ClientTimer::Associate => present?.association.due(),
            ClientTimer::AssociationAnswer => activity?.association.answer_due(),
            ClientTimer::PeerResend => activity?.association.resend_due(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ClientConfig;
    use crate::verdict::Outcome;
    use std::net::{Ipv4Addr, SocketAddrV4};

    /// Before any activity client, the only timer is the Activity Host link's silence: it
    /// is the table's minimum, and firing it ends the run, which stops the clock (LINK-01).
    #[test]
    fn a_silent_link_is_the_first_deadline_and_ends_the_run() {
        let target = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 1);
        let mut c = ClientCore::new(ClientConfig::builtin(target));
        assert_eq!(c.poll_timeout(), None);
        c.handle_connected(Instant::from_millis(5), LinkKind::Activity);
        let silence = Instant::from_millis(5 + LINK_SILENCE_MS);
        assert_eq!(c.poll_timeout(), Some(silence));
        c.handle_timeout(Instant::from_millis(4 + LINK_SILENCE_MS));
        assert!(c.verdict.running());
        c.handle_timeout(silence);
        assert!(matches!(
            c.outcome(),
            Outcome::Ended {
                rule: Rule::Link01,
                ..
            }
        ));
        assert_eq!(c.poll_timeout(), None);
    }
}
